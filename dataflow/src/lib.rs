//! A generic Kildall fixed-point solver: lattices, [`Forward`]/[`Backward`]
//! directions, a worklist that yields the earliest pending block of a
//! loop-aware reverse post-order ([`LoopStructure`]), block-entry [`Results`]
//! (kept at every block, or only where states meet: [`StatesKept`]) and a
//! [`ResultsCursor`] for the states inside blocks. An analysis with sparse
//! effects runs on a [`SparseGraph`] and visits only the instructions it
//! declared ([`sparse`]); [`pmap`] makes persistent states cheap to copy.
//! A backward analysis that declares loop invariants
//! ([`Analysis::loop_invariant`]) is settled on a reducible graph with one
//! visit per block, over its [`LoopForest`].
//!
//! The design follows rustc's `rustc_mir_dataflow`: an [`Analysis`] names
//! its [`Domain`](Analysis::Domain) (a [`JoinSemiLattice`]), its
//! [`Direction`] as a type, its bottom value and start state, and the
//! effects of instructions, terminators and edges; the [`Engine`] iterates
//! to the fixed point (Kildall, "A unified approach to global program
//! optimization", POPL 1973) and keeps only the state at each block's
//! entry (or at the joins only). The solver core is generic over a small
//! [`Graph`] trait, the graph core's [`kildall_graph::Graph`] with
//! instructions, and takes the order it visits blocks in and the loops it
//! settles from the graph when the graph keeps them. With the default
//! feature `ir`, a function with its analyses is one ([`FunctionGraph`])
//! and the stock [`Liveness`] analysis is available.
//!
//! ```
//! # #[cfg(feature = "ir")] {
//! use kildall_dataflow::{liveness, FunctionGraph};
//! use kildall_ir::pass::FunctionAnalyses;
//! use kildall_ir::{FuncCursor, Function, Type};
//!
//! let mut func = Function::new("f");
//! let mut cur = FuncCursor::new(&mut func);
//! let b0 = cur.append_block();
//! let x = cur.func.dfg.append_block_param(b0, Type::U32);
//! cur.goto_bottom(b0);
//! let y = cur.binary(kildall_ir::BinaryOp::UncheckedAdd, x, x);
//! cur.ret(vec![y]);
//!
//! let mut analyses = FunctionAnalyses::new();
//! let graph = FunctionGraph::new(&func, &mut analyses);
//! let mut results = liveness(&graph);
//! let mut cursor = results.as_cursor(&graph);
//! assert!(cursor.seek_to_block_start(b0).contains(x));
//! assert!(!cursor.seek_before_terminator(b0).contains(x));
//! # }
//! ```
#![deny(missing_docs)]

mod analysis;
mod cursor;
mod engine;
#[cfg(feature = "ir")]
mod ir;
pub mod lattice;
mod order;
pub mod pmap;
pub mod sparse;

pub use analysis::{Analysis, Backward, Direction, Forward, Graph, LoopStructure, StatesKept};
pub use cursor::{ProgramPoint, ResultsCursor};
pub use engine::{Engine, Results, Stats};
#[cfg(feature = "ir")]
pub use ir::{liveness, FunctionGraph, Liveness};
pub use kildall_graph::{Loop, LoopForest, PostOrder};
pub use lattice::{
    BitSet, Flat, HasBottom, HasTop, JoinSemiLattice, MapLattice, Max, Min, Must, PowerSet,
};
pub use order::Worklist;
pub use sparse::{EffectId, Effects, SparseGraph};

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
