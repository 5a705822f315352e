//! The executed trace of a program as block instances: a run of the
//! interpreter records every executed block's values, each block kind is
//! lowered once, and every instance gets its assignment, checked against
//! the constraints. The instances are put in the order they started, and
//! their memory accesses in execution order (a block that calls a function
//! ends after its callee, but its accesses before the call came first):
//! the entries of the run's [`MemoryCheck`], checked natively here and
//! proven apart.

use std::collections::{BTreeMap, HashMap};

use ark_bn254::Fr;
use kildall_interpreter::{
    interpret_observed, BlockObserver, BlockValues, Execution, InterpreterOptions, RuntimeValue,
};
use kildall_ir::{Block, FuncId, Inst, Module, Terminator, Value};

use crate::lower::{assign_block, lower_block, LowerError, LowerOptions};
use crate::memory::{BlockAccess, MemoryCheck, MemoryError};
use crate::system::{describe, AccessKind, Assignment, ConstraintSystem, Space};

/// A block of a function: a kind of instance.
pub type BlockKind = (FuncId, Block);

/// One executed block and its assignment.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Which block.
    pub kind: BlockKind,
    /// The values of its variables.
    pub assignment: Assignment,
}

/// Why a trace is not a valid witness.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum TraceError {
    /// A block has no lowering, or its run disagrees with it.
    #[error("fn {function}, {block}: {error}")]
    Lower {
        /// The function's name.
        function: String,
        /// The block.
        block: Block,
        /// What went wrong.
        error: LowerError,
    },
    /// An executed instance does not satisfy a constraint.
    #[error("fn {function}, {block}, instance {instance}: unsatisfied constraint of `{what}`")]
    Unsatisfied {
        /// The function's name.
        function: String,
        /// The block.
        block: Block,
        /// The number of the instance in the trace.
        instance: usize,
        /// The instruction (or part of the block) the constraint implements.
        what: String,
    },
    /// The memory check fails.
    #[error("memory check: {what}: {error}")]
    Memory {
        /// The access that fails it.
        what: String,
        /// How.
        error: MemoryError,
    },
}

/// The block instances of a run.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The SHA-256 of the program's text ([`program_digest`]).
    pub program: [u8; 32],
    /// The arguments of `main`, as field elements.
    pub args: Vec<Fr>,
    /// What `main` returned, as field elements (empty when it did not).
    pub result: Vec<Fr>,
    /// The run.
    pub execution: Execution,
    /// Every block kind executed, with its constraint system.
    pub kinds: BTreeMap<BlockKind, ConstraintSystem>,
    /// The instances, in the order their blocks started (a block before
    /// the instances of its calls); each instance's position public input
    /// holds its place in this order.
    pub instances: Vec<Instance>,
    /// The dynamic memory accesses of all instances.
    pub memory_accesses: u64,
    /// The memory check: the accesses in execution order, with the
    /// initialisation of the array segments read.
    pub memory: MemoryCheck,
}

impl Trace {
    /// The constraints of all instances.
    pub fn total_constraints(&self) -> u64 {
        self.instances
            .iter()
            .map(|i| self.kinds[&i.kind].num_constraints() as u64)
            .sum()
    }

    /// The largest block's constraints.
    pub fn largest(&self) -> usize {
        self.kinds
            .values()
            .map(ConstraintSystem::num_constraints)
            .max()
            .unwrap_or(0)
    }
}

/// An access of an instance, evaluated.
struct Access {
    valid: bool,
    /// The array segment read, or `None` for a cell.
    segment: Option<usize>,
    address: Fr,
    value: Fr,
    kind: AccessKind,
    inst: Inst,
}

/// What the memory check needs of an instance: its accesses, and the
/// instances its calls ran (one list per call that ran).
#[derive(Default)]
struct InstanceMemory {
    accesses: Vec<Access>,
    calls: Vec<(Inst, Vec<usize>)>,
}

/// A function activation under way.
#[derive(Default)]
struct Frame {
    /// Its blocks that ended.
    blocks: Vec<usize>,
    /// The calls of its current block, each with the callee's instances.
    pending: Vec<(Inst, Vec<usize>)>,
}

struct Recorder<'m> {
    module: &'m Module,
    main: FuncId,
    kinds: BTreeMap<BlockKind, ConstraintSystem>,
    instances: Vec<Instance>,
    memory: Vec<InstanceMemory>,
    frames: Vec<Frame>,
    /// The distinct arrays read at a dynamic index, each a segment.
    segments: HashMap<Vec<Fr>, usize>,
    error: Option<TraceError>,
}

