//! SSA form of a checked `.jvr` module: every assignment defines a fresh
//! variable, names are resolved, calls bound to function indices.
//!
//! A branch with `out: x` becomes a join variable: each arm that falls
//! through carries the operand that `x` denotes at its end (the operand of
//! a phi), and only the join variable is visible after the branch. This is
//! the structured form of the classic construction (Cytron et al., "Efficiently
//! Computing Static Single Assignment Form", TOPLAS 1991) for code whose only
//! joins are branch ends.

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::felt::Felt;
use crate::jvr::{
    BinOp, BuiltinOp, Cond, JvrError, JvrErrorKind, Module, Pos, Stmt, StmtKind, Value, VarName,
};

/// An SSA variable of one function; parameters are `0..n_params`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var(pub u32);

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// A function of an [`SsaModule`], by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

/// An operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A variable.
    Var(Var),
    /// A constant.
    Const(Felt),
}

impl Operand {
    /// The variable read, if any.
    pub fn var(&self) -> Option<Var> {
        match self {
            Operand::Var(v) => Some(*v),
            Operand::Const(_) => None,
        }
    }
}

/// A branch condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SCond {
    /// Non-zero.
    NonZero(Operand),
    /// A comparison holds.
    Cmp(BinOp, Operand, Operand),
}

/// One arm of a branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// Instructions.
    pub body: Vec<Inst>,
    /// Whether the arm can reach its end (rather than returning).
    pub falls: bool,
    /// The value of the branch output at the arm's end, when it falls
    /// through and the branch has an output.
    pub result: Option<Operand>,
}

/// SSA instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inst {
    /// `dst = src`.
    Copy {
        /// Destination.
        dst: Var,
        /// Source.
        src: Operand,
    },
    /// `dst = op a b`.
    Binop {
        /// Destination.
        dst: Var,
        /// Operation.
        op: BinOp,
        /// Left.
        a: Operand,
        /// Right.
        b: Operand,
    },
    /// `dst = call func(args)`.
    Call {
        /// Destination.
        dst: Var,
        /// Callee.
        func: FuncId,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// `tcall func(args)`.
    TailCall {
        /// Callee.
        func: FuncId,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// `ret v`.
    Ret(Operand),
    /// `dst = alloc`: a constructor `[2 tag + 1, fields...]` in memory.
    Alloc {
        /// Destination (the address).
        dst: Var,
        /// The constructor's index in the module.
        tag: u32,
        /// Fields.
        args: Vec<Operand>,
    },
    /// `dst = [[src] + 1 + index]`: a constructor's field.
    Load {
        /// Destination.
        dst: Var,
        /// The constructor's address.
        src: Var,
        /// Field index.
        index: u32,
    },
    /// Asserts that the constructor at `src` is the one of index `tag`
    /// (its header is `2 tag + 1`), before a field read that names it.
    CheckTag {
        /// The constructor's address.
        src: Var,
        /// The constructor the read names.
        tag: u32,
    },
    /// `dst = calloc`: a closure `[2 id, left, stored, args...]`.
    CAlloc {
        /// Destination (the address).
        dst: Var,
        /// The function.
        func: FuncId,
        /// Stored arguments.
        args: Vec<Operand>,
    },
    /// `dst = argsnum closure`: the arguments it still takes.
    ArgsNum {
        /// Destination.
        dst: Var,
        /// The closure.
        closure: Operand,
    },
    /// A call of a closure or of a runtime routine, that returns like a
    /// function call (and so ends a block).
    Apply {
        /// Destination.
        dst: Var,
        /// What is called.
        kind: ApplyKind,
        /// The closure.
        closure: Operand,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// A tail call through a closure.
    TailApply {
        /// The closure.
        closure: Operand,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// `dst = poseidon s` or `dst = ec_op p m q`, through the builtin.
    Builtin {
        /// Destination (a new constructor like the first operand's).
        dst: Var,
        /// Which builtin.
        op: BuiltinOp,
        /// Operands.
        args: Vec<Operand>,
    },
    /// `trace v`: one output line.
    Trace(Operand),
    /// `fail v`: stops the run with `v` as the message.
    Fail(Operand),
    /// Dispatch on a constructor's tag.
    Case {
        /// The constructor's address.
        scrut: Operand,
        /// The module index of the type's first constructor.
        first_tag: u32,
        /// For each constructor of the type, in order, its arm.
        table: Vec<usize>,
        /// Join variable defined by the case.
        out: Option<Var>,
        /// Arms (the `default` one last, when present).
        arms: Vec<Arm>,
    },
    /// Two-way branch.
    Branch {
        /// Condition.
        cond: SCond,
        /// Join variable defined by the branch.
        out: Option<Var>,
        /// `[true arm, false arm]`.
        arms: Box<[Arm; 2]>,
    },
}

/// A call through a closure value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyKind {
    /// Call the closure with exactly its remaining arguments.
    Call,
    /// `cextend`: a new closure with more stored arguments.
    Extend,
}

/// A function in SSA form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaFunction {
    /// Name.
    pub name: String,
    /// Number of parameters (variables `0..n_params`).
    pub n_params: u32,
    /// Number of variables.
    pub n_vars: u32,
    /// Body.
    pub body: Vec<Inst>,
}

/// The defined functions of a module in SSA form, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaModule {
    /// Functions; [`FuncId`] indexes this.
    pub functions: Vec<SsaFunction>,
    /// The functions `calloc` names, in order of first use: a closure
    /// stores its function's index in this list.
    pub closure_funcs: Vec<FuncId>,
}

