//! The binding to `kildall-ir` functions: the placement problem of a
//! function, the optimization entry point, and insertion of the reductions.
//!
//! Every `noisy` value is a node: `encode` and constants are fresh
//! encodings; `add`/`sub` (checked or not) and `mul` follow the model; `if`
//! selects and block parameters join their inputs; parameters of the entry
//! block and other noisy definitions (call results, loads, array reads) are
//! sources at [`Options::input_noise`]. Blocks are visited in reverse
//! post-order, so a block parameter's inputs along forward edges are known.
//!
//! **Loops.** An argument passed along a back edge is a loop-carried value:
//! the placement must keep every iteration legal, whatever the trip count.
//! The parameter it flows into is modelled as the join of its entry inputs
//! and the encoding noise, and the carried value is required to leave with
//! at most the encoding noise (reduced unless already fresh). Then every
//! iteration starts from the same bound and the fixed point exists. This is
//! the placement "reduce the loop-carried values as needed"; placements
//! that let a carried value settle at a higher level are not explored.
// FIXME: a carried level above the encoding noise (a per-loop level chosen by
// the search) would allow fewer reductions in loops whose body adds little.

use std::time::Duration;

use kildall_ir::{
    BinaryOp, Block, EntitySet, FuncCursor, Function, Inst, InstructionData, SecondaryMap,
    Terminator, Type, Value, ValueDef,
};

use crate::order::reverse_post_order;
use crate::problem::{NodeKind, Problem};
use crate::{solve, NoiseError, NoiseParams, Strategy};

/// Options of [`optimize`].
#[derive(Clone, Debug)]
pub struct Options {
    /// How to place reductions.
    pub strategy: Strategy,
    /// The noise model.
    pub params: NoiseParams,
    /// The time limit of the exact search and of the ILP.
    pub time_limit: Duration,
    /// Noise of noisy function parameters and opaque definitions; `None`
    /// means a fresh encoding.
    pub input_noise: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            strategy: Strategy::Exact,
            params: NoiseParams::default(),
            time_limit: Duration::from_secs(10),
            input_noise: None,
        }
    }
}

impl Options {
    /// The noise of inputs.
    pub fn input_level(&self) -> u32 {
        self.input_noise.unwrap_or(self.params.encode)
    }
}

/// What [`optimize`] did.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The strategy used.
    pub strategy: Strategy,
    /// `reduce_noise` operations inserted.
    pub count: usize,
    /// A proven lower bound on the fewest reductions.
    pub lower_bound: usize,
    /// Whether `count` is proven optimal.
    pub optimal: bool,
    /// Whether the strategy's time limit expired.
    pub timed_out: bool,
    /// Time spent placing (extraction and insertion included).
    pub time: Duration,
    /// Existing `reduce_noise` operations removed before solving.
    pub removed: usize,
    /// The values now followed by a `reduce_noise`.
    pub reduced: Vec<Value>,
}

/// A function's placement problem and the value of each node.
#[derive(Clone, Debug)]
pub struct Extraction {
    /// The problem.
    pub problem: Problem,
    /// The value of each node (`None` for the synthetic nodes of loops).
    pub values: Vec<Option<Value>>,
    /// The node of each noisy value.
    pub node_of: SecondaryMap<Value, Option<usize>>,
}

fn is_noisy(func: &Function, value: Value) -> bool {
    *func.dfg.value_type(value) == Type::Noisy
}

