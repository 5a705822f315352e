//! The registry of the workspace's passes: each behind the one pass
//! interface of [`kildall_ir::pass`], found by name, so that the command
//! line, the fuzz targets and the differential tests run the same passes
//! in the same way.
//!
//! It is the only crate that knows every pass; the passes themselves never
//! depend on each other.

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use kildall_ir::pass::{ModulePass, ModulePassError, PassReport, Registered};
use kildall_ir::Module;

/// Every pass, in the order of a typical pipeline.
pub static PASSES: [&dyn ModulePass; 3] = [
    &Registered::<kildall_mem2reg::Mem2Reg>::NEW,
    &Registered::<kildall_blockmerge::BlockMerge>::NEW,
    &Registered::<kildall_noise::NoisePlacement>::NEW,
];

/// The pass named `name`.
pub fn find(name: &str) -> Option<&'static dyn ModulePass> {
    kildall_ir::pass::find(&PASSES, name)
}

/// The names of every pass, comma-separated, for messages.
pub fn names() -> String {
    PASSES
        .iter()
        .map(|pass| pass.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a comma-separated list of pass names (blanks around names and
/// empty entries ignored).
///
/// # Errors
///
/// The first unknown name.
pub fn parse_pipeline(list: &str) -> Result<Vec<&'static dyn ModulePass>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| find(name).ok_or_else(|| name.to_string()))
        .collect()
}

/// A pass's name and what it reported.
pub type PassOutcome = (&'static str, Box<dyn PassReport>);

/// Runs `pipeline` on `module` with default options, in order; returns
/// each pass's name and report.
///
/// # Errors
///
/// The first pass that declines a function, which function, and why.
pub fn run(
    pipeline: &[&dyn ModulePass],
    module: &mut Module,
) -> Result<Vec<PassOutcome>, ModulePassError> {
    pipeline
        .iter()
        .map(|pass| Ok((pass.name(), pass.run(module)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pass_is_found_by_its_name() {
        for pass in PASSES {
            assert_eq!(find(pass.name()).map(|p| p.name()), Some(pass.name()));
        }
        assert_eq!(names(), "mem2reg, blockmerge, noise");
        assert_eq!(
            parse_pipeline(" mem2reg, ,noise")
                .unwrap()
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>(),
            ["mem2reg", "noise"]
        );
        assert_eq!(parse_pipeline("mem2reg,dce").err().as_deref(), Some("dce"));
    }
}
