//! Cutting planes for the linear relaxation of hitting set.
//!
//! The relaxation of "every set is hit" is weak where sets overlap
//! in odd patterns: three elements pairwise in a set of two cost 3/2 in
//! the relaxation but 2 in any cover. The classical remedy is the
//! {0,1/2}-Chvátal-Gomory cut (Caprara and Fischetti, "{0,1/2}-Chvátal-Gomory
//! cuts", Math. Prog. 1996): add an odd number `k` of covering constraints
//! `x(S_i) >= 1`, halve, and round up both sides (valid because `x >= 0`
//! and the left side is an integer at integer points):
//!
//! `sum_e ceil(c_e / 2) x_e >= (k + 1) / 2`, where `c_e` counts the `S_i`
//! holding `e`.
//!
//! At a relaxation optimum `x` the cut is violated by `(1 - W) / 2`, where
//! `W` is the total slack of the chosen constraints plus `x_e` for every `e`
//! of odd `c_e`. Separation follows the odd-cycle heuristic (Koster,
//! Zymolka and Kutschka, "Algorithms to separate {0,1/2}-Chvátal-Gomory
//! cuts", Algorithmica 2009): each constraint becomes an edge between two of
//! its positive elements (or one of them and a *ground* node standing for
//! none), weighted by its slack plus the values of its other elements (an
//! upper bound on what they add to `W`); a closed walk with an odd number of
//! edges leaves every node of even degree except the ground, so its weight
//! bounds `W`, and a walk lighter than 1 gives a violated cut. The lightest
//! odd closed walk through each fractional node is a shortest path between
//! its two copies in the bipartite double cover (Dijkstra, stopped after
//! [`SETTLED`] nodes, when the lightest walk found so far stands). Every
//! cut is rebuilt from its constraints and checked against `x` before it is
//! returned, so the bound never rests on the heuristic's accounting.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

/// A cut `sum coef * x >= rhs` over element indices (sorted by element).
pub(crate) struct Cut {
    /// `(element, coefficient)` pairs.
    pub terms: Vec<(u32, f64)>,
    /// Right-hand side.
    pub rhs: f64,
}

const EPS: f64 = 1e-6;

/// Candidate cuts gathered per cut returned.
const CANDIDATES: usize = 3;

/// Edges lighter than this can close a violated walk only with others.
const LIGHT: f64 = 1.0 - EPS;

/// Each search settles at most this many nodes. A light odd walk through a
/// node most often stays near it, while a search that runs on through the
/// whole graph (zero-weight edges make most of it lie within reach) costs
/// as much as the relaxation's re-solve and seldom finds more.
const SETTLED: usize = 150;

