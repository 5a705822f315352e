//! The wire format of miden-core 0.10 (`MAST\0`, version `[0, 0, 0]`).
//!
//! ```text
//! magic        5 bytes  b"MAST\0"
//! version      3 bytes  [0, 0, 0]
//! node_count   usize
//! roots        Vec<u32>            node indices, in the forest's root order
//! strings      Vec<u32>            offsets into `data` of each string
//! data         Vec<u8>             the blocks' entries, back to back in node
//!                                  order, then the strings (each a usize
//!                                  length and UTF-8 bytes), in first-use order
//! nodes        node_count records: a u64 entry, then the 32-byte digest
//! ```
//!
//! A node entry is `tag << 60 | payload`; tags 0 Join, 1 Split, 2 Loop,
//! 3 Block, 4 Call, 5 SysCall, 6 Dyn, 7 External. Two-field payloads are
//! `a << 30 | b` with 30-bit fields (Join/Split children; a block's data
//! offset and its number of operations plus decorators); one-field payloads
//! (Loop body, callee) are the low 32 bits. Children precede their parents.
//!
//! A block's entries are its operations and decorators in program order, a
//! decorator before the operation it is attached to. An operation is its
//! opcode byte (below `0x80`) and, for `push`, the value as a `u64`, for
//! `assert`/`mpverify`/`u32assert2`, the error code as a `u32`. A decorator
//! is `0x80 | variant` and its payload: advice injectors 0-18 (in
//! [`AdviceInjector::tag`] order; `MapValueToStack` a bool and a usize key
//! offset, `HdwordToMap` the domain as a `u64`), `AssemblyOp` 19 (cycles u8,
//! should_break bool, has-location bool, context name and op as usize
//! string indices), then `StackAll` 20, `StackTop` 21 (u8), `MemAll` 22,
//! `MemInterval` 23 (two u32), `LocalInterval` 24 (three u16), `Event` 25
//! (u32), `Trace` 26 (u32).
//!
//! The decoder accepts exactly what miden-core 0.10 writes: data laid out as
//! above with nothing unused, unused entry fields zero, no repeated root, so
//! that re-encoding gives the input back.

use crate::block::BasicBlock;
use crate::decorator::{AdviceInjector, AsmOp, Decorator, SignatureKind, SourceLocation, StringId};
use crate::forest::{MastForest, MastForestBuilder, MastNode, MastNodeId};
use crate::format::{err, DecodeErrorKind, DecodeOptions, EncodeError, Result};
use crate::ops::{Isa, Operation};

use super::cursor::{put_str, put_u32, put_u64, put_usize, put_word, Cursor};
use super::debug_info::{self, check_expressible};
use super::{check_encodable, settle_digests, Pending};

/// The header: magic and version.
pub const HEADER: [u8; 8] = *b"MAST\0\0\0\0";
const NODE_RECORD_SIZE: usize = 40;
const DECORATOR_BIT: u8 = 0x80;
const ASMOP: u8 = 19;
const STACK_ALL: u8 = 20;
const STACK_TOP: u8 = 21;
const MEM_ALL: u8 = 22;
const MEM_INTERVAL: u8 = 23;
const LOCAL_INTERVAL: u8 = 24;
const EVENT: u8 = 25;
const TRACE: u8 = 26;

/// The sections of a 0.10 forest, located but not decoded.
struct Layout<'a> {
    node_count: usize,
    roots: Vec<(usize, u32)>,
    strings: Vec<(usize, u32)>,
    data: &'a [u8],
    data_at: usize,
    nodes_at: usize,
}

fn read_layout<'a>(c: &mut Cursor<'a>) -> Result<Layout<'a>> {
    let node_count = c.count("node count", NODE_RECORD_SIZE)?;
    let roots = c.u32_list("roots", "root")?;
    let strings = c.u32_list("strings", "string offset")?;
    let len = c.count("data", 1)?;
    let data_at = c.at();
    let data = c.take(len, "data")?;
    let nodes_at = c.at();
    c.take(node_count * NODE_RECORD_SIZE, "node records")?;
    Ok(Layout {
        node_count,
        roots,
        strings,
        data,
        data_at,
        nodes_at,
    })
}

