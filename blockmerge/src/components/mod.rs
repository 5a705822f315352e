//! Merge components and their sizes (CoBBl's block-merging design, "Find Merge Components &
//! Their Size"), as a backward dataflow analysis on the generic solver.
//!
//! # Components in an SSA CFG
//!
//! The design's component is a head that dominates, and a tail that
//! post-dominates, every block of the component, head and tail in the same
//! scope. In a CFG the scope of a block is its innermost natural loop, and
//! the tail of a head `h` is its *same-scope immediate post-dominator*: the
//! first block on `h`'s chain in the post-dominator tree that lies in `h`'s
//! innermost loop (blocks of deeper loops are skipped: that is how the block
//! before a loop, CoBBl's explicit loop head, gets the loop exit as its
//! tail). The component is `h`, everything reachable from `h` without
//! passing the tail, and the tail. The tail labels are read from the
//! post-dominator tree of `kildall_ir::dominators` (Cooper, Harvey and
//! Kennedy's iterative algorithm, itself this kind of backward fixed
//! point); everything else is the analysis below.
//!
//! # The backward analysis
//!
//! `ComponentAnalysis` is a `kildall_dataflow` analysis in the
//! [`Backward`] direction. The state at the start of a block `b` is the
//! block's `Summary`:
//!
//! - its *step*: what flattening does at `b` (a `Kind`: fall through a
//!   jump, a branch flattened up to its join, or a counted loop unrolled up
//!   to its exit), the block it continues at (the tail of the component
//!   `b` heads) and its flattened constraints, CoBBl's `count[b] =
//!   cons[b] + Σ count[s] * iter[s]` without the tail;
//! - its *region* (`Agg`), CoBBl's `agg_count[b]`: the constraints of
//!   the chain of steps from `b` to the first block the chain does not
//!   enter alone (a join also entered by the other arm, a loop header
//!   entered again by its latch), which is where every region ends;
//! - the component `b` heads, if any: its tail and its count, the step
//!   plus the tail.
//!
//! The design keeps, for every enclosing scope, the next block of that scope;
//! here a summary links to the summaries of its successors and to the
//! summary of the end of its region, which is the same stack shared between
//! blocks (summaries are interned in a table and named by index, so a state
//! costs O(1) whatever the nesting depth, and links are never followed
//! recursively).
//!
//! **The lattice and the join.** The state at a block's end is a map from
//! its successors to their start states, each in the flat lattice
//! `Bottom ⊑ Known(summary) ⊑ Top`; the join is pointwise, so it is a
//! lattice join (associative, commutative, idempotent) and joining the
//! then-side and the else-side *keeps both* instead of choosing one. The
//! sum happens in the transfer function of the branch block, once both
//! sides are known: the branch's count is its own constraints, two
//! predicates, **the region of the then-side plus the region of the
//! else-side** (after flattening, the prover pays for every arm whatever
//! the predicate: a predicated constraint is still a constraint), plus
//! the `if` merges of the join's parameters (`k - 1` per parameter for `k`
//! incoming edges). A block whose successors are not all known yet is
//! `Bottom`, so every transfer function is monotone and a summary, once
//! known, never changes.
//!
//! **Loops.** A retreating edge (a back edge, in the reducible CFGs the
//! IR's producers emit) carries nothing: the latch's region ends at the
//! header, which it enters with one edge out of at least two. So the
//! dependencies between states follow the forward edges only, they are
//! acyclic, and the solver's post-order sweep reaches the fixed point in one
//! visit per block. At the block before a counted loop with exact trip
//! count `n` (from `kildall_ir::loops`), the loop's iteration count
//! multiplies: the header is paid `n + 1` times (its last evaluation is the
//! exit test) and the body region `n` times; a nested loop's body, already
//! multiplied by its own trip count in its own preheader's count, is
//! multiplied again by the enclosing trip count, so the counts of nested
//! loops multiply. The block parameters of merged blocks (their transition
//! cost) disappear: only the head's stay. All sums and products saturate.
//!
//! Summaries are interned and compared by identity: the analysis hands out
//! one summary per block and inputs, and a visit whose successor summaries
//! are the same as last time returns the same summary.
//!
//! A component is rejected ([`Rejection`]) when a block of it other than
//! the tail leaves the function (`return`, `unreachable`), when it holds a
//! call to a function of the module or a memory operation (`allocate`,
//! `load`, `store`) or a noisy operation (noise limits trap whatever the
//! predicate): CoBBl's KILL of a call, here a fact of the block that
//! every region through it inherits; when it holds a loop without a
//! constant trip count or with exits other than its header's, or when its
//! shape is not the single-entry single-exit nesting flattening needs.

