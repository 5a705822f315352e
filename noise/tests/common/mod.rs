//! What the integration tests share: the pass on one function, and the
//! verifier with fresh analyses.

use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_ir::Function;
use kildall_noise::{NoiseError, NoiseParams, NoisePlacement, NoiseViolation, Options, Placement};

/// Runs the pass on `func` alone: its one placement.
pub fn place(func: &mut Function, options: &Options) -> Result<Placement, NoiseError> {
    let mut report = NoisePlacement::run(func, &mut FunctionAnalyses::new(), options)?;
    Ok(report.0.remove(0))
}

/// The noise verifier on `func`.
pub fn verify(
    func: &Function,
    params: NoiseParams,
    input_noise: u32,
) -> Result<(), NoiseViolation> {
    kildall_noise::verify(func, &mut FunctionAnalyses::new(), params, input_noise)
}
