//! Writes the Miden libraries the `kildall-mast` tests read, as the published
//! Miden crates serialize them, and beside each file the root digests that
//! those crates compute.
//!
//! Usage: `cargo run --release --bin generate -- OUT_DIR` (see `tests/data/PROVENANCE.md`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let out: PathBuf = std::env::args().nth(1).expect("usage: kildall-mast-testgen OUT_DIR").into();
    std::fs::create_dir_all(&out).expect("create the output directory");
    core_lib_0_23(&out);
    stdlib_0_10(&out);
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
}

/// The core library of miden-core-lib 0.23.5: the forest (full, stripped,
/// hashless), the library (`.masl`), its roots and its exports.
fn core_lib_0_23(out: &Path) {
    use miden_core::mast::{MastForest, MastNode, MastNodeExt};
    use miden_core::serde::Serializable;
    use miden_assembly::library::LibraryExport;

    let lib = miden_core_lib::CoreLibrary::default();
    let library = lib.library();
    let forest: &MastForest = library.mast_forest();

    write(out, "core-0.23.5.mast", &forest.to_bytes());
    let mut stripped = Vec::new();
    forest.write_stripped(&mut stripped);
    write(out, "core-0.23.5.stripped.mast", &stripped);
    let mut hashless = Vec::new();
    forest.write_hashless(&mut hashless);
    write(out, "core-0.23.5.hashless.mast", &hashless);
    let masl = library.to_bytes();
    assert_eq!(masl, miden_core_lib::CoreLibrary::SERIALIZED, "the shipped core.masl");
    write(out, "core-0.23.5.masl", &masl);

    let word = |w: miden_core::Word| {
        let e: Vec<String> = w.iter().map(|f| f.as_canonical_u64().to_string()).collect();
        format!("[{}]", e.join(", "))
    };
    let kind = |n: &MastNode| match n {
        MastNode::Block(_) => "block",
        MastNode::Join(_) => "join",
        MastNode::Split(_) => "split",
        MastNode::Loop(_) => "loop",
        MastNode::Call(c) if c.is_syscall() => "syscall",
        MastNode::Call(_) => "call",
        MastNode::Dyn(d) if d.is_dyncall() => "dyncall",
        MastNode::Dyn(_) => "dyn",
        MastNode::External(_) => "external",
    };
    let mut roots = String::new();
    for &id in forest.procedure_roots() {
        let node = &forest[id];
        writeln!(roots, "root {} {} {}", u32::from(id), kind(node), word(node.digest())).unwrap();
    }
    write(out, "core-0.23.5.roots", roots.as_bytes());

    let mut exports = String::new();
    for export in library.exports() {
        if let LibraryExport::Procedure(p) = export {
            writeln!(exports, "export {} {}", p.path, word(forest[p.node].digest())).unwrap();
        }
    }
    write(out, "core-0.23.5.exports", exports.as_bytes());
}

/// The standard library of miden-stdlib 0.10.5, serialized by miden-core
/// 0.10.5: the forest, the library (`.masl`), its roots and its exports.
fn stdlib_0_10(out: &Path) {
    use miden_core_010::mast::MastNode;
    use miden_core_010::utils::Serializable;

    let std = miden_stdlib_010::StdLibrary::default();
    let library: &miden_assembly_010::Library = std.as_ref();
    let forest = library.mast_forest();
    write(out, "std-0.10.5.mast", &forest.to_bytes());
    write(out, "std-0.10.5.masl", &library.to_bytes());

    let word = |w: miden_core_010::crypto::hash::RpoDigest| {
        let e: Vec<String> = w.as_elements().iter().map(|f| f.as_int().to_string()).collect();
        format!("[{}]", e.join(", "))
    };
    let kind = |n: &MastNode| match n {
        MastNode::Block(_) => "block",
        MastNode::Join(_) => "join",
        MastNode::Split(_) => "split",
        MastNode::Loop(_) => "loop",
        MastNode::Call(c) if c.is_syscall() => "syscall",
        MastNode::Call(_) => "call",
        MastNode::Dyn => "dyn",
        MastNode::External(_) => "external",
    };
    let mut roots = String::new();
    for &id in forest.procedure_roots() {
        let node = &forest[id];
        writeln!(roots, "root {} {} {}", id.as_u32(), kind(node), word(node.digest())).unwrap();
    }
    write(out, "std-0.10.5.roots", roots.as_bytes());

    let mut exports = String::new();
    for module in library.module_infos() {
        for (_, p) in module.procedures() {
            writeln!(exports, "export {}::{} {}", module.path(), p.name, word(p.digest)).unwrap();
        }
    }
    write(out, "std-0.10.5.exports", exports.as_bytes());
}
