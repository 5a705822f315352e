//! Removal of stores no later load, call, return or alias can observe, and
//! of allocations left without uses.
//!
//! Two rules, both sound whatever the control flow:
//! - *never read*: a store into a cell of an [alias class](crate::alias) that
//!   no `load` reads and that does not escape (through a parameter, a call or
//!   a returned value) cannot be observed: only loads read memory inside a
//!   function, and only calls and returns let a callee or caller read it;
//! - *overwritten*: a store to `a` is dead when every path from it reaches an
//!   unconditional store to the same reference `a` with no load of a
//!   possible alias, no call reaching `a`'s class, no redefinition of `a`
//!   (after a redefinition the name denotes another cell, and the old one
//!   may still be read through an alias) and no `return` in between.
//!
//! The overwritten rule is a backward must-analysis on the dataflow engine
//! ([`Overwritten`]): the state at a point is the set of references every
//! path from it overwrites before anything observes them, joined by
//! intersection ([`Must`]). It is solved on the graph of the accesses only
//! ([`Access`]: unconditional stores, loads, calls, definitions of
//! references), so a block visit costs its accesses, not its instructions.
//! A block's walk starts from its exit state, so a store overwritten in
//! every successor goes as well as one overwritten later in its own block.
//!
//! A third rule looks at the end of a function: after a `return` (or a
//! trap) no one can read a cell that never escaped, so a store to one that
//! no later load of its block reads, in a block that returns, is dead.
//!
//! FIXME: that rule stops at the block: a store followed by other blocks
//! that reach the return without reading its class stays (a backward
//! may-analysis of the classes loads can still read would remove it).
//!
//! An `allocate` whose reference has no use left is removed: allocation has
//! no effect besides producing a fresh reference.

use std::collections::HashSet;

use kildall_dataflow::{
    Analysis, Backward, BitSet, EffectId, Effects, FunctionGraph, Must, SparseGraph,
};
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{Block, EntitySet, Function, Inst, InstructionData, Terminator, Value};

use crate::alias::AliasClasses;
use crate::{is_predicate_one, Renames, Stats};

/// What [`Overwritten`] sees of an instruction: its effects only, so that a
/// block visit costs the block's accesses, not its instructions.
#[derive(Copy, Clone, Debug)]
pub enum Access {
    /// An unconditional store to the reference (one under a predicate that
    /// may be 0 may not happen: it overwrites nothing, and observes nothing).
    Store(Value),
    /// A load through the reference.
    Load(Value),
    /// A call reaching the class (the cells of the class it may read).
    Call(Inst, u32),
    /// A definition of the reference: from here on its name denotes another
    /// cell.
    Define(Value),
}

/// The graph [`Overwritten`] is solved on: the function's blocks and edges,
/// and in each block only its [`Access`]es.
pub type AccessGraph<'g> = SparseGraph<'g, FunctionGraph<'g>, Access>;

/// What the walk back through a block sees of an instruction: the
/// [`Access`]es, and every store with its instruction and operands (one
/// under a predicate that may be 0 can still be dead, but overwrites
/// nothing).
#[derive(Copy, Clone, Debug)]
enum Step {
    Store {
        inst: Inst,
        address: Value,
        value: Value,
        predicate_one: bool,
    },
    Load(Value),
    Call(Inst, u32),
    Define(Value),
}

/// What the one walk of [`dead_stores`] over the instructions gathers.
struct Walk {
    /// The instructions of the [`AccessGraph`] (only when the analysis
    /// runs across blocks).
    accesses: Effects<Access>,
    /// The steps of each block, in order.
    steps: Effects<Step>,
    /// Blocks ending in a `return` or a trap.
    ends_function: EntitySet<Block>,
    /// Values used by an instruction other than a store, or by a terminator.
    used: EntitySet<Value>,
    allocations: Vec<(Inst, Value)>,
}

impl Walk {
    fn push(&mut self, across_blocks: bool, access: Access, step: Step) {
        if across_blocks {
            self.accesses.push(access);
        }
        self.steps.push(step);
    }
}

