//! The pass behind the workspace's one pass interface, and the pipeline
//! of its phases.
//!
//! A round runs promotion, forwarding and dead-store removal in that
//! order; a later round reruns only the phases whose inputs the previous
//! one changed (a removed store of an allocation's reference may free
//! that allocation for promotion, one that joined two alias classes may
//! split them; fewer loads make more stores dead).

use std::convert::Infallible;

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::{Function, InstructionData, Module, Value, ValueDef};

use crate::summary::{self, ModuleSummary};
use crate::{alias, copies, dse, forward, promote, Options, Renames, Stats};

/// Memory to registers, the crate's one entry: run it with
/// [`kildall_ir::pass::run_module`] or through the [`FunctionPass`] trait.
///
/// The function given must verify ([`kildall_ir::verify_function`]): the
/// promotion relies on SSA dominance to know that every promoted load has
/// a reaching store. The pass never changes the control flow, so
/// `analyses` stay valid.
pub struct Mem2Reg;

impl FunctionPass for Mem2Reg {
    const NAME: &'static str = "mem2reg";
    type Options = Options;
    type Report = Stats;
    type Error = Infallible;
    type ModuleFacts = ModuleSummary;

    fn module_facts(module: &Module, _: &Options) -> ModuleSummary {
        ModuleSummary::compute(module)
    }

    /// Runs the pass without facts of the module: every call of a module
    /// function may touch every escaped cell and return any of them.
    fn run(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options,
    ) -> Result<Stats, Infallible> {
        Self::run_in_module(func, analyses, options, &ModuleSummary::default())
    }

    fn run_in_module(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options,
        summary: &ModuleSummary,
    ) -> Result<Stats, Infallible> {
        let mut pipeline = Pipeline {
            summary,
            stats: Stats::default(),
            replaced: Vec::new(),
            pending: None,
        };
        if func.entry_block().is_some() {
            pipeline.run(func, analyses, options);
        }
        Ok(pipeline.stats)
    }
}

/// What travels between the phases of a run.
struct Pipeline<'s> {
    /// What the calls of module functions may do.
    summary: &'s ModuleSummary,
    stats: Stats,
    /// Results of loads a phase replaced, not yet renamed in the operands.
    replaced: Vec<Value>,
    /// The renames of `replaced`, applied by the next phase's own walk over
    /// the instructions where it has one.
    pending: Option<Renames>,
}

/// Which phases may find more in the next round, given what the others did.
struct Due {
    promote: bool,
    forward: bool,
    dead_stores: bool,
}