/// Builds the placement problem of `func` (existing `reduce_noise` ops are
/// fresh sources that may not be reduced again).
pub fn extract(func: &Function, options: &Options) -> Extraction {
    let params = options.params;
    let input = options.input_level();
    let mut problem = Problem::new(params);
    let mut values: Vec<Option<Value>> = Vec::new();
    let mut node_of: SecondaryMap<Value, Option<usize>> = SecondaryMap::new();
    let order = reverse_post_order(func);

    // Incoming edge arguments of every block.
    let mut incoming: SecondaryMap<Block, Vec<Vec<Value>>> = SecondaryMap::new();
    for &block in &order {
        if let Some(Terminator::Jmp {
            destination,
            arguments,
        }) = func.dfg.terminator(block)
        {
            incoming[*destination].push(arguments.clone());
        }
    }

    let mut carried: Vec<Value> = Vec::new();
    let entry = func.layout.entry_block();
    for &block in &order {
        for (i, &param) in func.dfg.block_params(block).iter().enumerate() {
            if !is_noisy(func, param) {
                continue;
            }
            let mut inputs = Vec::new();
            let mut back_edge = false;
            if Some(block) != entry {
                for args in &incoming[block] {
                    let Some(&arg) = args.get(i) else { continue };
                    let arg = func.dfg.resolve(arg);
                    match node_of[arg] {
                        Some(node) => inputs.push(node),
                        None if arg == param => {}
                        None => {
                            back_edge = true;
                            carried.push(arg);
                        }
                    }
                }
            }
            let node = if inputs.is_empty() && !back_edge {
                problem.push(NodeKind::Source(input), Vec::new())
            } else {
                if back_edge {
                    let assumed = problem.push(NodeKind::Source(params.encode), Vec::new());
                    problem.set_reducible(assumed, false);
                    values.push(None);
                    inputs.push(assumed);
                }
                problem.push(NodeKind::Join, inputs)
            };
            values.push(Some(param));
            node_of[param] = Some(node);
        }
        for inst in func.layout.block_insts(block) {
            let Some(result) = func.dfg.first_result(inst) else {
                continue;
            };
            if !is_noisy(func, result) {
                continue;
            }
            let operand = |problem: &mut Problem, values: &mut Vec<Option<Value>>, v: Value| {
                let v = func.dfg.resolve(v);
                node_of[v].unwrap_or_else(|| {
                    let source = problem.push(NodeKind::Source(params.encode), Vec::new());
                    problem.set_reducible(source, false);
                    values.push(None);
                    source
                })
            };
            let (kind, inputs, reducible) = match func.dfg[inst] {
                InstructionData::Encode { .. } => (NodeKind::Source(params.encode), vec![], true),
                InstructionData::ReduceNoise { .. } => {
                    (NodeKind::Source(params.encode), vec![], false)
                }
                InstructionData::Binary { op, lhs, rhs } => {
                    let kind = match op {
                        BinaryOp::Mul | BinaryOp::UncheckedMul => NodeKind::Mul,
                        _ => NodeKind::Add,
                    };
                    let a = operand(&mut problem, &mut values, lhs);
                    let b = operand(&mut problem, &mut values, rhs);
                    (kind, vec![a, b], true)
                }
                InstructionData::IfElse {
                    then_value,
                    else_value,
                    ..
                } => {
                    let a = operand(&mut problem, &mut values, then_value);
                    let b = operand(&mut problem, &mut values, else_value);
                    (NodeKind::Join, vec![a, b], true)
                }
                _ => (NodeKind::Source(input), vec![], true),
            };
            let node = problem.push(kind, inputs);
            problem.set_reducible(node, reducible);
            values.push(Some(result));
            node_of[result] = Some(node);
        }
    }
    for arg in carried {
        if let Some(node) = node_of[arg] {
            problem.set_cap(node, params.encode);
        }
    }
    Extraction {
        problem,
        values,
        node_of,
    }
}

/// Removes every `reduce_noise`, forwarding its operand to its users;
/// returns how many were removed.
pub fn remove_reductions(func: &mut Function) -> usize {
    let mut found: Vec<(Inst, Value, Value)> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if let InstructionData::ReduceNoise { arg } = func.dfg[inst] {
                if let Some(result) = func.dfg.first_result(inst) {
                    found.push((inst, result, arg));
                }
            }
        }
    }
    for &(inst, result, arg) in &found {
        func.remove_inst(inst);
        func.dfg.replace_all_uses(result, arg);
    }
    if !found.is_empty() {
        func.dfg.resolve_aliases();
    }
    found.len()
}

/// Inserts `reduce_noise` right after the definition of each value of
/// `reduced` and makes every other use read the reduced value.
pub fn insert_reductions(func: &mut Function, reduced: &[Value]) {
    let mut replacement: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let mut inserted: EntitySet<Inst> = EntitySet::new();
    for &value in reduced {
        let mut cursor = FuncCursor::new(func);
        match cursor.func.dfg.value_def(value) {
            ValueDef::Result(inst, _) => {
                cursor.goto_after_inst(inst);
            }
            ValueDef::Param(block, _) => {
                cursor.goto_top(block);
            }
            _ => continue,
        }
        let new = cursor.reduce_noise(value);
        let ValueDef::Result(inst, _) = func.dfg.value_def(new) else {
            unreachable!("reduce_noise defines its result")
        };
        inserted.insert(inst);
        replacement[value] = Some(new);
    }
    let map = |v: Value| replacement[v].unwrap_or(v);
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            if !inserted.contains(inst) {
                func.dfg[inst].map_values(map);
            }
        }
        if let Some(terminator) = func.dfg.terminator_mut(block) {
            terminator.map_values(map);
        }
    }
}

/// Removes existing `reduce_noise` ops, then inserts the fewest (or, with
/// [`Strategy::Greedy`], the greedy) reductions so that no noisy op's
/// result, before or after a reduction, exceeds the maximum.
pub fn optimize(func: &mut Function, options: &Options) -> Result<Placement, NoiseError> {
    let start = std::time::Instant::now();
    options.params.validate()?;
    let removed = remove_reductions(func);
    let extraction = extract(func, options);
    let solution =
        solve(&extraction.problem, options.strategy, options.time_limit).map_err(|violation| {
            let value = (0..=violation.node)
                .rev()
                .find_map(|n| extraction.values[n])
                .expect("a node with a value");
            NoiseError::Unplaceable {
                value,
                noise: violation.noise,
                bound: violation.bound,
            }
        })?;
    let reduced: Vec<Value> = solution
        .reduced
        .iter()
        .enumerate()
        .filter(|&(_, &r)| r)
        .filter_map(|(node, _)| extraction.values[node])
        .collect();
    insert_reductions(func, &reduced);
    Ok(Placement {
        strategy: options.strategy,
        count: reduced.len(),
        lower_bound: solution.lower_bound,
        optimal: solution.optimal,
        timed_out: solution.timed_out,
        time: start.elapsed(),
        removed,
        reduced,
    })
}
