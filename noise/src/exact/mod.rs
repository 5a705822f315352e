//! The exact strategy.
//!
//! **Main path: minimum hitting set.** The problem is first restated as a
//! minimum hitting set of *witnesses* (sets of values that, left unreduced,
//! already break a bound; the `witness` module) and solved by `kildall-cover`: the
//! classical reduction rules of hitting set, connected components, a local
//! search for a good first placement, and per large component a branch and
//! bound on the linear relaxation, grown by row generation, tightened at
//! the root and the nodes near it by {0,1/2}-cuts and searched below it by
//! fixing by reduced cost and reliability branching (dual simplex re-solves
//! after each cut and fixing; the root drops its slack rows now and then);
//! the local search runs beside the root relaxation, and the two subtrees
//! of the root's branching are searched apart, each with half the effort,
//! on two threads when the search may use them (the same work either
//! way, so the placement does not depend on the threads).
//!
//! Reductions that cost differently (the executions cost on a function
//! with loops) make it a *weighted* hitting set, solved by the same
//! reductions (an element is dominated only by one no dearer) and the same
//! branch and bound on the relaxation with the costs as its objective,
//! beside the local search, which compares values by their score per unit
//! of cost; the combinatorial search, which counts elements, is left to
//! unit costs. Costs are divided by their common factor first;
//! where their total still passes 2^32 (loops of huge trip counts), the
//! fallback below takes them, since the relaxation's double-precision
//! objective would no longer round to the right integer.
//!
//! **Fallback: level DP bound.** When the witnesses are too many to list
//! (long chains of `add`s under parameters with a wide noise range), a
//! branch and bound on the DAG itself runs instead.
//! On an expression *tree* the fewest reductions follow from a
//! dynamic program over the `max - encode + 1` noise levels: `H_v(l)`, the
//! fewest reductions in the subtree of `v` such that `v` leaves with at most
//! `l` bits, combines the inputs' tables (an `add` needs both inputs at
//! `l - 1`, a `mul` splits `l` between its inputs, a join needs `l` from
//! each) and takes the better of keeping `v` or reducing it. A DAG is the
//! tree it unfolds to with shared values duplicated; letting each copy decide
//! alone relaxes the problem, and charging a value used `k` times `1/k` per
//! use keeps the relaxation's cost of any consistent placement equal to its
//! reduction count. The unfolded tree is never built: the charge of a copy
//! scales its whole table, so one table per value suffices and the bound
//! costs `O(n * levels^2)`. This is the classical splitting (Lagrangian)
//! relaxation of the consistency constraints, with uniform multipliers.
//!
//! **Search.** Legality is monotone in the set of reduced values, so any
//! violation yields a *core*: the free values in the unreduced cone of the
//! violating op, of which every legal completion reduces at least one (a
//! minimal core is found by reducing everything else and dropping members
//! while the violation persists). Nodes branch on cores ("reduce `c_i`, keep
//! `c_1 .. c_{i-1}`"), as implicit hitting-set solvers do (Davies and
//! Bacchus, "Solving MAXSAT by Solving a Sequence of Simpler SAT Instances",
//! CP 2011), or, when the relaxation's placement is legal but costs more
//! than the bound, on a value whose copies disagree.
//!
//! **Presolve and decomposition.** (Both paths share the presolve's
//! infeasibility check.) Values whose reduction cannot lower any
//! noise are kept; values that no placement can leave unreduced (a `mul`
//! result feeding a `mul` under the default parameters) are reduced. A
//! reduced value hides its ancestors from its users, so the problem splits
//! into independent components joined only through reduced values, each
//! searched on its own with its own bound. A value whose effective noise no
//! decision can change (a fresh encoding, say) couples nothing: its users
//! see a constant.

use kildall_cover::SearchLimits;

use crate::greedy::relocate;
use crate::problem::{NodeKind, Problem, Violation};
use kildall_cover::ComponentMemo;

mod search;

use search::Search;

/// What the search has decided for a value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Fix {
    Free,
    Reduce,
    Keep,
}

pub(super) const INF: f64 = f64::INFINITY;
pub(super) const EPS: f64 = 1e-7;
/// Rounds of multiplier ascent at the root of each component.
pub(super) const ASCENT_ROUNDS: usize = 30;
/// The largest total of the weighted hitting set's weights: its relaxation
/// rounds bounds up to integers, which needs the objective exact to well
/// within 1 in double precision.
const MAX_WEIGHT_TOTAL: u64 = 1 << 32;

