//! The kinds of the valid steps of a round, and the blocks of a region.

use super::*;

/// The kinds of the valid steps of a round, indexed by block.
pub(crate) struct Kinds(pub(super) Vec<Option<Kind>>);

impl Kinds {
    /// The step kind at `block`, if it is valid.
    pub fn kind(&self, block: Block) -> Option<Kind> {
        self.0.get(block.index()).copied().flatten()
    }

    /// Appends to `out` every block of the region from `start` up to `stop`
    /// (exclusive), in pre-order: a branch, its then-side, its else-side,
    /// then what follows the join. Iterative, whatever the nesting depth.
    pub fn region_blocks(&self, start: Block, stop: Block, out: &mut Vec<Block>) {
        // Regions still to walk, the innermost on top.
        let mut todo = vec![(start, stop)];
        while let Some((mut cur, stop)) = todo.pop() {
            while cur != stop {
                out.push(cur);
                let Some(kind) = self.kind(cur) else { break };
                match kind {
                    Kind::Plain { dest } => cur = dest,
                    Kind::Branch {
                        then_dest,
                        else_dest,
                        join,
                        ..
                    } => {
                        todo.push((join, stop));
                        todo.push((else_dest, join));
                        todo.push((then_dest, join));
                        break;
                    }
                    Kind::Loop {
                        header, body, exit, ..
                    } => {
                        out.push(header);
                        todo.push((exit, stop));
                        todo.push((body, header));
                        break;
                    }
                }
            }
        }
    }
}
