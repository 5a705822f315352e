//! `cargo xtask opt FILE [--passes p1,p2] [--emit ir|dot]`: parse, verify,
//! run the passes in order, verify again, print.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::input::{self, Diagnostic};

/// Arguments of `cargo xtask opt`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file; `-` reads standard input.
    file: PathBuf,
    /// Passes to run, comma-separated, in order (empty: none).
    #[arg(long, default_value = "", value_parser = known_passes)]
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

/// Checks a `--passes` list before any work, so that an unknown name is a
/// usage error (exit 2) naming the flag and the known passes.
pub fn known_passes(list: &str) -> Result<String, String> {
    match kildall_pipeline::parse_pipeline(list) {
        Ok(_) => Ok(list.to_string()),
        Err(name) => Err(format!(
            "unknown pass `{name}`; known passes: {}",
            kildall_pipeline::names()
        )),
    }
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let passes = kildall_pipeline::parse_pipeline(&cmd.passes)
        .map_err(|name| anyhow::anyhow!("--passes: unknown pass `{name}`"))?;
    let mut module = input::load(&cmd.file)?;
    for pass in passes {
        match pass.run(&mut module) {
            Ok(summary) => eprintln!("{}: {summary}", pass.name()),
            Err(err) => return Err(Diagnostic::new(&cmd.file, None, err.to_string()).into()),
        }
        if let Err(err) = kildall_ir::verify_module(&module) {
            let message = format!("after pass `{}`: {err}", pass.name());
            return Err(Diagnostic::new(&cmd.file, None, message).into());
        }
    }
    match cmd.emit {
        Emit::Ir => print!("{module}"),
        Emit::Dot => print!("{}", crate::dot::cfg(&module)),
    }
    Ok(ExitCode::SUCCESS)
}
