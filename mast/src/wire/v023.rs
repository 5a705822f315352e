//! The wire formats of miden-core 0.23 (`MAST`, a flags byte, version
//! `[0, 0, 3]`), 0.24 (version `[0, 0, 4]`) and 1.0 (version `[0, 0, 5]`).
//!
//! ```text
//! magic        4 bytes  b"MAST"
//! flags        1 byte   bit 0 stripped (no debug info), bit 1 hashless (no
//!                       internal digests; implies stripped); others zero
//! version      3 bytes  [0, 0, 3]
//! internal     usize    number of non-external nodes
//! external     usize    number of external nodes
//! roots        Vec<u32> node indices, in the forest's root order
//! blocks       Vec<u8>  the basic-block data, back to back in node order
//! entries      n = internal + external u64 entries: tag << 60 | payload;
//!                       tags 0 Join, 1 Split, 2 Loop, 3 Block, 4 Call,
//!                       5 SysCall, 6 Dyn, 7 DynCall, 8 External; a block's
//!                       payload is its offset in `blocks`
//! externals    external × 32-byte digests, in node order
//! digests      internal × 32-byte digests, in node order (not if hashless)
//! advice map   usize count, then (word key, Vec<Felt> values) pairs
//! debug info   (not if stripped) see below
//! ```
//!
//! A block's data is its operations in padded form (`Vec<Operation>`: an
//! opcode byte and, for `push`/`assert`/`mpverify`/`u32assert2`, the value or
//! error code as a `u64`), the number of batches as a `u32`, then per batch
//! four bytes of group sizes (eight 4-bit deltas of the batch's index
//! pointer), then per batch one byte of padding flags. Padding `noop`s close a
//! group that would otherwise end with an immediate-carrying operation or be
//! empty, and a batch's group count is rounded up to a power of two; the
//! decoder recomputes this layout from the unpadded operations and requires
//! the file's to be it, so that every block has one encoding.
//!
//! The debug-info section and the decorators it carries are described in
//! `debug_info`. A forest without debug info has a section of empty tables
//! (but the node→operation index, one zero per node and one more): it reads
//! as no debug info, and a forest without any is written full with that
//! section.
//!
//! Version `[0, 0, 4]` (miden-core 0.24) has the same sections up to the
//! advice map and ends there: debug info left the forest (a package carries
//! it), so bit 0 of the flags is reserved and must be zero, bit 1 (hashless)
//! stands alone, and a forest read on its own refuses trailing bytes. The
//! operations and digests are those of 0.23. A 0.24 file reads with
//! `stripped` set (it carries no debug info); a forest with debug info is
//! written in 0.24 only when the caller asks for it stripped.
//!
//! Version `[0, 0, 5]` (miden-core 1.0) has the layout of `[0, 0, 4]`, byte
//! for byte, with three differences: opcode `0x50` is `compress` (it was
//! `hperm`), digests are Eidos hashes (a block's hashing only the groups in
//! use of its last batch, see [`crate::block::hash_groups`]), and the nodes
//! are in canonical order, which the decoder requires (see `canonical`).

use std::borrow::Cow;

use crate::block::{batch_can_accept, BasicBlock, BATCH_SIZE, GROUP_SIZE};
use crate::felt::{Digest, Felt};
use crate::forest::{MastForest, MastForestBuilder, MastNode};
use crate::format::{err, DecodeErrorKind, DecodeOptions, EncodeError, Result};
use crate::ops::{Isa, Operation};

use super::canonical::OrderCheck;
use super::cursor::{put_u32, put_u64, put_usize, put_word, Cursor};
use super::v010::{add_roots, control_entry, NodeEntry};
use super::{
    check_encodable, debug_info, debug_info_write, settle_digests, BlockGroups, Flags, Pending,
};

/// The magic bytes.
pub const MAGIC: [u8; 4] = *b"MAST";
/// The version of the 0.23 line.
pub const VERSION: [u8; 3] = [0, 0, 3];
/// The version of the 0.24 line.
pub const VERSION_0_24: [u8; 3] = [0, 0, 4];
/// The version of the 1.0 line.
pub const VERSION_1_0: [u8; 3] = [0, 0, 5];
const FLAG_STRIPPED: u8 = 1;
const FLAG_HASHLESS: u8 = 2;

