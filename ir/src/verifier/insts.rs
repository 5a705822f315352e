//! Checks of one instruction or terminator: operand types, result types
//! and builtin signatures.

use super::arrays::check_array;
use super::*;
use crate::{Builtin, Enumerate};

pub(super) fn operand_error(
    cx: &Ctx<'_>,
    inst: Inst,
    what: &str,
    expected: &str,
    found: &Type,
) -> VerifierError {
    cx.error(
        Location::Inst(inst),
        VerifierErrorKind::OperandType {
            what: what.into(),
            expected: expected.into(),
            found: found.clone(),
        },
    )
}

/// Checks `found` against a required type.
/// `add`/`sub`/`mul` of a `noisy` value and an integer-typed one (which must
/// be a constant).
pub(super) fn noisy_with_plaintext(cx: &Ctx<'_>, op: BinaryOp, lhs: Value, rhs: Value) -> bool {
    let (lt, rt) = (cx.ty(lhs), cx.ty(rhs));
    matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)
        && ((*lt == Type::Noisy && rt.is_integer()) || (lt.is_integer() && *rt == Type::Noisy))
}

pub(super) fn expect_type(
    cx: &Ctx<'_>,
    inst: Inst,
    what: &str,
    value: Value,
    expected: &Type,
) -> Result<(), VerifierError> {
    let found = cx.ty(value);
    if found == expected {
        Ok(())
    } else {
        Err(operand_error(
            cx,
            inst,
            what,
            &format!("`{expected}`"),
            found,
        ))
    }
}

pub(super) fn check_inst(cx: &Ctx<'_>, inst: Inst) -> Result<(), VerifierError> {
    use InstructionData::*;
    let dfg = &cx.func.dfg;
    let data = &dfg[inst];
    let opcode = data.opcode_name();
    let results = dfg.inst_results(inst);
    let at = Location::Inst(inst);
    // The result type each single-result instruction gives, checked below.
    let result: Option<Type> = match data {
        Binary { .. } | Not { .. } | Cast { .. } | Truncate { .. } => check_arithmetic(cx, inst)?,
        Allocate | Load { .. } | Store { .. } => check_memory(cx, inst)?,
        MakeArray { .. } | ArrayGet { .. } | ArraySet { .. } => check_array(cx, inst)?,
        Constrain { .. } | RangeCheck { .. } | EnableSideEffects { .. } | IfElse { .. } => {
            check_predicate(cx, inst)?
        }
        Call { callee, args } => {
            check_call(cx, inst, *callee, args, results)?;
            return Ok(());
        }
        Encode { arg } => {
            expect_type(cx, inst, "the plaintext", *arg, &Type::Unsigned(5))?;
            Some(Type::Noisy)
        }
        Decode { arg } => {
            expect_type(cx, inst, "the ciphertext", *arg, &Type::Noisy)?;
            Some(Type::Unsigned(5))
        }
        ReduceNoise { arg } => {
            expect_type(cx, inst, "the ciphertext", *arg, &Type::Noisy)?;
            Some(Type::Noisy)
        }
        IncRc { .. } | DecRc { .. } | Nop => None,
    };
    let expected_count = usize::from(result.is_some() || matches!(data, Allocate));
    if results.len() != expected_count {
        return Err(cx.error(
            at,
            VerifierErrorKind::ResultCount {
                opcode,
                expected: expected_count,
                found: results.len(),
            },
        ));
    }
    if let (Some(expected), Some(&value)) = (result, results.first()) {
        let found = dfg.value_type(value);
        if *found != expected {
            return Err(cx.error(
                at,
                VerifierErrorKind::ResultType {
                    value,
                    expected,
                    found: found.clone(),
                },
            ));
        }
    }
    Ok(())
}

/// An error about an immediate operand (a bit count, a type) of `inst`.
pub(super) fn invalid(cx: &Ctx<'_>, inst: Inst, reason: String) -> VerifierError {
    let opcode = cx.func.dfg[inst].opcode_name();
    cx.error(
        Location::Inst(inst),
        VerifierErrorKind::InvalidImmediate { opcode, reason },
    )
}

