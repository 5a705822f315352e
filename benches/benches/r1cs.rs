//! The exact R1CS of executed traces: lowering and witness generation of a
//! run (every executed block lowered, assigned and checked) on the suite's
//! matrix multiply and on a generated program, and per-block Groth16
//! proving of the suite's `find_min` and `string_match` runs before and
//! after merging (setup excluded, as in `cargo xtask merge --prove`), and
//! proving the memory check of the unmerged `find_min`, `string_match` and
//! `edit_distance` runs (15, 47 and 125 accesses); verifying the proof of
//! a whole run (every instance's proof and links, the memory check's list
//! and proof; keys set up before, by a first verification) of `find_min`
//! and `string_match` before and after merging.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kildall_blockmerge::{BlockMerge, Options};
use kildall_harness::generate::{generate_cfg, CfgConfig};
use kildall_interpreter::{InterpreterOptions, RuntimeValue};
use kildall_ir::pass::run_module;
use kildall_ir::Module;
use kildall_r1cs::prove::{prove, rng, setup};
use kildall_r1cs::trace::{record, Trace};

fn program(name: &str) -> (Module, Vec<RuntimeValue>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/blockmerge")
        .join(format!("{name}.ssa"));
    kildall_harness::testing::program_with_args(&path)
}

fn traced(module: &Module, args: &[RuntimeValue]) -> Trace {
    let main = module.main().unwrap();
    record(module, main, args.to_vec(), &InterpreterOptions::default()).unwrap()
}

/// The example `name` before and after block merging, each with the trace
/// of its run on the example's arguments.
fn before_and_after_merging(name: &str) -> [(&'static str, Module, Trace); 2] {
    let (before, args) = program(name);
    let mut after = before.clone();
    run_module::<BlockMerge>(&mut after, &Options::default()).unwrap();
    [("before", before), ("after", after)].map(|(which, module)| {
        let trace = traced(&module, &args);
        (which, module, trace)
    })
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("r1cs-witness");
    let (matmul, args) = program("matmul");
    let main = matmul.main().unwrap();
    group.bench_function("matmul", |b| {
        b.iter(|| {
            record(
                black_box(&matmul),
                main,
                args.clone(),
                &InterpreterOptions::default(),
            )
        })
    });
    let generated = generate_cfg(
        3,
        &CfgConfig {
            calls: 0,
            ..CfgConfig::sized(1_000)
        }
        .no_references(),
    );
    let gmain = generated.main().unwrap();
    let gargs = vec![
        RuntimeValue::unsigned(32, 7),
        RuntimeValue::unsigned(32, 123_456),
        RuntimeValue::unsigned(64, 99),
        RuntimeValue::field(5),
        RuntimeValue::bool(true),
    ];
    if let Ok(t) = record(
        &generated,
        gmain,
        gargs.clone(),
        &InterpreterOptions::default(),
    ) {
        eprintln!(
            "generated 1,000 blocks: {} instances, {} constraints",
            t.instances.len(),
            t.total_constraints()
        );
        group.bench_function("generated-1000", |b| {
            b.iter(|| {
                record(
                    black_box(&generated),
                    gmain,
                    gargs.clone(),
                    &InterpreterOptions::default(),
                )
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("r1cs-prove");
    group.sample_size(10);
    for name in ["find_min", "string_match"] {
        for (which, _, trace) in before_and_after_merging(name) {
            let mut rng = rng();
            let keys: Vec<_> = trace
                .instances
                .iter()
                .map(|i| setup(&trace.kinds[&i.kind], &mut rng).unwrap())
                .collect();
            group.bench_function(format!("{name}-{which}"), |b| {
                b.iter(|| {
                    for (instance, keys) in trace.instances.iter().zip(&keys) {
                        let cs = &trace.kinds[&instance.kind];
                        black_box(prove(keys, cs, &instance.assignment, &mut rng).unwrap());
                    }
                })
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("r1cs-memory-check");
    group.sample_size(10);
    for name in ["find_min", "string_match", "edit_distance"] {
        let (module, args) = program(name);
        let trace = traced(&module, &args);
        let (cs, assignment) = trace.memory.system();
        let mut rng = rng();
        let keys = setup(&cs, &mut rng).unwrap();
        let accesses = trace.memory.valid_entries();
        group.bench_function(format!("{name}-{accesses}"), |b| {
            b.iter(|| black_box(prove(&keys, &cs, &assignment, &mut rng).unwrap()))
        });
    }
    group.finish();
}

fn bench_verify(c: &mut Criterion) {
    let mut group = c.benchmark_group("r1cs-verify");
    group.sample_size(10);
    for name in ["find_min", "string_match"] {
        for (which, module, trace) in before_and_after_merging(name) {
            let proof = kildall_r1cs::prove::prove_trace(&trace).unwrap().run;
            let mut verifier = kildall_r1cs::verify::Verifier::new(&module).unwrap();
            verifier.verify(&proof, None).unwrap();
            group.bench_function(format!("{name}-{which}"), |b| {
                b.iter(|| black_box(verifier.verify(&proof, None).unwrap()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench, bench_verify);
criterion_main!(benches);
