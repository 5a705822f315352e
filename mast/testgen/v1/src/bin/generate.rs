//! Writes the forest of the core library of miden-core-lib 1.0.0-rc.0 and a
//! forest of every node kind and every operation as miden-core 1.0.0-rc.0
//! serializes them (wire version `[0,0,5]`), full and hashless, and beside
//! each the root digests miden-core computes (Eidos).
//!
//! Usage: `cargo run --ignore-rust-version --bin generate -- OUT_DIR` (see
//! `tests/data/PROVENANCE.md`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use miden_core::advice::AdviceMap;
use miden_core::mast::{
    BasicBlockNodeBuilder, CallNodeBuilder, DenseMastForestBuilder, DynNodeBuilder,
    ExternalNodeBuilder, JoinNodeBuilder, LoopNodeBuilder, MastForest, MastNode, MastNodeExt,
    SplitNodeBuilder,
};
use miden_core::operations::Operation;
use miden_core::serde::{Deserializable, Serializable};
use miden_core::{Felt, Word};

fn main() {
    let out: PathBuf = std::env::args().nth(1).expect("usage: generate OUT_DIR").into();
    std::fs::create_dir_all(&out).expect("create the output directory");
    write_forest(&out, "nodes-1.0.0-rc.0", &forest());
    let core = miden_core_lib::CoreLibrary::default();
    write_forest(&out, "core-1.0.0-rc.0", core.mast_forest());
}

/// `NAME.mast`, `NAME.hashless.mast` and `NAME.roots`.
fn write_forest(out: &Path, name: &str, forest: &MastForest) {
    write(out, &format!("{name}.mast"), &forest.to_bytes());
    let mut hashless = Vec::new();
    forest.write_hashless(&mut hashless);
    write(out, &format!("{name}.hashless.mast"), &hashless);
    write(out, &format!("{name}.roots"), roots(forest).as_bytes());
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
}

fn felt(v: u64) -> Felt {
    Felt::new_unchecked(v)
}

fn word(e: [u64; 4]) -> Word {
    Word::new(e.map(felt))
}

/// Every operation without an immediate (each opcode miden-core reads as
/// one), then the four with one: a full-width `push` and error codes above
/// `u32::MAX`.
fn every_operation() -> Vec<Operation> {
    let mut ops: Vec<Operation> =
        (0u8..128).filter_map(|code| Operation::read_from_bytes(&[code]).ok()).collect();
    ops.extend([
        Operation::Push(felt(0xffff_ffff_0000_0000)),
        Operation::Assert(felt(1 << 40)),
        Operation::MpVerify(felt(7)),
        Operation::U32assert2(felt(u32::MAX as u64 + 1)),
    ]);
    ops
}

/// Blocks whose last batch uses 1, 2, 3, 5 and 8 groups (their digests hash
/// 1, 2, 4, 8 and 8 of them), a block of every operation, and control nodes
/// of every kind added out of canonical order: externals with decreasing
/// digests after blocks, blocks after control nodes.
fn forest() -> MastForest {
    let mut b = DenseMastForestBuilder::new();
    let block = |b: &mut DenseMastForestBuilder, ops: Vec<Operation>| {
        b.push_node(BasicBlockNodeBuilder::new(ops)).expect("a block")
    };
    let add = block(&mut b, vec![Operation::Add]);
    let push = block(&mut b, vec![Operation::Push(felt(7))]);
    let pushes = block(&mut b, vec![Operation::Push(felt(1)), Operation::Push(felt(2))]);
    let join = b.push_node(JoinNodeBuilder::new([add, push])).expect("a join");
    let adds = block(&mut b, vec![Operation::Add; 9 * 4 + 1]);
    let full = block(&mut b, vec![Operation::Mul; 9 * 8]);
    let all = block(&mut b, every_operation());
    let ext_high = b.push_node(ExternalNodeBuilder::new(word([1, 2, 3, 9]))).expect("external");
    let ext_low = b.push_node(ExternalNodeBuilder::new(word([9, 8, 7, 1]))).expect("external");
    let split = b.push_node(SplitNodeBuilder::new([pushes, adds])).expect("a split");
    let body = b.push_node(JoinNodeBuilder::new([full, all])).expect("a join");
    let lp = b.push_node(LoopNodeBuilder::new(body)).expect("a loop");
    let call = b.push_node(CallNodeBuilder::new(ext_high)).expect("a call");
    let syscall = b.push_node(CallNodeBuilder::new_syscall(ext_low)).expect("a syscall");
    let dyn_ = b.push_node(DynNodeBuilder::new_dyn()).expect("a dyn");
    let dyncall = b.push_node(DynNodeBuilder::new_dyncall()).expect("a dyncall");
    let calls = b.push_node(JoinNodeBuilder::new([call, syscall])).expect("a join");
    let dyns = b.push_node(SplitNodeBuilder::new([dyn_, dyncall])).expect("a split");
    let top = b.push_node(JoinNodeBuilder::new([calls, dyns])).expect("a join");
    let late = block(&mut b, vec![Operation::Swap, Operation::Drop]);
    for root in [top, lp, join, split, late, ext_low] {
        b.mark_root(root);
    }
    let mut advice = AdviceMap::default();
    advice.insert(word([5, 6, 7, 8]), vec![felt(1), felt(2), felt(3)]);
    advice.insert(word([1, 1, 1, 1]), Vec::<Felt>::new());
    b.build().expect("a valid forest").with_advice_map(advice)
}

/// One line per root, in root order: `root ID KIND [e0, e1, e2, e3]`.
fn roots(forest: &MastForest) -> String {
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
    let mut out = String::new();
    for &r in forest.procedure_roots() {
        let node = &forest[r];
        let e: Vec<String> = node.digest().iter().map(|f| f.as_canonical_u64().to_string()).collect();
        writeln!(out, "root {} {} [{}]", u32::from(r), kind(node), e.join(", ")).unwrap();
    }
    out
}

