//! Every hint's answer is checked by the code it feeds: a prover that
//! proposes a wrong answer (injected through the hint processor) makes
//! the Cairo VM reject the run, for each of `lt`, `le`, `div`, `mod` and
//! `show` of an integer (alone or in a constructor).
#![cfg(feature = "cairo-vm")]

use kildall_casm::listing::Hint;
use kildall_casm::{build, vm, Felt, Mode};

fn program(op: &str) -> String {
    format!("function main(integer, integer) : integer {{\n  tmp[0] = {op} arg[0] arg[1];\n  ret tmp[0];\n}}\n")
}

fn f(x: i128) -> Felt {
    Felt::from_i128(x)
}

/// Runs `op a b` honestly (expecting `want`), then with `lie` answering
/// every hint; the lie must be refused by a range check or an assertion.
fn refused(op: &str, a: i128, b: i128, want: i128, lie: &dyn Fn(Vec<Felt>) -> Vec<Felt>) {
    for mode in [Mode::Execution, Mode::Proof] {
        let prog = build(&program(op), "main", &[f(a), f(b)], mode).unwrap();
        let honest = vm::run(&prog).unwrap();
        assert_eq!(honest.value, f(want), "{op} {a} {b}");
        lie_refused(&prog, lie, &format!("{op} {a} {b}"));
    }
}

fn flip(mut cells: Vec<Felt>) -> Vec<Felt> {
    cells[0] = Felt::ONE - cells[0];
    cells
}

#[test]
fn comparisons_refuse_a_flipped_answer() {
    for (a, b) in [(3, 7), (7, 3), (5, 5), (-4, 2), (2, -4), (-9, -9)] {
        let lt = if a < b { 0 } else { 1 };
        let le = if a <= b { 0 } else { 1 };
        refused("lt", a, b, lt, &flip);
        refused("le", a, b, le, &flip);
    }
}

#[test]
fn comparisons_refuse_a_non_bit() {
    // 2 is neither boolean; `B * B = B` rejects it.
    refused("lt", 3, 7, 0, &|mut c| {
        c[0] = f(2);
        c
    });
}

/// `[sa, sb, q, r]` with `q` one too big and `r` one `|b|` too small:
/// still `|a| = q |b| + r`, but `r` is negative.
fn quotient_up(b: i128) -> impl Fn(Vec<Felt>) -> Vec<Felt> {
    move |mut c| {
        c[2] = c[2] + Felt::ONE;
        c[3] = c[3] - f(b.abs());
        c
    }
}

/// `q` one too small and `r` one `|b|` too big: `r >= |b|`.
fn quotient_down(b: i128) -> impl Fn(Vec<Felt>) -> Vec<Felt> {
    move |mut c| {
        c[2] = c[2] - Felt::ONE;
        c[3] = c[3] + f(b.abs());
        c
    }
}

/// The dividend's sign flipped (and the divisor's, which keeps the
/// quotient's sign): the magnitude `-|a|` is out of range.
fn signs_flipped(mut c: Vec<Felt>) -> Vec<Felt> {
    c[0] = Felt::ONE - c[0];
    c[1] = Felt::ONE - c[1];
    c
}

#[test]
fn division_refuses_wrong_quotients_and_signs() {
    for (a, b) in [(17, 5), (-17, 5), (17, -5), (-17, -5), (20, 4)] {
        let (q, r) = (a / b, a % b);
        for (op, want) in [("div", q), ("mod", r)] {
            refused(op, a, b, want, &quotient_up(b));
            refused(op, a, b, want, &quotient_down(b));
            refused(op, a, b, want, &signs_flipped);
        }
    }
}

#[test]
fn out_of_range_operands_fail_honestly_too() {
    // No answer can pass the checks on operands outside the proved range.
    let big = Felt::from_u128(1 << 127);
    let prog = build(&program("lt"), "main", &[big, f(0)], Mode::Execution).unwrap();
    assert!(vm::run(&prog).is_err());
    let prog = build(&program("le"), "main", &[-big, f(0)], Mode::Execution).unwrap();
    assert_eq!(vm::run(&prog).unwrap().value, f(0), "-2^127 is in range");
    let prog = build(&program("div"), "main", &[f(7), f(0)], Mode::Execution).unwrap();
    assert!(vm::run(&prog).is_err());
}

