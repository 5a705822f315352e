//! MAST digests as Miden VM computes them, in each released version.
//!
//! miden-core up to 0.10 hashes with RPO256 (Rescue Prime Optimized, Ashur et
//! al., ePrint 2022/1577); miden-core 0.23 and 0.24 with Poseidon2 (Grassi et
//! al., ePrint 2023/323); miden-core 1.0 with Eidos (see [`eidos`]), all over
//! the same Goldilocks field. RPO256 and Poseidon2 come from one version of
//! the `miden-crypto` crate, so those digests are Miden's by construction (for
//! RPO256, miden-crypto's permutation inside the sponge layout of
//! miden-crypto 0.10, which later versions changed). No version of
//! miden-crypto has all three (1.0 dropped RPO256), so Eidos is implemented
//! here from its definition and checked against miden-crypto's vectors.
//! Control nodes are hashed with `merge_in_domain`, the domain being the
//! opcode of the control operation that starts the node in the VM (these
//! opcodes did not move between versions; Eidos takes the domain as the tag
//! of a one-block frame, see [`eidos::merge_in_domain`]):
//!
//! | node    | digest                                            |
//! |---------|---------------------------------------------------|
//! | Join    | `merge_in_domain([left, right], 87)`              |
//! | Split   | `merge_in_domain([on_true, on_false], 84)`        |
//! | Loop    | `merge_in_domain([body, ZERO], 85)`               |
//! | Call    | `merge_in_domain([callee, ZERO], 108)`            |
//! | SysCall | `merge_in_domain([callee, ZERO], 104)`            |
//! | Dyn     | `merge_in_domain([ZERO, ZERO], 88)`               |
//! | DynCall | `merge_in_domain([ZERO, ZERO], 92)` (0.23 on)     |
//! | Block   | `hash_elements(groups of all batches)`            |
//!
//! A basic block's hash covers the eight group values of every batch (see
//! [`crate::block`]); from 1.0 on, only the groups in use of the last batch
//! (rounded up to a power of two), which Eidos tells from the padded batch by
//! its length. Decorators are not hashed.

pub mod eidos;

use miden_crypto::hash::poseidon2::Poseidon2;
use miden_crypto::hash::rpo::RpoPermutation256;

use crate::felt::{Digest, Felt};

/// Hash domain of `Join` nodes (the `JOIN` opcode).
pub const JOIN_DOMAIN: u64 = 87;
/// Hash domain of `Split` nodes (the `SPLIT` opcode).
pub const SPLIT_DOMAIN: u64 = 84;
/// Hash domain of `Loop` nodes (the `LOOP` opcode).
pub const LOOP_DOMAIN: u64 = 85;
/// Hash domain of `Call` nodes (the `CALL` opcode).
pub const CALL_DOMAIN: u64 = 108;
/// Hash domain of `SysCall` nodes (the `SYSCALL` opcode).
pub const SYSCALL_DOMAIN: u64 = 104;
/// Hash domain of `Dyn` nodes (the `DYN` opcode).
pub const DYN_DOMAIN: u64 = 88;
/// Hash domain of `DynCall` nodes (the `DYNCALL` opcode of miden-core 0.23).
pub const DYNCALL_DOMAIN: u64 = 92;

/// RPO256 as miden-crypto 0.10 defines it: the RPO permutation over a state
/// of 12 elements whose capacity is elements 0..4 and rate 4..12, the digest
/// being elements 4..8. (Later miden-crypto versions moved the rate to the
/// front of the state, which changes every digest; the permutation is the
/// same.)
mod rpo_0_10 {
    use super::RpoPermutation256;
    use miden_crypto::Felt;

    const RATE: core::ops::Range<usize> = 4..12;
    const DIGEST: core::ops::Range<usize> = 4..8;

    fn squeeze(state: &[Felt; 12]) -> [Felt; 4] {
        let mut d = [Felt::new_unchecked(0); 4];
        d.copy_from_slice(&state[DIGEST]);
        d
    }

    /// `hash_elements`: the first capacity element holds the input length
    /// modulo the rate; the last block is padded with zeros.
    pub(super) fn hash_elements(elements: &[Felt]) -> [Felt; 4] {
        let mut state = [Felt::new_unchecked(0); 12];
        state[0] = Felt::new_unchecked((elements.len() % 8) as u64);
        let mut i = 0;
        for &e in elements {
            state[RATE.start + i] = e;
            i += 1;
            if i == 8 {
                RpoPermutation256::apply_permutation(&mut state);
                i = 0;
            }
        }
        if i > 0 {
            for slot in &mut state[RATE.start + i..] {
                *slot = Felt::new_unchecked(0);
            }
            RpoPermutation256::apply_permutation(&mut state);
        }
        squeeze(&state)
    }

    /// `hash_elements` over whole batches of eight elements: the capacity
    /// element for the length stays zero, one permutation per batch.
    pub(super) fn hash_batches(batches: impl Iterator<Item = [Felt; 8]>) -> [Felt; 4] {
        let mut state = [Felt::new_unchecked(0); 12];
        for batch in batches {
            state[RATE].copy_from_slice(&batch);
            RpoPermutation256::apply_permutation(&mut state);
        }
        squeeze(&state)
    }

    /// `merge_in_domain`: both digests in the rate, the domain in the second
    /// capacity element, one permutation.
    pub(super) fn merge_in_domain(a: [Felt; 4], b: [Felt; 4], domain: Felt) -> [Felt; 4] {
        let mut state = [Felt::new_unchecked(0); 12];
        state[4..8].copy_from_slice(&a);
        state[8..12].copy_from_slice(&b);
        state[1] = domain;
        RpoPermutation256::apply_permutation(&mut state);
        squeeze(&state)
    }
}

