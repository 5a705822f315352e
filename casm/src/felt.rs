//! Elements of the Cairo prime field, `P = 2^251 + 17 * 2^192 + 1`.
//!
//! Four little-endian 64-bit limbs holding the canonical representative.
//! Multiplication is Montgomery's (the CIOS variant of Koç, Acar and
//! Kaliski, "Analyzing and Comparing Montgomery Multiplication Algorithms",
//! IEEE Micro 1996) followed by a second Montgomery product with `R^2` to
//! leave the Montgomery domain, so callers only ever see plain residues.
//!
//! Integers of the `.jvr` language are field elements too (as on the Cairo
//! VM); comparisons read them as signed numbers in `[-(P-1)/2, (P-1)/2]`.

use std::cmp::Ordering;
use std::fmt;

/// The Cairo prime, little-endian limbs.
const P: [u64; 4] = [1, 0, 0, 0x0800_0000_0000_0011];

/// `-P^{-1} mod 2^64`; `P = 1 (mod 2^64)`, so this is `-1`.
const N_PRIME: u64 = u64::MAX;

/// `R^2 mod P` with `R = 2^256`, computed at compile time by doubling.
const R2: [u64; 4] = {
    let mut x = [1u64, 0, 0, 0];
    let mut i = 0;
    while i < 512 {
        x = add_mod(x, x);
        i += 1;
    }
    x
};

const fn add_mod(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    // Both below P < 2^252, so the sum fits in 256 bits without carry out.
    let mut r = [0u64; 4];
    let mut carry = 0u64;
    let mut i = 0;
    while i < 4 {
        let s = a[i] as u128 + b[i] as u128 + carry as u128;
        r[i] = s as u64;
        carry = (s >> 64) as u64;
        i += 1;
    }
    if geq(r, P) {
        sub_raw(r, P)
    } else {
        r
    }
}

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

const fn sub_raw(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    let mut r = [0u64; 4];
    let mut borrow = 0u64;
    let mut i = 0;
    while i < 4 {
        let (d1, o1) = a[i].overflowing_sub(b[i]);
        let (d2, o2) = d1.overflowing_sub(borrow);
        r[i] = d2;
        borrow = (o1 || o2) as u64;
        i += 1;
    }
    r
}

fn mont_mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let mut t = [0u64; 6];
    for &bi in b.iter() {
        let mut c: u128 = 0;
        for j in 0..4 {
            let s = t[j] as u128 + (a[j] as u128) * (bi as u128) + c;
            t[j] = s as u64;
            c = s >> 64;
        }
        let s = t[4] as u128 + c;
        t[4] = s as u64;
        t[5] = (s >> 64) as u64;
        let m = t[0].wrapping_mul(N_PRIME);
        let s = t[0] as u128 + (m as u128) * (P[0] as u128);
        let mut c = s >> 64;
        for j in 1..4 {
            let s = t[j] as u128 + (m as u128) * (P[j] as u128) + c;
            t[j - 1] = s as u64;
            c = s >> 64;
        }
        let s = t[4] as u128 + c;
        t[3] = s as u64;
        t[4] = t[5] + (s >> 64) as u64;
    }
    let r = [t[0], t[1], t[2], t[3]];
    if t[4] != 0 || geq(r, P) {
        sub_raw(r, P)
    } else {
        r
    }
}

/// An element of the Cairo field, always in canonical form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Felt([u64; 4]);

impl Felt {
    /// Zero.
    pub const ZERO: Felt = Felt([0; 4]);
    /// One.
    pub const ONE: Felt = Felt([1, 0, 0, 0]);
    /// `(P - 1) / 2`: the largest non-negative signed value, and the offset
    /// that maps the signed range monotonically onto `[0, P)`.
    pub const HALF: Felt = Felt([0, 0, 0x8000_0000_0000_0000, 0x0400_0000_0000_0008]);

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
        Felt([v as u64, (v >> 64) as u64, 0, 0])
    }

    /// The little-endian limbs of the canonical representative.
    pub fn limbs(&self) -> [u64; 4] {
        self.0
    }

    /// The element with these little-endian limbs, `None` unless they are
    /// below `P`.
    pub fn from_canonical_limbs(limbs: [u64; 4]) -> Option<Felt> {
        (!geq(limbs, P)).then_some(Felt(limbs))
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 4]
    }

    /// The multiplicative inverse, `None` for zero (Fermat: `x^(P-2)`).
    pub fn inverse(&self) -> Option<Felt> {
        if self.is_zero() {
            return None;
        }
        let e = sub_raw(P, [2, 0, 0, 0]);
        let mut acc = Felt::ONE;
        for i in (0..256).rev() {
            acc = acc * acc;
            if (e[i / 64] >> (i % 64)) & 1 == 1 {
                acc = acc * *self;
            }
        }
        Some(acc)
    }

    /// Comparison of the signed readings (`x > (P-1)/2` reads as `x - P`).
    pub fn signed_cmp(&self, other: &Felt) -> Ordering {
        let a = *self + Felt::HALF;
        let b = *other + Felt::HALF;
        a.canonical_cmp(&b)
    }

    /// Comparison of the canonical representatives in `[0, P)`.
    pub fn canonical_cmp(&self, other: &Felt) -> Ordering {
        for i in (0..4).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        Ordering::Equal
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
        let (n, d) = (magnitude(self).0, magnitude(divisor).0);
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
        let (q, r) = (Felt(q), Felt(r));
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
        let mut s = String::from("0x");
        let mut started = false;
        for i in (0..4).rev() {
            if started {
                s.push_str(&format!("{:016x}", self.0[i]));
            } else if self.0[i] != 0 || i == 0 {
                s.push_str(&format!("{:x}", self.0[i]));
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
        let mut limbs = self.0;
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
        Felt(add_mod(self.0, rhs.0))
    }
}

impl std::ops::Neg for Felt {
    type Output = Felt;
    fn neg(self) -> Felt {
        if self.is_zero() {
            self
        } else {
            Felt(sub_raw(P, self.0))
        }
    }
}

impl std::ops::Sub for Felt {
    type Output = Felt;
    fn sub(self, rhs: Felt) -> Felt {
        self + (-rhs)
    }
}

impl std::ops::Mul for Felt {
    type Output = Felt;
    fn mul(self, rhs: Felt) -> Felt {
        Felt(mont_mul(&mont_mul(&self.0, &rhs.0), &R2))
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
