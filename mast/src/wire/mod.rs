//! The files Miden ships: every released wire version of a MAST forest, the
//! draft format, and libraries (`.masl`).
//!
//! | format      | header                         | digests   | module      |
//! |-------------|--------------------------------|-----------|-------------|
//! | draft       | `MAST\0` `[0,0,0]`             | RPO256    | [`crate::format`] |
//! | miden 0.10  | `MAST\0` `[0,0,0]`             | RPO256    | `v010`      |
//! | miden 0.23  | `MAST` flags `[0,0,3]`         | Poseidon2 | `v023`      |
//! | miden 0.24  | `MAST` flags `[0,0,4]`         | Poseidon2 | `v023`      |
//! | miden 1.0   | `MAST` flags `[0,0,5]`         | Eidos     | `v023`      |
//!
//! The draft and miden-core 0.10 share their 8-byte header. They are told
//! apart by layout: after the header, 0.10 has a `usize` node count, two
//! `Vec<u32>`s and a `Vec<u8>`, then exactly 40 bytes per node. [`detect`]
//! reads a file as 0.10 when those lengths fit in the file, and as the draft
//! otherwise; the draft's first fields (an entrypoint, a node count, a
//! bitset padded to 4 bytes, 48-byte records) do not fit them but for
//! contrived inputs, and a caller who knows better says so (`Format::Draft`).
//!
//! A library is a forest followed by its exports (`library`: procedures by
//! node or digest, and from 0.23 on their signatures and attributes,
//! exported types and constants).
//!
//! Decoders read the structure first and settle digests after it
//! (`settle_digests`): a trusted digest is taken as recorded. A recorded
//! digest is verified on its own, from the recorded digests of the node's
//! children, so every node of a forest is hashed independently, on up to
//! `available_parallelism` threads over contiguous runs of nodes. A hashless
//! file's digests are rebuilt: block digests in parallel, then the other
//! nodes' in node order, children first. The forest and the first mismatch
//! in node order do not depend on the thread count.
//!
//! Version `[0,0,5]` (miden-core 1.0) keeps the nodes in one canonical
//! order, which its decoder requires and [`canonicalize`] establishes: see
//! `canonical`.

mod asm_ops;
mod canonical;
pub(crate) mod cursor;
mod debug_info;
mod debug_info_write;
mod library;
pub(crate) mod v010;
pub(crate) mod v023;

use core::fmt;
use core::ops::Range;

use crate::block::{hash_groups, BATCH_SIZE};

use crate::felt::{Digest, Felt};
use crate::forest::{MastForest, MastForestBuilder, MastNode, MastNodeId};
use crate::format::{err, DecodeErrorKind, DecodeOptions, EncodeError, Result};
use crate::ops::Isa;

pub use canonical::canonicalize;
use cursor::{put_usize, Cursor};
pub use library::{EncodedType, EncodedValue};
use v023::Version;

/// The wire formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// The draft MAST binary format (this crate's [`crate::format`]), which no Miden release wrote.
    Draft,
    /// miden-core 0.10, version `[0, 0, 0]`.
    V0_10,
    /// miden-core 0.23, version `[0, 0, 3]`.
    V0_23,
    /// miden-core 0.24, version `[0, 0, 4]`: the layout of 0.23 without
    /// debug info.
    V0_24,
    /// miden-core 1.0, version `[0, 0, 5]`: the layout of 0.24 with the
    /// nodes in canonical order, Eidos digests and opcode `0x50` meaning
    /// `compress`.
    V1_0,
}

impl Format {
    /// The version bytes of the header.
    pub fn version(self) -> [u8; 3] {
        match self {
            Format::Draft | Format::V0_10 => [0, 0, 0],
            Format::V0_23 => v023::VERSION,
            Format::V0_24 => v023::VERSION_0_24,
            Format::V1_0 => v023::VERSION_1_0,
        }
    }

