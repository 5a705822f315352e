//! What the tests, fuzz targets and benchmarks of IR passes share, kept out
//! of the libraries they check:
//!
//! - [`generate`]: seeded random programs (structured control flow, memory,
//!   calls, noisy expression DAGs) that verify and terminate within a known
//!   fuel bound;
//! - [`testing`]: the one oracle of every pass test
//!   ([`testing::check_same_behaviour`]: the interpreter before and after,
//!   the verifier on the output), the blessable data tests of
//!   `kildall-testkit`, and random control-flow graphs, irreducible ones
//!   included;
//! - [`fuzzing`]: the fuzz harnesses, each also a seeded smoke test, and the
//!   differential harness of pass pipelines.
//!
//! Passes take this crate as a dev-dependency; it depends on none of them.
#![deny(missing_docs)]

pub mod fuzzing;
pub mod generate;
pub mod testing;

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
