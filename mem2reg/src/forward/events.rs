//! The instructions with an effect on the analysis, copied out of the
//! function into a dense array, block by block.

use super::*;

/// An instruction with an effect on the analysis, with the operands of a
/// load or store copied out of the instruction (and the cell class of the
/// address), so that the solves and the walks after them read a dense
/// array rather than the instructions (a cache miss each on a large
/// function).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Event {
    pub(super) inst: Inst,
    pub(super) op: Op,
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum Op {
    Load {
        address: Value,
        result: Option<Value>,
        cell: Option<u32>,
    },
    Store {
        address: Value,
        value: Value,
        cell: Option<u32>,
    },
    /// `enable_side_effects`, with whether its condition is the constant 1
    /// (kept up to date when the condition is a replaced load's result).
    Predicate { condition: Value, one: bool },
    /// An instruction defining one value that may be a reference read later.
    Define { result: Value },
    /// A call, or an instruction defining several values.
    Other,
}

/// The instructions with an effect on the analysis, gathered during the
/// walk that computes the alias classes (one walk over the function for
/// both). The others (numbers, arrays, constraints...) only define values,
/// and only a defined reference that is read needs its (re)definition
/// applied, which is decided once the reads are all counted.
pub(crate) struct Events {
    pub(super) reads: SecondaryMap<Value, u8>,
    /// The events of each block, in order.
    pub(super) effects: Effects<Event>,
    /// Instructions defining one value, kept only if it is read.
    pub(super) candidates: Vec<(Inst, Value)>,
    /// Values stored, or put into an array: a replaced load or `array_get`
    /// may hand them a read under their own name (see
    /// [`ReferenceValues::rename_references`]).
    pub(super) held: EntitySet<Value>,
    /// Blocks ending in a `jmp`, whose reference arguments count as reads.
    pub(super) jumps: Vec<Block>,
    /// The `array_get`s, which may read an element that forwarding names
    /// ([`crate::elements`]).
    pub(super) array_gets: Vec<Inst>,
    pub(super) loads: usize,
}

impl Events {
    pub(super) fn new() -> Self {
        Events {
            reads: SecondaryMap::new(),
            effects: Effects::new(),
            candidates: Vec::new(),
            held: EntitySet::new(),
            jumps: Vec::new(),
            array_gets: Vec::new(),
            loads: 0,
        }
    }

    /// Whether the function has a load (else forwarding has nothing to do).
    pub(crate) fn has_loads(&self) -> bool {
        self.loads > 0
    }

    pub(super) fn visit(&mut self, dfg: &DataFlowGraph, visit: Visit<'_>) {
        match visit {
            Visit::Inst(inst, data) => match *data {
                InstructionData::Load { address } => {
                    self.reads[address] = self.reads[address].saturating_add(1);
                    self.loads += 1;
                    // The cell class is filled in once the classes are final.
                    self.effects.push(Event {
                        inst,
                        op: Op::Load {
                            address,
                            result: dfg.first_result(inst),
                            cell: None,
                        },
                    });
                }
                InstructionData::Store { value, address } => {
                    self.held.insert(value);
                    self.effects.push(Event {
                        inst,
                        op: Op::Store {
                            address,
                            value,
                            cell: None,
                        },
                    })
                }
                InstructionData::MakeArray { ref elements, .. } => {
                    for &e in elements {
                        self.held.insert(e);
                    }
                }
                InstructionData::ArraySet { value, .. } => {
                    self.held.insert(value);
                }
                InstructionData::EnableSideEffects { condition } => self.effects.push(Event {
                    inst,
                    op: Op::Predicate {
                        condition,
                        one: crate::is_predicate_one(dfg, condition),
                    },
                }),
                InstructionData::Call { ref args, .. } => {
                    // Entries pushed onto slices.
                    for &a in args.iter() {
                        self.held.insert(a);
                    }
                    self.effects.push(Event {
                        inst,
                        op: Op::Other,
                    })
                }
                // The other instructions that can define a reference
                // (arithmetic, casts, `make_array` and the rest define
                // numbers or arrays, which no load reads through).
                InstructionData::Allocate
                | InstructionData::ArrayGet { .. }
                | InstructionData::IfElse { .. } => match dfg.inst_results(inst) {
                    [] => {}
                    &[r] => {
                        if matches!(data, InstructionData::ArrayGet { .. }) {
                            self.array_gets.push(inst);
                        }
                        // Kept in place, possibly dropped later.
                        self.candidates.push((inst, r));
                        self.effects.push(Event {
                            inst,
                            op: Op::Define { result: r },
                        });
                    }
                    _ => self.effects.push(Event {
                        inst,
                        op: Op::Other,
                    }),
                },
                _ => {}
            },
            Visit::BlockEnd(block) => {
                self.effects.end_block(block);
                if let Some(term) = dfg.terminator(block) {
                    if term.branch_arguments().next().is_some() {
                        self.jumps.push(block);
                    }
                }
            }
        }
    }
}

/// The alias classes of `func` and the events of the analysis, in one walk,
/// which also applies `renames`.
pub(crate) fn classes_and_events(
    func: &mut Function,
    summary: &ModuleSummary,
    renames: Option<&crate::Renames>,
) -> (AliasClasses, Events) {
    let mut events = Events::new();
    let classes =
        AliasClasses::compute_visiting(func, summary, renames, &mut |dfg, v| events.visit(dfg, v));
    (classes, events)
}
