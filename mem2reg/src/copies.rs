//! References that always name one cell, given that one name before the
//! other phases run.
//!
//! Two forms of a copy hide that two references must alias:
//! - a block parameter to which every jump into its block passes the same
//!   reference (a block with one predecessor, or a loop header whose back
//!   edges pass the parameter itself back): a *trivial* φ-function in the
//!   sense of Braun, Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and
//!   Efficient Construction of Static Single Assignment Form" (CC 2013);
//! - an `if c then r else (if d) r` whose two arms are the same reference.
//!
//! The alias classes are flow-insensitive unions, so without this a store
//! through the copy makes the original's content unknown (and a load
//! through the copy is not forwarded from a store through the original)
//! although both name the same cell. Replacing the copy by the original
//! makes them one value: forwarding and dead-store removal then see the
//! same cell (Noir's must-alias facts for block parameters and `if`).
//!
//! Only values whose type holds a reference are rewritten: other copies are
//! not this pass's business. A parameter is replaced only by a value whose
//! definition strictly dominates the parameter's block, so the result is
//! SSA again; replacing one copy may make another trivial (a loop's
//! parameter passed through an inner loop), so the scan is repeated, at
//! most [`MAX_ROUNDS`] times, each round linear in the function.

use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{Block, Function, InstructionData, SecondaryMap, Value, ValueDef};

/// How many times the scan is repeated at most. Each round finds the
/// copies made trivial by the previous one; nested loops passing a
/// reference through each level need one round per level, and stopping
/// early only leaves copies in place.
const MAX_ROUNDS: usize = 8;

/// What the jumps into a block pass one of its parameters.
#[derive(Copy, Clone, Default, PartialEq, Eq)]
enum Incoming {
    /// No jump seen yet (or only the parameter itself).
    #[default]
    Nothing,
    /// Always this value.
    One(Value),
    /// Different values.
    Many,
}

impl Incoming {
    fn add(&mut self, value: Value) {
        *self = match *self {
            Incoming::Nothing => Incoming::One(value),
            Incoming::One(v) if v == value => Incoming::One(v),
            _ => Incoming::Many,
        };
    }
}

/// Replaces the reference copies of `func` by the references they copy,
/// removes the parameters (and the jump arguments that bound them) and
/// `if`s that were copies, and returns how many were removed.
pub fn propagate(func: &mut Function, analyses: &mut FunctionAnalyses) -> usize {
    if !func
        .dfg
        .values()
        .any(|(_, data)| data.ty.contains_reference())
    {
        return 0;
    }
    let mut removed = 0;
    let mut incoming: SecondaryMap<Value, Incoming> = SecondaryMap::new();
    for _ in 0..MAX_ROUNDS {
        let found = replace_parameters(func, analyses, &mut incoming) + replace_ifs(func);
        if found == 0 {
            break;
        }
        removed += found;
    }
    if removed > 0 {
        func.dfg.resolve_aliases();
        remove_replaced_parameters(func);
    }
    removed
}

/// One scan over the jumps: each reference parameter that always receives
/// one other value, defined in a block that strictly dominates the
/// parameter's, becomes an alias of it.
fn replace_parameters(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    incoming: &mut SecondaryMap<Value, Incoming>,
) -> usize {
    incoming.clear();
    let dfg = &func.dfg;
    for block in func.layout.blocks() {
        let Some(terminator) = dfg.terminator(block) else {
            continue;
        };
        for successor in terminator.successors() {
            let params = dfg.block_params(successor);
            for (&param, &argument) in params.iter().zip(terminator.edge_arguments(successor)) {
                let argument = dfg.resolve(argument);
                let still_param = matches!(dfg.value_def(param), ValueDef::Param(..));
                if argument != param && still_param && dfg.value_type(param).contains_reference() {
                    incoming[param].add(argument);
                }
            }
        }
    }
    let (_, domtree) = analyses.domtree(func);
    let mut replaced = Vec::new();
    for block in func.layout.blocks() {
        for &param in func.dfg.block_params(block) {
            if let Incoming::One(value) = incoming[param] {
                let defined_in = match func.dfg.value_def(value) {
                    ValueDef::Result(inst, _) => func.layout.inst_block(inst),
                    ValueDef::Param(def_block, _) => Some(def_block),
                    _ => None,
                };
                if defined_in.is_some_and(|d| domtree.strictly_dominates(d, block)) {
                    replaced.push((param, value));
                }
            }
        }
    }
    for &(param, value) in &replaced {
        func.dfg.replace_all_uses(param, value);
    }
    replaced.len()
}

/// Each `if` choosing between one reference and itself becomes an alias of
/// it, and is removed.
fn replace_ifs(func: &mut Function) -> usize {
    let mut copies = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if let InstructionData::IfElse {
                then_value,
                else_value,
                ..
            } = func.dfg[inst]
            {
                let value = func.dfg.resolve(then_value);
                let result = func.dfg.first_result(inst);
                if let Some(result) =
                    result.filter(|&r| func.dfg.value_type(r).contains_reference())
                {
                    if value == func.dfg.resolve(else_value) {
                        copies.push((inst, result, value));
                    }
                }
            }
        }
    }
    for &(inst, result, value) in &copies {
        func.dfg.detach_results(inst);
        func.dfg.replace_all_uses(result, value);
        func.layout.remove_inst(inst);
    }
    copies.len()
}

/// Removes the parameters that became aliases, and their arguments on
/// every jump into their blocks.
fn remove_replaced_parameters(func: &mut Function) {
    let blocks: Vec<Block> = func.layout.blocks().collect();
    let mut dead: SecondaryMap<Block, Vec<usize>> = SecondaryMap::new();
    for &block in &blocks {
        let params = func.dfg.block_params(block);
        dead[block] = (0..params.len())
            .filter(|&i| matches!(func.dfg.value_def(params[i]), ValueDef::Alias(_)))
            .collect();
    }
    for &block in &blocks {
        // A `jmpif` to one block twice yields it twice, and
        // `edge_arguments_mut` already gives both edges.
        let mut successors: Vec<Block> = match func.dfg.terminator(block) {
            Some(terminator) => terminator.successors().collect(),
            None => continue,
        };
        successors.dedup();
        for successor in successors {
            if dead[successor].is_empty() {
                continue;
            }
            let Some(terminator) = func.dfg.terminator_mut(block) else {
                continue;
            };
            for arguments in terminator.edge_arguments_mut(successor) {
                let mut index = 0;
                arguments.retain(|_| {
                    index += 1;
                    !dead[successor].contains(&(index - 1))
                });
            }
        }
    }
    for &block in &blocks {
        for &index in dead[block].iter().rev() {
            func.dfg.remove_block_param(block, index);
        }
    }
}
