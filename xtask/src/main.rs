//! `cargo xtask`: the Kildall driver. One subcommand per capability; each
//! lives in its own module and returns the process exit code.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod casm;
mod mast;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "The Kildall driver", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Miden MAST forests: encode, decode, inspect, extract.
    Mast(mast::Cmd),
    /// JuvixReg to Cairo assembly: compile and run.
    Casm(casm::Cmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mast(cmd) => mast::run(cmd),
        Command::Casm(cmd) => casm::run(cmd),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
