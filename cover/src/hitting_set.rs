//! The minimum hitting set: reductions, components, local search and the
//! combinatorial branch and bound.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::instance::Instance;
use super::local_search::Stop;
use super::lp_branch::{lp_root, LpRoot, Pseudocost};
use super::memo::ComponentMemo;
use super::set::Set;
use crate::budget::{Budget, Stop as StopReason};

/// A weighted hitting-set instance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HittingSet {
    /// The elements are `0..elements`.
    pub elements: usize,
    /// The sets to hit, each sorted and non-empty.
    pub sets: Vec<Set>,
    /// The cost of each element (`None`: 1 each). Integers, so that bounds
    /// round up.
    pub weights: Option<Vec<u64>>,
}

/// The outcome of the hitting-set search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cover {
    /// The elements taken, ascending.
    pub chosen: Vec<usize>,
    /// A proven lower bound on the cost of any hitting set.
    pub lower_bound: usize,
    /// Whether every component's search closed.
    pub optimal: bool,
    /// What ended the search before it closed (`None` when optimal).
    pub stopped_by: Option<StopReason>,
    /// Search nodes, over all components.
    pub nodes: u64,
    /// Work units spent (simplex pivots and search nodes).
    pub effort: u64,
    /// Components after the reductions at the root.
    pub components: usize,
}

/// Components of at most this many elements try the combinatorial search
/// before the relaxation.
pub(super) const COMBINATORIAL_FIRST: usize = 200;

/// Steps of the local search on each component's first cover, per element
/// (each step scans the cover).
const LOCAL_MOVES: u64 = 200;
/// Beside a root relaxation, the local search walks at most this many
/// times its steps.
const STAGNATION: u64 = 4;
/// The combinatorial search of a small component may spend one in so many
/// of the units left before the relaxation takes over.
const COMBINATORIAL_SHARE: u64 = 10;

/// Subgradient rounds at the root of a component and at other search nodes.
pub(super) const ROOT_ROUNDS: usize = 600;
pub(super) const NODE_ROUNDS: usize = 25;
pub(super) const EPS: f64 = 1e-6;

/// How a search may run: its budget of work, and how many threads it may
/// use. The result depends on the budget alone: the threads only run at
/// once what a single thread runs one after the other.
#[derive(Clone, Debug)]
pub struct SearchLimits {
    /// The work units (simplex pivots and search nodes) the search may
    /// spend, and an optional deadline.
    pub budget: Budget,
    /// Threads the search may use (at least 1).
    pub threads: usize,
    /// Called as the search of a component improves its cover or bound
    /// (for a progress display; it cannot change the search).
    pub progress: Option<ProgressHook>,
}

/// Where a search stands: the component being searched, its best cover's
/// cost and its proven lower bound, and the effort spent so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The component (from 0) and how many there are.
    pub component: usize,
    /// Components of the instance after the reductions.
    pub components: usize,
    /// Elements of the component.
    pub elements: usize,
    /// The cost of the best cover of the component found so far.
    pub cover: usize,
    /// A proven lower bound on the component's covers.
    pub bound: usize,
    /// Work units spent by the whole search.
    pub effort: u64,
}

/// A function called with each [`Progress`].
#[derive(Clone)]
pub struct ProgressHook(pub std::sync::Arc<dyn Fn(Progress) + Send + Sync>);

impl std::fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressHook")
    }
}

impl SearchLimits {
    /// `budget` on one thread.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            threads: 1,
            progress: None,
        }
    }

    /// The same threads, and one `divisor`-th of the effort left (see
    /// [`Budget::share`]).
    pub fn share(&self, divisor: u64) -> Self {
        Self {
            budget: self.budget.share(divisor),
            ..self.clone()
        }
    }
}

/// A cheapest hitting set of `instance`, or the best cover found and a
/// proven bound when `limits` run out first. Components found in `memo`,
/// if given, are not searched again; those that close are added to it.
pub fn min_hitting_set(
    instance: HittingSet,
    limits: &SearchLimits,
    memo: Option<&mut ComponentMemo>,
) -> Cover {
    let HittingSet {
        elements,
        sets,
        weights,
    } = instance;
    let inst = Instance::new((0..elements).collect(), sets, None, weights.map(Arc::from));
    min_hitting_set_with(inst, limits, COMBINATORIAL_FIRST, memo)
}

