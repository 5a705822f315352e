//! `vector_enumerate`: the builtin that calls a closure once per entry of
//! a slice and collects what it returns ([`kildall_ir::Enumerate`] gives
//! the operands and the semantics).
//!
//! The closure is a function of the module, so each of its calls runs in a
//! frame of the interpreter's own stack, as a call through a `function`
//! value does: the calling frame keeps an [`Enumeration`] while a closure
//! call runs, and each return either starts the next call or, after the
//! last, gives the call its results. A closure's side effects (prints,
//! stores through references it is given, traps) happen in the order of
//! the calls, ascending or, with the reverse flag, descending.

use std::sync::Arc;

use kildall_ir::{Builtin, Enumerate, FuncId, Module, Type};

use super::memory::Memory;
use super::ops::index_of;
use super::trap::TrapKind;
use super::value::{RuntimeValue, MAX_ZERO_ARRAY_ELEMENTS};

/// A `vector_enumerate` between two closure calls.
pub(super) struct Enumeration {
    closure: FuncId,
    /// The closure's arguments but for the iteration index, which goes to
    /// the positions `index_slots`.
    arguments: Vec<RuntimeValue>,
    index_slots: Vec<usize>,
    /// The index of the call running, and of the calls still to make
    /// (consumed from the front, or from the back when reversed).
    current: usize,
    remaining: std::ops::Range<usize>,
    reverse: bool,
    entry_type: Type,
    length: RuntimeValue,
    /// The slice being written: entry `i` is replaced by call `i`'s value.
    entries: Vec<RuntimeValue>,
    types: Arc<[Type]>,
}

/// What comes after a step of an enumeration.
pub(super) enum Step {
    /// Call the closure on these arguments.
    Call(Box<Enumeration>, FuncId, Vec<RuntimeValue>),
    /// The call is done: its results.
    Done(Vec<RuntimeValue>),
}

/// What the interpreter knows of a `vector_enumerate` call when it starts.
pub(super) struct EnumerateCall<'a> {
    pub(super) module: &'a Module,
    /// The operands' values and static types.
    pub(super) args: Vec<RuntimeValue>,
    pub(super) operand_types: Vec<Type>,
    /// Whether the caller is unconstrained (it calls the second closure).
    pub(super) unconstrained: bool,
}

fn failure(reason: String) -> TrapKind {
    TrapKind::Builtin {
        builtin: Builtin::SliceEnumerate.name(),
        reason,
    }
}

/// Starts a `vector_enumerate` call: binds the closure's parameters to
/// the operands offered and makes the first call (or, for an empty
/// slice, gives the results at once).
pub(super) fn start(call: EnumerateCall<'_>) -> Result<Step, TrapKind> {
    let EnumerateCall {
        module,
        args,
        operand_types,
        unconstrained,
    } = call;
    let layout = Enumerate::new(args.len())
        .ok_or_else(|| failure(format!("{} operand(s) are too few", args.len())))?;
    let closure = match &args[layout.closure(unconstrained)] {
        RuntimeValue::Function(closure) => *closure,
        other => return Err(failure(format!("the closure {other} is not a function"))),
    };
    let Some(params) = module.functions.get(closure).map(|f| f.param_types()) else {
        return Err(TrapKind::UnknownFunction { function: closure });
    };
    let offered = layout.offered_types(&operand_types);
    let binding = Enumerate::bind(&offered, &params)
        .map_err(|reason| failure(format!("the closure {closure}: {reason}")))?;
    let len = index_of(&args[0])?
        .ok_or_else(|| failure(format!("the length {} is not an index", args[0])))?;
    let (elements, types) = match &args[1] {
        RuntimeValue::Array { elements, types } if types.len() == 1 => (elements, types.clone()),
        other => return Err(failure(format!("{other} is not a slice of one type"))),
    };
    if len > elements.len() && len as u64 > MAX_ZERO_ARRAY_ELEMENTS {
        return Err(failure(format!(
            "the length {len} counts more than the slice's {} entries and more than \
             {MAX_ZERO_ARRAY_ELEMENTS}, the most the interpreter builds",
            elements.len()
        )));
    }
    let entry_type = types[0].clone();
    // As Noir's expansion: a fresh slice of `len` entries when they are
    // numbers, else the operand's entries, overwritten.
    let numeric_zero = entry_type
        .is_numeric()
        .then(|| RuntimeValue::zero(&entry_type))
        .flatten();
    let entries = match numeric_zero {
        Some(zero) => vec![zero; len],
        None => elements.to_vec(),
    };
    // The iteration index is offered after the leading operands, the
    // user index after it.
    let iteration = layout.leading().len();
    let mut index_slots = Vec::new();
    let mut arguments = Vec::with_capacity(binding.len());
    for (slot, &operand) in binding.iter().enumerate() {
        if operand == iteration {
            index_slots.push(slot);
            arguments.push(RuntimeValue::unsigned(32, 0));
        } else if operand == iteration + 1 {
            arguments.push(args[layout.user_index()].clone());
        } else {
            arguments.push(args[operand].clone());
        }
    }
    let enumeration = Enumeration {
        closure,
        arguments,
        index_slots,
        current: 0,
        remaining: 0..len,
        reverse: args[layout.reverse()].is_true(),
        entry_type,
        length: args[0].clone(),
        entries,
        types,
    };
    Ok(Box::new(enumeration).next())
}

impl Enumeration {
    /// Takes the values call `current` returned and moves on.
    pub(super) fn returned(
        mut self: Box<Self>,
        values: Vec<RuntimeValue>,
        memory: &Memory,
    ) -> Result<Step, TrapKind> {
        let [value] = <[RuntimeValue; 1]>::try_from(values).map_err(|values| {
            failure(format!(
                "the closure {} returned {} value(s), expected one `{}`",
                self.closure,
                values.len(),
                self.entry_type
            ))
        })?;
        if !memory.has_type(&value, &self.entry_type) {
            return Err(failure(format!(
                "the closure {} returned {value}, expected a `{}`",
                self.closure, self.entry_type
            )));
        }
        let len = self.entries.len();
        let Some(entry) = self.entries.get_mut(self.current) else {
            return Err(TrapKind::IndexOutOfBounds {
                index: RuntimeValue::unsigned(32, self.current as u128),
                len,
            });
        };
        *entry = value;
        Ok(self.next())
    }

    /// The next call, or the results after the last.
    fn next(mut self: Box<Self>) -> Step {
        let next = if self.reverse {
            self.remaining.next_back()
        } else {
            self.remaining.next()
        };
        match next {
            Some(index) => {
                self.current = index;
                let mut args = self.arguments.clone();
                for &slot in &self.index_slots {
                    args[slot] = RuntimeValue::unsigned(32, index as u128);
                }
                let closure = self.closure;
                Step::Call(self, closure, args)
            }
            None => Step::Done(vec![
                self.length,
                RuntimeValue::Array {
                    elements: Arc::new(self.entries),
                    types: self.types,
                },
            ]),
        }
    }
}
