//! Witnesses: the minimal sets of values that, left unreduced, drive some
//! op over its bound, read off the transfer functions backwards.

use kildall_cover::{is_subset, Set};

use crate::problem::{NodeKind, Problem};

/// Witness sets of one problem, or `None` if there are more than the cap.
pub(crate) struct Witnesses {
    /// The minimal witnesses; an empty one means no placement is legal.
    pub sets: Vec<Set>,
}

/// Most witnesses kept for one demand, and in all (counting every partial
/// set the listing keeps). The total is fixed, not grown with the problem,
/// so that the listing's memory is bounded whatever the size: it takes the
/// generated DAGs of up to about 15,000 ops; larger ones take the search
/// on the DAG.
const CAP_PER_DEMAND: usize = 4_096;
const CAP_TOTAL: usize = 6_000_000;

struct Enumerator<'p> {
    p: &'p Problem,
    /// The element each reducible node stands for in the sets.
    element_of: &'p [u32],
    h: u32,
    /// Upper bound on each node's height (noise above the encoding noise)
    /// before its reduction: its noise when nothing is reduced, capped.
    hi: Vec<u32>,
    /// Memo of `pre(v, k)`, indexed `v * (h + 2) + k`.
    memo: Vec<Option<std::rc::Rc<Vec<Set>>>>,
    total: usize,
    overflow: bool,
}

impl Enumerator<'_> {
    /// Sets whose members, all unreduced, give `v` at least `k` bits above
    /// the encoding noise before `v`'s own reduction (`v` not included).
    fn pre(&mut self, v: usize, k: u32) -> std::rc::Rc<Vec<Set>> {
        if k == 0 {
            return std::rc::Rc::new(vec![Vec::new()]);
        }
        if k > self.hi[v] {
            return std::rc::Rc::new(Vec::new());
        }
        let slot = v * (self.h as usize + 2) + k as usize;
        if let Some(sets) = &self.memo[slot] {
            return sets.clone();
        }
        let e = self.p.params().encode;
        let node = &self.p.nodes()[v];
        let mut out: Vec<Set> = Vec::new();
        match node.kind {
            NodeKind::Source(c) => {
                if c - e >= k {
                    out.push(Vec::new());
                }
            }
            NodeKind::Add | NodeKind::Join => {
                let need = if node.kind == NodeKind::Add { k - 1 } else { k };
                for &a in &node.inputs.clone() {
                    let sets = self.eff(a, need);
                    out.extend(sets.iter().cloned());
                }
            }
            NodeKind::Scale(bits) => {
                if k <= bits {
                    out.push(Vec::new());
                } else {
                    let sets = self.eff(node.inputs[0], k - bits);
                    out.extend(sets.iter().cloned());
                }
            }
            NodeKind::Mul => {
                // Height of a product: e + ha + hb.
                if k <= e {
                    out.push(Vec::new());
                } else {
                    let rest = k - e;
                    let (a, b) = (node.inputs[0], node.inputs[1]);
                    for s in 0..=rest {
                        let left = self.eff(a, s);
                        if left.is_empty() {
                            continue;
                        }
                        let right = self.eff(b, rest - s);
                        for x in left.iter() {
                            for y in right.iter() {
                                out.push(union(x, y));
                                if out.len() > 4 * CAP_PER_DEMAND {
                                    self.overflow = true;
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
        minimize(&mut out);
        if out.len() > CAP_PER_DEMAND {
            self.overflow = true;
            out.truncate(CAP_PER_DEMAND);
        }
        self.total += out.len();
        if self.total > CAP_TOTAL {
            self.overflow = true;
        }
        let out = std::rc::Rc::new(out);
        self.memo[slot] = Some(out.clone());
        out
    }

    /// Like [`Self::pre`] for the noise `v`'s users see: `v` itself must be
    /// unreduced, so it joins every set (unless it may not be reduced).
    fn eff(&mut self, v: usize, k: u32) -> std::rc::Rc<Vec<Set>> {
        let pre = self.pre(v, k);
        if k == 0 || !self.p.nodes()[v].reducible {
            return pre;
        }
        let v = self.element_of[v];
        std::rc::Rc::new(
            pre.iter()
                .map(|s| {
                    let mut s = s.clone();
                    if let Err(i) = s.binary_search(&v) {
                        s.insert(i, v);
                    }
                    s
                })
                .collect(),
        )
    }
}

fn union(x: &[u32], y: &[u32]) -> Set {
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => {
                out.push(x[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(y[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(x[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&x[i..]);
    out.extend_from_slice(&y[j..]);
    out
}

/// Drops duplicates and sets that contain another set.
fn minimize(sets: &mut Vec<Set>) {
    sets.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    sets.dedup();
    if sets.len() > 512 {
        // Quadratic minimisation is too slow here; duplicates are gone and
        // supersets are harmless to the hitting-set solver, which drops them.
        return;
    }
    let mut kept: Vec<Set> = Vec::with_capacity(sets.len());
    for s in sets.drain(..) {
        if !kept.iter().any(|k| is_subset(k, &s)) {
            kept.push(s);
        }
    }
    *sets = kept;
}

/// The minimal witnesses of `problem`, or `None` when there are too many.
pub(crate) fn witnesses(problem: &Problem) -> Option<Witnesses> {
    let identity: Vec<u32> = (0..problem.len() as u32).collect();
    witnesses_over(problem, &identity)
}

/// The minimal witnesses of `problem` over the elements its reducible
/// nodes stand for (`element_of`, by node): nodes that stand for the same
/// element are reduced together, so a witness is the set of their
/// elements. Listing them so, rather than mapping the witnesses of the
/// nodes, keeps apart only the witnesses that differ in elements.
pub(crate) fn witnesses_over(problem: &Problem, element_of: &[u32]) -> Option<Witnesses> {
    let params = problem.params();
    let (e, m) = (params.encode, params.max);
    let h = m - e;
    let n = problem.len();
    let top = problem.evaluate(&vec![false; n]).0;
    let hi: Vec<u32> = top.iter().map(|&x| x.min(m + 1) - e).collect();
    let mut en = Enumerator {
        p: problem,
        element_of,
        h,
        hi,
        memo: vec![None; n * (h as usize + 2)],
        total: 0,
        overflow: false,
    };
    let mut sets = Vec::new();
    for v in 0..n {
        // Over the maximum before the reduction.
        let over = en.pre(v, h + 1);
        // Over the cap after it (only when unreduced).
        let cap = problem.nodes()[v].cap.min(m);
        let capped = if cap < m {
            en.eff(v, cap - e + 1).to_vec()
        } else {
            Vec::new()
        };
        for s in over.iter().chain(capped.iter()) {
            sets.push(s.clone());
        }
        if en.overflow {
            return None;
        }
    }
    Some(Witnesses { sets })
}
