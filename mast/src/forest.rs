//! The in-memory MAST forest and the builder that keeps its invariants.
//!
//! Nodes live in one vector and refer to each other by [`MastNodeId`]. The
//! builder only hands out ids of nodes it already holds, so every child
//! precedes its parent: the node order is a topological order, which rules
//! out cycles and lets digests be computed in one forward pass. Nodes may be
//! shared (the forest is a DAG, as in Miden, where equal subtrees are
//! deduplicated). Roots are a dense bitset over node indices; the
//! entrypoint, when set, is also a root.

use core::num::NonZeroU32;
use std::collections::{HashMap, HashSet};

use bitvec::prelude::{BitVec, Lsb0};

use crate::block::BasicBlock;
pub use crate::debug_info::{DebugInfo, NodeDecorators};
pub use crate::decorator::StringTable;
use crate::decorator::{AsmOp, Decorator, LocationId, SourceLocation, StringId};
use crate::felt::Digest;
use crate::felt::Felt;
use crate::hash::{
    CALL_DOMAIN, DYNCALL_DOMAIN, DYN_DOMAIN, JOIN_DOMAIN, LOOP_DOMAIN, SPLIT_DOMAIN, SYSCALL_DOMAIN,
};
use crate::ops::{Isa, Operation};

/// Index of a node in its [`MastForest`].
///
/// Ids are only made by the builder and the decoder, which check them
/// against the forest; [`MastForest::node_id`] checks a raw index.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MastNodeId(pub(crate) u32);

impl MastNodeId {
    /// The index in the forest's node vector.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl core::fmt::Display for MastNodeId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A node of a MAST.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MastNode {
    /// A basic block.
    Block(BasicBlock),
    /// Runs `left` then `right`.
    Join {
        /// First child.
        left: MastNodeId,
        /// Second child.
        right: MastNodeId,
    },
    /// Pops a boolean and runs `on_true` or `on_false`.
    Split {
        /// Child run when the condition is 1.
        on_true: MastNodeId,
        /// Child run when the condition is 0.
        on_false: MastNodeId,
    },
    /// Runs `body` while the top of the stack is 1.
    Loop {
        /// Loop body.
        body: MastNodeId,
    },
    /// Calls `callee` in a new context (`call`), or in the kernel context (`syscall`).
    Call {
        /// The callee.
        callee: MastNodeId,
        /// `syscall` rather than `call`.
        is_syscall: bool,
    },
    /// Executes the procedure whose digest is on the stack.
    Dyn,
    /// Calls the procedure whose digest is on the stack (miden-core 0.23 on).
    DynCall,
    /// A node defined outside this forest, known by digest.
    External(Digest),
}

/// The kinds of node, as named by the text form and `inspect`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKind {
    /// `join`
    Join,
    /// `split`
    Split,
    /// `loop`
    Loop,
    /// `block`
    Block,
    /// `call`
    Call,
    /// `syscall`
    SysCall,
    /// `dyn`
    Dyn,
    /// `external`
    External,
    /// `dyncall` (miden-core 0.23 on; not in the draft format)
    DynCall,
}

impl NodeKind {
    /// The kinds of the draft format, in its binary tag order.
    pub const ALL: [NodeKind; 8] = [
        NodeKind::Join,
        NodeKind::Split,
        NodeKind::Loop,
        NodeKind::Block,
        NodeKind::Call,
        NodeKind::SysCall,
        NodeKind::Dyn,
        NodeKind::External,
    ];

    /// The keyword of the text form.
    pub fn keyword(self) -> &'static str {
        match self {
            NodeKind::Join => "join",
            NodeKind::Split => "split",
            NodeKind::Loop => "loop",
            NodeKind::Block => "block",
            NodeKind::Call => "call",
            NodeKind::SysCall => "syscall",
            NodeKind::Dyn => "dyn",
            NodeKind::External => "external",
            NodeKind::DynCall => "dyncall",
        }
    }
}

impl core::fmt::Display for NodeKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.keyword())
    }
}

