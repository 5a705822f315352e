//! Seeded smoke runs of the fuzz harnesses of `kildall_harness::fuzzing` (about
//! a second each), and the replay of every regression file the fuzzers
//! found: `tests/fuzz_regressions/ir-parse/*` (raw parser input) and
//! `tests/fuzz_regressions/ir-interp/*` (a module with `// fuel:`,
//! `// args-seed:` and `// noise:` header lines). The pass targets' files
//! (`mem2reg/`, `blockmerge/`, `noise/`) are replayed by the driver's
//! tests, which see the passes.

use std::path::PathBuf;

use kildall_harness::fuzzing::{self, InterpInput, ParseInput};
use kildall_harness::testing::{calls_builtin, count_insts, count_terminators};
use kildall_ir::{Builtin, Terminator};

fn regression_files(target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == "ssa"));
    files.sort();
    files
}

#[test]
fn ir_parse_smoke() {
    fuzzing::smoke::<ParseInput>(0x1_9A85E, 3_000, 256, fuzzing::ir_parse);
}

#[test]
fn ir_interp_smoke() {
    fuzzing::smoke::<InterpInput>(0x1_17E4, 1_500, 256, fuzzing::ir_interp);
}

#[test]
fn unmutated_programs_round_trip() {
    // Without mutations every generated shape parses back to itself.
    for shape in 0..8 {
        let input = fuzzing::MutatedProgram {
            program: fuzzing::GenProgram {
                seed: u64::from(shape) * 7919,
                size: 40,
                shape,
            },
            mutations: Vec::new(),
        };
        let module = fuzzing::check_text(&input.text());
        assert!(module.is_some(), "shape {shape} does not parse");
    }
}

#[test]
fn mutations_preserve_untouched_text() {
    let text = "fn main f0 {\n  b0(v0: u32):\n    return v0\n}\n";
    assert_eq!(fuzzing::tokenize(text).concat(), text);
    let deleted = fuzzing::mutate_tokens(text, &[fuzzing::TokenMutation::Delete { at: 0, len: 0 }]);
    assert_eq!(deleted, text["fn ".len()..]);
    let flipped = fuzzing::mutate_tokens(text, &[fuzzing::TokenMutation::Flip { at: 1, with: 1 }]);
    assert_eq!(flipped, text.replacen("main", "acir", 1));
}

#[test]
fn ir_parse_regressions() {
    for path in regression_files("ir-parse") {
        let bytes = std::fs::read(&path).unwrap();
        eprintln!("replaying {}", path.display());
        fuzzing::parse_bytes(&bytes);
    }
}

#[test]
fn ir_interp_regressions() {
    for path in regression_files("ir-interp") {
        let text = std::fs::read_to_string(&path).unwrap();
        eprintln!("replaying {}", path.display());
        fuzzing::check_interp_file(&text);
    }
}

#[test]
fn pass_inputs_draw_jmpifs_whose_edges_enter_one_block_and_enumerations() {
    // Shape 4 exercises the newer forms; among them a `jmpif` whose two
    // edges enter one block with different arguments, and
    // `vector_enumerate` calling generated closures.
    let (mut selects, mut enumerations) = (0, 0);
    for seed in 0..400u64 {
        let program = fuzzing::GenProgram {
            seed,
            size: (seed % 256) as u8,
            shape: 4,
        };
        let (module, _) = program.build();
        selects += count_terminators(&module, Terminator::is_select_jump);
        enumerations += count_insts(&module, |d| calls_builtin(d, Builtin::SliceEnumerate));
    }
    assert!(selects >= 150, "only {selects} in 400 programs");
    assert!(
        enumerations >= 1_000,
        "only {enumerations} `vector_enumerate` calls in 400 programs"
    );
}
