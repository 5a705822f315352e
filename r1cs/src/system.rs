//! Rank-1 constraint systems over the BN254 scalar field: variables, linear
//! combinations, constraints `(a) * (b) = (c)` that remember the
//! instruction they came from, and their satisfaction check.

use std::fmt;

use ark_bn254::Fr;
use ark_ff::{BigInteger, One, PrimeField, Zero};
use kildall_ir::{EdgeSlot, Function, Inst, Value};

/// A variable: the constant one, a public input, or a private witness.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Var {
    /// The constant 1.
    One,
    /// Public input number `n`: the block's inputs, then its outputs.
    Public(u32),
    /// Private witness number `n`.
    Witness(u32),
}

/// A sparse linear combination `Σ coefficient · variable`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Lc(pub Vec<(Var, Fr)>);

impl Lc {
    /// The combination `0`.
    pub fn zero() -> Lc {
        Lc(Vec::new())
    }

    /// The constant `c`.
    pub fn constant(c: Fr) -> Lc {
        if c.is_zero() {
            Lc::zero()
        } else {
            Lc(vec![(Var::One, c)])
        }
    }

    /// The constant `n`.
    pub fn from_u64(n: u64) -> Lc {
        Lc::constant(Fr::from(n))
    }

    /// The variable `v`.
    pub fn var(v: Var) -> Lc {
        Lc(vec![(v, Fr::one())])
    }

    /// Its value when it holds no variable other than [`Var::One`].
    pub fn as_constant(&self) -> Option<Fr> {
        let mut sum = Fr::zero();
        for &(v, c) in &self.0 {
            if v != Var::One {
                return None;
            }
            sum += c;
        }
        Some(sum)
    }

    /// `self + k · other`, with equal variables combined.
    pub fn add_scaled(&self, k: Fr, other: &Lc) -> Lc {
        let mut terms = self.0.clone();
        if !k.is_zero() {
            terms.extend(other.0.iter().map(|&(v, c)| (v, c * k)));
        }
        Lc(terms).normalized()
    }

    /// `self + other`.
    pub fn plus(&self, other: &Lc) -> Lc {
        self.add_scaled(Fr::one(), other)
    }

    /// `self - other`.
    pub fn minus(&self, other: &Lc) -> Lc {
        self.add_scaled(-Fr::one(), other)
    }

    /// `k · self`.
    pub fn scale(&self, k: Fr) -> Lc {
        Lc::zero().add_scaled(k, self)
    }

    /// `self + c`.
    pub fn plus_constant(&self, c: Fr) -> Lc {
        self.plus(&Lc::constant(c))
    }

    /// Sorted by variable, equal variables combined, zero terms dropped.
    fn normalized(mut self) -> Lc {
        self.0.sort_by_key(|&(v, _)| v);
        let mut out: Vec<(Var, Fr)> = Vec::with_capacity(self.0.len());
        for (v, c) in self.0 {
            match out.last_mut() {
                Some((last, sum)) if *last == v => *sum += c,
                _ => out.push((v, c)),
            }
        }
        out.retain(|(_, c)| !c.is_zero());
        Lc(out)
    }

    /// The value under `assignment`.
    pub fn evaluate(&self, assignment: &Assignment) -> Fr {
        self.0.iter().map(|&(v, c)| assignment.value(v) * c).sum()
    }
}

/// Where a constraint comes from: what a failing check names.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Origin {
    /// The range checks of the program's arguments, in the entry block.
    Input(Value),
    /// An instruction of the block.
    Inst(Inst),
    /// The terminator: the block's outputs.
    Terminator,
    /// The memory check of a run.
    MemoryCheck,
}

/// `(a) * (b) = (c)`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Constraint {
    /// Left factor.
    pub a: Lc,
    /// Right factor.
    pub b: Lc,
    /// Product.
    pub c: Lc,
    /// What it implements.
    pub origin: Origin,
}

