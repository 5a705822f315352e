//! Noir's flat indexing of nested arrays in `acir` functions.
//!
//! An array's elements are numbered two ways. By *entry*, the IR's own
//! numbering and the only one in `brillig` functions: tuples are flattened
//! into the array that holds them and nested arrays are single elements, so
//! element `i` of a `[(T1, .., Tk); N]` has type `T(i mod k)`. By *leaf*
//! (*flat*), the numbering of Noir's constrained (ACIR) code, which lays
//! every array out as the sequence of its scalars: nested arrays are
//! flattened too, so a `[[u1; 2]; 3]` has 6 flat `u1` elements, flat indices
//! 0 and 1 being entry 0's, 2 and 3 entry 1's, 4 and 5 entry 2's.
//!
//! The rules, as Noir's SSA validator (`ssa/validation/mod.rs`), its type
//! helpers (`ssa/ir/types.rs`, `Type::flattened_size`) and the tests of its
//! interpreter (`ssa/interpreter/tests/mod.rs`, `run_flattened_function`
//! and `brillig_semi_flat_nested_array`) state them:
//!
//! - The flat length of a type is Noir's `flattened_size`: 1 for a scalar
//!   (a number, a reference, a function), the sum over the element types
//!   times the length for an array; a slice has none (Noir stops with an
//!   internal error), so an array holding a slice has no flat form.
//! - In an `acir` function, `make_array` of an array type may list the
//!   leaves: as many elements as the flat length, each of its leaf's type,
//!   in order. (Noir's validator requires this form of every `acir`
//!   `make_array` of an array; the IR also keeps the entry form, which
//!   Noir's 2025 SSA used in both runtimes.) Slices are always listed by
//!   entry.
//! - In an `acir` function, `array_get` and `array_set` on an array whose
//!   entries hold arrays may take a flat index: the result (or the written
//!   value) is the leaf at that index, a scalar. Bounds are the flat
//!   length, and an index out of them traps as an entry index out of its
//!   bounds does (under a false predicate, the read gives the first leaf of
//!   its type, the write leaves the array unchanged).
//! - In `brillig` functions (and functions without a runtime) arrays are
//!   indexed by entry only: `array_get v0, index u32 0 -> [Field; 2]` reads
//!   the inner array.
//!
//! Noir's text does not say which numbering an instruction uses; the types
//! do. [`Function::array_indexing`] reads an instruction by entry whenever
//! its types fit the entry reading, and by leaf otherwise (the verifier then
//! checks the leaf reading's types). Both readings coincide on arrays
//! without nested arrays.
//!
//! At run time an array is a value of its entries whatever the numbering of
//! the instruction that built or reads it: a leaf listing is regrouped into
//! entries, and a flat index is turned into a path of entry indices
//! ([`leaf_path`]).

use crate::{Function, Inst, InstructionData, Type, Value};

/// How an array instruction numbers its array's elements.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Indexing {
    /// By entry: tuples flattened, nested arrays one element each.
    Entry,
    /// By leaf: nested arrays flattened too (Noir's ACIR layout).
    Flat,
}

/// Noir's `flattened_size`: the number of scalars in a value of `ty`, or
/// `None` when a slice is inside (or the count overflows).
pub fn leaf_count(ty: &Type) -> Option<u64> {
    match ty {
        Type::Array(elements, len) => entry_leaf_count(elements)?.checked_mul(u64::from(*len)),
        Type::Slice(_) => None,
        _ => Some(1),
    }
}

/// The number of scalars in one entry of element types `elements`.
fn entry_leaf_count(elements: &[Type]) -> Option<u64> {
    elements
        .iter()
        .try_fold(0u64, |sum, e| sum.checked_add(leaf_count(e)?))
}

/// Whether some entry of `ty`, an array or slice type, holds an array or
/// slice: there the entry and the flat numbering differ.
pub fn is_nested(ty: &Type) -> bool {
    ty.element_types()
        .is_some_and(|elements| elements.iter().any(|e| e.element_types().is_some()))
}

