//! `cargo xtask casm`.

use std::process::ExitCode;

/// Arguments of `cargo xtask casm`.
#[derive(clap::Args)]
pub struct Cmd {}

pub fn run(_cmd: Cmd) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`casm` is not built yet")
}
