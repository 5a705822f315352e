//! The decoder: the header located and checked, then records, strings and
//! block data decoded on demand, for a whole forest or the tree of one root.

use std::collections::HashMap;

use bitvec::prelude::{BitVec, Lsb0};

use crate::block::BasicBlock;
use crate::decorator::{AdviceInjector, AsmOp, Decorator, SignatureKind, StringId};
use crate::felt::{Digest, Felt};
use crate::forest::{MastForest, MastForestBuilder, MastNode, MastNodeId, NodeKind, StringTable};
use crate::ops::{Isa, Operation};

use super::error::{err, DecodeError, DecodeErrorKind, DecodeOptions, Result};
use super::reader::{le_u32, Reader};
use super::{
    kind_tag, simple_by_opcode, MAGIC, NODE_INFO_SIZE, STRING_REF_SIZE, TAG_ADVICE, TAG_ASMOP,
    TAG_OP, TAG_OP_IMM, TAG_STACK_ALL, TAG_STACK_TOP, VERSION,
};
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
            NodeKind::Dyn | NodeKind::External | NodeKind::DynCall => (false, false),
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
            let digest = self.checked_digest(i, &rec, &node, opts, |c| digests[c.index()])?;
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
            isa: Isa::V0_10,
            nodes,
            digests,
            root_order: roots.iter_ones().map(|i| MastNodeId(i as u32)).collect(),
            roots,
            entrypoint: self.entrypoint.map(MastNodeId),
            strings,
            // The draft has no source locations.
            locations: Vec::new(),
            advice_map: Vec::new(),
            debug_info: None,
        })
    }

    /// The digest of node `i`: its record's when digests are trusted, else
    /// the one computed from `node` and its children's digests, which must
    /// equal the record's.
    fn checked_digest(
        &self,
        i: u32,
        rec: &NodeRecord,
        node: &MastNode,
        opts: DecodeOptions,
        child_digest: impl Fn(MastNodeId) -> Digest,
    ) -> Result<Digest> {
        if opts.trust_digests {
            return Ok(rec.digest);
        }
        let computed = node.compute_digest(Isa::V0_10, child_digest);
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
        Ok(computed)
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
            NodeKind::DynCall => MastNode::DynCall,
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
                if let Some(op) = simple_by_opcode(code) {
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
                    match Operation::simple_from_opcode(Isa::V0_10, code) {
                        Some(op) => op,
                        None => return err(code_at, unknown_or_mismatch(code, true)),
                    }
                } else {
                    let imm_at = r.at();
                    let imm = r.vint("immediate")?;
                    match Operation::with_immediate(Isa::V0_10, code, imm) {
                        Ok(op) => op,
                        Err(true) if code == crate::ops::OPCODE_PUSH_0_10 => {
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
                    location: None,
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
            let digest =
                self.checked_digest(i, &rec, &node, opts, |c| out.digest(c).unwrap_or_default())?;
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
    let takes_imm = Operation::with_immediate(Isa::V0_10, code, 0).is_ok();
    let exists = takes_imm || Operation::simple_from_opcode(Isa::V0_10, code).is_some();
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
