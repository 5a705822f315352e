//! Fuzz harnesses (feature `fuzzing`): decoding arbitrary bytes, and
//! decoding mutated encodings of generated forests.
//!
//! Properties checked on every input:
//! * decoding never panics, and trusted and verified decoding agree on
//!   well-formed digests;
//! * the decoder accepts only canonical encodings: a forest that decodes
//!   re-encodes to the very same bytes;
//! * decoding one root's tree from the bytes equals extracting that tree from
//!   the fully decoded forest;
//! * the same for the released wire formats ([`crate::wire`], every version
//!   and flag), read from the raw bytes and from mutated 0.10 and 0.23
//!   encodings of generated forests;
//! * a 0.23 forest's debug info written from memory (not from the bytes it
//!   was read from) reads back as the same forest;
//! * a verified forest's text form (its advice map included) parses back to
//!   a forest with the same text, digests and advice map.

use crate::block::BasicBlock;
use crate::decorator::Decorator;
use crate::forest::{MastForest, MastForestBuilder, MastNode};
use crate::format::{decode, decode_root, encode, DecodeErrorKind, DecodeOptions, EncodedForest};
use crate::generate::{generate, GenConfig, Rng};
use crate::ops::{Isa, Operation};
use crate::wire;

/// Runs every property on raw bytes, as the draft and as any released
/// format. Panics when one fails.
pub fn check_bytes(bytes: &[u8]) {
    check_draft_bytes(bytes);
    check_wire_bytes(bytes);
}

/// The released formats: reading never panics, trusted and verified reads
/// agree but for digests, and an accepted file is rewritten byte for byte.
pub fn check_wire_bytes(bytes: &[u8]) {
    let trusted = wire::read(bytes, DecodeOptions::TRUST);
    let verified = wire::read(bytes, DecodeOptions::VERIFY);
    match (&trusted, &verified) {
        (Ok(t), Ok(v)) => assert_eq!(t, v, "trusted and verified reads differ"),
        (Ok(_), Err(e)) => assert!(
            matches!(e.kind, DecodeErrorKind::DigestMismatch { .. }),
            "only digest checks may reject what a trusted read accepts: {e}"
        ),
        (Err(_), Ok(_)) => panic!("a verified read accepted what a trusted read rejected"),
        (Err(_), Err(_)) => {}
    }
    let Ok(file) = trusted else { return };
    let again = wire::write(
        &file.forest,
        file.exports.as_deref(),
        file.format,
        file.flags,
    )
    .expect("a read forest is written in its own format");
    assert!(
        again == bytes,
        "accepted input is not the canonical encoding of its forest"
    );
    check_debug_info_from_memory(&file);
    // A trusted read keeps recorded digests that may be wrong: the text
    // form, read back, computes them.
    if let Ok(verified) = verified {
        check_text_form(&verified.forest);
    }
}

/// The text form of a read forest parses back to the same text, digests
/// and advice map.
fn check_text_form(forest: &MastForest) {
    let text = forest.to_string();
    let parsed = crate::text::parse(&text)
        .unwrap_or_else(|e| panic!("the text form of a read forest does not parse: {e}\n{text}"));
    assert_eq!(
        parsed.to_string(),
        text,
        "the text form reads back otherwise"
    );
    assert_eq!(parsed.digests, forest.digests, "digests differ once parsed");
    assert_eq!(parsed.advice_map(), forest.advice_map());
}

/// A read 0.23 forest with debug info, written from what it holds in
/// memory instead of its section's bytes, reads back as the same forest.
fn check_debug_info_from_memory(file: &wire::MastFile) {
    let Some(info) = file.forest.debug_info() else {
        return;
    };
    let mut forest = file.forest.clone();
    let without_bytes = |info: &crate::DebugInfo| crate::DebugInfo {
        bytes: Vec::new(),
        ..info.clone()
    };
    forest.debug_info = Some(without_bytes(info));
    let exports = file.exports.as_deref();
    let bytes = wire::write(&forest, exports, file.format, file.flags)
        .expect("a read forest is written from memory");
    let back = wire::read(&bytes, DecodeOptions::TRUST).expect("written from memory, read back");
    let mut back = back.forest;
    back.debug_info = back.debug_info.as_ref().map(without_bytes);
    assert_eq!(
        back, forest,
        "debug info written from memory reads back otherwise"
    );
}

