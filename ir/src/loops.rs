//! Natural loops, their nesting, and the trip counts of counted loops.
//!
//! A back edge is an edge `latch -> header` whose header dominates its
//! latch; the natural loop of a header is the header plus every block that
//! reaches one of its latches without passing through the header (Aho, Lam,
//! Sethi, Ullman, "Compilers", 2nd ed., 9.6.6). Loops sharing a header are
//! one loop. The loops and their nesting are the graph core's
//! [`LoopForest`] of the control-flow graph; this layer names them as
//! [`Loop`] entities, innermost first, lists their blocks, and finds the
//! counted ones. Irreducible cycles, which have no dominating header, are
//! not loops here.
//!
//! A loop is *counted* when it has the canonical shape Noir emits for
//! `for i in start..end` loops:
//!
//! ```text
//! b0(): jmp b1(u32 0)              // the preheader: the only entry, start constant
//! b1(v1: u32):                     // header, v1 the induction variable
//!   v2 = lt v1, u32 3              // exit test against a constant bound
//!   jmpif v2 then: b2, else: b3    // one side stays in the loop, one leaves
//! b2(): ...
//!   v3 = add v1, u32 1             // constant positive step (add or unchecked_add)
//!   jmp b1(v3)                     // the only latch
//! ```
//!
//! The test may be `lt i, B` (continue while true), `lt B, i` (leave when
//! true), `eq i, B` (leave when true: a `!=` loop), either of these under
//! `not`, and with the branch sides swapped. The trip count is the exact
//! number of times control enters the body from the header; it is reported
//! only when it is finite and the induction variable's last value fits its
//! type (so a checked `add` never traps and an unchecked one never wraps).

use cranelift_entity::{entity_impl, EntityRef, PrimaryMap};
use kildall_graph::LoopForest;

use crate::cfg::ControlFlowGraph;
use crate::dominators::DominatorTree;
use crate::{
    BinaryOp, Block, DataFlowGraph, Function, InstructionData, Terminator, Type, Value, ValueDef,
};

/// A natural loop, written `loopN` in diagnostics.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

/// The exit condition of a counted loop, normalised to "the body runs while".
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum LoopCondition {
    /// The body runs while `i < bound`.
    LessThan,
    /// The body runs while `i <= bound` (from `lt bound, i` leaving when true).
    LessOrEqual,
    /// The body runs while `i != bound`.
    NotEqual,
    /// The body runs while `i == bound`.
    Equal,
    /// The body runs while `i >= bound` (from `lt i, bound` leaving when true).
    GreaterOrEqual,
    /// The body runs while `bound < i`.
    GreaterThan,
}

/// A counted loop's induction variable and constants.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CountedLoop {
    /// The header parameter that counts.
    pub induction_var: Value,
    /// Its index among the header's parameters.
    pub param_index: usize,
    /// The value it enters the loop with.
    pub start: u128,
    /// What the latch adds to it.
    pub step: u128,
    /// The constant it is compared with.
    pub bound: u128,
    /// When the body runs.
    pub condition: LoopCondition,
    /// The edge from the preheader into the header.
    pub preheader: Block,
    /// The only latch.
    pub latch: Block,
    /// The header's successor inside the loop.
    pub body: Block,
    /// The header's successor outside the loop.
    pub exit: Block,
    /// How many times the body runs.
    pub trip_count: u64,
}

#[derive(Clone, Debug)]
struct LoopData {
    /// Every block of the loop, nested loops' blocks included; header first.
    blocks: Vec<Block>,
    children: Vec<Loop>,
    counted: Option<CountedLoop>,
}

/// Natural loops of a function, their nesting, and trip counts.
#[derive(Clone, Default, Debug)]
pub struct LoopAnalysis {
    forest: LoopForest<Block>,
    /// By [`Loop`]: loop `loopN` is the forest's loop `count - 1 - N`.
    loops: PrimaryMap<Loop, LoopData>,
    valid: bool,
}

