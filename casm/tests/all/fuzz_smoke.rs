//! A seeded smoke run of the fuzz harnesses (about a second): mutated
//! example programs through the parsers, generated programs through the
//! compiler differential. Needs the `fuzzing` feature.
#![cfg(feature = "fuzzing")]

use std::path::Path;

use kildall_casm::fuzzing;

use crate::common;

/// The workspace's example programs, or this crate's construct programs
/// when it is built from its package.
fn corpus() -> Vec<Vec<u8>> {
    let dir = common::workspace_examples()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/constructs"));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

#[test]
fn parser_harnesses_survive_mutations() {
    let corpus = corpus();
    let mut seed = 0u64;
    for input in &corpus {
        fuzzing::parse_jvr(input);
        let listing = kildall_casm::compile(&String::from_utf8_lossy(input))
            .unwrap()
            .to_string();
        for _ in 0..300 {
            seed += 1;
            fuzzing::parse_jvr(&fuzzing::mutate(input, seed));
            fuzzing::parse_casm(&fuzzing::mutate(listing.as_bytes(), seed));
        }
    }
}

#[test]
fn compiler_differential_on_generated_programs() {
    for seed in 5000..5100 {
        fuzzing::differential(seed);
    }
}

#[test]
fn differential_regressions() {
    // Seeds on which the casm fuzz target once found the compiled CASM
    // disagreeing with the reference interpreter: an inline branch whose
    // arm returned on every path set the join's `ap`.
    for seed in [6_935_688_684_900_007_525, 10_034_233_975_426_688_848] {
        fuzzing::differential(seed);
    }
}
