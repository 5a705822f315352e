//! Execution on the real Cairo VM (the `cairo-vm` crate).
//!
//! The program goes through its JSON form, exactly as a file written by
//! `casm compile --json` would, so the tests exercise what the VM loads.
//! Hints run in `cairo-vm`'s builtin hint processor.

use cairo_vm::cairo_run::{cairo_run_program, CairoRunConfig};
use cairo_vm::hint_processor::builtin_hint_processor::builtin_hint_processor_definition::BuiltinHintProcessor;
use cairo_vm::types::layout_name::LayoutName;
use cairo_vm::types::program::Program as VmProgram;
use cairo_vm::types::relocatable::MaybeRelocatable;

use crate::asm::{Mode, Program};
use crate::felt::Felt;
use crate::interp::RunResult;

/// A failure reported by the Cairo VM, as its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cairo-vm: {0}")]
pub struct VmError(pub String);

/// Runs `prog` on the Cairo VM; returns `[ap - 1]` at the end and the
/// VM's step count (padded to a power of two in proof mode).
pub fn run(prog: &Program) -> Result<RunResult, VmError> {
    let json = prog.to_json().to_string();
    let program =
        VmProgram::from_bytes(json.as_bytes(), Some("main")).map_err(|e| VmError(e.to_string()))?;
    let proof = prog.mode == Mode::Proof;
    let config = CairoRunConfig {
        entrypoint: "main",
        layout: LayoutName::plain,
        proof_mode: proof,
        trace_enabled: proof,
        relocate_mem: proof,
        ..CairoRunConfig::default()
    };
    let mut hints = BuiltinHintProcessor::new_empty();
    let runner =
        cairo_run_program(&program, &config, &mut hints).map_err(|e| VmError(e.to_string()))?;
    let ap = runner.vm.get_ap();
    let ret = (ap - 1usize).map_err(|e| VmError(e.to_string()))?;
    let value = match runner.vm.get_maybe(&ret) {
        Some(MaybeRelocatable::Int(f)) => f,
        other => return Err(VmError(format!("no integer result at [ap - 1]: {other:?}"))),
    };
    let limbs = value.to_le_digits();
    let mut felt = Felt::ZERO;
    let two64 = Felt::from_u128(1u128 << 64);
    for l in limbs.iter().rev() {
        felt = felt * two64 + Felt::from_u128(u128::from(*l));
    }
    Ok(RunResult {
        value: felt,
        steps: runner.vm.get_current_step() as u64,
    })
}
