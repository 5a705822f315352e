//! SSA intermediate representation: entity-indexed arenas, a Noir-compatible
//! text format, a verifier, CFG analyses, an interpreter and a program
//! generator.
//!
//! The layout follows Cranelift's: typed `u32` entity references
//! ([`Block`], [`Value`], [`Inst`], [`FuncId`]) index arenas owned by the
//! [`DataFlowGraph`]; the order of blocks and instructions lives apart in the
//! [`Layout`]. A [`Function`] owns both; a [`Module`] owns functions.
#![deny(missing_docs)]

mod builder;
pub mod cfg;
pub mod dominators;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod interpreter;
pub mod loops;
mod constant;
mod dfg;
mod entities;
mod function;
pub mod generate;
mod instructions;
mod layout;
mod parser;
mod types;
mod verifier;
mod write;

pub use builder::{CursorPosition, FuncCursor};
pub use constant::ConstValue;
pub use dfg::{BlockData, DataFlowGraph, ValueData, ValueDef};
pub use entities::{Block, FuncId, Inst, Value};
pub use function::{Function, Module, Runtime, RuntimeKind, SourceLoc};
pub use instructions::{BinaryOp, Builtin, Callee, InstructionData, Operands, Terminator};
pub use layout::{Blocks, Insts, Layout};
pub use parser::{parse_function, parse_module, ParseError, ParseErrorKind, MAX_TYPE_DEPTH};
pub use types::{Type, MAX_INT_BITS};
pub use verifier::{verify_function, verify_module, Location, VerifierError, VerifierErrorKind};
pub use write::DisplayFunction;

/// Re-exported so that users of the entity maps need no direct dependency.
pub use cranelift_entity::{EntityRef, EntitySet, PrimaryMap, SecondaryMap};