/// The versions of this layout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// `[0, 0, 3]`: a stripped flag and, unless stripped, debug info.
    V3,
    /// `[0, 0, 4]`: no debug info, trailing bytes refused.
    V4,
    /// `[0, 0, 5]`: `[0, 0, 4]` in canonical node order, with the
    /// instruction set and digests of 1.0.
    V5,
}

impl Version {
    fn format(self) -> super::Format {
        match self {
            Version::V3 => super::Format::V0_23,
            Version::V4 => super::Format::V0_24,
            Version::V5 => super::Format::V1_0,
        }
    }

    fn isa(self) -> Isa {
        self.format().isa()
    }

    /// Whether debug info left the forest (0.24 on).
    fn without_debug_info(self) -> bool {
        self != Version::V3
    }
}

/// The flags of the header byte at offset 4 in `version`.
pub(crate) fn read_flags(byte: u8, version: Version) -> Result<Flags> {
    if version.without_debug_info() {
        if byte & !FLAG_HASHLESS != 0 {
            return err(4, DecodeErrorKind::UnknownFlags(byte));
        }
        return Ok(Flags {
            stripped: true,
            hashless: byte & FLAG_HASHLESS != 0,
        });
    }
    if byte & !(FLAG_STRIPPED | FLAG_HASHLESS) != 0 {
        return err(4, DecodeErrorKind::UnknownFlags(byte));
    }
    if byte & FLAG_HASHLESS != 0 && byte & FLAG_STRIPPED == 0 {
        return err(4, DecodeErrorKind::Invalid("hashless without stripped"));
    }
    Ok(Flags {
        stripped: byte & FLAG_STRIPPED != 0,
        hashless: byte & FLAG_HASHLESS != 0,
    })
}

/// A batch of a block in the padded form of miden-core 0.23.
#[derive(Debug, PartialEq, Eq)]
struct PaddedBatch {
    /// Group sizes in operations (padding `noop`s included).
    group_sizes: [u8; BATCH_SIZE],
    padding: [bool; BATCH_SIZE],
}

/// miden-core 0.23's batching of a block, with its padding `noop`s. See the
/// module docs.
struct PaddedLayout {
    batches: Vec<PaddedBatch>,
    /// The operation count, padding included.
    len: usize,
    /// The groups in use of the last batch, before rounding up.
    last_groups: usize,
}

fn pad_batches(ops: &[Operation]) -> PaddedLayout {
    let mut batches = Vec::new();
    let mut acc = Accumulator::new();
    let mut padded_len = 0;
    for op in ops {
        if !acc.can_accept(op) {
            let (batch, len) = std::mem::replace(&mut acc, Accumulator::new()).finish();
            padded_len += len;
            batches.push(batch);
        }
        acc.add(op);
    }
    let last_groups = acc.next_group_idx;
    let (batch, len) = acc.finish();
    batches.push(batch);
    PaddedLayout {
        batches,
        len: padded_len + len,
        last_groups,
    }
}

/// Counts of one batch under construction, following miden-core's
/// `OpBatchAccumulator` (opcode values are not needed for the layout).
struct Accumulator {
    /// Operations so far, padding included.
    ops: usize,
    /// Operations per group (immediate groups hold none).
    sizes: [u8; BATCH_SIZE],
    padding: [bool; BATCH_SIZE],
    op_idx: usize,
    group_idx: usize,
    next_group_idx: usize,
    last_has_imm: bool,
}

impl Accumulator {
    fn new() -> Self {
        Accumulator {
            ops: 0,
            sizes: [0; BATCH_SIZE],
            padding: [false; BATCH_SIZE],
            op_idx: 0,
            group_idx: 0,
            next_group_idx: 1,
            last_has_imm: false,
        }
    }

    fn can_accept(&self, op: &Operation) -> bool {
        batch_can_accept(self.op_idx, self.next_group_idx, op)
    }

    fn add(&mut self, op: &Operation) {
        if self.op_idx == GROUP_SIZE {
            self.finalize_group();
        }
        let has_imm = op.imm_value().is_some();
        if has_imm {
            if self.op_idx == GROUP_SIZE - 1 {
                self.finalize_group();
            }
            self.next_group_idx += 1;
        }
        self.push(has_imm);
    }

