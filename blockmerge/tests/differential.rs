//! Differential test: on generated structured programs the interpreter's
//! outcome (returns and traps alike) and output are the same before and
//! after merging, and the output verifies. A failing case prints as a
//! ready-to-add `tests/data` file.

use kildall_blockmerge::trace::trace;
use kildall_blockmerge::{BlockMerge, MergeRule, Options, R1cs};
use kildall_harness::generate::{generate_cfg, generate_flat_arrays, CfgConfig, FlatArrays};
use kildall_harness::testing::{
    calls_builtin, check_same_behaviour, count_generated, count_insts, count_terminators,
};
use kildall_interpreter::{InterpreterOptions, RuntimeValue, TrapRule};
use kildall_ir::pass::run_module;
use kildall_ir::{Builtin, Terminator};

/// Enough for every generated program.
const FUEL: u64 = 1_000_000;

fn args(seed: u64, k: u64) -> Vec<RuntimeValue> {
    let mix = |n: u64| {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k << 32) ^ n;
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x ^ (x >> 31)
    };
    vec![
        RuntimeValue::unsigned(32, u128::from(mix(1) % 100)),
        RuntimeValue::unsigned(32, u128::from(mix(2) as u32)),
        RuntimeValue::unsigned(64, u128::from(mix(3) % 1000)),
        RuntimeValue::field(u128::from(mix(4))),
        RuntimeValue::bool(mix(5) % 2 == 1),
    ]
}

fn check(seed: u64, config: &CfgConfig, min_block_size: u64) -> Result<usize, String> {
    let before = generate_cfg(seed, config);
    let mut after = before.clone();
    // Every fifth seed under the calibrated rule (no threshold).
    let rule = if seed % 5 == 4 {
        MergeRule::Calibrated { per_instance: 70 }
    } else {
        MergeRule::Threshold
    };
    let options = Options {
        min_block_size,
        rule,
        ..Options::default()
    };
    let reports = run_module::<BlockMerge>(&mut after, &options).unwrap().0;
    for report in &reports {
        for merge in &report.merges {
            let over = rule == MergeRule::Threshold && merge.estimate > report.threshold;
            if merge.constraints > merge.estimate || over {
                return Err(format!(
                    "merge {merge:?} over its estimate or the threshold {}",
                    report.threshold
                ));
            }
        }
    }
    for k in 0..3 {
        let args = args(seed, k);
        check_same_behaviour(&before, &after, &args, TrapRule::SameKind, FUEL).map_err(|e| {
            format!(
                "seed {seed}: {e}\n--- test file:\n// min-block-size: {min_block_size}\n// args: {}\n{before}",
                kildall_interpreter::display_list(&args)
            )
        })?;
    }
    if seed.is_multiple_of(8) {
        // Merging never makes a run execute more blocks.
        let main = before.main().ok_or("no main")?;
        let interp = InterpreterOptions {
            fuel: 1_000_000,
            ..InterpreterOptions::default()
        };
        let a = trace(&before, main, args(seed, 0), &interp, &R1cs);
        let b = trace(&after, main, args(seed, 0), &interp, &R1cs);
        if b.executed_blocks > a.executed_blocks {
            return Err(format!(
                "seed {seed}: {} blocks executed before, {} after",
                a.executed_blocks, b.executed_blocks
            ));
        }
    }
    Ok(reports.iter().map(|r| r.merges.len()).sum())
}

