//! The branch and bound on the linear relaxation: row generation,
//! {0,1/2}-cuts at the root and at the nodes near it, fixing by reduced
//! cost, rounding and reliability branching at every node, re-solves
//! stopped at the incumbent's cutoff, and a bound on the subtrees left
//! open when the budget runs out.

use crate::budget::Budget;

use super::hitting_set::{ceil, Solver, EPS};
use super::instance::Instance;
use super::reduced_cost::fix_by_reduced_cost;
use super::set::Set;
use super::simplex::{Relaxation, Row, Status};

/// The root of the branch and bound on one component with the linear
/// relaxation of the hitting set as bound (the `simplex` module). The relaxation
/// starts from the small sets only and takes in the others as they are
/// violated (row generation: a relaxation of fewer constraints still bounds
/// the optimum), and is tightened by {0,1/2}-cuts (see the `cuts` module)
/// while they raise the bound (by at least [`STALL`] in [`STALL_ROUNDS`]
/// rounds), for at most half of the effort left when the search below may
/// close the gap (see [`SEARCH_GAP`]), and while it stays below
/// `upper` (the size of the best cover known, which a concurrent local
/// search may lower). Every few rounds the rows the point leaves slack are
/// dropped: each pivot pays for every row, and most rows are slack (a
/// set dropped joins again when violated; a dropped cut may be
/// separated again). Each round is a dual simplex re-solve from the last
/// basis. `None`
/// when the relaxation could not be solved within `budget` (then the
/// caller keeps its combinatorial search). The cut rounds stop early when
/// the bound meets `upper`, the cost of a known cover.
pub(super) fn lp_root<'a>(inst: &'a Instance, upper: usize, budget: &Budget) -> Option<LpRoot<'a>> {
    let costs: Vec<f64> = (0..inst.of.len()).map(|x| inst.weight(x) as f64).collect();
    let live: Vec<&Set> = inst
        .sets
        .iter()
        .zip(&inst.alive)
        .filter(|(_, &a)| a)
        .map(|(s, _)| s)
        .collect();
    let refs: Vec<&[u32]> = live.iter().map(|s| s.as_slice()).collect();
    let mut in_lp: Vec<bool> = live.iter().map(|s| s.len() <= INITIAL_ROWS).collect();
    let rows: Vec<Row> = live
        .iter()
        .zip(&in_lp)
        .filter(|(_, &i)| i)
        .map(|(s, _)| set_row(s))
        .collect();
    // The set each row is, if it is one (not a cut).
    let mut origin: Vec<Option<usize>> = (0..live.len()).filter(|&i| in_lp[i]).map(Some).collect();
    // One solve with the short sets; the long ones the point leaves
    // unhit join in the rounds below, each round re-solved from the last
    // basis.
    let mut root = Relaxation::new(&costs, rows);
    if root.solve(budget) != Status::Optimal {
        return None;
    }
    // Cut rounds until the bound rises by less than `STALL` in
    // `STALL_ROUNDS` rounds, or the root has had its share of the effort
    // (the search below needs the rest).
    let root_share = budget.share(ROOT_SHARE);
    let mut history: Vec<f64> = Vec::new();
    loop {
        let objective = root.bound();
        let gap = upper as f64 - objective;
        if ceil(objective) >= upper
            || budget.exhausted()
            || (root_share.exhausted() && gap <= SEARCH_GAP)
        {
            break;
        }
        let value = root.point();
        let mut new_rows: Vec<Row> = Vec::new();
        let mut new_origin: Vec<Option<usize>> = Vec::new();
        for (i, set) in live.iter().enumerate() {
            if !in_lp[i] && set.iter().map(|&x| value[x as usize]).sum::<f64>() < 1.0 - EPS {
                in_lp[i] = true;
                new_rows.push(set_row(set));
                new_origin.push(Some(i));
            }
        }
        let cut_round = new_rows.is_empty();
        if cut_round {
            // The stall counts cut rounds only: the rounds that bring
            // sets back after a purge leave the optimum where it was.
            history.push(objective);
            if history.len() > STALL_ROUNDS
                && objective < history[history.len() - 1 - STALL_ROUNDS] + STALL
            {
                break;
            }
            let cuts = crate::cuts::odd_cycle_cuts(&refs, &value, CUTS_PER_ROUND);
            new_rows.extend(cuts.into_iter().map(|c| (c.terms, c.rhs)));
            new_origin.resize(new_rows.len(), None);
        }
        if new_rows.is_empty() {
            break;
        }
        let mut next = root.clone();
        next.add_rows(new_rows);
        if next.solve(budget) != Status::Optimal {
            // Out of effort: the last complete relaxation still bounds the
            // optimum.
            break;
        }
        origin.extend(new_origin);
        root = next;
        // Every pivot pays for every row, and most cuts of the early rounds
        // go slack later: now and then the rows the point leaves slack go
        // (the point stays optimal; a set that goes joins again when
        // violated, a cut may be separated again).
        if cut_round && history.len().is_multiple_of(PURGE_ROUNDS) {
            drop_slack_rows(&mut root, &mut origin, &mut in_lp);
        }
    }
    // The search re-solves after every fixing: the rows the root leaves
    // slack (most cuts of the early rounds, long sets) go, and a
    // set violated below joins again there.
    drop_slack_rows(&mut root, &mut origin, &mut in_lp);
    Some(LpRoot {
        ctx: LpContext { inst, live, costs },
        bound: ceil(root.bound()),
        solution: root,
    })
}

