//! The noise model of the MLIR tutorial's `noisy` dialect ("noisy integer
//! arithmetic", after the HEIR project): a ciphertext carries a bound, in bits, on its noise. `encode`
//! and `reduce_noise` give the encoding noise, `add`/`sub` give the larger
//! input bound plus one bit, `mul` the sum of the input bounds, and a value
//! whose bound exceeds the maximum is junk.

use crate::NoiseError;

/// The parameters of the noise model.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct NoiseParams {
    /// Bits of noise of a fresh encoding and after `reduce_noise` (12 in the tutorial).
    pub encode: u32,
    /// The largest legal noise bound (26 in the tutorial).
    pub max: u32,
}

/// The largest maximum supported: noise levels are kept in 64-bit sets.
pub const MAX_SUPPORTED_NOISE: u32 = 63;

impl Default for NoiseParams {
    fn default() -> Self {
        NoiseParams {
            encode: 12,
            max: 26,
        }
    }
}

impl NoiseParams {
    /// Checks `encode <= max <= 63`.
    pub fn validate(&self) -> Result<(), NoiseError> {
        if self.encode > self.max || self.max > MAX_SUPPORTED_NOISE {
            return Err(NoiseError::InvalidParams {
                encode: self.encode,
                max: self.max,
            });
        }
        Ok(())
    }

    /// Noise after `add`/`sub`: the larger bound plus one bit.
    pub fn add(&self, a: u32, b: u32) -> u32 {
        a.max(b).saturating_add(1)
    }

    /// Noise after `mul`: the sum of the bounds.
    pub fn mul(&self, a: u32, b: u32) -> u32 {
        a.saturating_add(b)
    }

    /// Whether a bound is legal.
    pub fn is_legal(&self, noise: u32) -> bool {
        noise <= self.max
    }
}
