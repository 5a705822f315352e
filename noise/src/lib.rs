//! Noise analysis for noisy integer arithmetic and placement of the fewest
//! `reduce_noise` operations (the noisy-arithmetic design).
//!
//! * [`NoiseParams`]: the noise model (encoding noise, maximum).
//! * [`Problem`]: the placement problem on an abstract DAG of noisy values,
//!   solved by [`solve()`] with a [`Strategy`]: an exact branch and bound of our
//!   own ([`exact`]), the design's ILP corrected ([`ilp`]), or the greedy
//!   baseline ([`greedy`]).
//! * [`analyze`] and [`verify`]: the noise analysis on the dataflow solver.
//! * [`optimize`]: removes existing reductions from a function and places
//!   new ones with the chosen strategy, minimizing the chosen [`Cost`]
//!   (reductions in the text, or the times they run). Functions are placed
//!   one at a time: what crosses a function's boundary (call arguments and
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
    analyze, passed_operands, returned_values, verify, NoiseAnalysis, NoiseMap, NoiseViolation,
};
pub use function::{
    block_executions, extract, extract_with_levels, insert_reductions,
    insert_reductions_with_exits, remove_reductions, CarriedLevels, Cost, ExitNode, Extraction,
    Options, Placement, DEFAULT_TRIP_FALLBACK,
};
pub use levels::{optimize, optimize_with};
pub use params::{NoiseParams, MAX_SUPPORTED_NOISE};
pub use pass::{NoisePlacement, Placements};
pub use problem::{Node, NodeKind, Problem, Violation};
pub use solve::{solve, Solution, Strategy};

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
