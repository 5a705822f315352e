//! Lowering of SSA `.jvr` to CASM with per-block liveness.
//!
//! The algorithm is the one of the Juvix compiler's JuvixReg-to-CASM
//! translation after its fix of the memory access order (Juvix PR #2697,
//! the change this crate follows):
//!
//! * Code is cut into basic blocks where the `ap` offset stops being known
//!   statically: after a `call`, and after a branch one of whose arms calls.
//! * Inside a block, `ap - fp` is known at every instruction, so each
//!   variable gets the fixed cell `[fp + k]`, written by the sequential
//!   `[ap] = ...; ap++` that defines it; no cell is ever written out of
//!   order. Parameters are at `[fp - 3 - i]`.
//! * A block is entered by `call rel` (or `call LABEL` for a branch join)
//!   with the variables live at its start pushed as arguments: the block's
//!   output (a call result, already on the stack, or a branch's `out`
//!   variable) deepest at `[fp - 3 - n]`, then the other live variables in
//!   ascending SSA order `v_0 < ... < v_{n-1}` with `v_k` at `[fp - 3 - k]`.
//!   Every predecessor of a block uses that one order, fixed by the block.
//!   After the `call` comes `ret` (the callee block's result is already at
//!   `[ap - 1]`) and a word-less `nop`, as in the translation's listing.
//! * Liveness is the standard backward analysis (Kildall's framework;
//!   Aho, Lam, Sethi and Ullman, *Compilers*, 2nd ed., §9.2.5), run over the
//!   structured body: an arm's live-out is its branch's live-out minus the
//!   output plus the operand the arm gives the output.
//! * A branch without calls in its arms stays inside the block: both arms
//!   are padded to the same `ap` offset and write the output into the same
//!   cell, so the offset after the join is still static.
//!
//! Integers and field elements are both Cairo field elements, so `add` and
//! `fadd` lower alike. Equality is a `jmp ... if [d] != 0` on the
//! difference. `lt`, `le`, `div` and `mod` take their answer from a hint and
//! prove it with the `range_check` builtin, whose pointer is then threaded
//! like an implicit argument of Cairo 0: every function takes it below its
//! arguments and returns it below its result, every block transfer passes
//! it below the block's output, and inside a block it is a cell plus a
//! static count of the checks made since (see `compare` and `div_mod`).

use std::collections::HashMap;

use crate::felt::Felt;
use crate::jvr::BinOp;
use crate::listing::{ArithOp, Builtin, Hint, Instr, Listing, MemRef, Rhs, Target, Val};
use crate::ssa::{Arm, Inst, Operand, SCond, SsaFunction, SsaModule, Var};

/// A lowering failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    /// A frame needs offsets beyond the 16-bit range of Cairo instructions.
    #[error("function {0} needs more than 32767 cells in one block")]
    FrameTooLarge(String),
}

/// A set of SSA variables of one function, as a bitset.
#[derive(Clone, Debug, PartialEq, Eq)]
struct VarSet(Vec<u64>);

impl VarSet {
    fn new(n: u32) -> VarSet {
        VarSet(vec![0; (n as usize).div_ceil(64)])
    }
    fn insert(&mut self, v: Var) {
        self.0[v.0 as usize / 64] |= 1 << (v.0 % 64);
    }
    fn remove(&mut self, v: Var) {
        self.0[v.0 as usize / 64] &= !(1 << (v.0 % 64));
    }
    fn union(&mut self, o: &VarSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn use_op(&mut self, o: &Operand) {
        if let Some(v) = o.var() {
            self.insert(v);
        }
    }
    /// Ascending order: the one order of block parameters.
    fn sorted(&self) -> Vec<Var> {
        let mut out = Vec::new();
        for (w, bits) in self.0.iter().enumerate() {
            let mut b = *bits;
            while b != 0 {
                let t = b.trailing_zeros();
                out.push(Var(w as u32 * 64 + t));
                b &= b - 1;
            }
        }
        out
    }
}

/// Live variables before one instruction, given those live after it.
fn transfer(inst: &Inst, live_after: &VarSet, n: u32) -> VarSet {
    match inst {
        Inst::Copy { dst, src } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            l.use_op(src);
            l
        }
        Inst::Binop { dst, a, b, .. } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            l.use_op(a);
            l.use_op(b);
            l
        }
        Inst::Call { dst, args, .. } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            args.iter().for_each(|a| l.use_op(a));
            l
        }
        Inst::TailCall { args, .. } => {
            let mut l = VarSet::new(n);
            args.iter().for_each(|a| l.use_op(a));
            l
        }
        Inst::Ret(v) => {
            let mut l = VarSet::new(n);
            l.use_op(v);
            l
        }
        Inst::Branch { cond, out, arms } => {
            let mut l = VarSet::new(n);
            for arm in arms.iter() {
                l.union(&live_in(
                    &arm.body,
                    &arm_live_out(arm, *out, live_after, n),
                    n,
                ));
            }
            match cond {
                SCond::NonZero(v) => l.use_op(v),
                SCond::Cmp(_, a, b) => {
                    l.use_op(a);
                    l.use_op(b);
                }
            }
            l
        }
    }
}

