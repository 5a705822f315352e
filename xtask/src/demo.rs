//! `cargo xtask demo`: every crate on the bundled examples in `examples/`,
//! one section each, with a before/after that shows what the crate does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kildall_ir::interpreter::{interpret, InterpreterOptions, Outcome};

/// Arguments of `cargo xtask demo`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The examples folder.
    #[arg(long, default_value_os_t = examples_dir())]
    examples: PathBuf,
}

/// `examples/` at the workspace root.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn section(title: &str) {
    println!("\n=== {title} ===");
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    println!("Kildall demo: every crate on the bundled examples in {}", cmd.examples.display());
    section("ir: parse, verify, interpret");
    let mut files: Vec<_> = std::fs::read_dir(cmd.examples.join("ir"))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "ssa"))
        .collect();
    files.sort();
    for file in files {
        let module = crate::input::load(&file).map_err(|d| anyhow::anyhow!("{d}"))?;
        let main = module.main().ok_or_else(|| anyhow::anyhow!("{}: no function", file.display()))?;
        let insts: usize = module.functions.values().map(|f| f.num_insts()).sum();
        let execution = interpret(&module, main, Vec::new(), &InterpreterOptions::default());
        let outcome = match execution.outcome {
            Outcome::Return(values) => format!("returns {}", crate::run::join(&values)),
            Outcome::Trap(trap) => format!("traps: {trap}"),
            Outcome::OutOfFuel => "runs out of fuel".to_string(),
        };
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        println!("{name:<28} {insts:>4} instructions, {:>6} steps, {outcome}", execution.steps);
    }
    Ok(ExitCode::SUCCESS)
}
