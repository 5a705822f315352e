//! Element forwarding: each element of an array is a location of its own
//! (the aggregate model of Noir's mem2reg alias tracking). An `array_get` at a constant index of an array
//! built by `make_array`, possibly updated by `array_set`s at constant
//! indices, is the element itself; its result is replaced by that element,
//! so a load through a reference taken out of an array of references is a
//! load of that very reference, which forwarding can then resolve.
//!
//! Only results that hold references are forwarded: the others do not
//! change what mem2reg can resolve, and leaving them to constant folding
//! keeps this phase from starting extra rounds of forwarding.
//!
//! The entries of a slice built by `vector_push_back` or `vector_push_front`
//! of a known slice are known the same way.
//!
//! In an `acir` function an array with nested arrays may be numbered by
//! leaf rather than by entry (Noir's flat layout, [`kildall_ir::flat`]): an
//! index is only compared with, or looked up in, instructions of the same
//! numbering.
//!
//! The `array_get` goes with its result: an index in bounds cannot trap, and
//! an index out of bounds is never forwarded. An `array_set` at an index out
//! of bounds leaves its array unchanged (or traps before the `array_get`
//! runs), so looking through it is sound either way.

use kildall_ir::flat::{self, Indexing};
use kildall_ir::{Builtin, Callee, Function, Inst, InstructionData, Value, ValueDef};

/// How many `array_set`s a look-up follows before giving up, so that a long
/// chain of updates costs a bounded amount per `array_get`.
const MAX_CHAIN: usize = 16;

/// Forwards the elements of arrays read at constant indices by the
/// `array_get`s among `gets` (removed ones are skipped): removes each such
/// `array_get`, appending it to `removed` and its result to `replaced`.
pub fn forward_elements(
    func: &mut Function,
    gets: &[Inst],
    replaced: &mut Vec<Value>,
    removed: &mut Vec<Inst>,
) {
    let mut forwarded = Vec::new();
    for &inst in gets {
        if func.layout.inst_block(inst).is_none() {
            continue;
        }
        let InstructionData::ArrayGet { array, index } = func.dfg[inst] else {
            continue;
        };
        let Some(&result) = func.dfg.inst_results(inst).first() else {
            continue;
        };
        if !func.dfg.value_type(result).contains_reference() {
            continue;
        }
        let Some(index) = func.dfg.const_value(index).and_then(|c| c.to_u64()) else {
            continue;
        };
        let indexing = func.array_indexing(inst);
        if let Some(element) = element_at(func, array, index, indexing) {
            forwarded.push((inst, result, element));
        }
    }
    for &(inst, result, element) in &forwarded {
        func.remove_inst(inst);
        func.dfg.replace_all_uses(result, element);
        replaced.push(result);
        removed.push(inst);
    }
}

