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
//! **Boundaries.** The counterpart of those sources: a noisy value passed
//! where they are read back, a call argument, a returned value, a stored
//! value or an array element, may carry at most the input noise (its node's
//! cap), so that each function is placed on its own and a run of the whole
//! program stays within the maximum.
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
//! `L`, so searching the levels finds the optimum (the `levels` module
//! does, for the ILP and the greedy). The exact strategy needs no levels:
//! it places on the function unrolled, copies chained along their back
//! edges, one per step of the noise analysis's iteration
//! (`extract_unrolled`, and the `unroll` module).
//!
//! **Costs.** Under [`Cost::Executions`] a reduction costs the times it
//! runs: the product of the trip counts of the loops around its block
//! (from the loop analysis; [`Options::trip_fallback`] for a loop whose
//! trip count is not known), one more for the loop's header, which also
//! runs the last test that exits. Reducing a value from before a loop is then
//! cheaper than reducing what a loop computes from it, and a value a loop
//! computes can be reduced *after* the loop: for each block that uses it
//! outside the loop, an exit node (the same noise, reduced at the top of
//! that block for the uses there) joins the problem.

use std::collections::HashMap;
use std::time::Duration;

use kildall_cover::{Budget, ProgressHook, SearchLimits, Stop};

use kildall_ir::loops::LoopAnalysis;
use kildall_ir::plaintext::scale_bits;
use kildall_ir::{
    BinaryOp, Block, EntitySet, FuncCursor, Function, Inst, InstructionData, SecondaryMap, Type,
    Value, ValueDef,
};

use crate::analysis::{passed_operands, plaintext_operand, returned_values};
use crate::problem::{NodeKind, Problem};
use crate::{NoiseParams, Strategy};

/// What a placement minimizes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Cost {
    /// The `reduce_noise` operations in the text.
    Static,
    /// The times `reduce_noise` operations run: each costs the product of
    /// the trip counts of the loops around it (the default).
    #[default]
    Executions,
}

impl Cost {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Cost::Static => "static",
            Cost::Executions => "executions",
        }
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The default effort of the exact search: enough to prove the fewest
/// reductions on every generated DAG of 1,000 operations the benchmarks
/// use (seeds 1-24).
pub const DEFAULT_EFFORT: u64 = 2_000_000;

/// The trip count assumed for a loop whose trip count is not known.
pub const DEFAULT_TRIP_FALLBACK: u64 = 1_000;

/// Options of the pass, [`NoisePlacement`](crate::NoisePlacement).
#[derive(Clone, Debug)]
pub struct Options {
    /// How to place reductions.
    pub strategy: Strategy,
    /// The noise model.
    pub params: NoiseParams,
    /// The work the exact search may do, in units of simplex pivots and
    /// search nodes ([`DEFAULT_EFFORT`] by default): where it stops depends
    /// on the program and this figure alone, so the placement is the same
    /// on every machine.
    pub effort: u64,
    /// An optional wall-clock cap on the exact search (and the time limit
    /// of the ILP, [`ILP_TIME_LIMIT`](crate::ILP_TIME_LIMIT) when `None`).
    /// When it is what stops a search, the placement may depend on the
    /// machine, and [`Placement::stopped_by`] says so.
    pub time_limit: Option<Duration>,
    /// Threads the exact search may use. The placement does not depend on
    /// it: the work is divided the same way whatever the threads.
    pub threads: usize,
    /// Called as the exact search improves a component's cover or bound
    /// (a progress display; it cannot change the placement).
    pub progress: Option<ProgressHook>,
    /// Noise of what a function reads from outside (noisy parameters, call
    /// results, loads, array reads), and so the most it may pass out (call
    /// arguments, returned, stored and array values); `None` means a fresh
    /// encoding, and less than the encoding noise counts as it.
    pub input_noise: Option<u32>,
    /// What the placement minimizes.
    pub cost: Cost,
    /// The trip count of a loop whose trip count the loop analysis does not
    /// know ([`DEFAULT_TRIP_FALLBACK`] by default).
    pub trip_fallback: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            strategy: Strategy::Exact,
            params: NoiseParams::default(),
            effort: DEFAULT_EFFORT,
            time_limit: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get().min(2)),
            progress: None,
            input_noise: None,
            cost: Cost::default(),
            trip_fallback: DEFAULT_TRIP_FALLBACK,
        }
    }
}

