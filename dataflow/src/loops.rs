//! The loop-nesting forest of a reducible graph: which natural loop each
//! block is innermost in, and how the loops nest.
//!
//! Built from a depth-first reverse post-order (such as [`loop_order`]):
//! headers from the last to the first, each loop's blocks found by walking
//! backwards from its latches (the sources of its retreating edges) up to
//! the header; a block already in an inner loop stands for that whole loop,
//! whose outermost known ancestor becomes a child of the new loop and the
//! walk goes on from its header (the union-find scheme of Havlak, "Nesting
//! of reducible and irreducible loops", 1997, and of Cranelift's loop
//! analysis). Linear but for the near-constant union-find.
//!
//! A graph is reducible when every retreating edge of a depth-first order
//! goes to a block that dominates its source. Otherwise some walk from a
//! latch reaches a block placed before its header without passing it (a
//! second way into the cycle), and the forest is not built: a solver that
//! relies on loops having one entry falls back to plain iteration.
//!
//! [`loop_order`]: crate::loop_order

use std::marker::PhantomData;

use cranelift_entity::EntityRef;

use crate::analysis::Graph;

const NONE: u32 = u32::MAX;

/// The natural loops of a reducible graph and how they nest (loops with the
/// same header are one loop). Loops are numbered by the position of their
/// header in the order they were built from, so a loop comes after every
/// loop that contains it.
#[derive(Clone, Debug)]
pub struct LoopForest {
    /// The innermost loop of each block, by block index (`NONE` outside
    /// every loop and for unreachable blocks).
    innermost: Vec<u32>,
    /// The header of each loop, by block index.
    headers: Vec<u32>,
    /// The loop each loop is directly inside, or `NONE`.
    parents: Vec<u32>,
    /// The number of each loop in a pre-order of the forest, and one past
    /// the largest number in its subtree: `l` contains `m` when
    /// `pre[l] <= pre[m] < end[l]`.
    pre: Vec<u32>,
    end: Vec<u32>,
}

/// One loop of a [`LoopForest`], over blocks of type `B`.
pub struct Loop<'a, B> {
    forest: &'a LoopForest,
    index: u32,
    marker: PhantomData<fn() -> B>,
}

impl<B> Clone for Loop<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for Loop<'_, B> {}

impl<B: EntityRef + std::fmt::Debug> std::fmt::Debug for Loop<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "loop{} headed by {:?}", self.index, self.header())
    }
}

impl<B: EntityRef> Loop<'_, B> {
    /// The loop's header: the one block of the loop entered from outside it.
    pub fn header(&self) -> B {
        B::new(self.forest.headers[self.index as usize] as usize)
    }

    /// Whether `block` is in the loop (in it or in a loop inside it).
    pub fn contains(&self, block: B) -> bool {
        let m = self
            .forest
            .innermost
            .get(block.index())
            .copied()
            .unwrap_or(NONE);
        m != NONE && self.forest.contains_loop(self.index, m)
    }

    /// The loop this one is directly inside.
    pub fn parent(&self) -> Option<Self> {
        let p = self.forest.parents[self.index as usize];
        (p != NONE).then(|| self.forest.get(p))
    }

    /// The loop's number in its forest (outer loops have smaller numbers).
    pub fn index(&self) -> usize {
        self.index as usize
    }
}

