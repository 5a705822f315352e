//! Dominator and post-dominator trees, dominance frontiers.
//!
//! Both trees come from one algorithm run over a graph view: Cooper, Harvey
//! and Kennedy, "A Simple, Fast Dominance Algorithm" (Software Practice and
//! Experience, 2001). It iterates `idom(b) = intersect(idom(p) for processed
//! predecessors p)` in reverse post-order, walking up the partial tree by
//! post-order numbers, until nothing changes; on the reducible graphs
//! compilers produce it settles in two passes.
//!
//! The post-dominator tree is the dominator tree of the reversed graph rooted
//! at a virtual exit that every `return`/`unreachable` block jumps to. Blocks
//! that reach no exit (infinite loops) would be left out; as LLVM does, the
//! search attaches them to the virtual exit too, picking first the block that
//! finishes earliest in the forward depth-first search (deep inside the
//! loop), so every block reachable from the entry gets a parent.
//!
//! After computation both trees are numbered by a depth-first walk of the
//! tree (pre-order and post-order), so `dominates(a, b)` is two comparisons.
//! Frontiers follow the same paper's "runner" formulation.

use cranelift_entity::EntityRef;

use crate::cfg::ControlFlowGraph;
use crate::Block;

const NONE: u32 = u32::MAX;

/// The dominator tree of a graph over nodes `0..n`, shared by both trees.
#[derive(Clone, Default, Debug)]
struct TreeCore {
    /// Immediate dominator of each node; the root's is itself; `NONE` if unreached.
    idom: Vec<u32>,
    /// Nodes in reverse post-order of the graph search.
    rpo: Vec<u32>,
    /// Post-order number of each node in the graph search (`NONE` if unreached).
    po_number: Vec<u32>,
    /// Children of each node in the tree, compressed rows.
    child_start: Vec<u32>,
    children: Vec<u32>,
    /// Pre-order and post-order numbers in the tree walk.
    pre: Vec<u32>,
    post: Vec<u32>,
    // Scratch.
    stack: Vec<(u32, u32)>,
    fill: Vec<u32>,
}

/// A graph view the algorithm runs on: nodes `0..num_nodes`.
trait GraphView {
    fn num_nodes(&self) -> usize;
    /// Calls `f` on each successor (in the direction the tree is built).
    fn for_each_succ(&self, node: u32, f: impl FnMut(u32));
    /// Calls `f` on each predecessor (in the direction the tree is built).
    fn for_each_pred(&self, node: u32, f: impl FnMut(u32));
}

impl TreeCore {
    fn clear(&mut self) {
        self.idom.clear();
        self.rpo.clear();
        self.po_number.clear();
        self.child_start.clear();
        self.children.clear();
        self.pre.clear();
        self.post.clear();
    }

    /// Builds the tree of the nodes reachable from `root` in `graph`.
    fn compute(&mut self, graph: &impl GraphView, root: u32) {
        self.clear();
        let n = graph.num_nodes();
        self.idom.resize(n, NONE);
        self.po_number.resize(n, NONE);
        self.dfs_postorder(graph, root);
        let count = self.rpo.len();
        self.rpo.reverse();

        // Cooper-Harvey-Kennedy: iterate in reverse post-order until stable.
        self.idom[root as usize] = root;
        let mut changed = true;
        while changed {
            changed = false;
            for i in 1..count {
                let node = self.rpo[i];
                let mut new_idom = NONE;
                let (idom, po) = (&self.idom, &self.po_number);
                graph.for_each_pred(node, |pred| {
                    if idom[pred as usize] == NONE {
                        return; // not processed yet, or unreachable
                    }
                    new_idom = if new_idom == NONE {
                        pred
                    } else {
                        intersect(idom, po, pred, new_idom)
                    };
                });
                debug_assert_ne!(
                    new_idom, NONE,
                    "a reachable node has a processed predecessor"
                );
                if self.idom[node as usize] != new_idom {
                    self.idom[node as usize] = new_idom;
                    changed = true;
                }
            }
        }
        self.number_tree(n, root);
    }

