//! The driver's command-line contracts, checked on the built binary: exit
//! codes, the lines other tools parse, and where each goes (stdout or
//! stderr).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("the driver runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes `text` to a file of its own under the system's temporary folder.
fn temp_file(name: &str, text: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kildall-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn run_prints_the_returned_values_and_exits_0() {
    let out = xtask(&["run", "examples/mem2reg/foo_loop.ssa"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Field 3\n");
    // What the program prints goes to stderr.
    assert_eq!(stderr(&out), "Field 1\nField 2\nField 3\nField 3\n");
}

#[test]
fn run_reports_a_trap_with_exit_3() {
    let file = temp_file(
        "trap.ssa",
        b"fn main f0 {\n  b0(v0: u32):\n    constrain v0 == u32 1\n    return v0\n}\n",
    );
    let out = xtask(&["run", file.to_str().unwrap(), "--args", "u32 2"]);
    assert_eq!(out.status.code(), Some(3));
    // A program that does not return says so on stderr, as `casm run`'s
    // `fail:` does; stdout carries returned values only.
    assert!(
        stderr(&out).starts_with("trap: constraint failed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn run_out_of_fuel_exits_4() {
    let file = temp_file("spin.ssa", b"fn main f0 {\n  b0():\n    jmp b0()\n}\n");
    let out = xtask(&["run", file.to_str().unwrap(), "--fuel", "100"]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(stderr(&out), "out of fuel\n");
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_parse_error_names_file_line_and_column_and_exits_1() {
    let file = temp_file("bad.ssa", b"fn main f0 {\n  b0():\n    v1 = frob\n}\n");
    let path = file.to_str().unwrap();
    for args in [vec!["run", path], vec!["opt", path, "--passes", "mem2reg"]] {
        let out = xtask(&args);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            stderr(&out),
            format!("{path}:3:10: unknown instruction `frob`\n")
        );
    }
}

#[test]
fn opt_lists_the_known_passes_for_an_unknown_one() {
    let out = xtask(&["opt", "examples/mem2reg/foo_loop.ssa", "--passes", "foo"]);
    // A usage error, found before the file is read.
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--passes"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("known passes: mem2reg, blockmerge, noise"),
        "{}",
        stderr(&out)
    );
}

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
             {file}:19:3: noise of v3 passed by return v3 is 25 bits, over the input noise of 12\n"
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
fn a_corrupt_mast_file_names_the_byte_and_exits_1() {
    let file = temp_file("bad.mast", b"garbage");
    let out = xtask(&["mast", "decode", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error at byte 0: bad magic"),
        "{}",
        stderr(&out)
    );
}

/// `convert` with no options writes each released file back byte for byte,
/// and `inspect` lists every root with the digest miden-core computed.
#[test]
fn mast_convert_is_the_identity_and_inspect_lists_the_roots() {
    let data = workspace().join("mast/tests/data");
    for (name, roots, header) in [
        (
            "core-0.23.5.stripped.mast",
            "core-0.23.5.roots",
            "format: miden 0.23 (version [0,0,3]), flags: stripped\n",
        ),
        (
            "core-0.23.5.hashless.mast",
            "core-0.23.5.roots",
            "format: miden 0.23 (version [0,0,3]), flags: stripped, hashless\n",
        ),
        (
            "core-0.23.5.masl",
            "core-0.23.5.roots",
            "format: miden 0.23 (version [0,0,3]), flags: none\n",
        ),
        (
            "core-0.24.2.mast",
            "core-0.24.2.roots",
            "format: miden 0.24 (version [0,0,4]), flags: stripped\n",
        ),
        (
            "core-0.24.2.hashless.mast",
            "core-0.24.2.roots",
            "format: miden 0.24 (version [0,0,4]), flags: stripped, hashless\n",
        ),
        (
            "std-0.10.5.masl",
            "std-0.10.5.roots",
            "format: miden 0.10 (version [0,0,0]), flags: none\n",
        ),
    ] {
        let input = data.join(name);
        let output = temp_file(name, b"");
        let out = xtask(&[
            "mast",
            "convert",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            std::fs::read(&input).unwrap() == std::fs::read(&output).unwrap(),
            "{name}"
        );

        let out = xtask(&["mast", "inspect", input.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report = stdout(&out);
        assert!(report.starts_with(header), "{report}");
        let listed: String = report
            .lines()
            .filter(|l| l.starts_with("root "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            listed,
            std::fs::read_to_string(data.join(roots)).unwrap(),
            "{name}"
        );
        if name == "core-0.23.5.masl" {
            let exports: String = report
                .lines()
                .filter(|l| l.starts_with("export "))
                .map(|l| format!("{l}\n"))
                .collect();
            let expected = data.join("core-0.23.5.exports");
            assert_eq!(exports, std::fs::read_to_string(expected).unwrap());
            assert!(report.contains("\ntype ::miden::core::math::u256::u256\n"));
        }
    }
}

/// A target format that cannot express the forest is a typed error, exit 1.
#[test]
fn mast_convert_refuses_what_the_target_cannot_express() {
    let input = workspace().join("mast/tests/data/core-0.23.5.mast");
    let output = temp_file("refused.mast", b"");
    let out = xtask(&[
        "mast",
        "convert",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--format",
        "0.10",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: miden 0.10 cannot express"),
        "{}",
        stderr(&out)
    );
    // Debug info left the forest in 0.24: it is dropped only when asked.
    let to_0_24 = |extra: &[&str]| {
        let mut args = vec![
            "mast",
            "convert",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
            "--format",
            "0.24",
        ];
        args.extend_from_slice(extra);
        xtask(&args)
    };
    let out = to_0_24(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: miden 0.24 cannot express")
            && stderr(&out).contains("debug info"),
        "{}",
        stderr(&out)
    );
    let out = to_0_24(&["--stripped"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let golden = workspace().join("mast/tests/data/core-0.24.2.mast");
    assert!(std::fs::read(&output).unwrap() == std::fs::read(golden).unwrap());
}

#[test]
fn casm_run_prints_the_value_then_the_steps() {
    let out = xtask(&[
        "casm",
        "run",
        "examples/casm/sum.jvr",
        "--vm",
        "interp",
        "--args",
        "1000",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "500500\nsteps: 13015\n");
}

#[test]
fn casm_run_reference_prints_traces_then_record_fields_then_steps() {
    let src = b"type pair {\n  mk : (integer, integer) -> pair;\n}\n\
        function main(a : integer, b : integer) : pair {\n  trace b;\n  trace a;\n  \
        tmp[0] = alloc mk (b, a);\n  ret tmp[0];\n}\n";
    let file = temp_file("pair.jvr", src);
    let input = temp_file("pair.json", b"{ \"a\": 3, \"b\": \"0x5\" }");
    let out = xtask(&[
        "casm",
        "run",
        file.to_str().unwrap(),
        "--vm",
        "jvr",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // `jvr` prints terms by default, the record as a constructor term.
    assert_eq!(stdout(&out), "5\n3\nmk 5 3\nsteps: 4\n");
    let felt = xtask(&[
        "casm",
        "run",
        file.to_str().unwrap(),
        "--vm",
        "jvr",
        "--show",
        "felt",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&felt), "5\n3\n5\n3\nsteps: 4\n");
}

#[test]
fn casm_run_input_names_unnamed_parameters_in() {
    let src = b"function main(integer) : integer {\n  tmp[0] = mul arg[0] 2;\n  ret tmp[0];\n}\n";
    let file = temp_file("double.jvr", src);
    let input = temp_file("double.json", b"{ \"in\": 21 }");
    for vm in ["jvr", "interp", "cairo"] {
        let out = xtask(&[
            "casm",
            "run",
            file.to_str().unwrap(),
            "--vm",
            vm,
            "--input",
            input.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{vm}: {}", stderr(&out));
        assert!(
            stdout(&out).starts_with("42\nsteps: "),
            "{vm}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn casm_run_fail_exits_3_with_the_message_on_stderr() {
    let src = b"function main() : integer {\n  fail 7;\n}\n";
    let file = temp_file("fail.jvr", src);
    let out = xtask(&["casm", "run", file.to_str().unwrap(), "--vm", "jvr"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(stderr(&out), "fail: 7\n");
    assert_eq!(stdout(&out), "");
}

#[test]
fn casm_run_names_a_construct_that_cannot_run_on_cairo() {
    let src = b"function main() : IO {\n  tmp[0] = alloc readLn ();\n  ret tmp[0];\n}\n";
    let file = temp_file("readln.jvr", src);
    for vm in ["interp", "cairo"] {
        let out = xtask(&["casm", "run", file.to_str().unwrap(), "--vm", vm]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).ends_with("readln.jvr:2:3: `readLn` cannot run on Cairo\n"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn casm_run_reads_records_and_lists_from_json_input_on_every_machine() {
    let src = b"type pair {\n  mk : (integer, integer) -> pair;\n}\ntype list {\n  nil : list;\n  cons : (integer, list) -> list;\n}\nfunction sum(list) : integer {\n  case[list] arg[0] {\n    nil: { ret 0; };\n    cons: {\n      tmp[0] = call sum (arg[0].cons[1]);\n      tmp[1] = add tmp[0] arg[0].cons[0];\n      ret tmp[1];\n    };\n  };\n}\nfunction main(p : pair, xs : list) : integer {\n  tmp[0] = call sum (xs);\n  tmp[1] = mul p.mk[0] p.mk[1];\n  tmp[2] = add tmp[0] tmp[1];\n  ret tmp[2];\n}\n";
    let file = temp_file("input.jvr", src);
    let input = temp_file(
        "input.json",
        b"{\"p\": {\"a\": 6, \"b\": 7}, \"xs\": [1, 2, 3]}",
    );
    let mut printed = Vec::new();
    for vm in ["jvr", "interp", "cairo"] {
        let out = xtask(&[
            "casm",
            "run",
            file.to_str().unwrap(),
            "--vm",
            vm,
            "--input",
            input.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{vm}: {}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.starts_with("48\nsteps: "), "{vm}: {stdout}");
        printed.push(stdout);
    }
    assert_eq!(
        printed[1], printed[2],
        "both compiled machines print the same lines"
    );
}

#[test]
fn casm_run_prints_traces_then_a_record_field_by_field_on_every_machine() {
    let src = b"type pair {\n  mk : (integer, integer) -> pair;\n}\nfunction main() : pair {\n  trace 7;\n  tmp[0] = alloc mk (1, 2);\n  trace tmp[0].mk[1];\n  ret tmp[0];\n}\n";
    let file = temp_file("record.jvr", src);
    let path = file.to_str().unwrap();
    for vm in ["jvr", "interp", "cairo"] {
        let out = xtask(&["casm", "run", path, "--vm", vm, "--show", "felt"]);
        assert_eq!(out.status.code(), Some(0), "{vm}: {}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.starts_with("7\n2\n1\n2\nsteps: "), "{vm}: {stdout}");
    }
}

#[test]
fn casm_run_show_term_prints_as_juvix_on_every_machine() {
    let src = b"type list {\n  nil : list;\n  cons : (*, list) -> list;\n}\n\
        function main() : * {\n  tmp[0] = alloc nil ();\n  tmp[0] = alloc cons (2, tmp[0]);\n  \
        tmp[1] = alloc cons (1, tmp[0]);\n  trace tmp[1];\n  tmp[2] = eq tmp[1] tmp[0];\n  \
        trace tmp[2];\n  trace unit;\n  tmp[3] = void;\n  ret tmp[3];\n}\n";
    let file = temp_file("terms.jvr", src);
    let path = file.to_str().unwrap();
    for vm in ["jvr", "interp", "cairo"] {
        let out = xtask(&["casm", "run", path, "--vm", vm, "--show", "term"]);
        assert_eq!(out.status.code(), Some(0), "{vm}: {}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        // Nothing for the `void` result.
        assert!(
            stdout.starts_with("cons 1 (cons 2 nil)\nfalse\nunit\nsteps: "),
            "{vm}: {stdout}"
        );
    }
    // The compiled machines print field elements by default.
    let out = xtask(&["casm", "run", path, "--vm", "interp"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("<cons>\n1\n0\n0\nsteps: "), "{stdout}");
}

#[test]
fn casm_run_fail_exits_3_with_the_message_on_every_machine() {
    let src = b"function main() : integer {\n  fail 42;\n}\n";
    let file = temp_file("fail_compiled.jvr", src);
    for vm in ["jvr", "interp", "cairo"] {
        let out = xtask(&["casm", "run", file.to_str().unwrap(), "--vm", vm]);
        assert_eq!(out.status.code(), Some(3), "{vm}");
        assert_eq!(stderr(&out), "fail: 42\n", "{vm}");
        assert!(out.stdout.is_empty(), "{vm}");
    }
}

#[test]
fn casm_run_divides_on_both_machines_and_refuses_a_zero_divisor() {
    let src = b"function main(integer, integer) : integer {\n  tmp[0] = div arg[0] arg[1];\n  tmp[1] = mod arg[0] arg[1];\n  tmp[2] = mul tmp[0] 10;\n  tmp[3] = add tmp[2] tmp[1];\n  ret tmp[3];\n}\n";
    let file = temp_file("divmod.jvr", src);
    let path = file.to_str().unwrap();
    let mut lines = Vec::new();
    for vm in ["interp", "cairo"] {
        let out = xtask(&["casm", "run", path, "--vm", vm, "--args=-17,5"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        // -17 quot 5 = -3, -17 rem 5 = -2.
        assert!(stdout.starts_with("-32\nsteps: "), "{stdout}");
        lines.push(stdout);
        let out = xtask(&["casm", "run", path, "--vm", vm, "--args", "1,0"]);
        assert_ne!(out.status.code(), Some(0));
    }
    assert_eq!(lines[0], lines[1], "both machines print the same lines");
}

#[test]
fn casm_run_jvr_reads_readln_lines_from_stdin() {
    let src = b"function greet(string) : IO {\n  tmp[0] = strcat \"hello \" arg[0];\n  \
        tmp[0] = alloc write (tmp[0]);\n  ret tmp[0];\n}\n\
        function main() : IO {\n  tmp[0] = alloc readLn ();\n  tmp[1] = calloc greet ();\n  \
        tmp[0] = alloc bind (tmp[0], tmp[1]);\n  ret tmp[0];\n}\n";
    let file = temp_file("readln.jvr", src);
    let path = file.to_str().unwrap();
    let (code, out) = xtask_piped(&["casm", "run", path, "--vm", "jvr"], b"world\n", None);
    assert_eq!(code, Some(0));
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("hello world\nsteps: "), "{out}");
}

/// Runs the driver with `input` on its standard input; with `read_bytes`,
/// reads only that many bytes of its output and closes the pipe.
fn xtask_piped(args: &[&str], input: &[u8], read_bytes: Option<usize>) -> (Option<i32>, Vec<u8>) {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(workspace())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the driver runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut out = Vec::new();
    match read_bytes {
        Some(n) => {
            out.resize(n, 0);
            stdout.read_exact(&mut out).unwrap();
            drop(stdout);
        }
        None => {
            stdout.read_to_end(&mut out).unwrap();
        }
    }
    (child.wait().unwrap().code(), out)
}

#[test]
fn opt_reads_standard_input_for_a_dash() {
    let text = std::fs::read(workspace().join("examples/mem2reg/foo_loop.ssa")).unwrap();
    let (code, out) = xtask_piped(&["opt", "-", "--passes", "mem2reg"], &text, None);
    assert_eq!(code, Some(0));
    let printed = String::from_utf8(out).unwrap();
    assert!(
        printed.starts_with("acir(inline) fn main f0 {") || printed.starts_with("fn main f0 {")
    );
    // Errors name standard input.
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["opt", "-"])
        .stdin(
            std::fs::File::open(temp_file(
                "bad.ssa",
                b"fn main f0 {\n  b0():\n    retur\n}\n",
            ))
            .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("<stdin>:3:5: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn output_closed_early_ends_quietly_with_exit_0() {
    // A module large enough that the reader stops long before its end.
    let big = xtask(&["gen", "--seed", "1", "--blocks", "3000"]);
    assert_eq!(big.status.code(), Some(0));
    assert!(big.stdout.len() > 100_000);
    let (code, out) = xtask_piped(&["opt", "-"], &big.stdout, Some(16));
    assert_eq!(out.len(), 16);
    assert_eq!(code, Some(0));
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

/// Which of the driver's output streams a test closes.
#[derive(Clone, Copy, Debug)]
enum Stream {
    Stdout,
    Stderr,
}

/// Runs the driver with `closed` a pipe whose reader has already gone (as
/// `| head -0` leaves it), the other stream captured; gives the exit code
/// and what the other stream got.
fn xtask_closed(args: &[&str], closed: Stream) -> (Option<i32>, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .args(args)
        .current_dir(workspace())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the driver runs");
    let (mut open, shut): (Box<dyn Read>, Box<dyn Read>) = match closed {
        Stream::Stdout => (
            Box::new(child.stderr.take().unwrap()),
            Box::new(child.stdout.take().unwrap()),
        ),
        Stream::Stderr => (
            Box::new(child.stdout.take().unwrap()),
            Box::new(child.stderr.take().unwrap()),
        ),
    };
    drop(shut);
    let mut text = String::new();
    open.read_to_string(&mut text).unwrap();
    (child.wait().unwrap().code(), text)
}

#[test]
fn every_command_ends_quietly_with_exit_0_when_stdout_is_closed() {
    let forest = temp_file("closed.mast", b"");
    let forest = forest.to_str().unwrap();
    let encoded = xtask(&["mast", "encode", "examples/mast/program.txt", "-o", forest]);
    assert_eq!(encoded.status.code(), Some(0), "{}", stderr(&encoded));
    let commands: [&[&str]; 11] = [
        &["run", "examples/mem2reg/foo_loop.ssa"],
        &[
            "opt",
            "examples/mem2reg/foo_loop.ssa",
            "--passes",
            "mem2reg",
        ],
        &["gen", "--seed", "1"],
        &["demo"],
        &["casm", "compile", "examples/casm/nested.jvr"],
        &["casm", "run", "examples/casm/sum.jvr", "--args", "10"],
        &["noise", "examples/noise/double_branching.ssa"],
        &["merge", "examples/blockmerge/find_min.ssa"],
        &["mast", "decode", forest],
        &["fuzz", "ir-parse", "--seconds", "1", "--engine", "builtin"],
        &["--help"],
    ];
    for args in commands {
        let (code, err) = xtask_closed(args, Stream::Stdout);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

#[test]
fn every_command_ends_quietly_with_exit_0_when_stderr_is_closed() {
    let commands: [&[&str]; 6] = [
        &["run", "examples/mem2reg/foo_loop.ssa"],
        &[
            "opt",
            "examples/mem2reg/foo_loop.ssa",
            "--passes",
            "mem2reg",
        ],
        &["gen", "--seed", "1", "--fuel"],
        &["noise", "examples/noise/double_branching.ssa", "--trace"],
        &["merge", "examples/blockmerge/find_min.ssa"],
        &["casm", "run", "examples/casm/calculate.jvr", "--vm", "x"],
    ];
    for args in commands {
        let (code, _) = xtask_closed(args, Stream::Stderr);
        // A usage error keeps its code; nothing else may fail.
        let expected = if args.contains(&"x") { 2 } else { 0 };
        assert_eq!(code, Some(expected), "{args:?}");
    }
}

#[test]
fn usage_lines_read_as_users_type_them_and_usage_errors_exit_2() {
    let out = xtask(&["run"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Usage: cargo xtask run"),
        "{}",
        stderr(&out)
    );
    let help = xtask(&["casm", "run", "--help"]);
    assert!(
        stdout(&help).contains("Usage: cargo xtask casm run"),
        "{}",
        stdout(&help)
    );
}

#[test]
fn standard_input_is_named_stdin_in_every_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["run", "-", "--function", "absent"])
        .stdin(std::fs::File::open(workspace().join("examples/mem2reg/foo_loop.ssa")).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "<stdin>: no function `absent`\n");
}

#[test]
fn a_file_that_cannot_be_read_is_named_first() {
    for args in [
        vec!["run", "no/such.ssa"],
        vec!["opt", "no/such.ssa"],
        vec!["merge", "no/such.ssa"],
    ] {
        let out = xtask(&args);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).starts_with("no/such.ssa: cannot read: "),
            "{args:?}: {}",
            stderr(&out)
        );
    }
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

#[test]
fn gen_refuses_sizes_past_its_caps() {
    let out = xtask(&["gen", "--blocks", "99999999999999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--blocks"), "{}", stderr(&out));
    let out = xtask(&["gen", "--kind", "noise", "--insts", "99999999999999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--insts"), "{}", stderr(&out));
    let out = xtask(&["gen", "--blocks", "1000000", "--insts", "1000"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: --blocks 1000000 --insts 1000: 1000000000 operations, more than the 10000000 `gen` builds\n"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn demo_help_names_no_path_of_the_build_machine() {
    let out = xtask(&["demo", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let root = workspace().canonicalize().unwrap();
    let help = stdout(&out);
    assert!(help.contains("--examples"), "{help}");
    assert!(!help.contains(root.to_str().unwrap()), "{help}");
    assert!(!help.contains(env!("CARGO_MANIFEST_DIR")), "{help}");
}

/// Splits a command line as a POSIX shell does for words that are plain
/// or in single quotes (what the demo prints); `None` for anything else.
fn shell_split(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => words.extend(word.take()),
            '\'' => {
                let quoted: String = chars.by_ref().take_while(|&c| c != '\'').collect();
                word.get_or_insert_with(String::new).push_str(&quoted);
            }
            '"' | '\\' | '$' | '`' | ';' | '&' | '|' | '<' | '>' | '(' | ')' | '*' | '?' => {
                return None
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

#[test]
fn every_command_the_demo_prints_can_be_pasted_and_runs() {
    let out = xtask(&["demo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("--args 'u1 0, u32 3'"),
        "quoted arguments: {text}"
    );
    let commands: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("$ cargo xtask "))
        .collect();
    assert!(commands.len() >= 10, "{text}");
    for command in commands {
        let words = shell_split(command).unwrap_or_else(|| panic!("not pasteable: {command}"));
        // The MAST steps read files of the demo's scratch folder, gone now.
        if words.iter().any(|w| w.contains("kildall-demo-")) {
            continue;
        }
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let again = xtask(&words);
        let code = again.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "`{command}` exited {code:?}: {}",
            stderr(&again)
        );
    }
}

/// A copy of the bundled examples under a folder of its own.
fn copy_examples(name: &str) -> PathBuf {
    let to = temp_file(&format!("{name}.keep"), b"").with_file_name(name);
    let from = workspace().join("examples");
    for entry in walk(&from) {
        let dest = to.join(entry.strip_prefix(&from).unwrap());
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &dest).unwrap();
    }
    to
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn demo_examples_names_the_missing_file_it_was_given() {
    let dir = copy_examples("demo-missing");
    std::fs::remove_file(dir.join("blockmerge/find_min.ssa")).unwrap();
    let out = xtask(&["demo", "--examples", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "{}: no such example file\n",
            dir.join("blockmerge/find_min.ssa").display()
        )
    );
}

#[test]
fn demo_removes_its_scratch_folder_when_a_step_fails() {
    let dir = copy_examples("demo-failing");
    // The last section's example no longer parses.
    std::fs::write(
        dir.join("casm/sum.jvr"),
        "function main(integer) : integer {",
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["demo", "--examples", dir.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let scratch = std::env::temp_dir().join(format!("kildall-demo-{}", child.id()));
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("=== mast"), "{}", stdout(&out));
    assert!(stderr(&out).contains("casm/sum.jvr"), "{}", stderr(&out));
    assert!(!scratch.exists(), "{} left behind", scratch.display());
}

#[test]
fn fuzz_shows_progress_on_a_terminal_only() {
    let args = ["fuzz", "ir-parse", "--seconds", "2", "--engine", "builtin"];
    let piped = xtask(&args);
    assert_eq!(piped.status.code(), Some(0));
    assert_eq!(stderr(&piped), "", "no progress when stderr is a pipe");
    // `script` runs the driver on a pseudo-terminal.
    let line = format!("{} {}", env!("CARGO_BIN_EXE_xtask"), args.join(" "));
    let tty = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(workspace())
        .output()
        .expect("`script` (util-linux) runs");
    let seen = stdout(&tty);
    assert!(seen.contains("exec/s ["), "{seen}");
    assert!(seen.contains(" executions, "), "{seen}");
}

#[test]
fn casm_run_stops_at_the_step_limit_on_every_machine_with_exit_4() {
    // `sum` of a negative number recurses without end.
    for vm in ["cairo", "interp", "jvr"] {
        let out = xtask(&[
            "casm",
            "run",
            "examples/casm/sum.jvr",
            "--vm",
            vm,
            "--args",
            "-5",
            "--max-steps",
            "20000",
        ]);
        assert_eq!(out.status.code(), Some(4), "{vm}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "examples/casm/sum.jvr: out of steps: the run did not return within --max-steps 20000\n",
            "{vm}"
        );
        assert_eq!(stdout(&out), "", "{vm}");
    }
    // Within the limit, every machine returns.
    for vm in ["cairo", "interp", "jvr"] {
        let args = ["casm", "run", "examples/casm/sum.jvr", "--vm", vm];
        let out = xtask(&[&args[..], &["--args", "10", "--max-steps", "20000"]].concat());
        assert_eq!(out.status.code(), Some(0), "{vm}: {}", stderr(&out));
    }
}

#[test]
fn casm_compile_refuses_run_options_without_json() {
    for flag in [&["--args", "3"][..], &["--entry", "main"], &["--proof"]] {
        let args = ["casm", "compile", "examples/casm/sum.jvr"];
        let out = xtask(&[&args[..], flag].concat());
        assert_eq!(out.status.code(), Some(2), "{flag:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--json <JSON>"), "{}", stderr(&out));
        assert_eq!(stdout(&out), "");
    }
}

#[test]
fn casm_names_missing_arguments_as_the_command_lines_fault() {
    let json = temp_file("sum_args.json", b"");
    let listing = temp_file("sum_args.casm", b"");
    let out = xtask(&[
        "casm",
        "compile",
        "examples/casm/sum.jvr",
        "-o",
        listing.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let expected = "examples/casm/sum.jvr: `main` takes 1 argument (integer), given 0 in --args\n";
    assert_eq!(stderr(&out), expected);
    for vm in ["cairo", "interp", "jvr"] {
        let out = xtask(&["casm", "run", "examples/casm/sum.jvr", "--vm", vm]);
        assert_eq!(out.status.code(), Some(1), "{vm}: {}", stderr(&out));
        assert_eq!(stderr(&out), expected, "{vm}");
    }
}

#[test]
fn casm_run_proof_mode_is_refused_off_the_cairo_vm() {
    for vm in ["interp", "jvr"] {
        let args = ["casm", "run", "examples/casm/sum.jvr", "--args", "3"];
        let out = xtask(&[&args[..], &["--vm", vm, "--proof"]].concat());
        assert_eq!(out.status.code(), Some(2), "{vm}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "error: --proof runs on the Cairo VM only (--vm cairo)\n"
        );
    }
}
