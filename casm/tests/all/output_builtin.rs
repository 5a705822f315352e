//! The result is written to the `output` builtin (`tests/data/output`):
//! `-- public:` lists the cells of its segment (`@` for an address), and
//! `-- expect:` the lines the run prints, read from those cells (after the
//! traces), as the reference interpreter prints the result. Checked on the
//! strict interpreter and, with the `cairo-vm` feature, on the Cairo VM, in
//! execution and proof mode.

use crate::common;
use kildall_casm::heap::Cell;
use kildall_casm::interp::{self, RunResult};
use kildall_casm::jvr_interp::{self, Limits, Show};
use kildall_casm::{build_module, Mode, MAX_STEPS};

fn header<'a>(src: &'a str, key: &str) -> &'a str {
    src.lines()
        .find_map(|l| l.strip_prefix(key))
        .map(str::trim)
        .unwrap_or_else(|| panic!("a {key} header"))
}

fn public(r: &RunResult) -> String {
    r.public_output
        .iter()
        .map(|c| match c {
            Cell::Num(f) => f.to_string(),
            Cell::Ptr(_) => "@".to_string(),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn check(name: &str) {
    let (src, module) = common::load("output", name);
    let o = jvr_interp::execute(&module, "main", Vec::new(), Limits::default()).unwrap();
    let lines = o.lines(Show::Felt);
    let expect = header(&src, "-- expect:");
    assert_eq!(lines.join(" | "), expect, "{name}: reference interpreter");
    for mode in [Mode::Execution, Mode::Proof] {
        let prog = build_module(&module, "main", &[], mode).unwrap();
        let ours = interp::run(&prog, MAX_STEPS).unwrap();
        assert_eq!(ours.output.join(" | "), expect, "{name}: {mode:?}");
        assert_eq!(
            public(&ours),
            header(&src, "-- public:"),
            "{name}: {mode:?}"
        );
        #[cfg(feature = "cairo-vm")]
        {
            let vm = kildall_casm::vm::run(&prog).unwrap();
            assert_eq!(vm.output, ours.output, "{name}: Cairo VM, {mode:?}");
            assert_eq!(vm.public_output, ours.public_output, "{name}: {mode:?}");
        }
    }
}

#[test]
fn the_result_is_the_public_output_on_every_machine() {
    let names = common::jvr_files("output");
    assert!(names.len() >= 5);
    for name in &names {
        check(name);
    }
}
