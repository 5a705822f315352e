//! Numeric constants as the text writes them: the field's modulus, a
//! constant of a type from its sign and magnitude, and the range checks the
//! verifier shares.

use crate::{ConstValue, Type};

/// The BN254 scalar field modulus, little-endian limbs.
pub(crate) const FIELD_MODULUS: ConstValue = ConstValue([
    0x43e1_f593_f000_0001,
    0x2833_e848_79b9_7091,
    0xb850_45b6_8181_585d,
    0x3064_4e72_e131_a029,
]);

/// `a - b` on 256 bits, `a >= b`.
fn sub256(a: ConstValue, b: ConstValue) -> ConstValue {
    let mut out = [0u64; 4];
    let mut borrow = false;
    for (i, limb) in out.iter_mut().enumerate() {
        let (d, b1) = a.0[i].overflowing_sub(b.0[i]);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        *limb = d;
        borrow = b1 || b2;
    }
    ConstValue(out)
}

/// The negation of the field element `value` when its decimal digits are
/// fewer (`-1` rather than the modulus minus one), as Noir prints field
/// elements; `None` when `value` prints shorter as it is.
pub(crate) fn shorter_field_negation(value: ConstValue) -> Option<ConstValue> {
    // A negation has at least 76 digits unless `value` is within 10^38 of
    // the modulus, which needs more than 128 bits.
    if value.bits() <= 128 || !less_than(value, FIELD_MODULUS) {
        return None;
    }
    let negated = sub256(FIELD_MODULUS, value);
    (negated.to_string().len() < value.to_string().len()).then_some(negated)
}

/// The constant `negative ? -magnitude : magnitude` of type `ty`, if in range.
pub(crate) fn make_constant(
    ty: &Type,
    negative: bool,
    magnitude: ConstValue,
) -> Option<ConstValue> {
    match *ty {
        Type::Field => {
            if !less_than(magnitude, FIELD_MODULUS) {
                return None;
            }
            if negative && !magnitude.is_zero() {
                Some(sub256(FIELD_MODULUS, magnitude))
            } else {
                Some(magnitude)
            }
        }
        Type::Unsigned(bits) => {
            let m = magnitude.to_u128()?;
            let fits = bits >= 128 || m < (1u128 << bits);
            (fits && (!negative || m == 0)).then_some(magnitude)
        }
        Type::Signed(bits) => {
            let m = magnitude.to_u128()?;
            let half = 1u128 << (bits - 1);
            let mask = if bits >= 128 {
                u128::MAX
            } else {
                (1u128 << bits) - 1
            };
            if negative {
                (m <= half).then(|| ConstValue::from_u128(m.wrapping_neg() & mask))
            } else {
                (m < half).then_some(magnitude)
            }
        }
        _ => None,
    }
}

/// An integer constant its type cannot hold, as Noir's parser reads it: the
/// field element the text writes (`u8 300` is 300, `u8 -1` is p - 1). The
/// verifier rejects it (the IR gives no value to such a constant), so that
/// it parses and prints back and the refusal names the type.
pub(super) fn integer_beyond_range(
    ty: &Type,
    negative: bool,
    magnitude: ConstValue,
) -> Option<ConstValue> {
    if !ty.is_integer() || !less_than(magnitude, FIELD_MODULUS) {
        return None;
    }
    Some(if negative && !magnitude.is_zero() {
        sub256(FIELD_MODULUS, magnitude)
    } else {
        magnitude
    })
}

/// Whether the constant `value` is one of type `ty`: below the field's
/// modulus for `Field`, below 2^N for `uN` and `iN` (the two's complement
/// bits of an `iN`).
pub(crate) fn constant_fits(ty: &Type, value: ConstValue) -> bool {
    match *ty {
        Type::Field => less_than(value, FIELD_MODULUS),
        Type::Unsigned(bits) | Type::Signed(bits) => bits >= 256 || value.bits() <= bits,
        _ => true,
    }
}

/// Whether the `Field` constant `value` casts to the integer type `ty`
/// without trapping, as the interpreter reads it: the canonical
/// representative for `uN`, and for `iN` representatives above p/2 as
/// negative (`p - 1` is -1).
pub(crate) fn field_constant_casts(value: ConstValue, ty: &Type) -> bool {
    match *ty {
        Type::Unsigned(bits) => value.bits() <= bits,
        Type::Signed(bits) => {
            let below = value.bits() < bits;
            let negated = less_than(value, FIELD_MODULUS)
                .then(|| sub256(FIELD_MODULUS, value))
                .and_then(ConstValue::to_u128);
            let above = negated.is_some_and(|m| bits > 128 || m <= 1u128 << (bits - 1));
            below || above
        }
        _ => true,
    }
}

/// Whether `a < b` as 256-bit numbers.
fn less_than(a: ConstValue, b: ConstValue) -> bool {
    a.0.iter().rev().cmp(b.0.iter().rev()) == std::cmp::Ordering::Less
}
