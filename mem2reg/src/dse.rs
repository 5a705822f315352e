//! Removal of stores no later load, call, return or alias can observe, and
//! of allocations left without uses.
//!
//! Two rules, both sound whatever the control flow:
//! - *never read*: a store into a cell of an [alias class](crate::alias) that
//!   no `load` reads and that does not escape (through a parameter, a call or
//!   a returned value) cannot be observed: only loads read memory inside a
//!   function, and only calls and returns let a callee or caller read it;
//! - *overwritten*: walking a block backwards, a store to `a` is dead when a
//!   later unconditional store to the same reference `a` follows with no
//!   load of a possible alias, no call reaching `a`'s class and no
//!   redefinition of `a` in between (after a redefinition the name denotes
//!   another cell, and the old one may still be read through an alias).
//!
//! An `allocate` whose reference has no use left is removed: allocation has
//! no effect besides producing a fresh reference.
//!
//! FIXME: the overwritten rule is block-local; a backward must-analysis on
//! the solver (a store is dead when every path overwrites it before an
//! observer) would also catch stores overwritten in every successor.

use kildall_ir::{Callee, EntitySet, Function, Inst, InstructionData, Value};

use crate::alias::AliasClasses;
use crate::{Renames, Stats};

/// Removes dead stores, then the allocations left without uses (one walk
/// over the function for both). Returns whether a store of a reference was
/// removed, which may make an allocation promotable.
///
/// Operands are resolved (the pipeline rewrites them after every
/// replacement), so uses are marked in a bit set without looking up
/// definitions.
///
/// `pending` holds the renames of earlier replacements, applied on the way.
pub(crate) fn dead_stores(
    func: &mut Function,
    classes: &AliasClasses,
    stats: &mut Stats,
    pending: Option<Renames>,
) -> bool {
    let mut dead: Vec<Inst> = Vec::new();
    let mut insts: Vec<(Inst, bool)> = Vec::new();
    let mut overwritten: Vec<Value> = Vec::new();
    let mut allocations: Vec<(Inst, Value)> = Vec::new();
    let mut used = EntitySet::<Value>::new();
    let never_read = |a: Value| match classes.class(a) {
        Some(c) => !classes.is_loaded(c) && !classes.is_escaped(c),
        None => false,
    };
    for block in func.layout.blocks() {
        insts.clear();
        let mut predicate_one = true;
        for inst in func.layout.block_insts(block) {
            if let Some(renames) = &pending {
                renames.inst(&mut func.dfg, inst);
            }
            let dfg = &func.dfg;
            match dfg[inst] {
                InstructionData::EnableSideEffects { condition } => {
                    predicate_one = dfg
                        .const_value(condition)
                        .is_some_and(|c| c.to_u64() == Some(1));
                }
                InstructionData::Allocate => {
                    if let Some(r) = dfg.first_result(inst) {
                        allocations.push((inst, r));
                    }
                }
                _ => {}
            }
            insts.push((inst, predicate_one));
        }
        if let Some(renames) = &pending {
            renames.terminator(&mut func.dfg, block);
        }
        let dfg = &func.dfg;
        let dead_before = dead.len();
        overwritten.clear();
        for &(inst, predicate_one) in insts.iter().rev() {
            if !overwritten.is_empty() {
                for &r in dfg.inst_results(inst) {
                    overwritten.retain(|&k| k != r);
                }
            }
            match dfg[inst] {
                InstructionData::Store { address, .. } => {
                    if never_read(address) || overwritten.contains(&address) {
                        dead.push(inst);
                    } else if predicate_one {
                        overwritten.push(address);
                    }
                }
                InstructionData::Load { address } => {
                    let class = classes.class(address);
                    overwritten.retain(|&k| class.is_some() && classes.class(k) != class);
                }
                InstructionData::Call {
                    callee: Callee::Function(_),
                    ..
                } => {
                    if let Some(class) = classes.call_class(inst) {
                        overwritten.retain(|&k| classes.class(k) != Some(class));
                    }
                }
                _ => {}
            }
        }
        // Uses, but not those of the stores about to go.
        let dead_here = &dead[dead_before..];
        for &(inst, _) in &insts {
            if dead_here.is_empty() || !dead_here.contains(&inst) {
                for &v in dfg[inst].arguments().as_slice() {
                    used.insert(v);
                }
            }
        }
        if let Some(term) = dfg.terminator(block) {
            for &v in term.arguments() {
                used.insert(v);
            }
        }
    }
    stats.stores_removed += dead.len();
    let mut enabling = false;
    for inst in dead {
        if let InstructionData::Store { value, .. } = func.dfg[inst] {
            enabling |= func.dfg.value_type(value).contains_reference();
        }
        func.remove_inst(inst);
    }
    for (inst, r) in allocations {
        if !used.contains(r) {
            func.remove_inst(inst);
            stats.allocations_removed += 1;
        }
    }
    enabling
}
