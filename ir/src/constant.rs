//! Numeric constants: a 256-bit unsigned magnitude, interpreted through the
//! constant's type (`Field` canonical below the BN254 modulus, `uN` below
//! 2^N, `iN` in two's complement on N bits).

use std::fmt;

/// A numeric constant's bits, little-endian 64-bit limbs.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstValue(pub [u64; 4]);

impl ConstValue {
    /// Zero.
    pub const ZERO: ConstValue = ConstValue([0; 4]);
    /// One.
    pub const ONE: ConstValue = ConstValue([1, 0, 0, 0]);

    /// The constant `value`.
    pub fn from_u128(value: u128) -> ConstValue {
        ConstValue([value as u64, (value >> 64) as u64, 0, 0])
    }

    /// The value, if it fits in 128 bits.
    pub fn to_u128(self) -> Option<u128> {
        let [lo, hi, a, b] = self.0;
        (a == 0 && b == 0).then_some(u128::from(lo) | (u128::from(hi) << 64))
    }

    /// The value, if it fits in 64 bits.
    pub fn to_u64(self) -> Option<u64> {
        let [lo, hi, a, b] = self.0;
        (hi == 0 && a == 0 && b == 0).then_some(lo)
    }

    /// Whether the value is zero.
    pub fn is_zero(self) -> bool {
        self.0 == [0; 4]
    }

    /// The number of significant bits.
    pub fn bits(self) -> u32 {
        for i in (0..4).rev() {
            if self.0[i] != 0 {
                return 64 * i as u32 + 64 - self.0[i].leading_zeros();
            }
        }
        0
    }

    /// Parses a decimal number; `None` if it has no digits, a non-digit, or
    /// does not fit in 256 bits.
    pub fn parse_decimal(text: &str) -> Option<ConstValue> {
        if text.is_empty() {
            return None;
        }
        let mut limbs = [0u64; 4];
        for byte in text.bytes() {
            let digit = u64::from(byte.checked_sub(b'0').filter(|d| *d < 10)?);
            let mut carry = u128::from(digit);
            for limb in &mut limbs {
                let wide = u128::from(*limb) * 10 + carry;
                *limb = wide as u64;
                carry = wide >> 64;
            }
            if carry != 0 {
                return None;
            }
        }
        Some(ConstValue(limbs))
    }

    /// Divides by `divisor` in place and returns the remainder.
    fn div_rem_small(&mut self, divisor: u64) -> u64 {
        let mut rem = 0u128;
        for limb in self.0.iter_mut().rev() {
            let wide = (rem << 64) | u128::from(*limb);
            *limb = (wide / u128::from(divisor)) as u64;
            rem = wide % u128::from(divisor);
        }
        rem as u64
    }
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(small) = self.to_u128() {
            return write!(f, "{small}");
        }
        // Peel off 19 decimal digits at a time (10^19 fits in a u64).
        const CHUNK: u64 = 10_000_000_000_000_000_000;
        let mut rest = *self;
        let mut chunks = Vec::new();
        while !rest.is_zero() {
            chunks.push(rest.div_rem_small(CHUNK));
        }
        let mut chunks = chunks.into_iter().rev();
        write!(f, "{}", chunks.next().unwrap_or(0))?;
        for chunk in chunks {
            write!(f, "{chunk:019}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trip() {
        for text in [
            "0",
            "1",
            "340282366920938463463374607431768211455",
            "340282366920938463463374607431768211456",
            "21888242871839275222246405745257275088548364400416034343698204186575808495617",
        ] {
            assert_eq!(ConstValue::parse_decimal(text).unwrap().to_string(), text);
        }
        let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert!(ConstValue::parse_decimal(max).is_some());
        let over = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
        assert!(ConstValue::parse_decimal(over).is_none());
        assert!(ConstValue::parse_decimal("12a").is_none());
    }
}
