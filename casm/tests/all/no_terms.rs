//! Programs whose printed values the compiled machines cannot name as the
//! reference interpreter does (`tests/data/no_terms`): a boolean, `unit`
//! or `void` that reaches a `trace` or the result through a position of
//! unknown kind. Every machine refuses to print their terms, with the
//! error and place of the `-- refused:` header: the compiled machines when
//! the program is built (execution and proof mode), and `casm run --vm
//! jvr`, which builds it first. Every machine prints the same field
//! elements (`-- expect:`, the lines joined by ` | `). The `-- reference:`
//! header holds the terms the reference interpreter's library computes
//! when asked anyway, which the refusal gives up.

use crate::common;

use kildall_casm::jvr_interp::{self, Limits, Show, Val};
use kildall_casm::{build_module, build_module_values, interp, jvr, Mode, MAX_STEPS};

fn header<'a>(src: &'a str, key: &str) -> &'a str {
    src.lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("a {key} header"))
}

#[test]
fn every_machine_refuses_terms_it_cannot_name_and_agrees_on_field_elements() {
    let names = common::jvr_files("no_terms");
    assert!(names.len() >= 3);
    for name in &names {
        let (src, module) = common::load("no_terms", name);
        let (refused, felts) = (header(&src, "-- refused: "), header(&src, "-- expect: "));
        let run = |show| {
            let o = jvr_interp::execute(&module, "main", Vec::new(), Limits::default());
            o.unwrap_or_else(|e| panic!("{name}: {e}"))
                .lines(show)
                .join(" | ")
        };
        assert_eq!(run(Show::Felt), felts, "{name}: reference interpreter");
        assert_eq!(run(Show::Term), header(&src, "-- reference: "), "{name}");
        for mode in [Mode::Execution, Mode::Proof] {
            let prog = build_module(&module, "main", &[], mode).unwrap();
            let refusal = prog.term_refusal.as_ref().map(ToString::to_string);
            assert_eq!(refusal.as_deref(), Some(refused), "{name}: {mode:?}");
            let ours = interp::run(&prog, MAX_STEPS).unwrap();
            assert_eq!(ours.output.join(" | "), felts, "{name}: {mode:?}");
            assert!(ours.terms.is_empty(), "{name}: {mode:?}");
            #[cfg(feature = "cairo-vm")]
            {
                let vm = kildall_casm::vm::run(&prog).unwrap();
                assert_eq!(vm.output, ours.output, "{name}: Cairo VM, {mode:?}");
                assert!(vm.terms.is_empty(), "{name}: Cairo VM, {mode:?}");
            }
        }
    }
}

/// An argument is read as its parameter reads it: a boolean given where
/// `integer` is declared is its number on every machine, while a boolean
/// given to a `*` parameter makes it hide its kind, as a call would.
#[test]
fn entry_arguments_are_read_as_their_parameters_are() {
    let src = "function main(integer, *) : integer {\n  trace arg[0];\n  \
               trace arg[1];\n  ret 5;\n}\n";
    let module = jvr::parse(src).unwrap();
    let prog = |second: Val| {
        build_module_values(&module, "main", &[Val::Bool(true), second], Mode::Execution).unwrap()
    };
    let typed = prog(Val::Felt(kildall_casm::Felt::from_i128(4)));
    assert_eq!(typed.term_refusal, None);
    assert_eq!(
        interp::run(&typed, MAX_STEPS).unwrap().terms,
        ["0", "4", "5"]
    );
    let args = vec![Val::Bool(true), Val::Felt(kildall_casm::Felt::from_i128(4))];
    let reference = jvr_interp::execute(&module, "main", args, Limits::default()).unwrap();
    assert_eq!(reference.lines(Show::Term), ["0", "4", "5"]);
    let refusal = prog(Val::Bool(false)).term_refusal.unwrap();
    assert_eq!(
        refusal.to_string(),
        "3:3: terms cannot be printed on Cairo: trace of a value of unknown kind, \
         which may be a boolean, `unit` or `void` (numbers on Cairo)"
    );
}
