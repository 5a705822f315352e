//! Blessable data-driven tests.
//!
//! As in rust-analyzer's `expect-test`, a test's expected output is text
//! kept next to its input; a test computes the actual output and compares.
//! On a mismatch, with `UPDATE_EXPECT=1` in the environment the expectation
//! is rewritten ("blessed") from the actual output, otherwise the test fails
//! with a line diff. Three layouts share that logic:
//!
//! - [`check_data_dir`]: a directory of files, each an input, the
//!   [`SEPARATOR`] line, then the expected output;
//! - [`check_file`]: an expected output in a file of its own;
//! - [`check_cases`]: one file of many small cases, each ending in
//!   `// expect: ` lines.
//!
//! Formats of their own build on [`data_files`], [`check_each`] (one
//! failure report naming every failing file) and [`check_expectation`].

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The environment variable that turns a mismatch into a rewrite of the
/// expectation.
pub const UPDATE_EXPECT: &str = "UPDATE_EXPECT";

/// The line between the input and the expected output of a file checked by
/// [`check_data_dir`].
pub const SEPARATOR: &str = "// ---- output ----";

/// Whether expectations are to be rewritten rather than checked:
/// [`UPDATE_EXPECT`] is set.
pub fn update_expect() -> bool {
    std::env::var_os(UPDATE_EXPECT).is_some()
}

/// The files of `dir` whose name ends in `.extension`, sorted by name.
///
/// # Panics
///
/// If `dir` cannot be read or holds no such file: a data-driven test that
/// checks nothing must not pass.
pub fn data_files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read the test directory {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
                .path()
        })
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no .{extension} files in {}",
        dir.display()
    );
    files
}

/// Runs `check` on every file, then fails once, naming every file whose
/// check returned an error or panicked with its message. Returns the number
/// of files checked.
///
/// # Panics
///
/// If any check failed.
pub fn check_each<P: AsRef<Path>>(
    files: &[P],
    mut check: impl FnMut(&Path) -> Result<(), String>,
) -> usize {
    let mut failures = String::new();
    let mut failed = 0;
    for path in files {
        let path = path.as_ref();
        // A panicking check (an `unwrap` in the test) fails its own file
        // only: the report still lists all the others.
        let message = match catch_unwind(AssertUnwindSafe(|| check(path))) {
            Ok(Ok(())) => continue,
            Ok(Err(message)) => message,
            Err(payload) => {
                let text = payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| payload.downcast_ref::<&str>().copied())
                    .unwrap_or("a panic without a message");
                format!("panicked: {text}")
            }
        };
        failed += 1;
        writeln!(failures, "\n{}: {message}", path.display()).unwrap();
    }
    assert!(
        failed == 0,
        "{failed} of {} files failed:\n{failures}",
        files.len()
    );
    files.len()
}

/// Compares an expected output with the actual one. On a mismatch, with
/// [`UPDATE_EXPECT`] set, writes `blessed()` (the whole new text of the
/// file) to `path` and succeeds; otherwise returns a line diff.
///
/// # Errors
///
/// The diff from `expected` to `actual`, or the failure to write `path`.
pub fn check_expectation(
    path: &Path,
    expected: &str,
    actual: &str,
    blessed: impl FnOnce() -> String,
) -> Result<(), String> {
    if expected == actual {
        return Ok(());
    }
    if update_expect() {
        return std::fs::write(path, blessed())
            .map_err(|e| format!("cannot bless {}: {e}", path.display()));
    }
    Err(format!(
        "output differs ({UPDATE_EXPECT}=1 to bless)\n{}",
        diff(expected, actual)
    ))
}

/// Compares `actual` with the contents of `path` (none when it does not
/// exist yet), blessing as [`check_expectation`] does.
///
/// # Errors
///
/// As [`check_expectation`].
pub fn check_file(path: &Path, actual: &str) -> Result<(), String> {
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    check_expectation(path, &expected, actual, || actual.to_string())
}

