//! The pass behind the workspace's one pass interface.

use std::convert::Infallible;

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::Function;

use crate::{run_with, Options, Stats};

/// Memory to registers: [`run_with`] as a [`FunctionPass`].
pub struct Mem2Reg;

impl FunctionPass for Mem2Reg {
    const NAME: &'static str = "mem2reg";
    type Options = Options;
    type Report = Stats;
    type Error = Infallible;

    /// The control flow is unchanged, so `analyses` stay valid.
    fn run(
        func: &mut Function,
        _analyses: &mut FunctionAnalyses,
        options: &Options,
    ) -> Result<Stats, Infallible> {
        Ok(run_with(func, options))
    }
}
