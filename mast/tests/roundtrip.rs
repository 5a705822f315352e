//! Round trips text -> forest -> bytes -> forest -> text on the hand-written
//! forests of `tests/data`, with their encodings pinned as golden files
//! (`UPDATE_EXPECT=1` rewrites them), and on generated forests.

use std::path::PathBuf;

use kildall_mast::{
    decode, decode_root, encode, generate, parse, DecodeOptions, GenConfig, Isa, MastNode,
    Operation,
};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Parses `NAME.txt`, round-trips it through both forms, and compares the
/// encoding with `NAME.mast`.
fn check(name: &str) -> kildall_mast::MastForest {
    let text = std::fs::read_to_string(data(&format!("{name}.txt"))).unwrap();
    let forest = parse(&text).unwrap_or_else(|e| panic!("{name}.txt:{e}"));
    let printed = forest.to_string();
    assert_eq!(parse(&printed).unwrap(), forest, "{name}: print/parse");
    let bytes = encode(&forest).unwrap();
    for opts in [DecodeOptions::VERIFY, DecodeOptions::TRUST] {
        let back = decode(&bytes, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, forest, "{name}: encode/decode");
        assert_eq!(back.to_string(), printed);
    }
    kildall_testkit::expect::check_bytes(&data(&format!("{name}.mast")), &bytes)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    forest
}

#[test]
fn all_nodes() {
    let forest = check("all_nodes");
    let kinds: std::collections::BTreeSet<_> = forest.nodes().iter().map(MastNode::kind).collect();
    assert_eq!(kinds.len(), 8, "every node kind is covered");
    assert_eq!(forest.entrypoint().map(|e| e.index()), Some(22));
}

#[test]
fn all_ops() {
    let forest = check("all_ops");
    let used: std::collections::BTreeSet<u8> = forest
        .nodes()
        .iter()
        .filter_map(|n| match n {
            MastNode::Block(b) => Some(b.ops().iter().filter_map(|o| o.opcode_in(Isa::V0_10))),
            _ => None,
        })
        .flatten()
        .collect();
    let all: std::collections::BTreeSet<u8> = Operation::all()
        .filter_map(|o| o.opcode_in(Isa::V0_10))
        .collect();
    assert_eq!(used, all, "every opcode is covered");
}

#[test]
fn library() {
    check("library");
}