impl Pipeline<'_> {
    fn run(&mut self, func: &mut Function, analyses: &mut FunctionAnalyses, options: &Options) {
        if (0..func.dfg.num_values()).any(|v| {
            matches!(
                func.dfg.value_def(kildall_ir::EntityRef::new(v)),
                ValueDef::Alias(_)
            )
        }) {
            func.dfg.resolve_aliases();
        }
        // FIXME: copies exposed later, by the loads of references the
        // rounds replace, are left to the next run of the pass: finding
        // them after each round costs another round (+50 % time on the
        // scale example) for 0.01 % more loads removed.
        if options.copies {
            let returned = summary::replace_returned_arguments(func, self.summary);
            self.stats.copies_removed += returned.len();
            self.replaced.extend(returned);
            let copies = copies::propagate(func, analyses);
            self.stats.copies_removed += copies.len();
            self.replaced.extend(copies);
            self.pending = Renames::take(func, &mut self.replaced);
        }
        // The first round runs every phase, a later round only those whose
        // inputs changed.
        let mut due = Due {
            promote: true,
            forward: true,
            dead_stores: true,
        };
        // FIXME: promotion, the alias classes and the dead-store removal
        // each walk every instruction once per round (a cache miss each on
        // a large function), where one shared walk, or walks over the
        // events only, would do.
        for _ in 0..options.max_rounds.max(1) {
            if !(due.promote || due.forward || due.dead_stores) {
                break;
            }
            self.stats.rounds += 1;
            let mut next = Due {
                promote: false,
                forward: false,
                dead_stores: false,
            };
            if options.promote && due.promote {
                next.promote = self.promote(func, analyses, options, &mut due);
            }
            let classes = if options.forward && due.forward {
                Some(self.forward(func, analyses, &mut due, &mut next))
            } else {
                None
            };
            if options.dead_stores && due.dead_stores {
                self.dead_stores(func, analyses, classes, &mut next);
            }
            due = next;
        }
        if let Some(renames) = self.pending.take() {
            renames.apply(func);
        }
    }

    fn changes(&self) -> (usize, usize, usize) {
        let s = &self.stats;
        (s.loads_replaced, s.stores_removed, s.allocations_removed)
    }

    /// Promotion finds more only once a store of a reference was removed
    /// (that reference may have stopped escaping); a replaced load hands
    /// its uses to a value that already escaped. Promotion that removed a
    /// store of an allocation's reference may have freed that allocation:
    /// it runs again before forwarding rather than in another round (a few
    /// times at most; the rest is left to the next round). Returns whether
    /// the last promotion may have freed more.
    fn promote(
        &mut self,
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options,
        due: &mut Due,
    ) -> bool {
        let before = self.changes();
        let mut again = false;
        for _ in 0..options.max_rounds.max(1) {
            let pending = self.pending.take();
            again = promote::promote(
                func,
                analyses,
                self.summary,
                &mut self.stats,
                &mut self.replaced,
                pending,
            );
            self.pending = Renames::take(func, &mut self.replaced);
            if !again {
                break;
            }
        }
        if self.changes() != before {
            due.forward = true;
            due.dead_stores = true;
        }
        again
    }

    /// Forwarding finds more only if names changed under it: a load of a
    /// reference was replaced (a replaced load's result that was stored is
    /// handled inside, see [`forward::forward`]), or the alias classes were
    /// split (by a removed store of a reference). Returns the alias classes,
    /// with the loads it left.
    fn forward(
        &mut self,
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        due: &mut Due,
        next: &mut Due,
    ) -> alias::AliasClasses {
        let renames = self.pending.take();
        let (mut classes, events) =
            forward::classes_and_events(func, self.summary, renames.as_ref());
        drop(renames);
        if events.has_loads() {
            let before = self.stats.loads_replaced;
            let mut loads_left = Vec::new();
            next.forward |= forward::forward(
                func,
                analyses,
                &classes,
                events,
                &mut self.stats,
                &mut self.replaced,
                &mut loads_left,
            );
            classes.set_loads(&loads_left);
            // Fewer loads make more classes unread.
            if self.stats.loads_replaced != before {
                due.dead_stores = true;
            }
            self.pending = Renames::take(func, &mut self.replaced);
        }
        classes
    }

    /// Removes dead stores and unused allocations. A removed store of a
    /// reference may let promotion take that reference's allocation (when
    /// it was the allocation's only escape), and may split the alias
    /// classes (when it joined two), which makes forwarding more precise:
    /// `next` says which of the two is due.
    fn dead_stores(
        &mut self,
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        classes: Option<alias::AliasClasses>,
        next: &mut Due,
    ) {
        let classes = classes.unwrap_or_else(|| {
            let renames = self.pending.take();
            alias::AliasClasses::compute_visiting(
                func,
                self.summary,
                renames.as_ref(),
                &mut |_, _| {},
            )
        });
        // The analysis across blocks runs in the first round only: later
        // rounds remove what their changes expose within blocks, and solving
        // the whole function again each round would double the pass's time
        // on large programs.
        let across_blocks = self.stats.rounds == 1;
        let removed = dse::dead_stores(
            func,
            analyses,
            across_blocks,
            &classes,
            &mut self.stats,
            self.pending.take(),
        );
        let dfg = &func.dfg;
        next.promote |= removed
            .iter()
            .any(|&(_, value)| match dfg.value_def(value) {
                ValueDef::Result(inst, _) => matches!(dfg[inst], InstructionData::Allocate),
                _ => false,
            });
        next.forward |= removed
            .iter()
            .any(|&(inst, _)| classes.store_joins_classes(inst));
    }
}
