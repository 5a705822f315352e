//! Runs the pass on a generated program (the benchmark's inputs), for
//! instruction counts and CPU times of the pass at a given size:
//! `cargo run --release -p kildall-blockmerge --example scale BLOCKS [pure|mixed] [REPEAT|gen]`.
//! With `gen` it only generates the program, so that the instruction
//! counts of the two runs (e.g. under `valgrind --tool=cachegrind`) differ
//! by the pass alone. With `REPEAT` it runs the pass that many times, each
//! on a fresh copy, and prints the fastest and the median run.

use std::time::{Duration, Instant};

use kildall_blockmerge::{run_module, Options};
use kildall_ir::generate::{generate_cfg, CfgConfig};

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
    let mut summary = String::new();
    for _ in 0..repeat {
        let mut copy = module.clone();
        let start = Instant::now();
        let reports = run_module(&mut copy, &Options::default());
        times.push(start.elapsed());
        let after: usize = copy.functions.values().map(|f| f.layout.num_blocks()).sum();
        let merges: usize = reports.iter().map(|r| r.merges.len()).sum();
        summary = format!("{before} -> {after} blocks, {merges} merges");
    }
    times.sort();
    let per_block = |d: Duration| d.as_secs_f64() * 1e9 / before as f64;
    println!(
        "{summary}; fastest {:.0} ns/block, median {:.0} ns/block over {repeat} runs",
        per_block(times[0]),
        per_block(times[times.len() / 2])
    );
}