/// Compares `actual` bytes with the golden file `path` (none when it does
/// not exist yet), blessing as [`check_expectation`] does: for binary
/// encodings pinned byte for byte.
///
/// # Errors
///
/// The first offset where the two differ and both lengths, or the failure
/// to write `path`.
pub fn check_bytes(path: &Path, actual: &[u8]) -> Result<(), String> {
    let expected = std::fs::read(path).unwrap_or_default();
    if expected == actual {
        return Ok(());
    }
    if update_expect() {
        return std::fs::write(path, actual)
            .map_err(|e| format!("cannot bless {}: {e}", path.display()));
    }
    let at = expected
        .iter()
        .zip(actual)
        .take_while(|(a, b)| a == b)
        .count();
    Err(format!(
        "bytes differ from {} at offset {at} (expected {} bytes, got {}; {UPDATE_EXPECT}=1 to bless)",
        path.display(),
        expected.len(),
        actual.len()
    ))
}

/// Splits a data file at its [`SEPARATOR`] line into the input and the
/// expected output (empty when the file has no separator yet).
pub fn split_expected(text: &str) -> (&str, &str) {
    match text.find(SEPARATOR) {
        Some(at) => (
            &text[..at],
            text[at + SEPARATOR.len()..].trim_start_matches('\n'),
        ),
        None => (text, ""),
    }
}

/// Checks every `.extension` file of `dir`: `run` maps the input of the
/// file (before its [`SEPARATOR`]) to the actual output, or fails with a
/// message; the actual output must equal the expected one (after the
/// separator). Blessing rewrites the part after the separator, adding the
/// separator to a file that has none. Returns the number of files checked.
///
/// # Panics
///
/// As [`data_files`] and [`check_each`]: one report of every failing file.
pub fn check_data_dir(
    dir: &Path,
    extension: &str,
    mut run: impl FnMut(&str) -> Result<String, String>,
) -> usize {
    check_each(&data_files(dir, extension), |path| {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let (input, expected) = split_expected(&text);
        let actual = run(input)?;
        check_expectation(path, expected, &actual, || {
            let newline = if input.ends_with('\n') { "" } else { "\n" };
            format!("{input}{newline}{SEPARATOR}\n{actual}")
        })
    })
}

/// Runs every case of a case file through `run` and compares its output
/// with the case's `// expect: ` lines (trailing white space of the output
/// aside).
///
/// A case file is a sequence of cases, each opened by a `// ==== NAME`
/// line; a case's input is its lines up to the `// expect: ` lines that end
/// it. Blessing rewrites the whole file, dropping blank lines at the end of
/// inputs.
///
/// # Panics
///
/// If the file is malformed or a case differs (the report names the file
/// and every differing case).
pub fn check_cases(path: &Path, mut run: impl FnMut(&str) -> String) {
    check_each(&[path], |path| {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        check_case_text(path, &text, &mut run)
    });
}