/// A dynamic memory access of a block: a load, a store, or an array read at
/// an index known only at run time. The tuples of a run are checked apart
/// from the block instances (CoBBl's memory check); a block only produces
/// them.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MemoryAccess {
    /// 1 when the access happens (the predicate), 0 when it does not.
    pub valid: Lc,
    /// What is accessed.
    pub space: Space,
    /// The address: a memory cell, or the index in the array.
    pub address: Lc,
    /// The value read or written.
    pub value: Lc,
    /// What it does.
    pub kind: AccessKind,
    /// The order of the access in the block (the time, relative to the
    /// block instance's first access).
    pub time: u32,
    /// The instruction.
    pub inst: Inst,
}

/// What a [`MemoryAccess`] does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum AccessKind {
    /// `allocate`: the cell begins its life here, holding no value. The
    /// memory check proves every cell allocated once, before any other
    /// access to it.
    Allocate,
    /// Sees the value last written.
    Read,
    /// Sets the value.
    Write,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Allocate => "allocate",
            AccessKind::Read => "read",
            AccessKind::Write => "write",
        })
    }
}

/// The address space of a [`MemoryAccess`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Space {
    /// The cells of `allocate`, `load` and `store`.
    Cells,
    /// The flattened elements of this array value.
    Array(Value),
}

/// The constraint system of one block.
#[derive(Clone, Debug, Default)]
pub struct ConstraintSystem {
    /// Names of the public inputs: the block's inputs, then its outputs.
    pub public_names: Vec<String>,
    /// How many public inputs are the block's inputs (the rest are outputs).
    pub num_inputs: usize,
    /// Names of the witnesses.
    pub witness_names: Vec<String>,
    /// The constraints, in the order of the instructions they implement.
    pub constraints: Vec<Constraint>,
    /// The dynamic memory accesses.
    pub memory: Vec<MemoryAccess>,
    /// What the public inputs mean: how a verifier links an instance to
    /// the instances around it and to the memory check.
    pub interface: Interface,
}

/// Where a value a verifier reads of an instance is: a constant of the
/// block, or one of its public inputs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Source {
    /// The same in every instance.
    Constant(Fr),
    /// Public input number `n`.
    Public(u32),
}

impl Source {
    /// The value in an instance whose public inputs are `public`, or
    /// `None` when `public` is too short.
    pub fn value(self, public: &[Fr]) -> Option<Fr> {
        match self {
            Source::Constant(c) => Some(c),
            Source::Public(n) => public.get(n as usize).copied(),
        }
    }
}

/// What a block passes on, as its outputs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Output {
    /// The arguments of one edge of its terminator (of its `jmp`, or of
    /// one edge of its `jmpif`), flattened: the two edges of a `jmpif` to
    /// one block may pass different arguments, so each is its own output.
    Jump(EdgeSlot),
    /// The condition of its `jmpif`.
    Branch,
    /// The values it returns, flattened.
    Return,
    /// The arguments of a call to a function, flattened.
    CallArguments(Inst),
    /// The arguments of a call to a builtin, flattened: the verifier
    /// computes the call's results (inputs of the block) from them.
    BuiltinArguments(Inst),
    /// 1 when the call runs, 0 when a false predicate skips it.
    CallEnabled(Inst),
    /// A value the block computes that another block reads.
    Escaping(Value),
}

/// The meaning of a block's public inputs: the transition state a
/// per-block verifier links (CoBBl's consistency check), the tuples of its
/// memory accesses and the instance's position in the run.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Interface {
    /// Every value read from outside the block (parameters first, then
    /// values of dominating blocks and results of calls, in the order the
    /// block reads them), with the public inputs of its elements.
    pub inputs: Vec<(Value, Vec<u32>)>,
    /// The outputs, each with its elements.
    pub outputs: Vec<(Output, Vec<Source>)>,
    /// Per memory access (as [`ConstraintSystem::memory`]): its valid
    /// flag, address and value.
    pub accesses: Vec<[Source; 3]>,
    /// Each array the block reads at a dynamic index, with its elements:
    /// the memory check initialises a segment with them.
    pub arrays: Vec<(Value, Vec<Source>)>,
    /// The public input holding the instance's position in the run (in the
    /// order the instances start). No constraint reads it: it binds the
    /// proof to its place.
    pub position: u32,
}

impl ConstraintSystem {
    /// The number of constraints.
    pub fn num_constraints(&self) -> usize {
        self.constraints.len()
    }

