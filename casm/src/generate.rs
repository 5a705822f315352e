//! A seeded generator of well-formed `.jvr` programs: random arithmetic,
//! comparisons, `div`/`mod`, nested branches with `out:` variables, calls
//! inside arms, tail calls and recursion of bounded depth; constructors of
//! one declared type (`shape`, of 0, 1 and 2 fields) taken apart by `case`
//! (with or without `default`) and field reads; closures of the generated
//! functions built by `calloc`, extended by `cextend`, asked `argsnum`, and
//! called or tail-called with their remaining arguments, or applied by
//! `ccall`/`tccall` to some of them and then to the rest; structural `eq`
//! of two constructors and `show` of one; the constant `void`; strings:
//! `show` of an integer or a comparison, `strcat` with constants, `eq`
//! with a constant, `trace` of the text and `atoi` of it back to an
//! integer; values traced after passing through `keep(*) : *`, a
//! parameter of unknown kind (booleans, `unit` and `void` among them,
//! whose terms the compiled machines then refuse to print).
//!
//! Every generated program terminates: ordinary function `f{i}` only calls
//! `f{j}` with `j > i`, and each recursive function counts a parameter down
//! to zero from a constant its callers pass. A variable assigned in an arm
//! is only read after the branch if it is the branch's output, so the
//! source semantics and the SSA semantics agree.

use crate::felt::Felt;
use crate::jvr::{
    BinOp, CaseArm, Cond, Ctor, Function, Module, Param, Pos, Stmt, StmtKind, StrOp, TypeDecl,
    Value, VarName,
};

/// The generated programs' one type: constructor `s{k}` has `k` fields.
const SHAPE: &str = "shape";
/// The function every generated module has, `keep(*) : *`, which returns
/// its argument: what passes through it has no kind the caller knows.
const KEEP: &str = "keep";

const SHAPE_CTORS: [(&str, &str, usize); 3] = [
    ("s0", "shape", 0),
    ("s1", "integer -> shape", 1),
    ("s2", "(integer, integer) -> shape", 2),
];

pub use kildall_testkit::Rng;

/// Shape of generated programs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Ordinary functions `f0 .. f{n-1}`.
    pub functions: usize,
    /// Recursive functions `rec0 ..`.
    pub recursive: usize,
    /// Most instructions per sequence before its end.
    pub max_stmts: usize,
    /// Deepest branch nesting.
    pub max_depth: usize,
    /// Largest recursion depth passed to a recursive function.
    pub max_recursion: i128,
    /// How far ahead a call may reach (`f{i}` calls `f{j}`, `j <= i + reach`).
    pub reach: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            functions: 6,
            recursive: 2,
            max_stmts: 5,
            max_depth: 3,
            max_recursion: 12,
            reach: 4,
        }
    }
}

/// How a generated sequence ends.
#[derive(Clone, Copy)]
enum End<'a> {
    /// With `ret` or `tcall`.
    Ret,
    /// By assigning the branch output.
    Assign(&'a VarName),
    /// By falling through (an arm of a branch without output).
    Fall,
}

struct Gen<'c> {
    rng: Rng,
    cfg: &'c Config,
    /// Number of parameters of each ordinary function.
    arity: Vec<usize>,
    next_tmp: u32,
}

/// Whether a generated sequence can reach its end.
fn seq_falls(body: &[Stmt]) -> bool {
    match body.last().map(|s| &s.kind) {
        Some(
            StmtKind::Ret(_)
            | StmtKind::TailCall { .. }
            | StmtKind::TailCallClosure { .. }
            | StmtKind::TailCallClosures { .. }
            | StmtKind::Fail(_),
        ) => false,
        Some(StmtKind::Branch {
            on_true, on_false, ..
        }) => seq_falls(on_true) || seq_falls(on_false),
        Some(StmtKind::Case { arms, default, .. }) => {
            arms.iter().any(|a| seq_falls(&a.body)) || default.as_deref().is_some_and(seq_falls)
        }
        _ => true,
    }
}

fn st(kind: StmtKind) -> Stmt {
    Stmt {
        pos: Pos::default(),
        kind,
    }
}

fn var(v: &VarName) -> Value {
    Value::Var(v.clone(), Pos::default())
}