/// Whether `bytes` (after the 8-byte header) lay out as a 0.10 forest; the
/// draft format shares the header, and this is how the two are told apart.
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    read_layout(&mut Cursor::new(bytes, HEADER.len())).is_ok()
}

/// Decodes a 0.10 forest from `bytes[start..]` (after the header);
/// returns it and the offset where it ends.
pub(crate) fn decode(
    bytes: &[u8],
    start: usize,
    opts: DecodeOptions,
) -> Result<(MastForest, usize)> {
    let mut c = Cursor::new(bytes, start);
    let layout = read_layout(&mut c)?;
    let mut b = MastForestBuilder::new_in(Isa::V0_10);
    let mut strings = StringReader::new(&layout);
    let mut data_pos = 0usize;
    let mut pending = Vec::new();
    for i in 0..layout.node_count {
        let at = layout.nodes_at + i * NODE_RECORD_SIZE;
        let mut r = Cursor::new(bytes, at);
        let entry = r.u64("node entry")?;
        let recorded = r.word("node digest")?;
        let entry = NodeEntry::new(entry, i, at);
        let (tag, payload) = (entry.tag, entry.payload);
        let node = match tag {
            0..=2 | 4 | 5 => entry.control()?,
            6 | 7 if payload != 0 => {
                return err(at, DecodeErrorKind::NonZeroPadding("unused entry payload"))
            }
            6 => MastNode::Dyn,
            7 => MastNode::External(recorded),
            3 => {
                let (offset, len) = entry.pair();
                if offset as usize != data_pos {
                    return err(
                        at,
                        DecodeErrorKind::DataLayout {
                            what: "block",
                            expected: data_pos as u64,
                            found: offset as u64,
                        },
                    );
                }
                let mut d = Cursor::new(layout.data, data_pos);
                let block = decode_block(&mut d, len, &mut strings, &mut b)
                    .map_err(|e| e.shifted(layout.data_at))?;
                data_pos = d.at();
                MastNode::Block(block)
            }
            _ => return entry.unknown_tag(),
        };
        let id = b.push_unchecked(node, recorded);
        if !opts.trust_digests {
            let recorded = Some((recorded, at + 8));
            pending.push(Pending {
                node: id,
                recorded,
                groups: None,
            });
        }
    }
    strings.finish(&b, data_pos)?;
    settle_digests(&mut b, &pending, &[], Isa::V0_10)?;
    add_roots(&mut b, &layout.roots, layout.node_count)?;
    Ok((b.finish(), c.at()))
}

/// An 8-byte node entry, as every released layout writes it: a 4-bit tag
/// and a 60-bit payload.
pub(crate) struct NodeEntry {
    pub(crate) tag: u8,
    pub(crate) payload: u64,
    /// The node's index.
    node: usize,
    /// Where the entry is.
    at: usize,
}

impl NodeEntry {
    /// The entry of node `node`, read at `at`.
    pub(crate) fn new(entry: u64, node: usize, at: usize) -> Self {
        NodeEntry {
            tag: (entry >> 60) as u8,
            payload: entry & ((1 << 60) - 1),
            node,
            at,
        }
    }

    /// The payload as two 30-bit values.
    pub(crate) fn pair(&self) -> (u32, u32) {
        (
            (self.payload >> 30) as u32,
            (self.payload & 0x3fff_ffff) as u32,
        )
    }

    /// The payload as one 32-bit value.
    pub(crate) fn single(&self) -> Result<u32> {
        u32::try_from(self.payload).or_else(|_| {
            err(
                self.at,
                DecodeErrorKind::Invalid("entry payload exceeds 32 bits"),
            )
        })
    }

