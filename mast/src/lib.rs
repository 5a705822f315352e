#![doc = include_str!("../README.md")]
//!
//! # Modules
//!
//! * [`forest`]: the in-memory [`MastForest`] and its [`MastForestBuilder`];
//! * [`block`], [`ops`], [`decorator`]: basic blocks, Miden's operation set and decorators;
//! * [`hash`], [`felt`]: Goldilocks elements and Miden-compatible digests (RPO256, Poseidon2, Eidos);
//! * [`format`](mod@format): the binary format, with its **specification** in the module docs;
//! * [`text`]: the text form (`Display` and [`parse`]);
//! * `generate` (feature `generate`, on by default): seeded random forests;
//! * `fuzzing` (feature `fuzzing`): fuzz harnesses.
//!
//! # Features
//!
//! * `generate` (default): the `generate` module, on the test kit's seeded
//!   stream;
//! * `fuzzing`: the `fuzzing` module, with `arbitrary` inputs;
//! * `serde`: `Serialize`/`Deserialize` on the public data types
//!   (deserializing a forest re-checks its invariants and digests; a forest
//!   with 0.23 debug info is refused rather than serialized without it).
#![deny(missing_docs)]

pub mod block;
mod debug_info;
pub mod decorator;
pub mod felt;
pub mod forest;
pub mod format;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
#[cfg(any(test, feature = "generate"))]
pub mod generate;
pub mod hash;
pub mod ops;
pub mod text;
pub mod wire;

pub use block::{BasicBlock, OpBatch};
pub use debug_info::{DebugVariable, Placement, SourcePosition, VariableLocation};
pub use decorator::{
    AdviceInjector, AsmOp, Decorator, LocationId, SignatureKind, SourceLocation, StringId,
};
pub use felt::{Digest, Felt};
pub use forest::{
    BuildError, MastForest, MastForestBuilder, MastNode, MastNodeId, NodeKind, StringTable,
};
pub use forest::{DebugInfo, NodeDecorators};
pub use format::{
    decode, decode_root, encode, DecodeError, DecodeErrorKind, DecodeOptions, EncodeError,
    EncodedForest,
};
#[cfg(any(test, feature = "generate"))]
pub use generate::{generate, GenConfig};
pub use hash::Hasher;
pub use ops::Isa;
pub use ops::Operation;
pub use text::{parse, ParseError};
pub use wire::{Export, ExportTarget, Flags, Format, MastFile};
