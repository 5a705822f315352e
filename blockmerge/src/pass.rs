//! The pass behind the workspace's one pass interface.

use std::convert::Infallible;
use std::fmt;
use std::ops::AddAssign;

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::Function;

use crate::merge::merge_function;
use crate::{Options, Report};

/// Block merging, the crate's one entry point: merges the components of
/// each function that the [`Options`] accept, round after round until
/// nothing merges (run it with [`kildall_ir::pass::run_module`]).
pub struct BlockMerge;

/// The reports of the functions a run went over, in order.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Reports(pub Vec<Report>);

impl AddAssign for Reports {
    fn add_assign(&mut self, other: Reports) {
        self.0.extend(other.0);
    }
}

/// One line: merges, blocks before and after, and the largest block after.
impl fmt::Display for Reports {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let merges: usize = self.0.iter().map(|r| r.merges.len()).sum();
        let before: usize = self.0.iter().map(|r| r.blocks_before).sum();
        let after: usize = self.0.iter().map(|r| r.blocks_after).sum();
        let largest = self.0.iter().map(|r| r.largest_after).max().unwrap_or(0);
        write!(
            f,
            "{merges} merges, blocks {before} -> {after}, largest block {largest} constraints"
        )
    }
}

impl FunctionPass for BlockMerge {
    const NAME: &'static str = "blockmerge";
    type Options = Options;
    type Report = Reports;
    type Error = Infallible;
    type ModuleFacts = ();

    /// Merging changes the control flow; `analyses` follow it.
    fn run(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options,
    ) -> Result<Reports, Infallible> {
        Ok(Reports(vec![merge_function(func, analyses, options)]))
    }
}
