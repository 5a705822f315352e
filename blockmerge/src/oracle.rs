//! The memoised recursive computation of the component steps that the
//! dataflow formulation in [`components`](crate::components) replaced,
//! kept as a test oracle: on generated programs both must find the same
//! step, region and component at every block.

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominatorTree, PostDominatorTree};
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::{Block, EntityRef, Function, Terminator};

use crate::components::{BlockFacts, Component, Kind, Rejection, Step};
use crate::cost::CostModel;

/// The old planner: the analyses of one round and the memoised steps.
pub(crate) struct Planner<'a> {
    func: &'a Function,
    cfg: &'a ControlFlowGraph,
    domtree: &'a DominatorTree,
    pdt: &'a PostDominatorTree,
    loops: &'a LoopAnalysis,
    model: &'a dyn CostModel,
    facts: &'a BlockFacts,
    steps: Vec<Option<Result<Step, Rejection>>>,
}

fn sat_mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

impl<'a> Planner<'a> {
    pub fn new(
        func: &'a Function,
        cfg: &'a ControlFlowGraph,
        domtree: &'a DominatorTree,
        pdt: &'a PostDominatorTree,
        loops: &'a LoopAnalysis,
        model: &'a dyn CostModel,
        facts: &'a BlockFacts,
    ) -> Self {
        Planner {
            func,
            cfg,
            domtree,
            pdt,
            loops,
            model,
            facts,
            steps: vec![None; func.dfg.num_blocks()],
        }
    }

    fn len(&self, block: Block) -> u64 {
        self.func.layout.block_len(block) as u64
    }

    fn preds(&self, block: Block) -> usize {
        self.cfg.predecessors(block).len()
    }

    /// The constraints and instructions of turning `block`'s parameters into
    /// `if` merges over `edges` incoming edges.
    fn bind_cost(&self, block: Block, edges: u32) -> (u64, u64) {
        if edges <= 1 {
            return (0, 0);
        }
        let merges = u64::from(edges - 1);
        let params = self.func.dfg.block_params(block);
        let cost = params
            .iter()
            .map(|&p| sat_mul(merges, self.model.if_merge(self.func.dfg.value_type(p))))
            .fold(0, u64::saturating_add);
        (cost, sat_mul(merges, params.len() as u64))
    }

    /// The first block on `block`'s post-dominator chain in its innermost
    /// loop, if the chain reaches one before leaving that loop.
    fn same_scope_ipdom(&self, block: Block) -> Option<Block> {
        let scope = self.loops.innermost_loop(block);
        let depth = self.loops.loop_depth(block);
        let mut p = self.pdt.ipdom(block)?;
        loop {
            if self.loops.innermost_loop(p) == scope {
                return Some(p);
            }
            if self.loops.loop_depth(p) <= depth {
                return None;
            }
            p = self.pdt.ipdom(p)?;
        }
    }

    /// The memoised step at `block` (see the module documentation).
    // Recurses once per nesting level: only for the modest programs of the
    // tests.
    pub fn step(&mut self, block: Block) -> Result<Step, Rejection> {
        if let Some(done) = self.steps[block.index()] {
            return done;
        }
        let result = self.compute_step(block);
        self.steps[block.index()] = Some(result);
        result
    }

