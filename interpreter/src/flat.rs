//! Noir's flat numbering of nested arrays in `acir` functions
//! ([`kildall_ir::flat`] gives the rules) on run-time values, which hold
//! their entries whichever numbering built or reads them: a leaf listing
//! is regrouped into entries, and a flat index follows the path of entry
//! indices to its leaf.

use std::sync::Arc;

use kildall_ir::flat::{leaf_count, leaf_path};
use kildall_ir::Type;

use super::value::{build_array, RuntimeValue, MAX_ZERO_ARRAY_ELEMENTS};
use super::TrapKind;

/// The flat length of array type `ty` (Noir's `flattened_size`).
pub(super) fn len(ty: &Type) -> usize {
    leaf_count(ty)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0)
}

/// The value of array type `ty` whose leaves, in flat order, are `leaves`.
pub(super) fn from_leaves(ty: &Type, leaves: Vec<RuntimeValue>) -> Result<RuntimeValue, TrapKind> {
    let count = leaves.len();
    let malformed = || {
        TrapKind::Malformed(format!(
            "`make_array` of {count} leaves does not fit `{ty}` (or it has more than {MAX_ZERO_ARRAY_ELEMENTS} entries)"
        ))
    };
    if leaf_count(ty) != Some(count as u64) {
        return Err(malformed());
    }
    // Entries are bounded apart from leaves: a `[[Field; 0]; N]` has N
    // entries and no leaf.
    let mut budget = 0;
    build(ty, &mut leaves.into_iter(), &mut budget).ok_or_else(malformed)
}

/// The value of `ty` whose leaves are the next ones of `leaves`.
fn build(
    ty: &Type,
    leaves: &mut impl Iterator<Item = RuntimeValue>,
    budget: &mut u64,
) -> Option<RuntimeValue> {
    match ty {
        Type::Array(types, len) => build_array(types, *len, budget, &mut |ty, budget| {
            build(ty, leaves, budget)
        }),
        _ => leaves.next(),
    }
}

/// The leaf at flat index `index` of `array`, of type `ty`.
pub(super) fn get<'v>(
    array: &'v RuntimeValue,
    ty: &Type,
    index: usize,
) -> Option<&'v RuntimeValue> {
    let (path, _) = leaf_path(ty, u64::try_from(index).ok()?)?;
    path.iter().try_fold(array, |value, &entry| match value {
        RuntimeValue::Array { elements, .. } => elements.get(entry),
        _ => None,
    })
}

/// Replaces the leaf at flat index `index` of `array`, of type `ty`, by
/// `value`; false (and `array` unchanged) when the index is out of bounds.
pub(super) fn set(array: &mut RuntimeValue, ty: &Type, index: usize, value: RuntimeValue) -> bool {
    let Some((path, _)) = u64::try_from(index).ok().and_then(|i| leaf_path(ty, i)) else {
        return false;
    };
    let mut place = array;
    for &entry in &path {
        let RuntimeValue::Array { elements, .. } = place else {
            return false;
        };
        match Arc::make_mut(elements).get_mut(entry) {
            Some(inner) => place = inner,
            None => return false,
        }
    }
    *place = value;
    true
}

/// The first leaf of `array`, in flat order, for which `pick` holds.
pub(super) fn first_leaf<'v>(
    array: &'v RuntimeValue,
    pick: &impl Fn(&RuntimeValue) -> bool,
) -> Option<&'v RuntimeValue> {
    match array {
        RuntimeValue::Array { elements, .. } => elements.iter().find_map(|e| first_leaf(e, pick)),
        leaf => pick(leaf).then_some(leaf),
    }
}
