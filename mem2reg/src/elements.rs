//! Element forwarding: each element of an array is a location of its own
//! (Noir's mem2reg design note: "we should treat each array element as an
//! individual location"). An `array_get` at a constant index of an array
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
//! The `array_get` goes with its result: an index in bounds cannot trap, and
//! an index out of bounds is never forwarded. An `array_set` at an index out
//! of bounds leaves its array unchanged (or traps before the `array_get`
//! runs), so looking through it is sound either way.

use kildall_ir::{Builtin, Callee, Function, InstructionData, Value, ValueDef};

/// How many `array_set`s a look-up follows before giving up, so that a long
/// chain of updates costs a bounded amount per `array_get`.
const MAX_CHAIN: usize = 16;

/// Forwards the elements of arrays read at constant indices; appends the
/// replaced results to `replaced` and returns how many there were.
pub fn forward_elements(func: &mut Function, replaced: &mut Vec<Value>) -> usize {
    let mut forwarded = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
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
            if let Some(element) = element_at(func, array, index) {
                forwarded.push((inst, result, element));
            }
        }
    }
    for &(inst, result, element) in &forwarded {
        func.remove_inst(inst);
        func.dfg.replace_all_uses(result, element);
        replaced.push(result);
    }
    forwarded.len()
}

/// The flattened element `index` of `array`, if the instructions that built
/// it say which value it is.
fn element_at(func: &Function, mut array: Value, mut index: u64) -> Option<Value> {
    for _ in 0..MAX_CHAIN {
        let array_value = func.dfg.resolve(array);
        let ValueDef::Result(def, result) = func.dfg.value_def(array_value) else {
            return None;
        };
        func.layout.inst_block(def)?;
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
                    let len = func.dfg.value_type(array_value).flattened_len()?;
                    return (index < len).then(|| func.dfg.resolve(*value));
                }
                array = *inner;
            }
            // `length', slice' = vector_push_back(length, slice, entry..)`:
            // the first `length` entries of `slice`, then the pushed entry (a
            // length beyond the slice's entries traps at the push, so no later
            // `array_get` runs); `vector_push_front` puts the entry first.
            (
                InstructionData::Call {
                    callee:
                        Callee::Builtin(builtin @ (Builtin::SlicePushBack | Builtin::SlicePushFront)),
                    args,
                },
                1,
            ) => {
                let (length, slice, entry) = (args.first()?, args.get(1)?, args.get(2..)?);
                let kept = func
                    .dfg
                    .const_value(*length)?
                    .to_u64()?
                    .checked_mul(entry.len() as u64)?;
                let width = entry.len() as u64;
                let in_entry = match builtin {
                    Builtin::SlicePushBack => index.checked_sub(kept).filter(|&i| i < width),
                    _ => (index < width).then_some(index),
                };
                if let Some(i) = in_entry {
                    return Some(func.dfg.resolve(entry[i as usize]));
                }
                if *builtin == Builtin::SlicePushFront {
                    index -= width;
                }
                if index >= kept {
                    return None;
                }
                array = *slice;
            }
            _ => return None,
        }
    }
    None
}
