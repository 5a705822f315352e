//! The binary format of a MAST forest: specification, encoder and decoder.
//!
//! # Format specification (version 0)
//!
//! This is the format of the MAST design document (the "MAST binary format"
//! proposal for Miden VM), byte for byte, with the details it leaves open
//! decided as below. All fixed-width integers are little-endian. `VInt64` is
//! the encoding of the `vint64` crate: a prefix varint whose first byte's
//! trailing zeros give the number of bytes that follow (`xxxxxxx1` is one
//! byte of 7 bits, `00000000` is a prefix followed by 8 value bytes);
//! non-canonical encodings (superfluous high zero bytes) are rejected.
//! Offsets below are from the first byte of the encoding.
//!
//! ```text
//! magic        5 bytes  b"MAST\0"
//! version      3 bytes  [0, 0, 0]; anything else is rejected
//! entrypoint   VInt64   0 = none, i + 1 = node i (which must also be a root)
//! node_count   VInt64   n, at most u32::MAX
//! roots        ceil(n / 8) bytes: bit i of the set is bit (i % 8) of byte
//!                       i / 8, i.e. the little-endian bytes of the u64 words of
//!                       the in-memory bitset, truncated; bits >= n are zero
//! padding      0-3 zero bytes, up to the next multiple of 4
//! node_infos   n records of 48 bytes (below)
//! strings_count VInt64  s
//! padding      0-3 zero bytes, up to the next multiple of 4
//! strings      s records of 8 bytes: offset u32, len u32 (into `data`)
//! data_size    VInt64   d, below 2^32; exactly d bytes must follow
//! data         d bytes
//! ```
//!
//! "Zero" for an absent entrypoint is the `VInt64` value zero (the byte
//! `0x01`): a `0x00` byte would open a 9-byte `VInt64`.
//!
//! ## Node records
//!
//! The seed's `MastNodeInfo` is `#[repr(C)] { ty: MastNodeType, offset: u32,
//! digest: Digest }` with `MastNodeType` a `#[repr(u8)]` enum whose largest
//! variants carry two `u32`s; laid out by C rules that is 12 + 4 + 32 = 48
//! bytes:
//!
//! ```text
//! 0       tag u8: 0 Join, 1 Split, 2 Loop, 3 Block, 4 Call, 5 SysCall,
//!                 6 Dyn, 7 External (the seed's declaration order)
//! 1..4    zero (alignment padding of the enum)
//! 4..8    u32 a: Join/Split first child, Loop body, Call/SysCall callee,
//!                Block number of operations; zero otherwise
//! 8..12   u32 b: Join/Split second child, Block number of decorators;
//!                zero otherwise
//! 12..16  u32 offset into `data`: Block only; zero for every other kind
//! 16..48  digest: the four Goldilocks elements in order, each as a
//!         canonical (< p) little-endian u64
//! ```
//!
//! Two decisions differ from the seed's sketch and are deliberate:
//!
//! * **Wide block counts.** The seed gives `Block` a `len: u8`, which cannot
//!   count real blocks (Miden's standard library averages ~390 operations per
//!   block). As the seed suggests, the `Block` variant uses the padding the
//!   record already has: its operation count is a `u32` in bytes 4..8 and its
//!   decorator count a `u32` in bytes 8..12; byte 1 (the seed's `len`) stays
//!   zero. The record is no larger.
//! * **Call targets.** The seed lists a `Digest` as the data of `Call` and
//!   `SysCall`, but the in-memory `CallNode` holds the callee's node id, and
//!   the callee's digest is already in the callee's own record. The callee is
//!   therefore stored inline, as a node index, like `Loop`'s body; `Call` and
//!   `SysCall` have no data.
//!
//! A child index must be smaller than its parent's index. The encoder
//! satisfies this because in-memory forests are in topological order; the
//! decoder rejects anything else, which is also what rules out cycles.
//!
//! ## Strings and data
//!
//! Following the encoding steps (each offset is `data.len()` at the time of
//! writing), `data` holds every string of the forest's string table, in id
//! order and back to back from offset 0, then the data of each `Block`, back
//! to back in node order, and nothing else. The full decoder requires
//! exactly this layout (no gaps, overlaps, repeated strings or unused bytes),
//! so every forest has one encoding and decoding then re-encoding gives the
//! input back. Strings must be UTF-8.
//!
//! A block's data is its operations and decorators in program order, a
//! decorator coming right before the operation it is attached to
//! (decorators attached to the end of the block come last). Each entry starts
//! with the seed's `EncodedOperation` tag byte:
//!
//! ```text
//! 0  opcode u8                       operation without immediate
//! 1  opcode u8, imm VInt64           Push (canonical field element),
//!                                    Assert / MpVerify / U32assert2 (u32 error code)
//! 2  advice tag u8, payload          AdviceInjector; payload: MapValueToStack
//!                                    include_len u8 (0/1), key_offset VInt64;
//!                                    HdwordToMap domain VInt64 (field element);
//!                                    SigToStack kind u8 (0 = RpoFalcon512)
//! 3  num_cycles u8, should_break u8 (0/1), op VInt64, context_name VInt64
//!                                    AsmOp; the VInt64s index the strings table
//! 4                                  Debug::StackAll
//! 5  n u8                            Debug::StackTop(n)
//! ```
//!
//! Advice tags follow miden-core 0.10's declaration order of
//! `AdviceInjector` (see [`AdviceInjector::tag`]). Exactly `a` operations and
//! `b` decorators are read from the block's offset; a block has at least one
//! operation. Because every operation takes at least two bytes and every
//! decorator one, `2a + b`, summed over the decoded blocks, may not exceed
//! `d`, and the lengths of the decoded strings together may not exceed `d`
//! either. The partial decoder, which does not look at the layout of what it
//! skips, relies on these bounds to keep its output a small multiple of the
//! input.
//!
//! ## Decoding
//!
//! The decoder ([`decode`]) checks everything above and reports the first
//! violation as a [`DecodeError`] naming the byte offset. Digests are
//! recomputed and compared with the records unless
//! [`DecodeOptions::trust_digests`] is set. [`decode_root`] decodes only the
//! tree of one root, found by digest, walking node references from it; a
//! reference to another root of the forest becomes an `External` node with
//! that root's recorded digest, and nothing else of the file is decoded.