    fn push(&mut self, has_imm: bool) {
        self.ops += 1;
        self.op_idx += 1;
        self.last_has_imm = has_imm;
    }

    /// A group may neither be empty nor end with an immediate-carrying
    /// operation: such a group is closed with a padding `noop`.
    fn pad_if_needed(&mut self) {
        if self.op_idx == 0 || self.last_has_imm {
            self.push(false);
            self.padding[self.group_idx] = true;
        }
    }

    fn finalize_group(&mut self) {
        self.pad_if_needed();
        self.sizes[self.group_idx] = self.op_idx as u8;
        self.group_idx = self.next_group_idx;
        self.next_group_idx = self.group_idx + 1;
        self.op_idx = 0;
        self.last_has_imm = false;
    }

    /// The batch, its group count rounded up to a power of two with groups
    /// of one padding `noop`, and its padded operation count.
    fn finish(mut self) -> (PaddedBatch, usize) {
        let num_groups = self.next_group_idx;
        for _ in num_groups..num_groups.next_power_of_two() {
            self.finalize_group();
        }
        self.pad_if_needed();
        self.sizes[self.group_idx] = self.op_idx as u8;
        let batch = PaddedBatch {
            group_sizes: self.sizes,
            padding: self.padding,
        };
        (batch, self.ops)
    }
}

/// Where the sections of a 0.23 forest start.
struct Sections<'a> {
    internal: usize,
    external: usize,
    roots: Vec<(usize, u32)>,
    blocks: &'a [u8],
    blocks_at: usize,
    entries_at: usize,
    externals_at: usize,
    hashes_at: Option<usize>,
}

fn read_sections<'a>(c: &mut Cursor<'a>, flags: Flags) -> Result<Sections<'a>> {
    let internal = c.count("internal node count", 8)?;
    let external = c.count("external node count", 8 + 32)?;
    let roots = c.u32_list("roots", "root")?;
    let len = c.count("basic-block data", 1)?;
    let blocks_at = c.at();
    let blocks = c.take(len, "basic-block data")?;
    let entries_at = c.at();
    // Both counts are bounded by the input, so their sum cannot overflow.
    let total = internal + external;
    c.take(total.saturating_mul(8), "node entries")?;
    let externals_at = c.at();
    c.take(external * 32, "external digests")?;
    let hashes_at = if flags.hashless {
        None
    } else {
        let at = c.at();
        c.take(internal.saturating_mul(32), "node digests")?;
        Some(at)
    };
    Ok(Sections {
        internal,
        external,
        roots,
        blocks,
        blocks_at,
        entries_at,
        externals_at,
        hashes_at,
    })
}

/// Reads node entries in order, with the block data and external digests
/// they point to.
struct EntryDecoder<'a, 's> {
    bytes: &'a [u8],
    s: &'s Sections<'a>,
    isa: Isa,
    /// Where the next block's data must start.
    block_pos: usize,
    /// External nodes read so far.
    ext_seen: usize,
    /// The group values of the blocks' batches, when their digests are to
    /// be computed: collected while the layout is at hand.
    groups: Option<Vec<[Felt; BATCH_SIZE]>>,
    /// Where the blocks' padding `noop`s are, for the debug-info tables.
    paddings: Paddings,
}

