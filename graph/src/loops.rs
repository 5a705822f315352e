//! The loop-nesting forest, and the loop-aware depth-first order.
//!
//! A back edge is an edge `latch -> header` whose header dominates its
//! latch; the natural loop of a header is the header and every node that
//! reaches one of its latches without passing through it (Aho, Lam, Sethi
//! and Ullman, "Compilers", 2nd ed., 9.6.6). Loops sharing a header are
//! one loop, and two loops are either disjoint or nested.
//!
//! The forest is built as Havlak does ("Nesting of reducible and
//! irreducible loops", TOPLAS 1997), and Cranelift's and LLVM's loop
//! analyses after him: headers are taken in depth-first post-order (an
//! inner header is dominated by the outer one, so it comes first), and
//! each loop's nodes are found by walking backwards from its latches up to
//! the header. A node already in a loop stands for the outermost loop
//! found around it so far (a union-find over loops), which becomes a child
//! of the new loop, and the walk goes on from that loop's header. Linear
//! but for the near-constant union-find.
//!
//! A graph is reducible when every retreating edge of a depth-first search
//! is a back edge. An irreducible graph also has cycles entered at more
//! than one node; they are not natural loops and are not in the forest
//! (though the natural loops inside and around them are), and
//! [`LoopForest::is_reducible`] says so: a solver that relies on every
//! cycle having one entry falls back to plain iteration. They still count
//! in the [cycle depth](LoopForest::cycle_depth) the loop-aware order sorts
//! successors by, as Havlak's irreducible loops.

use cranelift_entity::EntityRef;

use crate::dominators::DominatorTree;
use crate::postorder::PostOrder;
use crate::{number_preorder, Graph, NONE};

/// The natural loops of a graph and how they nest.
///
/// Loops are numbered by the position of their header in reverse
/// post-order, so a loop comes after every loop that contains it.
#[derive(Clone, Debug)]
pub struct LoopForest<N> {
    /// The innermost loop of each node, by node index (`NONE` outside
    /// every loop and for unreachable nodes).
    innermost: Vec<u32>,
    /// The header of each loop.
    headers: Vec<N>,
    /// The loop each loop is directly inside, or `NONE`.
    parents: Vec<u32>,
    /// How many loops contain each loop, itself included.
    depths: Vec<u32>,
    /// How many irreducible cycles that are not natural loops hold each
    /// node, by node index (empty when the graph is reducible).
    irreducible_depth: Vec<u32>,
    /// The latches of each loop, compressed rows.
    latch_start: Vec<u32>,
    latches: Vec<N>,
    /// The number of each loop in a pre-order of the forest, and one past
    /// the largest number in its subtree: `l` contains `m` when
    /// `pre[l] <= pre[m] < end[l]`.
    pre: Vec<u32>,
    end: Vec<u32>,
    reducible: bool,
    valid: bool,
    // Scratch.
    work: Vec<N>,
    outermost: Vec<u32>,
    stack: Vec<(u32, u32)>,
}

impl<N> Default for LoopForest<N> {
    fn default() -> Self {
        LoopForest {
            innermost: Vec::new(),
            headers: Vec::new(),
            parents: Vec::new(),
            depths: Vec::new(),
            irreducible_depth: Vec::new(),
            latch_start: Vec::new(),
            latches: Vec::new(),
            pre: Vec::new(),
            end: Vec::new(),
            reducible: true,
            valid: false,
            work: Vec::new(),
            outermost: Vec::new(),
            stack: Vec::new(),
        }
    }
}

/// One loop of a [`LoopForest`].
pub struct Loop<'a, N> {
    forest: &'a LoopForest<N>,
    index: u32,
}

impl<N> Clone for Loop<'_, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<N> Copy for Loop<'_, N> {}

impl<N: EntityRef + std::fmt::Debug> std::fmt::Debug for Loop<'_, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "loop{} headed by {:?}", self.index, self.header())
    }
}

impl<'a, N: EntityRef> Loop<'a, N> {
    /// The loop's header: the one node of the loop entered from outside it.
    pub fn header(&self) -> N {
        self.forest.headers[self.index as usize]
    }

    /// The sources of the loop's back edges, in the order of the header's
    /// predecessors.
    pub fn latches(&self) -> &'a [N] {
        let i = self.index as usize;
        let (lo, hi) = (self.forest.latch_start[i], self.forest.latch_start[i + 1]);
        &self.forest.latches[lo as usize..hi as usize]
    }

    /// Whether `node` is in the loop (in it or in a loop inside it).
    pub fn contains(&self, node: N) -> bool {
        let m = self.forest.innermost_index(node);
        m != NONE && self.forest.contains_loop(self.index, m)
    }

    /// The loop this one is directly inside.
    pub fn parent(&self) -> Option<Self> {
        let p = self.forest.parents[self.index as usize];
        (p != NONE).then(|| self.forest.get(p))
    }

    /// How many loops contain this one, itself included: 1 at the top level.
    pub fn depth(&self) -> u32 {
        self.forest.depths[self.index as usize]
    }

    /// The loop's number in its forest (outer loops have smaller numbers).
    pub fn index(&self) -> usize {
        self.index as usize
    }
}

