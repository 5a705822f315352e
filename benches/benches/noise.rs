//! Placement of `reduce_noise` on generated noisy DAGs (the IR generator's
//! default mix: a quarter `mul`, 30% shared operands) of 30, 100, 300 and
//! 1,000 operations: exact, ILP and greedy. Strategies that hit their time
//! limit at a size are not timed there (the time would be the limit); the
//! count, bound and whether it timed out are printed once per size. The
//! `noise-loop` group places the exact strategy on the generator's loop
//! shape (the DAG inside a counted loop with a carried value) of 30 and 100
//! operations under both costs. The `noise-large` group times the greedy
//! strategy (with the exact strategy's presolve bound it reports) at
//! 10,000 and 100,000 operations, where cost must grow near-linearly.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kildall_harness::generate::{generate_noise, NoiseConfig, NoiseControlFlow};
use kildall_ir::Function;
use kildall_noise::{optimize, Cost, Options, Strategy};

const SIZES: [usize; 4] = [30, 100, 300, 1000];
const LIMIT: Duration = Duration::from_secs(10);

fn function(ops: usize) -> Function {
    let module = generate_noise(1, &NoiseConfig::sized(ops));
    module.functions[module.main().expect("main")].clone()
}

fn options(strategy: Strategy) -> Options {
    Options {
        strategy,
        time_limit: LIMIT,
        ..Options::default()
    }
}

fn placement(c: &mut Criterion) {
    let mut group = c.benchmark_group("noise");
    group.sample_size(10);
    for ops in SIZES {
        let func = function(ops);
        for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
            let probe = optimize(&mut func.clone(), &options(strategy)).expect("placeable");
            eprintln!(
                "noise/{strategy}/{ops}: count {}, lower bound {}, optimal {}, timed out {}, search nodes {}, {:?}",
                probe.count,
                probe.lower_bound,
                probe.optimal,
                probe.timed_out,
                probe.search_nodes,
                probe.time
            );
            if probe.timed_out {
                continue;
            }
            group.bench_with_input(BenchmarkId::new(strategy.name(), ops), &func, |b, func| {
                b.iter(|| {
                    let mut f = func.clone();
                    black_box(
                        optimize(&mut f, &options(strategy))
                            .expect("placeable")
                            .count,
                    )
                })
            });
        }
    }
    group.finish();
}

fn loop_function(ops: usize) -> Function {
    let config = NoiseConfig {
        control_flow: NoiseControlFlow::Loop,
        ..NoiseConfig::sized(ops)
    };
    let module = generate_noise(1, &config);
    module.functions[module.main().expect("main")].clone()
}

fn loops(c: &mut Criterion) {
    let mut group = c.benchmark_group("noise-loop");
    group.sample_size(10);
    for ops in [30, 100] {
        let func = loop_function(ops);
        for cost in [Cost::Static, Cost::Executions] {
            let options = Options {
                cost,
                ..options(Strategy::Exact)
            };
            let probe = optimize(&mut func.clone(), &options).expect("placeable");
            eprintln!(
                "noise-loop/{cost}/{ops}: count {}, executions {}, lower bound {}, optimal {}, {:?}",
                probe.count, probe.executions, probe.lower_bound, probe.optimal, probe.time
            );
            if probe.timed_out {
                continue;
            }
            group.bench_with_input(BenchmarkId::new(cost.name(), ops), &func, |b, func| {
                b.iter(|| {
                    let mut f = func.clone();
                    black_box(optimize(&mut f, &options).expect("placeable").cost())
                })
            });
        }
    }
    group.finish();
}

fn large(c: &mut Criterion) {
    let mut group = c.benchmark_group("noise-large");
    group.sample_size(10);
    for ops in [10_000, 100_000] {
        let func = function(ops);
        let options = options(Strategy::Greedy);
        group.bench_with_input(BenchmarkId::new("greedy", ops), &func, |b, func| {
            b.iter(|| {
                let mut f = func.clone();
                black_box(optimize(&mut f, &options).expect("placeable").count)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, placement, loops, large);
criterion_main!(benches);
