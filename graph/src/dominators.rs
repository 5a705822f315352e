//! Dominator and post-dominator trees.
//!
//! Both trees come from one algorithm: Cooper, Harvey and Kennedy, "A
//! Simple, Fast Dominance Algorithm" (Software Practice and Experience,
//! 2001). It iterates `idom(b) = intersect(idom(p) for processed
//! predecessors p)` in reverse post-order, walking up the partial tree by
//! post-order numbers, until nothing changes; on the reducible graphs
//! compilers produce it settles in two passes.
//!
//! The post-dominator tree is the dominator tree of the reversed graph
//! rooted at a virtual exit with an edge to every node without successors.
//! Nodes that reach no exit (infinite loops) would be left out; as LLVM
//! does, the search attaches them to the virtual exit too, picking first
//! the node that finishes earliest in the forward depth-first search (deep
//! inside the loop), so every node reachable from the entry gets a parent.
//!
//! After computation both trees are numbered in pre-order, each node with
//! the end of its subtree, so `dominates(a, b)` is two comparisons.

use cranelift_entity::EntityRef;

use crate::postorder::PostOrder;
use crate::{number_preorder, Graph, NONE};

/// The dominator tree of the nodes reachable from a graph's entry.
///
/// `a` dominates `b` when every path from the entry to `b` goes through `a`
/// (a node dominates itself). Computed by Cooper-Harvey-Kennedy (see the
/// module documentation) from a depth-first [`PostOrder`]; queries are O(1).
#[derive(Clone, Debug)]
pub struct DominatorTree<N> {
    /// Immediate dominator of each node by index; the root's is itself;
    /// `NONE` if unreached.
    idom: Vec<u32>,
    /// The reachable nodes in reverse post-order.
    rpo: Vec<N>,
    /// Post-order number of each node (`NONE` if unreached).
    po_number: Vec<u32>,
    /// Children of each node in the tree, compressed rows.
    child_start: Vec<u32>,
    children: Vec<N>,
    /// Pre-order numbers in a walk of the tree, and one past the largest
    /// number in each subtree.
    pre: Vec<u32>,
    end: Vec<u32>,
    valid: bool,
    // Scratch.
    stack: Vec<(u32, u32)>,
    fill: Vec<u32>,
}

impl<N> Default for DominatorTree<N> {
    fn default() -> Self {
        DominatorTree {
            idom: Vec::new(),
            rpo: Vec::new(),
            po_number: Vec::new(),
            child_start: Vec::new(),
            children: Vec::new(),
            pre: Vec::new(),
            end: Vec::new(),
            valid: false,
            stack: Vec::new(),
            fill: Vec::new(),
        }
    }
}

impl<N: EntityRef> DominatorTree<N> {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// The dominator tree of `graph`, given its depth-first `order`.
    pub fn with_graph<G: Graph<Node = N> + ?Sized>(graph: &G, order: &PostOrder<N>) -> Self {
        let mut tree = Self::new();
        tree.compute(graph, order);
        tree
    }