fn arm_live_out(arm: &Arm, out: Option<Var>, live_after: &VarSet, n: u32) -> VarSet {
    if !arm.falls {
        return VarSet::new(n);
    }
    let mut l = live_after.clone();
    if let Some(o) = out {
        l.remove(o);
    }
    if let Some(r) = &arm.result {
        l.use_op(r);
    }
    l
}

fn live_in(insts: &[Inst], live_out: &VarSet, n: u32) -> VarSet {
    let mut l = live_out.clone();
    for i in insts.iter().rev() {
        l = transfer(i, &l, n);
    }
    l
}

/// `before[i]` is live before `insts[i]`; `before[len]` is `live_out`.
fn live_before_each(insts: &[Inst], live_out: &VarSet, n: u32) -> Vec<VarSet> {
    let mut v = vec![live_out.clone(); insts.len() + 1];
    for i in (0..insts.len()).rev() {
        v[i] = transfer(&insts[i], &v[i + 1], n);
    }
    v
}

fn has_call(insts: &[Inst]) -> bool {
    insts.iter().any(|i| match i {
        Inst::Call { .. } => true,
        Inst::Branch { arms, .. } => arms.iter().any(|a| has_call(&a.body)),
        _ => false,
    })
}

/// Where a sequence goes when it reaches its end.
#[derive(Clone)]
enum Kont {
    /// It cannot: it ends with `ret` or `tcall`.
    Ret,
    /// Stay in the block (an arm of a branch without calls).
    Inline,
    /// Transfer into a join block.
    Join {
        label: String,
        /// The operand the branch output takes on this path.
        out: Option<Operand>,
        /// The join block's other parameters, ascending.
        params: Vec<Var>,
    },
}

/// The `range_check` pointer: the value of a cell plus a static offset
/// (the checks made since that cell was written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RcPtr {
    cell: i16,
    off: i32,
}

/// Placement of variables in the current block.
#[derive(Clone)]
struct Frame {
    loc: HashMap<Var, i16>,
    /// `ap - fp`; meaningful while the block has made no call.
    ap: i32,
    /// Where the `range_check` pointer is, when the module threads it.
    rc: Option<RcPtr>,
}

struct Lowerer<'m> {
    module: &'m SsaModule,
    func: &'m SsaFunction,
    out: Vec<Instr>,
    labels: u32,
    too_large: bool,
    /// Every function takes and returns the `range_check` pointer.
    threads_rc: bool,
}

/// The frame of a block entered with `params` (ascending, `v_k` at
/// `[fp - 3 - k]`), below them its output, and below everything the
/// `range_check` pointer when the module threads it.
fn block_frame(out: Option<Var>, params: &[Var], rc: bool) -> Frame {
    let n = params.len() as i32;
    let mut loc = HashMap::new();
    for (k, p) in params.iter().enumerate() {
        loc.insert(*p, (-3 - k as i32) as i16);
    }
    if let Some(o) = out {
        loc.insert(o, (-3 - n) as i16);
    }
    let below = -3 - n - i32::from(out.is_some());
    let rc = rc.then_some(RcPtr {
        cell: below.max(i16::MIN as i32) as i16,
        off: 0,
    });
    Frame { loc, ap: 0, rc }
}