    /// The first constraint `assignment` does not satisfy.
    pub fn first_unsatisfied(&self, assignment: &Assignment) -> Option<&Constraint> {
        self.constraints.iter().find(|k| {
            k.a.evaluate(assignment) * k.b.evaluate(assignment) != k.c.evaluate(assignment)
        })
    }

    /// The name of a variable.
    pub fn var_name(&self, v: Var) -> &str {
        match v {
            Var::One => "1",
            Var::Public(n) => &self.public_names[n as usize],
            Var::Witness(n) => &self.witness_names[n as usize],
        }
    }

    /// A readable form of a linear combination.
    pub fn display_lc(&self, lc: &Lc) -> String {
        if lc.0.is_empty() {
            return "0".to_string();
        }
        let mut out = String::new();
        for (i, &(v, c)) in lc.0.iter().enumerate() {
            let (negative, magnitude) = signed_magnitude(c);
            if i > 0 {
                out.push_str(if negative { " - " } else { " + " });
            } else if negative {
                out.push('-');
            }
            match (v, magnitude.as_str()) {
                (Var::One, m) => out.push_str(m),
                (_, "1") => out.push_str(self.var_name(v)),
                (_, m) => {
                    out.push_str(m);
                    out.push('*');
                    out.push_str(self.var_name(v));
                }
            }
        }
        out
    }

    /// The system as text, one constraint a line, `(a) * (b) = (c)`, each
    /// followed by the instruction it implements.
    pub fn display<'a>(&'a self, func: &'a Function) -> DisplaySystem<'a> {
        DisplaySystem { cs: self, func }
    }
}

/// A coefficient as a sign and a small magnitude: `p - 3` reads `-3`.
fn signed_magnitude(c: Fr) -> (bool, String) {
    let positive = c.into_bigint();
    let negative = (-c).into_bigint();
    if negative.num_bits() < positive.num_bits() {
        (true, negative.to_string())
    } else {
        (false, positive.to_string())
    }
}

/// See [`ConstraintSystem::display`].
pub struct DisplaySystem<'a> {
    cs: &'a ConstraintSystem,
    func: &'a Function,
}

impl fmt::Display for DisplaySystem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cs = self.cs;
        let (inputs, outputs) = cs.public_names.split_at(cs.num_inputs);
        writeln!(f, "  inputs: {}", inputs.join(", "))?;
        writeln!(f, "  outputs: {}", outputs.join(", "))?;
        let mut last = None;
        for k in &cs.constraints {
            if last != Some(k.origin) {
                writeln!(f, "  ; {}", describe(self.func, k.origin))?;
                last = Some(k.origin);
            }
            writeln!(
                f,
                "  ({}) * ({}) = ({})",
                cs.display_lc(&k.a),
                cs.display_lc(&k.b),
                cs.display_lc(&k.c)
            )?;
        }
        for m in &cs.memory {
            let space = match m.space {
                Space::Cells => "cells".to_string(),
                Space::Array(v) => format!("array {v}"),
            };
            writeln!(
                f,
                "  memory {} {space}[{}] = {} at time {} if {}",
                m.kind,
                cs.display_lc(&m.address),
                cs.display_lc(&m.value),
                m.time,
                cs.display_lc(&m.valid)
            )?;
        }
        Ok(())
    }
}

/// The instruction or part of the block a constraint implements, as text.
pub fn describe(func: &Function, origin: Origin) -> String {
    match origin {
        Origin::Input(v) => format!("range of argument {v}"),
        Origin::Inst(inst) => func.display_inst(inst).to_string(),
        Origin::Terminator => "outputs".to_string(),
        Origin::MemoryCheck => "memory check".to_string(),
    }
}

/// Values of every variable of a system.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Assignment {
    /// The public inputs.
    pub public: Vec<Fr>,
    /// The witnesses.
    pub witness: Vec<Fr>,
}

impl Assignment {
    /// The value of `v`.
    pub fn value(&self, v: Var) -> Fr {
        match v {
            Var::One => Fr::one(),
            Var::Public(n) => self.public[n as usize],
            Var::Witness(n) => self.witness[n as usize],
        }
    }
}
