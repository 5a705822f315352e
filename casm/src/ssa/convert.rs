//! The conversion of a checked `.jvr` module to SSA form: names resolved
//! per statement, a fresh variable per assignment, branch outputs joined,
//! and what each variable is known to be ([`Kind`]) for printing and for
//! equality.

use std::collections::{HashMap, HashSet};

use crate::heap::{self, Kind};
use crate::jvr::StrOp;

use super::kinds::{type_kind, FieldKinds};

mod alloc;
mod equality;
mod join;
mod params;
mod results;
mod strings;
mod terms;

pub(super) use params::ParamShapes;
pub(super) use results::ClosureResults;
use results::{learn_results, ClosureShape};
pub(crate) use terms::unprintable;
pub(super) use terms::{EntryFlows, TermFlows};

use join::{live_after_branches, read_values, stmt_key};

use super::*;

fn err<T>(pos: Pos, kind: JvrErrorKind) -> Result<T, JvrError> {
    Err(JvrError { pos, kind })
}

struct Signatures {
    /// name -> (arity, index among definitions if defined)
    map: HashMap<String, (usize, Option<u32>)>,
}

struct FnBuilder<'s> {
    sigs: &'s Signatures,
    /// The function being converted.
    name: &'s str,
    /// The parameter each variable copies, if it copies one.
    param_origin: HashMap<Var, u32>,
    /// The constructor field each variable was read from (or copies),
    /// if it was read from one: storing it back adds nothing to what the
    /// field holds.
    field_origin: HashMap<Var, (u32, usize)>,
    module: &'s Module,
    closure_funcs: &'s mut Vec<FuncId>,
    /// What the module knows of constructor fields.
    fields_known: &'s mut FieldKinds,
    n_params: u32,
    next: u32,
    /// The variables holding the field reads `x.C[i]` of the statement
    /// being converted, loaded before it.
    fields: HashMap<(VarName, String, u32), Var>,
    /// The variables holding the string constants of the statement being
    /// converted, written before it.
    strings: HashMap<String, Var>,
    /// What each variable is known to be (absent: nothing).
    kinds: HashMap<Var, Kind>,
    /// The closures whose function and remaining arguments are known.
    shapes: HashMap<Var, ClosureShape>,
    /// What the IO actions made here give a `bind`'s closure: the value of
    /// a `return`, `void` for a `write`.
    io_results: HashMap<Var, Kind>,
    /// What the `ret`s and tail calls seen so far return.
    returns: Option<Kind>,
    /// The names the code after each branch may read (by statement).
    live_after: HashMap<usize, HashSet<VarName>>,
    /// The branch or `case` being joined.
    branch_key: usize,
    /// The bindings at the end of each arm converted since the last join
    /// (`None` for an arm that does not fall through).
    arm_ends: Vec<Option<Env>>,
    /// The variables whose constructor is known at this point, with its
    /// tag: allocated here, checked by an earlier field read, or the
    /// scrutinee of the `case` arm being converted. A field read of a
    /// known constructor needs no check.
    known: HashSet<(Var, u32)>,
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
            Value::Unit | Value::Void => Ok(Operand::Const(Felt::ZERO)),
            Value::Str(text) => Ok(Operand::Var(self.strings[text])),
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

    /// Loads the field reads of `kind` into fresh variables, and writes its
    /// string constants.
    fn load_fields(
        &mut self,
        env: &Env,
        kind: &StmtKind,
        out: &mut Vec<Inst>,
    ) -> Result<(), JvrError> {
        self.fields.clear();
        self.strings.clear();
        for v in read_values(kind) {
            if let Value::Str(text) = v {
                if !self.strings.contains_key(text) {
                    let dst = self.fresh();
                    self.kinds.insert(dst, Kind::Str);
                    out.push(Inst::Str {
                        dst,
                        text: text.clone(),
                    });
                    self.strings.insert(text.clone(), dst);
                }
            }
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
                let kind = self.fields_known.get(tag, *index as usize);
                self.kinds.insert(dst, kind);
                self.field_origin.insert(dst, (tag, *index as usize));
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

    /// What `v` is known to be.
    fn kind(&self, env: &Env, v: &Value) -> Kind {
        match v {
            Value::Const(_) => Kind::Int,
            Value::Bool(_) => Kind::Bool,
            Value::Unit => Kind::Unit,
            Value::Void => Kind::Void,
            Value::Var(name, _) => match env.get(name) {
                Some(Some(x)) => self.kinds.get(x).copied().unwrap_or_default(),
                _ => Kind::Any,
            },
            Value::Str(_) => Kind::Str,
            Value::Field {
                var, ctor, index, ..
            } => self
                .fields
                .get(&(var.clone(), ctor.clone(), *index))
                .and_then(|x| self.kinds.get(x))
                .copied()
                .unwrap_or_default(),
        }
    }

    fn returns(&mut self, kind: Kind) {
        self.returns = Some(self.returns.map_or(kind, |k| k.join(kind)));
    }

    /// Converts one statement; returns whether it can fall through.
    fn stmt(&mut self, env: &mut Env, s: &Stmt, out: &mut Vec<Inst>) -> Result<bool, JvrError> {
        let kind = match &s.kind {
            StmtKind::Assign { src, .. } => self.kind(env, src),
            StmtKind::Binop { op, .. } if op.is_comparison() => Kind::Bool,
            StmtKind::Binop { .. } => Kind::Int,
            StmtKind::Call { func, .. } => self.declared_result(func),
            StmtKind::ArgsNum { .. } => Kind::Int,
            StmtKind::StrUnop {
                op: StrOp::Atoi, ..
            } => Kind::Int,
            StmtKind::StrUnop { .. } | StmtKind::StrCat { .. } => Kind::Str,
            StmtKind::CallClosure { closure, args, .. } => self
                .applied_result(env, closure, ApplyKind::Call, args.len())
                .unwrap_or_default(),
            StmtKind::CallClosures { closure, args, .. } => self
                .applied_result(env, closure, ApplyKind::Any, args.len())
                .unwrap_or_default(),
            StmtKind::Block(body) => return self.seq(env, body, out),
            StmtKind::TailCall { .. }
            | StmtKind::TailCallClosure { .. }
            | StmtKind::TailCallClosures { .. }
            | StmtKind::Fail(_)
            | StmtKind::Ret(_)
            | StmtKind::Case { .. }
            | StmtKind::Branch { .. } => return self.terminator_or_branch(env, s, out),
            _ => Kind::Any,
        };
        let inst = self.defining_stmt(env, s, out)?;
        let Some(inst) = inst else {
            return Ok(true);
        };
        if let Inst::Copy { dst, .. }
        | Inst::Binop { dst, .. }
        | Inst::Call { dst, .. }
        | Inst::ArgsNum { dst, .. }
        | Inst::StrCat { dst, .. }
        | Inst::Str { dst, .. }
        | Inst::Apply {
            dst,
            kind:
                ApplyKind::Call
                | ApplyKind::Any
                | ApplyKind::ShowInt
                | ApplyKind::ShowCtor
                | ApplyKind::ShowNamed(_)
                | ApplyKind::Atoi,
            ..
        } = &inst
        {
            self.kinds.insert(*dst, kind);
        }
        out.push(inst);
        Ok(true)
    }

    /// Converts a statement that falls through; `None` when it added its
    /// instructions to `out` itself.
    fn defining_stmt(
        &mut self,
        env: &mut Env,
        s: &Stmt,
        out: &mut Vec<Inst>,
    ) -> Result<Option<Inst>, JvrError> {
        let inst = match &s.kind {
            StmtKind::Assign { dst, src } => {
                let src = self.operand(env, src)?;
                let dst = self.define(env, dst);
                if let Some(shape) = src.var().and_then(|v| self.shapes.get(&v)).cloned() {
                    self.shapes.insert(dst, shape);
                }
                if let Some(p) = src.var().and_then(|v| self.param_origin.get(&v)).copied() {
                    self.param_origin.insert(dst, p);
                }
                if let Some(f) = src.var().and_then(|v| self.field_origin.get(&v)).copied() {
                    self.field_origin.insert(dst, f);
                }
                Inst::Copy { dst, src }
            }
            StmtKind::Binop { dst, op, a, b }
                if *op == BinOp::Eq
                    && (self.kind(env, a), self.kind(env, b)) != (Kind::Int, Kind::Int) =>
            {
                return self.equality(env, s.pos, Some(dst), [a, b]).map(Some);
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
                self.pass_args(env, func, 0, args);
                self.pass_shapes(env, func, args);
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
            StmtKind::Nop | StmtKind::Dump => return Ok(None),
            StmtKind::Alloc { dst, ctor, args } => {
                self.alloc(env, s.pos, dst, ctor, args, out)?;
                return Ok(None);
            }
            // The compiled machines print the value by its kind (`terms`).
            StmtKind::Trace(v) => {
                let kind = self.kind(env, v);
                self.fields_known.terms.print(s.pos, kind, "trace");
                Inst::Trace(self.operand(env, v)?, kind)
            }
            StmtKind::CAlloc { .. }
            | StmtKind::ArgsNum { .. }
            | StmtKind::CExtend { .. }
            | StmtKind::CallClosure { .. }
            | StmtKind::CallClosures { .. } => self.closure_stmt(env, s)?,
            StmtKind::StrUnop { dst, op, a } => {
                let kind = self.kind(env, a);
                let a = self.operand(env, a)?;
                self.string_op(env, s.pos, dst, *op, (a, kind))?
            }
            StmtKind::StrCat { dst, a, b } => {
                let kinds = [self.kind(env, a), self.kind(env, b)];
                if let Some(k) = kinds.into_iter().find(|k| *k != Kind::Str) {
                    let what = k.name().unwrap_or("a value of unknown kind");
                    return err(
                        s.pos,
                        JvrErrorKind::NotForCairo(format!("strcat of {what}")),
                    );
                }
                let (Operand::Var(a), Operand::Var(b)) =
                    (self.operand(env, a)?, self.operand(env, b)?)
                else {
                    unreachable!("strings are variables")
                };
                Inst::StrCat {
                    dst: self.define(env, dst),
                    a,
                    b,
                }
            }
            _ => unreachable!("`stmt` converts the other statements"),
        };
        Ok(Some(inst))
    }

    /// `calloc`, `argsnum`, `cextend` and calls through closures.
    fn closure_stmt(&mut self, env: &mut Env, s: &Stmt) -> Result<Inst, JvrError> {
        Ok(match &s.kind {
            StmtKind::CAlloc { dst, func, args } => {
                self.pass_args(env, func, 0, args);
                let args = self.operands(env, args)?;
                let id = self.closure_target(s.pos, func, args.len())?;
                if !self.closure_funcs.contains(&id) {
                    self.closure_funcs.push(id);
                }
                let dst = self.define(env, dst);
                let left = self.sigs.map[func].0 - args.len();
                self.shapes.insert(dst, ClosureShape::new(func, left));
                Inst::CAlloc {
                    dst,
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
            | StmtKind::CallClosure { dst, closure, args }
            | StmtKind::CallClosures { dst, closure, args } => {
                let kind = match &s.kind {
                    StmtKind::CExtend { .. } => ApplyKind::Extend,
                    StmtKind::CallClosures { .. } => ApplyKind::Any,
                    _ => ApplyKind::Call,
                };
                let shape = self.applied_shape(env, closure, kind, args.len());
                self.pass_closure_args(env, closure, args);
                let closure = self.operand(env, closure)?;
                let args = self.operands(env, args)?;
                let dst = self.define(env, dst);
                if let Some(shape) = shape {
                    self.shapes.insert(dst, shape);
                }
                Inst::Apply {
                    dst,
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
            StmtKind::TailCall { func: name, args } => {
                self.pass_args(env, name, 0, args);
                self.pass_shapes(env, name, args);
                let args = self.operands(env, args)?;
                let func = self.callee(s.pos, name, args.len())?;
                // A call of a function that returns nothing known yet (a
                // recursion) adds nothing to what this one returns.
                if let Some(kind) = self.learnt_result(name) {
                    self.returns(kind);
                }
                Inst::TailCall { func, args }
            }
            StmtKind::TailCallClosure { closure, args }
            | StmtKind::TailCallClosures { closure, args } => {
                let kind = match &s.kind {
                    StmtKind::TailCallClosures { .. } => ApplyKind::Any,
                    _ => ApplyKind::Call,
                };
                if let Some(result) = self.applied_result(env, closure, kind, args.len()) {
                    self.returns(result);
                }
                self.pass_closure_args(env, closure, args);
                let closure = self.operand(env, closure)?;
                let args = self.operands(env, args)?;
                Inst::TailApply {
                    kind,
                    closure,
                    args,
                }
            }
            StmtKind::Fail(v) => Inst::Fail(self.operand(env, v)?),
            StmtKind::Ret(v) => {
                let kind = self.kind(env, v);
                self.returns(kind);
                Inst::Ret(self.operand(env, v)?)
            }
            StmtKind::Case {
                ty,
                value,
                out: out_name,
                arms,
                default,
            } => {
                self.branch_key = stmt_key(s);
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
                self.branch_key = stmt_key(s);
                let arms = [&on_true[..], &on_false[..]];
                return self.branch(env, s.pos, cond, out_name.as_ref(), arms, out);
            }
            _ => unreachable!("handled by `stmt`"),
        };
        out.push(inst);
        Ok(false)
    }

    /// A `case`; returns whether it can fall through.
    fn case(
        &mut self,
        env: &mut Env,
        c: &CaseStmt<'_>,
        out: &mut Vec<Inst>,
    ) -> Result<bool, JvrError> {
        let key = self.branch_key;
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
        self.arm_ends.resize(converted.len(), None);
        self.branch_key = key;
        let mut loads = Vec::new();
        let (join, any_falls) =
            self.join_with_phis(env, changed, c.out, &mut converted, &mut loads);
        out.push(Inst::Case {
            scrut,
            first_tag,
            table,
            out: join,
            arms: converted,
        });
        out.extend(loads);
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
        let key = self.branch_key;
        let cond = match cond {
            Cond::NonZero(v) => SCond::NonZero(self.operand(env, v)?),
            Cond::Cmp(BinOp::Eq, a, b)
                if (self.kind(env, a), self.kind(env, b)) != (Kind::Int, Kind::Int) =>
            {
                match self.equality(env, pos, None, [a, b])? {
                    Inst::Binop { a, b, .. } => SCond::Cmp(BinOp::Eq, a, b),
                    inst => {
                        let Inst::Apply { dst, .. } = &inst else {
                            unreachable!("equality is a comparison or a call")
                        };
                        // The routine's answer is a Juvix boolean: zero
                        // when equal, which `br` takes as true.
                        let equal = SCond::NonZero(Operand::Var(*dst));
                        out.push(inst);
                        equal
                    }
                }
            }
            Cond::Cmp(op, a, b) => SCond::Cmp(*op, self.operand(env, a)?, self.operand(env, b)?),
        };
        let mut changed = Vec::new();
        let t = self.arm_knowing(env, on_true, out_name, pos, &mut changed, None)?;
        let f = self.arm_knowing(env, on_false, out_name, pos, &mut changed, None)?;
        let mut arms = [t, f];
        self.branch_key = key;
        let mut loads = Vec::new();
        let (join, any_falls) = self.join_with_phis(env, changed, out_name, &mut arms, &mut loads);
        out.push(Inst::Branch {
            cond,
            out: join,
            arms: Box::new(arms),
        });
        out.extend(loads);
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
    convert_for_entry(module, None)
}

/// [`convert()`], knowing the function run and its arguments (`entry`; any
/// function may be run, on anything, when it is `None`): what they hold
/// flows into the module as what its calls pass does (the values of `*`
/// parameters and of constructors' fields, closures that may be called).
pub fn convert_for_entry(
    module: &Module,
    entry: Option<(&str, &[crate::jvr_interp::Val])>,
) -> Result<SsaModule, JvrError> {
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
    // Converting with the fields as declared learns what calls return and
    // pass, and then what `alloc`s store in fields declared `*`; converting
    // again with the fields known settles all of it (a field declared `*`
    // holds what the stores of the last pass agree on).
    let flows = match entry {
        Some((name, args)) => EntryFlows::of(module, name, args),
        None => EntryFlows::default(),
    };
    let mut fields_known = FieldKinds::declared(module, &flows);
    fields_known.params = ParamShapes::new(entry.map(|(name, _)| name));
    learn_results(module, &sigs, &mut fields_known, false)?;
    fields_known.settle();
    let (functions, closure_funcs) = learn_results(module, &sigs, &mut fields_known, true)?;
    let field_kinds = fields_known.by_tag();
    if let Some(e) = fields_known.terms.unwritable(module, &field_kinds) {
        return Err(e);
    }
    Ok(SsaModule {
        functions,
        closure_funcs,
        term_hazard: fields_known.terms.hazard(module, &field_kinds),
        field_kinds,
        ctor_names: module
            .types
            .iter()
            .flat_map(|t| &t.ctors)
            .map(|c| c.name.clone())
            .collect(),
        io: fields_known.uses_io.then(|| fields_known.io_tags()),
    })
}

/// Converts every defined function.
fn convert_functions(
    module: &Module,
    sigs: &Signatures,
    fields_known: &mut FieldKinds,
) -> Result<(Vec<SsaFunction>, Vec<FuncId>), JvrError> {
    fields_known.closure_results = ClosureResults::of(module, fields_known);
    fields_known.terms.begin_pass();
    fields_known.params.begin_pass();
    fields_known.begin_pass();
    let mut functions = Vec::new();
    let mut closure_funcs = Vec::new();
    for f in &module.functions {
        let Some(body) = &f.body else { continue };
        let n_params = f.params.len() as u32;
        let param_kinds: Vec<Kind> = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let declared = type_kind(module, &p.ty);
                fields_known.terms.param_kind(&f.name, i, declared)
            })
            .collect();
        let shapes: HashMap<Var, ClosureShape> = (0..f.params.len())
            .filter_map(|i| {
                let known = &*fields_known;
                let shape = known.params.shape(&f.name, i, &known.terms)?;
                Some((Var(i as u32), shape))
            })
            .collect();
        let mut b = FnBuilder {
            sigs,
            name: &f.name,
            param_origin: (0..n_params).map(|i| (Var(i), i)).collect(),
            field_origin: HashMap::new(),
            fields_known: &mut *fields_known,
            module,
            closure_funcs: &mut closure_funcs,
            n_params,
            next: n_params,
            fields: HashMap::new(),
            strings: HashMap::new(),
            known: HashSet::new(),
            kinds: HashMap::new(),
            shapes,
            io_results: HashMap::new(),
            returns: None,
            live_after: live_after_branches(body),
            branch_key: 0,
            arm_ends: Vec::new(),
        };
        let mut env = Env::new();
        for (i, p) in f.params.iter().enumerate() {
            b.kinds.insert(Var(i as u32), param_kinds[i]);
            env.insert(VarName::Arg(i as u32), Some(Var(i as u32)));
            if let Some(n) = &p.name {
                env.insert(VarName::Named(n.clone()), Some(Var(i as u32)));
            }
        }
        let mut insts = Vec::new();
        if b.seq(&mut env, body, &mut insts)? {
            return err(f.end, JvrErrorKind::MissingRet(f.name.clone()));
        }
        let result_kind = match type_kind(module, &f.ret) {
            Kind::Any => b.returns.unwrap_or_default(),
            declared => declared,
        };
        let n_vars = b.next;
        if let Some(kind) = b.returns {
            fields_known.results.insert(f.name.clone(), kind);
        }
        functions.push(SsaFunction {
            name: f.name.clone(),
            n_params,
            n_vars,
            body: insts,
            result_kind,
            param_kinds,
        });
    }
    Ok((functions, closure_funcs))
}
