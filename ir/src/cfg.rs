//! The control-flow graph of a function: successors and predecessors of every
//! block, post-order and reverse post-order.
//!
//! Edges are stored in compressed sparse rows (one offset table and one flat
//! edge array per direction), so a graph of a million blocks costs a handful
//! of allocations, and recomputing for another function reuses them. The
//! graph is a [`kildall_graph::Graph`], and its depth-first orders are the
//! graph core's [`PostOrder`].

use cranelift_entity::EntityRef;
use kildall_graph::{Graph, PostOrder};

use crate::{Block, Function};

/// Successors, predecessors and the depth-first orders of a function's
/// blocks. Only blocks in the layout take part.
///
/// This is a graph of blocks: it has at most one edge from a block to
/// another, and lists each predecessor and each successor once. A `jmpif`
/// whose two destinations are the same block contributes one graph edge,
/// which stands for both of the terminator's edges ([`crate::EdgeSlot`]);
/// those may pass different arguments, so whatever binds a block's
/// parameters along a graph edge `p -> b` reads every argument list of
/// [`Terminator::edges_to`](crate::Terminator::edges_to) (or walks
/// [`Terminator::edges`](crate::Terminator::edges) from `p`).
///
/// Like every analysis of this crate it follows one shape: [`new`](Self::new)
/// makes an empty one, [`compute`](Self::compute) fills it for a function
/// (reusing its buffers), [`clear`](Self::clear) empties it.
#[derive(Clone, Default, Debug)]
pub struct ControlFlowGraph {
    entry: Option<Block>,
    succ_start: Vec<u32>,
    succs: Vec<Block>,
    pred_start: Vec<u32>,
    preds: Vec<Block>,
    order: PostOrder<Block>,
    valid: bool,
    // Scratch kept across computations.
    pred_fill: Vec<u32>,
}

impl ControlFlowGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The graph of `func`.
    pub fn with_function(func: &Function) -> Self {
        let mut cfg = Self::new();
        cfg.compute(func);
        cfg
    }

    /// Empties the graph, keeping its buffers.
    pub fn clear(&mut self) {
        self.entry = None;
        self.succ_start.clear();
        self.succs.clear();
        self.pred_start.clear();
        self.preds.clear();
        self.order.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Computes the graph of `func`.
    pub fn compute(&mut self, func: &Function) {
        self.clear();
        let n = func.dfg.num_blocks();
        self.entry = func.layout.entry_block();
        self.succ_start.resize(n + 1, 0);
        // Successors, in block-index order so that lookups are by index.
        for index in 0..n {
            let block = Block::new(index);
            self.succ_start[index] = self.succs.len() as u32;
            if func.layout.is_block_inserted(block) {
                let mut previous = None;
                for succ in func.dfg.successors(block) {
                    if previous != Some(succ) {
                        self.succs.push(succ);
                        previous = Some(succ);
                    }
                }
            }
        }
        self.succ_start[n] = self.succs.len() as u32;

        // Predecessors by counting sort over the successor lists.
        self.pred_start.resize(n + 1, 0);
        for &succ in &self.succs {
            self.pred_start[succ.index() + 1] += 1;
        }
        for i in 0..n {
            self.pred_start[i + 1] += self.pred_start[i];
        }
        self.pred_fill.clear();
        self.pred_fill.extend_from_slice(&self.pred_start[..n]);
        self.preds.resize(self.succs.len(), Block::new(0));
        for index in 0..n {
            let (lo, hi) = (self.succ_start[index], self.succ_start[index + 1]);
            for k in lo..hi {
                let succ = self.succs[k as usize].index();
                self.preds[self.pred_fill[succ] as usize] = Block::new(index);
                self.pred_fill[succ] += 1;
            }
        }

        let mut order = std::mem::take(&mut self.order);
        order.compute(&*self);
        self.order = order;
        self.valid = true;
    }

    /// The entry block.
    pub fn entry_block(&self) -> Option<Block> {
        self.entry
    }

    /// One past the largest block index: the size of tables indexed by block.
    pub fn num_block_indices(&self) -> usize {
        self.succ_start.len().saturating_sub(1)
    }

    /// The successors of `block`, in terminator order, each once.
    pub fn successors(&self, block: Block) -> &[Block] {
        match self.succ_start.get(block.index()..block.index() + 2) {
            Some(&[lo, hi]) => &self.succs[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// The predecessors of `block`, in block-index order, each once (a
    /// `jmpif` entering `block` on both edges is listed once).
    pub fn predecessors(&self, block: Block) -> &[Block] {
        match self.pred_start.get(block.index()..block.index() + 2) {
            Some(&[lo, hi]) => &self.preds[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// The blocks reachable from the entry, in depth-first post-order
    /// (successors visited in terminator order).
    pub fn postorder(&self) -> &[Block] {
        self.order.as_slice()
    }

    /// The depth-first search from the entry that [`postorder`](Self::postorder)
    /// lists, with its post-order numbers.
    pub fn depth_first(&self) -> &PostOrder<Block> {
        &self.order
    }

    /// The blocks reachable from the entry, in reverse post-order: every block
    /// comes after its dominators, and after all its predecessors except
    /// those reaching it through a back edge.
    pub fn reverse_postorder(
        &self,
    ) -> impl DoubleEndedIterator<Item = Block> + ExactSizeIterator + '_ {
        self.order.reverse_postorder()
    }

    /// The index of `block` in [`postorder`](Self::postorder), if reachable.
    pub fn postorder_number(&self, block: Block) -> Option<u32> {
        self.order.number(block)
    }

    /// Whether `block` is reachable from the entry.
    pub fn is_reachable(&self, block: Block) -> bool {
        self.order.is_reachable(block)
    }

    /// The number of reachable blocks.
    pub fn num_reachable(&self) -> usize {
        self.order.len()
    }

    /// Whether the edge `from -> to` is a retreating edge of the depth-first
    /// search (in a reducible graph: a back edge). Both must be reachable.
    pub fn is_retreating_edge(&self, from: Block, to: Block) -> bool {
        self.order.is_retreating_edge(from, to)
    }
}

impl Graph for ControlFlowGraph {
    type Node = Block;

    fn num_node_indices(&self) -> usize {
        self.num_block_indices()
    }

    fn entry(&self) -> Option<Block> {
        self.entry
    }

    fn successors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        ControlFlowGraph::successors(self, block).iter().copied()
    }

    fn predecessors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        ControlFlowGraph::predecessors(self, block).iter().copied()
    }
}