/// An `f64` ordered by `f64::total_cmp`, for heaps (distances here,
/// scores in the greedy cover).
#[derive(Copy, Clone, PartialEq)]
pub(crate) struct TotalF64(pub(crate) f64);
impl Eq for TotalF64 {}
impl PartialOrd for TotalF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TotalF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Violated {0,1/2}-cuts of the covering constraints `sets` (each over
/// `0..x.len()`) at the point `x`, most violated first, at most `limit`.
pub(crate) fn odd_cycle_cuts(sets: &[&[u32]], x: &[f64], limit: usize) -> Vec<Cut> {
    let graph = Graph::new(sets, x);
    let (elems, adj, ground) = (&graph.elems, &graph.adj, graph.ground);
    let m = ground + 1;
    let mut seen: HashSet<Vec<(u32, u32)>> = HashSet::new();
    let mut cuts: Vec<(f64, Cut)> = Vec::new();
    // Dijkstra state over the double cover: index 2 * node + parity.
    let mut dist = vec![f64::INFINITY; 2 * m];
    let mut pred: Vec<(u32, u32)> = vec![(u32::MAX, u32::MAX); 2 * m];
    let mut touched: Vec<usize> = Vec::new();
    let mut heap = BinaryHeap::new();
    let mut count = vec![0u32; x.len()];
    // Walks start at fractional elements only: a walk through integral
    // values alone pays a whole unit somewhere. Enough candidates end the
    // search early (the most violated are kept).
    // A node on a violated walk already found starts no walk of its own:
    // its lightest walk is most often the same one again.
    let mut on_walk = vec![false; m];
    for start in 0..ground {
        if adj[start].is_empty() || x[elems[start]] >= 1.0 - EPS || on_walk[start] {
            continue;
        }
        if cuts.len() >= CANDIDATES * limit {
            break;
        }
        for &t in &touched {
            dist[t] = f64::INFINITY;
            pred[t] = (u32::MAX, u32::MAX);
        }
        touched.clear();
        let source = 2 * start;
        let target = 2 * start + 1;
        dist[source] = 0.0;
        touched.push(source);
        heap.clear();
        heap.push(Reverse((TotalF64(0.0), source)));
        let mut settled = 0;
        while let Some(Reverse((TotalF64(d), u))) = heap.pop() {
            if d > dist[u] || u == target {
                if u == target {
                    break;
                }
                continue;
            }
            settled += 1;
            if settled > SETTLED {
                // The target's distance so far is still that of a walk.
                break;
            }
            let (un, up) = (u / 2, u % 2);
            for &(to, w, c) in &adj[un] {
                let v = 2 * to as usize + (1 - up);
                let nd = d + w;
                if nd < dist[v] && nd < LIGHT {
                    if dist[v].is_infinite() {
                        touched.push(v);
                    }
                    dist[v] = nd;
                    pred[v] = (u as u32, c);
                    heap.push(Reverse((TotalF64(nd), v)));
                }
            }
        }
        if dist[target] >= LIGHT {
            continue;
        }
        // The walk's constraints, from the predecessors.
        let mut walk = Vec::new();
        let mut at = target;
        while at != source {
            let (p, c) = pred[at];
            walk.push(c);
            at = p as usize;
            on_walk[at / 2] = true;
            if walk.len() > 2 * m {
                break; // a predecessor cycle cannot happen; stay safe
            }
        }
        if walk.len() % 2 == 0 {
            continue;
        }
        let (key, cut, violation) = rebuild(sets, x, &walk, &mut count);
        if violation > EPS && seen.insert(key) {
            cuts.push((violation, cut));
        }
    }
    cuts.sort_by(|a, b| b.0.total_cmp(&a.0));
    cuts.truncate(limit);
    cuts.into_iter().map(|(_, c)| c).collect()
}

/// The separation graph at `x`: a node per element of positive value and
/// a ground node, an edge per pair of positive elements of a constraint
/// (or one of them and the ground) lighter than [`LIGHT`], weighted as in
/// the module docs and labelled with its constraint.
struct Graph {
    /// The element of each node (the ground is `elems.len()`).
    elems: Vec<usize>,
    /// `(to, weight, constraint)` per node.
    adj: Vec<Vec<(u32, f64, u32)>>,
    ground: usize,
}

impl Graph {
    fn new(sets: &[&[u32]], x: &[f64]) -> Self {
        // Nodes: the elements with a positive value, then the ground.
        let mut node = vec![u32::MAX; x.len()];
        let mut elems = Vec::new();
        for (e, &v) in x.iter().enumerate() {
            if v > EPS {
                node[e] = elems.len() as u32;
                elems.push(e);
            }
        }
        let ground = elems.len();
        let m = ground + 1;
        // (to, weight, constraint)
        let mut adj: Vec<Vec<(u32, f64, u32)>> = vec![Vec::new(); m];
        for (i, set) in sets.iter().enumerate() {
            let total: f64 = set.iter().map(|&e| x[e as usize]).sum();
            let slack = (total - 1.0).max(0.0);
            if slack >= LIGHT {
                continue;
            }
            let pos: Vec<u32> = set
                .iter()
                .copied()
                .filter(|&e| x[e as usize] > EPS)
                .collect();
            for (j, &a) in pos.iter().enumerate() {
                let xa = x[a as usize];
                let na = node[a as usize];
                let w = (slack + total - xa).max(0.0);
                if w < LIGHT {
                    adj[na as usize].push((ground as u32, w, i as u32));
                    adj[ground].push((na, w, i as u32));
                }
                for &b in &pos[j + 1..] {
                    let w = (slack + total - xa - x[b as usize]).max(0.0);
                    if w < LIGHT {
                        let nb = node[b as usize];
                        adj[na as usize].push((nb, w, i as u32));
                        adj[nb as usize].push((na, w, i as u32));
                    }
                }
            }
        }
        Graph { elems, adj, ground }
    }
}

/// The cut of the constraints of `walk`, rebuilt from them and checked at
/// `x`: its key (terms with integer coefficients), the cut, and its
/// violation. `count` is zero on entry and left so.
fn rebuild(
    sets: &[&[u32]],
    x: &[f64],
    walk: &[u32],
    count: &mut [u32],
) -> (Vec<(u32, u32)>, Cut, f64) {
    let mut used = Vec::new();
    for &c in walk {
        for &e in sets[c as usize] {
            if count[e as usize] == 0 {
                used.push(e);
            }
            count[e as usize] += 1;
        }
    }
    used.sort_unstable();
    let mut key = Vec::with_capacity(used.len());
    let mut terms = Vec::with_capacity(used.len());
    let mut lhs = 0.0;
    for &e in &used {
        let coef = count[e as usize].div_ceil(2);
        count[e as usize] = 0;
        key.push((e, coef));
        terms.push((e, coef as f64));
        lhs += coef as f64 * x[e as usize];
    }
    let rhs = walk.len().div_ceil(2) as f64;
    let violation = rhs - lhs;
    (key, Cut { terms, rhs }, violation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_of_pairs_gives_the_rank_cut() {
        let sets: Vec<Vec<u32>> = vec![vec![0, 1], vec![1, 2], vec![0, 2]];
        let refs: Vec<&[u32]> = sets.iter().map(|s| s.as_slice()).collect();
        let cuts = odd_cycle_cuts(&refs, &[0.5, 0.5, 0.5], 10);
        assert_eq!(cuts.len(), 1);
        let cut = &cuts[0];
        assert_eq!(cut.rhs, 2.0);
        assert_eq!(cut.terms, vec![(0, 1.0), (1, 1.0), (2, 1.0)]);
    }

    /// The search from a node stays near it: a triangle of pairs is cut
    /// even inside a graph far larger than a search may settle (a long path
    /// of tight pairs at one half, all its edges of weight zero).
    #[test]
    fn a_triangle_inside_a_large_graph_is_cut() {
        let n = 3 + 10 * SETTLED;
        let mut sets: Vec<Vec<u32>> = (3..n as u32 - 1).map(|e| vec![e, e + 1]).collect();
        sets.push(vec![2, 3]);
        sets.extend([vec![0, 1], vec![1, 2], vec![0, 2]]);
        let refs: Vec<&[u32]> = sets.iter().map(|s| s.as_slice()).collect();
        let cuts = odd_cycle_cuts(&refs, &vec![0.5; n], 10);
        assert!(
            cuts.iter()
                .any(|c| c.rhs == 2.0 && c.terms == [(0, 1.0), (1, 1.0), (2, 1.0)]),
            "no rank cut of the triangle"
        );
    }

    #[test]
    fn integral_points_violate_nothing() {
        let sets: Vec<Vec<u32>> = vec![vec![0, 1], vec![1, 2], vec![0, 2], vec![2, 3, 4]];
        let refs: Vec<&[u32]> = sets.iter().map(|s| s.as_slice()).collect();
        assert!(odd_cycle_cuts(&refs, &[1.0, 0.0, 1.0, 0.0, 0.0], 10).is_empty());
    }

    /// Every cut found at a fractional point holds at every integral cover
    /// (brute force over small random instances).
    #[test]
    fn cuts_are_valid_for_every_cover() {
        let mut rng = kildall_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move |bound: u64| rng.below(bound);
        let mut found = 0;
        for _ in 0..300 {
            let n = 4 + next(5) as usize;
            let sets: Vec<Vec<u32>> = (0..(3 + next(8)))
                .map(|_| {
                    let mut s: Vec<u32> =
                        (0..(2 + next(2))).map(|_| next(n as u64) as u32).collect();
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect();
            let refs: Vec<&[u32]> = sets.iter().map(|s| s.as_slice()).collect();
            let x: Vec<f64> = (0..n)
                .map(|_| next(3) as f64 / 2.0)
                .map(|v| v.min(1.0))
                .collect();
            for cut in odd_cycle_cuts(&refs, &x, 20) {
                found += 1;
                for mask in 0u32..(1 << n) {
                    let covers = sets.iter().all(|s| s.iter().any(|&e| mask >> e & 1 == 1));
                    if covers {
                        let lhs: f64 = cut
                            .terms
                            .iter()
                            .map(|&(e, c)| c * f64::from(mask >> e & 1))
                            .sum();
                        assert!(lhs >= cut.rhs - 1e-9, "cut cuts off the cover {mask:b}");
                    }
                }
            }
        }
        assert!(found > 10, "the random points gave only {found} cuts");
    }
}
