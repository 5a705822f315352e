//! Property tests on programs from the IR generator: small programs' exact
//! counts equal exhaustive enumeration, the ILP agrees where it finishes,
//! and every strategy's output verifies, passes the noise verifier and
//! computes the same plaintexts as the input run without noise traps.

use kildall_harness::generate::{generate_noise, NoiseConfig, NoiseControlFlow};
use kildall_harness::testing::check_same_behaviour;
use kildall_interpreter::{interpret, InterpreterOptions, Outcome, RuntimeValue, TrapRule};
use kildall_ir::verify_module;
mod common;

use common::{place, verify};
use kildall_noise::{
    extract, extract_with_levels, solve, Budget, CarriedLevels, Cost, Options, SearchLimits,
    Strategy,
};

fn args(n: usize, seed: u64) -> Vec<RuntimeValue> {
    let text: Vec<String> = (0..n)
        .map(|i| format!("u5 {}", (seed as usize * 7 + i * 13) % 32))
        .collect();
    RuntimeValue::parse_list(&text.join(", ")).expect("arguments parse")
}

#[test]
fn strategies_agree_with_enumeration_and_the_interpreter() {
    let flows = [
        NoiseControlFlow::None,
        NoiseControlFlow::Diamond,
        NoiseControlFlow::Loop,
    ];
    for seed in 0..60u64 {
        let config = NoiseConfig {
            ops: 4 + (seed % 17) as usize,
            control_flow: flows[(seed % 3) as usize],
            plaintext_fraction: if seed % 4 < 2 { 0.0 } else { 0.2 },
            ..NoiseConfig::default()
        };
        let module = generate_noise(seed, &config);
        let main = module.main().unwrap();
        // The enumeration counts reductions.
        let options = Options {
            cost: Cost::Static,
            ..Options::default()
        };
        // The optimum over every choice of carried levels (one per loop).
        let func = &module.functions[main];
        let loops = extract(func, &options).carried_params.len();
        assert!(loops <= 1, "seed {seed}: the generator makes one loop");
        let levels: Vec<Vec<u32>> = if loops == 0 {
            vec![Vec::new()]
        } else {
            (options.params.encode..=options.params.max)
                .map(|l| vec![l])
                .collect()
        };
        let mut brute: Option<usize> = None;
        for levels in levels {
            let problem =
                extract_with_levels(func, &options, &CarriedLevels::Fixed(levels)).problem;
            // Only placements beating the best so far are enumerated.
            let most = brute.map_or(problem.len(), |b| b.saturating_sub(1));
            if brute == Some(0) {
                break;
            }
            if let Some(r) = problem.brute_force_within(most) {
                brute = Some(r.iter().filter(|&&r| r).count());
            }
        }
        let inputs = args(config.inputs, seed);
        let run_options = InterpreterOptions {
            check_noise: false,
            fuel: config.fuel_bound(),
            ..InterpreterOptions::default()
        };
        let before = interpret(&module, main, inputs.clone(), &run_options).outcome;
        assert!(
            matches!(before, Outcome::Return(_)),
            "seed {seed}: {before:?}"
        );
        for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
            let mut optimized = module.clone();
            let options = Options {
                strategy,
                time_limit: None,
                cost: Cost::Static,
                ..Options::default()
            };
            let placement = place(&mut optimized.functions[main], &options).unwrap();
            let fuel = config.fuel_bound();
            check_same_behaviour(&module, &optimized, &inputs, TrapRule::SameKind, fuel)
                .unwrap_or_else(|e| panic!("seed {seed} {strategy}: {e}"));
            verify(
                &optimized.functions[main],
                options.params,
                options.input_level(),
            )
            .unwrap_or_else(|v| panic!("seed {seed} {strategy}: {v}"));
            // Within the bound: the same run with noise checking on returns.
            let checked = InterpreterOptions {
                check_noise: true,
                ..run_options.clone()
            };
            let after = interpret(&optimized, main, inputs.clone(), &checked).outcome;
            assert_eq!(before, after, "seed {seed} {strategy}");
            match strategy {
                Strategy::Exact => {
                    assert!(placement.optimal, "seed {seed}");
                    assert_eq!(Some(placement.count), brute, "seed {seed}");
                }
                Strategy::Ilp if placement.optimal => {
                    assert_eq!(Some(placement.count), brute, "seed {seed}: ILP");
                }
                _ => assert!(Some(placement.count) >= brute, "seed {seed}"),
            }
        }
    }
}