impl Options {
    /// The noise of inputs: [`Options::input_noise`], at least the
    /// encoding noise (a reduced value has that much, so no less can be
    /// promised across a boundary).
    pub fn input_level(&self) -> u32 {
        self.input_noise
            .unwrap_or(self.params.encode)
            .max(self.params.encode)
    }

    /// The limits of one function's search, starting now.
    pub(crate) fn limits(&self) -> SearchLimits {
        SearchLimits {
            budget: Budget::new(self.effort, self.time_limit),
            threads: self.threads,
            progress: self.progress.clone(),
        }
    }
}

/// What the pass did on one function.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The strategy used.
    pub strategy: Strategy,
    /// The cost minimized.
    pub cost_model: Cost,
    /// `reduce_noise` operations inserted (the static cost).
    pub count: usize,
    /// The times they run (the executions cost).
    pub executions: u64,
    /// A proven lower bound on the cost minimized.
    pub lower_bound: u64,
    /// Whether the placement is proven optimal for the cost minimized.
    pub optimal: bool,
    /// What stopped the search before it proved its placement optimal:
    /// the effort, or the time limit (`None` when it closed, or for the
    /// greedy, which does not search).
    pub stopped_by: Option<Stop>,
    /// Work units the exact search spent (simplex pivots and search nodes).
    pub effort: u64,
    /// Branch-and-bound nodes of the exact strategy, over every choice of
    /// carried levels tried (0 for the other strategies).
    pub search_nodes: u64,
    /// Time spent placing (extraction and insertion included).
    pub time: Duration,
    /// Existing `reduce_noise` operations removed before solving.
    pub removed: usize,
    /// The values now followed by a `reduce_noise`.
    pub reduced: Vec<Value>,
    /// The values reduced after a loop, at the top of a block that uses them.
    pub reduced_after_loops: Vec<(Value, Block)>,
}

impl Placement {
    /// The figure of the cost minimized.
    pub fn cost(&self) -> u64 {
        match self.cost_model {
            Cost::Static => self.count as u64,
            Cost::Executions => self.executions,
        }
    }
}

/// A value a loop computes, as its uses in one block after the loop see it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ExitNode {
    /// The node.
    pub node: usize,
    /// The value.
    pub value: Value,
    /// The block, outside the loop, whose uses read the node.
    pub block: Block,
}

/// A function's placement problem and the value of each node.
#[derive(Clone, Debug)]
pub struct Extraction {
    /// The problem.
    pub problem: Problem,
    /// The value of each node (`None` for the synthetic nodes of loops and
    /// for exit nodes).
    pub values: Vec<Option<Value>>,
    /// The node of each noisy value.
    pub node_of: SecondaryMap<Value, Option<usize>>,
    /// The noisy block parameters fed by a back edge, in the order their
    /// carried levels are given to [`extract_with_levels`].
    pub carried_params: Vec<Value>,
    /// Each value passed along a back edge, with the parameter it is
    /// passed to.
    pub carried_values: Vec<(Value, Value)>,
    /// The times a reduction of each node would run.
    pub executions: Vec<u64>,
    /// The exit nodes (only under [`Cost::Executions`]).
    pub exits: Vec<ExitNode>,
}

/// The carried levels [`extract_with_levels`] models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CarriedLevels {
    /// One level (in bits) per carried parameter, in the order of
    /// [`Extraction::carried_params`]; missing entries are the encoding noise.
    Fixed(Vec<u32>),
    /// A range of levels `(low, high)` per carried parameter; missing
    /// entries range over every level. The parameter assumes `low` and the
    /// values carried into it may leave with up to `high` bits, so every
    /// placement legal under some choice of levels within the ranges is
    /// legal here, and the lower bound bounds them all.
    Ranges(Vec<(u32, u32)>),
    /// A relaxation of every choice of levels: carried values are not
    /// constrained, and parameters assume the least noise. Its lower bound
    /// bounds every placement that keeps the loops legal.
    Relaxed,
}

