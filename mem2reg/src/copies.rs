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
//! SSA again. Replacing one copy may make another trivial (a loop's
//! parameter passed through an inner loop): one walk over the function
//! gathers the bindings of reference parameters and the `if`s of
//! references, and up to eight rounds over those find the copies.
//! The uses of a replaced value are renamed by the pass's next walk (as
//! those of a replaced load), not by a walk of their own.

use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{
    Block, EntitySet, Function, Inst, InstructionData, SecondaryMap, Value, ValueDef,
};

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

/// Replaces the reference copies of `func` by the references they copy:
/// removes the parameters (and the jump arguments that bound them) and the
/// `if`s that were copies, and makes each an alias of what it copied.
/// Returns the replaced values; their uses are left to be renamed by the
/// pass's next walk over the instructions, as those of replaced loads are.
pub fn propagate(func: &mut Function, analyses: &mut FunctionAnalyses) -> Vec<Value> {
    // One walk over the jumps and the instructions gathers the candidates;
    // the rounds then only look at those.
    let mut bindings = Vec::new();
    for block in func.layout.blocks() {
        let Some(terminator) = func.dfg.terminator(block) else {
            continue;
        };
        // Every edge: a parameter a `jmpif` binds on both edges is a copy
        // only if both pass the same reference.
        for edge in terminator.edges() {
            let params = func.dfg.block_params(edge.destination);
            for (&param, &argument) in params.iter().zip(edge.arguments) {
                if func.dfg.value_type(param).contains_reference() {
                    bindings.push((param, argument));
                }
            }
        }
    }
    let ifs = reference_ifs(func);
    if bindings.is_empty() && ifs.is_empty() {
        return Vec::new();
    }
    let mut replaced = Vec::new();
    let mut parameters = Vec::new();
    let mut incoming: SecondaryMap<Value, Incoming> = SecondaryMap::new();
    let mut ifs_left = ifs;
    let mut renamed = Renamed::new(func, &bindings);
    // The first round looks at every binding, a later one only at the
    // parameters whose arguments the previous round renamed: the others
    // would come out as they did.
    let mut looked_at = bindings.clone();
    for _ in 0..MAX_ROUNDS {
        let before = replaced.len();
        for (param, block) in replace_parameters(func, analyses, &looked_at, &mut incoming) {
            replaced.push(param);
            parameters.push((param, block));
        }
        ifs_left.retain(|&(inst, result, then_value, else_value)| {
            let value = func.dfg.resolve(then_value);
            if value != func.dfg.resolve(else_value) {
                return true;
            }
            func.dfg.detach_results(inst);
            func.dfg.replace_all_uses(result, value);
            func.layout.remove_inst(inst);
            replaced.push(result);
            false
        });
        if replaced.len() == before {
            break;
        }
        renamed.update(func, &bindings, &replaced[before..]);
        looked_at.clear();
        looked_at.extend(bindings.iter().filter(|&&(param, _)| {
            renamed.parameters.contains(param)
                && matches!(func.dfg.value_def(param), ValueDef::Param(..))
        }));
    }
    remove_parameters(func, analyses, &parameters);
    replaced
}

/// What each binding's argument resolves to, kept up to date from round
/// to round, and the parameters whose arguments the last round renamed.
struct Renamed {
    /// By binding: its argument, resolved.
    resolved: Vec<Value>,
    /// The values the last round replaced.
    replaced: EntitySet<Value>,
    parameters: EntitySet<Value>,
}

impl Renamed {
    fn new(func: &Function, bindings: &[(Value, Value)]) -> Self {
        Renamed {
            resolved: bindings.iter().map(|&(_, a)| func.dfg.resolve(a)).collect(),
            replaced: EntitySet::new(),
            parameters: EntitySet::new(),
        }
    }

    /// Notes the values `replaced` by a round: an argument resolves to
    /// something else exactly when what it resolved to is one of them.
    fn update(&mut self, func: &Function, bindings: &[(Value, Value)], replaced: &[Value]) {
        self.replaced.clear();
        for &v in replaced {
            self.replaced.insert(v);
        }
        self.parameters.clear();
        for (resolved, &(param, argument)) in self.resolved.iter_mut().zip(bindings) {
            if self.replaced.contains(*resolved) {
                *resolved = func.dfg.resolve(argument);
                self.parameters.insert(param);
            }
        }
    }
}

