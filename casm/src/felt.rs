//! Elements of the Cairo prime field, `P = 2^251 + 17 * 2^192 + 1`: the
//! field element of the Cairo ecosystem (`starknet-types-core`, the one
//! `cairo-vm` uses), with the readings the `.jvr` language needs.
//!
//! Integers of the `.jvr` language are field elements too (as on the Cairo
//! VM); comparisons read them as signed numbers in `[-(P-1)/2, (P-1)/2]`.

use std::cmp::Ordering;
use std::fmt;

use starknet_types_core::felt::Felt as StarkFelt;

/// The Cairo prime, little-endian limbs.
const P: [u64; 4] = [1, 0, 0, 0x0800_0000_0000_0011];

const fn geq(a: [u64; 4], b: [u64; 4]) -> bool {
    let mut i = 4;
    while i > 0 {
        i -= 1;
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

fn sub_raw(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    let mut r = [0u64; 4];
    let mut borrow = false;
    for i in 0..4 {
        let (d1, o1) = a[i].overflowing_sub(b[i]);
        let (d2, o2) = d1.overflowing_sub(u64::from(borrow));
        r[i] = d2;
        borrow = o1 || o2;
    }
    r
}

/// An element of the Cairo field, always in canonical form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Felt(StarkFelt);

impl Felt {
    /// Zero.
    pub const ZERO: Felt = Felt(StarkFelt::ZERO);
    /// One.
    pub const ONE: Felt = Felt(StarkFelt::ONE);
    /// `(P - 1) / 2`: the largest non-negative signed value, and the offset
    /// that maps the signed range monotonically onto `[0, P)`.
    pub const HALF: Felt = Felt(StarkFelt::from_hex_unchecked(
        "0x400000000000008800000000000000000000000000000000000000000000000",
    ));

    /// The field element of a signed 128-bit integer.
    pub fn from_i128(v: i128) -> Felt {
        let mag = Felt::from_u128(v.unsigned_abs());
        if v < 0 {
            -mag
        } else {
            mag
        }
    }

    /// The field element of an unsigned 128-bit integer.
    pub fn from_u128(v: u128) -> Felt {
        Felt(StarkFelt::from(v))
    }

    /// The little-endian limbs of the canonical representative.
    pub fn limbs(&self) -> [u64; 4] {
        self.0.to_le_digits()
    }

    /// The element with these little-endian limbs, `None` unless they are
    /// below `P`.
    pub fn from_canonical_limbs(limbs: [u64; 4]) -> Option<Felt> {
        if geq(limbs, P) {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (chunk, limb) in bytes.chunks_exact_mut(8).zip(limbs) {
            chunk.copy_from_slice(&limb.to_le_bytes());
        }
        Some(Felt(StarkFelt::from_bytes_le(&bytes)))
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.0 == StarkFelt::ZERO
    }

    /// The element of the Cairo ecosystem's field type.
    pub fn to_stark(self) -> StarkFelt {
        self.0
    }

    /// This crate's view of an element of the Cairo ecosystem's field type.
    pub fn from_stark(value: StarkFelt) -> Felt {
        Felt(value)
    }

    /// The multiplicative inverse, `None` for zero.
    pub fn inverse(&self) -> Option<Felt> {
        self.0.inverse().map(Felt)
    }

    /// Comparison of the signed readings (`x > (P-1)/2` reads as `x - P`).
    pub fn signed_cmp(&self, other: &Felt) -> Ordering {
        let a = *self + Felt::HALF;
        let b = *other + Felt::HALF;
        a.canonical_cmp(&b)
    }

    /// Comparison of the canonical representatives in `[0, P)`.
    pub fn canonical_cmp(&self, other: &Felt) -> Ordering {
        let (a, b) = (self.limbs(), other.limbs());
        a.iter().rev().cmp(b.iter().rev())
    }

    /// Truncating division of the signed readings: the quotient rounds
    /// toward zero and the remainder has the sign of the dividend (Haskell's
    /// `quot`/`rem`, which Juvix's Cairo semantics use). `None` for a zero
    /// divisor.
    pub fn signed_quot_rem(&self, divisor: &Felt) -> Option<(Felt, Felt)> {
        if divisor.is_zero() {
            return None;
        }
        let magnitude = |x: &Felt| if x.is_negative() { -*x } else { *x };
        let (n, d) = (magnitude(self).limbs(), magnitude(divisor).limbs());
        // Shift-subtract long division on the 256-bit magnitudes.
        let mut q = [0u64; 4];
        let mut r = [0u64; 4];
        for i in (0..256).rev() {
            let carry = r[3] >> 63;
            debug_assert_eq!(carry, 0, "magnitudes stay below 2^251");
            for k in (1..4).rev() {
                r[k] = (r[k] << 1) | (r[k - 1] >> 63);
            }
            r[0] = (r[0] << 1) | ((n[i / 64] >> (i % 64)) & 1);
            if geq(r, d) {
                r = sub_raw(r, d);
                q[i / 64] |= 1 << (i % 64);
            }
        }
        let (q, r) = (
            Felt::from_canonical_limbs(q)?,
            Felt::from_canonical_limbs(r)?,
        );
        let q = if self.is_negative() != divisor.is_negative() {
            -q
        } else {
            q
        };
        let r = if self.is_negative() { -r } else { r };
        Some((q, r))
    }

    /// Whether the signed reading is negative.
    pub fn is_negative(&self) -> bool {
        self.canonical_cmp(&Felt::HALF) == Ordering::Greater
    }

    /// The canonical representative as a `0x`-prefixed hexadecimal string.
    pub fn to_hex(&self) -> String {
        let limbs = self.limbs();
        let mut s = String::from("0x");
        let mut started = false;
        for i in (0..4).rev() {
            if started {
                s.push_str(&format!("{:016x}", limbs[i]));
            } else if limbs[i] != 0 || i == 0 {
                s.push_str(&format!("{:x}", limbs[i]));
                started = true;
            }
        }
        s
    }

    /// Parses a decimal numeral with an optional leading `-`, reducing it
    /// modulo `P`. `None` on an empty string or a non-digit.
    pub fn parse_decimal(s: &str) -> Option<Felt> {
        let (neg, digits) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let ten = Felt::from_u128(10);
        let mut acc = Felt::ZERO;
        for b in digits.bytes() {
            acc = acc * ten + Felt::from_u128(u128::from(b - b'0'));
        }
        Some(if neg { -acc } else { acc })
    }

    /// The canonical representative in decimal.
    pub fn to_unsigned_decimal(&self) -> String {
        let mut limbs = self.limbs();
        if limbs == [0; 4] {
            return "0".to_string();
        }
        let mut digits = Vec::new();
        while limbs != [0; 4] {
            // Divide by 10^19 limb by limb, most significant first.
            let d: u128 = 10_000_000_000_000_000_000;
            let mut rem: u128 = 0;
            for i in (0..4).rev() {
                let cur = (rem << 64) | limbs[i] as u128;
                limbs[i] = (cur / d) as u64;
                rem = cur % d;
            }
            digits.push(rem as u64);
        }
        let mut s = digits.last().map(|d| d.to_string()).unwrap_or_default();
        for d in digits.iter().rev().skip(1) {
            s.push_str(&format!("{d:019}"));
        }
        s
    }
}

impl fmt::Display for Felt {
    /// The signed reading in decimal, e.g. `-1` for `P - 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_negative() {
            write!(f, "-{}", (-*self).to_unsigned_decimal())
        } else {
            f.write_str(&self.to_unsigned_decimal())
        }
    }
}

impl fmt::Debug for Felt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::ops::Add for Felt {
    type Output = Felt;
    fn add(self, rhs: Felt) -> Felt {
        Felt(self.0 + rhs.0)
    }
}

impl std::ops::Neg for Felt {
    type Output = Felt;
    fn neg(self) -> Felt {
        Felt(-self.0)
    }
}

impl std::ops::Sub for Felt {
    type Output = Felt;
    fn sub(self, rhs: Felt) -> Felt {
        Felt(self.0 - rhs.0)
    }
}

impl std::ops::Mul for Felt {
    type Output = Felt;
    fn mul(self, rhs: Felt) -> Felt {
        Felt(self.0 * rhs.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_arithmetic_matches_integers() {
        for a in -20i128..20 {
            for b in -20i128..20 {
                let (fa, fb) = (Felt::from_i128(a), Felt::from_i128(b));
                assert_eq!(fa + fb, Felt::from_i128(a + b));
                assert_eq!(fa - fb, Felt::from_i128(a - b));
                assert_eq!(fa * fb, Felt::from_i128(a * b));
                assert_eq!(fa.signed_cmp(&fb), a.cmp(&b));
            }
        }
        let big = Felt::from_u128(u128::MAX);
        assert_eq!(big * Felt::ONE, big);
        let x = Felt::from_u128(0xdead_beef_1234_5678_9abc_def0_1357_9bdf);
        let y = Felt::from_u128(0x0246_8ace_fdb9_7531_1111_2222_3333_4444);
        assert_eq!((x * y) * x, x * (y * x));
        assert_eq!(x * (y + x), x * y + x * x);
    }

    #[test]
    fn fermat_inverse() {
        let x = Felt::parse_decimal("123456789012345678901234567890123456789").unwrap();
        assert_eq!(x * x.inverse().unwrap(), Felt::ONE);
        assert_eq!(Felt::ZERO.inverse(), None);
        // P - 1 squared is 1.
        assert_eq!(Felt::from_i128(-1) * Felt::from_i128(-1), Felt::ONE);
    }

    #[test]
    fn decimal_round_trip_and_half() {
        let p_minus_1 =
            "3618502788666131213697322783095070105623107215331596699973092056135872020480";
        assert_eq!(Felt::from_i128(-1).to_unsigned_decimal(), p_minus_1);
        assert_eq!(Felt::parse_decimal(p_minus_1), Some(Felt::from_i128(-1)));
        assert_eq!(Felt::HALF + Felt::HALF, Felt::from_i128(-1));
        assert_eq!(Felt::from_i128(-42).to_string(), "-42");
        assert_eq!(Felt::from_i128(500500).to_string(), "500500");
        assert_eq!(
            Felt::from_i128(-1).to_hex(),
            "0x800000000000011000000000000000000000000000000000000000000000000"
        );
        assert!(Felt::HALF.signed_cmp(&(Felt::HALF + Felt::ONE)).is_gt());
    }
}
