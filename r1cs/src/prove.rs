//! Per-block Groth16 proofs of an executed trace (arkworks): one setup per
//! block kind, one proof per executed instance, and one proof of the run's
//! memory check; every proof verified.
//! Setup is timed apart from proving, as a deployment runs it once per
//! program.

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

/// What proving a trace cost.
#[derive(Clone, Debug, Default)]
pub struct ProofReport {
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

/// Sets up every block kind of `trace`, proves every instance and verifies
/// every proof. The randomness is seeded: runs are reproducible.
pub fn prove_trace(trace: &Trace) -> Result<ProofReport, ProveError> {
    let mut rng = rng();
    let mut report = ProofReport::default();
    let mut keys: BTreeMap<BlockKind, Keys> = BTreeMap::new();
    let start = Instant::now();
    for (&kind, cs) in &trace.kinds {
        keys.insert(kind, setup(cs, &mut rng)?);
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
    }
    if !trace.memory.entries.is_empty() {
        report.memory = Some(prove_memory(&trace.memory, &mut rng)?);
    }
    Ok(report)
}

/// Sets up, proves and verifies the memory check.
pub fn prove_memory(
    check: &MemoryCheck,
    rng: &mut (impl ark_std::rand::RngCore + ark_std::rand::CryptoRng),
) -> Result<MemoryProof, ProveError> {
    let (cs, assignment) = check.system();
    let start = Instant::now();
    let keys = setup(&cs, rng)?;
    let setup_time = start.elapsed();
    let start = Instant::now();
    let proof = prove(&keys, &cs, &assignment, rng)?;
    let prove_time = start.elapsed();
    Ok(MemoryProof {
        entries: check.entries.len(),
        valid_entries: check.valid_entries(),
        constraints: cs.num_constraints(),
        setup: setup_time,
        prove: prove_time,
        verified: verify(&keys, &assignment.public, &proof)?
            && MemoryCheck::challenges_bound(&assignment.public),
    })
}
