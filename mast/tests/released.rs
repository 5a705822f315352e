//! The files Miden released, as the published crates write them (see
//! `tests/data/PROVENANCE.md`): each is read with every digest verified,
//! its roots and exports compared with the digests the generating
//! miden-core computed, and rewritten byte for byte.

use kildall_mast::format::{DecodeErrorKind, DecodeOptions};
use kildall_mast::wire::{self, ExportTarget, Flags, Format, MastFile};
use kildall_mast::{Isa, MastNode, MastNodeId, NodeKind, Operation};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(name: &str) -> String {
    String::from_utf8(data(name)).unwrap()
}

fn roots_listing(file: &MastFile) -> String {
    let f = &file.forest;
    f.roots()
        .map(|r| {
            let kind = match f.node(r).kind() {
                NodeKind::DynCall => "dyncall".to_string(),
                k => k.to_string(),
            };
            format!("root {r} {kind} {}\n", f.digest(r))
        })
        .collect()
}

fn exports_listing(file: &MastFile) -> String {
    let exports = file.exports.as_ref().expect("a library");
    exports
        .iter()
        .filter_map(|e| Some(format!("export {} {}\n", e.path, file.export_digest(e)?)))
        .collect()
}

fn check(name: &str, format: Format, flags: Flags, expected_roots: &str) -> MastFile {
    let bytes = data(name);
    assert_eq!(wire::detect(&bytes).unwrap(), (format, flags), "{name}");
    let file = wire::read(&bytes, DecodeOptions::VERIFY).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(roots_listing(&file), text(expected_roots), "{name}");
    let trusted = wire::read(&bytes, DecodeOptions::TRUST).unwrap();
    assert_eq!(trusted, file, "{name}");
    let again = wire::write(&file.forest, file.exports.as_deref(), format, flags).unwrap();
    assert!(again == bytes, "{name}: rewritten bytes differ");
    file
}

#[test]
fn core_library_0_23_full() {
    let f = check(
        "core-0.23.5.mast",
        Format::V0_23,
        Flags::default(),
        "core-0.23.5.roots",
    );
    assert_eq!(f.forest.isa(), Isa::V0_23);
    assert!(f.forest.debug_info().is_some());
}

#[test]
fn core_library_0_23_stripped() {
    let flags = Flags {
        stripped: true,
        hashless: false,
    };
    check(
        "core-0.23.5.stripped.mast",
        Format::V0_23,
        flags,
        "core-0.23.5.roots",
    );
}

#[test]
fn core_library_0_23_hashless() {
    let flags = Flags {
        stripped: true,
        hashless: true,
    };
    check(
        "core-0.23.5.hashless.mast",
        Format::V0_23,
        flags,
        "core-0.23.5.roots",
    );
}

/// The core library with its debug info cleared by miden-core 0.23.5: a
/// section of empty tables, read as no debug info.
#[test]
fn core_library_0_23_debug_info_cleared() {
    let f = check(
        "core-0.23.5.cleared.mast",
        Format::V0_23,
        Flags::default(),
        "core-0.23.5.roots",
    );
    assert!(f.forest.debug_info().is_none());
}

#[test]
fn core_library_0_24_full() {
    let flags = Flags {
        stripped: true,
        hashless: false,
    };
    let f = check(
        "core-0.24.2.mast",
        Format::V0_24,
        flags,
        "core-0.24.2.roots",
    );
    assert_eq!(f.forest.isa(), Isa::V0_23);
    assert!(f.forest.debug_info().is_none());
}

#[test]
fn core_library_0_24_hashless() {
    let flags = Flags {
        stripped: true,
        hashless: true,
    };
    check(
        "core-0.24.2.hashless.mast",
        Format::V0_24,
        flags,
        "core-0.24.2.roots",
    );
}

/// The core library of miden-core-lib 1.0.0-rc.0, its forest as
/// miden-core 1.0.0-rc.0 writes it: Eidos digests, canonical node order.
#[test]
fn core_library_1_0() {
    for (name, hashless) in [
        ("core-1.0.0-rc.0.mast", false),
        ("core-1.0.0-rc.0.hashless.mast", true),
    ] {
        let flags = Flags {
            stripped: true,
            hashless,
        };
        let f = check(name, Format::V1_0, flags, "core-1.0.0-rc.0.roots");
        assert_eq!(f.forest.isa(), Isa::V1_0);
        assert_eq!(wire::canonicalize(&f.forest).unwrap(), f.forest);
    }
}

