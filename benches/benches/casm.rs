//! `kildall-casm`: compile a generated `.jvr` program of 10,000 functions
//! with constructors, `case`, closures and `cextend` (SSA conversion,
//! liveness, lowering), and one of 5,000 to show the growth is near-linear;
//! assemble it, and run the `sum(1000)` recursion on the strict
//! interpreter. The bytecode size, the constructs the program holds and the
//! step count (equal to the Cairo VM's, which the crate's tests check) are
//! printed once.
//!
//! The `felt` group weighs the crate's field element, a wrapper over the
//! one of the Cairo ecosystem (`starknet-types-core`, which `cairo-vm`
//! uses), against the bare type on what the interpreters do most: a chain
//! of multiply-adds and inverses.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kildall_casm::generate::{generate, Config};
use kildall_casm::{asm, compile_module, interp, ssa, Felt, Mode};

const SUM: &str = include_str!("../../examples/casm/sum.jvr");

fn big_program(functions: usize) -> kildall_casm::jvr::Module {
    let cfg = Config {
        functions,
        recursive: 4,
        max_stmts: 5,
        max_depth: 3,
        max_recursion: 10,
        reach: 8,
    };
    generate(42, &cfg)
}

fn bench(c: &mut Criterion) {
    let module = big_program(10_000);
    let half = big_program(5_000);
    let text = module.to_string();
    let count = |needle: &str| text.matches(needle).count();
    eprintln!(
        "casm: the 10,000-function program holds {} alloc, {} case, {} calloc, {} cextend, {} calls through closures",
        count(" = alloc "),
        count("case[shape]"),
        count(" = calloc "),
        count(" = cextend "),
        count(" = call tmp") + count("tcall tmp"),
    );
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
    g.bench_function("compile_5k_functions", |b| {
        b.iter(|| compile_module(black_box(&half)).unwrap())
    });
    g.bench_function("assemble_10k_functions", |b| {
        b.iter(|| asm::assemble(black_box(&listing), "main", &[], Mode::Execution).unwrap())
    });
    g.bench_function("interp_sum_1000", |b| {
        b.iter(|| interp::run(black_box(&sum), kildall_casm::MAX_STEPS).unwrap())
    });
    g.finish();
}

/// 1,024 field elements spread over the field, in both representations.
fn felts() -> (Vec<Felt>, Vec<starknet_types_core::felt::Felt>) {
    let mut x: u128 = 0x9e37_79b9_7f4a_7c15;
    (0..1024)
        .map(|_| {
            x = x
                .wrapping_mul(0x5851_f42d_4c95_7f2d)
                .wrapping_add(1442695040888963407);
            let v = x >> 3;
            (Felt::from_u128(v), starknet_types_core::felt::Felt::from(v))
        })
        .unzip()
}

fn felt(c: &mut Criterion) {
    let (ours, theirs) = felts();
    let mut g = c.benchmark_group("felt");
    g.bench_function("ours_mul_add_1024", |b| {
        b.iter(|| {
            black_box(&ours)
                .iter()
                .fold(Felt::ONE, |acc, &x| acc * x + x)
        })
    });
    g.bench_function("starknet_mul_add_1024", |b| {
        b.iter(|| {
            black_box(&theirs)
                .iter()
                .fold(starknet_types_core::felt::Felt::ONE, |acc, &x| acc * x + x)
        })
    });
    g.bench_function("ours_inverse_64", |b| {
        b.iter(|| {
            black_box(&ours[..64])
                .iter()
                .filter_map(Felt::inverse)
                .fold(Felt::ZERO, |acc, x| acc + x)
        })
    });
    g.bench_function("starknet_inverse_64", |b| {
        b.iter(|| {
            black_box(&theirs[..64])
                .iter()
                .filter_map(starknet_types_core::felt::Felt::inverse)
                .fold(starknet_types_core::felt::Felt::ZERO, |acc, x| acc + x)
        })
    });
    g.finish();
}

criterion_group!(benches, bench, felt);
criterion_main!(benches);
