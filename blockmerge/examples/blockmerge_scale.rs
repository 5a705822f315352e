//! Runs the pass on a generated program (the benchmark's inputs), for
//! instruction counts and CPU times of the pass at a given size:
//! `cargo run --release -p kildall-blockmerge --example blockmerge_scale BLOCKS [pure|mixed] [REPEAT|gen]`.
//! With `gen` it only generates the program, so that the instruction
//! counts of the two runs (e.g. under `valgrind --tool=cachegrind`) differ
//! by the pass alone. With `REPEAT` it runs the pass that many times, each
//! on a fresh copy, and prints the fastest and the median run in wall
//! time, and the mean time the thread spent on a CPU (Linux's
//! `/proc/thread-self/schedstat`, updated at scheduler ticks: a mean over
//! many runs), which the time spent waiting for a CPU on a loaded machine
//! does not inflate.

use std::time::{Duration, Instant};

use kildall_blockmerge::{BlockMerge, Options};
use kildall_harness::generate::{generate_cfg, CfgConfig};
use kildall_ir::pass::run_module;

/// Nanoseconds this thread has run on a CPU (0 where the kernel does not
/// say).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let blocks: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let pure = args.next().as_deref() == Some("pure");
    let last = args.next();
    let only_generate = last.as_deref() == Some("gen");
    let repeat: usize = last.and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let config = if pure {
        CfgConfig {
            calls: 0,
            ..CfgConfig::sized(blocks)
        }
        .no_references()
    } else {
        CfgConfig::sized(blocks)
    };
    let module = generate_cfg(1, &config);
    let before: usize = module
        .functions
        .values()
        .map(|f| f.layout.num_blocks())
        .sum();
    if only_generate {
        println!("{before} blocks generated");
        return;
    }
    let mut times: Vec<Duration> = Vec::new();
    let mut cpu: Vec<u64> = Vec::new();
    let mut summary = String::new();
    for _ in 0..repeat {
        let mut copy = module.clone();
        let (start, cpu_start) = (Instant::now(), cpu_ns());
        let reports = run_module::<BlockMerge>(&mut copy, &Options::default())
            .unwrap()
            .0;
        times.push(start.elapsed());
        cpu.push(cpu_ns() - cpu_start);
        let after: usize = copy.functions.values().map(|f| f.layout.num_blocks()).sum();
        let merges: usize = reports.iter().map(|r| r.merges.len()).sum();
        summary = format!("{before} -> {after} blocks, {merges} merges");
    }
    times.sort();
    let per_block = |d: Duration| d.as_secs_f64() * 1e9 / before as f64;
    let cpu_mean = cpu.iter().sum::<u64>() as f64 / (repeat * before) as f64;
    println!(
        "{summary}; wall: fastest {:.0} ns/block, median {:.0}; CPU: mean {cpu_mean:.0} ns/block ({repeat} runs)",
        per_block(times[0]),
        per_block(times[times.len() / 2]),
    );
}
