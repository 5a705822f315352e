//! Memory-to-register promotion with alias tracking (Noir's mem2reg), run to
//! a fixed point in the order of the [`kildall_dataflow`] solver.
//!
//! The analysis is Noir's flow-sensitive, context-insensitive reference
//! tracking: the value of each reference at the start of a block is the
//! unification of its values at the end of the predecessors (`Known(v)`
//! when all agree, else `Unknown`; no predecessor means `Unknown`), stores
//! make a reference `Known`, loads of `Known` references are replaced,
//! calls make the references they receive `Unknown` (a call of a module
//! function, through a `function` value, or of a foreign oracle alike: code
//! the pass cannot see, which may also return any reference it was given or
//! keeps), and alias sets make a
//! store through one reference forget the others. A summary of the
//! module's functions ([`summary`]) narrows what a call of a module
//! function may write (the cells its arguments reach through a `&mut`,
//! unless it may run an oracle) and tells which argument it returns.
//! Three parts go beyond that scheme:
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
//! let stats = kildall_ir::pass::run_module::<kildall_mem2reg::Mem2Reg>(&mut module, &Default::default())
//!     .unwrap();
//! assert_eq!((stats.loads_replaced, stats.allocations_removed), (1, 1));
//! assert!(!module.to_string().contains("load"));
//! ```
#![deny(missing_docs)]

use std::fmt;
use std::ops::AddAssign;

use kildall_ir::{Block, DataFlowGraph, EntityRef, EntitySet, Function, Inst, SecondaryMap, Value};

pub mod alias;
pub mod copies;
pub mod dse;
pub mod elements;
pub mod forward;
mod pass;
pub mod promote;
pub mod summary;

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
    /// Block parameters and `if`s that only copied a reference, replaced by
    /// it ([`copies`]).
    pub copies_removed: usize,
    /// Fresh cells made to carry a promoted cell's content into a call that
    /// only lends it ([`promote`]).
    pub cells_rematerialized: usize,
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
        self.copies_removed += other.copies_removed;
        self.cells_rematerialized += other.cells_rematerialized;
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "loads replaced: {}, stores removed: {}, allocations removed: {}, ",
            self.loads_replaced, self.stores_removed, self.allocations_removed
        )?;
        if self.copies_removed > 0 {
            write!(f, "reference copies removed: {}, ", self.copies_removed)?;
        }
        if self.cells_rematerialized > 0 {
            write!(f, "cells rematerialized: {}, ", self.cells_rematerialized)?;
        }
        if self.elements_forwarded > 0 {
            write!(f, "elements forwarded: {}, ", self.elements_forwarded)?;
        }
        write!(f, "solver visits: {}", self.solver_visits)
    }
}

/// Whether `enable_side_effects condition` makes the predicate 1 for sure:
/// only then does a store after it certainly happen.
pub(crate) fn is_predicate_one(dfg: &DataFlowGraph, condition: Value) -> bool {
    dfg.const_value(condition)
        .is_some_and(|c| c.to_u64() == Some(1))
}

/// Which parts of the pass run. [`Options::default`] runs all of them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Options {
    /// Promote allocations whose address never escapes to SSA values.
    pub promote: bool,
    /// Replace loads of `Known` references (the per-block reference values).
    pub forward: bool,
    /// Remove unobservable stores and unused allocations.
    pub dead_stores: bool,
    /// Replace block parameters and `if`s that only copy a reference by it
    /// ([`copies`]), once, before the rounds.
    pub copies: bool,
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
            copies: true,
            max_rounds: 4,
        }
    }
}

impl Options {
    /// Only the forwarding of `Known` references, without promotion or dead-store removal
    /// (repeated while a round replaces a load: a replaced load of a reference
    /// can make a later store a store to a known reference).
    pub fn forward_only() -> Self {
        Options {
            promote: false,
            forward: true,
            dead_stores: false,
            copies: false,
            max_rounds: 4,
        }
    }
}

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

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
            .is_some_and(|term| term.arguments().any(|&v| self.set.contains(v)));
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
