//! Dominance frontiers, by the "runner" walk of Cooper, Harvey and Kennedy
//! ("A Simple, Fast Dominance Algorithm", 2001).

use cranelift_entity::EntityRef;

use crate::dominators::DominatorTree;
use crate::Graph;

/// Dominance frontiers: `DF(b)` is the set of nodes `j` such that `b`
/// dominates a predecessor of `j` but does not strictly dominate `j`. The
/// places where a value defined in `b` needs a block parameter (Cytron,
/// Ferrante, Rosen, Wegman and Zadeck, 1991).
#[derive(Clone, Debug)]
pub struct DominanceFrontiers<N> {
    start: Vec<u32>,
    nodes: Vec<N>,
    valid: bool,
    // Scratch.
    pairs: Vec<(u32, u32)>,
    preds: Vec<N>,
}

impl<N> Default for DominanceFrontiers<N> {
    fn default() -> Self {
        DominanceFrontiers {
            start: Vec::new(),
            nodes: Vec::new(),
            valid: false,
            pairs: Vec::new(),
            preds: Vec::new(),
        }
    }
}

impl<N: EntityRef> DominanceFrontiers<N> {
    /// Empty frontiers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the frontiers, keeping their buffers.
    pub fn clear(&mut self) {
        self.start.clear();
        self.nodes.clear();
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Computes the frontiers from a graph and its dominator tree.
    pub fn compute<G: Graph<Node = N> + ?Sized>(&mut self, graph: &G, domtree: &DominatorTree<N>) {
        self.clear();
        self.pairs.clear();
        let n = graph.num_node_indices();
        let entry = domtree.root();
        for node in domtree.reverse_postorder() {
            self.preds.clear();
            self.preds.extend(graph.predecessors(node));
            // The entry has an implicit predecessor: where the graph is
            // entered from.
            if self.preds.len() < 2 && Some(node.index()) != entry.map(N::index) {
                continue;
            }
            let idom = domtree.idom(node).map(N::index);
            for &pred in &self.preds {
                let mut runner = Some(pred);
                while let Some(r) = runner {
                    if Some(r.index()) == idom || !domtree.is_reachable(r) {
                        break;
                    }
                    self.pairs.push((r.index() as u32, node.index() as u32));
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
        self.nodes
            .extend(self.pairs.iter().map(|&(_, b)| N::new(b as usize)));
        self.valid = true;
    }

    /// The dominance frontier of `node`, sorted by node index.
    pub fn frontier(&self, node: N) -> &[N] {
        match self.start.get(node.index()..node.index() + 2) {
            Some(&[lo, hi]) => &self.nodes[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// The iterated dominance frontier of `defs`: the nodes that need a
    /// parameter for a variable assigned in `defs`. Written to `out`, sorted
    /// by node index.
    pub fn iterated_frontier(&self, defs: impl IntoIterator<Item = N>, out: &mut Vec<N>) {
        out.clear();
        let n = self.start.len().saturating_sub(1);
        let mut in_out = vec![false; n];
        let mut queued = vec![false; n];
        let mut work: Vec<N> = Vec::new();
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
        out.sort_unstable_by_key(|b| b.index());
    }
}
