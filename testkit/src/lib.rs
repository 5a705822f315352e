//! What the tests of the Kildall crates share, with no dependency of its
//! own: a seeded random stream that names the same input on every platform
//! ([`Rng`]), blessable data-driven tests ([`expect`]), and what the
//! process used ([`measure`]), for the scale examples.
//!
//! It is a normal dependency of the crates whose generators draw from
//! [`Rng`] (a seed printed by a fuzzer or a benchmark must name the same
//! program in every crate), and a dev-dependency of the others.

pub mod expect;
pub mod measure;
mod rng;

pub use rng::Rng;
