//! `cargo xtask noise FILE [--strategy exact|ilp|greedy] [--check] [--trace]`:
//! verify the noise bound of an IR program, or remove its `reduce_noise` ops
//! and place the fewest again; the rewritten IR goes to stdout, the summary
//! `reduce_noise inserted: N (strategy, lower bound, time)` to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kildall_noise::{NoiseParams, Options, Strategy};

use crate::input::{self, Diagnostic};

/// Arguments of `cargo xtask noise`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file.
    file: PathBuf,
    /// How to place reductions.
    #[arg(long, value_enum, default_value_t = StrategyArg::Exact)]
    strategy: StrategyArg,
    /// Only check the noise bound: exit 0 when legal, 1 naming the first op over it.
    #[arg(long)]
    check: bool,
    /// Print the noise inferred for every value as the analysis propagates (stderr).
    #[arg(long)]
    trace: bool,
    /// Noise of a fresh encoding and after `reduce_noise`, in bits.
    #[arg(long, default_value_t = 12)]
    encode_bits: u32,
    /// The largest legal noise, in bits.
    #[arg(long, default_value_t = 26)]
    max_bits: u32,
    /// Time limit of the exact search and of the ILP, in seconds.
    #[arg(long, default_value_t = 10.0)]
    time_limit: f64,
}

/// The strategies on the command line.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    /// Branch and bound with a proven lower bound.
    Exact,
    /// The seed's ILP (good_lp with the pure-Rust solver).
    Ilp,
    /// Reduce as late as possible.
    Greedy,
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let mut module = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => {
            eprintln!("{diagnostic}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let params = NoiseParams {
        encode: cmd.encode_bits,
        max: cmd.max_bits,
    };
    if let Err(err) = params.validate() {
        eprintln!("error: {err}");
        return Ok(ExitCode::FAILURE);
    }
    let options = Options {
        strategy: match cmd.strategy {
            StrategyArg::Exact => Strategy::Exact,
            StrategyArg::Ilp => Strategy::Ilp,
            StrategyArg::Greedy => Strategy::Greedy,
        },
        params,
        time_limit: Duration::from_secs_f64(cmd.time_limit.max(0.0)),
        input_noise: None,
    };
    if cmd.trace {
        for (_, func) in module.functions.iter() {
            let map = kildall_noise::analyze(func, params, options.input_level(), true);
            eprintln!("// function {}", func.name);
            for line in &map.trace {
                eprintln!("{line}");
            }
        }
    }
    if cmd.check {
        let mut legal = true;
        for (_, func) in module.functions.iter() {
            if let Err(violation) = kildall_noise::verify(func, params, options.input_level()) {
                eprintln!(
                    "{}",
                    Diagnostic::new(&cmd.file, Some(violation.loc), violation.to_string())
                );
                legal = false;
            }
        }
        return Ok(if legal {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let mut total = 0;
    let mut lower = 0;
    let mut optimal = true;
    let mut time = Duration::ZERO;
    let ids: Vec<_> = module.functions.keys().collect();
    for id in ids {
        let func = &mut module.functions[id];
        match kildall_noise::optimize(func, &options) {
            Ok(placement) => {
                total += placement.count;
                lower += placement.lower_bound;
                optimal &= placement.optimal;
                time += placement.time;
            }
            Err(err) => {
                eprintln!("{}: in function `{}`: {err}", cmd.file.display(), func.name);
                return Ok(ExitCode::FAILURE);
            }
        }
        if let Err(violation) = kildall_noise::verify(func, params, options.input_level()) {
            anyhow::bail!("internal error: the placement is not legal: {violation}");
        }
    }
    if let Err(err) = kildall_ir::verify_module(&module) {
        anyhow::bail!("internal error: the rewritten module does not verify: {err}");
    }
    print!("{module}");
    let proof = if optimal {
        "optimal"
    } else {
        "not proven optimal"
    };
    eprintln!(
        "reduce_noise inserted: {total} ({}, lower bound {lower}, {proof}, {:.3} ms)",
        options.strategy,
        time.as_secs_f64() * 1e3
    );
    Ok(ExitCode::SUCCESS)
}
