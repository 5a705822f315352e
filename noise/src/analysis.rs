//! The noise analysis, and the verifier built on it.
//!
//! An integer range analysis with a transfer function per noisy op (as
//! MLIR's `IntegerRangeAnalysis` would run it), where only the upper end
//! matters: the lattice is [`Max`], `Bottom` (not reached), `At(bits)`, or
//! `Top` (over the maximum). Block parameters join their incoming arguments
//! by `max`; a loop that grows a carried value without a reduction climbs
//! until `Top`, which bounds the lattice height by `max + 2`.
//!
//! The analysis is sparse, in the manner of sparse conditional constant
//! propagation on SSA form (Wegman and Zadeck, TOPLAS 1991) without the
//! conditional part: a value is defined once, so its noise is one fact for
//! the whole function, not an entry in every block's state. The state is
//! one lattice element per value; one sweep in reverse post-order evaluates
//! each operation after its operands, and a worklist of values that rose
//! (along back edges) re-evaluates only their users, each at most `max + 2`
//! times. Time and memory are linear in the function, and a function
//! without noisy values costs one scan of its value types.

use std::fmt;

use kildall_dataflow::{JoinSemiLattice, Max};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::plaintext::{plaintext_constant, scale_bits};
use kildall_ir::{
    BinaryOp, Block, EntityRef, Function, Inst, InstructionData, SecondaryMap, SourceLoc,
    Terminator, Type, Value, ValueDef,
};

use crate::NoiseParams;

/// The noise analysis: one [`Max`] per value, propagated sparsely.
#[derive(Clone, Copy, Debug)]
pub struct NoiseAnalysis {
    /// The noise model.
    pub params: NoiseParams,
    /// Noise of noisy function parameters and opaque definitions.
    pub input_noise: u32,
    /// When set, [`NoiseMap::trace`] has one line per transfer function
    /// evaluated, in the order of evaluation.
    pub trace: bool,
}

/// The noise of a value given the state, constants as fresh encodings.
fn operand(func: &Function, params: NoiseParams, state: &[Max], value: Value) -> Max {
    let value = func.dfg.resolve(value);
    match func.dfg.value_def(value) {
        ValueDef::Const(_) => Max::At(u64::from(params.encode)),
        _ => state[value.index()],
    }
}

/// The noisy operand and the plaintext constant's magnitude of a binary op
/// with a plaintext constant operand (see `kildall_ir::plaintext`).
pub fn plaintext_operand(func: &Function, lhs: Value, rhs: Value) -> Option<(Value, u128)> {
    if let Some(c) = plaintext_constant(func, rhs) {
        return Some((lhs, c));
    }
    plaintext_constant(func, lhs).map(|c| (rhs, c))
}

/// The noise of `inst`'s result before saturation: `Ok(bits)`, or `Err` with
/// the lattice value when an operand is `Bottom` or `Top`. `None` if the
/// instruction defines no noisy value.
pub fn raw_noise(
    func: &Function,
    params: NoiseParams,
    input_noise: u32,
    state: &[Max],
    inst: Inst,
) -> Option<Result<u64, Max>> {
    let result = func.dfg.first_result(inst)?;
    if *func.dfg.value_type(result) != Type::Noisy {
        return None;
    }
    let get = |v| operand(func, params, state, v);
    let combine = |a: Max, b: Max, f: fn(u64, u64) -> u64| match (a, b) {
        (Max::At(a), Max::At(b)) => Ok(f(a, b)),
        (Max::Top, _) | (_, Max::Top) => Err(Max::Top),
        _ => Err(Max::Bottom),
    };
    Some(match func.dfg[inst] {
        InstructionData::Encode { .. } | InstructionData::ReduceNoise { .. } => {
            Ok(u64::from(params.encode))
        }
        InstructionData::Binary { op, lhs, rhs } => match plaintext_operand(func, lhs, rhs) {
            Some((noisy, c)) => {
                let bits = match op {
                    BinaryOp::Mul | BinaryOp::UncheckedMul => u64::from(scale_bits(c)),
                    _ => 0,
                };
                match get(noisy) {
                    Max::At(a) => Ok(a + bits),
                    other => Err(other),
                }
            }
            None => match op {
                BinaryOp::Mul | BinaryOp::UncheckedMul => combine(get(lhs), get(rhs), |a, b| a + b),
                _ => combine(get(lhs), get(rhs), |a, b| a.max(b) + 1),
            },
        },
        InstructionData::IfElse {
            then_value,
            else_value,
            ..
        } => combine(get(then_value), get(else_value), u64::max),
        _ => Ok(u64::from(input_noise)),
    })
}