impl MastNode {
    /// The node's kind.
    pub fn kind(&self) -> NodeKind {
        match self {
            MastNode::Block(_) => NodeKind::Block,
            MastNode::Join { .. } => NodeKind::Join,
            MastNode::Split { .. } => NodeKind::Split,
            MastNode::Loop { .. } => NodeKind::Loop,
            MastNode::Call {
                is_syscall: false, ..
            } => NodeKind::Call,
            MastNode::Call {
                is_syscall: true, ..
            } => NodeKind::SysCall,
            MastNode::Dyn => NodeKind::Dyn,
            MastNode::DynCall => NodeKind::DynCall,
            MastNode::External(_) => NodeKind::External,
        }
    }

    /// The children, in order.
    pub fn children(&self) -> impl Iterator<Item = MastNodeId> {
        let (a, b) = match *self {
            MastNode::Join { left, right } => (Some(left), Some(right)),
            MastNode::Split { on_true, on_false } => (Some(on_true), Some(on_false)),
            MastNode::Loop { body } => (Some(body), None),
            MastNode::Call { callee, .. } => (Some(callee), None),
            MastNode::Block(_) | MastNode::Dyn | MastNode::DynCall | MastNode::External(_) => {
                (None, None)
            }
        };
        a.into_iter().chain(b)
    }

    /// The node with each child `c` replaced by `f(c)`.
    pub(crate) fn map_children(&self, f: impl Fn(MastNodeId) -> MastNodeId) -> MastNode {
        match self {
            MastNode::Join { left, right } => MastNode::Join {
                left: f(*left),
                right: f(*right),
            },
            MastNode::Split { on_true, on_false } => MastNode::Split {
                on_true: f(*on_true),
                on_false: f(*on_false),
            },
            MastNode::Loop { body } => MastNode::Loop { body: f(*body) },
            MastNode::Call { callee, is_syscall } => MastNode::Call {
                callee: f(*callee),
                is_syscall: *is_syscall,
            },
            MastNode::Block(_) | MastNode::Dyn | MastNode::DynCall | MastNode::External(_) => {
                self.clone()
            }
        }
    }

    /// The digest of this node in version `isa`, given the digests of its children.
    pub(crate) fn compute_digest(&self, isa: Isa, child: impl Fn(MastNodeId) -> Digest) -> Digest {
        let h = isa.hasher();
        match self {
            MastNode::Block(b) => b.digest_in(isa),
            MastNode::Join { left, right } => {
                h.merge_in_domain(&child(*left), &child(*right), JOIN_DOMAIN)
            }
            MastNode::Split { on_true, on_false } => {
                h.merge_in_domain(&child(*on_true), &child(*on_false), SPLIT_DOMAIN)
            }
            MastNode::Loop { body } => h.merge_in_domain(&child(*body), &Digest::ZERO, LOOP_DOMAIN),
            MastNode::Call { callee, is_syscall } => {
                let domain = if *is_syscall {
                    SYSCALL_DOMAIN
                } else {
                    CALL_DOMAIN
                };
                h.merge_in_domain(&child(*callee), &Digest::ZERO, domain)
            }
            MastNode::Dyn => h.merge_in_domain(&Digest::ZERO, &Digest::ZERO, DYN_DOMAIN),
            MastNode::DynCall => h.merge_in_domain(&Digest::ZERO, &Digest::ZERO, DYNCALL_DOMAIN),
            MastNode::External(d) => *d,
        }
    }
}

/// A MAST forest: nodes, their digests, roots and an optional entrypoint.
///
/// With the `serde` feature a forest (de)serializes as its instruction set,
/// nodes, digests, roots, entrypoint, strings, source locations and advice
/// map; deserializing rebuilds it through the builder, so the invariants
/// and digests are checked. Serializing a forest with 0.23 debug info is an
/// error (see [`MastForest::strip_debug_info`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(try_from = "ForestRepr")
)]
pub struct MastForest {
    pub(crate) isa: Isa,
    pub(crate) nodes: Vec<MastNode>,
    pub(crate) digests: Vec<Digest>,
    pub(crate) roots: BitVec<u64, Lsb0>,
    pub(crate) root_order: Vec<MastNodeId>,
    pub(crate) entrypoint: Option<MastNodeId>,
    pub(crate) strings: StringTable,
    pub(crate) locations: Vec<SourceLocation>,
    pub(crate) advice_map: Vec<(Digest, Vec<Felt>)>,
    pub(crate) debug_info: Option<DebugInfo>,
}

