//! The program generator: determinism, size, and the two promises every
//! generated program keeps (it verifies, and it terminates within its fuel)
//! checked with the verifier and the interpreter over thousands of seeds.

use kildall_harness::generate::{
    generate_cfg, generate_cfg_with_fuel, generate_noise, CfgConfig, NoiseConfig, NoiseControlFlow,
    Rng,
};
use kildall_harness::testing::{check_each, check_file, count_terminators};
use kildall_interpreter::{interpret, InterpreterOptions, Outcome, RuntimeValue};
use kildall_ir::{parse_module, verify_module, InstructionData, Module, Terminator, Type};

/// Arguments for `main` drawn from `seed`: small, edge and full-range values.
fn arguments(module: &Module, seed: u64) -> Vec<RuntimeValue> {
    let main = module.main().expect("a main function");
    let mut rng = Rng::new(seed ^ 0xA5A5_A5A5);
    module.functions[main]
        .param_types()
        .iter()
        .map(|ty| {
            let raw = match rng.below(4) {
                0 => u128::from(rng.below(8)),
                1 => u128::from(rng.below(1 << 16)),
                2 => u128::from(rng.next_u64()),
                _ => u128::MAX,
            };
            match *ty {
                Type::Field => RuntimeValue::field(raw & u128::from(u64::MAX)),
                Type::Unsigned(bits) => {
                    let mask = if bits >= 128 {
                        u128::MAX
                    } else {
                        (1u128 << bits) - 1
                    };
                    RuntimeValue::unsigned(bits, raw & mask)
                }
                ref other => panic!("unexpected parameter type {other}"),
            }
        })
        .collect()
}

fn blocks(module: &Module) -> usize {
    module
        .functions
        .values()
        .map(|f| f.layout.num_blocks())
        .sum()
}

fn count(module: &Module, pred: impl Fn(&InstructionData) -> bool) -> usize {
    module
        .functions
        .values()
        .flat_map(|f| {
            f.layout
                .blocks()
                .flat_map(move |b| f.layout.block_insts(b))
                .map(move |i| &f.dfg[i])
        })
        .filter(|data| pred(data))
        .count()
}

#[test]
fn same_seed_same_program() {
    let config = CfgConfig::default();
    for seed in 0..50 {
        let a = generate_cfg(seed, &config).to_string();
        let b = generate_cfg(seed, &config).to_string();
        assert_eq!(a, b, "seed {seed}");
    }
    let a = generate_cfg(1, &config).to_string();
    let b = generate_cfg(2, &config).to_string();
    assert_ne!(a, b, "different seeds, different programs");
    let noise = NoiseConfig::default();
    assert_eq!(
        generate_noise(5, &noise).to_string(),
        generate_noise(5, &noise).to_string()
    );
}

/// A fixed program pins the random stream and the generator: a change to
/// either shows up here (rerun with `UPDATE_EXPECT=1` when intended).
#[test]
fn golden_program() {
    let config = CfgConfig {
        blocks: 10,
        ..CfgConfig::default()
    };
    let text = generate_cfg(42, &config).to_string();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/generate_data/cfg_42.ssa");
    check_each(&[path], |path| check_file(path, &text));
}

#[test]
fn generated_programs_verify_and_terminate() {
    let config = CfgConfig::default();
    let mut outcomes = [0usize; 3];
    for seed in 0..2000 {
        let (module, fuel) = generate_cfg_with_fuel(seed, &config);
        if let Err(err) = verify_module(&module) {
            panic!("seed {seed}: {err}\n{module}");
        }
        assert!(fuel <= config.fuel, "seed {seed}: bound {fuel}");
        let main = module.main().unwrap();
        let options = InterpreterOptions {
            fuel: config.fuel,
            check_noise: false,
            ..InterpreterOptions::default()
        };
        let run = interpret(&module, main, arguments(&module, seed), &options);
        assert!(
            run.steps <= fuel,
            "seed {seed}: {} steps over the bound {fuel}",
            run.steps
        );
        match run.outcome {
            Outcome::Return(_) => outcomes[0] += 1,
            Outcome::Trap(_) => outcomes[1] += 1,
            Outcome::OutOfFuel => panic!("seed {seed}: out of fuel\n{module}"),
        }
    }
    let traps = outcomes[1] as f64 / 2000.0;
    assert!(traps < 0.2, "trap rate {traps}: {outcomes:?}");
    assert!(outcomes[1] > 0, "risky operations never trapped");
}

