//! Places reductions in generated noisy DAGs of several sizes with every
//! strategy and prints a table of counts, bounds, exact-search nodes and
//! times: `cargo run --release -p kildall-noise --example table [OPS...]`
//! (generator seed 1; `SEED=n` picks another, `STRATEGIES=exact,greedy`
//! a subset of the strategies, `LIMIT=s` the time limit, 10 s by default).

use std::time::Duration;

use kildall_harness::generate::{generate_noise, NoiseConfig};
use kildall_noise::{optimize, Options, Strategy};

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
    let limit: u64 = std::env::var("LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    println!("| ops | strategy | count | lower bound | proven optimal | search nodes | time |");
    println!("|---:|---|---:|---:|---|---:|---:|");
    for ops in sizes {
        let module = generate_noise(seed, &NoiseConfig::sized(ops));
        let main = module.main().expect("main");
        for &strategy in &strategies {
            let mut func = module.functions[main].clone();
            let options = Options {
                strategy,
                time_limit: Duration::from_secs(limit),
                ..Options::default()
            };
            match optimize(&mut func, &options) {
                Ok(p) => println!(
                    "| {ops} | {strategy} | {} | {} | {} | {} | {:.1} ms{} |",
                    p.count,
                    p.lower_bound,
                    if p.optimal { "yes" } else { "no" },
                    p.search_nodes,
                    p.time.as_secs_f64() * 1e3,
                    if p.timed_out { " (timed out)" } else { "" }
                ),
                Err(err) => println!("| {ops} | {strategy} | error: {err} |"),
            }
        }
    }
}