    /// The join, split, loop, call or syscall of tags 0, 1, 2, 4 and 5,
    /// which every released layout encodes alike: children by earlier ids.
    pub(crate) fn control(&self) -> Result<MastNode> {
        let child = |id: u32| child_id(self.node, id, self.at);
        let (first, second) = self.pair();
        Ok(match self.tag {
            0 => MastNode::Join {
                left: child(first)?,
                right: child(second)?,
            },
            1 => MastNode::Split {
                on_true: child(first)?,
                on_false: child(second)?,
            },
            2 => MastNode::Loop {
                body: child(self.single()?)?,
            },
            4 | 5 => MastNode::Call {
                callee: child(self.single()?)?,
                is_syscall: self.tag == 5,
            },
            _ => return self.unknown_tag(),
        })
    }

    /// The error of a tag the layout does not define.
    pub(crate) fn unknown_tag<T>(&self) -> Result<T> {
        err(
            self.at,
            DecodeErrorKind::UnknownNodeTag {
                node: self.node as u32,
                tag: self.tag,
            },
        )
    }
}

/// The child `id` of node `i` (whose record is at `at`): an earlier node.
pub(crate) fn child_id(i: usize, id: u32, at: usize) -> Result<MastNodeId> {
    if id as usize >= i {
        return err(
            at,
            DecodeErrorKind::ForwardReference {
                node: i as u32,
                child: id,
            },
        );
    }
    Ok(MastNodeId(id))
}

/// Adds the roots in file order; a repeated root is refused, since Miden's
/// forests hold each root once.
pub(crate) fn add_roots(b: &mut MastForestBuilder, roots: &[(usize, u32)], n: usize) -> Result<()> {
    let mut seen = vec![false; n];
    for &(at, r) in roots {
        let Some(flag) = seen.get_mut(r as usize) else {
            return err(
                at,
                DecodeErrorKind::NodeOutOfRange {
                    index: r,
                    count: n as u32,
                },
            );
        };
        if std::mem::replace(flag, true) {
            return err(at, DecodeErrorKind::NonCanonical("repeated root"));
        }
        b.push_root_unchecked(MastNodeId(r));
    }
    Ok(())
}

/// The strings of the data section, checked for the layout miden-core
/// writes: interned in first-use order, stored after the blocks.
struct StringReader<'a> {
    layout: &'a Layout<'a>,
    /// For each string index, its id in the forest once first used.
    ids: Vec<Option<StringId>>,
    next_new: usize,
}

impl<'a> StringReader<'a> {
    fn new(layout: &'a Layout<'a>) -> Self {
        StringReader {
            layout,
            ids: vec![None; layout.strings.len()],
            next_new: 0,
        }
    }

    /// The string at index `index` of the table, the index read at data offset `at`.
    fn get(&mut self, index: u64, at: usize, b: &mut MastForestBuilder) -> Result<StringId> {
        let count = self.ids.len() as u32;
        let Some(slot) = self.ids.get(index as usize) else {
            return err(at, DecodeErrorKind::StringIndexOutOfRange { index, count });
        };
        if let Some(id) = slot {
            return Ok(*id);
        }
        if index as usize != self.next_new {
            return err(at, DecodeErrorKind::NonCanonical("string table order"));
        }
        let (rec_at, offset) = self.layout.strings[index as usize];
        if offset as usize > self.layout.data.len() {
            let data_size = self.layout.data.len();
            let what = "string";
            return err(
                rec_at,
                DecodeErrorKind::DataOutOfRange {
                    what,
                    offset: offset as u64,
                    len: 0,
                    data_size,
                },
            );
        }
        let mut c = Cursor::new(self.layout.data, offset as usize);
        let s = c
            .string("string")
            .map_err(|e| e.shifted(self.layout.data_at))?;
        let id = b.intern(s);
        if id.index() != index as usize {
            return err(rec_at, DecodeErrorKind::DuplicateString(index as u32));
        }
        self.ids[index as usize] = Some(id);
        self.next_new += 1;
        Ok(id)
    }