impl BlockObserver for Recorder<'_> {
    fn block_executed(&mut self, function: FuncId, block: Block, values: &BlockValues<'_>) {
        if self.error.is_some() {
            return;
        }
        if let Err(error) = self.record(function, block, values) {
            self.error = Some(error);
        }
    }

    fn call_entered(&mut self, _: FuncId, _: Block, call: Inst) {
        if let Some(frame) = self.frames.last_mut() {
            frame.pending.push((call, Vec::new()));
        }
        self.frames.push(Frame::default());
    }
}

impl Recorder<'_> {
    fn record(
        &mut self,
        function: FuncId,
        block: Block,
        values: &BlockValues<'_>,
    ) -> Result<(), TraceError> {
        let func = &self.module.functions[function];
        let options = LowerOptions {
            program_entry: function == self.main && func.entry_block() == Some(block),
        };
        let lower_error = |error| TraceError::Lower {
            function: func.name.clone(),
            block,
            error,
        };
        let get = |v: Value| values.get(v);
        let (cs, assignment) = assign_block(func, block, options, &get).map_err(lower_error)?;
        if let Some(k) = cs.first_unsatisfied(&assignment) {
            return Err(TraceError::Unsatisfied {
                function: func.name.clone(),
                block,
                instance: self.instances.len(),
                what: describe(func, k.origin),
            });
        }
        let accesses = self.accesses(&cs, &assignment, values);
        let index = self.instances.len();
        let frame = self.frames.last_mut().expect("the outermost frame");
        self.memory.push(InstanceMemory {
            accesses,
            calls: std::mem::take(&mut frame.pending),
        });
        frame.blocks.push(index);
        if matches!(func.dfg.terminator(block), Some(Terminator::Return { .. }))
            && self.frames.len() > 1
        {
            self.close_frame();
        }
        self.kinds.entry((function, block)).or_insert(cs);
        self.instances.push(Instance {
            kind: (function, block),
            assignment,
        });
        Ok(())
    }

    /// Ends the innermost activation: its instances are the callee's of the
    /// call that entered it. An activation a trap cut short ends with the
    /// instances its unfinished block's calls ran.
    fn close_frame(&mut self) {
        let Some(mut frame) = self.frames.pop() else {
            return;
        };
        for (_, callee) in std::mem::take(&mut frame.pending) {
            frame.blocks.extend(callee);
        }
        if let Some((_, callee)) = self
            .frames
            .last_mut()
            .and_then(|parent| parent.pending.last_mut())
        {
            *callee = frame.blocks;
        }
    }

    fn accesses(
        &mut self,
        cs: &ConstraintSystem,
        assignment: &Assignment,
        values: &BlockValues<'_>,
    ) -> Vec<Access> {
        let one = Fr::from(1u64);
        let mut out = Vec::with_capacity(cs.memory.len());
        for access in &cs.memory {
            let valid = access.valid.evaluate(assignment) == one;
            let segment = match access.space {
                Space::Cells => None,
                Space::Array(array) => {
                    // The array's elements as the run had them.
                    let mut elements = Vec::new();
                    values
                        .get(array)
                        .and_then(|a| crate::lower::field_elements(&a, &mut elements));
                    let next = self.segments.len();
                    Some(*self.segments.entry(elements).or_insert(next))
                }
            };
            out.push(Access {
                valid,
                segment,
                address: access.address.evaluate(assignment),
                value: access.value.evaluate(assignment),
                kind: access.kind,
                inst: access.inst,
            });
        }
        out
    }

    /// The run's order: the instances in the order they started (a block
    /// before the instances of its calls), and their accesses in execution
    /// order, each instance's with the instances of each of its calls
    /// between the accesses before the call and those after.
    fn run_order(&mut self) -> (Vec<usize>, Vec<(usize, usize)>) {
        while self.frames.len() > 1 {
            self.close_frame();
        }
        let mut roots = Vec::new();
        if let Some(mut frame) = self.frames.pop() {
            roots = std::mem::take(&mut frame.blocks);
            for (_, callee) in frame.pending {
                roots.extend(callee);
            }
        }
        enum Work {
            Instance(usize),
            Access(usize, usize),
        }
        let mut started = Vec::new();
        let mut accesses = Vec::new();
        let mut work: Vec<Work> = roots.into_iter().rev().map(Work::Instance).collect();
        while let Some(item) = work.pop() {
            let i = match item {
                Work::Access(i, k) => {
                    accesses.push((i, k));
                    continue;
                }
                Work::Instance(i) => i,
            };
            started.push(i);
            let (function, block) = self.instances[i].kind;
            let position = inst_positions(&self.module.functions[function], block);
            let memory = &self.memory[i];
            let mut items: Vec<(usize, Work)> = Vec::new();
            for (k, access) in memory.accesses.iter().enumerate() {
                items.push((2 * position[&access.inst], Work::Access(i, k)));
            }
            for (call, callee) in &memory.calls {
                for &c in callee {
                    items.push((2 * position[call] + 1, Work::Instance(c)));
                }
            }
            // Stable: the callee's instances keep their order.
            items.sort_by_key(|(at, _)| *at);
            work.extend(items.into_iter().rev().map(|(_, w)| w));
        }
        (started, accesses)
    }
}