use std::collections::HashMap;

use bitvec::prelude::{BitVec, Lsb0};

use crate::block::BasicBlock;
use crate::decorator::{AdviceInjector, AsmOp, Decorator, SignatureKind, StringId};
use crate::felt::{Digest, Felt};
use crate::forest::{MastForest, MastForestBuilder, MastNode, MastNodeId, NodeKind, StringTable};
use crate::ops::Operation;

/// The magic bytes.
pub const MAGIC: &[u8; 5] = b"MAST\0";
/// The format version this crate reads and writes.
pub const VERSION: [u8; 3] = [0, 0, 0];
/// Size of a node record.
pub const NODE_INFO_SIZE: usize = 48;
/// Size of a string record.
pub const STRING_REF_SIZE: usize = 8;

/// Operations without immediate by opcode, for the decoder's fast path.
const SIMPLE_BY_OPCODE: [Option<Operation>; 256] = {
    let mut table = [None; 256];
    let mut code = 0;
    while code < 256 {
        table[code] = Operation::simple_from_opcode(code as u8);
        code += 1;
    }
    table
};

const TAG_OP: u8 = 0;
const TAG_OP_IMM: u8 = 1;
const TAG_ADVICE: u8 = 2;
const TAG_ASMOP: u8 = 3;
const TAG_STACK_ALL: u8 = 4;
const TAG_STACK_TOP: u8 = 5;

fn kind_tag(kind: NodeKind) -> u8 {
    NodeKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u8
}

// ------------------------------------------------------------------------------------------------
// Encoding

/// Why a forest cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The data section would reach 2^32 bytes.
    #[error("data section exceeds 2^32 bytes")]
    DataTooLarge,
}

fn put_vint(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(vint64::encode(v).as_ref());
}

fn pad4(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

fn encode_block(b: &BasicBlock, data: &mut Vec<u8>) {
    let mut decs = b.decorators.iter().peekable();
    let mut emit_decs = |i: usize, data: &mut Vec<u8>| {
        while let Some((_, d)) = decs.next_if(|(j, _)| *j as usize == i) {
            encode_decorator(d, data);
        }
    };
    for (i, op) in b.ops.iter().enumerate() {
        emit_decs(i, data);
        match op.immediate() {
            None => data.extend_from_slice(&[TAG_OP, op.opcode()]),
            Some(imm) => {
                data.extend_from_slice(&[TAG_OP_IMM, op.opcode()]);
                put_vint(data, imm);
            }
        }
    }
    emit_decs(b.ops.len(), data);
}

fn encode_decorator(d: &Decorator, data: &mut Vec<u8>) {
    match d {
        Decorator::Advice(a) => {
            data.extend_from_slice(&[TAG_ADVICE, a.tag()]);
            match a {
                AdviceInjector::MapValueToStack {
                    include_len,
                    key_offset,
                } => {
                    data.push(*include_len as u8);
                    put_vint(data, *key_offset);
                }
                AdviceInjector::HdwordToMap { domain } => put_vint(data, domain.as_u64()),
                AdviceInjector::SigToStack {
                    kind: SignatureKind::RpoFalcon512,
                } => data.push(0),
                _ => {}
            }
        }
        Decorator::AsmOp(a) => {
            data.extend_from_slice(&[TAG_ASMOP, a.num_cycles, a.should_break as u8]);
            put_vint(data, a.op.0 as u64);
            put_vint(data, a.context_name.0 as u64);
        }
        Decorator::StackAll => data.push(TAG_STACK_ALL),
        Decorator::StackTop(n) => data.extend_from_slice(&[TAG_STACK_TOP, *n]),
    }
}

/// Encodes `forest` following the encoding steps of the specification.
pub fn encode(forest: &MastForest) -> Result<Vec<u8>, EncodeError> {
    let n = forest.len();
    let mut out = Vec::with_capacity(64 + n * (NODE_INFO_SIZE + 1));
    let data_hint: usize = forest.strings().iter().map(str::len).sum::<usize>()
        + forest
            .nodes()
            .iter()
            .map(|n| match n {
                MastNode::Block(b) => 3 * b.ops.len() + 4 * b.decorators.len(),
                _ => 0,
            })
            .sum::<usize>();
    let mut data = Vec::with_capacity(data_hint);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION);
    put_vint(
        &mut out,
        forest.entrypoint().map_or(0, |e| e.index() as u64 + 1),
    );
    put_vint(&mut out, n as u64);
    let mut roots = vec![0u8; n.div_ceil(8)];
    for r in forest.roots() {
        roots[r.index() / 8] |= 1 << (r.index() % 8);
    }
    out.extend_from_slice(&roots);
    pad4(&mut out);

    let mut string_refs = Vec::with_capacity(forest.strings().len());
    for s in forest.strings().iter() {
        string_refs.push((data.len(), s.len()));
        data.extend_from_slice(s.as_bytes());
    }

    let to_u32 = |v: usize| u32::try_from(v).map_err(|_| EncodeError::DataTooLarge);
    for (i, node) in forest.nodes().iter().enumerate() {
        let mut rec = [0u8; NODE_INFO_SIZE];
        rec[0] = kind_tag(node.kind());
        let (a, b, offset) = match node {
            MastNode::Block(block) => {
                let offset = to_u32(data.len())?;
                encode_block(block, &mut data);
                (
                    block.ops.len() as u32,
                    block.decorators.len() as u32,
                    offset,
                )
            }
            MastNode::Join { left, right } => (left.0, right.0, 0),
            MastNode::Split { on_true, on_false } => (on_true.0, on_false.0, 0),
            MastNode::Loop { body } => (body.0, 0, 0),
            MastNode::Call { callee, .. } => (callee.0, 0, 0),
            MastNode::Dyn | MastNode::External(_) => (0, 0, 0),
        };
        rec[4..8].copy_from_slice(&a.to_le_bytes());
        rec[8..12].copy_from_slice(&b.to_le_bytes());
        rec[12..16].copy_from_slice(&offset.to_le_bytes());
        rec[16..48].copy_from_slice(&forest.digests[i].to_bytes());
        out.extend_from_slice(&rec);
    }

    put_vint(&mut out, string_refs.len() as u64);
    pad4(&mut out);
    for (offset, len) in string_refs {
        out.extend_from_slice(&to_u32(offset)?.to_le_bytes());
        out.extend_from_slice(&to_u32(len)?.to_le_bytes());
    }
    put_vint(&mut out, to_u32(data.len())? as u64);
    out.extend_from_slice(&data);
    Ok(out)
}