impl SsaModule {
    /// A function's closure id, if some closure can hold it.
    pub fn closure_id(&self, f: FuncId) -> Option<u32> {
        self.closure_funcs
            .iter()
            .position(|g| *g == f)
            .map(|i| i as u32)
    }
}

impl SsaModule {
    /// The index of the function called `name`.
    pub fn find(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }
}

fn err<T>(pos: Pos, kind: JvrErrorKind) -> Result<T, JvrError> {
    Err(JvrError { pos, kind })
}

struct Signatures {
    /// name -> (arity, index among definitions if defined)
    map: HashMap<String, (usize, Option<u32>)>,
}

struct FnBuilder<'s> {
    sigs: &'s Signatures,
    module: &'s Module,
    closure_funcs: &'s mut Vec<FuncId>,
    n_params: u32,
    next: u32,
    /// The variables holding the field reads `x.C[i]` of the statement
    /// being converted, loaded before it.
    fields: HashMap<(VarName, String, u32), Var>,
    /// The variables whose constructor is known at this point, with its
    /// tag: allocated here, checked by an earlier field read, or the
    /// scrutinee of the `case` arm being converted. A field read of a
    /// known constructor needs no check.
    known: HashSet<(Var, u32)>,
}

/// The operands a statement reads (not those of nested bodies).
fn read_values(kind: &StmtKind) -> Vec<&Value> {
    match kind {
        StmtKind::Assign { src, .. } => vec![src],
        StmtKind::Binop { a, b, .. } => vec![a, b],
        StmtKind::Call { args, .. }
        | StmtKind::TailCall { args, .. }
        | StmtKind::Builtin { args, .. }
        | StmtKind::Alloc { args, .. }
        | StmtKind::CAlloc { args, .. } => args.iter().collect(),
        StmtKind::CExtend { closure, args, .. }
        | StmtKind::CallClosure { closure, args, .. }
        | StmtKind::TailCallClosure { closure, args } => {
            std::iter::once(closure).chain(args).collect()
        }
        StmtKind::Ret(v)
        | StmtKind::Trace(v)
        | StmtKind::Fail(v)
        | StmtKind::ArgsNum { closure: v, .. }
        | StmtKind::Case { value: v, .. } => vec![v],
        StmtKind::Branch { cond, .. } => match cond {
            Cond::NonZero(v) => vec![v],
            Cond::Cmp(_, a, b) => vec![a, b],
        },
        StmtKind::Dump | StmtKind::Nop | StmtKind::Block(_) => Vec::new(),
    }
}