/// The outcome of the exact strategy.
#[derive(Clone, Debug)]
pub struct ExactSolution {
    /// The placement found (legal).
    pub reduced: Vec<bool>,
    /// A proven lower bound on the cheapest placement's cost.
    pub lower_bound: u64,
    /// Whether the search completed (then `lower_bound` equals the cost).
    pub optimal: bool,
    /// Branch-and-bound nodes explored, over all components.
    pub search_nodes: u64,
    /// Independent components searched.
    pub components: usize,
}

/// Solves `problem` exactly unless `limits` run out first; `Err` names a
/// node that exceeds its bound whatever is reduced.
pub fn solve_exact(problem: &Problem, limits: &SearchLimits) -> Result<ExactSolution, Violation> {
    solve_exact_with(problem, limits, true, None)
}

/// [`solve_exact`], taking the components of the hitting-set instance that
/// `memo` (if given) holds from it, and adding those that close.
pub(crate) fn solve_exact_memo(
    problem: &Problem,
    limits: &SearchLimits,
    memo: Option<&mut ComponentMemo>,
) -> Result<ExactSolution, Violation> {
    solve_exact_with(problem, limits, true, memo)
}

/// The cost of every value's reduction divided by their greatest common
/// divisor, and that divisor; `None` when the weights would be too large
/// for the relaxation of the weighted hitting set to add them exactly.
pub(crate) fn hitting_set_weights(problem: &Problem) -> Option<(Vec<u64>, u64)> {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let nodes = problem.nodes();
    let g = nodes
        .iter()
        .filter(|node| node.reducible)
        .fold(0, |g, node| gcd(g, node.cost))
        .max(1);
    let weights: Vec<u64> = nodes.iter().map(|node| node.cost / g).collect();
    let total = weights.iter().try_fold(0u64, |t, &w| t.checked_add(w))?;
    (total <= MAX_WEIGHT_TOTAL).then_some((weights, g))
}

/// [`solve_exact`], with the hitting-set path turned off when `cover` is
/// false (so that tests reach the fallback).
fn solve_exact_with(
    problem: &Problem,
    limits: &SearchLimits,
    cover: bool,
    mut memo: Option<&mut ComponentMemo>,
) -> Result<ExactSolution, Violation> {
    let n = problem.len();
    let nodes = problem.nodes();
    let Presolve {
        mut fix,
        lo,
        lo_eff,
    } = presolve(problem)?;
    if cover {
        if let Some(solution) = solve_as_hitting_set(problem, limits, memo.as_deref_mut()) {
            return Ok(solution);
        }
    }
    // Where the witnesses are too many to list, the branch and bound below
    // takes over. When reductions cost differently it is given, within
    // half the time, the fewest reductions: moved onto cheaper values where
    // legal, a first placement; and times the least cost of a reduction, a
    // lower bound.
    let (hint, floor) = if cover && problem.uniform_cost().is_none() {
        fewest_reductions(problem, limits, memo)
    } else {
        (None, 0)
    };
    force_reductions(problem, &mut fix, &lo, &lo_eff);
    let det = determined_noise(problem, &fix);

    let mut reduced: Vec<bool> = fix.iter().map(|&f| f == Fix::Reduce).collect();
    let cost_of = |vs: &mut dyn Iterator<Item = usize>| vs.map(|v| nodes[v].cost).sum::<u64>();
    let mut lower_bound = cost_of(&mut (0..n).filter(|&v| fix[v] == Fix::Reduce));
    let mut optimal = true;
    let mut search_nodes = 0;
    let mut components = 0;
    for comp in coupled_components(problem, &det) {
        if comp.iter().all(|&v| fix[v] != Fix::Free) {
            continue;
        }
        components += 1;
        let (sub, sub_fix, global) = component_problem(problem, &comp, &fix, &det);
        let mut search = Search::new(&sub, sub_fix, limits.budget.clone());
        search.hint = hint
            .as_ref()
            .map(|hint| global.iter().map(|&g| g != usize::MAX && hint[g]).collect());
        let Some(root_bound) = search.run() else {
            // The presolve leaves every component feasible; guard anyway.
            let node = comp[comp.len() - 1];
            return Err(Violation {
                node,
                noise: lo[node],
                bound: problem.params().max,
            });
        };
        search_nodes += search.nodes;
        let fixed_here = cost_of(&mut comp.iter().copied().filter(|&v| fix[v] == Fix::Reduce));
        if search.timed_out {
            optimal = false;
            lower_bound += root_bound.saturating_sub(fixed_here);
        } else {
            lower_bound += search.best_cost - fixed_here;
        }
        for (l, &g) in global.iter().enumerate() {
            if g != usize::MAX {
                reduced[g] = search.best[l];
            }
        }
    }
    debug_assert!(problem.is_legal(&reduced));
    let lower_bound = lower_bound.max(floor).min(problem.cost_of(&reduced));
    let optimal = optimal || lower_bound >= problem.cost_of(&reduced);
    Ok(ExactSolution {
        reduced,
        lower_bound,
        optimal,
        search_nodes,
        components,
    })
}

