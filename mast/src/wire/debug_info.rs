//! The debug-info section of miden-core 0.23 (version `[0, 0, 3]`), and the
//! decorators it carries for the forest's blocks.
//!
//! The section is, in order: decorator data (`Vec<u8>`), its string table
//! (`Vec<usize>` offsets, `Vec<u8>` data), decorator records, error-code
//! messages (`BTreeMap<u64, String>`), the operation→decorator table, the
//! node→decorator tables (two CSR matrices of `u32`: `before_enter` and
//! `after_exit`), procedure names (`BTreeMap<Word, String>`), assembly-op
//! data, string table and records (`u32` offsets), the operation→assembly-op
//! CSR matrix of `(usize, u32)`, debug variables, and the
//! operation→debug-variable table.
//!
//! A decorator record is a variant byte and a `u32` offset into the
//! decorator data, where its fields are, little-endian: 0 `StackAll`, 1
//! `StackTop` (u8), 2 `MemAll`, 3 `MemInterval` (u32, u32), 4
//! `LocalInterval` (u16 × 3), 5 `AdvStackTop` (u16), 6 `Trace` (u32); a
//! decorator without fields has offset 0. Decorators are numbered by their
//! record's position.
//!
//! The operation→decorator table is a two-level compressed sparse row
//! matrix: decorator ids (`Vec<u32>`), operation pointers and node pointers
//! (`Vec<usize>` each). Node `n` owns the operation pointers
//! `node[n]..node[n + 1]`; its `i`-th operation's decorators are
//! `ids[op[s + i]..op[s + i + 1]]`, `s = node[n]`. Operation indices count
//! the padding `noop`s of the block's batches (see `v023`); a decorator at
//! the block's length runs after its last operation. A table is valid, as
//! miden-core checks it, when it is empty, or its ids are in range and both
//! pointer lists start at 0 and do not decrease, the operation pointers
//! ending at the number of ids and the node pointers at most at the last
//! operation pointer (nodes past the node pointers have no decorators).
//! miden-core builds the table node by node, giving a decorated node
//! pointers up to its last decorated operation and a sentinel, and an
//! undecorated node a sentinel once some node before it was decorated; a
//! forest without decorators has empty ids and pointers and `node + 1` zero
//! node pointers. The debug variables' table has the same layout.
//!
//! A debug variable is a name, a value location (a tag, then 0 a stack
//! position `u8`, 1 a memory address `u32`, 2 a field element, 3 a local
//! offset `i16`, 4 an expression `Vec<u8>`, 5 a global index `u32` and a
//! frame offset `i64`), an optional type id (`u32`), an optional argument
//! index (a non-zero `u32`) and an optional source location (a file, a
//! non-zero line and column, `u32`s); an option is a flag byte and its
//! value.
//!
//! A node→decorator table is one CSR matrix of `u32` decorator ids: the
//! ids (`Vec<u32>`), then row pointers (`Vec<usize>`), row `n` being node
//! `n`'s; as miden-core checks it, it has no rows, or pointers from 0 to the
//! number of ids, non-decreasing, and ids in range; rows stop at the last
//! decorated node (none for a node past the forest).
//!
//! Reading lifts the decorators onto the blocks (indices without padding)
//! and reads the rest into the forest's [`DebugInfo`]: the decorator
//! records in their order, the node decorators, error-code messages,
//! procedure names, the assembly ops and debug variables with the
//! operations they are placed at (see `asm_ops`). A forest read keeps the
//! section's bytes and is written with them, so that every file accepted
//! is written back byte for byte, including layouts miden-core would not
//! write (a record no table uses is kept in memory, but a table's rows past
//! the last node that uses them are not). A forest without section bytes
//! (built, converted or extracted) is written from memory as miden-core
//! writes its own: the records of its debug info in their order, then new
//! decorators and assembly ops in order of first use, the operation tables
//! built node by node as miden-core's `add_decorator_info_for_node` builds
//! them, the node and assembly-op tables with rows up to the last node
//! that has any. Each released 0.23 file is written so byte for byte.

use core::num::NonZeroU32;
use std::collections::HashMap;

use crate::block::BasicBlock;
use crate::debug_info::{DebugVariable, Placement, SourcePosition, VariableLocation};
use crate::decorator::Decorator;
use crate::forest::{DebugInfo, MastForest, MastNode, MastNodeId, NodeDecorators};
use crate::format::{err, DecodeErrorKind, EncodeError, Result};
use crate::ops::Isa;

use super::asm_ops::{self, AsmOps};
use super::cursor::{put_str, put_u32, put_u64, put_usize, put_word, Cursor};
use super::v023::padding_positions;

const STACK_ALL: u8 = 0;
const STACK_TOP: u8 = 1;
const MEM_ALL: u8 = 2;
const MEM_INTERVAL: u8 = 3;
const LOCAL_INTERVAL: u8 = 4;
const ADV_STACK_TOP: u8 = 5;
const TRACE: u8 = 6;