/// Encodes generated forests as miden-core 0.10, 0.23 (stripped and
/// hashless), 0.24 and 1.0 (full and hashless) write them, and as 0.10 and
/// 0.23 libraries exporting every root, mutates the bytes and checks them.
pub fn check_released_input(input: &FuzzInput) {
    let cfg = GenConfig {
        nodes: 1 + input.nodes as usize % 40,
        ..GenConfig::small()
    };
    let forest = generate(input.seed, &cfg);
    let flags = [
        wire::Flags::default(),
        wire::Flags {
            stripped: true,
            hashless: false,
        },
        wire::Flags {
            stripped: true,
            hashless: true,
        },
    ];
    // The same forest as a library exporting each root.
    let exports: Vec<wire::Export> = forest
        .roots()
        .enumerate()
        .map(|(i, root)| wire::Export {
            path: format!("::fuzz::p{i}"),
            target: wire::ExportTarget::Node(root),
            signature: None,
            attributes: None,
        })
        .collect();
    let released = portable(&forest);
    // Each conversion once; a version that cannot express the forest
    // contributes no encoding.
    let v0_23 = wire::convert(&released, Isa::V0_23).ok();
    let v1_0 = wire::convert(&released, Isa::V1_0).ok();
    let write = |forest: Option<&MastForest>,
                 exports: Option<&[wire::Export]>,
                 format: wire::Format,
                 flags: wire::Flags| {
        forest.and_then(|f| wire::write(f, exports, format, flags).ok())
    };
    let encodings = [
        write(Some(&forest), None, wire::Format::V0_10, flags[0]),
        write(
            Some(&forest),
            Some(exports.as_slice()),
            wire::Format::V0_10,
            flags[0],
        ),
        write(
            v0_23.as_ref(),
            Some(exports.as_slice()),
            wire::Format::V0_23,
            flags[1],
        ),
        write(v0_23.as_ref(), None, wire::Format::V0_23, flags[1]),
        write(v0_23.as_ref(), None, wire::Format::V0_23, flags[2]),
        write(v0_23.as_ref(), None, wire::Format::V0_24, flags[1]),
        write(v0_23.as_ref(), None, wire::Format::V0_24, flags[2]),
        write(v1_0.as_ref(), None, wire::Format::V1_0, flags[1]),
        write(v1_0.as_ref(), None, wire::Format::V1_0, flags[2]),
        // Full, with a debug-info section of the decorators and assembly
        // ops 0.23 has.
        write(v0_23.as_ref(), None, wire::Format::V0_23, flags[0]),
    ];

    for mut bytes in encodings.into_iter().flatten() {
        for m in &input.mutations {
            mutate(&mut bytes, *m);
        }
        check_wire_bytes(&bytes);
    }
}

