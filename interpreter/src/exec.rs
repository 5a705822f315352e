//! One instruction of a frame, by family: arithmetic, memory, arrays,
//! checks and predicates, calls, noisy values. Each family reads its
//! operands, applies the semantics the crate docs write down, and gives
//! the instruction's value (or none).

use std::sync::Arc;

use kildall_ir::flat::Indexing;
use kildall_ir::{
    AssertMessage, Builtin, Callee, Function, Inst, InstructionData, Module, Type, Value,
};

use super::enumerate::{self, EnumerateCall, Step};
use super::flat;
use super::foreign::{ForeignCall, ForeignHandler, ForeignMemory};
use super::memory::Memory;
use super::value::RuntimeValue;
use super::TrapKind;
use super::{builtins, ops, read, zero, Flow, Frame, FuncInfo, InterpreterOptions};

/// What an instruction may touch beyond its frame.
/// `'h` is the handler's own lifetime, kept apart because a `&mut` to a
/// trait object cannot shorten it.
pub(super) struct Effects<'a, 'h> {
    pub(super) memory: &'a mut Memory,
    pub(super) output: &'a mut Vec<String>,
    pub(super) options: &'a InterpreterOptions,
    pub(super) foreign: Option<&'a mut (dyn ForeignHandler + 'h)>,
    /// The module, whose functions a builtin may call.
    pub(super) module: &'a Module,
}

/// The instruction being executed, and where.
struct At<'a> {
    func: &'a Function,
    info: &'a FuncInfo,
    inst: Inst,
}

impl At<'_> {
    fn get(&self, frame: &Frame, value: Value) -> Result<RuntimeValue, TrapKind> {
        read(self.func, self.info, frame, value)
    }

    fn get_all(&self, frame: &Frame, values: &[Value]) -> Result<Vec<RuntimeValue>, TrapKind> {
        values.iter().map(|&v| self.get(frame, v)).collect()
    }

    fn result_type(&self, n: usize) -> Result<&Type, TrapKind> {
        let dfg = &self.func.dfg;
        dfg.inst_results(self.inst)
            .get(n)
            .map(|&r| dfg.value_type(r))
            .ok_or_else(|| TrapKind::Malformed(format!("{} lacks result {n}", self.inst)))
    }
}

/// Executes one instruction of the frame.
pub(super) fn exec_inst(
    func: &Function,
    info: &FuncInfo,
    frame: &mut Frame,
    inst: Inst,
    effects: &mut Effects<'_, '_>,
) -> Result<Flow, TrapKind> {
    use InstructionData as I;
    let at = At { func, info, inst };
    let options = effects.options;
    let value = match &func.dfg[inst] {
        I::Binary { op, lhs, rhs } => {
            let (a, b) = (at.get(frame, *lhs)?, at.get(frame, *rhs)?);
            let enabled = frame.predicate;
            Some(ops::binary(
                *op,
                &a,
                &b,
                enabled,
                &options.noise,
                options.check_noise,
            )?)
        }
        I::Not { arg } => Some(ops::not(&at.get(frame, *arg)?)?),
        I::Cast { arg, ty } => Some(ops::cast(&at.get(frame, *arg)?, ty)?),
        I::Truncate { arg, bits, .. } => Some(ops::truncate(&at.get(frame, *arg)?, *bits)?),
        I::Allocate | I::Load { .. } | I::Store { .. } => memory(&at, frame, effects.memory)?,
        I::ArraySet {
            array: operand,
            mutable: true,
            ..
        } if frame.predicate && !func.is_brillig() => {
            // Written in place, as Noir's interpreter runs it in constrained
            // code: the operand names the written array from here on.
            let written = array(&at, frame, effects.memory)?;
            let operand = func.dfg.resolve(*operand);
            if frame.values[operand].is_some() {
                frame.values[operand] = Some(written.clone());
            }
            Some(written)
        }
        I::MakeArray { .. } | I::ArrayGet { .. } | I::ArraySet { .. } => {
            Some(array(&at, frame, effects.memory)?)
        }
        I::Constrain { .. } | I::RangeCheck { .. } | I::EnableSideEffects { .. } => {
            check(&at, frame)?;
            None
        }
        I::IfElse {
            then_condition,
            then_value,
            else_value,
            ..
        } => Some(if at.get(frame, *then_condition)?.is_true() {
            at.get(frame, *then_value)?
        } else {
            at.get(frame, *else_value)?
        }),
        I::Call { callee, args } => return call(&at, frame, *callee, args, effects),
        I::Encode { .. } | I::Decode { .. } | I::ReduceNoise { .. } => {
            Some(noisy(&at, frame, options)?)
        }
        I::IncRc { .. } | I::DecRc { .. } | I::Nop => None,
    };
    if let Some(value) = value {
        match func.dfg.first_result(inst) {
            Some(result) => frame.values[result] = Some(value),
            None => {
                return Err(TrapKind::Malformed(format!(
                    "`{}` ({inst}) has no result",
                    func.dfg[inst].opcode_name()
                )))
            }
        }
    }
    Ok(Flow::Next)
}

