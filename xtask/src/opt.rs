//! `cargo xtask opt FILE [--passes p1,p2] [--emit ir|dot]`: parse, verify,
//! run the passes in order, verify again, print.

use std::path::PathBuf;
use std::process::ExitCode;

use kildall_ir::Module;

use crate::input::{self, Diagnostic};
use crate::run::report;

/// Arguments of `cargo xtask opt`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file.
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

/// A pass the driver can run: its name and what it does to a module,
/// returning a one-line summary for stderr.
pub struct Pass {
    pub name: &'static str,
    pub run: fn(&mut Module) -> String,
}

/// The passes `opt --passes` knows, in the order of the pipeline.
pub const PASSES: &[Pass] = &[];

pub fn find_pass(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|pass| pass.name == name)
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let mut passes = Vec::new();
    for name in cmd.passes.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match find_pass(name) {
            Some(pass) => passes.push(pass),
            None => {
                let known: Vec<_> = PASSES.iter().map(|p| p.name).collect();
                let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                eprintln!("error: unknown pass `{name}`; known passes: {known}");
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    let mut module = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => return Ok(report(diagnostic)),
    };
    for pass in passes {
        let summary = (pass.run)(&mut module);
        eprintln!("{}: {summary}", pass.name);
        if let Err(err) = kildall_ir::verify_module(&module) {
            let message = format!("after pass `{}`: {err}", pass.name);
            return Ok(report(Diagnostic::new(&cmd.file, None, message)));
        }
    }
    match cmd.emit {
        Emit::Ir => print!("{module}"),
        Emit::Dot => print!("{}", crate::dot::cfg(&module)),
    }
    Ok(ExitCode::SUCCESS)
}