// ------------------------------------------------------------------------------------------------
// Errors

/// What is wrong with an encoded forest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// The input ends inside a field.
    #[error("unexpected end of input in {0}")]
    Truncated(&'static str),
    /// The input does not start with `MAST\0`.
    #[error("bad magic, not a MAST forest")]
    BadMagic,
    /// A version other than 0.
    #[error("unsupported format version {0:?}")]
    UnsupportedVersion([u8; 3]),
    /// A `VInt64` with superfluous zero bytes.
    #[error("non-canonical VInt64 in {0}")]
    NonCanonicalVInt(&'static str),
    /// A value does not fit its field.
    #[error("{field} value {value} is out of range")]
    ValueOutOfRange {
        /// The field.
        field: &'static str,
        /// The value read.
        value: u64,
    },
    /// A count that the remaining input cannot hold.
    #[error("{field} count {count} exceeds what the remaining {available} bytes can hold")]
    CountTooLarge {
        /// The field.
        field: &'static str,
        /// The count read.
        count: u64,
        /// Bytes left in the input (or data section).
        available: usize,
    },
    /// Padding or reserved bytes that are not zero.
    #[error("non-zero {0}")]
    NonZeroPadding(&'static str),
    /// A set bit in the roots bitset past the last node.
    #[error("root bit {0} is past the last node")]
    RootOutOfRange(usize),
    /// The entrypoint is not a node.
    #[error("entrypoint {index} is out of range ({count} nodes)")]
    EntrypointOutOfRange {
        /// The entrypoint index.
        index: u64,
        /// Number of nodes.
        count: u32,
    },
    /// The entrypoint is not in the roots bitset.
    #[error("entrypoint {0} is not a root")]
    EntrypointNotRoot(u32),
    /// A node record with an unknown tag.
    #[error("node {node}: unknown node type tag {tag}")]
    UnknownNodeTag {
        /// Node index.
        node: u32,
        /// The tag.
        tag: u8,
    },
    /// A node index past the last node.
    #[error("node {index} is out of range ({count} nodes)")]
    NodeOutOfRange {
        /// The index.
        index: u32,
        /// Number of nodes.
        count: u32,
    },
    /// A child index past the last node.
    #[error("node {node}: child {child} is out of range ({count} nodes)")]
    ChildOutOfRange {
        /// Node index.
        node: u32,
        /// Child index.
        child: u32,
        /// Number of nodes.
        count: u32,
    },
    /// A child that does not precede its parent (which any cycle needs).
    #[error("node {node}: child {child} does not precede it (cycle or forward reference)")]
    ForwardReference {
        /// Node index.
        node: u32,
        /// Child index.
        child: u32,
    },
    /// A non-block node with a data offset.
    #[error("node {0}: only blocks have data, but its offset is non-zero")]
    UnexpectedOffset(u32),
    /// A data offset or string range outside the data section.
    #[error("{what} range {offset}+{len} is outside the data section of {data_size} bytes")]
    DataOutOfRange {
        /// What the range belongs to.
        what: &'static str,
        /// Start.
        offset: u64,
        /// Length.
        len: u64,
        /// Size of the data section.
        data_size: usize,
    },
    /// A block without operations.
    #[error("node {0}: empty basic block")]
    EmptyBlock(u32),
    /// Blocks claim more operations and decorators than the data can hold.
    #[error("node {node}: {ops} operations and {decorators} decorators cannot fit the data left")]
    BlockTooLarge {
        /// Node index.
        node: u32,
        /// Operation count.
        ops: u32,
        /// Decorator count.
        decorators: u32,
    },
    /// A block holds more operations or decorators than its record says.
    #[error("node {node}: block holds more {what} than its record's count")]
    BlockCountMismatch {
        /// Node index.
        node: u32,
        /// `"operations"` or `"decorators"`.
        what: &'static str,
    },
    /// A field element that is not below the modulus.
    #[error("{0} is not a canonical field element")]
    NonCanonicalFelt(&'static str),
    /// An unknown `EncodedOperation` tag.
    #[error("unknown operation/decorator tag {0}")]
    UnknownEntryTag(u8),
    /// An unknown opcode.
    #[error("unknown opcode {0}")]
    UnknownOpcode(u8),
    /// An opcode under the wrong tag (with/without immediate).
    #[error("opcode {opcode} {}", if *.expects_immediate { "takes an immediate" } else { "takes no immediate" })]
    ImmediateMismatch {
        /// The opcode.
        opcode: u8,
        /// Whether it needs one.
        expects_immediate: bool,
    },
    /// An unknown advice injector tag.
    #[error("unknown advice injector tag {0}")]
    UnknownAdviceTag(u8),
    /// A boolean byte other than 0 or 1.
    #[error("{field}: {value} is not a boolean")]
    BadBool {
        /// The field.
        field: &'static str,
        /// The byte.
        value: u8,
    },
    /// An unknown signature kind.
    #[error("unknown signature kind {0}")]
    UnknownSignatureKind(u8),
    /// A string index past the strings table.
    #[error("string index {index} is out of range ({count} strings)")]
    StringIndexOutOfRange {
        /// The index.
        index: u64,
        /// Number of strings.
        count: u32,
    },
    /// Strings that together exceed the data section.
    #[error("strings total more bytes than the data section holds")]
    StringsTooLarge,
    /// A string that is not UTF-8.
    #[error("string {0} is not valid UTF-8")]
    InvalidUtf8(u32),
    /// A recorded digest that differs from the node's contents.
    #[error("node {node}: recorded digest {recorded} differs from computed {computed}")]
    DigestMismatch {
        /// Node index.
        node: u32,
        /// Digest in the record.
        recorded: Digest,
        /// Digest of the contents.
        computed: Digest,
    },
    /// Data not laid out as the encoder lays it out.
    #[error("{what} starts at data offset {found}, but {expected} was expected (strings, then blocks, back to back)")]
    DataLayout {
        /// What is misplaced.
        what: &'static str,
        /// Where it should start.
        expected: u64,
        /// Where it starts.
        found: u64,
    },
    /// Data section bytes that no string or block uses.
    #[error("{0} bytes of the data section are not used")]
    UnusedData(usize),
    /// The same string twice in the strings table.
    #[error("string {0} repeats an earlier string")]
    DuplicateString(u32),
    /// Bytes after the data section.
    #[error("{0} trailing bytes after the data section")]
    TrailingBytes(usize),
    /// No root has the requested digest.
    #[error("no root has digest {0}")]
    RootNotFound(Digest),
}

/// A decoding error at a byte offset of the input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("error at byte {offset}: {kind}")]
pub struct DecodeError {
    /// Offset of the offending byte from the start of the input.
    pub offset: usize,
    /// What is wrong.
    pub kind: DecodeErrorKind,
}

type Result<T, E = DecodeError> = core::result::Result<T, E>;

#[cold]
#[inline(never)]
fn err<T>(offset: usize, kind: DecodeErrorKind) -> Result<T> {
    Err(DecodeError { offset, kind })
}

/// Decoding options.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Take recorded digests as they are instead of recomputing them.
    pub trust_digests: bool,
}

impl DecodeOptions {
    /// Recompute and check every digest.
    pub const VERIFY: DecodeOptions = DecodeOptions {
        trust_digests: false,
    };
    /// Trust recorded digests.
    pub const TRUST: DecodeOptions = DecodeOptions {
        trust_digests: true,
    };
}

// ------------------------------------------------------------------------------------------------
// Reading primitives

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Offset of `bytes[0]` in the whole input, for error positions.
    base: usize,
}

impl<'a> Reader<'a> {
    fn at(&self) -> usize {
        self.base + self.pos
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn u8(&mut self, field: &'static str) -> Result<u8> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => err(self.at(), DecodeErrorKind::Truncated(field)),
        }
    }

    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return err(self.at(), DecodeErrorKind::Truncated(field));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn vint(&mut self, field: &'static str) -> Result<u64> {
        let mut rest = &self.bytes[self.pos..];
        match vint64::decode(&mut rest) {
            Ok(v) => {
                self.pos = self.bytes.len() - rest.len();
                Ok(v)
            }
            Err(vint64::Error::Truncated) => err(self.at(), DecodeErrorKind::Truncated(field)),
            Err(vint64::Error::LeadingZeroes) => {
                err(self.at(), DecodeErrorKind::NonCanonicalVInt(field))
            }
        }
    }

    fn vint_u32(&mut self, field: &'static str) -> Result<u32> {
        let at = self.at();
        let v = self.vint(field)?;
        u32::try_from(v).or_else(|_| err(at, DecodeErrorKind::ValueOutOfRange { field, value: v }))
    }

    fn pad4(&mut self, field: &'static str) -> Result<()> {
        while self.at() % 4 != 0 {
            let at = self.at();
            if self.u8(field)? != 0 {
                return err(at, DecodeErrorKind::NonZeroPadding(field));
            }
        }
        Ok(())
    }
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

// ------------------------------------------------------------------------------------------------
// The encoded forest: header parsed, tables located

/// A node record, checked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NodeRecord {
    /// The node's kind.
    pub kind: NodeKind,
    /// First field: child, body, callee or operation count.
    pub a: u32,
    /// Second field: second child or decorator count.
    pub b: u32,
    /// Data offset (blocks).
    pub offset: u32,
    /// Recorded digest.
    pub digest: Digest,
}

impl NodeRecord {
    fn children(&self) -> impl Iterator<Item = u32> {
        let (x, y) = match self.kind {
            NodeKind::Join | NodeKind::Split => (Some(self.a), Some(self.b)),
            NodeKind::Loop | NodeKind::Call | NodeKind::SysCall => (Some(self.a), None),
            _ => (None, None),
        };
        x.into_iter().chain(y)
    }
}

/// An encoded forest whose header and table bounds were checked, giving
/// random access to node records without decoding the rest.
#[derive(Clone, Debug)]
pub struct EncodedForest<'a> {
    bytes: &'a [u8],
    entrypoint: Option<u32>,
    node_count: u32,
    roots_offset: usize,
    infos_offset: usize,
    strings_count: u32,
    strings_offset: usize,
    data_offset: usize,
    data_size: usize,
}