/// A decorated operation read from the section: node, operation index with
/// padding, decorator.
type Link = (usize, usize, Decorator);

/// The section, read: its summary and bytes, and the links of its
/// operation tables with the offset to name when they do not fit the
/// forest.
pub(crate) struct Section<'a> {
    pub(crate) info: DebugInfo,
    links: Vec<Link>,
    table_at: usize,
    node_tables_at: usize,
    asm: AsmOps<'a>,
    /// The debug variables' table: (node, operation with padding, id).
    variable_links: Vec<(usize, usize, u32)>,
    variable_table_at: usize,
}

/// Reads the section, checking every length, string and pointer.
pub(crate) fn read<'a>(c: &mut Cursor<'a>) -> Result<Section<'a>> {
    let start = c.at();
    let data_len = c.count("decorator data", 1)?;
    let data_at = c.at();
    let data = c.take(data_len, "decorator data")?;
    skip_string_table(c)?;
    let n = c.count("decorator records", 5)?;
    let mut decorators = Vec::with_capacity(n);
    for _ in 0..n {
        decorators.push(read_decorator(c, data, data_at)?);
    }
    let n = c.count("error codes", 9)?;
    let mut error_messages = Vec::with_capacity(n);
    for _ in 0..n {
        error_messages.push((c.u64("error code")?, c.string("error message")?.to_string()));
    }
    let table_at = c.at();
    let links = read_csr(c, decorators.len(), &DECORATOR_TABLE)?
        .into_iter()
        .map(|(node, op, id)| (node, op, decorators[id as usize]))
        .collect();
    let node_tables_at = c.at();
    let before_enter = read_node_table(c, &decorators)?;
    let after_exit = read_node_table(c, &decorators)?;
    let node_decorators = zip_node_tables(before_enter, after_exit);
    let n = c.count("procedure names", 33)?;
    let mut procedure_names = Vec::with_capacity(n);
    for _ in 0..n {
        procedure_names.push((
            c.word("procedure digest")?,
            c.string("procedure name")?.to_string(),
        ));
    }
    let asm = asm_ops::read(c)?;
    let debug_variables = read_debug_variables(c)?;
    let variable_table_at = c.at();
    let variable_links = read_csr(c, debug_variables.len(), &DEBUG_VARIABLE_TABLE)?;
    let info = DebugInfo {
        bytes: c.since(start).to_vec(),
        decorators,
        error_messages,
        procedure_names,
        node_decorators,
        debug_variables,
        // Known once placed on a forest.
        asm_ops: Vec::new(),
        asm_op_placements: Vec::new(),
        variable_placements: Vec::new(),
    };
    Ok(Section {
        info,
        links,
        table_at,
        node_tables_at,
        asm,
        variable_links,
        variable_table_at,
    })
}

/// A node→decorator table (a CSR matrix: decorator ids, then row
/// pointers), checked as miden-core checks it: no rows, or pointers from 0
/// to the number of ids, non-decreasing, and ids in range; its non-empty
/// rows, by node. Their nodes are checked against the forest when lifted.
fn read_node_table(
    c: &mut Cursor<'_>,
    decorators: &[Decorator],
) -> Result<Vec<(u32, Vec<Decorator>)>> {
    let ids = c.u32_list("node decorator ids", "node decorator id")?;
    let rows_at = c.at();
    let rows = usizes(c, "node decorator index")?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(&(at, _)) = ids.iter().find(|(_, id)| *id as usize >= decorators.len()) {
        return err(at, DecodeErrorKind::Invalid("node decorator id"));
    }
    let grows = rows.windows(2).all(|w| w[0] <= w[1]);
    if rows[0] != 0 || !grows || rows.last() != Some(&ids.len()) {
        return err(rows_at, DecodeErrorKind::Invalid("node decorator index"));
    }
    let row = |(node, w): (usize, &[usize])| {
        let ids = &ids[w[0]..w[1]];
        let decorators = ids.iter().map(|&(_, id)| decorators[id as usize]);
        (!ids.is_empty()).then(|| (node as u32, decorators.collect()))
    };
    Ok(rows.windows(2).enumerate().filter_map(row).collect())
}

/// A table's non-empty rows, by node.
type NodeRows = std::iter::Peekable<std::vec::IntoIter<(u32, Vec<Decorator>)>>;

/// The nodes with node decorators, in node order, from the non-empty rows
/// of the two tables.
fn zip_node_tables(
    before: Vec<(u32, Vec<Decorator>)>,
    after: Vec<(u32, Vec<Decorator>)>,
) -> Vec<NodeDecorators> {
    let mut nodes = Vec::with_capacity(before.len() + after.len());
    let (mut before, mut after): (NodeRows, NodeRows) =
        (before.into_iter().peekable(), after.into_iter().peekable());
    let take = |rows: &mut NodeRows, node: u32| {
        rows.next_if(|r| r.0 == node).map_or_else(Vec::new, |r| r.1)
    };
    loop {
        let node = match (before.peek(), after.peek()) {
            (None, None) => return nodes,
            (Some(b), Some(a)) => b.0.min(a.0),
            (Some(b), None) => b.0,
            (None, Some(a)) => a.0,
        };
        nodes.push(NodeDecorators {
            node: MastNodeId(node),
            before_enter: take(&mut before, node),
            after_exit: take(&mut after, node),
        });
    }
}