impl Lowerer<'_> {
    fn label(&mut self) -> String {
        self.labels += 1;
        format!("{}$L{}", self.func.name, self.labels)
    }

    fn emit(&mut self, i: Instr) {
        self.out.push(i);
    }

    fn cell(&mut self, frame: &Frame, v: Var) -> MemRef {
        // Liveness guarantees that every read variable has a cell here.
        MemRef::fp(frame.loc.get(&v).copied().unwrap_or(-1))
    }

    fn val(&mut self, frame: &Frame, o: &Operand) -> Val {
        match o {
            Operand::Var(v) => Val::Mem(self.cell(frame, *v)),
            Operand::Const(c) => Val::Imm(*c),
        }
    }

    /// `[ap] = rhs; ap++`: the next cell of the frame.
    fn push(&mut self, frame: &mut Frame, rhs: Rhs) -> MemRef {
        let off = frame.ap;
        if off > i16::MAX as i32 - 1 {
            self.too_large = true;
        }
        frame.ap += 1;
        self.emit(Instr::Assign {
            dst: MemRef::ap(0),
            rhs,
            ap_incr: true,
        });
        MemRef::fp(off as i16)
    }

    fn push_operand(&mut self, frame: &mut Frame, o: &Operand) -> MemRef {
        let v = self.val(frame, o);
        self.push(frame, Rhs::Val(v))
    }

    /// A cell holding `o`: its own cell for a variable, a new one for a constant.
    fn in_cell(&mut self, frame: &mut Frame, o: &Operand) -> MemRef {
        match o {
            Operand::Var(v) => self.cell(frame, *v),
            Operand::Const(_) => self.push_operand(frame, o),
        }
    }

    fn arith(&mut self, frame: &mut Frame, op: ArithOp, a: &Operand, b: &Operand) -> MemRef {
        use Operand::Const as C;
        match (op, a, b) {
            (ArithOp::Add | ArithOp::Mul, C(x), C(y)) => {
                let v = if op == ArithOp::Add { *x + *y } else { *x * *y };
                self.push(frame, Rhs::Val(Val::Imm(v)))
            }
            (ArithOp::Add | ArithOp::Mul, C(_), Operand::Var(_)) => self.arith(frame, op, b, a),
            (ArithOp::Sub, C(x), C(y)) => self.push(frame, Rhs::Val(Val::Imm(*x - *y))),
            (ArithOp::Sub, Operand::Var(_), C(y)) => self.arith(frame, ArithOp::Add, a, &C(-*y)),
            (ArithOp::Sub, C(x), Operand::Var(_)) => {
                let neg = self.arith(frame, ArithOp::Mul, b, &C(Felt::from_i128(-1)));
                self.push(frame, Rhs::Op(ArithOp::Add, neg, Val::Imm(*x)))
            }
            (ArithOp::Div, _, C(y)) if !y.is_zero() => {
                let inv = y.inverse().unwrap_or(Felt::ZERO);
                self.arith(frame, ArithOp::Mul, a, &C(inv))
            }
            _ => {
                let a = self.in_cell(frame, a);
                let b = self.val(frame, b);
                self.push(frame, Rhs::Op(op, a, b))
            }
        }
    }

    /// The `range_check` pointer's current value, as a right-hand side.
    fn rc_value(frame: &Frame) -> Option<Rhs> {
        frame.rc.map(|rc| {
            let cell = MemRef::fp(rc.cell);
            if rc.off == 0 {
                Rhs::Val(Val::Mem(cell))
            } else {
                Rhs::Op(
                    ArithOp::Add,
                    cell,
                    Val::Imm(Felt::from_i128(rc.off as i128)),
                )
            }
        })
    }

    /// Proves `0 <= cell < 2^128`: writes the cell into the next
    /// `range_check` cell, `cell = [[rc] + off]`, which the builtin checks.
    fn range_check(&mut self, frame: &mut Frame, cell: MemRef) {
        let Some(mut rc) = frame.rc else {
            unreachable!("range checks only in modules that thread the pointer")
        };
        if rc.off >= i16::MAX as i32 {
            let moved = Self::rc_value(frame).unwrap_or(Rhs::Val(Val::Imm(Felt::ZERO)));
            let c = self.push(frame, moved);
            rc = RcPtr {
                cell: c.off,
                off: 0,
            };
        }
        self.emit(Instr::Assign {
            dst: cell,
            rhs: Rhs::Deref(MemRef::fp(rc.cell), rc.off as i16),
            ap_incr: false,
        });
        rc.off += 1;
        frame.rc = Some(rc);
    }

    /// Proves an operand of `lt`/`le` lies in `[-2^127, 2^127)`
    /// (`BinOp::check_range`): `x + 2^127` is range-checked. A constant in
    /// range needs no code.
    fn check_signed_128(&mut self, frame: &mut Frame, x: &Operand) {
        let shift = Felt::from_u128(1 << 127);
        if let Operand::Const(c) = x {
            if BinOp::Lt.check_range(*c, Felt::ZERO).is_ok() {
                return;
            }
        }
        let shifted = self.arith(frame, ArithOp::Add, x, &Operand::Const(shift));
        self.range_check(frame, shifted);
    }

    /// A cell holding Juvix's boolean of `a < b` (`a <= b` when not
    /// `strict`) on signed readings: 0 when it holds, 1 otherwise.
    ///
    /// The hint proposes the bit `B`; the code proves `B * B = B` and
    /// range-checks the one difference that must be small when `B` is
    /// right: `b - a - k` when the comparison holds, `a - b - 1 + k`
    /// otherwise (`k = 1` for `<`), computed without a branch as
    /// `t1 + B * (t0 - t1)`. With both operands in `[-2^127, 2^127)` the
    /// differences lie in `(-2^128, 2^128)`, so a wrong `B` makes the
    /// checked difference negative, a field element above `2^128`.
    fn compare(&mut self, frame: &mut Frame, a: &Operand, b: &Operand, strict: bool) -> MemRef {
        self.check_signed_128(frame, a);
        self.check_signed_128(frame, b);
        let (va, vb) = (self.val(frame, a), self.val(frame, b));
        self.emit(Instr::Hint(Hint::Compare {
            a: va,
            b: vb,
            strict,
        }));
        let bit = self.push(frame, Rhs::Val(Val::Mem(MemRef::ap(0))));
        self.emit(Instr::Assign {
            dst: bit,
            rhs: Rhs::Op(ArithOp::Mul, bit, Val::Mem(bit)),
            ap_incr: false,
        });
        let k = i128::from(strict);
        let u = self.arith(frame, ArithOp::Sub, b, a);
        let w = self.push(
            frame,
            Rhs::Op(ArithOp::Mul, u, Val::Imm(Felt::from_i128(-2))),
        );
        let w = self.push(
            frame,
            Rhs::Op(ArithOp::Add, w, Val::Imm(Felt::from_i128(2 * k - 1))),
        );
        let bw = self.push(frame, Rhs::Op(ArithOp::Mul, bit, Val::Mem(w)));
        let mut t = self.push(frame, Rhs::Op(ArithOp::Add, bw, Val::Mem(u)));
        if k != 0 {
            t = self.push(
                frame,
                Rhs::Op(ArithOp::Add, t, Val::Imm(Felt::from_i128(-k))),
            );
        }
        self.range_check(frame, t);
        bit
    }

    /// Integer `div` (`quotient`) or `mod` of the signed readings,
    /// truncating toward zero (`BinOp::eval`).
    ///
    /// The hint proposes the signs `sa`, `sb` and `q`, `r` with
    /// `|a| = q * |b| + r`. The code proves the signs are bits, forms
    /// `|a| = (1 - 2 sa) a` and `|b| = (1 - 2 sb) b`, and range-checks
    /// `|a|`, `|b| - 1`, `2^123 - |b|`, `q`, `r` and `|b| - 1 - r`: the
    /// signs are then the true ones (a wrong sign makes a magnitude
    /// negative), `q * |b| + r < 2^251 + 2^123 < P` cannot wrap, so
    /// `q` and `r` are the true quotient and remainder (cairo-lang's
    /// `unsigned_div_rem` argument).
    fn div_mod(&mut self, frame: &mut Frame, a: &Operand, b: &Operand, quotient: bool) -> MemRef {
        let (va, vb) = (self.val(frame, a), self.val(frame, b));
        self.emit(Instr::Hint(Hint::DivMod { a: va, b: vb }));
        let base = frame.ap;
        self.emit(Instr::ApAdd(Felt::from_u128(4)));
        frame.ap += 4;
        if frame.ap > i16::MAX as i32 - 1 {
            self.too_large = true;
        }
        let cell = |k: i32| MemRef::fp((base + k) as i16);
        let (sa, sb, q, r) = (cell(0), cell(1), cell(2), cell(3));
        let mut factors = Vec::new();
        for (s, v) in [(sa, va), (sb, vb)] {
            self.emit(Instr::Assign {
                dst: s,
                rhs: Rhs::Op(ArithOp::Mul, s, Val::Mem(s)),
                ap_incr: false,
            });
            let m = self.push(
                frame,
                Rhs::Op(ArithOp::Mul, s, Val::Imm(Felt::from_i128(-2))),
            );
            let m = self.push(frame, Rhs::Op(ArithOp::Add, m, Val::Imm(Felt::ONE)));
            let abs = self.push(frame, Rhs::Op(ArithOp::Mul, m, v));
            factors.push((m, abs));
        }
        let [(ma, abs_a), (mb, abs_b)] = [factors[0], factors[1]];
        self.range_check(frame, abs_a);
        let b_less_1 = self.push(frame, Rhs::Op(ArithOp::Add, abs_b, Val::Imm(-Felt::ONE)));
        self.range_check(frame, b_less_1);
        let neg_b = self.push(frame, Rhs::Op(ArithOp::Mul, abs_b, Val::Imm(-Felt::ONE)));
        let headroom = self.push(
            frame,
            Rhs::Op(ArithOp::Add, neg_b, Val::Imm(Felt::from_u128(1 << 123))),
        );
        self.range_check(frame, headroom);
        self.range_check(frame, q);
        self.range_check(frame, r);
        let slack = self.push(frame, Rhs::Op(ArithOp::Sub, b_less_1, Val::Mem(r)));
        self.range_check(frame, slack);
        let qb = self.push(frame, Rhs::Op(ArithOp::Mul, q, Val::Mem(abs_b)));
        self.emit(Instr::Assign {
            dst: abs_a,
            rhs: Rhs::Op(ArithOp::Add, qb, Val::Mem(r)),
            ap_incr: false,
        });
        if quotient {
            let sign = self.push(frame, Rhs::Op(ArithOp::Mul, ma, Val::Mem(mb)));
            self.push(frame, Rhs::Op(ArithOp::Mul, q, Val::Mem(sign)))
        } else {
            self.push(frame, Rhs::Op(ArithOp::Mul, r, Val::Mem(ma)))
        }
    }

    fn binop(&mut self, frame: &mut Frame, op: BinOp, a: &Operand, b: &Operand) -> MemRef {
        match op {
            BinOp::Add | BinOp::FAdd => self.arith(frame, ArithOp::Add, a, b),
            BinOp::Sub | BinOp::FSub => self.arith(frame, ArithOp::Sub, a, b),
            BinOp::Mul | BinOp::FMul => self.arith(frame, ArithOp::Mul, a, b),
            BinOp::FDiv => self.arith(frame, ArithOp::Div, a, b),
            BinOp::Div => self.div_mod(frame, a, b, true),
            BinOp::Mod => self.div_mod(frame, a, b, false),
            BinOp::Lt => self.compare(frame, a, b, true),
            BinOp::Le => self.compare(frame, a, b, false),
            BinOp::Eq => {
                if let (Operand::Const(x), Operand::Const(y)) = (a, b) {
                    let v = crate::jvr::bool_felt(x == y);
                    return self.push(frame, Rhs::Val(Val::Imm(v)));
                }
                let d = self.arith(frame, ArithOp::Sub, a, b);
                let (ne, end) = (self.label(), self.label());
                self.emit(Instr::Jump {
                    target: Target::Label(ne.clone()),
                    cond: Some(d),
                    ap_incr: false,
                });
                let mut f2 = frame.clone();
                self.push(&mut f2, Rhs::Val(Val::Imm(Felt::ZERO)));
                self.emit(Instr::Jump {
                    target: Target::Label(end.clone()),
                    cond: None,
                    ap_incr: false,
                });
                self.emit(Instr::Label(ne));
                let r = self.push(frame, Rhs::Val(Val::Imm(Felt::ONE)));
                self.emit(Instr::Label(end));
                r
            }
        }
    }

    /// A cell and the polarity: the condition holds iff the cell is
    /// non-zero (`true`) or iff it is zero (`false`).
    fn test(&mut self, frame: &mut Frame, cond: &SCond) -> (MemRef, bool) {
        match cond {
            // `br v` holds (takes its true arm) when `v` is zero.
            SCond::NonZero(v) => (self.in_cell(frame, v), false),
            // Comparing a variable with zero needs no difference cell.
            SCond::Cmp(BinOp::Eq, Operand::Var(v), Operand::Const(z))
            | SCond::Cmp(BinOp::Eq, Operand::Const(z), Operand::Var(v))
                if z.is_zero() =>
            {
                (self.cell(frame, *v), false)
            }
            SCond::Cmp(BinOp::Eq, a, b) => (self.arith(frame, ArithOp::Sub, a, b), false),
            SCond::Cmp(op, a, b) => (self.binop(frame, *op, a, b), false),
        }
    }

    /// Pushes the `range_check` pointer (when threaded), then the
    /// arguments in reverse order, and calls `func`.
    fn push_args_and_call(
        &mut self,
        frame: &mut Frame,
        func: crate::ssa::FuncId,
        args: &[Operand],
    ) {
        if let Some(rc) = Self::rc_value(frame) {
            self.push(frame, rc);
        }
        for a in args.iter().rev() {
            self.push_operand(frame, a);
        }
        let name = self
            .module
            .functions
            .get(func.0 as usize)
            .map(|f| f.name.clone())
            .unwrap_or_default();
        self.emit(Instr::Call(Target::Label(name)));
    }

    /// Pushes a block's arguments: the `range_check` pointer (when
    /// threaded), the output, and the parameters in reverse order. Right
    /// after a call, `on_stack` is its result, on top of the callee's
    /// `range_check` pointer: when it is the output, both are already in
    /// place; otherwise the pointer is copied from `[ap - 2]`.
    fn transfer_pushes(
        &mut self,
        frame: &mut Frame,
        out: Option<&Operand>,
        on_stack: Option<Var>,
        params: &[Var],
    ) {
        let in_place = match (out, on_stack) {
            (Some(o), Some(v)) => o.var() == Some(v),
            _ => false,
        };
        if !in_place {
            if on_stack.is_some() {
                if self.threads_rc {
                    self.push(frame, Rhs::Val(Val::Mem(MemRef::ap(-2))));
                }
            } else if let Some(rc) = Self::rc_value(frame) {
                self.push(frame, rc);
            }
            if let Some(o) = out {
                self.push_operand(frame, o);
            }
        }
        for p in params.iter().rev() {
            self.push_operand(frame, &Operand::Var(*p));
        }
    }

    /// Lowers `insts` starting in `frame`. Returns the frame at the end when
    /// `kont` is [`Kont::Inline`] and the sequence falls through.
    fn seq(
        &mut self,
        mut frame: Frame,
        insts: &[Inst],
        kont: &Kont,
        live_out: &VarSet,
    ) -> Option<Frame> {
        let n = self.func.n_vars;
        let live = live_before_each(insts, live_out, n);
        let mut i = 0;
        while i < insts.len() {
            match &insts[i] {
                Inst::Copy { dst, src } => {
                    let c = self.push_operand(&mut frame, src);
                    frame.loc.insert(*dst, c.off);
                }
                Inst::Binop { dst, op, a, b } => {
                    let c = self.binop(&mut frame, *op, a, b);
                    frame.loc.insert(*dst, c.off);
                }
                Inst::TailCall { func, args } => {
                    // `tcall` is `call; ret`, as Cairo's own compiler lowers
                    // `return f(...)`: no instruction but `call` sets `fp`,
                    // and the callee's arguments below its `fp` cannot reuse
                    // the caller's cells in write-once memory. A tail-recursive
                    // loop thus costs its arguments plus two frame cells per
                    // iteration (any Cairo loop writes fresh cells), and one
                    // `ret` per iteration on the way out.
                    self.push_args_and_call(&mut frame, *func, args);
                    self.emit(Instr::Ret);
                    return None;
                }
                Inst::Ret(v) => {
                    if let Some(rc) = Self::rc_value(&frame) {
                        self.push(&mut frame, rc);
                    }
                    self.push_operand(&mut frame, v);
                    self.emit(Instr::Ret);
                    return None;
                }
                Inst::Call { dst, func, args } => {
                    self.push_args_and_call(&mut frame, *func, args);
                    let rest = &insts[i + 1..];
                    if let [Inst::Ret(Operand::Var(r))] = rest {
                        if r == dst {
                            self.emit(Instr::Ret);
                            return None;
                        }
                    }
                    if rest.is_empty() {
                        self.finish(&mut frame, kont, Some(*dst));
                        return None;
                    }
                    let mut params = live[i + 1].clone();
                    params.remove(*dst);
                    let params = params.sorted();
                    if params.len() > 30_000 {
                        self.too_large = true;
                    }
                    // The call's result, and below it the callee's
                    // `range_check` pointer, are in place: only the
                    // parameters are pushed.
                    for p in params.iter().rev() {
                        self.push_operand(&mut frame, &Operand::Var(*p));
                    }
                    self.emit(Instr::Call(Target::Rel(3)));
                    self.emit(Instr::Ret);
                    self.emit(Instr::Nop);
                    frame = block_frame(Some(*dst), &params, self.threads_rc);
                }
                Inst::Branch { cond, out, arms } => {
                    let rest = &insts[i + 1..];
                    let (cell, holds_if_nonzero) = self.test(&mut frame, cond);
                    // The arm taken on a non-zero cell, and the other one.
                    let (nz, z) = if holds_if_nonzero {
                        (&arms[0], &arms[1])
                    } else {
                        (&arms[1], &arms[0])
                    };
                    let nz_label = self.label();
                    self.emit(Instr::Jump {
                        target: Target::Label(nz_label.clone()),
                        cond: Some(cell),
                        ap_incr: false,
                    });
                    if !arms.iter().any(|a| has_call(&a.body)) {
                        match self.inline_branch(frame, *out, z, nz, nz_label, &live[i + 1]) {
                            Some(joined) => frame = joined,
                            // Both arms return: nothing follows the branch.
                            None => return None,
                        }
                    } else {
                        let falls = arms.iter().any(|a| a.falls);
                        let join = self.label();
                        let mut params = live[i + 1].clone();
                        if let Some(o) = out {
                            params.remove(*o);
                        }
                        let params = params.sorted();
                        if params.len() > 30_000 {
                            self.too_large = true;
                        }
                        for (k, arm) in [z, nz].into_iter().enumerate() {
                            if k == 1 {
                                self.emit(Instr::Label(nz_label.clone()));
                            }
                            let arm_kont = if arm.falls {
                                Kont::Join {
                                    label: join.clone(),
                                    out: arm.result,
                                    params: params.clone(),
                                }
                            } else {
                                Kont::Ret
                            };
                            let lo = arm_live_out(arm, *out, &live[i + 1], n);
                            self.seq(frame.clone(), &arm.body, &arm_kont, &lo);
                        }
                        if !falls {
                            return None;
                        }
                        self.emit(Instr::Label(join));
                        frame = block_frame(*out, &params, self.threads_rc);
                        if rest.is_empty() {
                            self.finish(&mut frame, kont, None);
                            return None;
                        }
                    }
                }
            }
            i += 1;
        }
        match kont {
            Kont::Inline => Some(frame),
            _ => {
                self.finish(&mut frame, kont, None);
                None
            }
        }
    }

    /// The end of a sequence that falls through into a join block.
    fn finish(&mut self, frame: &mut Frame, kont: &Kont, on_stack: Option<Var>) {
        if let Kont::Join { label, out, params } = kont {
            self.transfer_pushes(frame, out.as_ref(), on_stack, params);
            self.emit(Instr::Call(Target::Label(label.clone())));
            self.emit(Instr::Ret);
        }
    }

    /// Both arms inline; the zero arm falls through after the `jmp`.
    ///
    /// Only arms that reach their end join: an arm that returns on every
    /// path has no `ap` at the join, and its last `ap` must not decide the
    /// join's (the arms end at different offsets before padding). Returns
    /// the frame after the join, or `None` when no arm reaches it.
    fn inline_branch(
        &mut self,
        frame: Frame,
        out: Option<Var>,
        z: &Arm,
        nz: &Arm,
        nz_label: String,
        live_after: &VarSet,
    ) -> Option<Frame> {
        let n = self.func.n_vars;
        let mut bodies = Vec::new();
        for arm in [z, nz] {
            let saved = std::mem::take(&mut self.out);
            let lo = arm_live_out(arm, out, live_after, n);
            let end = self.seq(frame.clone(), &arm.body, &Kont::Inline, &lo);
            let code = std::mem::replace(&mut self.out, saved);
            bodies.push((code, end.filter(|_| arm.falls), arm.result));
        }
        // Every falling arm is padded to `join_ap`, then writes the output
        // (if any) into that one cell.
        let join_ap = bodies
            .iter()
            .filter_map(|(_, e, _)| e.as_ref().map(|f| f.ap))
            .max();
        // Arms that made different numbers of range checks join their
        // `range_check` pointers in one cell, as a second output.
        let mut ends = bodies
            .iter()
            .filter_map(|(_, e, _)| e.as_ref().map(|f| f.rc));
        let first_rc = ends.next().flatten();
        let join_rc = ends.any(|rc| rc != first_rc);
        let end_label = self.label();
        let mut need_end = false;
        for (k, (code, end, value)) in bodies.into_iter().enumerate() {
            if k == 1 {
                self.emit(Instr::Label(nz_label.clone()));
            }
            self.out.extend(code);
            let (Some(mut f), Some(target)) = (end, join_ap) else {
                continue;
            };
            while f.ap < target {
                self.push(&mut f, Rhs::Val(Val::Imm(Felt::ZERO)));
            }
            if join_rc {
                if let Some(rc) = Self::rc_value(&f) {
                    self.push(&mut f, rc);
                }
            }
            if let Some(v) = value {
                self.push_operand(&mut f, &v);
            }
            if k == 0 {
                need_end = true;
                self.emit(Instr::Jump {
                    target: Target::Label(end_label.clone()),
                    cond: None,
                    ap_incr: false,
                });
            }
        }
        if need_end {
            self.emit(Instr::Label(end_label));
        }
        let join_ap = join_ap?;
        let mut result = frame;
        result.ap = join_ap;
        if join_rc {
            result.rc = Some(RcPtr {
                cell: join_ap as i16,
                off: 0,
            });
            result.ap += 1;
        } else {
            result.rc = first_rc;
        }
        if let Some(o) = out {
            result.loc.insert(o, result.ap as i16);
            result.ap += 1;
        }
        Some(result)
    }
}