impl<N: EntityRef> LoopForest<N> {
    /// An empty forest.
    pub fn new() -> Self {
        Self::default()
    }

    /// The loops of `graph`, given its depth-first `order` and dominator tree.
    pub fn with_graph<G: Graph<Node = N> + ?Sized>(
        graph: &G,
        order: &PostOrder<N>,
        domtree: &DominatorTree<N>,
    ) -> Self {
        let mut forest = Self::new();
        forest.compute(graph, order, domtree);
        forest
    }

    /// Empties the forest, keeping its buffers.
    pub fn clear(&mut self) {
        self.innermost.clear();
        self.headers.clear();
        self.parents.clear();
        self.depths.clear();
        self.irreducible_depth.clear();
        self.latch_start.clear();
        self.latches.clear();
        self.pre.clear();
        self.end.clear();
        self.reducible = true;
        self.valid = false;
    }

    /// Whether [`compute`](Self::compute) has run since the last [`clear`](Self::clear).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Finds the loops of `graph` from `order`, a depth-first post-order of
    /// it, and its dominator tree (both computed for the graph as it is).
    pub fn compute<G: Graph<Node = N> + ?Sized>(
        &mut self,
        graph: &G,
        order: &PostOrder<N>,
        domtree: &DominatorTree<N>,
    ) {
        self.clear();
        self.valid = true;
        self.innermost.resize(graph.num_node_indices(), NONE);
        self.outermost.clear();
        // Built innermost first, with the latches of loop `l` at
        // `latches[latch_start[l]..]`; renumbered at the end.
        for &header in order.as_slice() {
            let first_latch = self.latches.len();
            for pred in graph.predecessors(header) {
                if domtree.dominates(header, pred) {
                    self.latches.push(pred);
                } else if order.is_retreating_edge(pred, header) {
                    // A second way into a cycle: not a natural loop.
                    self.reducible = false;
                }
            }
            if self.latches.len() == first_latch {
                continue;
            }
            let l = self.headers.len() as u32;
            self.latch_start.push(first_latch as u32);
            self.headers.push(header);
            self.parents.push(NONE);
            self.outermost.push(l);
            self.innermost[header.index()] = l;
            self.work.clear();
            self.work.extend(
                self.latches[first_latch..]
                    .iter()
                    .filter(|l| l.index() != header.index()),
            );
            self.collect_body(graph, order, l);
        }
        self.latch_start.push(self.latches.len() as u32);
        self.renumber_outer_first();
        self.number_forest();
        if !self.reducible {
            self.deepen_irreducible_cycles(graph, order, domtree);
        }
    }

    /// Counts, for the loop-aware order, the cycles that are not natural
    /// loops. A retreating edge `p -> h` whose target does not dominate its
    /// source closes a cycle entered elsewhere than at `h`: Havlak's
    /// irreducible loop headed by `h`, the nodes below `h` in the search
    /// that reach `p` without passing `h`. Each of its nodes outside the
    /// natural loop of `h` (if any) is one cycle deeper, so that the order
    /// keeps it before the cycle's exits as it keeps a loop's body. The
    /// walks share a budget linear in the graph: past it the order is
    /// merely slower, never wrong.
    fn deepen_irreducible_cycles<G: Graph<Node = N> + ?Sized>(
        &mut self,
        graph: &G,
        order: &PostOrder<N>,
        domtree: &DominatorTree<N>,
    ) {
        self.irreducible_depth.resize(graph.num_node_indices(), 0);
        // The header whose cycle last took in each node (in the scratch
        // buffer of the union-find, free by now).
        let mut stamp = std::mem::take(&mut self.outermost);
        stamp.clear();
        stamp.resize(graph.num_node_indices(), NONE);
        let mut budget = 8 * order.len() + 64;
        for header in order.reverse_postorder() {
            let h = order.number(header).expect("reachable");
            let own = self.innermost_index(header);
            let own = (own != NONE && self.headers[own as usize].index() == header.index())
                .then_some(own);
            self.work.clear();
            self.work.extend(
                graph.predecessors(header).filter(|&p| {
                    order.is_retreating_edge(p, header) && !domtree.dominates(header, p)
                }),
            );
            if self.work.is_empty() {
                continue;
            }
            stamp[header.index()] = h;
            if own.is_none() {
                self.irreducible_depth[header.index()] += 1;
            }
            while let Some(node) = self.work.pop() {
                if stamp[node.index()] == h || budget == 0 {
                    continue;
                }
                budget -= 1;
                stamp[node.index()] = h;
                let m = self.innermost[node.index()];
                let in_own = own.is_some_and(|l| m != NONE && self.contains_loop(l, m));
                if !in_own {
                    self.irreducible_depth[node.index()] += 1;
                }
                for pred in graph.predecessors(node) {
                    let below = order.number(pred).is_some_and(|p| p < h);
                    if below && stamp[pred.index()] != h {
                        self.work.push(pred);
                    }
                }
            }
        }
        self.outermost = stamp;
    }

