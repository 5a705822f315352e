//! The assembly-op tables of a miden-core 0.23 debug-info section, and the
//! `AsmOp` decorators they carry for the forest's blocks.
//!
//! ```text
//! data      Vec<u8>     per assembly op: cycles u8, a location flag and,
//!                       if set, the file's string index (usize), start and
//!                       end (u32); the context name's and the
//!                       instruction's string indices (usize)
//! strings   Vec<usize>  offsets into the string data, where each string is
//!           Vec<u8>     a usize length and its UTF-8 bytes
//! records   Vec<u32>    each assembly op's offset in the data
//! table     Vec<(usize, u32)>, Vec<usize>
//!                       a CSR matrix with a row per node (rows may stop
//!                       before the last node): the operation index, with
//!                       padding, where an instruction starts, and its
//!                       assembly op, in increasing operation order
//! ```
//!
//! An `AsmOp` decorator before operation `i` is the entry `(i, op)` of its
//! block's row. Decoding checks the tables against the forest and reads
//! them into the forest's debug info: the records, their strings interned
//! in the forest, and where they are placed, by node and operation (a
//! block's operations counted without padding). They stay there rather
//! than on the blocks as decorators (the core library has 75,714
//! placements, which as decorators would cost more than the rest of its
//! decoding); a conversion puts those of blocks on them. Other nodes have
//! rows too (the assembly op of a `call`, of a loop...), which decorators
//! cannot hold. 0.23 assembly ops have no `should_break` flag, start at an
//! operation (not after the last one) and one at a time: a decorator that
//! is none of these is a typed error when written. Read back, an assembly
//! op follows the other decorators of its operation. Writing keeps the
//! records of the debug info and their numbers, numbers the `AsmOp`
//! decorators of blocks after them in order of first use, interns strings
//! in order of first use, and gives rows to the nodes up to the last one
//! with an assembly op.

use core::num::NonZeroU32;
use std::collections::HashMap;

use crate::debug_info::{DebugInfo, Placement};
use crate::decorator::{AsmOp, Decorator, LocationId, SourceLocation, StringId};
use crate::forest::{MastForest, MastNode, MastNodeId};
use crate::format::{err, DecodeErrorKind, EncodeError, Result};

use super::cursor::{put_u32, put_usize, Cursor};
use super::v023::Paddings;

/// An assembly op as read: cycles, location (file, start, end), context
/// name, instruction; strings by their index in the string table.
pub(crate) struct Record {
    cycles: u8,
    location: Option<(usize, u32, u32)>,
    context: usize,
    op: usize,
}

/// The tables, read: the strings, the records and the matrix (its
/// (padded operation, record) entries and row pointers), with the offset to
/// name when they do not fit the forest.
pub(crate) struct AsmOps<'a> {
    strings: Vec<&'a str>,
    records: Vec<Record>,
    entries: Vec<(usize, u32)>,
    rows: Vec<usize>,
    table_at: usize,
}

/// Reads the tables, checking every index, string and pointer.
pub(crate) fn read<'a>(c: &mut Cursor<'a>) -> Result<AsmOps<'a>> {
    let data_len = c.count("assembly-op data", 1)?;
    let data_at = c.at();
    let data = c.take(data_len, "assembly-op data")?;
    let strings = read_strings(c)?;
    let offsets = c.u32_list("assembly-op records", "assembly-op record")?;
    let mut records = Vec::with_capacity(offsets.len());
    for (at, offset) in offsets {
        if offset as usize >= data.len() {
            return err(at, DecodeErrorKind::Invalid("assembly-op data offset"));
        }
        let mut d = Cursor::new(data, offset as usize);
        let record = read_record(&mut d, &strings).map_err(|e| e.shifted(data_at))?;
        records.push(record);
    }
    let table_at = c.at();
    let n = c.count("assembly-op ids", 5)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let op = c.usize("operation index")?;
        let at = c.at();
        let id = c.u32("assembly-op id")?;
        if id as usize >= records.len() {
            return err(at, DecodeErrorKind::Invalid("assembly-op id"));
        }
        entries.push((usize::try_from(op).unwrap_or(usize::MAX), id));
    }
    let index_at = c.at();
    let n = c.count("assembly-op index", 1)?;
    let mut rows = Vec::with_capacity(n);
    for _ in 0..n {
        rows.push(usize::try_from(c.usize("assembly-op index")?).unwrap_or(usize::MAX));
    }
    let valid = rows.is_empty()
        || (rows[0] == 0
            && rows.windows(2).all(|w| w[0] <= w[1])
            && rows.last() == Some(&entries.len()));
    if !valid {
        return err(index_at, DecodeErrorKind::Invalid("assembly-op index"));
    }
    Ok(AsmOps {
        strings,
        records,
        entries,
        rows,
        table_at,
    })
}

