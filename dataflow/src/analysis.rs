//! The graph a solver runs over, directions, and the [`Analysis`] trait.

use std::fmt::Debug;

use kildall_graph::{Loop, LoopForest, PostOrder};

use crate::engine::Engine;
use crate::lattice::JoinSemiLattice;

/// A control-flow graph of blocks holding instructions: what the solver
/// needs of a program. The blocks and edges are a [`kildall_graph::Graph`]
/// (its nodes are the blocks); this trait adds their instructions and,
/// where the graph keeps them, its loops. With the feature `ir`, a
/// `kildall_ir::Function` seen with its analyses is one
/// ([`FunctionGraph`](crate::FunctionGraph)); any other IR can be, with its
/// own entity types.
pub trait Graph: kildall_graph::Graph {
    /// An instruction (terminators are not instructions here: they have
    /// their own effect, [`Analysis::apply_terminator_effect`]).
    type Inst: Copy + Eq + Debug;

    /// The instructions of `block` in program order, terminator excluded.
    fn block_insts(&self, block: Self::Node) -> impl DoubleEndedIterator<Item = Self::Inst> + '_;

    /// The block holding `inst`.
    fn inst_block(&self, inst: Self::Inst) -> Option<Self::Node>;

    /// The graph's loop-aware depth-first order
    /// ([`PostOrder::compute_loops_together`]) and loop-nesting forest, if
    /// it keeps them (as [`FunctionGraph`](crate::FunctionGraph) does, from
    /// the function's analyses). The default keeps none, and the solver
    /// computes them through the graph core at each solve.
    fn loop_structure(&self) -> Option<LoopStructure<'_, Self::Node>> {
        None
    }
}

/// A graph's loop-aware depth-first order and its loop-nesting forest:
/// the order a solver visits blocks in, and the loops it settles.
#[derive(Debug)]
pub struct LoopStructure<'a, N> {
    /// The post-order whose reverse keeps each loop after its header.
    pub order: &'a PostOrder<N>,
    /// The natural loops and their nesting.
    pub forest: &'a LoopForest<N>,
}

impl<N> Clone for LoopStructure<'_, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<N> Copy for LoopStructure<'_, N> {}

/// The direction information flows in: [`Forward`] or [`Backward`].
pub trait Direction: private::Sealed + 'static {
    /// Whether states flow from the entry along edges.
    const IS_FORWARD: bool;
}

mod private {
    pub trait Sealed {}
    impl Sealed for super::Forward {}
    impl Sealed for super::Backward {}
}

/// States flow from the entry block along control-flow edges: the state of
/// a block's entry is the join, over its predecessors, of their exit states
/// passed through the edge effect.
#[derive(Copy, Clone, Debug, Default)]
pub struct Forward;

/// States flow from exit blocks against control-flow edges: the state at a
/// block's end is the join, over its successors, of their start states
/// passed back through the edge effect.
#[derive(Copy, Clone, Debug, Default)]
pub struct Backward;

impl Direction for Forward {
    const IS_FORWARD: bool = true;
}

impl Direction for Backward {
    const IS_FORWARD: bool = false;
}

/// Which block-entry states the solver keeps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum StatesKept {
    /// Every block's: [`Results::entry_state`](crate::Results::entry_state)
    /// reads any of them.
    #[default]
    AtEveryBlock,
    /// Only where states meet or start: the start blocks (forward the entry,
    /// backward the exits), blocks with several incoming edges in the
    /// analysis direction (several predecessors forward, several successors
    /// backward), and blocks entered along an edge that goes back in the
    /// visiting order (so every cycle holds a kept state). Another block,
    /// with one incoming edge, receives its state when its neighbour is
    /// visited and gives it up at its own visit, so the states alive at once
    /// are those of the joins and of the pending blocks. Its state is not
    /// in the [`Results`](crate::Results); the cursor recomputes it from
    /// the nearest kept one.
    AtJoins,
}

/// A dataflow analysis: a domain, a direction, and transfer functions.
///
/// # Program points
///
/// Within a block of `n` instructions the program points are: the block
/// start (after its parameters are bound), before and after each
/// instruction, and before and after the terminator (the block end).
/// Forward, a block's *entry state* is the state at its start and effects
/// are applied in program order: instructions, then the terminator. Backward,
/// the entry state is the state at the block end and effects are applied in
/// reverse: the terminator, then instructions from last to first.
/// Either way, states cross an edge `from -> to` through
/// [`apply_edge_effect`](Self::apply_edge_effect) and are joined into the
/// next block's entry state.
///
/// # Contract
///
/// - `Domain` is a join semi-lattice of finite height `h` (see
///   [`lattice`](crate::lattice) for the laws);
/// - every effect is *monotone*: `x ⊑ y` implies `f(x) ⊑ f(y)`;
/// - the effects depend only on their inputs (not on how often or in which
///   order the solver calls them), and so does [`bottom_value`](Self::bottom_value).
///
/// Then the solver terminates with the least fixed point above the start
/// states, whatever its worklist order, after at most `h + 1` visits of
/// each block (each re-visit follows a strict increase of the block's entry
/// state). How many visits it takes depends on the order: the worklist
/// settles each loop before the blocks after it (see [`LoopStructure`]).
pub trait Analysis<G: Graph + ?Sized> {
    /// The lattice of states.
    type Domain: JoinSemiLattice + Clone;
    /// [`Forward`] or [`Backward`].
    type Direction: Direction;

