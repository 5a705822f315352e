//! `cargo xtask casm`: compiling and running JuvixReg on every machine.

use super::*;

/// `casm run FILE --vm VM` followed by `more`.
fn casm_run(file: &Path, vm: &str, more: &[&str]) -> Output {
    let args = ["casm", "run", file.to_str().unwrap(), "--vm", vm];
    xtask(&[&args[..], more].concat())
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
    let out = casm_run(&file, "jvr", &["--input", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // `jvr` prints terms by default, the record as a constructor term.
    assert_eq!(stdout(&out), "5\n3\nmk 5 3\nsteps: 4\n");
    let felt = casm_run(
        &file,
        "jvr",
        &["--show", "felt", "--input", input.to_str().unwrap()],
    );
    assert_eq!(stdout(&felt), "5\n3\n5\n3\nsteps: 4\n");
}

#[test]
fn casm_run_input_names_unnamed_parameters_in() {
    let src = b"function main(integer) : integer {\n  tmp[0] = mul arg[0] 2;\n  ret tmp[0];\n}\n";
    let file = temp_file("double.jvr", src);
    let input = temp_file("double.json", b"{ \"in\": 21 }");
    for vm in ["jvr", "interp", "cairo"] {
        let out = casm_run(&file, vm, &["--input", input.to_str().unwrap()]);
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
    let out = casm_run(&file, "jvr", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(stderr(&out), "fail: 7\n");
    assert_eq!(stdout(&out), "");
}

/// What the compiled code cannot decide is refused when compiling, on the
/// reference interpreter as on the compiled machines, with the same error.
#[test]
fn casm_run_refuses_the_same_programs_on_every_machine() {
    let programs: [(&str, &[u8], &str); 3] = [
        (
            "readln.jvr",
            b"function main() : IO {\n  tmp[0] = alloc readLn ();\n  ret tmp[0];\n}\n",
            "readln.jvr:2:3: `readLn` cannot run on Cairo\n",
        ),
        (
            "eq_unknown.jvr",
            b"function f(*) : bool {\n  tmp[0] = eq arg[0] 3;\n  ret tmp[0];\n}\n\
              function main() : bool {\n  tmp[0] = call f (3);\n  ret tmp[0];\n}\n",
            "eq_unknown.jvr:2:3: eq of a value of unknown kind and integer on Cairo \
             (declare its type) is not defined\n",
        ),
        (
            "show_unknown.jvr",
            b"function describe(*) : string {\n  tmp[0] = show arg[0];\n  ret tmp[0];\n}\n\
              function main() : string {\n  tmp[0] = call describe (true);\n  ret tmp[0];\n}\n",
            "show_unknown.jvr:2:3: `show of a value of unknown kind` cannot run on Cairo\n",
        ),
    ];
    for (name, src, message) in programs {
        let file = temp_file(name, src);
        for vm in ["jvr", "interp", "cairo"] {
            let out = casm_run(&file, vm, &[]);
            assert_eq!(out.status.code(), Some(1), "{name} on {vm}");
            assert!(
                stderr(&out).ends_with(message),
                "{name} on {vm}: {}",
                stderr(&out)
            );
            assert!(out.stdout.is_empty(), "{name} on {vm}");
        }
    }
}

#[test]
fn casm_run_refuses_terms_it_cannot_name_on_every_machine() {
    // The boolean reaches the trace through a `*` parameter: the compiled
    // code holds 0, which it cannot tell from the integer 0.
    let src = b"function id(*) : * {\n  trace arg[0];\n  ret arg[0];\n}\n\
        function main() : integer {\n  tmp[0] = call id (true);\n  tmp[1] = call id (0);\n  \
        ret tmp[1];\n}\n";
    let file = temp_file("hidden_bool.jvr", src);
    let message = "hidden_bool.jvr:2:3: terms cannot be printed on Cairo: trace of a value \
        of unknown kind, which may be a boolean, `unit` or `void` (numbers on Cairo)\n";
    for vm in ["jvr", "interp", "cairo"] {
        let out = casm_run(&file, vm, &["--show", "term"]);
        assert_eq!(out.status.code(), Some(1), "{vm}");
        assert!(stderr(&out).ends_with(message), "{vm}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{vm}");
        // Field elements print alike.
        let out = casm_run(&file, vm, &["--show", "felt"]);
        assert_eq!(out.status.code(), Some(0), "{vm}: {}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.starts_with("0\n0\n0\nsteps: "), "{vm}: {stdout}");
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
        let out = casm_run(&file, vm, &["--input", input.to_str().unwrap()]);
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
    for vm in ["jvr", "interp", "cairo"] {
        let out = casm_run(&file, vm, &["--show", "felt"]);
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
    for vm in ["jvr", "interp", "cairo"] {
        let out = casm_run(&file, vm, &["--show", "term"]);
        assert_eq!(out.status.code(), Some(0), "{vm}: {}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        // Nothing for the `void` result.
        assert!(
            stdout.starts_with("cons 1 (cons 2 nil)\nfalse\nunit\nsteps: "),
            "{vm}: {stdout}"
        );
    }
    // The compiled machines print field elements by default.
    let out = casm_run(&file, "interp", &[]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("<cons>\n1\n0\n0\nsteps: "), "{stdout}");
}

#[test]
fn casm_run_fail_exits_3_with_the_message_on_every_machine() {
    let src = b"function main() : integer {\n  fail 42;\n}\n";
    let file = temp_file("fail_compiled.jvr", src);
    for vm in ["jvr", "interp", "cairo"] {
        let out = casm_run(&file, vm, &[]);
        assert_eq!(out.status.code(), Some(3), "{vm}");
        assert_eq!(stderr(&out), "fail: 42\n", "{vm}");
        assert!(out.stdout.is_empty(), "{vm}");
    }
}

#[test]
fn casm_run_divides_on_both_machines_and_refuses_a_zero_divisor() {
    let src = b"function main(integer, integer) : integer {\n  tmp[0] = div arg[0] arg[1];\n  tmp[1] = mod arg[0] arg[1];\n  tmp[2] = mul tmp[0] 10;\n  tmp[3] = add tmp[2] tmp[1];\n  ret tmp[3];\n}\n";
    let file = temp_file("divmod.jvr", src);
    let mut lines = Vec::new();
    for vm in ["interp", "cairo"] {
        let out = casm_run(&file, vm, &["--args=-17,5"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        // -17 quot 5 = -3, -17 rem 5 = -2.
        assert!(stdout.starts_with("-32\nsteps: "), "{stdout}");
        lines.push(stdout);
        let out = casm_run(&file, vm, &["--args", "1,0"]);
        assert_ne!(out.status.code(), Some(0));
    }
    assert_eq!(lines[0], lines[1], "both machines print the same lines");
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