#[test]
fn traps_come_only_from_risky_operations() {
    let config = CfgConfig {
        trap: 0.0,
        ..CfgConfig::default()
    };
    for seed in 0..500 {
        let module = generate_cfg(seed, &config);
        let main = module.main().unwrap();
        let run = interpret(
            &module,
            main,
            arguments(&module, seed),
            &InterpreterOptions::default(),
        );
        match run.outcome {
            Outcome::Return(_) => {}
            other => panic!("seed {seed}: {other:?}\n{module}"),
        }
    }
}

#[test]
fn generated_programs_round_trip_through_the_text_format() {
    for seed in 0..200 {
        let module = generate_cfg(seed, &CfgConfig::default());
        let text = module.to_string();
        let parsed = parse_module(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(parsed.to_string(), text, "seed {seed}");
    }
}

#[test]
fn size_follows_the_block_knob() {
    for blocks in [1, 10, 100, 1000, 5000] {
        let config = CfgConfig::sized(blocks);
        for seed in 0..3 {
            let module = generate_cfg(seed, &config);
            let made = blocks_of(&module);
            assert!(
                made >= blocks / 2 && made <= blocks + blocks / 2 + 8 * config.functions,
                "{blocks} blocks asked, {made} made (seed {seed})"
            );
        }
    }
}

fn blocks_of(module: &Module) -> usize {
    blocks(module)
}

#[test]
fn features_appear() {
    let config = CfgConfig::sized(400);
    let module = generate_cfg(3, &config);
    verify_module(&module).unwrap();
    let has = |pred: &dyn Fn(&InstructionData) -> bool| count(&module, pred) > 0;
    assert!(has(&|d| matches!(d, InstructionData::Allocate)));
    assert!(has(&|d| matches!(d, InstructionData::Call { .. })));
    assert!(has(&|d| matches!(d, InstructionData::ArraySet { .. })));
    assert!(has(&|d| matches!(
        d,
        InstructionData::EnableSideEffects { .. }
    )));
    assert!(has(&|d| matches!(d, InstructionData::IfElse { .. })));
    assert!(has(&|d| matches!(d, InstructionData::Constrain { .. })));
    // References stored in references and in arrays.
    let main = &module.functions[module.main().unwrap()];
    let nested_store = module.functions.values().any(|f| {
        f.layout.blocks().any(|b| {
            f.layout.block_insts(b).any(|i| match f.dfg[i] {
                InstructionData::Store { value, .. } => {
                    matches!(f.dfg.value_type(value), Type::Reference(_))
                }
                _ => false,
            })
        })
    });
    assert!(nested_store, "no reference stored in a reference");
    // Reference-typed block parameters and early returns.
    let ref_param = module.functions.values().any(|f| {
        f.layout.blocks().skip(1).any(|b| {
            f.dfg
                .block_params(b)
                .iter()
                .any(|&v| matches!(f.dfg.value_type(v), Type::Reference(_)))
        })
    });
    assert!(ref_param, "no reference-typed block parameter");
    let returns = main
        .layout
        .blocks()
        .filter(|&b| matches!(main.dfg.terminator(b), Some(Terminator::Return { .. })))
        .count();
    assert!(returns >= 1);
}

#[test]
fn feature_knobs_switch_features_off() {
    let config = CfgConfig::default().no_control_flow().no_references();
    for seed in 0..100 {
        let module = generate_cfg(seed, &config);
        verify_module(&module).unwrap();
        assert_eq!(
            count(&module, |d| matches!(d, InstructionData::Allocate)),
            0
        );
        for f in module.functions.values() {
            for b in f.layout.blocks() {
                assert!(
                    !matches!(f.dfg.terminator(b), Some(Terminator::JmpIf { .. })),
                    "seed {seed}: a branch without control flow"
                );
            }
        }
    }
}

#[test]
fn noise_programs_verify_and_run() {
    for (i, control_flow) in [
        NoiseControlFlow::None,
        NoiseControlFlow::Diamond,
        NoiseControlFlow::Loop,
    ]
    .into_iter()
    .enumerate()
    {
        for seed in 0..300 {
            let config = NoiseConfig {
                ops: 1 + (seed as usize % 90),
                control_flow,
                ..NoiseConfig::default()
            };
            let module = generate_noise(seed + 1000 * i as u64, &config);
            verify_module(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{module}"));
            let main = module.main().unwrap();
            let args = (0..config.inputs)
                .map(|k| RuntimeValue::unsigned(5, u128::from((seed + k as u64) % 32)))
                .collect();
            let options = InterpreterOptions {
                check_noise: false,
                fuel: config.fuel_bound(),
                ..InterpreterOptions::default()
            };
            let run = interpret(&module, main, args, &options);
            let Outcome::Return(values) = run.outcome else {
                panic!("seed {seed}: {:?}\n{module}", run.outcome);
            };
            assert!(!values.is_empty() && values.len() <= config.outputs);
            let noisy_ops = count(&module, |d| {
                matches!(d, InstructionData::Binary { .. })
                    && !matches!(d, InstructionData::Binary { op, .. } if op.is_comparison())
            });
            assert!(noisy_ops >= config.ops, "seed {seed}: {noisy_ops} ops");
        }
    }
}

#[test]
fn noise_dags_share_values() {
    let module = generate_noise(9, &NoiseConfig::sized(500));
    let f = &module.functions[module.main().unwrap()];
    let mut uses = std::collections::HashMap::new();
    for b in f.layout.blocks() {
        for i in f.layout.block_insts(b) {
            for &v in f.dfg[i].arguments().as_slice() {
                *uses.entry(v).or_insert(0usize) += 1;
            }
        }
    }
    let shared = uses.values().filter(|&&n| n > 1).count();
    assert!(shared > 20, "only {shared} values with fan-out");
}

/// The loops the generator builds are the ones the loop analysis should
/// see: counted loops with `lt` and `eq` exits and steps above one, whose
/// trip counts stay within the knob, while loops it cannot count, nesting.
#[test]
fn loop_shapes_reach_the_loop_analysis() {
    use kildall_ir::cfg::ControlFlowGraph;
    use kildall_ir::dominators::DominatorTree;
    use kildall_ir::loops::{LoopAnalysis, LoopCondition};

    let config = CfgConfig::default();
    let (mut cfg, mut domtree, mut loops) = (
        ControlFlowGraph::new(),
        DominatorTree::new(),
        LoopAnalysis::new(),
    );
    let (mut less, mut not_equal, mut big_step, mut uncounted, mut nested) = (0, 0, 0, 0, 0);
    for seed in 0..300 {
        let module = generate_cfg(seed, &config);
        for func in module.functions.values() {
            cfg.compute(func);
            domtree.compute(&cfg);
            loops.compute(func, &cfg, &domtree);
            for lp in loops.loops() {
                if loops.depth(lp) > 1 {
                    nested += 1;
                }
                let Some(counted) = loops.counted_loop(lp) else {
                    uncounted += 1;
                    continue;
                };
                assert!(
                    counted.trip_count <= u64::from(config.max_trip),
                    "seed {seed}: trip count {}",
                    counted.trip_count
                );
                match counted.condition {
                    LoopCondition::LessThan => less += 1,
                    LoopCondition::NotEqual => not_equal += 1,
                    _ => {}
                }
                if counted.step > 1 {
                    big_step += 1;
                }
            }
        }
    }
    let seen = [less, not_equal, big_step, uncounted, nested];
    assert!(
        seen.iter().all(|&n| n > 10),
        "lt, ne, step>1, while, nested: {seen:?}"
    );
}

#[test]
fn larger_programs_verify_and_stay_within_their_bound() {
    for (seed, blocks) in [(1u64, 300usize), (2, 1000), (3, 3000)] {
        let config = CfgConfig::sized(blocks);
        let (module, fuel) = generate_cfg_with_fuel(seed, &config);
        verify_module(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(fuel <= config.fuel);
        let main = module.main().unwrap();
        for run_seed in 0..5 {
            let options = InterpreterOptions {
                fuel,
                ..InterpreterOptions::default()
            };
            let run = interpret(&module, main, arguments(&module, run_seed), &options);
            assert!(
                !matches!(run.outcome, Outcome::OutOfFuel),
                "{blocks} blocks, seed {seed}: out of fuel"
            );
        }
    }
}

/// Generates 300 programs with `config`, verifies them, shows each
/// instruction to `count`, runs each within its fuel bound; returns how many
/// trapped.
fn run_generated(
    config: &CfgConfig,
    mut count: impl FnMut(&kildall_ir::Function, &kildall_ir::InstructionData),
) -> usize {
    let mut traps = 0;
    for seed in 0..300 {
        let (module, fuel) = generate_cfg_with_fuel(seed, config);
        if let Err(err) = verify_module(&module) {
            panic!("seed {seed}: {err}\n{module}");
        }
        for func in module.functions.values() {
            for block in func.layout.blocks() {
                for inst in func.layout.block_insts(block) {
                    count(func, &func.dfg[inst]);
                }
            }
        }
        let options = InterpreterOptions {
            fuel: config.fuel,
            check_noise: false,
            ..InterpreterOptions::default()
        };
        let main = module.main().unwrap();
        let run = interpret(&module, main, arguments(&module, seed), &options);
        assert!(
            run.steps <= fuel,
            "seed {seed}: {} steps over {fuel}",
            run.steps
        );
        match run.outcome {
            Outcome::Return(_) => {}
            Outcome::Trap(_) => traps += 1,
            Outcome::OutOfFuel => panic!("seed {seed}: out of fuel\n{module}"),
        }
    }
    traps
}

#[test]
fn checks_give_range_checks_and_reference_counts_within_the_fuel_bound() {
    use kildall_ir::InstructionData;
    let config = CfgConfig {
        checks: 4,
        ..CfgConfig::default()
    };
    let (mut range_checks, mut rc_ops) = (0, 0);
    let traps = run_generated(&config, |_, data| match data {
        InstructionData::RangeCheck { .. } => range_checks += 1,
        InstructionData::IncRc { .. } => rc_ops += 1,
        _ => {}
    });
    assert!(
        range_checks > 100 && rc_ops > 20,
        "{range_checks} range checks, {rc_ops} rc ops"
    );
    assert!(traps < 60, "{traps} of 300 programs trapped");
}

#[test]
fn signed_integers_and_slices_run_within_the_fuel_bound() {
    use kildall_ir::{Callee, InstructionData, Type};
    let config = CfgConfig {
        signed: 3,
        slices: 3,
        ..CfgConfig::default()
    };
    let (mut signed, mut slice_calls, mut slice_reads) = (0, 0, 0);
    let traps = run_generated(&config, |func, data| match data {
        InstructionData::Binary { lhs, .. }
            if matches!(func.dfg.value_type(*lhs), Type::Signed(_)) =>
        {
            signed += 1
        }
        InstructionData::Call {
            callee: Callee::Builtin(_),
            ..
        } => slice_calls += 1,
        InstructionData::ArrayGet { array, .. }
            if matches!(func.dfg.value_type(*array), Type::Slice(_)) =>
        {
            slice_reads += 1
        }
        _ => {}
    });
    assert!(
        signed > 300 && slice_calls > 200 && slice_reads > 200,
        "{signed} signed operations, {slice_calls} slice intrinsics, {slice_reads} slice reads"
    );
    assert!(traps < 60, "{traps} of 300 programs trapped");
}

#[test]
fn select_jumps_give_jmpifs_whose_edges_enter_one_block_with_different_arguments() {
    let config = CfgConfig {
        jumps: 4,
        select_jumps: 0.5,
        ..CfgConfig::default()
    };
    let mut selects = 0;
    for seed in 0..300 {
        let module = generate_cfg(seed, &config);
        selects += count_terminators(&module, Terminator::is_select_jump);
    }
    assert!(selects > 300, "only {selects} select jumps");
    let traps = run_generated(&config, |_, _| {});
    assert!(traps < 60, "{traps} of 300 programs trapped");
}

#[test]
fn enumerate_calls_generated_closures_within_the_fuel_bound() {
    use kildall_harness::testing::calls_builtin;
    use kildall_ir::Builtin;
    let config = CfgConfig {
        enumerate: 3,
        ..CfgConfig::default()
    };
    let mut enumerations = 0;
    let traps = run_generated(&config, |_, data| {
        enumerations += usize::from(calls_builtin(data, Builtin::SliceEnumerate));
    });
    assert!(
        enumerations > 1_000,
        "only {enumerations} `vector_enumerate` calls"
    );
    assert!(traps < 60, "{traps} of 300 programs trapped");
}