    /// Empties the tree, keeping its buffers.
    pub fn clear(&mut self) {
        self.idom.clear();
        self.rpo.clear();
        self.po_number.clear();
        self.child_start.clear();
        self.children.clear();
        self.pre.clear();
        self.end.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Computes the tree of `graph` from `order`, a depth-first post-order
    /// of it (computed for the graph as it is).
    pub fn compute<G: Graph<Node = N> + ?Sized>(&mut self, graph: &G, order: &PostOrder<N>) {
        self.clear();
        self.valid = true;
        let n = graph.num_node_indices();
        self.idom.resize(n, NONE);
        self.po_number.extend_from_slice(order.numbers());
        self.po_number.resize(n, NONE);
        self.rpo.extend(order.reverse_postorder());
        let Some(&root) = self.rpo.first() else {
            return;
        };
        self.idom[root.index()] = root.index() as u32;
        let mut changed = true;
        while changed {
            changed = false;
            for &node in &self.rpo[1..] {
                let mut new_idom = NONE;
                for pred in graph.predecessors(node) {
                    let pred = pred.index() as u32;
                    if self.idom[pred as usize] == NONE {
                        continue; // not processed yet, or unreachable
                    }
                    new_idom = if new_idom == NONE {
                        pred
                    } else {
                        intersect(&self.idom, &self.po_number, pred, new_idom)
                    };
                }
                debug_assert_ne!(
                    new_idom, NONE,
                    "a reachable node has a processed predecessor"
                );
                if self.idom[node.index()] != new_idom {
                    self.idom[node.index()] = new_idom;
                    changed = true;
                }
            }
        }
        self.number_tree(n, root);
    }

    /// Builds the children rows and the pre-order numbering of the tree.
    fn number_tree(&mut self, n: usize, root: N) {
        self.child_start.resize(n + 1, 0);
        for node in 0..n {
            let idom = self.idom[node];
            if idom != NONE && idom as usize != node {
                self.child_start[idom as usize + 1] += 1;
            }
        }
        for i in 0..n {
            self.child_start[i + 1] += self.child_start[i];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.child_start[..n]);
        self.children.resize(self.child_start[n] as usize, root);
        // Children in reverse post-order of the graph: deterministic, and
        // the order passes that walk the tree expect.
        for &node in &self.rpo[1..] {
            let idom = self.idom[node.index()] as usize;
            self.children[self.fill[idom] as usize] = node;
            self.fill[idom] += 1;
        }
        let children = &self.children;
        number_preorder(
            &self.child_start,
            |k| children[k].index() as u32,
            [root.index() as u32],
            &mut self.pre,
            &mut self.end,
            &mut self.stack,
        );
    }

    /// The root: the entry.
    pub fn root(&self) -> Option<N> {
        self.rpo.first().copied()
    }

    /// Whether `node` is reachable from the entry (and so in the tree).
    pub fn is_reachable(&self, node: N) -> bool {
        self.idom.get(node.index()).is_some_and(|&d| d != NONE)
    }

    /// The immediate dominator of `node`: `None` for the root and for
    /// unreachable nodes.
    pub fn idom(&self, node: N) -> Option<N> {
        match self.idom.get(node.index()) {
            Some(&d) if d != NONE && d as usize != node.index() => Some(N::new(d as usize)),
            _ => None,
        }
    }

    /// Whether `a` dominates `b` (reflexive). False if either is unreachable.
    pub fn dominates(&self, a: N, b: N) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let (a, b) = (a.index(), b.index());
        self.pre[a] <= self.pre[b] && self.pre[b] < self.end[a]
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: N, b: N) -> bool {
        a.index() != b.index() && self.dominates(a, b)
    }

    /// The nodes `node` immediately dominates, in reverse post-order.
    pub fn children(&self, node: N) -> impl ExactSizeIterator<Item = N> + '_ {
        self.children_of(node).iter().copied()
    }

    fn children_of(&self, node: N) -> &[N] {
        match self.child_start.get(node.index()..node.index() + 2) {
            Some(&[lo, hi]) => &self.children[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// The reachable nodes in the reverse post-order the tree was computed in.
    pub fn reverse_postorder(&self) -> impl ExactSizeIterator<Item = N> + '_ {
        self.rpo.iter().copied()
    }

    /// The position of `node` in a pre-order walk of the tree: a node's
    /// subtree is the range from its number to its number plus its size.
    pub fn preorder_number(&self, node: N) -> Option<u32> {
        self.pre.get(node.index()).copied().filter(|&n| n != NONE)
    }

    /// The nearest common dominator of `a` and `b` (both reachable).
    pub fn common_dominator(&self, a: N, b: N) -> Option<N> {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return None;
        }
        let (a, b) = (a.index() as u32, b.index() as u32);
        Some(N::new(intersect(&self.idom, &self.po_number, a, b) as usize))
    }
}

