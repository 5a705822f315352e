//! Goldilocks field elements and RPO256 digests.
//!
//! The field is the one Miden VM computes over: integers modulo
//! `p = 2^64 - 2^32 + 1`. A [`Felt`] always holds the canonical
//! representative (`< p`), so equality and hashing of values are plain
//! integer operations, and the binary format can reject non-canonical
//! encodings.

use core::fmt;
use core::str::FromStr;

/// The Goldilocks prime `2^64 - 2^32 + 1`.
pub const MODULUS: u64 = 0xFFFF_FFFF_0000_0001;

/// A Goldilocks field element in canonical form.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "u64", into = "u64")
)]
pub struct Felt(u64);

impl TryFrom<u64> for Felt {
    type Error = ParseFeltError;

    fn try_from(value: u64) -> Result<Self, Self::Error> {
        Felt::new(value).ok_or(ParseFeltError::OutOfRange(value))
    }
}

impl From<Felt> for u64 {
    fn from(f: Felt) -> u64 {
        f.0
    }
}

impl Felt {
    /// The element zero.
    pub const ZERO: Felt = Felt(0);
    /// The element one.
    pub const ONE: Felt = Felt(1);

    /// The element `value`, or `None` when `value` is not below the modulus.
    pub const fn new(value: u64) -> Option<Felt> {
        if value < MODULUS {
            Some(Felt(value))
        } else {
            None
        }
    }

    /// The element `value mod p`.
    pub const fn reduce(value: u64) -> Felt {
        if value >= MODULUS {
            Felt(value - MODULUS)
        } else {
            Felt(value)
        }
    }

    /// The canonical integer representative.
    pub const fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Felt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Why a string is not a field element.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFeltError {
    /// Not a decimal (or `0x` hexadecimal) unsigned integer.
    #[error("not an unsigned integer")]
    NotAnInteger,
    /// The integer is not below the Goldilocks modulus.
    #[error("{0} is not below the field modulus")]
    OutOfRange(u64),
}

impl FromStr for Felt {
    type Err = ParseFeltError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let value = if let Some(hex) = s.strip_prefix("0x") {
            u64::from_str_radix(hex, 16)
        } else if s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse::<u64>()
        } else {
            return Err(ParseFeltError::NotAnInteger);
        }
        .map_err(|_| ParseFeltError::NotAnInteger)?;
        Felt::new(value).ok_or(ParseFeltError::OutOfRange(value))
    }
}

/// An RPO256 digest: four field elements.
///
/// Displayed as `[e0, e1, e2, e3]` in decimal, the way Miden's tools print
/// words.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub [Felt; 4]);

impl Digest {
    /// The all-zero digest (Miden's `RpoDigest::default()`).
    pub const ZERO: Digest = Digest([Felt::ZERO; 4]);

    /// A digest from four canonical integers, or `None` if one is out of range.
    pub fn from_u64s(elems: [u64; 4]) -> Option<Digest> {
        Some(Digest([
            Felt::new(elems[0])?,
            Felt::new(elems[1])?,
            Felt::new(elems[2])?,
            Felt::new(elems[3])?,
        ]))
    }

    /// The four elements as integers.
    pub fn as_u64s(&self) -> [u64; 4] {
        self.0.map(Felt::as_u64)
    }

    /// The 32-byte encoding used by the binary format: each element as a
    /// little-endian `u64`, in element order.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, e) in out.chunks_exact_mut(8).zip(self.0) {
            chunk.copy_from_slice(&e.as_u64().to_le_bytes());
        }
        out
    }

    /// Decodes [`Digest::to_bytes`]; `Err(i)` names the first element that is
    /// not canonical.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Digest, usize> {
        let mut elems = [Felt::ZERO; 4];
        for (i, chunk) in bytes.chunks_exact(8).enumerate() {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            elems[i] = Felt::new(u64::from_le_bytes(word)).ok_or(i)?;
        }
        Ok(Digest(elems))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d] = self.0;
        write!(f, "[{a}, {b}, {c}, {d}]")
    }
}

/// Why a string is not a digest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseDigestError {
    /// Not of the form `[e0, e1, e2, e3]`.
    #[error("expected a digest `[e0, e1, e2, e3]`")]
    Shape,
    /// One element is not a field element.
    #[error("digest element {index}: {error}")]
    Element {
        /// Which element (0..4).
        index: usize,
        /// What is wrong with it.
        error: ParseFeltError,
    },
}

impl FromStr for Digest {
    type Err = ParseDigestError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let inner = s
            .trim()
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .ok_or(ParseDigestError::Shape)?;
        let mut elems = [Felt::ZERO; 4];
        let mut parts = inner.split(',');
        for (index, slot) in elems.iter_mut().enumerate() {
            let part = parts.next().ok_or(ParseDigestError::Shape)?;
            *slot = part
                .trim()
                .parse()
                .map_err(|error| ParseDigestError::Element { index, error })?;
        }
        if parts.next().is_some() {
            return Err(ParseDigestError::Shape);
        }
        Ok(Digest(elems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn felt_range_is_checked() {
        assert_eq!(Felt::new(MODULUS), None);
        assert_eq!(Felt::new(MODULUS - 1).map(Felt::as_u64), Some(MODULUS - 1));
        assert_eq!(Felt::reduce(MODULUS + 5), Felt::new(5).unwrap());
        assert!(matches!(
            "18446744069414584321".parse::<Felt>(),
            Err(ParseFeltError::OutOfRange(_))
        ));
        assert_eq!("0x10".parse::<Felt>(), Ok(Felt(16)));
        assert!("-1".parse::<Felt>().is_err());
    }

    #[test]
    fn digest_text_and_bytes_round_trip() {
        let d = Digest::from_u64s([1, 2, MODULUS - 1, 0]).unwrap();
        assert_eq!(d.to_string(), "[1, 2, 18446744069414584320, 0]");
        assert_eq!(d.to_string().parse::<Digest>(), Ok(d));
        assert_eq!(Digest::from_bytes(&d.to_bytes()), Ok(d));
        let mut bad = d.to_bytes();
        bad[16..24].copy_from_slice(&MODULUS.to_le_bytes());
        assert_eq!(Digest::from_bytes(&bad), Err(2));
        assert!("[1, 2, 3]".parse::<Digest>().is_err());
    }
}
