//! A weighted covering solver: the cheapest subset of elements that hits
//! every given set (minimum-cost hitting set, equivalently set covering
//! with the roles of elements and sets exchanged), proven optimal or with
//! a proven lower bound.
//!
//! An instance is a [`HittingSet`]: `elements` elements `0..elements`, each
//! costing 1 or its integer weight, and sets over them (sorted, non-empty).
//! [`min_hitting_set`] returns a [`Cover`]: the chosen elements, a lower
//! bound that holds whatever the floating point did, and whether the search
//! proved the cover optimal. It knows nothing of where the sets come from.
//!
//! **Reductions.** The classical reduction rules of hitting set (Weihe,
//! "Covering trains by stations or the power of data reduction", ALEX
//! 1998): a set of one element forces it, a set that contains another is
//! dropped, and an element whose sets all contain some other element (no
//! dearer) is dominated by it and never taken. They run from worklists to
//! their fixed point, and the reduced instance splits into connected
//! components, each solved on its own.
//!
//! **Upper bounds.** Each component starts from a greedy cover improved by
//! the row weighting local search of set covering (Gao, Weise and Li,
//! "An efficient local search heuristic with row weighting for the unicost
//! set covering problem", EJOR 2015; the `local_search` module: swaps below
//! the best cover, weights on the sets left unhit, scores per unit of cost).
//!
//! **Lower bounds and search.** Small unit-cost components get a
//! combinatorial branch and bound (branch on the element the Lagrangian
//! bound most wants: take it, or never) with a bound from pairwise disjoint
//! sets and a Lagrangian bound by subgradient ascent, reducing again at
//! every search node. Large ones, weighted ones, and small ones that do not
//! close in their share of the effort get a branch and bound on the linear
//! relaxation: row generation (long sets join the relaxation only when
//! violated; every change is re-solved by a bounded dual simplex from the
//! last basis, the `simplex` module), {0,1/2}-Chvátal-Gomory cuts from odd
//! cycles at the root and the nodes near it (the `cuts` module), fixing by
//! reduced cost at every node (the `reduced_cost` module), rounding and
//! reliability branching (Achterberg, Koch and Martin, "Branching rules
//! revisited", OR Letters 2005: strong branching until pseudocosts take
//! over), each re-solve stopped once its bound passes the incumbent. The
//! reductions preserve at least one optimum, so the optimum of the instance
//! is proven when every component's search closes; otherwise the sum of the
//! components' bounds is reported, each the least bound of the subtrees its
//! search left open.
//!
//! **Weights.** Where elements cost differently the reduction rules keep
//! their form (free elements are taken, an element is dominated only by one
//! no dearer), a weighted greedy gives the first cover, and every component
//! goes to the branch and bound on the relaxation with the costs as its
//! objective (integers, so bounds still round up).
#![deny(missing_docs)]

mod budget;
mod combinatorial;
mod cuts;
mod hitting_set;
mod instance;
mod local_search;
mod lp_branch;
mod memo;
mod reduced_cost;
mod set;
mod simplex;

pub use budget::{Budget, Stop};
pub use hitting_set::{min_hitting_set, Cover, HittingSet, Progress, ProgressHook, SearchLimits};
pub use memo::ComponentMemo;
pub use set::{is_subset, Set};

