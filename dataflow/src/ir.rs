//! The binding to `kildall-ir`: a function with its analyses as a
//! [`Graph`], and liveness.

use std::ops::Deref;

use kildall_graph::{Loop, PostOrder};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{Block, Function, Inst, Terminator, Value, ValueDef};

use crate::analysis::{Analysis, Backward, Graph, LoopStructure};
use crate::engine::Results;
use crate::lattice::BitSet;

/// A function seen with its analyses: the [`Graph`] analyses of
/// `kildall-ir` functions run over. The edges are the
/// [`ControlFlowGraph`]'s (a `jmpif` to one block twice is one edge, so an
/// edge effect that binds parameters reads both argument lists of
/// [`Terminator::edges_to`]; blocks outside the layout have none), the
/// instructions the function's, and the loop-aware order and loop forest
/// those of its [`FunctionAnalyses`], so a solve computes no order or loops
/// of its own.
/// It dereferences to the function, so an analysis reads the function
/// through it.
#[derive(Copy, Clone)]
pub struct FunctionGraph<'a> {
    func: &'a Function,
    cfg: &'a ControlFlowGraph,
    loops: &'a LoopAnalysis,
    loop_order: &'a PostOrder<Block>,
}

impl<'a> FunctionGraph<'a> {
    /// `func` with its analyses, computing those missing; `analyses` must
    /// describe `func` as it is (or have been invalidated since it changed).
    pub fn new(func: &'a Function, analyses: &'a mut FunctionAnalyses) -> Self {
        let (cfg, loops, loop_order) = analyses.loop_order(func);
        FunctionGraph {
            func,
            cfg,
            loops,
            loop_order,
        }
    }

    /// The function.
    pub fn function(&self) -> &'a Function {
        self.func
    }

    /// The control-flow graph.
    pub fn cfg(&self) -> &'a ControlFlowGraph {
        self.cfg
    }

    /// The natural loops.
    pub fn loops(&self) -> &'a LoopAnalysis {
        self.loops
    }
}

impl Deref for FunctionGraph<'_> {
    type Target = Function;

    fn deref(&self) -> &Function {
        self.func
    }
}

impl kildall_graph::Graph for FunctionGraph<'_> {
    type Node = Block;

    fn num_node_indices(&self) -> usize {
        self.cfg.num_block_indices()
    }

    fn entry(&self) -> Option<Block> {
        self.cfg.entry_block()
    }

    fn successors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        self.cfg.successors(block).iter().copied()
    }

    fn predecessors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        self.cfg.predecessors(block).iter().copied()
    }
}

impl Graph for FunctionGraph<'_> {
    type Inst = Inst;

    fn block_insts(&self, block: Block) -> impl DoubleEndedIterator<Item = Inst> + '_ {
        self.func.layout.block_insts(block)
    }

    fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.func.layout.inst_block(inst)
    }

    fn loop_structure(&self) -> Option<LoopStructure<'_, Block>> {
        Some(LoopStructure {
            order: self.loop_order,
            forest: self.loops.forest(),
        })
    }
}

/// Liveness of SSA values: a value is live at a point when some path from
/// the point reaches a use of it without passing its definition. Backward,
/// over a [`BitSet`] of values.
///
/// Uses are instruction operands, terminator operands (the `jmpif`
/// condition, returned values) and branch arguments, which are used *on the
/// edge*: an argument passed to `b3` is live out of its block only along the
/// edge to `b3` (the graph's one edge to `b3`, which for a `jmpif` to `b3`
/// on both edges carries both argument lists). Block parameters are
/// defined at the start of their block, so they are live at a block start
/// when used later but never live out of a predecessor. Constants are
/// never live (they have no definition to reach); operands are resolved
/// through aliases.
///
/// On a reducible graph the engine settles each loop through
/// [`Analysis::loop_invariant`]: the values live into a loop header that
/// are defined outside the loop are live throughout it (in strict SSA,
/// every value live into a header but its parameters), so each block is
/// visited once. A program that is not in strict SSA (a value used where
/// its definition does not dominate) gets the same answer, with visits
/// again where values defined in a loop are live around it.
///
/// The entry state of a block is its live-out set
/// ([`Results::entry_state`]); its live-in set is the state at
/// [`ResultsCursor::seek_to_block_start`](crate::ResultsCursor::seek_to_block_start).
#[derive(Copy, Clone, Debug, Default)]
pub struct Liveness;

impl Liveness {
    fn gen(func: &Function, state: &mut BitSet<Value>, value: Value) {
        let value = func.dfg.resolve(value);
        if !matches!(
            func.dfg.value_def(value),
            ValueDef::Const(_) | ValueDef::Global(_)
        ) {
            state.insert(value);
        }
    }
}

impl Analysis<FunctionGraph<'_>> for Liveness {
    type Domain = BitSet<Value>;
    type Direction = Backward;

    fn bottom_value(&self, func: &FunctionGraph<'_>) -> BitSet<Value> {
        BitSet::new_empty(func.dfg.num_values())
    }

    fn initialize_start_block(&self, _: &FunctionGraph<'_>, _: Block, _: &mut BitSet<Value>) {
        // Nothing is live after a `return`: its operands are uses of the
        // terminator itself.
    }

    fn apply_instruction_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut BitSet<Value>,
        inst: Inst,
    ) {
        for &result in func.dfg.inst_results(inst) {
            state.remove(result);
        }
        for &arg in func.dfg[inst].arguments().as_slice() {
            Self::gen(func, state, arg);
        }
    }

    fn apply_terminator_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut BitSet<Value>,
        block: Block,
    ) {
        match func.dfg.terminator(block) {
            Some(Terminator::JmpIf { condition, .. }) => Self::gen(func, state, *condition),
            Some(Terminator::Return { values }) => {
                for &v in values {
                    Self::gen(func, state, v);
                }
            }
            Some(Terminator::Jmp { .. } | Terminator::Unreachable) | None => {}
        }
    }

    fn has_loop_invariants(&self) -> bool {
        true
    }

    fn loop_invariant(
        &mut self,
        func: &FunctionGraph<'_>,
        lp: &Loop<'_, Block>,
        state: &mut BitSet<Value>,
    ) {
        // No effect in the loop removes a value defined outside it: only a
        // value's definition kills it.
        state.retain(|v| {
            let defined_in = match func.dfg.value_def(v) {
                ValueDef::Param(block, _) => Some(block),
                ValueDef::Result(inst, _) => func.layout.inst_block(inst),
                _ => None,
            };
            defined_in.is_none_or(|b| !lp.contains(b))
        });
    }

    fn apply_edge_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut BitSet<Value>,
        from: Block,
        to: Block,
    ) {
        for &param in func.dfg.block_params(to) {
            state.remove(param);
        }
        // The graph edge `from -> to` stands for both edges of a `jmpif`
        // whose destinations are `to`: what either passes is live out of
        // `from` (the join of the two edges' states).
        if let Some(terminator) = func.dfg.terminator(from) {
            for arguments in terminator.edges_to(to) {
                for &arg in arguments {
                    Self::gen(func, state, arg);
                }
            }
        }
    }
}

/// Solves liveness over `graph`.
pub fn liveness<'a>(graph: &FunctionGraph<'a>) -> Results<FunctionGraph<'a>, Liveness> {
    Liveness.into_engine(graph).iterate_to_fixpoint()
}
