//! Placement of `reduce_noise` on generated noisy DAGs (the IR generator's
//! default mix: a quarter `mul`, 30% shared operands) of 30, 100, 300 and
//! 1,000 operations: exact, ILP and greedy. Strategies that hit their time
//! limit at a size are not timed there (the time would be the limit); the
//! count, bound and whether it timed out are printed once per size. The
//! `noise-loop` group places the exact strategy on the generator's loop
//! shape (the DAG inside a counted loop with a carried value) of 30 and 100
//! operations under both costs. The `noise-large` group times the greedy
//! strategy (with the exact strategy's presolve bound it reports) at
//! 10,000 and 100,000 operations, where cost must grow near-linearly. The
//! `noise-cfg` group places and checks control-flow programs of 10,000 and
//! 100,000 blocks of 10 instructions without noisy values.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kildall_harness::generate::{
    generate_cfg, generate_noise, CfgConfig, NoiseConfig, NoiseControlFlow,
};
use kildall_ir::pass::{run_module, FunctionAnalyses, FunctionPass};
use kildall_ir::Function;
use kildall_noise::{verify, Cost, NoisePlacement, Options, Placement, Strategy};

const SIZES: [usize; 4] = [30, 100, 300, 1000];
const LIMIT: Duration = Duration::from_secs(10);

/// The pass on `func` alone.
fn optimize(func: &mut Function, options: &Options) -> Option<Placement> {
    let report = NoisePlacement::run(func, &mut FunctionAnalyses::new(), options).ok()?;
    report.0.into_iter().next()
}

fn function(ops: usize) -> Function {
    let module = generate_noise(1, &NoiseConfig::sized(ops));
    module.functions[module.main().expect("main")].clone()
}

fn options(strategy: Strategy) -> Options {
    Options {
        strategy,
        time_limit: Some(LIMIT),
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
                "noise/{strategy}/{ops}: count {}, lower bound {}, optimal {}, stopped by {:?}, search nodes {}, {:?}",
                probe.count,
                probe.lower_bound,
                probe.optimal,
                probe.stopped_by,
                probe.search_nodes,
                probe.time
            );
            if probe.stopped_by.is_some() {
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
            if probe.stopped_by.is_some() {
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

/// The pass and the verifier on control-flow programs without noisy values
/// (`cargo xtask gen --blocks B --insts 10`), whose cost must follow the
/// program's size: the sparse analysis sees no noisy value and stops.
/// Every function of the module, as `cargo xtask noise` runs them.
fn control_flow(c: &mut Criterion) {
    let mut group = c.benchmark_group("noise-cfg");
    group.sample_size(10);
    for blocks in [10_000, 100_000] {
        let config = CfgConfig {
            insts_per_block: 10,
            ..CfgConfig::sized(blocks)
        };
        let module = generate_cfg(1, &config);
        let options = Options::default();
        group.bench_with_input(BenchmarkId::new("place", blocks), &module, |b, module| {
            b.iter(|| {
                let mut m = module.clone();
                black_box(run_module::<NoisePlacement>(&mut m, &options).expect("placeable"))
            })
        });
        group.bench_with_input(BenchmarkId::new("check", blocks), &module, |b, module| {
            b.iter(|| {
                let mut analyses = FunctionAnalyses::new();
                for func in module.functions.values() {
                    analyses.invalidate();
                    black_box(verify(func, &mut analyses, options.params, 12).is_ok());
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, placement, loops, large, control_flow);
criterion_main!(benches);