/// The component of an entry of element types `elements` that holds the
/// entry's leaf `offset`: its position in the entry, its type, and the
/// leaf's offset inside it.
fn component_of(elements: &[Type], mut offset: u64) -> Option<(usize, &Type, u64)> {
    for (j, element) in elements.iter().enumerate() {
        let count = leaf_count(element)?;
        if offset < count {
            return Some((j, element, offset));
        }
        offset -= count;
    }
    None
}

/// The leaf at flat index `index` of a value of array type `ty`: the entry
/// indices from the outer array down to the leaf, and the leaf's type.
/// `None` when the index is out of bounds or `ty` has no flat form.
pub fn leaf_path(ty: &Type, index: u64) -> Option<(Vec<usize>, &Type)> {
    let mut path = Vec::new();
    let (mut ty, mut offset) = (ty, index);
    while let Type::Array(elements, len) = ty {
        let per_entry = entry_leaf_count(elements)?;
        let entry = offset.checked_div(per_entry)?;
        if entry >= u64::from(*len) {
            return None;
        }
        let (j, component, inner) = component_of(elements, offset % per_entry)?;
        path.push(usize::try_from(entry).ok()? * elements.len() + j);
        (ty, offset) = (component, inner);
    }
    (!matches!(ty, Type::Slice(_))).then_some((path, ty))
}

/// The type of the leaf at flat index `index` of array type `ty`, counted
/// modulo one entry's leaves (as an entry index is typed modulo the tuple
/// width, so that an index out of bounds still has a type).
pub fn leaf_type(ty: &Type, index: u64) -> Option<&Type> {
    let elements = ty.element_types()?;
    let per_entry = entry_leaf_count(elements)?;
    let (_, component, inner) = component_of(elements, index.checked_rem(per_entry)?)?;
    match component {
        Type::Array(..) => leaf_path(component, inner).map(|(_, leaf)| leaf),
        leaf => Some(leaf),
    }
}

/// Whether some leaf of array type `ty` has type `wanted`.
pub fn has_leaf_type(ty: &Type, wanted: &Type) -> bool {
    fn any_leaf(elements: &[Type], wanted: &Type) -> bool {
        elements.iter().any(|e| match e {
            Type::Array(inner, len) => *len > 0 && any_leaf(inner, wanted),
            Type::Slice(_) => false,
            leaf => leaf == wanted,
        })
    }
    leaf_count(ty).is_some() && ty.element_types().is_some_and(|e| any_leaf(e, wanted))
}

/// The leaf types of a value of `ty`, in flat order, or `None` when `ty`
/// has no flat form or more than `limit` leaves.
pub fn leaf_types(ty: &Type, limit: u64) -> Option<Vec<&Type>> {
    fn push<'t>(ty: &'t Type, out: &mut Vec<&'t Type>) {
        match ty {
            // Entries without leaves are skipped whole, so that the walk is
            // bounded by the leaves (a `[[Field; 0]; N]` has none).
            Type::Array(elements, _) if entry_leaf_count(elements) == Some(0) => {}
            Type::Array(elements, len) => {
                for _ in 0..*len {
                    elements.iter().for_each(|e| push(e, out));
                }
            }
            leaf => out.push(leaf),
        }
    }
    let count = leaf_count(ty).filter(|&n| n <= limit)?;
    let mut out = Vec::with_capacity(usize::try_from(count).ok()?);
    push(ty, &mut out);
    Some(out)
}

