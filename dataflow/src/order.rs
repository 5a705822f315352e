//! The order the solver visits blocks in, and its worklist.

use cranelift_entity::EntityRef;

use crate::analysis::Graph;

/// The blocks reachable from the entry, in a reverse post-order where the
/// body of every loop comes right after its header, before the blocks
/// after the loop.
///
/// A reverse post-order puts a block after its predecessors except along
/// back edges, but leaves open where a loop body goes: a depth-first search
/// that follows the body of `jmpif c, then: body, else: exit` first
/// finishes the exit, and everything after it, before the body, so the
/// body comes *after* the rest of the function, and a solver working in
/// that order goes down the whole function again each time the loop's back
/// edge changes its header. Here the search follows the successors of a
/// block in increasing loop depth (how many natural loops contain them:
/// exits first), so that each loop ends up contiguous after its header, as
/// in a weak topological order (F. Bourdoncle, "Efficient chaotic iteration
/// strategies with widenings", 1993). The depths come from one backward
/// walk per retreating edge over the blocks of its loop; the walks are
/// bounded by a budget linear in the graph (only irreducible graphs, whose
/// cycles are not natural loops, could exceed it, and then the order is
/// merely slower, not wrong).
pub fn loop_order<G: Graph + ?Sized>(graph: &G) -> Vec<G::Block> {
    let n = graph.num_block_indices();
    let rpo: Vec<G::Block> = graph.postorder().rev().collect();
    let Some(&entry) = rpo.first() else {
        return rpo;
    };
    let mut position = vec![u32::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        position[b.index()] = i as u32;
    }
    let mut depth = vec![0u32; n];
    let mut stamp = vec![u32::MAX; n];
    let mut budget = 8 * rpo.len() + 64;
    let mut work: Vec<G::Block> = Vec::new();
    for (hi, &header) in rpo.iter().enumerate() {
        let h = hi as u32;
        for latch in graph.predecessors(header) {
            let p = position[latch.index()];
            if p == u32::MAX || p < h {
                continue;
            }
            if stamp[header.index()] != h {
                stamp[header.index()] = h;
                depth[header.index()] += 1;
            }
            work.clear();
            work.push(latch);
            while let Some(b) = work.pop() {
                if stamp[b.index()] == h || budget == 0 {
                    continue;
                }
                budget -= 1;
                stamp[b.index()] = h;
                depth[b.index()] += 1;
                for pred in graph.predecessors(b) {
                    let pp = position[pred.index()];
                    if pp != u32::MAX && pp > h && stamp[pred.index()] != h {
                        work.push(pred);
                    }
                }
            }
        }
    }
    // Depth-first search, successors in increasing depth.
    let mut postorder: Vec<G::Block> = Vec::with_capacity(rpo.len());
    let mut seen = vec![false; n];
    let mut order: Vec<G::Block> = Vec::new();
    let mut stack: Vec<(G::Block, u32, u32)> = Vec::new();
    let push = |b: G::Block, order: &mut Vec<G::Block>, stack: &mut Vec<(G::Block, u32, u32)>| {
        let lo = order.len();
        order.extend(graph.successors(b));
        order[lo..].sort_by_key(|s| depth[s.index()]);
        stack.push((b, lo as u32, order.len() as u32));
    };
    seen[entry.index()] = true;
    push(entry, &mut order, &mut stack);
    while let Some(&mut (b, ref mut next, end)) = stack.last_mut() {
        if *next < end {
            let s = order[*next as usize];
            *next += 1;
            if !seen[s.index()] {
                seen[s.index()] = true;
                push(s, &mut order, &mut stack);
            }
        } else {
            postorder.push(b);
            let (_, lo, _) = stack.pop().expect("frame");
            order.truncate(lo as usize);
        }
    }
    postorder.reverse();
    postorder
}

/// A set of positions in a visiting order that pops its earliest member:
/// the worklist of a solver that settles each loop before going on.
#[derive(Clone, Debug)]
pub struct Worklist {
    words: Vec<u64>,
    /// No member lies below it.
    low: usize,
}

impl Worklist {
    /// An empty set of positions `0..len`.
    pub fn new(len: usize) -> Self {
        Worklist {
            words: vec![0; len.div_ceil(64)],
            low: len,
        }
    }

    /// Adds position `i` (a no-op if it is a member).
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
        self.low = self.low.min(i);
    }

    /// Removes and returns the earliest member.
    pub fn pop_first(&mut self) -> Option<usize> {
        let mut w = self.low / 64;
        while w < self.words.len() {
            let word = self.words[w];
            if word != 0 {
                let i = w * 64 + word.trailing_zeros() as usize;
                self.words[w] &= word - 1;
                self.low = i + 1;
                return Some(i);
            }
            w += 1;
        }
        self.low = self.words.len() * 64;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Worklist;

    #[test]
    fn the_worklist_pops_the_earliest_member() {
        let mut pending = Worklist::new(200);
        for i in [150, 3, 64, 199, 65] {
            pending.insert(i);
        }
        assert_eq!(pending.pop_first(), Some(3));
        assert_eq!(pending.pop_first(), Some(64));
        // A member inserted behind the last one popped comes first again.
        pending.insert(10);
        assert_eq!(pending.pop_first(), Some(10));
        assert_eq!(pending.pop_first(), Some(65));
        assert_eq!(pending.pop_first(), Some(150));
        assert_eq!(pending.pop_first(), Some(199));
        assert_eq!(pending.pop_first(), None);
    }
}