/// The `if`s whose result holds a reference: (instruction, result, then
/// value, else value).
fn reference_ifs(func: &Function) -> Vec<(Inst, Value, Value, Value)> {
    let mut ifs = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if let InstructionData::IfElse {
                then_value,
                else_value,
                ..
            } = func.dfg[inst]
            {
                let result = func.dfg.first_result(inst);
                if let Some(result) =
                    result.filter(|&r| func.dfg.value_type(r).contains_reference())
                {
                    ifs.push((inst, result, then_value, else_value));
                }
            }
        }
    }
    ifs
}

/// One round over the bindings of reference parameters: each parameter
/// that always receives one other value, defined in a block that strictly
/// dominates the parameter's, becomes an alias of it. Returns those
/// parameters with their blocks.
fn replace_parameters(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    bindings: &[(Value, Value)],
    incoming: &mut SecondaryMap<Value, Incoming>,
) -> Vec<(Value, Block)> {
    // Reset only the entries of the parameters at hand: clearing the map
    // would grow it back to the largest parameter's index every round.
    for &(param, _) in bindings {
        incoming[param] = Incoming::Nothing;
    }
    let dfg = &func.dfg;
    for &(param, argument) in bindings {
        let argument = dfg.resolve(argument);
        if argument != param && matches!(dfg.value_def(param), ValueDef::Param(..)) {
            incoming[param].add(argument);
        }
    }
    let (_, domtree) = analyses.domtree(func);
    let mut found = Vec::new();
    for &(param, _) in bindings {
        let Incoming::One(value) = incoming[param] else {
            continue;
        };
        let ValueDef::Param(block, _) = func.dfg.value_def(param) else {
            continue;
        };
        let defined_in = match func.dfg.value_def(value) {
            ValueDef::Result(inst, _) => func.layout.inst_block(inst),
            ValueDef::Param(def_block, _) => Some(def_block),
            _ => None,
        };
        if defined_in.is_some_and(|d| domtree.strictly_dominates(d, block)) {
            found.push((param, block, value));
            // Once: a parameter bound on several edges is listed once per edge.
            incoming[param] = Incoming::Many;
        }
    }
    found
        .into_iter()
        .map(|(param, block, value)| {
            func.dfg.replace_all_uses(param, value);
            (param, block)
        })
        .collect()
}

/// Removes the replaced parameters from their blocks, and their arguments
/// from every jump into those blocks; each stays an alias of what it
/// copied, for the renaming of its uses.
fn remove_parameters(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    params: &[(Value, Block)],
) {
    let mut dead: SecondaryMap<Block, Vec<usize>> = SecondaryMap::new();
    let mut blocks = Vec::new();
    for &(param, block) in params {
        let Some(index) = func
            .dfg
            .block_params(block)
            .iter()
            .position(|&p| p == param)
        else {
            continue;
        };
        if dead[block].is_empty() {
            blocks.push(block);
        }
        dead[block].push(index);
    }
    let cfg = analyses.cfg(func);
    for &block in &blocks {
        dead[block].sort_unstable();
        let mut predecessors = cfg.predecessors(block).to_vec();
        // A `jmpif` to the block on both edges is one predecessor, whose
        // `edges_to_mut` gives both argument lists.
        predecessors.sort_unstable();
        predecessors.dedup();
        for predecessor in predecessors {
            let Some(terminator) = func.dfg.terminator_mut(predecessor) else {
                continue;
            };
            for arguments in terminator.edges_to_mut(block) {
                let mut index = 0;
                arguments.retain(|_| {
                    index += 1;
                    dead[block].binary_search(&(index - 1)).is_err()
                });
            }
        }
    }
    for &block in &blocks {
        for &index in dead[block].iter().rev() {
            let param = func.dfg.block_params(block)[index];
            let target = func.dfg.resolve(param);
            func.dfg.remove_block_param(block, index);
            func.dfg.replace_all_uses(param, target);
        }
    }
}
