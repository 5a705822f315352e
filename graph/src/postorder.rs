//! The depth-first search: post-order, post-order numbers and reverse
//! post-order of the nodes reachable from the entry.
//!
//! The search is iterative (a graph may have a million nodes): each frame
//! of its stack is a node and the range of its successors still to visit,
//! copied into one shared buffer when the node is discovered. Copying them
//! is what lets a caller choose the order they are visited in
//! ([`PostOrder::compute_sorted_by_key`]): the loop-aware order of a
//! fixed-point solver is this search with successors sorted by loop depth.

use cranelift_entity::EntityRef;

use crate::{Graph, NONE};

/// Marks a node discovered but not finished.
const ON_STACK: u32 = NONE - 1;

/// The nodes reachable from the entry of a graph in the post-order of a
/// depth-first search: a node comes after every node the search reached
/// through it. Reversed (the reverse post-order) every node comes after
/// its predecessors, except along retreating edges, and after its
/// dominators.
#[derive(Clone, Debug)]
pub struct PostOrder<N> {
    order: Vec<N>,
    /// The post-order number of each node, by node index, or `NONE`.
    number: Vec<u32>,
    valid: bool,
    // Scratch kept across computations: the frames (node, next, end) and
    // the successors of the nodes on the stack.
    frames: Vec<(u32, u32, u32)>,
    pending: Vec<N>,
}

impl<N> Default for PostOrder<N> {
    fn default() -> Self {
        PostOrder {
            order: Vec::new(),
            number: Vec::new(),
            valid: false,
            frames: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl<N: EntityRef> PostOrder<N> {
    /// An empty order.
    pub fn new() -> Self {
        Self::default()
    }

    /// The post-order of `graph`.
    pub fn with_graph<G: Graph<Node = N> + ?Sized>(graph: &G) -> Self {
        let mut order = Self::new();
        order.compute(graph);
        order
    }

    /// Empties the order, keeping its buffers.
    pub fn clear(&mut self) {
        self.order.clear();
        self.number.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Computes the post-order of `graph`, visiting the successors of each
    /// node in the order the graph gives them.
    pub fn compute<G: Graph<Node = N> + ?Sized>(&mut self, graph: &G) {
        self.search(graph, |_| {});
    }

    /// Computes the post-order of `graph`, visiting the successors of each
    /// node by increasing `key` (ties in the order the graph gives them).
    pub fn compute_sorted_by_key<G, K>(&mut self, graph: &G, mut key: impl FnMut(N) -> K)
    where
        G: Graph<Node = N> + ?Sized,
        K: Ord,
    {
        self.search(graph, |successors| successors.sort_by_key(|&s| key(s)));
    }

    /// The depth-first search from the entry; `arrange` puts the successors
    /// of each newly discovered node in the order they are to be visited.
    fn search<G: Graph<Node = N> + ?Sized>(
        &mut self,
        graph: &G,
        mut arrange: impl FnMut(&mut [N]),
    ) {
        self.clear();
        self.number.resize(graph.num_node_indices(), NONE);
        self.valid = true;
        let Some(entry) = graph.entry() else { return };
        let PostOrder {
            order,
            number,
            frames,
            pending,
            ..
        } = self;
        frames.clear();
        pending.clear();
        let mut discover = |node: N,
                            number: &mut Vec<u32>,
                            pending: &mut Vec<N>,
                            frames: &mut Vec<(u32, u32, u32)>| {
            number[node.index()] = ON_STACK;
            let start = pending.len();
            pending.extend(graph.successors(node));
            arrange(&mut pending[start..]);
            frames.push((node.index() as u32, start as u32, pending.len() as u32));
        };
        discover(entry, number, pending, frames);
        while let Some(&mut (node, ref mut next, end)) = frames.last_mut() {
            if *next < end {
                let succ = pending[*next as usize];
                *next += 1;
                if number[succ.index()] == NONE {
                    discover(succ, number, pending, frames);
                }
            } else {
                number[node as usize] = order.len() as u32;
                order.push(N::new(node as usize));
                let (_, start, _) = frames.pop().expect("a frame");
                pending.truncate(start as usize);
            }
        }
    }

    /// The reachable nodes in post-order (the entry last).
    pub fn as_slice(&self) -> &[N] {
        &self.order
    }

    /// The reachable nodes in reverse post-order (the entry first).
    pub fn reverse_postorder(&self) -> impl DoubleEndedIterator<Item = N> + ExactSizeIterator + '_ {
        self.order.iter().rev().copied()
    }

    /// The position of `node` in the post-order, if it is reachable.
    pub fn number(&self, node: N) -> Option<u32> {
        self.number
            .get(node.index())
            .copied()
            .filter(|&n| n < ON_STACK)
    }

    /// Whether `node` is reachable from the entry.
    pub fn is_reachable(&self, node: N) -> bool {
        self.number(node).is_some()
    }

    /// How many nodes are reachable.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether no node is reachable (the graph has no entry).
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The size of tables indexed by node of the graph it was computed for.
    pub fn num_node_indices(&self) -> usize {
        self.number.len()
    }

    /// Whether `from -> to` is a retreating edge of the search: `to` does
    /// not finish after `from` (a self-loop included). On a reducible graph
    /// these are the back edges, whose target dominates their source. Both
    /// must be reachable.
    pub fn is_retreating_edge(&self, from: N, to: N) -> bool {
        match (self.number(from), self.number(to)) {
            (Some(f), Some(t)) => t >= f,
            _ => false,
        }
    }

    /// The post-order numbers of all nodes by index, `u32::MAX` for the
    /// unreachable ones.
    pub(crate) fn numbers(&self) -> &[u32] {
        &self.number
    }
}
