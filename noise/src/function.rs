//! The binding to `kildall-ir` functions: the placement problem of a
//! function, the optimization entry point, and insertion of the reductions.
//!
//! Every `noisy` value is a node: `encode` and constants are fresh
//! encodings; `add`/`sub` (checked or not) and `mul` follow the model, with
//! a plaintext constant operand `mul` adds `ceil(log2(|c|))` bits to its
//! noisy operand and `add`/`sub` nothing ([`NodeKind::Scale`]); `if`
//! selects and block parameters join their inputs; parameters of the entry
//! block and other noisy definitions (call results, loads, array reads) are
//! sources at [`Options::input_noise`]. Blocks are visited in reverse
//! post-order, so a block parameter's inputs along forward edges are known.
//!
//! **Loops.** An argument passed along a back edge is a loop-carried value:
//! the placement must keep every iteration legal, whatever the trip count.
//! Each noisy parameter fed by a back edge gets a *carried level* `L`: the
//! parameter is modelled as the join of its entry inputs and a source of
//! noise `L`, and every value carried back into it must leave with at most
//! `L` bits (reduced if needed). Then the bound `max(entry, L)` holds on
//! entry to every iteration, so it is a fixed point and every iteration is
//! legal; the noise analysis checks the result independently. Conversely,
//! any legal placement has a fixed point, whose carried noise is such an
//! `L`, so trying every level finds the optimum: [`optimize`] tries all
//! combinations of levels when there are few carried parameters (at most
//! [`EXHAUSTIVE_LEVELS`] problems), and otherwise improves one parameter's
//! level at a time starting from the encoding noise (then the count is not
//! claimed optimal).

use std::time::Duration;

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::plaintext::scale_bits;
use kildall_ir::{
    BinaryOp, Block, EntitySet, FuncCursor, Function, Inst, InstructionData, SecondaryMap,
    Terminator, Type, Value, ValueDef,
};

use crate::analysis::plaintext_operand;
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
    /// Branch-and-bound nodes of the exact strategy, over every choice of
    /// carried levels tried (0 for the other strategies).
    pub search_nodes: u64,
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
    /// The noisy block parameters fed by a back edge, in the order their
    /// carried levels are given to [`extract_with_levels`].
    pub carried_params: Vec<Value>,
}

/// The carried levels [`extract_with_levels`] models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CarriedLevels {
    /// One level (in bits) per carried parameter, in the order of
    /// [`Extraction::carried_params`]; missing entries are the encoding noise.
    Fixed(Vec<u32>),
    /// A relaxation of every choice of levels: carried values are not
    /// constrained, and parameters assume the least noise. Its lower bound
    /// bounds every placement that keeps the loops legal.
    Relaxed,
}

/// The most problems [`optimize`] solves to try every combination of
/// carried levels; with more combinations it improves one level at a time.
pub const EXHAUSTIVE_LEVELS: usize = 256;

fn is_noisy(func: &Function, value: Value) -> bool {
    *func.dfg.value_type(value) == Type::Noisy
}

/// Builds the placement problem of `func` (existing `reduce_noise` ops are
/// fresh sources that may not be reduced again), with every loop-carried
/// value held to the encoding noise.
pub fn extract(func: &Function, options: &Options) -> Extraction {
    extract_with_levels(func, options, &CarriedLevels::Fixed(Vec::new()))
}

/// [`extract`] with the given carried levels (see the module docs on loops).
pub fn extract_with_levels(
    func: &Function,
    options: &Options,
    levels: &CarriedLevels,
) -> Extraction {
    let order: Vec<Block> = ControlFlowGraph::with_function(func)
        .reverse_postorder()
        .collect();
    extract_in_order(func, &order, options, levels)
}

