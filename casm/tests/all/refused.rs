//! Programs the compiled code cannot run as the reference interpreter does
//! (`tests/data/refused`): each is refused when compiling, with the error
//! and place of its `-- refused:` header, on every machine. The compiled
//! machines refuse it when the program is built (execution and proof
//! mode); `casm run --vm jvr` compiles before it interprets, so the
//! reference interpreter refuses it with the same error. An optional
//! `-- reference:` header holds what the reference interpreter's library
//! oracle computes when asked to run it anyway (the output lines as terms
//! joined by ` | `, or `error: MESSAGE`), the Reg interpreter's semantics
//! that the refusal gives up.

use crate::common;

use kildall_casm::jvr_interp::{self, Limits, Show};
use kildall_casm::{build_module, compile_module, Error, Mode};

fn header<'a>(src: &'a str, key: &str) -> Option<&'a str> {
    src.lines().find_map(|l| l.strip_prefix(key))
}

fn refusal(name: &str, result: Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Err(Error::Jvr(e)) => e.to_string(),
        other => panic!("{name}: not refused with a source error: {other:?}"),
    }
}

#[test]
fn every_machine_refuses_what_the_compiled_code_cannot_decide() {
    let names = common::jvr_files("refused");
    assert!(names.len() >= 5);
    for name in &names {
        let (src, module) = common::load("refused", name);
        let expected = header(&src, "-- refused: ").expect("a -- refused: header");
        assert_eq!(refusal(name, compile_module(&module)), expected, "{name}");
        for mode in [Mode::Execution, Mode::Proof] {
            let built = build_module(&module, "main", &[], mode);
            assert_eq!(refusal(name, built), expected, "{name}: {mode:?}");
        }
        if let Some(reference) = header(&src, "-- reference: ") {
            let ran = match jvr_interp::execute(&module, "main", Vec::new(), Limits::default()) {
                Ok(o) => o.lines(Show::Term).join(" | "),
                Err(e) => format!("error: {e}"),
            };
            assert_eq!(ran, reference, "{name}: reference interpreter");
        }
    }
}