#[test]
fn hand_computed_bytes() {
    // `block add` as the only root, laid out by hand from the specification.
    let forest = parse("block add\nroot 0\n").unwrap();
    let bytes = encode(&forest).unwrap();
    let mut want = b"MAST\0\0\0\0".to_vec();
    want.extend([0x01, 0x03, 0x01, 0x00]); // no entrypoint, 1 node, roots {0}, pad
    want.extend([3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // Block, 1 op, 0 decs, offset 0
    for e in [
        7259075614730273379u64,
        2498922176515930900,
        11574583201486131710,
        6285975441353882141,
    ] {
        want.extend(e.to_le_bytes());
    }
    want.extend([0x01, 0, 0, 0]); // no strings, pad to 64
    want.extend([0x05, 0, 34]); // 2 data bytes: Op tag, opcode of `add`
    assert_eq!(bytes, want);
}

#[test]
fn generated_forests_round_trip() {
    for seed in 0..150u64 {
        let cfg = GenConfig {
            nodes: 1 + (seed as usize * 7) % 60,
            entrypoint: seed % 2 == 0,
            ..GenConfig::small()
        };
        let forest = generate(seed, &cfg);
        assert_eq!(forest.verify_digests(), None);
        let text = forest.to_string();
        let reparsed = parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(reparsed.to_string(), text, "seed {seed}");
        let bytes = encode(&forest).unwrap();
        let back = decode(&bytes, DecodeOptions::VERIFY).unwrap();
        assert_eq!(back, forest, "seed {seed}");
        for root in forest.roots() {
            let d = forest.digest(root);
            let first = forest.find_root(&d).unwrap();
            let part = decode_root(&bytes, &d, DecodeOptions::VERIFY).unwrap();
            assert_eq!(part.to_string(), forest.extract(first).to_string());
            // The extracted tree re-encodes and decodes on its own.
            let again = decode(&encode(&part).unwrap(), DecodeOptions::VERIFY).unwrap();
            assert_eq!(again, part);
        }
    }
}

#[test]
fn partial_decoding_turns_other_roots_into_externals() {
    let forest = check("library");
    let bytes = encode(&forest).unwrap();
    let root6 = forest.node_id(6).unwrap();
    let part = decode_root(&bytes, &forest.digest(root6), DecodeOptions::VERIFY).unwrap();
    let externals: Vec<_> = part
        .nodes()
        .iter()
        .filter_map(|n| match n {
            MastNode::External(d) => Some(*d),
            _ => None,
        })
        .collect();
    let d2 = forest.digest(forest.node_id(2).unwrap());
    let d1 = forest.digest(forest.node_id(1).unwrap());
    assert_eq!(externals, vec![d2, d1]);
    let d = |i: usize| forest.digest(forest.node_id(i).unwrap());
    let want = format!(
        "external {}\nexternal {}\nsplit 0 1\ncall 0\njoin 2 3\nroot 4\n",
        d(2),
        d(1)
    );
    assert_eq!(part.to_string(), want);
    assert_eq!(
        part.digest(part.roots().next().unwrap()),
        forest.digest(root6)
    );
    assert!(
        part.strings().is_empty(),
        "strings of other trees are not decoded"
    );
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_checks_digests() {
    let forest = generate(7, &GenConfig::small());
    let json = serde_json::to_string(&forest).unwrap();
    let back: kildall_mast::MastForest = serde_json::from_str(&json).unwrap();
    assert_eq!(back, forest);
    // A tampered digest element is refused.
    let d = forest.digest(forest.node_id(0).unwrap()).as_u64s()[0];
    let tampered = json.replacen(&d.to_string(), &(d ^ 1).to_string(), 1);
    assert!(serde_json::from_str::<kildall_mast::MastForest>(&tampered).is_err());
}

/// The serde form holds a forest's instruction set and advice map: the
/// 0.23 core library (its debug info stripped: the serde form refuses it
/// rather than drop it) comes back equal, and written as 0.24, the same
/// file. A repeated advice key is refused.
#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_keeps_the_isa_and_the_advice_map() {
    use kildall_mast::wire::{self, Flags, Format};
    let bytes = std::fs::read(data("core-0.23.5.mast")).unwrap();
    let mut forest = wire::read(&bytes, DecodeOptions::TRUST).unwrap().forest;
    let e = serde_json::to_string(&forest).unwrap_err();
    assert!(e.to_string().contains("debug info (strip it)"), "{e}");
    assert!(forest.strip_debug_info().is_some());
    assert_eq!(forest.advice_map().len(), 1);
    let json = serde_json::to_string(&forest).unwrap();
    let back: kildall_mast::MastForest = serde_json::from_str(&json).unwrap();
    assert_eq!(back.isa(), Isa::V0_23);
    assert_eq!(back, forest);
    let stripped = Flags {
        stripped: true,
        hashless: false,
    };
    let golden = std::fs::read(data("core-0.24.2.mast")).unwrap();
    assert!(wire::write(&back, None, Format::V0_24, stripped).unwrap() == golden);
    let entry_at = json.find("\"advice_map\":[").unwrap() + "\"advice_map\":[".len();
    let entry = &json[entry_at..json.len() - 2];
    let repeated = format!("{}{entry},{entry}]}}", &json[..entry_at]);
    let e = serde_json::from_str::<kildall_mast::MastForest>(&repeated).unwrap_err();
    assert!(e.to_string().contains("repeats an earlier entry"), "{e}");
}