/// [`min_hitting_set`], searching components of at most `small` elements
/// combinatorially first (so that tests reach both searches).
///
/// Weighted instances go to the relaxation's branch and bound alone (with
/// the local search beside its root): the combinatorial search and its
/// bounds count elements.
pub(super) fn min_hitting_set_with(
    mut inst: Instance,
    limits: &SearchLimits,
    small: usize,
    mut memo: Option<&mut ComponentMemo>,
) -> Cover {
    let mut solver = Solver::new(limits.budget.clone(), limits.threads);
    solver.progress = limits.progress.clone();
    let mut chosen = Vec::new();
    let feasible = inst.reduce(&mut chosen);
    debug_assert!(feasible, "sets are non-empty");
    let mut lower_bound = inst.cost_of(&chosen);
    let mut optimal = true;
    let components = inst.components();
    let count = components.len();
    for (index, comp) in components.into_iter().enumerate() {
        solver.at = Progress {
            component: index,
            components: count,
            elements: comp.of.len(),
            cover: usize::MAX,
            bound: 0,
            effort: 0,
        };
        // Only a memo that outlives this call is worth the key's copy.
        let key = memo.is_some().then(|| comp.key());
        if let (Some(memo), Some(key)) = (memo.as_deref_mut(), &key) {
            if let Some(cover) = memo.get(key) {
                lower_bound += comp.cost_of(cover);
                chosen.extend_from_slice(cover);
                continue;
            }
        }
        solver.stopped = false;
        let (best, root) = solver.component(comp.clone(), small);
        let cost = comp.cost_of(&best);
        if solver.stopped {
            optimal = false;
            lower_bound += root.min(cost);
        } else {
            lower_bound += cost;
            if let (Some(memo), Some(key)) = (memo.as_deref_mut(), key) {
                memo.insert(key, best.clone());
            }
        }
        chosen.extend(best);
    }
    chosen.sort_unstable();
    chosen.dedup();
    let cost = inst.cost_of(&chosen);
    let optimal = optimal && lower_bound >= cost;
    Cover {
        lower_bound: lower_bound.min(cost),
        optimal,
        stopped_by: (!optimal).then(|| limits.budget.stop_reason()),
        chosen,
        nodes: solver.nodes,
        effort: limits.budget.spent(),
        components: count,
    }
}

/// How long the local search walks: `moves` steps, and beside a root
/// relaxation on until it has gone `moves` steps without a cheaper cover
/// (at most [`STAGNATION`] times `moves`). Only the deadline, if any, cuts
/// it shorter: its steps are not charged to the budget, so that it does
/// not depend on what runs beside it.
pub(super) struct Walk<'a> {
    moves: u64,
    beside_root: bool,
    budget: &'a Budget,
    /// The step of the last cheaper cover.
    improved_at: AtomicU64,
}

impl<'a> Walk<'a> {
    pub(super) fn new(moves: u64, beside_root: bool, budget: &'a Budget) -> Self {
        Self {
            moves,
            beside_root,
            budget,
            improved_at: AtomicU64::new(0),
        }
    }
}

impl Stop for Walk<'_> {
    fn improved(&self, step: u64) {
        self.improved_at.store(step, Ordering::Relaxed);
    }

    fn stops(&self, step: u64) -> bool {
        if self.budget.past_deadline() {
            return true;
        }
        if !self.beside_root {
            return step >= self.moves;
        }
        let stagnant = step - self.improved_at.load(Ordering::Relaxed) > self.moves;
        step >= STAGNATION * self.moves || (step >= self.moves && stagnant)
    }
}

pub(super) fn ceil(x: f64) -> usize {
    (x - EPS).ceil().max(0.0) as usize
}

/// The state of one search: its budget, its counts, and what the search on
/// the relaxation has learnt of its branchings.
pub(super) struct Solver {
    pub(super) budget: Budget,
    pub(super) threads: usize,
    pub(super) nodes: u64,
    /// The budget ran out (or the deadline passed) before the search closed.
    pub(super) stopped: bool,
    /// The pseudocosts of the search on the relaxation.
    pub(super) pseudocosts: Vec<Pseudocost>,
    pub(super) progress: Option<ProgressHook>,
    /// Where the search stands, for `progress`.
    at: Progress,
}

