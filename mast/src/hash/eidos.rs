//! Eidos, the hash of Miden VM 1.0 (miden-crypto 1.0), over the Goldilocks
//! field.
//!
//! Eidos is built on the compression function of BLAKE3 (O'Connor, Aumasson,
//! Neves and Wilcox-O'Hearn, "BLAKE3: one function, fast everywhere", 2020):
//! its seven rounds of the `G` mixing function and its message permutation,
//! with the four state words that BLAKE3 fills with the block counter, the
//! block length and the flags fixed to the last four words of the BLAKE3 IV.
//! The output is BLAKE3's chaining-value fold `v[i] ^ v[i + 8]`.
//!
//! Field elements travel as `u32` lanes, low half first: a block of eight
//! elements is the sixteen message words, a four-element chaining value the
//! eight state words. An output chaining value is packed back into four
//! elements after clearing the top bit of every odd lane, so that each
//! element is below `2^63` and therefore canonical.
//!
//! Framing binds a construction into the initial chaining value: the even
//! lanes hold a 32-bit domain tag and three parameters, the odd lanes the odd
//! words of the BLAKE3 IV. A sequence of field elements is hashed under the
//! generic felt-sequence tag with its length as the first parameter, zero
//! padded to whole blocks (an empty sequence is one block of zeros). MAST
//! control nodes compress their two children's digests once, under the
//! node's opcode as the tag and eight (the block length) as the first
//! parameter.

use crate::felt::{Digest, Felt};

/// The BLAKE3 initialization vector (the SHA-256 one).
const IV: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// BLAKE3's permutation of the message words between rounds.
const MSG_PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

/// The tag of the generic felt-sequence domain: namespace 0 (miden-crypto),
/// local id 10, version 1, packed `namespace << 24 | id << 8 | version`.
pub const FELT_SEQUENCE_TAG: u32 = 0x0a << 8 | 1;

/// The mask of the odd lanes of an output chaining value.
const ODD_LANE_MASK: u32 = 0x7fff_ffff;

/// Field elements per compressed block.
pub const BLOCK_LEN: usize = 8;

/// BLAKE3's quarter-round mixing function.
#[inline(always)]
fn g(v: &mut [u32; 16], [a, b, c, d]: [usize; 4], x: u32, y: u32) {
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
    v[d] = (v[d] ^ v[a]).rotate_right(16);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(12);
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
    v[d] = (v[d] ^ v[a]).rotate_right(8);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(7);
}

/// The state after BLAKE3's seven rounds on `cv` and `block`, the last four
/// state words being `params` (BLAKE3: counter low and high, block length,
/// flags).
fn rounds(cv: &[u32; 8], block: &[u32; 16], params: [u32; 4]) -> [u32; 16] {
    let mut v = [0u32; 16];
    v[..8].copy_from_slice(cv);
    v[8..12].copy_from_slice(&IV[..4]);
    v[12..].copy_from_slice(&params);
    let mut m = *block;
    for round in 0..7 {
        g(&mut v, [0, 4, 8, 12], m[0], m[1]);
        g(&mut v, [1, 5, 9, 13], m[2], m[3]);
        g(&mut v, [2, 6, 10, 14], m[4], m[5]);
        g(&mut v, [3, 7, 11, 15], m[6], m[7]);
        g(&mut v, [0, 5, 10, 15], m[8], m[9]);
        g(&mut v, [1, 6, 11, 12], m[10], m[11]);
        g(&mut v, [2, 7, 8, 13], m[12], m[13]);
        g(&mut v, [3, 4, 9, 14], m[14], m[15]);
        if round < 6 {
            m = core::array::from_fn(|i| m[MSG_PERMUTATION[i]]);
        }
    }
    v
}

/// The Eidos compression function on lanes, odd output lanes masked.
fn compress_lanes(cv: &[u32; 8], block: &[u32; 16]) -> [u32; 8] {
    let v = rounds(cv, block, [IV[4], IV[5], IV[6], IV[7]]);
    core::array::from_fn(|i| {
        let folded = v[i] ^ v[i + 8];
        if i % 2 == 1 {
            folded & ODD_LANE_MASK
        } else {
            folded
        }
    })
}

/// The lanes of field elements, low half first.
fn lanes<const N: usize, const L: usize>(elements: &[Felt; N]) -> [u32; L] {
    debug_assert_eq!(2 * N, L);
    core::array::from_fn(|i| {
        let e = elements[i / 2].as_u64();
        if i % 2 == 0 {
            e as u32
        } else {
            (e >> 32) as u32
        }
    })
}

/// An output chaining value as a digest: odd lanes are masked, so every
/// element is below `2^63`.
fn pack(cv: &[u32; 8]) -> Digest {
    Digest(core::array::from_fn(|i| {
        Felt::reduce(u64::from(cv[2 * i + 1]) << 32 | u64::from(cv[2 * i]))
    }))
}

/// The initial chaining value of a construction: `tag` and `params` in the
/// even lanes, the odd BLAKE3 IV words in the odd lanes.
const fn initial_cv(tag: u32, params: [u32; 3]) -> [u32; 8] {
    [
        tag, IV[1], params[0], IV[3], params[1], IV[5], params[2], IV[7],
    ]
}

/// `Eidos::compress`: one block under a chaining value, without framing.
pub fn compress(cv: &Digest, block: &[Felt; BLOCK_LEN]) -> Digest {
    pack(&compress_lanes(&lanes(&cv.0), &lanes(block)))
}