impl Gen<'_> {
    fn fresh(&mut self) -> VarName {
        self.next_tmp += 1;
        VarName::Tmp(self.next_tmp - 1)
    }

    fn small(&mut self) -> Value {
        Value::Const(Felt::from_i128(self.rng.index(11) as i128 - 3))
    }

    fn operand(&mut self, scope: &[VarName]) -> Value {
        if scope.is_empty() || self.rng.chance(0.2) {
            self.small()
        } else {
            var(&scope[self.rng.index(scope.len())])
        }
    }

    fn args(&mut self, scope: &[VarName], n: usize) -> Vec<Value> {
        (0..n).map(|_| self.operand(scope)).collect()
    }

    /// A call expression from function `me` (or `None` for `main`), if any
    /// callee is allowed.
    fn callee(&mut self, me: Option<usize>, scope: &[VarName]) -> Option<(String, Vec<Value>)> {
        let first = me.map_or(0, |i| i + 1);
        let last = me.map_or(self.cfg.functions, |i| {
            (i + 1 + self.cfg.reach).min(self.cfg.functions)
        });
        let rec = self.cfg.recursive;
        if (first >= last || self.rng.chance(0.25)) && rec > 0 {
            let r = self.rng.index(rec);
            let depth = Value::Const(Felt::from_i128(
                self.rng.index(self.cfg.max_recursion as usize + 1) as i128,
            ));
            let acc = self.operand(scope);
            return Some((format!("rec{r}"), vec![depth, acc]));
        }
        if first >= last {
            return None;
        }
        let j = first + self.rng.index(last - first);
        let args = self.args(scope, self.arity[j]);
        Some((format!("f{j}"), args))
    }

    fn rhs(&mut self, me: Option<usize>, scope: &[VarName], dst: VarName) -> Stmt {
        match self.rng.index(10) {
            0 if self.rng.chance(0.2) => st(StmtKind::Assign {
                dst,
                src: Value::Void,
            }),
            0 => st(StmtKind::Assign {
                dst,
                src: self.operand(scope),
            }),
            1 | 2 => match self.callee(me, scope) {
                Some((func, args)) => st(StmtKind::Call { dst, func, args }),
                None => st(StmtKind::Assign {
                    dst,
                    src: self.operand(scope),
                }),
            },
            _ => {
                // `fdiv` only by a non-zero constant, so runs never trap;
                // `div`/`mod` mostly by one (a variable divisor may be 0,
                // which every machine must refuse alike).
                let ops = [
                    BinOp::Div,
                    BinOp::Mod,
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::FAdd,
                    BinOp::FSub,
                    BinOp::FMul,
                    BinOp::FDiv,
                    BinOp::Eq,
                    BinOp::Lt,
                    BinOp::Le,
                ];
                let op = ops[self.rng.index(ops.len())];
                let a = self.operand(scope);
                // `eq` of two values whose kind the compiler may not know
                // (results of `ccall`s) is refused: one side a constant.
                let b = if op == BinOp::Eq {
                    Value::Const(Felt::from_i128(self.rng.index(3) as i128 - 1))
                } else if op == BinOp::FDiv {
                    Value::Const(Felt::from_i128(1 + self.rng.index(7) as i128))
                } else if matches!(op, BinOp::Div | BinOp::Mod) && self.rng.index(4) != 0 {
                    let d = 1 + self.rng.index(5) as i128;
                    Value::Const(Felt::from_i128(if self.rng.index(2) == 0 { d } else { -d }))
                } else {
                    self.operand(scope)
                };
                st(StmtKind::Binop { dst, op, a, b })
            }
        }
    }

    fn cond(&mut self, scope: &[VarName]) -> Cond {
        match self.rng.index(4) {
            0 => Cond::NonZero(self.operand(scope)),
            k => {
                let op = [BinOp::Eq, BinOp::Lt, BinOp::Le][k - 1];
                let a = self.operand(scope);
                let b = match op {
                    BinOp::Eq => Value::Const(Felt::from_i128(self.rng.index(3) as i128 - 1)),
                    _ => self.operand(scope),
                };
                Cond::Cmp(op, a, b)
            }
        }
    }

    fn ret(&mut self, me: Option<usize>, scope: &[VarName]) -> Stmt {
        if self.rng.chance(0.15) {
            if let Some((func, args)) = self.callee(me, scope) {
                return st(StmtKind::TailCall { func, args });
            }
        }
        st(StmtKind::Ret(self.operand(scope)))
    }

    /// A sequence; ends as `end` says.
    fn seq(
        &mut self,
        me: Option<usize>,
        scope: &mut Vec<VarName>,
        depth: usize,
        end: End<'_>,
    ) -> Vec<Stmt> {
        let mut body = Vec::new();
        let n = self.rng.index(self.cfg.max_stmts + 1);
        for _ in 0..n {
            if depth < self.cfg.max_depth && self.rng.chance(0.25) {
                let o = self.fresh();
                let cond = self.cond(scope);
                let with_out = self.rng.chance(0.8);
                let mut arms = Vec::new();
                for _ in 0..2 {
                    let mut inner = scope.clone();
                    let arm_end = if self.rng.chance(0.15) {
                        End::Ret
                    } else if with_out {
                        End::Assign(&o)
                    } else {
                        End::Fall
                    };
                    arms.push(self.seq(me, &mut inner, depth + 1, arm_end));
                }
                let any_falls = arms.iter().any(|a| seq_falls(a));
                let on_false = arms.pop().unwrap_or_default();
                let on_true = arms.pop().unwrap_or_default();
                body.push(st(StmtKind::Branch {
                    cond,
                    out: with_out.then(|| o.clone()),
                    on_true,
                    on_false,
                }));
                if !any_falls {
                    return body;
                }
                if with_out {
                    scope.push(o);
                }
            } else if depth + 1 < self.cfg.max_depth && self.rng.chance(0.08) {
                match self.case_of_shape(me, scope, depth, &mut body) {
                    Some(r) => scope.push(r),
                    // No arm falls through: nothing may follow.
                    None => return body,
                }
            } else if self.rng.chance(0.08) {
                if let Some(r) = self.closure(me, scope, &mut body) {
                    scope.push(r);
                }
            } else if self.rng.chance(0.04) {
                let r = self.structural_eq(scope, &mut body);
                scope.push(r);
            } else if self.rng.chance(0.04) {
                let r = self.strings(scope, &mut body);
                scope.push(r);
            } else if self.rng.chance(0.02) {
                self.kept(scope, &mut body);
            } else {
                let dst = self.fresh();
                let s = self.rhs(me, scope, dst.clone());
                body.push(s);
                scope.push(dst);
            }
        }
        match end {
            End::Assign(o) => {
                let s = self.rhs(me, scope, o.clone());
                body.push(s);
            }
            End::Ret if self.rng.chance(0.1) => {
                // A tail call through a closure holding some arguments.
                match self.callee(me, scope) {
                    Some((func, args)) => {
                        let k = self.rng.index(args.len());
                        let c = self.fresh();
                        body.push(st(StmtKind::CAlloc {
                            dst: c.clone(),
                            func,
                            args: args[..k].to_vec(),
                        }));
                        let closure = var(&c);
                        let args = args[k..].to_vec();
                        body.push(st(if self.rng.chance(0.5) {
                            StmtKind::TailCallClosures { closure, args }
                        } else {
                            StmtKind::TailCallClosure { closure, args }
                        }));
                    }
                    None => body.push(self.ret(me, scope)),
                }
            }
            End::Ret => body.push(self.ret(me, scope)),
            End::Fall => {}
        }
        body
    }

    /// `v = alloc s{k} (..)`, then a `case` on it whose arms read its
    /// fields and end by assigning the case's output, returned (`None` when
    /// every arm returns instead).
    fn case_of_shape(
        &mut self,
        me: Option<usize>,
        scope: &[VarName],
        depth: usize,
        body: &mut Vec<Stmt>,
    ) -> Option<VarName> {
        let k = self.rng.index(SHAPE_CTORS.len());
        let v = self.fresh();
        let args = self.args(scope, SHAPE_CTORS[k].2);
        body.push(st(StmtKind::Alloc {
            dst: v.clone(),
            ctor: SHAPE_CTORS[k].0.to_string(),
            args,
        }));
        let o = self.fresh();
        let with_default = self.rng.chance(0.5);
        let mut arms = Vec::new();
        let mut default = None;
        for (i, (name, _, fields)) in SHAPE_CTORS.iter().enumerate() {
            if with_default && i == 1 {
                continue;
            }
            let mut inner = scope.to_vec();
            let mut arm = Vec::new();
            for f in 0..*fields {
                let x = self.fresh();
                arm.push(st(StmtKind::Assign {
                    dst: x.clone(),
                    src: Value::Field {
                        var: v.clone(),
                        pos: Pos::default(),
                        ctor: name.to_string(),
                        index: f as u32,
                    },
                }));
                inner.push(x);
            }
            arm.extend(self.seq(me, &mut inner, depth + 2, End::Assign(&o)));
            arms.push(CaseArm {
                pos: Pos::default(),
                ctor: name.to_string(),
                body: arm,
            });
        }
        if with_default {
            let mut inner = scope.to_vec();
            default = Some(self.seq(me, &mut inner, depth + 2, End::Assign(&o)));
        }
        let falls =
            arms.iter().any(|a| seq_falls(&a.body)) || default.as_deref().is_some_and(seq_falls);
        body.push(st(StmtKind::Case {
            ty: SHAPE.to_string(),
            value: var(&v),
            out: Some(o.clone()),
            arms,
            default,
        }));
        falls.then_some(o)
    }

    /// Two constructors of `shape` and `r = eq` of them (equal or not, by
    /// constructor and fields); returns `r`. Half the time the first one
    /// holds integers (`add x 0` of an operand, which may be a boolean)
    /// and its `show` is traced.
    fn structural_eq(&mut self, scope: &[VarName], body: &mut Vec<Stmt>) -> VarName {
        let mut objects = Vec::new();
        let shown = self.rng.chance(0.5);
        for k in 0..2 {
            let (ctor, _, arity) = SHAPE_CTORS[self.rng.index(SHAPE_CTORS.len())];
            let o = self.fresh();
            let args = (0..arity)
                .map(|_| {
                    let a = self.small_or(scope);
                    if !(shown && k == 0) {
                        return a;
                    }
                    let n = self.fresh();
                    body.push(st(StmtKind::Binop {
                        dst: n.clone(),
                        op: BinOp::Add,
                        a,
                        b: Value::Const(Felt::ZERO),
                    }));
                    var(&n)
                })
                .collect();
            body.push(st(StmtKind::Alloc {
                dst: o.clone(),
                ctor: ctor.to_string(),
                args,
            }));
            if shown && k == 0 {
                let text = self.fresh();
                body.push(st(StmtKind::StrUnop {
                    dst: text.clone(),
                    op: StrOp::Show,
                    a: var(&o),
                }));
                body.push(st(StmtKind::Trace(var(&text))));
            }
            objects.push(var(&o));
        }
        let r = self.fresh();
        let b = objects.pop().unwrap_or(Value::Unit);
        let a = objects.pop().unwrap_or(Value::Unit);
        body.push(st(StmtKind::Binop {
            dst: r.clone(),
            op: BinOp::Eq,
            a,
            b,
        }));
        r
    }

    /// `call keep (v)` of an operand, a boolean, `unit` or `void`, traced.
    /// The result stays out of scope: an arithmetic or `eq` of a value of
    /// unknown kind may be refused when compiling.
    fn kept(&mut self, scope: &[VarName], body: &mut Vec<Stmt>) {
        let v = match self.rng.index(8) {
            0 => Value::Bool(self.rng.chance(0.5)),
            1 if self.rng.chance(0.5) => Value::Unit,
            1 => Value::Void,
            _ => self.operand(scope),
        };
        let r = self.fresh();
        body.push(st(StmtKind::Call {
            dst: r.clone(),
            func: KEEP.to_string(),
            args: vec![v],
        }));
        body.push(st(StmtKind::Trace(var(&r))));
    }

    /// `show` of an operand, made `strcat` with a constant after it (a
    /// digit, so the text still spells an integer) and before it, traced;
    /// then `show` of a comparison, traced; returns `atoi` of the digits.
    fn strings(&mut self, scope: &[VarName], body: &mut Vec<Stmt>) -> VarName {
        let [n, shown, digits, text, cmp, flag] = [(); 6].map(|_| self.fresh());
        // `add` makes an integer of what may be a boolean: `show` needs to
        // know which it prints.
        let a = self.operand(scope);
        body.push(st(StmtKind::Binop {
            dst: n.clone(),
            op: BinOp::Add,
            a,
            b: Value::Const(Felt::ZERO),
        }));
        body.push(st(StmtKind::StrUnop {
            dst: shown.clone(),
            op: StrOp::Show,
            a: var(&n),
        }));
        let digit = ["", "0", "7"][self.rng.index(3)];
        body.push(st(StmtKind::StrCat {
            dst: digits.clone(),
            a: var(&shown),
            b: Value::Str(digit.to_string()),
        }));
        body.push(st(StmtKind::StrCat {
            dst: text.clone(),
            a: Value::Str("n = ".to_string()),
            b: var(&digits),
        }));
        body.push(st(StmtKind::Trace(var(&text))));
        let same = self.fresh();
        body.push(st(StmtKind::Binop {
            dst: same.clone(),
            op: BinOp::Eq,
            a: var(&text),
            b: Value::Str(["n = 0", "n = 10", "n = 1"][self.rng.index(3)].to_string()),
        }));
        body.push(st(StmtKind::Trace(var(&same))));
        let (x, y) = (self.operand(scope), self.operand(scope));
        body.push(st(StmtKind::Binop {
            dst: cmp.clone(),
            op: BinOp::Le,
            a: x,
            b: y,
        }));
        body.push(st(StmtKind::StrUnop {
            dst: flag.clone(),
            op: StrOp::Show,
            a: var(&cmp),
        }));
        body.push(st(StmtKind::Trace(var(&flag))));
        let r = self.fresh();
        body.push(st(StmtKind::StrUnop {
            dst: r.clone(),
            op: StrOp::Atoi,
            a: var(&digits),
        }));
        r
    }

    /// A small constant (so that fields often agree), or an operand.
    fn small_or(&mut self, scope: &[VarName]) -> Value {
        if self.rng.chance(0.7) {
            Value::Const(Felt::from_i128(self.rng.index(2) as i128))
        } else {
            self.operand(scope)
        }
    }

    /// A closure of a function this one may call, holding some of the
    /// arguments; then `argsnum` of it, or a call with the rest (perhaps
    /// after a `cextend` with one of them). Returns the integer result.
    fn closure(
        &mut self,
        me: Option<usize>,
        scope: &[VarName],
        body: &mut Vec<Stmt>,
    ) -> Option<VarName> {
        let (func, args) = self.callee(me, scope)?;
        let k = self.rng.index(args.len());
        let mut c = self.fresh();
        body.push(st(StmtKind::CAlloc {
            dst: c.clone(),
            func,
            args: args[..k].to_vec(),
        }));
        let r = self.fresh();
        let mut rest = &args[k..];
        match self.rng.index(4) {
            0 => {
                body.push(st(StmtKind::ArgsNum {
                    dst: r.clone(),
                    closure: var(&c),
                }));
                return Some(r);
            }
            2 if !rest.is_empty() => {
                // `ccall` with some of the rest (extending the closure),
                // then with the others (calling it).
                let j = self.rng.index(rest.len());
                let c2 = self.fresh();
                body.push(st(StmtKind::CallClosures {
                    dst: c2.clone(),
                    closure: var(&c),
                    args: rest[..j].to_vec(),
                }));
                body.push(st(StmtKind::CallClosures {
                    dst: r.clone(),
                    closure: var(&c2),
                    args: rest[j..].to_vec(),
                }));
                return Some(r);
            }
            1 if rest.len() >= 2 => {
                let c2 = self.fresh();
                body.push(st(StmtKind::CExtend {
                    dst: c2.clone(),
                    closure: var(&c),
                    args: rest[..1].to_vec(),
                }));
                c = c2;
                rest = &rest[1..];
            }
            _ => {}
        }
        body.push(st(StmtKind::CallClosure {
            dst: r.clone(),
            closure: var(&c),
            args: rest.to_vec(),
        }));
        Some(r)
    }

    fn params(n: usize) -> Vec<Param> {
        (0..n)
            .map(|_| Param {
                name: None,
                ty: "integer".to_string(),
            })
            .collect()
    }

    fn function(&mut self, name: String, me: Option<usize>, n_params: usize) -> Function {
        self.next_tmp = 0;
        let mut scope: Vec<VarName> = (0..n_params as u32).map(VarName::Arg).collect();
        let body = self.seq(me, &mut scope, 0, End::Ret);
        Function {
            pos: Pos::default(),
            name,
            params: Self::params(n_params),
            ret: "integer".to_string(),
            body: Some(body),
            end: Pos::default(),
        }
    }

    /// `rec{k}(n, acc)`: recursion on `n` down to zero, through a call in a
    /// branch arm with an `out:` variable, or a tail call.
    fn recursive(&mut self, k: usize) -> Function {
        let (n, acc) = (VarName::Arg(0), VarName::Arg(1));
        let (t0, t1, t2, t3) = (
            VarName::Tmp(0),
            VarName::Tmp(1),
            VarName::Tmp(2),
            VarName::Tmp(3),
        );
        let ops = [BinOp::Add, BinOp::Mul, BinOp::Sub, BinOp::FAdd];
        let op = ops[self.rng.index(ops.len())];
        let step = Value::Const(Felt::from_i128(self.rng.index(5) as i128 + 1));
        let tail = self.rng.chance(0.4);
        let name = format!("rec{k}");
        let mut on_false = vec![
            st(StmtKind::Binop {
                dst: t1.clone(),
                op: BinOp::Sub,
                a: var(&n),
                b: Value::Const(Felt::ONE),
            }),
            st(StmtKind::Binop {
                dst: t2.clone(),
                op,
                a: var(&acc),
                b: if self.rng.chance(0.5) { var(&n) } else { step },
            }),
        ];
        if tail {
            on_false.push(st(StmtKind::TailCall {
                func: name.clone(),
                args: vec![var(&t1), var(&t2)],
            }));
        } else {
            on_false.push(st(StmtKind::Call {
                dst: t3.clone(),
                func: name.clone(),
                args: vec![var(&t1), var(&t2)],
            }));
            on_false.push(st(StmtKind::Binop {
                dst: t0.clone(),
                op: BinOp::Add,
                a: var(&t3),
                b: var(&n),
            }));
        }
        let body = vec![
            st(StmtKind::Branch {
                cond: Cond::Cmp(BinOp::Le, var(&n), Value::Const(Felt::ZERO)),
                out: Some(t0.clone()),
                on_true: vec![st(StmtKind::Assign {
                    dst: t0.clone(),
                    src: var(&acc),
                })],
                on_false,
            }),
            st(StmtKind::Ret(var(&t0))),
        ];
        Function {
            pos: Pos::default(),
            name,
            params: Self::params(2),
            ret: "integer".to_string(),
            body: Some(body),
            end: Pos::default(),
        }
    }
}