/// Lowers every function of `module` to one listing, each function under
/// its name as a label, in module order.
pub fn lower(module: &SsaModule) -> Result<Listing, LowerError> {
    let threads_rc = module.functions.iter().any(|f| needs_range_check(&f.body));
    let mut items = Vec::new();
    for func in &module.functions {
        let mut l = Lowerer {
            module,
            func,
            out: Vec::new(),
            labels: 0,
            too_large: false,
            threads_rc,
        };
        l.emit(Instr::Label(func.name.clone()));
        let loc = (0..func.n_params)
            .map(|i| (Var(i), (-3 - i as i64).clamp(i16::MIN as i64, 0) as i16))
            .collect();
        if func.n_params > 32000 {
            return Err(LowerError::FrameTooLarge(func.name.clone()));
        }
        let rc = threads_rc.then_some(RcPtr {
            cell: (-3 - func.n_params as i32) as i16,
            off: 0,
        });
        let frame = Frame { loc, ap: 0, rc };
        l.seq(frame, &func.body, &Kont::Ret, &VarSet::new(func.n_vars));
        if l.too_large {
            return Err(LowerError::FrameTooLarge(func.name.clone()));
        }
        items.extend(l.out);
    }
    let builtins = if threads_rc {
        vec![Builtin::RangeCheck]
    } else {
        Vec::new()
    };
    Ok(Listing { builtins, items })
}

/// Whether code proves integer facts with the `range_check` builtin
/// (`lt`, `le`, `div`, `mod`). One such function anywhere makes every
/// function take and return the pointer, so that any function can call
/// any other.
fn needs_range_check(insts: &[Inst]) -> bool {
    let checked = |op: &BinOp| matches!(op, BinOp::Lt | BinOp::Le | BinOp::Div | BinOp::Mod);
    insts.iter().any(|i| match i {
        Inst::Binop { op, .. } => checked(op),
        Inst::Branch { cond, arms, .. } => {
            matches!(cond, SCond::Cmp(op, _, _) if checked(op))
                || arms.iter().any(|a| needs_range_check(&a.body))
        }
        _ => false,
    })
}