/// `hash_elements` over the first `len` elements of the concatenation of
/// `blocks`, the rest of the blocks being zero: the zero padding of the last
/// block is the construction's own, so only `len` tells a sequence from the
/// same one with zeros appended. `blocks` must hold `len.div_ceil(8)`
/// blocks, one if `len` is zero.
pub fn hash_blocks(blocks: impl IntoIterator<Item = [Felt; BLOCK_LEN]>, len: u32) -> Digest {
    let mut cv = initial_cv(FELT_SEQUENCE_TAG, [len, 0, 0]);
    for block in blocks {
        cv = compress_lanes(&cv, &lanes(&block));
    }
    pack(&cv)
}

/// `hash_elements` over a sequence of field elements.
pub fn hash_elements(elements: &[Felt]) -> Digest {
    let len = u32::try_from(elements.len()).expect("a sequence of under 2^32 elements");
    let mut blocks: Vec<[Felt; BLOCK_LEN]> = elements
        .chunks(BLOCK_LEN)
        .map(|chunk| core::array::from_fn(|i| chunk.get(i).copied().unwrap_or(Felt::ZERO)))
        .collect();
    if blocks.is_empty() {
        blocks.push([Felt::ZERO; BLOCK_LEN]);
    }
    hash_blocks(blocks, len)
}

/// miden-core 1.0's `merge_in_mast_domain`: the two digests as one block,
/// compressed under the chaining value framed with `domain` as the tag and
/// the block length as its parameter.
pub fn merge_in_domain(a: &Digest, b: &Digest, domain: u32) -> Digest {
    let block: [Felt; BLOCK_LEN] =
        core::array::from_fn(|i| if i < 4 { a.0[i] } else { b.0[i - 4] });
    let cv = initial_cv(domain, [BLOCK_LEN as u32, 0, 0]);
    pack(&compress_lanes(&cv, &lanes(&block)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(e: [u64; 4]) -> Digest {
        Digest::from_u64s(e).unwrap()
    }

    fn seq(n: u64) -> Vec<Felt> {
        (1..=n).map(Felt::reduce).collect()
    }

    /// The round function is BLAKE3's: with BLAKE3's parameters (counter 0,
    /// block length, flags `CHUNK_START | CHUNK_END | ROOT`) the compression
    /// of the padded input under the IV is the BLAKE3 hash of a one-block
    /// input (the empty string and "abc", from the BLAKE3 test vectors).
    #[test]
    fn rounds_are_blake3() {
        for (input, hex) in [
            (
                &b""[..],
                "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
            ),
            (
                &b"abc"[..],
                "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
            ),
        ] {
            let mut bytes = [0u8; 64];
            bytes[..input.len()].copy_from_slice(input);
            let block: [u32; 16] = core::array::from_fn(|i| {
                u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap())
            });
            let v = rounds(&IV, &block, [0, 0, input.len() as u32, 0b1011]);
            let out: String = (0..8)
                .flat_map(|i| (v[i] ^ v[i + 8]).to_le_bytes())
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(out, hex);
        }
    }

    /// The frozen vectors of miden-crypto 1.0.0-rc.0 (`Eidos::hash_elements`
    /// of 0, 3 and 9 elements `1, 2, ...`, and `Eidos::merge`, the
    /// compression under the all-zero frame).
    #[test]
    fn miden_crypto_vectors() {
        let expected = [
            (
                0,
                [
                    0x394b82985c203861,
                    0x767f9ee738c588d9,
                    0x4a582bcdcf50b7c6,
                    0x29d2a973dd12e195,
                ],
            ),
            (
                3,
                [
                    0x64428385d648baa2,
                    0x5404c904e97a7f37,
                    0x7c4cf2c1b0c7ef6a,
                    0x77d4c8d4ae1ad174,
                ],
            ),
            (
                9,
                [
                    0x145da8dc3881a521,
                    0x6aace1ee7b38c0dd,
                    0x5e586c8122d16b20,
                    0x578c44963e7c6146,
                ],
            ),
        ];
        for (n, e) in expected {
            assert_eq!(hash_elements(&seq(n)), digest(e), "{n} elements");
        }
        // `Eidos::merge` compresses under the frame of tag and parameters 0.
        let merged = pack(&compress_lanes(
            &initial_cv(0, [0; 3]),
            &lanes::<8, 16>(&seq(8).try_into().unwrap()),
        ));
        assert_eq!(
            merged,
            digest([
                0x6ca4b9f83388bfcd,
                0x35f5179a10630d76,
                0x258fe3db5ee34599,
                0x7709af38e69c9e2b
            ])
        );
    }

    /// `hash_blocks` is `hash_elements` when the blocks are the sequence
    /// padded with zeros, and the length alone separates a sequence from
    /// itself followed by zeros.
    #[test]
    fn hash_blocks_is_hash_elements() {
        for n in [0u64, 1, 7, 8, 9, 16] {
            let elements = seq(n);
            let mut padded = elements.clone();
            padded.resize(elements.len().div_ceil(8).max(1) * 8, Felt::ZERO);
            let blocks = padded.chunks(8).map(|c| c.try_into().unwrap());
            assert_eq!(hash_blocks(blocks, n as u32), hash_elements(&elements));
        }
        let mut with_zero = seq(3);
        with_zero.push(Felt::ZERO);
        assert_ne!(hash_elements(&seq(3)), hash_elements(&with_zero));
    }
}
