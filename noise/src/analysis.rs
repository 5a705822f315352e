//! The noise analysis on the dataflow solver, and the verifier built on it.
//!
//! The design reuses MLIR's integer range analysis with a transfer function per
//! noisy op; here the state is one [`Max`] per value: `Bottom` (not reached),
//! `At(bits)`, or `Top` (over the maximum). Block parameters join their
//! incoming arguments by `max`; a loop that grows a carried value without a
//! reduction climbs until `Top`, which bounds the lattice height by
//! `max + 2` and the solver's visits per block accordingly.

use std::fmt;

use kildall_dataflow::{Analysis, Forward, FunctionGraph, JoinSemiLattice, Max};
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::plaintext::{plaintext_constant, scale_bits};
use kildall_ir::{
    BinaryOp, Block, EntityRef, Function, Inst, InstructionData, SecondaryMap, SourceLoc,
    Terminator, Type, Value, ValueDef,
};

use crate::NoiseParams;

/// The noise analysis: forward, one [`Max`] per value.
#[derive(Clone, Debug)]
pub struct NoiseAnalysis {
    /// The noise model.
    pub params: NoiseParams,
    /// Noise of noisy function parameters and opaque definitions.
    pub input_noise: u32,
    /// When set, one line per effect the solver applies, as it applies them.
    pub trace: Option<Vec<String>>,
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

impl Analysis<FunctionGraph<'_>> for NoiseAnalysis {
    type Domain = Vec<Max>;
    type Direction = Forward;

    fn bottom_value(&self, func: &FunctionGraph<'_>) -> Vec<Max> {
        vec![Max::Bottom; func.dfg.num_values()]
    }

    fn initialize_start_block(&self, func: &FunctionGraph<'_>, block: Block, state: &mut Vec<Max>) {
        for &param in func.dfg.block_params(block) {
            if *func.dfg.value_type(param) == Type::Noisy {
                state[param.index()] = Max::At(u64::from(self.input_noise));
            }
        }
    }

    fn apply_instruction_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut Vec<Max>,
        inst: Inst,
    ) {
        let Some(raw) = raw_noise(func, self.params, self.input_noise, state, inst) else {
            return;
        };
        let noise = match raw {
            Ok(bits) => Max::saturating(bits, u64::from(self.params.max)),
            Err(lattice) => lattice,
        };
        let result = func.dfg.first_result(inst).expect("a noisy result");
        state[result.index()] = noise;
        if let Some(trace) = &mut self.trace {
            trace.push(format!("Inferring noise for {}", describe(func, inst)));
            let detail = match raw {
                Ok(bits) => format!("{bits} bits"),
                Err(m) => show(m, self.params.max),
            };
            trace.push(format!("  inferred: {detail}"));
        }
    }

    fn apply_terminator_effect(&mut self, _: &FunctionGraph<'_>, _: &mut Vec<Max>, _: Block) {}

    fn apply_edge_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut Vec<Max>,
        from: Block,
        to: Block,
    ) {
        let Some(terminator) = func.dfg.terminator(from) else {
            return;
        };
        let args = terminator.edge_arguments(to);
        for (&param, &arg) in func.dfg.block_params(to).iter().zip(args) {
            if *func.dfg.value_type(param) != Type::Noisy {
                continue;
            }
            let noise = operand(func, self.params, state, arg);
            state[param.index()] = noise;
            if let Some(trace) = &mut self.trace {
                trace.push(format!(
                    "Joining {param} of {to} from {from}: {arg} has {}",
                    show(noise, self.params.max)
                ));
            }
        }
    }
}

/// The noise of every value at the fixed point.
#[derive(Clone, Debug)]
pub struct NoiseMap {
    /// Per value: `Bottom` when not reached or not noisy.
    pub noise: SecondaryMap<Value, Max>,
    /// The trace, when asked for.
    pub trace: Vec<String>,
    /// Block visits the solver made.
    pub block_visits: u64,
}

/// Runs the noise analysis on `func` (with a trace when `trace` is set);
/// `analyses` describe `func` as it is (or are invalidated).
pub fn analyze(
    func: &Function,
    analyses: &mut FunctionAnalyses,
    params: NoiseParams,
    input_noise: u32,
    trace: bool,
) -> NoiseMap {
    let analysis = NoiseAnalysis {
        params,
        input_noise,
        trace: trace.then(Vec::new),
    };
    let graph = FunctionGraph::new(func, analyses);
    let mut results = analysis.into_engine(&graph).iterate_to_fixpoint();
    let block_visits = results.stats().block_visits;
    let trace = results.analysis_mut().trace.take().unwrap_or_default();
    let mut noise: SecondaryMap<Value, Max> = SecondaryMap::with_default(Max::Bottom);
    let mut quiet = NoiseAnalysis {
        params,
        input_noise,
        trace: None,
    };
    for block in graph.cfg().reverse_postorder() {
        let mut state = results.entry_state(block).clone();
        for &param in func.dfg.block_params(block) {
            noise[param].join(&state[param.index()]);
        }
        for inst in func.layout.block_insts(block) {
            quiet.apply_instruction_effect(&graph, &mut state, inst);
            for &result in func.dfg.inst_results(inst) {
                noise[result] = state[result.index()];
            }
        }
    }
    NoiseMap {
        noise,
        trace,
        block_visits,
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
/// violation in reverse post-order. `analyses` describe `func` as it is
/// (or are invalidated).
pub fn verify(
    func: &Function,
    analyses: &mut FunctionAnalyses,
    params: NoiseParams,
    input_noise: u32,
) -> Result<(), NoiseViolation> {
    let analysis = NoiseAnalysis {
        params,
        input_noise,
        trace: None,
    };
    let graph = FunctionGraph::new(func, analyses);
    let results = analysis.into_engine(&graph).iterate_to_fixpoint();
    let mut quiet = results.analysis().clone();
    // `Some(bits)` when `noise` is over `bound`, `bits` being `None` for
    // `Top` (it grows without bound).
    let over = |noise: Max, bound: u32| match noise {
        Max::At(bits) if bits > u64::from(bound) => Some(Some(bits)),
        Max::Top => Some(None),
        _ => None,
    };
    for block in graph.cfg().reverse_postorder() {
        let mut state = results.entry_state(block).clone();
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
            if let Some(raw) = raw_noise(func, params, input_noise, &state, inst) {
                let noise = raw.map_or_else(|lattice| lattice, Max::At);
                if let Some(noise) = over(noise, params.max) {
                    return Err(violation(None, noise));
                }
            }
            for value in passed_operands(func, inst) {
                let noise = operand(func, params, &state, value);
                if let Some(noise) = over(noise, input_noise) {
                    return Err(violation(Some(value), noise));
                }
            }
            quiet.apply_instruction_effect(&graph, &mut state, inst);
        }
        for value in returned_values(func, block) {
            let noise = operand(func, params, &state, value);
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
                    loc: func.block_locs[block],
                });
            }
        }
    }
    Ok(())
}