/// Generated programs whose results cross boundaries, a call of a helper
/// or a store and a load, where they may carry at most the input noise.
/// Every strategy's placement of every function, under both costs, runs
/// within the maximum (the interpreter's noise traps on) to the plaintexts
/// the input computes with them off, where the input itself mostly traps;
/// the exact count of `main` is the enumerated optimum on the programs
/// without loops.
#[test]
fn values_crossing_calls_and_memory_stay_within_the_bound() {
    let flows = [
        NoiseControlFlow::None,
        NoiseControlFlow::Diamond,
        NoiseControlFlow::Loop,
    ];
    let mut trapped = 0;
    let programs = 36;
    for seed in 0..programs {
        let config = NoiseConfig {
            ops: 4 + (seed % 9) as usize,
            control_flow: flows[(seed % 3) as usize],
            plaintext_fraction: if seed % 4 < 2 { 0.0 } else { 0.2 },
            boundary_fraction: 0.4,
            ..NoiseConfig::default()
        };
        let module = generate_noise(seed, &config);
        verify_module(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let main = module.main().unwrap();
        let inputs = args(config.inputs, seed);
        let unchecked = InterpreterOptions {
            check_noise: false,
            fuel: config.fuel_bound(),
            ..InterpreterOptions::default()
        };
        let checked = InterpreterOptions {
            check_noise: true,
            ..unchecked.clone()
        };
        let before = interpret(&module, main, inputs.clone(), &unchecked).outcome;
        assert!(
            matches!(before, Outcome::Return(_)),
            "seed {seed}: {before:?}"
        );
        let raw = interpret(&module, main, inputs.clone(), &checked).outcome;
        trapped += usize::from(!matches!(raw, Outcome::Return(_)));
        let brute = (config.control_flow != NoiseControlFlow::Loop).then(|| {
            let options = Options {
                cost: Cost::Static,
                ..Options::default()
            };
            let problem = extract(&module.functions[main], &options).problem;
            let reduced = problem
                .brute_force_within(problem.len())
                .expect("a placement");
            reduced.iter().filter(|&&r| r).count()
        });
        for cost in [Cost::Static, Cost::Executions] {
            for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
                let options = Options {
                    strategy,
                    cost,
                    time_limit: None,
                    ..Options::default()
                };
                let what = format!("seed {seed}, {strategy}, {cost} cost");
                let mut optimized = module.clone();
                for (id, func) in optimized.functions.iter_mut() {
                    let placement = place(func, &options).unwrap();
                    verify(func, options.params, options.input_level())
                        .unwrap_or_else(|v| panic!("{what}: {v}"));
                    if strategy == Strategy::Exact {
                        assert!(placement.optimal, "{what}");
                        if id == main && cost == Cost::Static && brute.is_some() {
                            assert_eq!(Some(placement.count), brute, "{what}");
                        }
                    }
                }
                verify_module(&optimized).unwrap_or_else(|e| panic!("{what}: {e}"));
                let after = interpret(&optimized, main, inputs.clone(), &checked).outcome;
                assert_eq!(before, after, "{what}");
            }
        }
    }
    // The boundaries matter: unplaced, most of these runs trap.
    assert!(
        trapped * 2 >= programs as usize,
        "only {trapped} of {programs} unplaced runs trap"
    );
}

#[test]
fn existing_reductions_are_replaced() {
    // Optimizing an optimized program removes its reductions and places
    // the same ones again.
    let module = generate_noise(3, &NoiseConfig::sized(30));
    let main = module.main().unwrap();
    let mut once = module.clone();
    let first = place(&mut once.functions[main], &Options::default()).unwrap();
    let mut twice = once.clone();
    let second = place(&mut twice.functions[main], &Options::default()).unwrap();
    assert_eq!(second.removed, first.count);
    assert_eq!(second.count, first.count);
    // The same values are reduced again (the text differs only in the
    // numbers of the new reductions).
    assert_eq!(second.reduced, first.reduced);
}

/// On loops too large to enumerate, the exact placement (the loops
/// unrolled) ends at the cheapest of the placements proven optimal for
/// each single carried level, under both costs. (The search over ranges of
/// levels is checked against the unrolled placement in the `levels`
/// module.)
#[test]
fn loop_placement_matches_every_level_solved_alone() {
    for seed in 0..12u64 {
        let config = NoiseConfig {
            ops: 40 + (seed % 4) as usize * 20,
            control_flow: NoiseControlFlow::Loop,
            plaintext_fraction: if seed % 2 == 0 { 0.0 } else { 0.2 },
            ..NoiseConfig::default()
        };
        let module = generate_noise(seed, &config);
        let main = module.main().unwrap();
        let func = &module.functions[main];
        for cost in [Cost::Static, Cost::Executions] {
            let options = Options {
                cost,
                time_limit: None,
                ..Options::default()
            };
            let mut best: Option<u64> = None;
            for level in options.params.encode..=options.params.max {
                let levels = CarriedLevels::Fixed(vec![level]);
                let problem = extract_with_levels(func, &options, &levels).problem;
                if let Ok(s) = solve(
                    &problem,
                    Strategy::Exact,
                    &SearchLimits::new(Budget::unlimited()),
                ) {
                    assert!(s.optimal, "seed {seed}, level {level}");
                    best = Some(best.map_or(s.cost, |b| b.min(s.cost)));
                }
            }
            let mut optimized = module.clone();
            let placement = place(&mut optimized.functions[main], &options).unwrap();
            assert!(placement.optimal, "seed {seed}, {cost} cost");
            assert_eq!(Some(placement.cost()), best, "seed {seed}, {cost} cost");
            verify(
                &optimized.functions[main],
                options.params,
                options.input_level(),
            )
            .unwrap_or_else(|v| panic!("seed {seed}, {cost} cost: {v}"));
        }
    }
}

/// The placement is a function of the program and the options: one thread
/// and two give the same program, counts and bound, whether the search
/// closes or its effort runs out (large components fork their search
/// below the root and run the local search beside it).
#[test]
fn threads_do_not_change_the_placement() {
    for (seed, ops, effort) in [(3, 600, 40_000), (7, 400, u64::MAX)] {
        let module = generate_noise(seed, &NoiseConfig::sized(ops));
        let main = module.main().unwrap();
        let runs: Vec<(String, String)> = [1, 2]
            .into_iter()
            .map(|threads| {
                let options = Options {
                    effort,
                    threads,
                    ..Options::default()
                };
                let mut placed = module.clone();
                let p = place(&mut placed.functions[main], &options).unwrap();
                let figures = format!(
                    "{} {} {} {} {:?} {} {}",
                    p.count,
                    p.executions,
                    p.lower_bound,
                    p.optimal,
                    p.stopped_by,
                    p.search_nodes,
                    p.effort
                );
                (placed.to_string(), figures)
            })
            .collect();
        assert_eq!(runs[0].1, runs[1].1, "seed {seed}: figures");
        assert!(
            runs[0].0 == runs[1].0,
            "seed {seed}: the placed programs differ"
        );
    }
}
