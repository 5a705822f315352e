//! Lowering one block of the IR to a rank-1 constraint system, and filling
//! its witness from the values an execution of the block computed.
//!
//! One pass over the block does both: [`lower_block`] builds the system
//! only; [`assign_block`] builds the same system and, with the values the
//! interpreter recorded, the value of every variable. A value the lowering
//! computes (the bits of a sum, the result of a comparison) is compared
//! with the interpreter's, so a lowering that disagrees with the IR's
//! semantics fails on the instruction, not later.
//!
//! # The interface of a block
//!
//! A block's public inputs are its *inputs* (its parameters, the values of
//! dominating blocks it reads, the results of the functions it calls) and
//! its *outputs* (the arguments of its jump, the condition of its branch,
//! the returned values, the arguments of its calls): the transition state
//! a per-block prover checks between instances, as in CoBBl. An integer
//! input is not range-checked again: the block that produced it did, and
//! the entry block of the program checks the program's arguments.
//!
//! # Values
//!
//! A `Field` value is a linear combination; `uN` and `iN` values are their
//! `N`-bit two's complement patterns, so an integer result is the sum of
//! the bits it was decomposed into; references and functions are their
//! numbers. Arrays, nested ones included, are the vectors of their leaves
//! in Noir's flat order (`arrays` says how instructions index them). The
//! bits of an integer are kept once known, so a value decomposed once (by the
//! operation that made it) is never decomposed again in the block.

mod arith;
mod arrays;
mod insts;
mod ints;

use std::collections::HashMap;

use ark_bn254::Fr;
use ark_ff::{Field, One, PrimeField, Zero};
use kildall_interpreter::RuntimeValue;
use kildall_ir::{Block, EdgeSlot, Function, Inst, Terminator, Type, Value, ValueDef};

use crate::system::{Assignment, ConstraintSystem, Lc, Origin, Output, Source, Space, Var};

/// Why a block cannot be lowered, or why an execution of it does not
/// agree with its lowering.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum LowerError {
    /// An instruction this lowering has no constraints for.
    #[error("{inst}: {what} has no R1CS lowering")]
    Unsupported {
        /// The instruction.
        inst: Inst,
        /// What it is.
        what: String,
    },
    /// The run recorded no value for an input of the block.
    #[error("{block}: the run recorded no value for {value}")]
    MissingValue {
        /// The block.
        block: Block,
        /// The input.
        value: Value,
    },
    /// The lowering computes another value than the interpreter did.
    #[error("{inst}: the constraints give {value} = {r1cs}, the interpreter {interpreter}")]
    Mismatch {
        /// The instruction.
        inst: Inst,
        /// Its result.
        value: Value,
        /// The value the constraints compute, as field elements.
        r1cs: String,
        /// The interpreter's.
        interpreter: String,
    },
}

/// How a block is lowered.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct LowerOptions {
    /// The block is the program's entry: its parameters are the program's
    /// arguments, range-checked here.
    pub program_entry: bool,
}

/// The constraint system of `block` of `func`.
pub fn lower_block(
    func: &Function,
    block: Block,
    options: LowerOptions,
) -> Result<ConstraintSystem, LowerError> {
    let mut lowerer = Lowerer::new(func, block, None);
    lowerer.run(options)?;
    Ok(lowerer.cs)
}

/// The constraint system of `block` and its assignment for the execution
/// whose values `values` gives (`None` for a value the run did not have).
pub fn assign_block(
    func: &Function,
    block: Block,
    options: LowerOptions,
    values: &dyn Fn(Value) -> Option<RuntimeValue>,
) -> Result<(ConstraintSystem, Assignment), LowerError> {
    let mut lowerer = Lowerer::new(func, block, Some(values));
    lowerer.run(options)?;
    Ok((lowerer.cs, lowerer.assignment))
}

