//! The debug information of a miden-core 0.23 forest, held in memory.
//!
//! miden-core 0.23 writes a forest's debug information as a section after
//! the advice map (its layout is documented in `wire::debug_info`); later
//! versions moved it out of the forest. A forest read from such a file
//! holds all the section says: its blocks' operation decorators on the
//! blocks, and here the decorators each node runs before it is entered and
//! after it exits, the assembly ops of every node (put on the blocks as
//! decorators by a conversion), the messages of error codes, the names of
//! procedures, the source variables and the operations they are placed at.
//! A forest without section bytes (an extracted tree, say) is written from
//! these as miden-core writes its own. A forest read also keeps the
//! section's bytes and is written with them: writing the section from
//! memory costs about as much as the rest of the encoding, and checking
//! when decoding that a file's section is the one memory would write back
//! would cost it again.
//!
//! The decorators and assembly ops are numbered as miden-core numbers them
//! (the order of its records), which the section's tables refer to; a
//! forest written from memory keeps those numbers and numbers new ones in
//! order of first use.
//!
//! A conversion to another version carries what that version can express
//! and refuses the rest with a typed error: a block's node decorators
//! become decorators of its first operation and of its end, which every
//! version has; the node decorators and assembly ops of other nodes,
//! error-code messages, procedure names and source variables exist only in
//! 0.23's section.

use core::num::NonZeroU32;

use crate::decorator::{AsmOp, Decorator};
use crate::felt::{Digest, Felt};
use std::collections::{HashMap, HashSet};

use crate::forest::{MastForest, MastForestBuilder, MastNode, MastNodeId};
use crate::ops::Operation;

/// The decorators miden-core 0.23 runs around a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDecorators {
    /// The node.
    pub node: MastNodeId,
    /// Run before the node is entered.
    pub before_enter: Vec<Decorator>,
    /// Run after the node exits.
    pub after_exit: Vec<Decorator>,
}

/// Where a source variable's value is (miden-core 0.23's
/// `DebugVarLocation`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariableLocation {
    /// On the operand stack, at this position.
    Stack(u8),
    /// In memory, at this address.
    Memory(u32),
    /// A constant.
    Constant(Felt),
    /// In the procedure's locals, at this offset.
    Local(i16),
    /// Computed by this expression (its encoded bytes).
    Expression(Vec<u8>),
    /// In a global, at a frame offset.
    Global {
        /// The global's index.
        index: u32,
        /// The offset in the frame.
        frame_offset: i64,
    },
}

/// A position in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePosition {
    /// The file.
    pub file: String,
    /// The line, from 1.
    pub line: NonZeroU32,
    /// The column, from 1.
    pub column: NonZeroU32,
}

/// A source variable of a miden-core 0.23 forest's debug info.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugVariable {
    /// Its name.
    pub name: String,
    /// Where its value is.
    pub location: VariableLocation,
    /// Its type, by id.
    pub type_id: Option<u32>,
    /// Which argument of its procedure it is, from 1.
    pub argument: Option<NonZeroU32>,
    /// Where it is declared.
    pub source: Option<SourcePosition>,
}

/// Something of the debug info placed at an operation of a node: an
/// assembly op, or a debug variable, by its number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The node.
    pub node: MastNodeId,
    /// The operation: of a block, its index without the padding `noop`s of
    /// the block's batches (as a decorator's); of another node, as written.
    pub operation: u32,
    /// The assembly op or variable, by its position in
    /// [`DebugInfo::asm_ops`] or [`DebugInfo::debug_variables`].
    pub id: u32,
}

/// The debug-info section of a miden-core 0.23 forest (see the module
/// docs): what it holds beyond its blocks' operation decorators, and the
/// bytes it was read from, if it was read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugInfo {
    /// The section as read (empty for a forest made in memory); a read
    /// forest is written with these bytes, which its fields describe.
    pub(crate) bytes: Vec<u8>,
    /// miden-core's decorator records, in order: the decorators of the
    /// section's tables are numbered by position in it.
    pub(crate) decorators: Vec<Decorator>,
    pub(crate) error_messages: Vec<(u64, String)>,
    pub(crate) procedure_names: Vec<(Digest, String)>,
    pub(crate) node_decorators: Vec<NodeDecorators>,
    /// The assembly-op records, in order.
    pub(crate) asm_ops: Vec<AsmOp>,
    /// Where they are, in node and operation order.
    pub(crate) asm_op_placements: Vec<Placement>,
    pub(crate) debug_variables: Vec<DebugVariable>,
    /// Where they are, in node and operation order.
    pub(crate) variable_placements: Vec<Placement>,
}

