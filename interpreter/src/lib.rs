//! The reference interpreter: the executable semantics of the IR, and the
//! oracle every pass is tested against.
//!
//! [`interpret`] runs one function of a [`Module`] on argument values and
//! reports an [`Execution`]: the [`Outcome`] (`Return`, `Trap` or
//! `OutOfFuel`), what `print` wrote, and how many steps ran.
//!
//! The semantics, written down once here:
//!
//! - `Field` is the BN254 scalar field (`ark-bn254`); `div` multiplies by the
//!   inverse, `lt` compares canonical representatives, `mod` and the bitwise
//!   operators are type errors.
//! - `uN` and `iN` (two's complement) arithmetic is checked: `add sub mul`
//!   trap outside the type's range, `div mod` trap on zero (and `iN::MIN` by `-1`, both),
//!   `div` truncates toward zero; `unchecked_*` wrap; `shl shr` trap when the
//!   shift is at least `N` (`shr` on `iN` is arithmetic).
//! - `cast` works on bit patterns, as Noir's SSA defines it: the operand's
//!   pattern (a `Field`'s canonical representative, an `iN`'s two's
//!   complement bits) read in the target type. Widening a signed value
//!   zero-extends (`cast i8 -1 as i32` is `i32 255`, `cast i8 -1 as Field`
//!   is `Field 255`); `cast u8 228 as i8` is `i8 -28`; a pattern of `2^N`
//!   or more cast to `uN`/`iN` traps, `cast i16 -1 as i8` included, under
//!   any predicate (such a cast has no meaning in Noir's SSA).
//!   `truncate` keeps the low bits, `range_check v to N bits` traps unless
//!   `v < 2^N` (the two's complement bits for `iN`).
//! - Memory is a growing vector of cells; `allocate` gives a fresh cell and
//!   `load` of a cell never stored traps. References in the arguments of a
//!   run are renumbered to fresh cells (equal numbers stay equal). Each cell
//!   has the type of what it holds, and a reference names only a cell of
//!   its pointee type: where the verifier cannot check it (the arguments of
//!   a run or of a call through a `function` value, a call's results, an
//!   oracle's results, an `array_get` of references at a dynamic index), a
//!   reference to a cell of another type is a type error. Passes rely on it:
//!   references to different types never name the same cell.
//! - Arrays are values, written copy-on-write; an enabled `array_set mut`
//!   outside `brillig` code also rebinds its operand to the written array,
//!   as Noir's interpreter writes such an array in place. An array value
//!   holds its entries (nested arrays as values of their own); in an `acir`
//!   function a `make_array` listing the leaves regroups them into entries,
//!   and a flat index of `array_get` or `array_set` reaches its leaf through
//!   the entries, bounded by the leaf count ([`kildall_ir::flat`]).
//! - Predication: each block starts with predicate 1; `enable_side_effects c`
//!   sets it to `c`. Under predicate 0 no check but a cast's traps (`constrain`,
//!   `range_check`, overflow, division by zero, shifts, array indices,
//!   and also `load` of a never-stored cell, which yields zero); the result is
//!   the wrapped value, or zero for a division or shift. `store` does
//!   nothing, `call` is skipped and yields zero values (fresh cells for
//!   references), `array_set` leaves its array unchanged, and an
//!   `array_get` whose index is not a constant inside the array reads the
//!   first element of its result's type (zero from an array without one),
//!   as Noir's interpreter and ACIR do. Noise limits and type errors are
//!   not predicated.
//! - Noisy values carry a plaintext mod 32 and a noise bound in bits (the
//!   noisy-arithmetic model): `encode` gives [`NoiseParams::encode_bits`], `add`/`sub`
//!   `max(a, b) + 1`, `mul` `a + b`, `reduce_noise` the encoding noise, and a
//!   result above [`NoiseParams::max_bits`] traps unless noise checking is off.
//!   With a plaintext integer operand (`mul v2, u5 4`) `mul` adds
//!   `ceil(log2(|c|))` bits and `add`/`sub` none ([`kildall_ir::plaintext`]).
//! - Calls: a function of the module, named (`call f1`) or held by a value
//!   of type `function` (`call v10`), runs in a new frame; function values
//!   compare with `eq` by the function they name. A builtin is computed
//!   here; `vector_enumerate` calls the closure it is given once per
//!   entry, each call in a frame of its own, in index order or reversed
//!   ([`kildall_ir::Enumerate`]). A foreign (oracle) function is answered by the
//!   [`ForeignHandler`] the caller gives [`interpret_with_foreign`], which
//!   may read and write the run's cells; a run without one traps naming
//!   the oracle. `nop`, `inc_rc` and `dec_rc` do nothing.
//! - Fuel: every executed instruction and terminator costs one step; with
//!   no fuel left the run stops with [`Outcome::OutOfFuel`].
//!
//! Calls use an explicit frame stack, never Rust recursion, so deep IR
//! recursion is bounded only by [`InterpreterOptions::max_call_depth`].

