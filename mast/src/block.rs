//! Basic blocks: straight-line operations, their decorators, and the
//! batching that defines their digest.
//!
//! Batching follows miden-core 0.10 (`OpBatchAccumulator`): a batch holds 8
//! groups; a group holds up to 9 opcodes packed 7 bits each (first operation
//! in the low bits) or one immediate value. The immediate of `Push` takes the
//! next free group of the batch; an operation with an immediate is never the
//! last slot of a group, and moves to the next batch, with its immediate,
//! when the batch has no room for both. The block's digest is
//! `hash_elements` over all 8 groups of every batch, unused groups being zero;
//! from miden-core 1.0 on, over the groups of the last batch only up to its
//! group count rounded up to a power of two (`hash_groups`).
//!
//! Operations are stored flat; batches are a function of them, computed on
//! demand by [`BasicBlock::batches`], so decoding a block does no batching
//! work unless digests are verified.

use core::ops::Range;

use crate::decorator::Decorator;
use crate::felt::{Digest, Felt};
use crate::hash::eidos;
use crate::ops::{Isa, Operation};

/// Groups per batch.
pub const BATCH_SIZE: usize = 8;
/// Operations per group.
pub const GROUP_SIZE: usize = 9;

/// A straight-line sequence of operations with decorators.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BasicBlock {
    pub(crate) ops: Vec<Operation>,
    /// `(i, d)`: `d` runs before operation `i` (`i == ops.len()`: at the end),
    /// sorted by `i`, stable for equal `i`.
    pub(crate) decorators: Vec<(u32, Decorator)>,
}

/// One batch of a basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpBatch {
    /// The block operations in this batch.
    pub ops: Range<usize>,
    /// The group values; unused groups are zero.
    pub groups: [Felt; BATCH_SIZE],
    /// Operations per group (zero for immediate groups).
    pub op_counts: [usize; BATCH_SIZE],
    /// Number of groups in use.
    pub num_groups: usize,
}

/// Whether a batch whose current group holds `op_idx` operations and whose
/// next free group is `next_group_idx` takes `op`: an operation with an
/// immediate needs a group for its value (and, at the end of a group, the
/// next group for itself), as miden-core's `OpBatchAccumulator` packs them.
pub(crate) fn batch_can_accept(op_idx: usize, next_group_idx: usize, op: &Operation) -> bool {
    if op.imm_value().is_some() {
        if op_idx < GROUP_SIZE - 1 {
            next_group_idx < BATCH_SIZE
        } else {
            next_group_idx + 1 < BATCH_SIZE
        }
    } else {
        op_idx < GROUP_SIZE || next_group_idx < BATCH_SIZE
    }
}

struct Accumulator {
    isa: Isa,
    start: usize,
    groups: [u64; BATCH_SIZE],
    op_counts: [usize; BATCH_SIZE],
    group: u64,
    op_idx: usize,
    group_idx: usize,
    next_group_idx: usize,
}

impl Accumulator {
    fn new(isa: Isa, start: usize) -> Self {
        Accumulator {
            isa,
            start,
            groups: [0; BATCH_SIZE],
            op_counts: [0; BATCH_SIZE],
            group: 0,
            op_idx: 0,
            group_idx: 0,
            next_group_idx: 1,
        }
    }

    fn can_accept(&self, op: &Operation) -> bool {
        batch_can_accept(self.op_idx, self.next_group_idx, op)
    }

    fn finalize_group(&mut self) {
        self.groups[self.group_idx] = self.group;
        self.op_counts[self.group_idx] = self.op_idx;
        self.group_idx = self.next_group_idx;
        self.next_group_idx = self.group_idx + 1;
        self.op_idx = 0;
        self.group = 0;
    }

    fn add(&mut self, op: &Operation) {
        if self.op_idx == GROUP_SIZE {
            self.finalize_group();
        }
        if let Some(imm) = op.imm_value() {
            if self.op_idx == GROUP_SIZE - 1 {
                self.finalize_group();
            }
            self.groups[self.next_group_idx] = imm.as_u64();
            self.next_group_idx += 1;
        }
        // The builder only admits operations of the forest's version.
        let code = op.opcode_in(self.isa).unwrap_or(0);
        self.group |= (code as u64) << (Operation::OP_BITS * self.op_idx);
        self.op_idx += 1;
    }

    fn finish(mut self, end: usize) -> OpBatch {
        if self.group != 0 || self.op_idx != 0 {
            self.groups[self.group_idx] = self.group;
            self.op_counts[self.group_idx] = self.op_idx;
        }
        // 9 opcodes of 7 bits fill 63 bits, so every group value is below 2^63 < p.
        OpBatch {
            ops: self.start..end,
            groups: self.groups.map(Felt::reduce),
            op_counts: self.op_counts,
            num_groups: self.next_group_idx,
        }
    }
}