/// Current binding of each source name; `None` marks a name reassigned in a
/// branch arm without being the branch's output.
type Env = HashMap<VarName, Option<Var>>;

impl FnBuilder<'_> {
    fn fresh(&mut self) -> Var {
        let v = Var(self.next);
        self.next += 1;
        v
    }

    fn operand(&self, env: &Env, v: &Value) -> Result<Operand, JvrError> {
        match v {
            Value::Const(c) => Ok(Operand::Const(*c)),
            Value::Bool(b) => Ok(Operand::Const(crate::jvr::bool_felt(*b))),
            Value::Unit => Ok(Operand::Const(Felt::ZERO)),
            Value::Field {
                var, ctor, index, ..
            } => Ok(Operand::Var(
                self.fields[&(var.clone(), ctor.clone(), *index)],
            )),
            Value::Var(name, pos) => match env.get(name) {
                Some(Some(x)) => Ok(Operand::Var(*x)),
                Some(None) => err(*pos, JvrErrorKind::AssignedInArm(name.to_string())),
                None => match name {
                    VarName::Arg(i) if *i >= self.n_params => {
                        err(*pos, JvrErrorKind::NoSuchArgument(name.to_string()))
                    }
                    _ => err(*pos, JvrErrorKind::UndefinedVariable(name.to_string())),
                },
            },
        }
    }

    /// Loads the field reads of `kind` into fresh variables.
    fn load_fields(
        &mut self,
        env: &Env,
        kind: &StmtKind,
        out: &mut Vec<Inst>,
    ) -> Result<(), JvrError> {
        self.fields.clear();
        for v in read_values(kind) {
            if let Value::Field {
                var,
                pos,
                ctor,
                index,
            } = v
            {
                let Operand::Var(src) = self.operand(env, &Value::Var(var.clone(), *pos))? else {
                    unreachable!("a variable reads as a variable")
                };
                let tag = match self.module.ctor(ctor) {
                    Some((_, tag, c)) if (*index as usize) < c.arity => tag,
                    Some(_) => {
                        return err(
                            *pos,
                            JvrErrorKind::NoField {
                                ctor: ctor.clone(),
                                index: *index,
                            },
                        )
                    }
                    None => return err(*pos, JvrErrorKind::UnknownConstructor(ctor.clone())),
                };
                if self.known.insert((src, tag)) {
                    out.push(Inst::CheckTag { src, tag });
                }
                let dst = self.fresh();
                out.push(Inst::Load {
                    dst,
                    src,
                    index: *index,
                });
                self.fields.insert((var.clone(), ctor.clone(), *index), dst);
            }
        }
        Ok(())
    }

    fn operands(&self, env: &Env, vs: &[Value]) -> Result<Vec<Operand>, JvrError> {
        vs.iter().map(|v| self.operand(env, v)).collect()
    }

    fn callee(&self, pos: Pos, name: &str, n: usize) -> Result<FuncId, JvrError> {
        match self.sigs.map.get(name) {
            None => err(pos, JvrErrorKind::UnknownFunction(name.to_string())),
            Some((_, None)) => err(pos, JvrErrorKind::NotDefined(name.to_string())),
            Some((arity, Some(id))) => {
                if *arity != n {
                    return err(
                        pos,
                        JvrErrorKind::Arity {
                            name: name.to_string(),
                            expected: *arity,
                            found: n,
                        },
                    );
                }
                Ok(FuncId(*id))
            }
        }
    }

    /// The function a `calloc` names, which must take at least `stored`
    /// arguments.
    fn closure_target(&self, pos: Pos, name: &str, stored: usize) -> Result<FuncId, JvrError> {
        match self.sigs.map.get(name) {
            None => err(pos, JvrErrorKind::UnknownFunction(name.to_string())),
            Some((_, None)) => err(pos, JvrErrorKind::NotDefined(name.to_string())),
            Some((arity, Some(id))) if stored <= *arity => Ok(FuncId(*id)),
            Some((arity, _)) => err(
                pos,
                JvrErrorKind::Arity {
                    name: name.to_string(),
                    expected: *arity,
                    found: stored,
                },
            ),
        }
    }

    /// After the arms of a branch or a `case`: the names an arm rebound
    /// are forgotten (their value depends on the path), and the `out:` name
    /// is bound to a fresh join variable when some arm falls through.
    /// Returns the join variable and whether any arm falls through.
    fn join_arms(
        &mut self,
        env: &mut Env,
        changed: Vec<VarName>,
        out_name: Option<&VarName>,
        arms: &[Arm],
    ) -> (Option<Var>, bool) {
        for k in changed {
            env.insert(k, None);
        }
        let any_falls = arms.iter().any(|a| a.falls);
        let join = match out_name {
            Some(name) if any_falls => {
                let j = self.fresh();
                env.insert(name.clone(), Some(j));
                Some(j)
            }
            _ => None,
        };
        (join, any_falls)
    }

    fn arm(
        &mut self,
        env: &Env,
        body: &[Stmt],
        out_name: Option<&VarName>,
        pos: Pos,
        changed: &mut Vec<VarName>,
    ) -> Result<Arm, JvrError> {
        self.arm_knowing(env, body, out_name, pos, changed, None)
    }

    /// [`Self::arm`], knowing that `known` holds the constructor of its
    /// tag in the arm (a `case` arm). What the arm learns stays in it.
    fn arm_knowing(
        &mut self,
        env: &Env,
        body: &[Stmt],
        out_name: Option<&VarName>,
        pos: Pos,
        changed: &mut Vec<VarName>,
        known: Option<(Var, u32)>,
    ) -> Result<Arm, JvrError> {
        let before = self.known.clone();
        self.known.extend(known);
        let mut arm_env = env.clone();
        let mut insts = Vec::new();
        let falls = self.seq(&mut arm_env, body, &mut insts);
        self.known = before;
        let falls = falls?;
        // Names the arm rebinds become unreadable after the branch, unless
        // they are its output (which the caller binds to the join variable).
        changed.extend(
            arm_env
                .iter()
                .filter(|(k, v)| Some(*k) != out_name && env.get(*k).is_some_and(|old| old != *v))
                .map(|(k, _)| k.clone()),
        );
        let result = match (falls, out_name) {
            (true, Some(name)) => match arm_env.get(name) {
                Some(Some(v)) => Some(Operand::Var(*v)),
                _ => return err(pos, JvrErrorKind::OutNotAssigned(name.to_string())),
            },
            _ => None,
        };
        Ok(Arm {
            body: insts,
            falls,
            result,
        })
    }

    /// Converts a sequence; returns whether it can fall off its end.
    fn seq(
        &mut self,
        env: &mut Env,
        stmts: &[Stmt],
        out: &mut Vec<Inst>,
    ) -> Result<bool, JvrError> {
        let mut falls = true;
        for s in stmts {
            if !falls {
                return err(s.pos, JvrErrorKind::Unreachable);
            }
            self.load_fields(env, &s.kind, out)?;
            falls = self.stmt(env, s, out)?;
        }
        Ok(falls)
    }

    /// A fresh variable for the source name `dst`, bound from now on.
    fn define(&mut self, env: &mut Env, dst: &VarName) -> Var {
        let d = self.fresh();
        env.insert(dst.clone(), Some(d));
        d
    }

    /// Converts one statement; returns whether it can fall through.
    fn stmt(&mut self, env: &mut Env, s: &Stmt, out: &mut Vec<Inst>) -> Result<bool, JvrError> {
        let inst = match &s.kind {
            StmtKind::Assign { dst, src } => {
                let src = self.operand(env, src)?;
                Inst::Copy {
                    dst: self.define(env, dst),
                    src,
                }
            }
            StmtKind::Binop { dst, op, a, b } => {
                let (a, b) = (self.operand(env, a)?, self.operand(env, b)?);
                Inst::Binop {
                    dst: self.define(env, dst),
                    op: *op,
                    a,
                    b,
                }
            }
            StmtKind::Call { dst, func, args } => {
                let args = self.operands(env, args)?;
                let func = self.callee(s.pos, func, args.len())?;
                Inst::Call {
                    dst: self.define(env, dst),
                    func,
                    args,
                }
            }
            StmtKind::Builtin { dst, op, args } => {
                let args = self.operands(env, args)?;
                Inst::Builtin {
                    dst: self.define(env, dst),
                    op: *op,
                    args,
                }
            }
            StmtKind::Nop | StmtKind::Dump => return Ok(true),
            StmtKind::Block(body) => return self.seq(env, body, out),
            StmtKind::Alloc { dst, ctor, args } => {
                self.alloc(env, s.pos, dst, ctor, args, out)?;
                return Ok(true);
            }
            StmtKind::Trace(v) => Inst::Trace(self.operand(env, v)?),
            StmtKind::CAlloc { .. }
            | StmtKind::ArgsNum { .. }
            | StmtKind::CExtend { .. }
            | StmtKind::CallClosure { .. } => self.closure_stmt(env, s)?,
            _ => return self.terminator_or_branch(env, s, out),
        };
        out.push(inst);
        Ok(true)
    }

    /// `calloc`, `argsnum`, `cextend` and calls through closures.
    fn closure_stmt(&mut self, env: &mut Env, s: &Stmt) -> Result<Inst, JvrError> {
        Ok(match &s.kind {
            StmtKind::CAlloc { dst, func, args } => {
                let args = self.operands(env, args)?;
                let id = self.closure_target(s.pos, func, args.len())?;
                if !self.closure_funcs.contains(&id) {
                    self.closure_funcs.push(id);
                }
                Inst::CAlloc {
                    dst: self.define(env, dst),
                    func: id,
                    args,
                }
            }
            StmtKind::ArgsNum { dst, closure } => {
                let closure = self.operand(env, closure)?;
                Inst::ArgsNum {
                    dst: self.define(env, dst),
                    closure,
                }
            }
            StmtKind::CExtend { dst, closure, args }
            | StmtKind::CallClosure { dst, closure, args } => {
                let kind = match &s.kind {
                    StmtKind::CExtend { .. } => ApplyKind::Extend,
                    _ => ApplyKind::Call,
                };
                let closure = self.operand(env, closure)?;
                let args = self.operands(env, args)?;
                Inst::Apply {
                    dst: self.define(env, dst),
                    kind,
                    closure,
                    args,
                }
            }
            _ => unreachable!("not a closure statement"),
        })
    }

    /// Statements that end a path or split it: `ret`, `fail`, tail calls,
    /// `case` and branches. Returns whether control can fall through.
    fn terminator_or_branch(
        &mut self,
        env: &mut Env,
        s: &Stmt,
        out: &mut Vec<Inst>,
    ) -> Result<bool, JvrError> {
        let inst = match &s.kind {
            StmtKind::TailCall { func, args } => {
                let args = self.operands(env, args)?;
                let func = self.callee(s.pos, func, args.len())?;
                Inst::TailCall { func, args }
            }
            StmtKind::TailCallClosure { closure, args } => {
                let closure = self.operand(env, closure)?;
                let args = self.operands(env, args)?;
                Inst::TailApply { closure, args }
            }
            StmtKind::Fail(v) => Inst::Fail(self.operand(env, v)?),
            StmtKind::Ret(v) => Inst::Ret(self.operand(env, v)?),
            StmtKind::Case {
                ty,
                value,
                out: out_name,
                arms,
                default,
            } => {
                let case = CaseStmt {
                    pos: s.pos,
                    ty,
                    value,
                    out: out_name.as_ref(),
                    arms,
                    default: default.as_deref(),
                };
                return self.case(env, &case, out);
            }
            StmtKind::Branch {
                cond,
                out: out_name,
                on_true,
                on_false,
            } => {
                let arms = [&on_true[..], &on_false[..]];
                return self.branch(env, s.pos, cond, out_name.as_ref(), arms, out);
            }
            _ => unreachable!("handled by `stmt`"),
        };
        out.push(inst);
        Ok(false)
    }

    /// `dst = alloc C (args)`.
    fn alloc(
        &mut self,
        env: &mut Env,
        pos: Pos,
        dst: &VarName,
        ctor: &str,
        args: &[Value],
        out: &mut Vec<Inst>,
    ) -> Result<(), JvrError> {
        let args = self.operands(env, args)?;
        let (tag, arity) = match self.module.ctor(ctor) {
            Some((_, tag, c)) => (tag, c.arity),
            None => return err(pos, JvrErrorKind::UnknownConstructor(ctor.to_string())),
        };
        if arity != args.len() {
            return err(
                pos,
                JvrErrorKind::CtorArity {
                    name: ctor.to_string(),
                    expected: arity,
                    found: args.len(),
                },
            );
        }
        let d = self.fresh();
        env.insert(dst.clone(), Some(d));
        self.known.insert((d, tag));
        out.push(Inst::Alloc { dst: d, tag, args });
        Ok(())
    }

    /// A `case`; returns whether it can fall through.
    fn case(
        &mut self,
        env: &mut Env,
        c: &CaseStmt<'_>,
        out: &mut Vec<Inst>,
    ) -> Result<bool, JvrError> {
        let scrut = self.operand(env, c.value)?;
        let Some(decl) = self.module.types.iter().find(|t| t.name == c.ty) else {
            let ctor = c.arms.first().map(|a| a.ctor.clone()).unwrap_or_default();
            return err(
                c.pos,
                JvrErrorKind::CaseArm {
                    ty: c.ty.to_string(),
                    ctor,
                },
            );
        };
        let first_tag = decl
            .ctors
            .first()
            .and_then(|c| self.module.ctor(&c.name))
            .map_or(0, |(_, tag, _)| tag);
        let mut table = vec![usize::MAX; decl.ctors.len()];
        for (k, arm) in c.arms.iter().enumerate() {
            match decl.ctors.iter().position(|c| c.name == arm.ctor) {
                Some(i) if table[i] == usize::MAX => table[i] = k,
                _ => {
                    return err(
                        arm.pos,
                        JvrErrorKind::CaseArm {
                            ty: c.ty.to_string(),
                            ctor: arm.ctor.clone(),
                        },
                    )
                }
            }
        }
        let mut bodies: Vec<&[Stmt]> = c.arms.iter().map(|a| &a.body[..]).collect();
        if let Some(d) = c.default {
            for t in table.iter_mut().filter(|t| **t == usize::MAX) {
                *t = bodies.len();
            }
            bodies.push(d);
        }
        // A constructor without an arm and without a default
        // gets an arm that fails, as the reference interpreter.
        let missing = table.contains(&usize::MAX);
        let mut changed = Vec::new();
        let mut converted = Vec::new();
        for (k, body) in bodies.into_iter().enumerate() {
            // In a constructor's arm the scrutinee is known to
            // be that constructor (not in `default`).
            let known = match (&scrut, c.arms.get(k)) {
                (Operand::Var(v), Some(arm)) => {
                    self.module.ctor(&arm.ctor).map(|(_, tag, _)| (*v, tag))
                }
                _ => None,
            };
            converted.push(self.arm_knowing(env, body, c.out, c.pos, &mut changed, known)?);
        }
        if missing {
            for t in table.iter_mut().filter(|t| **t == usize::MAX) {
                *t = converted.len();
            }
            converted.push(Arm {
                body: vec![Inst::Fail(Operand::Const(Felt::ZERO))],
                falls: false,
                result: None,
            });
        }
        let (join, any_falls) = self.join_arms(env, changed, c.out, &converted);
        out.push(Inst::Case {
            scrut,
            first_tag,
            table,
            out: join,
            arms: converted,
        });
        Ok(any_falls)
    }

    /// A `br` or `if`; returns whether it can fall through.
    fn branch(
        &mut self,
        env: &mut Env,
        pos: Pos,
        cond: &Cond,
        out_name: Option<&VarName>,
        [on_true, on_false]: [&[Stmt]; 2],
        out: &mut Vec<Inst>,
    ) -> Result<bool, JvrError> {
        let cond = match cond {
            Cond::NonZero(v) => SCond::NonZero(self.operand(env, v)?),
            Cond::Cmp(op, a, b) => SCond::Cmp(*op, self.operand(env, a)?, self.operand(env, b)?),
        };
        let mut changed = Vec::new();
        let t = self.arm(env, on_true, out_name, pos, &mut changed)?;
        let f = self.arm(env, on_false, out_name, pos, &mut changed)?;
        let arms = [t, f];
        let (join, any_falls) = self.join_arms(env, changed, out_name, &arms);
        out.push(Inst::Branch {
            cond,
            out: join,
            arms: Box::new(arms),
        });
        Ok(any_falls)
    }
}

