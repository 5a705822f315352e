//! Malformed inputs in the layouts of miden-core 0.23 and 0.24 (versions
//! `[0,0,3]` and `[0,0,4]`): each is refused with the error and the byte
//! offset it deserves, on a small forest cut from the core library.

use kildall_mast::format::{DecodeError, DecodeErrorKind, DecodeOptions};
use kildall_mast::wire::{self, Flags, Format};
use kildall_mast::MastForest;

const FULL: Flags = Flags {
    stripped: true,
    hashless: false,
};
const HASHLESS: Flags = Flags {
    stripped: true,
    hashless: true,
};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A tree of the core library with several blocks and internal nodes,
/// without the library's advice map (the layouts below expect none).
fn tree() -> MastForest {
    let file = wire::read(&data("core-0.23.5.stripped.mast"), DecodeOptions::TRUST).unwrap();
    let forest = file.forest;
    let root = forest
        .roots()
        .find(|&r| (8..40).contains(&forest.extract(r).len()))
        .expect("a tree of 8 to 40 nodes");
    let mut tree = forest.extract(root);
    tree.strip_advice_map();
    tree
}

/// Reads a `usize` (a `vint64`) at `at`: its value and the offset after it.
fn vint(bytes: &[u8], at: usize) -> (usize, usize) {
    let len = bytes[at].trailing_zeros() as usize + 1;
    let mut le = [0u8; 8];
    le[..len].copy_from_slice(&bytes[at..at + len]);
    ((u64::from_le_bytes(le) >> len) as usize, at + len)
}

/// Where the sections of a `[0,0,3]`/`[0,0,4]` forest start.
struct Layout {
    nodes: usize,
    internal: usize,
    entries_at: usize,
    hashes_at: usize,
    advice_at: usize,
}

fn layout(bytes: &[u8], hashless: bool) -> Layout {
    let (internal, at) = vint(bytes, 8);
    let (external, at) = vint(bytes, at);
    let (roots, at) = vint(bytes, at);
    let (blocks, at) = vint(bytes, at + 4 * roots);
    let entries_at = at + blocks;
    let nodes = internal + external;
    let hashes_at = entries_at + 8 * nodes + 32 * external;
    let advice_at = hashes_at + if hashless { 0 } else { 32 * internal };
    Layout {
        nodes,
        internal,
        entries_at,
        hashes_at,
        advice_at,
    }
}

fn fail(bytes: &[u8], opts: DecodeOptions) -> DecodeError {
    match wire::read(bytes, opts) {
        Ok(_) => panic!("accepted a malformed input"),
        Err(e) => e,
    }
}

fn encoded(format: Format, flags: Flags) -> Vec<u8> {
    wire::write(&tree(), None, format, flags).unwrap()
}

#[test]
fn version_4_round_trips_full_and_hashless() {
    let tree = tree();
    for flags in [FULL, HASHLESS] {
        let bytes = wire::write(&tree, None, Format::V0_24, flags).unwrap();
        assert_eq!(
            &bytes[..8],
            &[b'M', b'A', b'S', b'T', 2 * flags.hashless as u8, 0, 0, 4]
        );
        assert_eq!(wire::detect(&bytes).unwrap(), (Format::V0_24, flags));
        let back = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
        assert_eq!(back.forest, tree, "{flags}");
        assert_eq!(
            wire::write(&back.forest, None, Format::V0_24, flags).unwrap(),
            bytes
        );
    }
}

/// The 0.24 layout is the stripped 0.23 layout with another flags byte and
/// version.
#[test]
fn version_4_is_version_3_stripped_without_its_flag() {
    let v3 = encoded(Format::V0_23, FULL);
    let v4 = encoded(Format::V0_24, FULL);
    assert_eq!((v3[4], v4[4]), (1, 0));
    assert_eq!((v3[7], v4[7]), (3, 4));
    assert_eq!(v3[8..], v4[8..]);
}

#[test]
fn version_4_flags() {
    let bytes = encoded(Format::V0_24, FULL);
    for bad in [0x01, 0x03, 0x04, 0x80] {
        let mut b = bytes.clone();
        b[4] = bad;
        let e = fail(&b, DecodeOptions::TRUST);
        assert_eq!((e.offset, e.kind), (4, DecodeErrorKind::UnknownFlags(bad)));
    }
    // In version 3, hashless requires stripped.
    let mut b = encoded(Format::V0_23, FULL);
    b[4] = 0x02;
    let e = fail(&b, DecodeOptions::TRUST);
    assert_eq!(
        (e.offset, e.kind),
        (4, DecodeErrorKind::Invalid("hashless without stripped"))
    );
}

#[test]
fn unknown_versions() {
    for version in [[0, 0, 1], [0, 0, 2], [0, 0, 6], [1, 0, 0], [255, 255, 255]] {
        let mut b = encoded(Format::V0_24, FULL);
        b[5..8].copy_from_slice(&version);
        let e = fail(&b, DecodeOptions::TRUST);
        assert_eq!(
            (e.offset, e.kind),
            (5, DecodeErrorKind::UnsupportedVersion(version))
        );
    }
}

#[test]
fn version_4_refuses_trailing_bytes() {
    for flags in [FULL, HASHLESS] {
        let mut b = encoded(Format::V0_24, flags);
        let end = b.len();
        b.extend_from_slice(&[0, 0, 0]);
        let e = fail(&b, DecodeOptions::TRUST);
        assert_eq!((e.offset, e.kind), (end, DecodeErrorKind::TrailingBytes(3)));
    }
}

