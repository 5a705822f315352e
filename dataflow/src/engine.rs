//! The worklist solver and its results.
//!
//! Kildall's method ("A unified approach to global program optimization",
//! POPL 1973) with the worklist discipline of rustc's dataflow engine: every
//! reachable block starts on the worklist; a block is visited by applying
//! its effects to its entry state and joining the result into the entry
//! states of the next blocks, which are (re)queued when they change.
//!
//! The worklist is a set (a block is queued at most once at a time) over a
//! loop-aware reverse post-order (each loop's body right after its header,
//! see [`PostOrder::compute_loops_together`]; reversed for a backward
//! analysis), and always yields its earliest block. The order and the loop
//! forest are the graph's ([`Graph::loop_structure`]), or computed once per
//! solve through the graph core when the graph keeps none. A change carried along a back edge therefore
//! settles the loop before any block after the loop is visited again, as
//! in Bourdoncle's iteration over a weak topological order; the round-robin
//! sweeps of Kam and Ullman instead carry each such change down the rest of
//! the function, once per sweep.
//!
//! A backward analysis that declares loop invariants
//! ([`Analysis::loop_invariant`]) on a reducible graph is settled without
//! iterating its loops, as liveness is on the loop-nesting forest
//! (Brandner, Boissinot, Darte, Dupont de Dinechin and Rastello, 2011):
//! the first pass visits each block once in the same order with the back
//! edges carrying only what their own effect adds (their effect applied to
//! bottom); then, outer loops first, each loop's invariant, taken from its
//! header's state, is joined into the states of its blocks; then each back
//! edge is applied to its header's final state and the worklist goes on
//! from every latch that gains anything (none, when the invariants are all
//! that flows around the loops). On an irreducible graph, or for an
//! analysis without invariants, the worklist runs from the start.

use bitvec::vec::BitVec;
use cranelift_entity::EntityRef;

#[cfg(doc)]
use kildall_graph::PostOrder;
use kildall_graph::{LoopForest, LoopNest};

use crate::analysis::{Analysis, Direction, Graph, LoopStructure, StatesKept};
use crate::cursor::ResultsCursor;
use crate::lattice::JoinSemiLattice;
use crate::order::Worklist;

const UNREACHED: u32 = u32::MAX;

/// What a solver run did.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Blocks reachable from the entry: the blocks the solver works on.
    pub blocks: usize,
    /// Block visits (effects of a whole block applied).
    pub block_visits: u64,
    /// Joins of an edge's state into a block's entry state.
    pub joins: u64,
    /// Joins that changed the entry state (and so queued the block).
    pub changed_joins: u64,
    /// Times the worklist went back to an earlier block of its order (a
    /// change carried along a back edge).
    pub restarts: u64,
    /// Loops settled through the analysis's loop invariants (see
    /// [`Analysis::loop_invariant`]): 0 when the engine iterated instead.
    pub loops_settled: usize,
    /// Joins of a loop's invariant into the state of one of its blocks, in
    /// place of visits (not counted in `block_visits` nor in `joins`).
    pub invariant_joins: u64,
}

impl Stats {
    /// Block visits divided by blocks (0 without blocks).
    pub fn visits_per_block(&self) -> f64 {
        if self.blocks == 0 {
            0.0
        } else {
            self.block_visits as f64 / self.blocks as f64
        }
    }
}

/// The fixed point: each block's entry state (see [`Analysis`] for what
/// "entry" means in each direction), the analysis, and statistics. States
/// inside blocks are recomputed on demand by a [`ResultsCursor`].
pub struct Results<G: Graph + ?Sized, A: Analysis<G>> {
    pub(crate) analysis: A,
    pub(crate) entry_states: Vec<A::Domain>,
    pub(crate) reachable: BitVec,
    /// The blocks whose entry states are kept (all when `None`).
    pub(crate) kept: Option<BitVec>,
    pub(crate) stats: Stats,
}

