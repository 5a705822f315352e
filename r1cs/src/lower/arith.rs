//! The constraints of arithmetic: on field elements, and on integers
//! through their bits (wrapping, checked and signed division, shifts by a
//! variable amount).

use ark_bn254::Fr;
use ark_ff::{Field, One, Zero};
use num_bigint::BigInt;

use super::ints::{type_range, MAX_BITS};
use super::{pow2, recompose, LowerError, Lowerer, Repr};
use crate::system::Lc;
use kildall_ir::{BinaryOp, Value};

impl Lowerer<'_> {
    pub(super) fn field_binary(
        &mut self,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        r: Value,
    ) -> Result<(), LowerError> {
        let (a, b) = (self.scalar(lhs)?, self.scalar(rhs)?);
        let name = self.name();
        let lc = match op {
            BinaryOp::Add | BinaryOp::UncheckedAdd => a.plus(&b),
            BinaryOp::Sub | BinaryOp::UncheckedSub => a.minus(&b),
            BinaryOp::Mul | BinaryOp::UncheckedMul => self.product(&a, &b, &name),
            BinaryOp::Div => match b.as_constant().and_then(|k| k.inverse()) {
                Some(inverse) => a.scale(inverse),
                None => {
                    // b q = a (1 - z), z q = 0, z = [b = 0], no z where enabled.
                    let z = self.nonzero_when_enabled(&b);
                    let q_value = self.recorded_scalar(r)?;
                    let q = Lc::var(self.new_witness(name.clone(), q_value));
                    let kept = if z.0.is_empty() {
                        a
                    } else {
                        self.product(&a, &Lc::from_u64(1).minus(&z), &format!("{name}.num"))
                    };
                    self.enforce(b, q.clone(), kept);
                    if !z.0.is_empty() {
                        self.enforce(z, q.clone(), Lc::zero());
                    }
                    q
                }
            },
            BinaryOp::Eq => {
                let z = self.recorded_scalar(r)?;
                let z = self.is_zero(&a.minus(&b), z);
                self.bits.insert(r, vec![z.clone()]);
                z
            }
            BinaryOp::Lt => {
                let lt = self.field_less_than(&a, &b);
                self.bits.insert(r, vec![lt.clone()]);
                lt
            }
            _ => return Err(self.unsupported(&format!("`{op}` on Field"))),
        };
        self.repr.insert(r, Repr::Scalar(lc));
        Ok(())
    }

    pub(super) fn int_binary(
        &mut self,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        r: Value,
        n: u32,
        signed: bool,
    ) -> Result<(), LowerError> {
        let name = self.name();
        let (lo, hi) = type_range(n, signed);
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::UncheckedAdd | BinaryOp::UncheckedSub => {
                let x = self.math_value(lhs, n, signed)?;
                let y = self.math_value(rhs, n, signed)?;
                let add = matches!(op, BinaryOp::Add | BinaryOp::UncheckedAdd);
                let (exact, bounds) = if add {
                    (x.plus(&y), (&lo + &lo, &hi + &hi))
                } else {
                    (x.minus(&y), (&lo - &hi, &hi - &lo))
                };
                let checked = matches!(op, BinaryOp::Add | BinaryOp::Sub);
                let bits = self.wrap(&exact, (&bounds.0, &bounds.1), n, signed, checked)?;
                self.set_int(r, bits);
            }
            BinaryOp::Mul | BinaryOp::UncheckedMul => {
                let x = self.math_value(lhs, n, signed)?;
                let y = self.math_value(rhs, n, signed)?;
                let exact = self.product(&x, &y, &format!("{name}.exact"));
                let corners = [&lo * &lo, &lo * &hi, &hi * &hi];
                let min = corners.iter().min().cloned().unwrap_or_default();
                let max = corners.iter().max().cloned().unwrap_or_default();
                let checked = op == BinaryOp::Mul;
                let bits = self.wrap(&exact, (&min, &max), n, signed, checked)?;
                self.set_int(r, bits);
            }
            BinaryOp::Div | BinaryOp::Mod => {
                if signed {
                    self.signed_div(op, lhs, rhs, r, n)?;
                } else {
                    self.unsigned_div(op, lhs, rhs, r, n)?;
                }
            }
            BinaryOp::Eq => {
                let (a, b) = (self.scalar(lhs)?, self.scalar(rhs)?);
                let z = self.recorded_scalar(r)?;
                let lc = self.is_zero(&a.minus(&b), z);
                self.bits.insert(r, vec![lc.clone()]);
                self.repr.insert(r, Repr::Scalar(lc));
            }
            BinaryOp::Lt => {
                let lc = self.less_than(lhs, rhs, n, signed)?;
                self.bits.insert(r, vec![lc.clone()]);
                self.repr.insert(r, Repr::Scalar(lc));
            }
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                let a = self.bits_of(lhs, n)?;
                let b = self.bits_of(rhs, n)?;
                let mut out = Vec::with_capacity(n as usize);
                for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                    let xy = self.product(x, y, &format!("{name}.b{i}"));
                    out.push(match op {
                        BinaryOp::And => xy,
                        BinaryOp::Or => x.plus(y).minus(&xy),
                        _ => x.plus(y).add_scaled(-Fr::from(2u64), &xy),
                    });
                }
                self.set_int(r, out);
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                let Some(shift) = self.scalar(rhs)?.as_constant() else {
                    let bits = self.variable_shift(op, lhs, rhs, n, signed)?;
                    self.set_int(r, bits);
                    return Ok(());
                };
                let shift: num_bigint::BigUint = shift.into();
                let bits = if shift >= num_bigint::BigUint::from(n) {
                    // Traps where enabled; the result is zero elsewhere.
                    self.enforce_when_enabled(Lc::from_u64(1));
                    vec![Lc::zero(); n as usize]
                } else {
                    let s = shift.iter_u32_digits().next().unwrap_or(0) as usize;
                    let a = self.bits_of(lhs, n)?;
                    let n = n as usize;
                    if op == BinaryOp::Shl {
                        let mut out = vec![Lc::zero(); s];
                        out.extend_from_slice(&a[..n - s]);
                        out
                    } else {
                        let fill = if signed { a[n - 1].clone() } else { Lc::zero() };
                        let mut out = a[s..].to_vec();
                        out.resize(n, fill);
                        out
                    }
                };
                self.set_int(r, bits);
            }
        }
        Ok(())
    }

    /// The witnesses `q` and `r` of the division `a / b` named `name`,
    /// valued where both operands are known: by `divide`, or `q = r = 0`
    /// for a zero divisor, as the interpreter gives.
    fn division_witnesses(
        &mut self,
        name: &str,
        (a, b): (&Lc, &Lc),
        divide: impl Fn(Fr, Fr) -> (Fr, Fr),
    ) -> (Lc, Lc) {
        let (qv, rv) = match (self.eval(a), self.eval(b)) {
            (Some(_), Some(b)) if b.is_zero() => (Some(Fr::zero()), Some(Fr::zero())),
            (Some(a), Some(b)) => {
                let (q, r) = divide(a, b);
                (Some(q), Some(r))
            }
            _ => (None, None),
        };
        let q = Lc::var(self.new_witness(format!("{name}.q"), qv));
        let rem = Lc::var(self.new_witness(format!("{name}.r"), rv));
        (q, rem)
    }

    /// `a (1 - z) = q b + r`: the division identity, which a zero divisor
    /// (`z = 1`, from [`nonzero_when_enabled`](Self::nonzero_when_enabled))
    /// voids; `a = q b + r` where `z` is the zero form (no zero divisor can
    /// pass).
    fn enforce_division(&mut self, name: &str, (a, b, z): (&Lc, &Lc, &Lc), (q, rem): (&Lc, &Lc)) {
        let kept = if z.0.is_empty() {
            a.clone()
        } else {
            self.product(a, &Lc::from_u64(1).minus(z), &format!("{name}.num"))
        };
        self.enforce(q.clone(), b.clone(), kept.minus(rem));
    }

    /// `small < bound` unless `waived` (0 or 1) is set: the slack
    /// `bound - 1 - small + 2^n waived` decomposes into `bits` bits.
    fn enforce_below(
        &mut self,
        name: &str,
        (small, bound): (&Lc, &Lc),
        waived: &Lc,
        (n, bits): (u32, u32),
    ) {
        let slack = bound
            .minus(small)
            .plus_constant(-Fr::one())
            .add_scaled(pow2(n), waived);
        self.decompose(&slack, bits, &format!("{name}.slack"));
    }

    /// `a = q b + r` with `r < b`, `q` and `r` of `n` bits; a zero divisor
    /// traps where enabled and gives `q = r = 0` elsewhere, as the
    /// interpreter does.
    fn unsigned_div(
        &mut self,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        result: Value,
        n: u32,
    ) -> Result<(), LowerError> {
        let name = self.name();
        let (a, b) = (self.scalar(lhs)?, self.scalar(rhs)?);
        let z = self.nonzero_when_enabled(&b);
        let (q, rem) = self.division_witnesses(&name, (&a, &b), |a, b| {
            let (a, b): (num_bigint::BigUint, num_bigint::BigUint) = (a.into(), b.into());
            (Fr::from(&a / &b), Fr::from(&a % &b))
        });
        let q_bits = self.decompose(&q, n, &format!("{name}.q"));
        self.decompose(&rem, n, &format!("{name}.r"));
        self.enforce_division(&name, (&a, &b, &z), (&q, &rem));
        // r < b, or b = 0 (then r = 0): b - 1 - r + 2^n z fits in n bits.
        self.enforce_below(&name, (&rem, &b), &z, (n, n));
        if !z.0.is_empty() {
            self.enforce(z, q.plus(&rem), Lc::zero());
        }
        if op == BinaryOp::Div {
            self.set_int(result, q_bits);
        } else {
            self.repr.insert(result, Repr::Scalar(rem));
        }
        Ok(())
    }

    /// A shift by a run-time amount `s` (of the operand's type): `ok = [s < n]`
    /// (a trap where enabled and not ok), `pow = ok 2^s` from the bits of
    /// `s` below `n` (one product per bit), then `shl` wraps `a pow` to
    /// `n` bits and `shr` divides: `a = q pow + r`, `r < pow`, `q = 0` when
    /// not ok (the interpreter's zero), `q` signed for an arithmetic shift.
    fn variable_shift(
        &mut self,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        n: u32,
        signed: bool,
    ) -> Result<Vec<Lc>, LowerError> {
        if 2 * n > MAX_BITS {
            return Err(self.unsupported("a shift of more than 126 bits by a run-time amount"));
        }
        let name = self.name();
        let m = self.func.dfg.value_type(rhs).bit_size().unwrap_or(n);
        let s_bits = self.bits_of(rhs, m)?;
        let s = recompose(&s_bits);
        // ok = [s < n]: the top bit of s - n + 2^m, negated (s < 2^m).
        let d = self.decompose(
            &s.plus_constant(pow2(m.max(n)) - Fr::from(u64::from(n))),
            m.max(n) + 1,
            &format!("{name}.ok"),
        );
        let ok = Lc::from_u64(1).minus(&d[m.max(n) as usize]);
        self.enforce_when_enabled(Lc::from_u64(1).minus(&ok));
        // When ok, s < n fits in the low `width` bits.
        let width = 32 - (n - 1).leading_zeros();
        let mut pow = ok.clone();
        for (i, bit) in s_bits.iter().take(width as usize).enumerate() {
            let step = Lc::from_u64(1).add_scaled(pow2(1 << i) - Fr::one(), bit);
            pow = self.product(&pow, &step, &format!("{name}.pow{i}"));
        }
        let n_us = n as usize;
        if op == BinaryOp::Shl {
            let a = self.scalar(lhs)?;
            let exact = self.product(&a, &pow, &format!("{name}.exact"));
            let bits = self.decompose(&exact, 2 * n - 1, &name);
            return Ok(bits[..n_us].to_vec());
        }
        let a = self.math_value(lhs, n, signed)?;
        let (q, rem) = self.division_witnesses(&name, (&a, &pow), |a, p| {
            let to_int = |f: Fr| -> BigInt {
                let big: num_bigint::BigUint = f.into();
                if signed && big.bits() > u64::from(n) {
                    -BigInt::from(num_bigint::BigUint::from(-f))
                } else {
                    BigInt::from(big)
                }
            };
            let (a, p) = (to_int(a), to_int(p));
            let q = num_integer_floor_div(&a, &p);
            let r = &a - &q * &p;
            (super::ints::fr_of(&q), super::ints::fr_of(&r))
        });
        self.decompose(&rem, n, &format!("{name}.r"));
        // a ok = q pow + r
        let kept = self.product(&a, &ok, &format!("{name}.num"));
        self.enforce(q.clone(), pow.clone(), kept.minus(&rem));
        // r < pow where ok; r = 0 elsewhere (then pow - 1 - r + 2^n fits).
        self.enforce_below(&name, (&rem, &pow), &Lc::from_u64(1).minus(&ok), (n, n + 1));
        self.enforce(Lc::from_u64(1).minus(&ok), q.plus(&rem), Lc::zero());
        if signed {
            let mut bits = self.decompose(&q.plus_constant(pow2(n - 1)), n, &format!("{name}.q"));
            bits[n_us - 1] = Lc::from_u64(1).minus(&bits[n_us - 1]);
            Ok(bits)
        } else {
            Ok(self.decompose(&q, n, &format!("{name}.q")))
        }
    }

    /// Signed division truncating toward zero: `a = q b + r` with `|r| <
    /// |b|` and `r` of the sign of `a` (`|r| = r (1 - 2 sign(a))` in `n`
    /// bits), `q` in `[-2^(n-1), 2^(n-1)]`; `q = 2^(n-1)` is `MIN / -1`,
    /// which traps where enabled (`mod` too, as a checked remainder does)
    /// and wraps elsewhere. A zero
    /// divisor traps where enabled and gives `q = r = 0` elsewhere.
    fn signed_div(
        &mut self,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        result: Value,
        n: u32,
    ) -> Result<(), LowerError> {
        let name = self.name();
        let a = self.math_value(lhs, n, true)?;
        let b = self.math_value(rhs, n, true)?;
        let sign_a = self.bits_of(lhs, n)?[n as usize - 1].clone();
        let sign_b = self.bits_of(rhs, n)?[n as usize - 1].clone();
        let z = self.nonzero_when_enabled(&b);
        let to_int = |f: Fr| -> BigInt {
            let big: num_bigint::BigUint = f.into();
            if big.bits() > 128 {
                -BigInt::from(num_bigint::BigUint::from(-f))
            } else {
                BigInt::from(big)
            }
        };
        let (q, rem) = self.division_witnesses(&name, (&a, &b), |a, b| {
            let (a, b) = (to_int(a), to_int(b));
            // Truncating division and a remainder of a's sign.
            let (q, r) = (&a / &b, &a % &b);
            (super::ints::fr_of(&q), super::ints::fr_of(&r))
        });
        self.enforce_division(&name, (&a, &b, &z), (&q, &rem));
        let flip = |sign: &Lc| Lc::from_u64(1).add_scaled(-Fr::from(2u64), sign);
        let abs_r = self.product(&rem, &flip(&sign_a), &format!("{name}.absr"));
        let abs_b = self.product(&b, &flip(&sign_b), &format!("{name}.absb"));
        self.decompose(&abs_r, n, &format!("{name}.absr"));
        self.enforce_below(&name, (&abs_r, &abs_b), &z, (n, n + 1));
        if !z.0.is_empty() {
            self.enforce(z, q.clone(), Lc::zero());
        }
        let q_bits = self.decompose(&q.plus_constant(pow2(n - 1)), n + 1, &format!("{name}.q"));
        let n_us = n as usize;
        self.enforce_when_enabled(q_bits[n_us].clone());
        if op == BinaryOp::Div {
            let mut bits = q_bits[..n_us].to_vec();
            bits[n_us - 1] = Lc::from_u64(1).minus(&bits[n_us - 1]);
            self.set_int(result, bits);
        } else {
            let mut bits =
                self.decompose(&rem.plus_constant(pow2(n - 1)), n, &format!("{name}.rp"));
            bits[n_us - 1] = Lc::from_u64(1).minus(&bits[n_us - 1]);
            self.set_int(result, bits);
        }
        Ok(())
    }
}

/// `floor(a / b)` for `b > 0`.
fn num_integer_floor_div(a: &BigInt, b: &BigInt) -> BigInt {
    let q = a / b;
    if (a - &q * b) < BigInt::from(0) {
        q - 1
    } else {
        q
    }
}
