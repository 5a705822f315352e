//! Strategy selection on the abstract problem: exact, ILP or greedy, with
//! the count, a proven lower bound and the time taken.

use std::time::{Duration, Instant};

use kildall_cover::{Budget, SearchLimits};

use crate::exact::{solve_exact, solve_exact_memo};
use crate::greedy::{relocate, solve_greedy};
use crate::ilp::{solve_ilp, IlpStatus};
use crate::incremental::Incremental;
use crate::problem::{Problem, Violation};
use kildall_cover::ComponentMemo;

/// How reductions are placed.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Strategy {
    /// Branch and bound with the level dynamic program as bound (the default).
    #[default]
    Exact,
    /// The tutorial's integer linear program, corrected, on `good_lp`/`microlp`.
    Ilp,
    /// Reduce as late as possible.
    Greedy,
}

impl Strategy {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Exact => "exact",
            Strategy::Ilp => "ilp",
            Strategy::Greedy => "greedy",
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The time the ILP strategy may take when no time limit is given.
pub const ILP_TIME_LIMIT: Duration = Duration::from_secs(10);

/// A placement on the abstract problem.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Which nodes are reduced.
    pub reduced: Vec<bool>,
    /// The number of reductions.
    pub count: usize,
    /// Their cost (the count when every reduction costs 1).
    pub cost: u64,
    /// A proven lower bound on the cheapest placement's cost.
    pub lower_bound: u64,
    /// Whether the cost is proven optimal (`lower_bound == cost`).
    pub optimal: bool,
    /// Whether the search stopped before it closed (its budget or time
    /// limit ran out).
    pub stopped: bool,
    /// Branch-and-bound nodes the exact strategy explored (0 otherwise).
    pub search_nodes: u64,
    /// Wall-clock time.
    pub time: Duration,
}

/// Places reductions on `problem` with `strategy` within `limits`; `Err`
/// names a node no placement can make legal.
pub fn solve(
    problem: &Problem,
    strategy: Strategy,
    limits: &SearchLimits,
) -> Result<Solution, Violation> {
    solve_with(problem, strategy, limits, None)
}

/// [`solve`], where the exact strategy takes the components `memo` (if
/// given) holds from it and adds those that close.
pub(crate) fn solve_with(
    problem: &Problem,
    strategy: Strategy,
    limits: &SearchLimits,
    memo: Option<&mut ComponentMemo>,
) -> Result<Solution, Violation> {
    let start = Instant::now();
    // The greedy and the ILP report the exact strategy's root bound: its
    // presolve and reductions, no search.
    let root_only = SearchLimits::new(Budget::new(0, None));
    let infeasible = || {
        let all: Vec<bool> = problem.nodes().iter().map(|n| n.reducible).collect();
        problem
            .evaluate(&all)
            .1
            .expect("an infeasible problem has a violation")
    };
    let mut search_nodes = 0;
    let (reduced, lower_bound, stopped) = match strategy {
        Strategy::Exact => {
            let s = solve_exact_memo(problem, limits, memo)?;
            search_nodes = s.search_nodes;
            (s.reduced, s.lower_bound, !s.optimal)
        }
        Strategy::Greedy => {
            let mut reduced = solve_greedy(problem).ok_or_else(infeasible)?;
            relocate(problem, &mut reduced);
            // The greedy makes no optimality claim; the cheap root bound of
            // the exact strategy is reported alongside.
            let bound = solve_exact(problem, &root_only)?.lower_bound;
            (reduced, bound, false)
        }
        Strategy::Ilp => {
            let mut warm = solve_greedy(problem).ok_or_else(infeasible)?;
            relocate(problem, &mut warm);
            let bound = solve_exact(problem, &root_only)?.lower_bound;
            // The ILP, a cross-check, is bounded by time alone: the time
            // limit if given, otherwise `ILP_TIME_LIMIT`.
            let deadline = limits.budget.deadline();
            let left = deadline.map_or(ILP_TIME_LIMIT, |d| {
                d.saturating_duration_since(Instant::now())
            });
            let s = solve_ilp(problem, &warm, left);
            let cost = problem.cost_of(&s.reduced);
            match s.status {
                IlpStatus::Optimal => (s.reduced, cost, false),
                _ => (s.reduced, bound.min(cost), true),
            }
        }
    };
    let mut reduced = reduced;
    if strategy != Strategy::Greedy {
        hoist(problem, &mut reduced, &limits.budget);
    }
    let count = reduced.iter().filter(|&&r| r).count();
    let cost = problem.cost_of(&reduced);
    Ok(Solution {
        count,
        cost,
        lower_bound: lower_bound.min(cost),
        optimal: lower_bound >= cost,
        reduced,
        stopped,
        search_nodes,
        time: start.elapsed(),
    })
}

