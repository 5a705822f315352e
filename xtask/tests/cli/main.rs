//! The driver's command-line contracts, checked on the built binary: exit
//! codes, the lines other tools parse, and where each goes (stdout or
//! stderr).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod casm;
mod mast;
mod merge;
mod noise;

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

/// Writes `text` to a file of its own in the test's scratch folder, inside
/// the target directory (so that runs do not pile up in the system's).
fn temp_file(name: &str, text: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
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
fn opt_prints_what_the_passes_give() {
    // Large enough that the last pass's output is checked and printed
    // function by function on the pass's threads, and `main` (over 16,384
    // instructions) checked on a thread of its own while it is printed.
    let generated = xtask(&["gen", "--seed", "3", "--blocks", "8000"]);
    assert_eq!(generated.status.code(), Some(0));
    let module = kildall_ir::parse_module(std::str::from_utf8(&generated.stdout).unwrap()).unwrap();
    assert!(module
        .functions
        .values()
        .any(|f| f.dfg.num_insts() > 1 << 14));
    for passes in ["mem2reg", "mem2reg,blockmerge"] {
        let mut expected = module.clone();
        for pass in kildall_pipeline::parse_pipeline(passes).unwrap() {
            pass.run(&mut expected).unwrap();
        }
        let args = ["opt", "-", "--passes", passes];
        let (code, out) = xtask_piped(&args, &generated.stdout, None);
        assert_eq!(code, Some(0), "{passes}");
        assert!(out == expected.to_string().as_bytes(), "{passes}");
        // The graph after the passes is the graph of their output.
        let (code, graph) = xtask_piped(
            &[&args[..], &["--emit", "dot"]].concat(),
            &generated.stdout,
            None,
        );
        assert_eq!(code, Some(0), "{passes}");
        let (_, graph_of_output) = xtask_piped(&["opt", "-", "--emit", "dot"], &out, None);
        assert!(
            graph.starts_with(b"digraph") && graph == graph_of_output,
            "{passes}"
        );
    }
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
fn demo_stops_at_the_first_failing_step_and_keeps_its_outputs_local() {
    let dir = copy_examples("demo-failing");
    // The last section's example no longer parses.
    std::fs::write(
        dir.join("casm/sum.jvr"),
        "function main(integer) : integer {",
    )
    .unwrap();
    // With `--examples`, the commands run in the current folder: this
    // test's own, so that the MAST outputs do not race with other demos.
    let here = dir.parent().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["demo", "--examples", dir.to_str().unwrap()])
        .current_dir(here)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("=== mast"), "{}", stdout(&out));
    assert!(stderr(&out).contains("casm/sum.jvr"), "{}", stderr(&out));
    assert!(here.join("target/demo/program.mast").is_file());
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