fn skip_vec(c: &mut Cursor<'_>, field: &'static str, size: usize) -> Result<usize> {
    let n = c.count(field, size)?;
    c.take(n * size, field)?;
    Ok(n)
}

fn skip_usizes(c: &mut Cursor<'_>, field: &'static str) -> Result<()> {
    let n = c.count(field, 1)?;
    (0..n).try_for_each(|_| c.usize(field).map(drop))
}

fn skip_string_table(c: &mut Cursor<'_>) -> Result<()> {
    skip_usizes(c, "string offsets")?;
    skip_vec(c, "string data", 1).map(drop)
}

fn usizes(c: &mut Cursor<'_>, field: &'static str) -> Result<Vec<usize>> {
    let n = c.count(field, 1)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        // An index into a vector of the input: bounded by it, or refused
        // when it is compared with that vector's length.
        v.push(usize::try_from(c.usize(field)?).unwrap_or(usize::MAX));
    }
    Ok(v)
}

/// A decorator record and its fields in the decorator data.
fn read_decorator(c: &mut Cursor<'_>, data: &[u8], data_at: usize) -> Result<Decorator> {
    let at = c.at();
    let variant = c.u8("decorator variant")?;
    let offset = c.u32("decorator data offset")? as usize;
    if offset > data.len() {
        return err(at + 1, DecodeErrorKind::Invalid("decorator data offset"));
    }
    // A field read past the data names its offset in the input.
    let mut d = Cursor::new(data, offset);
    match decorator_fields(variant, &mut d).map_err(|e| e.shifted(data_at))? {
        Some(decorator) => Ok(decorator),
        None => err(at, DecodeErrorKind::Invalid("unknown decorator variant")),
    }
}

/// The decorator of 0.23 `variant` with its fields read from `d`; `None`
/// for an unknown variant. (0.10 numbers the first five from 20.)
pub(super) fn decorator_fields(variant: u8, d: &mut Cursor<'_>) -> Result<Option<Decorator>> {
    Ok(Some(match variant {
        STACK_ALL => Decorator::StackAll,
        STACK_TOP => Decorator::StackTop(d.u8("stack top")?),
        MEM_ALL => Decorator::MemAll,
        MEM_INTERVAL => Decorator::MemInterval(d.u32("interval start")?, d.u32("interval end")?),
        LOCAL_INTERVAL => {
            Decorator::LocalInterval(d.u16("local")?, d.u16("local")?, d.u16("local")?)
        }
        ADV_STACK_TOP => Decorator::AdvStackTop(d.u16("advice stack top")?),
        TRACE => Decorator::Trace(d.u32("trace id")?),
        _ => return Ok(None),
    }))
}

/// The names of a two-level CSR table's fields, for errors.
struct CsrFields {
    ids: &'static str,
    id: &'static str,
    ops: &'static str,
    nodes: &'static str,
}

const DECORATOR_TABLE: CsrFields = CsrFields {
    ids: "decorator ids",
    id: "decorator id",
    ops: "operation decorator index",
    nodes: "node operation index",
};

const DEBUG_VARIABLE_TABLE: CsrFields = CsrFields {
    ids: "debug variable ids",
    id: "debug variable id",
    ops: "operation debug variable index",
    nodes: "node debug variable index",
};

/// A two-level CSR table of ids below `count` (see the module docs), as
/// (node, operation with padding, id) links in node and operation order,
/// checked as miden-core checks it: empty, or ids in range, operation
/// pointers from 0 to the number of ids and node pointers from 0 to the last
/// operation pointer, both non-decreasing.
fn read_csr(c: &mut Cursor<'_>, count: usize, f: &CsrFields) -> Result<Vec<(usize, usize, u32)>> {
    let ids = c.u32_list(f.ids, f.id)?;
    let ops_at = c.at();
    let ops = usizes(c, f.ops)?;
    let nodes_at = c.at();
    let node_ptrs = usizes(c, f.nodes)?;
    if ids.is_empty() && ops.is_empty() {
        if node_ptrs.iter().any(|&p| p != 0) {
            return err(nodes_at, DecodeErrorKind::Invalid(f.nodes));
        }
        return Ok(Vec::new());
    }
    if let Some(&(at, _)) = ids.iter().find(|(_, id)| *id as usize >= count) {
        return err(at, DecodeErrorKind::Invalid(f.id));
    }
    let starts_at_zero_and_grows =
        |v: &[usize]| v.first() == Some(&0) && v.windows(2).all(|w| w[0] <= w[1]);
    if !starts_at_zero_and_grows(&ops) || ops.last() != Some(&ids.len()) {
        return err(ops_at, DecodeErrorKind::Invalid(f.ops));
    }
    if !starts_at_zero_and_grows(&node_ptrs) || node_ptrs.last() >= Some(&ops.len()) {
        return err(nodes_at, DecodeErrorKind::Invalid(f.nodes));
    }
    let mut links = Vec::new();
    for (node, w) in node_ptrs.windows(2).enumerate() {
        for op in w[0]..w[1] {
            for &(_, id) in &ids[ops[op]..ops[op + 1]] {
                links.push((node, op - w[0], id));
            }
        }
    }
    Ok(links)
}

