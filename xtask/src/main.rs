//! `cargo xtask`: the Kildall driver. One subcommand per capability; each
//! lives in its own module and returns the process exit code.
//!
//! Exit codes: 0 on success; 1 on bad input (a parse or verifier error,
//! printed as `FILE:LINE:COL: message`); the `run` command adds 3 for a trap
//! and 4 for running out of fuel.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod casm;
mod demo;
mod dot;
mod fuzz;
mod generate;
mod input;
mod mast;
mod merge;
mod noise;
mod opt;
mod output;
mod run;
mod verify;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "The Kildall driver", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Interpret an IR program.
    Run(run::Cmd),
    /// Run passes on an IR program and print the result.
    Opt(opt::Cmd),
    /// Run every crate on the bundled examples.
    Demo(demo::Cmd),
    /// Print a seeded random program (structured CFG or noisy DAG).
    Gen(generate::Cmd),
    /// Miden MAST forests: encode, decode, inspect, extract.
    Mast(mast::Cmd),
    /// JuvixReg to Cairo assembly: compile and run.
    Casm(casm::Cmd),
    /// Merge basic blocks into merge components for a per-block prover (CoBBl).
    Merge(merge::Cmd),
    /// Noise analysis of noisy (FHE) arithmetic and fewest reduce_noise placement.
    Noise(noise::Cmd),
    /// Run one fuzz target for a while (libFuzzer or the built-in engine).
    Fuzz(fuzz::Cmd),
    /// Verify a proof of a run (`merge --proof-out`) from the program alone.
    Verify(verify::Cmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(cmd) => run::run(cmd),
        Command::Opt(cmd) => opt::run(cmd),
        Command::Demo(cmd) => demo::run(cmd),
        Command::Gen(cmd) => generate::run(cmd),
        Command::Mast(cmd) => mast::run(cmd),
        Command::Casm(cmd) => casm::run(cmd),
        Command::Merge(cmd) => merge::run(cmd),
        Command::Noise(cmd) => noise::run(cmd),
        Command::Fuzz(cmd) => fuzz::run(cmd),
        Command::Verify(cmd) => verify::run(cmd),
    };
    match result {
        Ok(code) => code,
        Err(err) if output::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
