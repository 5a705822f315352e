//! `cargo xtask opt FILE [--passes p1,p2] [--emit ir|dot]`: parse, verify,
//! run the passes in order, verify again, print.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::input::{self, Diagnostic};
use crate::output;
use crate::run::report;

/// Arguments of `cargo xtask opt`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file; `-` reads standard input.
    file: PathBuf,
    /// Passes to run, comma-separated, in order (empty: none).
    #[arg(long, default_value = "")]
    passes: String,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    emit: Emit,
}

/// The output of `opt`.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The module in the text format.
    Ir,
    /// The control-flow graph of every function, as Graphviz DOT.
    Dot,
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let passes = match kildall_pipeline::parse_pipeline(&cmd.passes) {
        Ok(passes) => passes,
        Err(name) => {
            eprintln!(
                "error: unknown pass `{name}`; known passes: {}",
                kildall_pipeline::names()
            );
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut module = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => return Ok(report(diagnostic)),
    };
    for pass in passes {
        match pass.run(&mut module) {
            Ok(summary) => eprintln!("{}: {summary}", pass.name()),
            Err(err) => return Ok(report(Diagnostic::new(&cmd.file, None, err.to_string()))),
        }
        if let Err(err) = kildall_ir::verify_module(&module) {
            let message = format!("after pass `{}`: {err}", pass.name());
            return Ok(report(Diagnostic::new(&cmd.file, None, message)));
        }
    }
    match cmd.emit {
        Emit::Ir => output::emit(&module.to_string())?,
        Emit::Dot => output::emit(&crate::dot::cfg(&module))?,
    }
    Ok(ExitCode::SUCCESS)
}
