//! Reading primitives over the input, each failure naming its byte offset.

use super::error::{err, DecodeErrorKind, Result};

pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    /// Offset of `bytes[0]` in the whole input, for error positions.
    pub(super) base: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn at(&self) -> usize {
        self.base + self.pos
    }

    pub(super) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub(super) fn u8(&mut self, field: &'static str) -> Result<u8> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => err(self.at(), DecodeErrorKind::Truncated(field)),
        }
    }

    pub(super) fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return err(self.at(), DecodeErrorKind::Truncated(field));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(super) fn vint(&mut self, field: &'static str) -> Result<u64> {
        let mut rest = &self.bytes[self.pos..];
        match vint64::decode(&mut rest) {
            Ok(v) => {
                self.pos = self.bytes.len() - rest.len();
                Ok(v)
            }
            Err(vint64::Error::Truncated) => err(self.at(), DecodeErrorKind::Truncated(field)),
            Err(vint64::Error::LeadingZeroes) => {
                err(self.at(), DecodeErrorKind::NonCanonicalVInt(field))
            }
        }
    }

    pub(super) fn vint_u32(&mut self, field: &'static str) -> Result<u32> {
        let at = self.at();
        let v = self.vint(field)?;
        u32::try_from(v).or_else(|_| err(at, DecodeErrorKind::ValueOutOfRange { field, value: v }))
    }

    pub(super) fn pad4(&mut self, field: &'static str) -> Result<()> {
        while !self.at().is_multiple_of(4) {
            let at = self.at();
            if self.u8(field)? != 0 {
                return err(at, DecodeErrorKind::NonZeroPadding(field));
            }
        }
        Ok(())
    }
}

pub(super) fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
