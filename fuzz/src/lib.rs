//! The eight fuzz targets as byte-oriented entry points, shared by the
//! cargo-fuzz binaries of this crate (feature `libfuzzer`) and by the
//! driver's in-process fuzzer (`cargo xtask fuzz`).
//!
//! The properties live in the harnesses (`kildall_harness::fuzzing`, and
//! the `fuzzing` modules of `kildall-mast` and `kildall-casm`); this crate
//! decodes bytes into their inputs, and says how each pass is fuzzed: the
//! options a knob picks and the contract the harness checks ([`PASSES`]).
//! The `mem2reg`, `blockmerge` and `noise` targets each run their pass alone
//! or in a pipeline with the others (see
//! [`kildall_harness::fuzzing::PassInput`]).
#![deny(missing_docs)]

use std::time::Duration;

use kildall_harness::fuzzing::arbitrary::{Arbitrary, Unstructured};
use kildall_harness::fuzzing::{self, FuzzedPass, InterpInput, ParseInput, PassInput};
use kildall_ir::pass::{run_module, FunctionPass};
use kildall_ir::Module;

/// Every pass as the differential harness runs it.
pub static PASSES: [&dyn FuzzedPass; 3] = [&Mem2Reg, &BlockMerge, &Noise];

/// The pass named `name` among [`PASSES`].
pub fn find_pass(name: &str) -> Option<&'static dyn FuzzedPass> {
    PASSES.iter().copied().find(|pass| pass.name() == name)
}

fn run_pass<P: FunctionPass>(module: &mut Module, options: &P::Options) -> Result<(), String> {
    run_module::<P>(module, options)
        .map(drop)
        .map_err(|err| err.to_string())
}

/// `mem2reg`: it has no options.
struct Mem2Reg;

impl FuzzedPass for Mem2Reg {
    fn name(&self) -> &'static str {
        kildall_mem2reg::Mem2Reg::NAME
    }

    fn run(&self, module: &mut Module, _knob: u64) -> Result<(), String> {
        run_pass::<kildall_mem2reg::Mem2Reg>(module, &Default::default())
    }
}

/// `blockmerge` with small thresholds, so that components merge in small
/// programs too.
struct BlockMerge;

impl FuzzedPass for BlockMerge {
    fn name(&self) -> &'static str {
        kildall_blockmerge::BlockMerge::NAME
    }

    fn run(&self, module: &mut Module, knob: u64) -> Result<(), String> {
        const MIN_BLOCK_SIZES: [u64; 6] = [0, 1, 4, 16, 64, 1024];
        let options = kildall_blockmerge::Options {
            min_block_size: MIN_BLOCK_SIZES[(knob % 6) as usize],
            ..Default::default()
        };
        run_pass::<kildall_blockmerge::BlockMerge>(module, &options)
    }
}

/// `noise` under every strategy, the exact one twice as often, under both
/// costs and a short limit; its output must keep the noise bound.
struct Noise;

impl FuzzedPass for Noise {
    fn name(&self) -> &'static str {
        kildall_noise::NoisePlacement::NAME
    }

    fn run(&self, module: &mut Module, knob: u64) -> Result<(), String> {
        use kildall_noise::{Cost, Strategy};
        let strategy = match knob % 4 {
            0 | 1 => Strategy::Exact,
            2 => Strategy::Greedy,
            _ => Strategy::Ilp,
        };
        let cost = if (knob / 4).is_multiple_of(2) {
            Cost::Executions
        } else {
            Cost::Static
        };
        let options = kildall_noise::Options {
            strategy,
            cost,
            // A small effort, and on one or two threads (the placement must
            // not depend on which); the time limit only guards the fuzzer.
            effort: 200_000,
            time_limit: Some(Duration::from_secs(2)),
            threads: 1 + (knob / 8 % 2) as usize,
            ..Default::default()
        };
        run_pass::<kildall_noise::NoisePlacement>(module, &options)
    }

    fn establishes_noise_bound(&self) -> bool {
        true
    }
}

/// The target names.
pub const TARGETS: [&str; 8] = [
    "ir-parse",
    "ir-interp",
    "mem2reg",
    "blockmerge",
    "noise",
    "mast-decode",
    "casm",
    "r1cs-proof-decode",
];

/// Runs target `name` on `data`; `false` for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "ir-parse" => ir_parse(data),
        "ir-interp" => ir_interp(data),
        "mem2reg" | "blockmerge" | "noise" => pass(name, data),
        "mast-decode" => kildall_mast::fuzzing::fuzz(data),
        "casm" => casm(data),
        "r1cs-proof-decode" => r1cs_proof_decode(data),
        _ => return false,
    }
    true
}

/// `ir-parse`: the text parser on raw or mutated text.
pub fn ir_parse(data: &[u8]) {
    if let Ok(input) = ParseInput::arbitrary_take_rest(Unstructured::new(data)) {
        fuzzing::ir_parse(&input);
    }
}

/// `ir-interp`: the verifier and the interpreter on parsed modules.
pub fn ir_interp(data: &[u8]) {
    if let Ok(input) = InterpInput::arbitrary_take_rest(Unstructured::new(data)) {
        fuzzing::ir_interp(&input);
    }
}

/// `mem2reg`, `blockmerge`, `noise`: the named pass alone or in a pipeline,
/// on a generated program; the outcome must not change.
pub fn pass(name: &str, data: &[u8]) {
    let Some(main) = find_pass(name) else {
        return;
    };
    if let Ok(input) = PassInput::arbitrary_take_rest(Unstructured::new(data)) {
        fuzzing::check_pass_input(&input, main, &PASSES);
    }
}

