//! Module globals, as Noir prints them before the functions:
//!
//! ```text
//! g0 = Field 1
//! g1 = make_array [g0, Field 2] : [Field; 2]
//! ```
//!
//! A global is a numeric constant or an array built from constants and
//! earlier globals. A function names one through a value whose definition is
//! [`ValueDef::Global`](crate::ValueDef::Global); that value prints as `gN`
//! and, like a constant, is defined everywhere.

use crate::{ConstValue, GlobalId, Type};

/// A global: its type and how it is built.
#[derive(Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GlobalData {
    /// The global's type.
    pub ty: Type,
    /// Its value.
    pub init: GlobalInit,
}

/// The value of a global.
#[derive(Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GlobalInit {
    /// A numeric constant of the global's type.
    Const(ConstValue),
    /// `make_array [..]`: the flattened elements of an array of the global's type.
    Array(Vec<GlobalOperand>),
}

/// An element of a global array.
#[derive(Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GlobalOperand {
    /// A numeric constant and its type.
    Const(ConstValue, Type),
    /// An earlier global.
    Global(GlobalId),
}
