//! `cargo xtask opt FILE [--passes p1,p2] [--emit ir|dot]`: parse, verify,
//! run the passes in order, verify again, print.
//!
//! The output of the last pass is checked and printed a function at a
//! time, on the thread that finished the function: on a module with one
//! large function, the others' output is ready by the time the pass is
//! done with it. Nothing is printed unless all of it verified.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use kildall_ir::pass::ModulePass;
use kildall_ir::{EntityRef, FuncId, Function, Module, ModuleVerifier, VerifierError};

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
    let Some((&last, earlier)) = passes.split_last() else {
        print!("{}", render(&module, cmd.emit));
        return Ok(ExitCode::SUCCESS);
    };
    for &pass in earlier {
        run_pass(pass, &mut module, &cmd.file, &|_, _| {})?;
        verify_after(pass, &module, &cmd.file)?;
    }
    match cmd.emit {
        Emit::Ir => {
            let functions = run_last(last, &mut module, &cmd.file)?;
            print!("{}", module.display_with(&functions));
        }
        Emit::Dot => {
            run_pass(last, &mut module, &cmd.file, &|_, _| {})?;
            verify_after(last, &module, &cmd.file)?;
            print!("{}", render(&module, cmd.emit));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `pass` on `module`, reporting on standard error; `then` sees each
/// function as the pass finishes it.
fn run_pass(
    pass: &dyn ModulePass,
    module: &mut Module,
    file: &Path,
    then: &(dyn Fn(FuncId, &Function) + Sync),
) -> Result<(), Diagnostic> {
    match pass.run_then(module, then) {
        Ok(summary) => {
            eprintln!("{}: {summary}", pass.name());
            Ok(())
        }
        Err(err) => Err(Diagnostic::new(file, None, err.to_string())),
    }
}

/// Checks the whole module after `pass`.
fn verify_after(pass: &dyn ModulePass, module: &Module, file: &Path) -> Result<(), Diagnostic> {
    kildall_ir::verify_module(module).map_err(|err| after_pass(pass, file, err))
}

/// A verifier error in the output of `pass`.
fn after_pass(pass: &dyn ModulePass, file: &Path, err: VerifierError) -> Diagnostic {
    let message = format!("after pass `{}`: {err}", pass.name());
    Diagnostic::new(file, None, message)
}

/// Runs the last pass, checking and printing each function on the thread
/// that finished it, so that the output of the small functions is ready
/// while the pass still runs on the large ones. Returns the functions'
/// texts once every one verified; otherwise the first error in module
/// order, as [`kildall_ir::verify_module`] reports it.
fn run_last(
    pass: &dyn ModulePass,
    module: &mut Module,
    file: &Path,
) -> Result<Vec<String>, Diagnostic> {
    let verifier = ModuleVerifier::new(module).map_err(|err| after_pass(pass, file, err))?;
    let outputs: Vec<OnceLock<Output>> = module.functions.keys().map(|_| OnceLock::new()).collect();
    run_pass(pass, module, file, &|id, func| {
        // The pass finishes each function once.
        let _ = outputs[id.index()].set(check_and_print(&verifier, id, func));
    })?;
    if !verifier.describes(module) {
        // A signature or a global changed under the checks made on the way.
        verify_after(pass, module, file)?;
        let functions = module.functions.iter();
        return Ok(functions
            .map(|(id, func)| func.display(id).to_string())
            .collect());
    }
    let mut functions = Vec::with_capacity(outputs.len());
    for ((id, func), output) in module.functions.iter().zip(outputs) {
        let (checked, text) = output
            .into_inner()
            .unwrap_or_else(|| check_and_print(&verifier, id, func));
        checked.map_err(|err| after_pass(pass, file, err))?;
        functions.push(text);
    }
    Ok(functions)
}

/// A function's check, and its text.
type Output = (Result<(), VerifierError>, String);

/// Functions of at least this many instructions are checked on a thread of
/// their own while they are printed.
const LARGE_FUNCTION: usize = 1 << 14;

/// Verifies function `id` and prints it: a large function is checked on a
/// thread of its own while it is printed, which takes longer.
fn check_and_print(verifier: &ModuleVerifier, id: FuncId, func: &Function) -> Output {
    let print = || func.display(id).to_string();
    if func.dfg.num_insts() < LARGE_FUNCTION {
        return (verifier.verify_function(id, func, 1), print());
    }
    let (text, checked) =
        kildall_ir::parallel::join(print, || verifier.verify_function(id, func, 1));
    (checked, text)
}

/// The whole module as `emit` asks.
fn render(module: &Module, emit: Emit) -> String {
    match emit {
        Emit::Ir => module.to_string(),
        Emit::Dot => crate::dot::cfg(module),
    }
}