impl DebugInfo {
    /// The section's bytes as read, with which the forest is written back;
    /// empty for debug info made in memory (an extracted tree's), which is
    /// written from the other fields.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The messages of error codes, by increasing code.
    pub fn error_messages(&self) -> &[(u64, String)] {
        &self.error_messages
    }

    /// Number of error-code messages.
    pub fn error_code_count(&self) -> usize {
        self.error_messages.len()
    }

    /// The names of procedures, by increasing digest (as miden-crypto
    /// orders words).
    pub fn procedure_names(&self) -> &[(Digest, String)] {
        &self.procedure_names
    }

    /// Number of procedure names.
    pub fn procedure_name_count(&self) -> usize {
        self.procedure_names.len()
    }

    /// The nodes with decorators of their own (`before_enter`,
    /// `after_exit`), in node order.
    pub fn node_decorators(&self) -> &[NodeDecorators] {
        &self.node_decorators
    }

    /// Number of node decorators (`before_enter` and `after_exit`).
    pub fn node_decorator_count(&self) -> usize {
        let count = |n: &NodeDecorators| n.before_enter.len() + n.after_exit.len();
        self.node_decorators.iter().map(count).sum()
    }

    /// The decorators of the section's records, in order (the tables
    /// number them by position).
    pub fn decorators(&self) -> &[Decorator] {
        &self.decorators
    }

    /// The assembly-op records, in order, their strings and locations in
    /// the forest's tables.
    pub fn asm_ops(&self) -> &[AsmOp] {
        &self.asm_ops
    }

    /// Where the assembly ops are, in node and operation order (a
    /// conversion makes those of blocks `AsmOp` decorators).
    pub fn asm_op_placements(&self) -> &[Placement] {
        &self.asm_op_placements
    }

    /// The assembly ops of `node` with their operations.
    pub fn asm_ops_of(&self, node: MastNodeId) -> impl Iterator<Item = (u32, AsmOp)> + '_ {
        placements_of(&self.asm_op_placements, node)
            .map(|p| (p.operation, self.asm_ops[p.id as usize]))
    }

    /// Number of assembly-op records.
    pub fn asm_op_count(&self) -> usize {
        self.asm_ops.len()
    }

    /// The source variables.
    pub fn debug_variables(&self) -> &[DebugVariable] {
        &self.debug_variables
    }

    /// Number of debug variables.
    pub fn debug_variable_count(&self) -> usize {
        self.debug_variables.len()
    }

    /// Where the debug variables are, in node and operation order.
    pub fn variable_placements(&self) -> &[Placement] {
        &self.variable_placements
    }

    /// What of the section no other version can express, named for an
    /// error, if anything: everything but the decorators and assembly ops
    /// of blocks, in `forest`.
    pub(crate) fn unexpressible(&self, forest: &MastForest) -> Option<String> {
        let around_other = self
            .node_decorators
            .iter()
            .find(|n| !matches!(forest.node(n.node), MastNode::Block(_)));
        if let Some(n) = around_other {
            let kind = forest.node(n.node).kind();
            return Some(format!("node {} ({kind}): node decorators", n.node));
        }
        if let Some((code, message)) = self.error_messages.first() {
            return Some(format!("the message of error code {code} ({message:?})"));
        }
        if let Some((digest, name)) = self.procedure_names.first() {
            return Some(format!("the name of procedure {digest} ({name:?})"));
        }
        let on_other = |p: &&Placement| !matches!(forest.node(p.node), MastNode::Block(_));
        if let Some(p) = self.asm_op_placements.iter().find(on_other) {
            let kind = forest.node(p.node).kind();
            let op = self.asm_ops[p.id as usize].op;
            let op = forest.strings().get(op).unwrap_or_default();
            return Some(format!("node {} ({kind}): the assembly op `{op}`", p.node));
        }
        let variable = self.debug_variables.first();
        variable.map(|v| format!("debug variables (the first: `{}`)", v.name))
    }
}