/// The seed in the first eight bytes of `data` (zero-padded).
fn seed_of(data: &[u8]) -> u64 {
    let mut bytes = [0; 8];
    for (slot, b) in bytes.iter_mut().zip(data) {
        *slot = *b;
    }
    u64::from_le_bytes(bytes)
}

/// What the `casm` target does with `data`: the first byte picks the mode.
pub enum CasmCase {
    /// Raw `.jvr` text.
    Jvr(Vec<u8>),
    /// A raw CASM listing.
    Casm(Vec<u8>),
    /// The `.jvr` and CASM interpreters on the generated program of a seed.
    Differential(u64),
}

/// Decodes the `casm` target's input.
pub fn casm_case(data: &[u8]) -> Option<CasmCase> {
    use kildall_casm::{fuzzing::mutate, generate};
    let (&mode, rest) = data.split_first()?;
    let seed = seed_of(rest);
    Some(match mode % 5 {
        0 => CasmCase::Jvr(rest.to_vec()),
        1 => CasmCase::Casm(rest.to_vec()),
        2 => CasmCase::Differential(seed),
        3 => {
            let text = generate::generate(seed, &generate::Config::default()).to_string();
            CasmCase::Jvr(mutate(
                text.as_bytes(),
                seed_of(rest.get(8..).unwrap_or(&[])),
            ))
        }
        _ => {
            let module = generate::generate(seed, &generate::Config::default());
            let listing = kildall_casm::compile_module(&module).ok()?.to_string();
            CasmCase::Casm(mutate(
                listing.as_bytes(),
                seed_of(rest.get(8..).unwrap_or(&[])),
            ))
        }
    })
}

/// `casm`: the `.jvr` and CASM parsers on raw and mutated text, and the
/// differential test of the compiler on generated programs.
pub fn casm(data: &[u8]) {
    match casm_case(data) {
        Some(CasmCase::Jvr(text)) => kildall_casm::fuzzing::parse_jvr(&text),
        Some(CasmCase::Casm(text)) => kildall_casm::fuzzing::parse_casm(&text),
        Some(CasmCase::Differential(seed)) => kildall_casm::fuzzing::differential(seed),
        None => {}
    }
}

/// A proof of a run with every part of the format present (a block
/// instance with public inputs, both lists of the memory check), whose
/// encoding the `r1cs-proof-decode` target mutates.
pub fn sample_run_proof() -> kildall_r1cs::run::RunProof {
    use kildall_r1cs::memory::{Entry, EntryKind};
    use kildall_r1cs::run::{InstanceProof, MemoryCheckProof, RunProof};
    let fr = |n: u64| ark_bn254::Fr::from(n);
    let instance = |function, block, public: Vec<_>| InstanceProof {
        function,
        block,
        public,
        proof: Default::default(),
    };
    RunProof {
        program: [7; 32],
        args: vec![fr(5), fr(3)],
        result: vec![fr(8)],
        instances: vec![
            instance(0, 0, vec![fr(5), fr(3), fr(0)]),
            instance(0, 1, vec![fr(8), fr(1)]),
        ],
        memory: Some(MemoryCheckProof {
            entries: vec![
                Entry {
                    valid: true,
                    key: 1,
                    value: fr(0),
                    kind: EntryKind::Allocate,
                },
                Entry {
                    valid: false,
                    key: 0,
                    value: fr(0),
                    kind: EntryKind::Read,
                },
            ],
            proof: Default::default(),
        }),
    }
}

/// `r1cs-proof-decode`: the decoder of proofs of runs on hostile bytes.
/// The first byte picks raw bytes (even) or the sample proof's encoding
/// with the rest's bytes written over it (odd: triples of a two-byte
/// position and a byte; a short tail cuts the end when bit 1 of the mode
/// is set), so that mutations reach every field. A decoded proof encodes
/// to bytes that decode to it again.
pub fn r1cs_proof_decode(data: &[u8]) {
    use kildall_r1cs::run::RunProof;
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut bytes = sample_run_proof().encode();
        for pair in rest.chunks(3) {
            if let [hi, lo, byte] = *pair {
                let at = usize::from(u16::from_le_bytes([lo, hi])) % bytes.len().max(1);
                if let Some(slot) = bytes.get_mut(at) {
                    *slot = byte;
                }
            } else if mode & 2 != 0 {
                bytes.truncate(bytes.len().saturating_sub(usize::from(pair[0])));
            }
        }
        bytes
    };
    if let Ok(proof) = RunProof::decode(&bytes) {
        let again = RunProof::decode(&proof.encode()).expect("an encoded proof decodes");
        assert_eq!(again, proof, "a proof of a run survives its encoding");
    }
}

#[cfg(test)]
mod tests {
    /// Seeded smoke run of `r1cs-proof-decode`, both modes.
    #[test]
    fn r1cs_proof_decode_smoke() {
        let mut rng = kildall_harness::generate::Rng::new(0x9E0F);
        let sample = super::sample_run_proof().encode();
        assert_eq!(
            kildall_r1cs::run::RunProof::decode(&sample).unwrap(),
            super::sample_run_proof()
        );
        for _ in 0..3000 {
            let len = rng.index(64);
            let data: Vec<u8> = (0..len).map(|_| rng.index(256) as u8).collect();
            super::r1cs_proof_decode(&data);
        }
        // Every prefix of the sample is refused.
        for len in 0..sample.len() {
            assert!(kildall_r1cs::run::RunProof::decode(&sample[..len]).is_err());
        }
    }
}