    /// Fills `rpo` with the reachable nodes in post-order (reversed by the caller).
    fn dfs_postorder(&mut self, graph: &impl GraphView, root: u32) {
        // Iterative DFS: successors are collected into `fill` per node so the
        // walk can resume where it left off.
        const DISCOVERED: u32 = NONE - 1;
        let mut succ_buf: Vec<u32> = std::mem::take(&mut self.fill);
        succ_buf.clear();
        // Each stack entry: (node, index of its next successor in succ_buf).
        // Successor lists live contiguously in succ_buf above the frame's base.
        let mut frames: Vec<(u32, u32, u32)> = Vec::new(); // (node, next, end)
        let push = |node: u32, succ_buf: &mut Vec<u32>, frames: &mut Vec<(u32, u32, u32)>| {
            let start = succ_buf.len() as u32;
            graph.for_each_succ(node, |s| succ_buf.push(s));
            frames.push((node, start, succ_buf.len() as u32));
        };
        self.po_number[root as usize] = DISCOVERED;
        push(root, &mut succ_buf, &mut frames);
        while let Some(&mut (node, ref mut next, end)) = frames.last_mut() {
            if *next < end {
                let succ = succ_buf[*next as usize];
                *next += 1;
                if self.po_number[succ as usize] == NONE {
                    self.po_number[succ as usize] = DISCOVERED;
                    push(succ, &mut succ_buf, &mut frames);
                }
            } else {
                self.po_number[node as usize] = self.rpo.len() as u32;
                self.rpo.push(node);
                let (_, start, _) = frames.pop().expect("non-empty");
                succ_buf.truncate(start as usize);
            }
        }
        self.fill = succ_buf;
    }

    /// Builds the children rows and the pre/post numbering of the tree.
    fn number_tree(&mut self, n: usize, root: u32) {
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
        self.children.resize(self.child_start[n] as usize, 0);
        // Children in reverse post-order of the graph: deterministic and the
        // order passes that walk the tree expect.
        for &node in &self.rpo {
            let idom = self.idom[node as usize];
            if idom != NONE && idom != node {
                self.children[self.fill[idom as usize] as usize] = node;
                self.fill[idom as usize] += 1;
            }
        }
        self.pre.resize(n, NONE);
        self.post.resize(n, NONE);
        let (mut pre_count, mut post_count) = (0, 0);
        self.stack.clear();
        self.stack.push((root, self.child_start[root as usize]));
        self.pre[root as usize] = pre_count;
        pre_count += 1;
        while let Some(&mut (node, ref mut next)) = self.stack.last_mut() {
            if *next < self.child_start[node as usize + 1] {
                let child = self.children[*next as usize];
                *next += 1;
                self.pre[child as usize] = pre_count;
                pre_count += 1;
                self.stack.push((child, self.child_start[child as usize]));
            } else {
                self.post[node as usize] = post_count;
                post_count += 1;
                self.stack.pop();
            }
        }
    }

    fn is_reachable(&self, node: u32) -> bool {
        self.idom.get(node as usize).is_some_and(|&d| d != NONE)
    }

    fn idom(&self, node: u32) -> Option<u32> {
        match self.idom.get(node as usize) {
            Some(&d) if d != NONE && d != node => Some(d),
            _ => None,
        }
    }

    fn dominates(&self, a: u32, b: u32) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let (a, b) = (a as usize, b as usize);
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    fn children(&self, node: u32) -> &[u32] {
        match self.child_start.get(node as usize..node as usize + 2) {
            Some(&[lo, hi]) => &self.children[lo as usize..hi as usize],
            _ => &[],
        }
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

/// The forward control-flow graph.
struct Forward<'a>(&'a ControlFlowGraph);

impl GraphView for Forward<'_> {
    fn num_nodes(&self) -> usize {
        self.0.num_block_indices()
    }
    fn for_each_succ(&self, node: u32, mut f: impl FnMut(u32)) {
        for b in self.0.successors(Block::from_u32(node)) {
            f(b.as_u32());
        }
    }
    fn for_each_pred(&self, node: u32, mut f: impl FnMut(u32)) {
        for b in self.0.predecessors(Block::from_u32(node)) {
            f(b.as_u32());
        }
    }
}