#![deny(missing_docs)]

mod black_box;
mod builtins;
mod compare;
mod enumerate;
mod exec;
mod flat;
mod foreign;
mod grumpkin;
mod memory;
mod observe;
mod ops;
mod poseidon2;
mod trap;
mod value;

use std::collections::HashMap;
use std::sync::Arc;

use cranelift_entity::{EntityRef, SecondaryMap};
use memory::Memory;

use kildall_ir::{
    Block, Callee, FuncId, Function, GlobalInit, GlobalOperand, Inst, InstructionData, Module,
    Terminator, Type, Value, ValueDef,
};

pub use compare::TrapRule;
pub use foreign::{ForeignCall, ForeignHandler, ForeignMemory};
pub use observe::{BlockObserver, BlockValues};
pub use trap::{Trap, TrapKind, TrapSite};
pub use value::{display_list, RefId, RuntimeValue, ValueParseError, MAX_ZERO_ARRAY_ELEMENTS};

/// The noise model of noisy values (the noisy-arithmetic model).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct NoiseParams {
    /// The noise, in bits, of a fresh encoding and after `reduce_noise`.
    pub encode_bits: u32,
    /// The largest noise, in bits, a value may have.
    pub max_bits: u32,
}

impl Default for NoiseParams {
    fn default() -> Self {
        NoiseParams {
            encode_bits: 12,
            max_bits: 26,
        }
    }
}

/// Limits and switches of a run.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InterpreterOptions {
    /// The number of instructions and terminators the run may execute.
    pub fuel: u64,
    /// Whether a noisy result over [`NoiseParams::max_bits`] traps.
    pub check_noise: bool,
    /// The noise model.
    pub noise: NoiseParams,
    /// The deepest nesting of calls (the called function counts as depth 1).
    pub max_call_depth: usize,
}

impl Default for InterpreterOptions {
    fn default() -> Self {
        InterpreterOptions {
            fuel: 10_000_000,
            check_noise: true,
            noise: NoiseParams::default(),
            max_call_depth: 100_000,
        }
    }
}

/// How a run ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// The function returned these values.
    Return(Vec<RuntimeValue>),
    /// The run trapped.
    Trap(Trap),
    /// The run used all its fuel.
    OutOfFuel,
}

/// The result of a run.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Execution {
    /// How it ended.
    pub outcome: Outcome,
    /// One line per executed `print`: its arguments separated by `, `.
    pub output: Vec<String>,
    /// The instructions and terminators executed.
    pub steps: u64,
}

/// Runs `function` of `module` on `args`.
///
/// Arguments must match the entry block's parameters in number and type
/// (arrays parsed from text are relabelled with the parameter types);
/// otherwise the outcome is a trap without a site.
pub fn interpret(
    module: &Module,
    function: FuncId,
    args: Vec<RuntimeValue>,
    options: &InterpreterOptions,
) -> Execution {
    run_machine(module, function, args, options, Hooks::default())
}