/// The "two-finger" walk up the partial tree to the nearest common ancestor.
fn intersect(idom: &[u32], po: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while po[a as usize] < po[b as usize] {
            a = idom[a as usize];
        }
        while po[b as usize] < po[a as usize] {
            b = idom[b as usize];
        }
    }
    a
}

/// The reversed graph plus a virtual exit numbered `num_node_indices`,
/// with an edge from the exit to every node in `attached` (exits, and one
/// node per region that reaches no exit). Only the nodes reachable in the
/// forward graph take part.
struct ReverseWithExit<'a, G: Graph + ?Sized> {
    graph: &'a G,
    forward: &'a PostOrder<G::Node>,
    attached: &'a [bool],
    attached_list: &'a [G::Node],
}

impl<G: Graph + ?Sized> ReverseWithExit<'_, G> {
    fn exit(&self) -> G::Node {
        G::Node::new(self.graph.num_node_indices())
    }

    fn is_exit(&self, node: G::Node) -> bool {
        node.index() == self.graph.num_node_indices()
    }
}

impl<G: Graph + ?Sized> Graph for ReverseWithExit<'_, G> {
    type Node = G::Node;

    fn num_node_indices(&self) -> usize {
        self.graph.num_node_indices() + 1
    }

    fn entry(&self) -> Option<G::Node> {
        Some(self.exit())
    }

    fn successors(&self, node: G::Node) -> impl Iterator<Item = G::Node> + '_ {
        let exit = self.is_exit(node);
        let attached = if exit { self.attached_list } else { &[] };
        let preds = (!exit).then(|| self.graph.predecessors(node));
        attached.iter().copied().chain(
            preds
                .into_iter()
                .flatten()
                .filter(|&p| self.forward.is_reachable(p)),
        )
    }

    fn predecessors(&self, node: G::Node) -> impl Iterator<Item = G::Node> + '_ {
        let exit = self.is_exit(node);
        let succs = (!exit).then(|| self.graph.successors(node));
        let to_exit = !exit && self.attached[node.index()];
        succs
            .into_iter()
            .flatten()
            .chain(to_exit.then(|| self.exit()))
    }
}

/// The post-dominator tree: `a` post-dominates `b` when every path from `b`
/// to an exit (a node without successors) goes through `a`.
///
/// Its root is a virtual exit joining every node without successors; nodes
/// that reach no exit (infinite loops) are attached to it as well (see the
/// module documentation), so every node reachable from the entry has a
/// parent. [`ipdom`](Self::ipdom) returns `None` where the parent is the
/// virtual exit. Queries are O(1).
#[derive(Clone, Debug)]
pub struct PostDominatorTree<N> {
    tree: DominatorTree<N>,
    /// The depth-first order of the reversed graph.
    order: PostOrder<N>,
    attached: Vec<bool>,
    attached_list: Vec<N>,
    /// The index of the virtual exit: the graph's bound on node indices.
    exit: usize,
    // Scratch.
    seen: Vec<bool>,
    stack: Vec<N>,
}

impl<N> Default for PostDominatorTree<N> {
    fn default() -> Self {
        PostDominatorTree {
            tree: DominatorTree::default(),
            order: PostOrder::default(),
            attached: Vec::new(),
            attached_list: Vec::new(),
            exit: 0,
            seen: Vec::new(),
            stack: Vec::new(),
        }
    }
}

impl<N: EntityRef> PostDominatorTree<N> {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// The post-dominator tree of `graph`, given its depth-first `order`.
    pub fn with_graph<G: Graph<Node = N> + ?Sized>(graph: &G, order: &PostOrder<N>) -> Self {
        let mut tree = Self::new();
        tree.compute(graph, order);
        tree
    }

