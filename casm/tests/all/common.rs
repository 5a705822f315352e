//! What the data-driven tests share.

use std::path::{Path, PathBuf};

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

/// The workspace's example programs (`examples/casm`), or `None` when the
/// crate is built from its published package, which has no workspace
/// around it. Inside the workspace (a `Cargo.toml` one level up) the
/// directory must be there.
pub fn workspace_examples() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if !root.join("Cargo.toml").is_file() {
        return None;
    }
    let dir = root.join("examples/casm");
    assert!(dir.is_dir(), "{} is missing", dir.display());
    Some(dir)
}