/// A forest of every node kind and operation as miden-core 1.0.0-rc.0
/// writes it: its digests are Eidos hashes.
#[test]
fn forest_of_miden_1_0() {
    let flags = Flags {
        stripped: true,
        hashless: false,
    };
    let f = check(
        "nodes-1.0.0-rc.0.mast",
        Format::V1_0,
        flags,
        "nodes-1.0.0-rc.0.roots",
    );
    assert_eq!(f.forest.isa(), Isa::V1_0);
    assert_eq!(f.forest.advice_map().len(), 2);
    let mut kinds: Vec<NodeKind> = f.forest.nodes().iter().map(|n| n.kind()).collect();
    kinds.dedup();
    use NodeKind::*;
    let expected = [
        External, Block, Join, Split, Loop, Call, SysCall, Dyn, DynCall,
    ];
    assert!(expected.iter().all(|k| kinds.contains(k)), "{kinds:?}");
    let has = |op: Operation| {
        f.forest
            .nodes()
            .iter()
            .any(|n| matches!(n, MastNode::Block(b) if b.ops().contains(&op)))
    };
    assert!(has(Operation::Compress) && !has(Operation::HPerm));
    let hashless = check(
        "nodes-1.0.0-rc.0.hashless.mast",
        Format::V1_0,
        Flags {
            stripped: true,
            hashless: true,
        },
        "nodes-1.0.0-rc.0.roots",
    );
    assert_eq!(hashless.forest, f.forest);
}

/// miden-core 0.24 wrote the forest of the 0.23 core library: converting
/// the 0.23 file to 0.24 (dropping its debug info, as asked) gives its bytes,
/// and converting back gives the stripped 0.23 file.
#[test]
fn conversion_between_0_23_and_0_24() {
    let full = wire::read(&data("core-0.23.5.mast"), DecodeOptions::VERIFY).unwrap();
    for hashless in [false, true] {
        let flags = Flags {
            stripped: true,
            hashless,
        };
        let v4 = wire::write(&full.forest, None, Format::V0_24, flags).unwrap();
        let name = if hashless {
            "core-0.24.2.hashless.mast"
        } else {
            "core-0.24.2.mast"
        };
        assert!(v4 == data(name), "{name}");
        let back = wire::read(&v4, DecodeOptions::VERIFY).unwrap();
        let v3 = wire::write(&back.forest, None, Format::V0_23, flags).unwrap();
        let name = if hashless {
            "core-0.23.5.hashless.mast"
        } else {
            "core-0.23.5.stripped.mast"
        };
        assert!(v3 == data(name), "{name}");
    }
    // Written full, the forest without debug info gets miden-core's section
    // of empty tables.
    let v4 = wire::read(&data("core-0.24.2.mast"), DecodeOptions::VERIFY).unwrap();
    let full = wire::write(&v4.forest, None, Format::V0_23, Flags::default()).unwrap();
    assert!(full == data("core-0.23.5.cleared.mast"));
}

/// The library is the full forest followed by its exports: 279 procedures
/// (85 with a signature) and one type.
#[test]
fn core_library_0_23_masl() {
    let masl = data("core-0.23.5.masl");
    let mast = data("core-0.23.5.mast");
    assert_eq!(&masl[..mast.len()], &mast[..]);
    let f = check(
        "core-0.23.5.masl",
        Format::V0_23,
        Flags::default(),
        "core-0.23.5.roots",
    );
    assert_eq!(exports_listing(&f), text("core-0.23.5.exports"));
    let exports = f.exports.as_ref().unwrap();
    assert_eq!(exports.len(), 280);
    assert_eq!(exports.iter().filter(|e| e.signature.is_some()).count(), 85);
    let types: Vec<&str> = exports
        .iter()
        .filter(|e| matches!(e.target, ExportTarget::Type(_)))
        .map(|e| e.path.as_str())
        .collect();
    assert_eq!(types, ["::miden::core::math::u256::u256"]);
    // 0.10 has no signatures: writing one there is a typed error.
    let std = wire::read(&data("std-0.10.5.masl"), DecodeOptions::TRUST).unwrap();
    let mut std_exports = std.exports.clone().unwrap();
    let signed = exports.iter().find(|e| e.signature.is_some()).unwrap();
    std_exports[0].signature = signed.signature.clone();
    let e = wire::write(
        &std.forest,
        Some(&std_exports),
        Format::V0_10,
        Flags::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("signature"), "{e}");
}

