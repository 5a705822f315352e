//! Places reductions in generated noisy DAGs of several sizes with every
//! strategy and prints a table of counts, bounds, exact-search nodes and
//! times: `cargo run --release -p kildall-noise --example table [OPS...]`
//! (generator seed 1; `SEED=n` picks another, `STRATEGIES=exact,greedy`
//! a subset of the strategies, `EFFORT=n` the effort of the exact search,
//! `LIMIT=s` a time limit, none by default, `THREADS=n` its threads).

use std::time::Duration;

use kildall_harness::generate::{generate_noise, NoiseConfig};
use kildall_ir::pass::{FunctionAnalyses, FunctionPass};
use kildall_noise::{NoisePlacement, Options, Stop, Strategy};

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![30, 100, 300, 1000]
    } else {
        sizes
    };
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let strategies: Vec<Strategy> = match std::env::var("STRATEGIES") {
        Ok(list) => list
            .split(',')
            .filter_map(|name| match name.trim() {
                "exact" => Some(Strategy::Exact),
                "ilp" => Some(Strategy::Ilp),
                "greedy" => Some(Strategy::Greedy),
                _ => None,
            })
            .collect(),
        Err(_) => vec![Strategy::Exact, Strategy::Ilp, Strategy::Greedy],
    };
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    let defaults = Options::default();
    let effort = var("EFFORT").unwrap_or(defaults.effort);
    let time_limit = var("LIMIT").map(Duration::from_secs);
    let threads = var("THREADS").map_or(defaults.threads, |n| n as usize);
    println!(
        "| ops | strategy | count | lower bound | proven optimal | search nodes | effort | time |"
    );
    println!("|---:|---|---:|---:|---|---:|---:|---:|");
    for ops in sizes {
        let module = generate_noise(seed, &NoiseConfig::sized(ops));
        let main = module.main().expect("main");
        for &strategy in &strategies {
            let mut func = module.functions[main].clone();
            let options = Options {
                strategy,
                effort,
                time_limit,
                threads,
                ..Options::default()
            };
            let placed = NoisePlacement::run(&mut func, &mut FunctionAnalyses::new(), &options);
            match placed.map(|mut report| report.0.remove(0)) {
                Ok(p) => println!(
                    "| {ops} | {strategy} | {} | {} | {} | {} | {} | {:.1} ms{} |",
                    p.count,
                    p.lower_bound,
                    if p.optimal { "yes" } else { "no" },
                    p.search_nodes,
                    p.effort,
                    p.time.as_secs_f64() * 1e3,
                    match p.stopped_by {
                        Some(Stop::Effort) => " (effort)",
                        Some(Stop::TimeLimit) => " (time limit)",
                        None => "",
                    }
                ),
                Err(err) => println!("| {ops} | {strategy} | error: {err} |"),
            }
        }
    }
}