/// Debug variables (names, value locations, types and source locations of
/// source variables), checked.
fn read_debug_variables(c: &mut Cursor<'_>) -> Result<Vec<DebugVariable>> {
    // A variable takes at least a name length, a location tag and byte, and
    // three flags.
    let n = c.count("debug variables", 6)?;
    let mut variables = Vec::with_capacity(n);
    for _ in 0..n {
        variables.push(read_debug_variable(c)?);
    }
    Ok(variables)
}

fn read_debug_variable(c: &mut Cursor<'_>) -> Result<DebugVariable> {
    let name = c.string("variable name")?.to_string();
    let at = c.at();
    let location = match c.u8("value location")? {
        0 => VariableLocation::Stack(c.u8("stack position")?),
        1 => VariableLocation::Memory(c.u32("memory address")?),
        2 => VariableLocation::Constant(c.felt("constant value")?),
        3 => VariableLocation::Local(c.u16("local offset")? as i16),
        4 => {
            let len = c.count("expression", 1)?;
            VariableLocation::Expression(c.take(len, "expression")?.to_vec())
        }
        5 => VariableLocation::Global {
            index: c.u32("global index")?,
            frame_offset: c.u64("frame offset")? as i64,
        },
        _ => return err(at, DecodeErrorKind::Invalid("value location")),
    };
    let type_id = c.bool("type flag")?.then(|| c.u32("type id")).transpose()?;
    let argument = match c.bool("argument flag")? {
        false => None,
        true => {
            let at = c.at();
            let index = NonZeroU32::new(c.u32("argument index")?);
            Some(index.map_or_else(|| err(at, DecodeErrorKind::Invalid("argument index 0")), Ok)?)
        }
    };
    let source = match c.bool("source location flag")? {
        false => None,
        true => {
            let file = c.string("source file")?.to_string();
            let mut line_column = [NonZeroU32::MIN; 2];
            for (value, field) in line_column.iter_mut().zip(["line", "column"]) {
                let at = c.at();
                *value = NonZeroU32::new(c.u32(field)?)
                    .map_or_else(|| err(at, DecodeErrorKind::Invalid("line or column 0")), Ok)?;
            }
            let [line, column] = line_column;
            Some(SourcePosition { file, line, column })
        }
    };
    Ok(DebugVariable {
        name,
        location,
        type_id,
        argument,
        source,
    })
}

/// Puts the section's decorators on the blocks of `forest`, at their
/// operation indices without padding, and the rest of it, checked against
/// the forest, in the forest's [`DebugInfo`].
pub(crate) fn lift(section: Section<'_>, forest: &mut MastForest) -> Result<()> {
    lift_decorators(&section, &mut forest.nodes)?;
    if let Some(last) = section.info.node_decorators.last() {
        if last.node.index() >= forest.len() {
            return err(
                section.node_tables_at,
                DecodeErrorKind::Invalid("node decorators of a node that does not exist"),
            );
        }
    }
    let (asm_ops, asm_op_placements) = asm_ops::place(&section.asm, forest)?;
    let variable_placements = place_variables(&section, &forest.nodes)?;
    forest.debug_info = Some(DebugInfo {
        asm_ops,
        asm_op_placements,
        variable_placements,
        ..section.info
    });
    Ok(())
}

/// The debug variables' placements, at operations of blocks (counted
/// without padding; a variable may follow the last operation, as a
/// decorator may).
fn place_variables(section: &Section<'_>, nodes: &[MastNode]) -> Result<Vec<Placement>> {
    let bad = |what| err(section.variable_table_at, DecodeErrorKind::Invalid(what));
    let mut placements = Vec::with_capacity(section.variable_links.len());
    let mut links = section.variable_links.iter().peekable();
    while let Some(&&(node, _, _)) = links.peek() {
        let Some(MastNode::Block(block)) = nodes.get(node) else {
            return bad("debug variables on a node that is not a block");
        };
        let is_pad = padding_positions(&block.ops);
        let (mut padded, mut pads) = (0, 0);
        while let Some(&(_, op, id)) = links.next_if(|l| l.0 == node) {
            if op > is_pad.len() {
                return bad("debug variable past the end of its block");
            }
            pads += is_pad[padded..op].iter().filter(|p| **p).count();
            padded = op;
            placements.push(Placement {
                node: MastNodeId(node as u32),
                operation: (op - pads) as u32,
                id,
            });
        }
    }
    Ok(placements)
}

