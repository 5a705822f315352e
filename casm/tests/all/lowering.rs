//! Block transfers: every predecessor of a join block pushes the live
//! variables in the block's one order, whatever frame it comes from.

use kildall_casm::jvr_interp::{self, Limits};
use kildall_casm::listing::{Instr, Rhs, Target};
use kildall_casm::{compile, jvr, run_interp, Felt};

const SRC: &str = "
function id(integer) : integer { ret arg[0]; }
function f(integer, integer, integer) : integer {
  br arg[0], out: r {
    true: { r = call id(arg[1]); };
    false: { t = call id(arg[2]); r = add t 1; };
  };
  s = sub arg[1] arg[2];
  u = sub s arg[0];
  v = sub u r;
  w = mul v arg[2];
  ret w;
}
";

#[test]
fn join_predecessors_agree_on_parameter_order() {
    let module = jvr::parse(SRC).unwrap();
    for (a, b, c) in [(1, 10, 3), (0, 10, 3), (7, -2, 5), (0, 4, -9)] {
        let args = [a, b, c].map(Felt::from_i128);
        let (expected, _) = jvr_interp::run(&module, "f", &args, Limits::default()).unwrap();
        assert_eq!(
            run_interp(SRC, "f", &args).unwrap().value,
            expected,
            "f({a}, {b}, {c})"
        );
    }
}

#[test]
fn join_is_entered_by_calls_with_equal_argument_counts() {
    let listing = compile(SRC).unwrap();
    let items = &listing.items;
    let join_calls: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Instr::Call(Target::Label(l)) if l.starts_with("f$")))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(join_calls.len(), 2, "{listing}");
    let target = |k: usize| match &items[k] {
        Instr::Call(t) => t.clone(),
        _ => unreachable!(),
    };
    assert_eq!(target(join_calls[0]), target(join_calls[1]));
    // Pushes before each call: the output (unless already on the stack) and
    // the three live parameters arg[0..3].
    let pushes = |k: usize| {
        items[..k]
            .iter()
            .rev()
            .take_while(|i| {
                matches!(
                    i,
                    Instr::Assign {
                        rhs: Rhs::Val(_),
                        ap_incr: true,
                        ..
                    }
                )
            })
            .count()
    };
    // The arm ending in the call has its output on the stack (3 pushes);
    // the other pushes the output and the parameters (4).
    let mut counts = [pushes(join_calls[0]), pushes(join_calls[1])];
    counts.sort();
    assert_eq!(counts, [3, 4], "{listing}");
}

/// A branch without calls whose one arm returns on every path (through a
/// nested branch) and whose other arm falls through with the output: the
/// join's `ap` is the falling arm's, so the cells after the join do not
/// overlap the output's. (Reduced from the casm fuzz target's differential
/// failure, where the returning arm's stale `ap` made a later variable
/// alias the branch output.)
#[test]
fn join_after_an_arm_that_always_returns() {
    const SRC: &str = "
function f(integer) : integer {
  if le arg[0] 1, out: r {
    true: { r = 5; };
    false: {
      a = add arg[0] 1;
      b = add a 1;
      br b { true: { ret a; }; false: { ret b; }; };
    };
  };
  s = add arg[0] 7;
  t = add s r;
  ret t;
}
function g(integer) : integer {
  br arg[0], out: r {
    true: {
      a = add arg[0] 1;
      b = add a 1;
      if eq b 3 { true: { ret a; }; false: { ret b; }; };
    };
    false: { r = 5; };
  };
  s = add arg[0] 7;
  t = mul s r;
  ret t;
}
";
    let module = jvr::parse(SRC).unwrap();
    for name in ["f", "g"] {
        for a in [-3, 0, 1, 2, 9] {
            let args = [Felt::from_i128(a)];
            let (expected, _) = jvr_interp::run(&module, name, &args, Limits::default()).unwrap();
            assert_eq!(
                run_interp(SRC, name, &args).unwrap().value,
                expected,
                "{name}({a})"
            );
        }
    }
}