/// Structural equality and calls through closures of unknown arity are
/// decided by the code alone: their routines ask no hint for an answer
/// (the only hint, of `cextend`, names the error of an assertion that
/// fails), so a prover that lies to every hint changes nothing.
#[test]
fn equality_and_ccall_ask_no_hint() {
    let src = "type list {\n  nil : list;\n  cons : (*, list) -> list;\n}\n\
        function plus(integer, integer) : integer {\n  tmp[0] = add arg[0] arg[1];\n  ret tmp[0];\n}\n\
        function main(integer, integer) : integer {\n  tmp[0] = alloc nil ();\n  \
        tmp[1] = alloc cons (arg[0], tmp[0]);\n  tmp[2] = alloc cons (arg[1], tmp[0]);\n  \
        tmp[3] = eq tmp[1] tmp[2];\n  tmp[4] = calloc plus ();\n  tmp[5] = ccall tmp[4] (tmp[3]);\n  \
        tmp[6] = ccall tmp[5] (10);\n  ret tmp[6];\n}\n";
    let listing = kildall_casm::compile(src).unwrap();
    assert!(
        !listing.items.iter().any(|i| matches!(
            i,
            kildall_casm::listing::Instr::Hint(Hint::Compare { .. } | Hint::DivMod { .. })
        )),
        "{listing}"
    );
    for (a, b, want) in [(1, 1, 10), (1, 2, 11)] {
        let prog = build(src, "main", &[f(a), f(b)], Mode::Proof).unwrap();
        let lie = |_: &Hint, _: Felt, _: Felt| vec![f(7); 4];
        assert_eq!(vm::run_with_answers(&prog, &lie).unwrap().value, f(want));
    }
}

/// Runs `prog` with `lie` answering every hint: a range check or an
/// assertion must stop it.
fn lie_refused(prog: &kildall_casm::Program, lie: &dyn Fn(Vec<Felt>) -> Vec<Felt>, what: &str) {
    let lying = |h: &Hint, x: Felt, y: Felt| lie(h.answer(x, y));
    match vm::run_with_answers(prog, &lying) {
        Err(e) => assert!(
            e.to_string().contains("Range-check validation failed")
                || e.to_string().contains("An ASSERT_EQ"),
            "{what}: unexpected failure {e}"
        ),
        Ok(r) => panic!("{what}: a lying hint was accepted, result {}", r.value),
    }
}

/// `show` of `a` read back by `atoi`: the digits are the only ones the
/// checks admit, so every lie below stops the run.
fn show_refused(a: i128, lie: &dyn Fn(Vec<Felt>) -> Vec<Felt>) {
    let src = "function main(integer) : integer {\n  tmp[0] = show arg[0];\n  \
        tmp[1] = atoi tmp[0];\n  ret tmp[1];\n}\n";
    for mode in [Mode::Execution, Mode::Proof] {
        let prog = build(src, "main", &[f(a)], mode).unwrap();
        assert_eq!(vm::run(&prog).unwrap().value, f(a), "show {a}");
        lie_refused(&prog, lie, &format!("show {a}"));
    }
}

/// One digit for the whole number: `q = 0`, `r = |a|`.
fn one_digit(mut c: Vec<Felt>) -> Vec<Felt> {
    c[3] = c[3] + f(10) * c[2];
    c[2] = f(0);
    c
}

#[test]
fn show_refuses_wrong_digits_signs_and_lengths() {
    for a in [0, 7, 10, 123, -5, -120, 1 << 100, -(1 << 100)] {
        show_refused(a, &quotient_up(10));
        show_refused(a, &quotient_down(10));
        show_refused(a, &signs_flipped);
        show_refused(a, &|mut c| {
            c[0] = Felt::ONE - c[0];
            c
        });
        if !(-9..=9).contains(&a) {
            show_refused(a, &one_digit);
        }
    }
}

/// A wrong answer made of the honest one.
type Lie = dyn Fn(Vec<Felt>) -> Vec<Felt>;