/// [`extract_with_levels`] given the reachable blocks of `func` in reverse
/// post-order.
fn extract_in_order(
    func: &Function,
    order: &[Block],
    options: &Options,
    levels: &CarriedLevels,
) -> Extraction {
    let params = options.params;
    let input = options.input_level();
    let mut problem = Problem::new(params);
    let mut values: Vec<Option<Value>> = Vec::new();
    let mut node_of: SecondaryMap<Value, Option<usize>> = SecondaryMap::new();

    // Incoming edge arguments of every block.
    let mut incoming: SecondaryMap<Block, Vec<Vec<Value>>> = SecondaryMap::new();
    for &block in order {
        if let Some(Terminator::Jmp {
            destination,
            arguments,
        }) = func.dfg.terminator(block)
        {
            incoming[*destination].push(arguments.clone());
        }
    }

    let mut carried: Vec<(Value, u32)> = Vec::new();
    let mut carried_params: Vec<Value> = Vec::new();
    let entry = func.layout.entry_block();
    for &block in order {
        for (i, &param) in func.dfg.block_params(block).iter().enumerate() {
            if !is_noisy(func, param) {
                continue;
            }
            let mut inputs = Vec::new();
            let mut back_edge = false;
            let level = match levels {
                CarriedLevels::Fixed(levels) => levels
                    .get(carried_params.len())
                    .copied()
                    .unwrap_or(params.encode)
                    .clamp(params.encode, params.max),
                CarriedLevels::Relaxed => params.max,
            };
            if Some(block) != entry {
                for args in &incoming[block] {
                    let Some(&arg) = args.get(i) else { continue };
                    let arg = func.dfg.resolve(arg);
                    match node_of[arg] {
                        Some(node) => inputs.push(node),
                        None if arg == param => {}
                        None => {
                            back_edge = true;
                            carried.push((arg, level));
                        }
                    }
                }
            }
            let node = if inputs.is_empty() && !back_edge {
                problem.push(NodeKind::Source(input), Vec::new())
            } else {
                if back_edge {
                    carried_params.push(param);
                    let assumed = match levels {
                        CarriedLevels::Fixed(_) => level,
                        CarriedLevels::Relaxed => params.encode,
                    };
                    let assumed = problem.push(NodeKind::Source(assumed), Vec::new());
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
                InstructionData::Binary { op, lhs, rhs }
                    if plaintext_operand(func, lhs, rhs).is_some() =>
                {
                    let (noisy, c) = plaintext_operand(func, lhs, rhs).expect("checked");
                    let bits = match op {
                        BinaryOp::Mul | BinaryOp::UncheckedMul => scale_bits(c),
                        _ => 0,
                    };
                    let a = operand(&mut problem, &mut values, noisy);
                    (NodeKind::Scale(bits), vec![a], true)
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
    for (arg, level) in carried {
        if let Some(node) = node_of[arg] {
            problem.set_cap(node, level);
        }
    }
    Extraction {
        problem,
        values,
        node_of,
        carried_params,
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

/// The best placement over the choices of carried levels tried so far, and
/// what is proven about all of them.
struct Best {
    extraction: Extraction,
    solution: crate::Solution,
    /// The smallest lower bound over the choices: a bound of every one.
    lower_bound: usize,
    optimal: bool,
    timed_out: bool,
    search_nodes: u64,
}

impl Best {
    fn new(extraction: Extraction, solution: crate::Solution) -> Self {
        Best {
            lower_bound: solution.lower_bound,
            optimal: solution.optimal,
            timed_out: solution.timed_out,
            search_nodes: solution.search_nodes,
            extraction,
            solution,
        }
    }

    /// Takes one more choice of levels into account. An error means no
    /// placement under those levels: nothing to bound.
    fn consider(&mut self, attempt: Result<(Extraction, crate::Solution), NoiseError>) {
        let Ok((extraction, solution)) = attempt else {
            return;
        };
        self.lower_bound = self.lower_bound.min(solution.lower_bound);
        self.optimal &= solution.optimal;
        self.timed_out |= solution.timed_out;
        self.search_nodes += solution.search_nodes;
        if solution.count < self.solution.count {
            self.extraction = extraction;
            self.solution = solution;
        }
    }

    /// Bounds every choice of levels by the relaxation that lets each
    /// carried value take any level, when not all choices were tried.
    fn bound_by_relaxation(&mut self, relaxed: Result<(Extraction, crate::Solution), NoiseError>) {
        self.lower_bound = match relaxed {
            Ok((_, relaxed)) => relaxed.lower_bound.min(self.solution.count),
            Err(_) => 0,
        };
        self.optimal = self.lower_bound >= self.solution.count;
    }
}

/// Removes existing `reduce_noise` ops, then inserts the fewest (or, with
/// [`Strategy::Greedy`], the greedy) reductions so that no noisy op's
/// result, before or after a reduction, exceeds the maximum.
pub fn optimize(func: &mut Function, options: &Options) -> Result<Placement, NoiseError> {
    optimize_with(func, &mut FunctionAnalyses::new(), options)
}

/// [`optimize`] given the analyses of `func`, which stay valid: reductions
/// go inside blocks.
pub fn optimize_with(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    options: &Options,
) -> Result<Placement, NoiseError> {
    let start = std::time::Instant::now();
    options.params.validate()?;
    let order: Vec<Block> = analyses.cfg(func).reverse_postorder().collect();
    let removed = remove_reductions(func);
    let deadline = start + options.time_limit;
    let left = || deadline.saturating_duration_since(std::time::Instant::now());
    let func_ref: &Function = func;
    let attempt = |levels: &CarriedLevels| {
        let extraction = extract_in_order(func_ref, &order, options, levels);
        match solve(&extraction.problem, options.strategy, left()) {
            Ok(solution) => Ok((extraction, solution)),
            Err(violation) => {
                let value = (0..=violation.node)
                    .rev()
                    .find_map(|n| extraction.values[n])
                    .expect("a node with a value");
                Err(NoiseError::Unplaceable {
                    value,
                    noise: violation.noise,
                    bound: violation.bound,
                })
            }
        }
    };
    // Every carried value at the encoding noise: always placeable when
    // anything is, since a carried value can always be reduced.
    let (extraction, solution) = attempt(&CarriedLevels::Fixed(Vec::new()))?;
    let loops = extraction.carried_params.len();
    let mut best = Best::new(extraction, solution);
    if loops > 0 && options.strategy == Strategy::Greedy {
        // The greedy keeps carried values at the encoding noise; only the
        // relaxation bounds the placements with other levels.
        best.bound_by_relaxation(attempt(&CarriedLevels::Relaxed));
    }
    if loops > 0 && options.strategy != Strategy::Greedy {
        let params = options.params;
        let span = (params.max - params.encode + 1) as usize;
        let exhaustive = span
            .checked_pow(loops as u32)
            .is_some_and(|n| n <= EXHAUSTIVE_LEVELS);
        if exhaustive {
            // Every combination but the one solved above, as an odometer.
            let mut levels = vec![params.encode; loops];
            while let Some(i) = (0..loops).find(|&i| levels[i] < params.max) {
                levels[i] += 1;
                levels[..i].iter_mut().for_each(|l| *l = params.encode);
                if left().is_zero() {
                    best.timed_out = true;
                    best.optimal = false;
                    break;
                }
                best.consider(attempt(&CarriedLevels::Fixed(levels.clone())));
            }
            best.optimal &= best.lower_bound >= best.solution.count;
        } else {
            // One loop at a time, the others at their best level so far.
            let mut levels = vec![params.encode; loops];
            for i in 0..loops {
                let mut best_level = params.encode;
                for level in params.encode + 1..=params.max {
                    if left().is_zero() {
                        break;
                    }
                    levels[i] = level;
                    let before = best.solution.count;
                    best.consider(attempt(&CarriedLevels::Fixed(levels.clone())));
                    if best.solution.count < before {
                        best_level = level;
                    }
                }
                levels[i] = best_level;
            }
            // Only the relaxation bounds every choice of levels.
            best.bound_by_relaxation(attempt(&CarriedLevels::Relaxed));
        }
    }
    let Best {
        extraction,
        solution,
        lower_bound,
        optimal,
        timed_out,
        search_nodes,
    } = best;
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
        lower_bound: lower_bound.min(reduced.len()),
        optimal,
        timed_out,
        search_nodes,
        time: start.elapsed(),
        removed,
        reduced,
    })
}
