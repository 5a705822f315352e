//! What the builtins compute. Slices are arrays whose first `length`
//! entries are the slice; an operation reads those entries and returns a
//! slice of exactly the new length, except `vector_push_back`, which
//! appends after the entries there are when `length` counts more (as
//! Noir's interpreter does). The hash black boxes are computed in
//! `black_box`; those the interpreter cannot compute trap with
//! [`TrapKind::Unsupported`].

use std::sync::Arc;

use ark_ff::{BigInteger, PrimeField};

use super::ops::{fits_bits, index_of};
use super::trap::TrapKind;
use super::value::{display_list, RuntimeValue};
use kildall_ir::{BlackBox, Builtin, Type};

/// The results of `builtin` on `args`; `result_types` are the call's
/// result types, `brillig` whether the caller is unconstrained. `print`
/// appends its line to `output`.
pub(super) fn call(
    builtin: Builtin,
    args: Vec<RuntimeValue>,
    result_types: &[Type],
    brillig: bool,
    output: &mut Vec<String>,
) -> Result<Vec<RuntimeValue>, TrapKind> {
    use Builtin as B;
    let needed = positional_arity(builtin);
    if args.len() < needed {
        // The verifier refuses such a call; an unverified module traps.
        return Err(failure(
            builtin,
            format!("{} argument(s), it reads {needed}", args.len()),
        ));
    }
    Ok(match builtin {
        B::Print => {
            output.push(display_list(&args));
            vec![]
        }
        B::AssertConstant | B::AsWitness | B::BlackBox(BlackBox::Range) => vec![],
        B::StaticAssert => {
            if !args.first().is_some_and(RuntimeValue::is_true) {
                return Err(failure(builtin, "the assertion is false".into()));
            }
            vec![]
        }
        B::IsUnconstrained => vec![RuntimeValue::bool(brillig)],
        B::Hint => args,
        B::ArrayLen => {
            let (elements, types) = array(&args[0])?;
            vec![length(elements.len() / types.len().max(1))]
        }
        B::AsSlice => {
            let (elements, types) = array(&args[0])?;
            let len = elements.len() / types.len().max(1);
            vec![length(len), args[0].clone()]
        }
        B::SlicePushBack => slice_push_back(&args)?,
        B::SlicePushFront | B::SliceInsert => slice_insert(builtin, &args)?,
        B::SlicePopBack | B::SlicePopFront | B::SliceRemove => slice_remove(builtin, &args)?,
        B::ToBits { .. } | B::ToRadix { .. } => to_radix(builtin, &args, result_types)?,
        B::ApplyRangeConstraint | B::FieldLessThan | B::BlackBox(BlackBox::And | BlackBox::Xor) => {
            numeric(builtin, &args)?
        }
        B::BlackBox(black_box) => match super::black_box::compute(black_box, &args, result_types) {
            Some(results) => results.map_err(|reason| failure(builtin, reason))?,
            // FIXME: recursive aggregation (verifying a proof inside the
            // program) is not computed; a run that reaches one stops with a
            // clear trap.
            None => {
                return Err(TrapKind::Unsupported {
                    builtin: builtin.name(),
                })
            }
        },
        // It calls functions of the module, which only a run can do
        // (`enumerate`).
        B::SliceEnumerate => {
            return Err(failure(
                builtin,
                "it calls functions of the module, which only a run of the module can do".into(),
            ))
        }
        // Brillig's reference counts and Pedersen generators are not
        // modelled: a run that reaches one stops with a clear trap.
        B::ArrayRefCount | B::SliceRefCount | B::DerivePedersenGenerators => {
            return Err(TrapKind::Unsupported {
                builtin: builtin.name(),
            })
        }
    })
}

/// How many leading arguments the computation of `builtin` below reads
/// by position (the others take what they are given, or check it).
fn positional_arity(builtin: Builtin) -> usize {
    use Builtin as B;
    match builtin {
        B::ArrayLen | B::AsSlice | B::ToBits { .. } => 1,
        B::SlicePushBack
        | B::SlicePushFront
        | B::SlicePopBack
        | B::SlicePopFront
        | B::ToRadix { .. }
        | B::ApplyRangeConstraint
        | B::FieldLessThan
        | B::BlackBox(BlackBox::And | BlackBox::Xor) => 2,
        B::SliceInsert | B::SliceRemove => 3,
        _ => 0,
    }
}

fn failure(builtin: Builtin, reason: String) -> TrapKind {
    TrapKind::Builtin {
        builtin: builtin.name(),
        reason,
    }
}