impl<G: Graph + ?Sized, A: Analysis<G>> Results<G, A> {
    /// The entry state of `block` in the analysis direction: forward, the
    /// state at the block start; backward, at the block end. Bottom for
    /// blocks not reachable from the entry.
    ///
    /// # Panics
    ///
    /// If the analysis keeps states only at joins ([`StatesKept::AtJoins`])
    /// and `block` keeps none: the cursor recomputes those.
    pub fn entry_state(&self, block: G::Node) -> &A::Domain {
        self.kept_entry_state(block).unwrap_or_else(|| {
            panic!("{block:?} keeps no state (states kept at joins only): use a cursor")
        })
    }

    /// The entry state of `block` if the solver kept it (always, unless
    /// the analysis keeps states only at joins).
    pub fn kept_entry_state(&self, block: G::Node) -> Option<&A::Domain> {
        self.keeps_state(block)
            .then(|| &self.entry_states[block.index()])
    }

    /// Whether the entry state of `block` is kept.
    pub fn keeps_state(&self, block: G::Node) -> bool {
        self.kept
            .as_ref()
            .is_none_or(|k| k.get(block.index()).is_none_or(|b| *b))
    }

    /// The analysis, giving up the states.
    pub fn into_analysis(self) -> A {
        self.analysis
    }

    /// Whether the solver worked on `block` (it is reachable from the entry).
    pub fn is_reachable(&self, block: G::Node) -> bool {
        self.reachable.get(block.index()).is_some_and(|b| *b)
    }

    /// The analysis.
    pub fn analysis(&self) -> &A {
        &self.analysis
    }

    /// The analysis, mutably.
    pub fn analysis_mut(&mut self) -> &mut A {
        &mut self.analysis
    }

    /// What the solver did.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// A cursor borrowing these results.
    pub fn as_cursor<'g, 'r>(&'r mut self, graph: &'g G) -> ResultsCursor<'g, G, A, &'r mut Self> {
        ResultsCursor::new(graph, self)
    }

    /// A cursor owning these results.
    pub fn into_cursor(self, graph: &G) -> ResultsCursor<'_, G, A, Self>
    where
        Self: Sized,
    {
        ResultsCursor::new(graph, self)
    }
}

/// A solver for one analysis over one graph.
pub struct Engine<'g, G: Graph + ?Sized, A: Analysis<G>> {
    graph: &'g G,
    analysis: A,
    order: Option<Vec<G::Node>>,
}

impl<'g, G: Graph + ?Sized, A: Analysis<G>> Engine<'g, G, A> {
    /// A solver for `analysis` over `graph`.
    pub fn new(graph: &'g G, analysis: A) -> Self {
        Engine {
            graph,
            analysis,
            order: None,
        }
    }

    /// Uses `order` instead of reverse post-order (post-order backward) as
    /// the worklist's seed and sweep order. Reachable blocks missing from
    /// it are appended in the default order; unreachable ones are ignored.
    /// The fixed point does not depend on the order; the number of visits
    /// does. A backward analysis settled through its loop invariants (see
    /// [`Analysis::loop_invariant`]) keeps the default order, which its
    /// first pass relies on.
    pub fn with_order(mut self, order: Vec<G::Node>) -> Self {
        self.order = Some(order);
        self
    }

    /// Runs the worklist to the fixed point.
    pub fn iterate_to_fixpoint(self) -> Results<G, A> {
        let Engine {
            graph,
            analysis,
            order,
        } = self;
        let computed: LoopNest<G::Node>;
        let structure = match graph.loop_structure() {
            Some(structure) => structure,
            None => {
                computed = LoopNest::with_graph(graph);
                LoopStructure {
                    order: computed.loop_order(),
                    forest: computed.forest(),
                }
            }
        };
        let mut solver = Solver::new(graph, analysis, structure, order.as_deref());
        solver.join_back_edges_alone();
        loop {
            solver.run_worklist();
            if !solver.first_pass_without_back_edges {
                break;
            }
            solver.first_pass_without_back_edges = false;
            solver.settle_loops();
        }
        solver.into_results()
    }
}