use std::fmt;

use kildall_dataflow::{Analysis, Backward, Flat, JoinSemiLattice};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominatorTree, PostDominatorTree};
use kildall_ir::loops::{Loop, LoopAnalysis};
use kildall_ir::pass::Analyses;
use kildall_ir::{Block, Function, Inst, InstructionData, Terminator, Value};
use kildall_ir::{EntityRef, SecondaryMap};

use crate::cost::CostModel;

mod blocks;
mod facts;
mod kinds;

pub(crate) use blocks::Blocks;

pub(crate) use facts::BlockFacts;
pub(crate) use kinds::Kinds;

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
    /// Under the calibrated rule: the merged block would cost a prover
    /// more than the cheapest run of the component unmerged.
    Slower,
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
            Rejection::Slower => "slower merged",
        })
    }
}

/// What flattening does at a block.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `jmp dest(args)` (or a `jmpif` to one block twice with the same
    /// arguments): bind `dest`'s parameters and continue there.
    Plain { dest: Block },
    /// `jmpif cond then: then_dest(..), else: else_dest(..)`: both arms
    /// under their predicates, each arm's parameters bound to its edge's
    /// arguments, up to `join`, whose parameters become `if` merges. An arm
    /// may be the join itself (a `jmpif` whose edges enter one block with
    /// different arguments has both arms there).
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
    /// The cheapest run of the block and everything nested unmerged: the
    /// constraints and instances of the blocks executed, the cheaper arm
    /// of each branch, loops their trip counts.
    pub cheapest: u64,
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
    /// The cheapest run of the component unmerged, in constraints with
    /// the per-instance cost of the calibrated rule (see [`crate::MergeRule`]).
    pub cheapest: u64,
}

fn sat_mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

/// The region from a block to the end of its chain of steps: CoBBl's
/// `agg_count`, with what flattening needs besides.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Agg {
    /// Constraints of the region flattened, `end` excluded.
    pub cost: u64,
    /// Instructions of the flattened region, an upper bound.
    pub insts: u64,
    /// The cheapest run of the region unmerged, `end` excluded.
    pub cheapest: u64,
    /// The first block the chain does not enter: one entered from outside
    /// the chain too (a join, a loop header), or whose summary is not an
    /// input (reached by a retreating edge).
    pub end: Block,
    /// The edges from the region into `end`.
    pub edges: u32,
}

/// What the analysis knows at the start of a block (see the module
/// documentation); the state there names it by its [`Id`].
pub(crate) struct Summary {
    /// The block.
    pub block: Block,
    /// What flattening does at the block.
    pub step: Result<Step, Rejection>,
    /// The region from the block (CoBBl's `agg_count`).
    pub agg: Result<Agg, Rejection>,
    /// The component the block heads (`None`: it heads none), with its
    /// tail and count.
    pub component: Option<Result<Component, Rejection>>,
    /// The summaries of the successors reached by forward edges, in
    /// terminator order: the inputs of the transfer function.
    succs: [Option<Id>; 2],
    /// The summary of `agg.end`, when it is known here.
    cont: Option<Id>,
}

/// A summary, named by its index in the analysis's table: summaries are
/// interned values, compared by identity (see the module documentation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Id(u32);

/// The domain: at a block's start, its summary (`here`); at a block's end,
/// the start states of its successors, one flat value per successor (the
/// product lattice over the successors: a join keeps both sides of a
/// branch). A terminator has at most two successors; `more` is the top of
/// the successor part, reached with a third successor, which no IR
/// terminator has.
#[derive(Clone, Default)]
pub(crate) struct State {
    succs: [Option<(Block, Flat<Id>)>; 2],
    more: bool,
    here: Flat<Id>,
}