/// The bound past which a relaxation's subtree holds no cover cheaper
/// than `upper` (integer costs; see [`ceil`]).
fn cutoff(upper: usize) -> f64 {
    upper as f64 - 1.0 + 2.0 * EPS
}

/// The row `sum of set >= 1` of a set.
fn set_row(set: &Set) -> Row {
    (set.iter().map(|&x| (x, 1.0)).collect(), 1.0)
}

/// Drops the rows `root` leaves slack, and forgets the sets among
/// them (they join again when violated).
fn drop_slack_rows(root: &mut Relaxation, origin: &mut Vec<Option<usize>>, in_lp: &mut [bool]) {
    let keep = root.drop_slack_rows();
    let mut kept = keep.iter();
    origin.retain(|o| {
        let k = *kept.next().expect("one origin per row");
        if let (Some(i), false) = (o, k) {
            in_lp[*i] = false;
        }
        k
    });
}

/// The relaxation at the root of a component's search.
pub(super) struct LpRoot<'a> {
    ctx: LpContext<'a>,
    solution: Relaxation,
    /// The root's lower bound on the component's optimum.
    pub(super) bound: usize,
}

impl LpRoot<'_> {
    /// Branches from the root, replacing `best` by the smaller covers found;
    /// every node re-solves the relaxation by the dual simplex from its
    /// parent's basis.
    pub(super) fn search(self, best: &mut Vec<usize>, solver: &mut Solver) -> usize {
        let mut solution = self.solution;
        let upper = self.ctx.inst.cost_of(best);
        solver.pseudocosts = vec![Pseudocost::default(); self.ctx.costs.len()];
        // The root dropped its slack rows: one solve refactorizes the basis
        // (the point stays optimal) for the fixings and the children.
        match solution.solve_with_cutoff(&solver.budget, cutoff(upper)) {
            Status::Optimal => {}
            Status::Cutoff => return ceil(solution.bound()),
            Status::Infeasible => return usize::MAX,
            Status::Stopped => {
                solver.stopped = true;
                return self.bound;
            }
        }
        solver.report(upper, self.bound);
        self.ctx.dfs(solution, 0, best, solver).max(self.bound)
    }
}

/// What solving both children of a branching gave.
enum Branch {
    /// Both children survive, with their objective gains over the node.
    Both(Box<[Relaxation; 2]>, [f64; 2]),
    /// The node's result is known, to be raised to its own bound: at most
    /// one side survived and was searched, or a re-solve was cut short
    /// (`0`: nothing beyond the node's bound).
    Settled(usize),
}

/// Search nodes at depth below this separate {0,1/2}-cuts at their point,
/// up to [`NODE_CUTS`] in each of [`NODE_CUT_ROUNDS`] rounds: deeper, the
/// cuts cost more time than the nodes they save.
const CUT_DEPTH: usize = 3;
const NODE_CUTS: usize = 16;
const NODE_CUT_ROUNDS: usize = 2;

/// Branchings at depth up to this divide their two subtrees between two
/// threads (see [`LpContext::dfs_both`]): the root's two children.
const FORK_DEPTH: usize = 1;

/// Violated sets a node adds to its relaxation per re-solve.
const NODE_WITNESSES: usize = 16;

