//! Differential test: on thousands of generated programs (references
//! through references, arrays of references, calls, loops, predication), the
//! interpreter's outcome and output before and after the pass are the same,
//! and the output verifies. A failing case is printed as a ready-to-add file
//! for `tests/data/`.
//!
//! It also measures the optimisation power (the fraction of loads removed)
//! and checks that the pass leaves no load the per-block forwarding rule could still
//! replace: forwarding run again on the output finds nothing.

use kildall_harness::generate::{
    generate_cfg_with_fuel, generate_flat_arrays, CfgConfig, FlatArrays, Rng,
};
use kildall_harness::testing::{
    calls_builtin, check_same_behaviour, count_generated, count_insts, count_terminators,
};
use kildall_interpreter::{display_list, Outcome, RuntimeValue, TrapRule};
use kildall_ir::flat::Indexing;
use kildall_ir::pass::run_module;
use kildall_ir::{verify_module, Builtin, Callee, InstructionData, Module, Terminator, Type};
use kildall_mem2reg::{Mem2Reg, Options};

fn is_load(data: &InstructionData) -> bool {
    matches!(data, InstructionData::Load { .. })
}

fn arguments(seed: u64) -> Vec<RuntimeValue> {
    let mut rng = Rng::new(seed ^ 0x9e37_79b9_7f4a_7c15);
    let small = |rng: &mut Rng| match rng.below(4) {
        0 => 0,
        1 => rng.below(8),
        2 => rng.below(1000),
        _ => rng.next_u64(),
    };
    vec![
        RuntimeValue::unsigned(32, u128::from(small(&mut rng) as u32)),
        RuntimeValue::unsigned(32, u128::from(small(&mut rng) as u32)),
        RuntimeValue::unsigned(64, u128::from(small(&mut rng))),
        RuntimeValue::field(u128::from(small(&mut rng))),
        RuntimeValue::bool(rng.chance(0.5)),
    ]
}

fn ready_to_add(seed: u64, module: &Module, args: &[RuntimeValue], why: &str) -> String {
    format!(
        "// Generated program, seed {seed}: {why}\n// args: {}\n{module}",
        display_list(args)
    )
}

struct Totals {
    programs: usize,
    loads_before: usize,
    loads_after: usize,
    traps: usize,
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} programs ({} trap): {} of {} loads removed",
            self.programs,
            self.traps,
            self.loads_before - self.loads_after,
            self.loads_before
        )
    }
}

fn differential(config: &CfgConfig, seeds: std::ops::Range<u64>) -> Totals {
    let mut totals = Totals {
        programs: 0,
        loads_before: 0,
        loads_after: 0,
        traps: 0,
    };
    for seed in seeds {
        let (before, fuel) = generate_cfg_with_fuel(seed, config);
        verify_module(&before).unwrap_or_else(|e| panic!("generated seed {seed}: {e}"));
        let mut after = before.clone();
        run_module::<Mem2Reg>(&mut after, &Options::default()).unwrap();
        let args = arguments(seed);
        let a = check_same_behaviour(&before, &after, &args, TrapRule::SameKind, fuel)
            .unwrap_or_else(|e| {
                panic!(
                    "{e}\n{}\n--- output\n{after}",
                    ready_to_add(seed, &before, &args, "the pass changes its behaviour")
                )
            });
        if a.outcome == Outcome::OutOfFuel {
            continue;
        }
        // Nothing left for the per-block forwarding to find.
        let mut again = after.clone();
        let stats = run_module::<Mem2Reg>(&mut again, &Options::forward_only()).unwrap();
        assert_eq!(
            stats.loads_replaced,
            0,
            "forwarding finds more loads after the pass\n{}",
            ready_to_add(seed, &before, &args, "the pass is not at a fixed point")
        );
        totals.programs += 1;
        totals.traps += matches!(a.outcome, Outcome::Trap(_)) as usize;
        totals.loads_before += count_insts(&before, is_load);
        totals.loads_after += count_insts(&after, is_load);
    }
    totals
}

