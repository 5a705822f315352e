//! The integer gadgets: bits of a value, the wrap of an exact result to
//! `N` bits with the overflow check its semantics need, comparisons.

use ark_bn254::Fr;
use ark_ff::One;
use num_bigint::{BigInt, Sign};

use super::{pow2, recompose, LowerError, Lowerer, Repr};
use crate::system::Lc;
use kildall_ir::Value;

/// The largest decomposition that is unique modulo the BN254 scalar field.
pub(crate) const MAX_BITS: u32 = 253;

/// A big integer as a field element (negative ones as `p - |x|`).
pub(crate) fn fr_of(x: &BigInt) -> Fr {
    let (sign, magnitude) = x.to_bytes_le();
    let f = <Fr as ark_ff::PrimeField>::from_le_bytes_mod_order(&magnitude);
    if sign == Sign::Minus {
        -f
    } else {
        f
    }
}

fn two_to(n: u32) -> BigInt {
    BigInt::from(1) << n
}

/// The range of an integer type: `[0, 2^N - 1]` or `[-2^(N-1), 2^(N-1) - 1]`.
pub(crate) fn type_range(n: u32, signed: bool) -> (BigInt, BigInt) {
    if signed {
        (-two_to(n - 1), two_to(n - 1) - 1)
    } else {
        (BigInt::from(0), two_to(n) - 1)
    }
}

impl Lowerer<'_> {
    /// The `n` bits of the integer `value`: known ones, a constant's, or a
    /// decomposition (which also range-checks an input).
    pub(crate) fn bits_of(&mut self, value: Value, n: u32) -> Result<Vec<Lc>, LowerError> {
        let value = self.func.dfg.resolve(value);
        if let Some(bits) = self.bits.get(&value) {
            return Ok(bits.clone());
        }
        let lc = self.scalar(value)?;
        let name = format!("{value}");
        let bits = self.decompose(&lc, n, &name);
        if lc.as_constant().is_none() {
            self.bits.insert(value, bits.clone());
        }
        Ok(bits)
    }

    /// The mathematical value of the integer `value` of type `iN`/`uN`:
    /// the pattern itself when unsigned, `pattern - 2^N sign` when signed.
    pub(crate) fn math_value(
        &mut self,
        value: Value,
        n: u32,
        signed: bool,
    ) -> Result<Lc, LowerError> {
        let lc = self.scalar(value)?;
        if !signed {
            return Ok(lc);
        }
        if let Some(c) = lc.as_constant() {
            // A constant pattern: read its sign directly.
            let big: num_bigint::BigUint = c.into();
            let top = big.bit(u64::from(n - 1));
            return Ok(if top { lc.plus_constant(-pow2(n)) } else { lc });
        }
        let bits = self.bits_of(value, n)?;
        Ok(lc.add_scaled(-pow2(n), &bits[n as usize - 1]))
    }

    /// The `n`-bit two's complement bits of `x`, an exact result known to
    /// lie in `[lo, hi]`. When `checked`, the constraints also require,
    /// under the predicate, that `x` fits the type (`iN` when `signed`).
    pub(crate) fn wrap(
        &mut self,
        x: &Lc,
        (lo, hi): (&BigInt, &BigInt),
        n: u32,
        signed: bool,
        checked: bool,
    ) -> Result<Vec<Lc>, LowerError> {
        let name = self.name();
        if checked && self.unpredicated() {
            // The result must fit: decomposing it (biased by 2^(n-1) when
            // signed) is the range check.
            if !signed {
                return Ok(self.decompose(x, n, &name));
            }
            let mut bits = self.decompose(&x.plus_constant(pow2(n - 1)), n, &name);
            let top = &bits[n as usize - 1];
            bits[n as usize - 1] = Lc::from_u64(1).minus(top);
            return Ok(bits);
        }
        // t = x - m with m the multiple of 2^n at or below lo: t >= 0, and
        // its low n bits are the wrapped result.
        let modulus = two_to(n);
        let mut m = lo / &modulus * &modulus;
        if &m > lo {
            m -= &modulus;
        }
        let span = hi - &m;
        let k = (span.bits() as u32).max(n);
        if k > MAX_BITS {
            return Err(self.unsupported(&format!(
                "a {k}-bit intermediate (more than the field's {MAX_BITS} unique bits)"
            )));
        }
        let t = x.plus_constant(-fr_of(&m));
        let bits = self.decompose(&t, k, &name);
        if checked {
            // x = 2^n (H - c) + low with c = -m / 2^n: x fits the unsigned
            // type iff H = c, the signed type iff H - c + bit(n-1) = 0.
            let c = fr_of(&(-&m / &modulus));
            let high = recompose(&bits[n as usize..]);
            let mut check = high.plus_constant(-c);
            if signed {
                check = check.plus(&bits[n as usize - 1]);
            }
            self.enforce_when_enabled(check);
        }
        Ok(bits[..n as usize].to_vec())
    }

    /// Records the bits of an integer result and its representation.
    pub(crate) fn set_int(&mut self, result: Value, bits: Vec<Lc>) {
        let lc = recompose(&bits);
        self.bits.insert(result, bits);
        self.repr.insert(result, Repr::Scalar(lc));
    }

    /// `a < b` on `iN`/`uN`: `a - b + 2^n` decomposed into `n + 1` bits; the
    /// top bit is `a >= b`.
    pub(crate) fn less_than(
        &mut self,
        a: Value,
        b: Value,
        n: u32,
        signed: bool,
    ) -> Result<Lc, LowerError> {
        let x = self.math_value(a, n, signed)?;
        let y = self.math_value(b, n, signed)?;
        let d = x.minus(&y).plus_constant(pow2(n));
        let name = self.name();
        let bits = self.decompose(&d, n + 1, &name);
        Ok(Lc::from_u64(1).minus(&bits[n as usize]))
    }

    /// Whether `d` is zero, by the inverse trick: `d * inv = 1 - z` and
    /// `d * z = 0`, two constraints; `z` is a witness (given when it is a
    /// recorded result).
    pub(crate) fn is_zero(&mut self, d: &Lc, z_value: Option<Fr>) -> Lc {
        if let Some(c) = d.as_constant() {
            return Lc::from_u64(u64::from(c == Fr::from(0u64)));
        }
        let name = self.name();
        let dv = self.eval(d);
        let inv = dv.map(|v| ark_ff::Field::inverse(&v).unwrap_or_default());
        let z_value = z_value.or_else(|| dv.map(|v| Fr::from(u64::from(v == Fr::from(0u64)))));
        let inv = Lc::var(self.new_witness(format!("{name}.inv"), inv));
        let z = Lc::var(self.new_witness(format!("{name}.zero"), z_value));
        self.enforce(d.clone(), inv, Lc::from_u64(1).minus(&z));
        self.enforce(d.clone(), z.clone(), Lc::zero());
        z
    }

    /// Requires, under the predicate, that `d` is not zero, and gives the
    /// witness `z` that is 1 exactly when `d` is zero (which the predicate
    /// then must be 0 for). Unpredicated, one constraint and `z = 0`.
    pub(crate) fn nonzero_when_enabled(&mut self, d: &Lc) -> Lc {
        if self.unpredicated() {
            let name = self.name();
            let inv = self
                .eval(d)
                .map(|v| ark_ff::Field::inverse(&v).unwrap_or_default());
            let inv = Lc::var(self.new_witness(format!("{name}.inv"), inv));
            self.enforce(d.clone(), inv, Lc::constant(Fr::one()));
            return Lc::zero();
        }
        let z = self.is_zero(d, None);
        self.enforce_when_enabled(z.clone());
        z
    }

    /// Requires, under the predicate, that `x` fits in `bits` bits: a
    /// decomposition of `x`, or of `predicate * x` when predicated.
    pub(crate) fn range_when_enabled(&mut self, x: &Lc, bits: u32) -> Result<(), LowerError> {
        if bits > MAX_BITS {
            return Ok(());
        }
        let name = self.name();
        let target = if self.unpredicated() {
            x.clone()
        } else {
            let p = self.predicate.clone();
            self.product(&p, x, &format!("{name}.p"))
        };
        self.decompose(&target, bits, &format!("{name}.range"));
        Ok(())
    }
}

