//! `cargo xtask merge` and `verify`: reports, proofs of runs and their verification.

use super::*;

#[test]
fn merge_reports_the_execution_cost_before_and_after() {
    let out = xtask(&[
        "merge",
        "examples/blockmerge/find_min.ssa",
        "--args",
        "[u32 5, u32 3, u32 9, u32 1, u32 7, u32 8, u32 2, u32 6]",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stderr(&out);
    assert!(report.contains("blocks 7 -> 1"), "{report}");
    assert!(
        report.contains("outcome:         u32 1 -> u32 1"),
        "{report}"
    );
    assert!(report.contains("executed blocks: 31 -> 1"), "{report}");
    assert!(report.contains("transitions:     30 -> 0"), "{report}");
    assert!(report.contains("padded cost:     1417 -> 1024"), "{report}");
    assert!(stdout(&out).starts_with("fn main"), "{}", stdout(&out));
}

#[test]
fn merge_emit_r1cs_prints_one_constraint_a_line() {
    let out = xtask(&[
        "merge",
        "examples/blockmerge/find_min.ssa",
        "--min-block-size",
        "0",
        "--emit",
        "r1cs",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("fn main b0: 266 constraints, 11 public inputs"),
        "{text}"
    );
    // `v4 = lt v2, u32 8`: 33 booleans and the linear recomposition.
    assert!(
        text.contains("  ; v4 = lt v2, u32 8\n  (v4.b0) * (v4.b0) = (v4.b0)\n"),
        "{text}"
    );
    assert!(text.contains("(v4.b0 + 2*v4.b1 + 4*v4.b2"), "{text}");
    assert!(
        text.lines().filter(|l| l.contains(") * (")).count() > 100,
        "{text}"
    );
}

#[test]
fn merge_prove_reports_proofs_before_and_after() {
    let out = xtask(&[
        "merge",
        "examples/blockmerge/find_min.ssa",
        "--args",
        "[u32 5, u32 3, u32 9, u32 1, u32 7, u32 8, u32 2, u32 6]",
        "--prove",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stderr(&out);
    assert!(
        report.contains(
            "constraints per block before: b0 266, b1 35, b2 70, b3 1, b4 1, b5 35, b6 1\n"
        ),
        "{report}"
    );
    assert!(
        report.contains("constraints per block after:  b0 510\n"),
        "{report}"
    );
    assert!(report.contains("instances proven: 31 -> 1\n"), "{report}");
    assert!(
        report.contains("verified:         32/32 -> 1/1\n"),
        "{report}"
    );
    assert!(report.contains("prover time:      "), "{report}");
    // 7 array reads and the 8 elements they read, initialised.
    assert!(
        report.contains("memory check:     15 accesses, 460 constraints, "),
        "{report}"
    );
    assert!(report.contains(" ms -> none\n"), "{report}");
}

#[test]
fn merge_prove_needs_args() {
    let out = xtask(&["merge", "examples/blockmerge/find_min.ssa", "--prove"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn merge_cost_calibrated_merges_by_the_prover_time_model() {
    let text = std::fs::read_to_string(workspace().join("examples/blockmerge/rle.ssa")).unwrap();
    let args = text
        .lines()
        .find_map(|l| l.strip_prefix("// args: "))
        .unwrap();
    let out = xtask(&[
        "merge",
        "examples/blockmerge/rle.ssa",
        "--args",
        args,
        "--cost",
        "calibrated",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stderr(&out);
    // The threshold rule merges the loop body's branch (17 instances
    // left); the calibrated rule also unrolls the loop.
    assert!(report.contains("fn main: blocks 7 -> 1,"), "{report}");
    assert!(report.contains("executed blocks: 31 -> 1\n"), "{report}");
    let out = xtask(&["merge", "examples/blockmerge/rle.ssa", "--args", args]);
    assert!(
        stderr(&out).contains("executed blocks: 31 -> 17\n"),
        "{}",
        stderr(&out)
    );
}

const FIND_MIN_ARGS: &str = "[u32 5, u32 3, u32 9, u32 1, u32 7, u32 8, u32 2, u32 6]";

/// `merge --prove --proof-out` on `file`, with `extra` options; the path
/// written.
fn proof_of(file: &str, args: &str, extra: &[&str], name: &str) -> PathBuf {
    let path = temp_file(name, b"");
    let mut argv = vec!["merge", file, "--args", args, "--prove"];
    argv.extend_from_slice(extra);
    argv.extend_from_slice(&["--proof-out", path.to_str().unwrap()]);
    let out = xtask(&argv);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("proof of the run:"),
        "{}",
        stderr(&out)
    );
    path
}

#[test]
fn verify_accepts_proofs_of_runs_before_and_after_merging() {
    let file = "examples/blockmerge/find_min.ssa";
    let after = proof_of(file, FIND_MIN_ARGS, &[], "find_min_after.proof");
    let out = xtask(&["verify", file, after.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "verified: 1 instances, 0 accesses\n");
    let before = proof_of(
        file,
        FIND_MIN_ARGS,
        &["--proof-of", "before"],
        "find_min_before.proof",
    );
    let before = before.to_str().unwrap();
    let out = xtask(&[
        "verify",
        file,
        before,
        "--no-merge",
        "--args",
        FIND_MIN_ARGS,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "verified: 31 instances, 7 accesses\n");
    // The unmerged run's proof is not a proof of the merged program.
    let out = xtask(&["verify", file, before]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("program: the proof is of a program"));
}

#[test]
fn verify_of_the_calibrated_rule_merges_as_the_prover_did() {
    let file = "examples/blockmerge/rle.ssa";
    let args = "[u32 4, u32 4, u32 4, u32 7, u32 7, u32 1, u32 4, u32 4]";
    let proof = proof_of(file, args, &["--cost", "calibrated"], "rle.proof");
    let proof = proof.to_str().unwrap();
    let out = xtask(&["verify", file, proof, "--cost", "calibrated"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("verified: 1 instances"));
    let out = xtask(&["verify", file, proof]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn verify_refuses_forged_files_with_the_failed_check() {
    let file = "examples/blockmerge/find_min.ssa";
    let path = proof_of(
        file,
        FIND_MIN_ARGS,
        &["--proof-of", "before"],
        "find_min_forged.proof",
    );
    let bytes = std::fs::read(&path).unwrap();
    let verify = |bytes: &[u8], extra: &[&str]| {
        let forged = temp_file("forged.proof", bytes);
        let mut argv = vec!["verify", file, forged.to_str().unwrap(), "--no-merge"];
        argv.extend_from_slice(extra);
        let out = xtask(&argv);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stdout(&out).is_empty());
        stderr(&out)
    };
    let truncated = verify(&bytes[..bytes.len() - 1], &[]);
    assert!(truncated.contains(": byte "), "{truncated}");
    // The last instance's last public input (its position) changed to its
    // first (the minimum, 1).
    let mut proof = kildall_r1cs::run::RunProof::decode(&bytes).unwrap();
    let public = &mut proof.instances[30].public;
    let first = public[0];
    *public.last_mut().unwrap() = first;
    let message = verify(&proof.encode(), &[]);
    assert!(message.contains("instance 30: position"), "{message}");
    let other = verify(
        &bytes,
        &[
            "--args",
            "[u32 1, u32 3, u32 9, u32 1, u32 7, u32 8, u32 2, u32 6]",
        ],
    );
    assert!(other.contains("arguments: the proof claims"), "{other}");
}

#[test]
fn merge_refuses_arguments_that_do_not_match_the_signature_as_run_does() {
    for command in ["run", "merge"] {
        let out = xtask(&[
            command,
            "examples/blockmerge/find_min.ssa",
            "--args",
            "u32 1",
        ]);
        assert_eq!(out.status.code(), Some(1), "{command}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "examples/blockmerge/find_min.ssa: `main` takes ([u32; 8]), given --args \"u32 1\"\n",
            "{command}"
        );
        assert_eq!(stdout(&out), "", "{command}: nothing runs");
    }
}
