//! Decorators: annotations attached to the operation that follows them in a
//! basic block (or to the end of the block when nothing follows). They do not
//! change execution or the block's digest.
//!
//! The set is miden-core 0.10's `AdviceInjector`, `AssemblyOp`, events,
//! traces and debug options, with the advice-stack debug option of 0.23
//! (whose decorators are the debug options and traces; see `wire`). `AssemblyOp` strings are
//! interned in the forest's [`StringTable`] and referred to
//! by [`StringId`].

use core::fmt;
use std::collections::HashMap;

use crate::felt::Felt;

/// Index of an interned string in a forest's string table.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringId(pub(crate) u32);

impl StringId {
    /// The index in the string table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Interned strings (the `AsmOp` decorator's names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, StringId>,
}

impl StringTable {
    /// Interns `s`, returning its id.
    pub fn intern(&mut self, s: &str) -> StringId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StringId(self.strings.len() as u32);
        self.strings.push(s.into());
        self.index.insert(s.into(), id);
        id
    }

    /// The string with id `id`, if it exists.
    pub fn get(&self, id: StringId) -> Option<&str> {
        self.strings.get(id.index()).map(|s| &**s)
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// The strings in id order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|s| &**s)
    }
}

/// The signature scheme of a `sig_to_stack` advice injector.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SignatureKind {
    /// RPO Falcon-512.
    RpoFalcon512,
}

/// An advice injector (miden-core 0.10 `AdviceInjector`), variants in the
/// order of their binary tags.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // The variants are named after Miden's and documented there.
pub enum AdviceInjector {
    MerkleNodeMerge,
    MerkleNodeToStack,
    UpdateMerkleNode,
    MapValueToStack { include_len: bool, key_offset: u64 },
    U64Div,
    Ext2Inv,
    Ext2Intt,
    SmtGet,
    SmtSet,
    SmtPeek,
    U32Clz,
    U32Ctz,
    U32Clo,
    U32Cto,
    ILog2,
    MemToMap,
    HdwordToMap { domain: Felt },
    HpermToMap,
    SigToStack { kind: SignatureKind },
}

impl AdviceInjector {
    /// The variant's tag in the binary format.
    pub fn tag(&self) -> u8 {
        use AdviceInjector::*;
        match self {
            MerkleNodeMerge => 0,
            MerkleNodeToStack => 1,
            UpdateMerkleNode => 2,
            MapValueToStack { .. } => 3,
            U64Div => 4,
            Ext2Inv => 5,
            Ext2Intt => 6,
            SmtGet => 7,
            SmtSet => 8,
            SmtPeek => 9,
            U32Clz => 10,
            U32Ctz => 11,
            U32Clo => 12,
            U32Cto => 13,
            ILog2 => 14,
            MemToMap => 15,
            HdwordToMap { .. } => 16,
            HpermToMap => 17,
            SigToStack { .. } => 18,
        }
    }

    /// The variant with tag `tag` if it carries no data.
    pub fn unit_from_tag(tag: u8) -> Option<AdviceInjector> {
        use AdviceInjector::*;
        Some(match tag {
            0 => MerkleNodeMerge,
            1 => MerkleNodeToStack,
            2 => UpdateMerkleNode,
            4 => U64Div,
            5 => Ext2Inv,
            6 => Ext2Intt,
            7 => SmtGet,
            8 => SmtSet,
            9 => SmtPeek,
            10 => U32Clz,
            11 => U32Ctz,
            12 => U32Clo,
            13 => U32Cto,
            14 => ILog2,
            15 => MemToMap,
            17 => HpermToMap,
            _ => return None,
        })
    }

    /// One instance of every variant (with small payloads), for tests.
    pub fn examples() -> Vec<AdviceInjector> {
        let mut v: Vec<_> = (0..=18).filter_map(AdviceInjector::unit_from_tag).collect();
        v.push(AdviceInjector::MapValueToStack {
            include_len: true,
            key_offset: 3,
        });
        v.push(AdviceInjector::MapValueToStack {
            include_len: false,
            key_offset: 0,
        });
        v.push(AdviceInjector::HdwordToMap { domain: Felt::ONE });
        v.push(AdviceInjector::SigToStack {
            kind: SignatureKind::RpoFalcon512,
        });
        v
    }