/// [`interpret`], calling `observer` every time a block reaches its
/// terminator (a trapping block never does).
pub fn interpret_observed(
    module: &Module,
    function: FuncId,
    args: Vec<RuntimeValue>,
    options: &InterpreterOptions,
    observer: &mut dyn BlockObserver,
) -> Execution {
    let hooks = Hooks {
        observer: Some(observer),
        foreign: None,
    };
    run_machine(module, function, args, options, hooks)
}

/// [`interpret`], answering the calls of foreign (oracle) functions with
/// `foreign` (a run without a handler traps at the first).
pub fn interpret_with_foreign(
    module: &Module,
    function: FuncId,
    args: Vec<RuntimeValue>,
    options: &InterpreterOptions,
    foreign: &mut dyn ForeignHandler,
) -> Execution {
    let hooks = Hooks {
        observer: None,
        foreign: Some(foreign),
    };
    run_machine(module, function, args, options, hooks)
}

/// What the caller of a run plugs into it.
#[derive(Default)]
struct Hooks<'m> {
    observer: Option<&'m mut dyn BlockObserver>,
    foreign: Option<&'m mut dyn ForeignHandler>,
}

fn run_machine<'m>(
    module: &'m Module,
    function: FuncId,
    args: Vec<RuntimeValue>,
    options: &'m InterpreterOptions,
    hooks: Hooks<'m>,
) -> Execution {
    let mut machine = Machine {
        module,
        options,
        observer: hooks.observer,
        foreign: hooks.foreign,
        funcs: Vec::new(),
        globals: global_values(module),
        memory: Memory::default(),
        stack: Vec::new(),
        output: Vec::new(),
        steps: 0,
        scratch: Vec::new(),
    };
    let outcome = machine.run(function, args);
    Execution {
        outcome,
        output: machine.output,
        steps: machine.steps,
    }
}

/// What the interpreter precomputes for a function: its constants.
struct FuncInfo {
    consts: SecondaryMap<Value, Option<RuntimeValue>>,
}

impl FuncInfo {
    fn new(func: &Function, globals: &[RuntimeValue]) -> FuncInfo {
        let mut consts = SecondaryMap::new();
        for (value, ty) in func.dfg.values() {
            match func.dfg.value_def(value) {
                ValueDef::Const(c) => consts[value] = RuntimeValue::from_const(c, ty),
                ValueDef::Global(g) => consts[value] = globals.get(g.index()).cloned(),
                ValueDef::Function(f) => consts[value] = Some(RuntimeValue::Function(f)),
                _ => {}
            }
        }
        FuncInfo { consts }
    }
}

/// The results of `builtin` on `args`, as a call with results of
/// `result_types` computes them (`brillig`: in an unconstrained function);
/// what a `print` prints is dropped.
///
/// # Errors
///
/// The trap of a builtin that fails on these arguments.
pub fn call_builtin(
    builtin: kildall_ir::Builtin,
    args: Vec<RuntimeValue>,
    result_types: &[Type],
    brillig: bool,
) -> Result<Vec<RuntimeValue>, TrapKind> {
    builtins::call(builtin, args, result_types, brillig, &mut Vec::new())
}

