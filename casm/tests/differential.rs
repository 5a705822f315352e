//! Generated programs give the same result in the `.jvr` reference
//! interpreter, the strict CASM interpreter and (with the `cairo-vm`
//! feature) the Cairo VM, in execution mode and in proof mode.

use kildall_casm::generate::{generate, Config};
use kildall_casm::jvr_interp::{self, Limits};
use kildall_casm::{build_module, compile_module, interp, jvr, Mode, MAX_STEPS};

fn check_seed(seed: u64, cfg: &Config, vm: bool) -> u64 {
    let module = generate(seed, cfg);
    let text = module.to_string();
    let parsed = jvr::parse(&text).unwrap();
    assert_eq!(parsed.to_string(), text, "seed {seed}: print/parse");
    let (expected, _) = jvr_interp::run(&parsed, "main", &[], Limits::default()).unwrap();
    let listing = compile_module(&parsed).unwrap();
    assert_eq!(
        kildall_casm::listing::parse(&listing.to_string()).unwrap(),
        listing
    );
    let prog = build_module(&parsed, "main", &[], Mode::Execution).unwrap();
    let got = interp::run(&prog, MAX_STEPS)
        .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}\n{listing}"));
    assert_eq!(got.value, expected, "seed {seed}\n{text}\n{listing}");
    let proof = build_module(&parsed, "main", &[], Mode::Proof).unwrap();
    assert_eq!(
        interp::run(&proof, MAX_STEPS).unwrap().value,
        expected,
        "seed {seed} (proof mode)"
    );
    #[cfg(feature = "cairo-vm")]
    if vm {
        let on_vm =
            kildall_casm::vm::run(&prog).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(on_vm, got, "seed {seed}: Cairo VM\n{text}\n{listing}");
        let on_vm =
            kildall_casm::vm::run(&proof).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(on_vm.value, expected, "seed {seed}: Cairo VM, proof mode");
    }
    #[cfg(not(feature = "cairo-vm"))]
    let _ = vm;
    got.steps
}

#[test]
fn generated_programs_agree() {
    let cfg = Config::default();
    let mut steps = 0;
    for seed in 0..300 {
        steps += check_seed(seed, &cfg, seed % 3 == 0);
    }
    // The generator must produce programs that do real work.
    assert!(steps > 300 * 20, "only {steps} steps in 300 programs");
}

#[test]
fn generated_programs_deep_nesting() {
    let cfg = Config {
        functions: 10,
        recursive: 3,
        max_stmts: 7,
        max_depth: 5,
        max_recursion: 30,
        reach: 3,
    };
    for seed in 1000..1060 {
        check_seed(seed, &cfg, true);
    }
}

#[test]
fn generated_programs_cover_the_language() {
    // Over a few seeds the generator emits every construct the compiler has
    // a separate path for.
    let mut text = String::new();
    for seed in 0..50 {
        text.push_str(&generate(seed, &Config::default()).to_string());
    }
    for needle in [
        " = call ", "tcall ", "br ", "if eq", "if lt", "if le", "out: ", "fdiv", " = lt ",
        " = le ", " = eq ",
    ] {
        assert!(text.contains(needle), "no `{needle}` in generated programs");
    }
}