/// The README's example, run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::budget::Budget;
    use super::hitting_set::{Solver, COMBINATORIAL_FIRST};
    use super::instance::Instance;
    use super::lp_branch::lp_root;
    use super::memo::ComponentMemo;
    use super::set::Set;

    /// The whole solver on `sets` over `0..n`, components of at most
    /// `small` elements searched combinatorially first, on two threads.
    fn solve(
        n: usize,
        sets: Vec<Set>,
        weights: Option<Vec<u64>>,
        small: usize,
        memo: Option<&mut ComponentMemo>,
    ) -> super::Cover {
        let inst = Instance::new((0..n).collect(), sets, None, weights.map(Arc::from));
        let limits = super::SearchLimits {
            threads: 2,
            ..super::SearchLimits::new(Budget::unlimited())
        };
        super::hitting_set::min_hitting_set_with(inst, &limits, small, memo)
    }

    fn covers(sets: &[Set], chosen: &[usize]) -> bool {
        sets.iter()
            .all(|s| s.iter().any(|&x| chosen.contains(&(x as usize))))
    }

    /// The fewest elements hitting every set, by enumeration.
    fn brute_force(n: usize, sets: &[Set]) -> usize {
        (0u32..1 << n)
            .filter(|mask| sets.iter().all(|s| s.iter().any(|&x| mask >> x & 1 == 1)))
            .map(|mask| mask.count_ones() as usize)
            .min()
            .expect("every element taken hits every set")
    }

    fn random_instances() -> Vec<(usize, Vec<Set>)> {
        let mut rng = kildall_testkit::Rng::new(0x853c_49e6_748f_ea9b);
        let mut next = move |bound: u64| rng.below(bound);
        (0..120)
            .map(|_| {
                let n = 6 + next(9) as usize;
                let sets = (0..(4 + next(24)))
                    .map(|_| {
                        let mut s: Set =
                            (0..(2 + next(3))).map(|_| next(n as u64) as u32).collect();
                        s.sort_unstable();
                        s.dedup();
                        s
                    })
                    .collect();
                (n, sets)
            })
            .collect()
    }

    /// The root bound, the cover and the search nodes of the LP branch and
    /// bound on `sets`, started from the cover of every element.
    fn lp_from_worst_cover(n: usize, sets: Vec<Set>) -> (usize, Vec<usize>, u64) {
        let inst = Instance::new((0..n).collect(), sets, None, None);
        let mut best: Vec<usize> = (0..n).collect();
        let mut solver = Solver::new(Budget::unlimited(), 2);
        let lp = lp_root(&inst, best.len(), &solver.budget).expect("relaxation solved");
        let root = lp.bound;
        let searched = lp.search(&mut best, &mut solver);
        assert!(!solver.stopped);
        // A search that completes proves its cover optimal.
        assert!(searched >= best.len(), "search bound {searched}");
        (root, best, solver.nodes)
    }

    /// The LP branch and bound (row generation, cuts, lazy sets)
    /// started from the worst cover ends at the optimum, and its root bound
    /// never exceeds it.
    #[test]
    fn lp_search_matches_enumeration() {
        for (n, sets) in random_instances() {
            let optimum = brute_force(n, &sets);
            let (root, best, _) = lp_from_worst_cover(n, sets.clone());
            assert!(
                root <= optimum,
                "root bound {root} over the optimum {optimum}"
            );
            assert!(covers(&sets, &best));
            assert_eq!(best.len(), optimum, "{sets:?}");
        }
    }

    /// The whole solver (reductions, components, local search, searches),
    /// with small components searched as small and as large ones are (the
    /// local search beside the root relaxation; on these instances the
    /// root closes, and the branching below it is checked by
    /// `lp_search_matches_enumeration`).
    #[test]
    fn min_hitting_set_matches_enumeration() {
        for (n, sets) in random_instances() {
            let optimum = brute_force(n, &sets);
            for small in [COMBINATORIAL_FIRST, 0] {
                let cover = solve(n, sets.clone(), None, small, None);
                assert!(cover.optimal);
                assert!(covers(&sets, &cover.chosen));
                assert_eq!(cover.chosen.len(), optimum, "{sets:?}");
                assert_eq!(cover.lower_bound, optimum);
            }
        }
    }

    /// The reductions keep an optimum: what they force plus the optimum of
    /// what is left is the optimum of the instance. At their fixed point
    /// no live set contains another, no live set is a singleton, and no
    /// element is dominated.
    #[test]
    fn reductions_keep_the_optimum_and_reach_their_fixed_point() {
        let mut reduced_some = 0;
        for (n, sets) in random_instances() {
            let optimum = brute_force(n, &sets);
            let mut inst = Instance::new((0..n).collect(), sets.clone(), None, None);
            let mut chosen = Vec::new();
            assert!(inst.reduce(&mut chosen));
            let live: Vec<Set> = (0..inst.sets.len())
                .filter(|&s| inst.alive[s])
                .map(|s| inst.sets[s].clone())
                .collect();
            reduced_some += usize::from(live.len() < sets.len());
            assert_eq!(chosen.len() + brute_force(n, &live), optimum, "{sets:?}");
            for (i, a) in live.iter().enumerate() {
                assert!(a.len() >= 2, "{sets:?}");
                for (j, b) in live.iter().enumerate() {
                    assert!(i == j || !super::set::is_subset(a, b), "{sets:?}");
                }
            }
            let degree = |x: u32| live.iter().filter(|s| s.contains(&x)).count();
            for x in 0..n as u32 {
                let of_x: Vec<&Set> = live.iter().filter(|s| s.contains(&x)).collect();
                for y in (0..n as u32).filter(|&y| y != x && !of_x.is_empty()) {
                    let dominates =
                        of_x.iter().all(|s| s.contains(&y)) && (degree(y) > degree(x) || y < x);
                    assert!(!dominates, "{x} dominated by {y} in {sets:?}");
                }
            }
        }
        assert!(reduced_some > 60, "only {reduced_some} instances reduced");
    }

    /// A memo filled by one instance serves the next, which shares some of
    /// its components and changes others (one more set): the answers stay
    /// optimal, and an instance met again is not searched at all.
    #[test]
    fn memo_carries_identical_components_only() {
        let mut rng = kildall_testkit::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut reused = 0;
        for (n, sets) in random_instances() {
            let mut memo = ComponentMemo::default();
            let first = solve(n, sets.clone(), None, 0, Some(&mut memo));
            assert_eq!(first.chosen.len(), brute_force(n, &sets));
            let hits = memo.hits();
            let again = solve(n, sets.clone(), None, 0, Some(&mut memo));
            assert_eq!(again.chosen.len(), first.chosen.len());
            assert_eq!(memo.hits() - hits, again.components);
            let hits = memo.hits();
            let mut changed = sets.clone();
            let mut extra: Set = (0..2).map(|_| rng.below(n as u64) as u32).collect();
            extra.sort_unstable();
            extra.dedup();
            changed.push(extra);
            let optimum = brute_force(n, &changed);
            let cover = solve(n, changed.clone(), None, 0, Some(&mut memo));
            assert!(cover.optimal);
            assert!(covers(&changed, &cover.chosen));
            assert_eq!(cover.chosen.len(), optimum, "{changed:?}");
            assert_eq!(cover.lower_bound, optimum);
            reused += usize::from(memo.hits() > hits);
        }
        assert!(reused > 10, "only {reused} instances reused a component");
    }

    /// Instances the root does not close: the search branches (on a second
    /// thread too: the root's two subtrees) and still ends at the
    /// optimum.
    #[test]
    fn lp_search_branches_to_the_optimum() {
        let mut rng = kildall_testkit::Rng::new(0x5851_f42d_4c95_7f2d);
        let mut branched = 0;
        for _ in 0..6 {
            let n = 20;
            let sets: Vec<Set> = (0..70)
                .map(|_| {
                    let mut s: Set = (0..3).map(|_| rng.below(n as u64) as u32).collect();
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect();
            let optimum = brute_force(n, &sets);
            let (_, best, nodes) = lp_from_worst_cover(n, sets.clone());
            assert!(covers(&sets, &best));
            assert_eq!(best.len(), optimum, "{sets:?}");
            branched += usize::from(nodes > 1);
        }
        assert!(branched >= 2, "only {branched} searches branched");
    }

    /// The cheapest weight of a hitting set, by enumeration.
    fn brute_force_weighted(n: usize, sets: &[Set], weights: &[u64]) -> u64 {
        (0u32..1 << n)
            .filter(|mask| sets.iter().all(|s| s.iter().any(|&x| mask >> x & 1 == 1)))
            .map(|mask| {
                (0..n)
                    .filter(|&x| mask >> x & 1 == 1)
                    .map(|x| weights[x])
                    .sum()
            })
            .min()
            .expect("every element taken hits every set")
    }

    /// With weights (free elements among them), the solver's cover is a
    /// cheapest one and its bound meets it, with and without the local
    /// search beside the root relaxation (components of more than `small`
    /// elements get it).
    #[test]
    fn weighted_hitting_set_matches_enumeration() {
        let mut rng = kildall_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        for (n, sets) in random_instances() {
            let weights: Vec<u64> = (0..n)
                .map(|_| [0, 1, 1, 2, 3, 7][rng.below(6) as usize])
                .collect();
            let optimum = brute_force_weighted(n, &sets, &weights);
            for small in [COMBINATORIAL_FIRST, 0] {
                let cover = solve(n, sets.clone(), Some(weights.clone()), small, None);
                assert!(cover.optimal);
                assert!(covers(&sets, &cover.chosen));
                let cost: u64 = cover.chosen.iter().map(|&x| weights[x]).sum();
                assert_eq!(cost, optimum, "{sets:?} {weights:?}");
                assert_eq!(cover.lower_bound as u64, optimum);
            }
        }
    }

    /// A five-cycle of pairs: the relaxation alone gives 5/2, the odd-cycle
    /// cut raises the root bound to the optimum, 3.
    #[test]
    fn odd_cycle_cut_closes_the_five_cycle() {
        let sets: Vec<Set> = (0..5u32)
            .map(|i| {
                let mut s = vec![i, (i + 1) % 5];
                s.sort_unstable();
                s
            })
            .collect();
        let (root, best, _) = lp_from_worst_cover(5, sets);
        assert_eq!((root, best.len()), (3, 3));
    }
}
