//! Fixing by reduced cost from the root relaxation's dual.
//!
//! For multipliers `y >= 0` on rows `a_i x >= b_i` that every cover
//! satisfies (witnesses and cuts), and element costs `c_j`, write `s_j =
//! (A^T y)_j`, `d_j = max(0, c_j - s_j)`, `w_j = max(0, s_j - c_j)` and
//! `L = b.y - sum_j w_j`. Every cover `z` then costs `c(z) >= L + sum_{j in
//! z} d_j + sum_{j not in z} w_j` (add `y_i (a_i z - b_i) >= 0` to `c(z)`).
//! With integer costs, a cover cheaper than the incumbent, of cost at most
//! `upper - 1`, therefore leaves out every `j` with `L + d_j > upper - 1`
//! and takes every `j` with `L + w_j > upper - 1`. The inequality holds for
//! any `y >= 0`, so the fixings are valid however the multipliers were
//! found; they are strong when `y` is the optimal dual, where `L` is the
//! relaxation's value; they are read off the root's optimal basis.

use super::hitting_set::EPS;

/// A row `sum coef * x >= rhs` over element indices.
pub(super) type Row = (Vec<(u32, f64)>, f64);

/// The elements every cover of cost at most `upper - 1` leaves out, and
/// those it takes, by the multipliers `y` of `rows` (integer `costs`).
pub(super) fn fixings(
    costs: &[f64],
    rows: &[Row],
    y: &[f64],
    upper: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut s = vec![0.0f64; costs.len()];
    let mut bound = 0.0;
    for ((terms, rhs), &yi) in rows.iter().zip(y) {
        if yi <= 0.0 {
            continue;
        }
        bound += rhs * yi;
        for &(x, c) in terms {
            s[x as usize] += c * yi;
        }
    }
    bound -= s
        .iter()
        .zip(costs)
        .map(|(&sj, &cj)| (sj - cj).max(0.0))
        .sum::<f64>();
    // Margins keep rounding errors on the safe side.
    let limit = upper as f64 - 1.0 + 10.0 * EPS;
    let mut out = Vec::new();
    let mut taken = Vec::new();
    for (j, (&sj, &cj)) in s.iter().zip(costs).enumerate() {
        if bound + (cj - sj) > limit {
            out.push(j);
        } else if bound + (sj - cj) > limit {
            taken.push(j);
        }
    }
    (out, taken)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cover::simplex::{Relaxation, Status};
    use std::time::Instant;

    /// On random instances, unit-cost and weighted, no fixing excludes an
    /// element of some cover of cost at most `upper - 1`, or leaves out an
    /// element it must take.
    #[test]
    fn fixings_keep_every_smaller_cover() {
        let mut rng = kildall_ir::generate::Rng::new(0x2c1b_3c6d_5f5e_4b3a);
        let mut next = move |bound: u64| rng.below(bound);
        let far = Instant::now() + std::time::Duration::from_secs(60);
        let mut fixed = 0;
        let mut node_fixed = 0;
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
            let mut relaxation = Relaxation::new(&costs, rows.clone());
            assert_eq!(relaxation.solve(far), Status::Optimal);
            let y = relaxation.duals();
            for upper in [optimum + 1, optimum + 2] {
                let (out, taken) = fixings(&costs, &rows, &y, upper);
                fixed += out.len() + taken.len();
                for &mask in covers.iter().filter(|&&m| cost_of(m) < upper) {
                    assert!(out.iter().all(|&j| mask >> j & 1 == 0), "{rows:?}");
                    assert!(taken.iter().all(|&j| mask >> j & 1 == 1), "{rows:?}");
                }
            }
            // The same at a search node: below a fixing, the node's own
            // fixings keep every cover of the node cheaper than `upper`.
            let (x, v) = (next(n as u64) as usize, next(2) as u32);
            let mut node = relaxation.clone();
            node.fix(x, f64::from(v));
            if node.solve(far) != Status::Optimal {
                continue;
            }
            let below: Vec<u32> = covers
                .iter()
                .copied()
                .filter(|&m| m >> x & 1 == v)
                .collect();
            for upper in [optimum + 1, optimum + 2] {
                let mut fixed_node = node.clone();
                node_fixed += fixed_node.fix_by_reduced_cost(upper);
                for &mask in below.iter().filter(|&&m| cost_of(m) < upper) {
                    for j in 0..n {
                        let (l, u) = fixed_node.bounds(j);
                        let taken = f64::from(mask >> j & 1);
                        assert!(l <= taken && taken <= u, "{rows:?} {x}={v} {j}");
                    }
                }
            }
        }
        assert!(fixed > 100, "only {fixed} fixings");
        assert!(node_fixed > 100, "only {node_fixed} fixings at nodes");
    }
}