impl BasicBlock {
    /// A block, or `None` if `ops` is empty or a decorator index is out of
    /// order or past the end. Prefer [`crate::MastForestBuilder::add_block`].
    pub fn new(ops: Vec<Operation>, decorators: Vec<(u32, Decorator)>) -> Option<BasicBlock> {
        if ops.is_empty() {
            return None;
        }
        let mut prev = 0;
        for &(i, _) in &decorators {
            if i < prev || i as usize > ops.len() {
                return None;
            }
            prev = i;
        }
        Some(BasicBlock { ops, decorators })
    }

    /// The operations.
    pub fn ops(&self) -> &[Operation] {
        &self.ops
    }

    /// The decorators with the index of the operation they precede.
    pub fn decorators(&self) -> &[(u32, Decorator)] {
        &self.decorators
    }

    /// The batches, as Miden 0.10 forms them.
    pub fn batches(&self) -> Vec<OpBatch> {
        self.batches_in(Isa::V0_10)
    }

    /// The batches, as Miden forms them with the opcodes of `isa`. (Later
    /// versions also pad groups with `noop`s, which are opcode zero: the group
    /// values are the same.)
    pub fn batches_in(&self, isa: Isa) -> Vec<OpBatch> {
        let mut batches = Vec::new();
        let mut acc = Accumulator::new(isa, 0);
        for (i, op) in self.ops.iter().enumerate() {
            if !acc.can_accept(op) {
                batches.push(std::mem::replace(&mut acc, Accumulator::new(isa, i)).finish(i));
            }
            acc.add(op);
        }
        if acc.start < self.ops.len() {
            batches.push(acc.finish(self.ops.len()));
        }
        batches
    }

    /// The block's digest as Miden 0.10 computes it.
    pub fn digest(&self) -> Digest {
        self.digest_in(Isa::V0_10)
    }

    /// The block's digest as version `isa` computes it.
    pub fn digest_in(&self, isa: Isa) -> Digest {
        let batches = self.batches_in(isa);
        let groups: Vec<[Felt; BATCH_SIZE]> = batches.iter().map(|b| b.groups).collect();
        let last_groups = batches.last().map_or(0, |b| b.num_groups);
        hash_groups(isa, &groups, last_groups)
    }
}

/// The digest of a block whose batches have the group values `groups`, the
/// last batch using `last_groups` of its groups, as version `isa` hashes
/// it: up to 0.24, `hash_elements` over all eight groups of every batch;
/// from 1.0 on (`hash_op_batches`), over the last batch's groups only up to
/// `last_groups` rounded up to a power of two, the group count miden-core
/// pads a batch to. The groups past it are zero, so Eidos hashes the same
/// blocks either way and only the length in its frame tells them apart.
pub(crate) fn hash_groups(isa: Isa, groups: &[[Felt; BATCH_SIZE]], last_groups: usize) -> Digest {
    match isa {
        Isa::V1_0 => {
            let full = groups.len().saturating_sub(1) * BATCH_SIZE;
            let len = full + last_groups.next_power_of_two();
            let len = u32::try_from(len).expect("a block of under 2^29 batches");
            eidos::hash_blocks(groups.iter().copied(), len)
        }
        Isa::V0_10 | Isa::V0_23 => isa.hasher().hash_batches(groups.iter().copied()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_pushes_make_two_batches() {
        // The example in miden-core's documentation of `BasicBlockNode`.
        let ops = vec![Operation::Push(Felt::ONE); 8];
        let b = BasicBlock::new(ops, vec![]).unwrap();
        let batches = b.batches();
        assert_eq!(batches.len(), 2);
        assert_eq!(batches[0].ops, 0..7);
        assert_eq!(batches[0].num_groups, 8);
        assert_eq!(batches[0].op_counts[0], 7);
        assert_eq!(batches[1].ops, 7..8);
        assert_eq!(batches[1].num_groups, 2);
        assert_eq!(batches[1].groups[1], Felt::ONE);
    }

    #[test]
    fn full_groups_pack_nine_opcodes() {
        let b = BasicBlock::new(vec![Operation::Add; 73], vec![]).unwrap();
        let batches = b.batches();
        assert_eq!(batches.len(), 2);
        assert_eq!(batches[0].op_counts, [9; 8]);
        let add = Operation::Add.opcode_in(Isa::V0_10).unwrap() as u64;
        let packed: u64 = (0..9).map(|i| add << (7 * i)).sum();
        assert_eq!(batches[0].groups[0].as_u64(), packed);
        assert_eq!(batches[1].ops, 72..73);
    }

    #[test]
    fn decorators_are_checked() {
        let d = Decorator::StackAll;
        assert!(BasicBlock::new(vec![], vec![]).is_none());
        assert!(BasicBlock::new(vec![Operation::Add], vec![(1, d)]).is_some());
        assert!(BasicBlock::new(vec![Operation::Add], vec![(2, d)]).is_none());
        assert!(BasicBlock::new(vec![Operation::Add; 2], vec![(1, d), (0, d)]).is_none());
    }
}