/// The field elements of a run-time value: its flattened scalars.
pub fn field_elements(value: &RuntimeValue, out: &mut Vec<Fr>) -> Option<()> {
    match value {
        RuntimeValue::Field(f) => out.push(*f),
        RuntimeValue::Int { value, .. } => out.push(Fr::from(*value)),
        RuntimeValue::Ref(r) => out.push(Fr::from(r.0)),
        RuntimeValue::Function(f) => out.push(Fr::from(kildall_ir::EntityRef::index(*f) as u64)),
        RuntimeValue::Array { elements, .. } => {
            for e in elements.iter() {
                field_elements(e, out)?;
            }
        }
        RuntimeValue::Noisy { .. } => return None,
    }
    Some(())
}

/// How a value is represented in the system.
#[derive(Clone, Debug)]
pub(crate) enum Repr {
    Scalar(Lc),
    Array(Vec<Lc>),
}

impl Repr {
    fn elements(&self) -> &[Lc] {
        match self {
            Repr::Scalar(lc) => std::slice::from_ref(lc),
            Repr::Array(elements) => elements,
        }
    }
}

pub(crate) struct Lowerer<'a> {
    func: &'a Function,
    block: Block,
    values: Option<&'a dyn Fn(Value) -> Option<RuntimeValue>>,
    cs: ConstraintSystem,
    assignment: Assignment,
    repr: HashMap<Value, Repr>,
    bits: HashMap<Value, Vec<Lc>>,
    predicate: Lc,
    origin: Origin,
    /// Outputs, allocated as public inputs after the block's inputs.
    outputs: Vec<(Output, String, Lc)>,
    /// The predicate of each call to a function.
    calls: Vec<(Inst, Lc)>,
}

/// `2^i` in the field.
pub(crate) fn pow2(i: u32) -> Fr {
    Fr::from(2u64).pow([u64::from(i)])
}

/// `Σ 2^i bits[i]`.
pub(crate) fn recompose(bits: &[Lc]) -> Lc {
    bits.iter()
        .enumerate()
        .fold(Lc::zero(), |acc, (i, b)| acc.add_scaled(pow2(i as u32), b))
}

impl<'a> Lowerer<'a> {
    fn new(
        func: &'a Function,
        block: Block,
        values: Option<&'a dyn Fn(Value) -> Option<RuntimeValue>>,
    ) -> Self {
        Lowerer {
            func,
            block,
            values,
            cs: ConstraintSystem::default(),
            assignment: Assignment::default(),
            repr: HashMap::new(),
            bits: HashMap::new(),
            predicate: Lc::constant(Fr::one()),
            origin: Origin::Terminator,
            outputs: Vec::new(),
            calls: Vec::new(),
        }
    }

    fn witnessing(&self) -> bool {
        self.values.is_some()
    }