/// One solve: the visiting order, the entry states, the worklist, and the
/// buffers a visit reuses.
struct Solver<'a, G: Graph + ?Sized, A: Analysis<G>> {
    graph: &'a G,
    analysis: A,
    forward: bool,
    /// The loops to settle through their invariants (a backward analysis
    /// that has them, on a reducible graph).
    forest: Option<&'a LoopForest<G::Node>>,
    reachable: BitVec,
    /// The reachable blocks, by position in the visiting order.
    blocks_in_order: Vec<u32>,
    /// Each block's position in `blocks_in_order` ([`UNREACHED`] if none).
    position: Vec<u32>,
    bottom: A::Domain,
    entry_states: Vec<A::Domain>,
    /// The blocks whose entry states are kept (all when `None`).
    kept: Option<BitVec>,
    pending: Worklist,
    stats: Stats,
    /// With loop invariants, the first pass leaves the back edges out
    /// (backward, the flow from a header to its latches: edges to blocks at
    /// the same or an earlier position) and keeps each header's start
    /// state in `header_starts`.
    first_pass_without_back_edges: bool,
    header_starts: Vec<Option<A::Domain>>,
    /// The position visited last, to count restarts.
    last: usize,
    state: A::Domain,
    edge_state: A::Domain,
    insts: Vec<G::Inst>,
    next_blocks: Vec<G::Node>,
}

impl<'a, G: Graph + ?Sized, A: Analysis<G>> Solver<'a, G, A> {
    /// Orders the reachable blocks (`order` first, when given and no loop
    /// is settled), sets the start states, and queues every block.
    fn new(
        graph: &'a G,
        analysis: A,
        structure: LoopStructure<'a, G::Node>,
        order: Option<&[G::Node]>,
    ) -> Self {
        let forward = <A::Direction as Direction>::IS_FORWARD;
        let n = graph.num_node_indices();
        let postorder = structure.order.as_slice();
        let mut reachable: BitVec = BitVec::repeat(false, n);
        for b in postorder {
            reachable.set(b.index(), true);
        }
        let forest =
            (!forward && analysis.has_loop_invariants() && structure.forest.is_reducible())
                .then_some(structure.forest);
        let mut blocks_in_order: Vec<u32> = Vec::with_capacity(postorder.len());
        let mut position = vec![UNREACHED; n];
        let mut place = |b: usize| {
            if reachable[b] && position[b] == UNREACHED {
                position[b] = blocks_in_order.len() as u32;
                blocks_in_order.push(b as u32);
            }
        };
        // Settling loops needs the depth-first order they are found in:
        // a given order only seeds the plain worklist.
        if let (Some(order), None) = (order, forest) {
            order
                .iter()
                .filter(|b| b.index() < n)
                .for_each(|b| place(b.index()));
        }
        if forward {
            structure
                .order
                .reverse_postorder()
                .for_each(|b| place(b.index()));
        } else {
            postorder.iter().for_each(|b| place(b.index()));
        }

        let bottom = analysis.bottom_value(graph);
        let mut entry_states: Vec<A::Domain> = vec![bottom.clone(); n];
        if forward {
            if let Some(entry) = graph.entry() {
                analysis.initialize_start_block(graph, entry, &mut entry_states[entry.index()]);
            }
        } else {
            for &block in postorder {
                if graph.successors(block).next().is_none() {
                    analysis.initialize_start_block(graph, block, &mut entry_states[block.index()]);
                }
            }
        }
        let kept = match analysis.states_kept() {
            StatesKept::AtEveryBlock => None,
            StatesKept::AtJoins => Some(kept_at_joins(graph, forward, &blocks_in_order, &position)),
        };
        let count = blocks_in_order.len();
        let mut pending = Worklist::new(count);
        for i in 0..count {
            pending.insert(i);
        }
        let state = entry_states
            .first()
            .cloned()
            .unwrap_or_else(|| bottom.clone());
        Solver {
            graph,
            analysis,
            forward,
            forest,
            reachable,
            blocks_in_order,
            position,
            edge_state: state.clone(),
            state,
            bottom,
            entry_states,
            kept,
            pending,
            stats: Stats {
                blocks: count,
                ..Stats::default()
            },
            first_pass_without_back_edges: forest.is_some(),
            header_starts: vec![None; forest.map_or(0, LoopForest::num_loops)],
            last: 0,
            insts: Vec::new(),
            next_blocks: Vec::new(),
        }
    }

    fn keeps(&self, b: usize) -> bool {
        self.kept.as_ref().is_none_or(|k| k[b])
    }