impl MastForest {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the forest has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The id of the node at `index`, if there is one.
    pub fn node_id(&self, index: usize) -> Option<MastNodeId> {
        (index < self.nodes.len()).then_some(MastNodeId(index as u32))
    }

    /// The node `id`.
    ///
    /// # Panics
    /// If `id` belongs to a larger forest (ids are not tied to one forest).
    pub fn node(&self, id: MastNodeId) -> &MastNode {
        &self.nodes[id.index()]
    }

    /// All nodes in order.
    pub fn nodes(&self) -> &[MastNode] {
        &self.nodes
    }

    /// The digest of node `id` (see [`MastForest::node`] for panics).
    pub fn digest(&self, id: MastNodeId) -> Digest {
        self.digests[id.index()]
    }

    /// The roots, in the order they were made roots (a file's root order;
    /// index order for the draft format, which keeps a bitset).
    pub fn roots(&self) -> impl Iterator<Item = MastNodeId> + '_ {
        self.root_order.iter().copied()
    }

    /// The instruction-set version: the opcodes and the hash function of the
    /// forest's digests.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The advice map (miden-core 0.23 on), in its wire order.
    pub fn advice_map(&self) -> &[(Digest, Vec<Felt>)] {
        &self.advice_map
    }

    /// The debug-info section of a miden-core 0.23 forest, if it has one.
    pub fn debug_info(&self) -> Option<&DebugInfo> {
        self.debug_info.as_ref()
    }

    /// Whether `id` is a root.
    pub fn is_root(&self, id: MastNodeId) -> bool {
        self.roots.get(id.index()).is_some_and(|b| *b)
    }

    /// The roots bitset.
    pub fn roots_bitset(&self) -> &BitVec<u64, Lsb0> {
        &self.roots
    }

    /// The entrypoint: set for programs, unset for libraries.
    pub fn entrypoint(&self) -> Option<MastNodeId> {
        self.entrypoint
    }

    /// The interned strings.
    pub fn strings(&self) -> &StringTable {
        &self.strings
    }

    /// The source location `id` of an `AsmOp` decorator, if it is one of
    /// this forest's.
    pub fn location(&self, id: LocationId) -> Option<&SourceLocation> {
        self.locations.get(id.index())
    }

    /// The root whose digest is `digest`, if any.
    pub fn find_root(&self, digest: &Digest) -> Option<MastNodeId> {
        self.roots().find(|&r| self.digest(r) == *digest)
    }

    /// Recomputes every digest from the nodes; the first node whose stored
    /// digest differs, if any.
    pub fn verify_digests(&self) -> Option<MastNodeId> {
        let mut computed: Vec<Digest> = Vec::with_capacity(self.nodes.len());
        for (i, node) in self.nodes.iter().enumerate() {
            let d = node.compute_digest(self.isa, |c| computed[c.index()]);
            if d != self.digests[i] {
                return Some(MastNodeId(i as u32));
            }
            computed.push(d);
        }
        None
    }

    /// The tree of `root` as a forest of its own: the nodes reachable from
    /// `root`, except that a reachable node which is another root of this
    /// forest becomes an `External` node with that root's digest. This is the
    /// in-memory counterpart of [`crate::decode_root`].
    ///
    /// The tree keeps the debug info of its nodes (see [`DebugInfo`]): their node
    /// decorators, assembly ops and debug variables, the messages of the
    /// error codes they use and the names of the procedures in it. It keeps
    /// the whole advice map, which its operations may read (strip it with
    /// [`MastForest::strip_advice_map`] to convert the tree to 0.10).
    pub fn extract(&self, root: MastNodeId) -> MastForest {
        let mut out = MastForestBuilder::new_in(self.isa);
        let mut map: HashMap<u32, MastNodeId> = HashMap::new();
        // Post-order walk with an explicit stack: (node, children pushed?).
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if map.contains_key(&id.0) {
                continue;
            }
            if id != root && self.is_root(id) {
                let new = out.push_unchecked(MastNode::External(self.digest(id)), self.digest(id));
                map.insert(id.0, new);
                continue;
            }
            let node = self.node(id);
            if !expanded {
                stack.push((id, true));
                let children: Vec<_> = node.children().collect();
                for c in children.into_iter().rev() {
                    stack.push((c, false));
                }
                continue;
            }
            let remap = |c: MastNodeId| map[&c.0];
            let new_node = match node {
                MastNode::Block(b) => {
                    let decorators = b
                        .decorators
                        .iter()
                        .map(|&(i, d)| (i, out.copy_decorator(d, self)))
                        .collect();
                    MastNode::Block(BasicBlock {
                        ops: b.ops.clone(),
                        decorators,
                    })
                }
                other => other.map_children(remap),
            };
            let new = out.push_unchecked(new_node, self.digest(id));
            map.insert(id.0, new);
        }
        let new_root = map[&root.0];
        out.roots.push(new_root);
        if self.entrypoint == Some(root) {
            out.entrypoint = Some(new_root);
        }
        // Other roots became external nodes: their debug info stays behind.
        let kept = |id: MastNodeId| {
            map.get(&id.0)
                .copied()
                .filter(|_| id == root || !self.is_root(id))
        };
        let debug_info = (self.debug_info.as_ref()).and_then(|d| d.extracted(self, kept, &mut out));
        let mut tree = out.finish();
        tree.debug_info = debug_info;
        // Which entries an operation reads is known only when it runs (a
        // key may come from the stack): the map travels whole, as miden-core
        // keeps a library's forest whole in the programs it makes of it.
        tree.advice_map = self.advice_map.clone();
        tree
    }

    /// Removes the 0.23 debug info and returns it; the decorators of blocks
    /// stay on them. A forest with debug info beyond those converts to no
    /// other version and has no serde form until it is stripped.
    pub fn strip_debug_info(&mut self) -> Option<DebugInfo> {
        self.debug_info.take()
    }

    /// Removes the advice map and returns it: the explicit step that lets a
    /// forest convert to a version without one (0.10), which otherwise
    /// refuses it.
    pub fn strip_advice_map(&mut self) -> Vec<(Digest, Vec<Felt>)> {
        core::mem::take(&mut self.advice_map)
    }
}

