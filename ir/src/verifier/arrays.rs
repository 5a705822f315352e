//! Checks of `make_array`, `array_get` and `array_set`: element counts,
//! and element types by entry, or by leaf where an `acir` function numbers
//! a nested array flat ([`crate::flat`] gives the rules and decides which
//! numbering an instruction uses).

use super::insts::{expect_type, invalid, operand_error};
use super::*;
use crate::flat::{self, Indexing};

/// `make_array`, `array_get`, `array_set`: the result type.
pub(super) fn check_array(cx: &Ctx<'_>, inst: Inst) -> Result<Option<Type>, VerifierError> {
    use InstructionData::*;
    let dfg = &cx.func.dfg;
    let opcode = dfg[inst].opcode_name();
    match &dfg[inst] {
        MakeArray { elements, ty } => check_make_array(cx, inst, elements, ty).map(Some),
        ArrayGet { array, index } => {
            let t = cx.ty(*array);
            if t.element_types().is_none() {
                return Err(operand_error(cx, inst, "the array", "an array or slice", t));
            }
            expect_type(cx, inst, "the index", *index, &Type::U32)?;
            // A missing result is reported by the caller; any type will do.
            let wanted = dfg.first_result(inst).map(|r| dfg.value_type(r).clone());
            let wanted = wanted.unwrap_or(Type::Field);
            let access = Access {
                opcode,
                array: *array,
                index: *index,
                wanted: &wanted,
            };
            check_element(cx, inst, &access)?;
            Ok(Some(wanted))
        }
        ArraySet {
            array,
            index,
            value,
            ..
        } => {
            let t = cx.ty(*array);
            if t.element_types().is_none() {
                return Err(operand_error(cx, inst, "the array", "an array or slice", t));
            }
            expect_type(cx, inst, "the index", *index, &Type::U32)?;
            let access = Access {
                opcode,
                array: *array,
                index: *index,
                wanted: cx.ty(*value),
            };
            check_element(cx, inst, &access)?;
            Ok(Some(t.clone()))
        }
        _ => Ok(None),
    }
}

/// One element read or written by `array_get` or `array_set`.
struct Access<'a> {
    opcode: &'static str,
    array: Value,
    index: Value,
    /// The result's (or the written value's) type.
    wanted: &'a Type,
}

/// The element `access` names has the type it reads or writes, by entry or
/// (in an `acir` function) by leaf.
fn check_element(cx: &Ctx<'_>, inst: Inst, access: &Access<'_>) -> Result<(), VerifierError> {
    let ty = cx.ty(access.array);
    let elements = ty.element_types().unwrap_or_default();
    let wanted = access.wanted;
    let constant = cx
        .func
        .dfg
        .const_value(access.index)
        .and_then(|c| c.to_u64());
    let fits = match cx.func.array_indexing(inst) {
        Indexing::Entry => flat::entry_type(elements, constant, wanted) == Some(wanted),
        // FIXME: Noir's ACIR reads an array-typed result at a flat index as
        // the leaves from there on; a flat index here reads or writes one
        // leaf, so such an `array_get` is refused.
        Indexing::Flat => match constant {
            Some(i) => flat::leaf_type(ty, i) == Some(wanted),
            None => flat::has_leaf_type(ty, wanted),
        },
    };
    if fits {
        return Ok(());
    }
    let nested = flat::is_nested(ty);
    if nested && flat::has_leaf_type(ty, wanted) && !cx.func.is_acir() {
        let kind = VerifierErrorKind::FlattenedArrayIndex {
            opcode: access.opcode,
            ty: ty.clone(),
            wanted: wanted.clone(),
        };
        return Err(cx.error(Location::Inst(inst), kind));
    }
    let reason = match constant {
        Some(i) => {
            let mut reason = match flat::entry_type(elements, constant, wanted) {
                Some(e) => format!("at index {i} of `{ty}`, whose element there is a `{e}`"),
                None => format!("at index {i} of `{ty}`, which has no elements"),
            };
            if let (true, Some(leaf)) = (nested, flat::leaf_type(ty, i)) {
                reason.push_str(&format!(" (its leaf at flat index {i} is a `{leaf}`)"));
            }
            reason
        }
        None => {
            let direction = match access.opcode {
                "array_get" => "from",
                _ => "into",
            };
            let part = if nested { "entry or leaf" } else { "element" };
            format!("{direction} `{ty}` at an index known only at run time, and no {part} of `{ty}` is a `{wanted}`")
        }
    };
    let kind = VerifierErrorKind::ArrayElementType {
        opcode: access.opcode,
        wanted: wanted.clone(),
        reason,
    };
    Err(cx.error(Location::Inst(inst), kind))
}

fn check_make_array(
    cx: &Ctx<'_>,
    inst: Inst,
    elements: &[Value],
    ty: &Type,
) -> Result<Type, VerifierError> {
    let (element_types, len) = match ty {
        Type::Array(e, len) => (e, Some(*len)),
        Type::Slice(e) => (e, None),
        _ => {
            return Err(invalid(
                cx,
                inst,
                format!("`{ty}` is not an array or slice type"),
            ))
        }
    };
    if cx.func.array_indexing(inst) == Indexing::Flat {
        // The count is the flat length: at most the element count, so the
        // leaf list is bounded by the instruction itself.
        let leaves = flat::leaf_types(ty, elements.len() as u64).unwrap_or_default();
        for (i, (&element, leaf)) in elements.iter().zip(leaves).enumerate() {
            let what = format!("element {i} (leaf {i} of `{ty}`)");
            expect_type(cx, inst, &what, element, leaf)?;
        }
        return Ok(ty.clone());
    }
    let width = element_types.len();
    let count_ok = match len {
        Some(len) => elements.len() as u64 == width as u64 * u64::from(len),
        // A slice of a zero-sized element type (`[()]`) has no elements.
        None if width == 0 => elements.is_empty(),
        None => elements.len().is_multiple_of(width),
    };
    if let (false, Some(len)) = (count_ok, len) {
        if flat::is_nested(ty) && flat::leaf_count(ty) == Some(elements.len() as u64) {
            let kind = VerifierErrorKind::FlattenedArray {
                ty: ty.clone(),
                expected: width as u64 * u64::from(len),
                found: elements.len(),
            };
            return Err(cx.error(Location::Inst(inst), kind));
        }
    }
    if !count_ok {
        let expected = match len {
            Some(len) => (width as u64 * u64::from(len)).to_string(),
            None => format!("a multiple of {width}"),
        };
        return Err(cx.error(
            Location::Inst(inst),
            VerifierErrorKind::ArrayLength {
                ty: ty.clone(),
                expected,
                found: elements.len(),
            },
        ));
    }
    for (i, &element) in elements.iter().enumerate() {
        let what = format!("element {i}");
        expect_type(cx, inst, &what, element, &element_types[i % width])?;
    }
    Ok(ty.clone())
}
