//! Data-driven runs of the example programs in `examples/casm/`: each file
//! names its arguments (`-- args:`) and its expected result and step count
//! (`-- expect:`). The `.jvr` reference interpreter, the strict CASM
//! interpreter and (with the `cairo-vm` feature) the Cairo VM in execution
//! and proof mode must all agree with the expectation. `UPDATE_EXPECT=1`
//! rewrites the `-- expect:` lines from the interpreters' results.

use std::path::Path;

use kildall_casm::heap::Cell;
use kildall_casm::jvr_interp::{self, Limits};
use kildall_casm::{build_module, interp, jvr, Felt, Mode, MAX_STEPS};
use kildall_testkit::expect::check_expectation;

use crate::common;

fn header<'a>(src: &'a str, key: &str) -> Option<&'a str> {
    src.lines()
        .find_map(|l| l.strip_prefix(&format!("-- {key}:")).map(str::trim))
}

fn check(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let args: Vec<Felt> = header(&src, "args")
        .unwrap_or("")
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| Felt::parse_decimal(s.trim()).unwrap())
        .collect();
    let module = jvr::parse(&src).unwrap();
    let (reference, _) = jvr_interp::run(&module, "main", &args, Limits::default()).unwrap();
    let prog = build_module(&module, "main", &args, Mode::Execution).unwrap();
    let ours = interp::run(&prog, MAX_STEPS).unwrap();
    assert_eq!(
        ours.value, reference,
        "{name}: CASM interpreter vs .jvr interpreter"
    );
    // The result is the program's public output.
    assert_eq!(
        ours.public_output,
        [Cell::Num(reference)],
        "{name}: output builtin"
    );
    #[cfg(feature = "cairo-vm")]
    {
        let vm = kildall_casm::vm::run(&prog).unwrap();
        assert_eq!(
            vm, ours,
            "{name}: Cairo VM vs CASM interpreter (value and steps)"
        );
        let proof = build_module(&module, "main", &args, Mode::Proof).unwrap();
        let ours_proof = interp::run(&proof, MAX_STEPS).unwrap();
        let vm_proof = kildall_casm::vm::run(&proof).unwrap();
        assert_eq!(
            ours_proof.value, reference,
            "{name}: proof mode, interpreter"
        );
        assert_eq!(vm_proof.value, reference, "{name}: proof mode, Cairo VM");
        assert_eq!(
            vm_proof.public_output,
            [Cell::Num(reference)],
            "{name}: proof mode, Cairo VM's output builtin"
        );
        assert!(vm_proof.steps >= ours_proof.steps && vm_proof.steps.is_power_of_two());
    }
    let actual = format!("{} steps: {}", ours.value, ours.steps);
    let expected = header(&src, "expect").unwrap_or("");
    check_expectation(&path, expected, &actual, || {
        let updated: Vec<String> = src
            .lines()
            .map(|l| {
                if l.starts_with("-- expect:") {
                    format!("-- expect: {actual}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        updated.join("\n") + "\n"
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    actual
}

/// Every example, with the start of its result where a test names it.
const EXAMPLES: [(&str, &str); 8] = [
    ("arith.jvr", ""),
    ("calculate.jvr", "11 "),
    ("compare.jvr", "10100 "),
    ("field.jvr", ""),
    ("join.jvr", "63043 "),
    ("nested.jvr", ""),
    ("sum.jvr", "500500 "),
    ("tailcall.jvr", "2432902008176640000 "),
];

#[test]
fn every_example_gives_its_expected_result() {
    // A crate built from its package has no workspace examples to read.
    let Some(dir) = common::workspace_examples() else {
        return;
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jvr"))
        .collect();
    names.sort();
    assert_eq!(names, EXAMPLES.map(|(name, _)| name));
    for (name, start) in EXAMPLES {
        let result = check(&dir, name);
        assert!(result.starts_with(start), "{name}: {result}");
    }
}
