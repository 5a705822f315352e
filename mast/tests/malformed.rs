//! Hostile input: every truncation, corrupted fields, huge counts, bad
//! indices and offsets, bad UTF-8, wrong digests and cycles each give their
//! typed error at the right byte.

use kildall_mast::{
    decode, decode_root, encode, parse, DecodeError, DecodeErrorKind as K, DecodeOptions,
    EncodedForest, MastForest,
};

const BASE: &str = r#"
block @asmop("ctx", "op", 1) push(5) add @debug(stack.2)
block mul
join 0 1
loop 1
root 2
root 3
entrypoint 2
"#;

fn base() -> (MastForest, Vec<u8>) {
    let forest = parse(BASE).unwrap();
    let bytes = encode(&forest).unwrap();
    (forest, bytes)
}

struct Layout {
    infos: usize,
    strings: usize,
    data: usize,
}

fn layout(bytes: &[u8]) -> Layout {
    let f = EncodedForest::parse(bytes).unwrap();
    Layout {
        infos: f.infos_offset(),
        strings: f.strings_offset(),
        data: f.data_offset(),
    }
}

fn record(l: &Layout, node: usize) -> usize {
    l.infos + 48 * node
}

fn patched(bytes: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + with.len()].copy_from_slice(with);
    b
}

fn fail(bytes: &[u8]) -> DecodeError {
    let trusted = decode(bytes, DecodeOptions::TRUST).expect_err("trusted decode must fail");
    let verified = decode(bytes, DecodeOptions::VERIFY).expect_err("verified decode must fail");
    assert_eq!(trusted, verified);
    trusted
}

fn header(entry: u64, nodes: u64) -> Vec<u8> {
    let mut b = b"MAST\0\0\0\0".to_vec();
    b.extend_from_slice(vint64::encode(entry).as_ref());
    b.extend_from_slice(vint64::encode(nodes).as_ref());
    b
}

