//! Places reductions in generated noisy DAGs of several sizes with every
//! strategy and prints a table of counts, bounds and times:
//! `cargo run --release -p kildall-noise --example table [OPS...]`.

use std::time::Duration;

use kildall_ir::generate::{generate_noise, NoiseConfig};
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
    println!("| ops | strategy | count | lower bound | proven optimal | time |");
    println!("|---:|---|---:|---:|---|---:|");
    for ops in sizes {
        let module = generate_noise(1, &NoiseConfig::sized(ops));
        let main = module.main().expect("main");
        for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
            let mut func = module.functions[main].clone();
            let options = Options {
                strategy,
                time_limit: Duration::from_secs(10),
                ..Options::default()
            };
            match optimize(&mut func, &options) {
                Ok(p) => println!(
                    "| {ops} | {strategy} | {} | {} | {} | {:.1} ms{} |",
                    p.count,
                    p.lower_bound,
                    if p.optimal { "yes" } else { "no" },
                    p.time.as_secs_f64() * 1e3,
                    if p.timed_out { " (timed out)" } else { "" }
                ),
                Err(err) => println!("| {ops} | {strategy} | error: {err} |"),
            }
        }
    }
}
