//! The one output path of the driver, and the wording it shares.
//!
//! Every command writes through the `print!`, `println!`, `eprint!` and
//! `eprintln!` macros of the crate root, which shadow the standard ones and
//! call [`stdout`] and [`stderr`] here. A reader that stops early (`| head`,
//! `2>&1 | head`) closes the pipe: the write then unwinds with
//! [`ClosedPipe`], which [`run_to_exit`] turns into a quiet exit 0 after
//! the destructors on the way ran (so the demo's scratch folder goes too).
//! The standard macros would panic there instead.
//!
//! Progress bars ([`progress`]) draw on standard error only when it is a
//! terminal, so piped and redirected runs print the same bytes every time.
//!
//! [`count`] and [`duration`] word the figures the commands report.

use std::fmt;
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Duration;

/// The unwinding payload of a write to a closed pipe.
pub struct ClosedPipe;

/// Writes `args` to standard output (the `print!`/`println!` of the driver).
pub fn stdout(args: fmt::Arguments<'_>) {
    write(io::stdout().lock(), args);
}

/// Writes `args` to standard error (the `eprint!`/`eprintln!` of the driver).
pub fn stderr(args: fmt::Arguments<'_>) {
    write(io::stderr().lock(), args);
}

/// Writes in large chunks (a printed module is formatted piece by piece)
/// and flushes before returning, so the two streams interleave in order.
fn write(stream: impl Write, args: fmt::Arguments<'_>) {
    let mut out = io::BufWriter::with_capacity(1 << 16, stream);
    settle(out.write_fmt(args).and_then(|()| out.flush()));
}

/// Ends the command quietly when the reader has gone; any other write error
/// ends it with exit 1, as nothing more can be said.
fn settle(result: io::Result<()>) {
    match result {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => closed_pipe(),
        Err(_) => std::process::exit(1),
    }
}

fn closed_pipe() -> ! {
    // A helper thread (the fuzzing watchdog) cannot unwind the command:
    // it ends the process, as quietly.
    if std::thread::current().name() != Some("main") {
        std::process::exit(0);
    }
    panic::resume_unwind(Box::new(ClosedPipe))
}

/// Runs a command, turning a write to a closed pipe into exit 0.
pub fn run_to_exit(command: impl FnOnce() -> ExitCode) -> ExitCode {
    match panic::catch_unwind(AssertUnwindSafe(command)) {
        Ok(code) => code,
        Err(payload) if payload.is::<ClosedPipe>() => ExitCode::SUCCESS,
        Err(payload) => panic::resume_unwind(payload),
    }
}

/// Writes `text` to standard output.
///
/// # Errors
///
/// None today: a closed pipe ends the command (see the module doc); the
/// `Result` lets callers keep `?`.
pub fn emit(text: &str) -> io::Result<()> {
    stdout(format_args!("{text}"));
    Ok(())
}

/// Whether `err` comes from writing to a pipe whose reader has gone.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `n` followed by the noun, singular for one: `count(1, "merge")` is
/// `1 merge`, `count(3, "merge")` is `3 merges`, `count(2, "access")` is
/// `2 accesses`.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    let suffix = if n == 1 {
        ""
    } else if noun.ends_with('s') {
        "es"
    } else {
        "s"
    };
    format!("{n} {noun}{suffix}")
}

/// A duration in the unit that reads best, with three significant digits:
/// `640 ns`, `85.6 µs`, `12.3 ms`, `10.1 s`, `2 min 5 s`.
pub fn duration(d: Duration) -> String {
    if d.is_zero() {
        return "0 s".to_string();
    }
    let secs = d.as_secs_f64();
    if secs >= 60.0 {
        let whole = d.as_secs();
        return format!("{} min {} s", whole / 60, whole % 60);
    }
    let (value, unit) = if secs >= 1.0 {
        (secs, "s")
    } else if secs >= 1e-3 {
        (secs * 1e3, "ms")
    } else if secs >= 1e-6 {
        (secs * 1e6, "µs")
    } else {
        (secs * 1e9, "ns")
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

/// A progress bar (or, with no `length`, a spinner) on standard error,
/// drawn only when standard error is a terminal, ten times a second at
/// most; `template` is indicatif's.
pub fn progress(length: Option<u64>, template: &str) -> indicatif::ProgressBar {
    let target = indicatif::ProgressDrawTarget::stderr_with_hz(10);
    let bar = match length {
        Some(length) => indicatif::ProgressBar::with_draw_target(Some(length), target),
        None => indicatif::ProgressBar::with_draw_target(None, target),
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{count, duration};

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(1u32, "merge"), "1 merge");
        assert_eq!(count(0u32, "merge"), "0 merges");
        assert_eq!(count(2u64, "argument"), "2 arguments");
        assert_eq!(count(15u64, "access"), "15 accesses");
    }

    #[test]
    fn durations_take_the_unit_that_reads_best() {
        assert_eq!(duration(Duration::from_nanos(640)), "640 ns");
        assert_eq!(duration(Duration::from_nanos(85_600)), "85.6 µs");
        assert_eq!(duration(Duration::from_micros(12_345)), "12.3 ms");
        assert_eq!(duration(Duration::from_micros(10_059_319)), "10.1 s");
        assert_eq!(duration(Duration::from_millis(1_500)), "1.50 s");
        assert_eq!(duration(Duration::from_secs(125)), "2 min 5 s");
        assert_eq!(duration(Duration::ZERO), "0 s");
    }
}