/// The reversed control-flow graph plus a virtual exit node numbered
/// `num_block_indices`, with an edge from the exit to every block in
/// `attached` (exits, and one block per region that reaches no exit).
struct Reverse<'a> {
    cfg: &'a ControlFlowGraph,
    attached: &'a [bool],
    attached_list: &'a [Block],
}

impl Reverse<'_> {
    fn exit(&self) -> u32 {
        self.cfg.num_block_indices() as u32
    }
}

impl GraphView for Reverse<'_> {
    fn num_nodes(&self) -> usize {
        self.cfg.num_block_indices() + 1
    }
    fn for_each_succ(&self, node: u32, mut f: impl FnMut(u32)) {
        if node == self.exit() {
            for b in self.attached_list {
                f(b.as_u32());
            }
        } else {
            for b in self.cfg.predecessors(Block::from_u32(node)) {
                if self.cfg.is_reachable(*b) {
                    f(b.as_u32());
                }
            }
        }
    }
    fn for_each_pred(&self, node: u32, mut f: impl FnMut(u32)) {
        if node == self.exit() {
            return;
        }
        for b in self.cfg.successors(Block::from_u32(node)) {
            f(b.as_u32());
        }
        if self.attached[node as usize] {
            f(self.exit());
        }
    }
}

/// The dominator tree of a function's blocks reachable from the entry.
///
/// `a` dominates `b` when every path from the entry to `b` goes through `a`
/// (a block dominates itself). Computed by Cooper-Harvey-Kennedy (see the
/// module documentation); queries are O(1).
#[derive(Clone, Default, Debug)]
pub struct DominatorTree {
    core: TreeCore,
    valid: bool,
}

impl DominatorTree {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// The dominator tree of `cfg`.
    pub fn with_cfg(cfg: &ControlFlowGraph) -> Self {
        let mut tree = Self::new();
        tree.compute(cfg);
        tree
    }

    /// Empties the tree, keeping its buffers.
    pub fn clear(&mut self) {
        self.core.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Computes the tree of `cfg` (which must be computed).
    pub fn compute(&mut self, cfg: &ControlFlowGraph) {
        self.clear();
        if let Some(entry) = cfg.entry_block() {
            self.core.compute(&Forward(cfg), entry.as_u32());
        }
        self.valid = true;
    }

    /// The root: the entry block.
    pub fn root(&self) -> Option<Block> {
        self.core.rpo.first().map(|&n| Block::from_u32(n))
    }

    /// Whether `block` is reachable from the entry (and so in the tree).
    pub fn is_reachable(&self, block: Block) -> bool {
        self.core.is_reachable(block.as_u32())
    }

    /// The immediate dominator of `block`: `None` for the entry and for
    /// unreachable blocks.
    pub fn idom(&self, block: Block) -> Option<Block> {
        self.core.idom(block.as_u32()).map(Block::from_u32)
    }

    /// Whether `a` dominates `b` (reflexive). False if either is unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.core.dominates(a.as_u32(), b.as_u32())
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The blocks `block` immediately dominates, in reverse post-order.
    pub fn children(&self, block: Block) -> impl ExactSizeIterator<Item = Block> + '_ {
        self.core
            .children(block.as_u32())
            .iter()
            .map(|&n| Block::from_u32(n))
    }

