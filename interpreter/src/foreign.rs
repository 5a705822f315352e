//! Foreign (oracle) functions: the hook through which a run answers
//! `call oracle_get(v0) -> Field`. The IR knows an oracle by its name only,
//! so its results come from outside the program: the caller of
//! [`interpret_with_foreign`](super::interpret_with_foreign) supplies a
//! [`ForeignHandler`], and a run without one traps at the first oracle call
//! with [`TrapKind::NoForeignHandler`](super::TrapKind::NoForeignHandler),
//! naming the oracle.
//!
//! An oracle may return references and be given them: the handler reads,
//! writes and allocates cells through [`ForeignMemory`], the run's own
//! memory.

use kildall_ir::Type;

use super::memory::Memory;
use super::value::RuntimeValue;

/// One call of a foreign function.
pub struct ForeignCall<'a> {
    /// The oracle's name, as the call writes it.
    pub name: &'a str,
    /// The arguments.
    pub args: &'a [RuntimeValue],
    /// The result types the call names, one per result the handler gives.
    pub result_types: &'a [Type],
}

/// Answers the foreign calls of a run.
pub trait ForeignHandler {
    /// The results of `call`, one per result type, or why the oracle
    /// refuses (the run traps with the reason).
    fn call(
        &mut self,
        call: &ForeignCall<'_>,
        memory: &mut ForeignMemory<'_>,
    ) -> Result<Vec<RuntimeValue>, String>;
}

/// The memory of the run, as an oracle sees it. Its cells are typed, as
/// the program's are: a reference the handler gives back must name a cell
/// of the pointee type the call names, or the run traps.
pub struct ForeignMemory<'a> {
    pub(super) memory: &'a mut Memory,
}

impl ForeignMemory<'_> {
    /// A fresh cell of values of type `pointee`, holding `initial` (never
    /// stored when `None`).
    pub fn allocate(&mut self, pointee: &Type, initial: Option<RuntimeValue>) -> RuntimeValue {
        RuntimeValue::Ref(self.memory.allocate(pointee, initial))
    }

    /// What the cell `reference` holds, if it is a stored cell.
    pub fn load(&self, reference: &RuntimeValue) -> Option<&RuntimeValue> {
        let RuntimeValue::Ref(id) = reference else {
            return None;
        };
        self.memory.get(*id)?.as_ref()
    }

    /// Writes `value` into the cell `reference`; false if it is not a cell
    /// of the run or `value` is not of the cell's type.
    pub fn store(&mut self, reference: &RuntimeValue, value: RuntimeValue) -> bool {
        let RuntimeValue::Ref(id) = reference else {
            return false;
        };
        if !self.memory.holds(*id, &value) {
            return false;
        }
        match self.memory.get_mut(*id) {
            Some(cell) => {
                *cell = Some(value);
                true
            }
            None => false,
        }
    }

    /// Whether `value` has type `ty`, its references naming cells of their
    /// pointee types.
    pub fn has_type(&self, value: &RuntimeValue, ty: &Type) -> bool {
        self.memory.has_type(value, ty)
    }
}