/// One walk over the instructions: applies `pending` renames, and gathers
/// the accesses, the steps, the uses and the allocations.
fn walk(
    func: &mut Function,
    classes: &AliasClasses,
    across_blocks: bool,
    pending: Option<&Renames>,
) -> Walk {
    let mut walk = Walk {
        accesses: Effects::new(),
        steps: Effects::new(),
        ends_function: EntitySet::new(),
        used: EntitySet::new(),
        allocations: Vec::new(),
    };
    for block in func.layout.blocks() {
        let mut predicate_one = true;
        for inst in func.layout.block_insts(block) {
            if let Some(renames) = pending {
                renames.inst(&mut func.dfg, inst);
            }
            let dfg = &func.dfg;
            match dfg[inst] {
                InstructionData::Store { address, value } => {
                    let step = Step::Store {
                        inst,
                        address,
                        value,
                        predicate_one,
                    };
                    if predicate_one {
                        walk.push(across_blocks, Access::Store(address), step);
                    } else {
                        walk.steps.push(step);
                    }
                    // A store's operands count as used only if it stays.
                    continue;
                }
                InstructionData::EnableSideEffects { condition } => {
                    predicate_one = is_predicate_one(&func.dfg, condition);
                }
                InstructionData::Allocate => {
                    if let Some(r) = dfg.first_result(inst) {
                        walk.allocations.push((inst, r));
                    }
                }
                InstructionData::Load { address } => {
                    walk.push(across_blocks, Access::Load(address), Step::Load(address));
                }
                InstructionData::Call { callee, .. } if callee.runs_unknown_code() => {
                    if let Some(class) = classes.call_class(inst) {
                        let (access, step) = (Access::Call(inst, class), Step::Call(inst, class));
                        walk.push(across_blocks, access, step);
                    }
                }
                _ => {}
            }
            for &v in dfg[inst].arguments().as_slice() {
                walk.used.insert(v);
            }
            // After the instruction's own access: walking back, the
            // definition comes first.
            for &r in dfg.inst_results(inst) {
                if classes.is_reference(r) {
                    walk.push(across_blocks, Access::Define(r), Step::Define(r));
                }
            }
        }
        if across_blocks {
            walk.accesses.end_block(block);
        }
        walk.steps.end_block(block);
        if let Some(renames) = pending {
            renames.terminator(&mut func.dfg, block);
        }
        if let Some(term) = func.dfg.terminator(block) {
            if matches!(term, Terminator::Return { .. } | Terminator::Unreachable) {
                walk.ends_function.insert(block);
            }
            for &v in term.arguments() {
                walk.used.insert(v);
            }
        }
    }
    walk
}

/// Whether a load through `address` may read the cell `stored` names: the
/// same cell class (alias class and cell type; a reference of unknown class
/// may be any).
fn may_read(classes: &AliasClasses, address: Value, stored: Value) -> bool {
    match classes.cell_class(address) {
        None => true,
        Some(cell) => classes.cell_class(stored) == Some(cell),
    }
}

/// Forgets the references a load through `address` may read.
fn observe(classes: &AliasClasses, state: &mut BitSet<Value>, address: Value) {
    let gone: Vec<Value> = state
        .iter()
        .filter(|&k| may_read(classes, address, k))
        .collect();
    for k in gone {
        state.remove(k);
    }
}

/// The references every path from a point overwrites (an unconditional
/// store to the same reference) before a load of a possible alias, a call
/// reaching its class, its redefinition or a `return`. Backward, over
/// [`Must`] sets of references, on the [`AccessGraph`] of the function.
pub struct Overwritten<'c> {
    /// The alias classes of the function.
    pub classes: &'c AliasClasses,
}

impl Analysis<AccessGraph<'_>> for Overwritten<'_> {
    type Domain = Must<Value>;
    type Direction = Backward;

    fn bottom_value(&self, _: &AccessGraph<'_>) -> Must<Value> {
        Must::Unreached
    }

    fn initialize_start_block(&self, graph: &AccessGraph<'_>, _: Block, state: &mut Must<Value>) {
        // After a `return` the caller may read any cell it can reach, and
        // nothing follows an `unreachable`: nothing is overwritten.
        *state = Must::Holds(BitSet::new_empty(graph.graph().dfg.num_values()));
    }

    fn apply_instruction_effect(
        &mut self,
        graph: &AccessGraph<'_>,
        state: &mut Must<Value>,
        id: EffectId,
    ) {
        let Must::Holds(set) = state else {
            return;
        };
        match *graph.effect(id) {
            Access::Store(address) => {
                set.insert(address);
            }
            Access::Load(address) => observe(self.classes, set, address),
            Access::Call(inst, class) => {
                let dfg = &graph.graph().dfg;
                let read: Vec<Value> = set
                    .iter()
                    .filter(|&k| {
                        self.classes.class(k) == Some(class)
                            && self.classes.call_may_read(dfg, inst, k)
                    })
                    .collect();
                for k in read {
                    set.remove(k);
                }
            }
            Access::Define(r) => {
                set.remove(r);
            }
        }
    }

    fn apply_terminator_effect(
        &mut self,
        graph: &AccessGraph<'_>,
        state: &mut Must<Value>,
        block: Block,
    ) {
        let dfg = &graph.graph().dfg;
        if let Some(Terminator::Return { .. } | Terminator::Unreachable) = dfg.terminator(block) {
            *state = Must::Holds(BitSet::new_empty(dfg.num_values()));
        }
    }

    fn apply_edge_effect(
        &mut self,
        graph: &AccessGraph<'_>,
        state: &mut Must<Value>,
        _from: Block,
        to: Block,
    ) {
        // `to`'s parameters are defined as it starts: before that, their
        // names denote other cells.
        if let Must::Holds(set) = state {
            for &p in graph.graph().dfg.block_params(to) {
                set.remove(p);
            }
        }
    }
}

