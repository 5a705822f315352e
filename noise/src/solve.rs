//! Strategy selection on the abstract problem: exact, ILP or greedy, with
//! the count, a proven lower bound and the time taken.

use std::time::{Duration, Instant};

use crate::exact::solve_exact;
use crate::greedy::{relocate, solve_greedy};
use crate::ilp::{solve_ilp, IlpStatus};
use crate::problem::{Problem, Violation};

/// How reductions are placed.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Strategy {
    /// Branch and bound with the level dynamic program as bound (the default).
    #[default]
    Exact,
    /// The design's integer linear program, corrected, on `good_lp`/`microlp`.
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
    /// Whether the strategy's time limit expired.
    pub timed_out: bool,
    /// Branch-and-bound nodes the exact strategy explored (0 otherwise).
    pub search_nodes: u64,
    /// Wall-clock time.
    pub time: Duration,
}

/// Places reductions on `problem` with `strategy` within `time_limit`; `Err`
/// names a node no placement can make legal.
pub fn solve(
    problem: &Problem,
    strategy: Strategy,
    time_limit: Duration,
) -> Result<Solution, Violation> {
    let start = Instant::now();
    let deadline = start + time_limit;
    let infeasible = || {
        let all: Vec<bool> = problem.nodes().iter().map(|n| n.reducible).collect();
        problem
            .evaluate(&all)
            .1
            .expect("an infeasible problem has a violation")
    };
    let mut search_nodes = 0;
    let (reduced, lower_bound, timed_out) = match strategy {
        Strategy::Exact => {
            let s = solve_exact(problem, deadline)?;
            let timed_out = !s.optimal;
            search_nodes = s.search_nodes;
            (s.reduced, s.lower_bound, timed_out)
        }
        Strategy::Greedy => {
            let mut reduced = solve_greedy(problem).ok_or_else(infeasible)?;
            relocate(problem, &mut reduced);
            // The greedy makes no optimality claim; the cheap root bound of
            // the exact strategy is reported alongside.
            let bound = solve_exact(problem, start)?.lower_bound;
            (reduced, bound, false)
        }
        Strategy::Ilp => {
            let mut warm = solve_greedy(problem).ok_or_else(infeasible)?;
            relocate(problem, &mut warm);
            let bound = solve_exact(problem, start)?.lower_bound;
            let s = solve_ilp(problem, &warm, time_limit);
            let cost = problem.cost_of(&s.reduced);
            match s.status {
                IlpStatus::Optimal => (s.reduced, cost, false),
                _ => (s.reduced, bound.min(cost), true),
            }
        }
    };
    let mut reduced = reduced;
    if strategy != Strategy::Greedy {
        hoist(problem, &mut reduced);
    }
    let count = reduced.iter().filter(|&&r| r).count();
    let cost = problem.cost_of(&reduced);
    Ok(Solution {
        count,
        cost,
        lower_bound: lower_bound.min(cost),
        optimal: lower_bound >= cost,
        reduced,
        timed_out,
        search_nodes,
        time: start.elapsed(),
    })
}

/// Among placements of the same cost, prefers reductions early: a reduction
/// moves to an input of the value it reduces, when that costs no more,
/// while the placement stays legal and the total noise drops (so `mul` then
/// `add`s reduces right after the `mul`, as the design's answers do). Each
/// move lowers an integer sum, so the loop ends.
fn hoist(problem: &Problem, reduced: &mut [bool]) {
    let nodes = problem.nodes();
    let encode = problem.params().encode;
    let total = |noise: &[u32]| noise.iter().map(|&n| u64::from(n)).sum::<u64>();
    let (noise, _) = problem.evaluate(reduced);
    let mut current = total(&noise);
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
                reduced[v] = false;
                reduced[a] = true;
                let (noise, violation) = problem.evaluate(reduced);
                let sum = total(&noise);
                if violation.is_none() && sum < current && noise[a] > encode {
                    current = sum;
                    changed = true;
                    break;
                }
                reduced[v] = true;
                reduced[a] = false;
            }
        }
    }
}