impl EntryDecoder<'_, '_> {
    /// Node `i`, from its entry, and for a block whose group values are
    /// collected, where they are.
    fn node(&mut self, i: usize) -> Result<(MastNode, Option<BlockGroups>)> {
        let at = self.s.entries_at + 8 * i;
        let entry = Cursor::new(self.bytes, at).u64("node entry")?;
        let entry = NodeEntry::new(entry, i, at);
        let (tag, payload) = (entry.tag, entry.payload);
        let node = match tag {
            0..=2 | 4 | 5 => entry.control()?,
            6..=8 if payload != 0 => {
                return err(at, DecodeErrorKind::NonZeroPadding("unused entry payload"))
            }
            6 => MastNode::Dyn,
            7 => MastNode::DynCall,
            8 => {
                if self.ext_seen == self.s.external {
                    return err(
                        at,
                        DecodeErrorKind::Invalid("more external nodes than counted"),
                    );
                }
                let d = Cursor::new(self.bytes, self.s.externals_at + 32 * self.ext_seen)
                    .word("external digest")?;
                self.ext_seen += 1;
                MastNode::External(d)
            }
            3 => {
                if entry.single()? as usize != self.block_pos {
                    let (expected, found) = (self.block_pos as u64, payload);
                    return err(
                        at,
                        DecodeErrorKind::DataLayout {
                            what: "block",
                            expected,
                            found,
                        },
                    );
                }
                let mut d = Cursor::new(self.s.blocks, self.block_pos);
                let first = self.groups.as_ref().map_or(0, Vec::len);
                let out = BlockOutputs {
                    groups: self.groups.as_mut(),
                    paddings: &mut self.paddings,
                };
                let (block, last_groups) =
                    decode_block(&mut d, self.isa, out).map_err(|e| e.shifted(self.s.blocks_at))?;
                self.block_pos = d.at();
                let groups = self.groups.as_ref().map(|g| BlockGroups {
                    batches: first..g.len(),
                    last_groups,
                });
                return Ok((MastNode::Block(block), groups));
            }
            _ => return entry.unknown_tag(),
        };
        self.paddings.push_other();
        Ok((node, None))
    }
}

/// Decodes a forest of `version` whose header says `flags`; returns it and
/// the offset where it ends.
pub(crate) fn decode(
    bytes: &[u8],
    version: Version,
    flags: Flags,
    opts: DecodeOptions,
) -> Result<(MastForest, usize)> {
    let mut c = Cursor::new(bytes, 8);
    let s = read_sections(&mut c, flags)?;
    let advice_map = read_advice_map(&mut c)?;
    let debug_info = if flags.stripped {
        None
    } else {
        let nodes = s.internal + s.external;
        let section = debug_info::read(&mut c)?;
        (section.info.bytes() != empty_debug_info(nodes)).then_some(section)
    };
    let isa = version.isa();
    let mut b = MastForestBuilder::new_in(isa);
    let mut entries = EntryDecoder {
        bytes,
        s: &s,
        isa,
        block_pos: 0,
        ext_seen: 0,
        groups: (s.hashes_at.is_none() || !opts.trust_digests).then(Vec::new),
        paddings: Paddings::default(),
    };
    let mut int_seen = 0;
    let mut pending = Vec::new();
    let mut order = (version == Version::V5).then(OrderCheck::default);
    for i in 0..s.internal + s.external {
        let at = s.entries_at + 8 * i;
        let (node, groups) = entries.node(i)?;
        if let Some(order) = &mut order {
            order.next(&node, at)?;
        }
        let (digest, pending_digest) = match (&node, s.hashes_at) {
            (MastNode::External(d), _) => (*d, None),
            (_, None) => (Digest::ZERO, Some(None)),
            (_, Some(hashes_at)) => {
                if int_seen == s.internal {
                    return err(
                        at,
                        DecodeErrorKind::Invalid("more internal nodes than counted"),
                    );
                }
                let at = hashes_at + 32 * int_seen;
                int_seen += 1;
                let recorded = Cursor::new(bytes, at).word("node digest")?;
                (
                    recorded,
                    (!opts.trust_digests).then_some(Some((recorded, at))),
                )
            }
        };
        let node = b.push_unchecked(node, digest);
        if let Some(recorded) = pending_digest {
            pending.push(Pending {
                node,
                recorded,
                groups,
            });
        }
    }
    let (block_pos, ext_seen) = (entries.block_pos, entries.ext_seen);
    if ext_seen != s.external {
        return err(
            s.entries_at,
            DecodeErrorKind::Invalid("fewer external nodes than counted"),
        );
    }
    if block_pos != s.blocks.len() {
        let unused = s.blocks.len() - block_pos;
        return err(s.blocks_at + block_pos, DecodeErrorKind::UnusedData(unused));
    }
    let groups = entries.groups.unwrap_or_default();
    settle_digests(&mut b, &pending, &groups, isa)?;
    add_roots(&mut b, &s.roots, s.internal + s.external)?;
    let mut forest = b.finish();
    forest.advice_map = advice_map;
    if let Some(section) = debug_info {
        debug_info::lift(section, &mut forest, &entries.paddings)?;
    }
    Ok((forest, c.at()))
}