    fn run(&mut self, options: LowerOptions) -> Result<(), LowerError> {
        let func = self.func;
        for &param in func.dfg.block_params(self.block) {
            self.input(param)?;
            if options.program_entry {
                self.origin = Origin::Input(param);
                let ty = func.dfg.value_type(param).clone();
                let repr = self.repr[&param].clone();
                let leaf_types: Vec<&Type> = match &ty {
                    Type::Array(..) => {
                        let count = repr.elements().len() as u64;
                        kildall_ir::flat::leaf_types(&ty, count).unwrap_or_default()
                    }
                    other => vec![other],
                };
                for (k, lc) in repr.elements().iter().enumerate() {
                    let Some(n) = leaf_types.get(k).and_then(|t| t.bit_size()) else {
                        continue;
                    };
                    let name = match ty {
                        Type::Array(..) => format!("{param}[{k}]"),
                        _ => format!("{param}"),
                    };
                    let bits = self.decompose(lc, n, &name);
                    if !matches!(ty, Type::Array(..)) {
                        self.bits.insert(param, bits);
                    }
                }
            }
        }
        for inst in func.layout.block_insts(self.block) {
            self.origin = Origin::Inst(inst);
            self.lower_inst(inst)?;
            if self.witnessing() {
                self.compare(inst)?;
            }
        }
        self.origin = Origin::Terminator;
        match func.dfg.terminator(self.block) {
            Some(term @ (Terminator::Jmp { .. } | Terminator::JmpIf { .. })) => {
                if let Terminator::JmpIf { condition, .. } = term {
                    self.output(Output::Branch, "branch", *condition)?;
                }
                // Every edge's arguments, each its own output: the verifier
                // takes those of the edge the branch names.
                for edge in term.edges() {
                    let destination = edge.destination;
                    for (k, &arg) in edge.arguments.iter().enumerate() {
                        let name = match edge.slot {
                            EdgeSlot::Jump => format!("{destination}.{k}"),
                            EdgeSlot::Then => format!("then {destination}.{k}"),
                            EdgeSlot::Else => format!("else {destination}.{k}"),
                        };
                        self.output(Output::Jump(edge.slot), &name, arg)?;
                    }
                }
            }
            Some(Terminator::Return { values }) => {
                for (k, &v) in values.iter().enumerate() {
                    self.output(Output::Return, &format!("return.{k}"), v)?;
                }
            }
            Some(Terminator::Unreachable) | None => {
                // Reaching it traps: no assignment satisfies `1 * 1 = 0`.
                self.enforce(Lc::from_u64(1), Lc::from_u64(1), Lc::zero());
            }
        }
        self.cs.num_inputs = self.cs.public_names.len();
        let mut outputs: Vec<(Output, Vec<Source>)> = Vec::new();
        for (tag, name, lc) in std::mem::take(&mut self.outputs) {
            let value = self.eval(&lc);
            let out = self.new_public(name, value);
            self.enforce(lc, Lc::from_u64(1), Lc::var(out));
            let Var::Public(n) = out else { unreachable!() };
            match outputs.last_mut() {
                Some((last, sources)) if *last == tag => sources.push(Source::Public(n)),
                _ => outputs.push((tag, vec![Source::Public(n)])),
            }
        }
        self.cs.interface.outputs = outputs;
        self.expose_interface()
    }

    /// Exposes what a verifier links beyond the outputs: the values other
    /// blocks read, whether each call runs, every memory access's tuple and
    /// the arrays read at a dynamic index; then the position.
    fn expose_interface(&mut self) -> Result<(), LowerError> {
        for value in escaping(self.func, self.block) {
            let Some(repr) = self.repr.get(&value).cloned() else {
                continue;
            };
            let sources = self.expose_all(repr.elements(), &format!("{value}"));
            self.cs
                .interface
                .outputs
                .push((Output::Escaping(value), sources));
        }
        for (inst, predicate) in std::mem::take(&mut self.calls) {
            let source = self.expose(&predicate, &format!("{inst}.enabled"));
            self.cs
                .interface
                .outputs
                .push((Output::CallEnabled(inst), vec![source]));
        }
        let mut arrays: Vec<Value> = Vec::new();
        for k in 0..self.cs.memory.len() {
            let access = self.cs.memory[k].clone();
            let name = format!("{}.access{k}", access.inst);
            let tuple = [
                self.expose(&access.valid, &format!("{name}.valid")),
                self.expose(&access.address, &format!("{name}.address")),
                self.expose(&access.value, &format!("{name}.value")),
            ];
            self.cs.interface.accesses.push(tuple);
            if let Space::Array(array) = access.space {
                if !arrays.contains(&array) {
                    arrays.push(array);
                }
            }
        }
        for array in arrays {
            let repr = self.value(array)?;
            let sources = self.expose_all(repr.elements(), &format!("{array}"));
            self.cs.interface.arrays.push((array, sources));
        }
        let value = self.witnessing().then(Fr::zero);
        let Var::Public(n) = self.new_public("position".to_string(), value) else {
            unreachable!()
        };
        self.cs.interface.position = n;
        Ok(())
    }