/// Why the builder refused a node or a forest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A node id that this builder did not make.
    #[error("node {0} does not exist")]
    UnknownNode(MastNodeId),
    /// A basic block without operations.
    #[error("basic block has no operations")]
    EmptyBlock,
    /// A decorator attached past the end of its block, or out of order.
    #[error(
        "decorator index {index} is out of order or past the end of a block of {len} operations"
    )]
    BadDecoratorIndex {
        /// The offending index.
        index: u32,
        /// Operations in the block.
        len: usize,
    },
    /// A decorator names a string that is not interned.
    #[error("string {0} is not interned")]
    UnknownString(u32),
    /// A decorator names a source location that is not interned (the
    /// location's index plus one).
    #[error("source location {0} is not interned")]
    UnknownLocation(u32),
    /// A location table with a repeated location.
    #[error("source location {0} repeats an earlier location")]
    DuplicateLocation(u32),
    /// More than `u32::MAX` nodes or operations.
    #[error("too many nodes or operations for the format")]
    TooLarge,
    /// A string table with a repeated string.
    #[error("string {0} repeats an earlier string")]
    DuplicateString(u32),
    /// A recorded digest that differs from the node's contents.
    #[error("digest of node {0} differs from its contents")]
    DigestMismatch(MastNodeId),
    /// An advice-map key given a second time.
    #[error("advice key {0} repeats an earlier entry")]
    DuplicateAdviceKey(Digest),
    /// An operation that the forest's version does not have.
    #[error("operation `{op}` does not exist in {isa}")]
    NotInIsa {
        /// The operation.
        op: Operation,
        /// The forest's version.
        isa: Isa,
    },
}

