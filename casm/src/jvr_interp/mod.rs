//! The reference interpreter of `.jvr`: the source semantics that the
//! compiled code must reproduce, used as the oracle of differential tests.
//!
//! It walks the syntax tree directly (not the SSA form the compiler builds),
//! so that a mistake of the SSA conversion cannot hide in both sides of a
//! comparison. Variables are mutable registers per call frame; calls use an
//! explicit stack, so deep recursion cannot overflow the host stack, and
//! `tcall` replaces the caller's frame.
//!
//! Values are numbers, booleans, `unit`, `void`, strings, constructors (a
//! tag and fields), closures (a function and the arguments stored so far)
//! and IO actions ([`Val`]). The arithmetic is that of Juvix's Cairo
//! backend (integers are field elements, `div`/`mod` truncate toward zero,
//! in the range the compiled code proves), and the rest that of Juvix's Reg
//! interpreter: `eq` compares constructors structurally, `ccall` applies a
//! closure to any number of arguments, and an IO action returned by the
//! entry runs its effects in order. A run prints as terms or as the field
//! elements the Cairo backend stores ([`Show`]).

use std::collections::HashMap;
use std::rc::Rc;

use crate::felt::Felt;
use crate::heap::Kind;
use crate::jvr::{BinOp, BuiltinOp, Cond, Function, Module, Stmt, StmtKind, StrOp, Value, VarName};
use crate::ssa::type_kind;

mod value;

pub use value::{printed_lines, ClosureVal, CtorVal, Event, IoAction, Show, Val};

/// Why a run stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JvrRunError {
    /// No definition of the entry function.
    #[error("no function named {0}")]
    NoEntry(String),
    /// The entry function takes another number of arguments.
    #[error("{name} takes {}, {found} given", crate::counted(*.expected, "argument"))]
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
    /// A division by zero, or an integer operand out of the range the
    /// compiled code proves ([`crate::jvr::BinOp::check_range`]).
    #[error(transparent)]
    Arith(#[from] crate::jvr::ArithError),
    /// The end of a function body reached without `ret`.
    #[error("function {0} ended without ret")]
    NoReturn(String),
    /// The step budget ran out.
    #[error("out of fuel")]
    OutOfFuel,
    /// More nested calls than the configured limit.
    #[error("call depth exceeds {0}")]
    TooDeep(usize),
    /// A value of the wrong kind (a closure where a number is expected,
    /// a field read of another constructor, ...).
    #[error("{0}")]
    Kind(String),
    /// A constructor no `type` declares.
    #[error("unknown constructor {0}")]
    UnknownConstructor(String),
    /// `case` on a constructor without an arm and without `default`.
    #[error("case has no arm for constructor {0}")]
    NoArm(String),
    /// A closure called with other than its remaining number of arguments.
    #[error("closure of {func} takes {expected} more arguments, {found} given")]
    ClosureArity {
        /// The closure's function.
        func: String,
        /// Arguments it still takes.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// `fail v` ran.
    #[error("fail: {0}")]
    Fail(String),
    /// An IO `readLn` after the end of the input.
    #[error("readLn: end of input")]
    EndOfInput,
    /// `atoi` of a string that spells no integer.
    #[error("string to integer: not an integer: {0:?}")]
    NotAnInteger(String),
    /// `show` of an integer outside the range the compiled code proves.
    #[error("show of {0}: outside [-2^128, 2^128)")]
    ShowRange(Felt),
    /// A builtin's operands are not what it takes, or `ec_op` reached the
    /// point at infinity.
    #[error("{0}")]
    Builtin(String),
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
            fuel: crate::MAX_STEPS,
            max_depth: 100_000,
        }
    }
}

/// The result of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The entry function's result.
    pub value: Val,
    /// What the run printed (`trace`s and IO `write`s), in order.
    pub events: Vec<Event>,
    /// Instructions executed.
    pub steps: u64,
}

