//! Memory-to-register promotion with alias tracking (Noir's mem2reg), run to
//! a fixed point in the order of the [`kildall_dataflow`] solver.
//!
//! The specification is the design note "New mem2reg algorithm" of the Noir
//! team: the value of each reference at the start of
//! a block is the unification of its values at the end of the predecessors
//! (`Known(v)` when all agree, else `Unknown`; no predecessor means
//! `Unknown`), stores make a reference `Known`, loads of `Known` references
//! are replaced, calls make the references they receive `Unknown`, and alias
//! sets make a store through one reference forget the others. Three parts go
//! beyond the note:
//!
//! - the analysis runs to its greatest fixed point ([`forward`] module
//!   docs), so a loop whose body does not touch a reference keeps it
//!   `Known`; a `Known` reference holds the set of values known to equal its
//!   cell's content (a load adds its result), which makes every transfer
//!   monotone and the answer independent of the order of the solve;
//! - allocations whose address never escapes are promoted to SSA values in
//!   block parameters (Cytron et al.'s construction, [`promote`] module docs),
//!   so values carried around loops stop going through memory at all;
//! - stores nothing can observe and allocations without uses are removed
//!   ([`dse`] module docs).
//!
//! Soundness comes first: every rule is conservative about aliasing
//! ([`alias`] module docs: Steensgaard's unification over references,
//! arrays, `if`, block parameters, calls and returns), and the pass never
//! turns a trapping program into a non-trapping one (a load of a
//! never-stored cell traps; such loads are never removed, and an allocation
//! is promoted only if every load of it is definitely initialised).
//!
//! Cost: each phase is a few linear scans; states are persistent maps
//! shared between blocks and kept only at join blocks; the forward solve
//! settles each loop before going on ([`forward`] module docs); names
//! changed by replaced loads, and the array elements they expose
//! ([`elements`]), are handled inside the forwarding phase rather than by
//! another round, and a later round reruns only the phases whose
//! inputs the previous one changed. Promotion is linear in the function
//! (pruning by use marking, see [`promote`]). The README has the figures.
//!
//! ```
//! let text = "
//! fn main f0 {
//!   b0(v0: Field):
//!     v1 = allocate -> &mut Field
//!     store v0 at v1
//!     v2 = load v1 -> Field
//!     return v2
//! }";
//! let mut module = kildall_ir::parse_module(text).unwrap();
//! let stats = kildall_mem2reg::run_module(&mut module);
//! assert_eq!((stats.loads_replaced, stats.allocations_removed), (1, 1));
//! assert!(!module.to_string().contains("load"));
//! ```
#![deny(missing_docs)]

use std::fmt;
use std::ops::AddAssign;

use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{
    Block, DataFlowGraph, EntityRef, EntitySet, Function, Inst, Module, SecondaryMap, Value,
    ValueDef,
};

pub mod alias;
pub mod dse;
pub mod elements;
pub mod forward;
mod pass;
pub mod promote;

pub use pass::Mem2Reg;

/// What a run of the pass did.
#[derive(Copy, Clone, Default, PartialEq, Eq, Debug)]
pub struct Stats {
    /// Loads removed, their results replaced by a known or promoted value.
    pub loads_replaced: usize,
    /// Stores removed (into promoted cells, or unobservable).
    pub stores_removed: usize,
    /// Allocations removed (promoted, or left without uses).
    pub allocations_removed: usize,
    /// `array_get`s of references at constant indices replaced by the
    /// element ([`elements`]).
    pub elements_forwarded: usize,
    /// Block visits of the forward analysis's solves, over all rounds.
    pub solver_visits: usize,
    /// Blocks solved, over all solves of all rounds (each solve counts the
    /// blocks it worked on): `solver_visits / solved_blocks` is the visits
    /// per block of a solve.
    pub solved_blocks: usize,
    /// Rounds of the pipeline run (promote, forward, remove dead stores).
    pub rounds: usize,
}

impl AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.loads_replaced += other.loads_replaced;
        self.stores_removed += other.stores_removed;
        self.allocations_removed += other.allocations_removed;
        self.elements_forwarded += other.elements_forwarded;
        self.solver_visits += other.solver_visits;
        self.solved_blocks += other.solved_blocks;
        self.rounds += other.rounds;
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "loads replaced: {}, stores removed: {}, allocations removed: {}, ",
            self.loads_replaced, self.stores_removed, self.allocations_removed
        )?;
        if self.elements_forwarded > 0 {
            write!(f, "elements forwarded: {}, ", self.elements_forwarded)?;
        }
        write!(f, "solver visits: {}", self.solver_visits)
    }
}

