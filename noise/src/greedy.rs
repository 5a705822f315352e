//! The greedy baseline of the noisy-arithmetic design: walk the values in order and reduce as
//! late as possible, that is, only when a value's user would otherwise
//! exceed the maximum (then the noisiest inputs are reduced first), or when
//! the value itself must leave with less noise (loop-carried values).

use crate::problem::Problem;

/// A legal placement by the greedy rule, or `None` when no placement is
/// legal (some node exceeds the maximum even with all its inputs reduced).
pub fn solve_greedy(problem: &Problem) -> Option<Vec<bool>> {
    let params = problem.params();
    let nodes = problem.nodes();
    let mut reduced = vec![false; nodes.len()];
    let mut noise = vec![0u32; nodes.len()];
    let mut eff = vec![0u32; nodes.len()];
    for v in 0..nodes.len() {
        loop {
            let n = problem.transfer(v, &eff);
            if n <= params.max {
                noise[v] = n;
                break;
            }
            // Reduce the noisiest input that a reduction lowers.
            let candidate = nodes[v]
                .inputs
                .iter()
                .copied()
                .filter(|&i| nodes[i].reducible && !reduced[i] && eff[i] > params.encode)
                .max_by_key(|&i| (eff[i], i))?;
            reduced[candidate] = true;
            eff[candidate] = params.encode;
        }
        eff[v] = noise[v];
        if eff[v] > nodes[v].cap {
            if !nodes[v].reducible || params.encode > nodes[v].cap {
                return None;
            }
            reduced[v] = true;
            eff[v] = params.encode;
        }
    }
    Some(reduced)
}

/// Drops reductions that a legal placement does not need, the dearest
/// first and then the latest (a cheap local improvement used on every
/// incumbent).
pub(crate) fn drop_redundant(problem: &Problem, reduced: &mut [bool], forced: &[bool]) {
    let mut order: Vec<usize> = (0..reduced.len()).rev().collect();
    order.sort_by_key(|&v| std::cmp::Reverse(problem.nodes()[v].cost));
    for v in order {
        if reduced[v] && !forced[v] {
            reduced[v] = false;
            if !problem.is_legal(reduced) {
                reduced[v] = true;
            }
        }
    }
}
