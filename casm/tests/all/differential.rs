//! Generated programs give the same result in the `.jvr` reference
//! interpreter, the strict CASM interpreter and (with the `cairo-vm`
//! feature) the Cairo VM, in execution mode and in proof mode. A program
//! that compares or divides an integer outside the range the code proves
//! (`BinOp::check_range`), or `show`s one, must fail on every machine. The
//! traces and the result print the same terms on every machine.

use kildall_casm::generate::{generate, Config};
use kildall_casm::jvr::ArithError;
use kildall_casm::jvr_interp::{self, JvrRunError, Limits};
use kildall_casm::{build_module, compile_module, interp, jvr, Mode, MAX_STEPS};

/// What a generated program ran to: its VM steps, and whether its terms
/// were compared (not refused on every machine).
struct Ran {
    steps: u64,
    terms: bool,
}

/// Runs one generated program everywhere; returns what it ran to, or
/// `None` when it (rightly) failed everywhere on an out-of-range operand.
fn check_seed(seed: u64, cfg: &Config, vm: bool) -> Option<Ran> {
    let module = generate(seed, cfg);
    let text = module.to_string();
    let parsed = jvr::parse(&text).unwrap();
    assert_eq!(parsed.to_string(), text, "seed {seed}: print/parse");
    let listing = compile_module(&parsed).unwrap();
    assert_eq!(
        kildall_casm::listing::parse(&listing.to_string()).unwrap(),
        listing
    );
    let prog = build_module(&parsed, "main", &[], Mode::Execution).unwrap();
    let expected = match jvr_interp::run(&parsed, "main", &[], Limits::default()) {
        Ok((v, _)) => v,
        Err(
            JvrRunError::Arith(ArithError::OutOfRange(..) | ArithError::DivisionByZero)
            | JvrRunError::ShowRange(_),
        ) => {
            let e = interp::run(&prog, MAX_STEPS).expect_err("out of range on the interpreter");
            assert!(
                matches!(e, interp::InterpError::RangeCheck(_)),
                "seed {seed}: {e}"
            );
            #[cfg(feature = "cairo-vm")]
            if vm {
                let e = kildall_casm::vm::run(&prog).expect_err("out of range on the Cairo VM");
                assert!(
                    e.to_string().contains("Range-check validation failed"),
                    "seed {seed}: {e}"
                );
            }
            return None;
        }
        Err(e) => panic!("seed {seed}: {e}"),
    };
    let got = interp::run(&prog, MAX_STEPS)
        .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}\n{listing}"));
    assert_eq!(got.value, expected, "seed {seed}\n{text}\n{listing}");
    // The traces and the result print the same terms, unless printing
    // terms is refused on every machine (a printed value may be a boolean
    // its kind does not name).
    let outcome = jvr_interp::execute(&parsed, "main", Vec::new(), Limits::default())
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    if prog.term_refusal.is_none() {
        assert_eq!(
            got.terms,
            outcome.lines(jvr_interp::Show::Term),
            "seed {seed}: terms\n{text}"
        );
    }
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
    Some(Ran {
        steps: got.steps,
        terms: prog.term_refusal.is_none(),
    })
}

#[test]
fn generated_programs_agree() {
    let cfg = Config::default();
    let (mut steps, mut ran, mut terms) = (0, 0, 0);
    for seed in 0..300 {
        if let Some(r) = check_seed(seed, &cfg, seed % 3 == 0) {
            steps += r.steps;
            ran += 1;
            terms += usize::from(r.terms);
        }
    }
    // Most programs print terms alike; some pass a boolean, `unit` or
    // `void` through `keep` and trace it, which every machine refuses.
    assert!(
        terms > ran / 2,
        "terms compared in {terms} of {ran} programs"
    );
    assert!(terms < ran, "no generated program hides a kind");
    // The generator must produce programs that do real work, most of them
    // within the proved integer range.
    assert!(ran > 200, "only {ran} of 300 programs in range");
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
        " = call ",
        "tcall ",
        "br ",
        "if eq",
        "if lt",
        "if le",
        "out: ",
        "fdiv",
        " = lt ",
        " = le ",
        " = eq ",
        " = div ",
        " = mod ",
        " = alloc s",
        "case[shape]",
        "default: {",
        " = calloc ",
        " = cextend ",
        " = argsnum ",
        " = call tmp",
        "tcall tmp",
        " = ccall tmp",
        "tccall tmp",
        " = void;",
        " = show tmp",
        " = strcat ",
        " = atoi tmp",
        " = eq tmp",
        " = call keep(true);",
        " = call keep(unit);",
        " = call keep(void);",
    ] {
        assert!(text.contains(needle), "no `{needle}` in generated programs");
    }
    // Structural equality: `eq` of two constructors.
    let modules: Vec<_> = (0..50)
        .map(|seed| generate(seed, &Config::default()))
        .collect();
    let compares_objects = modules.iter().any(|m| {
        kildall_casm::compile_module(m).unwrap().items.iter().any(
            |i| matches!(i, kildall_casm::listing::Instr::Label(l) if l == kildall_casm::heap::EQ),
        )
    });
    assert!(compares_objects, "no structural eq in generated programs");
}