impl LoopForest {
    /// The loops of `graph`, given its reachable blocks in a depth-first
    /// reverse post-order; `None` if the graph is irreducible.
    pub fn new<G: Graph + ?Sized>(graph: &G, order: &[G::Block]) -> Option<LoopForest> {
        let n = graph.num_block_indices();
        let mut position = vec![NONE; n];
        for (i, &b) in order.iter().enumerate() {
            position[b.index()] = i as u32;
        }
        let mut innermost = vec![NONE; n];
        // Built innermost first; renumbered at the end.
        let mut headers: Vec<u32> = Vec::new();
        let mut parents: Vec<u32> = Vec::new();
        // Union-find over loops: the outermost loop found so far around each.
        let mut outermost: Vec<u32> = Vec::new();
        let mut work: Vec<G::Block> = Vec::new();
        for (hi, &header) in order.iter().enumerate().rev() {
            let h = hi as u32;
            work.clear();
            work.extend(graph.predecessors(header).filter(|p| {
                let pp = position[p.index()];
                pp != NONE && pp >= h
            }));
            if work.is_empty() {
                continue;
            }
            let l = headers.len() as u32;
            headers.push(header.index() as u32);
            parents.push(NONE);
            outermost.push(l);
            innermost[header.index()] = l;
            while let Some(b) = work.pop() {
                let m = innermost[b.index()];
                let expand = if m == NONE {
                    innermost[b.index()] = l;
                    b
                } else {
                    let top = find(&mut outermost, m);
                    if top == l {
                        continue;
                    }
                    // A loop met for the first time from outside: it nests
                    // in this one, and the walk goes on from its header.
                    parents[top as usize] = l;
                    outermost[top as usize] = l;
                    G::Block::new(headers[top as usize] as usize)
                };
                for p in graph.predecessors(expand) {
                    let pp = position[p.index()];
                    if pp == NONE || pp == h {
                        continue;
                    }
                    if pp < h {
                        // A way into the cycle that avoids its header.
                        return None;
                    }
                    work.push(p);
                }
            }
        }
        // Renumber outer loops first (headers in increasing position).
        let count = headers.len() as u32;
        let renumber = |l: u32| if l == NONE { NONE } else { count - 1 - l };
        headers.reverse();
        parents.reverse();
        for p in &mut parents {
            *p = renumber(*p);
        }
        for m in &mut innermost {
            *m = renumber(*m);
        }
        let (pre, end) = preorder(&parents);
        Some(LoopForest {
            innermost,
            headers,
            parents,
            pre,
            end,
        })
    }

    /// How many loops there are.
    pub fn num_loops(&self) -> usize {
        self.headers.len()
    }

    /// The loops, each after the loops that contain it.
    pub fn loops<B: EntityRef>(&self) -> impl Iterator<Item = Loop<'_, B>> + '_ {
        (0..self.headers.len() as u32).map(|l| self.get(l))
    }

    /// The innermost loop holding `block`, if any.
    pub fn innermost<B: EntityRef>(&self, block: B) -> Option<Loop<'_, B>> {
        let m = self.innermost.get(block.index()).copied().unwrap_or(NONE);
        (m != NONE).then(|| self.get(m))
    }

    /// The loop headed by `block`, if it heads one.
    pub fn headed_by<B: EntityRef>(&self, block: B) -> Option<Loop<'_, B>> {
        self.innermost(block)
            .filter(|l| l.header().index() == block.index())
    }

    fn get<B>(&self, index: u32) -> Loop<'_, B> {
        Loop {
            forest: self,
            index,
            marker: PhantomData,
        }
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

/// Pre-order numbers of a forest given by parent links, and one past the
/// largest number in each subtree.
fn preorder(parents: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = parents.len();
    // Children lists, compressed: the children of `l` are
    // `children[first[l]..first[l + 1]]`.
    let mut first = vec![0u32; n + 1];
    for &p in parents.iter().filter(|&&p| p != NONE) {
        first[p as usize + 1] += 1;
    }
    for l in 0..n {
        first[l + 1] += first[l];
    }
    let mut fill = first.clone();
    let mut children = vec![0u32; first[n] as usize];
    for (l, &p) in parents.iter().enumerate() {
        if p != NONE {
            children[fill[p as usize] as usize] = l as u32;
            fill[p as usize] += 1;
        }
    }
    let mut pre = vec![0u32; n];
    let mut end = vec![0u32; n];
    let mut next = 0u32;
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in (0..n as u32).filter(|&l| parents[l as usize] == NONE) {
        pre[root as usize] = next;
        next += 1;
        stack.push((root, first[root as usize]));
        while let Some(&mut (l, ref mut k)) = stack.last_mut() {
            if *k < first[l as usize + 1] {
                let c = children[*k as usize];
                *k += 1;
                pre[c as usize] = next;
                next += 1;
                stack.push((c, first[c as usize]));
            } else {
                end[l as usize] = next;
                stack.pop();
            }
        }
    }
    (pre, end)
}
