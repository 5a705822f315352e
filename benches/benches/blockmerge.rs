//! Block merging on generated programs of 1,000, 10,000 and 100,000 blocks,
//! default options (threshold at least 1024 constraints). Two mixes: the
//! generator's default (diamonds, counted and while loops, chains, calls,
//! memory, predication: most regions hold a call or a memory operation, so
//! few merge) and `pure` (no calls, no references: most regions merge).
//! Throughput is per block, so criterion reports the time per block; the
//! merges and rounds are printed once per size.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kildall_benches::{bench_pass, total_blocks};
use kildall_blockmerge::{BlockMerge, Options};
use kildall_harness::generate::{generate_cfg, CfgConfig};
use kildall_ir::pass::run_module;

fn bench(c: &mut Criterion) {
    bench_mix(c, "blockmerge", CfgConfig::sized);
    bench_mix(c, "blockmerge-pure", |blocks| {
        CfgConfig {
            calls: 0,
            ..CfgConfig::sized(blocks)
        }
        .no_references()
    });
}

fn bench_mix(c: &mut Criterion, name: &str, config: impl Fn(usize) -> CfgConfig) {
    let mut group = c.benchmark_group(name);
    let options = Options::default();
    for blocks in [1_000usize, 10_000, 100_000] {
        let module = generate_cfg(1, &config(blocks));
        let actual = total_blocks(&module);
        let mut once = module.clone();
        let reports = run_module::<BlockMerge>(&mut once, &options).unwrap().0;
        let after = total_blocks(&once);
        let merges: usize = reports.iter().map(|r| r.merges.len()).sum();
        let rounds = reports.iter().map(|r| r.rounds).max().unwrap_or(0);
        eprintln!(
            "{name} {blocks}: {actual} -> {after} blocks, {merges} merges, at most {rounds} rounds"
        );
        drop(once);
        bench_pass(&mut group, blocks, &module, |mut m| {
            black_box(run_module::<BlockMerge>(&mut m, &options).unwrap().0)
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