/// Whether `enable_side_effects condition` makes the predicate 1 for sure:
/// only then does a store after it certainly happen.
pub(crate) fn is_predicate_one(func: &Function, condition: Value) -> bool {
    func.dfg
        .const_value(condition)
        .is_some_and(|c| c.to_u64() == Some(1))
}

/// Which parts of the pass run. [`Options::default`] runs all of them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Options {
    /// Promote allocations whose address never escapes to SSA values.
    pub promote: bool,
    /// Replace loads of `Known` references (the design note's algorithm).
    pub forward: bool,
    /// Remove unobservable stores and unused allocations.
    pub dead_stores: bool,
    /// The most rounds of the pipeline; later rounds only find what earlier
    /// ones exposed, and a round runs only if the previous one moved
    /// references or renamed stored values.
    pub max_rounds: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            promote: true,
            forward: true,
            dead_stores: true,
            max_rounds: 4,
        }
    }
}

impl Options {
    /// Only the design note's load forwarding, without promotion or dead-store removal
    /// (repeated while a round replaces a load: a replaced load of a reference
    /// can make a later store a store to a known reference).
    pub fn forward_only() -> Self {
        Options {
            promote: false,
            forward: true,
            dead_stores: false,
            max_rounds: 4,
        }
    }
}

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Runs the pass on one function with every part enabled (`func` must
/// verify, see [`run_with`]).
pub fn run(func: &mut Function) -> Stats {
    run_with(func, &Options::default())
}

/// Runs the pass on every function of a module.
pub fn run_module(module: &mut Module) -> Stats {
    run_module_with(module, &Options::default())
}

/// Runs the pass on every function of a module with the given options.
pub fn run_module_with(module: &mut Module, options: &Options) -> Stats {
    let mut stats = Stats::default();
    for func in module.functions.values_mut() {
        stats += run_with(func, options);
    }
    stats
}

/// Operands naming the results of replaced loads (values made aliases by
/// [`kildall_ir::DataFlowGraph::replace_all_uses`]), to be rewritten to the
/// values they stand for. A bit set over the values decides which operands
/// to follow, so the rewrite does not look up the definition of every
/// operand (a cache miss each on a large function). The rewrite is applied
/// by the next phase's own walk over the instructions where it has one
/// ([`promote`], [`dse`]), else by [`Renames::apply`].
pub(crate) struct Renames {
    set: EntitySet<Value>,
    target: SecondaryMap<Value, Value>,
}

impl Renames {
    /// The renames of `replaced`, or `None` if it is empty; clears it.
    pub(crate) fn take(func: &Function, replaced: &mut Vec<Value>) -> Option<Renames> {
        if replaced.is_empty() {
            return None;
        }
        let mut set = EntitySet::<Value>::new();
        let mut target = SecondaryMap::<Value, Value>::with_default(Value::new(0));
        for &v in replaced.iter() {
            set.insert(v);
            target[v] = func.dfg.resolve(v);
        }
        replaced.clear();
        Some(Renames { set, target })
    }

    fn map(&self, v: Value) -> Value {
        if self.set.contains(v) {
            self.target[v]
        } else {
            v
        }
    }

    /// Rewrites the operands of `inst`. Only an instruction with an operand
    /// to rewrite is written (writing every one would dirty all the cache
    /// lines of the instructions).
    pub(crate) fn inst(&self, dfg: &mut DataFlowGraph, inst: Inst) {
        let data = &dfg[inst];
        if data
            .arguments()
            .as_slice()
            .iter()
            .any(|&v| self.set.contains(v))
        {
            dfg[inst].map_values(|v| self.map(v));
        }
    }

    /// Rewrites the arguments of `block`'s terminator (if one needs it).
    pub(crate) fn terminator(&self, dfg: &mut DataFlowGraph, block: Block) {
        let needed = dfg
            .terminator(block)
            .is_some_and(|term| term.arguments().iter().any(|&v| self.set.contains(v)));
        if needed {
            if let Some(term) = dfg.terminator_mut(block) {
                term.map_values(|v| self.map(v));
            }
        }
    }

    /// Rewrites every operand of the function, in one pass over the
    /// instructions and terminators.
    pub(crate) fn apply(&self, func: &mut Function) {
        let dfg = &mut func.dfg;
        for i in 0..dfg.num_insts() {
            self.inst(dfg, Inst::new(i));
        }
        for b in 0..dfg.num_blocks() {
            self.terminator(dfg, Block::new(b));
        }
    }
}

/// Runs the pass on one function with the given options.
///
/// `func` must verify ([`kildall_ir::verify_function`]): the promotion relies
/// on SSA dominance to know that every promoted load has a reaching store.
pub fn run_with(func: &mut Function, options: &Options) -> Stats {
    run_with_analyses(func, &mut FunctionAnalyses::new(), options)
}

/// [`run_with`] given the analyses of `func` as it is; they describe the
/// transformed function on return (promotion may split edges, and then
/// rebuilds them).
pub fn run_with_analyses(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    options: &Options,
) -> Stats {
    let mut stats = Stats::default();
    if func.entry_block().is_none() {
        return stats;
    }
    if (0..func.dfg.num_values())
        .any(|v| matches!(func.dfg.value_def(Value::new(v)), ValueDef::Alias(_)))
    {
        func.dfg.resolve_aliases();
    }
    // The phases read operands as they are: after one replaced loads, the
    // operands naming the replaced results are rewritten, by the next
    // phase's walk where it has one.
    let mut replaced: Vec<Value> = Vec::new();
    let mut pending: Option<Renames> = None;
    let changes = |s: &Stats| (s.loads_replaced, s.stores_removed, s.allocations_removed);
    // Which phases may find more, given what the others did: the first round
    // runs all of them, a later round only those whose inputs changed.
    let (mut promote_due, mut forward_due, mut dead_due) = (true, true, true);
    // FIXME: on a million generated blocks the pass takes 4.1 s (criterion
    // median on a quiet machine, README), 1.08 times the 3.83 s of the
    // version before element forwarding and dead stores across blocks, a
    // thin margin: promotion, the alias classes
    // and the dead-store removal each walk every instruction once per round
    // (a cache miss each on a large function), where one shared walk, or
    // walks over the events only, would do.
    for _ in 0..options.max_rounds.max(1) {
        if !(promote_due || forward_due || dead_due) {
            break;
        }
        stats.rounds += 1;
        let (mut promote_next, mut forward_next) = (false, false);
        // Promotion finds more only once a store of a reference was
        // removed (that reference may have stopped escaping); a replaced
        // load hands its uses to a value that already escaped.
        // Promotion that removed a store of an allocation's reference may
        // have freed that allocation: promote again before forwarding
        // rather than in another round (a few times at most; the rest is
        // left to the next round).
        if options.promote && promote_due {
            let before = changes(&stats);
            for _ in 0..options.max_rounds.max(1) {
                promote_next =
                    promote::promote(func, analyses, &mut stats, &mut replaced, pending.take());
                pending = Renames::take(func, &mut replaced);
                if !promote_next {
                    break;
                }
            }
            if changes(&stats) != before {
                forward_due = true;
                dead_due = true;
            }
        }
        // Forwarding finds more only if names changed under it: a load of a
        // reference was replaced (a replaced load's result that was stored
        // is handled inside, see `forward::forward`), or the alias classes
        // were split (by a removed store of a reference).
        let mut classes = None;
        if options.forward && forward_due {
            if let Some(renames) = pending.take() {
                renames.apply(func);
            }
            let (mut computed, events) = forward::classes_and_events(func);
            if events.has_loads() {
                let before = stats.loads_replaced;
                let mut loads_left = Vec::new();
                forward_next |= forward::forward(
                    func,
                    analyses,
                    &computed,
                    events,
                    &mut stats,
                    &mut replaced,
                    &mut loads_left,
                );
                computed.set_loads(&loads_left);
                if stats.loads_replaced != before {
                    dead_due = true;
                }
                pending = Renames::take(func, &mut replaced);
            }
            classes = Some(computed);
        }
        // Dead stores: fewer loads make more classes unread. A removed
        // store of a reference may let promotion take that reference's
        // allocation, and splits the alias classes the store had merged,
        // which makes forwarding more precise.
        if options.dead_stores && dead_due {
            // Forwarding left its classes with the loads it left.
            let classes = match classes {
                Some(classes) => classes,
                None => {
                    if let Some(renames) = pending.take() {
                        renames.apply(func);
                    }
                    alias::AliasClasses::compute(func)
                }
            };
            // The analysis across blocks runs in the first round only: later
            // rounds remove what their changes expose within blocks, and
            // solving the whole function again each round would double the
            // pass's time on large programs.
            let across_blocks = stats.rounds == 1;
            if dse::dead_stores(
                func,
                analyses,
                across_blocks,
                &classes,
                &mut stats,
                pending.take(),
            ) {
                promote_next = true;
                forward_next = true;
            }
        }
        promote_due = promote_next;
        forward_due = forward_next;
        dead_due = false;
    }
    if let Some(renames) = pending.take() {
        renames.apply(func);
    }
    stats
}
