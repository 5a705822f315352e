//! Miden MAST forest: nodes, Miden-compatible digests, and a binary format whose decoder treats its input as hostile.
#![deny(missing_docs)]