#[test]
fn generated_programs_keep_their_behaviour() {
    let config = CfgConfig {
        memory: 8,
        nested_references: 3,
        reference_arrays: 3,
        calls: 2,
        prints: 1,
        checks: 1,
        ..CfgConfig::default()
    };
    // `MEM2REG_PROGRAMS=N` runs more programs (the default keeps `cargo test` quick).
    let programs = std::env::var("MEM2REG_PROGRAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000u64);
    let totals = differential(&config, 0..programs);
    let removed = totals.loads_before - totals.loads_after;
    let fraction = removed as f64 / totals.loads_before.max(1) as f64;
    eprintln!("{totals} ({:.1}%)", 100.0 * fraction);
    assert!(
        totals.programs >= 1_500,
        "too few programs ran to completion"
    );
    assert!(
        fraction > 0.5,
        "only {:.1}% of loads removed",
        100.0 * fraction
    );
}

#[test]
fn default_mix_and_straight_line_programs() {
    let totals = differential(&CfgConfig::default(), 10_000..10_500);
    assert!(totals.programs > 0);
    let straight = CfgConfig {
        memory: 8,
        nested_references: 2,
        reference_arrays: 2,
        ..CfgConfig::default().no_control_flow()
    };
    let totals = differential(&straight, 20_000..20_500);
    assert!(totals.programs > 0);
}

#[test]
fn signed_integers_and_slices_of_references() {
    let config = CfgConfig {
        memory: 6,
        reference_arrays: 2,
        calls: 1,
        signed: 2,
        slices: 4,
        ..CfgConfig::default()
    };
    let totals = differential(&config, 30_000..30_800);
    eprintln!("{totals}");
    assert!(totals.programs >= 600, "too few programs ran to completion");
}

#[test]
fn calls_through_function_values() {
    // Calls through `function` values (the callee as an operand, or an `if`
    // between two functions of one signature) receiving references.
    let config = CfgConfig {
        calls: 4,
        function_values: 0.7,
        functions: 5,
        ..CfgConfig::default()
    };
    let value_calls = count_generated(&config, 50_000..50_300, |module| {
        count_insts(module, |d| {
            matches!(
                d,
                InstructionData::Call {
                    callee: Callee::Value(_),
                    ..
                }
            )
        })
    });
    assert!(
        value_calls >= 300,
        "only {value_calls} calls through values"
    );
    let totals = differential(&config, 50_000..50_300);
    assert!(totals.programs >= 200, "too few programs ran to completion");
}

#[test]
fn branches_with_edge_arguments() {
    // Diamonds whose `jmpif` passes references and values to its arms.
    let config = CfgConfig {
        memory: 6,
        nested_references: 1,
        reference_arrays: 1,
        branch_arguments: 0.5,
        ..CfgConfig::default()
    };
    let totals = differential(&config, 40_000..40_400);
    assert!(totals.programs >= 300, "too few programs ran to completion");
}

#[test]
fn jumps_whose_two_edges_enter_one_block() {
    // `jmpif c then: b5(v3), else: b5(v4)`: references, cells and values
    // passed to one block with different arguments on the two edges.
    let config = CfgConfig {
        memory: 6,
        nested_references: 1,
        reference_arrays: 1,
        jumps: 4,
        select_jumps: 0.5,
        ..CfgConfig::default()
    };
    let selects = count_generated(&config, 45_000..45_400, |module| {
        count_terminators(module, Terminator::is_select_jump)
    });
    assert!(selects >= 400, "only {selects} select jumps");
    let totals = differential(&config, 45_000..45_400);
    assert!(totals.programs >= 300, "too few programs ran to completion");
}

#[test]
fn enumerations_through_generated_closures() {
    // `vector_enumerate` on slices of `u32`, `Field` and `&mut Field`,
    // whose closures store into the cells forwarded to them and into the
    // entries of a slice of references: a call through a value the caller
    // cannot see into, which must keep the stores before it and the loads
    // after it.
    let config = CfgConfig {
        memory: 6,
        nested_references: 1,
        reference_arrays: 1,
        enumerate: 3,
        ..CfgConfig::default()
    };
    let seeds = 70_000..70_400;
    let enumerations = count_generated(&config, seeds.clone(), |module| {
        count_insts(module, |d| calls_builtin(d, Builtin::SliceEnumerate))
    });
    assert!(
        enumerations >= 2_000,
        "only {enumerations} `vector_enumerate` calls"
    );
    let totals = differential(&config, seeds);
    eprintln!("{enumerations} enumerations; {totals}");
    assert!(totals.programs >= 300, "too few programs ran to completion");
}

#[test]
fn immutable_references() {
    // `&Field` views of cells handed back by an oracle, loaded through,
    // passed to functions taking `&Field` (directly or through `function`
    // values) and across `jmpif` edges.
    let config = CfgConfig {
        immutable_references: 3,
        calls: 4,
        functions: 5,
        function_values: 0.3,
        branch_arguments: 0.3,
        ..CfgConfig::default()
    };
    let seeds = 60_000..60_300;
    let (mut views, mut calls_given_views) = (0, 0);
    for seed in seeds.clone() {
        let (module, _) = generate_cfg_with_fuel(seed, &config);
        for func in module.functions.values() {
            let is_view = |v| matches!(func.dfg.value_type(v), Type::ImmutableReference(_));
            views += count_insts_of(func, |d| {
                matches!(
                    d,
                    InstructionData::Call {
                        callee: Callee::Foreign(_),
                        ..
                    }
                )
            });
            calls_given_views += count_insts_of(func, |d| match d {
                InstructionData::Call {
                    callee: Callee::Function(_) | Callee::Value(_),
                    args,
                } => args.iter().any(|&a| is_view(a)),
                _ => false,
            });
        }
    }
    assert!(views >= 300, "only {views} views made");
    assert!(
        calls_given_views >= 100,
        "only {calls_given_views} calls given a view"
    );
    let totals = differential(&config, seeds);
    eprintln!("{views} views, {calls_given_views} calls given one; {totals}");
    assert!(totals.programs >= 200, "too few programs ran to completion");
}

fn count_insts_of(func: &kildall_ir::Function, pred: impl Fn(&InstructionData) -> bool) -> usize {
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&i| pred(&func.dfg[i]))
        .count()
}

