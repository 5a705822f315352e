//! Execution on the real Cairo VM (the `cairo-vm` crate).
//!
//! The program goes through its JSON form, exactly as a file written by
//! `casm compile --json` would, so the tests exercise what the VM loads.
//! Every program writes its result to the `output` builtin; one that uses
//! no other builtin runs on cairo-vm's `small` layout, the smallest with
//! `output`; one that threads builtins runs on `all_cairo`, the layout
//! cairo-vm ships with every Cairo 0 builtin, through cairo-vm's own
//! builtin runners. The result is read back from the output segment.
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
use cairo_vm::types::relocatable::{MaybeRelocatable, Relocatable};
use cairo_vm::vm::errors::cairo_run_errors::CairoRunError;
use cairo_vm::vm::errors::hint_errors::HintError;
use cairo_vm::vm::errors::vm_errors::VirtualMachineError;
use cairo_vm::vm::runners::builtin_runner::BuiltinRunner;
use cairo_vm::vm::runners::cairo_runner::ResourceTracker;
use cairo_vm::vm::vm_core::VirtualMachine;
use cairo_vm::Felt252;

use crate::asm::{self, Mode, Program};
use crate::felt::Felt;
use crate::heap::{self, Cell, HeapNames, Kind};
use crate::interp::RunResult;
use crate::listing::{self, Builtin, Hint, Instr, Val};

/// A failed run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VmError {
    /// The Cairo VM stopped on an error, with its message.
    #[error("cairo-vm: {0}")]
    Vm(String),
    /// The program ran `fail` with this message.
    #[error("fail: {0}")]
    Fail(String),
    /// A field read of a constructor from another value.
    #[error("{0}")]
    WrongConstructor(heap::WrongConstructorError),
    /// A call of a closure with other than the arguments it still takes,
    /// or `cextend` of it by more.
    #[error("{0}")]
    ClosureArity(heap::ClosureArityError),
    /// The run took its whole step budget without returning.
    #[error("out of steps after {0}")]
    OutOfSteps(u64),
    /// `atoi` of a text that spells no integer.
    #[error("string to integer: not an integer")]
    NotAnInteger,
}

fn vm_error(e: impl ToString) -> VmError {
    VmError::Vm(e.to_string())
}

/// The prover's answer to a hint, given the values of its two operands.
pub type Answer<'a> = &'a dyn Fn(&Hint, Felt, Felt) -> Vec<Felt>;

/// The hint processor: parses a hint's code (its listing text) and writes
/// `answer`'s cells from `[ap]` on; prints what `trace` and `fail` name.
pub struct HintRunner<'a> {
    answer: Answer<'a>,
    names: &'a HeapNames,
    /// The lines of the `trace`s executed, each with the number of
    /// `output` cells written before it.
    output: Vec<(String, usize)>,
    /// The `trace`s executed, printed as terms, each with the number of
    /// `output` cells written before it.
    terms: Vec<(String, usize)>,
    /// The `output` segment's base, and how many of its cells are known
    /// written.
    written: Option<(isize, usize)>,
    /// The message of the `fail` executed.
    fail: Option<String>,
    /// The error a hint recorded for the failing assertion after it.
    trap: Option<VmError>,
    /// Steps the run may still take.
    steps_left: u64,
}

fn cell(v: MaybeRelocatable) -> Cell<Relocatable> {
    match v {
        MaybeRelocatable::Int(f) => Cell::Num(from_vm(&f)),
        MaybeRelocatable::RelocatableValue(r) => Cell::Ptr(r),
    }
}

/// The text of a value as a term of kind `kind`, read from the VM's memory.
fn term(
    vm: &VirtualMachine,
    v: MaybeRelocatable,
    kind: Kind,
    names: &HeapNames,
) -> Result<String, String> {
    let load = |p: &Relocatable, k: usize| (*p + k).ok().and_then(|a| vm.get_maybe(&a)).map(cell);
    heap::value_term(&cell(v), kind, &load, names)
}

fn felt_lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// The cell at `a` of the VM's memory, as the printer sees it.
fn vm_cell(vm: &VirtualMachine, a: Relocatable) -> Option<Cell<Relocatable>> {
    vm.get_maybe(&a).map(cell)
}

/// The lines a value prints as, read from the VM's memory.
fn lines(
    vm: &VirtualMachine,
    v: MaybeRelocatable,
    names: &HeapNames,
) -> Result<Vec<String>, String> {
    let load = |p: &Relocatable, k: usize| (*p + k).ok().and_then(|a| vm.get_maybe(&a)).map(cell);
    heap::value_lines(&cell(v), &load, names)
}

/// The VM asks before every step: the run stops, unfinished, when the
/// budget is spent.
impl ResourceTracker for HintRunner<'_> {
    fn consumed(&self) -> bool {
        self.steps_left == 0
    }

    fn consume_step(&mut self) {
        self.steps_left = self.steps_left.saturating_sub(1);
    }
}

fn to_vm(f: Felt) -> Felt252 {
    f.to_stark()
}