/// The hash function a forest's digests are computed with.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Hasher {
    /// RPO256: miden-core up to 0.10, and the draft format.
    #[default]
    Rpo256,
    /// Poseidon2: miden-core 0.23 and 0.24.
    Poseidon2,
    /// Eidos: miden-core 1.0.
    Eidos,
}

impl core::fmt::Display for Hasher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Hasher::Rpo256 => "RPO256",
            Hasher::Poseidon2 => "Poseidon2",
            Hasher::Eidos => "Eidos",
        })
    }
}

fn to_miden(e: Felt) -> miden_crypto::Felt {
    miden_crypto::Felt::new_unchecked(e.as_u64())
}

fn from_miden(w: miden_crypto::Word) -> Digest {
    let w = w.as_elements();
    // `as_canonical_u64` is canonical, so `reduce` is the identity here.
    Digest([
        Felt::reduce(w[0].as_canonical_u64()),
        Felt::reduce(w[1].as_canonical_u64()),
        Felt::reduce(w[2].as_canonical_u64()),
        Felt::reduce(w[3].as_canonical_u64()),
    ])
}

fn digest_to_miden(d: &Digest) -> miden_crypto::Word {
    miden_crypto::Word::new(d.0.map(to_miden))
}

impl Hasher {
    /// `hash_elements` over a sequence of field elements.
    pub fn hash_elements(self, elements: &[Felt]) -> Digest {
        let elems =
            || -> Vec<miden_crypto::Felt> { elements.iter().copied().map(to_miden).collect() };
        match self {
            Hasher::Rpo256 => {
                from_miden(miden_crypto::Word::new(rpo_0_10::hash_elements(&elems())))
            }
            Hasher::Poseidon2 => from_miden(Poseidon2::hash_elements(&elems())),
            Hasher::Eidos => eidos::hash_elements(elements),
        }
    }

    /// `hash_elements` over the concatenation of `batches`, eight elements
    /// each (a basic block's groups), without collecting them: the sponges
    /// absorb one batch per permutation, the length's capacity element
    /// being zero since the length is a multiple of the rate; Eidos
    /// compresses one batch per block, under a frame holding the length.
    pub fn hash_batches<I>(self, batches: I) -> Digest
    where
        I: IntoIterator<Item = [Felt; 8]>,
        I::IntoIter: ExactSizeIterator,
    {
        let batches = batches.into_iter();
        match self {
            Hasher::Rpo256 => from_miden(miden_crypto::Word::new(rpo_0_10::hash_batches(
                batches.map(|b| b.map(to_miden)),
            ))),
            Hasher::Poseidon2 => {
                // Poseidon2's rate is elements 0..8 and its digest 0..4.
                let mut state = [miden_crypto::Felt::new_unchecked(0); 12];
                for batch in batches {
                    state[..8].copy_from_slice(&batch.map(to_miden));
                    Poseidon2::apply_permutation(&mut state);
                }
                from_miden(miden_crypto::Word::new([
                    state[0], state[1], state[2], state[3],
                ]))
            }
            // An empty sequence is one block of zeros.
            Hasher::Eidos if batches.len() == 0 => eidos::hash_elements(&[]),
            Hasher::Eidos => {
                let len = u32::try_from(batches.len() * 8).expect("under 2^29 batches");
                eidos::hash_blocks(batches, len)
            }
        }
    }

    /// `merge_in_domain` of two digests.
    pub fn merge_in_domain(self, a: &Digest, b: &Digest, domain: u64) -> Digest {
        let pair = || [digest_to_miden(a), digest_to_miden(b)];
        let miden_domain = miden_crypto::Felt::new_unchecked(domain);
        match self {
            Hasher::Rpo256 => {
                let [a, b] = pair();
                from_miden(miden_crypto::Word::new(rpo_0_10::merge_in_domain(
                    a.into(),
                    b.into(),
                    miden_domain,
                )))
            }
            Hasher::Poseidon2 => from_miden(Poseidon2::merge_in_domain(&pair(), miden_domain)),
            // The domains are opcodes, below 2^7.
            Hasher::Eidos => eidos::merge_in_domain(a, b, domain as u32),
        }
    }
}

/// RPO256 `hash_elements` over a sequence of field elements.
pub fn hash_elements(elements: &[Felt]) -> Digest {
    Hasher::Rpo256.hash_elements(elements)
}

/// RPO256 `merge_in_domain` of two digests.
pub fn merge_in_domain(a: &Digest, b: &Digest, domain: u64) -> Digest {
    Hasher::Rpo256.merge_in_domain(a, b, domain)
}

/// The RPO256 digest of a `Dyn` node, a constant.
pub fn dyn_digest() -> Digest {
    merge_in_domain(&Digest::ZERO, &Digest::ZERO, DYN_DOMAIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Absorbing whole batches is `hash_elements` over their concatenation.
    #[test]
    fn hash_batches_is_hash_elements() {
        let batch = |k: u64| core::array::from_fn(|i| Felt::reduce(k * 1_000_003 + i as u64 * 7));
        for hasher in [Hasher::Rpo256, Hasher::Poseidon2, Hasher::Eidos] {
            for n in [0, 1, 3] {
                let batches: Vec<[Felt; 8]> = (0..n).map(batch).collect();
                let flat: Vec<Felt> = batches.iter().flatten().copied().collect();
                assert_eq!(
                    hasher.hash_batches(batches.iter().copied()),
                    hasher.hash_elements(&flat),
                    "{hasher}, {n} batches"
                );
            }
        }
    }
}