/// A library's exports after malformed signatures and types: each refused at
/// its byte.
#[test]
fn core_library_0_23_masl_malformed_exports() {
    let masl = data("core-0.23.5.masl");
    let mast_len = data("core-0.23.5.mast").len();
    let f = wire::read(&masl, DecodeOptions::TRUST).unwrap();
    // The first export with a signature, and where its signature starts.
    let exports = f.exports.as_ref().unwrap();
    let first = exports.iter().position(|e| e.signature.is_some()).unwrap();
    let before = wire::write(
        &f.forest,
        Some(&exports[..first]),
        Format::V0_23,
        Flags::default(),
    )
    .unwrap();
    // The count differs in the prefix written; the records after it do not.
    let count_len = |n: usize| if n < 128 { 1 } else { 2 };
    let record_at = before.len() - count_len(first) + count_len(exports.len());
    let sig_at = record_at + 1 + 2 + exports[first].path.len() + 4 + 1;
    assert_eq!(masl[sig_at - 1], 1, "the signature flag");
    let mut bad = masl.clone();
    bad[sig_at] = 4; // calling convention
    let e = wire::read(&bad, DecodeOptions::TRUST).unwrap_err();
    assert_eq!(
        (e.offset, e.kind),
        (sig_at, DecodeErrorKind::Invalid("calling convention"))
    );
    let mut bad = masl.clone();
    bad[sig_at - 1] = 2; // the signature flag
    let e = wire::read(&bad, DecodeOptions::TRUST).unwrap_err();
    assert_eq!(e.offset, sig_at - 1, "{e}");
    assert!(matches!(e.kind, DecodeErrorKind::BadBool { .. }), "{e}");
    let mut bad = masl.clone();
    bad[record_at] = 3; // no such export
    let e = wire::read(&bad, DecodeOptions::TRUST).unwrap_err();
    assert_eq!(
        (e.offset, e.kind),
        (record_at, DecodeErrorKind::Invalid("export tag"))
    );
    assert!(record_at > mast_len);
}

/// Converting 0.23 → 0.10 → 0.23 is the identity on every tree of the core
/// library that 0.10 can express (no 0.23-only operation, no external node),
/// once the advice map every tree keeps is stripped: 0.10 has none, and
/// refuses a tree with one.
#[test]
fn conversion_through_0_10_is_the_identity() {
    let bytes = data("core-0.23.5.stripped.mast");
    let file = wire::read(&bytes, DecodeOptions::TRUST).unwrap();
    assert_eq!(file.forest.advice_map().len(), 1);
    let flags = Flags {
        stripped: true,
        hashless: false,
    };
    let mut converted = 0;
    for root in file.forest.roots() {
        let mut tree = file.forest.extract(root);
        assert_eq!(tree.advice_map(), file.forest.advice_map(), "root {root}");
        let refusal = wire::convert(&tree, Isa::V0_10).unwrap_err().to_string();
        assert_eq!(
            refusal, "miden 0.10 cannot express an advice map (strip it)",
            "root {root}"
        );
        assert_eq!(tree.strip_advice_map(), file.forest.advice_map());
        let Ok(old) = wire::convert(&tree, Isa::V0_10) else {
            continue;
        };
        let old_bytes = wire::write(&old, None, Format::V0_10, Flags::default()).unwrap();
        let back = wire::read(&old_bytes, DecodeOptions::VERIFY).unwrap();
        let new = wire::convert(&back.forest, Isa::V0_23).unwrap();
        assert_eq!(new, tree, "root {root}");
        assert_eq!(
            wire::write(&new, None, Format::V0_23, flags).unwrap(),
            wire::write(&tree, None, Format::V0_23, flags).unwrap()
        );
        converted += 1;
    }
    assert!(converted > 100, "only {converted} trees converted");
}

