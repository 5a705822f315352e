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
    core_lib_0_24(&out);
    stdlib_0_10(&out);
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
}

/// The core library of miden-core-lib 0.23.5: the forest (full, stripped,
/// hashless, and full with its debug info cleared), the library (`.masl`),
/// its roots and its exports.
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
    let mut cleared = forest.clone();
    cleared.clear_debug_info();
    write(out, "core-0.23.5.cleared.mast", &cleared.to_bytes());
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

/// The forest of the core library of miden-core-lib 0.23.5, rebuilt node by
/// node with miden-core 0.24.2 (same operations, children and roots; the
/// digests computed by 0.24.2) and serialized by it: full and hashless, and
/// its roots.
fn core_lib_0_24(out: &Path) {
    use miden_core::mast::{MastNode, MastNodeExt};
    use miden_core::serde::Serializable;
    use miden_core_024::mast::{
        BasicBlockNodeBuilder, CallNodeBuilder, DynNodeBuilder, ExternalNodeBuilder,
        JoinNodeBuilder, LoopNodeBuilder, MastForest as Forest24, MastForestContributor,
        MastNode as Node24, MastNodeExt as _, MastNodeId as Id24, SplitNodeBuilder,
    };
    use miden_core_024::serde::{Deserializable, Serializable as _};
    use miden_core_024::{advice::AdviceMap, utils::IndexVec, Felt as Felt24, Word as Word24};

    let lib = miden_core_lib::CoreLibrary::default();
    let old = lib.library().mast_forest();
    let word = |w: miden_core::Word| {
        let e = w.as_elements();
        Word24::new(std::array::from_fn(|i| Felt24::new_unchecked(e[i].as_canonical_u64())))
    };
    let id = |i: miden_core::mast::MastNodeId| Id24::new_unchecked(u32::from(i));
    let mut scratch = Forest24::new();
    for (i, node) in old.nodes().iter().enumerate() {
        let new = match node {
            MastNode::Block(b) => {
                let ops = b
                    .raw_operations()
                    .map(|op| {
                        miden_core_024::operations::Operation::read_from_bytes(&op.to_bytes())
                            .expect("the same opcode in 0.24")
                    })
                    .collect();
                BasicBlockNodeBuilder::new(ops).add_to_forest(&mut scratch)
            }
            MastNode::Join(j) => {
                JoinNodeBuilder::new([id(j.first()), id(j.second())]).add_to_forest(&mut scratch)
            }
            MastNode::Split(s) => SplitNodeBuilder::new([id(s.on_true()), id(s.on_false())])
                .add_to_forest(&mut scratch),
            MastNode::Loop(l) => LoopNodeBuilder::new(id(l.body())).add_to_forest(&mut scratch),
            MastNode::Call(c) if c.is_syscall() => {
                CallNodeBuilder::new_syscall(id(c.callee())).add_to_forest(&mut scratch)
            }
            MastNode::Call(c) => CallNodeBuilder::new(id(c.callee())).add_to_forest(&mut scratch),
            MastNode::Dyn(d) if d.is_dyncall() => {
                DynNodeBuilder::new_dyncall().add_to_forest(&mut scratch)
            }
            MastNode::Dyn(_) => DynNodeBuilder::new_dyn().add_to_forest(&mut scratch),
            MastNode::External(e) => {
                ExternalNodeBuilder::new(word(e.digest())).add_to_forest(&mut scratch)
            }
        };
        assert_eq!(u32::from(new.expect("a valid node")) as usize, i, "node order kept");
    }
    let mut nodes = IndexVec::new();
    for node in scratch.nodes() {
        nodes.push(node.clone()).expect("node count");
    }
    let roots = old.procedure_roots().iter().map(|&r| id(r)).collect();
    let mut advice = AdviceMap::default();
    for (key, values) in old.advice_map().iter() {
        let values: Vec<Felt24> =
            values.iter().map(|f| Felt24::new_unchecked(f.as_canonical_u64())).collect();
        advice.insert(word(*key), values);
    }
    let forest = Forest24::from_raw_parts(nodes, roots, advice).expect("a valid 0.24 forest");

    write(out, "core-0.24.2.mast", &forest.to_bytes());
    let mut hashless = Vec::new();
    forest.write_hashless(&mut hashless);
    write(out, "core-0.24.2.hashless.mast", &hashless);

    let hex = |w: Word24| {
        let e: Vec<String> = w.iter().map(|f| f.as_canonical_u64().to_string()).collect();
        format!("[{}]", e.join(", "))
    };
    let kind = |n: &Node24| match n {
        Node24::Block(_) => "block",
        Node24::Join(_) => "join",
        Node24::Split(_) => "split",
        Node24::Loop(_) => "loop",
        Node24::Call(c) if c.is_syscall() => "syscall",
        Node24::Call(_) => "call",
        Node24::Dyn(d) if d.is_dyncall() => "dyncall",
        Node24::Dyn(_) => "dyn",
        Node24::External(_) => "external",
    };
    let mut roots = String::new();
    for &r in forest.procedure_roots() {
        let node = &forest[r];
        writeln!(roots, "root {} {} {}", u32::from(r), kind(node), hex(node.digest())).unwrap();
    }
    write(out, "core-0.24.2.roots", roots.as_bytes());
}
