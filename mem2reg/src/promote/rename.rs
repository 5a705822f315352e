//! Cytron et al.'s renaming of the promoted cells along the dominator tree.

use std::collections::HashMap;

use kildall_ir::dominators::DominatorTree;
use kildall_ir::{
    Block, EntityRef, Function, Inst, InstructionData, Terminator, Type, Value, ValueDef,
};

use super::{Cells, Kind, Outcome, Rows, Slot};

/// The renaming of the promoted slots along the dominator tree (Cytron et
/// al.'s second phase): the value each slot holds, with an undo log to
/// restore it when the walk leaves a subtree.
pub(super) struct Renaming<'c> {
    promoted: Vec<bool>,
    /// The candidate cells, by slot.
    slots: &'c [Slot],
    /// The predicates of the stores under one that may be 0.
    conditions: &'c HashMap<Inst, Value>,
    /// (slot, parameter) of every new block parameter, grouped by block.
    params: Rows<(u32, Value)>,
    current: Vec<Option<Value>>,
    undo: Vec<(u32, Option<Value>)>,
    /// The arguments of one edge, reused from edge to edge.
    extra: Vec<Value>,
}

enum Step {
    Enter(Block),
    Exit(usize),
}

impl<'c> Renaming<'c> {
    /// Appends the parameters `phis` (sorted by block, then slot) to their
    /// blocks.
    pub(super) fn new(
        func: &mut Function,
        cells: &'c Cells,
        (promoted, conditions): (Vec<bool>, &'c HashMap<Inst, Value>),
        phis: &[(Block, u32)],
    ) -> Self {
        let entries: Vec<(usize, (u32, Value))> = phis
            .iter()
            .map(|&(b, s)| {
                let ty = cells.slots[s as usize].ty.clone();
                (b.index(), (s, func.dfg.append_block_param(b, ty)))
            })
            .collect();
        let n = func.dfg.num_blocks();
        let params = Rows::group(n, entries.into_iter(), (0, Value::new(0)));
        Renaming {
            current: vec![None; promoted.len()],
            promoted,
            slots: &cells.slots,
            conditions,
            params,
            undo: Vec::new(),
            extra: Vec::new(),
        }
    }

    fn set(&mut self, s: u32, value: Option<Value>) {
        self.undo.push((s, self.current[s as usize]));
        self.current[s as usize] = value;
    }

    pub(super) fn run(
        &mut self,
        func: &mut Function,
        domtree: &DominatorTree,
        by_block: &Rows<(Inst, u32, Kind)>,
        out: &mut Outcome<'_>,
    ) -> bool {
        let mut enabling = false;
        let mut stack = vec![Step::Enter(domtree.root().expect("entry reachable"))];
        while let Some(step) = stack.pop() {
            let block = match step {
                Step::Exit(mark) => {
                    while self.undo.len() > mark {
                        let (s, old) = self.undo.pop().expect("undo entry");
                        self.current[s as usize] = old;
                    }
                    continue;
                }
                Step::Enter(block) => block,
            };
            let mark = self.undo.len();
            for k in 0..self.params.row(block.index()).len() {
                let (s, p) = self.params.row(block.index())[k];
                self.set(s, Some(p));
            }
            enabling |= self.rewrite_accesses(func, by_block.row(block.index()), out);
            self.pass_arguments(func, block, out);
            stack.push(Step::Exit(mark));
            for child in domtree.children(block) {
                stack.push(Step::Enter(child));
            }
        }
        enabling
    }

    /// Removes the accesses of one block to promoted slots, replacing each
    /// load by the slot's current value. Returns whether a store of an
    /// allocation's reference was removed.
    fn rewrite_accesses(
        &mut self,
        func: &mut Function,
        accesses: &[(Inst, u32, Kind)],
        out: &mut Outcome<'_>,
    ) -> bool {
        let mut enabling = false;
        for &(inst, s, kind) in accesses {
            if !self.promoted[s as usize] {
                continue;
            }
            match (kind, &func.dfg[inst]) {
                (Kind::Alloc, _) => {
                    self.set(s, None);
                    func.remove_inst(inst);
                    out.stats.allocations_removed += 1;
                }
                (Kind::Store, &InstructionData::Store { value, .. }) => {
                    let value = func.dfg.resolve(value);
                    self.set(s, Some(value));
                    // Only an allocation's own reference can become
                    // promotable by losing this use: any other value
                    // holding it got it through a use that escapes.
                    enabling |= matches!(
                        func.dfg.value_def(value),
                        ValueDef::Result(i, _) if matches!(func.dfg[i], InstructionData::Allocate)
                    );
                    func.remove_inst(inst);
                    out.stats.stores_removed += 1;
                    if let Some(log) = out.log.as_deref_mut() {
                        log.stores.insert(inst);
                    }
                }
                (Kind::Load, _) => {
                    let value = self.current[s as usize]
                        .expect("a promoted load is definitely initialised");
                    let result = func.dfg.first_result(inst);
                    func.remove_inst(inst);
                    if let Some(result) = result {
                        func.dfg.replace_all_uses(result, value);
                        out.replaced.push(result);
                        if let Some(log) = out.log.as_deref_mut() {
                            log.loads.push((result, value));
                        }
                    }
                    out.stats.loads_replaced += 1;
                }
                (Kind::CondStore, &InstructionData::Store { value, .. }) => {
                    let current = self.current[s as usize]
                        .expect("a promoted cell is initialised before a store under a predicate");
                    let value = func.dfg.resolve(value);
                    // A cell nothing reads needs no `if`: the value stands
                    // for what it holds, which no one asks. The cell holds
                    // no reference, so neither value is an allocation's
                    // reference that `freed` would need to see escape.
                    let held = if self.slots[s as usize].read {
                        self.merge(func, inst, s, value, current)
                    } else {
                        value
                    };
                    self.set(s, Some(held));
                    func.remove_inst(inst);
                    out.stats.stores_removed += 1;
                }
                (Kind::Rc, _) => func.remove_inst(inst),
                (Kind::Lend, _) => {
                    let value = self.current[s as usize]
                        .expect("a promoted lent cell is definitely initialised");
                    self.rematerialize(func, inst, s, value);
                    out.stats.cells_rematerialized += 1;
                    // A reference stored into the fresh cell reaches the
                    // call: it escapes again.
                    if let Some(log) = out.log.as_deref_mut() {
                        log.arguments.insert(value);
                    }
                }
                _ => {}
            }
        }
        enabling
    }

    /// Puts `if c then value else (if not c) current` before the store
    /// `inst` to `slot` under predicate `c`: what the cell holds after it.
    fn merge(
        &self,
        func: &mut Function,
        inst: Inst,
        slot: u32,
        value: Value,
        current: Value,
    ) -> Value {
        let condition = func.dfg.resolve(self.conditions[&inst]);
        let not = func.dfg.make_inst(InstructionData::Not { arg: condition });
        let negated = func.dfg.append_result(not, Type::BOOL);
        func.layout.insert_inst_before(not, inst);
        let select = func.dfg.make_inst(InstructionData::IfElse {
            then_condition: condition,
            then_value: value,
            else_condition: negated,
            else_value: current,
        });
        let merged = func
            .dfg
            .append_result(select, self.slots[slot as usize].ty.clone());
        func.layout.insert_inst_before(select, inst);
        merged
    }

    /// Hands call `inst`, in place of the promoted cell of `slot` (which
    /// it only lends), a fresh cell holding `value`, the cell's content at
    /// the call.
    fn rematerialize(&self, func: &mut Function, inst: Inst, slot: u32, value: Value) {
        let reference = self.slots[slot as usize].reference;
        let ty = func.dfg.value_type(reference).clone();
        let allocate = func.dfg.make_inst(InstructionData::Allocate);
        let fresh = func.dfg.append_result(allocate, ty);
        func.layout.insert_inst_before(allocate, inst);
        let store = func.dfg.make_inst(InstructionData::Store {
            value,
            address: fresh,
        });
        func.layout.insert_inst_before(store, inst);
        let InstructionData::Call { args, .. } = &func.dfg[inst] else {
            return;
        };
        let lent: Vec<usize> = (0..args.len())
            .filter(|&j| func.dfg.resolve(args[j]) == reference)
            .collect();
        if let InstructionData::Call { args, .. } = &mut func.dfg[inst] {
            for j in lent {
                args[j] = fresh;
            }
        }
    }

    /// Fills `extra` with the arguments `block` passes to the new
    /// parameters of `dest`.
    fn arguments_for(&self, dest: Block, extra: &mut Vec<Value>, out: &mut Outcome<'_>) {
        extra.clear();
        extra.extend(self.params.row(dest.index()).iter().map(|&(s, _)| {
            self.current[s as usize].expect("a live variable is defined on every edge")
        }));
        if let Some(log) = out.log.as_deref_mut() {
            for &v in extra.iter() {
                log.arguments.insert(v);
            }
        }
    }

    /// Passes the slots' current values to the new parameters of the
    /// successors of `block`. Both edges of a `jmpif` whose destinations
    /// are one block get the same new arguments, whatever the old ones:
    /// they are what the cells hold at the end of `block`, and a terminator
    /// changes no cell.
    fn pass_arguments(&mut self, func: &mut Function, block: Block, out: &mut Outcome<'_>) {
        let (first, second) = match func.dfg.terminator(block) {
            Some(&Terminator::Jmp { destination, .. }) => (destination, None),
            Some(&Terminator::JmpIf {
                then_destination,
                else_destination,
                ..
            }) => (
                then_destination,
                (else_destination != then_destination).then_some(else_destination),
            ),
            _ => return,
        };
        for dest in std::iter::once(first).chain(second) {
            if self.params.row(dest.index()).is_empty() {
                continue;
            }
            let mut extra = std::mem::take(&mut self.extra);
            self.arguments_for(dest, &mut extra, out);
            if let Some(term) = func.dfg.terminator_mut(block) {
                for arguments in term.edges_to_mut(dest) {
                    arguments.extend_from_slice(&extra);
                }
            }
            self.extra = extra;
        }
    }
}
