//! Reading and writing the primitives of Miden's serialization
//! (`winter-utils` / `miden-serde-utils`): little-endian fixed-width
//! integers, `usize` as a prefix varint (the `vint64` encoding), field
//! elements as canonical `u64`s, words as four elements, strings and vectors
//! as a `usize` length and their items. Every read names its byte offset when
//! it fails, and every count is bounded by the bytes left before anything is
//! allocated for it.

use crate::felt::{Digest, Felt};
use crate::format::{err, DecodeErrorKind, Result};

/// A position in the input.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8], pos: usize) -> Self {
        Cursor { bytes, pos }
    }

    pub(crate) fn at(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The bytes from `start` to here.
    pub(crate) fn since(&self, start: usize) -> &'a [u8] {
        &self.bytes[start..self.pos]
    }

    pub(crate) fn is_at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    #[inline]
    pub(crate) fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return err(self.pos, DecodeErrorKind::Truncated(field));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub(crate) fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N]> {
        let s = self.take(N, field)?;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    #[inline]
    pub(crate) fn u8(&mut self, field: &'static str) -> Result<u8> {
        Ok(self.array::<1>(field)?[0])
    }

    #[inline]
    pub(crate) fn u16(&mut self, field: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    #[inline]
    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    #[inline]
    pub(crate) fn u64(&mut self, field: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn bool(&mut self, field: &'static str) -> Result<bool> {
        let at = self.pos;
        match self.u8(field)? {
            0 => Ok(false),
            1 => Ok(true),
            value => err(at, DecodeErrorKind::BadBool { field, value }),
        }
    }

    /// A `usize` in the prefix-varint encoding; superfluous zero bytes are
    /// rejected (Miden never writes them).
    ///
    /// Values below 128 (one byte, the low bit set) are most of the lengths
    /// and CSR indices of a forest and take the inline path.
    #[inline]
    pub(crate) fn usize(&mut self, field: &'static str) -> Result<u64> {
        match self.bytes.get(self.pos) {
            Some(&b) if b & 1 == 1 => {
                self.pos += 1;
                Ok(u64::from(b >> 1))
            }
            _ => self.usize_multibyte(field),
        }
    }

    /// The `vint64` decoding: the first byte's trailing zeros count the
    /// bytes that follow, nine bytes when it is zero.
    fn usize_multibyte(&mut self, field: &'static str) -> Result<u64> {
        let rest = &self.bytes[self.pos..];
        let Some(&first) = rest.first() else {
            return err(self.pos, DecodeErrorKind::Truncated(field));
        };
        let len = first.trailing_zeros() as usize + 1;
        if rest.len() < len {
            return err(self.pos, DecodeErrorKind::Truncated(field));
        }
        let value = if len == 9 {
            let mut le = [0u8; 8];
            le.copy_from_slice(&rest[1..9]);
            u64::from_le_bytes(le)
        } else if let Some(word) = rest.first_chunk::<8>() {
            // One load and a mask instead of a copy of `len` bytes.
            let bits = 8 * len as u32;
            let mask = u64::MAX.checked_shr(64 - bits).unwrap_or(0);
            (u64::from_le_bytes(*word) & mask) >> len
        } else {
            let mut le = [0u8; 8];
            le[..len].copy_from_slice(&rest[..len]);
            u64::from_le_bytes(le) >> len
        };
        if len > 1 && value < 1 << (7 * (len - 1)) {
            return err(self.pos, DecodeErrorKind::NonCanonicalVInt(field));
        }
        self.pos += len;
        Ok(value)
    }

    /// A length-prefixed list of `u32`s, each with its offset (for errors
    /// that name it later).
    pub(crate) fn u32_list(
        &mut self,
        count: &'static str,
        item: &'static str,
    ) -> Result<Vec<(usize, u32)>> {
        let n = self.count(count, 4)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push((self.at(), self.u32(item)?));
        }
        Ok(items)
    }

    /// A length prefix of items at least `min_size` bytes each, bounded by the
    /// bytes left so that allocating it is bounded by the input.
    pub(crate) fn count(&mut self, field: &'static str, min_size: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.usize(field)?;
        let available = self.remaining();
        if n > (available / min_size.max(1)) as u64 {
            return err(
                at,
                DecodeErrorKind::CountTooLarge {
                    field,
                    count: n,
                    available,
                },
            );
        }
        Ok(n as usize)
    }

    #[inline]
    pub(crate) fn felt(&mut self, field: &'static str) -> Result<Felt> {
        let at = self.pos;
        let v = self.u64(field)?;
        Felt::new(v).map_or_else(|| err(at, DecodeErrorKind::NonCanonicalFelt(field)), Ok)
    }

    #[inline]
    pub(crate) fn word(&mut self, field: &'static str) -> Result<Digest> {
        let at = self.pos;
        let bytes: [u8; 32] = self.array(field)?;
        Digest::from_bytes(&bytes)
            .or_else(|i| err(at + 8 * i, DecodeErrorKind::NonCanonicalFelt(field)))
    }

    /// A string: `usize` length and UTF-8 bytes.
    pub(crate) fn string(&mut self, field: &'static str) -> Result<&'a str> {
        let n = self.count(field, 1)?;
        let at = self.pos;
        let bytes = self.take(n, field)?;
        core::str::from_utf8(bytes).or_else(|e| {
            err(
                at + e.valid_up_to(),
                DecodeErrorKind::Invalid("string is not valid UTF-8"),
            )
        })
    }
}

pub(crate) fn put_usize(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(vint64::encode(v as u64).as_ref());
}

pub(crate) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_word(out: &mut Vec<u8>, d: &Digest) {
    out.extend_from_slice(&d.to_bytes());
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_usize(out, s.len());
    out.extend_from_slice(s.as_bytes());
}