impl LoopAnalysis {
    /// An empty analysis.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the analysis, keeping its buffers.
    pub fn clear(&mut self) {
        self.forest.clear();
        self.loops.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Finds the loops of `func` given its graph and dominator tree (both computed).
    pub fn compute(&mut self, func: &Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) {
        self.clear();
        self.forest.compute(cfg, cfg.depth_first(), domtree);
        for _ in 0..self.forest.num_loops() {
            self.loops.push(LoopData {
                blocks: Vec::new(),
                children: Vec::new(),
                counted: None,
            });
        }
        for lp in self.loops.keys() {
            if let Some(parent) = self.parent(lp) {
                self.loops[parent].children.push(lp);
            }
        }
        // Block lists: every block joins its innermost loop and all ancestors.
        for block in cfg.reverse_postorder() {
            let mut lp = self.innermost_loop(block);
            while let Some(l) = lp {
                self.loops[l].blocks.push(block);
                lp = self.parent(l);
            }
        }
        for lp in self.loops.keys() {
            let counted = self.find_counted(func, cfg, lp);
            self.loops[lp].counted = counted;
        }
        self.valid = true;
    }

    /// The loop-nesting forest of the graph core the loops come from.
    pub fn forest(&self) -> &LoopForest<Block> {
        &self.forest
    }

    /// The forest's loop named `lp`.
    fn forest_loop(&self, lp: Loop) -> kildall_graph::Loop<'_, Block> {
        self.forest.loop_at(self.loops.len() - 1 - lp.index())
    }

    /// The name of the forest's loop `l`.
    fn name(&self, l: kildall_graph::Loop<'_, Block>) -> Loop {
        Loop::new(self.loops.len() - 1 - l.index())
    }