/// The functions of a module are transformed on several threads when it is
/// large: the output and the statistics must not depend on how many.
#[test]
fn the_output_does_not_depend_on_the_threads() {
    let config = CfgConfig {
        memory: 8,
        nested_references: 2,
        reference_arrays: 2,
        ..CfgConfig::sized(4_000)
    };
    let module = kildall_harness::generate::generate_cfg(7, &config);
    assert!(module.functions.len() > 2);
    let insts: usize = module.functions.values().map(|f| f.dfg.num_insts()).sum();
    assert!(insts > 16_384, "too small to run on threads: {insts}");
    let run = |threads: usize| {
        let mut m = module.clone();
        let stats =
            kildall_ir::pass::run_module_on::<Mem2Reg>(&mut m, &Options::default(), threads)
                .unwrap();
        verify_module(&m).unwrap();
        (m.to_string(), stats)
    };
    let (one, stats) = run(1);
    assert!(stats.loads_replaced > 0);
    for threads in [2, 3] {
        assert_eq!(run(threads), (one.clone(), stats), "{threads} threads");
    }
}

/// Array instructions of `module` that number a nested array by leaf.
fn flat_accesses(module: &Module) -> usize {
    let mut count = 0;
    for func in module.functions.values() {
        for block in func.layout.blocks() {
            count += func
                .layout
                .block_insts(block)
                .filter(|&inst| func.array_indexing(inst) == Indexing::Flat)
                .count();
        }
    }
    count
}

#[test]
fn nested_arrays_numbered_by_entry_and_by_leaf() {
    // A `[[&mut Field; 2]; 2]` kept in a cell of an `acir` function, built,
    // read and written by entry and by leaf (Noir's flat numbering), with
    // references read out of it loaded and stored through.
    let (mut flat, mut loads_before, mut loads_after) = (0, 0, 0);
    for seed in 0..300 {
        let before = generate_flat_arrays(
            seed,
            FlatArrays {
                ops: 12,
                references: true,
            },
        );
        flat += flat_accesses(&before);
        let mut after = before.clone();
        run_module::<Mem2Reg>(&mut after, &Options::default()).unwrap();
        let args = arguments(seed);
        check_same_behaviour(&before, &after, &args, TrapRule::SameKind, 100_000).unwrap_or_else(
            |e| {
                panic!(
                    "{e}\n{}\n--- output\n{after}",
                    ready_to_add(seed, &before, &args, "the pass changes its behaviour")
                )
            },
        );
        loads_before += count_insts(&before, is_load);
        loads_after += count_insts(&after, is_load);
    }
    assert!(flat >= 5_000, "only {flat} flat accesses");
    assert!(
        loads_after * 4 < loads_before,
        "{loads_after} of {loads_before} loads left"
    );
}
