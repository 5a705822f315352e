//! `cargo xtask noise`: placements, checks, costs, effort and limits.

use super::*;

#[test]
fn noise_places_reductions_and_check_verifies_them() {
    let out = xtask(&["noise", "examples/noise/mul_chain.ssa"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(
            "reduce_noise inserted: 3, executions 3 (exact, executions cost 3, lower bound 3, optimal, "
        ),
        "{}",
        stderr(&out)
    );
    let placed = temp_file("placed.ssa", &out.stdout);
    let check = xtask(&["noise", placed.to_str().unwrap(), "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));

    let check = xtask(&["noise", "examples/noise/mul_chain.ssa", "--check"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stderr(&check).contains("noise after v5 = mul v4, v4 is"),
        "{}",
        stderr(&check)
    );
    assert!(stdout(&check).is_empty());
}

/// Values passed to a call or returned carry at most the input noise: the
/// check names both, the placement reduces both, and the placed program
/// runs where the input trapped.
#[test]
fn noise_holds_call_arguments_and_returned_values_to_the_input_noise() {
    let file = "examples/noise/calls.ssa";
    let check = xtask(&["noise", file, "--check"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(
        stderr(&check),
        format!(
            "{file}:12:5: noise of v4 passed by v5 = call f1(v4, v3) -> noisy is 24 bits, over the input noise of 12\n\
             {file}:22:5: noise of v3 passed by return v3 is 25 bits, over the input noise of 12\n"
        )
    );
    let run = xtask(&["run", file, "--args", "u5 3, u5 4"]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let out = xtask(&["noise", file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("reduce_noise inserted: 2, executions 2 "),
        "{}",
        stderr(&out)
    );
    let placed = temp_file("calls_placed.ssa", &out.stdout);
    let check = xtask(&["noise", placed.to_str().unwrap(), "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    let run = xtask(&["run", placed.to_str().unwrap(), "--args", "u5 3, u5 4"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(stdout(&run), "u5 28\n");
}

#[test]
fn noise_needs_no_reduction_for_a_mul_and_one_add() {
    let out = xtask(&["noise", "examples/noise/mul_one_add.ssa"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(
            "reduce_noise inserted: 0, executions 0 (exact, executions cost 0, lower bound 0, optimal, "
        ),
        "{}",
        stderr(&out)
    );
}

/// A loop of 10 trips: the static cost keeps one reduction inside it (run
/// 10 times), the executions cost (the default) moves two before it.
#[test]
fn noise_cost_counts_executions_or_the_text() {
    let file = "examples/noise/loop_invariant.ssa";
    let out = xtask(&["noise", file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(
            "reduce_noise inserted: 2, executions 2 (exact, executions cost 2, lower bound 2, optimal, "
        ),
        "{}",
        stderr(&out)
    );
    let out = xtask(&["noise", file, "--cost", "static"]);
    assert!(
        stderr(&out).starts_with(
            "reduce_noise inserted: 1, executions 10 (exact, static cost 1, lower bound 1, optimal, "
        ),
        "{}",
        stderr(&out)
    );
    // A loop of unknown trip count (its step is not a constant) runs
    // `--trip` times.
    let text = std::fs::read_to_string(workspace().join(file)).unwrap();
    let unknown = temp_file(
        "unknown_trips.ssa",
        text.replace("add v6, u32 1", "add v6, v6").as_bytes(),
    );
    let unknown = unknown.to_str().unwrap();
    for (trip, executions) in [("7", 7), ("1", 1)] {
        let out = xtask(&["noise", unknown, "--cost", "static", "--trip", trip]);
        assert!(
            stderr(&out).starts_with(&format!(
                "reduce_noise inserted: 1, executions {executions} "
            )),
            "{}",
            stderr(&out)
        );
    }
    let out = xtask(&["noise", unknown]);
    assert!(
        stderr(&out).starts_with("reduce_noise inserted: 2, executions 2 "),
        "{}",
        stderr(&out)
    );
    let bad = xtask(&["noise", file, "--cost", "dollars"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `--time-limit` and `--effort` reject what they cannot hold, naming the
/// option; an effort that runs out is named in the summary, and the
/// placement is the same on one thread as on two.
#[test]
fn noise_effort_and_time_limit_are_checked_and_reported() {
    let file = "examples/noise/mul_chain.ssa";
    for (option, value) in [
        ("--time-limit", "inf"),
        ("--time-limit", "1e30"),
        ("--time-limit", "-1"),
        ("--time-limit", "NaN"),
        ("--effort", "inf"),
        ("--effort", "-5"),
        ("--effort", "NaN"),
    ] {
        let out = xtask(&["noise", file, option, value]);
        assert_eq!(out.status.code(), Some(2), "{option} {value}");
        let err = stderr(&out);
        assert!(err.contains(option) && err.contains(value), "{err}");
    }
    let dag = xtask(&["gen", "--kind", "noise", "--seed", "7", "--insts", "1000"]);
    let dag = temp_file("effort_dag.ssa", &dag.stdout);
    let dag = dag.to_str().unwrap();
    let runs: Vec<_> = ["1", "2"]
        .iter()
        .map(|threads| xtask(&["noise", dag, "--effort", "2000", "--threads", threads]))
        .collect();
    assert_eq!(runs[0].stdout, runs[1].stdout);
    let summary = stderr(&runs[0]);
    assert!(
        summary.contains("not proven optimal: stopped by the effort limit of 2000"),
        "{summary}"
    );
}

/// `--check` and `--trace` follow the plaintext-constant rule.
#[test]
fn noise_check_and_trace_scale_by_plaintext_constants() {
    let check = xtask(&["noise", "examples/noise/scale.ssa", "--check", "--trace"]);
    assert_eq!(check.status.code(), Some(1));
    let err = stderr(&check);
    assert!(
        err.contains("v7 = mul v6, u5 4\n  inferred: 26 bits"),
        "{err}"
    );
    assert!(
        err.contains("v5 = mul v4, u5 1\n  inferred: 24 bits"),
        "{err}"
    );
    assert!(
        err.contains("noise after v8 = mul i5 -4, v7 is 28 bits"),
        "{err}"
    );
}