/// The noisy operands `inst` passes across a boundary: every noisy operand
/// of an operation the noise model does not follow through (a call's
/// arguments, a stored value, an array's elements). Whatever reads them
/// back, a callee's parameter, a `load`, an `array_get`, is a source at the
/// input noise, so they may carry at most that much.
pub fn passed_operands(func: &Function, inst: Inst) -> Vec<Value> {
    match &func.dfg[inst] {
        InstructionData::Binary { .. }
        | InstructionData::IfElse { .. }
        | InstructionData::Encode { .. }
        | InstructionData::Decode { .. }
        | InstructionData::ReduceNoise { .. } => Vec::new(),
        data => noisy_values(func, data.arguments().as_slice()).collect(),
    }
}

/// The noisy values `block` returns: its caller reads them as call results,
/// sources at the input noise, so they too may carry at most that much.
pub fn returned_values(func: &Function, block: Block) -> impl Iterator<Item = Value> + '_ {
    let values = match func.dfg.terminator(block) {
        Some(Terminator::Return { values }) => values.as_slice(),
        _ => &[],
    };
    noisy_values(func, values)
}

fn noisy_values<'a>(func: &'a Function, values: &'a [Value]) -> impl Iterator<Item = Value> + 'a {
    values
        .iter()
        .map(|&v| func.dfg.resolve(v))
        .filter(|&v| *func.dfg.value_type(v) == Type::Noisy)
}

/// `v7 = mul v5, v6`: the text of a noisy instruction, for messages.
pub fn describe(func: &Function, inst: Inst) -> String {
    func.display_inst(inst).to_string()
}

fn show(noise: Max, max: u32) -> String {
    match noise {
        Max::At(bits) => format!("{bits} bits"),
        Max::Top => format!("over {max} bits"),
        Max::Bottom => "unknown".into(),
    }
}

/// The noise of every value at the fixed point.
#[derive(Clone, Debug)]
pub struct NoiseMap {
    /// Per value: `Bottom` when not reached or not noisy.
    pub noise: SecondaryMap<Value, Max>,
    /// The trace, when asked for.
    pub trace: Vec<String>,
    /// Transfer functions evaluated (instructions and edges), a measure of
    /// the work done: each is evaluated once, and again only when one of
    /// its operands rose.
    pub evaluations: u64,
}

impl NoiseAnalysis {
    /// The analysis under `params`, sources at `input_noise`, without a trace.
    pub fn new(params: NoiseParams, input_noise: u32) -> Self {
        Self {
            params,
            input_noise,
            trace: false,
        }
    }

    /// Runs the analysis on `func`, whose control-flow graph `analyses`
    /// holds or computes.
    pub fn run(&self, func: &Function, analyses: &mut FunctionAnalyses) -> NoiseMap {
        self.map(func, analyses.cfg(func))
    }

    /// [`Self::run`] given the control-flow graph of `func`.
    pub(crate) fn map(&self, func: &Function, cfg: &ControlFlowGraph) -> NoiseMap {
        let mut noise: SecondaryMap<Value, Max> = SecondaryMap::with_default(Max::Bottom);
        let Some(mut propagation) = Propagation::new(self, func, cfg) else {
            // No noisy value: nothing to propagate, every value is `Bottom`.
            return NoiseMap {
                noise,
                trace: Vec::new(),
                evaluations: 0,
            };
        };
        propagation.solve();
        for (index, &value) in propagation.noise.iter().enumerate() {
            if value != Max::Bottom {
                noise[Value::new(index)] = value;
            }
        }
        NoiseMap {
            noise,
            trace: propagation.trace.unwrap_or_default(),
            evaluations: propagation.evaluations,
        }
    }
}

/// Where a noisy value is read: by an instruction, or by a block's
/// terminator as an argument along its edges.
#[derive(Clone, Copy)]
enum User {
    Inst(Inst),
    Edges(Block),
}

/// The sparse propagation of one run: the noise of every value (one entry
/// per value, the whole state: a value is defined once, so its noise is
/// the same wherever it is live), and for each noisy value the places that
/// read it, in one array with a range per value.
struct Propagation<'a> {
    func: &'a Function,
    cfg: &'a ControlFlowGraph,
    params: NoiseParams,
    input_noise: u32,
    noise: Vec<Max>,
    user_start: Vec<u32>,
    users: Vec<User>,
    pending: Vec<Value>,
    /// Set during the first sweep, when only parameters of blocks already
    /// swept need to be evaluated again.
    sweeping: bool,
    trace: Option<Vec<String>>,
    evaluations: u64,
}

