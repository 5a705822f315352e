//! What the data-driven tests share.

use std::path::Path;

use kildall_casm::jvr;

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

/// The source of `tests/data/<dir>/<name>` and its parsed module.
pub fn load(dir: &str, name: &str) -> (String, jvr::Module) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir)
        .join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let module = jvr::parse(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
    (src, module)
}
