//! Dominator and post-dominator trees and dominance frontiers of a
//! function's blocks: the graph core's trees (Cooper-Harvey-Kennedy, see
//! [`kildall_graph`]) computed over a [`ControlFlowGraph`] and its
//! depth-first order, so building them repeats no search of the graph.
//!
//! Each tree dereferences to the graph core's tree over [`Block`]s, which
//! answers the queries (`dominates`, `idom`, `children`, ...).

use std::ops::Deref;

use crate::cfg::ControlFlowGraph;
use crate::Block;

/// Dominance frontiers of a function's blocks, computed from a
/// [`ControlFlowGraph`] and its [`DominatorTree`].
pub type DominanceFrontiers = kildall_graph::DominanceFrontiers<Block>;

/// Defines `$name` over the graph core's tree of the same name on
/// [`Block`]s, computed from a [`ControlFlowGraph`] and the depth-first
/// order the CFG already holds.
macro_rules! tree_over_cfg {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Default, Debug)]
        pub struct $name(kildall_graph::$name<Block>);

        impl $name {
            /// An empty tree.
            pub fn new() -> Self {
                Self::default()
            }

            #[doc = concat!("The ", $what, " tree of `cfg`.")]
            pub fn with_cfg(cfg: &ControlFlowGraph) -> Self {
                let mut tree = Self::new();
                tree.compute(cfg);
                tree
            }

            /// Empties the tree, keeping its buffers.
            pub fn clear(&mut self) {
                self.0.clear();
            }

            /// Computes the tree of `cfg` (which must be computed).
            pub fn compute(&mut self, cfg: &ControlFlowGraph) {
                self.0.compute(cfg, cfg.depth_first());
            }
        }

        impl Deref for $name {
            type Target = kildall_graph::$name<Block>;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }
    };
}

tree_over_cfg! {
    /// The dominator tree of a function's blocks reachable from the entry.
    ///
    /// `a` dominates `b` when every path from the entry to `b` goes through `a`
    /// (a block dominates itself). Queries are O(1).
    DominatorTree, "dominator"
}

tree_over_cfg! {
    /// The post-dominator tree: `a` post-dominates `b` when every path from `b`
    /// to a function exit goes through `a`.
    ///
    /// Its root is a virtual exit joining every block without successors; blocks
    /// that reach no exit (infinite loops) are attached to it as well, so every
    /// block reachable from the entry has a parent.
    /// [`ipdom`](kildall_graph::PostDominatorTree::ipdom) returns `None` where
    /// the parent is the virtual exit. Queries are O(1).
    PostDominatorTree, "post-dominator"
}
