//! On generated programs, every executed block instance satisfies its
//! constraints, before and after block merging, and the run's memory
//! check (loads, stores and allocations across calls) is satisfied.

use kildall_blockmerge::{BlockMerge, Options};
use kildall_harness::generate::{generate_cfg, generate_flat_arrays, CfgConfig, FlatArrays};
use kildall_interpreter::{InterpreterOptions, RuntimeValue};
use kildall_ir::pass::run_module;
use kildall_r1cs::trace::{record, TraceError};
use kildall_r1cs::LowerError;

fn args(seed: u64) -> Vec<RuntimeValue> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9).wrapping_add(1);
        x ^ (x >> 31)
    };
    vec![
        RuntimeValue::unsigned(32, u128::from(next() % 100)),
        RuntimeValue::unsigned(32, u128::from(next() as u32)),
        RuntimeValue::unsigned(64, u128::from(next() % 1000)),
        RuntimeValue::field(u128::from(next())),
        RuntimeValue::bool(next() % 2 == 1),
    ]
}

#[test]
fn generated_instances_are_satisfied_before_and_after_merging() {
    let configs = [
        CfgConfig {
            blocks: 16,
            calls: 0,
            ..CfgConfig::default()
        },
        CfgConfig {
            blocks: 12,
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
    let interp = InterpreterOptions {
        fuel: 200_000,
        ..InterpreterOptions::default()
    };
    let (mut checked, mut unsupported, mut accesses) = (0, 0, 0);
    let mut reasons = std::collections::BTreeMap::<String, usize>::new();
    for seed in 0..500u64 {
        let before = generate_cfg(seed, &configs[(seed % 3) as usize]);
        let mut after = before.clone();
        run_module::<BlockMerge>(&mut after, &Options::default()).unwrap();
        let main = before.main().unwrap();
        for (which, module) in [("before", &before), ("after", &after)] {
            match record(module, main, args(seed), &interp) {
                Ok(trace) => {
                    // The memory check, in execution order across calls.
                    let (cs, assignment) = trace.memory.system();
                    if let Some(k) = cs.first_unsatisfied(&assignment) {
                        panic!("seed {seed}, {which} merging: memory check: {k:?}\n{module}");
                    }
                    accesses += trace.memory.valid_entries();
                    checked += 1;
                }
                Err(TraceError::Lower {
                    error: LowerError::Unsupported { what, .. },
                    ..
                }) => {
                    unsupported += 1;
                    *reasons.entry(what).or_default() += 1;
                }
                Err(e) => panic!("seed {seed}, {which} merging: {e}\n{module}"),
            }
        }
    }
    eprintln!(
        "{checked} runs checked ({accesses} memory accesses), {unsupported} with an instruction without lowering: {reasons:?}"
    );
    assert!(
        accesses > 1000,
        "the generated programs access memory: {accesses}"
    );
    assert!(
        checked >= 990,
        "only {checked} of 1000 runs checked: {reasons:?}"
    );
}

/// On generated programs over nested arrays in an `acir` function (built,
/// read and written by entry and by leaf, at constant and run-time
/// indices, of `Field` values or of references kept in cells), every
/// executed block instance satisfies its constraints, before and after
/// merging, and so does the memory check.
#[test]
fn generated_nested_arrays_are_satisfied_before_and_after_merging() {
    let interp = InterpreterOptions::default();
    let (mut checked, mut accesses) = (0, 0);
    for seed in 0..300u64 {
        let config = FlatArrays {
            ops: 6 + (seed % 7) as usize,
            references: seed % 2 == 1,
        };
        let before = generate_flat_arrays(seed, config);
        let mut after = before.clone();
        run_module::<BlockMerge>(&mut after, &Options::default()).unwrap();
        let main = before.main().unwrap();
        for (which, module) in [("before", &before), ("after", &after)] {
            let trace = record(module, main, args(seed), &interp)
                .unwrap_or_else(|e| panic!("seed {seed}, {which} merging: {e}\n{module}"));
            let (cs, assignment) = trace.memory.system();
            if let Some(k) = cs.first_unsatisfied(&assignment) {
                panic!("seed {seed}, {which} merging: memory check: {k:?}\n{module}");
            }
            accesses += trace.memory.valid_entries();
            checked += 1;
        }
    }
    assert_eq!(checked, 600);
    assert!(accesses > 1000, "the programs access memory: {accesses}");
}