/// The position of each instruction in its block.
pub(crate) fn inst_positions(func: &kildall_ir::Function, block: Block) -> HashMap<Inst, usize> {
    func.layout
        .block_insts(block)
        .enumerate()
        .map(|(n, inst)| (inst, n))
        .collect()
}

/// The SHA-256 of a program's text: what a proof of a run names it by.
pub fn program_digest(module: &Module) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(module.to_string().as_bytes()).into()
}

/// The field elements of a list of run-time values, or `None` for a value
/// without them (noisy).
pub fn flatten(values: &[RuntimeValue]) -> Option<Vec<Fr>> {
    let mut out = Vec::new();
    for v in values {
        crate::lower::field_elements(v, &mut out)?;
    }
    Some(out)
}

/// Runs `main` of `module` on `args`, lowers every executed block and
/// fills its assignment; fails on the first block instance that does not
/// satisfy its constraints, or on the first access that fails the memory
/// check.
pub fn record(
    module: &Module,
    main: FuncId,
    args: Vec<RuntimeValue>,
    options: &InterpreterOptions,
) -> Result<Trace, TraceError> {
    let mut recorder = Recorder {
        module,
        main,
        kinds: BTreeMap::new(),
        instances: Vec::new(),
        memory: Vec::new(),
        frames: vec![Frame::default()],
        segments: HashMap::new(),
        error: None,
    };
    let claimed_args = flatten(&args).unwrap_or_default();
    let execution = interpret_observed(module, main, args, options, &mut recorder);
    if let Some(error) = recorder.error {
        return Err(error);
    }
    let (started, order) = recorder.run_order();
    let mut contents = vec![Vec::new(); recorder.segments.len()];
    for (elements, &s) in &recorder.segments {
        contents[s] = elements.clone();
    }
    let accesses: Vec<BlockAccess<'_>> = order
        .iter()
        .map(|&(i, k)| {
            let a = &recorder.memory[i].accesses[k];
            BlockAccess {
                valid: a.valid,
                address: a.address,
                value: a.value,
                kind: a.kind,
                array: a.segment.map(|s| &contents[s][..]),
            }
        })
        .collect();
    let (memory, origins) = MemoryCheck::of_accesses(&accesses);
    if let Err(error) = memory.check() {
        let what = match origins[error.entry()] {
            Some(n) => {
                let (i, k) = order[n];
                let (function, _) = recorder.instances[i].kind;
                let inst = recorder.memory[i].accesses[k].inst;
                format!(
                    "instance {i}, `{}`",
                    module.functions[function].display_inst(inst)
                )
            }
            None => "an array's initialisation".to_string(),
        };
        return Err(TraceError::Memory { what, error });
    }
    let memory_accesses = accesses.len() as u64;
    // The instances in the order they started, each knowing its place.
    let mut slots: Vec<Option<Instance>> = recorder.instances.into_iter().map(Some).collect();
    let mut instances = Vec::with_capacity(slots.len());
    for (position, i) in started.into_iter().enumerate() {
        let Some(mut instance) = slots[i].take() else {
            continue;
        };
        let at = recorder.kinds[&instance.kind].interface.position as usize;
        instance.assignment.public[at] = Fr::from(position as u64);
        instances.push(instance);
    }
    let result = match &execution.outcome {
        kildall_interpreter::Outcome::Return(values) => flatten(values).unwrap_or_default(),
        _ => Vec::new(),
    };
    Ok(Trace {
        program: program_digest(module),
        args: claimed_args,
        result,
        execution,
        kinds: recorder.kinds,
        memory_accesses,
        instances,
        memory,
    })
}

/// The constraint system of every block of every function, in layout
/// order, or the first block without a lowering.
pub fn lower_module(module: &Module) -> Result<BTreeMap<BlockKind, ConstraintSystem>, TraceError> {
    let main = module.main();
    let mut out = BTreeMap::new();
    for (id, func) in module.functions.iter() {
        for block in func.layout.blocks() {
            let options = LowerOptions {
                program_entry: Some(id) == main && func.entry_block() == Some(block),
            };
            let cs = lower_block(func, block, options).map_err(|error| TraceError::Lower {
                function: func.name.clone(),
                block,
                error,
            })?;
            out.insert((id, block), cs);
        }
    }
    Ok(out)
}
