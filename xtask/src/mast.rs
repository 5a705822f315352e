//! `cargo xtask mast`: inspect, convert, decode, encode and extract MAST
//! forests and libraries in every wire format (miden-core 0.10, 0.23, 0.24,
//! 1.0, the draft).
//!
//! A malformed binary file is reported as `error at byte N: ...` and exits
//! with status 1; a malformed text file as `FILE:LINE:COL: ...`; a forest the
//! target format cannot express as `error: ...`, status 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use kildall_mast::wire::{self, Flags, Format, MastFile};
use kildall_mast::{DecodeError, DecodeOptions, Digest, EncodeError, Isa, MastForest};

use crate::input;

/// Arguments of `cargo xtask mast`.
#[derive(Args)]
pub struct Cmd {
    #[command(subcommand)]
    action: Action,
}

/// A target format of `convert` and `encode`.
#[derive(Copy, Clone, Debug, ValueEnum)]
enum FormatArg {
    /// The draft MAST binary format, which no Miden release wrote.
    Draft,
    /// miden-core 0.10, version `[0,0,0]`.
    #[value(name = "0.10")]
    V0_10,
    /// miden-core 0.23, version `[0,0,3]`.
    #[value(name = "0.23")]
    V0_23,
    /// miden-core 0.24, version `[0,0,4]`.
    #[value(name = "0.24")]
    V0_24,
    /// miden-core 1.0, version `[0,0,5]`.
    #[value(name = "1.0")]
    V1_0,
}

#[derive(Subcommand)]
enum Action {
    /// Encode a forest in text form into a binary format.
    Encode {
        /// The text form.
        file: PathBuf,
        /// Where to write the binary forest.
        #[arg(short, long)]
        output: PathBuf,
        /// The format: by default the draft for a 0.10 forest, 0.23 (stripped) for a 0.23 one,
        /// 1.0 for a 1.0 one.
        #[arg(long)]
        format: Option<FormatArg>,
    },
    /// Decode a binary forest or library and print its text form.
    Decode {
        /// The binary file.
        file: PathBuf,
        /// Take recorded digests as they are instead of recomputing them.
        #[arg(long)]
        trust_digests: bool,
    },
    /// Print a file's format, flags, counts, roots and exports.
    Inspect {
        /// The binary file.
        file: PathBuf,
    },
    /// Rewrite a file in another format (by default its own, byte for byte).
    Convert {
        /// The binary file.
        file: PathBuf,
        /// Where to write the result.
        #[arg(short, long)]
        output: PathBuf,
        /// The target format (default: the input's).
        #[arg(long)]
        format: Option<FormatArg>,
        /// Omit the debug info (0.23; required to write 0.24 or 1.0 from a forest
        /// that has debug info).
        #[arg(long)]
        stripped: bool,
        /// Omit internal digests (0.23, 0.24 and 1.0; implies --stripped).
        #[arg(long)]
        hashless: bool,
        /// Omit the advice map (required to write 0.10 from a forest that has one).
        #[arg(long)]
        strip_advice_map: bool,
        /// Take recorded digests as they are instead of recomputing them.
        #[arg(long)]
        trust_digests: bool,
    },
    /// Extract the tree of one root into a forest of its own.
    Extract {
        /// The binary forest.
        file: PathBuf,
        /// The root: a node index, or a digest `[e0, e1, e2, e3]`.
        #[arg(long)]
        root: String,
        /// Where to write the extracted forest.
        #[arg(short, long)]
        output: PathBuf,
        /// Take recorded digests as they are instead of recomputing them.
        #[arg(long)]
        trust_digests: bool,
    },
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    Ok(input::read_bytes(path)?)
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(input::write_file(path, bytes)?)
}

fn malformed(e: DecodeError) -> anyhow::Result<ExitCode> {
    eprintln!("{e}");
    Ok(ExitCode::from(1))
}

fn refused(e: EncodeError) -> anyhow::Result<ExitCode> {
    eprintln!("error: {e}");
    Ok(ExitCode::from(1))
}

fn options(trust_digests: bool) -> DecodeOptions {
    DecodeOptions { trust_digests }
}

fn target(format: FormatArg) -> Format {
    match format {
        FormatArg::Draft => Format::Draft,
        FormatArg::V0_10 => Format::V0_10,
        FormatArg::V0_23 => Format::V0_23,
        FormatArg::V0_24 => Format::V0_24,
        FormatArg::V1_0 => Format::V1_0,
    }
}

/// `forest` (with `exports`) in `format` with `flags`, its digests
/// recomputed if the format's hash function differs.
fn convert(
    forest: &MastForest,
    exports: Option<&[wire::Export]>,
    format: Format,
    flags: Flags,
) -> Result<Vec<u8>, EncodeError> {
    let forest = wire::convert(forest, format.isa())?;
    wire::write(&forest, exports, format, flags)
}

