//! Fuzz harnesses, inside the library so that `cargo fuzz` targets and the
//! seeded smoke test share them (the regalloc2 arrangement).
//!
//! Each harness panics on a property violation and returns normally on
//! input that is merely invalid.

use crate::asm::{self, Mode};
use crate::generate::{self, Config};
use crate::jvr_interp::{self, Limits};
use crate::{interp, jvr, listing};

/// Arbitrary bytes as `.jvr`: parsing and compiling never panic, and a
/// parsed module prints to text that parses to the same printed text.
pub fn parse_jvr(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(module) = jvr::parse(&text) else {
        return;
    };
    let printed = module.to_string();
    let reparsed = jvr::parse(&printed)
        .unwrap_or_else(|e| panic!("printed module does not parse: {e}\n{printed}"));
    assert_eq!(reparsed.to_string(), printed, "print/parse is not stable");
    if let Ok(listing) = crate::compile_module(&module) {
        let text = listing.to_string();
        let back = listing::parse(&text)
            .unwrap_or_else(|e| panic!("printed CASM does not parse: {e}\n{text}"));
        assert_eq!(back, listing, "CASM print/parse round trip");
    }
}

/// Arbitrary bytes as a CASM listing: parsing and assembling never panic;
/// a parsed listing round-trips through its printer.
pub fn parse_casm(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(listing) = listing::parse(&text) else {
        return;
    };
    assert_eq!(
        listing::parse(&listing.to_string()).ok().as_ref(),
        Some(&listing)
    );
    if let Some(listing::Instr::Label(first)) = listing.items.first() {
        if let Ok(prog) = asm::assemble(&listing, first, &[], Mode::Execution) {
            let _ = interp::run(&prog, 10_000);
        }
    }
}

/// The compiler on the generated program of `seed`: the `.jvr` reference
/// interpreter and the strict CASM interpreter agree on the result, on the
/// field elements printed and, unless every machine refuses them, on the
/// terms printed (and the Cairo VM, with the `cairo-vm` feature), or the
/// harness panics with the program.
pub fn differential(seed: u64) {
    let module = generate::generate(seed, &Config::default());
    let text = module.to_string();
    let parsed = jvr::parse(&text)
        .unwrap_or_else(|e| panic!("seed {seed}: generated text does not parse: {e}\n{text}"));
    let prog = crate::build_module(&parsed, "main", &[], Mode::Execution)
        .unwrap_or_else(|e| panic!("seed {seed}: compile: {e}\n{text}"));
    let expected = match jvr_interp::run(&parsed, "main", &[], Limits::default()) {
        Ok(v) => v,
        // Outside the proved integer range, every machine must refuse.
        Err(e @ (jvr_interp::JvrRunError::Arith(_) | jvr_interp::JvrRunError::ShowRange(_))) => {
            let got = interp::run(&prog, crate::MAX_STEPS);
            assert!(
                matches!(got, Err(interp::InterpError::RangeCheck(_))),
                "seed {seed}: {e} but the CASM interpreter gave {got:?}\n{text}"
            );
            #[cfg(feature = "cairo-vm")]
            assert!(
                crate::vm::run(&prog).is_err(),
                "seed {seed}: {e} but the Cairo VM accepted the run\n{text}"
            );
            return;
        }
        Err(e) => panic!("seed {seed}: reference interpreter: {e}\n{text}"),
    };
    let got = interp::run(&prog, crate::MAX_STEPS)
        .unwrap_or_else(|e| panic!("seed {seed}: CASM interpreter: {e}\n{text}"));
    assert_eq!(got.value, expected.0, "seed {seed}: results differ\n{text}");
    let outcome = jvr_interp::execute(&parsed, "main", Vec::new(), Limits::default())
        .unwrap_or_else(|e| panic!("seed {seed}: reference interpreter: {e}\n{text}"));
    let felts = outcome.lines(jvr_interp::Show::Felt);
    assert_eq!(
        got.output, felts,
        "seed {seed}: printed numbers differ\n{text}"
    );
    if prog.term_refusal.is_none() {
        let terms = outcome.lines(jvr_interp::Show::Term);
        assert_eq!(
            got.terms, terms,
            "seed {seed}: printed terms differ\n{text}"
        );
    }
    #[cfg(feature = "cairo-vm")]
    {
        let vm =
            crate::vm::run(&prog).unwrap_or_else(|e| panic!("seed {seed}: Cairo VM: {e}\n{text}"));
        assert_eq!(vm, got, "seed {seed}: Cairo VM differs\n{text}");
    }
}

/// Mutates `input` deterministically from `seed`: byte flips, insertions
/// and deletions, for seeded smoke runs of the parsing harnesses.
pub fn mutate(input: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = generate::Rng::new(seed);
    let mut out = input.to_vec();
    for _ in 0..1 + rng.index(4) {
        let at = rng.index(out.len() + 1);
        match rng.index(3) {
            0 if at < out.len() => out[at] = rng.next_u64() as u8,
            1 => out.insert(at, b"{}[]();:=-, \n0123456789abrtmpfcalq"[rng.index(33)]),
            _ if at < out.len() => {
                out.remove(at);
            }
            _ => {}
        }
    }
    out
}