/// What the presolve fixes, and the least noise of every value.
struct Presolve {
    fix: Vec<Fix>,
    /// The least noise of each value before its reduction.
    lo: Vec<u32>,
    /// The least noise of each value after it: `lo`, or the encoding noise
    /// where it may be reduced.
    lo_eff: Vec<u32>,
}

/// Fixings from the least and the largest possible noise: a value whose
/// largest noise needs no reduction is kept; `Err` names a value over its
/// bound whatever is reduced.
fn presolve(problem: &Problem) -> Result<Presolve, Violation> {
    let n = problem.len();
    let params = problem.params();
    let (e, m) = (params.encode, params.max);
    let nodes = problem.nodes();
    let users = problem.users();
    let mut fix: Vec<Fix> = nodes
        .iter()
        .map(|node| if node.reducible { Fix::Free } else { Fix::Keep })
        .collect();
    let hi = problem.evaluate(&vec![false; n]).0;
    for v in 0..n {
        let useless = hi[v] <= e || (users[v].is_empty() && hi[v] <= nodes[v].cap);
        if fix[v] == Fix::Free && useless {
            fix[v] = Fix::Keep;
        }
    }
    let mut lo = vec![0u32; n];
    let mut lo_eff = vec![0u32; n];
    for v in 0..n {
        lo[v] = problem.transfer(v, &lo_eff);
        lo_eff[v] = if fix[v] == Fix::Keep { lo[v] } else { e };
        let violation = Violation {
            node: v,
            noise: lo[v],
            bound: m,
        };
        if lo[v] > m {
            return Err(violation);
        }
        if lo_eff[v] > nodes[v].cap || e > nodes[v].cap {
            return Err(Violation {
                bound: nodes[v].cap,
                ..violation
            });
        }
    }
    Ok(Presolve { fix, lo, lo_eff })
}

/// The hitting-set path, with the costs divided by their common factor: a
/// uniform cost counts reductions; differing costs (the executions cost on
/// a function with loops) weight them, as long as the weights stay small
/// enough for the relaxation's floating point to add them exactly. `None`
/// when the witnesses are too many to list or the cover is not legal.
fn solve_as_hitting_set(
    problem: &Problem,
    limits: &SearchLimits,
    memo: Option<&mut ComponentMemo>,
) -> Option<ExactSolution> {
    let n = problem.len();
    let nodes = problem.nodes();
    // The weights are checked first: listing the witnesses costs more.
    let (weights, scale) = hitting_set_weights(problem)?;
    let w = crate::witness::witnesses(problem)?;
    if w.sets.iter().any(|s| s.is_empty()) {
        return None;
    }
    let unit = (0..n).all(|v| !nodes[v].reducible || weights[v] == 1);
    let instance = kildall_cover::HittingSet {
        elements: n,
        sets: w.sets,
        weights: (!unit).then_some(weights),
    };
    let c = kildall_cover::min_hitting_set(instance, limits, memo);
    let mut reduced = vec![false; n];
    for &x in &c.chosen {
        reduced[x] = true;
    }
    problem.is_legal(&reduced).then(|| ExactSolution {
        reduced,
        lower_bound: (c.lower_bound as u64).saturating_mul(scale),
        optimal: c.optimal,
        search_nodes: c.nodes,
        components: c.components,
    })
}

/// The fewest reductions, within half the limits, as a first placement
/// for differing costs (moved onto cheaper values where legal), and their
/// number times the least cost of a reduction, a lower bound.
fn fewest_reductions(
    problem: &Problem,
    limits: &SearchLimits,
    memo: Option<&mut ComponentMemo>,
) -> (Option<Vec<bool>>, u64) {
    let mut flat = problem.clone();
    for v in 0..problem.len() {
        flat.set_cost(v, 1);
    }
    let Ok(fewest) = solve_exact_with(&flat, &limits.share(2), true, memo) else {
        return (None, 0);
    };
    let cheapest = problem
        .nodes()
        .iter()
        .filter(|node| node.reducible)
        .map(|node| node.cost)
        .min()
        .unwrap_or(0);
    let floor = fewest.lower_bound.saturating_mul(cheapest);
    let mut moved = fewest.reduced;
    relocate(problem, &mut moved);
    (Some(moved), floor)
}

