//! The verifier of a [`RunProof`]: it trusts the program and nothing else.
//!
//! It lowers every block of the program and derives each block kind's keys
//! from the program ([`crate::prove`] says what a trusted setup would
//! change), then walks the instances in the order they started, as a
//! per-block verifier checks transitions (CoBBl's consistency check):
//!
//! - the first instance is `main`'s entry block, its parameters the
//!   claimed arguments; every other instance is the block its activation's
//!   previous instance selects (the `jmp` destination, or the `jmpif`
//!   arm its condition, 0 or 1, picks), with the parameters it passed, or
//!   the entry of the function a call enters, with the call's arguments;
//! - an instance's other inputs are the values the instances before it in
//!   its activation passed on (the values a block computes and another
//!   reads are outputs of the block), the results of its calls, which
//!   the callee's returning instance returns, the results of its builtin
//!   calls, which the verifier computes from the arguments the instance
//!   passes them, or the module's globals;
//! - its position public input is its place in the run, and its Groth16
//!   proof verifies with its public inputs;
//! - `main` returns once, with the last instance, the claimed result.
//!
//! Every memory access is a tuple of public inputs of its instance, so the
//! verifier rebuilds the memory check's execution-ordered list from the
//! instances it checked (calls' accesses where the calls run), compares it
//! with the proof's, and verifies the memory check's proof against public
//! inputs it computes: the lists and the challenges they give.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, VecDeque};

use ark_bn254::Fr;
use ark_ff::{PrimeField, Zero};
use kildall_interpreter::RuntimeValue;
use kildall_ir::{
    Block, Builtin, Callee, EdgeSlot, EntityRef, FuncId, Function, Inst, InstructionData, Module,
    Terminator, Type, Value, ValueDef,
};

use crate::memory::{BlockAccess, MemoryCheck};
use crate::prove::{block_keys, memory_keys, verify as groth16_verify, Keys, ProveError};
use crate::run::{InstanceProof, RunProof};
use crate::system::{AccessKind, ConstraintSystem, Output, Source, Space};
use crate::trace::{flatten, inst_positions, lower_module, program_digest, BlockKind, TraceError};