    /// Checks that every string was used and that the strings follow the
    /// blocks back to back, ending the data section.
    fn finish(&self, b: &MastForestBuilder, mut pos: usize) -> Result<()> {
        for (i, &(rec_at, offset)) in self.layout.strings.iter().enumerate() {
            let Some(id) = self.ids[i] else {
                return err(rec_at, DecodeErrorKind::NonCanonical("unused string"));
            };
            if offset as usize != pos {
                let (expected, found) = (pos as u64, offset as u64);
                return err(
                    rec_at,
                    DecodeErrorKind::DataLayout {
                        what: "string",
                        expected,
                        found,
                    },
                );
            }
            let len = b.strings().get(id).map_or(0, str::len);
            pos += vint64::encoded_len(len as u64) + len;
        }
        if pos != self.layout.data.len() {
            let unused = self.layout.data.len() - pos;
            return err(
                self.layout.data_at + pos,
                DecodeErrorKind::UnusedData(unused),
            );
        }
        Ok(())
    }
}

fn decode_block(
    d: &mut Cursor<'_>,
    len: u32,
    strings: &mut StringReader<'_>,
    b: &mut MastForestBuilder,
) -> Result<BasicBlock> {
    let start = d.at();
    let mut ops = Vec::new();
    let mut decorators = Vec::new();
    // Each entry takes at least one byte, so the loop is bounded by the data.
    for _ in 0..len {
        let at = d.at();
        let first = d.u8("block entry")?;
        if first & DECORATOR_BIT == 0 {
            ops.push(decode_op(d, first, at)?);
        } else {
            let dec = decode_decorator(d, first & !DECORATOR_BIT, at, strings, b)?;
            decorators.push((ops.len() as u32, dec));
        }
    }
    if ops.is_empty() {
        return err(start, DecodeErrorKind::Invalid("empty basic block"));
    }
    Ok(BasicBlock { ops, decorators })
}

fn decode_op(d: &mut Cursor<'_>, code: u8, at: usize) -> Result<Operation> {
    if let Some(op) = Operation::simple_from_opcode(Isa::V0_10, code) {
        return Ok(op);
    }
    let imm = match code {
        crate::ops::OPCODE_PUSH_0_10 => d.u64("push immediate")?,
        _ if Operation::with_immediate(Isa::V0_10, code, 0).is_ok() => d.u32("error code")? as u64,
        _ => return err(at, DecodeErrorKind::UnknownOpcode(code)),
    };
    Operation::with_immediate(Isa::V0_10, code, imm)
        .or_else(|_| err(at + 1, DecodeErrorKind::NonCanonicalFelt("push immediate")))
}

fn decode_decorator(
    d: &mut Cursor<'_>,
    variant: u8,
    at: usize,
    strings: &mut StringReader<'_>,
    b: &mut MastForestBuilder,
) -> Result<Decorator> {
    if let Some(a) = AdviceInjector::unit_from_tag(variant) {
        return Ok(Decorator::Advice(a));
    }
    Ok(match variant {
        3 => Decorator::Advice(AdviceInjector::MapValueToStack {
            include_len: d.bool("include_len")?,
            key_offset: d.usize("key offset")?,
        }),
        16 => Decorator::Advice(AdviceInjector::HdwordToMap {
            domain: d.felt("domain")?,
        }),
        18 => Decorator::Advice(AdviceInjector::SigToStack {
            kind: SignatureKind::RpoFalcon512,
        }),
        ASMOP => {
            let num_cycles = d.u8("num_cycles")?;
            let should_break = d.bool("should_break")?;
            let location = if d.bool("has location")? {
                let path_at = d.at();
                let path = strings.get(d.usize("location path")?, path_at, b)?;
                let start = d.u32("location start")?;
                let end = d.u32("location end")?;
                Some(b.intern_location(SourceLocation { path, start, end }))
            } else {
                None
            };
            let ctx_at = d.at();
            let context_name = strings.get(d.usize("context name")?, ctx_at, b)?;
            let op_at = d.at();
            let op = strings.get(d.usize("op string")?, op_at, b)?;
            Decorator::AsmOp(AsmOp {
                location,
                context_name,
                op,
                num_cycles,
                should_break,
            })
        }
        EVENT => Decorator::Event(d.u32("event id")?),
        TRACE => Decorator::Trace(d.u32("trace id")?),
        // The five debug decorators are 0.23's first five, with the same
        // fields.
        STACK_ALL..=LOCAL_INTERVAL => match debug_info::decorator_fields(variant - STACK_ALL, d)? {
            Some(decorator) => decorator,
            None => {
                return err(
                    at,
                    DecodeErrorKind::UnknownEntryTag(variant | DECORATOR_BIT),
                )
            }
        },
        _ => {
            return err(
                at,
                DecodeErrorKind::UnknownEntryTag(variant | DECORATOR_BIT),
            )
        }
    })
}