/// The values of the module's globals, in order (a global array's elements
/// are constants or earlier globals). A global that cannot be built, which
/// the verifier rejects, is left out (with every global after it), and
/// its uses trap as undefined.
pub fn global_values(module: &Module) -> Vec<RuntimeValue> {
    let mut values: Vec<RuntimeValue> = Vec::with_capacity(module.globals.len());
    for global in module.globals.values() {
        let value = match &global.init {
            GlobalInit::Const(c) => RuntimeValue::from_const(*c, &global.ty),
            GlobalInit::Array(elements) => global.ty.element_types().and_then(|types| {
                let elements = elements
                    .iter()
                    .map(|element| match element {
                        GlobalOperand::Const(c, ty) => RuntimeValue::from_const(*c, ty),
                        GlobalOperand::Global(g) => values.get(g.index()).cloned(),
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(RuntimeValue::array(elements, types.to_vec()))
            }),
        };
        match value {
            Some(value) => values.push(value),
            None => break,
        }
    }
    values
}

/// One activation of a function.
struct Frame {
    func: FuncId,
    block: Block,
    /// The next instruction; `None` means the block's terminator.
    next: Option<Inst>,
    values: SecondaryMap<Value, Option<RuntimeValue>>,
    predicate: bool,
    /// The call instruction waiting for the callee's results.
    pending_call: Option<Inst>,
    /// The `vector_enumerate` of `pending_call`, when the callee is one of
    /// its closure calls.
    enumeration: Option<Box<enumerate::Enumeration>>,
}

/// What an instruction asks the driver loop to do next.
enum Flow {
    Next,
    Call(FuncId, Vec<RuntimeValue>),
}

struct Machine<'m> {
    module: &'m Module,
    options: &'m InterpreterOptions,
    observer: Option<&'m mut dyn BlockObserver>,
    foreign: Option<&'m mut dyn ForeignHandler>,
    funcs: Vec<Option<FuncInfo>>,
    globals: Vec<RuntimeValue>,
    memory: Memory,
    stack: Vec<Frame>,
    output: Vec<String>,
    steps: u64,
    /// Branch arguments in flight (jumps assign all parameters at once).
    scratch: Vec<RuntimeValue>,
}

/// Reads an operand of the current frame.
fn read(
    func: &Function,
    info: &FuncInfo,
    frame: &Frame,
    value: Value,
) -> Result<RuntimeValue, TrapKind> {
    if !func.dfg.value_is_valid(value) {
        return Err(TrapKind::UndefinedValue { value });
    }
    let value = func.dfg.resolve(value);
    if let Some(v) = &frame.values[value] {
        return Ok(v.clone());
    }
    match &info.consts[value] {
        Some(v) => Ok(v.clone()),
        None => Err(TrapKind::UndefinedValue { value }),
    }
}

/// The zero value of `ty`, references as fresh cells.
fn zero(ty: &Type, memory: &mut Memory) -> Result<RuntimeValue, TrapKind> {
    value::zero_with(ty, &mut |pointee| memory.allocate(pointee, None), &mut 0).ok_or_else(|| {
        TrapKind::Malformed(format!(
            "cannot build a zero value of {ty} (more than {MAX_ZERO_ARRAY_ELEMENTS} elements or a bad width)"
        ))
    })
}

fn site(module: &Module, frame: &Frame, inst: Option<Inst>) -> TrapSite {
    let func = &module.functions[frame.func];
    let (opcode, result, loc) = match inst {
        Some(inst) => (
            func.dfg[inst].opcode_name(),
            func.dfg.first_result(inst),
            func.inst_locs[inst],
        ),
        None => (
            match func.dfg.terminator(frame.block) {
                Some(Terminator::Jmp { .. }) => "jmp",
                Some(Terminator::JmpIf { .. }) => "jmpif",
                Some(Terminator::Return { .. }) => "return",
                Some(Terminator::Unreachable) => "unreachable",
                None => "end of block",
            },
            None,
            func.terminator_loc(frame.block),
        ),
    };
    TrapSite {
        function: frame.func,
        function_name: func.name.clone(),
        block: frame.block,
        inst,
        opcode,
        result,
        loc,
    }
}

impl<'m> Machine<'m> {
    fn run(&mut self, function: FuncId, args: Vec<RuntimeValue>) -> Outcome {
        let bare = |kind| Outcome::Trap(Trap { kind, site: None });
        let Some(func) = self.module.functions.get(function) else {
            return bare(TrapKind::UnknownFunction { function });
        };
        let params = func.param_types();
        if params.len() != args.len() {
            return bare(TrapKind::ArgumentCount {
                function,
                expected: params.len(),
                got: args.len(),
            });
        }
        let mut renumbered = HashMap::new();
        let mut conformed = Vec::with_capacity(args.len());
        for (index, (arg, ty)) in args.into_iter().zip(&params).enumerate() {
            if !arg.has_type(ty) {
                return bare(TrapKind::ArgumentType {
                    function,
                    index,
                    expected: ty.clone(),
                    got: arg,
                });
            }
            let Some(arg) = renumber_refs(arg.conform(ty), ty, &mut renumbered, &mut self.memory)
            else {
                return bare(TrapKind::TypeError(format!(
                    "argument {index} of {function} names a cell that another argument \
                     names as one of another type"
                )));
            };
            conformed.push(arg);
        }
        if let Err(kind) = self.push_frame(function, conformed) {
            return bare(kind);
        }
        self.execute()
    }

    /// Pushes a frame for `function` with `args` bound to its entry parameters.
    fn push_frame(&mut self, function: FuncId, args: Vec<RuntimeValue>) -> Result<(), TrapKind> {
        let Some(func) = self.module.functions.get(function) else {
            return Err(TrapKind::UnknownFunction { function });
        };
        if self.stack.len() >= self.options.max_call_depth {
            return Err(TrapKind::CallDepthExceeded {
                limit: self.options.max_call_depth,
            });
        }
        let Some(entry) = func.entry_block() else {
            return Err(TrapKind::Malformed(format!(
                "fn {} {function} has no blocks",
                func.name
            )));
        };
        let params = func.dfg.block_params(entry);
        if params.len() != args.len() {
            return Err(TrapKind::ArgumentCount {
                function,
                expected: params.len(),
                got: args.len(),
            });
        }
        if self.funcs.len() <= function.index() {
            self.funcs.resize_with(function.index() + 1, || None);
        }
        if self.funcs[function.index()].is_none() {
            self.funcs[function.index()] = Some(FuncInfo::new(func, &self.globals));
        }
        let mut values = SecondaryMap::new();
        for (index, (&param, arg)) in params.iter().zip(args).enumerate() {
            let ty = func.dfg.value_type(param);
            if !self.memory.has_type(&arg, ty) {
                return Err(TrapKind::ArgumentType {
                    function,
                    index,
                    expected: ty.clone(),
                    got: arg,
                });
            }
            values[param] = Some(arg);
        }
        self.stack.push(Frame {
            func: function,
            block: entry,
            next: func.layout.first_inst(entry),
            values,
            predicate: true,
            pending_call: None,
            enumeration: None,
        });
        Ok(())
    }

    /// The driver loop: runs until the outermost frame returns.
    fn execute(&mut self) -> Outcome {
        let module = self.module;
        let options = self.options;
        loop {
            let Some(frame) = self.stack.last_mut() else {
                return Outcome::Return(Vec::new());
            };
            let func = &module.functions[frame.func];
            let Some(info) = self.funcs[frame.func.index()].as_ref() else {
                unreachable!("function data is computed when its frame is pushed")
            };
            // Run this frame until a call, a return or a trap.
            let exit = loop {
                if self.steps >= options.fuel {
                    return Outcome::OutOfFuel;
                }
                self.steps += 1;
                match frame.next {
                    Some(inst) => {
                        frame.next = func.layout.next_inst(inst);
                        let mut effects = exec::Effects {
                            memory: &mut self.memory,
                            output: &mut self.output,
                            options,
                            foreign: self.foreign.as_deref_mut(),
                            module,
                        };
                        let flow = exec::exec_inst(func, info, frame, inst, &mut effects);
                        match flow {
                            Ok(Flow::Next) => {}
                            Ok(Flow::Call(callee, args)) => {
                                frame.pending_call = Some(inst);
                                if let Some(observer) = self.observer.as_deref_mut() {
                                    observer.call_entered(frame.func, frame.block, inst);
                                }
                                break Exit::Call(callee, args, inst);
                            }
                            Err(kind) => {
                                if let Some(observer) = self.observer.as_deref_mut() {
                                    let values = BlockValues { func, info, frame };
                                    observer.block_trapped(frame.func, frame.block, inst, &values);
                                }
                                return Outcome::Trap(Trap {
                                    kind,
                                    site: Some(site(module, frame, Some(inst))),
                                });
                            }
                        }
                    }
                    None => {
                        if let Some(observer) = self.observer.as_deref_mut() {
                            let values = BlockValues { func, info, frame };
                            observer.block_executed(frame.func, frame.block, &values);
                        }
                        match exec_terminator(func, info, frame, &mut self.scratch) {
                            Ok(None) => {}
                            Ok(Some(returned)) => break Exit::Return(returned),
                            Err(kind) => {
                                return Outcome::Trap(Trap {
                                    kind,
                                    site: Some(site(module, frame, None)),
                                })
                            }
                        }
                    }
                }
            };
            match exit {
                Exit::Call(callee, args, inst) => {
                    if let Err(kind) = self.push_frame(callee, args) {
                        let caller = self.stack.last().expect("the caller's frame");
                        return Outcome::Trap(Trap {
                            kind,
                            site: Some(site(module, caller, Some(inst))),
                        });
                    }
                }
                Exit::Return(values) => {
                    if let Some(outcome) = self.return_to_caller(values) {
                        return outcome;
                    }
                }
            }
        }
    }

    /// Pops the returning frame and gives `values` to the results of the
    /// call its caller waits on: the run's outcome when it ends there (the
    /// outermost frame returned, or the values do not fit the call).
    fn return_to_caller(&mut self, values: Vec<RuntimeValue>) -> Option<Outcome> {
        let module = self.module;
        let callee = self.stack.pop().expect("the returning frame");
        let Some(caller) = self.stack.last_mut() else {
            return Some(Outcome::Return(values));
        };
        let inst = caller
            .pending_call
            .take()
            .expect("a caller frame waits on a call");
        let values = match caller.enumeration.take() {
            None => values,
            Some(enumeration) => match enumeration.returned(values, &self.memory) {
                Ok(enumerate::Step::Done(values)) => values,
                Ok(enumerate::Step::Call(enumeration, closure, args)) => {
                    caller.enumeration = Some(enumeration);
                    caller.pending_call = Some(inst);
                    if let Some(observer) = self.observer.as_deref_mut() {
                        observer.call_entered(caller.func, caller.block, inst);
                    }
                    let kind = self.push_frame(closure, args).err()?;
                    let caller = self.stack.last().expect("the caller's frame");
                    return Some(Outcome::Trap(Trap {
                        kind,
                        site: Some(site(module, caller, Some(inst))),
                    }));
                }
                Err(kind) => {
                    return Some(Outcome::Trap(Trap {
                        kind,
                        site: Some(site(module, caller, Some(inst))),
                    }))
                }
            },
        };
        let results = module.functions[caller.func].dfg.inst_results(inst);
        if results.len() != values.len() {
            return Some(Outcome::Trap(Trap {
                kind: TrapKind::ResultCount {
                    function: callee.func,
                    expected: results.len(),
                    got: values.len(),
                },
                site: Some(site(module, caller, Some(inst))),
            }));
        }
        let dfg = &module.functions[caller.func].dfg;
        // A call through a `function` value has no signature the
        // verifier could check against the callee's; a direct
        // call's results are of the types it names.
        let through_value = matches!(
            dfg[inst],
            InstructionData::Call {
                callee: Callee::Value(_),
                ..
            }
        );
        for (&result, value) in results.iter().zip(values) {
            if through_value && !self.memory.has_type(&value, dfg.value_type(result)) {
                return Some(Outcome::Trap(Trap {
                    kind: TrapKind::TypeError(format!(
                        "{} returned {value} where the call names `{}`",
                        callee.func,
                        dfg.value_type(result)
                    )),
                    site: Some(site(module, caller, Some(inst))),
                }));
            }
            caller.values[result] = Some(value);
        }
        None
    }
}

/// How a frame's run ended.
enum Exit {
    Call(FuncId, Vec<RuntimeValue>, Inst),
    Return(Vec<RuntimeValue>),
}

/// Renumbers the references inside an argument of type `ty` to fresh
/// cells of their pointee types, keeping equal numbers equal; `None` when
/// one number stands for cells of two types.
fn renumber_refs(
    value: RuntimeValue,
    ty: &Type,
    renumbered: &mut HashMap<u32, RefId>,
    memory: &mut Memory,
) -> Option<RuntimeValue> {
    Some(match value {
        RuntimeValue::Ref(RefId(id)) => {
            let pointee = ty.pointee()?;
            let cell = *renumbered
                .entry(id)
                .or_insert_with(|| memory.allocate(pointee, None));
            let value = RuntimeValue::Ref(cell);
            if !memory.has_type(&value, ty) {
                return None;
            }
            value
        }
        RuntimeValue::Array { elements, types } => {
            let element_types = ty.element_types().filter(|t| !t.is_empty())?;
            let elements = Arc::unwrap_or_clone(elements)
                .into_iter()
                .zip(element_types.iter().cycle())
                .map(|(element, ty)| renumber_refs(element, ty, renumbered, memory))
                .collect::<Option<Vec<_>>>()?;
            RuntimeValue::Array {
                elements: Arc::new(elements),
                types,
            }
        }
        other => other,
    })
}

/// Executes the terminator of the frame's block: moves to the next block,
/// or returns the returned values.
fn exec_terminator(
    func: &Function,
    info: &FuncInfo,
    frame: &mut Frame,
    scratch: &mut Vec<RuntimeValue>,
) -> Result<Option<Vec<RuntimeValue>>, TrapKind> {
    let destination = match func.dfg.terminator(frame.block) {
        None => {
            return Err(TrapKind::Malformed(format!(
                "{} has no terminator",
                frame.block
            )))
        }
        Some(Terminator::Unreachable) => return Err(TrapKind::Unreachable),
        Some(Terminator::Return { values }) => {
            let values = values
                .iter()
                .map(|&v| read(func, info, frame, v))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Some(values));
        }
        Some(Terminator::JmpIf {
            condition,
            then_destination,
            then_arguments,
            else_destination,
            else_arguments,
        }) => {
            let c = read(func, info, frame, *condition)?;
            if !matches!(c, RuntimeValue::Int { .. } | RuntimeValue::Field(_)) {
                return Err(TrapKind::TypeError(format!(
                    "jmpif condition {c} is not a number"
                )));
            }
            let (destination, arguments) = if c.is_true() {
                (*then_destination, then_arguments)
            } else {
                (*else_destination, else_arguments)
            };
            bind_arguments(func, info, frame, scratch, destination, arguments)?;
            destination
        }
        Some(Terminator::Jmp {
            destination,
            arguments,
        }) => {
            bind_arguments(func, info, frame, scratch, *destination, arguments)?;
            *destination
        }
    };
    if !func.layout.is_block_inserted(destination) {
        return Err(TrapKind::Malformed(format!(
            "jump to {destination}, which is not in the layout"
        )));
    }
    frame.block = destination;
    frame.next = func.layout.first_inst(destination);
    frame.predicate = true;
    Ok(None)
}

/// Binds `destination`'s parameters to the values of `arguments`.
fn bind_arguments(
    func: &Function,
    info: &FuncInfo,
    frame: &mut Frame,
    scratch: &mut Vec<RuntimeValue>,
    destination: Block,
    arguments: &[Value],
) -> Result<(), TrapKind> {
    let params = func.dfg.block_params(destination);
    if params.len() != arguments.len() {
        return Err(TrapKind::BranchArgumentCount {
            block: destination,
            expected: params.len(),
            got: arguments.len(),
        });
    }
    // Read every argument before binding any parameter: a loop may pass its
    // own parameters in another order.
    scratch.clear();
    for &argument in arguments {
        scratch.push(read(func, info, frame, argument)?);
    }
    for (&param, value) in params.iter().zip(scratch.drain(..)) {
        frame.values[param] = Some(value);
    }
    Ok(())
}

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