/// `allocate`, `load`, `store`.
fn memory(
    at: &At<'_>,
    frame: &Frame,
    memory: &mut Memory,
) -> Result<Option<RuntimeValue>, TrapKind> {
    use InstructionData as I;
    let enabled = frame.predicate;
    match &at.func.dfg[at.inst] {
        I::Load { address } => {
            let address = at.get(frame, *address)?;
            let RuntimeValue::Ref(id) = address else {
                return Err(TrapKind::TypeError(format!("load from {address}")));
            };
            Ok(Some(match memory.get(id) {
                Some(Some(v)) => v.clone(),
                _ if enabled => return Err(TrapKind::LoadOfUninitialized { reference: address }),
                _ => zero(at.result_type(0)?, memory)?,
            }))
        }
        I::Store { value, address } => {
            let (value, address) = (at.get(frame, *value)?, at.get(frame, *address)?);
            let RuntimeValue::Ref(id) = address else {
                return Err(TrapKind::TypeError(format!("store to {address}")));
            };
            if enabled {
                match memory.get_mut(id) {
                    Some(cell) => *cell = Some(value),
                    None => {
                        return Err(TrapKind::TypeError(format!(
                            "store to {address}, which was never allocated"
                        )))
                    }
                }
            }
            Ok(None)
        }
        _ => {
            let ty = at.result_type(0)?;
            let Some(pointee) = ty.pointee() else {
                return Err(TrapKind::TypeError(format!("allocate of {ty}")));
            };
            Ok(Some(RuntimeValue::Ref(memory.allocate(pointee, None))))
        }
    }
}

/// `make_array`, `array_get`, `array_set`.
fn array(at: &At<'_>, frame: &Frame, memory: &mut Memory) -> Result<RuntimeValue, TrapKind> {
    use InstructionData as I;
    // In `acir` functions, nested arrays may be numbered by leaf.
    let flat = at.func.array_indexing(at.inst) == Indexing::Flat;
    match &at.func.dfg[at.inst] {
        I::MakeArray { elements, ty } => {
            let elements = at.get_all(frame, elements)?;
            if flat {
                return flat::from_leaves(ty, elements);
            }
            let Some(types) = ty.element_types() else {
                return Err(TrapKind::TypeError(format!(
                    "make_array of type {ty}, which is not an array"
                )));
            };
            Ok(RuntimeValue::Array {
                elements: Arc::new(elements),
                types: Arc::from(types),
            })
        }
        I::ArrayGet { array, index } => array_get(at, frame, memory, (*array, *index), flat),
        I::ArraySet {
            array,
            index,
            value,
            ..
        } => array_set(at, frame, (*array, *index, *value), flat),
        other => Err(TrapKind::Malformed(format!(
            "`{}` is not an array instruction",
            other.opcode_name()
        ))),
    }
}

/// `array_get` of `(array, index)`, by leaf when `flat`. Under predicate 0,
/// as Noir's interpreter: an index that is not a constant inside the array
/// reads the first element (leaf) of the result's type (where Noir's ACIR
/// reads under a false predicate), or zero from an array without one.
fn array_get(
    at: &At<'_>,
    frame: &Frame,
    memory: &mut Memory,
    (array, index): (Value, Value),
    flat: bool,
) -> Result<RuntimeValue, TrapKind> {
    let enabled = frame.predicate;
    let index_is_constant = at.func.dfg.const_value(index).is_some();
    let array_ty = at.func.dfg.value_type(array);
    let (array, index) = (at.get(frame, array)?, at.get(frame, index)?);
    let RuntimeValue::Array { elements, .. } = &array else {
        return Err(TrapKind::TypeError(format!("array_get from {array}")));
    };
    let ty = at.result_type(0)?;
    let (element, len) = match ops::index_of(&index)? {
        Some(i) if flat => (flat::get(&array, array_ty, i), flat::len(array_ty)),
        Some(i) => (elements.get(i), elements.len()),
        None if flat => (None, flat::len(array_ty)),
        None => (None, elements.len()),
    };
    match element {
        Some(element) if enabled || index_is_constant => {
            // In an array of tuples, a dynamic index may land on an
            // element of another type than the one the result names.
            if ty.contains_reference() && !memory.has_type(element, ty) {
                return Err(TrapKind::TypeError(format!(
                    "array_get of {element} where the result is a `{ty}`"
                )));
            }
            Ok(element.clone())
        }
        None if enabled => Err(TrapKind::IndexOutOfBounds { index, len }),
        _ => {
            let of_type = |e: &RuntimeValue| memory.has_type(e, ty);
            let first = if flat {
                flat::first_leaf(&array, &of_type)
            } else {
                elements.iter().find(|e| of_type(e))
            };
            match first {
                Some(element) => Ok(element.clone()),
                None => zero(ty, memory),
            }
        }
    }
}

