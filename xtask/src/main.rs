//! `cargo xtask`: the Kildall driver. One subcommand per capability; each
//! lives in its own module and returns the process exit code.
//!
//! Exit codes: 0 on success; 1 on bad input or a failed check (an error of
//! a file printed as `FILE:LINE:COL: message`, or `FILE: message` where
//! there is no position, standard input named `<stdin>`; any other error
//! as `error: message`); 2 on a usage error (clap's); 3 when the program
//! run traps or fails (`trap: REASON`, `fail: MESSAGE` on stderr); 4 when
//! it runs out of fuel or steps.
//!
//! Output goes through one path: the macros below shadow the standard
//! `print!`, `println!`, `eprint!` and `eprintln!` in every module declared
//! after them, and write through [`output`], where a pipe closed by its
//! reader ends the command quietly with exit 0 instead of a panic.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

macro_rules! print {
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!($($arg)*))
    };
}

macro_rules! println {
    () => {
        $crate::output::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!($($arg)*))
    };
}

macro_rules! eprintln {
    () => {
        $crate::output::stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

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
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "The Kildall driver",
    version
)]
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

/// Exit code of a usage error, as clap gives it.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    output::run_to_exit(|| dispatch(cli))
}

fn dispatch(cli: Cli) -> ExitCode {
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
        // An error of a file reads as the file's diagnostics do.
        Err(err) => {
            if let Some(diagnostic) = err.downcast_ref::<input::Diagnostic>() {
                eprintln!("{diagnostic}");
                ExitCode::FAILURE
            } else if let Some(usage) = err.downcast_ref::<input::UsageError>() {
                eprintln!("error: {usage}");
                ExitCode::from(EXIT_USAGE)
            } else {
                eprintln!("error: {err:#}");
                ExitCode::FAILURE
            }
        }
    }
}
