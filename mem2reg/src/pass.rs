//! The pass behind the workspace's one pass interface.

use std::convert::Infallible;

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::Function;

use crate::{run_with_analyses, Options, Stats};

/// Memory to registers: [`run_with_analyses`] as a [`FunctionPass`].
pub struct Mem2Reg;

impl FunctionPass for Mem2Reg {
    const NAME: &'static str = "mem2reg";
    type Options = Options;
    type Report = Stats;
    type Error = Infallible;

    /// Promotion may split edges; `analyses` follow the function.
    fn run(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options,
    ) -> Result<Stats, Infallible> {
        Ok(run_with_analyses(func, analyses, options))
    }
}