impl Outcome {
    /// The lines the run prints: its events, then its result.
    pub fn lines(&self, show: Show) -> Vec<String> {
        printed_lines(&self.events, &self.value, show)
    }

    /// The values of the `trace` instructions executed, in order.
    pub fn traces(&self) -> impl Iterator<Item = &Val> {
        self.events.iter().filter_map(|e| match e {
            Event::Trace(v) => Some(v),
            Event::Write(_) => None,
        })
    }
}

struct Frame<'a> {
    func: &'a Function,
    /// The kind the value returned is read as: the declared result type
    /// of the function called, or of the first one a chain of tail calls
    /// from it declares.
    result: Kind,
    env: HashMap<VarName, Val>,
    conts: Vec<(&'a [Stmt], usize)>,
    ret_dst: Option<VarName>,
}

/// A frame of `func` called on `args`, each read as its parameter's
/// declared type says ([`Val::as_declared`]).
fn new_frame<'a>(
    module: &Module,
    func: &'a Function,
    args: Vec<Val>,
    ret_dst: Option<VarName>,
) -> Frame<'a> {
    let mut env = HashMap::new();
    for (i, (p, v)) in func.params.iter().zip(args).enumerate() {
        let v = v.as_declared(type_kind(module, &p.ty));
        if let Some(n) = &p.name {
            env.insert(VarName::Named(n.clone()), v.clone());
        }
        env.insert(VarName::Arg(i as u32), v);
    }
    let body: &'a [Stmt] = func.body.as_deref().unwrap_or(&[]);
    Frame {
        func,
        result: type_kind(module, &func.ret),
        env,
        conts: vec![(body, 0)],
        ret_dst,
    }
}

fn lookup_var(env: &HashMap<VarName, Val>, name: &VarName) -> Result<Val, JvrRunError> {
    env.get(name)
        .cloned()
        .ok_or_else(|| JvrRunError::Unassigned(name.to_string()))
}

fn read(env: &HashMap<VarName, Val>, v: &Value) -> Result<Val, JvrRunError> {
    match v {
        Value::Const(c) => Ok(Val::Felt(*c)),
        Value::Bool(b) => Ok(Val::Bool(*b)),
        Value::Unit => Ok(Val::Unit),
        Value::Void => Ok(Val::Void),
        Value::Str(text) => Ok(Val::Str(text.as_str().into())),
        Value::Var(name, _) => lookup_var(env, name),
        Value::Field {
            var, ctor, index, ..
        } => match lookup_var(env, var)? {
            Val::Ctor(c) if c.name == *ctor => c
                .fields
                .get(*index as usize)
                .cloned()
                .ok_or_else(|| JvrRunError::Kind(format!("{ctor} has no field {index}"))),
            other => Err(JvrRunError::Kind(format!(
                "{var}.{ctor}[{index}] read from {}",
                other.describe()
            ))),
        },
    }
}

fn read_all(env: &HashMap<VarName, Val>, vs: &[Value]) -> Result<Vec<Val>, JvrRunError> {
    vs.iter().map(|v| read(env, v)).collect()
}

fn closure(v: Val) -> Result<Rc<ClosureVal>, JvrRunError> {
    match v {
        Val::Closure(c) => Ok(c),
        other => Err(JvrRunError::Kind(format!(
            "{} used as a closure",
            other.describe()
        ))),
    }
}

/// The fields of a constructor of `n` numbers, for a builtin's operand.
fn numbers(op: BuiltinOp, v: &Val, n: usize) -> Result<(Rc<CtorVal>, Vec<Felt>), JvrRunError> {
    let bad = || JvrRunError::Builtin(format!("{} takes a constructor of {n} numbers", op.name()));
    let Val::Ctor(c) = v else { return Err(bad()) };
    if c.fields.len() != n {
        return Err(bad());
    }
    let fields = c
        .fields
        .iter()
        .map(Val::felt)
        .collect::<Result<Vec<_>, _>>()?;
    Ok((c.clone(), fields))
}