/// The lies about one step of `show`'s digits that every check refuses:
/// the quotient off by one either way, the sign flipped, and the whole
/// number as one digit (an honest answer for a number of one digit).
fn digit_lies() -> [Box<Lie>; 4] {
    [
        Box::new(quotient_up(10)),
        Box::new(quotient_down(10)),
        Box::new(signs_flipped),
        Box::new(one_digit),
    ]
}

/// `show` of a constructor writes its integer fields' digits as `show` of
/// an integer does: the same lies stop the run.
#[test]
fn show_of_a_constructor_refuses_wrong_digits() {
    let src = "type pair {\n  mk : (integer, integer) -> pair;\n}\n\
        function main(integer) : string {\n  tmp[0] = alloc mk (arg[0], 7);\n  \
        tmp[1] = show tmp[0];\n  ret tmp[1];\n}\n";
    let lies = digit_lies();
    for mode in [Mode::Execution, Mode::Proof] {
        let prog = build(src, "main", &[f(-120)], mode).unwrap();
        assert_eq!(vm::run(&prog).unwrap().terms, ["mk -120 7"]);
        for lie in &lies {
            lie_refused(&prog, lie, "show of mk -120 7");
        }
    }
}

/// `show` of a number given where `bool` is declared, directly and as a
/// constructor's field: the branches on the value ask no hint, and the
/// digits of a number no boolean is are `show` of an integer's, which the
/// same lies cannot change.
#[test]
fn show_of_a_declared_bool_refuses_wrong_digits() {
    let src = "type flag {\n  mk : (bool, integer) -> flag;\n}\n\
        function shown(bool) : string {\n  tmp[0] = show arg[0];\n  \
        tmp[1] = alloc mk (arg[0], 17);\n  tmp[2] = show tmp[1];\n  \
        tmp[3] = strcat tmp[0] \" \";\n  tmp[3] = strcat tmp[3] tmp[2];\n  \
        ret tmp[3];\n}\n\
        function main(integer) : string {\n  tmp[0] = call shown (arg[0]);\n  \
        ret tmp[0];\n}\n";
    let lies = digit_lies();
    for mode in [Mode::Execution, Mode::Proof] {
        for (a, text) in [(0, "true mk true 17"), (1, "false mk false 17")] {
            let prog = build(src, "main", &[f(a)], mode).unwrap();
            assert_eq!(vm::run(&prog).unwrap().terms, [text]);
            // Only the digits of 17 ask the hint: a lie about them stops
            // the run, none changes the boolean's text.
            for lie in &lies {
                lie_refused(&prog, lie, text);
            }
        }
        let prog = build(src, "main", &[f(-120)], mode).unwrap();
        assert_eq!(vm::run(&prog).unwrap().terms, ["-120 mk -120 17"]);
        for lie in &lies {
            lie_refused(&prog, lie, "show of -120 where bool is declared");
        }
    }
}

/// `strcat`, `atoi` and `eq` of strings are decided by the code alone,
/// and `show` of a constant boolean is its text: no hint answers for
/// them.
#[test]
fn strings_ask_no_hint_but_show_of_integers() {
    let src = "function main(integer) : integer {\n  tmp[0] = lt 1 2;\n  \
        tmp[1] = show true;\n  tmp[2] = strcat \"-\" \"42\";\n  \
        tmp[3] = strcat tmp[1] tmp[2];\n  tmp[4] = atoi tmp[2];\n  \
        tmp[5] = add tmp[4] arg[0];\n  tmp[6] = eq tmp[3] \"true-42\";\n  \
        tmp[7] = add tmp[5] tmp[6];\n  ret tmp[7];\n}\n";
    let prog = build(src, "main", &[f(2)], Mode::Proof).unwrap();
    // The one hint, of `lt`, feeds nothing that is printed.
    let lie = |h: &Hint, x: Felt, y: Felt| h.answer(x, y);
    assert_eq!(vm::run_with_answers(&prog, &lie).unwrap().value, f(-40));
    let listing = kildall_casm::compile(src).unwrap();
    let hints = listing
        .items
        .iter()
        .filter(|i| matches!(i, kildall_casm::listing::Instr::Hint(Hint::DivMod { .. })))
        .count();
    assert_eq!(hints, 0, "{listing}");
}