/// `forest` with only what every released version has: operations that
/// 0.10 has and 0.23 or 1.0 lack become `noop`s, and of the decorators,
/// advice injectors, events and assembly ops that break, follow the last
/// operation or precede another decorator of their operation are dropped;
/// external nodes become `dyn` nodes.
fn portable(forest: &MastForest) -> MastForest {
    let mut b = MastForestBuilder::new_in(forest.isa());
    // The same strings and locations, under the same ids.
    for s in forest.strings().iter() {
        b.intern(s);
    }
    for l in &forest.locations {
        b.intern_location(*l);
    }
    for node in forest.nodes() {
        let node = match node {
            MastNode::Block(block) => {
                let len = block.ops().len() as u32;
                let decorators = block.decorators();
                // 0.23 has one assembly op per operation, after its other
                // decorators.
                let last_at =
                    |k: usize| decorators.get(k + 1).is_none_or(|n| n.0 != decorators[k].0);
                let kept = decorators
                    .iter()
                    .enumerate()
                    .filter(|&(k, (i, d))| match d {
                        Decorator::Advice(_) | Decorator::Event(_) => false,
                        Decorator::AsmOp(a) => !a.should_break && *i < len && last_at(k),
                        _ => true,
                    });
                let kept = kept.map(|(_, d)| d);
                let everywhere =
                    |op: &Operation| op.exists_in(Isa::V0_23) && op.exists_in(Isa::V1_0);
                let ops = block.ops().iter().map(|op| match everywhere(op) {
                    true => *op,
                    false => Operation::Noop,
                });
                MastNode::Block(BasicBlock {
                    ops: ops.collect(),
                    decorators: kept.copied().collect(),
                })
            }
            // An external digest is of one hash function.
            MastNode::External(_) => MastNode::Dyn,
            other => other.clone(),
        };
        b.add_node(node).expect("the nodes of a forest");
    }
    for root in forest.roots() {
        b.add_root(root).expect("a node of the forest");
    }
    b.build()
}

fn check_draft_bytes(bytes: &[u8]) {
    let trusted = decode(bytes, DecodeOptions::TRUST);
    let verified = decode(bytes, DecodeOptions::VERIFY);
    match (&trusted, &verified) {
        (Ok(t), Ok(v)) => assert_eq!(t, v, "trusted and verified decodes differ"),
        (Ok(_), Err(e)) => assert!(
            matches!(e.kind, DecodeErrorKind::DigestMismatch { .. }),
            "only digest checks may reject what trusted decoding accepts: {e}"
        ),
        (Err(t), Err(v)) => {
            // Verification may stop earlier, at a digest, than the structural error.
            if !matches!(v.kind, DecodeErrorKind::DigestMismatch { .. }) {
                assert_eq!(t, v, "structural errors must not depend on digest checks");
            }
        }
        (Err(e), Ok(_)) => panic!("verified decoding accepted what trusted decoding rejected: {e}"),
    }
    let Ok(forest) = trusted else { return };
    let again = encode(&forest).expect("a decoded forest fits the format");
    assert!(
        again == bytes,
        "accepted input is not the canonical encoding of its forest"
    );
    let header = EncodedForest::parse(bytes).expect("parsed before");
    for root in forest.roots() {
        let digest = forest.digest(root);
        // Roots with equal digests are found by the first one.
        let first = forest.find_root(&digest).expect("root exists");
        let want = forest.extract(first);
        let got = decode_root(bytes, &digest, DecodeOptions::TRUST).expect("full decode succeeded");
        assert_eq!(
            got.to_string(),
            want.to_string(),
            "partial decode of root {root}"
        );
        assert_eq!(got.digest(got.roots().next().expect("one root")), digest);
        assert_eq!(header.find_root(&digest).ok(), Some(first.0));
    }
}

/// Mutation kinds applied to valid encodings.
#[derive(Copy, Clone, Debug)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub enum Mutation {
    /// XOR one byte (position taken modulo the length).
    Flip {
        /// Position.
        at: u32,
        /// XOR mask (zero is made one).
        mask: u8,
    },
    /// Cut the encoding at a position.
    Truncate {
        /// Position.
        at: u32,
    },
    /// Append bytes.
    Extend {
        /// Byte repeated.
        byte: u8,
        /// How many.
        len: u8,
    },
    /// Overwrite four bytes with a little-endian value (counts, indices).
    Write32 {
        /// Position.
        at: u32,
        /// Value.
        value: u32,
    },
}

/// A structured fuzz input: a generated forest and mutations of its encoding.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub struct FuzzInput {
    /// Generator seed.
    pub seed: u64,
    /// Number of nodes (taken modulo 40).
    pub nodes: u8,
    /// Mutations, applied in order.
    pub mutations: Vec<Mutation>,
}