/// Generates a program whose entry is `main()` (no parameters).
pub fn generate(seed: u64, cfg: &Config) -> Module {
    let mut rng = Rng::new(seed);
    let arity = (0..cfg.functions).map(|_| rng.index(3) + 1).collect();
    let mut g = Gen {
        rng,
        cfg,
        arity,
        next_tmp: 0,
    };
    let mut functions = Vec::new();
    functions.push(g.function("main".to_string(), None, 0));
    for i in 0..cfg.functions {
        let n = g.arity[i];
        functions.push(g.function(format!("f{i}"), Some(i), n));
    }
    for k in 0..cfg.recursive {
        functions.push(g.recursive(k));
    }
    functions.push(Function {
        pos: Pos::default(),
        name: KEEP.to_string(),
        params: vec![Param {
            name: None,
            ty: "*".to_string(),
        }],
        ret: "*".to_string(),
        body: Some(vec![st(StmtKind::Ret(var(&VarName::Arg(0))))]),
        end: Pos::default(),
    });
    let ctors = SHAPE_CTORS
        .iter()
        .map(|(name, ty, arity)| Ctor {
            pos: Pos::default(),
            name: name.to_string(),
            ty: ty.to_string(),
            arity: *arity,
        })
        .collect();
    Module {
        types: vec![TypeDecl {
            pos: Pos::default(),
            name: SHAPE.to_string(),
            ctors,
        }],
        functions,
    }
}
