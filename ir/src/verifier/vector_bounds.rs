//! Noir's validator on `vector_insert` and `vector_remove` in functions with
//! a Noir runtime: each call's index is bounds-checked earlier in its block
//! (`index <= length` for an insert, `index < length` for a remove), as
//! Noir's SSA generation emits the check right before the call.
//!
//! A check is one of the shapes Noir's validator accepts: `constrain (lt
//! index, bound) == u1 1` with the length, the length plus one (an insert)
//! or a constant that keeps the index in range as the bound; a
//! `range_check` of the index (or of its cast) to `k` bits with `2^k` in
//! range; `constrain index == c` (or its cast), which is what an `lt` with a
//! constant simplifies to; `constrain (eq length, u32 0) == u1 0` for a
//! remove at index 0; or a constraint between two different constants, which
//! always fails so the call never runs. Constant indices and lengths are
//! compared directly. Linear in the block.

use std::collections::{HashMap, HashSet};

use super::{Ctx, Location, VerifierError, VerifierErrorKind};
use crate::{BinaryOp, Builtin, Callee, InstructionData, Value, ValueDef};

/// Checks every `vector_insert` and `vector_remove` of a function with a
/// Noir runtime.
pub(super) fn check_vector_bounds(cx: &Ctx<'_>) -> Result<(), VerifierError> {
    let func = cx.func;
    if func.runtime.is_none() {
        return Ok(());
    }
    for block in func.layout.blocks() {
        let mut checks = BlockChecks::default();
        for inst in func.layout.block_insts(block) {
            match &func.dfg[inst] {
                InstructionData::Constrain {
                    lhs,
                    rhs,
                    equal: true,
                    ..
                } => checks.record_constrain(cx, *lhs, *rhs),
                InstructionData::RangeCheck { arg, bits, .. } => {
                    checks.record_range_check(cx, *arg, *bits)
                }
                InstructionData::Call {
                    callee: Callee::Builtin(builtin),
                    args,
                } => {
                    let inclusive = match builtin {
                        Builtin::SliceInsert => true,
                        Builtin::SliceRemove => false,
                        _ => continue,
                    };
                    // (length, vector, index, ...): the signature is checked with the call.
                    let [length, _, index, ..] = args[..] else {
                        continue;
                    };
                    if !checks.index_in_bounds(cx, index, length, inclusive) {
                        let kind = VerifierErrorKind::UncheckedVectorIndex(builtin.name());
                        return Err(cx.error(Location::Inst(inst), kind));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// What the constraints and range checks seen so far in a block assert.
#[derive(Default)]
struct BlockChecks {
    /// A constraint between two different constants has been seen.
    always_fails: bool,
    /// `a -> [b]`: `a < b`.
    less_than: HashMap<Value, Vec<Value>>,
    /// `value -> k`: `value < 2^k`.
    bit_bounds: HashMap<Value, u32>,
    /// `value -> c`: `value == c`.
    equal_to: HashMap<Value, u128>,
    /// Values known not to be zero.
    non_zero: HashSet<Value>,
}

fn constant(cx: &Ctx<'_>, value: Value) -> Option<u128> {
    cx.func.dfg.const_value(value)?.to_u128()
}

/// The instruction defining `value`, if an instruction does.
fn definition<'a>(cx: &Ctx<'a>, value: Value) -> Option<&'a InstructionData> {
    let dfg = &cx.func.dfg;
    match dfg.value_def(dfg.resolve(value)) {
        ValueDef::Result(inst, _) => Some(&dfg[inst]),
        _ => None,
    }
}

impl BlockChecks {
    fn record_constrain(&mut self, cx: &Ctx<'_>, lhs: Value, rhs: Value) {
        let resolve = |v| cx.func.dfg.resolve(v);
        let (value, c) = match (constant(cx, lhs), constant(cx, rhs)) {
            (None, Some(c)) => (resolve(lhs), c),
            (Some(c), None) => (resolve(rhs), c),
            (Some(a), Some(b)) => {
                self.always_fails |= a != b;
                return;
            }
            (None, None) => return,
        };
        self.equal_to.insert(value, c);
        match (definition(cx, value), c) {
            (
                Some(InstructionData::Binary {
                    op: BinaryOp::Lt,
                    lhs,
                    rhs,
                }),
                1,
            ) => self
                .less_than
                .entry(resolve(*lhs))
                .or_default()
                .push(resolve(*rhs)),
            (
                Some(InstructionData::Binary {
                    op: BinaryOp::Eq,
                    lhs,
                    rhs,
                }),
                0,
            ) if constant(cx, *rhs) == Some(0) => {
                self.non_zero.insert(resolve(*lhs));
            }
            (Some(InstructionData::Cast { arg, .. }), _) => {
                self.equal_to.insert(resolve(*arg), c);
            }
            _ => {}
        }
    }

    fn record_range_check(&mut self, cx: &Ctx<'_>, value: Value, bits: u32) {
        let mut record = |value: Value| {
            let bound = self.bit_bounds.entry(value).or_insert(bits);
            *bound = (*bound).min(bits);
        };
        let value = cx.func.dfg.resolve(value);
        record(value);
        if let Some(InstructionData::Cast { arg, .. }) = definition(cx, value) {
            record(cx.func.dfg.resolve(*arg));
        }
    }

    /// Whether `index < length` (`index <= length` when `inclusive`) is known.
    fn index_in_bounds(&self, cx: &Ctx<'_>, index: Value, length: Value, inclusive: bool) -> bool {
        if self.always_fails {
            return true;
        }
        let (index, length) = (cx.func.dfg.resolve(index), cx.func.dfg.resolve(length));
        let known = |v: Value| constant(cx, v).or_else(|| self.equal_to.get(&v).copied());
        // The exclusive upper bound on the index, when the length is known.
        let max_bound = known(length).map(|len| len.saturating_add(u128::from(inclusive)));
        let index_value = known(index);
        if let (Some(index), Some(max_bound)) = (index_value, max_bound) {
            return index < max_bound;
        }
        if index_value == Some(0) && (inclusive || self.non_zero.contains(&length)) {
            return true;
        }
        let bound_is_enough = |bound: &Value| {
            *bound == length
                || (inclusive && is_increment_of(cx, *bound, length))
                || matches!((constant(cx, *bound), max_bound), (Some(b), Some(max)) if b <= max)
        };
        let checked_by_lt = self
            .less_than
            .get(&index)
            .is_some_and(|bounds| bounds.iter().any(bound_is_enough));
        let checked_by_range_check = matches!(
            (self.bit_bounds.get(&index), max_bound),
            (Some(&bits), Some(max)) if bits < 128 && 1u128 << bits <= max
        );
        checked_by_lt || checked_by_range_check
    }
}

/// Whether `value` is `add base, 1` or `add 1, base`.
fn is_increment_of(cx: &Ctx<'_>, value: Value, base: Value) -> bool {
    let Some(InstructionData::Binary { op, lhs, rhs }) = definition(cx, value) else {
        return false;
    };
    let resolve = |v| cx.func.dfg.resolve(v);
    matches!(op, BinaryOp::Add | BinaryOp::UncheckedAdd)
        && ((resolve(*lhs) == base && constant(cx, *rhs) == Some(1))
            || (resolve(*rhs) == base && constant(cx, *lhs) == Some(1)))
}
