//! Fixing by reduced cost, at the root and at every search node.
//!
//! For multipliers `y >= 0` on rows `a_i x >= b_i` that every cover
//! satisfies (sets and cuts), element costs `c_j` and the node's box
//! `l <= x <= u`, write `d_j = c_j - (A^T y)_j` and `L = b.y + sum_j min(d_j
//! l_j, d_j u_j)`, the Lagrangian bound. Every cover `z` of the node then
//! costs `c(z) >= L + sum_j |d_j| dist_j`, where `dist_j` is how far `z_j`
//! lies from the bound that attains the minimum (add `y_i (a_i z - b_i) >=
//! 0` to `c(z)`). With integer costs, a cover cheaper than the incumbent,
//! of cost at most `upper - 1`, therefore keeps every `j` with `L + |d_j|
//! (u_j - l_j) > upper - 1` at that bound. The inequality holds for any
//! `y >= 0`, so the fixings are valid however the multipliers were found;
//! they are strong when `y` is the optimal dual, where `L` is the
//! relaxation's value; they are read off the node's basis.

use super::hitting_set::EPS;
use super::simplex::Relaxation;

/// Fixes the elements of `sol` that every cover of its node cheaper than
/// `upper` keeps at their bound (integer costs), among those the point
/// already has there, so the point and the basis stay as they are. Returns
/// how many were fixed; none while the rows changed since the last solve.
pub(super) fn fix_by_reduced_cost(sol: &mut Relaxation, upper: usize) -> usize {
    let Some((reduced, bound)) = sol.reduced_costs() else {
        return 0;
    };
    let value = sol.point();
    // A margin keeps rounding errors on the safe side.
    let limit = upper as f64 - 1.0 + 10.0 * EPS;
    let mut fixed = 0;
    for (j, &d) in reduced.iter().enumerate() {
        let (l, u) = sol.bounds(j);
        if l == u || bound + d.abs() * (u - l) <= limit {
            continue;
        }
        if d > 0.0 && value[j] == l {
            sol.fix(j, l);
        } else if d < 0.0 && value[j] == u {
            sol.fix(j, u);
        } else {
            continue;
        }
        fixed += 1;
    }
    fixed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::simplex::{Row, Status};

    /// On random instances, unit-cost and weighted, no fixing at the root
    /// or below a first branching excludes a cover of the node that costs
    /// at most `upper - 1`.
    #[test]
    fn fixings_keep_every_smaller_cover() {
        let mut rng = kildall_testkit::Rng::new(0x2c1b_3c6d_5f5e_4b3a);
        let mut next = move |bound: u64| rng.below(bound);
        let far = &Budget::unlimited();
        let mut fixed = [0; 2];
        for round in 0..300 {
            let n = 6 + next(8) as usize;
            let costs: Vec<f64> = (0..n)
                .map(|_| {
                    if round % 2 == 0 {
                        1.0
                    } else {
                        (1 + next(4)) as f64
                    }
                })
                .collect();
            let cost_of = |mask: u32| -> usize {
                (0..n)
                    .filter(|&x| mask >> x & 1 == 1)
                    .map(|x| costs[x] as usize)
                    .sum()
            };
            let rows: Vec<Row> = (0..(4 + next(20)))
                .map(|_| {
                    let mut s: Vec<u32> =
                        (0..(2 + next(3))).map(|_| next(n as u64) as u32).collect();
                    s.sort_unstable();
                    s.dedup();
                    (s.into_iter().map(|x| (x, 1.0)).collect(), 1.0)
                })
                .collect();
            let covers: Vec<u32> = (0u32..1 << n)
                .filter(|mask| {
                    rows.iter()
                        .all(|(t, _)| t.iter().any(|&(x, _)| mask >> x & 1 == 1))
                })
                .collect();
            let optimum = covers.iter().map(|&m| cost_of(m)).min().unwrap();
            let mut root = Relaxation::new(&costs, rows.clone());
            assert_eq!(root.solve(far), Status::Optimal);
            let (x, v) = (next(n as u64) as usize, next(2) as u32);
            let mut node = root.clone();
            node.fix(x, f64::from(v));
            let nodes = [(root, None), (node, Some((x, v)))];
            for (depth, (sol, branch)) in nodes.into_iter().enumerate() {
                let mut sol = sol;
                if sol.solve(far) != Status::Optimal {
                    continue;
                }
                let in_node = |m: u32| branch.is_none_or(|(x, v)| m >> x & 1 == v);
                for upper in [optimum + 1, optimum + 2] {
                    let mut fixing = sol.clone();
                    fixed[depth] += fix_by_reduced_cost(&mut fixing, upper);
                    for &mask in covers.iter().filter(|&&m| in_node(m) && cost_of(m) < upper) {
                        for j in 0..n {
                            let (l, u) = fixing.bounds(j);
                            let taken = f64::from(mask >> j & 1);
                            assert!(l <= taken && taken <= u, "{rows:?} {branch:?} {j}");
                        }
                    }
                }
            }
        }
        assert!(fixed.iter().all(|&f| f > 100), "only {fixed:?} fixings");
    }
}
