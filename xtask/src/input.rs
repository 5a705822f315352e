//! Loading IR files: read, parse and verify, with errors reported as
//! `FILE:LINE:COL: message` (the driver's contract).

use std::fmt;
use std::path::Path;

use kildall_ir::{Module, SourceLoc};

/// A diagnostic tied to a file, printed as `FILE:LINE:COL: message`.
#[derive(Debug)]
pub struct Diagnostic {
    file: String,
    loc: Option<SourceLoc>,
    message: String,
}

impl Diagnostic {
    pub fn new(file: &Path, loc: Option<SourceLoc>, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.display().to_string(),
            loc: loc.filter(|loc| loc.is_known()),
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.loc {
            Some(loc) => write!(
                f,
                "{}:{}:{}: {}",
                self.file, loc.line, loc.col, self.message
            ),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Reads and parses `path`; `-` is standard input (named `<stdin>` in
/// diagnostics).
pub fn parse_file(path: &Path) -> Result<Module, Diagnostic> {
    let (path, text) = if path == Path::new("-") {
        let mut text = String::new();
        let read = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text);
        (Path::new("<stdin>"), read.map(|_| text))
    } else {
        (path, std::fs::read_to_string(path))
    };
    let text = text.map_err(|err| Diagnostic::new(path, None, format!("cannot read: {err}")))?;
    kildall_ir::parse_module(&text)
        .map_err(|err| Diagnostic::new(path, Some(err.loc), err.kind.to_string()))
}

/// Verifies `module`, naming `path` in the error.
pub fn verify(path: &Path, module: &Module) -> Result<(), Diagnostic> {
    kildall_ir::verify_module(module).map_err(|err| {
        let message = format!(
            "in function `{}` ({}): {}{}",
            err.function, err.func, err.location, err.kind
        );
        Diagnostic::new(path, Some(err.loc), message)
    })
}

/// Reads, parses and verifies `path` (`-`: standard input).
pub fn load(path: &Path) -> Result<Module, Diagnostic> {
    let module = parse_file(path)?;
    let name = if path == Path::new("-") {
        Path::new("<stdin>")
    } else {
        path
    };
    verify(name, &module)?;
    Ok(module)
}