    fn compute_step(&mut self, block: Block) -> Result<Step, Rejection> {
        if let Some(reason) = self.facts.hazard[block] {
            return Err(reason);
        }
        let own = self.facts.merged_cost[block];
        let len = self.len(block);
        let dest = match self.func.dfg.terminator(block) {
            None | Some(Terminator::Return { .. } | Terminator::Unreachable) => {
                return Err(Rejection::Exit)
            }
            Some(Terminator::Jmp { destination, .. }) => *destination,
            Some(Terminator::JmpIf {
                then_destination,
                else_destination,
                ..
            }) if then_destination == else_destination => *then_destination,
            Some(&Terminator::JmpIf {
                condition,
                then_destination,
                else_destination,
            }) => {
                let join = self
                    .same_scope_ipdom(block)
                    .ok_or(Rejection::Unstructured)?;
                if !self.domtree.dominates(block, join) {
                    return Err(Rejection::Unstructured);
                }
                let mut cost = own.saturating_add(2 * self.model.predicate());
                let mut insts = len + 4;
                let mut edges = 0;
                for arm in [then_destination, else_destination] {
                    let (c, i, e) = if arm == join {
                        (0, 0, 1)
                    } else {
                        self.region(arm, join)?
                    };
                    cost = cost.saturating_add(c);
                    insts = insts.saturating_add(i);
                    edges += e;
                }
                return Ok(Step {
                    kind: Kind::Branch {
                        cond: condition,
                        then_dest: then_destination,
                        else_dest: else_destination,
                        join,
                    },
                    next: join,
                    edges,
                    cost,
                    insts,
                });
            }
        };
        let plain = Step {
            kind: Kind::Plain { dest },
            next: dest,
            edges: 1,
            cost: own,
            insts: len,
        };
        let Some(lp) = self.loops.is_loop_header(dest) else {
            return Ok(plain);
        };
        if self.loops.contains(lp, block) {
            // A back edge: the walk of the loop's body stops before it;
            // any other walk reaching it fails the entry check of `region`.
            return Ok(plain);
        }
        let counted = self
            .loops
            .counted_loop(lp)
            .ok_or(Rejection::UncountedLoop)?
            .clone();
        let header = dest;
        if counted.preheader != block
            || self.loops.exit_edges(lp, self.cfg) != [(header, counted.exit)]
            || self.cfg.predecessors(counted.exit) != [header]
        {
            return Err(Rejection::Unstructured);
        }
        if let Some(reason) = self.facts.hazard[header] {
            return Err(reason);
        }
        let (body_cost, body_insts, body_edges) = self.region(counted.body, header)?;
        if body_edges != 1 {
            return Err(Rejection::Unstructured);
        }
        let trip = counted.trip_count;
        let header_runs = trip.saturating_add(1);
        let cost = own
            .saturating_add(sat_mul(header_runs, self.facts.merged_cost[header]))
            .saturating_add(sat_mul(trip, body_cost));
        let insts = len
            .saturating_add(sat_mul(header_runs, self.len(header)))
            .saturating_add(sat_mul(trip, body_insts));
        Ok(Step {
            kind: Kind::Loop {
                header,
                body: counted.body,
                exit: counted.exit,
                trip,
            },
            next: counted.exit,
            edges: 1,
            cost,
            insts,
        })
    }

    /// The flattened cost of the region from `start` up to `stop` (the
    /// seed's `agg_count` of `start` in `stop`'s scope), its instruction
    /// bound, and the number of edges entering `stop` from it.
    pub fn region(&mut self, start: Block, stop: Block) -> Result<(u64, u64, u32), Rejection> {
        let (mut cost, mut insts) = (0u64, 0u64);
        let mut cur = start;
        loop {
            let step = self.step(cur)?;
            cost = cost.saturating_add(step.cost);
            insts = insts.saturating_add(step.insts);
            if step.next == stop {
                return Ok((cost, insts, step.edges));
            }
            // The next block must be entered from this region only, and the
            // walk must stay below `stop` in the post-dominator tree.
            if step.edges as usize != self.preds(step.next)
                || !self.pdt.post_dominates(stop, step.next)
            {
                return Err(Rejection::Unstructured);
            }
            let (c, i) = self.bind_cost(step.next, step.edges);
            cost = cost.saturating_add(c);
            insts = insts.saturating_add(i);
            cur = step.next;
        }
    }

    /// The component `head` heads: `None` when `head` heads none (no
    /// same-scope post-dominator that it dominates: a latch, a block that
    /// returns), else whether it can be merged.
    pub fn component(&mut self, head: Block) -> Option<Result<Component, Rejection>> {
        let tail = self.same_scope_ipdom(head)?;
        if !self.domtree.dominates(head, tail) {
            return None;
        }
        Some(self.check_component(head, tail))
    }

    fn check_component(&mut self, head: Block, tail: Block) -> Result<Component, Rejection> {
        let step = self.step(head)?;
        if step.next != tail
            || step.edges as usize != self.preds(tail)
            || self.loops.innermost_loop(tail) != self.loops.innermost_loop(head)
            || !self.domtree.dominates(head, tail)
        {
            return Err(Rejection::Unstructured);
        }
        if let Some(reason) = self.facts.hazard[tail] {
            return Err(reason);
        }
        let params = self.facts.params_cost[head];
        let (bind, bind_insts) = self.bind_cost(tail, step.edges);
        let estimate = params
            .saturating_add(step.cost)
            .saturating_add(bind)
            .saturating_add(self.facts.merged_cost[tail]);
        let insts = step
            .insts
            .saturating_add(bind_insts)
            .saturating_add(self.len(tail));
        Ok(Component {
            head,
            tail,
            estimate,
            insts,
        })
    }
}