/// Converts a VM field element to ours.
pub fn from_vm(f: &Felt252) -> Felt {
    Felt::from_stark(*f)
}

impl HintRunner<'_> {
    /// How many cells of the `output` segment are written. The program
    /// writes them in order, so the count resumes from the last one.
    fn output_written(&mut self, vm: &VirtualMachine) -> usize {
        let base = match self.written {
            Some((base, _)) => base,
            None => {
                let base = vm.builtin_runners.iter().find_map(|b| match b {
                    BuiltinRunner::Output(o) => Some(o.base() as isize),
                    _ => None,
                });
                let Some(base) = base else { return 0 };
                base
            }
        };
        let mut n = self.written.map_or(0, |(_, n)| n);
        while vm.get_maybe(&Relocatable::from((base, n))).is_some() {
            n += 1;
        }
        self.written = Some((base, n));
        n
    }
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
        let word = |v: Val| -> Result<MaybeRelocatable, HintError> {
            match v {
                Val::Imm(c) => Ok(MaybeRelocatable::Int(to_vm(c))),
                Val::Mem(m) => {
                    let addr = (fp + m.off as i32).map_err(|e| custom(e.to_string()))?;
                    vm.get_maybe(&addr)
                        .ok_or_else(|| custom(format!("hint reads unwritten {m}")))
                }
            }
        };
        let (a, b) = match hint {
            Hint::Trace { v, kind } => {
                let v = word(v)?;
                let written = self.output_written(vm);
                let printed = lines(vm, v.clone(), self.names).map_err(custom)?;
                let printed = printed.iter().map(|l| format!("{l}\n")).collect();
                self.output.push((printed, written));
                let text = term(vm, v, kind, self.names).map_err(custom)?;
                self.terms.push((format!("{text}\n"), written));
                return Ok(());
            }
            Hint::Fail { v } => {
                let v = word(v)?;
                self.fail = Some(lines(vm, v, self.names).map_err(custom)?.join(" "));
                return Ok(());
            }
            Hint::ExtendRefused { closure, given } => {
                let MaybeRelocatable::RelocatableValue(at) = word(closure)? else {
                    return Err(custom("the closure is not an address".to_string()));
                };
                let int = |k: usize| -> Result<Felt, HintError> {
                    let addr = (at + k).map_err(|e| custom(e.to_string()))?;
                    match vm.get_maybe(&addr) {
                        Some(MaybeRelocatable::Int(f)) => Ok(from_vm(&f)),
                        _ => Err(custom(format!("no number at {addr}"))),
                    }
                };
                let given = match word(given)? {
                    MaybeRelocatable::Int(f) => from_vm(&f),
                    _ => return Err(custom("the count is an address".to_string())),
                };
                let err = heap::ClosureArityError::new(
                    int(0)?,
                    int(heap::CLOSURE_LEFT as usize)?,
                    given,
                    self.names,
                );
                self.trap = Some(VmError::ClosureArity(err));
                return Ok(());
            }
            Hint::NotAnInteger => {
                self.trap = Some(VmError::NotAnInteger);
                return Ok(());
            }
            Hint::Compare { a, b, .. } | Hint::DivMod { a, b } => (word(a)?, word(b)?),
        };
        let (a, b) = match (a, b) {
            (MaybeRelocatable::Int(a), MaybeRelocatable::Int(b)) => (from_vm(&a), from_vm(&b)),
            _ => return Err(custom("hint operand is an address".to_string())),
        };
        let ap = vm.get_ap();
        for (k, v) in (self.answer)(&hint, a, b).into_iter().enumerate() {
            vm.insert_value((ap + k).map_err(|e| custom(e.to_string()))?, to_vm(v))
                .map_err(HintError::Memory)?;
        }
        Ok(())
    }
}

/// The error of a failed header check (`asm::is_header_check`) or closure
/// arity check (`heap::apply_arity_failure`), from the VM's report of the
/// failed assertion and its pc.
fn typed_failure(prog: &Program, e: &CairoRunError) -> Option<VmError> {
    let CairoRunError::VmException(x) = e else {
        return None;
    };
    let VirtualMachineError::DiffAssertValues(values) = &x.inner_exc else {
        return None;
    };
    let word = prog.data.get(x.pc.offset)?;
    let (MaybeRelocatable::Int(dst), MaybeRelocatable::Int(res)) = &**values else {
        return None;
    };
    let (dst, res) = (from_vm(dst), from_vm(res));
    if asm::is_header_check(*word) {
        let err = heap::WrongConstructorError::new(dst, res, &prog.names);
        return Some(VmError::WrongConstructor(err));
    }
    let label = crate::interp::label_at(prog, x.pc.offset)?;
    heap::apply_arity_failure(label, dst, res, &prog.names).map(VmError::ClosureArity)
}

/// Runs `prog` on the Cairo VM; returns the entry's result, printed from
/// the cells of the `output` builtin, and the VM's step count (padded to a
/// power of two in proof mode), within [`MAX_STEPS`](crate::MAX_STEPS).
pub fn run(prog: &Program) -> Result<RunResult, VmError> {
    run_within(prog, crate::MAX_STEPS)
}

