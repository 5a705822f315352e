//! Seeded generation of random, valid forests, for property tests,
//! benchmarks and fuzzing.
//!
//! The random source is the workspace's SplitMix64 stream
//! ([`kildall_testkit::Rng`]), so a seed gives the same forest on every
//! platform.

use crate::decorator::{AdviceInjector, AsmOp, Decorator, SignatureKind};
use crate::felt::{Digest, Felt, MODULUS};
use crate::forest::{MastForest, MastForestBuilder, MastNodeId};
use crate::ops::{Isa, Operation};

pub use kildall_testkit::Rng;

/// A probability given in thousandths, as [`GenConfig`] gives them.
fn per_mille(p: u64) -> f64 {
    p as f64 / 1000.0
}

/// Shape of generated forests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Number of nodes.
    pub nodes: usize,
    /// Mean operations per basic block (counts are uniform in `1..=2*mean`).
    pub mean_block_ops: usize,
    /// Share of blocks among nodes, per mille.
    pub block_per_mille: u64,
    /// Share of `push` among operations, per mille.
    pub push_per_mille: u64,
    /// Decorators per thousand operations.
    pub decorator_per_mille: u64,
    /// Whether to set an entrypoint.
    pub entrypoint: bool,
}

impl GenConfig {
    /// Small forests for property tests and fuzzing.
    pub fn small() -> GenConfig {
        GenConfig {
            nodes: 24,
            mean_block_ops: 12,
            block_per_mille: 450,
            push_per_mille: 120,
            decorator_per_mille: 80,
            entrypoint: false,
        }
    }

    /// The size of Miden's standard library: about 1,000 nodes, 180,000
    /// operations and 430 KB encoded.
    pub fn stdlib_like() -> GenConfig {
        GenConfig {
            nodes: 1000,
            mean_block_ops: 360,
            block_per_mille: 500,
            push_per_mille: 20,
            decorator_per_mille: 2,
            entrypoint: false,
        }
    }
}

const CONTEXTS: [&str; 6] = [
    "std::math::u64::wrapping_add",
    "std::crypto::hashes::blake3::hash_2to1",
    "std::collections::smt::get",
    "#exec::main",
    "std::sys::truncate_stack",
    "kernel::\"quoted\"\tname",
];

fn random_op(rng: &mut Rng, cfg: &GenConfig) -> Operation {
    if rng.chance(per_mille(cfg.push_per_mille)) {
        // Mostly small constants, as in real code, with some extremes.
        let v = match rng.below(10) {
            0..=4 => rng.below(16),
            5..=7 => rng.below(1 << 32),
            8 => MODULUS - 1 - rng.below(4),
            _ => rng.below(MODULUS),
        };
        return Operation::Push(Felt::reduce(v));
    }
    match rng.below(200) {
        0 => Operation::Assert(Felt::reduce(rng.below(3))),
        1 => Operation::MpVerify(Felt::reduce(rng.below(1 << 32))),
        2 => Operation::U32assert2(Felt::reduce(rng.below(300))),
        _ => loop {
            // The 0.10 instruction set: the one generated forests are built in.
            let op = Operation::SIMPLE[rng.below(Operation::SIMPLE.len() as u64) as usize];
            if op.exists_in(Isa::V0_10) {
                break op;
            }
        },
    }
}

fn random_decorator(rng: &mut Rng, b: &mut MastForestBuilder) -> Decorator {
    match rng.below(4) {
        0 => {
            let all = AdviceInjector::examples();
            let a = match all[rng.below(all.len() as u64) as usize] {
                AdviceInjector::MapValueToStack { include_len, .. } => {
                    AdviceInjector::MapValueToStack {
                        include_len,
                        key_offset: rng.below(1 << 20),
                    }
                }
                AdviceInjector::HdwordToMap { .. } => AdviceInjector::HdwordToMap {
                    domain: Felt::reduce(rng.next_u64()),
                },
                AdviceInjector::SigToStack { .. } => AdviceInjector::SigToStack {
                    kind: SignatureKind::RpoFalcon512,
                },
                other => other,
            };
            Decorator::Advice(a)
        }
        1 => {
            let ctx = CONTEXTS[rng.below(CONTEXTS.len() as u64) as usize];
            let op = format!("op.{}", rng.below(40));
            Decorator::AsmOp(AsmOp {
                location: None,
                context_name: b.intern(ctx),
                op: b.intern(&op),
                num_cycles: rng.below(256) as u8,
                should_break: rng.chance(0.1),
            })
        }
        2 => Decorator::StackAll,
        _ => Decorator::StackTop(rng.below(256) as u8),
    }
}

/// A random valid forest; equal seeds and configurations give equal forests.
pub fn generate(seed: u64, cfg: &GenConfig) -> MastForest {
    let mut rng = Rng::new(seed);
    let mut b = MastForestBuilder::new();
    let mut has_parent: Vec<bool> = Vec::with_capacity(cfg.nodes);
    // Children are drawn mostly from recent nodes so that trees form.
    let pick = |rng: &mut Rng, len: usize| -> usize {
        let window = len.min(16) as u64;
        if rng.chance(0.85) {
            len - 1 - rng.below(window) as usize
        } else {
            rng.below(len as u64) as usize
        }
    };
    for i in 0..cfg.nodes {
        let roll = rng.below(1000);
        let id = if i < 2 || roll < cfg.block_per_mille {
            let n = 1 + rng.below(2 * cfg.mean_block_ops.max(1) as u64) as usize;
            let mut ops = Vec::with_capacity(n);
            let mut decorators = Vec::new();
            for k in 0..=n {
                while rng.chance(per_mille(cfg.decorator_per_mille)) {
                    let d = random_decorator(&mut rng, &mut b);
                    decorators.push((k as u32, d));
                }
                if k < n {
                    ops.push(random_op(&mut rng, cfg));
                }
            }
            b.add_block(ops, decorators)
        } else {
            let a = pick(&mut rng, i);
            let c = pick(&mut rng, i);
            let (a, c) = (MastNodeId(a as u32), MastNodeId(c as u32));
            let class = (roll - cfg.block_per_mille) * 100 / (1000 - cfg.block_per_mille).max(1);
            let (uses_a, uses_c) = match class {
                0..=64 => (true, true),
                65..=90 => (true, false),
                _ => (false, false),
            };
            has_parent[a.index()] |= uses_a;
            has_parent[c.index()] |= uses_c;
            match class {
                0..=49 => b.add_join(a, c),
                50..=64 => b.add_split(a, c),
                65..=76 => b.add_loop(a),
                77..=86 => b.add_call(a, false),
                87..=90 => b.add_call(a, true),
                91..=94 => b.add_dyn(),
                _ => {
                    let d = Digest([0; 4].map(|_| Felt::reduce(rng.next_u64())));
                    b.add_external(d)
                }
            }
        }
        .expect("generated nodes only refer to existing nodes");
        debug_assert_eq!(id.index(), i);
        has_parent.push(false);
    }
    let mut last_root = None;
    for (i, &p) in has_parent.iter().enumerate() {
        if !p || rng.chance(0.03) {
            let id = MastNodeId(i as u32);
            b.add_root(id).expect("node exists");
            last_root = Some(id);
        }
    }
    if cfg.entrypoint {
        if let Some(r) = last_root {
            b.set_entrypoint(r).expect("node exists");
        }
    }
    b.build()
}
