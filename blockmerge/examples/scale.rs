//! Runs the pass once on a generated program, for instruction counts of the
//! pass at a given size (the benchmark's inputs):
//! `cargo run --release -p kildall-blockmerge --example scale BLOCKS [pure|mixed] [gen]`.
//! With `gen` it only generates the program, so that the counts of the two
//! runs (e.g. `perf stat -e instructions:u`) differ by the pass alone.

use kildall_blockmerge::{run_module, Options};
use kildall_ir::generate::{generate_cfg, CfgConfig};

fn main() {
    let mut args = std::env::args().skip(1);
    let blocks: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let pure = args.next().as_deref() == Some("pure");
    let only_generate = args.next().as_deref() == Some("gen");
    let config = if pure {
        CfgConfig {
            calls: 0,
            ..CfgConfig::sized(blocks)
        }
        .no_references()
    } else {
        CfgConfig::sized(blocks)
    };
    let mut module = generate_cfg(1, &config);
    let before: usize = module
        .functions
        .values()
        .map(|f| f.layout.num_blocks())
        .sum();
    if only_generate {
        println!("{before} blocks generated");
        return;
    }
    let start = std::time::Instant::now();
    let reports = run_module(&mut module, &Options::default());
    let elapsed = start.elapsed();
    let after: usize = module
        .functions
        .values()
        .map(|f| f.layout.num_blocks())
        .sum();
    let merges: usize = reports.iter().map(|r| r.merges.len()).sum();
    println!(
        "{before} -> {after} blocks, {merges} merges, {:.2} ms, {:.0} ns/block",
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() * 1e9 / before as f64
    );
}
