//! The seven fuzz targets as byte-oriented entry points, shared by the
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
            time_limit: Duration::from_secs(2),
            ..Default::default()
        };
        run_pass::<kildall_noise::NoisePlacement>(module, &options)
    }

    fn establishes_noise_bound(&self) -> bool {
        true
    }
}

/// The target names.
pub const TARGETS: [&str; 7] = [
    "ir-parse",
    "ir-interp",
    "mem2reg",
    "blockmerge",
    "noise",
    "mast-decode",
    "casm",
];

/// Runs target `name` on `data`; `false` for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "ir-parse" => ir_parse(data),
        "ir-interp" => ir_interp(data),
        "mem2reg" | "blockmerge" | "noise" => pass(name, data),
        "mast-decode" => kildall_mast::fuzzing::fuzz(data),
        "casm" => casm(data),
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
