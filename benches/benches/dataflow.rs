//! Dominators, post-dominators and liveness on generated structured
//! functions of about 10,000, 100,000 and 1,000,000 instructions. Throughput is
//! per instruction, so criterion reports the time per instruction; the
//! liveness solver's block visits per block are printed next to the
//! deepest loop nesting.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kildall_dataflow::liveness;
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominatorTree, PostDominatorTree};
use kildall_ir::generate::{generate_cfg, CfgConfig};
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::Function;

/// Instructions per block of `main` in the configuration below, measured,
/// to size the programs by instructions.
const INSTS_PER_BLOCK: usize = 7;

/// `main` of a generated structured program of about `insts` instructions:
/// straight-line arithmetic and memory, diamonds joining values in block
/// parameters, counted and while loops nested up to depth 3; one function,
/// so that all of it is in the function analysed.
fn generate(insts: usize, seed: u64) -> Function {
    let config = CfgConfig {
        functions: 1,
        calls: 0,
        max_depth: 3,
        ..CfgConfig::sized(insts / INSTS_PER_BLOCK)
    };
    let mut module = generate_cfg(seed, &config);
    let main = module.main().expect("a main function");
    std::mem::replace(&mut module.functions[main], Function::new("main"))
}

fn analyses(c: &mut Criterion) {
    for &size in &[10_000usize, 100_000, 1_000_000] {
        let func = generate(size, 0x5eed ^ size as u64);
        let n = func.num_insts() as u64;
        let mut cfg = ControlFlowGraph::with_function(&func);
        let mut dt = DominatorTree::with_cfg(&cfg);
        let mut pdt = PostDominatorTree::with_cfg(&cfg);
        let mut loops = LoopAnalysis::new();
        loops.compute(&func, &cfg, &dt);
        let max_depth = loops.loops().map(|l| loops.depth(l)).max().unwrap_or(0);
        let stats = *liveness(&func).stats();
        eprintln!(
            "dataflow/{n} insts, {} blocks, {} loops, max loop depth {max_depth}: liveness {} visits, {:.3} visits/block, {} sweeps",
            stats.blocks,
            loops.num_loops(),
            stats.block_visits,
            stats.visits_per_block(),
            stats.sweeps
        );

        let mut group = c.benchmark_group("dataflow");
        group.throughput(Throughput::Elements(n));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(if size >= 1_000_000 { 8 } else { 2 }));
        group.bench_with_input(BenchmarkId::new("cfg", n), &func, |b, func| {
            b.iter(|| cfg.compute(black_box(func)))
        });
        group.bench_with_input(BenchmarkId::new("dominators", n), &cfg, |b, cfg| {
            b.iter(|| dt.compute(black_box(cfg)))
        });
        group.bench_with_input(BenchmarkId::new("post_dominators", n), &cfg, |b, cfg| {
            b.iter(|| pdt.compute(black_box(cfg)))
        });
        group.bench_with_input(BenchmarkId::new("liveness", n), &func, |b, func| {
            b.iter(|| liveness(black_box(func)).stats().block_visits)
        });
        group.finish();
    }
}

criterion_group!(benches, analyses);
criterion_main!(benches);
