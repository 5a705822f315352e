//! `cargo xtask demo`: every crate on the bundled examples in `examples/`,
//! one section each. Each step is a driver command, printed as a user would
//! type it in a shell (quoted where needed), followed by what it prints, so
//! the demo doubles as a tour of the command line. The examples are checked
//! before the first step. The files the MAST steps write go to
//! `target/demo/` of the folder the commands run in and stay there, so
//! that every printed command can be pasted into a shell afterwards and
//! runs (`cargo clean` removes them).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::input;

/// Arguments of `cargo xtask demo`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The examples folder [default: `examples/` of the workspace].
    #[arg(long)]
    examples: Option<PathBuf>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Runs the driver's own binary with `args`, echoing the command and its
/// output; fails when the exit code is not `expected`.
struct Tour {
    exe: PathBuf,
    /// Where the commands run: the workspace root for the bundled
    /// examples (so the printed `examples/...` paths work from a clone),
    /// the current folder for `--examples DIR`.
    dir: PathBuf,
}

impl Tour {
    fn step(&self, args: &[&str], expected: i32) -> anyhow::Result<String> {
        let command = shell_words(args);
        println!("$ cargo xtask {command}");
        let output = Command::new(&self.exe)
            .args(args)
            .current_dir(&self.dir)
            .output()?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        for line in stdout
            .lines()
            .chain(String::from_utf8_lossy(&output.stderr).lines())
        {
            println!("    {line}");
        }
        let code = output.status.code().unwrap_or(-1);
        anyhow::ensure!(
            code == expected,
            "`cargo xtask {command}` exited {code}, expected {expected}"
        );
        Ok(stdout)
    }
}

/// `args` as a shell reads them back: words with blanks, commas beside
/// blanks or quotes go in single quotes.
fn shell_words(args: &[&str]) -> String {
    let quote = |arg: &&str| {
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-./,:=@%+".contains(c));
        if plain {
            arg.to_string()
        } else {
            format!("'{}'", arg.replace('\'', r"'\''"))
        }
    };
    args.iter().map(quote).collect::<Vec<_>>().join(" ")
}

/// Where the MAST steps write, relative to the folder the commands run in.
const OUTPUT_DIR: &str = "target/demo";

fn section(title: &str) {
    println!("\n=== {title} ===\n");
}

/// The `// args: ...` (or `-- args: ...`) header line of an example.
fn example_args(path: &Path) -> anyhow::Result<String> {
    let text = input::read_text(path)?;
    Ok(text
        .lines()
        .find_map(|line| {
            line.split_once("args: ")
                .map(|(_, args)| args.trim().to_string())
        })
        .unwrap_or_default())
}

fn count(text: &str, needle: &str) -> usize {
    text.lines().filter(|line| line.contains(needle)).count()
}

/// The examples the demo runs, relative to the examples folder.
const EXAMPLES: [&str; 8] = [
    "ir/mem2reg_loop.ssa",
    "ir/predication.ssa",
    "mem2reg/foo_loop.ssa",
    "blockmerge/find_min.ssa",
    "noise/double_branching.ssa",
    "mast/program.txt",
    "casm/calculate.jvr",
    "casm/sum.jvr",
];

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let (dir, examples) = match &cmd.examples {
        None => (workspace_root(), PathBuf::from("examples")),
        Some(examples) => (std::env::current_dir()?, examples.clone()),
    };
    // Every example is there before the first step runs; a missing one is
    // named by the path the user gave.
    for rel in EXAMPLES {
        let path = examples.join(rel);
        if !dir.join(&path).is_file() {
            return Err(input::Diagnostic::new(&path, None, "no such example file").into());
        }
    }
    let tour = Tour {
        exe: std::env::current_exe()?,
        dir,
    };
    std::fs::create_dir_all(tour.dir.join(OUTPUT_DIR))?;
    let path = |rel: &str| examples.join(rel);
    let file = |rel: &str| path(rel).display().to_string();
    let output = |name: &str| format!("{OUTPUT_DIR}/{name}");

    section("ir: parse, verify and interpret (the loop of Noir's mem2reg design)");
    tour.step(&["run", &file("ir/mem2reg_loop.ssa")], 0)?;
    tour.step(
        &["run", &file("ir/predication.ssa"), "--args", "u1 0, u32 3"],
        0,
    )?;

    section("mem2reg: the loop of Noir's mem2reg design, before and after");
    let before = input::read_text(&tour.dir.join(path("mem2reg/foo_loop.ssa")))?;
    let after = tour.step(
        &["opt", &file("mem2reg/foo_loop.ssa"), "--passes", "mem2reg"],
        0,
    )?;
    println!(
        "loads: {} before, {} after; stores: {} before, {} after",
        count(&before, "= load "),
        count(&after, "= load "),
        count(&before, "store "),
        count(&after, "store ")
    );

    section("blockmerge: find_min over an array (CoBBl-style merge components)");
    let find_min = file("blockmerge/find_min.ssa");
    let args = example_args(&tour.dir.join(path("blockmerge/find_min.ssa")))?;
    // The default threshold (1024 constraints) holds the whole unrolled loop.
    tour.step(&["merge", &find_min, "--args", &args], 0)?;

    section("noise: fewest reduce_noise placements (noisy integer arithmetic)");
    tour.step(
        &["noise", &file("noise/double_branching.ssa"), "--check"],
        1,
    )?;
    tour.step(&["noise", &file("noise/double_branching.ssa")], 0)?;

    section("mast: a Miden MAST forest encoded, inspected, a root extracted");
    let forest = output("program.mast");
    let part = output("main.mast");
    tour.step(
        &["mast", "encode", &file("mast/program.txt"), "-o", &forest],
        0,
    )?;
    tour.step(&["mast", "inspect", &forest], 0)?;
    tour.step(&["mast", "extract", &forest, "--root", "6", "-o", &part], 0)?;
    tour.step(&["mast", "decode", &part], 0)?;

    section("casm: JuvixReg compiled to Cairo assembly, run on the Cairo VM");
    tour.step(&["casm", "compile", &file("casm/calculate.jvr")], 0)?;
    tour.step(
        &[
            "casm",
            "run",
            &file("casm/calculate.jvr"),
            "--vm",
            "cairo",
            "--args",
            "2,3,5",
        ],
        0,
    )?;
    tour.step(
        &[
            "casm",
            "run",
            &file("casm/sum.jvr"),
            "--vm",
            "cairo",
            "--args",
            "1000",
        ],
        0,
    )?;

    println!("\nEvery section ran.");
    Ok(ExitCode::SUCCESS)
}