// FIXME: Noir's interpreter runs `array_set mut` in place in constrained
// code, so every value sharing the array sees the write; here only the
// operand is rebound to the written array (see `exec_inst`), and its copies
// (block arguments, arrays it was nested in, cells it was stored in) keep
// the old contents. In unconstrained code Noir writes in place whenever the
// array's reference count is 1 (`mut` or not), which is not tracked here:
// every unconstrained write copies. Matching both needs arrays shared by
// identity, with their counts, in `RuntimeValue`.
/// `array_set` of `(array, index, value)`, by leaf when `flat`; under
/// predicate 0 the array is unchanged.
fn array_set(
    at: &At<'_>,
    frame: &Frame,
    (array, index, value): (Value, Value, Value),
    flat: bool,
) -> Result<RuntimeValue, TrapKind> {
    let array_ty = at.func.dfg.value_type(array);
    let (mut array, index) = (at.get(frame, array)?, at.get(frame, index)?);
    let value = at.get(frame, value)?;
    let len = match &array {
        RuntimeValue::Array { .. } if flat => flat::len(array_ty),
        RuntimeValue::Array { elements, .. } => elements.len(),
        _ => return Err(TrapKind::TypeError(format!("array_set on {array}"))),
    };
    let Some(i) = ops::index_of(&index)?.filter(|&i| i < len) else {
        return if frame.predicate {
            Err(TrapKind::IndexOutOfBounds { index, len })
        } else {
            Ok(array)
        };
    };
    if !frame.predicate {
        return Ok(array);
    }
    if flat {
        if !flat::set(&mut array, array_ty, i, value) {
            return Err(TrapKind::TypeError(format!(
                "array_set on {array}, which is not a `{array_ty}`"
            )));
        }
    } else if let RuntimeValue::Array { elements, .. } = &mut array {
        Arc::make_mut(elements)[i] = value;
    }
    Ok(array)
}

/// `constrain`, `range_check`, `enable_side_effects`.
fn check(at: &At<'_>, frame: &mut Frame) -> Result<(), TrapKind> {
    use InstructionData as I;
    let enabled = frame.predicate;
    match &at.func.dfg[at.inst] {
        I::Constrain {
            lhs,
            rhs,
            equal,
            message,
        } => {
            let (a, b) = (at.get(frame, *lhs)?, at.get(frame, *rhs)?);
            if enabled && (a == b) != *equal {
                let message = match message.as_deref() {
                    None => None,
                    Some(AssertMessage::Static(text)) => Some(text.clone()),
                    Some(AssertMessage::Data(payload)) => {
                        let values = at.get_all(frame, payload)?;
                        let texts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                        Some(format!("data {}", texts.join(", ")))
                    }
                };
                return Err(TrapKind::ConstrainFailed {
                    lhs: a,
                    rhs: b,
                    equal: *equal,
                    message,
                });
            }
        }
        I::RangeCheck { arg, bits, .. } => {
            let v = at.get(frame, *arg)?;
            if !ops::fits_bits(&v, *bits)? && enabled {
                return Err(TrapKind::RangeCheckFailed {
                    value: v,
                    bits: *bits,
                });
            }
        }
        I::EnableSideEffects { condition } => {
            let c = at.get(frame, *condition)?;
            if !matches!(c, RuntimeValue::Int { .. } | RuntimeValue::Field(_)) {
                return Err(TrapKind::TypeError(format!(
                    "enable_side_effects condition {c} is not a number"
                )));
            }
            frame.predicate = c.is_true();
        }
        _ => {}
    }
    Ok(())
}