    /// The format's name in messages (`miden 0.23`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Draft => "the draft format",
            Format::V0_10 => "miden 0.10",
            Format::V0_23 => "miden 0.23",
            Format::V0_24 => "miden 0.24",
            Format::V1_0 => "miden 1.0",
        }
    }

    /// The instruction set of the format's forests.
    pub fn isa(self) -> Isa {
        match self {
            Format::Draft | Format::V0_10 => Isa::V0_10,
            Format::V0_23 | Format::V0_24 => Isa::V0_23,
            Format::V1_0 => Isa::V1_0,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c] = self.version();
        match self {
            Format::Draft => write!(f, "draft (version [{a},{b},{c}])"),
            _ => write!(f, "{} (version [{a},{b},{c}])", self.name()),
        }
    }
}

/// The flags of the 0.23 header.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// No debug-info section.
    pub stripped: bool,
    /// No digests of internal nodes (implies `stripped`).
    pub hashless: bool,
}

impl fmt::Display for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match (self.stripped, self.hashless) {
            (_, true) => "stripped, hashless",
            (true, false) => "stripped",
            (false, false) => "none",
        })
    }
}

/// An export of a library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    /// The fully qualified path (`module::name`).
    pub path: String,
    /// What it names.
    pub target: ExportTarget,
    /// The procedure's signature, a function type (0.23 on).
    pub signature: Option<EncodedType>,
    /// The procedure's attributes, if it has any (0.23 on).
    pub attributes: Option<EncodedValue>,
}

/// What an export names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportTarget {
    /// A root of the library's forest.
    Node(MastNodeId),
    /// A procedure of another library, by digest (0.10 re-exports).
    Digest(Digest),
    /// A type (0.23 on).
    Type(EncodedType),
    /// A constant (0.23 on).
    Constant(EncodedValue),
}

/// A decoded file: its format, its forest and, for a library, its exports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MastFile {
    /// The wire format.
    pub format: Format,
    /// The flags (0.23; default otherwise).
    pub flags: Flags,
    /// The forest.
    pub forest: MastForest,
    /// The exports, for a library (`.masl`).
    pub exports: Option<Vec<Export>>,
}

impl MastFile {
    /// The digest an export names, if it names a procedure.
    pub fn export_digest(&self, e: &Export) -> Option<Digest> {
        library::export_digest(&self.forest, e)
    }
}

/// The format and flags of `bytes`, from its header (and, for the header the
/// draft and 0.10 share, its layout; see the module docs).
pub fn detect(bytes: &[u8]) -> Result<(Format, Flags)> {
    let magic = &v023::MAGIC[..bytes.len().min(4)];
    if !bytes.starts_with(magic) {
        return err(0, DecodeErrorKind::BadMagic);
    }
    if bytes.len() < 8 {
        return err(bytes.len(), DecodeErrorKind::Truncated("header"));
    }
    let version = [bytes[5], bytes[6], bytes[7]];
    match version {
        [0, 0, 0] if bytes[4] == 0 => Ok((
            if v010::looks_like(bytes) {
                Format::V0_10
            } else {
                Format::Draft
            },
            Flags::default(),
        )),
        [0, 0, 3] => Ok((Format::V0_23, v023::read_flags(bytes[4], Version::V3)?)),
        [0, 0, 4] => Ok((Format::V0_24, v023::read_flags(bytes[4], Version::V4)?)),
        [0, 0, 5] => Ok((Format::V1_0, v023::read_flags(bytes[4], Version::V5)?)),
        _ => err(5, DecodeErrorKind::UnsupportedVersion(version)),
    }
}

/// Decodes a forest or a library in any format, detected by [`detect`].
pub fn read(bytes: &[u8], opts: DecodeOptions) -> Result<MastFile> {
    let (format, _) = detect(bytes)?;
    read_as(bytes, format, opts)
}

