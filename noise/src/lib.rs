//! Noise analysis for noisy integer arithmetic and placement of the fewest `reduce_noise` operations.
#![deny(missing_docs)]