impl JoinSemiLattice for State {
    fn join(&mut self, other: &Self) -> bool {
        let mut changed = self.here.join(&other.here);
        if self.more {
            return changed;
        }
        if other.more {
            self.overflow();
            return true;
        }
        for (block, value) in other.succs.iter().flatten() {
            if matches!(value, Flat::Bottom) {
                continue;
            }
            if let Some((_, mine)) = self.succs.iter_mut().flatten().find(|(b, _)| b == block) {
                changed |= mine.join(value);
            } else if let Some(slot) = self
                .succs
                .iter_mut()
                .find(|s| matches!(s, None | Some((_, Flat::Bottom))))
            {
                *slot = Some((*block, value.clone()));
                changed = true;
            } else {
                self.overflow();
                return true;
            }
        }
        changed
    }
}

impl State {
    /// A third successor: the top of the successor part, which absorbs
    /// every other value there.
    fn overflow(&mut self) {
        self.succs = [None, None];
        self.more = true;
    }
}

/// The edges leaving a loop: how many, and the first one found.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub(crate) struct LoopExits {
    /// The number of edges leaving the loop.
    pub count: u32,
    /// The first of them, in layout order.
    pub first: Option<(Block, Block)>,
}

/// The edges leaving each loop of `func`, with one walk over its edges: an
/// edge `b -> s` leaves the loops containing `b` below the innermost loop
/// containing both, found by walking up the loop tree from both ends. So
/// the cost is the number of loops each edge leaves or enters, where
/// asking each loop for its exit edges costs its size times its depth.
pub(crate) fn loop_exits(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
) -> SecondaryMap<Loop, LoopExits> {
    let mut exits: SecondaryMap<Loop, LoopExits> = SecondaryMap::new();
    let depth = |l: Option<Loop>| l.map_or(0, |l| loops.depth(l));
    let parent = |l: Option<Loop>| l.and_then(|l| loops.parent(l));
    for block in func.layout.blocks() {
        let inner = loops.innermost_loop(block);
        if inner.is_none() {
            continue;
        }
        for &succ in cfg.successors(block) {
            let (mut from, mut to) = (inner, loops.innermost_loop(succ));
            while from != to {
                if depth(from) >= depth(to) {
                    let lp = from.expect("deeper than another loop");
                    let e = &mut exits[lp];
                    e.count += 1;
                    e.first.get_or_insert((block, succ));
                    from = parent(from);
                } else {
                    to = parent(to);
                }
            }
        }
    }
    exits
}

/// The design's backward analysis (see the module documentation).
pub(crate) struct ComponentAnalysis<'a> {
    func: &'a Function,
    cfg: &'a ControlFlowGraph,
    domtree: &'a DominatorTree,
    pdt: &'a PostDominatorTree,
    loops: &'a LoopAnalysis,
    model: &'a dyn CostModel,
    facts: &'a BlockFacts,
    /// The edges leaving each loop.
    exits: SecondaryMap<Loop, LoopExits>,
    /// Every summary handed out, indexed by [`Id`].
    table: Vec<Summary>,
    /// The last summary handed out for each block.
    latest: Vec<Option<Id>>,
}

impl<'g> Analysis<Blocks<'g>> for ComponentAnalysis<'_> {
    type Domain = State;
    type Direction = Backward;

    fn bottom_value(&self, _: &Blocks<'g>) -> State {
        State::default()
    }

    fn initialize_start_block(&self, _: &Blocks<'g>, _: Block, _: &mut State) {
        // A block without successors: its summary follows from its
        // terminator alone.
    }

    fn apply_instruction_effect(&mut self, _: &Blocks<'g>, _: &mut State, _: Inst) {
        // The constraints and hazards of a block's instructions are its
        // `BlockFacts`, gathered before (CoBBl's first stage) and kept
        // across rounds; the transfer function reads them whole.
    }

    fn apply_terminator_effect(&mut self, _: &Blocks<'g>, state: &mut State, block: Block) {
        let here = self.transfer(block, state);
        *state = State {
            here,
            ..State::default()
        };
    }

    fn apply_edge_effect(&mut self, _: &Blocks<'g>, state: &mut State, from: Block, to: Block) {
        let here = std::mem::take(&mut state.here);
        *state = State::default();
        // A retreating edge carries nothing: see "Loops" above.
        if !self.cfg.is_retreating_edge(from, to) {
            state.succs[0] = Some((to, here));
        }
    }
}

impl<'a> ComponentAnalysis<'a> {
    fn len(&self, block: Block) -> u64 {
        self.func.layout.block_len(block) as u64
    }

