//! Prints the benchmark table of the workspace's `examples/blockmerge/*.ssa`
//! programs (each names its arguments in an `// args:` line):
//! `cargo run -p kildall-blockmerge --example suite [MIN_BLOCK_SIZE]`.

use kildall_blockmerge::trace::trace;
use kildall_blockmerge::{BlockMerge, Options, R1cs};
use kildall_interpreter::{InterpreterOptions, RuntimeValue};
use kildall_ir::pass::run_module;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let min_block_size = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => kildall_blockmerge::MIN_BLOCK_SIZE,
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/blockmerge");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ssa"))
        .collect();
    paths.sort();
    println!("| program | blocks | largest block | executed transitions | padded cost |");
    println!("|---|---|---|---|---|");
    for path in paths {
        let text = std::fs::read_to_string(&path)?;
        let args = text
            .lines()
            .find_map(|l| l.strip_prefix("// args:"))
            .unwrap_or("")
            .trim();
        let args = RuntimeValue::parse_list(args).map_err(|e| e.to_string())?;
        let before = kildall_ir::parse_module(&text).map_err(|e| e.to_string())?;
        let mut after = before.clone();
        let options = Options {
            min_block_size,
            ..Options::default()
        };
        let reports = run_module::<BlockMerge>(&mut after, &options).unwrap().0;
        kildall_ir::verify_module(&after)?;
        let main = before.main().ok_or("no function")?;
        let interp = InterpreterOptions::default();
        let a = trace(&before, main, args.clone(), &interp, &R1cs);
        let b = trace(&after, main, args, &interp, &R1cs);
        if a.execution.outcome != b.execution.outcome {
            return Err(format!("{}: outcome changed", path.display()).into());
        }
        let blocks = |f: &kildall_ir::Module| -> usize {
            f.functions.values().map(|f| f.layout.num_blocks()).sum()
        };
        let largest_before = reports.iter().map(|r| r.largest_before).max().unwrap_or(0);
        let largest_after = reports.iter().map(|r| r.largest_after).max().unwrap_or(0);
        println!(
            "| {} | {} -> {} | {} -> {} | {} -> {} | {} -> {} |",
            path.file_stem().unwrap_or_default().to_string_lossy(),
            blocks(&before),
            blocks(&after),
            largest_before,
            largest_after,
            a.transitions,
            b.transitions,
            a.padded_cost,
            b.padded_cost
        );
    }
    Ok(())
}