/// Strong branching solves an element's children until each side has been
/// solved this many times (once: on the trees of large components the
/// first gain predicts the next well enough, and a second solve of every
/// element cost more than the nodes it saved), and stops after
/// [`LOOKAHEAD`] solved elements in a row that do not beat the best one.
const RELIABLE: u32 = 1;
const LOOKAHEAD: usize = 4;

/// Elements whose two children strong branching solves at each node.
const STRONG_CANDIDATES: usize = 8;

/// Sets of at most this many elements start in the relaxation.
const INITIAL_ROWS: usize = 3;
/// Cuts added per separation round at the root. Many per round: the
/// separation heuristic finds fewer cuts at the later points than the
/// earlier rounds could have taken, so small rounds stop at a lower bound.
const CUTS_PER_ROUND: usize = 256;
/// Separation stops when the last this many rounds raised the bound by
/// less than [`STALL`] in all.
const STALL_ROUNDS: usize = 8;
const STALL: f64 = 0.05;
/// The root's cut rounds end after this share (one in so many) of the effort
/// left, unless the bound is still more than [`SEARCH_GAP`] below the best
/// cover (then the search below could not close the gap with the effort left,
/// and only the cuts raise the bound).
const ROOT_SHARE: u64 = 2;
const SEARCH_GAP: f64 = 5.0;
/// Every this many cut rounds the rows the relaxation leaves slack go.
const PURGE_ROUNDS: usize = 4;

struct LpContext<'a> {
    inst: &'a Instance,
    live: Vec<&'a Set>,
    /// What each element costs (the relaxation's objective).
    costs: Vec<f64>,
}

/// The gains in bound seen when an element was fixed, per unit of change
/// of its value: to 1 (taken) and to 0.
#[derive(Clone, Default)]
pub(super) struct Pseudocost {
    sum: [f64; 2],
    count: [u32; 2],
}

impl Pseudocost {
    /// Adds what two searches that started from `self` learnt apart.
    fn merge(&mut self, a: &Pseudocost, b: &Pseudocost) {
        for side in 0..2 {
            self.sum[side] += (a.sum[side] - self.sum[side]) + (b.sum[side] - self.sum[side]);
            self.count[side] +=
                (a.count[side] - self.count[side]) + (b.count[side] - self.count[side]);
        }
    }

    fn record(&mut self, gains: [f64; 2], change: [f64; 2]) {
        for side in 0..2 {
            if change[side] > EPS {
                self.sum[side] += gains[side].max(0.0) / change[side];
                self.count[side] += 1;
            }
        }
    }

    /// The expected gains of the two children, once both sides are
    /// reliable.
    fn estimate(&self, change: [f64; 2]) -> Option<[f64; 2]> {
        (self.count[0] >= RELIABLE && self.count[1] >= RELIABLE)
            .then(|| [0, 1].map(|side| self.sum[side] / f64::from(self.count[side]) * change[side]))
    }
}

