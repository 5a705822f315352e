//! The instructions with an effect on the analysis, copied out of the
//! function into a dense array, block by block.

use super::*;

/// An instruction with an effect on the analysis, with the operands of a
/// load or store copied out of the instruction (and the alias class of the
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
        class: Option<u32>,
    },
    Store {
        address: Value,
        value: Value,
        class: Option<u32>,
    },
    Other,
}

impl Event {
    /// The event of `inst`, reading the instruction.
    pub(super) fn of(func: &Function, classes: &AliasClasses, inst: Inst) -> Self {
        let op = match func.dfg[inst] {
            InstructionData::Load { address } => Op::Load {
                address,
                result: func.dfg.first_result(inst),
                class: classes.class(address),
            },
            InstructionData::Store { value, address } => Op::Store {
                address,
                value,
                class: classes.class(address),
            },
            _ => Op::Other,
        };
        Event { inst, op }
    }
}

/// The instructions with an effect on the analysis, gathered during the
/// walk that computes the alias classes (one walk over the function for
/// both). The others (numbers, arrays, constraints...) only define values,
/// and only a defined reference that is read needs its (re)definition
/// applied, which is decided once the reads are all counted.
pub(crate) struct Events {
    pub(super) reads: SecondaryMap<Value, u8>,
    pub(super) events: Vec<Event>,
    /// Instructions defining one value, kept only if it is read.
    pub(super) candidates: Vec<(Inst, Value)>,
    /// `events` of each block, by block index.
    pub(super) ranges: Vec<(u32, u32)>,
    /// Blocks ending in a `jmp`, whose reference arguments count as reads.
    pub(super) jumps: Vec<Block>,
    pub(super) start: u32,
    pub(super) loads: usize,
}

impl Events {
    pub(super) fn new(func: &Function) -> Self {
        Events {
            reads: SecondaryMap::new(),
            events: Vec::new(),
            candidates: Vec::new(),
            ranges: vec![(0, 0); func.dfg.num_blocks()],
            jumps: Vec::new(),
            start: 0,
            loads: 0,
        }
    }

    /// Whether the function has a load (else forwarding has nothing to do).
    pub(crate) fn has_loads(&self) -> bool {
        self.loads > 0
    }

    pub(super) fn visit(&mut self, func: &Function, visit: Visit<'_>) {
        match visit {
            Visit::Inst(inst, data) => match *data {
                InstructionData::Load { address } => {
                    self.reads[address] = self.reads[address].saturating_add(1);
                    self.loads += 1;
                    // The class is filled in once the classes are final.
                    self.events.push(Event {
                        inst,
                        op: Op::Load {
                            address,
                            result: func.dfg.first_result(inst),
                            class: None,
                        },
                    });
                }
                InstructionData::Store { value, address } => self.events.push(Event {
                    inst,
                    op: Op::Store {
                        address,
                        value,
                        class: None,
                    },
                }),
                InstructionData::EnableSideEffects { .. } | InstructionData::Call { .. } => {
                    self.events.push(Event {
                        inst,
                        op: Op::Other,
                    })
                }
                // The other instructions that can define a reference
                // (arithmetic, casts, `make_array` and the rest define
                // numbers or arrays, which no load reads through).
                InstructionData::Allocate
                | InstructionData::ArrayGet { .. }
                | InstructionData::IfElse { .. } => match func.dfg.inst_results(inst) {
                    [] => {}
                    &[r] => {
                        // Kept in place, possibly dropped later.
                        self.candidates.push((inst, r));
                        self.events.push(Event {
                            inst,
                            op: Op::Other,
                        });
                    }
                    _ => self.events.push(Event {
                        inst,
                        op: Op::Other,
                    }),
                },
                _ => {}
            },
            Visit::BlockEnd(block) => {
                let end = self.events.len() as u32;
                self.ranges[block.index()] = (self.start, end);
                self.start = end;
                if let Some(Terminator::Jmp { arguments, .. }) = func.dfg.terminator(block) {
                    if !arguments.is_empty() {
                        self.jumps.push(block);
                    }
                }
            }
        }
    }
}

/// The alias classes of `func` and the events of the analysis, in one walk.
pub(crate) fn classes_and_events(func: &Function) -> (AliasClasses, Events) {
    let mut events = Events::new(func);
    let classes = AliasClasses::compute_visiting(func, &mut |v| events.visit(func, v));
    (classes, events)
}