    /// Walks backwards from the latches in `work` to the header of loop `l`,
    /// putting every node met outside a loop in `l`, and every outermost
    /// loop met (found before, so nested) inside `l`.
    fn collect_body<G: Graph<Node = N> + ?Sized>(
        &mut self,
        graph: &G,
        order: &PostOrder<N>,
        l: u32,
    ) {
        while let Some(node) = self.work.pop() {
            let m = self.innermost[node.index()];
            let expand = if m == NONE {
                self.innermost[node.index()] = l;
                node
            } else {
                let top = find(&mut self.outermost, m);
                if top == l {
                    continue;
                }
                self.parents[top as usize] = l;
                self.outermost[top as usize] = l;
                self.headers[top as usize]
            };
            for pred in graph.predecessors(expand) {
                if order.is_reachable(pred) {
                    self.work.push(pred);
                }
            }
        }
    }

    /// Renumbers the loops, built innermost first, by the position of their
    /// headers in reverse post-order, and computes their depths.
    fn renumber_outer_first(&mut self) {
        let count = self.headers.len() as u32;
        let renumber = |l: u32| if l == NONE { NONE } else { count - 1 - l };
        self.headers.reverse();
        self.parents.reverse();
        for p in &mut self.parents {
            *p = renumber(*p);
        }
        for m in &mut self.innermost {
            *m = renumber(*m);
        }
        // The latch rows, reversed: `outermost` is free scratch now.
        let rows = &mut self.outermost;
        rows.clear();
        rows.extend_from_slice(&self.latch_start);
        self.latch_start.clear();
        self.work.clear();
        self.work.extend_from_slice(&self.latches);
        self.latches.clear();
        for built in (0..count as usize).rev() {
            self.latch_start.push(self.latches.len() as u32);
            let (lo, hi) = (rows[built] as usize, rows[built + 1] as usize);
            self.latches.extend_from_slice(&self.work[lo..hi]);
        }
        self.latch_start.push(self.latches.len() as u32);
        for l in 0..count as usize {
            let p = self.parents[l];
            let depth = if p == NONE {
                1
            } else {
                self.depths[p as usize] + 1
            };
            self.depths.push(depth);
        }
    }

    /// Numbers the forest in pre-order (see `contains_loop`).
    fn number_forest(&mut self) {
        let n = self.parents.len();
        // Children rows: the children of `l` are `children[first[l]..first[l + 1]]`.
        let mut first = vec![0u32; n + 1];
        for &p in self.parents.iter().filter(|&&p| p != NONE) {
            first[p as usize + 1] += 1;
        }
        for l in 0..n {
            first[l + 1] += first[l];
        }
        let mut fill = first[..n].to_vec();
        let mut children = vec![0u32; first[n] as usize];
        for (l, &p) in self.parents.iter().enumerate() {
            if p != NONE {
                children[fill[p as usize] as usize] = l as u32;
                fill[p as usize] += 1;
            }
        }
        let parents = &self.parents;
        number_preorder(
            &first,
            |k| children[k],
            (0..n as u32).filter(|&l| parents[l as usize] == NONE),
            &mut self.pre,
            &mut self.end,
            &mut self.stack,
        );
    }

    /// Whether every retreating edge of the depth-first search is a back
    /// edge: every cycle is inside a natural loop entered only at its header.
    pub fn is_reducible(&self) -> bool {
        self.reducible
    }

    /// How many loops there are.
    pub fn num_loops(&self) -> usize {
        self.headers.len()
    }

    /// The loops, each after the loops that contain it.
    pub fn loops(&self) -> impl DoubleEndedIterator<Item = Loop<'_, N>> + ExactSizeIterator + '_ {
        (0..self.headers.len() as u32).map(|l| self.get(l))
    }

