//! Merge components and their sizes (seed 001, "Find Merge Components &
//! Their Size").
//!
//! # Components in an SSA CFG
//!
//! The seed's component is a head that dominates, and a tail that
//! post-dominates, every block of the component, head and tail in the same
//! scope. In a CFG the scope of a block is its innermost natural loop, and
//! the tail of a head `h` is its *same-scope immediate post-dominator*: the
//! first block on `h`'s chain in the post-dominator tree that lies in `h`'s
//! innermost loop (blocks of deeper loops are skipped: that is how the block
//! before a loop, the seed's explicit loop head, gets the loop exit as its
//! tail). The component is `h`, everything reachable from `h` without
//! passing the tail, and the tail.
//!
//! # The backward analysis
//!
//! The seed labels every block with the tail of the component it heads (or
//! NAC) and two counts, by a backward analysis whose join sums over the
//! successors. Summing is not a lattice join, and the tail labels are
//! exactly the same-scope immediate post-dominators, so the fixed point is
//! reached in one bottom-up evaluation over the component tree, memoised per
//! block (`Planner::step`), on top of the post-dominator tree that
//! `kildall_ir::dominators` computes (Cooper, Harvey and Kennedy). For each
//! block `b` it records:
//!
//! - its *step*: what flattening does at `b` (a `Kind`: fall through a
//!   jump, a branch flattened up to its join, or a counted loop unrolled up
//!   to its exit) and the block it continues at (the tail of the component
//!   `b` heads);
//! - `count`: the constraints of `b` and everything nested in its
//!   component, the seed's `count[i] = cons[i] + Σ count[s] * iter[s] +
//!   cons[t]` without the tail;
//! - `agg_count` of a region is the sum of the counts along the chain of
//!   steps from its first block to its end (`Planner::region`).
//!
//! Both sides of a branch are added: once flattened, the prover pays for
//! every arm whatever the predicate (a predicated constraint is still a
//! constraint). A counted loop with trip count `n` pays its header `n + 1`
//! times (the last evaluation is the exit test) and its body `n` times. A
//! join parameter fed by `k` edges becomes `k - 1` `if` merges, each arm
//! predicate one `and`, and the block parameters of merged blocks (their
//! transition cost) disappear: only the head's stay.
//!
//! A component is rejected ([`Rejection`]) when a block of it other than
//! the tail leaves the function (`return`, `unreachable`), when it holds a
//! call to a function of the module or a memory operation (`allocate`,
//! `load`, `store`) or a noisy operation (noise limits trap whatever the
//! predicate), when it holds a loop without a constant trip count or
//! with exits other than its header's, or when its shape is not the
//! single-entry single-exit nesting flattening needs.

use std::fmt;

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominatorTree, PostDominatorTree};
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::{Block, Callee, Function, InstructionData, Terminator, Value};
use kildall_ir::{EntityRef, SecondaryMap};

use crate::cost::CostModel;

/// Why a component cannot be merged.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Rejection {
    /// A block other than the tail returns or is `unreachable`.
    Exit,
    /// A block calls a function of the module.
    Call,
    /// A block allocates, loads or stores.
    Memory,
    /// A block computes on noisy values, whose noise checks the predicate
    /// does not silence.
    Noise,
    /// A loop without a constant exact trip count.
    UncountedLoop,
    /// Not a single-entry single-exit nesting of branches and counted
    /// loops (a loop exiting elsewhere than its header, a jump into the
    /// middle of a region, a back edge to the head).
    Unstructured,
    /// Its estimate exceeds the threshold.
    TooLarge,
    /// Its flattened form would exceed the instruction limit.
    TooManyInstructions,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rejection::Exit => "early exit",
            Rejection::Call => "call",
            Rejection::Memory => "memory operation",
            Rejection::Noise => "noisy operation",
            Rejection::UncountedLoop => "loop without a constant trip count",
            Rejection::Unstructured => "unstructured",
            Rejection::TooLarge => "above the threshold",
            Rejection::TooManyInstructions => "too many instructions",
        })
    }
}

/// What flattening does at a block.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `jmp dest(args)` (or a `jmpif` to one block twice): bind `dest`'s
    /// parameters and continue there.
    Plain { dest: Block },
    /// `jmpif cond then: then_dest, else: else_dest`: both arms under their
    /// predicates up to `join`, whose parameters become `if` merges.
    Branch {
        cond: Value,
        then_dest: Block,
        else_dest: Block,
        join: Block,
    },
    /// The block before a counted loop: the header and body unrolled
    /// `trip` times, the header once more, then `exit`.
    Loop {
        header: Block,
        body: Block,
        exit: Block,
        trip: u64,
    },
}

/// The summary of a step: where it continues, by how many edges, and what
/// it costs flattened.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Step {
    pub kind: Kind,
    /// The block the step continues at.
    pub next: Block,
    /// The edges from the step into `next`.
    pub edges: u32,
    /// Constraints of the block and everything nested, flattened (`count`
    /// without the tail).
    pub cost: u64,
    /// Instructions of the flattened form, an upper bound.
    pub insts: u64,
}

