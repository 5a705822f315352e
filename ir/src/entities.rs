//! Typed entity references. Each is a `u32` index into a `PrimaryMap` owned by
//! the [`DataFlowGraph`](crate::DataFlowGraph) or the [`Module`](crate::Module);
//! its `Display` is the name the text format uses (`b2`, `v3`, `f0`).

use cranelift_entity::entity_impl;

/// A basic block of a function, written `bN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Block(u32);
entity_impl!(Block, "b");

/// An SSA value: a block parameter, an instruction result or a constant, written `vN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An instruction. Instructions have no name in the text format; `Display`
/// writes `instN`, for diagnostics only.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A function of a [`Module`](crate::Module), written `fN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FuncId(u32);
entity_impl!(FuncId, "f");

/// A global of a [`Module`](crate::Module), written `gN`: a constant or a
/// constant array every function may use as an operand.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GlobalId(u32);
entity_impl!(GlobalId, "g");

/// A foreign (oracle) function a function calls by name, `call oracle_get()`:
/// an index into its [`DataFlowGraph`](crate::DataFlowGraph)'s table of
/// names. `Display` writes `foreignN`, for diagnostics only.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ForeignId(u32);
entity_impl!(ForeignId, "foreign");
