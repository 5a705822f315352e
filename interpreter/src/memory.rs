//! The cells of a run, each with the type of what it holds.
//!
//! A cell's type is fixed when it is allocated (`allocate -> &mut T` makes a
//! cell of `T`), and a reference is of type `&mut T` or `&T` only if it
//! names a cell of `T`. The verifier checks this everywhere the types are
//! known statically; where they are not (the arguments of a run, a call
//! through a `function` value, an oracle's results, an element read at a
//! dynamic index of an array of tuples), the interpreter checks the cells
//! and traps. So in every run, two references of different pointee types
//! name different cells, which is what lets a pass tell them apart.

use kildall_ir::Type;

use crate::{RefId, RuntimeValue};

/// The cells of a run.
#[derive(Default)]
pub(crate) struct Memory {
    /// What each cell holds; `None` until it is stored to.
    contents: Vec<Option<RuntimeValue>>,
    /// The type of what each cell holds.
    types: Vec<Type>,
}

impl Memory {
    /// A fresh cell for values of type `pointee`, holding `initial`.
    pub(crate) fn allocate(&mut self, pointee: &Type, initial: Option<RuntimeValue>) -> RefId {
        self.contents.push(initial);
        self.types.push(pointee.clone());
        RefId((self.contents.len() - 1) as u32)
    }

    /// What cell `id` holds (`Some(None)` when it was never stored to), or
    /// `None` if the run has no such cell.
    pub(crate) fn get(&self, id: RefId) -> Option<&Option<RuntimeValue>> {
        self.contents.get(id.0 as usize)
    }

    /// The content of cell `id`, to write.
    pub(crate) fn get_mut(&mut self, id: RefId) -> Option<&mut Option<RuntimeValue>> {
        self.contents.get_mut(id.0 as usize)
    }

    /// Whether `value` may be stored in cell `id`.
    pub(crate) fn holds(&self, id: RefId, value: &RuntimeValue) -> bool {
        let Some(ty) = self.types.get(id.0 as usize) else {
            return false;
        };
        self.has_type(value, ty)
    }

    /// Whether `value` has type `ty`, the references in it naming cells of
    /// their pointee types.
    pub(crate) fn has_type(&self, value: &RuntimeValue, ty: &Type) -> bool {
        value.has_type_with(ty, &|id, pointee| {
            self.types
                .get(id.0 as usize)
                .is_some_and(|cell| cell.is_same_cell_type(pointee))
        })
    }
}