    /// The reachable blocks in the reverse post-order the tree was computed in.
    pub fn reverse_postorder(&self) -> impl ExactSizeIterator<Item = Block> + '_ {
        self.core.rpo.iter().map(|&n| Block::from_u32(n))
    }

    /// The position of `block` in a pre-order walk of the tree: a block's
    /// subtree is the range from its number to its number plus its size.
    pub fn preorder_number(&self, block: Block) -> Option<u32> {
        self.core
            .pre
            .get(block.index())
            .copied()
            .filter(|&n| n != NONE)
    }

    /// The nearest common dominator of `a` and `b` (both reachable).
    pub fn common_dominator(&self, a: Block, b: Block) -> Option<Block> {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return None;
        }
        Some(Block::from_u32(intersect(
            &self.core.idom,
            &self.core.po_number,
            a.as_u32(),
            b.as_u32(),
        )))
    }
}

/// The post-dominator tree: `a` post-dominates `b` when every path from `b`
/// to a function exit goes through `a`.
///
/// Its root is a virtual exit joining every block without successors; blocks
/// that reach no exit (infinite loops) are attached to it as well (see the
/// module documentation), so every block reachable from the entry has a
/// parent. [`ipdom`](Self::ipdom) returns `None` where the parent is the
/// virtual exit. Queries are O(1).
#[derive(Clone, Default, Debug)]
pub struct PostDominatorTree {
    core: TreeCore,
    attached: Vec<bool>,
    attached_list: Vec<Block>,
    exit: u32,
    valid: bool,
}

impl PostDominatorTree {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// The post-dominator tree of `cfg`.
    pub fn with_cfg(cfg: &ControlFlowGraph) -> Self {
        let mut tree = Self::new();
        tree.compute(cfg);
        tree
    }

    /// Empties the tree, keeping its buffers.
    pub fn clear(&mut self) {
        self.core.clear();
        self.attached.clear();
        self.attached_list.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Computes the tree of `cfg` (which must be computed).
    pub fn compute(&mut self, cfg: &ControlFlowGraph) {
        self.clear();
        let n = cfg.num_block_indices();
        self.exit = n as u32;
        self.attached.resize(n, false);
        for &block in cfg.postorder() {
            if cfg.successors(block).is_empty() {
                self.attached[block.index()] = true;
                self.attached_list.push(block);
            }
        }
        // Attach regions that reach no exit: walk the reversed graph from
        // the exits, then from the earliest-finishing unvisited block, until
        // every reachable block is visited.
        let mut seen = vec![false; n];
        let mut stack: Vec<Block> = Vec::new();
        let mut visit = |start: Block, seen: &mut Vec<bool>| {
            if seen[start.index()] {
                return;
            }
            seen[start.index()] = true;
            stack.push(start);
            while let Some(block) = stack.pop() {
                for &pred in cfg.predecessors(block) {
                    if !seen[pred.index()] {
                        seen[pred.index()] = true;
                        stack.push(pred);
                    }
                }
            }
        };
        for i in 0..self.attached_list.len() {
            visit(self.attached_list[i], &mut seen);
        }
        for &block in cfg.postorder() {
            if !seen[block.index()] {
                self.attached[block.index()] = true;
                self.attached_list.push(block);
                visit(block, &mut seen);
            }
        }
        let view = Reverse {
            cfg,
            attached: &self.attached,
            attached_list: &self.attached_list,
        };
        let exit = view.exit();
        self.core.compute(&view, exit);
        self.valid = true;
    }

    /// Whether `block` is in the tree (reachable from the entry).
    pub fn is_reachable(&self, block: Block) -> bool {
        block.as_u32() != self.exit && self.core.is_reachable(block.as_u32())
    }

    /// The immediate post-dominator of `block`; `None` if it is the virtual
    /// exit or `block` is unreachable.
    pub fn ipdom(&self, block: Block) -> Option<Block> {
        if block.as_u32() == self.exit {
            return None;
        }
        self.core
            .idom(block.as_u32())
            .filter(|&d| d != self.exit)
            .map(Block::from_u32)
    }

    /// Whether `a` post-dominates `b` (reflexive). False if either is not in the tree.
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        a.as_u32() != self.exit
            && b.as_u32() != self.exit
            && self.core.dominates(a.as_u32(), b.as_u32())
    }

