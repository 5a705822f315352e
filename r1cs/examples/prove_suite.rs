//! Proves the suite of `examples/blockmerge` before and after merging and
//! prints the README's table: blocks, exact constraints of the largest
//! block (and the cost model's estimate), executed instances, memory
//! accesses and memory-check entries, median prover time (block
//! instances and memory check) of RUNS runs before, after the threshold
//! rule and after the calibrated choice; then the calibration fit on the
//! unmerged runs and their memory checks.
//!
//! `cargo run --release -p kildall-r1cs --features prove --example prove_suite [RUNS]`

use std::time::Duration;

use kildall_blockmerge::{largest_block, BlockMerge, MergeRule, Options, R1cs, WithAccesses};
use kildall_interpreter::{InterpreterOptions, RuntimeValue};
use kildall_ir::pass::run_module;
use kildall_ir::Module;
use kildall_r1cs::calibrate::Calibration;
use kildall_r1cs::prove::{prove_trace, ProofReport};
use kildall_r1cs::trace::{record, Trace};

fn merged(module: &Module, min_block_size: Option<u64>) -> Module {
    let mut out = module.clone();
    if let Some(min_block_size) = min_block_size {
        let options = Options {
            min_block_size,
            ..Options::default()
        };
        run_module::<BlockMerge>(&mut out, &options).unwrap();
    }
    out
}

/// What `cargo xtask merge --cost calibrated` does: the pass's calibrated
/// rule, with memory accesses priced.
fn calibrated(module: &Module) -> Module {
    let mut out = module.clone();
    let calibration = Calibration::default();
    let model = WithAccesses {
        model: std::sync::Arc::new(R1cs),
        per_access: calibration.per_access_in_constraints(),
    };
    let options = Options {
        rule: MergeRule::Calibrated {
            per_instance: calibration.per_instance_in_constraints(),
        },
        cost_model: std::sync::Arc::new(model),
        ..Options::default()
    };
    run_module::<BlockMerge>(&mut out, &options).unwrap();
    out
}

/// The median total prover time (blocks and memory check) of `runs`
/// proofs, with the median memory-check time and the last report.
fn median_prove(trace: &Trace, runs: usize) -> (Duration, Duration, ProofReport) {
    let mut totals = Vec::new();
    let mut memory = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let report = prove_trace(trace).unwrap();
        assert!(report.all_verified());
        totals.push(report.total_prove());
        memory.push(report.memory.as_ref().map_or(Duration::ZERO, |m| m.prove));
        last = Some(report);
    }
    totals.sort();
    memory.sort();
    (totals[runs / 2], memory[runs / 2], last.unwrap())
}

/// The median time of `runs` verifications of `report`'s proof of a run
/// of `module` (keys set up before, by a first verification), and the
/// proof's size in bytes.
fn median_verify(module: &Module, report: &ProofReport, runs: usize) -> (Duration, usize) {
    let bytes = report.run.encode();
    let proof = kildall_r1cs::run::RunProof::decode(&bytes).unwrap();
    let mut verifier = kildall_r1cs::verify::Verifier::new(module).unwrap();
    verifier.verify(&proof, None).unwrap();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = std::time::Instant::now();
            verifier.verify(&proof, None).unwrap();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[runs / 2], bytes.len())
}

/// One program of the suite, proven before merging, after the threshold
/// rule and after the calibrated rule (in that order in each array).
struct Measured {
    name: String,
    modules: [Module; 3],
    traces: Vec<Trace>,
    /// Median prover time, median memory-check time, last report.
    proofs: Vec<(Duration, Duration, ProofReport)>,
    /// Median verifier time and proof size.
    verified: Vec<(Duration, usize)>,
}

