//! `cargo xtask fuzz TARGET [--seconds N] [--seed S] [--engine E]`: runs one
//! fuzz target for N seconds with the strongest engine on the machine.
//!
//! With `cargo fuzz` and a nightly toolchain installed, the target runs
//! under libFuzzer (coverage-guided) from the `fuzz/` folder. Otherwise the
//! in-process engine feeds the same entry point (`kildall-fuzz`) seeded
//! random bytes, which the harnesses decode with `arbitrary` into
//! structured inputs (generated programs, token and byte mutations). Each
//! input runs under `catch_unwind` and a watchdog: a panic, or an input
//! running longer than `--timeout` seconds, stops the run and prints the
//! input as a ready-to-add regression file with its destination (also
//! written under `target/fuzz-failures/`). Same seed, same inputs. On a
//! terminal, a status line on stderr counts executions, their rate and the
//! time elapsed; piped or redirected, the run prints only its results.

use std::io::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kildall_harness::fuzzing::arbitrary::{Arbitrary, Unstructured};
use kildall_harness::fuzzing::{InterpInput, ParseInput, PassInput};
use kildall_harness::generate::Rng;

use kildall_fuzz as targets;

/// The fuzzing engine.
#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Engine {
    /// libFuzzer when `cargo fuzz` and nightly are available, else built-in.
    Auto,
    /// `cargo +nightly fuzz run` in `fuzz/`.
    Libfuzzer,
    /// The in-process engine over seeded random inputs.
    Builtin,
}

/// Arguments of `cargo xtask fuzz`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The target.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(targets::TARGETS))]
    target: String,
    /// How long to run.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Seed of the built-in engine's inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Engine.
    #[arg(long, value_enum, default_value_t = Engine::Auto)]
    engine: Engine,
    /// Longest input of the built-in engine, in bytes.
    #[arg(long, default_value_t = 512)]
    max_len: usize,
    /// Seconds one input may run before it counts as a hang.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let libfuzzer = match cmd.engine {
        Engine::Builtin => false,
        Engine::Libfuzzer => true,
        Engine::Auto => libfuzzer_available(),
    };
    if libfuzzer {
        return run_libfuzzer(&cmd);
    }
    Ok(run_builtin(&cmd))
}

