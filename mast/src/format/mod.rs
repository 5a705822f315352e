//! The binary format of a MAST forest: specification, encoder and decoder.
//!
//! # Format specification (version 0)
//!
//! This is the draft "MAST binary format" proposal for Miden VM, byte for
//! byte, with the details it leaves open
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
//! The draft's `MastNodeInfo` is `#[repr(C)] { ty: MastNodeType, offset: u32,
//! digest: Digest }` with `MastNodeType` a `#[repr(u8)]` enum whose largest
//! variants carry two `u32`s; laid out by C rules that is 12 + 4 + 32 = 48
//! bytes:
//!
//! ```text
//! 0       tag u8: 0 Join, 1 Split, 2 Loop, 3 Block, 4 Call, 5 SysCall,
//!                 6 Dyn, 7 External (the draft's declaration order)
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
//! Two decisions differ from the draft's sketch and are deliberate:
//!
//! * **Wide block counts.** The draft gives `Block` a `len: u8`, which cannot
//!   count real blocks (Miden's standard library averages ~390 operations per
//!   block). As the document suggests, the `Block` variant uses the padding the
//!   record already has: its operation count is a `u32` in bytes 4..8 and its
//!   decorator count a `u32` in bytes 8..12; byte 1 (the document's `len`) stays
//!   zero. The record is no larger.
//! * **Call targets.** The draft lists a `Digest` as the data of `Call` and
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
//! with the draft's `EncodedOperation` tag byte:
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
//! `AdviceInjector` (see
//! [`AdviceInjector::tag`](crate::decorator::AdviceInjector::tag)). Exactly
//! `a` operations and `b` decorators are read from the block's offset; a
//! block has at least one operation. Because every operation takes at least two bytes and every
//! decorator one, `2a + b`, summed over the decoded blocks, may not exceed
//! `d`, and the lengths of the decoded strings together may not exceed `d`
//! either. The partial decoder, which does not look at the layout of what it
//! skips, relies on these bounds to keep its output a small multiple of the
//! input.
//!
//! ## Decoding
//!
//! The decoder ([`decode()`]) checks everything above and reports the first
//! violation as a [`DecodeError`] naming the byte offset. Digests are
//! recomputed and compared with the records unless
//! [`DecodeOptions::trust_digests`] is set. [`decode_root`] decodes only the
//! tree of one root, found by digest, walking node references from it; a
//! reference to another root of the forest becomes an `External` node with
//! that root's recorded digest, and nothing else of the file is decoded.

mod decode;
mod encode;
pub(crate) mod error;
mod reader;

pub use decode::{decode, decode_root, EncodedForest, NodeRecord};
pub use encode::{encode, EncodeError};
pub(crate) use error::{err, Result};
pub use error::{DecodeError, DecodeErrorKind, DecodeOptions};

use crate::forest::NodeKind;
use crate::ops::Operation;

/// The magic bytes.
pub const MAGIC: &[u8; 5] = b"MAST\0";
/// The format version this crate reads and writes.
pub const VERSION: [u8; 3] = [0, 0, 0];
/// Size of a node record.
pub const NODE_INFO_SIZE: usize = 48;
/// Size of a string record.
pub const STRING_REF_SIZE: usize = 8;

/// Operations without immediate by 0.10 opcode, for the decoder's fast path.
pub(crate) fn simple_by_opcode(code: u8) -> Option<Operation> {
    Operation::simple_from_opcode(crate::ops::Isa::V0_10, code)
}

pub(crate) const TAG_OP: u8 = 0;
pub(crate) const TAG_OP_IMM: u8 = 1;
pub(crate) const TAG_ADVICE: u8 = 2;
pub(crate) const TAG_ASMOP: u8 = 3;
pub(crate) const TAG_STACK_ALL: u8 = 4;
pub(crate) const TAG_STACK_TOP: u8 = 5;

pub(crate) fn kind_tag(kind: NodeKind) -> u8 {
    NodeKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u8
}
