//! Programs that stop with a typed error (`tests/data/traps`): the
//! `-- expect:` header is the reference interpreter's error, the
//! `-- compiled:` header the one both compiled machines report, the strict
//! interpreter and, with the `cairo-vm` feature, the Cairo VM in execution
//! and proof mode. A failed assertion that the machines cannot name does
//! not pass.

use crate::common;
use kildall_casm::interp::{self, InterpError};
use kildall_casm::jvr_interp::{self, Limits};
use kildall_casm::{build_module, Mode, MAX_STEPS};

fn header<'a>(src: &'a str, key: &str) -> &'a str {
    src.lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("a {key} header"))
}

/// The message of a typed trap of the strict interpreter (without its pc).
fn interp_trap(e: InterpError) -> String {
    match e {
        InterpError::WrongConstructor(_, e) => e.to_string(),
        InterpError::ClosureArity(_, e) => e.to_string(),
        e @ InterpError::NotAnInteger => e.to_string(),
        e => panic!("not a typed trap: {e}"),
    }
}

fn check(name: &str) {
    let (src, module) = common::load("traps", name);
    let reference = jvr_interp::execute(&module, "main", Vec::new(), Limits::default())
        .map(|o| o.value.output_lines())
        .expect_err("the reference interpreter stops");
    assert_eq!(reference.to_string(), header(&src, "-- expect: "), "{name}");
    let compiled = header(&src, "-- compiled: ");
    for mode in [Mode::Execution, Mode::Proof] {
        let prog = build_module(&module, "main", &[], mode).unwrap();
        let ours = interp::run(&prog, MAX_STEPS).expect_err("the CASM interpreter stops");
        assert_eq!(
            interp_trap(ours),
            compiled,
            "{name}: CASM interpreter, {mode:?}"
        );
        #[cfg(feature = "cairo-vm")]
        {
            use kildall_casm::vm::{self, VmError};
            let message = match vm::run(&prog).expect_err("the Cairo VM stops") {
                VmError::WrongConstructor(e) => e.to_string(),
                VmError::ClosureArity(e) => e.to_string(),
                e @ VmError::NotAnInteger => e.to_string(),
                e => panic!("{name}: not a typed trap on the Cairo VM: {e}"),
            };
            assert_eq!(message, compiled, "{name}: Cairo VM, {mode:?}");
        }
    }
}

#[test]
fn every_trap_is_reported_by_every_machine() {
    let names = common::jvr_files("traps");
    assert!(names.len() >= 5);
    for name in &names {
        check(name);
    }
}
