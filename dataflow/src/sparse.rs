//! Analyses whose effects are sparse: a graph whose instructions are only
//! the ones an analysis declared to have an effect.
//!
//! An analysis that acts on a few kinds of instruction (loads and stores,
//! say) would otherwise pay, at every block visit, for every instruction of
//! the block, and for reading each one out of the program (a cache miss
//! each on a large function). Instead it declares its effects once: for
//! each block, in program order, the instructions that matter, each as a
//! value of its own type `E` (typically the operands it reads, copied out).
//! [`Effects`] holds them in one dense array with a range per block, and
//! [`SparseGraph`] is the original graph with those effects as its
//! instructions ([`EffectId`]s), so the engine, the cursor and every
//! [`Analysis`](crate::Analysis) method work on it unchanged and a visit
//! costs the block's effects, not its instructions.

use std::fmt;

use cranelift_entity::EntityRef;

use crate::analysis::{Graph, LoopStructure};

/// An effect: its index in [`Effects`] (all blocks', in the order they were
/// pushed). The instructions of a [`SparseGraph`].
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EffectId(u32);

impl EntityRef for EffectId {
    fn new(index: usize) -> Self {
        EffectId(u32::try_from(index).expect("fewer than 2^32 effects"))
    }

    fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for EffectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "effect{}", self.0)
    }
}

/// The effects of an analysis, block by block: a dense array of `E` with
/// the range of each block (in program order within a block).
#[derive(Clone, Debug)]
pub struct Effects<E> {
    effects: Vec<E>,
    /// The block of each effect, by effect index.
    blocks: Vec<u32>,
    /// The effects of each block, by block index.
    ranges: Vec<(u32, u32)>,
    /// Where the block being filled starts.
    start: u32,
}

impl<E> Default for Effects<E> {
    fn default() -> Self {
        Effects {
            effects: Vec::new(),
            blocks: Vec::new(),
            ranges: Vec::new(),
            start: 0,
        }
    }
}

impl<E> Effects<E> {
    /// No effects yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an effect to the block being filled (closed by [`Self::end_block`]).
    pub fn push(&mut self, effect: E) {
        self.effects.push(effect);
    }

    /// The effects pushed since the last call belong to `block`. Each block
    /// is ended at most once; a block never ended has no effects.
    pub fn end_block<B: EntityRef>(&mut self, block: B) {
        let end = self.effects.len() as u32;
        let b = block.index();
        if self.ranges.len() <= b {
            self.ranges.resize(b + 1, (0, 0));
        }
        self.ranges[b] = (self.start, end);
        self.blocks.resize(end as usize, b as u32);
        self.start = end;
    }

    /// How many effects there are.
    pub fn len(&self) -> usize {
        self.effects.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.effects.is_empty()
    }

    /// Effect `id`.
    pub fn get(&self, id: EffectId) -> &E {
        &self.effects[id.index()]
    }

    /// All effects, in order (the ids are their indices).
    pub fn as_slice(&self) -> &[E] {
        &self.effects
    }

    /// All effects, mutably (to rewrite an effect in place).
    pub fn as_mut_slice(&mut self) -> &mut [E] {
        &mut self.effects
    }

    /// The ids of the effects of `block`.
    pub fn block_range<B: EntityRef>(&self, block: B) -> std::ops::Range<usize> {
        let (lo, hi) = self.ranges.get(block.index()).copied().unwrap_or((0, 0));
        lo as usize..hi as usize
    }

    /// The effects of `block`.
    pub fn of_block<B: EntityRef>(&self, block: B) -> &[E] {
        &self.effects[self.block_range(block)]
    }

    /// Keeps only the effects for which `keep` returns true (renumbering
    /// them, in order).
    pub fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) {
        // `before[i]`: how many effects before `i` are kept, so that the
        // range `lo..hi` becomes `before[lo]..before[hi]`.
        let mut before: Vec<u32> = Vec::with_capacity(self.effects.len() + 1);
        // Effects pushed after the last `end_block` belong to no block.
        self.blocks.resize(self.effects.len(), u32::MAX);
        let mut kept = 0usize;
        for i in 0..self.effects.len() {
            before.push(kept as u32);
            if keep(&self.effects[i]) {
                self.effects.swap(kept, i);
                self.blocks.swap(kept, i);
                kept += 1;
            }
        }
        before.push(kept as u32);
        self.effects.truncate(kept);
        self.blocks.truncate(kept);
        for range in &mut self.ranges {
            *range = (before[range.0 as usize], before[range.1 as usize]);
        }
        self.start = kept as u32;
    }
}

/// `graph` with `effects` as its instructions: the same blocks and edges,
/// and in each block only the effects declared for it.
pub struct SparseGraph<'a, G: Graph + ?Sized, E> {
    graph: &'a G,
    effects: &'a Effects<E>,
}

impl<G: Graph + ?Sized, E> Clone for SparseGraph<'_, G, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Graph + ?Sized, E> Copy for SparseGraph<'_, G, E> {}

impl<'a, G: Graph + ?Sized, E> SparseGraph<'a, G, E> {
    /// `graph` seen through `effects`.
    pub fn new(graph: &'a G, effects: &'a Effects<E>) -> Self {
        SparseGraph { graph, effects }
    }

    /// The underlying graph.
    pub fn graph(&self) -> &'a G {
        self.graph
    }

    /// The effects.
    pub fn effects(&self) -> &'a Effects<E> {
        self.effects
    }

    /// Effect `id`.
    pub fn effect(&self, id: EffectId) -> &'a E {
        self.effects.get(id)
    }
}

impl<G: Graph + ?Sized, E> kildall_graph::Graph for SparseGraph<'_, G, E> {
    type Node = G::Node;

    fn num_node_indices(&self) -> usize {
        self.graph.num_node_indices()
    }

    fn entry(&self) -> Option<G::Node> {
        self.graph.entry()
    }

    fn successors(&self, block: G::Node) -> impl Iterator<Item = G::Node> + '_ {
        self.graph.successors(block)
    }

    fn predecessors(&self, block: G::Node) -> impl Iterator<Item = G::Node> + '_ {
        self.graph.predecessors(block)
    }
}

impl<G: Graph + ?Sized, E> Graph for SparseGraph<'_, G, E> {
    type Inst = EffectId;

    fn block_insts(&self, block: G::Node) -> impl DoubleEndedIterator<Item = EffectId> + '_ {
        self.effects.block_range(block).map(EffectId::new)
    }

    fn inst_block(&self, inst: EffectId) -> Option<G::Node> {
        self.effects
            .blocks
            .get(inst.index())
            .map(|&b| G::Node::new(b as usize))
    }

    fn loop_structure(&self) -> Option<LoopStructure<'_, G::Node>> {
        self.graph.loop_structure()
    }
}