    /// Loop number `index`.
    ///
    /// # Panics
    ///
    /// If there are not that many loops.
    pub fn loop_at(&self, index: usize) -> Loop<'_, N> {
        assert!(index < self.headers.len(), "no loop {index}");
        self.get(index as u32)
    }

    /// The innermost loop holding `node`, if any.
    pub fn innermost(&self, node: N) -> Option<Loop<'_, N>> {
        let m = self.innermost_index(node);
        (m != NONE).then(|| self.get(m))
    }

    /// The loop headed by `node`, if it heads one.
    pub fn headed_by(&self, node: N) -> Option<Loop<'_, N>> {
        self.innermost(node)
            .filter(|l| l.header().index() == node.index())
    }

    /// How many loops contain `node`: 0 outside every loop.
    pub fn loop_depth(&self, node: N) -> u32 {
        self.innermost(node).map_or(0, |l| l.depth())
    }

    /// How many cycles contain `node`: its [`loop_depth`](Self::loop_depth)
    /// and, in an irreducible graph, the cycles entered at more than one
    /// node that hold it (bounded by a budget linear in the graph). The key
    /// of the loop-aware order.
    pub fn cycle_depth(&self, node: N) -> u32 {
        self.loop_depth(node)
            + self
                .irreducible_depth
                .get(node.index())
                .copied()
                .unwrap_or(0)
    }

    fn get(&self, index: u32) -> Loop<'_, N> {
        Loop {
            forest: self,
            index,
        }
    }

    fn innermost_index(&self, node: N) -> u32 {
        self.innermost.get(node.index()).copied().unwrap_or(NONE)
    }

    fn contains_loop(&self, outer: u32, inner: u32) -> bool {
        let (o, i) = (outer as usize, inner as usize);
        self.pre[o] <= self.pre[i] && self.pre[i] < self.end[o]
    }
}

fn find(outermost: &mut [u32], mut l: u32) -> u32 {
    while outermost[l as usize] != l {
        let up = outermost[outermost[l as usize] as usize];
        outermost[l as usize] = up;
        l = up;
    }
    l
}

impl<N: EntityRef> PostOrder<N> {
    /// Computes the post-order of `graph` in which the body of every loop
    /// of `forest` comes, reversed, right after its header, before the
    /// nodes after the loop.
    ///
    /// A reverse post-order puts a node after its predecessors except along
    /// back edges, but leaves open where a loop body goes: a search that
    /// follows the exit of `jmpif c, then: body, else: exit` first finishes
    /// the exit, and everything after it, before the body, so the body
    /// comes *after* the rest of the graph, and a solver working in that
    /// order goes down the whole graph again each time the loop's back edge
    /// changes its header. Here the search visits the successors of a node
    /// by increasing [cycle depth](LoopForest::cycle_depth) (exits first),
    /// so that each loop ends up
    /// contiguous after its header, as in a weak topological order (F.
    /// Bourdoncle, "Efficient chaotic iteration strategies with widenings",
    /// 1993).
    pub fn compute_loops_together<G: Graph<Node = N> + ?Sized>(
        &mut self,
        graph: &G,
        forest: &LoopForest<N>,
    ) {
        self.compute_sorted_by_key(graph, |node| forest.cycle_depth(node));
    }
}

/// A graph's loop structure computed in one go: its depth-first
/// post-order, dominator tree, loop forest and loop-aware order (see
/// [`PostOrder::compute_loops_together`]), for a client that holds no
/// analyses of its own.
#[derive(Clone, Debug)]
pub struct LoopNest<N> {
    postorder: PostOrder<N>,
    domtree: DominatorTree<N>,
    forest: LoopForest<N>,
    loop_order: PostOrder<N>,
}

impl<N> Default for LoopNest<N> {
    fn default() -> Self {
        LoopNest {
            postorder: PostOrder::default(),
            domtree: DominatorTree::default(),
            forest: LoopForest::default(),
            loop_order: PostOrder::default(),
        }
    }
}

impl<N: EntityRef> LoopNest<N> {
    /// Nothing computed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The loop structure of `graph`.
    pub fn with_graph<G: Graph<Node = N> + ?Sized>(graph: &G) -> Self {
        let mut nest = Self::new();
        nest.compute(graph);
        nest
    }

    /// Computes the loop structure of `graph`.
    pub fn compute<G: Graph<Node = N> + ?Sized>(&mut self, graph: &G) {
        self.postorder.compute(graph);
        self.domtree.compute(graph, &self.postorder);
        self.forest.compute(graph, &self.postorder, &self.domtree);
        self.loop_order.compute_loops_together(graph, &self.forest);
    }

    /// Empties everything, keeping the buffers.
    pub fn clear(&mut self) {
        self.postorder.clear();
        self.domtree.clear();
        self.forest.clear();
        self.loop_order.clear();
    }

    /// The depth-first post-order, successors in the graph's order.
    pub fn postorder(&self) -> &PostOrder<N> {
        &self.postorder
    }

    /// The dominator tree.
    pub fn domtree(&self) -> &DominatorTree<N> {
        &self.domtree
    }

    /// The loop-nesting forest.
    pub fn forest(&self) -> &LoopForest<N> {
        &self.forest
    }

    /// The loop-aware post-order.
    pub fn loop_order(&self) -> &PostOrder<N> {
        &self.loop_order
    }
}
