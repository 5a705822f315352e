//! The canonical node order of miden-core 1.0 forests.
//!
//! A 1.0 forest lists its external nodes first, by strictly increasing
//! digest (digests compare as miden-crypto's `Word` does: by their last
//! element first), then its basic blocks, then the other nodes, each after
//! its children. Its reader checks exactly that (`validate_dense_node_order`)
//! and its writer writes only forests that pass; this module checks it on
//! both sides ([`OrderCheck`]) and establishes it ([`canonicalize`]) as
//! miden-core's `canonicalize_parts` does: blocks in their order, and the
//! other nodes as soon as their children are placed, the earliest first
//! (Kahn's topological sort with the node index as the tie-breaker). A
//! forest that already passes the check is its own canonical form.

use core::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use crate::felt::Digest;
use crate::forest::{MastForest, MastNode, MastNodeId};
use crate::format::{err, DecodeErrorKind, EncodeError, Result};

/// The three classes of nodes, in the order a 1.0 forest lists them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    #[default]
    External,
    Block,
    Other,
}

fn class(node: &MastNode) -> Class {
    match node {
        MastNode::External(_) => Class::External,
        MastNode::Block(_) => Class::Block,
        _ => Class::Other,
    }
}

/// miden-crypto's order of words: by their last element first.
fn word_order(a: &Digest, b: &Digest) -> Ordering {
    a.0.iter().rev().cmp(b.0.iter().rev())
}

/// The order of the nodes seen so far; children before parents is checked
/// where the children are read.
#[derive(Default)]
pub(crate) struct OrderCheck {
    class: Class,
    last_external: Option<Digest>,
}

impl OrderCheck {
    /// Checks that `node` may follow the nodes seen so far, and why not.
    fn admit(&mut self, node: &MastNode) -> core::result::Result<(), &'static str> {
        let class = class(node);
        if class < self.class {
            return Err(match class {
                Class::External => "an external node after a block or control node",
                _ => "a block after a control node",
            });
        }
        self.class = class;
        if let MastNode::External(d) = node {
            if let Some(last) = self.last_external.replace(*d) {
                if word_order(&last, d) != Ordering::Less {
                    return Err("external digests not in strictly increasing order");
                }
            }
        }
        Ok(())
    }

    /// Checks the next node of a file, whose entry is at offset `at`.
    pub(crate) fn next(&mut self, node: &MastNode, at: usize) -> Result<()> {
        self.admit(node)
            .or_else(|why| err(at, DecodeErrorKind::NonCanonical(why)))
    }

    /// Checks that `forest` is in canonical order, for `format`.
    pub(crate) fn forest(
        forest: &MastForest,
        format: &'static str,
    ) -> core::result::Result<(), EncodeError> {
        let mut check = OrderCheck::default();
        for (i, node) in forest.nodes().iter().enumerate() {
            check.admit(node).map_err(|why| {
                EncodeError::unrepresentable(
                    format,
                    format!("node {i}: {why}, out of its canonical node order (canonicalize it)"),
                )
            })?;
        }
        Ok(())
    }
}

/// The node indices of `forest` in canonical order.
fn canonical_order(forest: &MastForest) -> core::result::Result<Vec<usize>, EncodeError> {
    let nodes = forest.nodes();
    let of_class = |c: Class| (0..nodes.len()).filter(move |&i| class(&nodes[i]) == c);
    let mut order: Vec<usize> = of_class(Class::External).collect();
    order.sort_by(|&a, &b| word_order(&forest.digests[a], &forest.digests[b]).then(a.cmp(&b)));
    if let Some(pair) = order
        .windows(2)
        .find(|w| forest.digests[w[0]] == forest.digests[w[1]])
    {
        return Err(EncodeError::unrepresentable(
            "miden 1.0",
            format!(
                "nodes {} and {}: one external digest twice",
                pair[0], pair[1]
            ),
        ));
    }
    order.extend(of_class(Class::Block));
    let mut placed = vec![false; nodes.len()];
    for &i in &order {
        placed[i] = true;
    }
    // Kahn's algorithm over the other nodes, the earliest ready one first.
    let mut unplaced_children = vec![0u32; nodes.len()];
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut ready = BinaryHeap::new();
    for i in of_class(Class::Other) {
        for c in nodes[i].children() {
            if !placed[c.index()] {
                unplaced_children[i] += 1;
                parents[c.index()].push(i);
            }
        }
        if unplaced_children[i] == 0 {
            ready.push(Reverse(i));
        }
    }
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for p in core::mem::take(&mut parents[i]) {
            unplaced_children[p] -= 1;
            if unplaced_children[p] == 0 {
                ready.push(Reverse(p));
            }
        }
    }
    // Children precede their parents in every forest, so none is left.
    debug_assert_eq!(order.len(), nodes.len());
    Ok(order)
}

/// `forest` with its nodes in the canonical order of miden-core 1.0 (see
/// the module docs), children and roots renumbered. Fails with a typed
/// error when two external nodes have one digest (1.0 refuses that), or
/// when the order changes and the forest has 0.23 debug info, whose tables
/// index the nodes.
pub fn canonicalize(forest: &MastForest) -> core::result::Result<MastForest, EncodeError> {
    let order = canonical_order(forest)?;
    if order.iter().enumerate().all(|(new, &old)| new == old) {
        return Ok(forest.clone());
    }
    if forest.debug_info().is_some() {
        return Err(EncodeError::unrepresentable(
            "miden 1.0",
            "0.23 debug info, whose tables index the nodes this version reorders (strip it)",
        ));
    }
    let mut new_id = vec![MastNodeId(0); order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_id[old] = MastNodeId(new as u32);
    }
    let renumber = |c: MastNodeId| new_id[c.index()];
    let mut out = forest.clone();
    out.nodes = order
        .iter()
        .map(|&old| forest.nodes[old].map_children(renumber))
        .collect();
    out.digests = order.iter().map(|&old| forest.digests[old]).collect();
    for (new, &old) in order.iter().enumerate() {
        out.roots.set(new, forest.roots[old]);
    }
    out.root_order = forest.root_order.iter().map(|&r| renumber(r)).collect();
    out.entrypoint = forest.entrypoint.map(renumber);
    Ok(out)
}