/// Decodes a forest or a library in `format`.
pub fn read_as(bytes: &[u8], format: Format, opts: DecodeOptions) -> Result<MastFile> {
    let (forest, end, flags) = match format {
        Format::Draft => {
            let (encoded, end) = crate::format::EncodedForest::parse_prefix(bytes)?;
            (encoded.decode(opts)?, end, Flags::default())
        }
        Format::V0_10 => {
            if bytes.get(..8) != Some(&v010::HEADER[..]) {
                return err(0, DecodeErrorKind::BadMagic);
            }
            let (forest, end) = v010::decode(bytes, 8, opts)?;
            (forest, end, Flags::default())
        }
        Format::V0_23 | Format::V0_24 | Format::V1_0 => {
            let (f, flags) = detect(bytes)?;
            if f != format {
                return err(5, DecodeErrorKind::UnsupportedVersion(f.version()));
            }
            let version = match format {
                Format::V0_23 => Version::V3,
                Format::V0_24 => Version::V4,
                _ => Version::V5,
            };
            let (forest, end) = v023::decode(bytes, version, flags, opts)?;
            (forest, end, flags)
        }
    };
    let exports = if end == bytes.len() {
        None
    } else if matches!(format, Format::Draft | Format::V0_24 | Format::V1_0) {
        // From 0.24 on a library ships as a package, not as a forest
        // followed by exports: a 0.24 or 1.0 forest refuses trailing bytes,
        // as miden-core does.
        return err(end, DecodeErrorKind::TrailingBytes(bytes.len() - end));
    } else {
        let mut c = Cursor::new(bytes, end);
        let exports = library::read_exports(&mut c, format, &forest)?;
        if !c.is_at_end() {
            return err(c.at(), DecodeErrorKind::TrailingBytes(c.remaining()));
        }
        Some(exports)
    };
    Ok(MastFile {
        format,
        flags,
        forest,
        exports,
    })
}

/// Encodes `forest` (with `exports`, a library) in `format` with `flags`.
pub fn write(
    forest: &MastForest,
    exports: Option<&[Export]>,
    format: Format,
    flags: Flags,
) -> core::result::Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    match format {
        Format::Draft => {
            if exports.is_some() {
                return Err(EncodeError::unrepresentable(
                    "the draft format",
                    "library exports",
                ));
            }
            out = crate::format::encode(forest)?;
        }
        Format::V0_10 => v010::encode(forest, &mut out)?,
        Format::V0_23 => v023::encode(forest, Version::V3, flags, &mut out)?,
        Format::V0_24 => v023::encode(forest, Version::V4, flags, &mut out)?,
        Format::V1_0 => v023::encode(forest, Version::V5, flags, &mut out)?,
    }
    if let Some(exports) = exports {
        if matches!(format, Format::V0_24 | Format::V1_0) {
            // A 0.24 or 1.0 library is a package (see `read_as`).
            return Err(EncodeError::unrepresentable(
                format.name(),
                "library exports (from 0.24 on libraries ship as packages)",
            ));
        }
        put_usize(&mut out, exports.len());
        for e in exports {
            library::write_export(e, format, &mut out)?;
        }
    }
    Ok(out)
}

/// Checks that version `isa` can express every node and operation of `forest`.
pub(crate) fn check_encodable(
    forest: &MastForest,
    isa: Isa,
    format: &'static str,
) -> core::result::Result<(), EncodeError> {
    if forest.isa() != isa {
        return Err(EncodeError::unrepresentable(
            format,
            format!("a {} forest (convert it first)", forest.isa()),
        ));
    }
    for (i, node) in forest.nodes().iter().enumerate() {
        if let MastNode::Block(b) = node {
            if let Some(op) = b.ops().iter().find(|op| !op.exists_in(isa)) {
                return Err(EncodeError::unrepresentable(
                    format,
                    format!("node {i}: `{op}`"),
                ));
            }
        }
    }
    Ok(())
}

/// A digest a decoder leaves for [`settle_digests`]: the node, when it is
/// verified rather than rebuilt the recorded digest and its offset, and for
/// a block whose decoder collected its hash input, where it is.
pub(crate) struct Pending {
    pub(crate) node: MastNodeId,
    pub(crate) recorded: Option<(Digest, usize)>,
    pub(crate) groups: Option<BlockGroups>,
}