/// `vector_push_back(length, slice, entry..)`.
fn slice_push_back(args: &[RuntimeValue]) -> Result<Vec<RuntimeValue>, TrapKind> {
    // As Noir's own interpreter: the entries past `length` are dropped and
    // the entry goes after those that remain, even when `length` counts
    // more entries than the slice holds.
    let len = index_of(&args[0])?
        .filter(|&len| len < u32::MAX as usize)
        .ok_or_else(|| {
            failure(
                Builtin::SlicePushBack,
                format!("the length {} cannot grow", args[0]),
            )
        })?;
    let (elements, types) = array(&args[1])?;
    let width = types.len().max(1);
    let kept = len.saturating_mul(width).min(elements.len());
    let mut elements = elements[..kept].to_vec();
    elements.extend(args[2..].iter().cloned());
    let slice = Slice {
        len: len + 1,
        elements,
        types: types.clone(),
    };
    Ok(slice.into_results(Vec::new(), Vec::new()))
}

/// `vector_push_front(length, slice, entry..)` and
/// `vector_insert(length, slice, index, entry..)`.
fn slice_insert(builtin: Builtin, args: &[RuntimeValue]) -> Result<Vec<RuntimeValue>, TrapKind> {
    let mut slice = Slice::read(args, builtin)?;
    let (at, entry) = match builtin {
        Builtin::SlicePushFront => (0, &args[2..]),
        _ => {
            let index = index_of(&args[2])?.filter(|&i| i <= slice.len);
            let index = index.ok_or_else(|| {
                failure(
                    builtin,
                    format!(
                        "index {} is past the end of a slice of {} entries",
                        args[2], slice.len
                    ),
                )
            })?;
            (index, &args[3..])
        }
    };
    let width = slice.width();
    slice
        .elements
        .splice(at * width..at * width, entry.iter().cloned());
    slice.len += 1;
    Ok(slice.into_results(Vec::new(), Vec::new()))
}

/// `vector_pop_back`, `vector_pop_front` and `vector_remove`: the slice
/// without the entry, and the entry (before the slice for a pop from the
/// front, after it otherwise).
fn slice_remove(builtin: Builtin, args: &[RuntimeValue]) -> Result<Vec<RuntimeValue>, TrapKind> {
    let mut slice = Slice::read(args, builtin)?;
    let at = match builtin {
        Builtin::SlicePopBack => slice.len.checked_sub(1),
        Builtin::SlicePopFront => (slice.len > 0).then_some(0),
        _ => index_of(&args[2])?.filter(|&i| i < slice.len),
    };
    let at = at.ok_or_else(|| {
        failure(
            builtin,
            match builtin {
                Builtin::SliceRemove => format!(
                    "index {} is out of bounds for a slice of {} entries",
                    args[2], slice.len
                ),
                _ => "the slice is empty".into(),
            },
        )
    })?;
    let width = slice.width();
    let entry: Vec<RuntimeValue> = slice.elements.drain(at * width..(at + 1) * width).collect();
    slice.len -= 1;
    Ok(if builtin == Builtin::SlicePopFront {
        slice.into_results(entry, Vec::new())
    } else {
        slice.into_results(Vec::new(), entry)
    })
}

/// `to_le_bits`, `to_be_bits`, `to_le_radix`, `to_be_radix`: the digits
/// of the first argument as the one array result.
fn to_radix(
    builtin: Builtin,
    args: &[RuntimeValue],
    result_types: &[Type],
) -> Result<Vec<RuntimeValue>, TrapKind> {
    let count = array_len(result_types)?;
    let (radix, big_endian) = match builtin {
        Builtin::ToBits { big_endian } => (2, big_endian),
        Builtin::ToRadix { big_endian } => (index_of(&args[1])?.unwrap_or(0), big_endian),
        _ => (0, false),
    };
    if !(2..=256).contains(&radix) || !radix.is_power_of_two() {
        return Err(failure(
            builtin,
            format!("radix {} is not a power of two from 2 to 256", args[1]),
        ));
    }
    let bits = radix.trailing_zeros();
    let digits = digits(&args[0], bits, count).ok_or_else(|| {
        let what = if matches!(builtin, Builtin::ToBits { .. }) {
            format!("{count} bits")
        } else {
            format!("{count} digits of radix {radix}")
        };
        failure(builtin, format!("{} does not fit in {what}", args[0]))
    })?;
    Ok(vec![if matches!(builtin, Builtin::ToBits { .. }) {
        digit_array(digits, big_endian, Type::BOOL, 1)
    } else {
        digit_array(digits, big_endian, Type::Unsigned(8), 8)
    }])
}

