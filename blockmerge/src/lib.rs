//! Merging basic blocks into merge components for per-block proof backends
//! (sumcheck-style block provers), after CoBBl's block-merging design, "Merge Basic Blocks".
//!
//! A per-block prover proves every executed block with an instance of a
//! fixed size, the next power of two of the largest block's constraints,
//! and pays for each transition between blocks. Merging small blocks into
//! larger ones removes transitions without growing the instance. The pass
//! works in three stages, as the design does:
//!
//! 1. estimate the constraints of every block with a [`CostModel`]
//!    ([`R1cs`] by default) and fix the threshold
//!    `max(min_block_size, max(constraints).next_power_of_two())`;
//! 2. find the merge components and their flattened sizes by the design's
//!    backward analysis, on the `kildall-dataflow` solver ([`components`]);
//! 3. merge every component under the threshold, outermost first, by
//!    flattening it into its head (module `flatten`), and repeat
//!    until nothing merges.
//!
//! ```
//! use kildall_blockmerge::{run, Options};
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
//! let report = run(&mut module.functions[kildall_ir::FuncId::from_u32(0)], &Options::default());
//! assert_eq!((report.blocks_before, report.blocks_after), (4, 1));
//! kildall_ir::verify_module(&module).unwrap();
//! ```
#![deny(missing_docs)]

pub mod components;
mod cost;
mod flatten;
mod pass;
pub mod trace;

use std::fmt;

use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{Block, EntitySet, Function, Module};

pub use components::{Component, Rejection};
pub use cost::{CostModel, R1cs, WithAccesses};
pub use pass::{BlockMerge, Reports};

use components::{BlockFacts, Components};
use flatten::Flattener;

/// The design's `MIN_BLOCK_SIZE`.
pub const MIN_BLOCK_SIZE: u64 = 1024;

/// The knobs of the pass.
#[derive(Copy, Clone)]
pub struct Options<'m> {
    /// The smallest threshold: components up to this many constraints merge
    /// even when every block is smaller.
    pub min_block_size: u64,
    /// The most instructions a merged block may have, whatever its
    /// constraints (a loop of free instructions with a huge trip count
    /// would otherwise unroll without bound).
    pub max_merged_insts: u64,
    /// The constraint estimates.
    pub cost_model: &'m dyn CostModel,
    /// How a component is chosen for merging.
    pub rule: MergeRule,
}

/// How the pass decides whether a component merges.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum MergeRule {
    /// The design's rule: merge when the component's estimate is under
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

impl Default for Options<'static> {
    fn default() -> Self {
        Options {
            min_block_size: MIN_BLOCK_SIZE,
            max_merged_insts: 1 << 16,
            cost_model: &R1cs,
            rule: MergeRule::Threshold,
        }
    }
}

impl fmt::Debug for Options<'_> {
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
            "fn {}: blocks {} -> {}, largest block {} -> {} constraints, threshold {}, {} merges in {} rounds",
            self.function,
            self.blocks_before,
            self.blocks_after,
            self.largest_before,
            self.largest_after,
            self.threshold,
            self.merges.len(),
            self.rounds
        )?;
        for m in &self.merges {
            writeln!(
                f,
                "  round {}: merged {} blocks {}..{} into {}: {} constraints (estimate {})",
                m.round,
                m.blocks.len(),
                m.head,
                m.tail,
                m.head,
                m.constraints,
                m.estimate
            )?;
        }
        for (reason, n) in &self.rejected {
            writeln!(f, "  not merged ({reason}): {n}")?;
        }
        Ok(())
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

/// The design's threshold: `max(min_block_size, max(constraints).next_power_of_two())`.
pub fn threshold(func: &Function, options: &Options<'_>) -> u64 {
    let largest = largest_block(func, options.cost_model);
    let padded = largest.checked_next_power_of_two().unwrap_or(u64::MAX);
    options.min_block_size.max(padded)
}

/// Merges the components of `func` under the threshold, outermost first,
/// round after round until a round merges nothing.
///
/// `func` must verify (`kildall_ir::verify_function`); the result does.
/// Each round recomputes the CFG, the dominator and post-dominator trees,
/// the loops and the component sizes once (one solver visit per block),
/// then merges every chosen component: linear per round, and the rounds
/// are bounded by the nesting depth plus the logarithm of the longest
/// chain of components. Nothing recurses per nesting level, so deeply
/// nested input needs no deep stack.
pub fn run(func: &mut Function, options: &Options<'_>) -> Report {
    run_with(func, &mut FunctionAnalyses::new(), options)
}

