//! `cargo xtask run FILE [--function NAME] [--args "u32 3, Field 5"] [--fuel N]`.
//!
//! Prints the returned values on one line in IR constant syntax (exit 0);
//! a run that ends otherwise prints `trap: REASON` (exit 3) or `out of
//! fuel` (exit 4) on stderr, the driver's convention for a program that
//! does not return. What the program `print`s goes to stderr too, so that
//! stdout carries only returned values.

use std::path::PathBuf;
use std::process::ExitCode;

use kildall_interpreter::{interpret, InterpreterOptions, Outcome, RuntimeValue};

use crate::input::{self, Diagnostic};

/// Arguments of `cargo xtask run`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file.
    file: PathBuf,
    /// The function to run (default: `main`, else the first).
    #[arg(long)]
    function: Option<String>,
    /// Arguments in IR constant syntax, comma-separated: "u32 3, Field 5".
    #[arg(long, default_value = "")]
    args: String,
    /// Instructions the run may execute.
    #[arg(long)]
    fuel: Option<u64>,
    /// Do not trap when a noisy value exceeds the noise bound.
    #[arg(long)]
    no_noise_check: bool,
}

/// Exit code of a run that trapped.
pub const EXIT_TRAP: u8 = 3;
/// Exit code of a run that ran out of fuel.
pub const EXIT_OUT_OF_FUEL: u8 = 4;

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let module = input::load(&cmd.file)?;
    let function = input::function(&cmd.file, &module, cmd.function.as_deref())?;
    let args = input::check_args(&cmd.file, &module, function, &cmd.args)?;
    let mut options = InterpreterOptions::default();
    if let Some(fuel) = cmd.fuel {
        options.fuel = fuel;
    }
    options.check_noise = !cmd.no_noise_check;
    let execution = interpret(&module, function, args, &options);
    for line in &execution.output {
        eprintln!("{line}");
    }
    Ok(match execution.outcome {
        Outcome::Return(values) => {
            println!("{}", join(&values));
            ExitCode::SUCCESS
        }
        Outcome::Trap(trap) => {
            eprintln!("trap: {trap}");
            ExitCode::from(EXIT_TRAP)
        }
        Outcome::OutOfFuel => {
            eprintln!("out of fuel");
            ExitCode::from(EXIT_OUT_OF_FUEL)
        }
    })
}

/// Values in IR constant syntax, separated by `, `.
pub fn join(values: &[RuntimeValue]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Prints a diagnostic and gives the bad-input exit code.
pub fn report(diagnostic: Diagnostic) -> ExitCode {
    eprintln!("{diagnostic}");
    ExitCode::FAILURE
}
