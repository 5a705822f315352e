//! Memory-to-register promotion with alias tracking (Noir's mem2reg), run to a fixed point on the dataflow solver.
#![deny(missing_docs)]