    fn parse(s: &str) -> Option<AdviceInjector> {
        use AdviceInjector::*;
        if let Some(k) = s.strip_prefix("map_value_to_stack_with_len.") {
            return Some(MapValueToStack {
                include_len: true,
                key_offset: parse_decimal(k)?,
            });
        }
        if let Some(k) = s.strip_prefix("map_value_to_stack.") {
            return Some(MapValueToStack {
                include_len: false,
                key_offset: parse_decimal(k)?,
            });
        }
        if let Some(d) = s.strip_prefix("hdword_to_map.") {
            return Some(HdwordToMap {
                domain: d.parse().ok()?,
            });
        }
        if s == "sig_to_stack.rpo_falcon512" {
            return Some(SigToStack {
                kind: SignatureKind::RpoFalcon512,
            });
        }
        (0..=18)
            .filter_map(AdviceInjector::unit_from_tag)
            .find(|a| a.to_string() == s)
    }
}

fn parse_decimal(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl fmt::Display for AdviceInjector {
    /// Miden's own names for the injectors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AdviceInjector::*;
        match self {
            MerkleNodeMerge => f.write_str("merkle_node_merge"),
            MerkleNodeToStack => f.write_str("merkle_node_to_stack"),
            UpdateMerkleNode => f.write_str("update_merkle_node"),
            MapValueToStack {
                include_len: true,
                key_offset,
            } => write!(f, "map_value_to_stack_with_len.{key_offset}"),
            MapValueToStack {
                include_len: false,
                key_offset,
            } => write!(f, "map_value_to_stack.{key_offset}"),
            U64Div => f.write_str("div_u64"),
            Ext2Inv => f.write_str("ext2_inv"),
            Ext2Intt => f.write_str("ext2_intt"),
            SmtGet => f.write_str("smt_get"),
            SmtSet => f.write_str("smt_set"),
            SmtPeek => f.write_str("smt_peek"),
            U32Clz => f.write_str("u32clz"),
            U32Ctz => f.write_str("u32ctz"),
            U32Clo => f.write_str("u32clo"),
            U32Cto => f.write_str("u32cto"),
            ILog2 => f.write_str("ilog2"),
            MemToMap => f.write_str("mem_to_map"),
            HdwordToMap { domain } => write!(f, "hdword_to_map.{domain}"),
            HpermToMap => f.write_str("hperm_to_map"),
            SigToStack {
                kind: SignatureKind::RpoFalcon512,
            } => f.write_str("sig_to_stack.rpo_falcon512"),
        }
    }
}

/// Why a string is not an advice injector name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown advice injector `{0}`")]
pub struct ParseAdviceError(pub String);

impl core::str::FromStr for AdviceInjector {
    type Err = ParseAdviceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AdviceInjector::parse(s).ok_or_else(|| ParseAdviceError(s.to_string()))
    }
}

/// Index of a source location in a forest's location table (see
/// [`crate::MastForest::location`]); kept out of [`AsmOp`] so that a
/// decorator stays small.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocationId(pub(crate) core::num::NonZeroU32);

impl LocationId {
    /// The index in the location table.
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// Where an instruction is in its source: a file and a range of byte
/// offsets (miden-core 0.10's `Location`).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// The source file's path.
    pub path: StringId,
    /// Offset of the first byte.
    pub start: u32,
    /// Offset past the last byte.
    pub end: u32,
}

/// Source-level information about the assembly instruction an operation came
/// from (miden-core's `AssemblyOp`).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsmOp {
    /// Where the instruction is in its source, if known.
    pub location: Option<LocationId>,
    /// Name of the procedure the instruction is in.
    pub context_name: StringId,
    /// The instruction's text.
    pub op: StringId,
    /// How many VM cycles the instruction takes.
    pub num_cycles: u8,
    /// Whether a debugger should break before it.
    pub should_break: bool,
}

/// A decorator (miden-core 0.10's set and 0.23's; the draft format encodes
/// the first four kinds only, and assembly ops without a source location).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Decorator {
    /// Injects non-deterministic advice.
    Advice(AdviceInjector),
    /// Assembly-level debug information.
    AsmOp(AsmOp),
    /// Prints the whole stack (`Debug::StackAll`).
    StackAll,
    /// Prints the top `n` stack elements (`Debug::StackTop(n)`).
    StackTop(u8),
    /// Prints all of memory (`Debug::MemAll`).
    MemAll,
    /// Prints memory addresses `start..=end` (`Debug::MemInterval`).
    MemInterval(u32, u32),
    /// Prints procedure locals (`Debug::LocalInterval(start, second, end)`).
    LocalInterval(u16, u16, u16),
    /// Emits an event to the host (`Decorator::Event`, 0.10).
    Event(u32),
    /// Emits a trace marker (`Decorator::Trace`).
    Trace(u32),
    /// Prints the top `n` elements of the advice stack
    /// (`DebugOptions::AdvStackTop`, miden-core 0.23 on).
    AdvStackTop(u16),
}