/// `poseidon s`: the permuted state, in a constructor like `s`'s;
/// `ec_op p m q`: `p + m * q`, in a constructor like `p`'s.
fn builtin(op: BuiltinOp, args: &[Val]) -> Result<Val, JvrRunError> {
    let with_fields = |c: &CtorVal, fields: Vec<Felt>| {
        Val::Ctor(Rc::new(CtorVal {
            fields: fields.into_iter().map(Val::Felt).collect(),
            ..c.clone()
        }))
    };
    match (op, args) {
        (BuiltinOp::Poseidon, [s]) => {
            let (c, f) = numbers(op, s, 3)?;
            let out = crate::builtins::poseidon([f[0], f[1], f[2]]);
            Ok(with_fields(&c, out.to_vec()))
        }
        (BuiltinOp::EcOp, [p, m, q]) => {
            let (c, p) = numbers(op, p, 2)?;
            let (_, q) = numbers(op, q, 2)?;
            let r =
                crate::builtins::ec_op((p[0], p[1]), m.felt()?, (q[0], q[1])).ok_or_else(|| {
                    JvrRunError::Builtin(
                        "ec_op: a point off the curve, or the point at infinity".into(),
                    )
                })?;
            Ok(with_fields(&c, vec![r.0, r.1]))
        }
        _ => Err(JvrRunError::Builtin(format!(
            "{} takes {} operands",
            op.name(),
            op.arity()
        ))),
    }
}

/// Runs `entry` with `args`; returns its result and the number of
/// instructions executed. The result must be a number.
pub fn run(
    module: &Module,
    entry: &str,
    args: &[Felt],
    limits: Limits,
) -> Result<(Felt, u64), JvrRunError> {
    let args = args.iter().map(|a| Val::Felt(*a)).collect();
    let outcome = execute(module, entry, args, limits)?;
    Ok((outcome.value.felt()?, outcome.steps))
}

/// Runs `entry` with `args` (numbers or heap values); an IO `readLn` finds
/// no input.
pub fn execute(
    module: &Module,
    entry: &str,
    args: Vec<Val>,
    limits: Limits,
) -> Result<Outcome, JvrRunError> {
    execute_io(module, entry, args, limits, &mut || None)
}

/// [`execute`], with the lines an IO `readLn` reads from `read_line`
/// (`None` at the end of the input).
pub fn execute_io<'m>(
    module: &'m Module,
    entry: &str,
    args: Vec<Val>,
    limits: Limits,
    read_line: &'m mut dyn FnMut() -> Option<String>,
) -> Result<Outcome, JvrRunError> {
    let funcs: HashMap<&str, &Function> = module
        .functions
        .iter()
        .filter(|f| f.body.is_some())
        .map(|f| (f.name.as_str(), f))
        .collect();
    let main = funcs
        .get(entry)
        .copied()
        .ok_or_else(|| JvrRunError::NoEntry(entry.to_string()))?;
    let mut m = Machine {
        module,
        funcs,
        limits,
        stack: Vec::new(),
        steps: 0,
        events: Vec::new(),
        read_line,
    };
    m.lookup(entry, args.len())?;
    let result = m.run(main, args)?;
    let value = m.run_io(result)?;
    Ok(Outcome {
        value,
        events: m.events,
        steps: m.steps,
    })
}

/// What applying a closure gives: a value, or a function to enter.
enum Applied<'m> {
    Value(Val),
    Enter(&'m Function, Vec<Val>),
}

/// The state of a run: the call stack and what the run has printed.
struct Machine<'m> {
    module: &'m Module,
    funcs: HashMap<&'m str, &'m Function>,
    limits: Limits,
    stack: Vec<Frame<'m>>,
    steps: u64,
    events: Vec<Event>,
    /// Where `readLn` reads its lines.
    read_line: &'m mut dyn FnMut() -> Option<String>,
}

