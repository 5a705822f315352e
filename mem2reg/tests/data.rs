//! Data-driven tests: each `tests/data/*.ssa` file holds an input module, a
//! header of directives, and after the `// ---- output ----` line the
//! expected output of the pass and its statistics. `UPDATE_EXPECT=1 cargo
//! test` rewrites the expected part.
//!
//! Directives (comment lines before the module):
//! - `// options: forward` runs only the per-block load forwarding (default: all parts);
//! - `// args: u1 1, Field 3` runs `main` on these arguments before and after
//!   the pass and requires the same outcome (a `main` without parameters is
//!   always run);
//! - `// loads-left: N` requires exactly `N` loads in the output, whatever
//!   the blessed text says: the check that the loads the per-block analysis says can go, go.

use std::fs;
use std::path::Path;

use kildall_harness::testing::{self, check_data_dir, check_each, SEPARATOR};
use kildall_interpreter::{RuntimeValue, TrapRule};
use kildall_ir::pass::run_module;
use kildall_ir::{parse_module, verify_module, InstructionData, Module};
use kildall_mem2reg::{Mem2Reg, Options};

fn loads(module: &Module) -> usize {
    testing::count_insts(module, |data| matches!(data, InstructionData::Load { .. }))
}

/// Runs the pass on the input part of a data file; returns the actual
/// output, or why the file fails whatever its expected output says.
fn run(input: &str) -> Result<String, String> {
    let directive = |name: &str| {
        input
            .lines()
            .find_map(|l| l.strip_prefix(&format!("// {name}:")).map(str::trim))
    };
    let options = match directive("options") {
        Some("forward") => Options::forward_only(),
        Some(other) => return Err(format!("unknown options `{other}`")),
        None => Options::default(),
    };
    let before = parse_module(input).map_err(|e| format!("parse: {e}"))?;
    verify_module(&before).map_err(|e| format!("input does not verify: {e}"))?;
    let mut after = before.clone();
    let stats = run_module::<Mem2Reg>(&mut after, &options).unwrap();
    let actual = format!("{after}// stats: {stats}\n");
    verify_module(&after).map_err(|e| format!("output does not verify: {e}\n{after}"))?;

    let main = before.main().ok_or("no function")?;
    let args = match directive("args") {
        Some(args) => Some(RuntimeValue::parse_list(args).map_err(|e| format!("args: {e}"))?),
        None if before.functions[main].param_types().is_empty() => Some(Vec::new()),
        None => None,
    };
    if let Some(args) = args {
        testing::check_same_behaviour(&before, &after, &args, TrapRule::SameKind, FUEL)?;
    }
    if let Some(n) = directive("loads-left") {
        let n: usize = n.parse().map_err(|_| "bad loads-left")?;
        if loads(&after) != n {
            return Err(format!(
                "{} loads left, expected {n}\n{actual}",
                loads(&after)
            ));
        }
    }
    Ok(actual)
}

#[test]
fn data_files() {
    check_data_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
        "ssa",
        run,
    );
}

/// The programs in the workspace's `examples/mem2reg/` (inputs of `cargo
/// xtask opt FILE --passes mem2reg`) parse, and the pass keeps their
/// behaviour and produces verified output.
#[test]
fn workspace_examples() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/mem2reg");
    check_each(&testing::data_files(&dir, "ssa"), |path| {
        let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
        if text.contains(SEPARATOR) {
            return Err("an example has no expected output".into());
        }
        check_behaviour(&text)
    });
}

fn check_behaviour(text: &str) -> Result<(), String> {
    let before = parse_module(text).map_err(|e| format!("parse: {e}"))?;
    verify_module(&before).map_err(|e| format!("input does not verify: {e}"))?;
    let mut after = before.clone();
    run_module::<Mem2Reg>(&mut after, &Options::default()).unwrap();
    let args = text
        .lines()
        .find_map(|l| l.strip_prefix("// args:"))
        .map(|a| RuntimeValue::parse_list(a.trim()).map_err(|e| format!("args: {e}")))
        .transpose()?
        .unwrap_or_default();
    testing::check_same_behaviour(&before, &after, &args, TrapRule::SameKind, FUEL).map(drop)
}

/// Enough for every hand-written program.
const FUEL: u64 = 1_000_000;
