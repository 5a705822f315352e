//! The pass behind the workspace's one pass interface.

use std::fmt;
use std::ops::AddAssign;

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::Function;

use crate::{optimize_with, NoiseError, Options, Placement};

/// The placement of the fewest `reduce_noise`: [`optimize_with`] as a
/// [`FunctionPass`].
pub struct NoisePlacement;

/// The placements of the functions a run went over, in order.
#[derive(Clone, Default, Debug)]
pub struct Placements(pub Vec<Placement>);

impl AddAssign for Placements {
    fn add_assign(&mut self, other: Placements) {
        self.0.extend(other.0);
    }
}

/// `reduce_noise inserted: N, executions M`, over every function.
impl fmt::Display for Placements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inserted: usize = self.0.iter().map(|p| p.count).sum();
        let executions = self
            .0
            .iter()
            .fold(0u64, |sum, p| sum.saturating_add(p.executions));
        write!(
            f,
            "reduce_noise inserted: {inserted}, executions {executions}"
        )
    }
}

impl FunctionPass for NoisePlacement {
    const NAME: &'static str = "noise";
    type Options = Options;
    type Report = Placements;
    type Error = NoiseError;

    /// Reductions go inside blocks: `analyses` stay valid.
    fn run(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options,
    ) -> Result<Placements, NoiseError> {
        Ok(Placements(vec![optimize_with(func, analyses, options)?]))
    }
}