#[test]
fn every_truncation_fails_cleanly() {
    for flags in [FULL, HASHLESS] {
        let bytes = encoded(Format::V0_24, flags);
        for cut in 0..bytes.len() {
            let e = fail(&bytes[..cut], DecodeOptions::VERIFY);
            assert!(e.offset <= cut, "{flags}: cut at {cut}: {e}");
        }
    }
}

#[test]
fn node_entries() {
    let bytes = encoded(Format::V0_24, FULL);
    let l = layout(&bytes, false);
    // An unknown tag in the last entry.
    let last = l.entries_at + 8 * (l.nodes - 1);
    let mut b = bytes.clone();
    b[last + 7] = 0x90;
    let e = fail(&b, DecodeOptions::TRUST);
    assert_eq!(
        (e.offset, e.kind),
        (
            last,
            DecodeErrorKind::UnknownNodeTag {
                node: l.nodes as u32 - 1,
                tag: 9
            }
        )
    );
    // The root (the last node) made a join of itself: a forward reference.
    let mut b = bytes.clone();
    let me = (l.nodes as u64 - 1) << 30 | (l.nodes as u64 - 1);
    b[last..last + 8].copy_from_slice(&me.to_le_bytes());
    let e = fail(&b, DecodeOptions::TRUST);
    assert_eq!(e.offset, last, "{e}");
    assert!(
        matches!(e.kind, DecodeErrorKind::ForwardReference { .. }),
        "{e}"
    );
}

#[test]
fn wrong_digests_are_found_where_they_are_recorded() {
    let bytes = encoded(Format::V0_24, FULL);
    let l = layout(&bytes, false);
    let at = l.hashes_at + 32 * (l.internal - 1);
    let mut b = bytes.clone();
    b[at] ^= 1;
    let e = fail(&b, DecodeOptions::VERIFY);
    assert_eq!(e.offset, at, "{e}");
    assert!(
        matches!(e.kind, DecodeErrorKind::DigestMismatch { node, .. } if node as usize == l.nodes - 1),
        "{e}"
    );
    // Trusted, the recorded digest is taken as it is.
    let trusted = wire::read(&b, DecodeOptions::TRUST).unwrap();
    assert_ne!(trusted.forest, tree());
}

#[test]
fn hashless_rebuilds_every_digest() {
    let full = encoded(Format::V0_24, FULL);
    let hashless = encoded(Format::V0_24, HASHLESS);
    let l = layout(&full, false);
    assert_eq!(
        l.advice_at,
        layout(&hashless, true).advice_at + 32 * l.internal
    );
    let a = wire::read(&full, DecodeOptions::VERIFY).unwrap();
    let b = wire::read(&hashless, DecodeOptions::TRUST).unwrap();
    assert_eq!(a.forest, b.forest);
}

#[test]
fn advice_map() {
    let bytes = encoded(Format::V0_24, FULL);
    let l = layout(&bytes, false);
    assert_eq!(l.advice_at, bytes.len() - 1, "an empty advice map");
    // A count the remaining bytes cannot hold.
    let mut b = bytes.clone();
    b[l.advice_at] = 5 << 1 | 1;
    let e = fail(&b, DecodeOptions::TRUST);
    assert_eq!(e.offset, l.advice_at, "{e}");
    assert!(
        matches!(e.kind, DecodeErrorKind::CountTooLarge { .. }),
        "{e}"
    );
}

/// Debug info left the forest in 0.24: writing a forest that has some is a
/// typed error unless it is asked for stripped.
#[test]
fn debug_info_is_not_dropped_silently() {
    let full = wire::read(&data("core-0.23.5.mast"), DecodeOptions::TRUST).unwrap();
    assert!(full.forest.debug_info().is_some());
    let keep = Flags {
        stripped: false,
        hashless: false,
    };
    let e = wire::write(&full.forest, None, Format::V0_24, keep).unwrap_err();
    assert!(e.to_string().contains("debug info"), "{e}");
    let stripped = wire::write(&full.forest, None, Format::V0_24, FULL).unwrap();
    let back = wire::read(&stripped, DecodeOptions::TRUST).unwrap();
    assert!(back.forest.debug_info().is_none());
}

/// Putting a 0.23 forest in 1.0's canonical node order would misplace its
/// debug info, whose tables index the nodes: a typed error, as long as the
/// order changes.
#[test]
fn canonical_order_does_not_drop_debug_info() {
    let full = wire::read(&data("core-0.23.5.mast"), DecodeOptions::TRUST).unwrap();
    let e = wire::canonicalize(&full.forest).unwrap_err();
    assert!(e.to_string().contains("0.23 debug info"), "{e}");
    let stripped = wire::read(&data("core-0.23.5.stripped.mast"), DecodeOptions::TRUST).unwrap();
    let ordered = wire::canonicalize(&stripped.forest).unwrap();
    assert_ne!(ordered, stripped.forest);
}

/// On a forest large enough for its blocks to be hashed on several threads,
/// the mismatch reported is the first in node order.
#[test]
fn the_first_wrong_digest_is_reported_on_a_large_forest() {
    let bytes = data("core-0.24.2.mast");
    let l = layout(&bytes, false);
    assert_eq!(l.nodes, l.internal, "no external node");
    let mut b = bytes.clone();
    for node in [l.internal - 1, 3, l.internal / 2] {
        b[l.hashes_at + 32 * node] ^= 1;
    }
    let e = fail(&b, DecodeOptions::VERIFY);
    assert_eq!(e.offset, l.hashes_at + 32 * 3, "{e}");
    assert!(
        matches!(e.kind, DecodeErrorKind::DigestMismatch { node: 3, .. }),
        "{e}"
    );
}