    /// Empties the tree, keeping its buffers.
    pub fn clear(&mut self) {
        self.tree.clear();
        self.order.clear();
        self.attached.clear();
        self.attached_list.clear();
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.tree.is_valid()
    }

    /// Computes the tree of `graph` from `order`, a depth-first post-order
    /// of it (computed for the graph as it is).
    pub fn compute<G: Graph<Node = N> + ?Sized>(&mut self, graph: &G, order: &PostOrder<N>) {
        self.clear();
        self.attach_exits(graph, order);
        let view = ReverseWithExit {
            graph,
            forward: order,
            attached: &self.attached,
            attached_list: &self.attached_list,
        };
        self.order.compute(&view);
        self.tree.compute(&view, &self.order);
    }

    /// Fills `attached`: the nodes without successors, then, walking the
    /// reversed graph from them, one node of each region that reaches no
    /// exit, the earliest-finishing one in the forward search first.
    fn attach_exits<G: Graph<Node = N> + ?Sized>(&mut self, graph: &G, order: &PostOrder<N>) {
        let n = graph.num_node_indices();
        self.exit = n;
        self.attached.resize(n, false);
        for &node in order.as_slice() {
            if graph.successors(node).next().is_none() {
                self.attached[node.index()] = true;
                self.attached_list.push(node);
            }
        }
        self.seen.clear();
        self.seen.resize(n, false);
        for i in 0..self.attached_list.len() {
            let exit = self.attached_list[i];
            self.mark_reaching(graph, exit);
        }
        for &node in order.as_slice() {
            if self.mark_reaching(graph, node) {
                self.attached[node.index()] = true;
                self.attached_list.push(node);
            }
        }
    }

    /// Marks `start` and every node reaching it as seen; returns whether
    /// `start` was unseen.
    fn mark_reaching<G: Graph<Node = N> + ?Sized>(&mut self, graph: &G, start: N) -> bool {
        if self.seen[start.index()] {
            return false;
        }
        self.seen[start.index()] = true;
        self.stack.push(start);
        while let Some(node) = self.stack.pop() {
            for pred in graph.predecessors(node) {
                if !self.seen[pred.index()] {
                    self.seen[pred.index()] = true;
                    self.stack.push(pred);
                }
            }
        }
        true
    }

    /// Whether `node` is in the tree (reachable from the entry).
    pub fn is_reachable(&self, node: N) -> bool {
        node.index() != self.exit && self.tree.is_reachable(node)
    }

    /// The immediate post-dominator of `node`; `None` if it is the virtual
    /// exit or `node` is unreachable.
    pub fn ipdom(&self, node: N) -> Option<N> {
        if node.index() == self.exit {
            return None;
        }
        self.tree.idom(node).filter(|d| d.index() != self.exit)
    }

    /// Whether `a` post-dominates `b` (reflexive). False if either is not
    /// in the tree.
    pub fn post_dominates(&self, a: N, b: N) -> bool {
        a.index() != self.exit && b.index() != self.exit && self.tree.dominates(a, b)
    }

    /// Whether `a` strictly post-dominates `b`.
    pub fn strictly_post_dominates(&self, a: N, b: N) -> bool {
        a.index() != b.index() && self.post_dominates(a, b)
    }

    /// The nodes `node` immediately post-dominates.
    pub fn children(&self, node: N) -> impl ExactSizeIterator<Item = N> + '_ {
        let children = if node.index() == self.exit {
            &[]
        } else {
            self.tree.children_of(node)
        };
        children.iter().copied()
    }

    /// The nodes whose immediate post-dominator is the virtual exit.
    pub fn roots(&self) -> impl ExactSizeIterator<Item = N> + '_ {
        self.tree.children(N::new(self.exit))
    }

    /// The nodes attached to the virtual exit: those without successors,
    /// then one per region that reaches no exit (in the order attached).
    pub fn attached_to_exit(&self) -> &[N] {
        &self.attached_list
    }
}
