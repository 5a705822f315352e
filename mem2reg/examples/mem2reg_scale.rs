//! Runs mem2reg on a generated program of N blocks (default 1,000,000) and
//! prints the time, the statistics and the process's peak resident memory.
//!
//! ```text
//! cargo run --release -p kildall-mem2reg --example mem2reg_scale -- 1000000
//! cargo run --release -p kildall-mem2reg --example mem2reg_scale -- 10000 20
//! ```
//!
//! The optional second argument runs the pass that many times (on copies)
//! and reports the mean time; the statistics are those of one run.

use std::time::Instant;

use kildall_harness::generate::{generate_cfg, CfgConfig};
use kildall_ir::pass::run_module;
use kildall_ir::InstructionData;
use kildall_mem2reg::Mem2Reg;
use kildall_testkit::measure::{cpu_seconds, peak_rss_mib};

fn main() {
    let blocks: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let config = CfgConfig {
        memory: 8,
        nested_references: 2,
        reference_arrays: 2,
        ..CfgConfig::sized(blocks)
    };
    let start = Instant::now();
    let mut module = generate_cfg(1, &config);
    let generated = start.elapsed();
    let count = |m: &kildall_ir::Module| -> (usize, usize) {
        let mut blocks = 0;
        let mut loads = 0;
        for f in m.functions.values() {
            blocks += f.layout.num_blocks();
            for b in f.layout.blocks() {
                loads += f
                    .layout
                    .block_insts(b)
                    .filter(|&i| matches!(f.dfg[i], InstructionData::Load { .. }))
                    .count();
            }
        }
        (blocks, loads)
    };
    let (nblocks, loads_before) = count(&module);
    let rss_before = peak_rss_mib().unwrap_or(0.0);
    let cpu_before = cpu_seconds().unwrap_or(0.0);
    // Small programs run several times on copies (the second argument), so
    // that the 10 ms ticks of the CPU clock do not dominate.
    let repeat: u32 = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1)
        .max(1);
    let copies: Vec<kildall_ir::Module> = (1..repeat).map(|_| module.clone()).collect();
    let cpu_before = if repeat > 1 {
        cpu_seconds().unwrap_or(0.0)
    } else {
        cpu_before
    };
    let start = Instant::now();
    for mut copy in copies {
        run_module::<Mem2Reg>(&mut copy, &Default::default()).unwrap();
    }
    let stats = run_module::<Mem2Reg>(&mut module, &Default::default()).unwrap();
    let elapsed = start.elapsed() / repeat;
    let cpu = (cpu_seconds().unwrap_or(0.0) - cpu_before) / f64::from(repeat);
    let (_, loads_after) = count(&module);
    println!("blocks: {nblocks} (generated in {generated:.2?})");
    println!(
        "mem2reg: {elapsed:.2?} ({:.0} ns/block)",
        elapsed.as_nanos() as f64 / nblocks as f64
    );
    println!(
        "mem2reg CPU time: {cpu:.2} s ({:.1} µs/block)",
        cpu * 1e6 / nblocks as f64
    );
    println!("{stats}, rounds: {}", stats.rounds);
    println!(
        "solver visits per block: {:.2} ({:.3} per block of each solve)",
        stats.solver_visits as f64 / nblocks as f64,
        stats.solver_visits as f64 / stats.solved_blocks.max(1) as f64
    );
    println!(
        "loads: {loads_before} -> {loads_after} ({:.1}% removed)",
        100.0 * (loads_before - loads_after) as f64 / loads_before.max(1) as f64
    );
    println!(
        "peak RSS: {rss_before:.0} MiB after generation, {:.0} MiB after the pass",
        peak_rss_mib().unwrap_or(0.0)
    );
}
