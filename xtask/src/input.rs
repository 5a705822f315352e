//! Loading inputs: read, parse and verify IR files, check `--args`
//! against a signature, with errors reported as `FILE:LINE:COL: message`,
//! or `FILE: message` where there is no position (the driver's contract;
//! standard input is `<stdin>`).

use std::fmt;
use std::path::Path;

use kildall_interpreter::RuntimeValue;
use kildall_ir::{FuncId, Module, ReadError, SourceLoc};

/// A diagnostic tied to a file, printed as `FILE:LINE:COL: message`.
#[derive(Debug)]
pub struct Diagnostic {
    file: String,
    loc: Option<SourceLoc>,
    message: String,
}

impl Diagnostic {
    /// A diagnostic of `file` (`-`, standard input, is named `<stdin>`).
    pub fn new(file: &Path, loc: Option<SourceLoc>, message: impl Into<String>) -> Self {
        Diagnostic {
            file: display_name(file),
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

impl std::error::Error for Diagnostic {}

/// Options that cannot go together or are out of range, found after clap
/// parsed them: a usage error (exit 2), printed as `error: message`.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// How diagnostics name `path`: `<stdin>` for `-`, else the path as given.
pub fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The bytes of `path` (`-`: standard input), or `FILE: cannot read: ...`.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, Diagnostic> {
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    bytes.map_err(|err| Diagnostic::new(path, None, format!("cannot read: {err}")))
}

/// Writes `bytes` to `path`, or `FILE: cannot write: ...`.
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), Diagnostic> {
    std::fs::write(path, bytes)
        .map_err(|err| Diagnostic::new(path, None, format!("cannot write: {err}")))
}

/// The text of `path` (`-`: standard input), or `FILE: cannot read: ...`.
pub fn read_text(path: &Path) -> Result<String, Diagnostic> {
    String::from_utf8(read_bytes(path)?).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        Diagnostic::new(path, None, format!("not UTF-8 text at byte {offset}"))
    })
}

/// Reads and parses `path`; `-` is standard input (named `<stdin>` in
/// diagnostics). The text is read a function at a time, never held whole.
pub fn parse_file(path: &Path) -> Result<Module, Diagnostic> {
    let parsed = if path == Path::new("-") {
        kildall_ir::parse_module_from_reader(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path)
            .map_err(|err| Diagnostic::new(path, None, format!("cannot read: {err}")))?;
        kildall_ir::parse_module_from_reader(std::io::BufReader::with_capacity(1 << 16, file))
    };
    parsed.map_err(|err| match err {
        ReadError::Parse(err) => Diagnostic::new(path, Some(err.loc), err.kind.to_string()),
        other => Diagnostic::new(path, None, other.to_string()),
    })
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
    verify(path, &module)?;
    Ok(module)
}

/// The function named `name` of `module` (default: `main`, else the first),
/// or `FILE: no function `NAME``.
pub fn function(file: &Path, module: &Module, name: Option<&str>) -> Result<FuncId, Diagnostic> {
    let function = match name {
        Some(name) => module.function_by_name(name),
        None => module.main(),
    };
    function.ok_or_else(|| {
        let what = name.unwrap_or("main");
        Diagnostic::new(file, None, format!("no function `{what}`"))
    })
}

/// Parses `--args` (IR constant syntax, comma-separated) and checks them
/// against the parameters of `function`: the one rule of every command
/// that runs a program. A mismatch names the signature:
/// `FILE: `main` takes (u32, Field), given --args "u32 1"`.
pub fn check_args(
    file: &Path,
    module: &Module,
    function: FuncId,
    text: &str,
) -> anyhow::Result<Vec<RuntimeValue>> {
    let args = RuntimeValue::parse_list(text).map_err(|err| anyhow::anyhow!("--args: {err}"))?;
    let func = &module.functions[function];
    let params = func.param_types();
    let arity_ok = params.len() == args.len();
    if !arity_ok || args.iter().zip(&params).any(|(arg, ty)| !arg.has_type(ty)) {
        let expected: Vec<String> = params.iter().map(ToString::to_string).collect();
        let message = format!(
            "`{}` takes ({}), given --args \"{text}\"",
            func.name,
            expected.join(", ")
        );
        return Err(Diagnostic::new(file, None, message).into());
    }
    Ok(args)
}

/// [`check_args`] for the function `name` (default: `main`, else the first).
pub fn args_of(
    file: &Path,
    module: &Module,
    name: Option<&str>,
    text: &str,
) -> anyhow::Result<Vec<RuntimeValue>> {
    let function = function(file, module, name)?;
    check_args(file, module, function, text)
}
