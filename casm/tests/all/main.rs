//! The integration tests of `kildall-casm`, one binary with a module per
//! subject (one link step instead of one per file). The data they read is
//! in `tests/data` and `tests/fuzz_regressions`; `programs` and
//! `fuzz_smoke` also read the workspace's `examples/casm`.

mod common;
mod constructs;
mod differential;
mod entry_closure;
mod fuzz_smoke;
mod golden;
mod lowering;
mod lying_hints;
mod malformed;
mod no_terms;
mod output_builtin;
mod programs;
mod refused;
mod traps;