impl<'m> Machine<'m> {
    /// Runs a call of `func` on `args` to its return, on the machine's
    /// stack (so that a call from inside a run, by an over-applied closure
    /// or an IO `bind`, shares its depth limit and fuel).
    fn run(&mut self, func: &'m Function, args: Vec<Val>) -> Result<Val, JvrRunError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(JvrRunError::TooDeep(self.limits.max_depth));
        }
        self.stack.push(new_frame(self.module, func, args, None));
        loop {
            let Some(frame) = self.stack.last_mut() else {
                return Err(JvrRunError::NoReturn(func.name.clone()));
            };
            let Some(cont) = frame.conts.last_mut() else {
                return Err(JvrRunError::NoReturn(frame.func.name.clone()));
            };
            let (stmts, idx) = *cont;
            if idx == stmts.len() {
                frame.conts.pop();
                continue;
            }
            cont.1 += 1;
            let stmt = &stmts[idx];
            self.steps += 1;
            if self.steps > self.limits.fuel {
                return Err(JvrRunError::OutOfFuel);
            }
            if let Some(value) = self.exec(stmt)? {
                return Ok(value);
            }
        }
    }

    /// Runs the effects of an IO action in order, as Juvix's interpreter
    /// does with the result of `main`; any other value is its own result.
    fn run_io(&mut self, v: Val) -> Result<Val, JvrRunError> {
        let Val::Io(action) = v else { return Ok(v) };
        match &*action {
            IoAction::Return(x) => Ok(x.clone()),
            IoAction::Write(x) => {
                self.events.push(Event::Write(x.clone()));
                Ok(Val::Void)
            }
            IoAction::ReadLn => match (self.read_line)() {
                Some(line) => Ok(Val::Str(line.into())),
                None => Err(JvrRunError::EndOfInput),
            },
            IoAction::Bind(x, f) => {
                let x = self.run_io(x.clone())?;
                let c = closure(f.clone())?;
                let (func, args) = self.enter_closure(&c, vec![x])?;
                let next = self.run(func, args)?;
                self.run_io(next)
            }
        }
    }

    /// Applies closure `c` to `args`, any number of them (Juvix's
    /// `CallClosures`): fewer than it takes extend it, as many enter its
    /// function, more call it with what it takes and apply the closure it
    /// returns to the rest. The last call is returned to enter, not run,
    /// so that `tccall` stays a tail call.
    fn apply_closures(
        &mut self,
        mut c: Rc<ClosureVal>,
        mut args: Vec<Val>,
    ) -> Result<Applied<'m>, JvrRunError> {
        loop {
            let left = c.arity - c.args.len();
            if args.len() < left {
                return Ok(Applied::Value(cextend(&c, args)?));
            }
            let rest = args.split_off(left);
            let (func, all) = self.enter_closure(&c, args)?;
            if rest.is_empty() {
                return Ok(Applied::Enter(func, all));
            }
            c = closure(self.run(func, all)?)?;
            args = rest;
        }
    }

    fn find(&self, name: &str) -> Result<&'m Function, JvrRunError> {
        self.funcs
            .get(name)
            .copied()
            .ok_or_else(|| JvrRunError::UnknownFunction(name.to_string()))
    }

    /// The definition of `name`, which must take `n` arguments.
    fn lookup(&self, name: &str, n: usize) -> Result<&'m Function, JvrRunError> {
        let f = self.find(name)?;
        if f.params.len() != n {
            return Err(JvrRunError::Arity {
                name: name.to_string(),
                expected: f.params.len(),
                found: n,
            });
        }
        Ok(f)
    }

    /// A closure call: the stored arguments, then the new ones, exactly
    /// filling the function's parameters.
    fn enter_closure(
        &self,
        c: &ClosureVal,
        more: Vec<Val>,
    ) -> Result<(&'m Function, Vec<Val>), JvrRunError> {
        let expected = c.arity - c.args.len();
        if more.len() != expected {
            return Err(JvrRunError::ClosureArity {
                func: c.func.clone(),
                expected,
                found: more.len(),
            });
        }
        let f = self.find(&c.func)?;
        let mut all = c.args.clone();
        all.extend(more);
        Ok((f, all))
    }

    fn frame(&mut self) -> &mut Frame<'m> {
        self.stack.last_mut().expect("a running frame")
    }

    fn env(&mut self) -> &mut HashMap<VarName, Val> {
        &mut self.frame().env
    }

    /// Pushes the frame of a call whose result goes to `dst`.
    fn call(
        &mut self,
        callee: &'m Function,
        args: Vec<Val>,
        dst: &VarName,
    ) -> Result<(), JvrRunError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(JvrRunError::TooDeep(self.limits.max_depth));
        }
        self.stack
            .push(new_frame(self.module, callee, args, Some(dst.clone())));
        Ok(())
    }

    /// Replaces the running frame by the callee's.
    fn tail_call(&mut self, callee: &'m Function, args: Vec<Val>) {
        let module = self.module;
        let frame = self.frame();
        let ret_dst = frame.ret_dst.take();
        let result = frame.result;
        *frame = new_frame(module, callee, args, ret_dst);
        // The caller reads the value as the outermost declaration says.
        if result != Kind::Any {
            frame.result = result;
        }
    }

    /// Returns `v` to the caller; `Some(v)` when the entry returns.
    fn ret(&mut self, v: Val) -> Option<Val> {
        let frame = self.stack.pop();
        let v = match &frame {
            Some(f) => v.as_declared(f.result),
            None => v,
        };
        let done = frame.and_then(|f| f.ret_dst);
        match (self.stack.last_mut(), done) {
            (Some(caller), Some(dst)) => {
                caller.env.insert(dst, v);
                None
            }
            _ => Some(v),
        }
    }

    /// Executes one statement; `Some(v)` when the entry returned `v`.
    fn exec(&mut self, stmt: &'m Stmt) -> Result<Option<Val>, JvrRunError> {
        let env = &self.stack.last().expect("a running frame").env;
        let (dst, v) = match &stmt.kind {
            StmtKind::Assign { dst, src } => (dst, read(env, src)?),
            StmtKind::Binop { dst, op, a, b } => (dst, binop(*op, read(env, a)?, read(env, b)?)?),
            StmtKind::StrUnop { dst, op, a } => {
                let a = read(env, a)?;
                let v = match op {
                    StrOp::Show => Val::Str(show(&a)?.into()),
                    StrOp::Atoi => Val::Felt(atoi(&string(&a)?)?),
                };
                (dst, v)
            }
            StmtKind::StrCat { dst, a, b } => {
                let (a, b) = (string(&read(env, a)?)?, string(&read(env, b)?)?);
                (dst, Val::Str(format!("{a}{b}").into()))
            }
            StmtKind::ArgsNum { dst, closure: c } => {
                let c = closure(read(env, c)?)?;
                (
                    dst,
                    Val::Felt(Felt::from_u128((c.arity - c.args.len()) as u128)),
                )
            }
            StmtKind::Builtin { dst, op, args } => (dst, builtin(*op, &read_all(env, args)?)?),
            StmtKind::Alloc { dst, ctor, args } => (dst, self.alloc(ctor, read_all(env, args)?)?),
            StmtKind::CAlloc { dst, func, args } => {
                let f = self.find(func)?;
                let args = read_all(env, args)?;
                (dst, calloc(f, args)?)
            }
            StmtKind::CExtend {
                dst,
                closure: c,
                args,
            } => (
                dst,
                cextend(&*closure(read(env, c)?)?, read_all(env, args)?)?,
            ),
            _ => return self.control(stmt),
        };
        self.env().insert(dst.clone(), v);
        Ok(None)
    }

    /// A statement that moves control: calls, returns, branches, blocks,
    /// traces and failures.
    fn control(&mut self, stmt: &'m Stmt) -> Result<Option<Val>, JvrRunError> {
        let env = &self.stack.last().expect("a running frame").env;
        let body: &'m [Stmt] = match &stmt.kind {
            StmtKind::Call { dst, func, args } => {
                let vals = read_all(env, args)?;
                let callee = self.lookup(func, vals.len())?;
                self.call(callee, vals, dst)?;
                return Ok(None);
            }
            StmtKind::CallClosure {
                dst,
                closure: c,
                args,
            } => {
                let c = closure(read(env, c)?)?;
                let (callee, vals) = self.enter_closure(&c, read_all(env, args)?)?;
                self.call(callee, vals, dst)?;
                return Ok(None);
            }
            StmtKind::CallClosures {
                dst,
                closure: c,
                args,
            } => {
                let c = closure(read(env, c)?)?;
                match self.apply_closures(c, read_all(env, args)?)? {
                    Applied::Value(v) => self.env().insert(dst.clone(), v),
                    Applied::Enter(callee, vals) => {
                        self.call(callee, vals, dst)?;
                        None
                    }
                };
                return Ok(None);
            }
            StmtKind::TailCallClosures { closure: c, args } => {
                let c = closure(read(env, c)?)?;
                return match self.apply_closures(c, read_all(env, args)?)? {
                    Applied::Value(v) => Ok(self.ret(v)),
                    Applied::Enter(callee, vals) => {
                        self.tail_call(callee, vals);
                        Ok(None)
                    }
                };
            }
            StmtKind::TailCall { func, args } => {
                let vals = read_all(env, args)?;
                let callee = self.lookup(func, vals.len())?;
                self.tail_call(callee, vals);
                return Ok(None);
            }
            StmtKind::TailCallClosure { closure: c, args } => {
                let c = closure(read(env, c)?)?;
                let (callee, vals) = self.enter_closure(&c, read_all(env, args)?)?;
                self.tail_call(callee, vals);
                return Ok(None);
            }
            StmtKind::Trace(v) => {
                let v = read(env, v)?;
                self.events.push(Event::Trace(v));
                return Ok(None);
            }
            StmtKind::Fail(v) => {
                let msg = read(env, v)?.output_lines().join(" ");
                return Err(JvrRunError::Fail(msg));
            }
            StmtKind::Ret(v) => {
                let v = read(env, v)?;
                return Ok(self.ret(v));
            }
            StmtKind::Dump | StmtKind::Nop => return Ok(None),
            StmtKind::Block(body) => body,
            StmtKind::Case {
                value,
                arms,
                default,
                ..
            } => {
                let c = match read(env, value)? {
                    Val::Ctor(c) => c,
                    other => {
                        return Err(JvrRunError::Kind(format!("case on {}", other.describe())))
                    }
                };
                match arms.iter().find(|a| a.ctor == c.name) {
                    Some(arm) => &arm.body,
                    None => default
                        .as_deref()
                        .ok_or_else(|| JvrRunError::NoArm(c.name.clone()))?,
                }
            }
            StmtKind::Branch {
                cond,
                on_true,
                on_false,
                ..
            } => {
                let taken = match cond {
                    Cond::NonZero(v) => match read(env, v)? {
                        Val::Bool(b) => b,
                        other => other.felt()?.is_zero(),
                    },
                    Cond::Cmp(op, a, b) => {
                        binop(*op, read(env, a)?, read(env, b)?)? == Val::Bool(true)
                    }
                };
                if taken {
                    on_true
                } else {
                    on_false
                }
            }
            _ => unreachable!("not a control statement: {stmt:?}"),
        };
        self.frame().conts.push((body, 0));
        Ok(None)
    }

    /// `alloc C (fields)`.
    fn alloc(&self, ctor: &str, fields: Vec<Val>) -> Result<Val, JvrRunError> {
        let Some((ty, tag, decl)) = self.module.ctor(ctor) else {
            return IoAction::from_ctor(ctor, &fields)
                .map(|a| Val::Io(Rc::new(a)))
                .ok_or_else(|| JvrRunError::UnknownConstructor(ctor.to_string()));
        };
        if fields.len() != decl.arity {
            return Err(JvrRunError::Kind(format!(
                "constructor {ctor} takes {}, {} given",
                crate::counted(decl.arity, "field"),
                fields.len()
            )));
        }
        let types = crate::jvr::ctor_field_types(&decl.ty);
        let fields = fields
            .into_iter()
            .enumerate()
            .map(|(k, v)| match types.get(k) {
                Some(ty) => v.as_declared(type_kind(self.module, ty)),
                None => v,
            })
            .collect();
        Ok(Val::Ctor(Rc::new(CtorVal {
            tag,
            name: ctor.to_string(),
            is_record: ty.ctors.len() == 1,
            fields,
        })))
    }
}

