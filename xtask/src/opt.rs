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
/// returning a one-line summary for stderr, or why it could not run.
pub struct Pass {
    pub name: &'static str,
    pub run: fn(&mut Module) -> Result<String, String>,
}

/// The passes `opt --passes` knows.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "mem2reg",
        run: |module| Ok(kildall_mem2reg::run_module(module).to_string()),
    },
    Pass {
        name: "blockmerge",
        run: |module| {
            let reports = kildall_blockmerge::run_module(module, &Default::default());
            Ok(kildall_blockmerge::summarize(&reports))
        },
    },
    Pass {
        name: "noise",
        run: |module| {
            let options = kildall_noise::Options::default();
            let mut inserted = 0;
            for function in module.functions.values_mut() {
                let placement = kildall_noise::optimize(function, &options)
                    .map_err(|err| format!("in function `{}`: {err}", function.name))?;
                inserted += placement.count;
            }
            Ok(format!("reduce_noise inserted: {inserted}"))
        },
    },
];

pub fn find_pass(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|pass| pass.name == name)
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let mut passes = Vec::new();
    for name in cmd
        .passes
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        match find_pass(name) {
            Some(pass) => passes.push(pass),
            None => {
                let known: Vec<_> = PASSES.iter().map(|p| p.name).collect();
                let known = if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
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
        match (pass.run)(&mut module) {
            Ok(summary) => eprintln!("{}: {summary}", pass.name),
            Err(message) => {
                let message = format!("pass `{}`: {message}", pass.name);
                return Ok(report(Diagnostic::new(&cmd.file, None, message)));
            }
        }
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