/// Runs `cargo xtask mast`.
pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    match cmd.action {
        Action::Encode {
            file,
            output,
            format,
        } => {
            let text = input::read_text(&file)?;
            let forest = match kildall_mast::parse(&text) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("{}:{e}", input::display_name(&file));
                    return Ok(ExitCode::from(1));
                }
            };
            let (format, flags) = match format {
                Some(f) => (
                    f,
                    Flags {
                        stripped: true,
                        hashless: false,
                    },
                ),
                None => (
                    match forest.isa() {
                        Isa::V0_10 => FormatArg::Draft,
                        Isa::V0_23 => FormatArg::V0_23,
                        Isa::V1_0 => FormatArg::V1_0,
                    },
                    Flags {
                        stripped: forest.isa() != Isa::V0_10,
                        hashless: false,
                    },
                ),
            };
            match convert(&forest, None, target(format), flags) {
                Ok(bytes) => write(&output, &bytes)?,
                Err(e) => return refused(e),
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Decode {
            file,
            trust_digests,
        } => match wire::read(&read(&file)?, options(trust_digests)) {
            Ok(f) => {
                if let Some(d) = f.forest.debug_info() {
                    // FIXME: the text form has no syntax for 0.23 debug info
                    // beyond the decorators of blocks.
                    let summary = debug_info_summary(d);
                    eprintln!("note: the text form leaves out the debug info ({summary})");
                }
                crate::output::emit(&f.forest.to_string())?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => malformed(e),
        },
        Action::Inspect { file } => match wire::read(&read(&file)?, DecodeOptions::TRUST) {
            Ok(f) => {
                crate::output::emit(&inspect(&f))?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => malformed(e),
        },
        Action::Convert {
            file,
            output,
            format,
            stripped,
            hashless,
            strip_advice_map,
            trust_digests,
        } => {
            let mut f = match wire::read(&read(&file)?, options(trust_digests)) {
                Ok(f) => f,
                Err(e) => return malformed(e),
            };
            if strip_advice_map {
                f.forest.strip_advice_map();
            }
            let flags = if format.is_none() && !stripped && !hashless {
                f.flags
            } else {
                Flags {
                    stripped: stripped || hashless,
                    hashless,
                }
            };
            let format = format.map_or(f.format, target);
            match convert(&f.forest, f.exports.as_deref(), format, flags) {
                Ok(bytes) => write(&output, &bytes)?,
                Err(e) => return refused(e),
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Extract {
            file,
            root,
            output,
            trust_digests,
        } => extract(&read(&file)?, &root, &output, options(trust_digests)),
    }
}

/// `extract`: the tree of one root, in the input's format and flags (a
/// 0.23 tree keeps the debug info of its nodes).
fn extract(
    bytes: &[u8],
    root: &str,
    output: &Path,
    opts: DecodeOptions,
) -> anyhow::Result<ExitCode> {
    let f = match wire::read(bytes, opts) {
        Ok(f) => f,
        Err(e) => return malformed(e),
    };
    let id = if let Ok(i) = root.parse::<u32>() {
        match f
            .forest
            .node_id(i as usize)
            .filter(|&id| f.forest.is_root(id))
        {
            Some(id) => id,
            None => {
                eprintln!("error: node {i} is not a root");
                return Ok(ExitCode::from(1));
            }
        }
    } else {
        let digest: Digest = root
            .parse()
            .map_err(|e| anyhow::anyhow!("--root `{root}`: {e}"))?;
        match f.forest.find_root(&digest) {
            Some(id) => id,
            None => {
                eprintln!("error: no root has digest {digest}");
                return Ok(ExitCode::from(1));
            }
        }
    };
    let tree = f.forest.extract(id);
    // The tree's nodes are in the order of a walk from the root; 1.0 has
    // an order of its own.
    let tree = match f.format {
        Format::V1_0 => match wire::canonicalize(&tree) {
            Ok(tree) => tree,
            Err(e) => return refused(e),
        },
        _ => tree,
    };
    match wire::write(&tree, None, f.format, f.flags) {
        Ok(bytes) => write(output, &bytes)?,
        Err(e) => return refused(e),
    }
    Ok(ExitCode::SUCCESS)
}

/// What a 0.23 forest's debug info holds, counted.
fn debug_info_summary(d: &kildall_mast::DebugInfo) -> String {
    format!(
        "{} assembly ops, {} error messages, {} procedure names, {} node decorators, {} debug variables",
        d.asm_op_count(),
        d.error_code_count(),
        d.procedure_name_count(),
        d.node_decorator_count(),
        d.debug_variable_count()
    )
}

/// The `inspect` report: the header, the counts, the roots, then one line
/// per export (`export PATH DIGEST` for a procedure, `type PATH` for a type).
fn inspect(f: &MastFile) -> String {
    use std::fmt::Write;
    let forest = &f.forest;
    let mut out = String::new();
    let _ = writeln!(out, "format: {}, flags: {}", f.format, f.flags);
    let _ = writeln!(out, "digests: {}", forest.isa().hasher());
    let mut counts = std::collections::BTreeMap::new();
    for n in forest.nodes() {
        *counts.entry(n.kind().keyword()).or_insert(0usize) += 1;
    }
    let counts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let _ = writeln!(
        out,
        "nodes {} ({}), roots {}, advice map {} entries, debug info {}",
        forest.len(),
        counts.join(", "),
        forest.roots().count(),
        forest.advice_map().len(),
        forest
            .debug_info()
            .map_or("none".to_string(), debug_info_summary),
    );
    if let Some(e) = forest.entrypoint() {
        let _ = writeln!(out, "entrypoint {e}");
    }
    for r in forest.roots() {
        let _ = writeln!(
            out,
            "root {r} {} {}",
            forest.node(r).kind(),
            forest.digest(r)
        );
    }
    for e in f.exports.iter().flatten() {
        let _ = match f.export_digest(e) {
            Some(digest) => writeln!(out, "export {} {digest}", e.path),
            None => writeln!(out, "type {}", e.path),
        };
    }
    out
}