    /// Before a first pass without back edges: what each back edge adds by
    /// itself (its effect on bottom) reaches its latch before the latch's
    /// visit.
    fn join_back_edges_alone(&mut self) {
        let Some(forest) = self.forest else {
            return;
        };
        for lp in forest.loops() {
            let header = lp.header();
            for latch in self.graph.predecessors(header) {
                let p = self.position[latch.index()];
                if p == UNREACHED || p > self.position[header.index()] {
                    continue;
                }
                self.edge_state.clone_from(&self.bottom);
                let graph = self.graph;
                self.analysis
                    .apply_edge_effect(graph, &mut self.edge_state, latch, header);
                self.stats.joins += 1;
                let l = latch.index();
                debug_assert!(self.keeps(l), "a latch keeps its state");
                let joined = &mut self.entry_states[l];
                if self
                    .analysis
                    .join_entry(graph, joined, &self.edge_state, latch)
                {
                    self.stats.changed_joins += 1;
                }
            }
        }
    }

    /// Visits queued blocks, earliest first, until none is queued.
    fn run_worklist(&mut self) {
        while let Some(next) = self.pending.pop_first() {
            if next < self.last {
                self.stats.restarts += 1;
            }
            self.last = next;
            let block = G::Node::new(self.blocks_in_order[next] as usize);
            self.visit(block, next);
            self.propagate(block);
        }
    }

    /// Applies `block`'s effects to its entry state, leaving the result in
    /// `self.state` and the blocks it flows to in `self.next_blocks`.
    fn visit(&mut self, block: G::Node, at: usize) {
        let graph = self.graph;
        let b = block.index();
        self.stats.block_visits += 1;
        if self.keeps(b) {
            self.state.clone_from(&self.entry_states[b]);
        } else {
            // The state was handed over by the one neighbour it comes from;
            // nothing else needs it.
            std::mem::swap(&mut self.state, &mut self.entry_states[b]);
            self.entry_states[b].clone_from(&self.bottom);
        }
        self.next_blocks.clear();
        if self.forward {
            for inst in graph.block_insts(block) {
                self.analysis
                    .apply_instruction_effect(graph, &mut self.state, inst);
            }
            self.analysis
                .apply_terminator_effect(graph, &mut self.state, block);
            self.next_blocks.extend(graph.successors(block));
            return;
        }
        self.analysis
            .apply_terminator_effect(graph, &mut self.state, block);
        self.insts.clear();
        self.insts.extend(graph.block_insts(block));
        for &inst in self.insts.iter().rev() {
            self.analysis
                .apply_instruction_effect(graph, &mut self.state, inst);
        }
        let position = &self.position;
        if self.first_pass_without_back_edges {
            self.next_blocks
                .extend(graph.predecessors(block).filter(|p| {
                    let pp = position[p.index()];
                    pp != UNREACHED && pp as usize > at
                }));
            if let Some(lp) = self.forest.and_then(|f| f.headed_by(block)) {
                self.header_starts[lp.index()] = Some(self.state.clone());
            }
        } else {
            self.next_blocks.extend(
                graph
                    .predecessors(block)
                    .filter(|p| position[p.index()] != UNREACHED),
            );
        }
    }

    /// Joins `self.state` along the edges from `block` to `self.next_blocks`
    /// into their entry states, queueing those that change.
    fn propagate(&mut self, block: G::Node) {
        let graph = self.graph;
        let edges = self.next_blocks.len();
        for k in 0..edges {
            let to = self.next_blocks[k];
            let t = to.index();
            // The last edge takes the state itself rather than a copy.
            let incoming = if k + 1 == edges {
                &mut self.state
            } else {
                self.edge_state.clone_from(&self.state);
                &mut self.edge_state
            };
            if self.forward {
                self.analysis.apply_edge_effect(graph, incoming, block, to);
            } else {
                self.analysis.apply_edge_effect(graph, incoming, to, block);
            }
            self.stats.joins += 1;
            let keeps = self.kept.as_ref().is_none_or(|k| k[t]);
            let changed = if keeps {
                self.analysis
                    .join_entry(graph, &mut self.entry_states[t], incoming, to)
            } else {
                std::mem::swap(&mut self.entry_states[t], incoming);
                true
            };
            if changed {
                self.stats.changed_joins += 1;
                self.pending.insert(self.position[t] as usize);
            }
        }
    }

