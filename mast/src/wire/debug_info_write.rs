//! Writing the debug-info section of miden-core 0.23 from the forest's
//! memory: its [`DebugInfo`], if any, and its blocks' decorators, as
//! miden-core writes its own (the layout is in `debug_info`). The decorator
//! and assembly-op records of the debug info keep their numbers, new ones
//! are numbered in order of first use; the operation tables are built node
//! by node as miden-core's `add_decorator_info_for_node` builds them; the
//! node, assembly-op and debug-variable tables have rows up to the last
//! node that has any.

use std::collections::HashMap;

use crate::block::BasicBlock;
use crate::debug_info::{DebugVariable, VariableLocation};
use crate::decorator::Decorator;
use crate::forest::{DebugInfo, MastForest, MastNode};
use crate::format::EncodeError;
use crate::ops::Isa;

use super::asm_ops;
use super::cursor::{put_str, put_u32, put_u64, put_usize, put_word};
use super::debug_info::{
    check_expressible, ADV_STACK_TOP, LOCAL_INTERVAL, MEM_ALL, MEM_INTERVAL, STACK_ALL, STACK_TOP,
    TRACE,
};
use super::v023::padding_positions;

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
            // Only blocks have variables when read; written as they are.
            _ => table.add_node(
                &row.iter()
                    .map(|&(op, id)| (op as usize, id))
                    .collect::<Vec<_>>(),
            ),
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
    use crate::debug_info::{NodeDecorators, Placement};
    use crate::decorator::AsmOp;
    use crate::felt::Felt;
    use crate::forest::MastForestBuilder;
    use crate::forest::MastNodeId;
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