/// A `case` statement of the source.
struct CaseStmt<'a> {
    pos: Pos,
    ty: &'a str,
    value: &'a Value,
    out: Option<&'a VarName>,
    arms: &'a [crate::jvr::CaseArm],
    default: Option<&'a [Stmt]>,
}

/// Resolves names and converts every defined function to SSA form.
pub fn convert(module: &Module) -> Result<SsaModule, JvrError> {
    let mut sigs = Signatures {
        map: HashMap::new(),
    };
    let mut n_defs = 0u32;
    // A declaration may split its type differently from the definition
    // (`f(unit) : stream` declares `f() : unit -> stream`, as Juvix
    // writes them): they agree when their whole types take as many
    // arguments. Calls take the definition's parameters.
    let mut type_arity: HashMap<&str, usize> = HashMap::new();
    for f in &module.functions {
        let whole = *type_arity
            .entry(f.name.as_str())
            .or_insert_with(|| f.type_arity());
        let entry = sigs
            .map
            .entry(f.name.clone())
            .or_insert((f.params.len(), None));
        if whole != f.type_arity() || (f.body.is_some() && entry.1.is_some()) {
            return err(f.pos, JvrErrorKind::Duplicate(f.name.clone()));
        }
        if f.body.is_some() {
            *entry = (f.params.len(), Some(n_defs));
            n_defs += 1;
        }
    }
    let mut functions = Vec::new();
    let mut closure_funcs = Vec::new();
    for f in &module.functions {
        let Some(body) = &f.body else { continue };
        let n_params = f.params.len() as u32;
        let mut b = FnBuilder {
            sigs: &sigs,
            module,
            closure_funcs: &mut closure_funcs,
            n_params,
            next: n_params,
            fields: HashMap::new(),
            known: HashSet::new(),
        };
        let mut env = Env::new();
        for (i, p) in f.params.iter().enumerate() {
            env.insert(VarName::Arg(i as u32), Some(Var(i as u32)));
            if let Some(n) = &p.name {
                env.insert(VarName::Named(n.clone()), Some(Var(i as u32)));
            }
        }
        let mut insts = Vec::new();
        if b.seq(&mut env, body, &mut insts)? {
            return err(f.end, JvrErrorKind::MissingRet(f.name.clone()));
        }
        functions.push(SsaFunction {
            name: f.name.clone(),
            n_params,
            n_vars: b.next,
            body: insts,
        });
    }
    Ok(SsaModule {
        functions,
        closure_funcs,
    })
}
