//! The reference interpreter of `.jvr`: the source semantics that the
//! compiled code must reproduce, used as the oracle of differential tests.
//!
//! It walks the syntax tree directly (not the SSA form the compiler builds),
//! so that a mistake of the SSA conversion cannot hide in both sides of a
//! comparison. Variables are mutable registers per call frame; calls use an
//! explicit stack, so deep recursion cannot overflow the host stack, and
//! `tcall` replaces the caller's frame.

use std::collections::HashMap;

use crate::felt::Felt;
use crate::jvr::{Cond, Function, Module, Stmt, StmtKind, Value, VarName};

/// Why a run stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JvrRunError {
    /// No definition of the entry function.
    #[error("no function named {0}")]
    NoEntry(String),
    /// The entry function takes another number of arguments.
    #[error("{name} takes {expected} arguments, {found} given")]
    Arity {
        /// Function.
        name: String,
        /// Its parameters.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// A call to a function without a definition.
    #[error("call to undefined function {0}")]
    UnknownFunction(String),
    /// A variable read before it was written.
    #[error("read of unassigned variable {0}")]
    Unassigned(String),
    /// `fdiv` by zero.
    #[error("division by zero")]
    DivisionByZero,
    /// The end of a function body reached without `ret`.
    #[error("function {0} ended without ret")]
    NoReturn(String),
    /// The step budget ran out.
    #[error("out of fuel")]
    OutOfFuel,
    /// More nested calls than the configured limit.
    #[error("call depth exceeds {0}")]
    TooDeep(usize),
}

/// Limits of a run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Instructions executed at most.
    pub fuel: u64,
    /// Live call frames at most.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: 10_000_000,
            max_depth: 100_000,
        }
    }
}

struct Frame<'a> {
    func: &'a Function,
    env: HashMap<VarName, Felt>,
    conts: Vec<(&'a [Stmt], usize)>,
    ret_dst: Option<VarName>,
}

fn new_frame<'a>(func: &'a Function, args: Vec<Felt>, ret_dst: Option<VarName>) -> Frame<'a> {
    let mut env = HashMap::new();
    for (i, (p, v)) in func.params.iter().zip(args).enumerate() {
        env.insert(VarName::Arg(i as u32), v);
        if let Some(n) = &p.name {
            env.insert(VarName::Named(n.clone()), v);
        }
    }
    let body: &'a [Stmt] = func.body.as_deref().unwrap_or(&[]);
    Frame {
        func,
        env,
        conts: vec![(body, 0)],
        ret_dst,
    }
}

fn read(env: &HashMap<VarName, Felt>, v: &Value) -> Result<Felt, JvrRunError> {
    match v {
        Value::Const(c) => Ok(*c),
        Value::Var(name, _) => env
            .get(name)
            .copied()
            .ok_or_else(|| JvrRunError::Unassigned(name.to_string())),
    }
}

/// Runs `entry` with `args`; returns its result and the number of
/// instructions executed.
pub fn run(
    module: &Module,
    entry: &str,
    args: &[Felt],
    limits: Limits,
) -> Result<(Felt, u64), JvrRunError> {
    let funcs: HashMap<&str, &Function> = module
        .functions
        .iter()
        .filter(|f| f.body.is_some())
        .map(|f| (f.name.as_str(), f))
        .collect();
    let lookup = |name: &str, n: usize| -> Result<&Function, JvrRunError> {
        let f = funcs
            .get(name)
            .copied()
            .ok_or_else(|| JvrRunError::UnknownFunction(name.to_string()))?;
        if f.params.len() != n {
            return Err(JvrRunError::Arity {
                name: name.to_string(),
                expected: f.params.len(),
                found: n,
            });
        }
        Ok(f)
    };
    let main = funcs
        .get(entry)
        .copied()
        .ok_or_else(|| JvrRunError::NoEntry(entry.to_string()))?;
    lookup(entry, args.len())?;
    let mut stack = vec![new_frame(main, args.to_vec(), None)];
    let mut steps = 0u64;
    loop {
        let Some(frame) = stack.last_mut() else {
            return Err(JvrRunError::NoReturn(entry.to_string()));
        };
        let Some((stmts, idx)) = frame.conts.last_mut() else {
            return Err(JvrRunError::NoReturn(frame.func.name.clone()));
        };
        if *idx == stmts.len() {
            frame.conts.pop();
            continue;
        }
        let stmt = &stmts[*idx];
        *idx += 1;
        steps += 1;
        if steps > limits.fuel {
            return Err(JvrRunError::OutOfFuel);
        }
        match &stmt.kind {
            StmtKind::Assign { dst, src } => {
                let v = read(&frame.env, src)?;
                frame.env.insert(dst.clone(), v);
            }
            StmtKind::Binop { dst, op, a, b } => {
                let (a, b) = (read(&frame.env, a)?, read(&frame.env, b)?);
                let v = op.eval(a, b).ok_or(JvrRunError::DivisionByZero)?;
                frame.env.insert(dst.clone(), v);
            }
            StmtKind::Call { dst, func, args } => {
                let vals = args
                    .iter()
                    .map(|a| read(&frame.env, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let callee = lookup(func, vals.len())?;
                if stack.len() >= limits.max_depth {
                    return Err(JvrRunError::TooDeep(limits.max_depth));
                }
                stack.push(new_frame(callee, vals, Some(dst.clone())));
            }
            StmtKind::TailCall { func, args } => {
                let vals = args
                    .iter()
                    .map(|a| read(&frame.env, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let callee = lookup(func, vals.len())?;
                let ret_dst = frame.ret_dst.take();
                *frame = new_frame(callee, vals, ret_dst);
            }
            StmtKind::Ret(v) => {
                let v = read(&frame.env, v)?;
                let done = stack.pop().and_then(|f| f.ret_dst);
                match (stack.last_mut(), done) {
                    (Some(caller), Some(dst)) => {
                        caller.env.insert(dst, v);
                    }
                    _ => return Ok((v, steps)),
                }
            }
            StmtKind::Branch {
                cond,
                on_true,
                on_false,
                ..
            } => {
                let taken = match cond {
                    Cond::NonZero(v) => !read(&frame.env, v)?.is_zero(),
                    Cond::Cmp(op, a, b) => {
                        let (a, b) = (read(&frame.env, a)?, read(&frame.env, b)?);
                        op.eval(a, b) == Some(Felt::ONE)
                    }
                };
                let arm: &[Stmt] = if taken { on_true } else { on_false };
                frame.conts.push((arm, 0));
            }
        }
    }
}
