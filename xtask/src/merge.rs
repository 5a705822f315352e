//! `cargo xtask merge FILE [--min-block-size N] [--args "u32 3, Field 5"] [--emit ir|dot|r1cs]
//! [--prove] [--cost threshold|calibrated]`:
//! merges basic blocks (CoBBl's block-merging design) and prints the merged IR on stdout, the
//! report on stderr. With `--args` it also runs `main` before and after and
//! reports executed blocks, transitions and padded constraint cost.
//! `--emit dot` draws the input CFG with each merge component in one colour;
//! `--emit r1cs` prints every merged block's exact constraint system.
//! `--prove` proves the run before and after, one Groth16 proof per executed
//! block, and reports exact constraints, instances, prover time and whether
//! every proof verified. `--cost calibrated` merges a component when a
//! prover-time model fit to measured proofs says its merged block proves no
//! slower than its cheapest run unmerged. `--proof-out RUN.proof` writes the
//! proof of the merged run (`--proof-of before`: of the run before merging)
//! for `cargo xtask verify`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use std::sync::Arc;

use kildall_blockmerge::trace::{trace, TraceCost};
use kildall_blockmerge::{BlockMerge, CostModel, MergeRule, Options, R1cs, WithAccesses};
use kildall_interpreter::{InterpreterOptions, Outcome, RuntimeValue};
use kildall_ir::pass::run_module;
use kildall_ir::{FuncId, Module};
use kildall_r1cs::calibrate::Calibration;
use kildall_r1cs::prove::{prove_trace_reporting, ProofReport};
use kildall_r1cs::trace::{lower_module, record, Trace};

use crate::input::{self, Diagnostic};
use crate::output::count;
use crate::run::report;

/// What `merge` prints on stdout.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The merged module in the text format.
    Ir,
    /// The input CFG as Graphviz DOT, merge components filled in one colour.
    Dot,
    /// Each block's exact constraint system, one constraint a line.
    R1cs,
}

/// How merges are chosen.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum Cost {
    /// The design's rule: merge every component under the threshold.
    Threshold,
    /// A component merges when the calibrated prover-time model says its
    /// merged block proves no slower than its cheapest run unmerged.
    Calibrated,
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
    /// Prove the run before and after merging (needs `--args`).
    #[arg(long, requires = "args")]
    prove: bool,
    /// How merges are chosen.
    #[arg(long, value_enum, default_value_t = Cost::Threshold)]
    cost: Cost,
    /// Write the proof of a run to this file (with `--prove`).
    #[arg(long, requires = "prove")]
    proof_out: Option<PathBuf>,
    /// Which run `--proof-out` writes the proof of.
    #[arg(long, value_enum, default_value_t = ProofOf::After, requires = "proof_out")]
    proof_of: ProofOf,
}

/// The run whose proof `--proof-out` writes.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum ProofOf {
    /// The program as given.
    Before,
    /// The merged program.
    After,
}

/// `module` with its blocks merged as `min_block_size` and `cost` say,
/// and the pass's reports.
pub fn merge_module(
    module: &Module,
    min_block_size: u64,
    cost: Cost,
) -> (Module, Vec<kildall_blockmerge::Report>) {
    let calibration = Calibration::default();
    // The calibrated rule prices memory accesses as the proven memory
    // check measured them.
    let with_accesses = WithAccesses {
        model: Arc::new(R1cs),
        per_access: calibration.per_access_in_constraints(),
    };
    let (rule, cost_model): (_, Arc<dyn CostModel>) = match cost {
        Cost::Threshold => (MergeRule::Threshold, Arc::new(R1cs)),
        Cost::Calibrated => (
            MergeRule::Calibrated {
                per_instance: calibration.per_instance_in_constraints(),
            },
            Arc::new(with_accesses),
        ),
    };
    let mut after = module.clone();
    let options = Options {
        min_block_size,
        rule,
        cost_model,
        ..Options::default()
    };
    let reports = run_module::<BlockMerge>(&mut after, &options).unwrap().0;
    (after, reports)
}

