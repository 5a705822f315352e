//! `cargo xtask mast`.

use std::process::ExitCode;

/// Arguments of `cargo xtask mast`.
#[derive(clap::Args)]
pub struct Cmd {}

pub fn run(_cmd: Cmd) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`mast` is not built yet")
}