/// The node entry of a control node whose tag and payload both wire
/// versions share (tags 0 Join, 1 Split, 2 Loop, 4 Call, 5 SysCall, 6 Dyn;
/// the children's ids in 30 bits each); 0 for any other node.
pub(crate) fn control_entry(node: &MastNode) -> u64 {
    let pair = |a: MastNodeId, b: MastNodeId| (a.0 as u64) << 30 | b.0 as u64;
    match node {
        MastNode::Join { left, right } => pair(*left, *right),
        MastNode::Split { on_true, on_false } => 1 << 60 | pair(*on_true, *on_false),
        MastNode::Loop { body } => 2 << 60 | body.0 as u64,
        MastNode::Call { callee, is_syscall } => (4 + *is_syscall as u64) << 60 | callee.0 as u64,
        MastNode::Dyn => 6 << 60,
        MastNode::DynCall | MastNode::External(_) | MastNode::Block(_) => 0,
    }
}

/// Encodes `forest` as miden-core 0.10 writes it.
pub(crate) fn encode(forest: &MastForest, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    const FORMAT: &str = "miden 0.10";
    check_encodable(forest, Isa::V0_10, FORMAT)?;
    if !forest.advice_map().is_empty() {
        return Err(EncodeError::unrepresentable(FORMAT, "an advice map"));
    }
    if forest.debug_info().is_some() {
        return Err(EncodeError::unrepresentable(
            FORMAT,
            "miden 0.23 debug info (strip it)",
        ));
    }
    for (i, node) in forest.nodes().iter().enumerate() {
        if let MastNode::Block(b) = node {
            for (_, d) in b.decorators() {
                check_expressible(d, Isa::V0_10, i, FORMAT)?;
            }
        }
    }
    // Strings follow the blocks, in first-use order, which is the forest's
    // interning order for decoded forests and is re-established here.
    let order = first_use_order(forest);
    let mut index = vec![0; forest.strings().len()];
    for (i, id) in order.iter().enumerate() {
        index[id.index()] = i;
    }
    let mut data = Vec::new();
    let mut entries = Vec::with_capacity(forest.len());
    for (i, node) in forest.nodes().iter().enumerate() {
        let entry = match node {
            MastNode::Join { .. }
            | MastNode::Split { .. }
            | MastNode::Loop { .. }
            | MastNode::Call { .. }
            | MastNode::Dyn => control_entry(node),
            MastNode::External(_) => 7 << 60,
            MastNode::DynCall => {
                return Err(EncodeError::unrepresentable(
                    FORMAT,
                    format!("node {i}, a dyncall"),
                ))
            }
            MastNode::Block(block) => {
                let offset = data.len();
                let len = block.ops.len() + block.decorators.len();
                if offset >= 1 << 30 || len >= 1 << 30 {
                    return Err(EncodeError::DataTooLarge);
                }
                let index = StringIndex {
                    strings: &index,
                    locations: &forest.locations,
                };
                encode_block(block, &index, &mut data);
                3 << 60 | (offset as u64) << 30 | len as u64
            }
        };
        entries.push(entry);
    }
    let mut offsets = Vec::with_capacity(order.len());
    for id in &order {
        offsets.push(u32::try_from(data.len()).map_err(|_| EncodeError::DataTooLarge)?);
        put_str(&mut data, forest.strings().get(*id).unwrap_or_default());
    }
    out.extend_from_slice(&HEADER);
    put_usize(out, forest.len());
    put_usize(out, forest.root_order.len());
    for r in forest.roots() {
        put_u32(out, r.0);
    }
    put_usize(out, offsets.len());
    for o in offsets {
        put_u32(out, o);
    }
    put_usize(out, data.len());
    out.extend_from_slice(&data);
    for (entry, digest) in entries.into_iter().zip(&forest.digests) {
        put_u64(out, entry);
        put_word(out, digest);
    }
    Ok(())
}