fn check_case_text(
    path: &Path,
    text: &str,
    run: &mut impl FnMut(&str) -> String,
) -> Result<(), String> {
    let mut cases: Vec<(&str, Vec<&str>, Vec<&str>)> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if let Some(name) = line.strip_prefix("// ==== ") {
            cases.push((name, Vec::new(), Vec::new()));
        } else if let Some((_, input, expect)) = cases.last_mut() {
            match line.strip_prefix("// expect: ") {
                Some(e) => expect.push(e),
                None if expect.is_empty() => input.push(line),
                None => return Err(format!("line {}: input after the expectations", number + 1)),
            }
        } else if !(line.is_empty() || line.starts_with("//")) {
            return Err(format!("line {}: text before the first case", number + 1));
        }
    }
    if cases.is_empty() {
        return Err("no cases".into());
    }
    let mut failures = Vec::new();
    let mut blessed = String::new();
    for (name, input, expect) in &cases {
        let mut source = input.join("\n");
        source.push('\n');
        let actual = run(&source);
        let actual = actual.trim_end();
        let expected = expect.join("\n");
        if actual != expected {
            failures.push(format!("case `{name}`:\n{}", diff(&expected, actual)));
        }
        writeln!(blessed, "// ==== {name}").unwrap();
        while source.ends_with("\n\n") {
            source.pop();
        }
        blessed.push_str(&source);
        for line in actual.lines() {
            writeln!(blessed, "// expect: {line}").unwrap();
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    if update_expect() {
        return std::fs::write(path, blessed)
            .map_err(|e| format!("cannot bless {}: {e}", path.display()));
    }
    Err(format!(
        "{} of {} cases differ ({UPDATE_EXPECT}=1 to bless)\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    ))
}

/// Lines of context around each change in a [`diff`].
const CONTEXT: usize = 2;

/// The largest table of the longest-common-subsequence diff; a larger
/// change is shown as all its old lines then all its new ones.
const MAX_DIFF_CELLS: usize = 4_000_000;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Edit {
    Same,
    Removed,
    Added,
}

/// A line diff from `expected` to `actual` in the unified style: hunks
/// headed `@@ expected line N @@`, lines marked ` `, `-` (expected only) and
/// `+` (actual only). Computed as a longest common subsequence (Hunt and
/// McIlroy, "An algorithm for differential file comparison", 1976) of the
/// lines between the common prefix and suffix.
pub fn diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut script: Vec<(Edit, &str)> = old[..prefix].iter().map(|l| (Edit::Same, *l)).collect();
    if (a.len() + 1).saturating_mul(b.len() + 1) > MAX_DIFF_CELLS {
        script.extend(a.iter().map(|l| (Edit::Removed, *l)));
        script.extend(b.iter().map(|l| (Edit::Added, *l)));
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let width = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * width];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * width + j] = if a[i] == b[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                script.push((Edit::Same, a[i]));
                (i, j) = (i + 1, j + 1);
            } else if j == b.len()
                || (i < a.len() && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])
            {
                script.push((Edit::Removed, a[i]));
                i += 1;
            } else {
                script.push((Edit::Added, b[j]));
                j += 1;
            }
        }
    }
    script.extend(old[old.len() - suffix..].iter().map(|l| (Edit::Same, *l)));

    let mut out = String::from("--- expected\n+++ actual\n");
    // The line of `expected` each edit stands at, 1-based.
    let mut line_at = Vec::with_capacity(script.len());
    let mut line = 1;
    for &(edit, _) in &script {
        line_at.push(line);
        line += usize::from(edit != Edit::Added);
    }
    let changed: Vec<usize> = (0..script.len())
        .filter(|&k| script[k].0 != Edit::Same)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        // A hunk runs while the changes are close enough for their
        // contexts to touch.
        let start = changed[k].saturating_sub(CONTEXT);
        let mut last = changed[k];
        while k + 1 < changed.len() && changed[k + 1] <= last + 2 * CONTEXT + 1 {
            k += 1;
            last = changed[k];
        }
        k += 1;
        let end = (last + CONTEXT + 1).min(script.len());
        writeln!(out, "@@ expected line {} @@", line_at[start]).unwrap();
        for &(edit, text) in &script[start..end] {
            let mark = match edit {
                Edit::Same => ' ',
                Edit::Removed => '-',
                Edit::Added => '+',
            };
            writeln!(out, "{mark}{text}").unwrap();
        }
    }
    // What `lines` does not show.
    for (text, name) in [(expected, "expected"), (actual, "actual")] {
        if !text.is_empty() && !text.ends_with('\n') {
            writeln!(out, "\\ no newline at the end of the {name} text").unwrap();
        }
    }
    if changed.is_empty() && expected.ends_with('\n') == actual.ends_with('\n') {
        out.push_str("(the texts differ in their line endings)\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_marks_changes_with_context() {
        let expected = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let actual = "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\n";
        assert_eq!(
            diff(expected, actual),
            "--- expected\n+++ actual\n\
             @@ expected line 2 @@\n b\n c\n-d\n+D\n e\n f\n\
             @@ expected line 8 @@\n h\n i\n+j\n"
        );
        // What the lines do not show is said.
        assert!(diff("x\n", "x").ends_with("\\ no newline at the end of the actual text\n"));
        assert!(diff("x\r\n", "x\n").ends_with("line endings)\n"));
    }

    #[test]
    fn diff_finds_a_longest_common_subsequence() {
        let d = diff("1\n2\n3\n4\n5\n", "0\n1\n3\n4\n6\n5\n");
        let marked: Vec<&str> = d.lines().skip(3).collect();
        assert_eq!(marked, ["+0", " 1", "-2", " 3", " 4", "+6", " 5"]);
    }

    #[test]
    fn split_at_the_separator() {
        let text = format!("input\n{SEPARATOR}\n\noutput\n");
        assert_eq!(split_expected(&text), ("input\n", "output\n"));
        assert_eq!(split_expected("input only"), ("input only", ""));
    }
}