/// Every prefix of each file is refused with a typed error (every position
/// of the first KiB, then every 4093rd), and random corruptions give a
/// typed error or a forest, never a panic.
#[test]
fn truncation_and_corruption() {
    for name in [
        "core-0.23.5.mast",
        "core-0.23.5.stripped.mast",
        "core-0.23.5.hashless.mast",
        "core-0.23.5.masl",
        "core-0.23.5.cleared.mast",
        "core-0.24.2.mast",
        "core-0.24.2.hashless.mast",
        "nodes-1.0.0-rc.0.mast",
        "nodes-1.0.0-rc.0.hashless.mast",
        "core-1.0.0-rc.0.mast",
        "core-1.0.0-rc.0.hashless.mast",
        "std-0.10.5.mast",
        "std-0.10.5.masl",
    ] {
        let bytes = data(name);
        let cuts = (0..bytes.len().min(1024)).chain((1024..bytes.len()).step_by(4093));
        for cut in cuts {
            assert!(
                wire::read(&bytes[..cut], DecodeOptions::TRUST).is_err(),
                "{name}: {cut}"
            );
        }
        let mut rng = kildall_testkit::Rng::new(7);
        for _ in 0..16 {
            let mut bad = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bad.len() as u64) as usize;
                bad[at] ^= 1 << rng.below(8);
            }
            let _ = wire::read(&bad, DecodeOptions::VERIFY);
        }
    }
}

#[test]
fn stdlib_0_10() {
    check(
        "std-0.10.5.mast",
        Format::V0_10,
        Flags::default(),
        "std-0.10.5.roots",
    );
}

#[test]
fn stdlib_0_10_masl() {
    let f = check(
        "std-0.10.5.masl",
        Format::V0_10,
        Flags::default(),
        "std-0.10.5.roots",
    );
    assert_eq!(exports_listing(&f), text("std-0.10.5.exports"));
}

/// The core library with attributes on its first procedure and a constant
/// export added reads, and is written back byte for byte.
#[test]
fn library_with_attributes_and_a_constant() {
    let masl = data("core-0.23.5.masl");
    let mast_len = data("core-0.23.5.mast").len();
    let f = wire::read(&masl, DecodeOptions::TRUST).unwrap();
    let first = &f.exports.as_ref().unwrap()[0];
    assert!(first.signature.is_none() && first.attributes.is_none());
    // 280 exports: a two-byte vint64, value << 2 | 0b10.
    let count = |n: u16| (n << 2 | 2).to_le_bytes();
    assert_eq!(masl[mast_len..mast_len + 2], count(280));
    let records = mast_len + 2;
    let attributes_at = records + 1 + 2 + first.path.len() + 4 + 1;
    assert_eq!(masl[attributes_at], 1, "an empty attribute list");

    let mut bytes = masl[..mast_len].to_vec();
    bytes.extend(count(281));
    bytes.extend(&masl[records..attributes_at]);
    bytes.extend([3, 0, 13]);
    bytes.extend(b"inline");
    bytes.extend(&masl[attributes_at + 1..]);
    let path = b"::miden::core::answer";
    bytes.push(1);
    bytes.extend((path.len() as u16).to_le_bytes());
    bytes.extend(path);
    bytes.push(1);
    bytes.extend(42u64.to_le_bytes());

    let f = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
    let exports = f.exports.as_ref().unwrap();
    assert_eq!(
        exports[0].attributes.as_ref().unwrap().bytes(),
        [3, 0, 13, b'i', b'n', b'l', b'i', b'n', b'e']
    );
    let last = exports.last().unwrap();
    assert_eq!(last.path, "::miden::core::answer");
    assert!(matches!(last.target, ExportTarget::Constant(_)));
    assert_eq!(f.export_digest(last), None);
    let again = wire::write(&f.forest, Some(exports), Format::V0_23, f.flags).unwrap();
    assert!(again == bytes, "rewritten bytes differ");
}