    /// Where a verifier reads `lc`: a constant, a public input that is
    /// `lc` already, or a new one constrained to it.
    fn expose(&mut self, lc: &Lc, name: &str) -> Source {
        if let Some(c) = lc.as_constant() {
            return Source::Constant(c);
        }
        if let [(Var::Public(n), c)] = lc.0[..] {
            if c.is_one() {
                return Source::Public(n);
            }
        }
        let value = self.eval(lc);
        let out = self.new_public(name.to_string(), value);
        self.enforce(lc.clone(), Lc::from_u64(1), Lc::var(out));
        let Var::Public(n) = out else { unreachable!() };
        Source::Public(n)
    }

    fn expose_all(&mut self, elements: &[Lc], name: &str) -> Vec<Source> {
        let many = elements.len() > 1;
        elements
            .iter()
            .enumerate()
            .map(|(k, lc)| {
                let name = if many {
                    format!("{name}[{k}]")
                } else {
                    name.to_string()
                };
                self.expose(lc, &name)
            })
            .collect()
    }

    /// Checks the values the constraints give the results of `inst`
    /// against the interpreter's.
    fn compare(&mut self, inst: Inst) -> Result<(), LowerError> {
        for &result in self.func.dfg.inst_results(inst) {
            let Some(repr) = self.repr.get(&result) else {
                continue;
            };
            let ours: Vec<Fr> = repr
                .elements()
                .iter()
                .map(|lc| self.eval_known(lc))
                .collect();
            let theirs = self.recorded(result)?;
            if ours != theirs {
                let show = |v: &[Fr]| {
                    v.iter()
                        .map(|f| f.into_bigint().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(LowerError::Mismatch {
                    inst,
                    value: result,
                    r1cs: show(&ours),
                    interpreter: show(&theirs),
                });
            }
        }
        Ok(())
    }

    /// The interpreter's value of `value`, as field elements.
    fn recorded(&self, value: Value) -> Result<Vec<Fr>, LowerError> {
        let missing = LowerError::MissingValue {
            block: self.block,
            value,
        };
        let values = self.values.ok_or(missing.clone())?;
        let v = values(value).ok_or(missing.clone())?;
        let mut out = Vec::new();
        field_elements(&v, &mut out).ok_or(missing)?;
        Ok(out)
    }

    fn new_public(&mut self, name: String, value: Option<Fr>) -> Var {
        self.cs.public_names.push(name);
        if let Some(v) = value {
            self.assignment.public.push(v);
        }
        Var::Public(self.cs.public_names.len() as u32 - 1)
    }

    pub(crate) fn new_witness(&mut self, name: String, value: Option<Fr>) -> Var {
        self.cs.witness_names.push(name);
        if self.witnessing() {
            self.assignment.witness.push(value.unwrap_or_default());
        }
        Var::Witness(self.cs.witness_names.len() as u32 - 1)
    }

    pub(crate) fn enforce(&mut self, a: Lc, b: Lc, c: Lc) {
        self.cs.constraints.push(crate::system::Constraint {
            a,
            b,
            c,
            origin: self.origin,
        });
    }

    /// The value of `lc` when witnessing, else `None`.
    pub(crate) fn eval(&self, lc: &Lc) -> Option<Fr> {
        self.witnessing().then(|| self.eval_known(lc))
    }

    fn eval_known(&self, lc: &Lc) -> Fr {
        lc.0.iter()
            .map(|&(v, c)| {
                c * match v {
                    Var::One => Fr::one(),
                    Var::Public(n) => self.assignment.public[n as usize],
                    Var::Witness(n) => self.assignment.witness[n as usize],
                }
            })
            .sum()
    }

    /// Allocates `value` (from outside the block) as public inputs.
    fn input(&mut self, value: Value) -> Result<Repr, LowerError> {
        let ty = self.func.dfg.value_type(value).clone();
        let recorded = if self.witnessing() {
            Some(self.recorded(value)?)
        } else {
            None
        };
        let len = flat_len(&ty).ok_or_else(|| LowerError::Unsupported {
            inst: self.current_inst(),
            what: format!("a value of type {ty}"),
        })?;
        if recorded.as_ref().is_some_and(|r| r.len() != len) {
            return Err(LowerError::MissingValue {
                block: self.block,
                value,
            });
        }
        let mut elements = Vec::with_capacity(len);
        let mut publics = Vec::with_capacity(len);
        for k in 0..len {
            let name = if matches!(ty, Type::Array(..)) {
                format!("{value}[{k}]")
            } else {
                format!("{value}")
            };
            let var = self.new_public(name, recorded.as_ref().map(|r| r[k]));
            if let Var::Public(n) = var {
                publics.push(n);
            }
            elements.push(Lc::var(var));
        }
        self.cs.interface.inputs.push((value, publics));
        let repr = match ty {
            Type::Array(..) => Repr::Array(elements),
            _ => Repr::Scalar(elements.pop().expect("a scalar")),
        };
        self.repr.insert(value, repr.clone());
        Ok(repr)
    }

    fn current_inst(&self) -> Inst {
        match self.origin {
            Origin::Inst(inst) => inst,
            _ => Inst::from_u32(0),
        }
    }

    /// The representation of an operand: a constant, a value of the block,
    /// or an input.
    pub(crate) fn value(&mut self, value: Value) -> Result<Repr, LowerError> {
        let value = self.func.dfg.resolve(value);
        if let Some(repr) = self.repr.get(&value) {
            return Ok(repr.clone());
        }
        if let ValueDef::Const(c) = self.func.dfg.value_def(value) {
            let ty = self.func.dfg.value_type(value);
            let mut out = Vec::new();
            RuntimeValue::from_const(c, ty)
                .and_then(|v| field_elements(&v, &mut out))
                .ok_or_else(|| LowerError::Unsupported {
                    inst: self.current_inst(),
                    what: format!("a constant of type {ty}"),
                })?;
            return Ok(Repr::Scalar(Lc::constant(out[0])));
        }
        self.input(value)
    }

    pub(crate) fn scalar(&mut self, value: Value) -> Result<Lc, LowerError> {
        match self.value(value)? {
            Repr::Scalar(lc) => Ok(lc),
            Repr::Array(_) => Err(self.unsupported("an array where a scalar is expected")),
        }
    }

    pub(crate) fn unsupported(&self, what: &str) -> LowerError {
        LowerError::Unsupported {
            inst: self.current_inst(),
            what: what.to_string(),
        }
    }

    pub(crate) fn output(
        &mut self,
        tag: Output,
        name: &str,
        value: Value,
    ) -> Result<(), LowerError> {
        let repr = self.value(value)?;
        let elements = repr.elements().to_vec();
        let array = matches!(repr, Repr::Array(_));
        for (k, lc) in elements.into_iter().enumerate() {
            let name = if array {
                format!("{name}[{k}]")
            } else {
                name.to_string()
            };
            self.outputs.push((tag, name, lc));
        }
        Ok(())
    }

    /// Decomposes `t` into `k` bits (`k` at most 253, so that the
    /// decomposition is unique): `k` booleans and one linear constraint.
    /// No assignment satisfies them when `t` does not fit.
    pub(crate) fn decompose(&mut self, t: &Lc, k: u32, name: &str) -> Vec<Lc> {
        debug_assert!(k <= 253);
        if let Some(c) = t.as_constant() {
            let big = c.into_bigint();
            let bits: Vec<Lc> = (0..k)
                .map(|i| {
                    Lc::constant(Fr::from(u64::from(ark_ff::BigInteger::get_bit(
                        &big, i as usize,
                    ))))
                })
                .collect();
            if ark_ff::BigInteger::num_bits(&big) > k {
                // A constant that does not fit: unsatisfiable, as the
                // decomposition of a variable would be.
                self.enforce(Lc::from_u64(1), Lc::from_u64(1), Lc::zero());
            }
            return bits;
        }
        let value = self.eval(t).map(|v| v.into_bigint());
        let mut bits = Vec::with_capacity(k as usize);
        for i in 0..k {
            let bit = value
                .as_ref()
                .map(|v| Fr::from(u64::from(ark_ff::BigInteger::get_bit(v, i as usize))));
            let b = Lc::var(self.new_witness(format!("{name}.b{i}"), bit));
            self.enforce(b.clone(), b.clone(), b.clone());
            bits.push(b);
        }
        self.enforce(recompose(&bits), Lc::from_u64(1), t.clone());
        bits
    }

    /// A fresh witness for `a * b`, constrained: one constraint.
    pub(crate) fn product(&mut self, a: &Lc, b: &Lc, name: &str) -> Lc {
        if let Some(k) = a.as_constant() {
            return b.scale(k);
        }
        if let Some(k) = b.as_constant() {
            return a.scale(k);
        }
        let value = match (self.eval(a), self.eval(b)) {
            (Some(x), Some(y)) => Some(x * y),
            _ => None,
        };
        let m = Lc::var(self.new_witness(name.to_string(), value));
        self.enforce(a.clone(), b.clone(), m.clone());
        m
    }

    /// A base name for the witnesses of the current instruction.
    pub(crate) fn name(&self) -> String {
        match self.origin {
            Origin::Inst(inst) => match self.func.dfg.first_result(inst) {
                Some(v) => format!("{v}"),
                None => format!("{inst}"),
            },
            Origin::Input(v) => format!("{v}"),
            Origin::Terminator | Origin::MemoryCheck => "out".to_string(),
        }
    }

    /// Whether the predicate is the constant 1.
    pub(crate) fn unpredicated(&self) -> bool {
        self.predicate.as_constant() == Some(Fr::one())
    }

    /// Enforces `predicate * lc = 0`: `lc` must be zero where the block
    /// runs the instruction.
    pub(crate) fn enforce_when_enabled(&mut self, lc: Lc) {
        if lc.0.is_empty() {
            return;
        }
        self.enforce(self.predicate.clone(), lc, Lc::zero());
    }
}

/// The results of `block`'s instructions (calls aside: their results are
/// inputs) that another block reads, in the order they are defined.
fn escaping(func: &Function, block: Block) -> Vec<Value> {
    let mut defined: HashMap<Value, bool> = HashMap::new();
    let mut order = Vec::new();
    for inst in func.layout.block_insts(block) {
        if matches!(func.dfg[inst], kildall_ir::InstructionData::Call { .. }) {
            continue;
        }
        for &r in func.dfg.inst_results(inst) {
            defined.insert(r, false);
            order.push(r);
        }
    }
    if defined.is_empty() {
        return order;
    }
    for other in func.layout.blocks().filter(|&b| b != block) {
        let mut mark = |v: Value| {
            if let Some(used) = defined.get_mut(&func.dfg.resolve(v)) {
                *used = true;
            }
        };
        for inst in func.layout.block_insts(other) {
            func.dfg[inst]
                .arguments()
                .as_slice()
                .iter()
                .copied()
                .for_each(&mut mark);
        }
        if let Some(t) = func.dfg.terminator(other) {
            t.arguments().copied().for_each(&mut mark);
        }
    }
    order.retain(|v| defined[v]);
    order
}

/// The number of field elements of a value of `ty`: its leaves, in
/// Noir's flat layout ([`kildall_ir::flat::leaf_count`]); `None` for a
/// slice (inside an array too) or a noisy value, which have none.
pub(crate) fn flat_len(ty: &Type) -> Option<usize> {
    let noisy = *ty == Type::Noisy || kildall_ir::flat::has_leaf_type(ty, &Type::Noisy);
    if noisy {
        return None;
    }
    usize::try_from(kildall_ir::flat::leaf_count(ty)?).ok()
}
