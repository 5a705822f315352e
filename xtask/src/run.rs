//! `cargo xtask run FILE [--function NAME] [--args "u32 3, Field 5"] [--fuel N]`.
//!
//! Prints the returned values on one line in IR constant syntax (exit 0),
//! `trap: REASON` (exit 3) or `out of fuel` (exit 4). What the program
//! `print`s goes to stderr, so that stdout carries only the outcome.

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
    let module = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => return Ok(report(diagnostic)),
    };
    let function = match &cmd.function {
        Some(name) => module.function_by_name(name),
        None => module.main(),
    };
    let Some(function) = function else {
        let what = cmd.function.as_deref().unwrap_or("main");
        return Ok(report(Diagnostic::new(
            &cmd.file,
            None,
            format!("no function `{what}`"),
        )));
    };
    let args =
        RuntimeValue::parse_list(&cmd.args).map_err(|err| anyhow::anyhow!("--args: {err}"))?;
    let params = module.functions[function].param_types();
    let arity_ok = params.len() == args.len();
    if !arity_ok || args.iter().zip(&params).any(|(arg, ty)| !arg.has_type(ty)) {
        let expected: Vec<String> = params.iter().map(ToString::to_string).collect();
        let message = format!(
            "`{}` takes ({}), given --args \"{}\"",
            module.functions[function].name,
            expected.join(", "),
            cmd.args
        );
        return Ok(report(Diagnostic::new(&cmd.file, None, message)));
    }
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
            crate::output::emit_line(&join(&values))?;
            ExitCode::SUCCESS
        }
        Outcome::Trap(trap) => {
            crate::output::emit_line(&format!("trap: {trap}"))?;
            ExitCode::from(EXIT_TRAP)
        }
        Outcome::OutOfFuel => {
            crate::output::emit_line("out of fuel")?;
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
