//! MAST forests: the core library of miden-core-lib 0.23.5 as miden-core
//! 0.23.5 serializes it (979,422 bytes, checked in as test data), decoded
//! with digests trusted, decoded with every digest verified (Poseidon2), and
//! encoded; the core library of miden-core-lib 1.0.0-rc.0 likewise (Eidos);
//! the standard library of miden-stdlib 0.10 likewise (RPO256); the trees of
//! every root of the 0.23 core library extracted and encoded in full, their
//! debug-info sections written from memory; and the draft format on a
//! generated forest the size of that standard library, with the decoding of
//! one root's tree.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kildall_mast::wire::{self, MastFile};
use kildall_mast::{decode, decode_root, encode, generate, DecodeOptions, GenConfig};

fn released(name: &str) -> Vec<u8> {
    let path = format!("{}/../mast/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bench_released(c: &mut Criterion, group: &str, file: &str) {
    let bytes = released(file);
    let f: MastFile = wire::read(&bytes, DecodeOptions::VERIFY).expect("the file decodes");
    let mut g = c.benchmark_group(group);
    g.bench_function("decode_trusted", |b| {
        b.iter(|| wire::read(black_box(&bytes), DecodeOptions::TRUST))
    });
    g.bench_function("decode_verified", |b| {
        b.iter(|| wire::read(black_box(&bytes), DecodeOptions::VERIFY))
    });
    g.bench_function("encode", |b| {
        b.iter(|| wire::write(black_box(&f.forest), None, f.format, f.flags))
    });
    g.finish();
}

/// Each root's tree of the 0.23 core library, extracted (with the debug
/// info of its nodes), then encoded in full: the debug-info sections are
/// written from memory, a read forest's being written from its bytes.
fn bench_extracted_trees(c: &mut Criterion) {
    let bytes = released("core-0.23.5.mast");
    let f: MastFile = wire::read(&bytes, DecodeOptions::TRUST).expect("the file decodes");
    let mut g = c.benchmark_group("mast_core_0_23_trees");
    g.bench_function("extract_every_root", |b| {
        b.iter(|| {
            for r in f.forest.roots() {
                black_box(f.forest.extract(r));
            }
        })
    });
    let trees: Vec<_> = f.forest.roots().map(|r| f.forest.extract(r)).collect();
    g.bench_function("encode_every_tree_with_debug_info", |b| {
        b.iter(|| {
            for tree in &trees {
                black_box(wire::write(tree, None, f.format, f.flags).expect("a tree encodes"));
            }
        })
    });
    g.finish();
}

fn bench_draft(c: &mut Criterion) {
    let forest = generate(2024, &GenConfig::stdlib_like());
    let bytes = encode(&forest).expect("forest encodes");
    // A root whose tree is small: the first root that is a plain block.
    let small = forest
        .roots()
        .find(|&r| matches!(forest.node(r), kildall_mast::MastNode::Block(_)))
        .map(|r| forest.digest(r))
        .expect("a block root");
    let mut g = c.benchmark_group("mast_draft");
    g.bench_function("encode", |b| b.iter(|| encode(black_box(&forest))));
    g.bench_function("decode_trusted", |b| {
        b.iter(|| decode(black_box(&bytes), DecodeOptions::TRUST))
    });
    g.sample_size(10);
    g.bench_function("decode_verified", |b| {
        b.iter(|| decode(black_box(&bytes), DecodeOptions::VERIFY))
    });
    g.sample_size(100);
    g.bench_function("extract_one_root_trusted", |b| {
        b.iter(|| decode_root(black_box(&bytes), &small, DecodeOptions::TRUST))
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    bench_released(c, "mast_core_0_23", "core-0.23.5.mast");
    bench_released(c, "mast_core_1_0", "core-1.0.0-rc.0.mast");
    bench_released(c, "mast_std_0_10", "std-0.10.5.mast");
    bench_extracted_trees(c);
    bench_draft(c);
}

criterion_group!(benches, bench);
criterion_main!(benches);
