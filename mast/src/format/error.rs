//! What the decoder reports, and how it is told to decode.

use crate::felt::Digest;

/// What is wrong with an encoded forest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// The input ends inside a field.
    #[error("unexpected end of input in {0}")]
    Truncated(&'static str),
    /// The input does not start with `MAST\0`.
    #[error("bad magic, not a MAST forest")]
    BadMagic,
    /// A version other than 0.
    #[error("unsupported format version {0:?}")]
    UnsupportedVersion([u8; 3]),
    /// A `VInt64` with superfluous zero bytes.
    #[error("non-canonical VInt64 in {0}")]
    NonCanonicalVInt(&'static str),
    /// A value does not fit its field.
    #[error("{field} value {value} is out of range")]
    ValueOutOfRange {
        /// The field.
        field: &'static str,
        /// The value read.
        value: u64,
    },
    /// A count that the remaining input cannot hold.
    #[error("{field} count {count} exceeds what the remaining {available} bytes can hold")]
    CountTooLarge {
        /// The field.
        field: &'static str,
        /// The count read.
        count: u64,
        /// Bytes left in the input (or data section).
        available: usize,
    },
    /// Padding or reserved bytes that are not zero.
    #[error("non-zero {0}")]
    NonZeroPadding(&'static str),
    /// A set bit in the roots bitset past the last node.
    #[error("root bit {0} is past the last node")]
    RootOutOfRange(usize),
    /// The entrypoint is not a node.
    #[error("entrypoint {index} is out of range ({count} nodes)")]
    EntrypointOutOfRange {
        /// The entrypoint index.
        index: u64,
        /// Number of nodes.
        count: u32,
    },
    /// The entrypoint is not in the roots bitset.
    #[error("entrypoint {0} is not a root")]
    EntrypointNotRoot(u32),
    /// A node record with an unknown tag.
    #[error("node {node}: unknown node type tag {tag}")]
    UnknownNodeTag {
        /// Node index.
        node: u32,
        /// The tag.
        tag: u8,
    },
    /// A node index past the last node.
    #[error("node {index} is out of range ({count} nodes)")]
    NodeOutOfRange {
        /// The index.
        index: u32,
        /// Number of nodes.
        count: u32,
    },
    /// A child index past the last node.
    #[error("node {node}: child {child} is out of range ({count} nodes)")]
    ChildOutOfRange {
        /// Node index.
        node: u32,
        /// Child index.
        child: u32,
        /// Number of nodes.
        count: u32,
    },
    /// A child that does not precede its parent (which any cycle needs).
    #[error("node {node}: child {child} does not precede it (cycle or forward reference)")]
    ForwardReference {
        /// Node index.
        node: u32,
        /// Child index.
        child: u32,
    },
    /// A non-block node with a data offset.
    #[error("node {0}: only blocks have data, but its offset is non-zero")]
    UnexpectedOffset(u32),
    /// A data offset or string range outside the data section.
    #[error("{what} range {offset}+{len} is outside the data section of {data_size} bytes")]
    DataOutOfRange {
        /// What the range belongs to.
        what: &'static str,
        /// Start.
        offset: u64,
        /// Length.
        len: u64,
        /// Size of the data section.
        data_size: usize,
    },
    /// A block without operations.
    #[error("node {0}: empty basic block")]
    EmptyBlock(u32),
    /// Blocks claim more operations and decorators than the data can hold.
    #[error("node {node}: {ops} operations and {decorators} decorators cannot fit the data left")]
    BlockTooLarge {
        /// Node index.
        node: u32,
        /// Operation count.
        ops: u32,
        /// Decorator count.
        decorators: u32,
    },
    /// A block holds more operations or decorators than its record says.
    #[error("node {node}: block holds more {what} than its record's count")]
    BlockCountMismatch {
        /// Node index.
        node: u32,
        /// `"operations"` or `"decorators"`.
        what: &'static str,
    },
    /// A field element that is not below the modulus.
    #[error("{0} is not a canonical field element")]
    NonCanonicalFelt(&'static str),
    /// An unknown `EncodedOperation` tag.
    #[error("unknown operation/decorator tag {0}")]
    UnknownEntryTag(u8),
    /// An unknown opcode.
    #[error("unknown opcode {0}")]
    UnknownOpcode(u8),
    /// An opcode under the wrong tag (with/without immediate).
    #[error("opcode {opcode} {}", if *.expects_immediate { "takes an immediate" } else { "takes no immediate" })]
    ImmediateMismatch {
        /// The opcode.
        opcode: u8,
        /// Whether it needs one.
        expects_immediate: bool,
    },
    /// An unknown advice injector tag.
    #[error("unknown advice injector tag {0}")]
    UnknownAdviceTag(u8),
    /// A boolean byte other than 0 or 1.
    #[error("{field}: {value} is not a boolean")]
    BadBool {
        /// The field.
        field: &'static str,
        /// The byte.
        value: u8,
    },
    /// An unknown signature kind.
    #[error("unknown signature kind {0}")]
    UnknownSignatureKind(u8),
    /// A string index past the strings table.
    #[error("string index {index} is out of range ({count} strings)")]
    StringIndexOutOfRange {
        /// The index.
        index: u64,
        /// Number of strings.
        count: u32,
    },
    /// Strings that together exceed the data section.
    #[error("strings total more bytes than the data section holds")]
    StringsTooLarge,
    /// A string that is not UTF-8.
    #[error("string {0} is not valid UTF-8")]
    InvalidUtf8(u32),
    /// A recorded digest that differs from the node's contents.
    #[error("node {node}: recorded digest {recorded} differs from computed {computed}")]
    DigestMismatch {
        /// Node index.
        node: u32,
        /// Digest in the record.
        recorded: Digest,
        /// Digest of the contents.
        computed: Digest,
    },
    /// Data not laid out as the encoder lays it out.
    #[error("{what} starts at data offset {found}, but {expected} was expected (strings, then blocks, back to back)")]
    DataLayout {
        /// What is misplaced.
        what: &'static str,
        /// Where it should start.
        expected: u64,
        /// Where it starts.
        found: u64,
    },
    /// Data section bytes that no string or block uses.
    #[error("{0} bytes of the data section are not used")]
    UnusedData(usize),
    /// The same string twice in the strings table.
    #[error("string {0} repeats an earlier string")]
    DuplicateString(u32),
    /// Bytes after the data section.
    #[error("{0} trailing bytes after the data section")]
    TrailingBytes(usize),
    /// No root has the requested digest.
    #[error("no root has digest {0}")]
    RootNotFound(Digest),
    /// Flag bits that no version defines.
    #[error("unknown flags {0:#04x}")]
    UnknownFlags(u8),
    /// A value that breaks a rule of the format.
    #[error("{0}")]
    Invalid(&'static str),
    /// A well-formed layout that Miden's serializer never writes, which
    /// could therefore not be rewritten byte for byte.
    #[error("non-canonical {0}")]
    NonCanonical(&'static str),
    /// A construct this crate does not read yet.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
}

/// A decoding error at a byte offset of the input (of every format).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("error at byte {offset}: {kind}")]
pub struct DecodeError {
    /// Offset of the offending byte from the start of the input.
    pub offset: usize,
    /// What is wrong.
    pub kind: DecodeErrorKind,
}

impl DecodeError {
    /// The error of a sub-slice starting at `base`, as an error of the whole input.
    pub(crate) fn shifted(mut self, base: usize) -> DecodeError {
        self.offset += base;
        self
    }
}

pub(crate) type Result<T, E = DecodeError> = core::result::Result<T, E>;

#[cold]
#[inline(never)]
pub(crate) fn err<T>(offset: usize, kind: DecodeErrorKind) -> Result<T> {
    Err(DecodeError { offset, kind })
}

/// Decoding options.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Take recorded digests as they are instead of recomputing them.
    pub trust_digests: bool,
}

impl DecodeOptions {
    /// Recompute and check every digest.
    pub const VERIFY: DecodeOptions = DecodeOptions {
        trust_digests: false,
    };
    /// Trust recorded digests.
    pub const TRUST: DecodeOptions = DecodeOptions {
        trust_digests: true,
    };
}