impl CarriedLevels {
    /// The range of levels of carried parameter `i`: the level its
    /// parameter assumes and the most its carried values may have.
    fn range(&self, i: usize, params: NoiseParams) -> (u32, u32) {
        let every = (params.encode, params.max);
        let (low, high) = match self {
            CarriedLevels::Fixed(levels) => {
                let level = levels.get(i).copied().unwrap_or(params.encode);
                (level, level)
            }
            CarriedLevels::Ranges(ranges) => ranges.get(i).copied().unwrap_or(every),
            CarriedLevels::Relaxed => every,
        };
        let clamp = |l: u32| l.clamp(params.encode, params.max);
        (clamp(low), clamp(high).max(clamp(low)))
    }
}

fn is_noisy(func: &Function, value: Value) -> bool {
    *func.dfg.value_type(value) == Type::Noisy
}

/// The times each block runs per call: the product, over the loops around
/// it, of their trip counts (`fallback` for a loop of unknown trip count),
/// plus one for the loop whose header the block is (the trip count counts
/// the body's runs; the header also runs the test that exits).
pub fn block_executions(
    func: &Function,
    loops: &LoopAnalysis,
    fallback: u64,
) -> SecondaryMap<Block, u64> {
    let mut times: SecondaryMap<Block, u64> = SecondaryMap::with_default(1);
    for block in func.layout.blocks() {
        let mut product = 1u64;
        let mut around = loops.innermost_loop(block);
        while let Some(lp) = around {
            let trips = loops.trip_count(lp).unwrap_or(fallback);
            let runs = if loops.header(lp) == block {
                trips.saturating_add(1)
            } else {
                trips
            };
            product = product.saturating_mul(runs);
            around = loops.parent(lp);
        }
        times[block] = product;
    }
    times
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
    let mut analyses = kildall_ir::pass::FunctionAnalyses::new();
    let (cfg, _, loops) = analyses.loops(func);
    let order: Vec<Block> = cfg.reverse_postorder().collect();
    let times = block_executions(func, loops, options.trip_fallback);
    extract_in_order(func, &order, &times, options, levels)
}

/// [`extract_with_levels`] given the reachable blocks of `func` in reverse
/// post-order and the times each block runs.
pub(crate) fn extract_in_order(
    func: &Function,
    order: &[Block],
    times: &SecondaryMap<Block, u64>,
    options: &Options,
    levels: &CarriedLevels,
) -> Extraction {
    let mut b = Builder::new(options);
    let incoming = incoming_arguments(func, order);
    let copy = emit_copy(
        &mut b,
        func,
        order,
        &incoming,
        times,
        options,
        Carry::Levels(levels),
    );
    b.finish(copy)
}

/// The problem of the first `copies` iterations of every loop of `func` at
/// once: copy `t` of the function takes the values carried out of copy
/// `t - 1` along its back edges (the first takes none), so its noise is
/// the `t`-th step of the noise analysis's iteration from the entry. Each
/// value has a node in every copy; [`Extraction::values`] and
/// [`Extraction::exits`] name them. Every step is at most the fixed point,
/// so a placement legal on the function is legal here: the problem is a
/// relaxation, exact once the iteration has converged.
pub(crate) fn extract_unrolled(
    func: &Function,
    order: &[Block],
    times: &SecondaryMap<Block, u64>,
    options: &Options,
    copies: usize,
) -> Extraction {
    let mut b = Builder::new(options);
    let incoming = incoming_arguments(func, order);
    let emit = |b: &mut Builder, previous: &SecondaryMap<Value, Option<usize>>| {
        emit_copy(
            b,
            func,
            order,
            &incoming,
            times,
            options,
            Carry::From(previous),
        )
    };
    let mut copy = emit(&mut b, &SecondaryMap::new());
    for _ in 1..copies {
        copy = emit(&mut b, &copy.node_of);
    }
    b.finish(copy)
}

