//! MAST digests as Miden VM computes them (miden-core 0.10).
//!
//! The hash function is RPO256 (Rescue Prime Optimized, Ashur et al.,
//! ePrint 2022/1577) over Goldilocks, taken from the `miden-crypto` crate so
//! that our digests are Miden's by construction. Control nodes are hashed
//! with `merge_in_domain`, the domain being the opcode of the control
//! operation that starts the node in the VM:
//!
//! | node    | digest                                            |
//! |---------|---------------------------------------------------|
//! | Join    | `merge_in_domain([left, right], 87)`              |
//! | Split   | `merge_in_domain([on_true, on_false], 84)`        |
//! | Loop    | `merge_in_domain([body, ZERO], 85)`               |
//! | Call    | `merge_in_domain([callee, ZERO], 108)`            |
//! | SysCall | `merge_in_domain([callee, ZERO], 104)`            |
//! | Dyn     | `merge_in_domain([ZERO, ZERO], 88)`               |
//! | Block   | `hash_elements(groups of all batches)`            |
//!
//! A basic block's hash covers the eight group values of every batch (see
//! [`crate::block`]); decorators are not hashed.

use miden_crypto::hash::rpo::{Rpo256, RpoDigest};

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

fn to_miden(e: Felt) -> miden_crypto::Felt {
    miden_crypto::Felt::new(e.as_u64())
}

fn from_miden(d: RpoDigest) -> Digest {
    let w = d.as_elements();
    // `as_int` is canonical, so `reduce` is the identity here.
    Digest([
        Felt::reduce(w[0].as_int()),
        Felt::reduce(w[1].as_int()),
        Felt::reduce(w[2].as_int()),
        Felt::reduce(w[3].as_int()),
    ])
}

fn digest_to_miden(d: &Digest) -> RpoDigest {
    RpoDigest::new(d.0.map(to_miden))
}

/// RPO256 `hash_elements` over a sequence of field elements.
pub fn hash_elements(elements: &[Felt]) -> Digest {
    let elems: Vec<miden_crypto::Felt> = elements.iter().copied().map(to_miden).collect();
    from_miden(Rpo256::hash_elements(&elems))
}

/// RPO256 `merge_in_domain` of two digests.
pub fn merge_in_domain(a: &Digest, b: &Digest, domain: u64) -> Digest {
    let domain = miden_crypto::Felt::new(domain);
    from_miden(Rpo256::merge_in_domain(
        &[digest_to_miden(a), digest_to_miden(b)],
        domain,
    ))
}

/// The digest of a `Dyn` node, a constant.
pub fn dyn_digest() -> Digest {
    merge_in_domain(&Digest::ZERO, &Digest::ZERO, DYN_DOMAIN)
}
