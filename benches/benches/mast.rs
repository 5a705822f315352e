//! MAST binary format on a generated forest the size of Miden's standard
//! library (about 1,000 nodes, 180,000 operations, 430 KB): encode, decode
//! with digests trusted, decode verifying every digest, and decode the tree
//! of one small root.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kildall_mast::{decode, decode_root, encode, generate, DecodeOptions, GenConfig};

fn bench(c: &mut Criterion) {
    let forest = generate(2024, &GenConfig::stdlib_like());
    let bytes = encode(&forest).expect("forest encodes");
    let ops: usize = forest
        .nodes()
        .iter()
        .filter_map(|n| match n {
            kildall_mast::MastNode::Block(b) => Some(b.ops().len()),
            _ => None,
        })
        .sum();
    eprintln!(
        "forest: {} nodes, {} roots, {ops} operations, {} bytes",
        forest.len(),
        forest.roots().count(),
        bytes.len()
    );
    // A root whose tree is small: the first root that is a plain block.
    let small = forest
        .roots()
        .find(|&r| matches!(forest.node(r), kildall_mast::MastNode::Block(_)))
        .map(|r| forest.digest(r))
        .expect("a block root");

    let mut g = c.benchmark_group("mast");
    g.bench_function("encode", |b| b.iter(|| encode(black_box(&forest))));
    g.bench_function("decode_trusted", |b| {
        b.iter(|| decode(black_box(&bytes), DecodeOptions::TRUST))
    });
    g.sample_size(10);
    g.bench_function("decode_verified", |b| {
        b.iter(|| decode(black_box(&bytes), DecodeOptions::VERIFY))
    });
    g.sample_size(100);
    g.bench_function("extract_one_root_verified", |b| {
        b.iter(|| decode_root(black_box(&bytes), &small, DecodeOptions::VERIFY))
    });
    g.bench_function("extract_one_root_trusted", |b| {
        b.iter(|| decode_root(black_box(&bytes), &small, DecodeOptions::TRUST))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
