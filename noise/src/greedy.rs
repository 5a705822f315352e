//! The greedy baseline of the MLIR tutorial's noisy dialect: walk the values in order and reduce as
//! late as possible, that is, only when a value's user would otherwise
//! exceed the maximum (then the noisiest inputs are reduced first), or when
//! the value itself must leave with less noise (loop-carried values).

use crate::incremental::Incremental;
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
    let Some(mut trial) = Incremental::new(problem, reduced) else {
        return;
    };
    let mut order: Vec<usize> = (0..reduced.len()).rev().collect();
    order.sort_by_key(|&v| std::cmp::Reverse(problem.nodes()[v].cost));
    for v in order {
        if reduced[v] && !forced[v] {
            trial.try_change(reduced, &[(v, false)], |_| true);
        }
    }
}

/// Where reductions cost differently, moves a reduction onto the inputs of
/// the value it reduces when they cost no more together and the placement
/// stays legal (step by step out of a loop onto the values from before it,
/// say): the greedy's way to the chosen cost, and the ILP's warm start.
/// Each move replaces a reduced value by earlier ones, so the passes end.
pub(crate) fn relocate(problem: &Problem, reduced: &mut [bool]) {
    if problem.uniform_cost().is_some() {
        return;
    }
    let Some(mut trial) = Incremental::new(problem, reduced) else {
        return;
    };
    let nodes = problem.nodes();
    let encode = problem.params().encode;
    let mut changed = true;
    let mut moves = Vec::new();
    while changed {
        changed = false;
        for v in (0..nodes.len()).rev() {
            if !reduced[v] {
                continue;
            }
            moves.clear();
            moves.push((v, false));
            let noise = trial.noise();
            moves.extend(
                nodes[v]
                    .inputs
                    .iter()
                    .filter(|&&a| !reduced[a] && nodes[a].reducible && noise[a] > encode)
                    .map(|&a| (a, true)),
            );
            let moved: u64 = moves[1..].iter().map(|&(a, _)| nodes[a].cost).sum();
            if moves.len() == 1 || moved > nodes[v].cost {
                continue;
            }
            changed |= trial.try_change(reduced, &moves, |_| true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::random_problem;

    /// Dropping, judged by propagating each change, ends where a full
    /// evaluation agrees: legal, and no reduction left can go.
    #[test]
    fn dropping_ends_where_no_reduction_can_go() {
        let mut rng = kildall_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut dropped = 0;
        for _ in 0..300 {
            let p = random_problem(&mut rng, 40, false);
            let mut reduced: Vec<bool> = p.nodes().iter().map(|n| n.reducible).collect();
            if !p.is_legal(&reduced) {
                continue;
            }
            let before = p.cost_of(&reduced);
            drop_redundant(&p, &mut reduced, &vec![false; p.len()]);
            assert!(p.is_legal(&reduced));
            dropped += usize::from(p.cost_of(&reduced) < before);
            for v in (0..p.len()).filter(|&v| reduced[v]) {
                let mut without = reduced.clone();
                without[v] = false;
                assert!(!p.is_legal(&without), "reduction of {v} left");
            }
        }
        assert!(dropped > 200, "only {dropped} placements shrank");
    }

    /// Relocating keeps a legal placement legal and never dearer, and moves
    /// some reductions.
    #[test]
    fn relocating_stays_legal_and_no_dearer() {
        let mut rng = kildall_testkit::Rng::new(0xbf58_476d_1ce4_e5b9);
        let mut moved = 0;
        for _ in 0..300 {
            let p = random_problem(&mut rng, 40, true);
            let Some(mut reduced) = solve_greedy(&p) else {
                continue;
            };
            let (start, before) = (reduced.clone(), p.cost_of(&reduced));
            relocate(&p, &mut reduced);
            assert!(p.is_legal(&reduced));
            assert!(p.cost_of(&reduced) <= before);
            moved += usize::from(reduced != start);
        }
        assert!(moved > 20, "only {moved} placements moved");
    }
}