/// A string table: offsets into its data, where each string is a length
/// and its bytes, all checked.
fn read_strings<'a>(c: &mut Cursor<'a>) -> Result<Vec<&'a str>> {
    let offsets_at = c.at();
    let n = c.count("string offsets", 1)?;
    let mut offsets = Vec::with_capacity(n);
    for _ in 0..n {
        offsets.push(c.usize("string offset")?);
    }
    let len = c.count("string data", 1)?;
    let data_at = c.at();
    let data = c.take(len, "string data")?;
    let mut strings = Vec::with_capacity(n);
    for offset in offsets {
        let Some(offset) = usize::try_from(offset).ok().filter(|&o| o <= data.len()) else {
            return err(offsets_at, DecodeErrorKind::Invalid("string offset"));
        };
        let s = Cursor::new(data, offset).string("string");
        strings.push(s.map_err(|e| e.shifted(data_at))?);
    }
    Ok(strings)
}

fn read_record(d: &mut Cursor<'_>, strings: &[&str]) -> Result<Record> {
    let string = |d: &mut Cursor<'_>| -> Result<usize> {
        let at = d.at();
        let i = d.usize("string index")?;
        match usize::try_from(i).ok().filter(|&i| i < strings.len()) {
            Some(i) => Ok(i),
            None => err(at, DecodeErrorKind::Invalid("string index")),
        }
    };
    let cycles = d.u8("cycles")?;
    let location = if d.bool("location flag")? {
        let file = string(d)?;
        Some((file, d.u32("location start")?, d.u32("location end")?))
    } else {
        None
    };
    let context = string(d)?;
    let op = string(d)?;
    Ok(Record {
        cycles,
        location,
        context,
        op,
    })
}

/// Checks the matrix against `forest` (rows of existing nodes, operation
/// indices of blocks increasing and within them) and reads the records
/// into it, their strings and locations interned: the records, and where
/// they are (a block's operations counted without padding).
pub(crate) fn place(
    tables: &AsmOps<'_>,
    forest: &mut MastForest,
    paddings: &Paddings,
) -> Result<(Vec<AsmOp>, Vec<Placement>)> {
    let bad = |what| err(tables.table_at, DecodeErrorKind::Invalid(what));
    let mut placements = Vec::with_capacity(tables.entries.len());
    for (node, w) in tables.rows.windows(2).enumerate() {
        let row = &tables.entries[w[0]..w[1]];
        if row.is_empty() {
            continue;
        }
        let node_id = MastNodeId(node as u32);
        let block = match forest.nodes.get(node) {
            Some(MastNode::Block(block)) => block,
            Some(_) => {
                for &(op, id) in row {
                    let Ok(operation) = u32::try_from(op) else {
                        return bad("assembly-op operation index");
                    };
                    placements.push(Placement {
                        node: node_id,
                        operation,
                        id,
                    });
                }
                continue;
            }
            None => return bad("assembly ops of a node that does not exist"),
        };
        let mut unpad = paddings.of(node, block.ops.len());
        let mut previous = None;
        for &(op, id) in row {
            if op >= unpad.padded_len || previous.is_some_and(|p| op <= p) {
                return bad("assembly-op operation index");
            }
            previous = Some(op);
            let operation = unpad.index(op) as u32;
            placements.push(Placement {
                node: node_id,
                operation,
                id,
            });
        }
    }
    let mut interner = Interner::new(tables);
    let records = tables.records.iter();
    let records = records
        .map(|r| interner.asm_op(tables, r, forest))
        .collect();
    Ok((records, placements))
}