    /// The loops, innermost before outermost (in post-order of their headers).
    pub fn loops(&self) -> impl ExactSizeIterator<Item = Loop> + DoubleEndedIterator + '_ {
        self.loops.keys()
    }

    /// The number of loops.
    pub fn num_loops(&self) -> usize {
        self.loops.len()
    }

    /// The loops that have no parent.
    pub fn top_level_loops(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops.keys().filter(|&l| self.parent(l).is_none())
    }

    /// The header of `lp`.
    pub fn header(&self, lp: Loop) -> Block {
        self.forest_loop(lp).header()
    }

    /// The blocks that jump back to the header.
    pub fn latches(&self, lp: Loop) -> &[Block] {
        self.forest_loop(lp).latches()
    }

    /// Every block of `lp`, blocks of nested loops included, in reverse post-order
    /// (the header first).
    pub fn blocks(&self, lp: Loop) -> &[Block] {
        &self.loops[lp].blocks
    }

    /// The loop directly containing `lp`.
    pub fn parent(&self, lp: Loop) -> Option<Loop> {
        self.forest_loop(lp).parent().map(|p| self.name(p))
    }

    /// The loops directly nested in `lp`.
    pub fn children(&self, lp: Loop) -> &[Loop] {
        &self.loops[lp].children
    }

    /// The nesting depth of `lp`: 1 for a top-level loop.
    pub fn depth(&self, lp: Loop) -> u32 {
        self.forest_loop(lp).depth()
    }

    /// The innermost loop containing `block`.
    pub fn innermost_loop(&self, block: Block) -> Option<Loop> {
        self.forest.innermost(block).map(|l| self.name(l))
    }

    /// The number of loops containing `block`: 0 outside any loop.
    pub fn loop_depth(&self, block: Block) -> u32 {
        self.forest.loop_depth(block)
    }

    /// Whether `block` is the header of a loop.
    pub fn is_loop_header(&self, block: Block) -> Option<Loop> {
        self.forest.headed_by(block).map(|l| self.name(l))
    }

    /// Whether `block` belongs to `lp` (possibly through a nested loop).
    pub fn contains(&self, lp: Loop, block: Block) -> bool {
        self.forest_loop(lp).contains(block)
    }

    /// The edges leaving `lp`: `(inside, outside)` pairs.
    pub fn exit_edges(&self, lp: Loop, cfg: &ControlFlowGraph) -> Vec<(Block, Block)> {
        let mut edges = Vec::new();
        for &block in &self.loops[lp].blocks {
            for &succ in cfg.successors(block) {
                if !self.contains(lp, succ) {
                    edges.push((block, succ));
                }
            }
        }
        edges
    }

    /// The counted-loop shape of `lp`, if it has one (see the module documentation).
    pub fn counted_loop(&self, lp: Loop) -> Option<&CountedLoop> {
        self.loops[lp].counted.as_ref()
    }

    /// The exact number of times the body of `lp` runs, if it is a counted loop.
    pub fn trip_count(&self, lp: Loop) -> Option<u64> {
        self.counted_loop(lp).map(|c| c.trip_count)
    }

    // FIXME: only loops tested in the header are counted; loops tested in
    // the latch (do-while), several latches, negative steps on signed
    // induction variables and wrapping `eq` exits of `unchecked_add` loops
    // are reported as not counted.
    fn find_counted(
        &self,
        func: &Function,
        cfg: &ControlFlowGraph,
        lp: Loop,
    ) -> Option<CountedLoop> {
        let dfg = &func.dfg;
        let shape = self.header_tested_shape(dfg, cfg, lp)?;
        let test = exit_test(dfg, shape.condition, shape.then_in)?;
        let params = dfg.block_params(shape.header);
        let param_index = |v: Value| params.iter().position(|&p| dfg.resolve(p) == v);
        let (param_index, bound, iv_on_left) = match (param_index(test.lhs), param_index(test.rhs))
        {
            (Some(i), None) => (i, dfg.const_value(test.rhs)?, true),
            (None, Some(i)) => (i, dfg.const_value(test.lhs)?, false),
            _ => return None,
        };
        let induction_var = params[param_index];
        let max = largest_value(dfg.value_type(induction_var))?;
        let bound = bound.to_u128().filter(|&b| b <= max)?;
        let start = dfg
            .const_value(*shape.entry_args.get(param_index)?)?
            .to_u128()
            .filter(|&s| s <= max)?;
        let next = dfg.resolve(*shape.latch_args.get(param_index)?);
        let step = constant_step(dfg, induction_var, next)?.filter(|&s| s > 0 && s <= max)?;
        let condition = LoopCondition::of(test.op, iv_on_left, test.runs_when_true)?;
        let count = iterations(condition, start, bound, step)?;
        // The induction variable takes start + k * step for k = 0..=count
        // and the last value must fit.
        let last = count.checked_mul(step).and_then(|d| d.checked_add(start))?;
        if last > max {
            return None;
        }
        Some(CountedLoop {
            induction_var,
            param_index,
            start,
            step,
            bound,
            condition,
            preheader: shape.preheader,
            latch: shape.latch,
            body: shape.body,
            exit: shape.exit,
            trip_count: u64::try_from(count).ok()?,
        })
    }

    /// The edges of `lp` if it is entered from one preheader by a `jmp`,
    /// closed by one latch's `jmp`, and tested in its header by a `jmpif`
    /// with one arm inside and one outside.
    fn header_tested_shape<'f>(
        &self,
        dfg: &'f DataFlowGraph,
        cfg: &ControlFlowGraph,
        lp: Loop,
    ) -> Option<HeaderTestedLoop<'f>> {
        let header = self.header(lp);
        let [latch] = self.latches(lp)[..] else {
            return None;
        };
        let outside: Vec<Block> = cfg
            .predecessors(header)
            .iter()
            .copied()
            .filter(|&p| p != latch && cfg.is_reachable(p))
            .collect();
        let [preheader] = outside[..] else {
            return None;
        };
        if cfg.predecessors(header).len() != 2 {
            return None;
        }
        let Some(Terminator::Jmp {
            arguments: entry_args,
            ..
        }) = dfg.terminator(preheader)
        else {
            return None;
        };
        let Some(Terminator::Jmp {
            arguments: latch_args,
            ..
        }) = dfg.terminator(latch)
        else {
            return None;
        };
        let Some(Terminator::JmpIf {
            condition,
            then_destination,
            else_destination,
            ..
        }) = dfg.terminator(header)
        else {
            return None;
        };
        let then_in = self.contains(lp, *then_destination);
        if then_in == self.contains(lp, *else_destination) {
            return None;
        }
        let (body, exit) = if then_in {
            (*then_destination, *else_destination)
        } else {
            (*else_destination, *then_destination)
        };
        Some(HeaderTestedLoop {
            header,
            preheader,
            latch,
            entry_args,
            latch_args,
            condition: *condition,
            then_in,
            body,
            exit,
        })
    }
}

/// A loop tested in its header: the edges [`LoopAnalysis::find_counted`] reads.
struct HeaderTestedLoop<'f> {
    header: Block,
    preheader: Block,
    latch: Block,
    /// The arguments the preheader passes to the header.
    entry_args: &'f [Value],
    /// The arguments the latch passes to the header.
    latch_args: &'f [Value],
    /// The header's branch condition.
    condition: Value,
    /// Whether the `then` arm stays in the loop.
    then_in: bool,
    body: Block,
    exit: Block,
}