/// `add` and the other binary operators, `not`, `cast`, `truncate`: the
/// result type.
fn check_arithmetic(cx: &Ctx<'_>, inst: Inst) -> Result<Option<Type>, VerifierError> {
    use InstructionData::*;
    match &cx.func.dfg[inst] {
        Binary { op, lhs, rhs } if noisy_with_plaintext(cx, *op, *lhs, *rhs) => {
            // `mul v2, u5 4`: see the `plaintext` module for the noise rule.
            let constant = if *cx.ty(*lhs) == Type::Noisy {
                *rhs
            } else {
                *lhs
            };
            if crate::plaintext::plaintext_constant(cx.func, constant).is_none() {
                let found = cx.ty(constant);
                return Err(operand_error(
                    cx,
                    inst,
                    "the plaintext operand",
                    "`noisy` or an integer constant",
                    found,
                ));
            }
            Ok(Some(Type::Noisy))
        }
        Binary { op, lhs, rhs } => check_binary(cx, inst, *op, *lhs, *rhs).map(Some),
        Not { arg } => {
            let t = cx.ty(*arg);
            if !t.is_integer() {
                let expected = "an integer type (a field element has no bits to complement)";
                return Err(operand_error(cx, inst, "the operand", expected, t));
            }
            Ok(Some(t.clone()))
        }
        Cast { arg, ty } => {
            let t = cx.ty(*arg);
            if !t.is_numeric() {
                return Err(operand_error(cx, inst, "the operand", "a numeric type", t));
            }
            if !ty.is_numeric() {
                return Err(invalid(cx, inst, format!("cannot cast to `{ty}`")));
            }
            // Noir's validator refuses a constant that cannot be cast
            // (the interpreter would trap on it).
            let constant = cx.func.dfg.const_value(*arg);
            if let (Type::Field, Some(c)) = (t, constant) {
                if !crate::parser::field_constant_casts(c, ty) {
                    return Err(invalid(
                        cx,
                        inst,
                        format!("the constant Field {c} does not fit in `{ty}`"),
                    ));
                }
            }
            if *t == Type::Field && constant.is_none() && cx.func.runtime.is_some() {
                check_field_cast(cx, inst, *arg, ty)?;
            }
            Ok(Some(ty.clone()))
        }
        Truncate {
            arg,
            bits,
            max_bit_size,
        } => {
            let t = cx.ty(*arg);
            if !t.is_numeric() {
                return Err(operand_error(cx, inst, "the operand", "a numeric type", t));
            }
            if bits > max_bit_size {
                return Err(invalid(
                    cx,
                    inst,
                    format!("{bits} bits is more than the maximum bit size {max_bit_size}"),
                ));
            }
            Ok(Some(t.clone()))
        }
        _ => Ok(None),
    }
}

/// Noir's validator on a `cast` of a non-constant `Field` to an integer
/// type: the value must be known to fit, as the result of a `truncate` to at
/// most the target's bits, of a division by a constant whose quotient needs
/// no more bits, or as a value range-checked to at most that many bits
/// earlier.
fn check_field_cast(cx: &Ctx<'_>, inst: Inst, arg: Value, ty: &Type) -> Result<(), VerifierError> {
    let Some(target_bits) = ty.bit_size() else {
        return Ok(());
    };
    let dfg = &cx.func.dfg;
    let arg = dfg.resolve(arg);
    let defined_to_fit = match dfg.value_def(arg) {
        ValueDef::Result(def, _) => match dfg[def] {
            InstructionData::Truncate { bits, .. } => bits <= target_bits,
            InstructionData::Binary {
                op: BinaryOp::Div,
                lhs,
                rhs,
            } => dfg.const_value(rhs).is_some_and(|divisor| {
                let numerator_bits = cx.ty(lhs).bit_size().unwrap_or(FIELD_BITS);
                numerator_bits.saturating_sub(divisor.bits()) <= target_bits
            }),
            _ => false,
        },
        _ => false,
    };
    if defined_to_fit || cx.range_checked_casts.contains(inst) {
        Ok(())
    } else {
        Err(cx.error(
            Location::Inst(inst),
            VerifierErrorKind::UncheckedFieldCast(ty.clone()),
        ))
    }
}

/// The bits of a `Field` element, as Noir's validator counts them.
const FIELD_BITS: u32 = 254;

