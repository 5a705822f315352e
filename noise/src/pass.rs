//! The pass behind the workspace's one pass interface.

use std::fmt;
use std::ops::AddAssign;

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::Function;

use crate::levels::place_function;
use crate::{NoiseError, Options, Placement};

/// The placement of the fewest `reduce_noise`, the pass of this crate:
/// removes the existing `reduce_noise` ops of a function and places the
/// cheapest set of new ones that keeps every noisy op within the maximum
/// (see the crate's documentation for the strategies and costs). Its
/// report holds one [`Placement`] per function.
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
    type ModuleFacts = ();

    /// Reductions go inside blocks: `analyses` stay valid.
    fn run(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Options,
    ) -> Result<Placements, NoiseError> {
        Ok(Placements(vec![place_function(func, analyses, options)?]))
    }
}
