//! mem2reg on generated programs of 10,000, 100,000 and 1,000,000 blocks
//! (diamonds, counted and while loops, references stored in references and
//! in arrays of references, calls, predication). Throughput is per block, so
//! criterion reports the time per block; the pass's statistics and the
//! process's peak resident memory (VmHWM) are printed once per size (it
//! holds two copies of the module while measuring: the input and the
//! clone being optimised; `mem2reg/examples/mem2reg_scale.rs` measures the pass
//! alone on one copy).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kildall_benches::{bench_pass, peak_rss_mib, total_blocks};
use kildall_harness::generate::{generate_cfg, CfgConfig};
use kildall_ir::pass::run_module;
use kildall_ir::Module;
use kildall_mem2reg::Mem2Reg;

fn program(blocks: usize) -> Module {
    let config = CfgConfig {
        memory: 8,
        nested_references: 2,
        reference_arrays: 2,
        ..CfgConfig::sized(blocks)
    };
    generate_cfg(1, &config)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("mem2reg");
    for blocks in [10_000usize, 100_000, 1_000_000] {
        let module = program(blocks);
        let actual = total_blocks(&module);
        let mut once = module.clone();
        let stats = run_module::<Mem2Reg>(&mut once, &Default::default()).unwrap();
        eprintln!(
            "mem2reg {blocks}: {actual} blocks, {stats}, {:.3} visits per block of each solve, peak RSS {:.0} MiB",
            stats.solver_visits as f64 / stats.solved_blocks.max(1) as f64,
            peak_rss_mib()
        );
        drop(once);
        // The module is returned, so that freeing it (about a second at a
        // million blocks) happens after the clock stops: it is not the
        // pass's cost.
        bench_pass(&mut group, blocks, &module, |mut m| {
            let stats = run_module::<Mem2Reg>(&mut m, &Default::default()).unwrap();
            black_box((m, stats))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
