//! The pass's driver: rounds of "find the components, choose the ones to
//! merge, flatten them" until a round merges nothing, then a sweep of the
//! code the merges left dead.
//!
//! Each round recomputes the CFG, the dominator and post-dominator trees,
//! the loops and the component sizes once (one solver visit per block),
//! then merges every chosen component: linear per round, and the rounds
//! are bounded by the nesting depth plus the logarithm of the longest
//! chain of components. Nothing recurses per nesting level, so deeply
//! nested input needs no deep stack.

use std::collections::BTreeMap;

use kildall_ir::pass::{Analyses, FunctionAnalyses};
use kildall_ir::{Block, EntitySet, Function, InstructionData, SecondaryMap, Value};

use crate::components::{BlockFacts, Components, Kinds as RegionKinds};
use crate::flatten::Flattener;
use crate::{Component, Merge, MergeRule, Options, Rejection, Report};

/// Merges the components of `func` that `options` accept, outermost first,
/// round after round until a round merges nothing. `func` verifies, and so
/// does the result; `analyses` describe the merged function on return.
pub(crate) fn merge_function(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    options: &Options,
) -> Report {
    let mut merger = Merger::new(func, options);
    loop {
        merger.report.rounds += 1;
        let chosen = merger.choose(func, analyses.all(func));
        let Some((kinds, chosen)) = chosen else {
            break;
        };
        // Merging changes the control flow.
        analyses.invalidate();
        merger.flatten(func, &kinds, chosen);
    }
    merger.finish(func)
}

/// What travels from round to round: the per-block facts, the report, and
/// the value map the flattener reuses.
struct Merger<'o> {
    options: &'o Options,
    facts: BlockFacts,
    report: Report,
    env: SecondaryMap<Value, Option<Value>>,
}

/// The components chosen in a round, each with its blocks (head first,
/// tail last).
type Chosen = Vec<(Component, Vec<Block>)>;

impl<'o> Merger<'o> {
    fn new(func: &Function, options: &'o Options) -> Self {
        let mut facts = BlockFacts::new(func, &*options.cost_model);
        if let MergeRule::Calibrated { per_instance } = options.rule {
            facts.instance = per_instance;
        }
        let largest_before = largest(func, &facts);
        let report = Report {
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
        Merger {
            options,
            facts,
            report,
            env: SecondaryMap::new(),
        }
    }

    /// The components of this round that merge, disjoint, outermost first;
    /// `None` when none does (the rejections are then the report's).
    fn choose(&mut self, func: &Function, round: Analyses<'_>) -> Option<(RegionKinds, Chosen)> {
        let components = Components::compute(func, round, &*self.options.cost_model, &self.facts);
        let mut candidates: Vec<Component> = Vec::new();
        let mut rejected = BTreeMap::new();
        for head in round.cfg.reverse_postorder() {
            let Some(component) = components.component(head) else {
                continue;
            };
            match self.accept(component) {
                Ok(c) => candidates.push(c),
                Err(reason) => *rejected.entry(reason).or_insert(0) += 1,
            }
        }
        let kinds = components.kinds();
        drop(components);
        let chosen = disjoint_outermost(&kinds, candidates);
        if chosen.is_empty() {
            self.report.rejected = rejected.into_iter().collect();
            return None;
        }
        Some((kinds, chosen))
    }

    /// Whether the merge rule and the instruction limit let `component`
    /// merge.
    fn accept(&self, component: Result<Component, Rejection>) -> Result<Component, Rejection> {
        match (component, self.options.rule) {
            (Ok(c), MergeRule::Threshold) if c.estimate > self.report.threshold => {
                Err(Rejection::TooLarge)
            }
            (Ok(c), MergeRule::Calibrated { per_instance })
                if c.estimate.saturating_add(per_instance) > c.cheapest =>
            {
                Err(Rejection::Slower)
            }
            (Ok(c), _) if c.insts > self.options.max_merged_insts => {
                Err(Rejection::TooManyInstructions)
            }
            (other, _) => other,
        }
    }

    /// Flattens every chosen component into its head and records it.
    fn flatten(&mut self, func: &mut Function, kinds: &RegionKinds, chosen: Chosen) {
        let model = &*self.options.cost_model;
        for (component, blocks) in chosen {
            debug_assert_eq!(blocks.first(), Some(&component.head));
            Flattener::new(kinds, &mut self.env, component.head).run(func, component.tail, &blocks);
            self.facts.update(func, model, component.head);
            self.report.merges.push(Merge {
                round: self.report.rounds,
                head: component.head,
                tail: component.tail,
                blocks,
                estimate: component.estimate,
                constraints: self.facts.block_cost(component.head),
            });
        }
        func.dfg.resolve_aliases();
    }

    /// Sweeps the dead code of the merged heads and completes the report.
    fn finish(mut self, func: &mut Function) -> Report {
        let model = &*self.options.cost_model;
        let heads: Vec<Block> = self.report.merges.iter().map(|m| m.head).collect();
        // Removing instructions keeps the control flow: the analyses stay valid.
        remove_dead_code(func, &heads);
        // The last merge into each surviving head reports the final block.
        let mut updated = EntitySet::<Block>::new();
        for merge in self.report.merges.iter_mut().rev() {
            if func.layout.is_block_inserted(merge.head) && updated.insert(merge.head) {
                self.facts.update(func, model, merge.head);
                merge.constraints = self.facts.block_cost(merge.head);
            }
        }
        self.report.blocks_after = func.layout.num_blocks();
        self.report.largest_after = largest(func, &self.facts);
        self.report
    }
}

/// The constraints of the largest block of `func`, from `facts`.
fn largest(func: &Function, facts: &BlockFacts) -> u64 {
    func.layout
        .blocks()
        .map(|b| facts.block_cost(b))
        .max()
        .unwrap_or(0)
}

/// The candidates whose blocks no earlier candidate took. Heads come in
/// reverse post-order, so a component is chosen before the ones nested in
/// it or following it.
fn disjoint_outermost(kinds: &RegionKinds, candidates: Vec<Component>) -> Chosen {
    let mut taken = EntitySet::<Block>::new();
    let mut chosen = Vec::new();
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
    chosen
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
    let mut uses = SecondaryMap::<Value, u32>::new();
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
                && !matches!(func.dfg[inst], InstructionData::Call { .. })
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
