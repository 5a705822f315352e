//! SSA intermediate representation: entity-indexed arenas, a Noir-compatible
//! text format, a verifier, and the control-flow analyses (CFG, dominator
//! trees, loops) behind the pass interface.
//!
//! The interpreter that gives the IR its meaning is the
//! `kildall-interpreter` crate; program generators and the differential
//! oracle of pass tests are `kildall-harness`.
//!
//! The layout follows Cranelift's: typed `u32` entity references
//! ([`Block`], [`Value`], [`Inst`], [`FuncId`]) index arenas owned by the
//! [`DataFlowGraph`]; the order of blocks and instructions lives apart in the
//! [`Layout`]. A [`Function`] owns both; a [`Module`] owns functions.
#![deny(missing_docs)]

mod builder;
mod builtin;
pub mod cfg;
mod constant;
mod dfg;
pub mod dominators;
mod entities;
pub mod flat;
mod function;
mod global;
mod instructions;
mod layout;
pub mod loops;
pub mod parallel;
mod parser;
pub mod pass;
pub mod plaintext;
mod types;
mod verifier;
mod write;

pub use builder::{CursorPosition, FuncCursor};
pub use builtin::{BlackBox, Builtin, BuiltinNames, Enumerate};
pub use constant::ConstValue;
pub use dfg::{BlockData, DataFlowGraph, ValueDef};
pub use entities::{Block, ForeignId, FuncId, GlobalId, Inst, Value};
pub use function::{CallData, DataBus, Function, Module, Purity, Runtime, RuntimeKind, SourceLoc};
pub use global::{GlobalData, GlobalInit, GlobalOperand};
pub use instructions::{
    AssertMessage, BinaryOp, Callee, Edge, EdgeSlot, InstructionData, Operands, Terminator,
};
pub use layout::{Blocks, Insts, Layout};
pub use parser::{
    parse_function, parse_module, parse_module_from_reader, ParseError, ParseErrorKind, ReadError,
    MAX_TYPE_DEPTH,
};
pub use types::{Type, MAX_INT_BITS};
pub use verifier::{
    verify_function, verify_module, verify_module_on, Location, ModuleVerifier, VerifierError,
    VerifierErrorKind,
};
pub use write::{DisplayFunction, DisplayInst, DisplayModuleWith, DisplayTerminator};

/// Re-exported so that users of the entity maps need no direct dependency.
pub use cranelift_entity::{EntityRef, EntitySet, PrimaryMap, SecondaryMap};

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