impl Lowerer<'_> {
    /// The 254 bits of the canonical representative of `x`: a
    /// decomposition and a comparison of the bits with `p - 1` from the top
    /// (`eq` stays 1 while the prefix equals `p - 1`'s; a 1 bit where
    /// `p - 1` has 0 is forbidden while it does). About 2 × 254 + 250
    /// constraints.
    pub(crate) fn canonical_bits(&mut self, x: &Lc) -> Vec<Lc> {
        let name = self.name();
        let value = self.eval(x).map(|v| v.into_bigint());
        let mut bits = Vec::with_capacity(254);
        for i in 0..254 {
            let bit = value
                .as_ref()
                .map(|v| Fr::from(u64::from(ark_ff::BigInteger::get_bit(v, i))));
            let b = Lc::var(self.new_witness(format!("{name}.c{i}"), bit));
            self.enforce(b.clone(), b.clone(), b.clone());
            bits.push(b);
        }
        self.enforce(recompose(&bits), Lc::from_u64(1), x.clone());
        let limit = (-Fr::one()).into_bigint();
        let mut eq = Lc::from_u64(1);
        for i in (0..254).rev() {
            if ark_ff::BigInteger::get_bit(&limit, i) {
                eq = self.product(&eq, &bits[i], &format!("{name}.eq{i}"));
            } else {
                self.enforce(eq.clone(), bits[i].clone(), Lc::zero());
            }
        }
        bits
    }

    /// `x < y` on canonical representatives, from the top bit: `lt` turns 1
    /// at the first bit where `x` has 0 and `y` has 1 while the prefixes are
    /// equal.
    pub(crate) fn field_less_than(&mut self, x: &Lc, y: &Lc) -> Lc {
        let name = self.name();
        let a = self.canonical_bits(x);
        let b = self.canonical_bits(y);
        let mut eq = Lc::from_u64(1);
        let mut lt = Lc::zero();
        for i in (0..254).rev() {
            let ab = self.product(&a[i], &b[i], &format!("{name}.ab{i}"));
            // y_i and not x_i; x_i xor y_i.
            let less = b[i].minus(&ab);
            let differ = a[i].plus(&b[i]).add_scaled(-Fr::from(2u64), &ab);
            let step = self.product(&eq, &less, &format!("{name}.lt{i}"));
            lt = lt.plus(&step);
            if i > 0 {
                eq = self.product(
                    &eq,
                    &Lc::from_u64(1).minus(&differ),
                    &format!("{name}.eq{i}"),
                );
            }
        }
        lt
    }
}

use ark_ff::PrimeField as _;