#[test]
fn jumps_whose_two_edges_enter_one_block_behave_the_same() {
    // `jmpif c then: b5(v3), else: b5(v4)`, flattened to an `if` per
    // parameter, and diamonds whose `jmpif` passes arguments to its arms.
    let config = CfgConfig {
        blocks: 16,
        calls: 0,
        jumps: 4,
        select_jumps: 0.5,
        branch_arguments: 0.5,
        ..CfgConfig::default()
    }
    .no_references();
    let selects = count_generated(&config, 0..300, |module| {
        count_terminators(module, Terminator::is_select_jump)
    });
    assert!(selects >= 150, "only {selects} select jumps");
    let mut merges = 0;
    for seed in 0..300u64 {
        let min = [0, 1024][(seed % 2) as usize];
        merges += check(seed, &config, min).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(merges > 150, "only {merges} merges");
}

#[test]
fn enumerations_through_generated_closures_behave_the_same() {
    // `vector_enumerate` runs closures the pass cannot see, as a call
    // does: in an arm it keeps the arm from being flattened; the closures
    // themselves are merged like any function. The first half of the
    // seeds enumerate slices of references too.
    let with_references = CfgConfig {
        blocks: 16,
        calls: 0,
        enumerate: 1,
        ..CfgConfig::default()
    };
    let without = with_references.clone().no_references();
    let (first, second) = (0..200u64, 200..400u64);
    let enumerations = [(&with_references, &first), (&without, &second)]
        .into_iter()
        .map(|(config, seeds)| {
            count_generated(config, seeds.clone(), |module| {
                count_insts(module, |d| calls_builtin(d, Builtin::SliceEnumerate))
            })
        })
        .sum::<usize>();
    assert!(
        enumerations >= 1_000,
        "only {enumerations} `vector_enumerate` calls"
    );
    let mut merges = 0;
    for seed in first.chain(second) {
        let config = if seed < 200 {
            &with_references
        } else {
            &without
        };
        let min = [0, 1024][(seed % 2) as usize];
        merges += check(seed, config, min).unwrap_or_else(|e| panic!("{e}"));
    }
    eprintln!("{enumerations} enumerations, {merges} merges");
    assert!(merges > 300, "only {merges} merges");
}

#[test]
fn generated_programs_behave_the_same() {
    let configs = [
        CfgConfig {
            blocks: 16,
            calls: 0,
            ..CfgConfig::default()
        },
        CfgConfig {
            blocks: 24,
            checks: 1,
            signed: 1,
            slices: 1,
            ..CfgConfig::default()
        },
        CfgConfig {
            blocks: 12,
            trap: 0.05,
            early_return: 0.0,
            ..CfgConfig::default()
        }
        .no_references(),
    ];
    let mut merges = 0;
    let mut failures = Vec::new();
    for seed in 0..2400u64 {
        let config = &configs[(seed % 3) as usize];
        let min = [0, 1024, 1 << 14][(seed / 3 % 3) as usize];
        match check(seed, config, min) {
            Ok(n) => merges += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures, first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(
        merges > 2400,
        "only {merges} merges: the test exercises too little"
    );
}

#[test]
fn noisy_programs_behave_the_same() {
    use kildall_harness::generate::{generate_noise, NoiseConfig, NoiseControlFlow};
    let mut failures = Vec::new();
    for seed in 0..300u64 {
        let control_flow = [
            NoiseControlFlow::None,
            NoiseControlFlow::Diamond,
            NoiseControlFlow::Loop,
        ][(seed % 3) as usize];
        let config = NoiseConfig {
            control_flow,
            ..NoiseConfig::sized(24)
        };
        let before = generate_noise(seed, &config);
        let mut after = before.clone();
        run_module::<BlockMerge>(&mut after, &Options::default()).unwrap();
        let main = before.main().unwrap();
        let params = before.functions[main].param_types();
        let args: Vec<RuntimeValue> = params
            .iter()
            .enumerate()
            .map(|(i, ty)| match ty {
                kildall_ir::Type::Unsigned(bits) => RuntimeValue::unsigned(
                    *bits,
                    (seed as u128 + i as u128) % (1 << (*bits).min(5)),
                ),
                other => RuntimeValue::zero(other).unwrap(),
            })
            .collect();
        if let Err(e) = check_same_behaviour(&before, &after, &args, TrapRule::SameKind, FUEL) {
            failures.push(format!("seed {seed}: {e}\n{before}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures[0]);
}

#[test]
fn nested_arrays_numbered_by_entry_and_by_leaf_behave_the_same() {
    // Diamonds of an `acir` function whose arms build, read and write a
    // nested array by entry and by leaf (Noir's flat numbering): merged,
    // the arms' `array_set`s and stores run under `enable_side_effects`.
    let mut merges = 0;
    for seed in 0..300u64 {
        let before = generate_flat_arrays(
            seed,
            FlatArrays {
                ops: 12,
                references: false,
            },
        );
        let mut after = before.clone();
        let options = Options {
            min_block_size: 1024,
            ..Options::default()
        };
        let reports = run_module::<BlockMerge>(&mut after, &options).unwrap().0;
        merges += reports.iter().map(|r| r.merges.len()).sum::<usize>();
        for k in 0..3 {
            let args = args(seed, k);
            check_same_behaviour(&before, &after, &args, TrapRule::SameKind, FUEL).unwrap_or_else(
                |e| {
                    panic!(
                        "seed {seed}: {e}\n--- test file:\n// args: {}\n{before}",
                        kildall_interpreter::display_list(&args)
                    )
                },
            );
        }
    }
    assert!(merges > 1_000, "only {merges} merges");
}