    /// The edges into `block`, counted as steps count them: one per
    /// predecessor, two for a `jmpif` whose edges both enter `block` with
    /// different arguments (a branch step whose arms are its join).
    fn preds(&self, block: Block) -> usize {
        let edges = |p: Block| match self.func.dfg.terminator(p) {
            Some(term) if term.is_select_jump() => 2,
            _ => 1,
        };
        self.cfg.predecessors(block).iter().map(|&p| edges(p)).sum()
    }

    /// The summary at the start of `block`, from the state at its end.
    fn transfer(&mut self, block: Block, end: &State) -> Flat<Id> {
        if end.more {
            return Flat::Top;
        }
        let mut inputs: [Option<Id>; 2] = [None, None];
        let mut n = 0;
        // The graph has one edge for a `jmpif` to one block twice.
        for &s in self.cfg.successors(block) {
            if self.cfg.is_retreating_edge(block, s) {
                continue;
            }
            let value = end.succs.iter().flatten().find(|(b, _)| *b == s);
            match value {
                None | Some((_, Flat::Bottom)) => return Flat::Bottom,
                Some((_, Flat::Top)) => return Flat::Top,
                Some((_, Flat::Known(id))) => match inputs.get_mut(n) {
                    Some(slot) => *slot = Some(*id),
                    None => return Flat::Top,
                },
            }
            n += 1;
        }
        if let Some(previous) = self.latest[block.index()] {
            if self.get(previous).succs == inputs {
                return Flat::Known(previous);
            }
        }
        let summary = self.summarize(block, inputs);
        let id = Id(self.table.len() as u32);
        self.table.push(summary);
        self.latest[block.index()] = Some(id);
        Flat::Known(id)
    }

    fn get(&self, id: Id) -> &Summary {
        &self.table[id.0 as usize]
    }

    /// The summary among `inputs` that is `block`'s.
    fn find(&self, inputs: &[Option<Id>; 2], block: Block) -> Option<Id> {
        inputs
            .iter()
            .flatten()
            .copied()
            .find(|&id| self.get(id).block == block)
    }

    fn summarize(&self, block: Block, inputs: [Option<Id>; 2]) -> Summary {
        let tail = self.same_scope_ipdom(block);
        let step = self.step(block, tail, &inputs);
        let (agg, cont) = match &step {
            Err(reason) => (Err(*reason), None),
            Ok(step) => {
                let next = match step.kind {
                    Kind::Plain { dest } => self.find(&inputs, dest),
                    Kind::Branch {
                        then_dest,
                        else_dest,
                        join,
                        ..
                    } => {
                        if then_dest == join || else_dest == join {
                            self.find(&inputs, join)
                        } else {
                            // The then-side's region ends at the join.
                            self.find(&inputs, then_dest).and_then(|s| self.get(s).cont)
                        }
                    }
                    Kind::Loop { header, exit, .. } => self
                        .find(&inputs, header)
                        .and_then(|h| self.find(&self.get(h).succs, exit)),
                };
                debug_assert!(next.is_none_or(|s| self.get(s).block == step.next));
                self.chain(step, next)
            }
        };
        let component = self.component(block, tail, &step);
        Summary {
            block,
            step,
            agg,
            component,
            succs: inputs,
            cont,
        }
    }

    /// The region of a block whose step is `step`: the step alone when its
    /// `next` block is entered from elsewhere too (or its summary is not
    /// known here), else the step, the binding of `next`'s parameters, and
    /// the region of `next`.
    fn chain(&self, step: &Step, next: Option<Id>) -> (Result<Agg, Rejection>, Option<Id>) {
        match next {
            Some(id) if step.edges as usize == self.preds(step.next) => match self.get(id).agg {
                Err(reason) => (Err(reason), None),
                Ok(agg) => {
                    let (bind, bind_insts) = self.bind_cost(step.next, step.edges);
                    let agg = Agg {
                        cost: step.cost.saturating_add(bind).saturating_add(agg.cost),
                        insts: step
                            .insts
                            .saturating_add(bind_insts)
                            .saturating_add(agg.insts),
                        cheapest: step.cheapest.saturating_add(agg.cheapest),
                        ..agg
                    };
                    (Ok(agg), self.get(id).cont)
                }
            },
            next => {
                let agg = Agg {
                    cost: step.cost,
                    insts: step.insts,
                    cheapest: step.cheapest,
                    end: step.next,
                    edges: step.edges,
                };
                (Ok(agg), next)
            }
        }
    }