/// The forest's strings in the order the 0.10 encoder first meets them.
fn first_use_order(forest: &MastForest) -> Vec<StringId> {
    let mut seen = vec![false; forest.strings().len()];
    let mut order = Vec::new();
    for node in forest.nodes() {
        let MastNode::Block(b) = node else { continue };
        for (_, d) in &b.decorators {
            if let Decorator::AsmOp(a) = d {
                // The order miden-core 0.10 writes them in.
                let path = a.location.and_then(|l| forest.location(l)).map(|l| l.path);
                for id in path.into_iter().chain([a.context_name, a.op]) {
                    if !std::mem::replace(&mut seen[id.index()], true) {
                        order.push(id);
                    }
                }
            }
        }
    }
    order
}

fn encode_block(block: &BasicBlock, string_index: &StringIndex<'_>, data: &mut Vec<u8>) {
    let mut decs = block.decorators.iter().peekable();
    for i in 0..=block.ops.len() {
        while let Some((_, d)) = decs.next_if(|(j, _)| *j as usize == i) {
            encode_decorator(d, string_index, data);
        }
        let Some(op) = block.ops.get(i) else { break };
        data.push(op.opcode_in(Isa::V0_10).unwrap_or(0));
        match op {
            Operation::Push(v) => put_u64(data, v.as_u64()),
            Operation::Assert(c) | Operation::MpVerify(c) | Operation::U32assert2(c) => {
                // `check_encodable` checked that the code fits.
                put_u32(data, c.as_u64() as u32)
            }
            _ => {}
        }
    }
}

/// Where a decorator's strings and location are in the file: the string
/// table's index of each interned string, and the forest's locations.
struct StringIndex<'a> {
    strings: &'a [usize],
    locations: &'a [SourceLocation],
}

fn encode_decorator(d: &Decorator, index: &StringIndex<'_>, data: &mut Vec<u8>) {
    let (string_index, locations) = (index.strings, index.locations);
    let tag = |t: u8| t | DECORATOR_BIT;
    match d {
        Decorator::Advice(a) => {
            data.push(tag(a.tag()));
            match a {
                AdviceInjector::MapValueToStack {
                    include_len,
                    key_offset,
                } => {
                    data.push(*include_len as u8);
                    put_usize(data, *key_offset as usize);
                }
                AdviceInjector::HdwordToMap { domain } => put_u64(data, domain.as_u64()),
                _ => {}
            }
        }
        Decorator::AsmOp(a) => {
            data.extend_from_slice(&[tag(ASMOP), a.num_cycles, a.should_break as u8]);
            data.push(a.location.is_some() as u8);
            if let Some(l) = a.location.and_then(|l| locations.get(l.index())) {
                put_usize(data, string_index[l.path.index()]);
                put_u32(data, l.start);
                put_u32(data, l.end);
            }
            put_usize(data, string_index[a.context_name.index()]);
            put_usize(data, string_index[a.op.index()]);
        }
        Decorator::StackAll => data.push(tag(STACK_ALL)),
        Decorator::StackTop(n) => data.extend_from_slice(&[tag(STACK_TOP), *n]),
        Decorator::MemAll => data.push(tag(MEM_ALL)),
        Decorator::MemInterval(a, b) => {
            data.push(tag(MEM_INTERVAL));
            put_u32(data, *a);
            put_u32(data, *b);
        }
        Decorator::LocalInterval(a, b, c) => {
            data.push(tag(LOCAL_INTERVAL));
            for v in [a, b, c] {
                data.extend_from_slice(&v.to_le_bytes());
            }
        }
        Decorator::Event(n) => {
            data.push(tag(EVENT));
            put_u32(data, *n);
        }
        // `encode` refused it.
        Decorator::AdvStackTop(_) => {}
        Decorator::Trace(n) => {
            data.push(tag(TRACE));
            put_u32(data, *n);
        }
    }
}
