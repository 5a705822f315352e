//! Differential tests against the reference implementation, miden-core 0.10:
//! golden digests, the opcode table and names, and the digest of every node
//! of generated forests.

use kildall_mast::{
    generate, parse, Digest, Felt, GenConfig, Isa, MastForest, MastNode, Operation,
};
use miden_core::crypto::hash::RpoDigest;
use miden_core::utils::Deserializable;

fn to_miden_op(op: &Operation) -> miden_core::Operation {
    // Build the reference operation from its own serialization: opcode byte,
    // then a u32 error code or a u64 push value.
    let mut bytes = vec![op.opcode_in(Isa::V0_10).expect("a 0.10 operation")];
    match *op {
        Operation::Push(v) => bytes.extend(v.as_u64().to_le_bytes()),
        Operation::Assert(c) | Operation::MpVerify(c) | Operation::U32assert2(c) => {
            bytes.extend((c.as_u64() as u32).to_le_bytes())
        }
        _ => {}
    }
    miden_core::Operation::read_from_bytes(&bytes).expect("miden-core knows the opcode")
}

fn from_rpo(d: RpoDigest) -> Digest {
    let e = d.as_elements();
    Digest::from_u64s([e[0].as_int(), e[1].as_int(), e[2].as_int(), e[3].as_int()]).unwrap()
}

fn to_rpo(d: &Digest) -> RpoDigest {
    RpoDigest::new(d.as_u64s().map(miden_core::Felt::new))
}

/// Rebuilds `forest` with miden-core and returns its digests.
fn miden_digests(forest: &MastForest) -> Vec<Digest> {
    let mut m = miden_core::mast::MastForest::new();
    let mut ids = Vec::new();
    for node in forest.nodes() {
        let id = |i: kildall_mast::MastNodeId| ids[i.index()];
        let new = match node {
            MastNode::Block(b) => m.add_block(b.ops().iter().map(to_miden_op).collect(), None),
            MastNode::Join { left, right } => m.add_join(id(*left), id(*right)),
            MastNode::Split { on_true, on_false } => m.add_split(id(*on_true), id(*on_false)),
            MastNode::Loop { body } => m.add_loop(id(*body)),
            MastNode::Call {
                callee,
                is_syscall: false,
            } => m.add_call(id(*callee)),
            MastNode::Call {
                callee,
                is_syscall: true,
            } => m.add_syscall(id(*callee)),
            MastNode::Dyn => m.add_dyn(),
            MastNode::DynCall => unreachable!("0.10 forests have no dyncall"),
            MastNode::External(d) => m.add_external(to_rpo(d)),
        }
        .unwrap();
        ids.push(new);
    }
    ids.iter().map(|&i| from_rpo(m[i].digest())).collect()
}

fn our_digests(forest: &MastForest) -> Vec<Digest> {
    (0..forest.len())
        .map(|i| forest.digest(forest.node_id(i).unwrap()))
        .collect()
}

#[test]
fn golden_block_add() {
    let forest = parse("block add\nblock push(1) add\njoin 0 1\n").unwrap();
    let add = forest.digest(forest.node_id(0).unwrap());
    assert_eq!(
        add.as_u64s(),
        [
            7259075614730273379,
            2498922176515930900,
            11574583201486131710,
            6285975441353882141
        ]
    );
    // The join follows from the same rules, and matches the reference.
    let theirs = miden_digests(&forest);
    assert_eq!(our_digests(&forest), theirs);
    let join = forest.digest(forest.node_id(2).unwrap());
    let b = forest.digest(forest.node_id(1).unwrap());
    assert_eq!(join, kildall_mast::hash::merge_in_domain(&add, &b, 87));
}

#[test]
fn opcodes_and_names_match_miden() {
    let code = |c: u64| Felt::new(c).unwrap();
    let ops = Operation::all().filter(|op| op.exists_in(Isa::V0_10));
    for op in ops.chain([
        Operation::Push(Felt::new(18446744069414584320).unwrap()),
        Operation::Assert(code(u32::MAX as u64)),
        Operation::MpVerify(code(9)),
        Operation::U32assert2(code(77)),
    ]) {
        let theirs = to_miden_op(&op);
        assert_eq!(Some(theirs.op_code()), op.opcode_in(Isa::V0_10), "{op}");
        // miden-core prints call/syscall/dyn with a trailing newline.
        assert_eq!(theirs.to_string().trim_end(), op.to_string());
    }
}

#[test]
fn dyn_and_control_digests_match_miden() {
    let forest = parse(
        "block add\nblock push(7) push(8)\nsplit 0 1\nloop 2\ncall 3\nsyscall 0\ndyn\n\
         external [1, 2, 3, 4]\njoin 6 7\n",
    )
    .unwrap();
    assert_eq!(our_digests(&forest), miden_digests(&forest));
}

#[test]
fn generated_forests_match_miden() {
    for seed in 0..40 {
        let cfg = GenConfig {
            nodes: 30,
            mean_block_ops: 60,
            ..GenConfig::small()
        };
        let forest = generate(seed, &cfg);
        assert_eq!(our_digests(&forest), miden_digests(&forest), "seed {seed}");
    }
}
