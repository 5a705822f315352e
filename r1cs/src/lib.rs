//! Exact rank-1 constraint systems of IR blocks over BN254, their witnesses
//! from the interpreter, and per-block proofs.
#![deny(missing_docs)]

pub mod calibrate;
pub mod lower;
pub mod memory;
#[cfg(feature = "prove")]
pub mod prove;
#[cfg(feature = "prove")]
pub mod run;
pub mod system;
pub mod trace;
#[cfg(feature = "prove")]
pub mod verify;

pub use lower::{assign_block, lower_block, LowerError, LowerOptions};
pub use system::{
    AccessKind, Assignment, Constraint, ConstraintSystem, Interface, Lc, MemoryAccess, Origin,
    Output, Source, Space, Var,
};

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
