//! Places (or checks) the noise of a generated control-flow program of
//! `BLOCKS` blocks of 10 instructions (`cargo xtask gen --blocks BLOCKS
//! --insts 10`, seed 1), and prints the time and the process's peak memory
//! per instruction, for the growth from 10,000 to 1,000,000 blocks:
//!
//! ```text
//! cargo run --release -p kildall-noise --example noise_scale -- 1000000 place
//! cargo run --release -p kildall-noise --example noise_scale -- 1000000 check
//! ```
//!
//! Time is wall time and CPU time (user and system, from Linux's
//! `/proc/self/stat`), which waiting for a CPU on a loaded machine does not
//! inflate; peak memory is `VmHWM` (Linux only), the generated module
//! included.

use std::time::Instant;

use kildall_harness::generate::{generate_cfg, CfgConfig};
use kildall_ir::pass::{run_module, FunctionAnalyses};
use kildall_noise::{verify, NoisePlacement, Options};
use kildall_testkit::measure::{cpu_seconds, peak_rss_mib};

fn main() {
    let mut args = std::env::args().skip(1);
    let blocks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let check = args.next().as_deref() == Some("check");
    let config = CfgConfig {
        insts_per_block: 10,
        ..CfgConfig::sized(blocks)
    };
    let mut module = generate_cfg(1, &config);
    let insts: usize = module
        .functions
        .values()
        .map(|f| {
            f.layout
                .blocks()
                .map(|b| f.layout.block_insts(b).count() + 1)
                .sum::<usize>()
        })
        .sum();
    let rss_generated = peak_rss_mib().unwrap_or(0.0);
    let (cpu, wall) = (cpu_seconds().unwrap_or(0.0), Instant::now());
    let options = Options::default();
    if check {
        for func in module.functions.values() {
            let mut analyses = FunctionAnalyses::new();
            let input = options.input_level();
            verify(func, &mut analyses, options.params, input).expect("no noisy value");
        }
    } else {
        run_module::<NoisePlacement>(&mut module, &options).expect("placeable");
    }
    let (cpu, wall) = (
        cpu_seconds().unwrap_or(0.0) - cpu,
        wall.elapsed().as_secs_f64(),
    );
    let rss = peak_rss_mib().unwrap_or(0.0);
    println!(
        "{} {blocks} blocks, {insts} instructions: {wall:.2} s wall, {cpu:.2} s CPU \
         ({:.2} µs CPU per instruction); peak {rss:.0} MiB ({rss_generated:.0} MiB after \
         generating; {:.0} bytes per instruction)",
        if check { "check" } else { "place" },
        cpu * 1e6 / insts as f64,
        rss * 1048576.0 / insts as f64,
    );
}
