//! `cargo xtask merge FILE [--min-block-size N] [--args "u32 3, Field 5"] [--emit ir|dot]`:
//! merges basic blocks (CoBBl's block-merging design) and prints the merged IR on stdout, the
//! report on stderr. With `--args` it also runs `main` before and after and
//! reports executed blocks, transitions and padded constraint cost.
//! `--emit dot` draws the input CFG with each merge component in one colour.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use kildall_blockmerge::trace::{trace, TraceCost};
use kildall_blockmerge::{final_heads, run_module, Options, R1cs};
use kildall_ir::interpreter::{InterpreterOptions, Outcome, RuntimeValue};

use crate::input::{self, Diagnostic};
use crate::run::report;

/// What `merge` prints on stdout.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The merged module in the text format.
    Ir,
    /// The input CFG as Graphviz DOT, merge components filled in one colour.
    Dot,
}

/// Arguments of `cargo xtask merge`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file.
    file: PathBuf,
    /// The smallest merge threshold, in constraints.
    #[arg(long, default_value_t = kildall_blockmerge::MIN_BLOCK_SIZE)]
    min_block_size: u64,
    /// Run `main` on these arguments (IR constant syntax, comma-separated)
    /// before and after, and report the execution cost.
    #[arg(long)]
    args: Option<String>,
    /// Instructions each run may execute.
    #[arg(long)]
    fuel: Option<u64>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    emit: Emit,
}

const PALETTE: [&str; 8] = [
    "#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec",
];

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let before = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => return Ok(report(diagnostic)),
    };
    let mut after = before.clone();
    let options = Options {
        min_block_size: cmd.min_block_size,
        ..Options::default()
    };
    let reports = run_module(&mut after, &options);
    for r in &reports {
        eprint!("{r}");
    }
    if let Err(err) = kildall_ir::verify_module(&after) {
        let message = format!("after merging: {err}");
        return Ok(report(Diagnostic::new(&cmd.file, None, message)));
    }
    match cmd.emit {
        Emit::Ir => crate::output::emit(&after.to_string())?,
        Emit::Dot => {
            let mut out = String::from(
                "digraph cfg {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n",
            );
            for ((id, function), r) in before.functions.iter().zip(&reports) {
                let _ = writeln!(
                    out,
                    "  subgraph cluster_{id} {{\n    label=\"fn {} {id}\";",
                    function.name
                );
                let heads = final_heads(r);
                let mut colours = std::collections::HashMap::new();
                let fill = |block| {
                    let head = heads.get(&block)?;
                    let n = colours.len();
                    let colour = *colours.entry(*head).or_insert(PALETTE[n % PALETTE.len()]);
                    Some(colour.to_string())
                };
                let fill = std::cell::RefCell::new(fill);
                crate::dot::draw_function(&mut out, &id.to_string(), function, |b| {
                    (fill.borrow_mut())(b)
                });
                out.push_str("  }\n");
            }
            out.push_str("}\n");
            crate::output::emit(&out)?;
        }
    }
    if let Some(args) = &cmd.args {
        let args =
            RuntimeValue::parse_list(args).map_err(|err| anyhow::anyhow!("--args: {err}"))?;
        let Some(main) = before.main() else {
            return Ok(report(Diagnostic::new(
                &cmd.file,
                None,
                "no function to run",
            )));
        };
        let mut interp = InterpreterOptions::default();
        if let Some(fuel) = cmd.fuel {
            interp.fuel = fuel;
        }
        let a = trace(&before, main, args.clone(), &interp, &R1cs);
        let b = trace(&after, main, args, &interp, &R1cs);
        eprintln!("run of main:      before -> after");
        eprintln!("  outcome:         {} -> {}", outcome(&a), outcome(&b));
        eprintln!(
            "  executed blocks: {} -> {}",
            a.executed_blocks, b.executed_blocks
        );
        eprintln!("  transitions:     {} -> {}", a.transitions, b.transitions);
        eprintln!("  padded cost:     {} -> {}", a.padded_cost, b.padded_cost);
        if outcome(&a) != outcome(&b) || a.execution.output != b.execution.output {
            eprintln!("error: the merged program behaves differently");
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn outcome(t: &TraceCost) -> String {
    match &t.execution.outcome {
        Outcome::Return(values) => crate::run::join(values),
        Outcome::Trap(trap) => format!("trap: {}", trap.kind),
        Outcome::OutOfFuel => "out of fuel".to_string(),
    }
}
