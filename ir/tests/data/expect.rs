//! Blessable expectations for the data-driven tests: with `UPDATE_EXPECT=1`
//! in the environment, expected outputs are rewritten from the actual ones.
// Each test binary uses a part of these helpers.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The test data directory.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn update() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some()
}

/// Compares `actual` with the contents of `expected_path`, or writes it there
/// when blessing. Returns a description of the mismatch, if any.
pub fn check_file(expected_path: &Path, actual: &str) -> Option<String> {
    let expected = std::fs::read_to_string(expected_path).unwrap_or_default();
    if expected == actual {
        return None;
    }
    if update() {
        std::fs::write(expected_path, actual).expect("write the expectation");
        return None;
    }
    Some(format!(
        "{} differs (UPDATE_EXPECT=1 to bless)\n--- expected\n{expected}\n--- actual\n{actual}",
        expected_path.display()
    ))
}

/// Runs every case of a case file through `run` and compares its output with
/// the case's `// expect: ` lines.
///
/// A case file is a sequence of cases, each opened by a `// ==== NAME` line;
/// a case's input is its lines up to the `// expect: ` lines that end it.
pub fn check_cases(path: &Path, run: impl Fn(&str) -> String) {
    let text = std::fs::read_to_string(path).expect("read the case file");
    let mut cases: Vec<(String, Vec<&str>, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("// ==== ") {
            cases.push((name.to_string(), Vec::new(), Vec::new()));
        } else if let Some((_, input, expect)) = cases.last_mut() {
            match line.strip_prefix("// expect: ") {
                Some(e) => expect.push(e),
                None if expect.is_empty() => input.push(line),
                None => panic!("{}: input after the expectations", path.display()),
            }
        } else {
            assert!(
                line.is_empty() || line.starts_with("//"),
                "text before the first case"
            );
        }
    }
    assert!(!cases.is_empty(), "{} has no cases", path.display());
    let mut failures = Vec::new();
    let mut blessed = String::new();
    for (name, input, expect) in &cases {
        let mut source = input.join("\n");
        source.push('\n');
        let actual = run(&source);
        let expected = expect.join("\n");
        if actual.trim_end() != expected {
            failures.push(format!(
                "case `{name}`:\n  expected: {expected}\n  actual:   {actual}"
            ));
        }
        writeln!(blessed, "// ==== {name}").unwrap();
        while source.ends_with("\n\n") {
            source.pop();
        }
        blessed.push_str(&source);
        for line in actual.trim_end().lines() {
            writeln!(blessed, "// expect: {line}").unwrap();
        }
    }
    if failures.is_empty() {
        return;
    }
    if update() {
        std::fs::write(path, blessed).expect("write the case file");
        return;
    }
    panic!(
        "{}: {} of {} cases differ (UPDATE_EXPECT=1 to bless)\n{}",
        path.display(),
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