/// `forest` with what its debug info says of its blocks, if it has any, on
/// them as decorators: the assembly ops as `AsmOp` decorators (decoding
/// keeps them in the debug info, tens of thousands for a library), and the
/// node decorators of blocks as decorators of their first operation (before
/// the others) and of their end (after the others). A conversion carries
/// them so.
pub(crate) fn lifted(forest: &MastForest) -> std::borrow::Cow<'_, MastForest> {
    let Some(info) = forest.debug_info() else {
        return std::borrow::Cow::Borrowed(forest);
    };
    let mut out = forest.clone();
    asm_ops::put_on_blocks(info, &mut out);
    for n in info.node_decorators() {
        if let MastNode::Block(block) = &mut out.nodes[n.node.index()] {
            let end = block.ops.len() as u32;
            let before = n.before_enter.iter().map(|&d| (0, d));
            let after = n.after_exit.iter().map(|&d| (end, d));
            block.decorators = before
                .chain(block.decorators.drain(..))
                .chain(after)
                .collect();
        }
    }
    std::borrow::Cow::Owned(out)
}

fn lift_decorators(section: &Section<'_>, nodes: &mut [MastNode]) -> Result<()> {
    let mut links = section.links.iter().peekable();
    while let Some(&&(node, _, _)) = links.peek() {
        let Some(MastNode::Block(block)) = nodes.get_mut(node) else {
            return err(
                section.table_at,
                DecodeErrorKind::Invalid("operation decorators on a node that is not a block"),
            );
        };
        let is_pad = padding_positions(&block.ops);
        // Links come in operation order: the padding before each is counted
        // once.
        let (mut padded, mut pads) = (0, 0);
        while let Some(&(_, op, d)) = links.next_if(|l| l.0 == node) {
            if op > is_pad.len() {
                return err(
                    section.table_at,
                    DecodeErrorKind::Invalid("decorator past the end of its block"),
                );
            }
            pads += is_pad[padded..op].iter().filter(|p| **p).count();
            padded = op;
            block.decorators.push(((op - pads) as u32, d));
        }
    }
    Ok(())
}

/// The section of `forest` written from memory, as miden-core writes it
/// (see the module docs): its debug info, if any, with its blocks'
/// decorators.
pub(crate) fn build(forest: &MastForest, format: &'static str) -> Result<Vec<u8>, EncodeError> {
    let info = forest.debug_info();
    let mut numbering = Numbering::new(info.map_or(&[][..], |i| &i.decorators));
    let all_links: Vec<Vec<(usize, Decorator)>> = forest
        .nodes()
        .iter()
        .map(|node| match node {
            MastNode::Block(block) => padded_links(block),
            _ => Vec::new(),
        })
        .collect();
    let mut op_table = OpTable::default();
    for (i, node_links) in all_links.iter().enumerate() {
        let mut row = Vec::new();
        // Assembly ops have tables of their own.
        for &(op, d) in node_links {
            if !matches!(d, Decorator::AsmOp(_)) {
                check_expressible(&d, Isa::V0_23, i, format)?;
                row.push((op, numbering.id(d)));
            }
        }
        op_table.add_node(&row);
    }
    let node_decorators = info.map_or(&[][..], |i| &i.node_decorators);
    let rows = node_decorators.last().map_or(0, |n| n.node.index() + 1);
    let (mut before, mut after) = (CsrRows::new(rows), CsrRows::new(rows));
    for n in node_decorators {
        let mut ids = |ds: &[Decorator]| ds.iter().map(|&d| numbering.id(d)).collect();
        before.rows[n.node.index()] = ids(&n.before_enter);
        after.rows[n.node.index()] = ids(&n.after_exit);
    }
    let mut out = Vec::new();
    write_decorators(&numbering.decorators, &mut out);
    let error_messages = info.map_or(&[][..], |i| &i.error_messages);
    put_usize(&mut out, error_messages.len());
    for (code, message) in error_messages {
        put_u64(&mut out, *code);
        put_str(&mut out, message);
    }
    op_table.write(&mut out);
    before.write(&mut out);
    after.write(&mut out);
    let procedure_names = info.map_or(&[][..], |i| &i.procedure_names);
    put_usize(&mut out, procedure_names.len());
    for (digest, name) in procedure_names {
        put_word(&mut out, digest);
        put_str(&mut out, name);
    }
    out.extend(asm_ops::build(forest, info, &all_links, format)?);
    match info {
        Some(info) => write_debug_variables(forest, info, &mut out),
        // Empty: debug variables, their ids, operation and node index.
        None => out.resize(out.len() + 4, 1),
    }
    Ok(out)
}

/// Decorators numbered as the section's records: those of the debug info
/// first, in their order, then new ones in order of first use.
struct Numbering {
    decorators: Vec<Decorator>,
    ids: HashMap<Decorator, u32>,
}