fn decode_op(c: &mut Cursor<'_>, isa: Isa, simple: &[Option<Operation>; 128]) -> Result<Operation> {
    let at = c.at();
    let code = c.u8("opcode")?;
    if let Some(op) = simple.get(code as usize).copied().flatten() {
        return Ok(op);
    }
    if Operation::with_immediate(isa, code, 0).is_err() {
        return err(at, DecodeErrorKind::UnknownOpcode(code));
    }
    let imm = c.felt("immediate")?;
    Operation::with_immediate(isa, code, imm.as_u64())
        .or_else(|_| err(at, DecodeErrorKind::UnknownOpcode(code)))
}

/// What reading a block adds to besides the block: the batches' group
/// values, when digests are computed, and where its padding `noop`s are.
struct BlockOutputs<'o> {
    groups: Option<&'o mut Vec<[Felt; BATCH_SIZE]>>,
    paddings: &'o mut Paddings,
}

/// A block's padded operations and batch layout, checked to be the layout
/// miden-core computes for the unpadded operations, and the groups in use
/// of its last batch; the block's padding is recorded in `out`, and its
/// batches' group values appended to `out.groups` if there is one.
fn decode_block(
    c: &mut Cursor<'_>,
    isa: Isa,
    out: BlockOutputs<'_>,
) -> Result<(BasicBlock, usize)> {
    let start = c.at();
    let n = c.count("operations", 1)?;
    let mut padded = Vec::with_capacity(n);
    let simple = Operation::simple_opcodes(isa);
    for _ in 0..n {
        padded.push(decode_op(c, isa, simple)?);
    }
    let batches_at = c.at();
    let num_batches = c.u32("batch count")? as usize;
    if num_batches > c.remaining() / 5 {
        let (count, available) = (num_batches as u64, c.remaining());
        return err(
            batches_at,
            DecodeErrorKind::CountTooLarge {
                field: "batches",
                count,
                available,
            },
        );
    }
    let mut wire = Vec::with_capacity(num_batches);
    for _ in 0..num_batches {
        let at = c.at();
        let packed: [u8; 4] = c.array("group sizes")?;
        let mut group_sizes = [0u8; BATCH_SIZE];
        for (g, size) in group_sizes.iter_mut().enumerate() {
            *size = (packed[g / 2] >> ((g % 2) * 4)) & 0x0f;
            if *size as usize > GROUP_SIZE {
                return err(
                    at,
                    DecodeErrorKind::Invalid("group of more than 9 operations"),
                );
            }
        }
        wire.push(PaddedBatch {
            group_sizes,
            padding: [false; BATCH_SIZE],
        });
    }
    for batch in &mut wire {
        let bits = c.u8("padding flags")?;
        for (g, p) in batch.padding.iter_mut().enumerate() {
            *p = bits & (1 << g) != 0;
        }
    }
    let ops =
        unpad(&padded, &wire).or_else(|what| err(batches_at, DecodeErrorKind::Invalid(what)))?;
    if ops.is_empty() {
        return err(start, DecodeErrorKind::Invalid("empty basic block"));
    }
    let expected = pad_batches(&ops);
    if expected.batches != wire || expected.len != padded.len() {
        return err(batches_at, DecodeErrorKind::NonCanonical("batch layout"));
    }
    if let Some(groups) = out.groups {
        push_group_values(&padded, &wire, isa, groups);
    }
    out.paddings.push_block(&wire);
    let block = BasicBlock {
        ops,
        decorators: Vec::new(),
    };
    Ok((block, expected.last_groups))
}

