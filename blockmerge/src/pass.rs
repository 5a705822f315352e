//! The pass behind the workspace's one pass interface.

use std::convert::Infallible;
use std::fmt;
use std::ops::AddAssign;

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::Function;

use crate::{run_with, summarize, Options, Report};

/// Block merging: [`run_with`] as a [`FunctionPass`].
pub struct BlockMerge;

/// The reports of the functions a run went over, in order.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Reports(pub Vec<Report>);

impl AddAssign for Reports {
    fn add_assign(&mut self, other: Reports) {
        self.0.extend(other.0);
    }
}

/// The one-line [`summarize`] of the reports.
impl fmt::Display for Reports {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&summarize(&self.0))
    }
}

impl FunctionPass for BlockMerge {
    const NAME: &'static str = "blockmerge";
    type Options = Options<'static>;
    type Report = Reports;
    type Error = Infallible;

    /// Merging changes the control flow; `analyses` follow it.
    fn run(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options<'static>,
    ) -> Result<Reports, Infallible> {
        Ok(Reports(vec![run_with(func, analyses, options)]))
    }
}