impl Numbering {
    fn new(records: &[Decorator]) -> Self {
        let mut ids = HashMap::with_capacity(records.len());
        for (id, d) in records.iter().enumerate().rev() {
            ids.insert(*d, id as u32);
        }
        Numbering {
            decorators: records.to_vec(),
            ids,
        }
    }

    fn id(&mut self, d: Decorator) -> u32 {
        *self.ids.entry(d).or_insert_with(|| {
            self.decorators.push(d);
            self.decorators.len() as u32 - 1
        })
    }
}

/// A two-level CSR table of ids (the operation→decorator and
/// operation→variable tables), built node by node as miden-core's
/// `add_decorator_info_for_node` builds it.
#[derive(Default)]
struct OpTable {
    ids: Vec<u32>,
    ops: Vec<usize>,
    nodes: Vec<usize>,
}

impl OpTable {
    /// Adds the next node, its (operation with padding, id) links in
    /// operation order.
    fn add_node(&mut self, links: &[(usize, u32)]) {
        let op_start = self.ops.len();
        match self.nodes.last_mut() {
            None => self.nodes.push(op_start),
            Some(last) => *last = op_start,
        }
        let Some(&(max_op, _)) = links.last() else {
            if !self.ops.is_empty() {
                self.ops.push(self.ids.len());
            }
            self.nodes.push(op_start);
            return;
        };
        let mut links = links.iter().peekable();
        for op in 0..=max_op {
            self.ops.push(self.ids.len());
            while let Some(&(_, id)) = links.next_if(|l| l.0 == op) {
                self.ids.push(id);
            }
        }
        self.ops.push(self.ids.len());
        self.nodes.push(self.ops.len() - 1);
    }

    fn write(&self, out: &mut Vec<u8>) {
        put_usize(out, self.ids.len());
        self.ids.iter().for_each(|&id| put_u32(out, id));
        for v in [&self.ops, &self.nodes] {
            put_usize(out, v.len());
            v.iter().for_each(|&p| put_usize(out, p));
        }
    }
}

/// A one-level CSR table of ids by node (a node→decorator table): no rows,
/// or rows up to the last node with ids.
struct CsrRows {
    rows: Vec<Vec<u32>>,
}