#[test]
fn every_truncation_fails_cleanly() {
    for name in ["all_nodes", "all_ops", "library"] {
        let path = format!("{}/tests/data/{name}.mast", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(path).unwrap();
        for cut in 0..bytes.len() {
            let e = fail(&bytes[..cut]);
            assert!(e.offset <= cut, "{name} cut at {cut}: {e}");
            assert!(
                matches!(
                    e.kind,
                    K::Truncated(_) | K::BadMagic | K::CountTooLarge { .. }
                ),
                "{name} cut at {cut}: {e}"
            );
        }
        // Extending the input is caught as trailing bytes.
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(fail(&longer).kind, K::TrailingBytes(1));
        assert_eq!(fail(&longer).offset, bytes.len());
    }
}

#[test]
fn header_fields() {
    let (_, bytes) = base();
    let e = fail(&patched(&bytes, 0, b"MASK"));
    assert_eq!((e.offset, e.kind), (0, K::BadMagic));
    let e = fail(&patched(&bytes, 5, &[0, 0, 1]));
    assert_eq!((e.offset, e.kind), (5, K::UnsupportedVersion([0, 0, 1])));
    let e = fail(&patched(&bytes, 5, &[7, 0, 0]));
    assert_eq!(e.kind, K::UnsupportedVersion([7, 0, 0]));
    // Entrypoint 4 (stored 5) is past the 4 nodes.
    let e = fail(&patched(&bytes, 8, vint64::encode(5).as_ref()));
    assert_eq!(e.offset, 8);
    assert!(matches!(
        e.kind,
        K::EntrypointOutOfRange { index: 4, count: 4 }
    ));
    // Entrypoint 0 is not a root.
    let e = fail(&patched(&bytes, 8, vint64::encode(1).as_ref()));
    assert_eq!((e.offset, e.kind), (8, K::EntrypointNotRoot(0)));
    // A root bit for node 5 of 4.
    let e = fail(&patched(&bytes, 10, &[0b0010_1100]));
    assert_eq!((e.offset, e.kind), (10, K::RootOutOfRange(5)));
    // Non-zero padding before the records.
    let e = fail(&patched(&bytes, 11, &[9]));
    assert_eq!(e.offset, 11);
    assert!(matches!(e.kind, K::NonZeroPadding(_)));
}

#[test]
fn non_canonical_vint() {
    let (_, bytes) = base();
    // The entrypoint 3 written in two bytes: 3 << 2 | 0b10.
    let mut b = bytes[..8].to_vec();
    b.extend([0b0000_1110, 0]);
    b.extend_from_slice(&bytes[9..]);
    let e = fail(&b);
    assert_eq!((e.offset, e.kind), (8, K::NonCanonicalVInt("entrypoint")));
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    for n in [u32::MAX as u64, 1 << 20, 3] {
        let e = fail(&header(0, n));
        assert_eq!(e.offset, 9);
        assert!(
            matches!(e.kind, K::CountTooLarge { field: "node", .. }),
            "{e}"
        );
    }
    let e = fail(&header(0, 1 << 40));
    assert!(matches!(
        e.kind,
        K::ValueOutOfRange {
            field: "node count",
            ..
        }
    ));
    // Zero nodes, then a strings count far past the input.
    let mut b = header(0, 0);
    b.extend([0; 2]); // pad to 12
    b.extend_from_slice(vint64::encode(1 << 30).as_ref());
    let e = fail(&b);
    assert_eq!(e.offset, 12);
    assert!(matches!(
        e.kind,
        K::CountTooLarge {
            field: "string",
            ..
        }
    ));
    // A data size past the input.
    let mut b = header(0, 0);
    b.extend([0; 2]);
    b.extend([0x01, 0, 0, 0]); // no strings, pad
    b.extend_from_slice(vint64::encode(1000).as_ref());
    b.extend([0; 10]);
    let e = fail(&b);
    assert_eq!(e.offset, 16);
    assert!(matches!(
        e.kind,
        K::CountTooLarge {
            field: "data byte",
            count: 1000,
            ..
        }
    ));
    // The empty forest itself is fine.
    let mut b = header(0, 0);
    b.extend([0, 0, 0x01, 0, 0, 0, 0x01]);
    assert_eq!(
        decode(&b, DecodeOptions::VERIFY).unwrap(),
        MastForest::default()
    );
}

#[test]
fn node_records() {
    let (_, bytes) = base();
    let l = layout(&bytes);
    let join = record(&l, 2);
    let e = fail(&patched(&bytes, join, &[8]));
    assert_eq!(
        (e.offset, e.kind),
        (join, K::UnknownNodeTag { node: 2, tag: 8 })
    );
    let e = fail(&patched(&bytes, join + 2, &[1]));
    assert_eq!(e.offset, join + 1);
    assert!(matches!(e.kind, K::NonZeroPadding(_)));
    // Child index past the end.
    let e = fail(&patched(&bytes, join + 8, &77u32.to_le_bytes()));
    assert_eq!(
        (e.offset, e.kind),
        (
            join + 8,
            K::ChildOutOfRange {
                node: 2,
                child: 77,
                count: 4
            }
        )
    );
    // A loop over itself, and a join of a later node: cycles need one.
    let lp = record(&l, 3);
    let e = fail(&patched(&bytes, lp + 4, &3u32.to_le_bytes()));
    assert_eq!(
        (e.offset, e.kind),
        (lp + 4, K::ForwardReference { node: 3, child: 3 })
    );
    let e = fail(&patched(&bytes, join + 4, &3u32.to_le_bytes()));
    assert_eq!(
        (e.offset, e.kind),
        (join + 4, K::ForwardReference { node: 2, child: 3 })
    );
    // A loop using its second field, a join with a data offset.
    let e = fail(&patched(&bytes, lp + 8, &[1]));
    assert_eq!(e.offset, lp + 8);
    assert!(matches!(e.kind, K::NonZeroPadding(_)));
    let e = fail(&patched(&bytes, join + 12, &[4]));
    assert_eq!((e.offset, e.kind), (join + 12, K::UnexpectedOffset(2)));
    // A digest element at or above the modulus.
    let e = fail(&patched(&bytes, join + 16 + 8, &u64::MAX.to_le_bytes()));
    assert_eq!(
        (e.offset, e.kind),
        (join + 24, K::NonCanonicalFelt("digest element"))
    );
}

#[test]
fn cycle_between_two_nodes() {
    // Two joins referring to each other.
    let forest = parse("block add\njoin 0 0\njoin 1 1\nroot 2\n").unwrap();
    let bytes = encode(&forest).unwrap();
    let l = layout(&bytes);
    let b = patched(&bytes, record(&l, 1) + 4, &2u32.to_le_bytes());
    let e = fail(&b);
    assert_eq!(e.kind, K::ForwardReference { node: 1, child: 2 });
    let d = forest.digest(forest.node_id(2).unwrap());
    assert!(decode_root(&b, &d, DecodeOptions::TRUST).is_err());
}

#[test]
fn wrong_digests() {
    let (forest, bytes) = base();
    let l = layout(&bytes);
    for node in 0..4 {
        let at = record(&l, node) + 16;
        let b = patched(&bytes, at, &[bytes[at] ^ 1]);
        let e = decode(&b, DecodeOptions::VERIFY).unwrap_err();
        assert_eq!(e.offset, at);
        assert!(matches!(e.kind, K::DigestMismatch { node: n, .. } if n == node as u32));
        // Trusting digests accepts them as written.
        let t = decode(&b, DecodeOptions::TRUST).unwrap();
        assert_ne!(t, forest);
        assert_eq!(t.verify_digests().map(|n| n.index()), Some(node));
    }
    // The partial decoder checks the nodes it decodes.
    let root = forest.digest(forest.node_id(2).unwrap());
    let at = record(&l, 1) + 16;
    let b = patched(&bytes, at, &[bytes[at] ^ 1]);
    let e = decode_root(&b, &root, DecodeOptions::VERIFY).unwrap_err();
    assert!(matches!(e.kind, K::DigestMismatch { node: 1, .. }));
    let e = decode_root(&bytes, &kildall_mast::Digest::ZERO, DecodeOptions::VERIFY).unwrap_err();
    assert!(matches!(e.kind, K::RootNotFound(_)));
}

#[test]
fn block_records() {
    let (_, bytes) = base();
    let l = layout(&bytes);
    let b0 = record(&l, 0);
    let e = fail(&patched(&bytes, b0 + 4, &0u32.to_le_bytes()));
    assert_eq!((e.offset, e.kind), (b0 + 4, K::EmptyBlock(0)));
    let e = fail(&patched(&bytes, b0 + 4, &u32::MAX.to_le_bytes()));
    assert_eq!(e.offset, b0 + 4);
    assert!(matches!(e.kind, K::BlockTooLarge { node: 0, .. }));
    let e = fail(&patched(&bytes, b0 + 12, &9999u32.to_le_bytes()));
    assert_eq!(e.offset, b0 + 12);
    assert!(matches!(
        e.kind,
        K::DataOutOfRange {
            what: "block data",
            ..
        }
    ));
    // One decorator fewer than encoded: the block ends early, and the next
    // block's data does not start where it ends.
    let e = fail(&patched(&bytes, b0 + 8, &1u32.to_le_bytes()));
    assert_eq!(e.offset, record(&l, 1) + 12);
    assert!(
        matches!(
            e.kind,
            K::DataLayout {
                what: "block data",
                ..
            }
        ),
        "{e}"
    );
    // One operation fewer: the third entry is an operation too many.
    let e = fail(&patched(&bytes, b0 + 4, &1u32.to_le_bytes()));
    assert_eq!(e.offset, first_op(&l, &bytes) + 3);
    // Counts that disagree with the entries, and the count found wrong:
    // one operation fewer; more operations than declared, within the
    // decorators' budget (the trailing decorator's place holds an
    // operation); an extra operation where a decorator was declared.
    let decorators = u32::from_le_bytes(bytes[b0 + 8..b0 + 12].try_into().unwrap());
    for (operations, decorators, expected) in [
        (1u32, decorators, "operations"),
        (3, 0, "decorators"),
        (1, 3, "operations"),
    ] {
        let b = patched(&bytes, b0 + 4, &operations.to_le_bytes());
        let e = fail(&patched(&b, b0 + 8, &decorators.to_le_bytes()));
        assert!(
            matches!(e.kind, K::BlockCountMismatch { node: 0, what } if what == expected),
            "{operations} operations, {decorators} decorators: {e}"
        );
    }
}

#[test]
fn overlapping_blocks_cannot_amplify() {
    // One long block, many one-operation blocks joined into one tree, the
    // small blocks then re-pointed at the long block's data.
    let mut text = String::from("block");
    for _ in 0..500 {
        text.push_str(" add");
    }
    text.push('\n');
    for _ in 0..40 {
        text.push_str("block noop\n");
    }
    text.push_str("join 1 2\n");
    for k in 3..=40 {
        text.push_str(&format!("join {} {k}\n", 41 + k - 3));
    }
    text.push_str("root 0\nroot 79\n");
    let forest = parse(&text).unwrap();
    let root = forest.digest(forest.node_id(79).unwrap());
    let mut bytes = encode(&forest).unwrap();
    let l = layout(&bytes);
    let first = bytes[record(&l, 0) + 4..record(&l, 0) + 16].to_vec();
    for node in 1..=40 {
        let at = record(&l, node) + 4;
        bytes[at..at + 12].copy_from_slice(&first);
    }
    let e = fail(&bytes);
    assert!(matches!(e.kind, K::DataLayout { .. }), "{e}");
    // The partial decoder does not check the layout; its budget stops it.
    let e = decode_root(&bytes, &root, DecodeOptions::TRUST).unwrap_err();
    assert!(matches!(e.kind, K::BlockTooLarge { .. }), "{e}");
}

#[test]
fn unused_data() {
    let (_, bytes) = base();
    let l = layout(&bytes);
    let mut b = fix_data_size(&bytes, &l, 1);
    b.push(0);
    let e = fail(&b);
    assert_eq!((e.offset, e.kind), (bytes.len(), K::UnusedData(1)));
}

/// Offset of the first operation entry of block 0 of BASE (after its
/// AsmOp decorator: tag, cycles, break, two one-byte indices).
fn first_op(l: &Layout, bytes: &[u8]) -> usize {
    let f = EncodedForest::parse(bytes).unwrap();
    let offset = f.record(0).unwrap().offset as usize;
    l.data + offset + 5
}

#[test]
fn operations_and_decorators() {
    let (_, bytes) = base();
    let l = layout(&bytes);
    let asm = first_op(&l, &bytes) - 5;
    let push = asm + 5; // [1, 100, vint(5)]
    let add = push + 3; // [0, 34]
    assert_eq!(&bytes[push..add + 2], &[1, 100, 0x0B, 0, 34]);
    let e = fail(&patched(&bytes, add, &[9]));
    assert_eq!((e.offset, e.kind), (add, K::UnknownEntryTag(9)));
    let e = fail(&patched(&bytes, add + 1, &[0x1F]));
    assert_eq!((e.offset, e.kind), (add + 1, K::UnknownOpcode(0x1F)));
    let e = fail(&patched(&bytes, add + 1, &[0xA2]));
    assert_eq!(e.kind, K::UnknownOpcode(0xA2));
    // `push` under the plain tag, `add` under the immediate tag.
    let e = fail(&patched(&bytes, push, &[0]));
    assert!(matches!(
        e.kind,
        K::ImmediateMismatch {
            opcode: 100,
            expects_immediate: true
        }
    ));
    let e = fail(&patched(&bytes, push + 1, &[34]));
    assert!(matches!(
        e.kind,
        K::ImmediateMismatch {
            opcode: 34,
            expects_immediate: false
        }
    ));
    // Assert's error code past u32: replace `push(5)` by `assert` with a 5-byte VInt64.
    let mut b = bytes[..push].to_vec();
    b.extend([1, 32]);
    b.extend_from_slice(vint64::encode(1 << 33).as_ref());
    let grown = vint64::encode(1 << 33).as_ref().len() - 1;
    b.extend_from_slice(&bytes[add..]);
    let e = fail(&fix_data_size(&b, &l, grown));
    assert_eq!(e.offset, push + 2);
    assert!(
        matches!(
            e.kind,
            K::ValueOutOfRange {
                field: "error code",
                ..
            }
        ),
        "{e}"
    );
    // A push immediate at the modulus.
    let mut b = bytes[..push].to_vec();
    b.extend([1, 100]);
    b.extend_from_slice(vint64::encode(0xFFFF_FFFF_0000_0001).as_ref());
    b.extend_from_slice(&bytes[add..]);
    let e = fail(&fix_data_size(&b, &l, 8));
    assert_eq!(
        (e.offset, e.kind),
        (push + 2, K::NonCanonicalFelt("push immediate"))
    );
    // AsmOp: should_break not a boolean; string index past the table.
    let e = fail(&patched(&bytes, asm + 2, &[2]));
    assert!(matches!(
        e.kind,
        K::BadBool {
            field: "should_break",
            value: 2
        }
    ));
    let e = fail(&patched(&bytes, asm + 3, vint64::encode(40).as_ref()));
    assert_eq!(e.offset, asm + 3);
    assert!(matches!(
        e.kind,
        K::StringIndexOutOfRange {
            index: 40,
            count: 2
        }
    ));
    // Debug decorator tag changed to an advice injector with an unknown tag.
    let dbg = add + 2;
    assert_eq!(&bytes[dbg..dbg + 2], &[5, 2]);
    let e = fail(&patched(&bytes, dbg, &[2, 99]));
    assert_eq!((e.offset, e.kind), (dbg + 1, K::UnknownAdviceTag(99)));
    // MapValueToStack reads two more bytes: block 0 now runs into block 1.
    let e = fail(&patched(&bytes, dbg, &[2, 3]));
    assert_eq!(e.offset, record(&l, 1) + 12);
    assert!(
        matches!(
            e.kind,
            K::DataLayout {
                what: "block data",
                ..
            }
        ),
        "{e}"
    );
}

/// Rewrites the one-byte data size of a BASE-shaped encoding grown by `grown` bytes.
fn fix_data_size(b: &[u8], l: &Layout, grown: usize) -> Vec<u8> {
    let mut out = b.to_vec();
    let at = l.data - 1;
    let mut slice = &b[at..];
    let old = vint64::decode(&mut slice).unwrap();
    out[at] = vint64::encode(old + grown as u64).as_ref()[0];
    out
}

#[test]
fn strings() {
    let (_, bytes) = base();
    let l = layout(&bytes);
    // String 0 ("ctx") pointed past the data.
    let e = fail(&patched(&bytes, l.strings, &500u32.to_le_bytes()));
    assert_eq!(e.offset, l.strings);
    assert!(matches!(e.kind, K::DataOutOfRange { what: "string", .. }));
    let e = fail(&patched(&bytes, l.strings + 4, &u32::MAX.to_le_bytes()));
    assert!(matches!(e.kind, K::DataOutOfRange { what: "string", .. }));
    // Invalid UTF-8 inside "ctx".
    let e = fail(&patched(&bytes, l.data + 1, &[0xFF]));
    assert_eq!((e.offset, e.kind), (l.data + 1, K::InvalidUtf8(0)));
    // Both strings covering the whole data section exceed its size together.
    let f = EncodedForest::parse(&bytes).unwrap();
    let whole = (f.data_size() as u32).to_le_bytes();
    let mut b = bytes.clone();
    for k in 0..2 {
        b[l.strings + 8 * k..l.strings + 8 * k + 4].copy_from_slice(&[0; 4]);
        b[l.strings + 8 * k + 4..l.strings + 8 * k + 8].copy_from_slice(&whole);
    }
    let e = fail(&b);
    assert_eq!(e.offset, l.strings + 8);
    assert!(
        matches!(e.kind, K::DataLayout { what: "string", .. }),
        "{e}"
    );
    // The same string twice.
    let forest = parse("block @asmop(\"ab\", \"cd\", 1) add\nroot 0\n").unwrap();
    let bytes = encode(&forest).unwrap();
    let l = layout(&bytes);
    assert_eq!(&bytes[l.data..l.data + 4], b"abcd");
    let e = fail(&patched(&bytes, l.data + 2, b"ab"));
    assert_eq!((e.offset, e.kind), (l.strings + 8, K::DuplicateString(1)));
}

#[test]
fn record_and_tree_indices_are_checked() {
    let (_, bytes) = base();
    let f = EncodedForest::parse(&bytes).unwrap();
    let e = f.record(4).unwrap_err();
    assert_eq!(e.kind, K::NodeOutOfRange { index: 4, count: 4 });
    let e = f.decode_tree(u32::MAX, DecodeOptions::TRUST).unwrap_err();
    assert!(matches!(e.kind, K::NodeOutOfRange { .. }));
}
