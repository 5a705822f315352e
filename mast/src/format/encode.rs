//! The encoder: a forest to the bytes of the format.

use crate::block::BasicBlock;
use crate::decorator::{AdviceInjector, Decorator, SignatureKind};
use crate::forest::{MastForest, MastNode};
use crate::ops::Isa;

use super::{
    kind_tag, MAGIC, NODE_INFO_SIZE, TAG_ADVICE, TAG_ASMOP, TAG_OP, TAG_OP_IMM, TAG_STACK_ALL,
    TAG_STACK_TOP, VERSION,
};
/// Why a forest cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The data section would reach 2^32 bytes.
    #[error("data section exceeds 2^32 bytes")]
    DataTooLarge,
    /// The forest holds something the target format cannot express.
    #[error("{format} cannot express {what}")]
    Unrepresentable {
        /// The target format.
        format: &'static str,
        /// What it cannot express.
        what: String,
    },
}

impl EncodeError {
    pub(crate) fn unrepresentable(format: &'static str, what: impl Into<String>) -> EncodeError {
        EncodeError::Unrepresentable {
            format,
            what: what.into(),
        }
    }
}

/// Checks that the draft format can express `forest`: miden-core 0.10
/// operations and RPO256 digests, no `dyncall`, no advice map, no 0.23 debug
/// info, error codes that fit a `u32`.
fn check_draft(forest: &MastForest) -> Result<(), EncodeError> {
    const DRAFT: &str = "the draft format";
    if forest.isa() != Isa::V0_10 {
        return Err(EncodeError::unrepresentable(
            DRAFT,
            format!("a {} forest (convert it to 0.10 first)", forest.isa()),
        ));
    }
    if !forest.advice_map().is_empty() {
        return Err(EncodeError::unrepresentable(DRAFT, "an advice map"));
    }
    if forest.debug_info().is_some() {
        return Err(EncodeError::unrepresentable(DRAFT, "miden 0.23 debug info"));
    }
    // The draft keeps the roots as a bitset: their order is index order.
    if forest
        .roots()
        .zip(forest.roots().skip(1))
        .any(|(a, b)| a > b)
    {
        return Err(EncodeError::unrepresentable(
            DRAFT,
            "roots out of index order",
        ));
    }
    for (i, node) in forest.nodes().iter().enumerate() {
        match node {
            MastNode::DynCall => {
                return Err(EncodeError::unrepresentable(
                    DRAFT,
                    format!("node {i}, a dyncall"),
                ))
            }
            MastNode::Block(b) => {
                let inexpressible = b.decorators.iter().find(|(_, d)| {
                    let located = matches!(d, Decorator::AsmOp(a) if a.location.is_some());
                    located
                        || !matches!(
                            d,
                            Decorator::Advice(_)
                                | Decorator::AsmOp(_)
                                | Decorator::StackAll
                                | Decorator::StackTop(_)
                        )
                });
                if let Some((_, d)) = inexpressible {
                    return Err(EncodeError::unrepresentable(
                        DRAFT,
                        format!("node {i}: decorator {d:?}"),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn put_vint(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(vint64::encode(v).as_ref());
}

fn pad4(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

fn encode_block(b: &BasicBlock, data: &mut Vec<u8>) {
    let mut decs = b.decorators.iter().peekable();
    let mut emit_decs = |i: usize, data: &mut Vec<u8>| {
        while let Some((_, d)) = decs.next_if(|(j, _)| *j as usize == i) {
            encode_decorator(d, data);
        }
    };
    for (i, op) in b.ops.iter().enumerate() {
        emit_decs(i, data);
        // `check_draft` and the builder admit only 0.10 operations.
        let code = op.opcode_in(Isa::V0_10).unwrap_or(0);
        match op.immediate() {
            None => data.extend_from_slice(&[TAG_OP, code]),
            Some(imm) => {
                data.extend_from_slice(&[TAG_OP_IMM, code]);
                put_vint(data, imm.as_u64());
            }
        }
    }
    emit_decs(b.ops.len(), data);
}

fn encode_decorator(d: &Decorator, data: &mut Vec<u8>) {
    match d {
        Decorator::Advice(a) => {
            data.extend_from_slice(&[TAG_ADVICE, a.tag()]);
            match a {
                AdviceInjector::MapValueToStack {
                    include_len,
                    key_offset,
                } => {
                    data.push(*include_len as u8);
                    put_vint(data, *key_offset);
                }
                AdviceInjector::HdwordToMap { domain } => put_vint(data, domain.as_u64()),
                AdviceInjector::SigToStack {
                    kind: SignatureKind::RpoFalcon512,
                } => data.push(0),
                _ => {}
            }
        }
        Decorator::AsmOp(a) => {
            data.extend_from_slice(&[TAG_ASMOP, a.num_cycles, a.should_break as u8]);
            put_vint(data, a.op.0 as u64);
            put_vint(data, a.context_name.0 as u64);
        }
        Decorator::StackAll => data.push(TAG_STACK_ALL),
        Decorator::StackTop(n) => data.extend_from_slice(&[TAG_STACK_TOP, *n]),
        // `check_draft` refused these.
        Decorator::MemAll
        | Decorator::MemInterval(..)
        | Decorator::LocalInterval(..)
        | Decorator::Event(_)
        | Decorator::Trace(_)
        | Decorator::AdvStackTop(_) => {}
    }
}

/// Encodes `forest` following the encoding steps of the specification.
pub fn encode(forest: &MastForest) -> Result<Vec<u8>, EncodeError> {
    check_draft(forest)?;
    let n = forest.len();
    let mut out = Vec::with_capacity(64 + n * (NODE_INFO_SIZE + 1));
    let data_hint: usize = forest.strings().iter().map(str::len).sum::<usize>()
        + forest
            .nodes()
            .iter()
            .map(|n| match n {
                MastNode::Block(b) => 3 * b.ops.len() + 4 * b.decorators.len(),
                _ => 0,
            })
            .sum::<usize>();
    let mut data = Vec::with_capacity(data_hint);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION);
    put_vint(
        &mut out,
        forest.entrypoint().map_or(0, |e| e.index() as u64 + 1),
    );
    put_vint(&mut out, n as u64);
    let mut roots = vec![0u8; n.div_ceil(8)];
    for r in forest.roots() {
        roots[r.index() / 8] |= 1 << (r.index() % 8);
    }
    out.extend_from_slice(&roots);
    pad4(&mut out);

    let mut string_refs = Vec::with_capacity(forest.strings().len());
    for s in forest.strings().iter() {
        string_refs.push((data.len(), s.len()));
        data.extend_from_slice(s.as_bytes());
    }

    let to_u32 = |v: usize| u32::try_from(v).map_err(|_| EncodeError::DataTooLarge);
    for (i, node) in forest.nodes().iter().enumerate() {
        let mut rec = [0u8; NODE_INFO_SIZE];
        rec[0] = kind_tag(node.kind());
        let (a, b, offset) = match node {
            MastNode::Block(block) => {
                let offset = to_u32(data.len())?;
                encode_block(block, &mut data);
                (
                    block.ops.len() as u32,
                    block.decorators.len() as u32,
                    offset,
                )
            }
            MastNode::Join { left, right } => (left.0, right.0, 0),
            MastNode::Split { on_true, on_false } => (on_true.0, on_false.0, 0),
            MastNode::Loop { body } => (body.0, 0, 0),
            MastNode::Call { callee, .. } => (callee.0, 0, 0),
            MastNode::Dyn | MastNode::DynCall | MastNode::External(_) => (0, 0, 0),
        };
        rec[4..8].copy_from_slice(&a.to_le_bytes());
        rec[8..12].copy_from_slice(&b.to_le_bytes());
        rec[12..16].copy_from_slice(&offset.to_le_bytes());
        rec[16..48].copy_from_slice(&forest.digests[i].to_bytes());
        out.extend_from_slice(&rec);
    }

    put_vint(&mut out, string_refs.len() as u64);
    pad4(&mut out);
    for (offset, len) in string_refs {
        out.extend_from_slice(&to_u32(offset)?.to_le_bytes());
        out.extend_from_slice(&to_u32(len)?.to_le_bytes());
    }
    put_vint(&mut out, to_u32(data.len())? as u64);
    out.extend_from_slice(&data);
    Ok(out)
}