/// The group values of a block's batches, from its padded operations and
/// their canonical layout: an operation group packs its opcodes 7 bits each
/// (padding `noop`s are opcode zero), and the immediates of `push`, in
/// order, fill the batch's groups of no operations, in order, as miden-core's
/// `OpBatchAccumulator` allocates them. These are the values
/// [`BasicBlock::batches_in`] computes from the unpadded operations.
fn push_group_values(
    padded: &[Operation],
    batches: &[PaddedBatch],
    isa: Isa,
    out: &mut Vec<[Felt; BATCH_SIZE]>,
) {
    let mut ops = padded.iter();
    for batch in batches {
        let mut groups = [Felt::ZERO; BATCH_SIZE];
        let mut imm_groups = (0..BATCH_SIZE).filter(|&g| batch.group_sizes[g] == 0);
        for (g, &size) in batch.group_sizes.iter().enumerate() {
            if size == 0 {
                continue;
            }
            let mut value = 0;
            for (k, op) in ops.by_ref().take(size as usize).enumerate() {
                let code = op.opcode_in(isa).unwrap_or(0) as u64;
                value |= code << (Operation::OP_BITS * k);
                if let Some(imm) = op.imm_value() {
                    // The layout is canonical: there is a group for it.
                    if let Some(slot) = imm_groups.next() {
                        groups[slot] = imm;
                    }
                }
            }
            // Nine 7-bit opcodes fill 63 bits: below the modulus.
            groups[g] = Felt::reduce(value);
        }
        out.push(groups);
    }
}

/// The padding `noop`s of the blocks of a forest being read, node by node,
/// by their operation index with padding (the debug-info tables count a
/// block's operations so): one flat list for all blocks, read from the
/// batch layouts as they are checked.
#[derive(Default)]
pub(crate) struct Paddings {
    positions: Vec<u32>,
    /// Per node, where its positions end (a node that is not a block has
    /// none).
    ends: Vec<u32>,
}

impl Paddings {
    fn push_block(&mut self, batches: &[PaddedBatch]) {
        let mut end = 0u32;
        for batch in batches {
            for (&size, pad) in batch.group_sizes.iter().zip(batch.padding) {
                end += u32::from(size);
                if pad {
                    // A padded group ends with its padding `noop`.
                    self.positions.push(end - 1);
                }
            }
        }
        self.push_other();
    }

    fn push_other(&mut self) {
        self.ends.push(self.positions.len() as u32);
    }

    /// An [`Unpad`] for block `node` of `ops_len` operations (without
    /// padding).
    pub(crate) fn of(&self, node: usize, ops_len: usize) -> Unpad<'_> {
        let start = node.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        let pads = &self.positions[start..self.ends[node] as usize];
        Unpad {
            pads,
            before: 0,
            padded_len: ops_len + pads.len(),
        }
    }
}

/// A block's operation indices with padding mapped to indices without,
/// queried in non-decreasing order.
pub(crate) struct Unpad<'p> {
    /// The padded positions of its padding `noop`s, increasing.
    pads: &'p [u32],
    /// How many of them precede the last index queried.
    before: usize,
    /// The block's operation count with padding.
    pub(crate) padded_len: usize,
}

impl Unpad<'_> {
    /// Operation `padded` (with padding, at least the last one asked, at
    /// most the padded length) without the padding before it.
    pub(crate) fn index(&mut self, padded: usize) -> usize {
        // Queries are dense in a block: a linear walk over its padding
        // beats a binary search per query.
        while self
            .pads
            .get(self.before)
            .is_some_and(|&p| (p as usize) < padded)
        {
            self.before += 1;
        }
        padded - self.before
    }
}

/// For each operation of a block in its padded form, whether it is a
/// padding `noop`.
pub(crate) fn padding_positions(ops: &[Operation]) -> Vec<bool> {
    let layout = pad_batches(ops);
    let mut is_pad = Vec::with_capacity(layout.len);
    for batch in &layout.batches {
        for (size, pad) in batch.group_sizes.iter().zip(batch.padding) {
            let raw = *size as usize - pad as usize;
            is_pad.resize(is_pad.len() + raw, false);
            if pad {
                is_pad.push(true);
            }
        }
    }
    is_pad
}