/// Among placements of the same cost, prefers reductions early: a reduction
/// moves to an input of the value it reduces, when that costs no more,
/// while the placement stays legal and the total noise drops (so `mul` then
/// `add`s reduces right after the `mul`, as the tutorial's answers do). Each
/// move lowers an integer sum, so the passes end: at that fixed point, or
/// after the first pass that ends past `deadline` (a large problem whose
/// search took all its time still gets one pass). A move is tried by
/// propagating the change forward only as far as the noise changes.
pub(crate) fn hoist(problem: &Problem, reduced: &mut [bool], budget: &Budget) {
    let nodes = problem.nodes();
    let encode = problem.params().encode;
    let Some(mut trial) = Incremental::new(problem, reduced) else {
        return;
    };
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..nodes.len() {
            if !reduced[v] {
                continue;
            }
            for &a in &nodes[v].inputs {
                if reduced[a] || !nodes[a].reducible || nodes[a].cost > nodes[v].cost {
                    continue;
                }
                if trial.noise()[a] > encode
                    && trial.try_change(reduced, &[(v, false), (a, true)], |delta| delta < 0)
                {
                    changed = true;
                    break;
                }
            }
        }
        if budget.exhausted() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::random_problem;

    /// Whether moving the reduction of `v` to its input `a` passes the
    /// hoisting rule, judged by evaluating the whole placement.
    fn move_passes(p: &Problem, reduced: &[bool], v: usize, a: usize) -> bool {
        let total = |noise: &[u32]| noise.iter().map(|&n| u64::from(n)).sum::<u64>();
        let before = total(&p.evaluate(reduced).0);
        let mut moved = reduced.to_vec();
        moved[v] = false;
        moved[a] = true;
        let (noise, violation) = p.evaluate(&moved);
        violation.is_none() && total(&noise) < before && noise[a] > p.params().encode
    }

    /// On random DAGs from random legal placements, hoisting keeps the
    /// placement legal and its cost, and ends where no move passes the rule
    /// under a full evaluation (the incremental trials agree with it).
    #[test]
    fn hoisting_ends_at_a_fixed_point_of_full_evaluation() {
        let mut rng = kildall_testkit::Rng::new(0x1405_7b7e_f767_814f);
        let mut moved = 0;
        for _ in 0..300 {
            let p = random_problem(&mut rng, 30, false);
            let mut reduced: Vec<bool> = (0..p.len()).map(|_| rng.below(2) == 0).collect();
            if !p.is_legal(&reduced) {
                reduced = p.nodes().iter().map(|n| n.reducible).collect();
            }
            let start = reduced.clone();
            let cost = p.cost_of(&reduced);
            hoist(&p, &mut reduced, &Budget::unlimited());
            assert!(p.is_legal(&reduced));
            assert_eq!(p.cost_of(&reduced), cost);
            moved += usize::from(reduced != start);
            for v in (0..p.len()).filter(|&v| reduced[v]) {
                for &a in &p.nodes()[v].inputs {
                    if !reduced[a] && p.nodes()[a].reducible {
                        assert!(!move_passes(&p, &reduced, v, a), "{v} -> {a}");
                    }
                }
            }
        }
        assert!(moved > 30, "only {moved} placements moved");
    }
}