impl DebugInfo {
    /// The debug info of the tree that [`MastForest::extract`] takes from
    /// `from`, whose nodes it renumbers with `new_id` (`None` for a node it
    /// does not keep whole), its strings interned in `to`: the node
    /// decorators, assembly ops and debug variables of the nodes kept, the
    /// messages of the error codes their operations use and the names of
    /// the procedures whose digests are in the tree. The decorator records
    /// used keep their order; assembly ops and variables are numbered in
    /// the tree's order. `None` when nothing is left.
    pub(crate) fn extracted(
        &self,
        from: &MastForest,
        new_id: impl Fn(MastNodeId) -> Option<MastNodeId>,
        to: &mut MastForestBuilder,
    ) -> Option<DebugInfo> {
        let mut node_decorators: Vec<NodeDecorators> = self
            .node_decorators
            .iter()
            .filter_map(|n| {
                Some(NodeDecorators {
                    node: new_id(n.node)?,
                    ..n.clone()
                })
            })
            .collect();
        node_decorators.sort_by_key(|n| n.node);
        let (asm_op_ids, asm_op_placements) = renumbered(&self.asm_op_placements, &new_id);
        let asm_ops = (asm_op_ids.iter())
            .map(|&id| to.copy_asm_op(self.asm_ops[id], from))
            .collect();
        let (variable_ids, variable_placements) = renumbered(&self.variable_placements, &new_id);
        let debug_variables = variable_ids
            .iter()
            .map(|&id| self.debug_variables[id].clone());
        let digests: HashSet<Digest> = to.digests().iter().copied().collect();
        let mut codes = HashSet::new();
        let mut used: HashSet<Decorator> = node_decorators
            .iter()
            .flat_map(|n| n.before_enter.iter().chain(&n.after_exit).copied())
            .collect();
        for (i, node) in from.nodes().iter().enumerate() {
            if let (MastNode::Block(block), Some(_)) = (node, new_id(MastNodeId(i as u32))) {
                codes.extend(block.ops().iter().filter_map(error_code));
                used.extend(block.decorators().iter().map(|&(_, d)| d));
            }
        }
        // The records used, in their order.
        let decorators = self.decorators.iter().filter(|d| used.remove(d)).copied();
        let info = DebugInfo {
            bytes: Vec::new(),
            decorators: decorators.collect(),
            error_messages: (self.error_messages.iter())
                .filter(|(code, _)| codes.contains(code))
                .cloned()
                .collect(),
            procedure_names: (self.procedure_names.iter())
                .filter(|(digest, _)| digests.contains(digest))
                .cloned()
                .collect(),
            node_decorators,
            asm_ops,
            asm_op_placements,
            debug_variables: debug_variables.collect(),
            variable_placements,
        };
        (info != DebugInfo::default()).then_some(info)
    }
}

/// The error code an operation carries, if any.
fn error_code(op: &Operation) -> Option<u64> {
    match op {
        Operation::Assert(code) | Operation::MpVerify(code) | Operation::U32assert2(code) => {
            Some(code.as_u64())
        }
        _ => None,
    }
}

/// `placements` of the nodes `new_id` keeps, renumbered, in node and
/// operation order, with the ids they use in their new order (each the
/// old id of the new one at its position).
fn renumbered(
    placements: &[Placement],
    new_id: impl Fn(MastNodeId) -> Option<MastNodeId>,
) -> (Vec<usize>, Vec<Placement>) {
    let mut kept: Vec<Placement> = placements
        .iter()
        .filter_map(|p| {
            Some(Placement {
                node: new_id(p.node)?,
                ..*p
            })
        })
        .collect();
    // Stable: the operations of a node stay in order.
    kept.sort_by_key(|p| p.node);
    let mut old_ids = Vec::new();
    let mut renumber = HashMap::new();
    for p in &mut kept {
        p.id = *renumber.entry(p.id).or_insert_with(|| {
            old_ids.push(p.id as usize);
            old_ids.len() as u32 - 1
        });
    }
    (old_ids, kept)
}

/// The placements of `node` in `placements` (in node order).
fn placements_of(placements: &[Placement], node: MastNodeId) -> impl Iterator<Item = &Placement> {
    let start = placements.partition_point(|p| p.node < node);
    placements[start..]
        .iter()
        .take_while(move |p| p.node == node)
}
