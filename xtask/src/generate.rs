//! `cargo xtask gen --seed N [--blocks B] [--insts I] [--kind cfg|noise]`:
//! prints a seeded random program in the text format.
//!
//! `cfg` (the default) is a structured program of about B blocks (default
//! 24) with about I operations per block (default 4): loops, diamonds,
//! calls, references and arrays. `noise` is a noisy expression DAG of about
//! I operations (default 64) with shared values. The same seed and flags
//! print the same program. The fuel bound of `main` goes to stderr with
//! `--fuel`.
//!
//! Sizes are capped so that a program is built in bounded memory: at most
//! [`MAX_BLOCKS`] blocks, [`MAX_OPS`] operations in all, room for the
//! million-block programs the scaling figures use (1,000,000 blocks of 10
//! operations take about 2.6 GB to build). A size past a cap is a usage
//! error.

use std::process::ExitCode;

use crate::input::UsageError;
use kildall_harness::generate::{
    generate_cfg_with_fuel, generate_noise, CfgConfig, NoiseConfig, NoiseControlFlow,
};

/// What kind of program to generate.
#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Kind {
    /// A structured program with loops, calls, references and arrays.
    Cfg,
    /// A noisy expression DAG.
    Noise,
}

/// Control flow around a noisy DAG.
#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum NoiseShape {
    /// One block.
    None,
    /// An if/else joining noisy values.
    Diamond,
    /// A counted loop carrying a noisy value.
    Loop,
}

/// The most blocks of a `cfg` program.
pub const MAX_BLOCKS: usize = 1_000_000;
/// The most operations of a program: blocks times operations per block
/// (`cfg`), or the operations of the DAG (`noise`).
pub const MAX_OPS: usize = 10_000_000;

/// Arguments of `cargo xtask gen`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// About how many blocks (`cfg`; at most 1,000,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_BLOCKS as u64))]
    blocks: Option<u64>,
    /// Operations per block (`cfg`) or in total (`noise`); at most
    /// 4,000,000 operations in all.
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=MAX_OPS as u64))]
    insts: Option<u64>,
    /// The kind of program.
    #[arg(long, value_enum, default_value_t = Kind::Cfg)]
    kind: Kind,
    /// Control flow around a noisy DAG (`noise`).
    #[arg(long, value_enum, default_value_t = NoiseShape::None)]
    shape: NoiseShape,
    /// Also print the fuel bound of `main` to stderr.
    #[arg(long)]
    fuel: bool,
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    // Both values are within their `range` above, so they fit.
    let blocks = cmd.blocks.map(|b| b as usize);
    let insts = cmd.insts.map(|i| i as usize);
    let (module, fuel) = match cmd.kind {
        Kind::Cfg => {
            let mut config = CfgConfig::sized(blocks.unwrap_or(CfgConfig::default().blocks));
            if let Some(insts) = insts {
                config.insts_per_block = insts;
            }
            let ops = config.blocks.saturating_mul(config.insts_per_block);
            if ops > MAX_OPS {
                return Err(UsageError(format!(
                    "--blocks {} --insts {}: {ops} operations, more than the {MAX_OPS} `gen` builds",
                    config.blocks, config.insts_per_block
                ))
                .into());
            }
            generate_cfg_with_fuel(cmd.seed, &config)
        }
        Kind::Noise => {
            let mut config = NoiseConfig::default();
            if let Some(ops) = insts {
                config.ops = ops;
            }
            config.control_flow = match cmd.shape {
                NoiseShape::None => NoiseControlFlow::None,
                NoiseShape::Diamond => NoiseControlFlow::Diamond,
                NoiseShape::Loop => NoiseControlFlow::Loop,
            };
            let fuel = config.fuel_bound();
            (generate_noise(cmd.seed, &config), fuel)
        }
    };
    println!("{module}");
    if cmd.fuel {
        eprintln!("fuel bound: {fuel}");
    }
    Ok(ExitCode::SUCCESS)
}
