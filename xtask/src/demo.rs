//! `cargo xtask demo`: every crate on the bundled examples in `examples/`,
//! one section each. Each step is a driver command, printed as a user would
//! type it, followed by what it prints, so the demo doubles as a tour of the
//! command line.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Arguments of `cargo xtask demo`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The examples folder.
    #[arg(long, default_value_os_t = examples_dir())]
    examples: PathBuf,
}

/// `examples/` at the workspace root.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// Runs the driver's own binary with `args`, echoing the command and its
/// output; fails when the exit code is not `expected`.
struct Tour {
    exe: PathBuf,
    root: PathBuf,
}

impl Tour {
    fn step(&self, args: &[&str], expected: i32) -> anyhow::Result<String> {
        println!("$ cargo xtask {}", args.join(" "));
        let output = Command::new(&self.exe)
            .args(args)
            .current_dir(&self.root)
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
            "`{}` exited {code}, expected {expected}",
            args.join(" ")
        );
        Ok(stdout)
    }
}

fn section(title: &str) {
    println!("\n=== {title} ===\n");
}

/// The `// args: ...` (or `-- args: ...`) header line of an example.
fn example_args(path: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)?;
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

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let root = cmd
        .examples
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let tour = Tour {
        exe: std::env::current_exe()?,
        root,
    };
    let scratch = std::env::temp_dir().join(format!("kildall-demo-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let file = |rel: &str| format!("examples/{rel}");
    let tmp = |name: &str| scratch.join(name).display().to_string();

    section("ir: parse, verify and interpret (the loop of Noir's mem2reg design)");
    tour.step(&["run", &file("ir/mem2reg_loop.ssa")], 0)?;
    tour.step(
        &["run", &file("ir/predication.ssa"), "--args", "u1 0, u32 3"],
        0,
    )?;

    section("mem2reg: the loop of Noir's mem2reg design, before and after");
    let before = std::fs::read_to_string(cmd.examples.join("mem2reg/foo_loop.ssa"))?;
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
    let args = example_args(&cmd.examples.join("blockmerge/find_min.ssa"))?;
    // The default threshold (1024 constraints) holds the whole unrolled loop.
    tour.step(&["merge", &find_min, "--args", &args], 0)?;

    section("noise: fewest reduce_noise placements (noisy integer arithmetic)");
    tour.step(
        &["noise", &file("noise/double_branching.ssa"), "--check"],
        1,
    )?;
    tour.step(&["noise", &file("noise/double_branching.ssa")], 0)?;

    section("mast: a Miden MAST forest encoded, inspected, a root extracted");
    let forest = tmp("program.mast");
    let part = tmp("main.mast");
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

    std::fs::remove_dir_all(&scratch)?;
    println!("\nEvery section ran.");
    Ok(ExitCode::SUCCESS)
}
