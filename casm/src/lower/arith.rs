//! Arithmetic, comparisons and their proofs: `lt`, `le`, `div` and `mod`
//! take their answer from a hint and prove it with the `range_check`
//! builtin.

use super::{BuiltinPtr, Frame, Lowerer};
use crate::felt::Felt;
use crate::jvr::BinOp;
use crate::jvr::BuiltinOp;
use crate::listing::{ArithOp, Builtin, Hint, Instr, MemRef, Rhs, Target, Val};
use crate::ssa::{ApplyKind, Inst, Operand, SCond, SsaModule};

impl Lowerer<'_> {
    pub(super) fn arith(
        &mut self,
        frame: &mut Frame,
        op: ArithOp,
        a: &Operand,
        b: &Operand,
    ) -> MemRef {
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

    /// The builtin pointers' current values, as right-hand sides.
    fn builtin_values(frame: &Frame) -> Vec<Rhs> {
        frame
            .builtins
            .iter()
            .map(|b| {
                let cell = MemRef::fp(b.cell);
                if b.off == 0 {
                    Rhs::Val(Val::Mem(cell))
                } else {
                    Rhs::Op(ArithOp::Add, cell, Val::Imm(Felt::from_i128(b.off as i128)))
                }
            })
            .collect()
    }

    /// Pushes the builtin pointers, in order.
    pub(super) fn push_builtins(&mut self, frame: &mut Frame) {
        for v in Self::builtin_values(frame) {
            self.push(frame, v);
        }
    }

    /// The builtin's pointer as a cell and an offset that fits an
    /// instruction (past it, the pointer is moved into a new cell), for an
    /// instance of `cells` cells; the pointer then moves past it.
    pub(super) fn builtin_instance(
        &mut self,
        frame: &mut Frame,
        builtin: Builtin,
        cells: i32,
    ) -> (MemRef, i16) {
        let slot = self
            .builtins
            .iter()
            .position(|b| *b == builtin)
            .expect("the module threads every builtin its code uses");
        let mut b = frame.builtins[slot];
        if b.off + cells >= i16::MAX as i32 {
            let moved = Self::builtin_values(frame)[slot];
            let c = self.push(frame, moved);
            b = BuiltinPtr {
                cell: c.off,
                off: 0,
            };
        }
        let at = (MemRef::fp(b.cell), b.off as i16);
        b.off += cells;
        frame.builtins[slot] = b;
        at
    }

    /// Proves `0 <= cell < 2^128`: writes the cell into the next
    /// `range_check` cell, `cell = [[rc] + off]`, which the builtin checks.
    fn range_check(&mut self, frame: &mut Frame, cell: MemRef) {
        let (ptr, off) = self.builtin_instance(frame, Builtin::RangeCheck, 1);
        self.emit(Instr::Assign {
            dst: cell,
            rhs: Rhs::Deref(ptr, off),
            ap_incr: false,
        });
    }

    /// Proves an operand of `lt`/`le` lies in `[-2^127, 2^127)`
    /// (`BinOp::check_range`): `x + 2^127` is range-checked. A constant in
    /// range needs no code.
    pub(super) fn check_signed_128(&mut self, frame: &mut Frame, x: &Operand) {
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
    pub(super) fn compare(
        &mut self,
        frame: &mut Frame,
        a: &Operand,
        b: &Operand,
        strict: bool,
    ) -> MemRef {
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
    pub(super) fn div_mod(
        &mut self,
        frame: &mut Frame,
        a: &Operand,
        b: &Operand,
        quotient: bool,
    ) -> MemRef {
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

    pub(super) fn binop(
        &mut self,
        frame: &mut Frame,
        op: BinOp,
        a: &Operand,
        b: &Operand,
    ) -> MemRef {
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
    pub(super) fn test(&mut self, frame: &mut Frame, cond: &SCond) -> (MemRef, bool) {
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
}

/// The builtins a module's code uses, in Cairo's order: `range_check` to
/// prove `lt`, `le`, `div` and `mod`, and `ec_op` and `poseidon` for
/// themselves. One use anywhere makes every function take and return the
/// pointer, so that any function can call any other.
pub(super) fn module_builtins(module: &SsaModule) -> Vec<Builtin> {
    let mut used = [false; 3];
    for f in &module.functions {
        scan_builtins(&f.body, &mut used);
    }
    Builtin::THREADED
        .into_iter()
        .zip(used)
        .filter_map(|(b, u)| u.then_some(b))
        .collect()
}

fn scan_builtins(insts: &[Inst], used: &mut [bool; 3]) {
    let checked = |op: &BinOp| matches!(op, BinOp::Lt | BinOp::Le | BinOp::Div | BinOp::Mod);
    for i in insts {
        match i {
            Inst::Binop { op, .. } if checked(op) => used[0] = true,
            Inst::Apply {
                kind: ApplyKind::ShowInt | ApplyKind::ShowCtor | ApplyKind::ShowNamed(_),
                ..
            } => used[0] = true,
            Inst::Builtin { op, .. } => match op {
                BuiltinOp::EcOp => used[1] = true,
                BuiltinOp::Poseidon => used[2] = true,
            },
            Inst::Branch { cond, arms, .. } => {
                if matches!(cond, SCond::Cmp(op, _, _) if checked(op)) {
                    used[0] = true;
                }
                arms.iter().for_each(|a| scan_builtins(&a.body, used));
            }
            Inst::Case { arms, .. } => arms.iter().for_each(|a| scan_builtins(&a.body, used)),
            _ => {}
        }
    }
}