/// Applies `m` to `bytes`.
pub fn mutate(bytes: &mut Vec<u8>, m: Mutation) {
    let len = bytes.len().max(1);
    match m {
        Mutation::Flip { at, mask } => {
            if let Some(b) = bytes.get_mut(at as usize % len) {
                *b ^= mask.max(1);
            }
        }
        Mutation::Truncate { at } => bytes.truncate(at as usize % len),
        Mutation::Extend { byte, len } => bytes.extend(std::iter::repeat_n(byte, len as usize)),
        Mutation::Write32 { at, value } => {
            let at = at as usize % len;
            for (k, b) in value.to_le_bytes().into_iter().enumerate() {
                if let Some(slot) = bytes.get_mut(at + k) {
                    *slot = b;
                }
            }
        }
    }
}

/// Generates, encodes, mutates and checks.
pub fn check_input(input: &FuzzInput) {
    let cfg = GenConfig {
        nodes: 1 + input.nodes as usize % 40,
        entrypoint: input.seed.is_multiple_of(3),
        ..GenConfig::small()
    };
    let forest = generate(input.seed, &cfg);
    let mut bytes = encode(&forest).expect("small forests encode");
    if input.mutations.is_empty() {
        assert_eq!(decode(&bytes, DecodeOptions::VERIFY).as_ref(), Ok(&forest));
    }
    for m in &input.mutations {
        mutate(&mut bytes, *m);
    }
    check_bytes(&bytes);
}

/// Entry point for byte-oriented fuzzers (e.g. a cargo-fuzz target): the
/// bytes are checked as an encoding, and also read as a [`FuzzInput`].
#[cfg(feature = "fuzzing")]
pub fn fuzz(data: &[u8]) {
    check_bytes(data);
    let mut u = arbitrary::Unstructured::new(data);
    if let Ok(input) = <FuzzInput as arbitrary::Arbitrary>::arbitrary(&mut u) {
        check_input(&input);
        check_released_input(&input);
    }
}

/// A deterministic soak: `iterations` random inputs from `seed`.
pub fn smoke(seed: u64, iterations: usize) {
    let mut rng = Rng::new(seed);
    for _ in 0..iterations {
        let n = rng.below(4) as usize;
        let mutations = (0..n)
            .map(|_| match rng.below(4) {
                0 => Mutation::Flip {
                    at: rng.next_u64() as u32,
                    mask: rng.next_u64() as u8,
                },
                1 => Mutation::Truncate {
                    at: rng.next_u64() as u32,
                },
                2 => Mutation::Extend {
                    byte: rng.next_u64() as u8,
                    len: rng.below(9) as u8,
                },
                _ => Mutation::Write32 {
                    at: rng.next_u64() as u32,
                    value: [0, 1, 7, 0xFFFF_FFFF, rng.next_u64() as u32][rng.below(5) as usize],
                },
            })
            .collect();
        let input = FuzzInput {
            seed: rng.next_u64(),
            nodes: rng.next_u64() as u8,
            mutations,
        };
        check_input(&input);
        check_released_input(&input);
    }
}

#[cfg(test)]
mod tests {
    /// The forests the released layouts are fuzzed with convert to them.
    #[test]
    fn portable_forests_convert() {
        use super::*;
        for seed in 0..40 {
            let forest = portable(&generate(seed, &GenConfig::small()));
            for isa in [Isa::V0_23, Isa::V1_0] {
                if let Err(e) = wire::convert(&forest, isa) {
                    panic!("seed {seed}, {isa}: {e}");
                }
            }
        }
    }

    #[test]
    fn smoke_test() {
        super::smoke(0x5EED, 400);
    }

    #[test]
    fn every_byte_corrupted() {
        for name in ["all_nodes", "library"] {
            let path = format!("{}/tests/data/{name}.mast", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(path).unwrap();
            for at in 0..bytes.len() {
                for mask in [0x01, 0x80, 0xFF] {
                    let mut b = bytes.clone();
                    b[at] ^= mask;
                    super::check_bytes(&b);
                }
            }
        }
    }
}