impl<'a> EncodedForest<'a> {
    /// Parses the header of `bytes`, which must hold exactly one forest.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let (forest, used) = Self::parse_prefix(bytes)?;
        if used != bytes.len() {
            return err(used, DecodeErrorKind::TrailingBytes(bytes.len() - used));
        }
        Ok(forest)
    }

    /// Parses a forest at the start of `bytes` (which may continue with
    /// other data); also returns the forest's length in bytes.
    pub fn parse_prefix(bytes: &'a [u8]) -> Result<(Self, usize)> {
        let mut r = Reader {
            bytes,
            pos: 0,
            base: 0,
        };
        if r.take(5, "magic").ok() != Some(&MAGIC[..]) {
            return err(0, DecodeErrorKind::BadMagic);
        }
        let version = r.take(3, "version")?;
        if version != VERSION {
            return err(
                5,
                DecodeErrorKind::UnsupportedVersion([version[0], version[1], version[2]]),
            );
        }
        let ep_at = r.at();
        let ep = r.vint("entrypoint")?;
        let n_at = r.at();
        let n = r.vint_u32("node count")?;
        // Each node needs a 48-byte record (and a bit): bound the count before using it.
        if n as u64 * NODE_INFO_SIZE as u64 > r.remaining() as u64 {
            return err(
                n_at,
                DecodeErrorKind::CountTooLarge {
                    field: "node",
                    count: n as u64,
                    available: r.remaining(),
                },
            );
        }
        let entrypoint = match ep {
            0 => None,
            e if e - 1 < n as u64 => Some((e - 1) as u32),
            e => {
                return err(
                    ep_at,
                    DecodeErrorKind::EntrypointOutOfRange {
                        index: e - 1,
                        count: n,
                    },
                )
            }
        };
        let roots_offset = r.at();
        let roots = r.take((n as usize).div_ceil(8), "roots bitset")?;
        if n % 8 != 0 {
            let last = roots[roots.len() - 1];
            if last >> (n % 8) != 0 {
                let bit = (roots.len() - 1) * 8 + (7 - last.leading_zeros() as usize);
                return err(
                    roots_offset + roots.len() - 1,
                    DecodeErrorKind::RootOutOfRange(bit),
                );
            }
        }
        if let Some(e) = entrypoint {
            if roots[e as usize / 8] & (1 << (e % 8)) == 0 {
                return err(ep_at, DecodeErrorKind::EntrypointNotRoot(e));
            }
        }
        r.pad4("padding before node infos")?;
        let infos_offset = r.at();
        r.take(n as usize * NODE_INFO_SIZE, "node infos")?;
        let s_at = r.at();
        let s = r.vint_u32("strings count")?;
        if s as u64 * STRING_REF_SIZE as u64 > r.remaining() as u64 {
            return err(
                s_at,
                DecodeErrorKind::CountTooLarge {
                    field: "string",
                    count: s as u64,
                    available: r.remaining(),
                },
            );
        }
        r.pad4("padding before strings")?;
        let strings_offset = r.at();
        r.take(s as usize * STRING_REF_SIZE, "strings table")?;
        let d_at = r.at();
        let d = r.vint("data size")?;
        if d > r.remaining() as u64 {
            return err(
                d_at,
                DecodeErrorKind::CountTooLarge {
                    field: "data byte",
                    count: d,
                    available: r.remaining(),
                },
            );
        }
        if d >= 1 << 32 {
            return err(
                d_at,
                DecodeErrorKind::ValueOutOfRange {
                    field: "data size",
                    value: d,
                },
            );
        }
        let data_offset = r.at();
        let end = data_offset + d as usize;
        Ok((
            EncodedForest {
                bytes,
                entrypoint,
                node_count: n,
                roots_offset,
                infos_offset,
                strings_count: s,
                strings_offset,
                data_offset,
                data_size: d as usize,
            },
            end,
        ))
    }

    /// Offset of the roots bitset.
    pub fn roots_offset(&self) -> usize {
        self.roots_offset
    }

    /// Offset of the first node record.
    pub fn infos_offset(&self) -> usize {
        self.infos_offset
    }

    /// Offset of the first string record.
    pub fn strings_offset(&self) -> usize {
        self.strings_offset
    }

    /// Offset of the data section.
    pub fn data_offset(&self) -> usize {
        self.data_offset
    }

    /// Number of nodes.
    pub fn node_count(&self) -> u32 {
        self.node_count
    }

    /// Number of strings.
    pub fn strings_count(&self) -> u32 {
        self.strings_count
    }

    /// Size of the data section.
    pub fn data_size(&self) -> usize {
        self.data_size
    }

    /// The entrypoint's node index.
    pub fn entrypoint(&self) -> Option<u32> {
        self.entrypoint
    }

    /// The format version.
    pub fn version(&self) -> [u8; 3] {
        VERSION
    }

    /// Whether node `i` is a root.
    pub fn is_root(&self, i: u32) -> bool {
        i < self.node_count && self.bytes[self.roots_offset + i as usize / 8] & (1 << (i % 8)) != 0
    }

    /// Indices of the roots, ascending.
    pub fn roots(&self) -> impl Iterator<Item = u32> + '_ {
        let bytes = &self.bytes[self.roots_offset..self.infos_offset];
        bytes.iter().enumerate().flat_map(|(k, &byte)| {
            (0..8)
                .filter(move |bit| byte & (1 << bit) != 0)
                .map(move |bit| (k * 8 + bit) as u32)
        })
    }

    fn data(&self) -> &'a [u8] {
        &self.bytes[self.data_offset..self.data_offset + self.data_size]
    }

    /// The checked record of node `i`.
    pub fn record(&self, i: u32) -> Result<NodeRecord> {
        if i >= self.node_count {
            return err(
                self.infos_offset,
                DecodeErrorKind::NodeOutOfRange {
                    index: i,
                    count: self.node_count,
                },
            );
        }
        let at = self.infos_offset + i as usize * NODE_INFO_SIZE;
        let rec = &self.bytes[at..at + NODE_INFO_SIZE];
        let kind = match NodeKind::ALL.get(rec[0] as usize) {
            Some(k) => *k,
            None => {
                return err(
                    at,
                    DecodeErrorKind::UnknownNodeTag {
                        node: i,
                        tag: rec[0],
                    },
                )
            }
        };
        if rec[1..4] != [0, 0, 0] {
            return err(
                at + 1,
                DecodeErrorKind::NonZeroPadding("node record padding"),
            );
        }
        let (a, b, offset) = (le_u32(rec, 4), le_u32(rec, 8), le_u32(rec, 12));
        let record_digest = match Digest::from_bytes(rec[16..48].try_into().unwrap_or(&[0; 32])) {
            Ok(d) => d,
            Err(k) => {
                return err(
                    at + 16 + 8 * k,
                    DecodeErrorKind::NonCanonicalFelt("digest element"),
                )
            }
        };
        let record = NodeRecord {
            kind,
            a,
            b,
            offset,
            digest: record_digest,
        };
        // Fields a kind does not use must be zero, so each forest has one encoding.
        let (uses_a, uses_b) = match kind {
            NodeKind::Join | NodeKind::Split | NodeKind::Block => (true, true),
            NodeKind::Loop | NodeKind::Call | NodeKind::SysCall => (true, false),
            NodeKind::Dyn | NodeKind::External => (false, false),
        };
        if !uses_a && a != 0 {
            return err(at + 4, DecodeErrorKind::NonZeroPadding("unused node field"));
        }
        if !uses_b && b != 0 {
            return err(at + 8, DecodeErrorKind::NonZeroPadding("unused node field"));
        }
        if kind != NodeKind::Block && offset != 0 {
            return err(at + 12, DecodeErrorKind::UnexpectedOffset(i));
        }
        for (k, child) in record.children().enumerate() {
            let field_at = at + 4 + 4 * k;
            if child >= self.node_count {
                return err(
                    field_at,
                    DecodeErrorKind::ChildOutOfRange {
                        node: i,
                        child,
                        count: self.node_count,
                    },
                );
            }
            if child >= i {
                return err(
                    field_at,
                    DecodeErrorKind::ForwardReference { node: i, child },
                );
            }
        }
        if kind == NodeKind::Block {
            if a == 0 {
                return err(at + 4, DecodeErrorKind::EmptyBlock(i));
            }
            if offset as usize > self.data_size {
                return err(
                    at + 12,
                    DecodeErrorKind::DataOutOfRange {
                        what: "block data",
                        offset: offset as u64,
                        len: 0,
                        data_size: self.data_size,
                    },
                );
            }
        }
        Ok(record)
    }

    /// Counts of records per kind, in [`NodeKind::ALL`] order (records are checked).
    pub fn kind_counts(&self) -> Result<[usize; 8]> {
        let mut counts = [0; 8];
        for i in 0..self.node_count {
            counts[kind_tag(self.record(i)?.kind) as usize] += 1;
        }
        Ok(counts)
    }

    /// The index of the root whose recorded digest is `digest`.
    pub fn find_root(&self, digest: &Digest) -> Result<u32> {
        for r in self.roots() {
            if self.record(r)?.digest == *digest {
                return Ok(r);
            }
        }
        err(self.roots_offset, DecodeErrorKind::RootNotFound(*digest))
    }

    fn string_ref(&self, index: u64, at: usize) -> Result<(u32, usize, usize)> {
        if index >= self.strings_count as u64 {
            return err(
                at,
                DecodeErrorKind::StringIndexOutOfRange {
                    index,
                    count: self.strings_count,
                },
            );
        }
        let index = index as u32;
        let rec_at = self.strings_offset + index as usize * STRING_REF_SIZE;
        let (offset, len) = (le_u32(self.bytes, rec_at), le_u32(self.bytes, rec_at + 4));
        if offset as u64 + len as u64 > self.data_size as u64 {
            return err(
                rec_at,
                DecodeErrorKind::DataOutOfRange {
                    what: "string",
                    offset: offset as u64,
                    len: len as u64,
                    data_size: self.data_size,
                },
            );
        }
        Ok((index, offset as usize, len as usize))
    }

    fn decode_string(
        &self,
        index: u64,
        at: usize,
        st: &mut StringState,
        out: &mut StringTable,
    ) -> Result<StringId> {
        if let Some(&id) = st.cache.get(&index) {
            return Ok(id);
        }
        let (index, offset, len) = self.string_ref(index, at)?;
        st.total += len;
        if st.total > self.data_size {
            return err(
                self.strings_offset + index as usize * STRING_REF_SIZE + 4,
                DecodeErrorKind::StringsTooLarge,
            );
        }
        let raw = &self.data()[offset..offset + len];
        let s = match core::str::from_utf8(raw) {
            Ok(s) => s,
            Err(e) => {
                return err(
                    self.data_offset + offset + e.valid_up_to(),
                    DecodeErrorKind::InvalidUtf8(index),
                )
            }
        };
        let id = out.intern(s);
        st.cache.insert(index as u64, id);
        Ok(id)
    }

    /// Decodes the whole forest.
    pub fn decode(&self, opts: DecodeOptions) -> Result<MastForest> {
        let n = self.node_count as usize;
        let mut strings = StringTable::default();
        let mut st = StringState::default();
        // Every string, in table order, so ids survive a round trip; the
        // layout must be the encoder's: strings back to back from offset 0,
        // each once, then blocks back to back in node order, then nothing.
        let mut cursor = 0usize;
        for i in 0..self.strings_count {
            let rec_at = self.strings_offset + i as usize * STRING_REF_SIZE;
            let (_, offset, len) = self.string_ref(i as u64, rec_at)?;
            if offset != cursor {
                return err(rec_at, layout_error("string", cursor, offset));
            }
            cursor += len;
            let id = self.decode_string(i as u64, rec_at, &mut st, &mut strings)?;
            if id.index() != i as usize {
                return err(rec_at, DecodeErrorKind::DuplicateString(i));
            }
        }
        let mut nodes = Vec::with_capacity(n);
        let mut digests: Vec<Digest> = Vec::with_capacity(n);
        let mut budget = self.data_size;
        for i in 0..self.node_count {
            let rec = self.record(i)?;
            if rec.kind == NodeKind::Block && rec.offset as usize != cursor {
                return err(
                    self.infos_offset + i as usize * NODE_INFO_SIZE + 12,
                    layout_error("block data", cursor, rec.offset as usize),
                );
            }
            let node = self.decode_node(
                i,
                &rec,
                &mut budget,
                &mut cursor,
                &mut |idx, at| self.decode_string(idx, at, &mut st, &mut strings),
                MastNodeId,
            )?;
            let digest = if opts.trust_digests {
                rec.digest
            } else {
                let computed = node.compute_digest(|c| digests[c.index()]);
                if computed != rec.digest {
                    return err(
                        self.infos_offset + i as usize * NODE_INFO_SIZE + 16,
                        DecodeErrorKind::DigestMismatch {
                            node: i,
                            recorded: rec.digest,
                            computed,
                        },
                    );
                }
                computed
            };
            nodes.push(node);
            digests.push(digest);
        }
        if cursor != self.data_size {
            return err(
                self.data_offset + cursor,
                DecodeErrorKind::UnusedData(self.data_size - cursor),
            );
        }
        let mut roots: BitVec<u64, Lsb0> = BitVec::repeat(false, n);
        for r in self.roots() {
            roots.set(r as usize, true);
        }
        Ok(MastForest {
            nodes,
            digests,
            roots,
            entrypoint: self.entrypoint.map(MastNodeId),
            strings,
        })
    }

    fn decode_node(
        &self,
        i: u32,
        rec: &NodeRecord,
        budget: &mut usize,
        end: &mut usize,
        string: &mut dyn FnMut(u64, usize) -> Result<StringId>,
        map: impl Fn(u32) -> MastNodeId,
    ) -> Result<MastNode> {
        Ok(match rec.kind {
            NodeKind::Join => MastNode::Join {
                left: map(rec.a),
                right: map(rec.b),
            },
            NodeKind::Split => MastNode::Split {
                on_true: map(rec.a),
                on_false: map(rec.b),
            },
            NodeKind::Loop => MastNode::Loop { body: map(rec.a) },
            NodeKind::Call => MastNode::Call {
                callee: map(rec.a),
                is_syscall: false,
            },
            NodeKind::SysCall => MastNode::Call {
                callee: map(rec.a),
                is_syscall: true,
            },
            NodeKind::Dyn => MastNode::Dyn,
            NodeKind::External => MastNode::External(rec.digest),
            NodeKind::Block => MastNode::Block(self.decode_block(i, rec, budget, end, string)?),
        })
    }

    fn decode_block(
        &self,
        node: u32,
        rec: &NodeRecord,
        budget: &mut usize,
        end: &mut usize,
        string: &mut dyn FnMut(u64, usize) -> Result<StringId>,
    ) -> Result<BasicBlock> {
        let (n_ops, n_decs) = (rec.a, rec.b);
        let rec_at = self.infos_offset + node as usize * NODE_INFO_SIZE;
        let data = self.data();
        let start = rec.offset as usize;
        // Minimum encoded size: 2 bytes per operation, 1 per decorator.
        let min = 2 * n_ops as u64 + n_decs as u64;
        if min > (data.len() - start) as u64 || min > *budget as u64 {
            return err(
                rec_at + 4,
                DecodeErrorKind::BlockTooLarge {
                    node,
                    ops: n_ops,
                    decorators: n_decs,
                },
            );
        }
        *budget -= min as usize;
        let mut r = Reader {
            bytes: &data[start..],
            pos: 0,
            base: self.data_offset + start,
        };
        let mut ops = Vec::with_capacity(n_ops as usize);
        let mut decorators = Vec::with_capacity(n_decs as usize);
        let total = n_ops as usize + n_decs as usize;
        for _ in 0..total {
            // Fast path for the common entry, an operation without immediate.
            if let (Some(&TAG_OP), Some(&code)) = (r.bytes.get(r.pos), r.bytes.get(r.pos + 1)) {
                if let Some(op) = SIMPLE_BY_OPCODE[code as usize] {
                    if ops.len() < n_ops as usize {
                        ops.push(op);
                        r.pos += 2;
                        continue;
                    }
                }
            }
            let at = r.at();
            let tag = r.u8("block data")?;
            if tag <= TAG_OP_IMM {
                if ops.len() == n_ops as usize {
                    return err(
                        at,
                        DecodeErrorKind::BlockCountMismatch {
                            node,
                            what: "operations",
                        },
                    );
                }
                let code_at = r.at();
                let code = r.u8("opcode")?;
                let op = if tag == TAG_OP {
                    match Operation::simple_from_opcode(code) {
                        Some(op) => op,
                        None => return err(code_at, unknown_or_mismatch(code, true)),
                    }
                } else {
                    let imm_at = r.at();
                    let imm = r.vint("immediate")?;
                    match Operation::with_immediate(code, imm) {
                        Ok(op) => op,
                        Err(true) if code == crate::ops::OPCODE_PUSH => {
                            return err(imm_at, DecodeErrorKind::NonCanonicalFelt("push immediate"))
                        }
                        Err(true) => {
                            return err(
                                imm_at,
                                DecodeErrorKind::ValueOutOfRange {
                                    field: "error code",
                                    value: imm,
                                },
                            )
                        }
                        Err(false) => return err(code_at, unknown_or_mismatch(code, false)),
                    }
                };
                ops.push(op);
            } else {
                if decorators.len() == n_decs as usize {
                    return err(
                        at,
                        DecodeErrorKind::BlockCountMismatch {
                            node,
                            what: "decorators",
                        },
                    );
                }
                let d = self.decode_decorator(tag, at, &mut r, string)?;
                decorators.push((ops.len() as u32, d));
            }
        }
        *end = start + r.pos;
        Ok(BasicBlock { ops, decorators })
    }

    fn decode_decorator(
        &self,
        tag: u8,
        at: usize,
        r: &mut Reader<'_>,
        string: &mut dyn FnMut(u64, usize) -> Result<StringId>,
    ) -> Result<Decorator> {
        let read_bool = |r: &mut Reader<'_>, field: &'static str| -> Result<bool> {
            let at = r.at();
            match r.u8(field)? {
                0 => Ok(false),
                1 => Ok(true),
                value => err(at, DecodeErrorKind::BadBool { field, value }),
            }
        };
        Ok(match tag {
            TAG_ADVICE => {
                let t_at = r.at();
                let t = r.u8("advice tag")?;
                Decorator::Advice(match t {
                    3 => {
                        let include_len = read_bool(r, "include_len")?;
                        let key_offset = r.vint("key offset")?;
                        AdviceInjector::MapValueToStack {
                            include_len,
                            key_offset,
                        }
                    }
                    16 => {
                        let d_at = r.at();
                        let v = r.vint("domain")?;
                        match Felt::new(v) {
                            Some(domain) => AdviceInjector::HdwordToMap { domain },
                            None => return err(d_at, DecodeErrorKind::NonCanonicalFelt("domain")),
                        }
                    }
                    18 => {
                        let k_at = r.at();
                        match r.u8("signature kind")? {
                            0 => AdviceInjector::SigToStack {
                                kind: SignatureKind::RpoFalcon512,
                            },
                            k => return err(k_at, DecodeErrorKind::UnknownSignatureKind(k)),
                        }
                    }
                    t => match AdviceInjector::unit_from_tag(t) {
                        Some(a) => a,
                        None => return err(t_at, DecodeErrorKind::UnknownAdviceTag(t)),
                    },
                })
            }
            TAG_ASMOP => {
                let num_cycles = r.u8("num_cycles")?;
                let should_break = read_bool(r, "should_break")?;
                let op_at = r.at();
                let op = r.vint("string index")?;
                let op = string(op, op_at)?;
                let ctx_at = r.at();
                let ctx = r.vint("string index")?;
                let context_name = string(ctx, ctx_at)?;
                Decorator::AsmOp(AsmOp {
                    context_name,
                    op,
                    num_cycles,
                    should_break,
                })
            }
            TAG_STACK_ALL => Decorator::StackAll,
            TAG_STACK_TOP => Decorator::StackTop(r.u8("stack top count")?),
            t => return err(at, DecodeErrorKind::UnknownEntryTag(t)),
        })
    }

    /// Decodes only the tree of root `root` (see the module docs).
    pub fn decode_tree(&self, root: u32, opts: DecodeOptions) -> Result<MastForest> {
        let mut out = MastForestBuilder::new();
        let mut strings = StringTable::default();
        let mut st = StringState::default();
        let mut map: HashMap<u32, MastNodeId> = HashMap::new();
        let mut budget = self.data_size;
        let mut stack = vec![(root, false)];
        while let Some((i, expanded)) = stack.pop() {
            if map.contains_key(&i) {
                continue;
            }
            let rec = self.record(i)?;
            if i != root && self.is_root(i) {
                let id = out.push_unchecked(MastNode::External(rec.digest), rec.digest);
                map.insert(i, id);
                continue;
            }
            if !expanded {
                stack.push((i, true));
                let children: Vec<u32> = rec.children().collect();
                for c in children.into_iter().rev() {
                    stack.push((c, false));
                }
                continue;
            }
            let node = self.decode_node(
                i,
                &rec,
                &mut budget,
                &mut 0,
                &mut |idx, at| self.decode_string(idx, at, &mut st, &mut strings),
                |c| map[&c],
            )?;
            let digest = if opts.trust_digests {
                rec.digest
            } else {
                let computed = node.compute_digest(|c| out.digest(c).unwrap_or_default());
                if computed != rec.digest {
                    return err(
                        self.infos_offset + i as usize * NODE_INFO_SIZE + 16,
                        DecodeErrorKind::DigestMismatch {
                            node: i,
                            recorded: rec.digest,
                            computed,
                        },
                    );
                }
                computed
            };
            let id = out.push_unchecked(node, digest);
            map.insert(i, id);
        }
        let new_root = map[&root];
        out.add_root(new_root).map_err(|_| DecodeError {
            offset: 0,
            kind: DecodeErrorKind::Truncated("internal"),
        })?;
        let mut forest = out.build();
        forest.strings = strings;
        if self.entrypoint == Some(root) {
            forest.entrypoint = Some(new_root);
        }
        Ok(forest)
    }
}

