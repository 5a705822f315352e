//! `cargo xtask verify FILE RUN.proof [--min-block-size N | --cost calibrated
//! | --no-merge] [--args "..."]`: checks a proof of a run written by `merge
//! --prove --proof-out` against the program alone. The program is merged as
//! `merge` merged it (the same options), every block's system and keys are
//! rebuilt from it, and every instance, link, access and the memory check
//! are checked (`kildall_r1cs::verify`). Prints `verified: N instances, M
//! accesses` and exits 0 when the proof holds; prints the first failed
//! check and exits 1 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;

use kildall_interpreter::RuntimeValue;
use kildall_r1cs::run::RunProof;
use kildall_r1cs::trace::flatten;
use kildall_r1cs::verify::Verifier;

use crate::input::{self, Diagnostic};
use crate::merge::{merge_module, Cost};
use crate::run::report;

/// Arguments of `cargo xtask verify`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file.
    file: PathBuf,
    /// The proof of a run.
    proof: PathBuf,
    /// The smallest merge threshold the prover merged with.
    #[arg(long, default_value_t = kildall_blockmerge::MIN_BLOCK_SIZE)]
    min_block_size: u64,
    /// How the prover chose merges.
    #[arg(long, value_enum, default_value_t = Cost::Threshold)]
    cost: Cost,
    /// The proof is of the program as given, not merged.
    #[arg(long, conflicts_with_all = ["min_block_size", "cost"])]
    no_merge: bool,
    /// Check that the proof is of a run on these arguments.
    #[arg(long)]
    args: Option<String>,
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let module = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => return Ok(report(diagnostic)),
    };
    let expected = match &cmd.args {
        Some(args) => {
            let values =
                RuntimeValue::parse_list(args).map_err(|err| anyhow::anyhow!("--args: {err}"))?;
            let elements = flatten(&values)
                .ok_or_else(|| anyhow::anyhow!("--args: a noisy value has no field elements"))?;
            Some(elements)
        }
        None => None,
    };
    let bytes = input::read_bytes(&cmd.proof)?;
    let proof = match RunProof::decode(&bytes) {
        Ok(proof) => proof,
        Err(err) => return Ok(report(Diagnostic::new(&cmd.proof, None, err.to_string()))),
    };
    let module = if cmd.no_merge {
        module
    } else {
        merge_module(&module, cmd.min_block_size, cmd.cost).0
    };
    let verdict = Verifier::new(&module).and_then(|mut v| v.verify(&proof, expected.as_deref()));
    match verdict {
        Ok(verified) => {
            println!(
                "verified: {} instances, {} accesses",
                verified.instances, verified.accesses
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => Ok(report(Diagnostic::new(&cmd.proof, None, err.to_string()))),
    }
}