    /// The region of `summary`'s block when it ends at `stop`: its cost,
    /// instruction bound and edges into `stop`.
    fn region(&self, summary: Option<Id>, stop: Block) -> Result<(u64, u64, u32, u64), Rejection> {
        let agg = self.get(summary.ok_or(Rejection::Unstructured)?).agg?;
        if agg.end != stop {
            return Err(Rejection::Unstructured);
        }
        Ok((agg.cost, agg.insts, agg.edges, agg.cheapest))
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

    /// The step at `block`, whose same-scope immediate post-dominator is
    /// `tail`, from the summaries of its successors.
    fn step(
        &self,
        block: Block,
        tail: Option<Block>,
        inputs: &[Option<Id>; 2],
    ) -> Result<Step, Rejection> {
        if let Some(reason) = self.facts.hazard[block] {
            return Err(reason);
        }
        let dest = match self.func.dfg.terminator(block) {
            None | Some(Terminator::Return { .. } | Terminator::Unreachable) => {
                return Err(Rejection::Exit)
            }
            Some(Terminator::Jmp { destination, .. }) => *destination,
            // Two edges into one block that bind its parameters alike are
            // one jump; with different arguments they are a branch whose
            // arms are the join itself, an `if` per parameter that differs.
            Some(Terminator::JmpIf {
                then_destination,
                then_arguments,
                else_destination,
                else_arguments,
                ..
            }) if then_destination == else_destination && then_arguments == else_arguments => {
                *then_destination
            }
            Some(&Terminator::JmpIf {
                condition,
                then_destination,
                else_destination,
                ..
            }) => {
                let join = tail.ok_or(Rejection::Unstructured)?;
                let arms = [then_destination, else_destination];
                return self.branch_step(block, condition, arms, join, inputs);
            }
        };
        let plain = Step {
            kind: Kind::Plain { dest },
            next: dest,
            edges: 1,
            cost: self.facts.merged_cost[block],
            insts: self.len(block),
            cheapest: self.facts.unmerged(block),
        };
        match self.loops.is_loop_header(dest) {
            // A back edge: the region of the loop's body ends at it.
            Some(lp) if !self.loops.contains(lp, block) => self.loop_step(block, lp, inputs),
            _ => Ok(plain),
        }
    }

    /// The step at `block`, which branches on `cond` to `arms` (then, else)
    /// that meet at `join`: both sides are paid for (see the module
    /// documentation).
    fn branch_step(
        &self,
        block: Block,
        cond: Value,
        arms: [Block; 2],
        join: Block,
        inputs: &[Option<Id>; 2],
    ) -> Result<Step, Rejection> {
        // Both edges into one block before the join would flatten its
        // region twice.
        if !self.domtree.dominates(block, join) || (arms[0] == arms[1] && arms[0] != join) {
            return Err(Rejection::Unstructured);
        }
        let mut cost = self.facts.merged_cost[block].saturating_add(2 * self.model.predicate());
        let mut insts = self.len(block) + 4;
        let mut edges = 0u32;
        let mut cheapest_arm = u64::MAX;
        for arm in arms {
            let (c, i, e, cheap) = if arm == join {
                (0, 0, 1, 0)
            } else {
                self.region(self.find(inputs, arm), join)?
            };
            cost = cost.saturating_add(c);
            insts = insts.saturating_add(i);
            edges = edges.saturating_add(e);
            cheapest_arm = cheapest_arm.min(cheap);
        }
        Ok(Step {
            kind: Kind::Branch {
                cond,
                then_dest: arms[0],
                else_dest: arms[1],
                join,
            },
            next: join,
            edges,
            cost,
            insts,
            cheapest: self.facts.unmerged(block).saturating_add(cheapest_arm),
        })
    }

    /// The step at `block`, the preheader of loop `lp`: the whole loop,
    /// unrolled, when it is a counted loop with one exit.
    fn loop_step(
        &self,
        block: Block,
        lp: Loop,
        inputs: &[Option<Id>; 2],
    ) -> Result<Step, Rejection> {
        let counted = self
            .loops
            .counted_loop(lp)
            .ok_or(Rejection::UncountedLoop)?;
        let header = self.loops.header(lp);
        if counted.preheader != block
            || self.exits[lp]
                != (LoopExits {
                    count: 1,
                    first: Some((header, counted.exit)),
                })
            || self.cfg.predecessors(counted.exit) != [header]
        {
            return Err(Rejection::Unstructured);
        }
        if let Some(reason) = self.facts.hazard[header] {
            return Err(reason);
        }
        let header_summary = self.find(inputs, header).ok_or(Rejection::Unstructured)?;
        let body = self.find(&self.get(header_summary).succs, counted.body);
        let (body_cost, body_insts, body_edges, body_cheapest) = self.region(body, header)?;
        if body_edges != 1 {
            return Err(Rejection::Unstructured);
        }
        // The trip count multiplies the body's region, which holds the
        // counts of the loops nested in it already multiplied by theirs.
        let trip = counted.trip_count;
        let header_runs = trip.saturating_add(1);
        let cost = self.facts.merged_cost[block]
            .saturating_add(sat_mul(header_runs, self.facts.merged_cost[header]))
            .saturating_add(sat_mul(trip, body_cost));
        let insts = self
            .len(block)
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
            cheapest: self
                .facts
                .unmerged(block)
                .saturating_add(sat_mul(header_runs, self.facts.unmerged(header)))
                .saturating_add(sat_mul(trip, body_cheapest)),
        })
    }

    /// The component `head` heads: `None` when it heads none (no same-scope
    /// post-dominator that it dominates: a latch, a block that returns),
    /// else whether it can be merged and its count.
    fn component(
        &self,
        head: Block,
        tail: Option<Block>,
        step: &Result<Step, Rejection>,
    ) -> Option<Result<Component, Rejection>> {
        let tail = tail?;
        if !self.domtree.dominates(head, tail) {
            return None;
        }
        Some(self.check_component(head, tail, step))
    }

    fn check_component(
        &self,
        head: Block,
        tail: Block,
        step: &Result<Step, Rejection>,
    ) -> Result<Component, Rejection> {
        let step = (*step)?;
        if step.next != tail
            || step.edges as usize != self.preds(tail)
            || self.loops.innermost_loop(tail) != self.loops.innermost_loop(head)
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
            cheapest: step.cheapest.saturating_add(self.facts.unmerged(tail)),
        })
    }
}