/// `apply_range_constraint`, `field_less_than`, and the `and` and `xor`
/// black boxes.
fn numeric(builtin: Builtin, args: &[RuntimeValue]) -> Result<Vec<RuntimeValue>, TrapKind> {
    match (builtin, &args[0], &args[1]) {
        (Builtin::ApplyRangeConstraint, value, bits) => {
            let count = index_of(bits)?.and_then(|b| u32::try_from(b).ok());
            let count =
                count.ok_or_else(|| failure(builtin, format!("bit count {bits} is too large")))?;
            if !fits_bits(value, count)? {
                return Err(TrapKind::RangeCheckFailed {
                    value: value.clone(),
                    bits: count,
                });
            }
            Ok(vec![])
        }
        (Builtin::FieldLessThan, RuntimeValue::Field(a), RuntimeValue::Field(b)) => {
            Ok(vec![RuntimeValue::bool(a.into_bigint() < b.into_bigint())])
        }
        (Builtin::FieldLessThan, _, _) => Err(failure(
            builtin,
            "the operands are not field elements".into(),
        )),
        (
            _,
            RuntimeValue::Int {
                bits,
                signed,
                value: a,
            },
            RuntimeValue::Int { value: b, .. },
        ) => {
            let value = if builtin == Builtin::BlackBox(BlackBox::And) {
                a & b
            } else {
                a ^ b
            };
            Ok(vec![RuntimeValue::Int {
                bits: *bits,
                signed: *signed,
                value,
            }])
        }
        _ => Err(failure(builtin, "the operands are not integers".into())),
    }
}

/// A slice argument pair `(length, slice)`, its first `length` entries.
struct Slice {
    len: usize,
    elements: Vec<RuntimeValue>,
    types: Arc<[Type]>,
}

impl Slice {
    fn read(args: &[RuntimeValue], builtin: Builtin) -> Result<Slice, TrapKind> {
        let len = index_of(&args[0])?.unwrap_or(usize::MAX);
        let (elements, types) = array(&args[1])?;
        let width = types.len().max(1);
        let Some(elements) = len.checked_mul(width).and_then(|end| elements.get(..end)) else {
            return Err(TrapKind::Builtin {
                builtin: builtin.name(),
                reason: format!(
                    "length {} exceeds the {} entries of the slice",
                    args[0],
                    elements.len() / width
                ),
            });
        };
        Ok(Slice {
            len,
            elements: elements.to_vec(),
            types: types.clone(),
        })
    }

    fn width(&self) -> usize {
        self.types.len().max(1)
    }

    /// `(before.., length, slice, after..)`.
    fn into_results(
        self,
        before: Vec<RuntimeValue>,
        after: Vec<RuntimeValue>,
    ) -> Vec<RuntimeValue> {
        let mut results = before;
        results.push(length(self.len));
        results.push(RuntimeValue::Array {
            elements: Arc::new(self.elements),
            types: self.types,
        });
        results.extend(after);
        results
    }
}

fn length(len: usize) -> RuntimeValue {
    RuntimeValue::unsigned(32, len as u128)
}

fn array(value: &RuntimeValue) -> Result<(&Vec<RuntimeValue>, &Arc<[Type]>), TrapKind> {
    match value {
        RuntimeValue::Array { elements, types } => Ok((elements, types)),
        other => Err(TrapKind::TypeError(format!("{other} is not an array"))),
    }
}

/// The length of the one array result.
fn array_len(result_types: &[Type]) -> Result<usize, TrapKind> {
    match result_types {
        [Type::Array(_, len)] => Ok(*len as usize),
        _ => Err(TrapKind::TypeError(
            "the call does not return one array".into(),
        )),
    }
}

/// The `count` little-endian digits of `bits` bits each of a number, if it
/// has no more.
fn digits(value: &RuntimeValue, bits: u32, count: usize) -> Option<Vec<u8>> {
    let le_bits: Vec<bool> = match value {
        RuntimeValue::Field(f) => f.into_bigint().to_bits_le(),
        RuntimeValue::Int { value, .. } => (0..128).map(|i| value >> i & 1 == 1).collect(),
        _ => return None,
    };
    let bits = bits as usize;
    let needed = le_bits.iter().rposition(|&b| b).map_or(0, |top| top + 1);
    if needed > count.saturating_mul(bits) {
        return None;
    }
    Some(
        (0..count)
            .map(|d| {
                (0..bits)
                    .filter(|&i| le_bits.get(d * bits + i).copied().unwrap_or(false))
                    .fold(0u8, |acc, i| acc | (1 << i))
            })
            .collect(),
    )
}

fn digit_array(mut digits: Vec<u8>, big_endian: bool, ty: Type, bits: u32) -> RuntimeValue {
    if big_endian {
        digits.reverse();
    }
    let elements = digits
        .into_iter()
        .map(|d| RuntimeValue::unsigned(bits, u128::from(d)))
        .collect();
    RuntimeValue::array(elements, vec![ty])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_little_endian_and_bounded() {
        let v = RuntimeValue::field(0b1101);
        assert_eq!(digits(&v, 1, 4), Some(vec![1, 0, 1, 1]));
        assert_eq!(digits(&v, 1, 3), None);
        assert_eq!(digits(&RuntimeValue::field(258), 8, 2), Some(vec![2, 1]));
    }
}
