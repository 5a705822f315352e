//! Wire version `[0,0,5]` of miden-core 1.0 (its released file is read in
//! `released.rs`): the canonical node order on both sides, and conversions
//! from and to the other versions.

use kildall_mast::format::{DecodeErrorKind, DecodeOptions};
use kildall_mast::wire::{self, Flags, Format};
use kildall_mast::Digest;
use kildall_mast::{EncodeError, Isa, MastForest, MastForestBuilder, MastNode, Operation};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const STRIPPED: Flags = Flags {
    stripped: true,
    hashless: false,
};
const HASHLESS: Flags = Flags {
    stripped: true,
    hashless: true,
};

/// Two external nodes whose digests decrease by miden-crypto's order (last
/// element first).
fn externals(b: &mut MastForestBuilder) -> [kildall_mast::MastNodeId; 2] {
    [[0, 0, 0, 2], [5, 0, 0, 1]].map(|d| b.add_external(Digest::from_u64s(d).unwrap()).unwrap())
}

/// Writes `forest` in 1.0, full and hashless, and reads it back with every
/// digest verified.
fn round_trip(forest: &MastForest) {
    for flags in [STRIPPED, HASHLESS] {
        let bytes = wire::write(forest, None, Format::V1_0, flags).unwrap();
        let back = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
        assert_eq!(&back.forest, forest);
    }
}

/// A 1.0 forest out of canonical order: a block after a join, external
/// digests decreasing (by miden-crypto's order, last element first).
fn unordered() -> MastForest {
    let mut b = MastForestBuilder::new_in(Isa::V1_0);
    let add = b.add_block(vec![Operation::Add], vec![]).unwrap();
    let compress = b.add_block(vec![Operation::Compress], vec![]).unwrap();
    let join = b.add_join(add, compress).unwrap();
    let late = b.add_block(vec![Operation::Mul], vec![]).unwrap();
    let [high, low] = externals(&mut b);
    let call = b.add_call(high, false).unwrap();
    let top = b.add_join(join, late).unwrap();
    for r in [top, call, low] {
        b.add_root(r).unwrap();
    }
    b.build()
}

fn refusal(e: EncodeError) -> String {
    let EncodeError::Unrepresentable { format, what } = e else {
        panic!("{e}");
    };
    assert_eq!(format, "miden 1.0");
    what
}

/// The writer refuses a forest out of canonical order; `canonicalize`
/// orders it as miden-core 1.0 does (externals by digest, blocks, then the
/// rest children first, the earliest ready first), and is the identity on
/// its result.
#[test]
fn canonical_order() {
    let forest = unordered();
    let what = refusal(wire::write(&forest, None, Format::V1_0, STRIPPED).unwrap_err());
    assert!(
        what.starts_with("node 3: a block after a control node"),
        "{what}"
    );
    let ordered = wire::canonicalize(&forest).unwrap();
    let kinds: Vec<String> = ordered
        .nodes()
        .iter()
        .map(|n| n.kind().to_string())
        .collect();
    assert_eq!(
        kinds,
        ["external", "external", "block", "block", "block", "join", "call", "join"]
    );
    assert_eq!(
        ordered.digest(ordered.node_id(0).unwrap()).as_u64s(),
        [5, 0, 0, 1]
    );
    let roots: Vec<Digest> = forest.roots().map(|r| forest.digest(r)).collect();
    let ordered_roots: Vec<Digest> = ordered.roots().map(|r| ordered.digest(r)).collect();
    assert_eq!(roots, ordered_roots);
    assert_eq!(wire::canonicalize(&ordered).unwrap(), ordered);
    round_trip(&ordered);
}

/// One external digest twice has no canonical order.
#[test]
fn repeated_external_digest() {
    let mut b = MastForestBuilder::new_in(Isa::V1_0);
    let d = Digest::from_u64s([1, 2, 3, 4]).unwrap();
    let first = b.add_external(d).unwrap();
    let second = b.add_external(d).unwrap();
    let join = b.add_join(first, second).unwrap();
    b.add_root(join).unwrap();
    let what = refusal(wire::canonicalize(&b.build()).unwrap_err());
    assert!(what.contains("nodes 0 and 1"), "{what}");
}

