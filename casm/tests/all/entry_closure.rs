//! Closures as arguments of the entry (`tests/data/entry_closure.jvr`):
//! the entry sequence writes them into memory like any closure; the
//! reference interpreter, the strict interpreter and, with the `cairo-vm`
//! feature, the Cairo VM (execution and proof mode) agree. A closure that
//! cannot be laid out is refused when the program is built.

use std::path::Path;
use std::rc::Rc;

use kildall_casm::jvr::{self, JvrErrorKind, Module};
use kildall_casm::jvr_interp::{self, ClosureVal, CtorVal, Limits, Val};
use kildall_casm::{build_module_values, interp, Error, Felt, Mode, MAX_STEPS};

fn module() -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/entry_closure.jvr");
    jvr::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn n(x: i128) -> Val {
    Val::Felt(Felt::from_i128(x))
}

fn closure(func: &str, arity: usize, args: Vec<Val>) -> Val {
    Val::Closure(Rc::new(ClosureVal {
        func: func.to_string(),
        arity,
        args,
    }))
}

fn ctor(module: &Module, name: &str, fields: Vec<Val>) -> Val {
    let (_, tag, _) = module.ctor(name).unwrap();
    Val::Ctor(Rc::new(CtorVal {
        name: name.to_string(),
        tag,
        is_record: true,
        fields,
    }))
}

/// Runs `entry(args)` on every machine; returns the printed result.
fn run(module: &Module, entry: &str, args: Vec<Val>) -> String {
    let reference = jvr_interp::execute(module, entry, args.clone(), Limits::default())
        .unwrap_or_else(|e| panic!("{entry}: {e}"))
        .value
        .output_lines()
        .join(" | ");
    for mode in [Mode::Execution, Mode::Proof] {
        let prog = build_module_values(module, entry, &args, mode).unwrap();
        let ours = interp::run(&prog, MAX_STEPS).unwrap();
        assert_eq!(ours.output.join(" | "), reference, "{entry}: {mode:?}");
        #[cfg(feature = "cairo-vm")]
        {
            let vm = kildall_casm::vm::run(&prog).unwrap();
            assert_eq!(vm.output, ours.output, "{entry}: Cairo VM, {mode:?}");
            if mode == Mode::Execution {
                assert_eq!(vm, ours, "{entry}: Cairo VM");
            }
        }
    }
    reference
}

#[test]
fn closures_from_the_caller_run_on_every_machine() {
    let m = module();
    // add3 holding 1 and 2 takes one more: 100 * 1 + (1 + 2 + 3).
    let add3_12 = closure("add3", 3, vec![n(1), n(2)]);
    assert_eq!(run(&m, "call1", vec![add3_12, n(3)]), "106");
    // Extended by 20 inside, then called with 300.
    let add3_1 = closure("add3", 3, vec![n(1)]);
    assert_eq!(
        run(&m, "extend_then_call", vec![add3_1, n(20), n(300)]),
        "321"
    );
    // A closure storing a constructor, whose field the function reads.
    let p = ctor(&m, "pair", vec![n(40), n(2)]);
    let first_p = closure("first", 2, vec![p]);
    assert_eq!(run(&m, "call1", vec![first_p, n(2)]), "142");
    // Closures inside a record: (1 + 2 + 5) * (40 + 5).
    let p = ctor(&m, "pair", vec![n(40), n(2)]);
    let fs = ctor(
        &m,
        "funcs",
        vec![
            closure("add3", 3, vec![n(1), n(2)]),
            closure("first", 2, vec![p]),
        ],
    );
    assert_eq!(run(&m, "both", vec![fs, n(5)]), "360");
}

#[test]
fn a_closure_that_cannot_be_laid_out_is_refused() {
    let m = module();
    let refused = |args: Vec<Val>| match build_module_values(&m, "call1", &args, Mode::Execution) {
        Err(Error::Jvr(e)) => match e.kind {
            JvrErrorKind::EntryArgument(what) => what,
            other => panic!("{other}"),
        },
        other => panic!("built: {:?}", other.map(|p| p.data.len())),
    };
    assert_eq!(
        refused(vec![closure("nowhere", 1, vec![]), n(1)]),
        "a closure of nowhere, which has no definition"
    );
    assert_eq!(
        refused(vec![closure("add3", 3, vec![n(1), n(2), n(3), n(4)]), n(1)]),
        "a closure of add3 (3 parameters) storing 4 of 3 arguments"
    );
    assert_eq!(
        refused(vec![closure("add3", 2, vec![n(1)]), n(1)]),
        "a closure of add3 (3 parameters) storing 1 of 2 arguments"
    );
}