impl<'a> Propagation<'a> {
    /// The propagation over the reachable blocks of `func`, or `None` when
    /// `func` has no noisy value.
    fn new(
        analysis: &NoiseAnalysis,
        func: &'a Function,
        cfg: &'a ControlFlowGraph,
    ) -> Option<Self> {
        let values = func.dfg.num_values();
        let noisy = |v: Value| *func.dfg.value_type(func.dfg.resolve(v)) == Type::Noisy;
        if !(0..values).any(|i| *func.dfg.value_type(Value::new(i)) == Type::Noisy) {
            return None;
        }
        // The use lists, counted then filled (compressed rows).
        let mut user_start = vec![0u32; values + 1];
        let for_each_use = |visit: &mut dyn FnMut(Value, User)| {
            for &block in cfg.postorder() {
                for inst in func.layout.block_insts(block) {
                    for v in func.dfg[inst].arguments().as_slice() {
                        if noisy(*v) {
                            visit(func.dfg.resolve(*v), User::Inst(inst));
                        }
                    }
                }
                if let Some(terminator) = func.dfg.terminator(block) {
                    for v in terminator.arguments() {
                        if noisy(*v) {
                            visit(func.dfg.resolve(*v), User::Edges(block));
                        }
                    }
                }
            }
        };
        for_each_use(&mut |v, _| user_start[v.index() + 1] += 1);
        for i in 0..values {
            user_start[i + 1] += user_start[i];
        }
        let mut next = user_start.clone();
        let mut users = vec![User::Inst(Inst::new(0)); user_start[values] as usize];
        for_each_use(&mut |v, user| {
            users[next[v.index()] as usize] = user;
            next[v.index()] += 1;
        });
        Some(Self {
            func,
            cfg,
            params: analysis.params,
            input_noise: analysis.input_noise,
            noise: vec![Max::Bottom; values],
            user_start,
            users,
            pending: Vec::new(),
            sweeping: true,
            trace: analysis.trace.then(Vec::new),
            evaluations: 0,
        })
    }

    /// One sweep in reverse post-order evaluates every operation after its
    /// operands (definitions dominate their uses); then the values that
    /// rose along a back edge are propagated to their users until nothing
    /// changes. Each value rises at most `max + 2` times (`Bottom`, the
    /// levels up to the maximum, `Top`), so the work is linear in the
    /// program.
    fn solve(&mut self) {
        let func = self.func;
        let cfg = self.cfg;
        if let Some(entry) = cfg.entry_block() {
            for &param in func.dfg.block_params(entry) {
                if *func.dfg.value_type(param) == Type::Noisy {
                    self.noise[param.index()] = Max::At(u64::from(self.input_noise));
                }
            }
        }
        for &block in cfg.postorder().iter().rev() {
            for inst in func.layout.block_insts(block) {
                self.evaluate(inst);
            }
            self.flow_edges(block);
        }
        self.sweeping = false;
        while let Some(value) = self.pending.pop() {
            let range = self.user_start[value.index()] as usize
                ..self.user_start[value.index() + 1] as usize;
            for i in range {
                match self.users[i] {
                    User::Inst(inst) => {
                        if let Some(result) = self.evaluate(inst) {
                            self.pending.push(result);
                        }
                    }
                    User::Edges(block) => self.flow_edges(block),
                }
            }
        }
    }

    /// Evaluates `inst`'s transfer function; the result, if it rose.
    fn evaluate(&mut self, inst: Inst) -> Option<Value> {
        let raw = raw_noise(self.func, self.params, self.input_noise, &self.noise, inst)?;
        self.evaluations += 1;
        let noise = match raw {
            Ok(bits) => Max::saturating(bits, u64::from(self.params.max)),
            Err(lattice) => lattice,
        };
        if let Some(trace) = &mut self.trace {
            trace.push(format!("Inferring noise for {}", describe(self.func, inst)));
            let detail = match raw {
                Ok(bits) => format!("{bits} bits"),
                Err(m) => show(m, self.params.max),
            };
            trace.push(format!("  inferred: {detail}"));
        }
        let result = self.func.dfg.first_result(inst)?;
        self.noise[result.index()].join(&noise).then_some(result)
    }