/// The serialized shape of a [`MastForest`]; the fields added after the
/// first ones default to their empty values (a 0.10 forest's).
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct ForestRepr {
    #[serde(default)]
    isa: Isa,
    nodes: Vec<MastNode>,
    digests: Vec<Digest>,
    roots: Vec<MastNodeId>,
    entrypoint: Option<MastNodeId>,
    strings: Vec<String>,
    #[serde(default)]
    locations: Vec<SourceLocation>,
    #[serde(default)]
    advice_map: Vec<(Digest, Vec<Felt>)>,
}

/// [`ForestRepr`] borrowed from the forest it serializes.
#[cfg(feature = "serde")]
#[derive(serde::Serialize)]
struct ForestReprRef<'a> {
    isa: Isa,
    nodes: &'a [MastNode],
    digests: &'a [Digest],
    roots: &'a [MastNodeId],
    entrypoint: Option<MastNodeId>,
    strings: Vec<&'a str>,
    locations: &'a [SourceLocation],
    advice_map: &'a [(Digest, Vec<Felt>)],
}

#[cfg(feature = "serde")]
impl serde::Serialize for MastForest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.debug_info.is_some() {
            // FIXME: the serde form has no fields for 0.23 debug info beyond
            // the decorators of blocks (node decorators, assembly ops and
            // their placements, error messages, procedure names, debug
            // variables): such a forest is refused, not written without it.
            return Err(serde::ser::Error::custom(
                "the serde form cannot hold a forest's miden 0.23 debug info (strip it)",
            ));
        }
        let repr = ForestReprRef {
            isa: self.isa,
            nodes: &self.nodes,
            digests: &self.digests,
            roots: &self.root_order,
            entrypoint: self.entrypoint,
            strings: self.strings.iter().collect(),
            locations: &self.locations,
            advice_map: &self.advice_map,
        };
        serde::Serialize::serialize(&repr, serializer)
    }
}

#[cfg(feature = "serde")]
impl TryFrom<ForestRepr> for MastForest {
    type Error = BuildError;

    fn try_from(r: ForestRepr) -> Result<MastForest, BuildError> {
        let mut b = MastForestBuilder::new_in(r.isa);
        for (key, values) in r.advice_map {
            b.add_advice_entry(key, values)?;
        }
        for (i, s) in r.strings.iter().enumerate() {
            if b.intern(s).index() != i {
                return Err(BuildError::DuplicateString(i as u32));
            }
        }
        for (i, l) in r.locations.iter().enumerate() {
            if b.strings.get(l.path).is_none() {
                return Err(BuildError::UnknownString(l.path.0));
            }
            if b.intern_location(*l).index() != i {
                return Err(BuildError::DuplicateLocation(i as u32));
            }
        }
        if r.digests.len() != r.nodes.len() {
            return Err(BuildError::DigestMismatch(MastNodeId(
                r.digests.len() as u32
            )));
        }
        for (node, digest) in r.nodes.into_iter().zip(r.digests) {
            let id = b.add_node(node)?;
            if b.digest(id)? != digest {
                return Err(BuildError::DigestMismatch(id));
            }
        }
        for root in r.roots {
            b.add_root(root)?;
        }
        if let Some(e) = r.entrypoint {
            b.set_entrypoint(e)?;
        }
        Ok(b.build())
    }
}

/// Builds a [`MastForest`], checking that children exist, blocks are
/// non-empty and decorators are in order, and computing digests.
#[derive(Clone, Debug, Default)]
pub struct MastForestBuilder {
    isa: Isa,
    nodes: Vec<MastNode>,
    digests: Vec<Digest>,
    roots: Vec<MastNodeId>,
    entrypoint: Option<MastNodeId>,
    strings: StringTable,
    locations: Vec<SourceLocation>,
    location_ids: HashMap<SourceLocation, LocationId>,
    advice_map: Vec<(Digest, Vec<Felt>)>,
    advice_keys: HashSet<Digest>,
}

impl MastForestBuilder {
    /// An empty builder of a miden-core 0.10 forest (RPO256 digests), the
    /// kind the draft format holds.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder of a forest of version `isa`.
    pub fn new_in(isa: Isa) -> Self {
        MastForestBuilder {
            isa,
            ..Self::default()
        }
    }

