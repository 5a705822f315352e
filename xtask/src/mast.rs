//! `cargo xtask mast`: encode, decode, inspect and extract MAST forests.
//!
//! A malformed binary file is reported as `error at byte N: ...` and exits
//! with status 1; a malformed text file as `FILE:LINE:COL: ...`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use kildall_mast::{DecodeError, DecodeOptions, Digest, EncodedForest, NodeKind};

/// Arguments of `cargo xtask mast`.
#[derive(Args)]
pub struct Cmd {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Encode a forest in text form into the binary format.
    Encode {
        /// The text form.
        file: PathBuf,
        /// Where to write the binary forest.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Decode a binary forest and print its text form.
    Decode {
        /// The binary forest.
        file: PathBuf,
        /// Take recorded digests as they are instead of recomputing them.
        #[arg(long)]
        trust_digests: bool,
    },
    /// Print a binary forest's header, node counts and roots.
    Inspect {
        /// The binary forest.
        file: PathBuf,
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
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn malformed(e: DecodeError) -> anyhow::Result<ExitCode> {
    eprintln!("{e}");
    Ok(ExitCode::from(1))
}

fn options(trust_digests: bool) -> DecodeOptions {
    DecodeOptions { trust_digests }
}

/// Runs `cargo xtask mast`.
pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    match cmd.action {
        Action::Encode { file, output } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let forest = match kildall_mast::parse(&text) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("{}:{e}", file.display());
                    return Ok(ExitCode::from(1));
                }
            };
            let bytes = kildall_mast::encode(&forest)?;
            write(&output, &bytes)?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Decode {
            file,
            trust_digests,
        } => match kildall_mast::decode(&read(&file)?, options(trust_digests)) {
            Ok(forest) => {
                crate::output::emit(&forest.to_string())?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => malformed(e),
        },
        Action::Inspect { file } => {
            let bytes = read(&file)?;
            match inspect(&bytes) {
                Ok(report) => {
                    crate::output::emit(&report.to_string())?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => malformed(e),
            }
        }
        Action::Extract {
            file,
            root,
            output,
            trust_digests,
        } => {
            let bytes = read(&file)?;
            let forest = match EncodedForest::parse(&bytes) {
                Ok(f) => f,
                Err(e) => return malformed(e),
            };
            let index = if let Ok(i) = root.parse::<u32>() {
                if !forest.is_root(i) {
                    eprintln!("error: node {i} is not a root");
                    return Ok(ExitCode::from(1));
                }
                i
            } else {
                let digest: Digest = root
                    .parse()
                    .map_err(|e| anyhow::anyhow!("--root `{root}`: {e}"))?;
                match forest.find_root(&digest) {
                    Ok(i) => i,
                    Err(e) => return malformed(e),
                }
            };
            let tree = match forest.decode_tree(index, options(trust_digests)) {
                Ok(t) => t,
                Err(e) => return malformed(e),
            };
            write(&output, &kildall_mast::encode(&tree)?)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The `inspect` report; reads the node records, not the data section.
fn inspect(bytes: &[u8]) -> Result<String, DecodeError> {
    use std::fmt::Write;
    let f = EncodedForest::parse(bytes)?;
    let counts = f.kind_counts()?;
    let mut out = String::new();
    let [a, b, c] = f.version();
    let _ = writeln!(
        out,
        "format MAST version {a}.{b}.{c}, {} bytes",
        bytes.len()
    );
    match f.entrypoint() {
        Some(e) => {
            let _ = writeln!(out, "entrypoint {e}");
        }
        None => out.push_str("entrypoint none (library)\n"),
    }
    let roots: Vec<u32> = f.roots().collect();
    let _ = writeln!(
        out,
        "nodes {}, roots {}, strings {}, data {} bytes",
        f.node_count(),
        roots.len(),
        f.strings_count(),
        f.data_size()
    );
    for (kind, n) in NodeKind::ALL.iter().zip(counts) {
        let _ = writeln!(out, "  {kind:<8} {n}");
    }
    for r in roots {
        let rec = f.record(r)?;
        let _ = writeln!(out, "root {r} {} {}", rec.kind, rec.digest);
    }
    Ok(out)
}
