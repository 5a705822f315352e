//! One program per JuvixReg construct (`tests/data/constructs`), run on the
//! reference interpreter; the `-- expect:` header holds the output lines
//! (traces, then the result) joined by ` | `, or `fail: MESSAGE`. Each
//! also runs compiled on the strict interpreter and, with the `cairo-vm`
//! feature, on the Cairo VM in execution and proof mode, and must print the
//! same. An optional `-- terms:` header holds the lines printed as terms
//! (`--show term`), checked on every machine the same way.

use crate::common;
use std::path::Path;

use kildall_casm::jvr::{self, JvrErrorKind};
use kildall_casm::jvr_interp::{self, JvrRunError, Limits, Show};
use kildall_casm::{build_module, interp, Mode, MAX_STEPS};

fn expectation(src: &str) -> &str {
    header(src, "-- expect: ").expect("an -- expect: header")
}

fn header<'a>(src: &'a str, key: &str) -> Option<&'a str> {
    src.lines().find_map(|l| l.strip_prefix(key))
}

/// Runs one program; returns whether the CASM lowering accepted it.
fn check(name: &str) -> bool {
    let (src, module) = common::load("constructs", name);
    let terms = header(&src, "-- terms: ");
    let actual = match jvr_interp::execute(&module, "main", Vec::new(), Limits::default()) {
        Ok(o) => {
            if let Some(terms) = terms {
                assert_eq!(o.lines(Show::Term).join(" | "), terms, "{name}: terms");
            }
            o.lines(Show::Felt).join(" | ")
        }
        Err(JvrRunError::Fail(msg)) => format!("fail: {msg}"),
        Err(e) => panic!("{name}: {e}"),
    };
    assert_eq!(actual, expectation(&src), "{name}: reference interpreter");
    let prog = match build_module(&module, "main", &[], Mode::Execution) {
        Ok(p) => p,
        Err(kildall_casm::Error::Jvr(e)) if matches!(e.kind, JvrErrorKind::NotLowered(_)) => {
            return false
        }
        Err(e) => panic!("{name}: {e}"),
    };
    let ours = match interp::run(&prog, MAX_STEPS) {
        Ok(r) => {
            if let Some(terms) = terms {
                assert_eq!(r.terms.join(" | "), terms, "{name}: CASM interpreter terms");
            }
            r.output.join(" | ")
        }
        Err(interp::InterpError::Fail(msg)) => format!("fail: {msg}"),
        Err(e) => panic!("{name}: CASM interpreter: {e}"),
    };
    assert_eq!(ours, actual, "{name}: CASM interpreter");
    #[cfg(feature = "cairo-vm")]
    {
        let both = |mode| {
            let prog = build_module(&module, "main", &[], mode).unwrap();
            let on_vm = kildall_casm::vm::run(&prog);
            let on_interp = interp::run(&prog, MAX_STEPS);
            (on_vm, on_interp)
        };
        for mode in [Mode::Execution, Mode::Proof] {
            match both(mode) {
                (Ok(vm), Ok(ours)) => {
                    assert_eq!(vm.output, ours.output, "{name}: {mode:?}");
                    assert_eq!(vm.terms, ours.terms, "{name}: {mode:?} terms");
                    if mode == Mode::Execution {
                        assert_eq!(vm, ours, "{name}: Cairo VM vs CASM interpreter");
                    }
                }
                (Err(kildall_casm::vm::VmError::Fail(msg)), Err(interp::InterpError::Fail(m))) => {
                    assert_eq!(format!("fail: {msg}"), actual, "{name}: Cairo VM");
                    assert_eq!(format!("fail: {m}"), actual, "{name}: CASM interpreter");
                }
                (vm, ours) => {
                    panic!("{name}, {mode:?}: Cairo VM {vm:?}, CASM interpreter {ours:?}")
                }
            }
        }
    }
    true
}

#[test]
fn every_construct_runs_as_written() {
    let names = common::jvr_files("constructs");
    let mut not_lowered = Vec::new();
    for name in &names {
        if !check(name) {
            not_lowered.push(name.as_str());
        }
    }
    // Every construct lowers to CASM.
    assert_eq!(not_lowered, Vec::<&str>::new());
}

#[test]
fn printing_round_trips_every_construct() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/constructs");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let src = std::fs::read_to_string(&path).unwrap();
        let printed = jvr::parse(&src).unwrap().to_string();
        let reparsed =
            jvr::parse(&printed).unwrap_or_else(|e| panic!("{}: {e}\n{printed}", path.display()));
        assert_eq!(reparsed.to_string(), printed, "{}", path.display());
    }
}

/// A loop of `tccall`s runs in constant stack on the reference
/// interpreter: more iterations than the depth limit allows frames.
#[test]
fn a_tccall_loop_runs_in_constant_depth() {
    let src = "function count(*, integer) : integer {\n  \
        tmp[0] = eq arg[1] 0;\n  br tmp[0] {\n    true: { ret 0; };\n    false: {\n      \
        tmp[1] = sub arg[1] 1;\n      tccall arg[0] (arg[0], tmp[1]);\n    };\n  };\n}\n\
        function main() : integer {\n  tmp[0] = calloc count ();\n  \
        tmp[1] = ccall tmp[0] (tmp[0], 1000);\n  ret tmp[1];\n}\n";
    let module = jvr::parse(src).unwrap();
    let limits = Limits {
        max_depth: 10,
        ..Limits::default()
    };
    let o = jvr_interp::execute(&module, "main", Vec::new(), limits).unwrap();
    assert_eq!(o.value, jvr_interp::Val::Felt(kildall_casm::Felt::ZERO));
    let prog = build_module(&module, "main", &[], Mode::Execution).unwrap();
    assert_eq!(
        interp::run(&prog, MAX_STEPS).unwrap().value,
        kildall_casm::Felt::ZERO
    );
}

/// `readLn` reads the next line of the input, as Juvix's interpreter reads
/// its standard input; past the end the run stops.
#[test]
fn readln_reads_the_input_a_line_at_a_time() {
    let src = "function greet(string) : IO {\n  tmp[0] = strcat \"hello \" arg[0];\n  \
        tmp[0] = alloc write (tmp[0]);\n  ret tmp[0];\n}\n\
        function main() : IO {\n  tmp[0] = alloc readLn ();\n  tmp[1] = calloc greet ();\n  \
        tmp[0] = alloc bind (tmp[0], tmp[1]);\n  ret tmp[0];\n}\n";
    let module = jvr::parse(src).unwrap();
    let mut lines = vec!["world".to_string()].into_iter();
    let mut read_line = || lines.next();
    let o = jvr_interp::execute_io(
        &module,
        "main",
        Vec::new(),
        Limits::default(),
        &mut read_line,
    )
    .unwrap();
    assert_eq!(o.lines(Show::Term), ["hello world"]);
    assert_eq!(
        jvr_interp::execute(&module, "main", Vec::new(), Limits::default()),
        Err(JvrRunError::EndOfInput)
    );
}