/// Where a carried parameter's back-edge input comes from in one copy.
enum Carry<'a> {
    /// A source at the parameter's carried level, the values carried into
    /// it capped at the level (see the module docs).
    Levels(&'a CarriedLevels),
    /// The nodes of the values carried out of the previous copy.
    From(&'a SecondaryMap<Value, Option<usize>>),
}

/// One copy of the function in a problem under construction.
struct Copy {
    node_of: SecondaryMap<Value, Option<usize>>,
    carried_params: Vec<Value>,
    carried_values: Vec<(Value, Value)>,
}

/// The arguments each block receives, one list per incoming jump.
fn incoming_arguments(func: &Function, order: &[Block]) -> SecondaryMap<Block, Vec<Vec<Value>>> {
    let mut incoming: SecondaryMap<Block, Vec<Vec<Value>>> = SecondaryMap::new();
    for &block in order {
        if let Some(term) = func.dfg.terminator(block) {
            for edge in term.edges() {
                if !edge.arguments.is_empty() {
                    incoming[edge.destination].push(edge.arguments.to_vec());
                }
            }
        }
    }
    incoming
}

/// Appends one copy of `func` to `b`, its blocks in `order`, each
/// receiving the arguments `incoming` lists.
fn emit_copy(
    b: &mut Builder,
    func: &Function,
    order: &[Block],
    incoming: &SecondaryMap<Block, Vec<Vec<Value>>>,
    times: &SecondaryMap<Block, u64>,
    options: &Options,
    carry: Carry<'_>,
) -> Copy {
    let mut emitter = CopyEmitter {
        func,
        incoming,
        options,
        carry,
        node_of: SecondaryMap::new(),
        exit_of: HashMap::new(),
        carried: Vec::new(),
        carried_params: Vec::new(),
        carried_values: Vec::new(),
    };
    let input = options.input_level();
    for &block in order {
        let runs = times[block];
        for (i, &param) in func.dfg.block_params(block).iter().enumerate() {
            if is_noisy(func, param) {
                let node = emitter.param_node(b, block, i, runs);
                emitter.node_of[param] = Some(node);
            }
        }
        for inst in func.layout.block_insts(block) {
            emitter.instruction(b, block, inst, runs);
        }
        for value in returned_values(func, block) {
            let node = emitter.operand(b, block, runs, value);
            b.problem.set_cap(node, input);
        }
    }
    for &(arg, cap) in &emitter.carried {
        if let Some(node) = emitter.node_of[arg] {
            b.problem.set_cap(node, cap);
        }
    }
    Copy {
        node_of: emitter.node_of,
        carried_params: emitter.carried_params,
        carried_values: emitter.carried_values,
    }
}

/// What [`emit_copy`] keeps while it appends a copy.
struct CopyEmitter<'a> {
    func: &'a Function,
    incoming: &'a SecondaryMap<Block, Vec<Vec<Value>>>,
    options: &'a Options,
    carry: Carry<'a>,
    /// The node of each value of the copy.
    node_of: SecondaryMap<Value, Option<usize>>,
    /// The exit node of a value read in a block after its loop.
    exit_of: HashMap<(Value, Block), usize>,
    /// Values carried along back edges, and the cap of their level.
    carried: Vec<(Value, u32)>,
    /// The parameters that receive a value along a back edge.
    carried_params: Vec<Value>,
    /// Each value carried along a back edge, and the parameter it reaches.
    carried_values: Vec<(Value, Value)>,
}

