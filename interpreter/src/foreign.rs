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

use super::value::{RefId, RuntimeValue};

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

/// The memory of the run, as an oracle sees it.
pub struct ForeignMemory<'a> {
    pub(super) cells: &'a mut Vec<Option<RuntimeValue>>,
}

impl ForeignMemory<'_> {
    /// A fresh cell holding `initial` (never stored when `None`).
    pub fn allocate(&mut self, initial: Option<RuntimeValue>) -> RuntimeValue {
        self.cells.push(initial);
        RuntimeValue::Ref(RefId((self.cells.len() - 1) as u32))
    }

    /// What the cell `reference` holds, if it is a stored cell.
    pub fn load(&self, reference: &RuntimeValue) -> Option<&RuntimeValue> {
        let RuntimeValue::Ref(RefId(id)) = reference else {
            return None;
        };
        self.cells.get(*id as usize)?.as_ref()
    }

    /// Writes `value` into the cell `reference`; false if it is not a cell
    /// of the run.
    pub fn store(&mut self, reference: &RuntimeValue, value: RuntimeValue) -> bool {
        let RuntimeValue::Ref(RefId(id)) = reference else {
            return false;
        };
        match self.cells.get_mut(*id as usize) {
            Some(cell) => {
                *cell = Some(value);
                true
            }
            None => false,
        }
    }
}