/// Why a proof of a run is refused: the first check that failed.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The program has no `main`, or a block without a lowering.
    #[error("the program: {0}")]
    Program(String),
    /// The proof names another program.
    #[error("program: the proof is of a program with digest {proof}, this one's is {program}")]
    OtherProgram {
        /// The digest in the proof.
        proof: String,
        /// This program's.
        program: String,
    },
    /// The claimed arguments are not the ones asked about.
    #[error("arguments: the proof claims {claimed}, the arguments asked about are {expected}")]
    Arguments {
        /// The claimed arguments.
        claimed: String,
        /// The ones asked about.
        expected: String,
    },
    /// An instance names a block the program does not have.
    #[error("instance {instance}: the program has no block f{function} b{block}")]
    UnknownBlock {
        /// The instance.
        instance: usize,
        /// Its function number.
        function: u32,
        /// Its block number.
        block: u32,
    },
    /// An instance has another number of public inputs than its block.
    #[error("instance {instance}: {found} public inputs, its block has {expected}")]
    PublicInputs {
        /// The instance.
        instance: usize,
        /// The block's.
        expected: usize,
        /// The instance's.
        found: usize,
    },
    /// An instance's position public input is not its place.
    #[error("instance {instance}: position: its proof is of position {found}")]
    Position {
        /// The instance.
        instance: usize,
        /// The position it claims.
        found: String,
    },
    /// An instance is not the block the run continues with.
    #[error("instance {instance}: successor: the run continues with {expected}, the instance is of {found}")]
    Successor {
        /// The instance.
        instance: usize,
        /// The block the run continues with.
        expected: String,
        /// The instance's block.
        found: String,
    },
    /// An input is not the value the run gives it.
    #[error("instance {instance}: input {value} is {found}, {source_of} gives {expected}")]
    Input {
        /// The instance.
        instance: usize,
        /// The input.
        value: Value,
        /// Where its value comes from.
        source_of: String,
        /// That value.
        expected: String,
        /// The instance's.
        found: String,
    },
    /// A flag (a branch condition, a predicate) is neither 0 nor 1.
    #[error("instance {instance}: {what} is {value}, not 0 or 1")]
    NotBoolean {
        /// The instance.
        instance: usize,
        /// The flag.
        what: String,
        /// Its value.
        value: String,
    },
    /// The results of a builtin call cannot be computed from the
    /// arguments the instance passes it.
    #[error("instance {instance}: `{call}`: {reason}")]
    Builtin {
        /// The instance.
        instance: usize,
        /// The call.
        call: String,
        /// Why.
        reason: String,
    },
    /// What a block reads has no producer a proof binds.
    #[error("instance {instance}: {what} is not bound by any proof (no verifier support)")]
    Unsupported {
        /// The instance.
        instance: usize,
        /// What.
        what: String,
    },
    /// An instance's Groth16 proof does not verify.
    #[error(
        "instance {instance}: proof: the Groth16 proof of fn {function} {block} does not verify"
    )]
    Proof {
        /// The instance.
        instance: usize,
        /// Its function's name.
        function: String,
        /// Its block.
        block: Block,
    },
    /// A function's returned values are not what its call received.
    #[error(
        "instance {instance}: return: fn {callee} returns {returned}, the call received {received}"
    )]
    Return {
        /// The returning instance.
        instance: usize,
        /// The function.
        callee: String,
        /// What it returns.
        returned: String,
        /// What the caller's instance took as the call's results.
        received: String,
    },
    /// Instances after `main` returned.
    #[error("instance {instance}: end: main returned before it")]
    AfterReturn {
        /// The first instance after the return.
        instance: usize,
    },
    /// The instances end before `main` returns.
    #[error("end: the run's {instances} instances end before main returns")]
    Unfinished {
        /// The number of instances.
        instances: usize,
    },
    /// `main` returns another result than the claimed one.
    #[error("result: main returns {returned}, the proof claims {claimed}")]
    Result {
        /// What the last instance returns.
        returned: String,
        /// The claimed result.
        claimed: String,
    },
    /// The memory check's list is not the instances' accesses.
    #[error("memory check: {0}")]
    MemoryList(String),
    /// The memory check's proof does not verify.
    #[error("memory check: proof: the Groth16 proof does not verify")]
    MemoryProof,
    /// Groth16 failed to set up or to verify.
    #[error(transparent)]
    Groth16(#[from] ProveError),
}

/// What an accepted proof proved.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Verified {
    /// Block instances checked.
    pub instances: usize,
    /// Their memory accesses.
    pub accesses: usize,
}

/// A verifier of a program's runs, keeping the keys it set up.
pub struct Verifier<'m> {
    module: &'m Module,
    main: FuncId,
    program: [u8; 32],
    kinds: BTreeMap<BlockKind, ConstraintSystem>,
    keys: HashMap<BlockKind, Keys>,
    memory_keys: HashMap<[usize; 3], Keys>,
    /// The field elements of each global of the module (`None` for one
    /// that is not made of field elements).
    globals: Vec<Option<Vec<Fr>>>,
}