/// [`run`] given the analyses of `func` as it is; they describe the merged
/// function on return.
pub fn run_with(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    options: &Options<'_>,
) -> Report {
    let model = options.cost_model;
    let mut facts = BlockFacts::new(func, model);
    if let MergeRule::Calibrated { per_instance } = options.rule {
        facts.instance = per_instance;
    }
    let largest = |func: &Function, facts: &BlockFacts| {
        func.layout
            .blocks()
            .map(|b| facts.block_cost(b))
            .max()
            .unwrap_or(0)
    };
    let largest_before = largest(func, &facts);
    let mut report = Report {
        function: func.name.clone(),
        blocks_before: func.layout.num_blocks(),
        largest_before,
        threshold: options.min_block_size.max(
            largest_before
                .checked_next_power_of_two()
                .unwrap_or(u64::MAX),
        ),
        ..Report::default()
    };
    let mut env = kildall_ir::SecondaryMap::new();
    loop {
        report.rounds += 1;
        let round = analyses.all(func);
        let components = Components::compute(func, round, model, &facts);
        let mut candidates: Vec<Component> = Vec::new();
        let mut rejected = std::collections::BTreeMap::new();
        for head in round.cfg.reverse_postorder() {
            let Some(component) = components.component(head) else {
                continue;
            };
            let component = match (component, options.rule) {
                (Ok(c), MergeRule::Threshold) if c.estimate > report.threshold => {
                    Err(Rejection::TooLarge)
                }
                (Ok(c), MergeRule::Calibrated { per_instance })
                    if c.estimate.saturating_add(per_instance) > c.cheapest =>
                {
                    Err(Rejection::Slower)
                }
                (Ok(c), _) if c.insts > options.max_merged_insts => {
                    Err(Rejection::TooManyInstructions)
                }
                (other, _) => other,
            };
            match component {
                Ok(c) => candidates.push(c),
                Err(reason) => *rejected.entry(reason).or_insert(0) += 1,
            }
        }
        let kinds = components.kinds();
        drop(components);
        // Outermost first: heads come in reverse post-order, so a component
        // is chosen before the ones nested in it or following it.
        let mut taken = EntitySet::<Block>::new();
        let mut chosen: Vec<(Component, Vec<Block>)> = Vec::new();
        for component in candidates {
            if taken.contains(component.head) {
                continue;
            }
            let mut blocks = Vec::new();
            kinds.region_blocks(component.head, component.tail, &mut blocks);
            blocks.push(component.tail);
            if blocks.iter().any(|&b| taken.contains(b)) {
                continue;
            }
            for &b in &blocks {
                taken.insert(b);
            }
            chosen.push((component, blocks));
        }
        if chosen.is_empty() {
            report.rejected = rejected.into_iter().collect();
            break;
        }
        // Merging changes the control flow.
        analyses.invalidate();
        for (component, blocks) in chosen {
            debug_assert_eq!(blocks.first(), Some(&component.head));
            Flattener::new(&kinds, &mut env, component.head).run(func, component.tail, &blocks);
            report.merges.push(Merge {
                round: report.rounds,
                head: component.head,
                tail: component.tail,
                blocks,
                estimate: component.estimate,
                constraints: {
                    facts.update(func, model, component.head);
                    facts.block_cost(component.head)
                },
            });
        }
        func.dfg.resolve_aliases();
    }
    let heads: Vec<Block> = report.merges.iter().map(|m| m.head).collect();
    // Removing instructions keeps the control flow: the analyses stay valid.
    remove_dead_code(func, &heads);
    // The last merge into each surviving head reports the final block.
    let mut updated = EntitySet::<Block>::new();
    for merge in report.merges.iter_mut().rev() {
        if func.layout.is_block_inserted(merge.head) && updated.insert(merge.head) {
            facts.update(func, model, merge.head);
            merge.constraints = facts.block_cost(merge.head);
        }
    }
    report.blocks_after = func.layout.num_blocks();
    report.largest_after = largest(func, &facts);
    report
}

/// Removes the instructions of `blocks` that have no side effects and whose
/// results are unused: mostly the exit tests of unrolled loops and the
/// conditions of branches folded away. Linear: use counts are taken once
/// over the function, and each block is swept backward so that chains of
/// dead instructions go in one sweep.
fn remove_dead_code(func: &mut Function, blocks: &[Block]) {
    if blocks.is_empty() {
        return;
    }
    let mut uses = kildall_ir::SecondaryMap::<kildall_ir::Value, u32>::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for &v in func.dfg[inst].arguments().as_slice() {
                uses[func.dfg.resolve(v)] += 1;
            }
        }
        if let Some(terminator) = func.dfg.terminator(block) {
            for &v in terminator.arguments() {
                uses[func.dfg.resolve(v)] += 1;
            }
        }
    }
    let mut seen = EntitySet::<Block>::new();
    for &block in blocks {
        if !func.layout.is_block_inserted(block) || !seen.insert(block) {
            continue;
        }
        let mut cursor = func.layout.last_inst(block);
        while let Some(inst) = cursor {
            cursor = func.layout.prev_inst(inst);
            let dead = !func.dfg[inst].has_side_effects()
                && !matches!(func.dfg[inst], kildall_ir::InstructionData::Call { .. })
                && func.dfg.inst_results(inst).iter().all(|&r| uses[r] == 0);
            if dead {
                for &v in func.dfg[inst].arguments().as_slice() {
                    let v = func.dfg.resolve(v);
                    uses[v] = uses[v].saturating_sub(1);
                }
                func.remove_inst(inst);
            }
        }
    }
}

/// A one-line summary of the reports of a module: merges, blocks before
/// and after, and the largest block after.
pub fn summarize(reports: &[Report]) -> String {
    let merges: usize = reports.iter().map(|r| r.merges.len()).sum();
    let before: usize = reports.iter().map(|r| r.blocks_before).sum();
    let after: usize = reports.iter().map(|r| r.blocks_after).sum();
    let largest = reports.iter().map(|r| r.largest_after).max().unwrap_or(0);
    format!("{merges} merges, blocks {before} -> {after}, largest block {largest} constraints")
}

/// Runs [`run`] on every function of `module`.
pub fn run_module(module: &mut Module, options: &Options<'_>) -> Vec<Report> {
    module
        .functions
        .values_mut()
        .map(|func| run(func, options))
        .collect()
}

/// For every block of the report's merges, the head that holds it at the end
/// (a head merged into a later head follows it).
pub fn final_heads(report: &Report) -> std::collections::HashMap<Block, Block> {
    let mut owner = std::collections::HashMap::new();
    for merge in &report.merges {
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

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