    /// Number of nodes so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node was added yet.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Adds an entry to the advice map, after the entries already added
    /// (the map keeps this order, which the wire formats write).
    pub fn add_advice_entry(&mut self, key: Digest, values: Vec<Felt>) -> Result<(), BuildError> {
        if !self.advice_keys.insert(key) {
            return Err(BuildError::DuplicateAdviceKey(key));
        }
        self.advice_map.push((key, values));
        Ok(())
    }

    /// The advice map so far.
    pub fn advice_map(&self) -> &[(Digest, Vec<Felt>)] {
        &self.advice_map
    }

    /// Interns a string for `AsmOp` decorators.
    pub fn intern(&mut self, s: &str) -> StringId {
        self.strings.intern(s)
    }

    /// Interns a source location for `AsmOp` decorators: bytes
    /// `start..end` of the file at `path`.
    pub fn location(&mut self, path: &str, start: u32, end: u32) -> LocationId {
        let path = self.intern(path);
        self.intern_location(SourceLocation { path, start, end })
    }

    /// Interns a location whose path is interned.
    pub(crate) fn intern_location(&mut self, location: SourceLocation) -> LocationId {
        if let Some(&id) = self.location_ids.get(&location) {
            return id;
        }
        // A location is read from at least 9 bytes of input: the table's
        // length fits a `u32`.
        let id = LocationId(NonZeroU32::MIN.saturating_add(self.locations.len() as u32));
        self.locations.push(location);
        self.location_ids.insert(location, id);
        id
    }

    /// The digest of a node already added.
    pub fn digest(&self, id: MastNodeId) -> Result<Digest, BuildError> {
        self.digests
            .get(id.index())
            .copied()
            .ok_or(BuildError::UnknownNode(id))
    }

    fn check(&self, id: MastNodeId) -> Result<(), BuildError> {
        self.digest(id).map(|_| ())
    }

    fn check_decorator(&self, d: &Decorator) -> Result<(), BuildError> {
        if let Decorator::AsmOp(a) = d {
            if let Some(l) = a.location {
                if l.index() >= self.locations.len() {
                    return Err(BuildError::UnknownLocation(l.0.get()));
                }
            }
            for s in [a.context_name, a.op] {
                if self.strings.get(s).is_none() {
                    return Err(BuildError::UnknownString(s.0));
                }
            }
        }
        Ok(())
    }

    /// `d`, a decorator of `from`, with its strings and location interned
    /// in this builder.
    fn copy_decorator(&mut self, d: Decorator, from: &MastForest) -> Decorator {
        match d {
            Decorator::AsmOp(a) => Decorator::AsmOp(self.copy_asm_op(a, from)),
            other => other,
        }
    }

    /// `a`, an assembly op of `from`, with its strings and location
    /// interned in this builder.
    pub(crate) fn copy_asm_op(&mut self, mut a: AsmOp, from: &MastForest) -> AsmOp {
        let string = |id| from.strings.get(id).unwrap_or_default();
        if let Some(l) = a.location.and_then(|l| from.location(l)) {
            let path = self.intern(string(l.path));
            a.location = Some(self.intern_location(SourceLocation { path, ..*l }));
        }
        a.context_name = self.intern(string(a.context_name));
        a.op = self.intern(string(a.op));
        a
    }

    pub(crate) fn push_root_unchecked(&mut self, id: MastNodeId) {
        self.roots.push(id);
    }

    pub(crate) fn strings(&self) -> &StringTable {
        &self.strings
    }

    pub(crate) fn digests(&self) -> &[Digest] {
        &self.digests
    }

    pub(crate) fn node_ref(&self, id: MastNodeId) -> &MastNode {
        &self.nodes[id.index()]
    }

    /// Replaces the digest a decoder pushed a node with (a placeholder until
    /// the digests are computed in one pass).
    pub(crate) fn set_digest(&mut self, id: MastNodeId, digest: Digest) {
        self.digests[id.index()] = digest;
    }

    pub(crate) fn push_unchecked(&mut self, node: MastNode, digest: Digest) -> MastNodeId {
        let id = MastNodeId(self.nodes.len() as u32);
        self.nodes.push(node);
        self.digests.push(digest);
        id
    }