impl Solver {
    pub(super) fn new(budget: Budget, threads: usize) -> Self {
        Self {
            budget,
            threads: threads.max(1),
            nodes: 0,
            stopped: false,
            pseudocosts: Vec::new(),
            progress: None,
            at: Progress {
                component: 0,
                components: 1,
                elements: 0,
                cover: usize::MAX,
                bound: 0,
                effort: 0,
            },
        }
    }

    /// Reports a component's cover or bound, if either improved.
    pub(super) fn report(&mut self, cover: usize, bound: usize) {
        let Some(progress) = &self.progress else {
            return;
        };
        if cover < self.at.cover || bound > self.at.bound {
            self.at.cover = self.at.cover.min(cover);
            self.at.bound = self.at.bound.max(bound);
            self.at.effort = self.budget.spent();
            (progress.0)(self.at);
        }
    }

    /// Counts a search node; false once the budget has run out.
    pub(super) fn enter_node(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        if self.budget.exhausted() {
            self.stopped = true;
            return false;
        }
        self.nodes += 1;
        self.budget.charge(1);
        true
    }

    /// The cheapest cover of the component `comp` found and a proven lower
    /// bound on its covers (its cost when the search closed, unless
    /// [`Self::stopped`]).
    fn component(&mut self, comp: Instance, small: usize) -> (Vec<usize>, usize) {
        let greedy = comp.greedy();
        let moves = LOCAL_MOVES * comp.of.len() as u64;
        let large = comp.of.len() > small && !self.budget.exhausted();
        if comp.weights.is_some() || large {
            // Weighted components go to the relaxation whatever their size
            // (the combinatorial search and the Lagrangian bound count
            // elements), and so do large ones: the cuts need the effort.
            // The local search runs beside the root.
            let (mut best, lp) = if large {
                comp.root_beside_local_search(&greedy, moves, &self.budget, self.threads)
            } else {
                let lp = lp_root(&comp, comp.cost_of(&greedy), &self.budget);
                (greedy, lp)
            };
            let root = self.search_from_root(&comp, lp, 0, &mut best);
            return (best, root);
        }
        let mut best = comp.local_search(&greedy, &Walk::new(moves, false, &self.budget));
        // The Lagrangian ascent is worth its effort only when a search follows.
        let rounds = if self.budget.exhausted() {
            1
        } else {
            ROOT_ROUNDS
        };
        let mut comp = comp;
        let mut root = comp.bound(best.len(), rounds).0;
        if root < best.len() {
            // The combinatorial search first, for a share of the effort:
            // it often closes small components.
            let whole = std::mem::replace(&mut self.budget, Budget::unlimited());
            self.budget = whole.share(COMBINATORIAL_SHARE);
            self.search(comp.clone(), &mut Vec::new(), &mut best, true);
            self.budget = whole;
            if self.stopped {
                self.stopped = false;
                let lp = lp_root(&comp, best.len(), &self.budget);
                root = self.search_from_root(&comp, lp, root, &mut best);
            }
        }
        (best, root)
    }

    /// Searches `comp` from the root of its relaxation, or combinatorially
    /// when the relaxation could not be solved (a weighted `comp`, whose
    /// costs that search does not count, stops at the Lagrangian bound),
    /// replacing `best` by the cheaper covers found. Returns the larger of
    /// `bound` (a bound already known), the root's and the search's (which
    /// rises above the root's where the search closed subtrees before the
    /// deadline).
    fn search_from_root(
        &mut self,
        comp: &Instance,
        lp: Option<LpRoot<'_>>,
        bound: usize,
        best: &mut Vec<usize>,
    ) -> usize {
        match lp {
            Some(lp) => {
                let root = bound.max(lp.bound);
                if root < comp.cost_of(best) {
                    // The search's bound holds for the covers smaller than
                    // the `best` it started from; the others are no smaller
                    // than the `best` it ends with.
                    root.max(lp.search(best, self))
                } else {
                    root
                }
            }
            None => {
                // A copy: the multipliers of `comp` stay as they are.
                let mut fallback = comp.clone();
                let upper = comp.cost_of(best);
                let root = bound.max(fallback.bound(upper, ROOT_ROUNDS).0);
                if root < upper {
                    if comp.weights.is_some() {
                        // The combinatorial search counts elements.
                        self.stopped = true;
                    } else {
                        self.search(fallback, &mut Vec::new(), best, true);
                    }
                }
                root
            }
        }
    }
}
