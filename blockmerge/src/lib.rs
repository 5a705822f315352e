//! Merging basic blocks into merge components for per-block proof backends
//! (sumcheck-style block provers), after CoBBl's block-merging design, "Merge Basic Blocks".
//!
//! A per-block prover proves every executed block with an instance of a
//! fixed size, the next power of two of the largest block's constraints,
//! and pays for each transition between blocks. Merging small blocks into
//! larger ones removes transitions without growing the instance. The pass
//! works in three stages, as CoBBl does:
//!
//! 1. estimate the constraints of every block with a [`CostModel`]
//!    ([`R1cs`] by default) and fix the threshold
//!    `max(min_block_size, max(constraints).next_power_of_two())`;
//! 2. find the merge components and their flattened sizes by CoBBl's
//!    backward analysis, on the `kildall-dataflow` solver ([`components`]);
//! 3. merge every component under the threshold, outermost first, by
//!    flattening it into its head (module `flatten`), and repeat
//!    until nothing merges.
//!
//! ```
//! use kildall_blockmerge::{BlockMerge, Options};
//! use kildall_ir::pass::run_module;
//!
//! let mut module = kildall_ir::parse_module("
//! fn main f0 {
//!   b0(v0: u32):
//!     jmp b1(u32 0, v0)
//!   b1(v1: u32, v2: u32):
//!     v3 = lt v1, u32 4
//!     jmpif v3 then: b2, else: b3
//!   b2():
//!     v4 = unchecked_add v2, v1
//!     v5 = add v1, u32 1
//!     jmp b1(v5, v4)
//!   b3():
//!     return v2
//! }").unwrap();
//! let reports = run_module::<BlockMerge>(&mut module, &Options::default()).unwrap().0;
//! assert_eq!((reports[0].blocks_before, reports[0].blocks_after), (4, 1));
//! kildall_ir::verify_module(&module).unwrap();
//! ```
#![deny(missing_docs)]

pub mod components;
mod cost;
mod flatten;
mod pass;
pub mod trace;

mod merge;

use std::fmt;
use std::sync::Arc;

use kildall_ir::{Block, Function};

pub use components::{Component, Rejection};
pub use cost::{CostModel, R1cs, WithAccesses};
pub use pass::{BlockMerge, Reports};

/// CoBBl's `MIN_BLOCK_SIZE`.
pub const MIN_BLOCK_SIZE: u64 = 1024;

/// The knobs of the pass.
#[derive(Clone)]
pub struct Options {
    /// The smallest threshold: components up to this many constraints merge
    /// even when every block is smaller.
    pub min_block_size: u64,
    /// The most instructions a merged block may have, whatever its
    /// constraints (a loop of free instructions with a huge trip count
    /// would otherwise unroll without bound).
    pub max_merged_insts: u64,
    /// The constraint estimates.
    pub cost_model: Arc<dyn CostModel>,
    /// How a component is chosen for merging.
    pub rule: MergeRule,
}

/// How the pass decides whether a component merges.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum MergeRule {
    /// CoBBl's rule: merge when the component's estimate is under
    /// the threshold.
    #[default]
    Threshold,
    /// A prover-time model: an instance costs `a * constraints + b`;
    /// with `per_instance = b / a` (in constraints, fit to measured
    /// proofs), a component merges when its merged block, `estimate +
    /// per_instance`, costs no more than the cheapest run of its blocks
    /// unmerged (each executed block its constraints plus
    /// `per_instance`, the cheaper arm of every branch, loops their trip
    /// counts). No threshold applies, only the instruction limit; a merge
    /// never makes a run of the component slower by the model.
    Calibrated {
        /// The cost of an instance, in constraints.
        per_instance: u64,
    },
}

impl Default for Options {
    fn default() -> Self {
        Options {
            min_block_size: MIN_BLOCK_SIZE,
            max_merged_insts: 1 << 16,
            cost_model: Arc::new(R1cs),
            rule: MergeRule::Threshold,
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("min_block_size", &self.min_block_size)
            .field("max_merged_insts", &self.max_merged_insts)
            .field("rule", &self.rule)
            .finish_non_exhaustive()
    }
}

/// One merge performed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Merge {
    /// The round (from 1) it happened in.
    pub round: usize,
    /// The head, which now holds the component.
    pub head: Block,
    /// The tail, whose terminator the head took.
    pub tail: Block,
    /// The blocks merged, head first, tail last.
    pub blocks: Vec<Block>,
    /// The estimate the decision was based on.
    pub estimate: u64,
    /// The constraints of the merged block, counted by the cost model.
    pub constraints: u64,
}

/// What the pass did to a function.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Report {
    /// The function's name.
    pub function: String,
    /// Blocks in the layout before.
    pub blocks_before: usize,
    /// Blocks in the layout after.
    pub blocks_after: usize,
    /// The largest block's constraints before.
    pub largest_before: u64,
    /// The largest block's constraints after.
    pub largest_after: u64,
    /// The merge threshold.
    pub threshold: u64,
    /// Rounds run (the last one merges nothing).
    pub rounds: usize,
    /// The merges, in order.
    pub merges: Vec<Merge>,
    /// Components of the last round that did not merge, by reason.
    pub rejected: Vec<(Rejection, usize)>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "fn {}: blocks {} -> {}, largest block {} -> {}, threshold {}, {} in {}",
            self.function,
            self.blocks_before,
            self.blocks_after,
            self.largest_before,
            counted(self.largest_after, "constraint"),
            self.threshold,
            counted(self.merges.len() as u64, "merge"),
            counted(self.rounds as u64, "round"),
        )?;
        for m in &self.merges {
            writeln!(
                f,
                "  round {}: merged {} blocks {}..{} into {}: {} (estimate {})",
                m.round,
                m.blocks.len(),
                m.head,
                m.tail,
                m.head,
                counted(m.constraints, "constraint"),
                m.estimate
            )?;
        }
        for (reason, n) in &self.rejected {
            writeln!(f, "  not merged ({reason}): {n}")?;
        }
        Ok(())
    }
}

/// `n` and `noun`, plural unless `n` is 1: `1 merge`, `2 merges`.
fn counted(n: u64, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// The constraints of the largest block of `func` in its layout.
pub fn largest_block(func: &Function, model: &dyn CostModel) -> u64 {
    func.layout
        .blocks()
        .map(|b| model.block(func, b))
        .max()
        .unwrap_or(0)
}

impl Report {
    /// For every block of the merges, the head that holds it at the end (a
    /// head merged into a later head follows it).
    pub fn final_heads(&self) -> std::collections::HashMap<Block, Block> {
        let mut owner = std::collections::HashMap::new();
        for merge in &self.merges {
            for &b in &merge.blocks {
                owner.insert(b, merge.head);
            }
        }
        let blocks: Vec<Block> = owner.keys().copied().collect();
        for b in blocks {
            let mut h = owner[&b];
            while let Some(&next) = owner.get(&h) {
                if next == h {
                    break;
                }
                h = next;
            }
            owner.insert(b, h);
        }
        owner
    }
}

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