impl Function {
    /// How array instruction `inst` (`make_array`, `array_get`,
    /// `array_set`) numbers its array's elements: [`Indexing::Flat`] only
    /// in an `acir` function, on an array type with nested arrays, when
    /// the entry reading's types do not fit (the module docs give the
    /// rules). Other instructions are [`Indexing::Entry`].
    pub fn array_indexing(&self, inst: Inst) -> Indexing {
        // FIXME: where both readings' types fit (a `u1` read at an index
        // known only at run time from a `[([u1; 2], u1); 2]`; a leaf listing
        // of as many elements as there are entries, of the same types),
        // the entry reading is taken, as Noir's 2025 SSA meant it; Noir's
        // current ACIR numbers every nested array by leaf and would take
        // the flat one. The text does not carry the numbering, so telling
        // them apart needs the program's age.
        if !self.is_acir() {
            return Indexing::Entry;
        }
        let dfg = &self.dfg;
        let fits_entry = match &dfg[inst] {
            InstructionData::MakeArray { elements, ty } => {
                if !is_nested(ty) || leaf_count(ty) != Some(elements.len() as u64) {
                    return Indexing::Entry;
                }
                let types = ty.element_types().unwrap_or_default();
                let entries = ty.flattened_len();
                entries == Some(elements.len() as u64)
                    && elements
                        .iter()
                        .zip(types.iter().cycle())
                        .all(|(&e, t)| dfg.value_type(e) == t)
            }
            InstructionData::ArrayGet { array, index } => match dfg.first_result(inst) {
                Some(result) => self.entry_fits(*array, *index, dfg.value_type(result)),
                None => true,
            },
            InstructionData::ArraySet {
                array,
                index,
                value,
                ..
            } => self.entry_fits(*array, *index, dfg.value_type(*value)),
            _ => true,
        };
        if fits_entry {
            Indexing::Entry
        } else {
            Indexing::Flat
        }
    }

    /// Whether element `index` of `array` read by entry has type `wanted`
    /// (any entry type, for an index that is not a constant). Always true
    /// of arrays without nested arrays and of slices, which have only the
    /// entry numbering.
    fn entry_fits(&self, array: Value, index: Value, wanted: &Type) -> bool {
        let ty = self.dfg.value_type(array);
        let (Type::Array(elements, _), true) = (ty, is_nested(ty)) else {
            return true;
        };
        let index = self.dfg.const_value(index).and_then(|c| c.to_u64());
        entry_type(elements, index, wanted) == Some(wanted)
    }
}

/// The type of element `index` by entry of an array or slice of element
/// types `elements` (an entry index is typed modulo the tuple width, so
/// that an index out of bounds still has a type); for an index that is not
/// a constant (`None`), the element type equal to `wanted`, if any.
pub(crate) fn entry_type<'t>(
    elements: &'t [Type],
    index: Option<u64>,
    wanted: &Type,
) -> Option<&'t Type> {
    if let [only] = elements {
        return Some(only);
    }
    match index {
        Some(i) => elements.get(usize::try_from(i.checked_rem(elements.len() as u64)?).ok()?),
        None => elements.iter().find(|t| *t == wanted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested() -> Type {
        // [([u8; 2], u1); 2]: leaves u8 u8 u1 u8 u8 u1.
        Type::Array(
            vec![Type::array(Type::Unsigned(8), 2), Type::BOOL].into(),
            2,
        )
    }

    #[test]
    fn counts_leaves_as_noir_flattened_size() {
        assert_eq!(leaf_count(&nested()), Some(6));
        assert_eq!(leaf_count(&Type::Field), Some(1));
        let with_slice = Type::array(Type::Slice(vec![Type::Field].into()), 2);
        assert_eq!(leaf_count(&with_slice), None);
        assert!(is_nested(&nested()));
        assert!(!is_nested(&Type::array(Type::Field, 3)));
    }

    #[test]
    fn paths_follow_the_leaf_order() {
        let ty = nested();
        assert_eq!(leaf_path(&ty, 0), Some((vec![0, 0], &Type::Unsigned(8))));
        assert_eq!(leaf_path(&ty, 2), Some((vec![1], &Type::BOOL)));
        assert_eq!(leaf_path(&ty, 4), Some((vec![2, 1], &Type::Unsigned(8))));
        assert_eq!(leaf_path(&ty, 6), None);
        assert_eq!(leaf_type(&ty, 8), Some(&Type::BOOL));
        let types = leaf_types(&ty, 16).unwrap();
        assert_eq!(types.len(), 6);
        let empty = Type::array(Type::array(Type::Field, 0), u32::MAX);
        assert_eq!(leaf_types(&empty, 0), Some(vec![]));
        assert!(leaf_types(&ty, 5).is_none());
        assert!(has_leaf_type(&ty, &Type::BOOL));
        assert!(!has_leaf_type(&ty, &Type::Field));
    }
}