/// `op a b`: arithmetic on numbers, comparisons giving booleans, and
/// `eq` on any two values that have an equality.
fn binop(op: BinOp, a: Val, b: Val) -> Result<Val, JvrRunError> {
    if op == BinOp::Eq && !(a.is_scalar() && b.is_scalar()) {
        return Ok(Val::Bool(a.structural_eq(&b)?));
    }
    let (a, b) = (a.felt()?, b.felt()?);
    if op.is_comparison() {
        Ok(Val::Bool(op.holds(a, b)?))
    } else {
        Ok(Val::Felt(op.eval(a, b)?))
    }
}

/// The text of a string value.
fn string(v: &Val) -> Result<Rc<str>, JvrRunError> {
    match v {
        Val::Str(s) => Ok(s.clone()),
        other => Err(JvrRunError::Kind(format!(
            "{} used as a string",
            other.describe()
        ))),
    }
}

/// The text of `v`, as `show` gives it. An integer, alone or in a
/// constructor's fields, must lie in `[-2^128, 2^128)`, the range the
/// compiled code proves its digits in.
fn show(v: &Val) -> Result<String, JvrRunError> {
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        match v {
            Val::Felt(f) => {
                let magnitude = if f.is_negative() { -*f - Felt::ONE } else { *f };
                if magnitude.limbs()[2] != 0 || magnitude.limbs()[3] != 0 {
                    return Err(JvrRunError::ShowRange(*f));
                }
            }
            Val::Ctor(c) => todo.extend(c.fields.iter()),
            _ => {}
        }
    }
    Ok(v.text())
}