impl CsrRows {
    fn new(rows: usize) -> Self {
        CsrRows {
            rows: vec![Vec::new(); rows],
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        put_usize(out, self.rows.iter().map(Vec::len).sum());
        self.rows.iter().flatten().for_each(|&id| put_u32(out, id));
        let pointers = if self.rows.is_empty() {
            0
        } else {
            self.rows.len() + 1
        };
        put_usize(out, pointers);
        let mut end = 0;
        if pointers > 0 {
            put_usize(out, 0);
        }
        for row in &self.rows {
            end += row.len();
            put_usize(out, end);
        }
    }
}

/// The debug variables of `info` and their table, rows up to the last
/// node with a variable.
fn write_debug_variables(forest: &MastForest, info: &DebugInfo, out: &mut Vec<u8>) {
    put_usize(out, info.debug_variables.len());
    for v in &info.debug_variables {
        write_debug_variable(v, out);
    }
    let mut table = OpTable::default();
    let mut placements = info.variable_placements.iter().peekable();
    let nodes = info
        .variable_placements
        .last()
        .map_or(0, |p| p.node.index() + 1);
    for node in 0..nodes {
        let row = std::iter::from_fn(|| placements.next_if(|p| p.node.index() == node));
        let row: Vec<_> = row.map(|p| (p.operation, p.id)).collect();
        match forest.nodes().get(node) {
            Some(MastNode::Block(block)) => table.add_node(&padded(block, &row)),
            _ => table.add_node(&[]),
        }
    }
    table.write(out);
}

fn write_debug_variable(v: &DebugVariable, out: &mut Vec<u8>) {
    put_str(out, &v.name);
    match &v.location {
        VariableLocation::Stack(position) => out.extend([0, *position]),
        VariableLocation::Memory(address) => {
            out.push(1);
            put_u32(out, *address);
        }
        VariableLocation::Constant(value) => {
            out.push(2);
            put_u64(out, value.as_u64());
        }
        VariableLocation::Local(offset) => {
            out.push(3);
            out.extend_from_slice(&offset.to_le_bytes());
        }
        VariableLocation::Expression(bytes) => {
            out.push(4);
            put_usize(out, bytes.len());
            out.extend_from_slice(bytes);
        }
        VariableLocation::Global {
            index,
            frame_offset,
        } => {
            out.push(5);
            put_u32(out, *index);
            out.extend_from_slice(&frame_offset.to_le_bytes());
        }
    }
    let flag = |out: &mut Vec<u8>, set: bool| out.push(set as u8);
    flag(out, v.type_id.is_some());
    if let Some(id) = v.type_id {
        put_u32(out, id);
    }
    flag(out, v.argument.is_some());
    if let Some(argument) = v.argument {
        put_u32(out, argument.get());
    }
    flag(out, v.source.is_some());
    if let Some(source) = &v.source {
        put_str(out, &source.file);
        put_u32(out, source.line.get());
        put_u32(out, source.column.get());
    }
}

/// A block's decorators at operation indices with padding.
fn padded_links(block: &BasicBlock) -> Vec<(usize, Decorator)> {
    padded(block, &block.decorators)
}

/// `links` (in operation order, at indices without padding) at indices
/// with padding: an index is that of its operation in the padded form (a
/// padding `noop` before it is counted), the block's length that of its
/// end.
pub(super) fn padded<T: Copy>(block: &BasicBlock, links: &[(u32, T)]) -> Vec<(usize, T)> {
    if links.is_empty() {
        return Vec::new();
    }
    let is_pad = padding_positions(&block.ops);
    let mut out = Vec::with_capacity(links.len());
    let (mut raw, mut padded) = (0, 0);
    for &(op, d) in links {
        while raw < op as usize || is_pad.get(padded).is_some_and(|p| *p) {
            raw += usize::from(!is_pad[padded]);
            padded += 1;
        }
        out.push((padded, d));
    }
    out
}

/// Whether version `isa` has decorator `d` (a typed error naming `node`
/// otherwise).
pub(crate) fn check_expressible(
    d: &Decorator,
    isa: Isa,
    node: usize,
    format: &'static str,
) -> Result<(), EncodeError> {
    let what = match d {
        Decorator::AdvStackTop(_) if isa == Isa::V0_10 => "an advice-stack debug decorator",
        // Advice injectors and events became operations in 0.23.
        Decorator::Advice(_) if isa != Isa::V0_10 => "an advice injector decorator",
        Decorator::Event(_) if isa != Isa::V0_10 => "an event decorator",
        _ => return Ok(()),
    };
    Err(EncodeError::unrepresentable(
        format,
        format!("node {node}: {what}"),
    ))
}

/// Decorator data, its (empty) string table and the records.
fn write_decorators(decorators: &[Decorator], out: &mut Vec<u8>) {
    let mut data = Vec::new();
    let mut records = Vec::with_capacity(decorators.len());
    for d in decorators {
        let offset = data.len() as u32;
        let variant = match *d {
            Decorator::StackAll => STACK_ALL,
            Decorator::MemAll => MEM_ALL,
            Decorator::StackTop(n) => {
                data.push(n);
                STACK_TOP
            }
            Decorator::MemInterval(a, b) => {
                data.extend_from_slice(&a.to_le_bytes());
                data.extend_from_slice(&b.to_le_bytes());
                MEM_INTERVAL
            }
            Decorator::LocalInterval(a, b, e) => {
                for v in [a, b, e] {
                    data.extend_from_slice(&v.to_le_bytes());
                }
                LOCAL_INTERVAL
            }
            Decorator::AdvStackTop(n) => {
                data.extend_from_slice(&n.to_le_bytes());
                ADV_STACK_TOP
            }
            Decorator::Trace(n) => {
                data.extend_from_slice(&n.to_le_bytes());
                TRACE
            }
            // `build` refused the others.
            Decorator::Advice(_) | Decorator::Event(_) | Decorator::AsmOp(_) => continue,
        };
        // A decorator without fields points at offset 0.
        let fields = data.len() as u32 > offset;
        records.push((variant, if fields { offset } else { 0 }));
    }
    put_usize(out, data.len());
    out.extend_from_slice(&data);
    put_usize(out, 0); // string offsets
    put_usize(out, 0); // string data
    put_usize(out, records.len());
    for (variant, offset) in records {
        out.push(variant);
        put_u32(out, offset);
    }
}

#[cfg(test)]
mod tests {
    use core::num::NonZeroU32;

    use super::*;
    use crate::decorator::AsmOp;
    use crate::felt::Felt;
    use crate::forest::MastForestBuilder;
    use crate::format::DecodeOptions;
    use crate::ops::Operation;
    use crate::wire::{self, Flags, Format};