/// The nodes of `root`'s tree in `forest`, as `extract` takes them: other
/// roots it reaches are left out (they become external nodes).
fn tree_nodes(forest: &kildall_mast::MastForest, root: MastNodeId) -> Vec<MastNodeId> {
    let (mut seen, mut stack, mut nodes) = (std::collections::HashSet::new(), vec![root], vec![]);
    while let Some(id) = stack.pop() {
        if seen.insert(id) && (id == root || !forest.is_root(id)) {
            nodes.push(id);
            stack.extend(forest.node(id).children());
        }
    }
    nodes
}

/// The instructions of the assembly ops of `nodes`, as text.
fn asm_op_texts(forest: &kildall_mast::MastForest, nodes: &[MastNodeId]) -> Vec<String> {
    let info = forest.debug_info().expect("debug info");
    let mut texts: Vec<String> = nodes
        .iter()
        .flat_map(|&n| info.asm_ops_of(n))
        .map(|(op, a)| format!("{op} {}", forest.strings().get(a.op).unwrap()))
        .collect();
    texts.sort();
    texts
}

/// Every tree extracted from the 0.23 core library keeps the debug info of
/// its nodes: their assembly ops, the messages of the error codes its
/// operations use and nothing of other trees; written in full and read
/// back, it is the same; converted to 0.10, its blocks carry the assembly
/// ops as decorators.
#[test]
fn extracted_trees_keep_their_debug_info() {
    let file = wire::read(&data("core-0.23.5.mast"), DecodeOptions::TRUST).unwrap();
    let forest = &file.forest;
    let messages = forest.debug_info().unwrap().error_messages();
    let (mut with_asm_ops, mut with_messages, mut converted) = (0, 0, 0);
    for root in forest.roots() {
        let tree = forest.extract(root);
        let tree_root = tree.roots().next().unwrap();
        let expected = asm_op_texts(forest, &tree_nodes(forest, root));
        let Some(info) = tree.debug_info() else {
            assert!(expected.is_empty(), "root {root}");
            continue;
        };
        assert_eq!(asm_op_texts(&tree, &tree_nodes(&tree, tree_root)), expected);
        let codes: std::collections::HashSet<u64> = tree
            .nodes()
            .iter()
            .filter_map(|n| match n {
                MastNode::Block(b) => Some(b.ops().iter().filter_map(|op| match op {
                    Operation::Assert(c) | Operation::MpVerify(c) | Operation::U32assert2(c) => {
                        Some(c.as_u64())
                    }
                    _ => None,
                })),
                _ => None,
            })
            .flatten()
            .collect();
        let used: Vec<_> = messages
            .iter()
            .filter(|m| codes.contains(&m.0))
            .cloned()
            .collect();
        assert_eq!(info.error_messages(), used, "root {root}");
        // Converted without the advice map (0.10 has none), the assembly
        // ops of blocks become their decorators.
        let mut without_advice_map = tree.clone();
        without_advice_map.strip_advice_map();
        if let Ok(old) = wire::convert(&without_advice_map, Isa::V0_10) {
            let on_blocks = old.nodes().iter().map(|n| match n {
                MastNode::Block(b) => b.decorators().len(),
                _ => 0,
            });
            assert_eq!(on_blocks.sum::<usize>(), expected.len(), "root {root}");
            converted += 1;
        }
        with_asm_ops += usize::from(!expected.is_empty());
        with_messages += usize::from(!used.is_empty());
        let bytes = wire::write(&tree, None, Format::V0_23, Flags::default()).unwrap();
        let back = wire::read(&bytes, DecodeOptions::VERIFY).unwrap().forest;
        let back_info = back.debug_info().unwrap();
        assert_eq!(asm_op_texts(&back, &tree_nodes(&back, tree_root)), expected);
        assert_eq!(back_info.error_messages(), info.error_messages());
        assert_eq!(back_info.asm_op_placements(), info.asm_op_placements());
    }
    let counts = (with_asm_ops, with_messages, converted);
    assert!(
        counts.0 > 300 && counts.1 > 10 && counts.2 > 100,
        "{counts:?}"
    );
}
