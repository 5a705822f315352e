//! The control-flow graph the component analysis runs over.

use kildall_dataflow::{Graph, LoopStructure};
use kildall_ir::pass::Analyses;
use kildall_ir::{Block, Inst};

/// The graph the analysis runs over: the blocks and edges of a function's
/// [`ControlFlowGraph`](kildall_ir::cfg::ControlFlowGraph), without
/// instructions, with the function's loop forest and loop-aware order. The
/// analysis reads each block's instructions whole, through its
/// `BlockFacts`, so the solver need not walk them.
pub(crate) struct Blocks<'a>(pub(super) Analyses<'a>);

impl kildall_graph::Graph for Blocks<'_> {
    type Node = Block;

    fn num_node_indices(&self) -> usize {
        self.0.cfg.num_block_indices()
    }

    fn entry(&self) -> Option<Block> {
        self.0.cfg.entry_block()
    }

    fn successors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        self.0.cfg.successors(block).iter().copied()
    }

    fn predecessors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        self.0.cfg.predecessors(block).iter().copied()
    }
}

impl Graph for Blocks<'_> {
    type Inst = Inst;

    fn block_insts(&self, _: Block) -> impl DoubleEndedIterator<Item = Inst> + '_ {
        std::iter::empty()
    }

    fn inst_block(&self, _: Inst) -> Option<Block> {
        None
    }

    fn loop_structure(&self) -> Option<LoopStructure<'_, Block>> {
        Some(LoopStructure {
            order: self.0.loop_order,
            forest: self.0.loops.forest(),
        })
    }
}