    /// A forest of two blocks under a join with debug info of every kind
    /// in memory: a block whose batches are padded (a `push` would end its
    /// first group), decorators of operations and of nodes, a decorator
    /// record no table uses, an error message, a procedure name, assembly
    /// ops of a block (one past the padding) and of the join, debug
    /// variables at an operation and at the end of a block.
    fn forest_with_everything() -> MastForest {
        let mut b = MastForestBuilder::new_in(Isa::V0_23);
        // Interned in the order a read interns them: the records' strings.
        let location = b.location("a.masm", 3, 9);
        let context = b.intern("ctx");
        let push = b.intern("push.1");
        let exec = b.intern("exec.f");
        let mut ops = vec![Operation::Add; 8];
        ops.extend([
            Operation::Push(Felt::new(1).unwrap()),
            Operation::Assert(Felt::new(5).unwrap()),
        ]);
        let padded = b.add_block(ops, vec![(9, Decorator::Trace(3))]).unwrap();
        let plain = b
            .add_block(vec![Operation::Mul; 2], vec![(0, Decorator::StackAll)])
            .unwrap();
        let join = b.add_join(padded, plain).unwrap();
        b.add_root(join).unwrap();
        let mut forest = b.build();
        assert!(padding_positions(&block(&forest, 0).ops).contains(&true));
        let asm_op = |location, op| AsmOp {
            location,
            context_name: context,
            op,
            num_cycles: 1,
            should_break: false,
        };
        let variable = DebugVariable {
            name: "x".into(),
            location: VariableLocation::Global {
                index: 2,
                frame_offset: -8,
            },
            type_id: None,
            argument: NonZeroU32::new(1),
            source: None,
        };
        let place = |node: u32, operation, id| Placement {
            node: MastNodeId(node),
            operation,
            id,
        };
        forest.debug_info = Some(DebugInfo {
            bytes: Vec::new(),
            decorators: vec![
                Decorator::MemAll,
                Decorator::StackAll,
                Decorator::Trace(3),
                Decorator::StackTop(4),
            ],
            error_messages: vec![(5, "five".into())],
            procedure_names: vec![(forest.digest(join), "f".into())],
            node_decorators: vec![NodeDecorators {
                node: join,
                before_enter: vec![Decorator::Trace(3)],
                after_exit: vec![Decorator::StackTop(4)],
            }],
            asm_ops: vec![asm_op(Some(location), push), asm_op(None, exec)],
            asm_op_placements: vec![place(0, 8, 0), place(2, 0, 1)],
            debug_variables: vec![
                variable.clone(),
                DebugVariable {
                    name: "y".into(),
                    location: VariableLocation::Local(-2),
                    ..variable
                },
            ],
            variable_placements: vec![place(0, 9, 1), place(1, 2, 0)],
        });
        forest
    }

    /// The tree of the one root keeps every part but the record no table
    /// uses, the variables numbered in the tree's order; written and read
    /// back, it is the same.
    #[test]
    fn extract_keeps_the_debug_info_of_its_tree() {
        let forest = forest_with_everything();
        let root = forest.roots().next().unwrap();
        let tree = forest.extract(root);
        let (info, tree_info) = (forest.debug_info().unwrap(), tree.debug_info().unwrap());
        assert_eq!(tree_info.decorators(), &info.decorators()[1..]);
        assert_eq!(tree_info.error_messages(), info.error_messages());
        assert_eq!(tree_info.procedure_names(), info.procedure_names());
        assert_eq!(tree_info.node_decorators(), info.node_decorators());
        assert_eq!(tree_info.asm_ops(), info.asm_ops());
        assert_eq!(tree_info.asm_op_placements(), info.asm_op_placements());
        let variables: Vec<_> = info.debug_variables().iter().rev().cloned().collect();
        assert_eq!(tree_info.debug_variables(), variables);
        let swapped = info
            .variable_placements()
            .iter()
            .map(|p| Placement { id: 1 - p.id, ..*p });
        assert_eq!(tree_info.variable_placements(), swapped.collect::<Vec<_>>());
        let full = Flags::default();
        let bytes = wire::write(&tree, None, Format::V0_23, full).unwrap();
        let mut read = wire::read(&bytes, DecodeOptions::VERIFY).unwrap().forest;
        read.debug_info.as_mut().unwrap().bytes.clear();
        assert_eq!(read, tree);
    }

    fn block(forest: &MastForest, i: usize) -> &BasicBlock {
        match &forest.nodes()[i] {
            MastNode::Block(block) => block,
            _ => unreachable!("node {i} is a block"),
        }
    }

    /// Written from memory and read back, the forest is the same, its
    /// section written again the same bytes.
    #[test]
    fn every_part_is_written_from_memory() {
        let forest = forest_with_everything();
        let full = Flags::default();
        let bytes = wire::write(&forest, None, Format::V0_23, full).unwrap();
        let mut read = wire::read(&bytes, DecodeOptions::VERIFY).unwrap().forest;
        let info = read.debug_info.as_mut().unwrap();
        assert!(!info.bytes.is_empty());
        info.bytes.clear();
        assert_eq!(read, forest);
        assert_eq!(
            wire::write(&read, None, Format::V0_23, full).unwrap(),
            bytes
        );
    }

    /// Every checked-in 0.23 file with debug info, its section dropped,
    /// is written from what the forest holds in memory byte for byte.
    #[test]
    fn sections_written_from_memory_are_the_files() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str());
            if !matches!(ext, Some("mast" | "masl")) {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(mut file) = wire::read(&bytes, DecodeOptions::TRUST) else {
                continue;
            };
            if file.format != Format::V0_23 || file.flags.stripped {
                continue;
            }
            if let Some(info) = &mut file.forest.debug_info {
                info.bytes.clear();
                checked += 1;
            }
            let exports = file.exports.as_deref();
            let again = wire::write(&file.forest, exports, file.format, file.flags).unwrap();
            assert!(again == bytes, "{}", path.display());
        }
        assert!(checked >= 2, "the core library, as a forest and a library");
    }
}
