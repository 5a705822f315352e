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

/// Where reductions cost differently, moves a reduction onto the inputs of
/// the value it reduces when they cost no more together and the placement
/// stays legal (step by step out of a loop onto the values from before it,
/// say): the greedy's way to the chosen cost, and the ILP's warm start.
/// Each move replaces a reduced value by earlier ones, so the loop ends.
pub(crate) fn relocate(problem: &Problem, reduced: &mut [bool]) {
    if problem.uniform_cost().is_some() {
        return;
    }
    let nodes = problem.nodes();
    let encode = problem.params().encode;
    let mut changed = true;
    while changed {
        changed = false;
        let (noise, _) = problem.evaluate(reduced);
        for v in (0..nodes.len()).rev() {
            if !reduced[v] {
                continue;
            }
            let inputs: Vec<usize> = nodes[v]
                .inputs
                .iter()
                .copied()
                .filter(|&a| !reduced[a] && nodes[a].reducible && noise[a] > encode)
                .collect();
            let moved: u64 = inputs.iter().map(|&a| nodes[a].cost).sum();
            if inputs.is_empty() || moved > nodes[v].cost {
                continue;
            }
            reduced[v] = false;
            inputs.iter().for_each(|&a| reduced[a] = true);
            if problem.is_legal(reduced) {
                changed = true;
                break;
            }
            reduced[v] = true;
            inputs.iter().for_each(|&a| reduced[a] = false);
        }
    }
}