/// The reader refuses what its writer would not write: the bytes of an
/// unordered forest, written in the same layout by 0.24 and relabelled.
#[test]
fn reader_requires_canonical_order() {
    let mut forest = unordered();
    // 0.24 writes the layout in node order; `hperm`'s opcode is
    // `compress`'s, so the relabelled block is the same operation.
    let mut b = MastForestBuilder::new_in(Isa::V0_23);
    for (i, node) in forest.nodes().iter().enumerate() {
        let node = match node {
            MastNode::Block(block) if block.ops() == [Operation::Compress] => MastNode::Block(
                kildall_mast::BasicBlock::new(vec![Operation::HPerm], vec![]).unwrap(),
            ),
            other => other.clone(),
        };
        assert_eq!(b.add_node(node).unwrap().index(), i);
    }
    for r in forest.roots() {
        b.add_root(r).unwrap();
    }
    forest = b.build();
    let mut bytes = wire::write(&forest, None, Format::V0_24, HASHLESS).unwrap();
    bytes[7] = 5;
    let e = wire::read(&bytes, DecodeOptions::TRUST).unwrap_err();
    assert_eq!(
        e.kind,
        DecodeErrorKind::NonCanonical("a block after a control node")
    );
    // The externals alone out of order.
    let mut b = MastForestBuilder::new_in(Isa::V0_23);
    let [high, low] = externals(&mut b);
    let join = b.add_join(high, low).unwrap();
    b.add_root(join).unwrap();
    let mut bytes = wire::write(&b.build(), None, Format::V0_24, HASHLESS).unwrap();
    bytes[7] = 5;
    let e = wire::read(&bytes, DecodeOptions::TRUST).unwrap_err();
    assert_eq!(
        e.kind,
        DecodeErrorKind::NonCanonical("external digests not in strictly increasing order")
    );
}

/// The trees of the 0.23 core library convert to 1.0 unless they use
/// `hperm` or have external nodes (digests of the other hash function);
/// those that do are written and read back with every Eidos digest
/// verified. 1.0 differs from 0.23 in opcode `0x50`, its hash and its node
/// order only, so 1.0 -> 0.23 -> 1.0 is the identity.
#[test]
fn conversions_from_0_23() {
    let file = wire::read(&data("core-0.23.5.stripped.mast"), DecodeOptions::TRUST).unwrap();
    let mut converted = 0;
    for root in file.forest.roots() {
        let tree = file.forest.extract(root);
        let v1 = match wire::convert(&tree, Isa::V1_0) {
            Ok(v1) => v1,
            Err(e) => {
                let what = refusal(e);
                assert!(
                    what.ends_with("`hperm`") || what.contains("external"),
                    "{what}"
                );
                continue;
            }
        };
        converted += 1;
        assert_eq!(wire::canonicalize(&v1).unwrap(), v1);
        round_trip(&v1);
        let v023 = wire::convert(&v1, Isa::V0_23).unwrap();
        assert_eq!(wire::convert(&v023, Isa::V1_0).unwrap(), v1);
    }
    assert!(converted > 100, "{converted}");
}

/// `compress` exists only in 1.0, `hperm` only before: converting names
/// the node and the operation.
#[test]
fn hperm_and_compress_do_not_convert() {
    let mut b = MastForestBuilder::new_in(Isa::V1_0);
    let add = b.add_block(vec![Operation::Add], vec![]).unwrap();
    let compress = b.add_block(vec![Operation::Compress], vec![]).unwrap();
    let root = b.add_join(add, compress).unwrap();
    b.add_root(root).unwrap();
    let e = wire::convert(&b.build(), Isa::V0_23).unwrap_err();
    assert_eq!(
        e.to_string(),
        "miden 0.23 cannot express node 1: `compress`"
    );
    let mut b = MastForestBuilder::new_in(Isa::V0_23);
    let root = b.add_block(vec![Operation::HPerm], vec![]).unwrap();
    b.add_root(root).unwrap();
    let e = refusal(wire::convert(&b.build(), Isa::V1_0).unwrap_err());
    assert_eq!(e, "node 0: `hperm`");
}