/// The comparison a loop's condition makes, `not`s peeled.
struct ExitTest {
    op: BinaryOp,
    lhs: Value,
    rhs: Value,
    /// Whether the loop goes on when the comparison holds.
    runs_when_true: bool,
}

/// The `lt` or `eq` under `condition`'s `not`s; `then_in` is the sense of
/// the condition itself.
fn exit_test(dfg: &DataFlowGraph, condition: Value, then_in: bool) -> Option<ExitTest> {
    let mut runs_when_true = then_in;
    let mut cond = dfg.resolve(condition);
    loop {
        let ValueDef::Result(inst, 0) = dfg.value_def(cond) else {
            return None;
        };
        match &dfg[inst] {
            InstructionData::Not { arg } if *dfg.value_type(cond) == Type::BOOL => {
                runs_when_true = !runs_when_true;
                cond = dfg.resolve(*arg);
            }
            InstructionData::Binary {
                op: op @ (BinaryOp::Lt | BinaryOp::Eq),
                lhs,
                rhs,
            } => {
                return Some(ExitTest {
                    op: *op,
                    lhs: dfg.resolve(*lhs),
                    rhs: dfg.resolve(*rhs),
                    runs_when_true,
                })
            }
            _ => return None,
        }
    }
}

/// The largest value an induction variable of type `ty` takes.
fn largest_value(ty: &Type) -> Option<u128> {
    match *ty {
        Type::Unsigned(bits) if bits <= 128 => Some(u128::MAX >> (128 - bits)),
        Type::Signed(bits) if (2..=128).contains(&bits) => Some(u128::MAX >> (129 - bits)),
        // Field loops count far below the modulus in practice; values past
        // 2^128 are not tracked.
        Type::Field => Some(u128::MAX),
        _ => None,
    }
}

/// The constant `step` when `next` is `induction_var + step` (either
/// order, checked or not); `Some(None)` for a step that is not a constant
/// of at most 128 bits.
fn constant_step(dfg: &DataFlowGraph, induction_var: Value, next: Value) -> Option<Option<u128>> {
    let ValueDef::Result(inst, 0) = dfg.value_def(next) else {
        return None;
    };
    let InstructionData::Binary {
        op: BinaryOp::Add | BinaryOp::UncheckedAdd,
        lhs: a,
        rhs: b,
    } = dfg[inst]
    else {
        return None;
    };
    let (a, b) = (dfg.resolve(a), dfg.resolve(b));
    let step_value = if a == induction_var {
        b
    } else if b == induction_var {
        a
    } else {
        return None;
    };
    Some(dfg.const_value(step_value)?.to_u128())
}

impl LoopCondition {
    /// The condition under which the loop runs, from its comparison, the
    /// side the induction variable is on, and the sense of the branch.
    fn of(op: BinaryOp, iv_on_left: bool, runs_when_true: bool) -> Option<Self> {
        use LoopCondition::*;
        Some(match (op, iv_on_left, runs_when_true) {
            (BinaryOp::Lt, true, true) => LessThan,
            (BinaryOp::Lt, true, false) => GreaterOrEqual,
            (BinaryOp::Lt, false, true) => GreaterThan,
            (BinaryOp::Lt, false, false) => LessOrEqual,
            (BinaryOp::Eq, _, true) => Equal,
            (BinaryOp::Eq, _, false) => NotEqual,
            _ => return None,
        })
    }
}

/// The iterations of a loop whose induction variable goes from `start` by
/// `step` (positive) while `condition` holds against `bound`; `None` when
/// it does not stop.
fn iterations(condition: LoopCondition, start: u128, bound: u128, step: u128) -> Option<u128> {
    use LoopCondition::*;
    Some(match condition {
        LessThan if start >= bound => 0,
        LessThan => (bound - start).div_ceil(step),
        LessOrEqual if start > bound => 0,
        LessOrEqual => (bound - start) / step + 1,
        NotEqual if bound < start || !(bound - start).is_multiple_of(step) => return None,
        NotEqual => (bound - start) / step,
        Equal => u128::from(start == bound),
        // With a positive step these run forever (or until overflow) once
        // entered.
        GreaterOrEqual if start < bound => 0,
        GreaterThan if start <= bound => 0,
        GreaterOrEqual | GreaterThan => return None,
    })
}