/// Puts the assembly ops of `info` placed at blocks of `forest` on them as
/// `AsmOp` decorators, after the other decorators of their operation.
pub(crate) fn put_on_blocks(info: &DebugInfo, forest: &mut MastForest) {
    let mut placements = info.asm_op_placements().iter().peekable();
    while let Some(&&Placement { node, .. }) = placements.peek() {
        let row = std::iter::from_fn(|| placements.next_if(|p| p.node == node));
        let Some(MastNode::Block(block)) = forest.nodes.get_mut(node.index()) else {
            row.for_each(drop);
            continue;
        };
        let lifted = row.map(|p| (p.operation, Decorator::AsmOp(info.asm_ops()[p.id as usize])));
        // A stable merge: at an operation, the other decorators first.
        let others = std::mem::take(&mut block.decorators);
        let mut others = others.into_iter().peekable();
        for (i, d) in lifted {
            block
                .decorators
                .extend(std::iter::from_fn(|| others.next_if(|o| o.0 <= i)));
            block.decorators.push((i, d));
        }
        block.decorators.extend(others);
    }
}

/// Records made `AsmOp`s of a forest, each string and location interned
/// once, on first use.
struct Interner {
    strings: Vec<Option<StringId>>,
    locations: HashMap<SourceLocation, LocationId>,
}

impl Interner {
    fn new(tables: &AsmOps<'_>) -> Self {
        // At most a location per record (each read from at least 9 bytes of
        // input): reserving them spares the map's rehashing as it grows.
        Interner {
            strings: vec![None; tables.strings.len()],
            locations: HashMap::with_capacity(tables.records.len()),
        }
    }

    fn string(&mut self, tables: &AsmOps<'_>, i: usize, forest: &mut MastForest) -> StringId {
        *self.strings[i].get_or_insert_with(|| forest.strings.intern(tables.strings[i]))
    }

    fn asm_op(&mut self, tables: &AsmOps<'_>, r: &Record, forest: &mut MastForest) -> AsmOp {
        let location = r.location.map(|(file, start, end)| {
            let location = SourceLocation {
                path: self.string(tables, file, forest),
                start,
                end,
            };
            *self.locations.entry(location).or_insert_with(|| {
                forest.locations.push(location);
                LocationId(NonZeroU32::MIN.saturating_add(forest.locations.len() as u32 - 1))
            })
        });
        AsmOp {
            location,
            context_name: self.string(tables, r.context, forest),
            op: self.string(tables, r.op, forest),
            num_cycles: r.cycles,
            should_break: false,
        }
    }
}

/// The tables of the assembly ops of `info` and of `forest`'s `AsmOp`
/// decorators; `links` are each block's decorators at operation indices
/// with padding. The records of `info` keep their numbers, new ones are
/// numbered in order of first use.
pub(crate) fn build(
    forest: &MastForest,
    info: Option<&DebugInfo>,
    links: &[Vec<(usize, Decorator)>],
    format: &'static str,
) -> Result<Vec<u8>, EncodeError> {
    let mut records: Vec<AsmOp> = info.map_or_else(Vec::new, |i| i.asm_ops().to_vec());
    let mut ids: HashMap<AsmOp, u32> = HashMap::with_capacity(records.len());
    for (id, a) in records.iter().enumerate().rev() {
        ids.insert(*a, id as u32);
    }
    let mut rows = placed_rows(forest, info);
    for (node, node_links) in links.iter().enumerate() {
        let MastNode::Block(block) = &forest.nodes()[node] else {
            continue;
        };
        check(block, node, format)?;
        let placed = rows.get(node).is_some_and(|row| !row.is_empty());
        let mut row: Vec<(usize, u32)> = Vec::new();
        for &(op, d) in node_links {
            let Decorator::AsmOp(a) = d else { continue };
            let id = *ids.entry(a).or_insert_with(|| {
                records.push(a);
                records.len() as u32 - 1
            });
            row.push((op, id));
        }
        if row.is_empty() {
            continue;
        }
        if rows.len() <= node {
            rows.resize(node + 1, Vec::new());
        }
        rows[node].extend(row);
        if placed {
            rows[node].sort_by_key(|&(op, _)| op);
            if rows[node].windows(2).any(|w| w[0].0 == w[1].0) {
                return Err(EncodeError::unrepresentable(
                    format,
                    format!("node {node}: two AsmOps at one operation"),
                ));
            }
        }
    }
    Ok(write_tables(forest, &records, &rows))
}

