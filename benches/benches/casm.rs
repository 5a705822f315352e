//! `kildall-casm`: compile a generated `.jvr` program of 10,000 functions
//! (SSA conversion, liveness, lowering), assemble it, and run the
//! `sum(1000)` recursion on the strict interpreter. The bytecode size and
//! the step count (equal to the Cairo VM's, which the crate's tests check)
//! are printed once.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kildall_casm::generate::{generate, Config};
use kildall_casm::{asm, compile_module, interp, ssa, Felt, Mode};

const SUM: &str = include_str!("../../examples/casm/sum.jvr");

fn big_program() -> kildall_casm::jvr::Module {
    let cfg = Config {
        functions: 10_000,
        recursive: 4,
        max_stmts: 5,
        max_depth: 3,
        max_recursion: 10,
        reach: 8,
    };
    generate(42, &cfg)
}

fn bench(c: &mut Criterion) {
    let module = big_program();
    let listing = compile_module(&module).unwrap();
    let prog = asm::assemble(&listing, "main", &[], Mode::Execution).unwrap();
    let sum = kildall_casm::build(SUM, "main", &[Felt::from_i128(1000)], Mode::Execution).unwrap();
    let r = interp::run(&sum, kildall_casm::MAX_STEPS).unwrap();
    eprintln!(
        "casm: 10,000 functions -> {} CASM items, {} bytecode words; sum(1000) = {} in {} steps ({} words)",
        listing.items.len(),
        prog.data.len(),
        r.value,
        r.steps,
        sum.data.len()
    );

    let mut g = c.benchmark_group("casm");
    g.sample_size(10);
    g.bench_function("ssa_10k_functions", |b| {
        b.iter(|| ssa::convert(black_box(&module)).unwrap())
    });
    g.bench_function("compile_10k_functions", |b| {
        b.iter(|| compile_module(black_box(&module)).unwrap())
    });
    g.bench_function("assemble_10k_functions", |b| {
        b.iter(|| asm::assemble(black_box(&listing), "main", &[], Mode::Execution).unwrap())
    });
    g.bench_function("interp_sum_1000", |b| {
        b.iter(|| interp::run(black_box(&sum), kildall_casm::MAX_STEPS).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