impl CopyEmitter<'_> {
    /// The node of the `i`th parameter of `block`: a source at the input
    /// level for the entry's (or one nothing reaches), else the join of
    /// the arguments it receives, those along back edges read as the
    /// carry says.
    fn param_node(&mut self, b: &mut Builder, block: Block, i: usize, runs: u64) -> usize {
        let func = self.func;
        let param = func.dfg.block_params(block)[i];
        let mut inputs = Vec::new();
        let mut back_args = Vec::new();
        if Some(block) != func.layout.entry_block() {
            for args in &self.incoming[block] {
                let Some(&arg) = args.get(i) else { continue };
                let arg = func.dfg.resolve(arg);
                match self.node_of[arg] {
                    Some(node) => inputs.push(node),
                    None if arg == param => {}
                    None => back_args.push(arg),
                }
            }
        }
        if inputs.is_empty() && back_args.is_empty() {
            let input = self.options.input_level();
            return b.add(NodeKind::Source(input), vec![], Some(param), runs);
        }
        if !back_args.is_empty() {
            self.carried_inputs(b, param, &back_args, runs, &mut inputs);
        }
        b.add(NodeKind::Join, inputs, Some(param), runs)
    }

    /// Adds to `inputs` what the values `back_args` carried into `param`
    /// along back edges bring: a source at the parameter's assumed level,
    /// or the nodes of the previous copy.
    fn carried_inputs(
        &mut self,
        b: &mut Builder,
        param: Value,
        back_args: &[Value],
        runs: u64,
        inputs: &mut Vec<usize>,
    ) {
        let params = self.options.params;
        self.carried_values
            .extend(back_args.iter().map(|&arg| (arg, param)));
        match self.carry {
            Carry::Levels(levels) => {
                let (assumed, cap) = levels.range(self.carried_params.len(), params);
                self.carried.extend(back_args.iter().map(|&arg| (arg, cap)));
                let assumed = b.add(NodeKind::Source(assumed), vec![], None, runs);
                b.problem.set_reducible(assumed, false);
                inputs.push(assumed);
            }
            Carry::From(previous) => {
                for &arg in back_args {
                    let node = previous.get(arg).copied().flatten();
                    let node = node.unwrap_or_else(|| {
                        // Nothing carried yet: the first iteration.
                        let source = b.add(NodeKind::Source(params.encode), vec![], None, runs);
                        b.problem.set_reducible(source, false);
                        source
                    });
                    inputs.push(node);
                }
            }
        }
        self.carried_params.push(param);
    }

    /// The node of `inst`'s noisy result, if it has one; the values it
    /// passes across a boundary capped at the input level.
    fn instruction(&mut self, b: &mut Builder, block: Block, inst: Inst, runs: u64) {
        let func = self.func;
        let params = self.options.params;
        let input = self.options.input_level();
        // A value passed across a boundary is read back as a source at the
        // input level: it may carry no more.
        for value in passed_operands(func, inst) {
            let node = self.operand(b, block, runs, value);
            b.problem.set_cap(node, input);
        }
        let Some(result) = func.dfg.first_result(inst) else {
            return;
        };
        if !is_noisy(func, result) {
            return;
        }
        let (kind, inputs, reducible) = match func.dfg[inst] {
            InstructionData::Encode { .. } => (NodeKind::Source(params.encode), vec![], true),
            InstructionData::ReduceNoise { .. } => (NodeKind::Source(params.encode), vec![], false),
            InstructionData::Binary { op, lhs, rhs }
                if plaintext_operand(func, lhs, rhs).is_some() =>
            {
                let (noisy, c) = plaintext_operand(func, lhs, rhs).expect("checked");
                let bits = match op {
                    BinaryOp::Mul | BinaryOp::UncheckedMul => scale_bits(c),
                    _ => 0,
                };
                let a = self.operand(b, block, runs, noisy);
                (NodeKind::Scale(bits), vec![a], true)
            }
            InstructionData::Binary { op, lhs, rhs } => {
                let kind = match op {
                    BinaryOp::Mul | BinaryOp::UncheckedMul => NodeKind::Mul,
                    _ => NodeKind::Add,
                };
                let lhs = self.operand(b, block, runs, lhs);
                let rhs = self.operand(b, block, runs, rhs);
                (kind, vec![lhs, rhs], true)
            }
            InstructionData::IfElse {
                then_value,
                else_value,
                ..
            } => {
                let then_node = self.operand(b, block, runs, then_value);
                let else_node = self.operand(b, block, runs, else_value);
                (NodeKind::Join, vec![then_node, else_node], true)
            }
            _ => (NodeKind::Source(input), vec![], true),
        };
        let node = b.add(kind, inputs, Some(result), runs);
        b.problem.set_reducible(node, reducible);
        self.node_of[result] = Some(node);
    }

    /// [`operand_node`] in this copy.
    fn operand(&mut self, b: &mut Builder, block: Block, runs: u64, v: Value) -> usize {
        let (func, node_of) = (self.func, &self.node_of);
        operand_node(b, func, node_of, &mut self.exit_of, block, runs, v)
    }
}

