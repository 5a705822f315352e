//! Per-block Groth16 proofs of an executed trace (arkworks): one setup per
//! block kind, one proof per executed instance, and one proof of the run's
//! memory check; every proof verified, and all of them gathered in a
//! [`RunProof`] a separate verifier checks.
//! Setup is timed apart from proving, as a deployment runs it once per
//! program.
//!
//! # The setup
//!
//! Keys are derived deterministically: a block kind's setup draws its
//! randomness from a generator seeded by SHA-256 of the program's digest
//! and the kind ([`block_keys`]), the memory check's by the digest and the
//! check's shape ([`memory_keys`]), so a verifier rebuilds the keys from
//! the program alone. Anyone can rebuild the setup's secret the same way
//! and forge proofs of false statements, so these proofs show what a
//! prover's work costs and test the verifier's checks; they are not sound
//! against a prover who knows the seed. A deployment runs a trusted setup
//! (a ceremony per block kind and memory check shape, whose secret nobody
//! keeps) and hands the verifier its verifying keys beside the program;
//! every other check of the verifier stays as it is.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Groth16, PreparedVerifyingKey, Proof, ProvingKey};
use ark_relations::lc;
use ark_relations::r1cs::{
    ConstraintSynthesizer, ConstraintSystemRef, LinearCombination, SynthesisError, Variable,
};
use ark_snark::SNARK;

use crate::memory::MemoryCheck;
use crate::run::{InstanceProof, MemoryCheckProof, RunProof};
use crate::system::{Assignment, ConstraintSystem, Lc, Var};
use crate::trace::{BlockKind, Trace};

/// A block's constraint system, with the assignment of one instance when
/// proving.
struct BlockCircuit<'a> {
    cs: &'a ConstraintSystem,
    assignment: Option<&'a Assignment>,
}

impl ConstraintSynthesizer<Fr> for BlockCircuit<'_> {
    fn generate_constraints(self, ark: ConstraintSystemRef<Fr>) -> Result<(), SynthesisError> {
        let value = |v: Option<Fr>| v.ok_or(SynthesisError::AssignmentMissing);
        let mut public = Vec::with_capacity(self.cs.public_names.len());
        for n in 0..self.cs.public_names.len() {
            let v = self.assignment.map(|a| a.public[n]);
            public.push(ark.new_input_variable(|| value(v))?);
        }
        let mut witness = Vec::with_capacity(self.cs.witness_names.len());
        for n in 0..self.cs.witness_names.len() {
            let v = self.assignment.map(|a| a.witness[n]);
            witness.push(ark.new_witness_variable(|| value(v))?);
        }
        let convert = |lc: &Lc| -> LinearCombination<Fr> {
            let mut out = lc!();
            for &(v, c) in &lc.0 {
                let var = match v {
                    Var::One => Variable::One,
                    Var::Public(n) => public[n as usize],
                    Var::Witness(n) => witness[n as usize],
                };
                out += (c, var);
            }
            out
        };
        for k in &self.cs.constraints {
            ark.enforce_constraint(convert(&k.a), convert(&k.b), convert(&k.c))?;
        }
        Ok(())
    }
}

/// What proving a trace cost, and the proof of the run.
#[derive(Clone, Debug, Default)]
pub struct ProofReport {
    /// Every proof, for a verifier.
    pub run: RunProof,
    /// Block kinds set up.
    pub kinds: usize,
    /// Instances proven.
    pub instances: usize,
    /// Instances whose proof verified.
    pub verified: usize,
    /// Setup, all kinds.
    pub setup: Duration,
    /// Proving, all instances.
    pub prove: Duration,
    /// Verifying, all proofs.
    pub verify: Duration,
    /// Per kind: its constraints, public inputs, instances and proving time.
    pub per_kind: BTreeMap<BlockKind, KindCost>,
    /// The memory check's proof, when the run accessed memory.
    pub memory: Option<MemoryProof>,
}