/// The old recursive walk of a region's blocks.
fn region_blocks(
    kinds: &crate::components::Kinds,
    start: Block,
    stop: Block,
    out: &mut Vec<Block>,
) {
    let mut cur = start;
    while cur != stop {
        out.push(cur);
        let Some(kind) = kinds.kind(cur) else { return };
        cur = match kind {
            Kind::Plain { dest } => dest,
            Kind::Branch {
                then_dest,
                else_dest,
                join,
                ..
            } => {
                for arm in [then_dest, else_dest] {
                    region_blocks(kinds, arm, join, out);
                }
                join
            }
            Kind::Loop {
                header, body, exit, ..
            } => {
                out.push(header);
                region_blocks(kinds, body, header, out);
                exit
            }
        };
    }
}

mod tests {
    use kildall_ir::generate::{generate_cfg, CfgConfig};

    use super::*;
    use crate::components::Components;
    use crate::{run_module, Options, R1cs};

    /// Compares the fixed point of the analysis with the planner at every
    /// reachable block of `func`: steps, regions, components, the blocks
    /// of each component, and one solver visit per block.
    fn compare(func: &Function) -> Result<usize, String> {
        let cfg = ControlFlowGraph::with_function(func);
        let domtree = DominatorTree::with_cfg(&cfg);
        let mut pdt = PostDominatorTree::new();
        pdt.compute(&cfg);
        let mut loops = LoopAnalysis::new();
        loops.compute(func, &cfg, &domtree);
        let facts = BlockFacts::new(func, &R1cs);
        let components = Components::compute(func, &cfg, &domtree, &pdt, &loops, &R1cs, &facts);
        let mut planner = Planner::new(func, &cfg, &domtree, &pdt, &loops, &R1cs, &facts);
        let stats = components.stats();
        if stats.block_visits != stats.blocks as u64 {
            return Err(format!("{stats:?}: more than one visit per block"));
        }
        let exits = crate::components::loop_exits(func, &cfg, &loops);
        for lp in loops.loops() {
            let edges = loops.exit_edges(lp, &cfg);
            let mine = exits[lp];
            if mine.count as usize != edges.len()
                || (edges.len() == 1 && mine.first != Some(edges[0]))
            {
                return Err(format!("{lp}: exits {mine:?}, loop analysis {edges:?}"));
            }
        }
        let mut valid = 0;
        for block in cfg.reverse_postorder() {
            let summary = components
                .summary(block)
                .ok_or(format!("{block}: no summary"))?;
            let step = planner.step(block);
            if summary.step != step {
                return Err(format!(
                    "{block}: step {:?}, planner {step:?}",
                    summary.step
                ));
            }
            if let Ok(agg) = summary.agg {
                let region = planner.region(block, agg.end);
                if region != Ok((agg.cost, agg.insts, agg.edges)) {
                    return Err(format!("{block}: region {agg:?}, planner {region:?}"));
                }
            }
            let component = planner.component(block);
            if summary.component != component {
                return Err(format!(
                    "{block}: component {:?}, planner {component:?}",
                    summary.component
                ));
            }
            valid += usize::from(matches!(component, Some(Ok(_))));
        }
        let kinds = components.kinds();
        for block in cfg.reverse_postorder() {
            if let Some(Ok(c)) = components.component(block) {
                let (mut new, mut old) = (Vec::new(), Vec::new());
                kinds.region_blocks(c.head, c.tail, &mut new);
                region_blocks(&kinds, c.head, c.tail, &mut old);
                if new != old {
                    return Err(format!("{block}: blocks {new:?}, planner {old:?}"));
                }
            }
        }
        Ok(valid)
    }

    #[test]
    fn the_dataflow_analysis_agrees_with_the_recursive_planner() {
        let configs = [
            CfgConfig {
                blocks: 16,
                calls: 0,
                ..CfgConfig::default()
            },
            CfgConfig {
                blocks: 40,
                ..CfgConfig::default()
            },
            CfgConfig {
                blocks: 24,
                calls: 0,
                trap: 0.05,
                early_return: 0.0,
                ..CfgConfig::default()
            }
            .no_references(),
        ];
        let mut valid = 0;
        for seed in 0..3000u64 {
            let mut module = generate_cfg(seed, &configs[(seed % 3) as usize]);
            // Once on the program, once on its merged form.
            for round in 0..2 {
                for func in module.functions.values() {
                    valid += compare(func)
                        .map_err(|e| format!("seed {seed}, round {round}, {}: {e}", func.name))
                        .unwrap();
                }
                let options = Options {
                    min_block_size: [16, 1024][(seed / 3 % 2) as usize],
                    ..Options::default()
                };
                run_module(&mut module, &options);
            }
        }
        assert!(valid > 3000, "only {valid} valid components compared");
    }
}