/// The element `index` of `array`, numbered as `indexing` says, if the
/// instructions that built it say which value it is.
///
/// On an array with nested arrays, an `acir` function may number elements
/// by entry or by leaf ([`kildall_ir::flat`]): a `make_array` or
/// `array_set` answers only a question asked in its own numbering (the two
/// coincide on arrays without nested arrays).
fn element_at(
    func: &Function,
    mut array: Value,
    mut index: u64,
    indexing: Indexing,
) -> Option<Value> {
    for _ in 0..MAX_CHAIN {
        let array_value = func.dfg.resolve(array);
        let ValueDef::Result(def, result) = func.dfg.value_def(array_value) else {
            return None;
        };
        func.layout.inst_block(def)?;
        let nested = flat::is_nested(func.dfg.value_type(array_value));
        if nested && func.array_indexing(def) != indexing {
            return None;
        }
        match (&func.dfg[def], result) {
            (InstructionData::MakeArray { elements, .. }, 0) => {
                return usize::try_from(index)
                    .ok()
                    .and_then(|i| elements.get(i))
                    .map(|&e| func.dfg.resolve(e));
            }
            (
                InstructionData::ArraySet {
                    array: inner,
                    index: set_index,
                    value,
                    ..
                },
                0,
            ) => {
                let set_index = func.dfg.const_value(*set_index)?.to_u64()?;
                if set_index == index {
                    // Out of bounds, the `array_get` would trap too.
                    let ty = func.dfg.value_type(array_value);
                    let len = match indexing {
                        Indexing::Entry => ty.flattened_len()?,
                        Indexing::Flat => flat::leaf_count(ty)?,
                    };
                    return (index < len).then(|| func.dfg.resolve(*value));
                }
                array = *inner;
            }
            // `length', slice' = vector_push_back(length, slice, entry..)`:
            // the first `length` entries of `slice` (all of them when it has
            // fewer), then the pushed entry; `vector_push_front(..)` puts the
            // entry first (there a length past the entries traps).
            (
                InstructionData::Call {
                    callee:
                        Callee::Builtin(builtin @ (Builtin::SlicePushBack | Builtin::SlicePushFront)),
                    args,
                },
                1,
            ) => {
                let (length, slice, entry) = (args.first()?, args.get(1)?, args.get(2..)?);
                let width = entry.len() as u64;
                let kept = func
                    .dfg
                    .const_value(*length)?
                    .to_u64()?
                    .checked_mul(width)?;
                let entry_at = match builtin {
                    // Where the entry goes is known when the slice's size is.
                    Builtin::SlicePushBack => entries_of(func, *slice).map(|count| kept.min(count)),
                    _ => Some(0),
                };
                if let Some(i) = entry_at
                    .and_then(|at| index.checked_sub(at))
                    .filter(|&i| i < width)
                {
                    return Some(func.dfg.resolve(entry[i as usize]));
                }
                // Otherwise an entry of the slice itself, if it was kept
                // (and the slice has it: its own construction says so).
                let below = match builtin {
                    Builtin::SlicePushBack => entry_at.unwrap_or(kept),
                    _ => {
                        index = index.checked_sub(width)?;
                        kept
                    }
                };
                if index >= below {
                    return None;
                }
                array = *slice;
            }
            _ => return None,
        }
    }
    None
}

/// How many flattened entries `slice` holds, if the instructions that built
/// it say (looking through at most [`MAX_CHAIN`] of them).
fn entries_of(func: &Function, mut slice: Value) -> Option<u64> {
    // Pushes at the back on the way down: the entries each keeps of the
    // slice below it and adds, applied once the bottom is known.
    let mut pushes: Vec<(u64, u64)> = Vec::new();
    let count = |pushes: &[(u64, u64)], bottom: u64| {
        pushes
            .iter()
            .rev()
            .fold(bottom, |count, &(kept, width)| count.min(kept) + width)
    };
    for _ in 0..MAX_CHAIN {
        let ValueDef::Result(def, result) = func.dfg.value_def(func.dfg.resolve(slice)) else {
            return None;
        };
        func.layout.inst_block(def)?;
        let (builtin, args) = match (&func.dfg[def], result) {
            (InstructionData::MakeArray { elements, .. }, 0) => {
                return Some(count(&pushes, elements.len() as u64));
            }
            (InstructionData::ArraySet { array, .. }, 0) => {
                slice = *array;
                continue;
            }
            (
                InstructionData::Call {
                    callee: Callee::Builtin(builtin),
                    args,
                },
                1,
            ) => (*builtin, args),
            _ => return None,
        };
        if builtin == Builtin::AsSlice {
            let entries = func.dfg.value_type(*args.first()?).flattened_len()?;
            return Some(count(&pushes, entries));
        }
        let width = args.len().checked_sub(2)? as u64;
        let kept = func
            .dfg
            .const_value(*args.first()?)?
            .to_u64()?
            .checked_mul(width)?;
        match builtin {
            Builtin::SlicePushBack => {
                pushes.push((kept, width));
                slice = *args.get(1)?;
            }
            // A push at the front traps unless `length` entries are there,
            // and keeps exactly those.
            Builtin::SlicePushFront => return Some(count(&pushes, kept + width)),
            _ => return None,
        }
    }
    None
}
