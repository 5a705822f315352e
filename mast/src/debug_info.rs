//! The debug information of a miden-core 0.23 forest, held in memory.
//!
//! miden-core 0.23 writes a forest's debug information as a section after
//! the advice map (its layout is documented in `wire::debug_info`); later
//! versions moved it out of the forest. A forest read from such a file
//! keeps the section's bytes, so that it is written back byte for byte, and
//! holds what the section says: its blocks' operation decorators and
//! assembly ops (lifted onto the blocks, the assembly ops by a conversion),
//! the decorators each node runs before it is entered and after it exits,
//! the assembly ops of other nodes, the messages of error codes, the names
//! of procedures and the source variables.
//!
//! A conversion to another version carries what that version can express
//! and refuses the rest with a typed error: a block's node decorators
//! become decorators of its first operation and of its end, which every
//! version has; the node decorators and assembly ops of other nodes,
//! error-code messages, procedure names and source variables exist only in
//! 0.23's section.
//!
//! FIXME: the operations the debug variables are placed at are checked,
//! not read into the forest.

use core::num::NonZeroU32;

use crate::decorator::{AsmOp, Decorator};
use crate::felt::{Digest, Felt};
use crate::forest::{MastForest, MastNode, MastNodeId};

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

/// The debug-info section of a miden-core 0.23 forest (see the module
/// docs): its bytes, and what it holds beyond its blocks' decorators.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugInfo {
    pub(crate) bytes: Vec<u8>,
    pub(crate) error_messages: Vec<(u64, String)>,
    pub(crate) procedure_names: Vec<(Digest, String)>,
    pub(crate) node_decorators: Vec<NodeDecorators>,
    pub(crate) asm_ops: usize,
    /// The assembly ops of nodes other than blocks.
    pub(crate) control_asm_ops: Vec<(MastNodeId, AsmOp)>,
    pub(crate) debug_variables: Vec<DebugVariable>,
}

impl DebugInfo {
    /// The section's wire bytes.
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

    /// The assembly ops of nodes other than blocks (a call's, a loop's),
    /// by node (the blocks' are their `AsmOp` decorators once converted),
    /// their strings and locations in the forest's tables.
    pub fn node_asm_ops(&self) -> &[(MastNodeId, AsmOp)] {
        &self.control_asm_ops
    }

    /// Number of assembly-op records.
    pub fn asm_op_count(&self) -> usize {
        self.asm_ops
    }

    /// The source variables.
    pub fn debug_variables(&self) -> &[DebugVariable] {
        &self.debug_variables
    }

    /// Number of debug variables.
    pub fn debug_variable_count(&self) -> usize {
        self.debug_variables.len()
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
        if let Some((node, asm_op)) = self.control_asm_ops.first() {
            let kind = forest.node(*node).kind();
            let op = forest.strings().get(asm_op.op).unwrap_or_default();
            return Some(format!("node {node} ({kind}): the assembly op `{op}`"));
        }
        let variable = self.debug_variables.first();
        variable.map(|v| format!("debug variables (the first: `{}`)", v.name))
    }
}