    /// Whether `a` strictly post-dominates `b`.
    pub fn strictly_post_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.post_dominates(a, b)
    }

    /// The blocks `block` immediately post-dominates.
    pub fn children(&self, block: Block) -> impl ExactSizeIterator<Item = Block> + '_ {
        let nodes = if block.as_u32() == self.exit {
            &[][..]
        } else {
            self.core.children(block.as_u32())
        };
        nodes.iter().map(|&n| Block::from_u32(n))
    }

    /// The blocks whose immediate post-dominator is the virtual exit.
    pub fn roots(&self) -> impl ExactSizeIterator<Item = Block> + '_ {
        self.core
            .children(self.exit)
            .iter()
            .map(|&n| Block::from_u32(n))
    }

    /// The blocks attached to the virtual exit: those without successors,
    /// then one per region that reaches no exit (in the order attached).
    pub fn attached_to_exit(&self) -> &[Block] {
        &self.attached_list
    }
}

/// Dominance frontiers: `DF(b)` is the set of blocks `j` such that `b`
/// dominates a predecessor of `j` but does not strictly dominate `j`. The
/// places where a value defined in `b` needs a block parameter (Cytron et
/// al. 1991, computed by the runner walk of Cooper-Harvey-Kennedy 2001).
#[derive(Clone, Default, Debug)]
pub struct DominanceFrontiers {
    start: Vec<u32>,
    blocks: Vec<Block>,
    pairs: Vec<(u32, Block)>,
    valid: bool,
}

impl DominanceFrontiers {
    /// Empty frontiers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the frontiers, keeping their buffers.
    pub fn clear(&mut self) {
        self.start.clear();
        self.blocks.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Computes the frontiers from a graph and its dominator tree.
    pub fn compute(&mut self, cfg: &ControlFlowGraph, domtree: &DominatorTree) {
        self.clear();
        self.pairs.clear();
        let n = cfg.num_block_indices();
        for block in cfg.reverse_postorder() {
            let preds = cfg.predecessors(block);
            // The entry has an implicit predecessor: the function's caller.
            if preds.len() < 2 && Some(block) != cfg.entry_block() {
                continue;
            }
            let idom = domtree.idom(block);
            for &pred in preds {
                let mut runner = Some(pred);
                while let Some(r) = runner {
                    if Some(r) == idom || !domtree.is_reachable(r) {
                        break;
                    }
                    self.pairs.push((r.as_u32(), block));
                    runner = domtree.idom(r);
                }
            }
        }
        self.pairs.sort_unstable();
        self.pairs.dedup();
        self.start.resize(n + 1, 0);
        for &(r, _) in &self.pairs {
            self.start[r as usize + 1] += 1;
        }
        for i in 0..n {
            self.start[i + 1] += self.start[i];
        }
        self.blocks.extend(self.pairs.iter().map(|&(_, b)| b));
        self.valid = true;
    }

    /// The dominance frontier of `block`, sorted by block index.
    pub fn frontier(&self, block: Block) -> &[Block] {
        match self.start.get(block.index()..block.index() + 2) {
            Some(&[lo, hi]) => &self.blocks[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// The iterated dominance frontier of `defs`: the blocks that need a
    /// parameter for a variable assigned in `defs`. Written to `out`, sorted
    /// by block index.
    pub fn iterated_frontier(&self, defs: impl IntoIterator<Item = Block>, out: &mut Vec<Block>) {
        out.clear();
        let n = self.start.len().saturating_sub(1);
        let mut in_out = vec![false; n];
        let mut queued = vec![false; n];
        let mut work: Vec<Block> = Vec::new();
        for b in defs {
            if b.index() < n && !queued[b.index()] {
                queued[b.index()] = true;
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &j in self.frontier(b) {
                if !in_out[j.index()] {
                    in_out[j.index()] = true;
                    out.push(j);
                    if !queued[j.index()] {
                        queued[j.index()] = true;
                        work.push(j);
                    }
                }
            }
        }
        out.sort_unstable();
    }
}