/// A valid component.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Component {
    /// The head.
    pub head: Block,
    /// The tail.
    pub tail: Block,
    /// The estimated constraints of the merged block.
    pub estimate: u64,
    /// An upper bound on the instructions of the merged block.
    pub insts: u64,
}

/// What the planner needs to know of each block's instructions: their
/// constraints and what keeps the block out of components. Kept across
/// rounds and refreshed only for the blocks a merge changed.
#[derive(Clone, Default)]
pub(crate) struct BlockFacts {
    /// Instruction constraints (parameters apart).
    insts_cost: SecondaryMap<Block, u64>,
    /// The same plus one predicate per `enable_side_effects` (rewritten
    /// into an `and` when the block is merged).
    merged_cost: SecondaryMap<Block, u64>,
    /// Constraints of the parameters.
    params_cost: SecondaryMap<Block, u64>,
    hazard: SecondaryMap<Block, Option<Rejection>>,
}

impl BlockFacts {
    /// The facts of every block in the layout of `func`.
    pub fn new(func: &Function, model: &dyn CostModel) -> Self {
        let mut facts = BlockFacts::default();
        for block in func.layout.blocks() {
            facts.update(func, model, block);
        }
        facts
    }

    /// Recomputes the facts of `block`.
    pub fn update(&mut self, func: &Function, model: &dyn CostModel, block: Block) {
        let mut cost = 0u64;
        let mut predicates = 0u64;
        let mut hazard = None;
        for inst in func.layout.block_insts(block) {
            let data = &func.dfg[inst];
            cost = cost.saturating_add(model.instruction(func, inst));
            let found = match data {
                InstructionData::EnableSideEffects { .. } => {
                    predicates += 1;
                    None
                }
                InstructionData::Call {
                    callee: Callee::Function(_),
                    ..
                } => Some(Rejection::Call),
                InstructionData::Allocate
                | InstructionData::Load { .. }
                | InstructionData::Store { .. } => Some(Rejection::Memory),
                InstructionData::Encode { .. }
                | InstructionData::Decode { .. }
                | InstructionData::ReduceNoise { .. } => Some(Rejection::Noise),
                InstructionData::Binary { lhs, .. }
                    if *func.dfg.value_type(*lhs) == kildall_ir::Type::Noisy =>
                {
                    Some(Rejection::Noise)
                }
                _ => None,
            };
            // A call is reported before anything else, as the seed does.
            if let Some(found) = found {
                if hazard.is_none() || found == Rejection::Call {
                    hazard = Some(found);
                }
            }
        }
        self.insts_cost[block] = cost;
        self.merged_cost[block] = cost.saturating_add(predicates.saturating_mul(model.predicate()));
        self.params_cost[block] = func
            .dfg
            .block_params(block)
            .iter()
            .map(|&p| model.block_param(func, p))
            .fold(0, u64::saturating_add);
        self.hazard[block] = hazard;
    }

    /// The constraints of `block`, instructions and parameters, as
    /// [`CostModel::block`] counts them.
    pub fn block_cost(&self, block: Block) -> u64 {
        self.insts_cost[block].saturating_add(self.params_cost[block])
    }
}

// FIXME: the seed's backward analysis runs as a memoised bottom-up pass
// over the post-dominator tree, not on `kildall-dataflow`'s generic solver:
// its join sums both arms (not a lattice join) and its tail labels are the
// same-scope post-dominators (see the module documentation).

/// The analyses one round of merging needs, and the memoised steps.
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
    // FIXME: `step` and `region` recurse once per nesting level of branches
    // and loops; a program nested thousands deep would exhaust the stack.
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

    /// The kinds of the steps computed, indexed by block.
    pub fn into_kinds(self) -> Kinds {
        Kinds(
            self.steps
                .into_iter()
                .map(|s| match s {
                    Some(Ok(step)) => Some(step.kind),
                    _ => None,
                })
                .collect(),
        )
    }
}

/// The kinds of the valid steps of a round, indexed by block.
pub(crate) struct Kinds(Vec<Option<Kind>>);

impl Kinds {
    /// The step kind at `block`, if it was computed and valid.
    pub fn kind(&self, block: Block) -> Option<Kind> {
        self.0.get(block.index()).copied().flatten()
    }

    /// Appends to `out` every block of the region from `start` up to `stop`
    /// (exclusive).
    pub fn region_blocks(&self, start: Block, stop: Block, out: &mut Vec<Block>) {
        let mut cur = start;
        while cur != stop {
            out.push(cur);
            let Some(kind) = self.kind(cur) else { return };
            cur = match kind {
                Kind::Plain { dest } => dest,
                Kind::Branch {
                    then_dest,
                    else_dest,
                    join,
                    ..
                } => {
                    for arm in [then_dest, else_dest] {
                        self.region_blocks(arm, join, out);
                    }
                    join
                }
                Kind::Loop {
                    header, body, exit, ..
                } => {
                    out.push(header);
                    self.region_blocks(body, header, out);
                    exit
                }
            };
        }
    }
}
