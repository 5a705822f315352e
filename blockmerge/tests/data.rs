//! Data-driven tests: each `tests/data/*.ssa` file holds directives, an
//! input module, and after the `// ---- output ----` line the expected
//! merged module and report. `UPDATE_EXPECT=1 cargo test` rewrites the
//! expected part.
//!
//! Directives (comment lines before the module):
//! - `// min-block-size: N` (default 1024);
//! - `// args: u32 1, Field 3` (repeatable): runs `main` on these arguments
//!   before and after and requires the same outcome and output (a `main`
//!   without parameters is always run);
//! - `// blocks-after: N`: the number of blocks of `main` after the pass,
//!   checked whatever the blessed text says.

use std::path::Path;

use kildall_blockmerge::{BlockMerge, Options};
use kildall_harness::testing::{check_data_dir, check_same_behaviour};
use kildall_interpreter::{RuntimeValue, TrapRule};
use kildall_ir::pass::run_module;
use kildall_ir::{parse_module, verify_module};

/// Runs the pass on the input part of a data file; returns the actual
/// output, or why the file fails whatever its expected output says.
fn run(input: &str) -> Result<String, String> {
    let directives = |name: &str| -> Vec<&str> {
        let prefix = format!("// {name}:");
        input
            .lines()
            .filter_map(|l| l.strip_prefix(prefix.as_str()).map(str::trim))
            .collect()
    };
    let min_block_size = match directives("min-block-size").first() {
        Some(n) => n.parse().map_err(|_| "bad min-block-size")?,
        None => kildall_blockmerge::MIN_BLOCK_SIZE,
    };
    let before = parse_module(input).map_err(|e| format!("parse: {e}"))?;
    verify_module(&before).map_err(|e| format!("input does not verify: {e}"))?;
    let mut after = before.clone();
    let options = Options {
        min_block_size,
        ..Options::default()
    };
    let reports = run_module::<BlockMerge>(&mut after, &options).unwrap().0;
    let mut actual = after.to_string();
    for report in &reports {
        for line in report.to_string().lines() {
            actual.push_str(&format!("// {line}\n"));
        }
    }
    verify_module(&after).map_err(|e| format!("output does not verify: {e}\n{after}"))?;

    let main = before.main().ok_or("no function")?;
    let mut runs = Vec::new();
    for args in directives("args") {
        runs.push(RuntimeValue::parse_list(args).map_err(|e| format!("args: {e}"))?);
    }
    if runs.is_empty() && before.functions[main].param_types().is_empty() {
        runs.push(Vec::new());
    }
    for args in &runs {
        check_same_behaviour(&before, &after, args, TrapRule::SameKind, 1_000_000)?;
    }
    if let Some(n) = directives("blocks-after").first() {
        let n: usize = n.parse().map_err(|_| "bad blocks-after")?;
        let got = after.functions[main].layout.num_blocks();
        if got != n {
            return Err(format!("{got} blocks after, expected {n}\n{actual}"));
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
