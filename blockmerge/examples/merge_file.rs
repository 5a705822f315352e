//! Merges the blocks of an IR file and prints the result and the report:
//! `cargo run -p kildall-blockmerge --example merge_file -- FILE [MIN_BLOCK_SIZE]`.

use kildall_blockmerge::{BlockMerge, Options};
use kildall_ir::pass::run_module;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: merge_file FILE [MIN_BLOCK_SIZE]")?;
    let min_block_size = match args.next() {
        Some(n) => n.parse()?,
        None => kildall_blockmerge::MIN_BLOCK_SIZE,
    };
    let text = std::fs::read_to_string(&path)?;
    let mut module = kildall_ir::parse_module(&text).map_err(|e| format!("{path}:{e}"))?;
    kildall_ir::verify_module(&module)?;
    let options = Options {
        min_block_size,
        ..Options::default()
    };
    for report in run_module::<BlockMerge>(&mut module, &options).unwrap().0 {
        eprint!("{report}");
    }
    kildall_ir::verify_module(&module)?;
    print!("{module}");
    Ok(())
}
