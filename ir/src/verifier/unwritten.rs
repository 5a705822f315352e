//! Noir's load and store validator: no load from a cell that nothing can
//! have written. A cell is the result of an `allocate`; anything but a load
//! that takes it (a store, a call, an array, a jump argument) may write it
//! or let it be written. A load is refused when its cell has no such use
//! in the whole function, or when the use comes later than the load in the
//! allocation's own block.
//!
//! The facts are gathered during the verifier's own walk over the
//! instructions (one walk, not one for the uses and one for the loads),
//! and the loads are judged once the walk is over, when every use of every
//! cell is known. The first refused load in layout order is reported, as a
//! walk judging each load on the spot with the whole function's uses known
//! would. Linear in the function.
//!
//! The walk may be cut into ranges of whole blocks walked apart (see the
//! verifier's module doc): each range gives its own [`CellFacts`], and
//! [`judge_loads`] takes them in layout order. Whether a load is fresh
//! depends on its block alone, so a range decides it; whether its cell is
//! written depends on the whole function, so only the union of the ranges'
//! writes decides it.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntitySet, SecondaryMap};

use super::{Ctx, Location, VerifierError, VerifierErrorKind};
use crate::{Block, DataFlowGraph, Inst, InstructionData, Value, ValueDef};

/// A load of a cell, waiting for the end of the walk to be judged.
#[derive(Clone, Copy)]
struct CellLoad {
    inst: Inst,
    address: Value,
    cell: Value,
    /// Nothing had used the cell between its allocation and this load, in
    /// the same block: refused whatever comes later.
    fresh: bool,
}

/// What a walk over a range of blocks, in layout order, learns of the cells.
#[derive(Default)]
pub(super) struct CellFacts {
    /// The cells with a use other than a load in the range (a cell may
    /// appear more than once).
    written: Vec<Value>,
    /// The range's loads of cells up to its first fresh one: a later load
    /// cannot be the first refused, in the range nor after it.
    loads: Vec<CellLoad>,
}

/// The state of the check along one walk over blocks in layout order;
/// buffers reused from one walk to the next.
#[derive(Default)]
pub(super) struct UnwrittenLoads {
    /// The block each cell was allocated in while nothing has touched it
    /// since: kept per cell instead of a set emptied per block, which would
    /// take time in the largest value each time (quadratic in the function).
    /// Emptied per walk: an entry left by another function could name a
    /// block of this one.
    fresh_in: SecondaryMap<Value, PackedOption<Block>>,
    /// The facts of the current walk.
    facts: CellFacts,
}

impl UnwrittenLoads {
    /// Starts a walk (the last one may have stopped at an error).
    pub(super) fn start(&mut self) {
        self.fresh_in.clear();
        self.facts.written.clear();
        self.facts.loads.clear();
    }

    /// Ends the walk, giving what it learnt.
    pub(super) fn take_facts(&mut self) -> CellFacts {
        std::mem::take(&mut self.facts)
    }

    /// Records `inst`, of `block`, visited in layout order.
    pub(super) fn inst(&mut self, dfg: &DataFlowGraph, block: Block, inst: Inst) {
        match dfg[inst] {
            InstructionData::Allocate => {
                if let Some(result) = dfg.first_result(inst) {
                    self.fresh_in[result] = block.into();
                }
            }
            InstructionData::Load { address } => {
                let loads = &mut self.facts.loads;
                let past_first_fresh = loads.last().is_some_and(|load| load.fresh);
                if let (Some(cell), false) = (cell(dfg, address), past_first_fresh) {
                    loads.push(CellLoad {
                        inst,
                        address,
                        cell,
                        fresh: self.fresh_in[cell].expand() == Some(block),
                    });
                }
            }
            ref data => {
                for &value in data.arguments().as_slice() {
                    if let Some(cell) = cell(dfg, value) {
                        self.facts.written.push(cell);
                        self.fresh_in[cell] = None.into();
                    }
                }
            }
        }
    }

    /// Records the arguments of a block's terminator (it ends the block, so
    /// no load of the block comes after it).
    pub(super) fn terminator_args<'a>(
        &mut self,
        dfg: &DataFlowGraph,
        args: impl IntoIterator<Item = &'a Value>,
    ) {
        for &value in args {
            if let Some(cell) = cell(dfg, value) {
                self.facts.written.push(cell);
            }
        }
    }
}

/// Judges the loads once the whole function was walked, given the facts of
/// its ranges in layout order; `written` is a buffer.
pub(super) fn judge_loads(
    cx: &Ctx<'_>,
    ranges: &[CellFacts],
    written: &mut EntitySet<Value>,
) -> Result<(), VerifierError> {
    written.clear();
    for &cell in ranges.iter().flat_map(|facts| &facts.written) {
        written.insert(cell);
    }
    let refused = ranges
        .iter()
        .flat_map(|facts| &facts.loads)
        .find(|load| load.fresh || !written.contains(load.cell));
    match refused {
        Some(load) => Err(cx.error(
            Location::Inst(load.inst),
            VerifierErrorKind::LoadOfUnwrittenCell(load.address),
        )),
        None => Ok(()),
    }
}

/// The cell `value` names, if it is the result of an `allocate`.
fn cell(dfg: &DataFlowGraph, value: Value) -> Option<Value> {
    let value = dfg.resolve(value);
    match dfg.value_def(value) {
        ValueDef::Result(inst, _) if matches!(dfg[inst], InstructionData::Allocate) => Some(value),
        _ => None,
    }
}