/// The operations without their padding `noop`s.
fn unpad(padded: &[Operation], batches: &[PaddedBatch]) -> Result<Vec<Operation>, &'static str> {
    let mut ops = Vec::with_capacity(padded.len());
    let mut pos = 0;
    for batch in batches {
        for (size, pad) in batch.group_sizes.iter().zip(batch.padding) {
            let end = pos + *size as usize;
            let group = padded.get(pos..end).ok_or("groups exceed the operations")?;
            let kept = match (pad, group.split_last()) {
                (false, _) => group,
                (true, Some((Operation::Noop, rest))) => rest,
                (true, _) => return Err("a padded group must end with noop"),
            };
            ops.extend_from_slice(kept);
            pos = end;
        }
    }
    if pos != padded.len() {
        return Err("operations outside every group");
    }
    Ok(ops)
}

fn encode_block(block: &BasicBlock, isa: Isa, out: &mut Vec<u8>) {
    let PaddedLayout { batches, len, .. } = pad_batches(&block.ops);
    put_usize(out, len);
    let mut ops = block.ops.iter();
    for batch in &batches {
        for (size, pad) in batch.group_sizes.iter().zip(batch.padding) {
            let real = *size as usize - pad as usize;
            for op in ops.by_ref().take(real) {
                out.push(op.opcode_in(isa).unwrap_or(0));
                if let Some(imm) = op.immediate() {
                    put_u64(out, imm.as_u64());
                }
            }
            if pad {
                out.push(0);
            }
        }
    }
    put_u32(out, batches.len() as u32);
    for batch in &batches {
        let mut packed = [0u8; 4];
        for (g, size) in batch.group_sizes.iter().enumerate() {
            packed[g / 2] |= size << ((g % 2) * 4);
        }
        out.extend_from_slice(&packed);
    }
    for batch in &batches {
        let bits = batch
            .padding
            .iter()
            .enumerate()
            .map(|(g, p)| (*p as u8) << g);
        out.push(bits.fold(0, |a, b| a | b));
    }
}

fn read_advice_map(c: &mut Cursor<'_>) -> Result<Vec<(Digest, Vec<Felt>)>> {
    let n = c.count("advice map", 33)?;
    let mut map = Vec::with_capacity(n);
    let mut keys = std::collections::HashSet::with_capacity(n);
    for _ in 0..n {
        let at = c.at();
        let key = c.word("advice key")?;
        if !keys.insert(key) {
            return err(at, DecodeErrorKind::NonCanonical("repeated advice key"));
        }
        let len = c.count("advice values", 8)?;
        let mut values = Vec::with_capacity(len);
        for _ in 0..len {
            values.push(c.felt("advice value")?);
        }
        map.push((key, values));
    }
    Ok(map)
}

/// The debug-info section miden-core 0.23 writes for a forest of `nodes`
/// nodes without debug info (`DebugInfo::empty_for_nodes`): every vector
/// empty but the node→operation index of the operation→decorator table,
/// which holds `nodes + 1` zeros. A forest read with this section has no
/// debug info, and one without is written with it.
fn empty_debug_info(nodes: usize) -> Vec<u8> {
    // Empty vectors: decorator data, string offsets and data, decorator
    // records, error codes, decorator ids, operation index.
    let mut out = vec![1; 7];
    put_usize(&mut out, nodes + 1);
    out.resize(out.len() + nodes + 1, 1);
    // Empty vectors: the two node→decorator tables (ids, index), procedure
    // names, assembly-op data, string offsets and data, records, ids and
    // index, debug variables, their ids, operation and node index.
    out.resize(out.len() + 15, 1);
    out
}