/// The node an operand `v` of `block` (which runs `runs` times) reads: its
/// own; an exit node when it comes from a loop `block` is outside of
/// (under the executions cost), made once per value and block in
/// `exit_of`; or a fresh source for a constant.
fn operand_node(
    b: &mut Builder,
    func: &Function,
    node_of: &SecondaryMap<Value, Option<usize>>,
    exit_of: &mut HashMap<(Value, Block), usize>,
    block: Block,
    runs: u64,
    v: Value,
) -> usize {
    let v = func.dfg.resolve(v);
    let Some(node) = node_of[v] else {
        let source = b.add(
            NodeKind::Source(b.problem.params().encode),
            vec![],
            None,
            runs,
        );
        b.problem.set_reducible(source, false);
        return source;
    };
    if !b.weighted || b.executions[node] <= runs {
        return node;
    }
    *exit_of.entry((v, block)).or_insert_with(|| {
        let exit = b.add(NodeKind::Join, vec![node], None, runs);
        b.exits.push(ExitNode {
            node: exit,
            value: v,
            block,
        });
        exit
    })
}

/// The problem under construction, with the value and the executions of
/// each node.
struct Builder {
    problem: Problem,
    values: Vec<Option<Value>>,
    executions: Vec<u64>,
    exits: Vec<ExitNode>,
    weighted: bool,
}

impl Builder {
    fn new(options: &Options) -> Self {
        Builder {
            problem: Problem::new(options.params),
            values: Vec::new(),
            executions: Vec::new(),
            exits: Vec::new(),
            weighted: options.cost == Cost::Executions,
        }
    }

    /// The extraction, its last copy naming the values.
    fn finish(self, copy: Copy) -> Extraction {
        Extraction {
            problem: self.problem,
            values: self.values,
            node_of: copy.node_of,
            carried_params: copy.carried_params,
            carried_values: copy.carried_values,
            executions: self.executions,
            exits: self.exits,
        }
    }

    /// Appends a node that runs `runs` times; its reduction costs that
    /// under the executions cost.
    fn add(
        &mut self,
        kind: NodeKind,
        inputs: Vec<usize>,
        value: Option<Value>,
        runs: u64,
    ) -> usize {
        let node = self.problem.push(kind, inputs);
        self.problem
            .set_cost(node, if self.weighted { runs } else { 1 });
        self.values.push(value);
        self.executions.push(runs);
        node
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
    insert_reductions_with_exits(func, reduced, &[]);
}

/// [`insert_reductions`], then for each `(value, block)` of `after_loops` a
/// `reduce_noise` at the top of `block` that the instructions of `block`
/// read instead of the value (or of its reduction).
pub fn insert_reductions_with_exits(
    func: &mut Function,
    reduced: &[Value],
    after_loops: &[(Value, Block)],
) {
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
    for &(value, block) in after_loops {
        let value = replacement[value].unwrap_or(value);
        let new = FuncCursor::new(func).goto_top(block).reduce_noise(value);
        let ValueDef::Result(first, _) = func.dfg.value_def(new) else {
            unreachable!("reduce_noise defines its result")
        };
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            if inst != first {
                func.dfg[inst].map_values(|v| if v == value { new } else { v });
            }
        }
    }
}
