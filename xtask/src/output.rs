//! Standard output of the commands. A reader that stops early (`| head`)
//! closes the pipe; the command then ends quietly with success rather than
//! failing on the write.

use std::io::{self, Write};

/// Writes `text` to standard output.
///
/// # Errors
///
/// The write's error; [`is_broken_pipe`] tells the closed pipe apart.
pub fn emit(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// [`emit`] with a newline.
pub fn emit_line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Whether `err` comes from writing to a pipe whose reader has gone.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