    /// The least state: what every block's entry state starts as, and stays
    /// for blocks the analysis never reaches.
    fn bottom_value(&self, graph: &G) -> Self::Domain;

    /// Sets the state where information starts: forward, the entry block's
    /// entry state (function parameters); backward, the end state of each
    /// exit block (a block without successors). `state` is bottom on input.
    fn initialize_start_block(&self, graph: &G, block: G::Node, state: &mut Self::Domain);

    /// Applies the effect of `inst` (in the analysis direction).
    fn apply_instruction_effect(&mut self, graph: &G, state: &mut Self::Domain, inst: G::Inst);

    /// Applies the effect of the terminator of `block`, apart from what it
    /// passes along each edge (in the analysis direction).
    fn apply_terminator_effect(&mut self, graph: &G, state: &mut Self::Domain, block: G::Node);

    /// Applies the effect of the control-flow edge `from -> to` (in the
    /// analysis direction): typically binding `to`'s parameters to the
    /// branch arguments of `from`. Forward, `state` is `from`'s exit state
    /// on input; backward, it is `to`'s start state. The default does nothing.
    fn apply_edge_effect(
        &mut self,
        graph: &G,
        state: &mut Self::Domain,
        from: G::Node,
        to: G::Node,
    ) {
        let _ = (graph, state, from, to);
    }

    /// Where the solver keeps a state: at every block (the default), or
    /// only at the blocks where states meet ([`StatesKept::AtJoins`]).
    fn states_kept(&self) -> StatesKept {
        StatesKept::AtEveryBlock
    }

    /// Joins `incoming`, a state flowing along an edge, into the entry
    /// state of `block`; returns whether it changed. The default is the
    /// domain's [`join`](JoinSemiLattice::join); an analysis overrides it to
    /// watch its joins (which facts the predecessors disagreed on, say), and
    /// must still compute the least upper bound.
    fn join_entry(
        &mut self,
        graph: &G,
        entry: &mut Self::Domain,
        incoming: &Self::Domain,
        block: G::Node,
    ) -> bool {
        let _ = (graph, block);
        entry.join(incoming)
    }

    /// Whether the analysis declares [loop invariants](Self::loop_invariant),
    /// so that the engine may settle a backward analysis on a reducible
    /// graph without iterating its loops. False by default.
    fn has_loop_invariants(&self) -> bool {
        false
    }

    /// Narrows `state`, on input the state at the start of the header of
    /// `lp` found without the loop's back edges (with the invariants of the
    /// loops around it already joined in), to the part of it that holds
    /// unchanged at every point of the loop. Called only for a backward
    /// analysis whose [`has_loop_invariants`](Self::has_loop_invariants) is
    /// true, on a reducible graph, once per loop, outer loops first.
    ///
    /// The engine then visits each block once over the graph without its
    /// back edges and joins each loop's invariant (with those of the loops
    /// around it) into the states of the loop's blocks, instead of carrying
    /// the header's state around the loop by visiting its blocks again.
    /// For the result to be the fixed point, the invariant `I` must be
    ///
    /// - part of the header's state: `I ⊑ state` on input;
    /// - transparent to the loop: every effect `f` of the loop's blocks and
    ///   of the edges between them satisfies `f(x ⊔ I) = f(x) ⊔ I` (none
    ///   removes any of it).
    ///
    /// Then `I` holds at every point of the loop at the fixed point (it
    /// flows from the header to the latches along the back edges and back
    /// through every block of the loop), and what the back edges carry
    /// beyond it is checked: the engine applies each back edge to the
    /// header's final state and, where that adds anything to the latch,
    /// goes on iterating from there. An invariant smaller than it could be
    /// costs visits, never the answer.
    ///
    /// Liveness of SSA values is the case in point (Brandner, Boissinot,
    /// Darte, Dupont de Dinechin and Rastello, "Computing liveness sets for
    /// SSA-form programs", 2011): a value live into a loop header and
    /// defined outside the loop is live throughout the loop, and in strict
    /// SSA every value live into a header but its parameters is defined
    /// outside. A forward analysis has no use for the hook: a header's
    /// state already flows through the loop on the first visit of its
    /// blocks, and what is missing comes around the back edges and leaves
    /// by the loop's exits, so the worklist carries it.
    ///
    /// The default declares nothing: `state` becomes bottom.
    fn loop_invariant(&mut self, graph: &G, lp: &Loop<'_, G::Node>, state: &mut Self::Domain) {
        let _ = lp;
        *state = self.bottom_value(graph);
    }

    /// A solver for this analysis over `graph`.
    fn into_engine(self, graph: &G) -> Engine<'_, G, Self>
    where
        Self: Sized,
    {
        Engine::new(graph, self)
    }
}