    /// Joins the arguments `block` passes along its edges into the noisy
    /// parameters of its successors; those that rose go to the worklist.
    fn flow_edges(&mut self, block: Block) {
        let func = self.func;
        let Some(terminator) = func.dfg.terminator(block) else {
            return;
        };
        // Every edge: a `jmpif` to one block on both edges joins each
        // parameter with both of its arguments.
        for edge in terminator.edges() {
            let to = edge.destination;
            for (&param, &arg) in func.dfg.block_params(to).iter().zip(edge.arguments) {
                if *func.dfg.value_type(param) != Type::Noisy {
                    continue;
                }
                self.evaluations += 1;
                let incoming = operand(func, self.params, &self.noise, arg);
                if let Some(trace) = &mut self.trace {
                    trace.push(format!(
                        "Joining {param} of {to} from {block}: {arg} has {}",
                        show(incoming, self.params.max)
                    ));
                }
                let swept = |b| self.cfg.postorder_number(b);
                let again = !self.sweeping || swept(to) >= swept(block);
                if self.noise[param.index()].join(&incoming) && again {
                    self.pending.push(param);
                }
            }
        }
    }
}

/// A value over its bound: a noisy operation's result over the maximum, or
/// a value passed across a boundary (see [`passed_operands`] and
/// [`returned_values`]) over the input noise the other side assumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseViolation {
    /// The operation; `None` for a `return`.
    pub inst: Option<Inst>,
    /// Its text, e.g. `v7 = mul v5, v6` or `return v9`.
    pub text: String,
    /// The value passed across a boundary, or `None` when the operation's
    /// own result is over the maximum.
    pub passed: Option<Value>,
    /// Its noise in bits; `None` when it grows without bound around a loop.
    pub noise: Option<u64>,
    /// The bound: the maximum, or the input noise for a passed value.
    pub bound: u32,
    /// Where the operation is in the source, if known.
    pub loc: SourceLoc,
}

impl fmt::Display for NoiseViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, over) = match self.passed {
            None => (format!("noise after {}", self.text), "the maximum of"),
            Some(value) => (
                format!("noise of {value} passed by {}", self.text),
                "the input noise of",
            ),
        };
        match self.noise {
            Some(bits) => write!(f, "{what} is {bits} bits, over {over} {}", self.bound),
            None => write!(
                f,
                "{what} grows without bound (a loop without reduce_noise), over {over} {}",
                self.bound
            ),
        }
    }
}

impl std::error::Error for NoiseViolation {}

/// Checks that no noisy operation of `func` exceeds the maximum and that no
/// value passed across a boundary (call arguments, returned, stored and
/// array values) exceeds `input_noise`; the error names the first
/// violation in reverse post-order.
pub fn verify(
    func: &Function,
    analyses: &mut FunctionAnalyses,
    params: NoiseParams,
    input_noise: u32,
) -> Result<(), NoiseViolation> {
    verify_on(func, analyses.cfg(func), params, input_noise)
}

/// [`verify`] given the control-flow graph of `func`.
pub(crate) fn verify_on(
    func: &Function,
    cfg: &ControlFlowGraph,
    params: NoiseParams,
    input_noise: u32,
) -> Result<(), NoiseViolation> {
    let Some(mut propagation) =
        Propagation::new(&NoiseAnalysis::new(params, input_noise), func, cfg)
    else {
        return Ok(());
    };
    propagation.solve();
    let state = &propagation.noise;
    // `Some(bits)` when `noise` is over `bound`, `bits` being `None` for
    // `Top` (it grows without bound).
    let over = |noise: Max, bound: u32| match noise {
        Max::At(bits) if bits > u64::from(bound) => Some(Some(bits)),
        Max::Top => Some(None),
        _ => None,
    };
    for &block in cfg.postorder().iter().rev() {
        for inst in func.layout.block_insts(block) {
            let violation = |passed, noise| NoiseViolation {
                inst: Some(inst),
                text: describe(func, inst),
                passed,
                noise,
                bound: if passed.is_some() {
                    input_noise
                } else {
                    params.max
                },
                loc: func.inst_locs[inst],
            };
            if let Some(raw) = raw_noise(func, params, input_noise, state, inst) {
                let noise = raw.map_or_else(|lattice| lattice, Max::At);
                if let Some(noise) = over(noise, params.max) {
                    return Err(violation(None, noise));
                }
            }
            for value in passed_operands(func, inst) {
                let noise = operand(func, params, state, value);
                if let Some(noise) = over(noise, input_noise) {
                    return Err(violation(Some(value), noise));
                }
            }
        }
        for value in returned_values(func, block) {
            let noise = operand(func, params, state, value);
            if let Some(noise) = over(noise, input_noise) {
                return Err(NoiseViolation {
                    inst: None,
                    text: func
                        .display_terminator(block)
                        .to_string()
                        .trim()
                        .to_string(),
                    passed: Some(value),
                    noise,
                    bound: input_noise,
                    loc: func.terminator_loc(block),
                });
            }
        }
    }
    Ok(())
}