/// The integer a string spells: an optional `-` and decimal digits, as
/// Juvix's `atoi` reads it, at most 75 of them (`10^75` is below the
/// field's modulus, so that the value does not wrap).
pub fn atoi(s: &str) -> Result<Felt, JvrRunError> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let most = crate::heap::MAX_ATOI_DIGITS as usize;
    if digits.is_empty() || digits.len() > most || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(JvrRunError::NotAnInteger(s.to_string()));
    }
    Felt::parse_decimal(s).ok_or_else(|| JvrRunError::NotAnInteger(s.to_string()))
}

/// `calloc f (args)`.
fn calloc(f: &Function, args: Vec<Val>) -> Result<Val, JvrRunError> {
    if args.len() > f.params.len() {
        return Err(JvrRunError::ClosureArity {
            func: f.name.clone(),
            expected: f.params.len(),
            found: args.len(),
        });
    }
    Ok(Val::Closure(Rc::new(ClosureVal {
        func: f.name.clone(),
        arity: f.params.len(),
        args,
    })))
}

/// `cextend c (more)`.
fn cextend(c: &ClosureVal, more: Vec<Val>) -> Result<Val, JvrRunError> {
    if c.args.len() + more.len() > c.arity {
        return Err(JvrRunError::ClosureArity {
            func: c.func.clone(),
            expected: c.arity - c.args.len(),
            found: more.len(),
        });
    }
    let mut all = c.args.clone();
    all.extend(more);
    Ok(Val::Closure(Rc::new(ClosureVal {
        func: c.func.clone(),
        arity: c.arity,
        args: all,
    })))
}