/// A block's hash input as its decoder collected it: its batches' range in
/// the decoder's group values, and how many groups its last batch uses
/// (see [`crate::block::hash_groups`]).
pub(crate) struct BlockGroups {
    pub(crate) batches: Range<usize>,
    pub(crate) last_groups: usize,
}

/// Work below this weight (about an operation each, see [`digest_weight`])
/// is done on the calling thread: below it, starting threads costs more than
/// it saves.
const PARALLEL_MIN_WEIGHT: usize = 1 << 12;

/// The weight of computing a node's digest, in operations: a block's
/// operations (a permutation absorbs a batch of up to 72 of them), and for
/// the other nodes the one permutation of `merge_in_domain`, counted as a
/// batch of typical size.
fn digest_weight(node: &MastNode) -> usize {
    const MERGE_WEIGHT: usize = 32;
    match node {
        MastNode::Block(block) => block.ops().len(),
        _ => MERGE_WEIGHT,
    }
}

/// Computes the digests of the `pending` nodes (in index order) and checks
/// each against its recorded digest, if any.
///
/// When every pending digest is recorded, each node is checked on its own:
/// its digest is computed from its children's *recorded* digests. This
/// checks the same thing as computing the digests children first: at the
/// first node (in node order) whose computed digest differs from its record,
/// every child's record equals its computed digest, so the mismatch and the
/// digest reported are those of a forward pass. All nodes are then hashed in
/// parallel, over contiguous runs of about equal weight.
///
/// A hashless file records no digest: block digests, which depend only on
/// their operations, are computed in parallel, and the other nodes' merged
/// in node order, children first. Either way, the result and the first
/// mismatch reported do not depend on the number of threads.
pub(crate) fn settle_digests(
    b: &mut MastForestBuilder,
    pending: &[Pending],
    groups: &[[Felt; BATCH_SIZE]],
    isa: Isa,
) -> Result<()> {
    let rebuilt = pending.iter().any(|p| p.recorded.is_none());
    let computed: Vec<Option<Digest>> = {
        let b = &*b;
        let independent =
            |p: &Pending| !rebuilt || matches!(b.node_ref(p.node), MastNode::Block(_));
        let digest = |p: &Pending| match &p.groups {
            Some(g) => hash_groups(isa, &groups[g.batches.clone()], g.last_groups),
            None => b
                .node_ref(p.node)
                .compute_digest(isa, |c| b.digests()[c.index()]),
        };
        parallel_map(
            pending,
            |p| match independent(p) {
                true => digest_weight(b.node_ref(p.node)),
                false => 0,
            },
            |p| independent(p).then(|| digest(p)),
        )
    };
    for (p, computed) in pending.iter().zip(computed) {
        let computed = computed.unwrap_or_else(|| {
            b.node_ref(p.node)
                .compute_digest(isa, |c| b.digests()[c.index()])
        });
        if let Some((recorded, at)) = p.recorded {
            if computed != recorded {
                return err(
                    at,
                    DecodeErrorKind::DigestMismatch {
                        node: p.node.0,
                        recorded,
                        computed,
                    },
                );
            }
        }
        b.set_digest(p.node, computed);
    }
    Ok(())
}

/// `items.iter().map(f)`, computed on up to `available_parallelism` threads
/// over contiguous runs of about equal total `weight`, and collected in
/// order: a fixed division of the work, whose result does not depend on the
/// number of threads.
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let total: usize = items.iter().map(&weight).sum();
    // Asking for the parallelism reads the process's CPU quota: not for
    // small inputs.
    let workers = if total < PARALLEL_MIN_WEIGHT {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    };
    if workers == 1 {
        return items.iter().map(f).collect();
    }
    let share = total.div_ceil(workers);
    let mut runs = Vec::with_capacity(workers);
    let (mut start, mut acc) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        acc += weight(item);
        if acc >= share {
            runs.push(&items[start..=i]);
            (start, acc) = (i + 1, 0);
        }
    }
    runs.push(&items[start..]);
    let map_run = |run: &[T]| run.iter().map(&f).collect::<Vec<R>>();
    std::thread::scope(|scope| {
        let (first, rest) = runs.split_first().expect("at least one run");
        let spawned: Vec<_> = rest
            .iter()
            .map(|run| {
                let spawned = std::thread::Builder::new().spawn_scoped(scope, || map_run(run));
                // A thread the system refuses is a run for this one.
                spawned.map_err(|_| *run)
            })
            .collect();
        let mut out = Vec::with_capacity(items.len());
        out.extend(map_run(first));
        for s in spawned {
            match s {
                Ok(handle) => out.extend(
                    handle
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e)),
                ),
                Err(run) => out.extend(map_run(run)),
            }
        }
        out
    })
}