#[derive(Default)]
struct StringState {
    cache: HashMap<u64, StringId>,
    total: usize,
}

fn layout_error(what: &'static str, expected: usize, found: usize) -> DecodeErrorKind {
    DecodeErrorKind::DataLayout {
        what,
        expected: expected as u64,
        found: found as u64,
    }
}

fn unknown_or_mismatch(code: u8, under_plain_tag: bool) -> DecodeErrorKind {
    let takes_imm = Operation::with_immediate(code, 0).is_ok();
    let exists = takes_imm || Operation::simple_from_opcode(code).is_some();
    if !exists {
        DecodeErrorKind::UnknownOpcode(code)
    } else {
        DecodeErrorKind::ImmediateMismatch {
            opcode: code,
            expects_immediate: under_plain_tag,
        }
    }
}

/// Decodes a whole forest from `bytes`.
pub fn decode(bytes: &[u8], opts: DecodeOptions) -> Result<MastForest> {
    EncodedForest::parse(bytes)?.decode(opts)
}

/// Decodes only the tree of the root whose digest is `root`; references to
/// other roots become `External` nodes.
pub fn decode_root(bytes: &[u8], root: &Digest, opts: DecodeOptions) -> Result<MastForest> {
    let f = EncodedForest::parse(bytes)?;
    let i = f.find_root(root)?;
    f.decode_tree(i, opts)
}
