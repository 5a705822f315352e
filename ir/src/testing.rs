//! Helpers for the workspace's tests (cargo feature `testing`): the
//! blessable data-driven tests of [`kildall_testkit`], re-exported, and
//! arbitrary random control-flow graphs.
//!
//! # Random graphs
//!
//! [`crate::generate::generate_cfg`] makes structured programs: reducible,
//! every block reachable, every loop left. Properties of the CFG analyses and
//! of the dataflow solver must also hold on the graphs a structured
//! generator never makes: irreducible loops, unreachable blocks, loops with
//! no exit, self loops, branches with both arms to one block.
//! [`random_cfg`] draws such graphs; [`cfg_function`] gives one the form of
//! a [`Function`].

pub use kildall_testkit::expect::*;

use crate::generate::Rng;
use crate::{Block, FuncCursor, Function, Terminator, Type};

/// The relative frequencies of the terminators [`random_cfg`] draws.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TerminatorMix {
    /// Blocks without successors (`return`).
    pub returns: u32,
    /// Blocks with one successor (`jmp`).
    pub jumps: u32,
    /// Blocks with two successors, possibly the same block (`jmpif`).
    pub branches: u32,
}

/// An arbitrary graph of `blocks` blocks: the successors of each block, by
/// index, drawn uniformly among all blocks; block 0 is the entry. The graphs
/// include what structured programs never have: irreducible loops,
/// unreachable blocks, loops without an exit, self loops.
///
/// # Panics
///
/// If every weight of `mix` is zero.
pub fn random_cfg(rng: &mut Rng, blocks: usize, mix: TerminatorMix) -> Vec<Vec<usize>> {
    let total = u64::from(mix.returns) + u64::from(mix.jumps) + u64::from(mix.branches);
    assert!(total > 0, "a terminator mix with no weight");
    (0..blocks)
        .map(|_| {
            let draw = rng.below(total);
            let successors = if draw < u64::from(mix.returns) {
                0
            } else if draw < u64::from(mix.returns) + u64::from(mix.jumps) {
                1
            } else {
                2
            };
            (0..successors).map(|_| rng.index(blocks)).collect()
        })
        .collect()
}

/// A function whose control-flow graph is `shape` (as [`random_cfg`] makes
/// it: at most two successors a block), for tests of the graph alone: no
/// instructions, no block parameters, every branch on the constant `u1 1`
/// (a branch may target the entry, whose parameters no `jmpif` could pass),
/// so the function verifies.
///
/// # Panics
///
/// If a block has more than two successors or one out of range.
pub fn cfg_function(shape: &[Vec<usize>]) -> Function {
    let mut func = Function::new("f");
    let mut cur = FuncCursor::new(&mut func);
    let blocks: Vec<Block> = shape.iter().map(|_| cur.append_block()).collect();
    let condition = cur.constant(1, Type::BOOL);
    for (&block, successors) in blocks.iter().zip(shape) {
        cur.goto_bottom(block);
        cur.terminate(match successors[..] {
            [] => Terminator::Return { values: vec![] },
            [to] => Terminator::Jmp {
                destination: blocks[to],
                arguments: vec![],
            },
            [then, otherwise] => Terminator::JmpIf {
                condition,
                then_destination: blocks[then],
                else_destination: blocks[otherwise],
            },
            _ => panic!("{block} has {} successors", successors.len()),
        });
    }
    func
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_graphs_follow_the_mix() {
        let mut rng = Rng::new(3);
        let mix = TerminatorMix {
            returns: 1,
            jumps: 0,
            branches: 1,
        };
        let shape = random_cfg(&mut rng, 200, mix);
        assert!(shape
            .iter()
            .all(|s| s.len() != 1 && s.iter().all(|&t| t < 200)));
        let returns = shape.iter().filter(|s| s.is_empty()).count();
        assert!((60..140).contains(&returns), "{returns}");
        let func = cfg_function(&shape);
        for (b, successors) in func.layout.blocks().zip(&shape) {
            let got: Vec<usize> = func
                .dfg
                .successors(b)
                .map(crate::EntityRef::index)
                .collect();
            assert_eq!(&got, successors);
        }
        crate::verify_function(&func).unwrap();
    }
}
