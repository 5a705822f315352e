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
//! Reading lifts the decorators onto the blocks (indices without padding,
//! mapped with the padding the decoder recorded while checking each
//! block's batch layout, so that no layout is computed twice) and reads
//! the rest into the forest's [`DebugInfo`]: the decorator
//! records in their order, the node decorators, error-code messages,
//! procedure names, the assembly ops and debug variables with the
//! operations they are placed at (see `asm_ops`). A forest read keeps the
//! section's bytes and is written with them, so that every file accepted
//! is written back byte for byte, including layouts miden-core would not
//! write and memory does not record (empty rows ending a table, a decorator
//! or assembly op at a padding `noop`). A forest without section bytes
//! (built, converted or extracted) is written from memory as miden-core
//! writes its own (see `debug_info_write`); each released 0.23 file is
//! written so byte for byte.

use core::num::NonZeroU32;

use crate::debug_info::{DebugVariable, Placement, SourcePosition, VariableLocation};
use crate::decorator::Decorator;
use crate::forest::{DebugInfo, MastForest, MastNode, MastNodeId, NodeDecorators};
use crate::format::{err, DecodeErrorKind, EncodeError, Result};
use crate::ops::Isa;

use super::asm_ops::{self, AsmOps};
use super::cursor::Cursor;
use super::v023::Paddings;

pub(super) const STACK_ALL: u8 = 0;
pub(super) const STACK_TOP: u8 = 1;
pub(super) const MEM_ALL: u8 = 2;
pub(super) const MEM_INTERVAL: u8 = 3;
pub(super) const LOCAL_INTERVAL: u8 = 4;
pub(super) const ADV_STACK_TOP: u8 = 5;
pub(super) const TRACE: u8 = 6;

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
///
/// `paddings` are where the padding `noop`s of the forest's blocks are, as
/// read: the section's tables count operations with them.
pub(crate) fn lift(
    section: Section<'_>,
    forest: &mut MastForest,
    paddings: &Paddings,
) -> Result<()> {
    lift_decorators(&section, &mut forest.nodes, paddings)?;
    if let Some(last) = section.info.node_decorators.last() {
        if last.node.index() >= forest.len() {
            return err(
                section.node_tables_at,
                DecodeErrorKind::Invalid("node decorators of a node that does not exist"),
            );
        }
    }
    let (asm_ops, asm_op_placements) = asm_ops::place(&section.asm, forest, paddings)?;
    let variable_placements = place_variables(&section, &forest.nodes, paddings)?;
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
fn place_variables(
    section: &Section<'_>,
    nodes: &[MastNode],
    paddings: &Paddings,
) -> Result<Vec<Placement>> {
    let bad = |what| err(section.variable_table_at, DecodeErrorKind::Invalid(what));
    let mut placements = Vec::with_capacity(section.variable_links.len());
    let mut links = section.variable_links.iter().peekable();
    while let Some(&&(node, _, _)) = links.peek() {
        let Some(MastNode::Block(block)) = nodes.get(node) else {
            return bad("debug variables on a node that is not a block");
        };
        // Links come in operation order.
        let mut unpad = paddings.of(node, block.ops.len());
        while let Some(&(_, op, id)) = links.next_if(|l| l.0 == node) {
            if op > unpad.padded_len {
                return bad("debug variable past the end of its block");
            }
            placements.push(Placement {
                node: MastNodeId(node as u32),
                operation: unpad.index(op) as u32,
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

fn lift_decorators(
    section: &Section<'_>,
    nodes: &mut [MastNode],
    paddings: &Paddings,
) -> Result<()> {
    let mut links = section.links.iter().peekable();
    while let Some(&&(node, _, _)) = links.peek() {
        let Some(MastNode::Block(block)) = nodes.get_mut(node) else {
            return err(
                section.table_at,
                DecodeErrorKind::Invalid("operation decorators on a node that is not a block"),
            );
        };
        // Links come in operation order.
        let mut unpad = paddings.of(node, block.ops.len());
        while let Some(&(_, op, d)) = links.next_if(|l| l.0 == node) {
            if op > unpad.padded_len {
                return err(
                    section.table_at,
                    DecodeErrorKind::Invalid("decorator past the end of its block"),
                );
            }
            block.decorators.push((unpad.index(op) as u32, d));
        }
    }
    Ok(())
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
