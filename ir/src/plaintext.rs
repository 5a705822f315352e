//! Noisy arithmetic with a plaintext constant, the one place the rule lives.
//!
//! The noisy-arithmetic design says that scaling a ciphertext by a
//! statically known constant scales its noise by a constant. Here the
//! constant is a *plaintext constant operand*: `mul v2, u5 4` (either
//! side), an integer constant of any `uN`/`iN` type next to a `noisy`
//! value. Scaling by `c` multiplies the noise by `|c|`, so the bound grows
//! by `ceil(log2(|c|))` bits (`c` = 1: 0 bits, `c` = 4: 2 bits; `c` = 0
//! gives no noise at all and is counted as 0 bits). `add`/`sub` of a
//! plaintext constant moves the plaintext, not the noise: 0 bits. An
//! *encoded* constant (`encode u5 4 -> noisy`) is a fresh encryption, which
//! carries the encoding noise like any other (the noisy-arithmetic model's
//! examples encode their constants and count 24 bits after `mul`).

use crate::{Function, Type, Value, ValueDef};

/// The magnitude `|c|` of `value` when it is an integer constant (two's
/// complement for `iN`), `None` otherwise.
pub fn plaintext_constant(func: &Function, value: Value) -> Option<u128> {
    let value = func.dfg.resolve(value);
    let ValueDef::Const(constant) = func.dfg.value_def(value) else {
        return None;
    };
    match *func.dfg.value_type(value) {
        Type::Unsigned(_) => constant.to_u128(),
        Type::Signed(bits) => constant.to_u128().map(|raw| magnitude(raw, bits)),
        _ => None,
    }
}

/// `|c|` of the low `bits` bits of `raw` read in two's complement.
pub fn magnitude(raw: u128, bits: u32) -> u128 {
    if bits == 0 || bits >= 128 {
        return (raw as i128).unsigned_abs();
    }
    let shift = 128 - bits;
    (((raw << shift) as i128) >> shift).unsigned_abs()
}

/// Bits of noise a `mul` by a constant of magnitude `c` adds: `ceil(log2(c))`,
/// 0 for `c` of 0 or 1.
pub fn scale_bits(c: u128) -> u32 {
    if c <= 1 {
        0
    } else {
        128 - (c - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_bits_is_the_ceiling_of_log2() {
        let expected = [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 2),
            (4, 2),
            (5, 3),
            (8, 3),
            (9, 4),
            (31, 5),
        ];
        for (c, bits) in expected {
            assert_eq!(scale_bits(c), bits, "c = {c}");
        }
        assert_eq!(scale_bits(u128::MAX), 128);
    }

    #[test]
    fn a_plaintext_operand_must_be_a_constant() {
        let ok = "fn main f0 {
  b0(v0: u5):
    v1 = encode v0 -> noisy
    v2 = mul u5 4, v1
    v3 = sub v2, i5 -3
    v4 = decode v3 -> u5
    return v4
}";
        let module = crate::parse_module(ok).unwrap();
        crate::verify_module(&module).unwrap();
        let bad = ok.replace("mul u5 4, v1", "mul v0, v1");
        let module = crate::parse_module(&bad).unwrap();
        let err = crate::verify_module(&module).unwrap_err();
        assert!(err.to_string().contains("integer constant"), "{err}");
    }

    #[test]
    fn signed_constants_count_their_magnitude() {
        assert_eq!(magnitude(0b11100, 5), 4); // i5 -4
        assert_eq!(magnitude(0b00100, 5), 4);
        assert_eq!(magnitude(0b10000, 5), 16); // i5 -16
    }
}