/// Whether `cargo fuzz` and a nightly toolchain both answer.
fn libfuzzer_available() -> bool {
    let ok = |args: &[&str]| {
        Command::new("cargo")
            .args(args)
            .output()
            .is_ok_and(|out| out.status.success())
    };
    ok(&["+nightly", "--version"]) && ok(&["+nightly", "fuzz", "--version"])
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn run_libfuzzer(cmd: &Cmd) -> anyhow::Result<ExitCode> {
    println!("engine: libFuzzer (cargo +nightly fuzz run {})", cmd.target);
    let status = Command::new("cargo")
        .current_dir(workspace_root())
        .args([
            "+nightly",
            "fuzz",
            "run",
            "--release",
            "--features",
            "libfuzzer",
        ])
        .args([&cmd.target, "--"])
        .arg(format!("-max_total_time={}", cmd.seconds))
        .arg(format!("-timeout={}", cmd.timeout))
        .arg(format!("-max_len={}", cmd.max_len.max(64)))
        .status()?;
    // libFuzzer prints its statistics (`#N ... exec/s`) and writes a crash
    // file under fuzz/artifacts/; `cargo xtask fuzz --engine builtin` on the
    // same target turns such an input into a regression file.
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The input in flight, for the watchdog.
struct InFlight {
    /// Milliseconds since the start when the input began; `u64::MAX` when idle.
    since: AtomicU64,
    input: Mutex<Vec<u8>>,
}

fn run_builtin(cmd: &Cmd) -> ExitCode {
    println!(
        "engine: built-in (seeded random inputs; `cargo fuzz` with a nightly toolchain gives libFuzzer), target {}, seed {}, {} s",
        cmd.target, cmd.seed, cmd.seconds
    );
    let message = Arc::new(Mutex::new(String::new()));
    {
        let message = Arc::clone(&message);
        panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let text = if let Some(s) = info.payload().downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = info.payload().downcast_ref::<String>() {
                s.clone()
            } else {
                "panic".to_string()
            };
            if let Ok(mut m) = message.lock() {
                *m = format!("{text}{location}");
            }
        }));
    }
    let start = Instant::now();
    let progress = crate::output::progress(None, "{spinner} {msg} [{elapsed_precise}]");
    let in_flight = Arc::new(InFlight {
        since: AtomicU64::new(u64::MAX),
        input: Mutex::new(Vec::new()),
    });
    {
        let in_flight = Arc::clone(&in_flight);
        let progress = progress.clone();
        let target = cmd.target.clone();
        let limit = cmd.timeout.saturating_mul(1000);
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let since = in_flight.since.load(Ordering::SeqCst);
            let now = start.elapsed().as_millis() as u64;
            if since != u64::MAX && now.saturating_sub(since) > limit {
                let input = in_flight
                    .input
                    .lock()
                    .map(|i| i.clone())
                    .unwrap_or_default();
                progress.finish_and_clear();
                report_failure(
                    &target,
                    &input,
                    &format!("timeout: one input ran for more than {} s", limit / 1000),
                );
                let _ = std::io::stdout().flush();
                std::process::exit(1);
            }
        });
    }
    let deadline = Duration::from_secs(cmd.seconds);
    let mut rng = Rng::new(cmd.seed);
    let mut executions: u64 = 0;
    let mut last_status = Instant::now();
    let mut data = Vec::new();
    while start.elapsed() < deadline {
        // Short inputs are as common as long ones: most structure comes
        // from the first few bytes.
        let len = if rng.chance(0.5) {
            rng.index(65)
        } else {
            rng.index(cmd.max_len + 1)
        };
        data.clear();
        data.extend((0..len).map(|_| rng.next_u64() as u8));
        if let Ok(mut slot) = in_flight.input.lock() {
            slot.clone_from(&data);
        }
        in_flight
            .since
            .store(start.elapsed().as_millis() as u64, Ordering::SeqCst);
        let result = panic::catch_unwind(AssertUnwindSafe(|| targets::run(&cmd.target, &data)));
        in_flight.since.store(u64::MAX, Ordering::SeqCst);
        executions += 1;
        if result.is_err() {
            let text = message.lock().map(|m| m.clone()).unwrap_or_default();
            let _ = panic::take_hook();
            progress.finish_and_clear();
            print_rate(executions, start.elapsed());
            report_failure(&cmd.target, &data, &text);
            return ExitCode::FAILURE;
        }
        if last_status.elapsed() >= Duration::from_millis(100) {
            last_status = Instant::now();
            progress.set_message(format!(
                "{}, {:.0} exec/s",
                crate::output::count(executions, "execution"),
                executions as f64 / start.elapsed().as_secs_f64()
            ));
            progress.tick();
        }
    }
    progress.finish_and_clear();
    let _ = panic::take_hook();
    print_rate(executions, start.elapsed());
    println!("failures: 0");
    ExitCode::SUCCESS
}

fn print_rate(executions: u64, elapsed: Duration) {
    let secs = elapsed.as_secs_f64().max(1e-9);
    println!(
        "executions: {executions} in {} ({:.0} exec/s)",
        crate::output::duration(elapsed),
        executions as f64 / secs
    );
}

/// FNV-1a, for file names of failures.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A regression file for a failing input: where it belongs (relative to
/// the workspace root), its contents, and how it is replayed.
pub struct Regression {
    pub path: String,
    pub contents: Vec<u8>,
    pub replay: &'static str,
}

/// The regression file of `data` for `target`.
pub fn regression(target: &str, data: &[u8]) -> Regression {
    let (dir, ext, contents, replay): (&str, &str, Vec<u8>, &str) = match target {
        "ir-parse" => {
            let text = ParseInput::arbitrary_take_rest(Unstructured::new(data))
                .map(|i| i.text())
                .unwrap_or_default();
            (
                "harness/tests/fuzz_regressions/ir-parse",
                "ssa",
                text.into_bytes(),
                "cargo test -p kildall-harness --test fuzz_smoke",
            )
        }
        "ir-interp" => {
            let text = InterpInput::arbitrary_take_rest(Unstructured::new(data))
                .map(|i| i.regression_file())
                .unwrap_or_default();
            (
                "harness/tests/fuzz_regressions/ir-interp",
                "ssa",
                text.into_bytes(),
                "cargo test -p kildall-harness --test fuzz_smoke",
            )
        }
        "mem2reg" | "blockmerge" | "noise" => {
            let text = match (
                PassInput::arbitrary_take_rest(Unstructured::new(data)),
                kildall_fuzz::find_pass(target),
            ) {
                (Ok(input), Some(main)) => {
                    input.regression_file(&input.pipeline(main, &kildall_fuzz::PASSES))
                }
                _ => String::new(),
            };
            let dir = match target {
                "mem2reg" => "mem2reg/tests/fuzz_regressions",
                "blockmerge" => "blockmerge/tests/fuzz_regressions",
                _ => "noise/tests/fuzz_regressions",
            };
            (dir, "ssa", text.into_bytes(), "cargo test -p xtask fuzz")
        }
        "mast-decode" => (
            "mast/tests/data",
            "mast",
            mast_bytes(data),
            "decode it in the mast malformed-input suite (mast::fuzzing::check_bytes)",
        ),
        _ => match targets::casm_case(data) {
            Some(targets::CasmCase::Jvr(text)) => (
                "casm/tests/fuzz_regressions",
                "jvr",
                text,
                "cargo test -p xtask casm_regressions",
            ),
            Some(targets::CasmCase::Casm(text)) => (
                "casm/tests/fuzz_regressions",
                "casm",
                text,
                "cargo test -p xtask casm_regressions",
            ),
            Some(targets::CasmCase::Differential(seed)) => {
                let module = kildall_casm::generate::generate(
                    seed,
                    &kildall_casm::generate::Config::default(),
                );
                // A `differential_` file must run and agree, not merely parse.
                return Regression {
                    path: format!("casm/tests/fuzz_regressions/differential_{seed}.jvr"),
                    contents: format!("-- generated with seed {seed}\n{module}").into_bytes(),
                    replay: "cargo test -p xtask casm_regressions",
                };
            }
            None => (
                "casm/tests/fuzz_regressions",
                "bin",
                data.to_vec(),
                "cargo xtask fuzz casm",
            ),
        },
    };
    let name = format!("fuzz_{:016x}.{ext}", fnv(&contents));
    Regression {
        path: format!("{dir}/{name}"),
        contents,
        replay,
    }
}