/// Fixes to [`Fix::Reduce`] the free values that must be reduced: over
/// their cap at their least noise, or making a user exceed its bound.
fn force_reductions(problem: &Problem, fix: &mut [Fix], lo: &[u32], lo_eff: &[u32]) {
    let nodes = problem.nodes();
    let users = problem.users();
    let m = problem.params().max;
    let mut scratch = lo_eff.to_vec();
    for v in 0..problem.len() {
        if fix[v] != Fix::Free {
            continue;
        }
        let mut forced = lo[v] > nodes[v].cap;
        scratch[v] = lo[v];
        for &u in &users[v] {
            let nu = problem.transfer(u, &scratch);
            if nu > m || (fix[u] == Fix::Keep && nu > nodes[u].cap) {
                forced = true;
            }
        }
        scratch[v] = lo_eff[v];
        if forced {
            fix[v] = Fix::Reduce;
        }
    }
}

/// The effective noise of values no decision can change (reduced, or kept
/// with determined inputs); `None` for the others. Such a value couples
/// nothing: its users see a constant.
fn determined_noise(problem: &Problem, fix: &[Fix]) -> Vec<Option<u32>> {
    let n = problem.len();
    let nodes = problem.nodes();
    let mut det: Vec<Option<u32>> = vec![None; n];
    let mut det_eff = vec![0u32; n];
    for v in 0..n {
        det[v] = match fix[v] {
            Fix::Reduce => Some(problem.params().encode),
            Fix::Free => None,
            Fix::Keep => nodes[v]
                .inputs
                .iter()
                .all(|&a| det[a].is_some())
                .then(|| problem.transfer(v, &det_eff)),
        };
        det_eff[v] = det[v].unwrap_or(0);
    }
    det
}

/// The components joined by edges out of values whose noise is not
/// determined, each in increasing order of value.
fn coupled_components(problem: &Problem, det: &[Option<u32>]) -> Vec<Vec<usize>> {
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let n = problem.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for (u, node) in problem.nodes().iter().enumerate() {
        for &a in &node.inputs {
            if det[a].is_none() {
                let (ra, ru) = (find(&mut parent, a), find(&mut parent, u));
                parent[ra] = ru;
            }
        }
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in 0..n {
        let r = find(&mut parent, v);
        members[r].push(v);
    }
    members.retain(|c| !c.is_empty());
    members
}

/// The component `comp` as a problem of its own: inputs from outside it
/// become fresh sources of their determined noise. Gives the problem, its
/// fixings, and the value of `problem` each of its nodes stands for
/// (`usize::MAX` for the fresh sources).
fn component_problem(
    problem: &Problem,
    comp: &[usize],
    fix: &[Fix],
    det: &[Option<u32>],
) -> (Problem, Vec<Fix>, Vec<usize>) {
    let nodes = problem.nodes();
    let mut local = vec![usize::MAX; problem.len()];
    let mut sub = Problem::new(problem.params());
    let mut sub_fix = Vec::new();
    let mut global = Vec::new();
    for &v in comp {
        let inputs = nodes[v]
            .inputs
            .iter()
            .map(|&a| {
                if local[a] != usize::MAX {
                    local[a]
                } else {
                    sub_fix.push(Fix::Keep);
                    global.push(usize::MAX);
                    sub.push(
                        NodeKind::Source(det[a].expect("outside inputs are determined")),
                        Vec::new(),
                    )
                }
            })
            .collect();
        let id = sub.push(nodes[v].kind, inputs);
        sub.set_cap(id, nodes[v].cap);
        sub.set_cost(id, nodes[v].cost);
        if fix[v] == Fix::Reduce {
            // Its users, in other components, need it reduced.
            sub.set_cap(id, problem.params().encode);
        }
        local[v] = id;
        sub_fix.push(fix[v]);
        global.push(v);
    }
    (sub, sub_fix, global)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::random_dag;
    use kildall_cover::Budget;
    use kildall_testkit::Rng;

    #[test]
    fn both_paths_match_enumeration() {
        for seed in 0..200u64 {
            let p = random_dag(&mut Rng::new(seed), 4 + (seed % 14) as usize);
            let optimum = p.brute_force().map(|r| r.iter().filter(|&&r| r).count());
            let far = &SearchLimits::new(Budget::unlimited());
            for cover in [true, false] {
                let s = solve_exact_with(&p, far, cover, None).expect("feasible");
                assert!(p.is_legal(&s.reduced), "seed {seed} cover {cover}");
                assert!(s.optimal, "seed {seed} cover {cover}");
                let count = s.reduced.iter().filter(|&&r| r).count();
                assert_eq!(Some(count), optimum, "seed {seed} cover {cover}");
                assert_eq!(s.lower_bound, count as u64);
            }
        }
    }
}
