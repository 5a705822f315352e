//! Execution on the real Cairo VM (the `cairo-vm` crate).
//!
//! The program goes through its JSON form, exactly as a file written by
//! `casm compile --json` would, so the tests exercise what the VM loads.
//! A program without builtins runs on cairo-vm's `plain` layout; one that
//! threads builtins runs on `all_cairo`, the layout cairo-vm ships with
//! every Cairo 0 builtin, through cairo-vm's own builtin runners.
//!
//! Hints run in [`HintRunner`], which reads each hint back from its listing
//! text and writes the answer the prover proposes. The answer is only a
//! proposal: the code after the hint checks it with the `range_check`
//! builtin, so a runner that lies ([`run_with_answers`]) makes the run fail.

use std::any::Any;

use cairo_vm::cairo_run::{cairo_run_program, CairoRunConfig};
use cairo_vm::hint_processor::builtin_hint_processor::builtin_hint_processor_definition::HintProcessorData;
use cairo_vm::hint_processor::hint_processor_definition::HintProcessorLogic;
use cairo_vm::types::exec_scope::ExecutionScopes;
use cairo_vm::types::layout_name::LayoutName;
use cairo_vm::types::program::Program as VmProgram;
use cairo_vm::types::relocatable::MaybeRelocatable;
use cairo_vm::vm::errors::hint_errors::HintError;
use cairo_vm::vm::runners::cairo_runner::ResourceTracker;
use cairo_vm::vm::vm_core::VirtualMachine;
use cairo_vm::Felt252;

use crate::asm::{Mode, Program};
use crate::felt::Felt;
use crate::interp::RunResult;
use crate::listing::{self, Hint, Instr, Val};

/// A failure reported by the Cairo VM, as its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cairo-vm: {0}")]
pub struct VmError(pub String);

/// The prover's answer to a hint, given the values of its two operands.
pub type Answer<'a> = &'a dyn Fn(&Hint, Felt, Felt) -> Vec<Felt>;

/// The hint processor: parses a hint's code (its listing text) and writes
/// `answer`'s cells from `[ap]` on.
pub struct HintRunner<'a> {
    answer: Answer<'a>,
}

impl ResourceTracker for HintRunner<'_> {}

fn to_vm(f: Felt) -> Felt252 {
    Felt252::from_hex_unchecked(&f.to_hex())
}

/// Converts a VM field element to ours.
pub fn from_vm(f: &Felt252) -> Felt {
    let mut felt = Felt::ZERO;
    let two64 = Felt::from_u128(1u128 << 64);
    for l in f.to_le_digits().iter().rev() {
        felt = felt * two64 + Felt::from_u128(u128::from(*l));
    }
    felt
}

impl HintProcessorLogic for HintRunner<'_> {
    fn execute_hint(
        &mut self,
        vm: &mut VirtualMachine,
        _scopes: &mut ExecutionScopes,
        hint_data: &Box<dyn Any>,
    ) -> Result<(), HintError> {
        let data = hint_data
            .downcast_ref::<HintProcessorData>()
            .ok_or(HintError::WrongHintData)?;
        let custom = |m: String| HintError::CustomHint(m.into_boxed_str());
        let hint = match listing::parse(&format!("  {}", data.code)) {
            Ok(l) => match l.items.as_slice() {
                [Instr::Hint(h)] => *h,
                _ => return Err(custom(format!("not a hint: {}", data.code))),
            },
            Err(e) => return Err(custom(format!("hint `{}`: {e}", data.code))),
        };
        let fp = vm.get_fp();
        let read = |v: Val| -> Result<Felt, HintError> {
            match v {
                Val::Imm(c) => Ok(c),
                Val::Mem(m) => {
                    let addr = (fp + m.off as i32).map_err(|e| custom(e.to_string()))?;
                    let f = vm.get_integer(addr).map_err(|e| custom(e.to_string()))?;
                    Ok(from_vm(&f))
                }
            }
        };
        let [a, b] = hint.operands();
        let (a, b) = (read(a)?, read(b)?);
        let ap = vm.get_ap();
        for (k, v) in (self.answer)(&hint, a, b).into_iter().enumerate() {
            vm.insert_value((ap + k).map_err(|e| custom(e.to_string()))?, to_vm(v))
                .map_err(HintError::Memory)?;
        }
        Ok(())
    }
}

/// Runs `prog` on the Cairo VM; returns the entry's result and the VM's
/// step count (padded to a power of two in proof mode).
pub fn run(prog: &Program) -> Result<RunResult, VmError> {
    run_with_answers(prog, &|h, a, b| h.answer(a, b))
}

/// [`run`] with hints answered by `answer` instead of honestly.
pub fn run_with_answers(prog: &Program, answer: Answer<'_>) -> Result<RunResult, VmError> {
    let json = prog.to_json().to_string();
    let program =
        VmProgram::from_bytes(json.as_bytes(), Some("main")).map_err(|e| VmError(e.to_string()))?;
    let proof = prog.mode == Mode::Proof;
    let layout = if prog.builtins.is_empty() {
        LayoutName::plain
    } else {
        LayoutName::all_cairo
    };
    let config = CairoRunConfig {
        entrypoint: "main",
        layout,
        proof_mode: proof,
        trace_enabled: proof,
        relocate_mem: proof,
        ..CairoRunConfig::default()
    };
    let mut hints = HintRunner { answer };
    let runner =
        cairo_run_program(&program, &config, &mut hints).map_err(|e| VmError(e.to_string()))?;
    let ap = runner.vm.get_ap();
    let ret = (ap - prog.result_depth()).map_err(|e| VmError(e.to_string()))?;
    let value = match runner.vm.get_maybe(&ret) {
        Some(MaybeRelocatable::Int(f)) => from_vm(&f),
        other => return Err(VmError(format!("no integer result: {other:?}"))),
    };
    Ok(RunResult {
        value,
        steps: runner.vm.get_current_step() as u64,
    })
}