/// The fixed point of [`ComponentAnalysis`] over one function: the summary
/// at the start of every reachable block.
pub(crate) struct Components {
    table: Vec<Summary>,
    latest: Vec<Option<Id>>,
}

impl Components {
    /// Solves the analysis over `func`, whose analyses and block facts are
    /// given.
    pub fn compute(
        func: &Function,
        analyses: Analyses<'_>,
        model: &dyn CostModel,
        facts: &BlockFacts,
    ) -> Self {
        let Analyses {
            cfg,
            domtree,
            post_domtree: pdt,
            loops,
            ..
        } = analyses;
        let analysis = ComponentAnalysis {
            func,
            cfg,
            domtree,
            pdt,
            loops,
            model,
            facts,
            exits: loop_exits(func, cfg, loops),
            table: Vec::with_capacity(cfg.num_reachable()),
            latest: vec![None; func.dfg.num_blocks()],
        };
        let graph = Blocks(analyses);
        let mut results = analysis.into_engine(&graph).iterate_to_fixpoint();
        // The last summary handed out for a block is its start state at the
        // fixed point: the block's last visit saw its final end state.
        let analysis = results.analysis_mut();
        let table = std::mem::take(&mut analysis.table);
        let latest = std::mem::take(&mut analysis.latest);
        Components { table, latest }
    }

    /// The summary at the start of `block` (`None`: unreachable).
    pub fn summary(&self, block: Block) -> Option<&Summary> {
        let id = (*self.latest.get(block.index())?)?;
        Some(&self.table[id.0 as usize])
    }

    /// The component `head` heads (`None`: it heads none).
    pub fn component(&self, head: Block) -> Option<Result<Component, Rejection>> {
        self.summary(head)?.component
    }

    /// The kinds of the valid steps, indexed by block.
    pub fn kinds(&self) -> Kinds {
        Kinds(
            self.latest
                .iter()
                .map(|id| {
                    let summary = &self.table[id.as_ref()?.0 as usize];
                    Some(summary.step.ok()?.kind)
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests;