impl LpContext<'_> {
    /// Searches below the node whose relaxation `sol` solves; returns a
    /// proven lower bound on the covers of its subtree (`usize::MAX` when
    /// there are none): the node's own bound where the search stopped, the
    /// least of its children's where it branched.
    fn dfs(
        &self,
        mut sol: Relaxation,
        depth: usize,
        best: &mut Vec<usize>,
        solver: &mut Solver,
    ) -> usize {
        let mut bound = ceil(sol.bound());
        if !solver.enter_node() {
            return bound;
        }
        let value = match self.tighten(&mut sol, depth, &mut bound, best, solver) {
            Ok(value) => value,
            Err(settled) => return settled,
        };
        self.round(&value, best);
        solver.report(self.inst.cost_of(best), 0);
        if bound >= self.inst.cost_of(best) {
            return bound;
        }
        fix_by_reduced_cost(&mut sol, self.inst.cost_of(best));
        let chosen = match self.choose_branching(&sol, &value, depth, best, solver) {
            Ok(chosen) => chosen,
            Err(settled) => return settled.max(bound),
        };
        let Some([a, b]) = chosen else {
            return bound;
        };
        // The weaker child first: it holds the better covers, which prune
        // the rest of the tree. A child left unsearched keeps its own bound.
        let (first, second) = if b.bound() < a.bound() {
            (b, a)
        } else {
            (a, b)
        };
        self.dfs_both(first, second, depth + 1, best, solver)
            .max(bound)
    }

    /// Re-solves the node `sol` with the sets it leaves unhit and, near the
    /// root, {0,1/2}-cuts at its point, until neither is violated; returns
    /// the point, or `Err` with the node's result when it is settled (cut
    /// off, infeasible, or out of effort). `bound` rises with each solve.
    fn tighten(
        &self,
        sol: &mut Relaxation,
        depth: usize,
        bound: &mut usize,
        best: &[usize],
        solver: &mut Solver,
    ) -> Result<Vec<f64>, usize> {
        let mut cut_rounds = 0;
        loop {
            *bound = (*bound).max(ceil(sol.bound()));
            if *bound >= self.inst.cost_of(best) {
                return Err(*bound);
            }
            let value = sol.point();
            // The sets the relaxation left out and the point leaves
            // unhit join it, here and below (a sibling checks again for
            // itself).
            let mut violated: Vec<(f64, &Set)> = self
                .live
                .iter()
                .map(|set| (set.iter().map(|&x| value[x as usize]).sum::<f64>(), *set))
                .filter(|&(activity, _)| activity < 1.0 - EPS)
                .collect();
            if violated.len() > NODE_WITNESSES {
                // The most violated first: a few usually bring the point
                // over the rest.
                violated.sort_by(|a, b| a.0.total_cmp(&b.0));
                violated.truncate(NODE_WITNESSES);
            }
            let mut rows: Vec<Row> = violated.iter().map(|&(_, set)| set_row(set)).collect();
            if rows.is_empty() && depth < CUT_DEPTH && cut_rounds < NODE_CUT_ROUNDS {
                // Near the root, {0,1/2}-cuts at the node's point too (they
                // hold at every cover, so in the whole subtree).
                cut_rounds += 1;
                let refs: Vec<&[u32]> = self.live.iter().map(|s| s.as_slice()).collect();
                rows = crate::cuts::odd_cycle_cuts(&refs, &value, NODE_CUTS)
                    .into_iter()
                    .map(|c| (c.terms, c.rhs))
                    .collect();
            }
            if rows.is_empty() {
                return Ok(value);
            }
            sol.add_rows(rows);
            match sol.solve_with_cutoff(&solver.budget, cutoff(self.inst.cost_of(best))) {
                Status::Optimal => {}
                Status::Cutoff => return Err(ceil(sol.bound()).max(*bound)),
                Status::Infeasible => return Err(usize::MAX),
                Status::Stopped => {
                    solver.stopped = true;
                    return Err(*bound);
                }
            }
        }
    }

    /// The two children to branch into at the node `sol` (point `value`),
    /// by reliability branching; `Ok(None)` when no element is fractional,
    /// `Err` with the node's result (before its own bound is taken into
    /// account) when a branching settled it.
    fn choose_branching(
        &self,
        sol: &Relaxation,
        value: &[f64],
        depth: usize,
        best: &mut Vec<usize>,
        solver: &mut Solver,
    ) -> Result<Option<[Relaxation; 2]>, usize> {
        // Reliability branching: the search branches where the weaker child
        // rises most (the product rule of Achterberg, Koch and Martin,
        // "Branching rules revisited", 2005). Once each side of an element
        // has been solved `RELIABLE` times, the mean gain per unit of change
        // seen so far (its pseudocost) stands in for the solves, and the
        // best of those elements is a candidate; the others are solved
        // (strong branching), most fractional first (in the most sets
        // among equals: the point of a covering relaxation is mostly 1/2),
        // at most `STRONG_CANDIDATES` and until `LOOKAHEAD` in a row do not
        // beat the best. A child the incumbent already prunes settles its
        // element at once.
        let score = |up: f64, down: f64| up.max(1e-6) * down.max(1e-6);
        let mut estimated: Option<(f64, usize)> = None;
        let mut unreliable: Vec<usize> = Vec::new();
        {
            let pseudocosts = &solver.pseudocosts;
            for x in (0..value.len()).filter(|&x| value[x] > EPS && value[x] < 1.0 - EPS) {
                match pseudocosts[x].estimate([1.0 - value[x], value[x]]) {
                    Some(gains) => {
                        let s = score(gains[0], gains[1]);
                        if estimated.is_none_or(|e| s > e.0) {
                            estimated = Some((s, x));
                        }
                    }
                    None => unreliable.push(x),
                }
            }
        }
        unreliable.sort_by(|&a, &b| {
            (value[a] - 0.5)
                .abs()
                .total_cmp(&(value[b] - 0.5).abs())
                .then(self.inst.of[b].len().cmp(&self.inst.of[a].len()))
        });
        unreliable.truncate(STRONG_CANDIDATES);
        let mut chosen: Option<(f64, [Relaxation; 2])> = None;
        let mut solved_without_gain = 0;
        for &x in &unreliable {
            if solved_without_gain >= LOOKAHEAD {
                break;
            }
            let (children, gains) = match self.branch(sol, x, value[x], depth, best, solver) {
                Branch::Both(children, gains) => (*children, gains),
                Branch::Settled(result) => return Err(result),
            };
            let s = score(gains[0], gains[1]);
            if chosen.as_ref().is_none_or(|c| s > c.0) {
                chosen = Some((s, children));
                solved_without_gain = 0;
            } else {
                solved_without_gain += 1;
            }
            if solver.budget.exhausted() {
                solver.stopped = true;
                return Err(0);
            }
        }
        if let Some((s, x)) = estimated {
            if chosen.as_ref().is_none_or(|c| s > c.0) {
                match self.branch(sol, x, value[x], depth, best, solver) {
                    Branch::Both(children, _) => chosen = Some((s, *children)),
                    Branch::Settled(result) => return Err(result),
                }
            }
        }
        Ok(chosen.map(|(_, children)| children))
    }

    /// Solves both children of the node `sol` on element `x` (whose value
    /// there is `value`) and records their gains in `x`'s pseudocosts. A
    /// node with at most one child left is settled here (that child is
    /// searched), and so is one whose re-solve was cut short.
    fn branch(
        &self,
        sol: &Relaxation,
        x: usize,
        value: f64,
        depth: usize,
        best: &mut Vec<usize>,
        solver: &mut Solver,
    ) -> Branch {
        let Some((children, pruned)) = self.children(sol, x, self.inst.cost_of(best), solver)
        else {
            return Branch::Settled(0);
        };
        let children: [Relaxation; 2] = match children.try_into() {
            Ok(both) => both,
            Err(children) => {
                // At most one side survives: this node is that side.
                let side = match children.into_iter().next() {
                    Some(only) => self.dfs(only, depth, best, solver),
                    None => usize::MAX,
                };
                return Branch::Settled(side.min(pruned));
            }
        };
        let parent = sol.bound();
        let gains = [children[0].bound() - parent, children[1].bound() - parent];
        solver.pseudocosts[x].record(gains, [1.0 - value, value]);
        Branch::Both(Box::new(children), gains)
    }

    /// Both children of the node `sol` on element `x` (taken first): the
    /// ones the incumbent of cost `upper` does not prune, and the least
    /// bound of the pruned ones (`usize::MAX` if none); `None` when a
    /// re-solve was cut short.
    fn children(
        &self,
        sol: &Relaxation,
        x: usize,
        upper: usize,
        solver: &mut Solver,
    ) -> Option<(Vec<Relaxation>, usize)> {
        let mut children = Vec::with_capacity(2);
        let mut pruned = usize::MAX;
        for val in [1.0, 0.0] {
            let mut child = sol.clone();
            child.fix(x, val);
            match child.solve_with_cutoff(&solver.budget, cutoff(upper)) {
                Status::Optimal if ceil(child.bound()) < upper => children.push(child),
                Status::Optimal | Status::Cutoff => pruned = pruned.min(ceil(child.bound())),
                Status::Infeasible => {}
                Status::Stopped => {
                    solver.stopped = true;
                    return None;
                }
            }
        }
        Some((children, pruned))
    }

    /// Replaces `best` by the cover [`rounded_cover`] reads off `value`
    /// when it is cheaper.
    fn round(&self, value: &[f64], best: &mut Vec<usize>) {
        let take: Vec<usize> = rounded_cover(&self.live, value, &self.costs)
            .into_iter()
            .map(|x| self.inst.names[x])
            .collect();
        if self.inst.cost_of(&take) < self.inst.cost_of(best) {
            *best = take;
        }
    }

    /// Searches the two subtrees `first` and `second` and returns the
    /// least of their bounds. Above [`FORK_DEPTH`] the work is divided the
    /// same way whatever the threads: each subtree gets half the effort
    /// left, the incumbent and pseudocosts as they are at the fork, and
    /// neither sees what the other finds; the two run on two threads when
    /// the search may use them, one after the other otherwise, and their
    /// results are combined in order (the first's cover on ties, the
    /// pseudocosts' gains added). Below it the second subtree starts from
    /// what the first found.
    fn dfs_both(
        &self,
        first: Relaxation,
        second: Relaxation,
        depth: usize,
        best: &mut Vec<usize>,
        solver: &mut Solver,
    ) -> usize {
        if depth > FORK_DEPTH {
            let a = self.dfs(first, depth, best, solver);
            let b = if solver.stopped {
                ceil(second.bound())
            } else {
                self.dfs(second, depth, best, solver)
            };
            return a.min(b);
        }
        let halves = solver.budget.split().map(|budget| {
            let mut half = Solver::new(budget, solver.threads);
            // The subtrees' covers are not yet the search's: no progress.
            half.progress = None;
            half.pseudocosts = solver.pseudocosts.clone();
            (half, best.clone())
        });
        let [(mut sa, mut best_a), (mut sb, mut best_b)] = halves;
        let (a, b) = if solver.threads > 1 {
            std::thread::scope(|scope| {
                let other = scope.spawn(|| self.dfs(second, depth, &mut best_b, &mut sb));
                let a = self.dfs(first, depth, &mut best_a, &mut sa);
                let b = other
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (a, b)
            })
        } else {
            let a = self.dfs(first, depth, &mut best_a, &mut sa);
            (a, self.dfs(second, depth, &mut best_b, &mut sb))
        };
        for half in [&sa, &sb] {
            solver.budget.charge(half.budget.spent());
            solver.nodes += half.nodes;
            solver.stopped |= half.stopped;
        }
        for (x, pseudocost) in solver.pseudocosts.iter_mut().enumerate() {
            pseudocost.merge(&sa.pseudocosts[x], &sb.pseudocosts[x]);
        }
        for found in [best_a, best_b] {
            if self.inst.cost_of(&found) < self.inst.cost_of(best) {
                *best = found;
            }
        }
        a.min(b)
    }
}