/// The rows of the assembly ops `info` places, at operation indices with
/// padding, up to the last node with one.
fn placed_rows(forest: &MastForest, info: Option<&DebugInfo>) -> Vec<Vec<(usize, u32)>> {
    let Some(info) = info else { return Vec::new() };
    let placements = info.asm_op_placements();
    let mut rows = vec![Vec::new(); placements.last().map_or(0, |p| p.node.index() + 1)];
    let mut placements = placements.iter().peekable();
    while let Some(&&Placement { node, .. }) = placements.peek() {
        let row = std::iter::from_fn(|| placements.next_if(|p| p.node == node));
        let row: Vec<_> = row.map(|p| (p.operation, p.id)).collect();
        rows[node.index()] = match forest.nodes().get(node.index()) {
            Some(MastNode::Block(block)) => super::debug_info_write::padded(block, &row),
            _ => row.iter().map(|&(op, id)| (op as usize, id)).collect(),
        };
    }
    rows
}

/// Whether 0.23 can express the `AsmOp` decorators of `block`, node `node`:
/// none breaks, none follows the last operation, no two share an
/// operation, and none precedes another decorator of its operation (read
/// back, it would follow it).
pub(crate) fn check(
    block: &crate::block::BasicBlock,
    node: usize,
    format: &'static str,
) -> Result<(), EncodeError> {
    let mut previous = None;
    for &(i, d) in block.decorators() {
        let Decorator::AsmOp(a) = d else {
            if previous == Some(i) {
                return Err(EncodeError::unrepresentable(
                    format,
                    format!("node {node}: an AsmOp before another decorator of its operation"),
                ));
            }
            continue;
        };
        let what = if a.should_break {
            "an AsmOp that breaks (0.23 assembly ops have no break flag)"
        } else if i as usize == block.ops().len() {
            "an AsmOp after the last operation"
        } else if previous == Some(i) {
            "two AsmOps at one operation"
        } else {
            previous = Some(i);
            continue;
        };
        return Err(EncodeError::unrepresentable(
            format,
            format!("node {node}: {what}"),
        ));
    }
    Ok(())
}

fn write_tables(forest: &MastForest, records: &[AsmOp], rows: &[Vec<(usize, u32)>]) -> Vec<u8> {
    let mut string_index: HashMap<StringId, usize> = HashMap::new();
    let (mut offsets, mut string_data) = (Vec::new(), Vec::new());
    let mut index_of = |id: StringId| -> usize {
        let next = offsets.len();
        *string_index.entry(id).or_insert_with(|| {
            let s = forest.strings().get(id).unwrap_or_default();
            offsets.push(string_data.len());
            put_usize(&mut string_data, s.len());
            string_data.extend_from_slice(s.as_bytes());
            next
        })
    };
    let (mut data, mut record_offsets) = (Vec::new(), Vec::with_capacity(records.len()));
    for a in records {
        record_offsets.push(data.len() as u32);
        data.push(a.num_cycles);
        let location = a.location.and_then(|l| forest.location(l));
        data.push(location.is_some() as u8);
        if let Some(l) = location {
            put_usize(&mut data, index_of(l.path));
            put_u32(&mut data, l.start);
            put_u32(&mut data, l.end);
        }
        put_usize(&mut data, index_of(a.context_name));
        put_usize(&mut data, index_of(a.op));
    }
    let mut out = Vec::new();
    put_usize(&mut out, data.len());
    out.extend_from_slice(&data);
    put_usize(&mut out, offsets.len());
    offsets.iter().for_each(|&o| put_usize(&mut out, o));
    put_usize(&mut out, string_data.len());
    out.extend_from_slice(&string_data);
    put_usize(&mut out, record_offsets.len());
    record_offsets.iter().for_each(|&o| put_u32(&mut out, o));
    let entries: usize = rows.iter().map(Vec::len).sum();
    put_usize(&mut out, entries);
    for &(op, id) in rows.iter().flatten() {
        put_usize(&mut out, op);
        put_u32(&mut out, id);
    }
    if rows.is_empty() {
        put_usize(&mut out, 0);
    } else {
        put_usize(&mut out, rows.len() + 1);
        let mut end = 0;
        put_usize(&mut out, 0);
        for row in rows {
            end += row.len();
            put_usize(&mut out, end);
        }
    }
    out
}