/// A binary operator on two operands of one type: the result type.
fn check_binary(
    cx: &Ctx<'_>,
    inst: Inst,
    op: BinaryOp,
    lhs: Value,
    rhs: Value,
) -> Result<Type, VerifierError> {
    let lt = cx.ty(lhs);
    let ok = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => lt.is_numeric() || *lt == Type::Noisy,
        BinaryOp::Div => lt.is_numeric(),
        // Noir's validator orders no `Field`s; Kildall's own functions
        // (without a Noir runtime) compare canonical representatives.
        BinaryOp::Lt => lt.is_integer() || (*lt == Type::Field && cx.func.runtime.is_none()),
        BinaryOp::UncheckedAdd | BinaryOp::UncheckedSub | BinaryOp::UncheckedMul => lt.is_numeric(),
        BinaryOp::Mod
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::Shl
        | BinaryOp::Shr => lt.is_integer(),
        BinaryOp::Eq => lt.is_numeric() || lt.is_reference() || matches!(lt, Type::Function),
    };
    if !ok {
        let expected = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => "a numeric type or `noisy`",
            BinaryOp::Eq => "a numeric, reference or function type",
            BinaryOp::Lt if cx.func.runtime.is_some() => {
                "an integer type (Noir's validator orders no `Field`s in an `acir` or \
                 `brillig` function; `field_less_than` compares them)"
            }
            // Noir's validator lets `mod` on Fields through, and its
            // Brillig code generator then refuses it; the IR gives it no value.
            BinaryOp::Mod => "an integer type (a remainder is not defined on field elements)",
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Shl | BinaryOp::Shr => {
                "an integer type"
            }
            _ => "a numeric type",
        };
        return Err(operand_error(cx, inst, "the left operand", expected, lt));
    }
    expect_type(cx, inst, "the right operand", rhs, lt)?;
    Ok(if op.is_comparison() {
        Type::BOOL
    } else {
        lt.clone()
    })
}