/// A cover (local elements) read off the relaxation's point `value`: the
/// cheaper under `costs` of two roundings, each followed by dropping the
/// elements whose sets are all hit by others, smallest value first (the
/// dearer first among equal values). One takes the
/// elements at 1/2 or more and completes every set left unhit by its
/// largest element; the other walks the elements from the largest value
/// down and takes each that hits a set still unhit.
pub(super) fn rounded_cover(live: &[&Set], value: &[f64], costs: &[f64]) -> Vec<usize> {
    let n = value.len();
    let mut sets_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, set) in live.iter().enumerate() {
        for &x in set.iter() {
            sets_of[x as usize].push(i);
        }
    }
    let prune = |take: &mut Vec<bool>| {
        let mut hits = vec![0u32; live.len()];
        for (i, set) in live.iter().enumerate() {
            hits[i] = set.iter().filter(|&&x| take[x as usize]).count() as u32;
        }
        let mut order: Vec<usize> = (0..n).filter(|&x| take[x]).collect();
        order.sort_by(|&a, &b| {
            value[a]
                .total_cmp(&value[b])
                .then(costs[b].total_cmp(&costs[a]))
        });
        for x in order {
            if sets_of[x].iter().all(|&i| hits[i] >= 2) {
                take[x] = false;
                for &i in &sets_of[x] {
                    hits[i] -= 1;
                }
            }
        }
    };
    let mut half: Vec<bool> = value.iter().map(|&v| v >= 0.5).collect();
    for set in live {
        if !set.iter().any(|&x| half[x as usize]) {
            let x = set
                .iter()
                .copied()
                .max_by(|&a, &b| value[a as usize].total_cmp(&value[b as usize]))
                .expect("non-empty set");
            half[x as usize] = true;
        }
    }
    prune(&mut half);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| value[b].total_cmp(&value[a]));
    let mut hit = vec![false; live.len()];
    let mut descending = vec![false; n];
    for x in order {
        if sets_of[x].iter().any(|&i| !hit[i]) {
            descending[x] = true;
            for &i in &sets_of[x] {
                hit[i] = true;
            }
        }
    }
    prune(&mut descending);
    let cost = |take: &[bool]| -> f64 { (0..n).filter(|&x| take[x]).map(|x| costs[x]).sum() };
    let take = if cost(&descending) < cost(&half) {
        descending
    } else {
        half
    };
    (0..n).filter(|&x| take[x]).collect()
}