/// The alias classes a block's loads read after a point (walking back):
/// `None` once a load of unknown class may read any of them.
#[derive(Default)]
struct ReadLater {
    classes: HashSet<u32>,
    any: bool,
}

impl ReadLater {
    fn add(&mut self, class: Option<u32>) {
        match class {
            Some(c) => {
                self.classes.insert(c);
            }
            None => self.any = true,
        }
    }

    fn reads(&self, class: u32) -> bool {
        self.any || self.classes.contains(&class)
    }
}

/// Removes dead stores, then the allocations left without uses (one walk
/// over the function for both, then one over the steps of each block).
/// Returns the removed stores of values holding references, with those
/// values: forgetting them may make an allocation promotable and split
/// alias classes.
///
/// Operands are resolved (the pipeline rewrites them after every
/// replacement), so uses are marked in a bit set without looking up
/// definitions.
///
/// `pending` holds the renames of earlier replacements, applied on the way.
pub(crate) fn dead_stores(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    across_blocks: bool,
    classes: &AliasClasses,
    stats: &mut Stats,
    pending: Option<Renames>,
) -> Vec<(Inst, Value)> {
    let Walk {
        accesses,
        steps,
        ends_function,
        mut used,
        allocations,
    } = walk(func, classes, across_blocks, pending.as_ref());
    drop(pending);
    let exit_states =
        overwritten_at_exits(func, analyses, across_blocks.then_some(&accesses), classes);
    drop(accesses);
    let dfg = &func.dfg;
    let mut dead: Vec<Inst> = Vec::new();
    let never_read = |a: Value| match classes.class(a) {
        Some(c) => !classes.is_loaded(c) && !classes.is_escaped(c),
        None => false,
    };
    for (block, exit_state) in func.layout.blocks().zip(exit_states) {
        let mut overwritten = exit_state;
        // After a `return` (or a trap) no one can read a cell that never
        // escaped: until a load of its class, a store to it is unobserved.
        let ends_function = ends_function.contains(block);
        let mut read_later = ReadLater::default();
        for step in steps.of_block(block).iter().rev() {
            match *step {
                Step::Define(r) => {
                    if !overwritten.is_empty() {
                        overwritten.retain(|&k| k != r);
                    }
                }
                Step::Store {
                    inst,
                    address,
                    value,
                    predicate_one,
                } => {
                    let unread_to_exit = ends_function
                        && classes
                            .class(address)
                            .is_some_and(|c| !classes.is_escaped(c) && !read_later.reads(c));
                    if never_read(address) || unread_to_exit || overwritten.contains(&address) {
                        dead.push(inst);
                        continue;
                    }
                    if predicate_one {
                        overwritten.push(address);
                    }
                    used.insert(address);
                    used.insert(value);
                }
                Step::Load(address) => {
                    let class = classes.class(address);
                    overwritten.retain(|&k| !may_read(classes, address, k));
                    if ends_function {
                        read_later.add(class);
                    }
                }
                Step::Call(inst, class) => {
                    overwritten.retain(|&k| {
                        classes.class(k) != Some(class) || !classes.call_may_read(dfg, inst, k)
                    });
                }
            }
        }
    }
    remove_dead(func, dead, &allocations, &used, stats)
}

/// Per block of the layout, the cells every path from its end overwrites
/// before reading them (the backward analysis across blocks), or nothing
/// when the pass stays within blocks.
fn overwritten_at_exits(
    func: &Function,
    analyses: &mut FunctionAnalyses,
    accesses: Option<&Effects<Access>>,
    classes: &AliasClasses,
) -> Vec<Vec<Value>> {
    let Some(accesses) = accesses else {
        return vec![Vec::new(); func.layout.blocks().count()];
    };
    let graph = FunctionGraph::new(func, analyses);
    let sparse = SparseGraph::new(&graph, accesses);
    let results = Overwritten { classes }
        .into_engine(&sparse)
        .iterate_to_fixpoint();
    let mut states = Vec::with_capacity(func.dfg.num_blocks());
    for block in func.layout.blocks() {
        let overwritten: Vec<Value> = results
            .entry_state(block)
            .holds()
            .map(|set| set.iter().collect())
            .unwrap_or_default();
        states.push(overwritten);
    }
    states
}

/// Removes the dead stores, then the allocations no instruction left uses;
/// returns the removed stores of values holding references.
fn remove_dead(
    func: &mut Function,
    dead: Vec<Inst>,
    allocations: &[(Inst, Value)],
    used: &EntitySet<Value>,
    stats: &mut Stats,
) -> Vec<(Inst, Value)> {
    stats.stores_removed += dead.len();
    let mut stored_references = Vec::new();
    for inst in dead {
        if let InstructionData::Store { value, .. } = func.dfg[inst] {
            if func.dfg.value_type(value).contains_reference() {
                stored_references.push((inst, value));
            }
        }
        func.remove_inst(inst);
    }
    for &(inst, r) in allocations {
        if !used.contains(r) {
            func.remove_inst(inst);
            stats.allocations_removed += 1;
        }
    }
    stored_references
}