fn show(values: &[Fr]) -> String {
    let parts: Vec<String> = values.iter().map(|f| f.into_bigint().to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// The value of type `ty` whose flattened elements `elements` gives next
/// (the inverse of [`flatten`]), or why there is none.
fn runtime_value(
    ty: &Type,
    elements: &mut impl Iterator<Item = Fr>,
) -> Result<RuntimeValue, String> {
    let mut next = || {
        elements
            .next()
            .ok_or("fewer argument elements than its arguments take")
    };
    match ty {
        Type::Field => Ok(RuntimeValue::Field(next()?)),
        Type::Unsigned(bits) | Type::Signed(bits) => {
            let element = next()?;
            let limbs = element.into_bigint().0;
            let value = (limbs[2] == 0 && limbs[3] == 0)
                .then(|| u128::from(limbs[1]) << 64 | u128::from(limbs[0]))
                .filter(|&v| *bits >= 128 || v >> bits == 0)
                .ok_or_else(|| format!("argument element {} is not a {ty}", show(&[element])))?;
            Ok(RuntimeValue::Int {
                bits: *bits,
                signed: matches!(ty, Type::Signed(_)),
                value,
            })
        }
        Type::Array(types, len) => {
            let mut entries = Vec::with_capacity(types.len() * *len as usize);
            for _ in 0..*len {
                for ty in types.iter() {
                    entries.push(runtime_value(ty, elements)?);
                }
            }
            Ok(RuntimeValue::array(entries, types.to_vec()))
        }
        _ => Err(format!("an argument of type {ty} (no verifier support)")),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where the next instance of an activation goes.
enum Next {
    /// A block, with its parameters' values.
    Block(Block, Vec<Fr>),
    /// The activation returns these values.
    Return(Vec<Fr>),
}

/// An access as the verifier rebuilt it.
struct Access {
    valid: bool,
    address: Fr,
    value: Fr,
    kind: AccessKind,
    /// The array read, by its number in [`Walk::arrays`].
    array: Option<usize>,
}

/// A call of an instance that has not returned.
struct PendingCall {
    callee: FuncId,
    enabled: bool,
    args: Vec<Fr>,
    /// What the caller's instance took as the results.
    results: Vec<Fr>,
    /// The caller's accesses after the call, before its next call.
    after: Vec<Access>,
}

/// A function activation under way.
struct Activation {
    function: FuncId,
    next: Next,
    /// The values instances of this activation passed on.
    env: HashMap<Value, Vec<Fr>>,
    calls: VecDeque<PendingCall>,
}

/// The state of the walk over the instances.
#[derive(Default)]
struct Walk {
    stack: Vec<Activation>,
    returned: Option<Vec<Fr>>,
    accesses: Vec<Access>,
    arrays: Vec<Vec<Fr>>,
}

/// The instance being checked.
struct Seen<'a> {
    i: usize,
    func: &'a Function,
    block: Block,
    cs: &'a ConstraintSystem,
    public: &'a [Fr],
    globals: &'a [Option<Vec<Fr>>],
}

/// Each call's arguments and whether it runs.
type CallArguments = HashMap<Inst, (Vec<Fr>, Fr)>;

impl Seen<'_> {
    fn values(&self, sources: &[Source]) -> Vec<Fr> {
        sources
            .iter()
            .map(|s| s.value(self.public).unwrap_or_default())
            .collect()
    }

    fn flag(&self, value: Fr, what: impl FnOnce() -> String) -> Result<bool, VerifyError> {
        if value.is_zero() {
            Ok(false)
        } else if value == Fr::from(1u64) {
            Ok(true)
        } else {
            Err(VerifyError::NotBoolean {
                instance: self.i,
                what: what(),
                value: show(&[value]),
            })
        }
    }

    /// Checks the inputs (parameters against `params`, other values
    /// against what the activation's instances passed on) and records
    /// them; returns the results of its calls, which the callees' returns
    /// are checked against.
    fn inputs(
        &self,
        top: &mut Activation,
        params: &[Fr],
    ) -> Result<HashMap<Value, Vec<Fr>>, VerifyError> {
        let func = self.func;
        let block_params = func.dfg.block_params(self.block);
        let mut offset = 0;
        let mut call_results = HashMap::new();
        // Each builtin call's results, computed once for all of them.
        let mut builtin_results: HashMap<Inst, Vec<Vec<Fr>>> = HashMap::new();
        for (value, publics) in &self.cs.interface.inputs {
            let found: Vec<Fr> = publics.iter().map(|&n| self.public[n as usize]).collect();
            let (expected, source_of) = if block_params.contains(value) {
                let expected = params.get(offset..offset + found.len()).map(<[Fr]>::to_vec);
                offset += found.len();
                let source_of = if self.i == 0 {
                    "the claimed arguments"
                } else {
                    "the jump or call that enters the block"
                };
                (expected, source_of)
            } else {
                let call = match func.dfg.value_def(*value) {
                    ValueDef::Result(inst, _) => match &func.dfg[inst] {
                        InstructionData::Call { callee, .. } => Some((inst, callee)),
                        _ => None,
                    },
                    _ => None,
                };
                match (call, func.dfg.value_def(*value)) {
                    (Some((_, Callee::Function(_))), _) => {
                        call_results.insert(*value, found.clone());
                        top.env.insert(*value, found);
                        continue;
                    }
                    (Some((inst, Callee::Builtin(builtin))), ValueDef::Result(_, k)) => {
                        let results = match builtin_results.entry(inst) {
                            Entry::Occupied(e) => e.into_mut(),
                            Entry::Vacant(e) => e.insert(self.builtin_results(inst, *builtin)?),
                        };
                        (
                            results.get(k as usize).cloned(),
                            "the builtin on its arguments",
                        )
                    }
                    (Some((inst, Callee::Foreign(_) | Callee::Value(_))), _) => {
                        return Err(VerifyError::Unsupported {
                            instance: self.i,
                            what: format!("the result {value} of `{}`", func.display_inst(inst)),
                        });
                    }
                    (None, ValueDef::Global(g)) => {
                        let global = self.globals.get(g.index()).cloned().flatten();
                        (global, "the module's global")
                    }
                    _ => match top.env.get(value) {
                        Some(e) => (Some(e.clone()), "the block that defines it"),
                        None => (None, "no instance before it"),
                    },
                }
            };
            if expected.as_ref() != Some(&found) {
                return Err(VerifyError::Input {
                    instance: self.i,
                    value: *value,
                    source_of: source_of.to_string(),
                    expected: expected.map_or("nothing".to_string(), |e| show(&e)),
                    found: show(&found),
                });
            }
            top.env.insert(*value, found);
        }
        if offset != params.len() {
            return Err(VerifyError::Input {
                instance: self.i,
                value: block_params.first().copied().unwrap_or(Value::new(0)),
                source_of: "the jump or call that enters the block".to_string(),
                expected: show(params),
                found: format!("{offset} elements"),
            });
        }
        Ok(call_results)
    }

    /// The results of the builtin call `inst`, each flattened, computed
    /// from the arguments the instance passes it (its
    /// [`Output::BuiltinArguments`]).
    fn builtin_results(&self, inst: Inst, builtin: Builtin) -> Result<Vec<Vec<Fr>>, VerifyError> {
        let func = self.func;
        let dfg = &func.dfg;
        let refuse = |reason: String| VerifyError::Builtin {
            instance: self.i,
            call: func.display_inst(inst).to_string(),
            reason,
        };
        let InstructionData::Call { args, .. } = &dfg[inst] else {
            return Err(refuse("not a call".to_string()));
        };
        let elements: Vec<Fr> = self
            .cs
            .interface
            .outputs
            .iter()
            .filter(|(output, _)| *output == Output::BuiltinArguments(inst))
            .flat_map(|(_, sources)| self.values(sources))
            .collect();
        let types: Vec<Type> = args.iter().map(|&a| dfg.value_type(a).clone()).collect();
        let mut elements = elements.into_iter();
        let args = types
            .iter()
            .map(|ty| runtime_value(ty, &mut elements))
            .collect::<Result<Vec<_>, String>>()
            .map_err(refuse)?;
        if elements.next().is_some() {
            return Err(refuse(
                "more argument elements than its arguments take".to_string(),
            ));
        }
        let result_types: Vec<Type> = dfg
            .inst_results(inst)
            .iter()
            .map(|&r| dfg.value_type(r).clone())
            .collect();
        let brillig = func.is_brillig();
        let results = kildall_interpreter::call_builtin(builtin, args, &result_types, brillig)
            .map_err(|trap| refuse(format!("fails on its arguments: {trap}")))?;
        results
            .iter()
            .map(|value| flatten(std::slice::from_ref(value)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| refuse("a result without field elements".to_string()))
    }

    /// Records what the instance passes on and where its activation goes
    /// next; returns its calls' arguments.
    fn outputs(&self, top: &mut Activation, name: String) -> Result<CallArguments, VerifyError> {
        // The arguments of each edge: the jump's, or a branch's then and else.
        let mut jump = [Vec::new(), Vec::new()];
        let mut returned = Vec::new();
        let mut branch = None;
        let mut call_args: CallArguments = HashMap::new();
        for (output, sources) in &self.cs.interface.outputs {
            let values = self.values(sources);
            match *output {
                Output::Jump(EdgeSlot::Jump | EdgeSlot::Then) => jump[0] = values,
                Output::Jump(EdgeSlot::Else) => jump[1] = values,
                Output::Return => returned = values,
                Output::Branch => branch = values.first().copied(),
                Output::CallArguments(inst) => call_args.entry(inst).or_default().0 = values,
                // Read with the results, by `builtin_results`.
                Output::BuiltinArguments(_) => {}
                Output::CallEnabled(inst) => {
                    call_args.entry(inst).or_default().1 =
                        values.first().copied().unwrap_or_default()
                }
                Output::Escaping(value) => {
                    top.env.insert(value, values);
                }
            }
        }
        let [first_edge, else_edge] = jump;
        top.next = match self.func.dfg.terminator(self.block) {
            Some(Terminator::Jmp { destination, .. }) => Next::Block(*destination, first_edge),
            Some(Terminator::JmpIf {
                then_destination,
                else_destination,
                ..
            }) => {
                let condition = branch.unwrap_or_default();
                if self.flag(condition, || "the branch condition".to_string())? {
                    Next::Block(*then_destination, first_edge)
                } else {
                    Next::Block(*else_destination, else_edge)
                }
            }
            Some(Terminator::Return { .. }) => Next::Return(returned),
            Some(Terminator::Unreachable) | None => {
                return Err(VerifyError::Successor {
                    instance: self.i,
                    expected: "no block (it is unreachable)".to_string(),
                    found: name,
                })
            }
        };
        Ok(call_args)
    }

    /// The instance's calls to functions, in order, each at its position
    /// in the block.
    fn calls(
        &self,
        call_results: &HashMap<Value, Vec<Fr>>,
        mut call_args: CallArguments,
    ) -> Result<Vec<(usize, PendingCall)>, VerifyError> {
        let func = self.func;
        let mut calls = Vec::new();
        for (at, inst) in func.layout.block_insts(self.block).enumerate() {
            let InstructionData::Call {
                callee: Callee::Function(callee),
                ..
            } = &func.dfg[inst]
            else {
                continue;
            };
            let (args, enabled) = call_args.remove(&inst).unwrap_or_default();
            let enabled = self.flag(enabled, || {
                format!("whether `{}` runs", func.display_inst(inst))
            })?;
            let results: Vec<Fr> = func
                .dfg
                .inst_results(inst)
                .iter()
                .flat_map(|r| call_results.get(r).cloned().unwrap_or_default())
                .collect();
            let call = PendingCall {
                callee: *callee,
                enabled,
                args,
                results,
                after: Vec::new(),
            };
            calls.push((at, call));
        }
        Ok(calls)
    }

    /// Rebuilds the instance's accesses from its public inputs: those
    /// before its first call join the run's list now, the others wait for
    /// the call before them to return.
    fn accesses(
        &self,
        walk: &mut Walk,
        mut calls: Vec<(usize, PendingCall)>,
    ) -> Result<VecDeque<PendingCall>, VerifyError> {
        let positions = inst_positions(self.func, self.block);
        for (k, access) in self.cs.memory.iter().enumerate() {
            let [valid, address, value] =
                self.cs.interface.accesses[k].map(|s| s.value(self.public).unwrap_or_default());
            let valid = self.flag(valid, || {
                format!(
                    "whether `{}` accesses memory",
                    self.func.display_inst(access.inst)
                )
            })?;
            let array = match access.space {
                Space::Cells => None,
                Space::Array(array) => {
                    let elements = self
                        .cs
                        .interface
                        .arrays
                        .iter()
                        .find(|(v, _)| *v == array)
                        .map(|(_, s)| self.values(s))
                        .unwrap_or_default();
                    walk.arrays.push(elements);
                    Some(walk.arrays.len() - 1)
                }
            };
            let rebuilt = Access {
                valid,
                address,
                value,
                kind: access.kind,
                array,
            };
            let at = positions[&access.inst];
            match calls.iter_mut().rev().find(|(call_at, _)| *call_at < at) {
                Some((_, call)) => call.after.push(rebuilt),
                None => walk.accesses.push(rebuilt),
            }
        }
        Ok(calls.into_iter().map(|(_, c)| c).collect())
    }
}

impl<'m> Verifier<'m> {
    /// Lowers every block of `module`.
    pub fn new(module: &'m Module) -> Result<Self, VerifyError> {
        let main = module
            .main()
            .ok_or_else(|| VerifyError::Program("no function to run".to_string()))?;
        let kinds =
            lower_module(module).map_err(|e: TraceError| VerifyError::Program(e.to_string()))?;
        Ok(Verifier {
            module,
            main,
            program: program_digest(module),
            kinds,
            keys: HashMap::new(),
            memory_keys: HashMap::new(),
            globals: kildall_interpreter::global_values(module)
                .into_iter()
                .map(|value| flatten(&[value]))
                .collect(),
        })
    }

    /// Checks `proof`, and that its claimed arguments are `expected` when
    /// given: the first check that fails, or what was proven.
    pub fn verify(
        &mut self,
        proof: &RunProof,
        expected: Option<&[Fr]>,
    ) -> Result<Verified, VerifyError> {
        if proof.program != self.program {
            return Err(VerifyError::OtherProgram {
                proof: hex(&proof.program),
                program: hex(&self.program),
            });
        }
        if let Some(expected) = expected.filter(|e| *e != &proof.args[..]) {
            return Err(VerifyError::Arguments {
                claimed: show(&proof.args),
                expected: show(expected),
            });
        }
        let entry = self.module.functions[self.main]
            .entry_block()
            .ok_or_else(|| VerifyError::Program("main has no entry block".to_string()))?;
        let mut walk = Walk::default();
        walk.stack.push(Activation {
            function: self.main,
            next: Next::Block(entry, proof.args.clone()),
            env: HashMap::new(),
            calls: VecDeque::new(),
        });
        for (i, instance) in proof.instances.iter().enumerate() {
            self.instance(&mut walk, i, instance)?;
            self.settle(&mut walk, i)?;
        }
        if !walk.stack.is_empty() {
            return Err(VerifyError::Unfinished {
                instances: proof.instances.len(),
            });
        }
        let returned = walk.returned.take().unwrap_or_default();
        if returned != proof.result {
            return Err(VerifyError::Result {
                returned: show(&returned),
                claimed: show(&proof.result),
            });
        }
        self.memory(&walk, proof)?;
        Ok(Verified {
            instances: proof.instances.len(),
            accesses: walk.accesses.len(),
        })
    }

    /// Checks instance `i`: its block, position, inputs and proof; then
    /// records what it passes on, its calls and its accesses.
    fn instance(
        &mut self,
        walk: &mut Walk,
        i: usize,
        instance: &InstanceProof,
    ) -> Result<(), VerifyError> {
        let kind = (
            FuncId::new(instance.function as usize),
            Block::new(instance.block as usize),
        );
        let Some(cs) = self.kinds.get(&kind) else {
            return Err(VerifyError::UnknownBlock {
                instance: i,
                function: instance.function,
                block: instance.block,
            });
        };
        let public = &instance.public[..];
        if public.len() != cs.public_names.len() {
            return Err(VerifyError::PublicInputs {
                instance: i,
                expected: cs.public_names.len(),
                found: public.len(),
            });
        }
        let position = public[cs.interface.position as usize];
        if position != Fr::from(i as u64) {
            return Err(VerifyError::Position {
                instance: i,
                found: position.into_bigint().to_string(),
            });
        }
        let module = self.module;
        let name = |(f, b): BlockKind| format!("fn {} {b}", module.functions[f].name);
        let Some(top) = walk.stack.last_mut() else {
            return Err(VerifyError::AfterReturn { instance: i });
        };
        let params = match &top.next {
            Next::Block(block, params) if (top.function, *block) == kind => params.clone(),
            next => {
                return Err(VerifyError::Successor {
                    instance: i,
                    expected: match next {
                        Next::Block(block, _) => name((top.function, *block)),
                        Next::Return(_) => "a return".to_string(),
                    },
                    found: name(kind),
                })
            }
        };
        let seen = Seen {
            i,
            func: &module.functions[kind.0],
            block: kind.1,
            cs,
            public,
            globals: &self.globals,
        };
        let call_results = seen.inputs(top, &params)?;
        let call_args = seen.outputs(top, name(kind))?;
        let calls = seen.calls(&call_results, call_args)?;
        let calls = seen.accesses(walk, calls)?;
        if let Some(top) = walk.stack.last_mut() {
            top.calls = calls;
        }
        if !self.keys.contains_key(&kind) {
            let keys = block_keys(&self.program, kind, cs)?;
            self.keys.insert(kind, keys);
        }
        if !groth16_verify(&self.keys[&kind], public, &instance.proof)? {
            return Err(VerifyError::Proof {
                instance: i,
                function: seen.func.name.clone(),
                block: kind.1,
            });
        }
        Ok(())
    }

    /// After instance `i`: enters the next call that runs, or returns from
    /// every activation whose last instance it was.
    fn settle(&self, walk: &mut Walk, i: usize) -> Result<(), VerifyError> {
        loop {
            let Some(top) = walk.stack.last_mut() else {
                return Ok(());
            };
            if let Some(call) = top.calls.front() {
                if call.enabled {
                    let callee = call.callee;
                    let args = call.args.clone();
                    let entry = self.module.functions[callee]
                        .entry_block()
                        .ok_or_else(|| VerifyError::Program("a function without blocks".into()))?;
                    walk.stack.push(Activation {
                        function: callee,
                        next: Next::Block(entry, args),
                        env: HashMap::new(),
                        calls: VecDeque::new(),
                    });
                    return Ok(());
                }
                // A call a false predicate skips gives zeros.
                let call = top.calls.pop_front().expect("a front");
                if call.results.iter().any(|r| !r.is_zero()) {
                    return Err(VerifyError::Return {
                        instance: i,
                        callee: self.module.functions[call.callee].name.clone(),
                        returned: "zeros (the call does not run)".to_string(),
                        received: show(&call.results),
                    });
                }
                walk.accesses.extend(call.after);
                continue;
            }
            let Next::Return(values) = &top.next else {
                return Ok(());
            };
            let values = values.clone();
            let callee = top.function;
            walk.stack.pop();
            let Some(caller) = walk.stack.last_mut() else {
                walk.returned = Some(values);
                return Ok(());
            };
            let call = caller.calls.pop_front().expect("the call that entered it");
            if call.results != values {
                return Err(VerifyError::Return {
                    instance: i,
                    callee: self.module.functions[callee].name.clone(),
                    returned: show(&values),
                    received: show(&call.results),
                });
            }
            walk.accesses.extend(call.after);
        }
    }

    /// Rebuilds the memory check's list, compares it with the proof's and
    /// verifies its proof.
    fn memory(&mut self, walk: &Walk, proof: &RunProof) -> Result<(), VerifyError> {
        let accesses: Vec<BlockAccess<'_>> = walk
            .accesses
            .iter()
            .map(|a| BlockAccess {
                valid: a.valid,
                address: a.address,
                value: a.value,
                kind: a.kind,
                array: a.array.map(|n| &walk.arrays[n][..]),
            })
            .collect();
        let (check, _) = MemoryCheck::of_accesses(&accesses);
        let claimed: &[_] = proof.memory.as_ref().map_or(&[], |m| &m.entries);
        if claimed.len() != check.entries.len() {
            return Err(VerifyError::MemoryList(format!(
                "{} entries, the instances' accesses make {}",
                claimed.len(),
                check.entries.len()
            )));
        }
        if let Some(k) = (0..claimed.len()).find(|&k| claimed[k] != check.entries[k]) {
            return Err(VerifyError::MemoryList(format!(
                "entry {k} is {:?}, the instances' access is {:?}",
                claimed[k], check.entries[k]
            )));
        }
        let Some(memory) = &proof.memory else {
            return Ok(());
        };
        let (cs, assignment) = check.system();
        let shape = [
            cs.public_names.len(),
            cs.witness_names.len(),
            cs.num_constraints(),
        ];
        if !self.memory_keys.contains_key(&shape) {
            let keys = memory_keys(&self.program, &cs)?;
            self.memory_keys.insert(shape, keys);
        }
        if !groth16_verify(&self.memory_keys[&shape], &assignment.public, &memory.proof)? {
            return Err(VerifyError::MemoryProof);
        }
        Ok(())
    }
}