/// `call`: a function of the module (through its id or a value of type
/// `function`) becomes a new frame; a builtin or an oracle gives its
/// results here. Under predicate 0 nothing runs and the results are zero.
fn call(
    at: &At<'_>,
    frame: &mut Frame,
    callee: Callee,
    args: &[Value],
    effects: &mut Effects<'_, '_>,
) -> Result<Flow, TrapKind> {
    let dfg = &at.func.dfg;
    let results = dfg.inst_results(at.inst);
    if !frame.predicate {
        for &result in results {
            let zero = zero(dfg.value_type(result), effects.memory)?;
            frame.values[result] = Some(zero);
        }
        return Ok(Flow::Next);
    }
    let operands = args;
    let args = at.get_all(frame, args)?;
    let result_types: Vec<Type> = results.iter().map(|&r| dfg.value_type(r).clone()).collect();
    let values = match callee {
        Callee::Builtin(Builtin::SliceEnumerate) => {
            let call = EnumerateCall {
                module: effects.module,
                args,
                operand_types: operands
                    .iter()
                    .map(|&v| dfg.value_type(v).clone())
                    .collect(),
                unconstrained: at.func.is_brillig(),
            };
            match enumerate::start(call)? {
                Step::Call(enumeration, closure, args) => {
                    frame.enumeration = Some(enumeration);
                    return Ok(Flow::Call(closure, args));
                }
                Step::Done(values) if values.len() == results.len() => values,
                Step::Done(_) => {
                    return Err(TrapKind::TypeError(format!(
                        "`{}` gives 2 values, the call names {}",
                        Builtin::SliceEnumerate,
                        results.len()
                    )))
                }
            }
        }
        Callee::Function(callee) => return Ok(Flow::Call(callee, args)),
        Callee::Value(value) => match at.get(frame, value)? {
            RuntimeValue::Function(callee) => return Ok(Flow::Call(callee, args)),
            other => return Err(TrapKind::TypeError(format!("call of {other}"))),
        },
        Callee::Builtin(builtin) => {
            let brillig = at.func.is_brillig();
            let values = builtins::call(builtin, args, &result_types, brillig, effects.output)?;
            if values.len() != results.len() {
                return Err(TrapKind::TypeError(format!(
                    "`{builtin}` gives {} value(s), the call names {}",
                    values.len(),
                    results.len()
                )));
            }
            values
        }
        Callee::Foreign(id) => {
            let call = ForeignCall {
                name: dfg.foreign_name(id),
                args: &args,
                result_types: &result_types,
            };
            foreign(&call, effects)?
        }
    };
    for (&result, value) in results.iter().zip(values) {
        frame.values[result] = Some(value);
    }
    Ok(Flow::Next)
}

/// The results of an oracle call from the run's handler, checked against
/// the call's result types.
fn foreign(
    call: &ForeignCall<'_>,
    effects: &mut Effects<'_, '_>,
) -> Result<Vec<RuntimeValue>, TrapKind> {
    let failed = |reason: String| TrapKind::ForeignFailed {
        name: call.name.to_string(),
        reason,
    };
    let Some(handler) = effects.foreign.as_deref_mut() else {
        return Err(TrapKind::NoForeignHandler {
            name: call.name.to_string(),
        });
    };
    let mut memory = ForeignMemory {
        memory: effects.memory,
    };
    let values = handler.call(call, &mut memory).map_err(failed)?;
    if values.len() != call.result_types.len() {
        return Err(failed(format!(
            "{} value(s) given, the call names {}",
            values.len(),
            call.result_types.len()
        )));
    }
    for (value, ty) in values.iter().zip(call.result_types) {
        if !memory.memory.has_type(value, ty) {
            return Err(failed(format!("{value} given where the call names `{ty}`")));
        }
    }
    Ok(values)
}

/// `encode`, `decode`, `reduce_noise`.
fn noisy(
    at: &At<'_>,
    frame: &Frame,
    options: &InterpreterOptions,
) -> Result<RuntimeValue, TrapKind> {
    use InstructionData as I;
    let noise = &options.noise;
    match &at.func.dfg[at.inst] {
        I::Encode { arg } => {
            let plaintext = ops::plaintext_of(&at.get(frame, *arg)?)?;
            ops::check_noise(plaintext, noise.encode_bits, noise, options.check_noise)
        }
        I::Decode { arg } => match at.get(frame, *arg)? {
            RuntimeValue::Noisy { plaintext, .. } => {
                Ok(RuntimeValue::unsigned(5, u128::from(plaintext)))
            }
            other => Err(TrapKind::TypeError(format!("decode of {other}"))),
        },
        I::ReduceNoise { arg } => match at.get(frame, *arg)? {
            RuntimeValue::Noisy { plaintext, .. } => {
                ops::check_noise(plaintext, noise.encode_bits, noise, options.check_noise)
            }
            other => Err(TrapKind::TypeError(format!("reduce_noise of {other}"))),
        },
        other => Err(TrapKind::Malformed(format!(
            "`{}` is not a noisy instruction",
            other.opcode_name()
        ))),
    }
}