    /// The second part of a backward solve with loop invariants, after the
    /// pass without back edges: joins each loop's invariant (with those of
    /// the loops around it) into the kept states of its blocks, then applies
    /// each back edge to its header's final start state and queues the
    /// latches that gain anything.
    fn settle_loops(&mut self) {
        let forest = self.forest.expect("loops to settle");
        let graph = self.graph;
        let mut header_starts = std::mem::take(&mut self.header_starts);
        // `held[l]`: the join of the invariants of `l` and of the loops
        // around it, which holds at every point of `l`.
        let mut held: Vec<A::Domain> = Vec::with_capacity(forest.num_loops());
        for lp in forest.loops() {
            let l = lp.index();
            let mut start = header_starts[l]
                .take()
                .expect("every loop header is visited");
            let parent = lp.parent().map(|p| p.index());
            if let Some(p) = parent {
                // The header is in the outer loops, whose invariants pass
                // through its effects unchanged.
                start.join(&held[p]);
            }
            let mut invariant = start.clone();
            self.analysis.loop_invariant(graph, &lp, &mut invariant);
            debug_assert!(
                !start.clone().join(&invariant),
                "the invariant of the loop headed by {:?} is not part of its state",
                lp.header()
            );
            if let Some(p) = parent {
                invariant.join(&held[p]);
            }
            held.push(invariant);
            header_starts[l] = Some(start);
        }
        for (b, state) in self.entry_states.iter_mut().enumerate() {
            if self.position[b] == UNREACHED || self.kept.as_ref().is_some_and(|k| !k[b]) {
                continue;
            }
            if let Some(lp) = forest.innermost(G::Node::new(b)) {
                self.stats.invariant_joins += 1;
                state.join(&held[lp.index()]);
            }
        }
        for lp in forest.loops() {
            let header = lp.header();
            let start = header_starts[lp.index()].as_ref().expect("settled");
            for latch in graph.predecessors(header) {
                let p = self.position[latch.index()];
                if p == UNREACHED || p > self.position[header.index()] {
                    continue;
                }
                self.edge_state.clone_from(start);
                self.analysis
                    .apply_edge_effect(graph, &mut self.edge_state, latch, header);
                self.stats.joins += 1;
                let joined = &mut self.entry_states[latch.index()];
                if self
                    .analysis
                    .join_entry(graph, joined, &self.edge_state, latch)
                {
                    self.stats.changed_joins += 1;
                    self.pending.insert(p as usize);
                }
            }
        }
        self.stats.loops_settled = forest.num_loops();
    }

    fn into_results(self) -> Results<G, A> {
        Results {
            analysis: self.analysis,
            entry_states: self.entry_states,
            reachable: self.reachable,
            kept: self.kept,
            stats: self.stats,
        }
    }
}

/// The blocks that keep a state under [`StatesKept::AtJoins`], by block
/// index: the start blocks, the blocks with other than one incoming edge
/// in the analysis direction, and the blocks entered along an edge from a
/// block at the same or a later position of the visiting order.
fn kept_at_joins<G: Graph + ?Sized>(
    graph: &G,
    forward: bool,
    blocks_in_order: &[u32],
    position: &[u32],
) -> BitVec {
    // Unreachable blocks keep their state: bottom.
    let mut kept: BitVec = BitVec::repeat(true, position.len());
    for (i, &b) in blocks_in_order.iter().enumerate() {
        let block = G::Node::new(b as usize);
        let mut incoming = 0usize;
        let mut back = false;
        let mut count = |from: G::Node| {
            let p = position[from.index()];
            if p != UNREACHED {
                incoming += 1;
                back |= p as usize >= i;
            }
        };
        if forward {
            graph.predecessors(block).for_each(&mut count);
        } else {
            graph.successors(block).for_each(&mut count);
        }
        let start = if forward {
            graph.entry().is_some_and(|e| e.index() == b as usize)
        } else {
            incoming == 0
        };
        kept.set(b as usize, start || incoming != 1 || back);
    }
    kept
}
