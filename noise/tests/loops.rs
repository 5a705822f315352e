//! Loops against brute force on the IR: for each loop example and both
//! costs, no set of reductions cheaper than the exact placement keeps the
//! program within the bound (every subset of the candidate reductions is
//! inserted and checked by the noise verifier), and the placed program runs
//! within the bound under the interpreter's noise tracking.

use std::path::Path;

use kildall_interpreter::{interpret, InterpreterOptions, Outcome, RuntimeValue};
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{parse_module, Block, Function, Module, SecondaryMap, Type, Value, ValueDef};
mod common;

use common::{place, verify};
use kildall_noise::{
    block_executions, insert_reductions_with_exits, Cost, NoiseParams, Options, Strategy,
};

/// A place for one reduction: after a value's definition, or at the top of
/// a block outside the value's loop (for the uses there).
#[derive(Copy, Clone, Debug)]
enum Site {
    After(Value),
    AtTop(Value, Block),
}

fn load(name: &str) -> Module {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("../examples/noise").join(name)).unwrap();
    parse_module(&text).expect("parses")
}

/// Every site a placement could use, with what a reduction there costs.
fn sites(func: &Function, cost: Cost) -> Vec<(Site, u64)> {
    let mut analyses = FunctionAnalyses::new();
    let (_, _, loops) = analyses.loops(func);
    let times = block_executions(func, loops, 1_000);
    let price = |block: Block| match cost {
        Cost::Static => 1,
        Cost::Executions => times[block],
    };
    let mut home: SecondaryMap<Value, Option<Block>> = SecondaryMap::new();
    let mut out = Vec::new();
    for block in func.layout.blocks() {
        for &param in func.dfg.block_params(block) {
            if *func.dfg.value_type(param) == Type::Noisy {
                home[param] = Some(block);
                out.push((Site::After(param), price(block)));
            }
        }
        for inst in func.layout.block_insts(block) {
            for &result in func.dfg.inst_results(inst) {
                if *func.dfg.value_type(result) == Type::Noisy {
                    home[result] = Some(block);
                    out.push((Site::After(result), price(block)));
                }
            }
        }
    }
    for block in func.layout.blocks() {
        let mut used: Vec<Value> = Vec::new();
        for inst in func.layout.block_insts(block) {
            for &arg in func.dfg[inst].arguments().as_slice() {
                let def_block = match func.dfg.value_def(arg) {
                    ValueDef::Const(_) => None,
                    _ => home[arg],
                };
                if let Some(def_block) = def_block {
                    if times[def_block] > times[block] && !used.contains(&arg) {
                        used.push(arg);
                        out.push((Site::AtTop(arg, block), price(block)));
                    }
                }
            }
        }
    }
    out
}

/// Whether some set of sites cheaper than `budget` keeps `func` legal.
fn cheaper_exists(func: &Function, cost: Cost, budget: u64) -> Option<Vec<Site>> {
    let params = NoiseParams::default();
    let sites = sites(func, cost);
    assert!(
        sites.len() <= 20,
        "{} sites: too many to enumerate",
        sites.len()
    );
    for mask in 0u32..1 << sites.len() {
        let chosen: Vec<(Site, u64)> = (0..sites.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| sites[i])
            .collect();
        let total: u64 = chosen.iter().map(|c| c.1).sum();
        if total >= budget {
            continue;
        }
        let mut placed = func.clone();
        let after: Vec<Value> = chosen
            .iter()
            .filter_map(|c| match c.0 {
                Site::After(v) => Some(v),
                Site::AtTop(..) => None,
            })
            .collect();
        let at_top: Vec<(Value, Block)> = chosen
            .iter()
            .filter_map(|c| match c.0 {
                Site::AtTop(v, b) => Some((v, b)),
                Site::After(_) => None,
            })
            .collect();
        insert_reductions_with_exits(&mut placed, &after, &at_top);
        if verify(&placed, params, params.encode).is_ok() {
            return Some(chosen.into_iter().map(|c| c.0).collect());
        }
    }
    None
}

fn check(name: &str) {
    let module = load(name);
    let main = module.main().unwrap();
    for cost in [Cost::Static, Cost::Executions] {
        for strategy in [Strategy::Exact, Strategy::Ilp] {
            let mut placed = module.clone();
            // The proof must not depend on how busy the machine is: the
            // solvers stop as soon as they prove the optimum.
            let options = Options {
                strategy,
                cost,
                time_limit: None,
                ..Options::default()
            };
            let placement = place(&mut placed.functions[main], &options).unwrap();
            assert!(placement.optimal, "{name}: {strategy}, {cost} cost");
            assert_eq!(placement.lower_bound, placement.cost());
            if let Some(sites) = cheaper_exists(&module.functions[main], cost, placement.cost()) {
                panic!(
                    "{name}: {strategy}, {cost} cost {} but {sites:?} is legal and cheaper",
                    placement.cost()
                );
            }
            // The enumeration reaches the optimum itself.
            let func = &module.functions[main];
            assert!(cheaper_exists(func, cost, placement.cost() + 1).is_some());
            for args in ["u5 3, u5 4", "u5 0, u5 31", "u5 17, u5 9"] {
                let args = RuntimeValue::parse_list(args).unwrap();
                let run = interpret(&placed, main, args, &InterpreterOptions::default());
                assert!(
                    matches!(run.outcome, Outcome::Return(_)),
                    "{name}: {strategy}, {cost} cost: {:?}",
                    run.outcome
                );
            }
        }
    }
}

#[test]
fn three_carried_values_are_placed_optimally() {
    check("three_carried.ssa");
}

#[test]
fn reductions_move_out_of_a_counted_loop() {
    check("loop_invariant.ssa");
    check("loop_exit.ssa");
}

#[test]
fn carried_levels_are_placed_optimally() {
    check("loop.ssa");
    check("loop_level.ssa");
    check("slow_growth.ssa");
}