const PALETTE: [&str; 8] = [
    "#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec",
];

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let before = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => return Ok(report(diagnostic)),
    };
    let parsed_args = cmd
        .args
        .as_deref()
        .map(|args| input::args_of(&cmd.file, &before, None, args))
        .transpose()?;
    let mut interp = InterpreterOptions::default();
    if let Some(fuel) = cmd.fuel {
        interp.fuel = fuel;
    }
    let (after, reports) = merge_module(&before, cmd.min_block_size, cmd.cost);
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
                let heads = r.final_heads();
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
        Emit::R1cs => {
            let kinds = match lower_module(&after) {
                Ok(kinds) => kinds,
                Err(err) => return Ok(report(Diagnostic::new(&cmd.file, None, err.to_string()))),
            };
            let mut out = String::new();
            for ((id, block), cs) in &kinds {
                let func = &after.functions[*id];
                let _ = writeln!(
                    out,
                    "fn {} {block}: {} constraints, {} public inputs, {} witnesses, {} memory accesses",
                    func.name,
                    cs.num_constraints(),
                    cs.public_names.len(),
                    cs.witness_names.len(),
                    cs.memory.len()
                );
                let _ = write!(out, "{}", cs.display(func));
            }
            crate::output::emit(&out)?;
        }
    }
    if let Some(args) = parsed_args {
        let Some(main) = before.main() else {
            return Ok(report(Diagnostic::new(
                &cmd.file,
                None,
                "no function to run",
            )));
        };
        let a = trace(&before, main, args.clone(), &interp, &R1cs);
        let b = trace(&after, main, args.clone(), &interp, &R1cs);
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
        if cmd.prove {
            let proof_out = cmd.proof_out.as_ref().map(|p| (p.as_path(), cmd.proof_of));
            return prove(&cmd.file, [&before, &after], main, args, &interp, proof_out);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Proves the run before and after and reports it; exits 1 when a block
/// has no lowering or an instance is not satisfied, 2 when a proof fails to verify.
fn prove(
    file: &std::path::Path,
    modules: [&Module; 2],
    main: FuncId,
    args: Vec<RuntimeValue>,
    interp: &InterpreterOptions,
    proof_out: Option<(&std::path::Path, ProofOf)>,
) -> anyhow::Result<ExitCode> {
    let mut traces = Vec::new();
    for module in modules {
        match record(module, main, args.clone(), interp) {
            Ok(t) => traces.push(t),
            Err(err) => return Ok(report(Diagnostic::new(file, None, err.to_string()))),
        }
    }
    let total = traces.iter().map(|t| t.instances.len() as u64).sum();
    let bar = crate::output::progress(Some(total), "proving {pos}/{len} instances [{elapsed}]");
    let prove_one = |trace: &Trace, before: u64| {
        prove_trace_reporting(trace, &mut |done| bar.set_position(before + done as u64))
    };
    let first = prove_one(&traces[0], 0)?;
    let proofs = [
        first,
        prove_one(&traces[1], traces[0].instances.len() as u64)?,
    ];
    bar.finish_and_clear();
    let per_block = |t: &Trace| {
        t.kinds
            .iter()
            .map(|((_, b), cs)| format!("{b} {}", cs.num_constraints()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ms = crate::output::duration;
    eprintln!(
        "proof (Groth16 over BN254, one per executed block, one of the memory check): before -> after"
    );
    eprintln!("  constraints per block before: {}", per_block(&traces[0]));
    eprintln!("  constraints per block after:  {}", per_block(&traces[1]));
    eprintln!(
        "  largest block:    {} -> {}",
        traces[0].largest(),
        traces[1].largest()
    );
    eprintln!(
        "  total constraints: {} -> {}",
        traces[0].total_constraints(),
        traces[1].total_constraints()
    );
    eprintln!(
        "  memory accesses:  {} -> {}",
        traces[0].memory_accesses, traces[1].memory_accesses
    );
    eprintln!(
        "  instances proven: {} -> {}",
        proofs[0].instances, proofs[1].instances
    );
    eprintln!(
        "  setup:            {} -> {} ({} -> {} block kinds, not in prover time)",
        ms(proofs[0].setup),
        ms(proofs[1].setup),
        proofs[0].kinds,
        proofs[1].kinds
    );
    eprintln!(
        "  prover time:      {} -> {} (blocks and memory check)",
        ms(proofs[0].total_prove()),
        ms(proofs[1].total_prove())
    );
    let memory = |p: &ProofReport| {
        p.memory.as_ref().map_or("none".to_string(), |m| {
            format!(
                "{}, {}, {}",
                count(m.valid_entries as u64, "access"),
                count(m.constraints as u64, "constraint"),
                ms(m.prove)
            )
        })
    };
    eprintln!(
        "  memory check:     {} -> {}",
        memory(&proofs[0]),
        memory(&proofs[1])
    );
    for (which, proof) in ["before", "after"].iter().zip(&proofs) {
        for ((_, block), cost) in &proof.per_kind {
            eprintln!(
                "  {which} {block}: {} x {}, {}",
                count(cost.constraints as u64, "constraint"),
                count(cost.instances as u64, "instance"),
                ms(cost.prove)
            );
        }
    }
    let verified = |p: &ProofReport| {
        let memory = p.memory.as_ref().map_or(0, |m| usize::from(m.verified));
        let proofs = p.instances + usize::from(p.memory.is_some());
        format!("{}/{}", p.verified + memory, proofs)
    };
    eprintln!(
        "  verified:         {} -> {}",
        verified(&proofs[0]),
        verified(&proofs[1])
    );
    if !(proofs[0].all_verified() && proofs[1].all_verified()) {
        eprintln!("error: a proof did not verify");
        return Ok(ExitCode::FAILURE);
    }
    if let Some((path, which)) = proof_out {
        let run = &proofs[usize::from(which == ProofOf::After)].run;
        let bytes = run.encode();
        input::write_file(path, &bytes)?;
        eprintln!(
            "  proof of the run:  {} ({} bytes)",
            path.display(),
            bytes.len()
        );
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