/// The encoding the `mast-decode` target checked when it failed: the raw
/// bytes, or the mutated encoding of the generated forest they describe.
fn mast_bytes(data: &[u8]) -> Vec<u8> {
    use kildall_mast::fuzzing::{check_bytes, mutate, FuzzInput};
    if panic::catch_unwind(|| check_bytes(data)).is_err() {
        return data.to_vec();
    }
    let mut u = Unstructured::new(data);
    let Ok(input) = FuzzInput::arbitrary(&mut u) else {
        return data.to_vec();
    };
    // Mirrors `kildall_mast::fuzzing::check_input`.
    let cfg = kildall_mast::GenConfig {
        nodes: 1 + input.nodes as usize % 40,
        entrypoint: input.seed % 3 == 0,
        ..kildall_mast::GenConfig::small()
    };
    let forest = kildall_mast::generate(input.seed, &cfg);
    let Ok(mut bytes) = kildall_mast::encode(&forest) else {
        return data.to_vec();
    };
    for m in &input.mutations {
        mutate(&mut bytes, *m);
    }
    bytes
}

fn report_failure(target: &str, data: &[u8], message: &str) {
    println!("FAILURE in target {target}: {message}");
    let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
    println!("raw input ({} bytes): {hex}", data.len());
    let regression = regression(target, data);
    let saved = workspace_root()
        .join("target/fuzz-failures")
        .join(Path::new(&regression.path).file_name().unwrap_or_default());
    let written = saved
        .parent()
        .map(std::fs::create_dir_all)
        .and_then(Result::ok)
        .and_then(|()| std::fs::write(&saved, &regression.contents).ok());
    println!(
        "regression file: add as {} (replayed by: {})",
        regression.path, regression.replay
    );
    if written.is_some() {
        println!("saved to {}", saved.display());
    }
    println!("----- {} -----", regression.path);
    println!("{}", String::from_utf8_lossy(&regression.contents));
    println!("----- end -----");
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use kildall_harness::fuzzing::{self, PassInput};

    use super::targets;

    /// Seeded smoke run of a pass target, about a second.
    fn smoke(name: &str, seed: u64, iterations: usize) {
        let main = kildall_fuzz::find_pass(name).expect("a pass target");
        fuzzing::smoke::<PassInput>(seed, iterations, 96, |input| {
            fuzzing::check_pass_input(input, main, &kildall_fuzz::PASSES)
        });
    }

    #[test]
    fn mem2reg_smoke() {
        smoke("mem2reg", 0x3E3, 150);
    }

    #[test]
    fn blockmerge_smoke() {
        smoke("blockmerge", 0xB10C, 150);
    }

    #[test]
    fn noise_smoke() {
        smoke("noise", 0x4015E, 150);
    }

    #[test]
    fn pass_targets_transform_programs() {
        // A differential harness whose pass never changes anything proves
        // nothing: each pass must rewrite some of the smoke inputs.
        for pass in kildall_fuzz::PASSES {
            let mut rng = kildall_harness::generate::Rng::new(0xC4A6);
            let mut changed = 0;
            for _ in 0..60 {
                let len = rng.index(97);
                let Some(input) = fuzzing::random_input::<PassInput>(&mut rng, len) else {
                    continue;
                };
                let (mut module, _) = input.program.build();
                let before = module.to_string();
                pass.run(&mut module, input.options).unwrap();
                changed += usize::from(module.to_string() != before);
            }
            assert!(
                changed >= 3,
                "{} changed only {changed} of 60 programs",
                pass.name()
            );
        }
    }

    #[test]
    fn pass_regressions() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        for target in ["mem2reg", "blockmerge", "noise"] {
            let Ok(entries) = std::fs::read_dir(root.join(target).join("tests/fuzz_regressions"))
            else {
                continue;
            };
            let mut files: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            files.retain(|p| p.extension().is_some_and(|e| e == "ssa"));
            files.sort();
            for path in files {
                eprintln!("replaying {}", path.display());
                let text = std::fs::read_to_string(&path).unwrap();
                fuzzing::check_regression_file(&text, &kildall_fuzz::PASSES);
            }
        }
    }

    /// The `.jvr` reference interpreter and the compiled CASM (our strict
    /// interpreter and the Cairo VM) agree on `main` of `text`: its result,
    /// the numbers printed, and the terms printed unless every machine
    /// refuses them.
    fn casm_differential(text: &str) -> Result<(), String> {
        use kildall_casm::{asm::Mode, interp, jvr, jvr_interp};
        let module = jvr::parse(text).map_err(|e| e.to_string())?;
        let limits = jvr_interp::Limits::default();
        let outcome =
            jvr_interp::execute(&module, "main", Vec::new(), limits).map_err(|e| e.to_string())?;
        let prog = kildall_casm::build_module(&module, "main", &[], Mode::Execution)
            .map_err(|e| e.to_string())?;
        let got = interp::run(&prog, kildall_casm::MAX_STEPS).map_err(|e| e.to_string())?;
        let want = outcome.value.felt().map_err(|e| e.to_string())?;
        if got.value != want {
            return Err(format!("reference {want}, CASM {}", got.value));
        }
        let felts = outcome.lines(jvr_interp::Show::Felt);
        if got.output != felts {
            return Err(format!("reference prints {felts:?}, CASM {:?}", got.output));
        }
        let terms = outcome.lines(jvr_interp::Show::Term);
        if prog.term_refusal.is_none() && got.terms != terms {
            return Err(format!("reference prints {terms:?}, CASM {:?}", got.terms));
        }
        let vm = kildall_casm::vm::run(&prog).map_err(|e| e.to_string())?;
        if vm != got {
            return Err(format!("CASM interpreter {got:?}, Cairo VM {vm:?}"));
        }
        Ok(())
    }

    /// Replays the casm target's regression files: `differential_*.jvr`
    /// must run and agree across the reference interpreter, the CASM
    /// interpreter and the Cairo VM; any other `.jvr` or `.casm` file goes
    /// through the parser harness it failed in.
    #[test]
    fn casm_regressions() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../casm/tests/fuzz_regressions");
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        let differential = files
            .iter()
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("differential_") && n.ends_with(".jvr"))
            })
            .count();
        assert!(differential >= 1, "the casm regression files are missing");
        let mut failures = Vec::new();
        for path in &files {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let bytes = std::fs::read(path).unwrap();
            if name.starts_with("differential_") && name.ends_with(".jvr") {
                let text = String::from_utf8(bytes).unwrap();
                if let Err(e) = casm_differential(&text) {
                    failures.push(format!("{}: {e}", path.display()));
                }
            } else if name.ends_with(".jvr") {
                kildall_casm::fuzzing::parse_jvr(&bytes);
            } else if name.ends_with(".casm") {
                kildall_casm::fuzzing::parse_casm(&bytes);
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn every_target_runs_on_empty_and_short_input() {
        for name in targets::TARGETS {
            assert!(targets::run(name, &[]), "{name}");
            assert!(targets::run(name, &[7; 40]), "{name}");
        }
        assert!(!targets::run("no-such-target", &[]));
    }

    #[test]
    fn regression_files_replay_the_failing_input() {
        // A pass input's file names its pipeline and arguments and parses.
        let data = [3u8; 64];
        let file = super::regression("mem2reg", &data);
        let text = String::from_utf8(file.contents).unwrap();
        assert!(file
            .path
            .starts_with("mem2reg/tests/fuzz_regressions/fuzz_"));
        assert!(text.contains("// pipeline: "), "{text}");
        fuzzing::check_regression_file(&text, &kildall_fuzz::PASSES);
        // An ir-parse file is the parsed text itself.
        let file = super::regression("ir-parse", b"\x00fn main f0 {");
        assert!(file.path.ends_with(".ssa"));
    }
}