    /// Adds a node whose children must already exist.
    pub fn add_node(&mut self, node: MastNode) -> Result<MastNodeId, BuildError> {
        if self.nodes.len() >= u32::MAX as usize {
            return Err(BuildError::TooLarge);
        }
        for c in node.children() {
            self.check(c)?;
        }
        if let MastNode::Block(b) = &node {
            if b.ops.is_empty() {
                return Err(BuildError::EmptyBlock);
            }
            if let Some(op) = b.ops.iter().find(|op| !op.exists_in(self.isa)) {
                return Err(BuildError::NotInIsa {
                    op: *op,
                    isa: self.isa,
                });
            }
            if b.ops.len() > u32::MAX as usize || b.decorators.len() > u32::MAX as usize {
                return Err(BuildError::TooLarge);
            }
            let mut prev = 0;
            for (i, d) in &b.decorators {
                if *i < prev || *i as usize > b.ops.len() {
                    return Err(BuildError::BadDecoratorIndex {
                        index: *i,
                        len: b.ops.len(),
                    });
                }
                prev = *i;
                self.check_decorator(d)?;
            }
        }
        let digest = node.compute_digest(self.isa, |c| self.digests[c.index()]);
        Ok(self.push_unchecked(node, digest))
    }

    /// Adds a basic block.
    pub fn add_block(
        &mut self,
        ops: Vec<Operation>,
        decorators: Vec<(u32, Decorator)>,
    ) -> Result<MastNodeId, BuildError> {
        self.add_node(MastNode::Block(BasicBlock { ops, decorators }))
    }

    /// Adds `join left right`.
    pub fn add_join(
        &mut self,
        left: MastNodeId,
        right: MastNodeId,
    ) -> Result<MastNodeId, BuildError> {
        self.add_node(MastNode::Join { left, right })
    }

    /// Adds `split on_true on_false`.
    pub fn add_split(
        &mut self,
        on_true: MastNodeId,
        on_false: MastNodeId,
    ) -> Result<MastNodeId, BuildError> {
        self.add_node(MastNode::Split { on_true, on_false })
    }

    /// Adds `loop body`.
    pub fn add_loop(&mut self, body: MastNodeId) -> Result<MastNodeId, BuildError> {
        self.add_node(MastNode::Loop { body })
    }

    /// Adds `call callee` (or `syscall callee`).
    pub fn add_call(
        &mut self,
        callee: MastNodeId,
        is_syscall: bool,
    ) -> Result<MastNodeId, BuildError> {
        self.add_node(MastNode::Call { callee, is_syscall })
    }

    /// Adds `dyn`.
    pub fn add_dyn(&mut self) -> Result<MastNodeId, BuildError> {
        self.add_node(MastNode::Dyn)
    }

    /// Adds `external digest`.
    pub fn add_external(&mut self, digest: Digest) -> Result<MastNodeId, BuildError> {
        self.add_node(MastNode::External(digest))
    }

    /// Marks `id` as a root.
    pub fn add_root(&mut self, id: MastNodeId) -> Result<(), BuildError> {
        self.check(id)?;
        if !self.roots.contains(&id) {
            self.roots.push(id);
        }
        Ok(())
    }

    /// Sets the entrypoint (which also becomes a root).
    pub fn set_entrypoint(&mut self, id: MastNodeId) -> Result<(), BuildError> {
        self.add_root(id)?;
        self.entrypoint = Some(id);
        Ok(())
    }

    pub(crate) fn finish(self) -> MastForest {
        let mut roots = BitVec::repeat(false, self.nodes.len());
        for r in &self.roots {
            roots.set(r.index(), true);
        }
        MastForest {
            isa: self.isa,
            nodes: self.nodes,
            digests: self.digests,
            roots,
            root_order: self.roots,
            entrypoint: self.entrypoint,
            strings: self.strings,
            locations: self.locations,
            advice_map: self.advice_map,
            debug_info: None,
        }
    }

    /// The forest. Every check was made as nodes were added.
    pub fn build(self) -> MastForest {
        self.finish()
    }
}
