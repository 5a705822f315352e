//! The function `f` of Juvix's JuvixReg-to-CASM change compiles to exactly its listing.

use kildall_casm::listing::{self, Instr};
use kildall_casm::{compile, Felt};

const SRC: &str = include_str!("../data/translation_f.jvr");
const EXPECTED: &str = include_str!("../data/translation_f.casm");

#[test]
fn function_f_matches_the_listing_of_the_translation() {
    let listing = compile(SRC).unwrap();
    let start = listing
        .items
        .iter()
        .position(|i| *i == Instr::Label("f".into()))
        .unwrap();
    let got = &listing.items[start..];
    let expected = listing::parse(EXPECTED).unwrap();
    assert_eq!(got, expected.items.as_slice(), "got:\n{listing}");
}

#[test]
fn function_f_runs() {
    // g(x) = 3x; f(a) = 3 * (3(a+1) + a) + 2 * (3(a+1) + a).
    for a in [0i128, 1, 5, -7] {
        let r = kildall_casm::run_interp(SRC, "f", &[Felt::from_i128(a)]).unwrap();
        let t2 = 3 * (a + 1) + a;
        assert_eq!(r.value, Felt::from_i128(3 * t2 + 2 * t2));
    }
}
