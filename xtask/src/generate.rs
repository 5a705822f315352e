//! `cargo xtask gen --seed N [--blocks B] [--insts I] [--kind cfg|noise]`:
//! prints a seeded random program in the text format.
//!
//! `cfg` (the default) is a structured program of about B blocks (default
//! 24) with about I operations per block (default 4): loops, diamonds,
//! calls, references and arrays. `noise` is a noisy expression DAG of about
//! I operations (default 64) with shared values. The same seed and flags
//! print the same program. The fuel bound of `main` goes to stderr with
//! `--fuel`.

use std::io::Write;
use std::process::ExitCode;

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

/// Arguments of `cargo xtask gen`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// About how many blocks (`cfg`).
    #[arg(long)]
    blocks: Option<usize>,
    /// Operations per block (`cfg`) or in total (`noise`).
    #[arg(long)]
    insts: Option<usize>,
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
    let (module, fuel) = match cmd.kind {
        Kind::Cfg => {
            let mut config = CfgConfig::sized(cmd.blocks.unwrap_or(CfgConfig::default().blocks));
            if let Some(insts) = cmd.insts {
                config.insts_per_block = insts;
            }
            generate_cfg_with_fuel(cmd.seed, &config)
        }
        Kind::Noise => {
            let mut config = NoiseConfig::default();
            if let Some(ops) = cmd.insts {
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
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{module}")?;
    out.flush()?;
    if cmd.fuel {
        eprintln!("fuel bound: {fuel}");
    }
    Ok(ExitCode::SUCCESS)
}
