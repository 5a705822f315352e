//! Memory-to-register promotion with alias tracking (Noir's mem2reg), run to
//! a fixed point on the [`kildall_dataflow`] solver.
//!
//! The specification is the design note "New mem2reg algorithm" of the Noir
//! team (the seed of this crate): the value of each reference at the start of
//! a block is the unification of its values at the end of the predecessors
//! (`Known(v)` when all agree, else `Unknown`; no predecessor means
//! `Unknown`), stores make a reference `Known`, loads of `Known` references
//! are replaced, calls make the references they receive `Unknown`, and alias
//! sets make a store through one reference forget the others. Three parts go
//! beyond the seed:
//!
//! - the analysis runs to a fixed point ([`forward`] module docs), so a loop
//!   whose body does not touch a reference keeps it `Known`;
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
//! Cost: each phase is a few linear scans, states are persistent maps
//! shared between blocks, and the pipeline runs a bounded number of
//! rounds. Promotion is linear in the function (pruning by use marking, see
//! [`promote`]). The solver's block visits per block and the memory of its
//! block-entry states (one copied trie path per store) grow with the size of
//! one function, so a single huge function costs more than linear time and
//! memory (see the README's measurements).
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

use kildall_ir::{Function, Module};

pub mod alias;
pub mod dse;
pub mod forward;
pub mod pmap;
pub mod promote;

/// What a run of the pass did.
#[derive(Copy, Clone, Default, PartialEq, Eq, Debug)]
pub struct Stats {
    /// Loads removed, their results replaced by a known or promoted value.
    pub loads_replaced: usize,
    /// Stores removed (into promoted cells, or unobservable).
    pub stores_removed: usize,
    /// Allocations removed (promoted, or left without uses).
    pub allocations_removed: usize,
    /// Block visits of the dataflow solver, over all rounds.
    pub solver_visits: usize,
    /// Rounds of the pipeline run (promote, forward, remove dead stores).
    pub rounds: usize,
}

impl AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.loads_replaced += other.loads_replaced;
        self.stores_removed += other.stores_removed;
        self.allocations_removed += other.allocations_removed;
        self.solver_visits += other.solver_visits;
        self.rounds += other.rounds;
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "loads replaced: {}, stores removed: {}, allocations removed: {}, solver visits: {}",
            self.loads_replaced, self.stores_removed, self.allocations_removed, self.solver_visits
        )
    }
}

/// Which parts of the pass run. [`Options::default`] runs all of them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Options {
    /// Promote allocations whose address never escapes to SSA values.
    pub promote: bool,
    /// Replace loads of `Known` references (the seed's algorithm).
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
    /// Only the seed's load forwarding, without promotion or dead-store removal
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

fn has_loads(func: &Function) -> bool {
    func.layout.blocks().any(|b| {
        func.layout
            .block_insts(b)
            .any(|i| matches!(func.dfg[i], kildall_ir::InstructionData::Load { .. }))
    })
}

/// Runs the pass on one function with the given options.
///
/// `func` must verify ([`kildall_ir::verify_function`]): the promotion relies
/// on SSA dominance to know that every promoted load has a reaching store.
// FIXME(perf): a million blocks (a 500,000-block `main`) take about 14 µs
// per block at 100,000 blocks but 3x that at 300,000, and several GiB,
// against the targets of 5 s and 2 GB. Promotion is linear now; what grows
// is the forward solve (`forward.rs`): block visits per block per solve
// (2.2 at 100,000 blocks, 3.4 at 300,000: the solver's round-robin sweeps
// carry a change at a loop header down the rest of the function once per
// sweep), the heap its states occupy (a copied trie path of about 1 KiB per
// store, for every block-entry state), and a third round at 300,000 blocks.
// Each round still makes about ten scans (CFG, dominators, frontiers, alias
// classes, solver, replacement walk, dead stores, dead allocations).
pub fn run_with(func: &mut Function, options: &Options) -> Stats {
    let mut stats = Stats::default();
    if func.entry_block().is_none() {
        return stats;
    }
    func.dfg.resolve_aliases();
    // Only a replaced load leaves aliases to resolve: skip the rewrite of
    // every operand otherwise.
    let mut resolved = stats.loads_replaced;
    let mut resolve = |func: &mut Function, stats: &Stats| {
        if stats.loads_replaced != resolved {
            func.dfg.resolve_aliases();
            resolved = stats.loads_replaced;
        }
    };
    for _ in 0..options.max_rounds.max(1) {
        stats.rounds += 1;
        // Another round can only find something if this one replaced a
        // load of a reference, stored the result of a replaced load (the
        // analysis compares stored values by name), or removed a store of a
        // reference: other changes neither move references between names,
        // nor rename stored values, nor make a reference stop escaping.
        let mut enabling = false;
        if options.promote {
            enabling |= promote::promote(func, &mut stats);
            resolve(func, &stats);
        }
        let mut classes = None;
        if options.forward && has_loads(func) {
            let computed = alias::AliasClasses::compute(func);
            enabling |= forward::forward(func, &computed, &mut stats);
            resolve(func, &stats);
            classes = Some(computed);
        }
        if options.dead_stores {
            let classes = match classes {
                Some(mut classes) => {
                    classes.refresh_loads(func);
                    classes
                }
                None => alias::AliasClasses::compute(func),
            };
            enabling |= dse::dead_stores(func, &classes, &mut stats);
            dse::dead_allocations(func, &mut stats);
        }
        if !enabling {
            break;
        }
    }
    resolve(func, &stats);
    stats
}