/// [`run`] for at most `max_steps` steps.
pub fn run_within(prog: &Program, max_steps: u64) -> Result<RunResult, VmError> {
    run_answering(prog, max_steps, &|h, a, b| h.answer(a, b))
}

/// [`run`] with hints answered by `answer` instead of honestly.
pub fn run_with_answers(prog: &Program, answer: Answer<'_>) -> Result<RunResult, VmError> {
    run_answering(prog, crate::MAX_STEPS, answer)
}

fn run_answering(prog: &Program, max_steps: u64, answer: Answer<'_>) -> Result<RunResult, VmError> {
    let json = prog.to_json().to_string();
    let program = VmProgram::from_bytes(json.as_bytes(), Some("main")).map_err(vm_error)?;
    let proof = prog.mode == Mode::Proof;
    // `small` is the smallest layout with the output builtin.
    let layout = if prog.builtins == [Builtin::Output] {
        LayoutName::small
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
    let mut hints = HintRunner {
        answer,
        names: &prog.names,
        output: Vec::new(),
        terms: Vec::new(),
        written: None,
        fail: None,
        trap: None,
        steps_left: max_steps,
    };
    let runner = match cairo_run_program(&program, &config, &mut hints) {
        Ok(r) => r,
        Err(e) => {
            return Err(match (hints.fail, hints.trap) {
                (Some(msg), _) => VmError::Fail(msg),
                (None, Some(trap)) => trap,
                (None, None) if hints.steps_left == 0 => VmError::OutOfSteps(max_steps),
                (None, None) => typed_failure(prog, &e).unwrap_or_else(|| vm_error(e)),
            })
        }
    };
    let ap = runner.vm.get_ap();
    let ret = (ap - prog.result_depth()).map_err(vm_error)?;
    let result = runner
        .vm
        .get_maybe(&ret)
        .ok_or_else(|| vm_error("no result"))?;
    let number = |v: &MaybeRelocatable| match v {
        MaybeRelocatable::Int(f) => from_vm(f),
        MaybeRelocatable::RelocatableValue(r) => Felt::from_u128(r.offset as u128),
    };
    // The result as the program wrote it to the output builtin.
    let base = runner
        .vm
        .builtin_runners
        .iter()
        .find_map(|b| match b {
            BuiltinRunner::Output(o) => Some(o.base()),
            _ => None,
        })
        .ok_or_else(|| vm_error("no output builtin"))?;
    let used = runner.vm.get_segment_used_size(base).unwrap_or(0);
    let mut public = Vec::with_capacity(used);
    for k in 0..used {
        let cell = Relocatable::from((base as isize, k));
        public.push(
            runner
                .vm
                .get_maybe(&cell)
                .ok_or_else(|| vm_error(format!("unwritten output cell {k}")))?,
        );
    }
    let mut text;
    let mut output: Vec<String>;
    if prog.result == asm::ResultShape::Io {
        let load = |p: &Relocatable, k: usize| (*p + k).ok().and_then(|a| vm_cell(&runner.vm, a));
        let cells: Vec<_> = public.iter().cloned().map(cell).collect();
        let (writes, value, kind) =
            heap::io_output(&cells, &load, &prog.names).map_err(vm_error)?;
        let value = match value {
            Cell::Num(f) => MaybeRelocatable::Int(to_vm(f)),
            Cell::Ptr(r) => MaybeRelocatable::RelocatableValue(r),
        };
        text = heap::interleave(&hints.terms, &writes);
        let mut felt = heap::interleave(&hints.output, &writes);
        let result = lines(&runner.vm, value.clone(), &prog.names).map_err(vm_error)?;
        result.iter().for_each(|l| felt.push_str(&format!("{l}\n")));
        output = felt_lines(&felt);
        if !heap::prints_nothing(&cell(value.clone()), kind) {
            text.push_str(&term(&runner.vm, value, kind, &prog.names).map_err(vm_error)?);
            text.push('\n');
        }
    } else {
        text = heap::interleave(&hints.terms, &[]);
        output = felt_lines(&heap::interleave(&hints.output, &[]));
        if !heap::prints_nothing(&cell(result.clone()), prog.result_kind) {
            let result = term(&runner.vm, result.clone(), prog.result_kind, &prog.names);
            text.push_str(&result.map_err(vm_error)?);
            text.push('\n');
        }
        for v in &public {
            output.extend(lines(&runner.vm, v.clone(), &prog.names).map_err(vm_error)?);
        }
    }
    Ok(RunResult {
        value: number(&result),
        steps: runner.vm.get_current_step() as u64,
        output,
        terms: match prog.term_refusal {
            Some(_) => Vec::new(),
            None => text.lines().map(str::to_string).collect(),
        },
        public_output: public
            .iter()
            .map(|v| match v {
                MaybeRelocatable::Int(f) => Cell::Num(from_vm(f)),
                MaybeRelocatable::RelocatableValue(r) => Cell::Ptr(r.offset),
            })
            .collect(),
        cells: runner.vm.get_segment_used_size(1).unwrap_or(0),
    })
}