/// `allocate`, `load`, `store`: the result type.
fn check_memory(cx: &Ctx<'_>, inst: Inst) -> Result<Option<Type>, VerifierError> {
    use InstructionData::*;
    let dfg = &cx.func.dfg;
    match &dfg[inst] {
        Allocate => {
            let Some(&r) = dfg.inst_results(inst).first() else {
                return Ok(None);
            };
            let ty = dfg.value_type(r);
            if !ty.is_reference() {
                return Err(invalid(
                    cx,
                    inst,
                    format!("the result type `{ty}` is not a reference"),
                ));
            }
            Ok(Some(ty.clone()))
        }
        Load { address } => {
            let t = cx.ty(*address);
            let Some(pointee) = t.pointee() else {
                return Err(operand_error(cx, inst, "the address", "a reference", t));
            };
            Ok(Some(pointee.clone()))
        }
        Store { value, address } => {
            let t = cx.ty(*address);
            let Some(pointee) = t.pointee() else {
                return Err(operand_error(cx, inst, "the address", "a reference", t));
            };
            // Nothing writes through a `&T`: passes rely on it (a call
            // given only `&T`s to a cell keeps its content).
            if let Type::ImmutableReference(_) = t {
                return Err(operand_error(
                    cx,
                    inst,
                    "the address",
                    "a mutable reference (a `&T` cannot be stored through)",
                    t,
                ));
            }
            expect_type(cx, inst, "the stored value", *value, pointee)?;
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// `constrain`, `range_check`, `enable_side_effects`, `if`: the result type.
fn check_predicate(cx: &Ctx<'_>, inst: Inst) -> Result<Option<Type>, VerifierError> {
    use InstructionData::*;
    match &cx.func.dfg[inst] {
        Constrain { lhs, rhs, .. } => {
            expect_type(cx, inst, "the right side", *rhs, cx.ty(*lhs))?;
            Ok(None)
        }
        RangeCheck { arg, bits, .. } => {
            let t = cx.ty(*arg);
            if !t.is_numeric() {
                return Err(operand_error(cx, inst, "the operand", "a numeric type", t));
            }
            if *bits == 0 || *bits > 254 {
                return Err(invalid(
                    cx,
                    inst,
                    format!("{bits} bits is outside 1 to 254"),
                ));
            }
            Ok(None)
        }
        EnableSideEffects { condition } => {
            expect_type(cx, inst, "the condition", *condition, &Type::BOOL)?;
            Ok(None)
        }
        IfElse {
            then_condition,
            then_value,
            else_condition,
            else_value,
        } => {
            expect_type(cx, inst, "the then condition", *then_condition, &Type::BOOL)?;
            expect_type(cx, inst, "the else condition", *else_condition, &Type::BOOL)?;
            let t = cx.ty(*then_value);
            expect_type(cx, inst, "the else value", *else_value, t)?;
            Ok(Some(t.clone()))
        }
        _ => Ok(None),
    }
}

pub(super) fn check_call(
    cx: &Ctx<'_>,
    inst: Inst,
    callee: Callee,
    args: &[Value],
    results: &[Value],
) -> Result<(), VerifierError> {
    let at = Location::Inst(inst);
    let dfg = &cx.func.dfg;
    let id = match callee {
        Callee::Builtin(builtin) => {
            let arg_types: Vec<Type> = args.iter().map(|&a| cx.ty(a).clone()).collect();
            let result_types: Vec<Type> = results.iter().map(|&r| cx.ty(r).clone()).collect();
            builtin
                .check_signature(&arg_types, &result_types)
                .map_err(|reason| {
                    cx.error(
                        at,
                        VerifierErrorKind::BuiltinSignature {
                            builtin: builtin.name(),
                            reason,
                        },
                    )
                })?;
            if builtin == Builtin::SliceEnumerate {
                check_enumerate_closures(cx, inst, args, &arg_types)?;
            }
            return Ok(());
        }
        Callee::Function(id) => id,
        // An oracle's signature is known only to the program that runs it.
        Callee::Foreign(foreign) if constrained_caller(cx) => {
            let name = dfg.foreign_name(foreign).to_string();
            return Err(cx.error(at, VerifierErrorKind::ForeignCallInConstrained(name)));
        }
        Callee::Foreign(_) => return Ok(()),
        // A call through a value: the callee is any function, so only the
        // value's type is known.
        Callee::Value(value) => return expect_type(cx, inst, "the callee", value, &Type::Function),
    };
    let Some(signatures) = cx.signatures else {
        return Ok(());
    };
    let Some(signature) = signatures.get(id.as_u32() as usize) else {
        return Err(cx.error(at, VerifierErrorKind::UnknownCallee(id)));
    };
    let unconstrained_caller = cx.func.is_brillig();
    if unconstrained_caller && signature.constrained {
        return Err(cx.error(at, VerifierErrorKind::ConstrainedCalleeInUnconstrained(id)));
    }
    let (params, returns) = (&signature.params, &signature.returns);
    let matches =
        params.len() == args.len() && params.iter().zip(args).all(|(p, &a)| p == cx.ty(a));
    if !matches {
        let arg_types = args.iter().map(|&a| cx.ty(a).clone());
        return Err(cx.error(
            at,
            VerifierErrorKind::CallArguments {
                callee: id,
                expected: type_list(params.iter().cloned()),
                found: type_list(arg_types),
            },
        ));
    }
    if constrained_caller(cx) && signature.unconstrained {
        check_unconstrained_boundary(cx, inst, id, args, results)?;
    }
    // A callee that never returns may be given any result types.
    if let Some(returns) = returns {
        let matches = returns.len() == results.len()
            && returns
                .iter()
                .zip(results)
                .all(|(t, &r)| t == dfg.value_type(r));
        if !matches {
            let result_types = results.iter().map(|&r| dfg.value_type(r).clone());
            return Err(cx.error(
                at,
                VerifierErrorKind::CallResults {
                    callee: id,
                    expected: type_list(returns.iter().cloned()),
                    found: type_list(result_types),
                },
            ));
        }
    }
    Ok(())
}

/// Whether `ty` is `&mut T` or holds one (in array elements or behind `&`).
fn contains_mutable_reference(ty: &Type) -> bool {
    match ty {
        Type::Reference(_) => true,
        Type::ImmutableReference(pointee) => contains_mutable_reference(pointee),
        Type::Array(elements, _) | Type::Slice(elements) => {
            elements.iter().any(contains_mutable_reference)
        }
        _ => false,
    }
}

/// The closures of a `vector_enumerate` that name functions of the module
/// (rather than `function` parameters, known only when the call runs) must
/// take the operands the call offers and return one entry of the slice
/// ([`Enumerate::check_closure`]); the one an unconstrained caller calls
/// must not be constrained.
fn check_enumerate_closures(
    cx: &Ctx<'_>,
    inst: Inst,
    args: &[Value],
    arg_types: &[Type],
) -> Result<(), VerifierError> {
    let (Some(signatures), Some(layout)) = (cx.signatures, Enumerate::new(args.len())) else {
        return Ok(());
    };
    for (unconstrained, what) in [(false, "constrained"), (true, "unconstrained")] {
        let ValueDef::Function(id) = cx.func.dfg.value_def(args[layout.closure(unconstrained)])
        else {
            continue;
        };
        let Some(signature) = signatures.get(id.as_u32() as usize) else {
            return Err(cx.error(Location::Inst(inst), VerifierErrorKind::UnknownCallee(id)));
        };
        if unconstrained && !constrained_caller(cx) && signature.constrained {
            return Err(cx.error(
                Location::Inst(inst),
                VerifierErrorKind::ConstrainedCalleeInUnconstrained(id),
            ));
        }
        layout
            .check_closure(arg_types, &signature.params, signature.returns.as_deref())
            .map_err(|reason| {
                cx.error(
                    Location::Inst(inst),
                    VerifierErrorKind::BuiltinSignature {
                        builtin: Builtin::SliceEnumerate.name(),
                        reason: format!("the {what} closure {id}: {reason}"),
                    },
                )
            })?;
    }
    Ok(())
}

fn constrained_caller(cx: &Ctx<'_>) -> bool {
    cx.func.is_acir()
}

/// Noir's validator on a call from constrained to unconstrained code: no
/// mutable reference crosses (the two share no memory; an immutable one is
/// lowered to its value at the boundary) and no function value comes back.
fn check_unconstrained_boundary(
    cx: &Ctx<'_>,
    inst: Inst,
    callee: FuncId,
    args: &[Value],
    results: &[Value],
) -> Result<(), VerifierError> {
    let at = Location::Inst(inst);
    if let Some((index, ty)) = args
        .iter()
        .map(|&a| cx.ty(a))
        .enumerate()
        .find(|(_, ty)| contains_mutable_reference(ty))
    {
        let ty = ty.clone();
        let kind = VerifierErrorKind::ReferenceToUnconstrained { callee, index, ty };
        return Err(cx.error(at, kind));
    }
    if let Some(ty) = results
        .iter()
        .map(|&r| cx.ty(r))
        .find(|ty| ty.contains_function())
    {
        let ty = ty.clone();
        let kind = VerifierErrorKind::FunctionFromUnconstrained { callee, ty };
        return Err(cx.error(at, kind));
    }
    Ok(())
}

/// The arguments of the edge from `block` to `destination` match its
/// parameters in number and type.
fn check_edge(
    cx: &Ctx<'_>,
    block: Block,
    destination: Block,
    arguments: &[Value],
) -> Result<(), VerifierError> {
    let params = cx.func.dfg.block_params(destination);
    let at = Location::Block(block);
    if params.len() != arguments.len() {
        return Err(cx.error(
            at,
            VerifierErrorKind::BranchArgCount {
                target: destination,
                expected: params.len(),
                found: arguments.len(),
            },
        ));
    }
    for (index, (&param, &arg)) in params.iter().zip(arguments).enumerate() {
        let expected = cx.func.dfg.value_type(param);
        let found = cx.ty(arg);
        if expected != found {
            return Err(cx.error(
                at,
                VerifierErrorKind::BranchArgType {
                    target: destination,
                    index,
                    expected: expected.clone(),
                    found: found.clone(),
                },
            ));
        }
    }
    Ok(())
}

pub(super) fn check_terminator(
    cx: &Ctx<'_>,
    block: Block,
    terminator: &Terminator,
) -> Result<(), VerifierError> {
    let at = Location::Block(block);
    match terminator {
        Terminator::Jmp {
            destination,
            arguments,
        } => check_edge(cx, block, *destination, arguments)?,
        Terminator::JmpIf {
            condition,
            then_destination,
            then_arguments,
            else_destination,
            else_arguments,
        } => {
            let found = cx.ty(*condition);
            if *found != Type::BOOL {
                return Err(cx.error(
                    at,
                    VerifierErrorKind::OperandType {
                        what: "the `jmpif` condition".into(),
                        expected: "`u1`".into(),
                        found: found.clone(),
                    },
                ));
            }
            check_edge(cx, block, *then_destination, then_arguments)?;
            check_edge(cx, block, *else_destination, else_arguments)?;
        }
        Terminator::Return { values } => {
            let expected = &cx.returns;
            let matches = expected.len() == values.len()
                && expected.iter().zip(values).all(|(t, &v)| t == cx.ty(v));
            if !matches {
                return Err(cx.error(
                    at,
                    VerifierErrorKind::ReturnMismatch {
                        expected: type_list(expected.iter().cloned()),
                        found: type_list(values.iter().map(|&v| cx.ty(v).clone())),
                    },
                ));
            }
        }
        Terminator::Unreachable => {}
    }
    Ok(())
}
