//! Noise analysis for noisy integer arithmetic and placement of the fewest
//! `reduce_noise` operations, after the noisy arithmetic of the `noisy`
//! dialect in Jeremy Kun's MLIR tutorial ("A Global Optimization and
//! Dataflow Analysis", 2023).
//!
//! * [`NoiseParams`]: the noise model (encoding noise, maximum).
//! * [`Problem`]: the placement problem on an abstract DAG of noisy values,
//!   solved by [`solve()`] with a [`Strategy`]: an exact branch and bound of our
//!   own ([`exact`]), the tutorial's ILP corrected ([`ilp`]), or the greedy
//!   baseline ([`greedy`]).
//! * [`NoiseAnalysis`] and [`verify`]: the sparse noise analysis and the
//!   verifier built on it.
//! * [`NoisePlacement`], the pass: removes existing reductions from a
//!   function and places new ones with the chosen strategy, minimizing the
//!   chosen [`Cost`] (reductions in the text, or the times they run),
//!   within a deterministic effort ([`Options::effort`]). Functions are
//!   placed one at a time: what crosses a function's boundary (call arguments and
//!   results, returned, stored and array values) is held to the input noise
//!   ([`passed_operands`], [`returned_values`]).
#![deny(missing_docs)]

pub mod analysis;
pub mod exact;
mod function;
pub mod greedy;
pub mod ilp;
mod incremental;
mod levels;
mod params;
mod pass;
mod problem;
mod solve;
mod unroll;
mod witness;

/// The README's example, run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub use analysis::{
    passed_operands, returned_values, verify, NoiseAnalysis, NoiseMap, NoiseViolation,
};
pub use function::{
    block_executions, extract, extract_with_levels, insert_reductions,
    insert_reductions_with_exits, remove_reductions, CarriedLevels, Cost, ExitNode, Extraction,
    Options, Placement, DEFAULT_EFFORT, DEFAULT_TRIP_FALLBACK,
};
pub use kildall_cover::{Budget, Progress, ProgressHook, SearchLimits, Stop};
pub use params::{NoiseParams, MAX_SUPPORTED_NOISE};
pub use pass::{NoisePlacement, Placements};
pub use problem::{Node, NodeKind, Problem, Violation};
pub use solve::{solve, Solution, Strategy, ILP_TIME_LIMIT};

/// Errors of the noise analysis and placement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoiseError {
    /// The parameters are out of range.
    #[error("invalid noise parameters: encoding noise {encode}, maximum {max} (need encode <= max <= 63)")]
    InvalidParams {
        /// The encoding noise.
        encode: u32,
        /// The maximum.
        max: u32,
    },
    /// No placement keeps a value within its bound.
    #[error("no placement of reduce_noise keeps {value} legal: it has {noise} bits with its inputs reduced, over {bound}")]
    Unplaceable {
        /// The value.
        value: kildall_ir::Value,
        /// Its least noise.
        noise: u32,
        /// The bound.
        bound: u32,
    },
}
