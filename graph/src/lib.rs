//! Graph algorithms shared by every analysis of the workspace: one
//! depth-first [`PostOrder`], dominator and post-dominator trees
//! ([`DominatorTree`], [`PostDominatorTree`]) and [`DominanceFrontiers`],
//! and one [`LoopForest`] with the loop-aware order a fixed-point solver
//! visits blocks in.
//!
//! Everything runs over the one [`Graph`] trait: an entry, a bound on node
//! indices, successors and predecessors. Nodes are dense indices
//! ([`EntityRef`]), so every table is a vector indexed by node, and a
//! control-flow graph of basic blocks, the flattened body of a structured
//! function or a test graph written as a list of edges are all graphs.
//!
//! Each analysis has the same shape: `new` makes an empty one, `compute`
//! fills it for a graph (reusing its buffers), `clear` empties it. They
//! build on one another rather than repeating work: the dominator tree
//! reads a depth-first post-order, the loop forest reads the post-order and
//! the dominator tree, and the loop-aware order is the same depth-first
//! search with successors visited by increasing loop depth.
//!
//! ```
//! use kildall_graph::{DominatorTree, Graph, LoopForest, PostOrder};
//! # use kildall_graph::EntityRef;
//! # #[derive(Copy, Clone, PartialEq, Eq, Debug)]
//! # struct Node(u32);
//! # impl EntityRef for Node {
//! #     fn new(i: usize) -> Self { Node(i as u32) }
//! #     fn index(self) -> usize { self.0 as usize }
//! # }
//! // 0 -> 1 -> 2 -> 1, 2 -> 3: a loop {1, 2} and its exit.
//! struct Edges(Vec<(u32, u32)>);
//! impl Graph for Edges {
//!     type Node = Node;
//!     fn num_node_indices(&self) -> usize { 4 }
//!     fn entry(&self) -> Option<Node> { Some(Node(0)) }
//!     fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
//!         self.0.iter().filter(move |e| e.0 == n.0).map(|e| Node(e.1))
//!     }
//!     fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
//!         self.0.iter().filter(move |e| e.1 == n.0).map(|e| Node(e.0))
//!     }
//! }
//! let graph = Edges(vec![(0, 1), (1, 2), (2, 1), (2, 3)]);
//! let order = PostOrder::with_graph(&graph);
//! let domtree = DominatorTree::with_graph(&graph, &order);
//! let forest = LoopForest::with_graph(&graph, &order, &domtree);
//! assert!(domtree.dominates(Node(1), Node(3)));
//! assert_eq!(forest.loop_depth(Node(2)), 1);
//! assert_eq!(forest.loop_depth(Node(3)), 0);
//! ```
#![deny(missing_docs)]

use std::fmt::Debug;

pub use cranelift_entity::EntityRef;

mod dominators;
mod frontiers;
mod loops;
mod postorder;

pub use dominators::{DominatorTree, PostDominatorTree};
pub use frontiers::DominanceFrontiers;
pub use loops::{Loop, LoopForest, LoopNest};
pub use postorder::PostOrder;

/// A directed graph with an entry: what every algorithm of this crate reads.
///
/// Nodes are dense indices below [`num_node_indices`](Self::num_node_indices);
/// the algorithms work on the nodes reachable from the
/// [`entry`](Self::entry) and never ask for the edges of the others. A
/// node may appear more than once among the successors of another (two
/// edges to the same node), as long as the predecessors list it as often.
pub trait Graph {
    /// A node: a dense index, so that tables over nodes are vectors.
    type Node: EntityRef + Debug;

    /// One past the largest node index: the size of tables indexed by node.
    fn num_node_indices(&self) -> usize;

    /// Where every path starts, if the graph has nodes.
    fn entry(&self) -> Option<Self::Node>;

    /// The successors of `node`, in the order a depth-first search visits
    /// them.
    fn successors(&self, node: Self::Node) -> impl Iterator<Item = Self::Node> + '_;

    /// The predecessors of `node`: every node that has `node` among its
    /// [`successors`](Self::successors).
    fn predecessors(&self, node: Self::Node) -> impl Iterator<Item = Self::Node> + '_;
}

/// Marks a node the depth-first search did not reach, in tables of `u32`.
const NONE: u32 = u32::MAX;

/// Numbers the nodes of a forest in the pre-order of a walk from `roots`:
/// `pre[v]` is the position of `v`, `end[v]` one past the largest position
/// in its subtree, so `u` is `v` or an ancestor of it when
/// `pre[u] <= pre[v] < end[u]`. The children of `v` are `child(k)` for `k`
/// in `first[v]..first[v + 1]`; nodes outside the trees keep `NONE`.
fn number_preorder(
    first: &[u32],
    child: impl Fn(usize) -> u32,
    roots: impl IntoIterator<Item = u32>,
    pre: &mut Vec<u32>,
    end: &mut Vec<u32>,
    stack: &mut Vec<(u32, u32)>,
) {
    let n = first.len() - 1;
    pre.clear();
    pre.resize(n, NONE);
    end.clear();
    end.resize(n, NONE);
    let mut next = 0u32;
    stack.clear();
    for root in roots {
        pre[root as usize] = next;
        next += 1;
        stack.push((root, first[root as usize]));
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if *k < first[v as usize + 1] {
                let c = child(*k as usize);
                *k += 1;
                pre[c as usize] = next;
                next += 1;
                stack.push((c, first[c as usize]));
            } else {
                end[v as usize] = next;
                stack.pop();
            }
        }
    }
}

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
