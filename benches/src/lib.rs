//! Shared helpers for the criterion benchmarks in `benches/benches/`.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, BenchmarkId, Throughput};
use kildall_ir::Module;

/// Blocks in all the functions of `module`: the unit of throughput of the
/// pass benchmarks.
pub fn total_blocks(module: &Module) -> usize {
    module
        .functions
        .values()
        .map(|f| f.layout.num_blocks())
        .sum()
}

/// Times `pass` on `module` (generated for `blocks` blocks) as the benchmark
/// `blocks` of `group`: a fresh clone per iteration, the module's blocks as
/// the throughput, and samples by size. What `pass` returns is dropped
/// after the clock stops.
pub fn bench_pass<R>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    blocks: usize,
    module: &Module,
    mut pass: impl FnMut(Module) -> R,
) {
    group.throughput(Throughput::Elements(total_blocks(module) as u64));
    let (samples, time) = sampling(blocks);
    group.sample_size(samples).measurement_time(time);
    group.bench_with_input(BenchmarkId::from_parameter(blocks), module, |b, module| {
        b.iter_batched(|| module.clone(), &mut pass, BatchSize::PerIteration)
    });
}

/// Samples and measurement time for a pass benchmark on `blocks` blocks:
/// large inputs get fewer, longer samples, so that the suite stays within
/// minutes.
fn sampling(blocks: usize) -> (usize, Duration) {
    match blocks {
        b if b >= 1_000_000 => (10, Duration::from_secs(60)),
        b if b >= 100_000 => (10, Duration::from_secs(20)),
        _ => (20, Duration::from_secs(10)),
    }
}

/// The peak resident memory of this process so far, in MiB: `VmHWM` of
/// `/proc/self/status`, 0 where there is no such file.
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_owned();
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}