/// Encodes `forest` as miden-core 0.23 (`V3`) or 0.24 (`V4`) writes it,
/// with `flags`.
pub(crate) fn encode(
    forest: &MastForest,
    version: Version,
    flags: Flags,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let format = version.format().name();
    check_encodable(forest, version.isa(), format)?;
    if version == Version::V5 {
        OrderCheck::forest(forest, format)?;
    }
    // The bytes of the debug-info section, if the file has one.
    let debug_info: Option<Cow<'_, [u8]>> = match (flags.stripped, forest.debug_info()) {
        (true, _) => None,
        (false, Some(_)) if version.without_debug_info() => {
            return Err(EncodeError::unrepresentable(
                format,
                "debug info, which left the forest in this version; write it --stripped",
            ));
        }
        // A forest read keeps its section: what it holds in memory says
        // the same.
        (false, Some(d)) if !d.bytes().is_empty() => Some(Cow::Borrowed(d.bytes())),
        (false, None) if version.without_debug_info() => {
            let decorated = forest
                .nodes()
                .iter()
                .position(|n| matches!(n, MastNode::Block(b) if !b.decorators().is_empty()));
            if let Some(i) = decorated {
                return Err(EncodeError::unrepresentable(
                    format,
                    format!("node {i}: decorators, which left the forest in this version; write it --stripped"),
                ));
            }
            None
        }
        (false, _) => Some(Cow::Owned(debug_info_write::build(forest, format)?)),
    };
    let mut blocks = Vec::new();
    let mut entries = Vec::with_capacity(forest.len());
    let (mut externals, mut hashes) = (Vec::new(), Vec::new());
    for (node, digest) in forest.nodes().iter().zip(&forest.digests) {
        entries.push(match node {
            MastNode::Join { .. }
            | MastNode::Split { .. }
            | MastNode::Loop { .. }
            | MastNode::Call { .. }
            | MastNode::Dyn => control_entry(node),
            MastNode::DynCall => 7 << 60,
            MastNode::External(_) => 8 << 60,
            MastNode::Block(block) => {
                let offset = u32::try_from(blocks.len()).map_err(|_| EncodeError::DataTooLarge)?;
                encode_block(block, version.isa(), &mut blocks);
                3 << 60 | offset as u64
            }
        });
        match node {
            MastNode::External(_) => externals.push(*digest),
            _ => hashes.push(*digest),
        }
    }
    out.extend_from_slice(&MAGIC);
    let stripped_bit = (version == Version::V3 && flags.stripped) as u8 * FLAG_STRIPPED;
    out.push(stripped_bit | (flags.hashless as u8 * FLAG_HASHLESS));
    out.extend_from_slice(&version.format().version());
    put_usize(out, hashes.len());
    put_usize(out, externals.len());
    put_usize(out, forest.root_order.len());
    for r in forest.roots() {
        put_u32(out, r.0);
    }
    put_usize(out, blocks.len());
    out.extend_from_slice(&blocks);
    for e in entries {
        put_u64(out, e);
    }
    for d in &externals {
        put_word(out, d);
    }
    if !flags.hashless {
        for d in &hashes {
            put_word(out, d);
        }
    }
    put_usize(out, forest.advice_map().len());
    for (key, values) in forest.advice_map() {
        put_word(out, key);
        put_usize(out, values.len());
        for v in values {
            put_u64(out, v.as_u64());
        }
    }
    if let Some(d) = debug_info {
        out.extend_from_slice(&d);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The group values collected from the padded layout are those of
    /// `batches_in`, on every block of the core library.
    #[test]
    fn collected_group_values_are_the_batches() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/core-0.23.5.stripped.mast"
        );
        let bytes = std::fs::read(path).unwrap();
        let forest = decode(
            &bytes,
            Version::V3,
            Flags {
                stripped: true,
                hashless: false,
            },
            DecodeOptions::TRUST,
        )
        .unwrap()
        .0;
        for node in forest.nodes() {
            let MastNode::Block(block) = node else {
                continue;
            };
            let mut data = Vec::new();
            encode_block(block, Isa::V0_23, &mut data);
            let (mut groups, mut paddings) = (Vec::new(), Paddings::default());
            let out = BlockOutputs {
                groups: Some(&mut groups),
                paddings: &mut paddings,
            };
            decode_block(&mut Cursor::new(&data, 0), Isa::V0_23, out).unwrap();
            let expected: Vec<_> = block
                .batches_in(Isa::V0_23)
                .iter()
                .map(|b| b.groups)
                .collect();
            assert_eq!(groups, expected, "{:?}", block.ops());
            // The padding read from the layout is the padding computed.
            let is_pad = padding_positions(block.ops());
            let mut unpad = paddings.of(0, block.ops().len());
            assert_eq!(unpad.padded_len, is_pad.len());
            let unpadded = (0..is_pad.len()).map(|op| unpad.index(op));
            let pads_before =
                (0..is_pad.len()).map(|op| is_pad[..op].iter().filter(|p| **p).count());
            assert!(unpadded.eq((0..is_pad.len()).zip(pads_before).map(|(op, n)| op - n)));
        }
    }
}