/// What proving the memory check cost.
#[derive(Clone, Debug, Default)]
pub struct MemoryProof {
    /// Its entries (execution-ordered list).
    pub entries: usize,
    /// Its valid entries (sorted list).
    pub valid_entries: usize,
    /// Its constraints.
    pub constraints: usize,
    /// Setup.
    pub setup: Duration,
    /// Proving.
    pub prove: Duration,
    /// Whether the proof verified.
    pub verified: bool,
}

/// The measured cost of one block kind.
#[derive(Clone, Debug, Default)]
pub struct KindCost {
    /// Its constraints.
    pub constraints: usize,
    /// Its memory accesses per instance.
    pub memory_accesses: usize,
    /// Instances proven.
    pub instances: usize,
    /// Time proving them.
    pub prove: Duration,
}

impl ProofReport {
    /// Whether every proof verified, the memory check's included.
    pub fn all_verified(&self) -> bool {
        self.verified == self.instances && self.memory.as_ref().is_none_or(|m| m.verified)
    }

    /// Prover time of the blocks and of the memory check.
    pub fn total_prove(&self) -> Duration {
        self.prove + self.memory.as_ref().map_or(Duration::ZERO, |m| m.prove)
    }
}

/// Why a trace could not be proven.
#[derive(Debug, thiserror::Error)]
#[error("groth16: {0}")]
pub struct ProveError(#[from] SynthesisError);

/// The keys of one block kind.
pub struct Keys {
    proving: ProvingKey<Bn254>,
    verifying: PreparedVerifyingKey<Bn254>,
}

/// The seeded randomness of setups and proofs: runs are reproducible.
pub fn rng() -> impl ark_std::rand::RngCore + ark_std::rand::CryptoRng {
    use ark_std::rand::SeedableRng;
    ark_std::rand::rngs::StdRng::seed_from_u64(0x6b69_6c64)
}

/// A generator seeded by SHA-256 of `parts`.
fn seeded(parts: &[&[u8]]) -> impl ark_std::rand::RngCore + ark_std::rand::CryptoRng {
    use ark_std::rand::SeedableRng;
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    ark_std::rand::rngs::StdRng::from_seed(hasher.finalize().into())
}

/// The keys of a block kind of the program whose digest is `program`
/// (see the module's doc on what a trusted setup changes).
pub fn block_keys(
    program: &[u8; 32],
    (function, block): BlockKind,
    cs: &ConstraintSystem,
) -> Result<Keys, ProveError> {
    let function = kildall_ir::EntityRef::index(function) as u64;
    let block = kildall_ir::EntityRef::index(block) as u64;
    let mut rng = seeded(&[
        b"kildall-r1cs block keys",
        program,
        &function.to_le_bytes(),
        &block.to_le_bytes(),
    ]);
    setup(cs, &mut rng)
}

/// The keys of a memory check whose system is `cs`, for the program whose
/// digest is `program`: the system's shape depends on the run (its
/// entries and widths), so it is set up per shape.
pub fn memory_keys(program: &[u8; 32], cs: &ConstraintSystem) -> Result<Keys, ProveError> {
    let shape = [
        cs.public_names.len() as u64,
        cs.witness_names.len() as u64,
        cs.num_constraints() as u64,
    ];
    let shape: Vec<u8> = shape.iter().flat_map(|n| n.to_le_bytes()).collect();
    let mut rng = seeded(&[b"kildall-r1cs memory keys", program, &shape]);
    setup(cs, &mut rng)
}

/// The circuit-specific setup of a block kind.
pub fn setup(
    cs: &ConstraintSystem,
    rng: &mut (impl ark_std::rand::RngCore + ark_std::rand::CryptoRng),
) -> Result<Keys, ProveError> {
    let circuit = BlockCircuit {
        cs,
        assignment: None,
    };
    let (proving, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit, rng)?;
    let verifying = Groth16::<Bn254>::process_vk(&vk)?;
    Ok(Keys { proving, verifying })
}

/// A proof of one instance (its assignment must satisfy `cs`).
pub fn prove(
    keys: &Keys,
    cs: &ConstraintSystem,
    assignment: &Assignment,
    rng: &mut (impl ark_std::rand::RngCore + ark_std::rand::CryptoRng),
) -> Result<Proof<Bn254>, ProveError> {
    let circuit = BlockCircuit {
        cs,
        assignment: Some(assignment),
    };
    Ok(Groth16::<Bn254>::prove(&keys.proving, circuit, rng)?)
}

/// Whether `proof` proves an instance with these public inputs.
pub fn verify(keys: &Keys, public: &[Fr], proof: &Proof<Bn254>) -> Result<bool, ProveError> {
    Ok(Groth16::<Bn254>::verify_with_processed_vk(
        &keys.verifying,
        public,
        proof,
    )?)
}

/// Sets up every block kind of `trace` ([`block_keys`]), proves every
/// instance and verifies every proof, and gathers the proofs in the
/// report's [`RunProof`]. Proofs draw on seeded randomness: runs are
/// reproducible.
pub fn prove_trace(trace: &Trace) -> Result<ProofReport, ProveError> {
    prove_trace_reporting(trace, &mut |_| {})
}

/// [`prove_trace`], calling `proven` after each instance with the number
/// proven so far (of `trace.instances.len()`), for a progress display.
pub fn prove_trace_reporting(
    trace: &Trace,
    proven: &mut dyn FnMut(usize),
) -> Result<ProofReport, ProveError> {
    let mut rng = rng();
    let mut report = ProofReport::default();
    let mut keys: BTreeMap<BlockKind, Keys> = BTreeMap::new();
    let start = Instant::now();
    for (&kind, cs) in &trace.kinds {
        keys.insert(kind, block_keys(&trace.program, kind, cs)?);
        report.per_kind.insert(
            kind,
            KindCost {
                constraints: cs.num_constraints(),
                memory_accesses: cs.memory.len(),
                ..KindCost::default()
            },
        );
    }
    report.setup = start.elapsed();
    report.kinds = keys.len();
    report.run = RunProof {
        program: trace.program,
        args: trace.args.clone(),
        result: trace.result.clone(),
        instances: Vec::with_capacity(trace.instances.len()),
        memory: None,
    };
    for instance in &trace.instances {
        let cs = &trace.kinds[&instance.kind];
        let keys = &keys[&instance.kind];
        let start = Instant::now();
        let proof = prove(keys, cs, &instance.assignment, &mut rng)?;
        let took = start.elapsed();
        report.prove += took;
        let cost = report.per_kind.get_mut(&instance.kind).expect("set up");
        cost.instances += 1;
        cost.prove += took;
        let start = Instant::now();
        let ok = verify(keys, &instance.assignment.public, &proof)?;
        report.verify += start.elapsed();
        report.instances += 1;
        report.verified += usize::from(ok);
        let (function, block) = instance.kind;
        report.run.instances.push(InstanceProof {
            function: kildall_ir::EntityRef::index(function) as u32,
            block: kildall_ir::EntityRef::index(block) as u32,
            public: instance.assignment.public.clone(),
            proof,
        });
        proven(report.instances);
    }
    if !trace.memory.entries.is_empty() {
        let (memory, proof) = prove_memory(&trace.program, &trace.memory, &mut rng)?;
        report.memory = Some(memory);
        report.run.memory = Some(MemoryCheckProof {
            entries: trace.memory.entries.clone(),
            proof,
        });
    }
    Ok(report)
}

/// Sets up ([`memory_keys`]), proves and verifies the memory check.
pub fn prove_memory(
    program: &[u8; 32],
    check: &MemoryCheck,
    rng: &mut (impl ark_std::rand::RngCore + ark_std::rand::CryptoRng),
) -> Result<(MemoryProof, Proof<Bn254>), ProveError> {
    let (cs, assignment) = check.system();
    let start = Instant::now();
    let keys = memory_keys(program, &cs)?;
    let setup_time = start.elapsed();
    let start = Instant::now();
    let proof = prove(&keys, &cs, &assignment, rng)?;
    let prove_time = start.elapsed();
    let report = MemoryProof {
        entries: check.entries.len(),
        valid_entries: check.valid_entries(),
        constraints: cs.num_constraints(),
        setup: setup_time,
        prove: prove_time,
        verified: verify(&keys, &assignment.public, &proof)?
            && MemoryCheck::challenges_bound(&assignment.public),
    };
    Ok((report, proof))
}
