//! The seven fuzz targets as byte-oriented entry points, shared by the
//! cargo-fuzz binaries of this folder and by the driver's in-process fuzzer
//! (`cargo xtask fuzz`), which includes this file as a module.
//!
//! The properties live in the libraries' `fuzzing` modules; this file only
//! decodes bytes into their inputs. The passes come from the registry of
//! `kildall-pipeline`: the `mem2reg`, `blockmerge` and `noise` targets each
//! run their pass alone or in a pipeline with the others (see
//! [`kildall_ir::fuzzing::PassInput`]).

use kildall_ir::fuzzing::arbitrary::{Arbitrary, Unstructured};
use kildall_ir::fuzzing::{self, InterpInput, ParseInput, PassInput};

/// The target names, in the order of the issue.
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
    let Some(main) = kildall_pipeline::find(name) else {
        return;
    };
    if let Ok(input) = PassInput::arbitrary_take_rest(Unstructured::new(data)) {
        fuzzing::check_pass_input(&input, main, &kildall_pipeline::PASSES);
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