/// Merges, runs, proves and verifies the program at `path` on its
/// `// args:` line (`// min-block-size:` for the threshold rule).
fn measure(path: &std::path::Path, runs: usize) -> Measured {
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let line = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
    };
    let args = RuntimeValue::parse_list(line("// args:").unwrap()).unwrap();
    let min = line("// min-block-size:").map_or(1024, |n| n.parse().unwrap());
    let before = kildall_ir::parse_module(&text).unwrap();
    let main = before.main().unwrap();
    let interp = InterpreterOptions::default();
    let threshold = merged(&before, Some(min));
    let chosen = calibrated(&before);
    let same = chosen.to_string() == threshold.to_string();
    let modules = [before, threshold, chosen];
    let traces: Vec<Trace> = modules
        .iter()
        .map(|m| record(m, main, args.clone(), &interp).unwrap())
        .collect();
    let mut proofs: Vec<_> = traces[..2].iter().map(|t| median_prove(t, runs)).collect();
    // The same program as the threshold rule's is the same measurement.
    proofs.push(if same {
        proofs[1].clone()
    } else {
        median_prove(&traces[2], runs)
    });
    let verified = (0..3)
        .map(|k| median_verify(&modules[k], &proofs[k].2, runs))
        .collect();
    Measured {
        name,
        modules,
        traces,
        proofs,
        verified,
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

/// The row of the first table: blocks, largest block, instances,
/// accesses, memory check and prover times.
fn prover_row(m: &Measured) -> String {
    let [before, threshold, chosen] = &m.modules;
    let (traces, proofs) = (&m.traces, &m.proofs);
    let main = before.main().unwrap();
    let blocks = |m: &Module| {
        m.functions
            .values()
            .map(|f| f.layout.num_blocks())
            .sum::<usize>()
    };
    let model = |m: &Module| largest_block(&m.functions[main], &R1cs);
    let error = |model: u64, exact: usize| {
        format!(
            "{:+.0}%",
            (model as f64 - exact as f64) / exact as f64 * 100.0
        )
    };
    let ratio = |a: Duration, b: Duration| format!("{:.2}", b.as_secs_f64() / a.as_secs_f64());
    let memory = |t: &Trace, p: &ProofReport, d: Duration| {
        p.memory.as_ref().map_or("none".to_string(), |m| {
            format!(
                "{}, {}, {} ms",
                t.memory.valid_entries(),
                m.constraints,
                ms(d)
            )
        })
    };
    format!(
        "| {} | {} -> {} | {} ({}, {}) -> {} ({}, {}) | {} -> {} | {} -> {} | {} -> {} | {} ms | {} ms, {} | {}, {}, {}, {} ms, {} |",
        m.name,
        blocks(before),
        blocks(threshold),
        traces[0].largest(),
        model(before),
        error(model(before), traces[0].largest()),
        traces[1].largest(),
        model(threshold),
        error(model(threshold), traces[1].largest()),
        traces[0].instances.len(),
        traces[1].instances.len(),
        traces[0].memory_accesses,
        traces[1].memory_accesses,
        memory(&traces[0], &proofs[0].2, proofs[0].1),
        memory(&traces[1], &proofs[1].2, proofs[1].1),
        ms(proofs[0].0),
        ms(proofs[1].0),
        ratio(proofs[0].0, proofs[1].0),
        blocks(chosen),
        traces[2].largest(),
        traces[2].instances.len(),
        ms(proofs[2].0),
        ratio(proofs[0].0, proofs[2].0),
    )
}

/// The row of the second table: proof sizes, verifier and prover times.
fn verifier_row(m: &Measured) -> String {
    let kb = |n: usize| format!("{:.1} KiB", n as f64 / 1024.0);
    let (verified, proofs) = (&m.verified, &m.proofs);
    format!(
        "| {} | {} / {} / {} | {} / {} / {} ms | {} / {} / {} ms |",
        m.name,
        kb(verified[0].1),
        kb(verified[1].1),
        kb(verified[2].1),
        ms(verified[0].0),
        ms(verified[1].0),
        ms(verified[2].0),
        ms(proofs[0].0),
        ms(proofs[1].0),
        ms(proofs[2].0),
    )
}

fn main() {
    let runs: usize = std::env::args().nth(1).map_or(5, |a| a.parse().unwrap());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/blockmerge");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ssa"))
        .collect();
    paths.sort();
    let mut samples = Vec::new();
    let mut memory_samples = Vec::new();
    let mut verifier_rows = Vec::new();
    println!("| program | blocks | largest block: exact (model, error) | instances | memory accesses | memory check: entries, constraints, prover | prover before | threshold: after, ratio | calibrated: blocks, largest, instances, after, ratio |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for path in paths {
        let measured = measure(&path, runs);
        for (_, memory, report) in &measured.proofs[..2] {
            if let Some(m) = &report.memory {
                memory_samples.push((m.valid_entries as f64, memory.as_secs_f64() * 1e6));
            }
        }
        for cost in measured.proofs[0].2.per_kind.values() {
            samples.push((
                cost.constraints as f64,
                cost.instances as f64,
                cost.prove.as_secs_f64() * 1e6,
            ));
        }
        println!("{}", prover_row(&measured));
        verifier_rows.push(verifier_row(&measured));
    }
    println!("\n| program | proof size: before / threshold / calibrated | verifier | prover |");
    println!("|---|---|---|---|");
    for row in verifier_rows {
        println!("{row}");
    }
    match Calibration::fit(&samples) {
        Some(c) => {
            let c = c.with_memory(&memory_samples);
            println!(
                "\nfit on the unmerged runs: {:.2} us per constraint, {:.0} us per instance, {:.0} us per memory access ({} memory checks)",
                c.per_constraint,
                c.per_instance,
                c.per_access,
                memory_samples.len()
            )
        }
        None => println!("\nno fit"),
    }
}