/// `forest` in version `isa`: the same nodes, operations and roots, with
/// digests recomputed by that version's rules; for 1.0, the nodes in its
/// canonical order ([`canonicalize`]).
///
/// Decorators stay on the blocks: a 0.10 forest's go into the debug-info
/// section of the 0.23 file it is written to, and a 0.23 forest's, lifted
/// from its section, into the 0.10 file's blocks.
///
/// Fails with a typed error when `isa` cannot express the forest: an
/// operation the version lacks (or a 0.23 error code above `u32::MAX` for
/// 0.10), a `dyncall` in 0.10, an external node (its digest belongs to the
/// other hash function), an advice map (see [`MastForest::strip_advice_map`])
/// or 0.23 debug info other than operation decorators in 0.10, a decorator the version does not have
/// (advice injectors and events in 0.23 and 1.0, the advice-stack debug
/// option in 0.10).
pub fn convert(forest: &MastForest, isa: Isa) -> core::result::Result<MastForest, EncodeError> {
    if forest.isa() == isa {
        return Ok(forest.clone());
    }
    let format = match isa {
        Isa::V0_10 => Format::V0_10.name(),
        Isa::V0_23 => Format::V0_23.name(),
        Isa::V1_0 => Format::V1_0.name(),
    };
    if isa == Isa::V0_10 && !forest.advice_map().is_empty() {
        return Err(EncodeError::unrepresentable(
            format,
            "an advice map (strip it)",
        ));
    }
    if let Some(what) = forest.debug_info().and_then(|d| d.unexpressible(forest)) {
        return Err(EncodeError::unrepresentable(
            format,
            format!("miden 0.23 debug info: {what} (strip it)"),
        ));
    }
    let lifted = debug_info::lifted(forest);
    let forest = &*lifted;
    let mut b = MastForestBuilder::new_in(isa);
    // The same strings and locations, under the same ids.
    for s in forest.strings().iter() {
        b.intern(s);
    }
    for l in &forest.locations {
        b.intern_location(*l);
    }
    for (i, node) in forest.nodes().iter().enumerate() {
        let node = match node {
            MastNode::External(_) => {
                return Err(EncodeError::unrepresentable(
                    format,
                    format!("node {i}: an external digest of the other hash function"),
                ))
            }
            other => other.clone(),
        };
        if let MastNode::Block(block) = &node {
            for (_, d) in block.decorators() {
                debug_info::check_expressible(d, isa, i, format)?;
            }
            if isa != Isa::V0_10 {
                asm_ops::check(block, i, format)?;
            }
        }
        if let MastNode::Block(block) = &node {
            if let Some(op) = block.ops().iter().find(|op| !op.exists_in(isa)) {
                return Err(EncodeError::unrepresentable(
                    format,
                    format!("node {i}: `{op}`"),
                ));
            }
        }
        if matches!(node, MastNode::DynCall) && isa == Isa::V0_10 {
            return Err(EncodeError::unrepresentable(
                format,
                format!("node {i}, a dyncall"),
            ));
        }
        let digest = node.compute_digest(isa, |c| b.digests()[c.index()]);
        b.push_unchecked(node, digest);
    }
    for r in forest.roots() {
        b.push_root_unchecked(r);
    }
    let mut out = b.finish();
    out.entrypoint = forest.entrypoint();
    out.advice_map = forest.advice_map.clone();
    match isa {
        Isa::V1_0 => canonicalize(&out),
        Isa::V0_10 | Isa::V0_23 => Ok(out),
    }
}
