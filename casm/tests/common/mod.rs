//! What the data-driven tests share.

use std::path::Path;

/// The names of the `.jvr` files in `tests/data/<dir>`, sorted.
pub fn jvr_files(dir: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jvr"))
        .collect();
    names.sort();
    names
}
