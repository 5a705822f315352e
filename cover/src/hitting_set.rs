//! The minimum hitting set: reductions, components, local search and the
//! combinatorial branch and bound.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::local_search::{row_weighting, Stop};
use super::lp_branch::{lp_root, LpRoot};
use super::memo::{ComponentKey, ComponentMemo};
use super::set::{is_subset, Set};
use crate::cuts::TotalF64;

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
    /// Search nodes, over all components.
    pub nodes: u64,
    /// Components after the reductions at the root.
    pub components: usize,
}

/// Components of at most this many elements try the combinatorial search
/// before the relaxation.
pub(super) const COMBINATORIAL_FIRST: usize = 200;

/// Steps of the local search on each component's first cover, per element
/// (each step scans the cover).
const LOCAL_MOVES: u64 = 200;
/// Beside a root relaxation, the local search stops after this many times
/// its steps without a smaller cover.
const STAGNATION: u64 = 4;

/// Subgradient rounds at the root of a component and at other search nodes.
const ROOT_ROUNDS: usize = 600;
const NODE_ROUNDS: usize = 25;
pub(super) const EPS: f64 = 1e-6;

/// A cheapest hitting set of `instance`, unless `deadline` passes first.
/// Components found in `memo`, if given, are not searched again; those
/// that close are added to it.
pub fn min_hitting_set(
    instance: HittingSet,
    deadline: Instant,
    memo: Option<&mut ComponentMemo>,
) -> Cover {
    let HittingSet {
        elements,
        sets,
        weights,
    } = instance;
    min_hitting_set_with(elements, sets, weights, deadline, COMBINATORIAL_FIRST, memo)
}

/// [`min_hitting_set`], searching components of at most `small` elements
/// combinatorially first (so that tests reach both searches).
///
/// Weighted instances go to the relaxation's branch and bound alone (with
/// the local search beside its root): the combinatorial search and its
/// bounds count elements.
pub(super) fn min_hitting_set_with(
    n: usize,
    sets: Vec<Set>,
    weights: Option<Vec<u64>>,
    deadline: Instant,
    small: usize,
    mut memo: Option<&mut ComponentMemo>,
) -> Cover {
    let mut solver = Solver {
        deadline,
        nodes: 0,
        timed_out: false,
    };
    let names: Vec<usize> = (0..n).collect();
    let weights: Option<Arc<[u64]>> = weights.map(Arc::from);
    let mut inst = Instance::new(names, sets, None, weights);
    let mut chosen = Vec::new();
    let feasible = inst.reduce(&mut chosen);
    debug_assert!(feasible, "sets are non-empty");
    let mut lower_bound = inst.cost_of(&chosen);
    let mut optimal = true;
    let components = inst.components();
    let count = components.len();
    for mut comp in components {
        // Only a memo that outlives this call is worth the key's copy.
        let key = memo.is_some().then(|| comp.key());
        if let (Some(memo), Some(key)) = (memo.as_deref_mut(), &key) {
            if let Some(cover) = memo.get(key) {
                lower_bound += comp.cost_of(cover);
                chosen.extend_from_slice(cover);
                continue;
            }
        }
        let greedy = comp.greedy();
        let share = Instant::now() + deadline.saturating_duration_since(Instant::now()) / 8;
        let moves = LOCAL_MOVES * comp.of.len() as u64;
        solver.timed_out = false;
        let mut best;
        let mut root;
        if comp.weights.is_some() {
            // The combinatorial search and the Lagrangian bound count
            // elements, so weighted components of any size take the
            // relaxation. Beside a large one's root the local search walks
            // only while the root is solved: the root usually closes
            // weighted components, and callers often solve many of them.
            let upper = AtomicUsize::new(comp.cost_of(&greedy));
            let lp;
            (best, lp) = if comp.of.len() > small && Instant::now() < deadline {
                comp.root_beside_local_search(&greedy, &upper, Instant::now(), moves, deadline)
            } else {
                (greedy, lp_root(&comp, &upper, deadline))
            };
            root = solver.search_from_root(&comp, lp, 0, &mut best);
        } else if comp.of.len() > small && Instant::now() < deadline {
            // Large components go to the relaxation at once: the cuts need
            // the time. Its root needs no incumbent, so the local search
            // runs beside it on a second thread as long as the root takes
            // (at least its share), publishing each smaller cover at once:
            // the cut rounds stop when the bound meets it.
            let upper = AtomicUsize::new(greedy.len());
            let (found, lp) =
                comp.root_beside_local_search(&greedy, &upper, share, moves, deadline);
            best = found;
            root = solver.search_from_root(&comp, lp, 0, &mut best);
        } else {
            let walk = Walk {
                deadline: share,
                moves,
                until: None,
                upper: None,
                step: AtomicU64::new(0),
                improved_at: AtomicU64::new(0),
            };
            best = comp.local_search(&greedy, &walk);
            let now = Instant::now();
            // The Lagrangian ascent is worth its time only when a search follows.
            let rounds = if now < deadline { ROOT_ROUNDS } else { 1 };
            root = comp.bound(best.len(), rounds).0;
            if root < best.len() {
                // The combinatorial search first, for a share of the time:
                // it often closes small components.
                let share = deadline.saturating_duration_since(now) / 10;
                solver.deadline = now + share;
                let mut picked = Vec::new();
                solver.search(comp.clone(), &mut picked, &mut best, true);
                solver.deadline = deadline;
                if solver.timed_out {
                    solver.timed_out = false;
                    let lp = lp_root(&comp, &AtomicUsize::new(best.len()), deadline);
                    root = solver.search_from_root(&comp, lp, root, &mut best);
                }
            }
        }
        let cost = comp.cost_of(&best);
        if solver.timed_out {
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
    Cover {
        lower_bound: lower_bound.min(cost),
        optimal: optimal && lower_bound >= cost,
        chosen,
        nodes: solver.nodes,
        components: count,
    }
}

/// How long the local search walks.
struct Walk<'a> {
    /// It stops here, or after `moves` moves, whichever comes first...
    deadline: Instant,
    moves: u64,
    /// ...unless it runs beside a root relaxation: then it goes on until
    /// the flag is set or the second deadline passes.
    until: Option<(&'a AtomicBool, Instant)>,
    /// Where each cheaper cover's cost is published.
    upper: Option<&'a AtomicUsize>,
    /// The last step seen, and the step of the last smaller cover.
    step: AtomicU64,
    improved_at: AtomicU64,
}

impl Stop for Walk<'_> {
    fn improved(&self, cost: u64) {
        self.improved_at
            .store(self.step.load(Ordering::Relaxed), Ordering::Relaxed);
        if let Some(upper) = self.upper {
            upper.fetch_min(cost as usize, Ordering::Relaxed);
        }
    }

    fn stops(&self, step: u64) -> bool {
        self.step.store(step, Ordering::Relaxed);
        let now = Instant::now();
        let spent = step >= self.moves || now >= self.deadline;
        // Beside a root relaxation the walk goes on while it still finds
        // smaller covers now and then: it stops after `STAGNATION` times
        // its moves without one (the root needs the processor more).
        let stagnant = step - self.improved_at.load(Ordering::Relaxed) > STAGNATION * self.moves;
        match self.until {
            Some((done, end)) => spent && (done.load(Ordering::Relaxed) || now >= end || stagnant),
            None => spent,
        }
    }
}

/// A hitting-set instance over local element ids, each naming an element
/// of the caller's instance (its *name*).
#[derive(Clone)]
pub(super) struct Instance {
    /// The name of each element.
    pub(super) names: Vec<usize>,
    pub(super) sets: Vec<Set>,
    pub(super) alive: Vec<bool>,
    /// The Lagrange multiplier of each set (warm start for the bound).
    pub(super) lambda: Vec<f64>,
    /// For each element, the sets containing it (possibly dead).
    pub(super) of: Vec<Vec<u32>>,
    /// What taking each element costs, indexed by element; `None`: 1 each.
    weights: Option<Arc<[u64]>>,
}

impl Instance {
    pub(super) fn new(
        names: Vec<usize>,
        sets: Vec<Set>,
        lambda: Option<Vec<f64>>,
        weights: Option<Arc<[u64]>>,
    ) -> Self {
        let mut of = vec![Vec::new(); names.len()];
        for (i, s) in sets.iter().enumerate() {
            for &x in s {
                of[x as usize].push(i as u32);
            }
        }
        let alive = vec![true; sets.len()];
        let lambda = lambda.unwrap_or_else(|| vec![0.0; sets.len()]);
        Instance {
            names,
            sets,
            alive,
            lambda,
            of,
            weights,
        }
    }

    /// What identifies the instance: its names, sets and costs.
    fn key(&self) -> ComponentKey {
        ComponentKey {
            names: self.names.clone(),
            sets: self.sets.clone(),
            weights: self
                .weights
                .as_ref()
                .map(|w| self.names.iter().map(|&v| w[v]).collect()),
        }
    }

    /// What taking element `x` costs.
    pub(super) fn weight(&self, x: usize) -> u64 {
        self.weights.as_ref().map_or(1, |w| w[self.names[x]])
    }

    /// The cost of taking `values` (names, not local elements).
    pub(super) fn cost_of(&self, values: &[usize]) -> usize {
        match &self.weights {
            Some(w) => values.iter().map(|&v| w[v] as usize).sum(),
            None => values.len(),
        }
    }

    fn live_of(&self, x: usize) -> impl Iterator<Item = u32> + '_ {
        self.of[x]
            .iter()
            .copied()
            .filter(|&s| self.alive[s as usize])
    }

    /// Takes `x`: every set containing it is hit.
    fn take(&mut self, x: usize) {
        for i in 0..self.of[x].len() {
            let s = self.of[x][i] as usize;
            self.alive[s] = false;
        }
        self.of[x].clear();
    }

    /// Forbids `x`: it leaves every set. Returns false if a set empties.
    fn forbid(&mut self, x: usize) -> bool {
        let mut ok = true;
        let list = std::mem::take(&mut self.of[x]);
        for &s in &list {
            let s = s as usize;
            if !self.alive[s] {
                continue;
            }
            if let Ok(i) = self.sets[s].binary_search(&(x as u32)) {
                self.sets[s].remove(i);
            }
            if self.sets[s].is_empty() {
                ok = false;
            }
        }
        ok
    }

    /// Applies the reduction rules to a fixed point; the names of forced
    /// elements go to `chosen`. Returns false if some set cannot be hit.
    ///
    /// The rules: a free element is taken; a singleton forces its element;
    /// a set containing another live set is implied by it (of two equal
    /// sets the later goes); an element whose live sets all contain another
    /// element, no dearer, is dominated by it (some optimum does without
    /// it). They are applied from worklists, so that each change costs what
    /// it touches: a set is examined when it shrinks (new subsets arise
    /// only so, and every superset of a set contains its element of fewest
    /// sets), an element when it loses a set (new dominations arise only
    /// so: sets never gain elements, and degrees only fall).
    pub(super) fn reduce(&mut self, chosen: &mut Vec<usize>) -> bool {
        for x in 0..self.of.len() {
            if self.weight(x) == 0 && !self.of[x].is_empty() {
                chosen.push(self.names[x]);
                self.take(x);
            }
        }
        let alive = &self.alive;
        let mut degree: Vec<usize> = self
            .of
            .iter_mut()
            .map(|list| {
                list.retain(|&s| alive[s as usize]);
                list.len()
            })
            .collect();
        let mut work = Worklists {
            sets: (0..self.sets.len() as u32)
                .rev()
                .filter(|&s| self.alive[s as usize])
                .collect(),
            set_queued: self.alive.clone(),
            elements: (0..self.of.len() as u32).rev().collect(),
            element_queued: vec![true; self.of.len()],
            implied: Vec::new(),
        };
        loop {
            if let Some(t) = work.sets.pop() {
                let t = t as usize;
                work.set_queued[t] = false;
                if !self.alive[t] {
                    continue;
                }
                match self.sets[t].len() {
                    0 => return false,
                    1 => {
                        let x = self.sets[t][0] as usize;
                        chosen.push(self.names[x]);
                        self.take_tracked(x, &mut degree, &mut work);
                    }
                    _ => self.drop_supersets(t, &mut degree, &mut work),
                }
            } else if let Some(x) = work.elements.pop() {
                let x = x as usize;
                work.element_queued[x] = false;
                if degree[x] > 0 && self.is_dominated(x, &degree) {
                    self.forbid_tracked(x, &mut degree, &mut work);
                }
            } else {
                break;
            }
        }
        let alive = &self.alive;
        for list in &mut self.of {
            list.retain(|&s| alive[s as usize]);
        }
        true
    }

    /// Drops the live sets that contain the live set `t`, and `t` itself
    /// if an earlier set equals it.
    fn drop_supersets(&mut self, t: usize, degree: &mut [usize], work: &mut Worklists) {
        let set = &self.sets[t];
        let pivot = *set
            .iter()
            .min_by_key(|&&x| degree[x as usize])
            .expect("a set of two or more");
        let mut implied = std::mem::take(&mut work.implied);
        for &s in &self.of[pivot as usize] {
            let s = s as usize;
            if s == t || !self.alive[s] || self.sets[s].len() < set.len() {
                continue;
            }
            if is_subset(set, &self.sets[s]) {
                if self.sets[s].len() == set.len() && s < t {
                    implied.clear();
                    implied.push(t);
                    break;
                }
                implied.push(s);
            }
        }
        for &s in &implied {
            self.kill(s, degree, work);
        }
        implied.clear();
        work.implied = implied;
    }

    /// Whether some other element, no dearer, lies in every live set of `x`
    /// (ties between equal elements go to the earlier one).
    fn is_dominated(&self, x: usize, degree: &[usize]) -> bool {
        let mut sets = self.live_of(x);
        let Some(first) = sets.next() else {
            return false;
        };
        let rest: Vec<u32> = sets.collect();
        self.sets[first as usize].iter().any(|&y| {
            let y = y as usize;
            let (wx, wy) = (self.weight(x), self.weight(y));
            y != x
                && wy <= wx
                && degree[y] >= degree[x]
                && (wy < wx || degree[y] > degree[x] || y < x)
                && rest
                    .iter()
                    .all(|&s| self.sets[s as usize].binary_search(&(y as u32)).is_ok())
        })
    }

    /// Marks the live set `s` hit or implied; its elements lose it.
    fn kill(&mut self, s: usize, degree: &mut [usize], work: &mut Worklists) {
        self.alive[s] = false;
        for &x in &self.sets[s] {
            degree[x as usize] -= 1;
            work.element(x);
        }
    }

    /// [`Instance::take`], keeping the degrees and worklists.
    fn take_tracked(&mut self, x: usize, degree: &mut [usize], work: &mut Worklists) {
        for i in 0..self.of[x].len() {
            let s = self.of[x][i] as usize;
            if self.alive[s] {
                self.kill(s, degree, work);
            }
        }
        self.of[x].clear();
    }

    /// [`Instance::forbid`], keeping the degrees and worklists: every set
    /// that loses `x` is examined again (an empty one ends the reduction).
    fn forbid_tracked(&mut self, x: usize, degree: &mut [usize], work: &mut Worklists) {
        let list = std::mem::take(&mut self.of[x]);
        for &s in &list {
            if !self.alive[s as usize] {
                continue;
            }
            let set = &mut self.sets[s as usize];
            if let Ok(i) = set.binary_search(&(x as u32)) {
                set.remove(i);
            }
            work.set(s);
        }
        degree[x] = 0;
    }

    /// The connected components of the live sets, each as a compact instance.
    fn components(&self) -> Vec<Instance> {
        let n = self.of.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for (s, set) in self.sets.iter().enumerate() {
            if !self.alive[s] {
                continue;
            }
            for w in set.windows(2) {
                let (a, b) = (
                    find(&mut parent, w[0] as usize),
                    find(&mut parent, w[1] as usize),
                );
                parent[a] = b;
            }
        }
        let mut group_of: Vec<usize> = vec![usize::MAX; n];
        let mut groups: Vec<(Vec<usize>, Vec<Set>, Vec<f64>)> = Vec::new();
        let mut local = vec![u32::MAX; n];
        for (s, set) in self.sets.iter().enumerate() {
            if !self.alive[s] {
                continue;
            }
            let root = find(&mut parent, set[0] as usize);
            if group_of[root] == usize::MAX {
                group_of[root] = groups.len();
                groups.push(Default::default());
            }
            let g = &mut groups[group_of[root]];
            let renamed: Set = set
                .iter()
                .map(|&x| {
                    let x = x as usize;
                    if local[x] == u32::MAX {
                        local[x] = g.0.len() as u32;
                        g.0.push(self.names[x]);
                    }
                    local[x]
                })
                .collect();
            let mut renamed = renamed;
            renamed.sort_unstable();
            g.1.push(renamed);
            g.2.push(self.lambda[s]);
        }
        groups
            .into_iter()
            .map(|(names, sets, lambda)| {
                Instance::new(names, sets, Some(lambda), self.weights.clone())
            })
            .collect()
    }

    fn is_empty(&self) -> bool {
        !self.alive.iter().any(|&a| a)
    }

    /// The root relaxation (stopping early once its bound meets `upper`),
    /// solved while the local search improves `cover` on a second thread;
    /// the walk goes on until the root is solved, and at least until
    /// `walk_until` or its `moves`, and publishes its cheaper covers' costs
    /// to `upper`.
    fn root_beside_local_search(
        &self,
        cover: &[usize],
        upper: &AtomicUsize,
        walk_until: Instant,
        moves: u64,
        deadline: Instant,
    ) -> (Vec<usize>, Option<LpRoot<'_>>) {
        let root_done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let local = scope.spawn(|| {
                let walk = Walk {
                    deadline: walk_until,
                    moves,
                    until: Some((&root_done, deadline)),
                    upper: Some(upper),
                    step: AtomicU64::new(0),
                    improved_at: AtomicU64::new(0),
                };
                self.local_search(cover, &walk)
            });
            let lp = lp_root(self, upper, deadline);
            root_done.store(true, Ordering::Relaxed);
            let found = local
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (found, lp)
        })
    }

    /// Improves the hitting set `cover` (names) by the row weighting local
    /// search until `walk` stops it; returns the cheapest cover seen.
    fn local_search(&self, cover: &[usize], walk: &Walk<'_>) -> Vec<usize> {
        let live: Vec<&Set> = (0..self.sets.len())
            .filter(|&s| self.alive[s])
            .map(|s| &self.sets[s])
            .collect();
        let max_name = self.names.iter().copied().max().unwrap_or(0);
        let mut local = vec![usize::MAX; max_name + 1];
        for (x, &name) in self.names.iter().enumerate() {
            local[name] = x;
        }
        let start: Vec<usize> = cover
            .iter()
            .filter_map(|&v| local.get(v).copied().filter(|&x| x != usize::MAX))
            .collect();
        let costs: Vec<u64> = (0..self.of.len()).map(|x| self.weight(x)).collect();
        let found: Vec<usize> = row_weighting(&costs, &live, &start, walk)
            .into_iter()
            .map(|x| self.names[x])
            .collect();
        if self.cost_of(&found) >= self.cost_of(cover) {
            return cover.to_vec();
        }
        found
    }

    /// A hitting set (names) by repeatedly taking the element in most
    /// live sets per unit of cost (the last such element on ties). Scores
    /// only fall as sets are hit, so a heap of possibly stale scores gives
    /// the best element once its recomputed score is still on top.
    fn greedy(&self) -> Vec<usize> {
        let mut inst = self.clone();
        let mut chosen = Vec::new();
        let per_cost =
            |inst: &Instance, x: usize| inst.live_of(x).count() as f64 / inst.weight(x) as f64;
        let mut heap: BinaryHeap<(TotalF64, usize)> = (0..inst.of.len())
            .filter(|&x| inst.live_of(x).next().is_some())
            .map(|x| (TotalF64(per_cost(&inst, x)), x))
            .collect();
        while let Some((TotalF64(score), x)) = heap.pop() {
            let now = per_cost(&inst, x);
            if now == 0.0 {
                continue;
            }
            if now < score {
                heap.push((TotalF64(now), x));
                continue;
            }
            chosen.push(inst.names[x]);
            inst.take(x);
        }
        chosen
    }

    /// Pairwise disjoint live sets, smallest first: each needs its own
    /// element, at least its cheapest.
    fn packing_bound(&self) -> usize {
        let mut order: Vec<&Set> = self
            .sets
            .iter()
            .zip(&self.alive)
            .filter(|(_, &a)| a)
            .map(|(s, _)| s)
            .collect();
        order.sort_by_key(|s| s.len());
        let mut used = vec![false; self.of.len()];
        let mut bound = 0;
        for s in order {
            if s.iter().all(|&x| !used[x as usize]) {
                for &x in s {
                    used[x as usize] = true;
                }
                bound += s
                    .iter()
                    .map(|&x| self.weight(x as usize))
                    .min()
                    .unwrap_or(0) as usize;
            }
        }
        bound
    }

    /// A lower bound on the cost of a hitting set: the better of the
    /// packing bound and the Lagrangian (LP) bound, which relaxes "every
    /// live set is hit" with one multiplier per set, improved by subgradient
    /// steps from the instance's multipliers (Held, Wolfe and Crowder,
    /// "Validation of subgradient optimization", Math. Prog. 1974). Also
    /// returns the Lagrangian value and the reduced cost of every element
    /// under the multipliers that gave it (for fixing by reduced cost).
    fn bound(&mut self, upper: usize, rounds: usize) -> (usize, f64, Vec<f64>) {
        let n = self.of.len();
        let packing = self.packing_bound();
        if packing >= upper {
            return (packing, packing as f64, vec![0.0; n]);
        }
        let live: Vec<usize> = (0..self.sets.len()).filter(|&s| self.alive[s]).collect();
        let mut cost = vec![0.0f64; n];
        let mut best = f64::NEG_INFINITY;
        let mut best_cost = vec![0.0; n];
        let mut best_lambda: Vec<f64> = self.lambda.clone();
        let mut mu = 1.0;
        let mut stall = 0;
        let mut g = vec![0.0f64; self.sets.len()];
        for _ in 0..rounds.max(1) {
            for (x, c) in cost.iter_mut().enumerate() {
                *c = self.weight(x) as f64;
            }
            let mut value = 0.0;
            for &s in &live {
                value += self.lambda[s];
                for &x in &self.sets[s] {
                    cost[x as usize] -= self.lambda[s];
                }
            }
            for &c in &cost {
                if c < 0.0 {
                    value += c;
                }
            }
            if value > best + 1e-9 {
                best = value;
                best_cost.copy_from_slice(&cost);
                best_lambda.copy_from_slice(&self.lambda);
                stall = 0;
            } else {
                stall += 1;
                if stall >= 5 {
                    mu *= 0.5;
                    stall = 0;
                }
            }
            // Done once the bound reaches the incumbent.
            if ceil(best) >= upper || mu < 1e-3 {
                break;
            }
            let mut norm = 0.0;
            for &s in &live {
                let hit = self.sets[s]
                    .iter()
                    .filter(|&&x| cost[x as usize] < 0.0)
                    .count();
                g[s] = 1.0 - hit as f64;
                if g[s] < 0.0 && self.lambda[s] <= 0.0 {
                    g[s] = 0.0;
                }
                norm += g[s] * g[s];
            }
            if norm == 0.0 {
                break;
            }
            let target = (upper as f64 - 1.0).max(best + 1.0);
            let step = mu * (target - value) / norm;
            for &s in &live {
                self.lambda[s] = (self.lambda[s] + step * g[s]).max(0.0);
            }
        }
        self.lambda.copy_from_slice(&best_lambda);
        let lagrange = ceil(best);
        (packing.max(lagrange), best, best_cost)
    }
}

/// What [`Instance::reduce`] has yet to examine: sets that shrank and
/// elements that lost a set, each queued once.
struct Worklists {
    sets: Vec<u32>,
    set_queued: Vec<bool>,
    elements: Vec<u32>,
    element_queued: Vec<bool>,
    /// Scratch: the sets one shrunk set implies.
    implied: Vec<usize>,
}

impl Worklists {
    fn set(&mut self, s: u32) {
        if !std::mem::replace(&mut self.set_queued[s as usize], true) {
            self.sets.push(s);
        }
    }

    fn element(&mut self, x: u32) {
        if !std::mem::replace(&mut self.element_queued[x as usize], true) {
            self.elements.push(x);
        }
    }
}

pub(super) fn ceil(x: f64) -> usize {
    (x - EPS).ceil().max(0.0) as usize
}

pub(super) struct Solver {
    pub(super) deadline: Instant,
    pub(super) nodes: u64,
    pub(super) timed_out: bool,
}

impl Solver {
    /// Counts a search node; false once the deadline has passed.
    pub(super) fn enter_node(&mut self) -> bool {
        if self.timed_out {
            return false;
        }
        self.nodes += 1;
        if Instant::now() >= self.deadline {
            self.timed_out = true;
        }
        !self.timed_out
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
                        self.timed_out = true;
                    } else {
                        self.search(fallback, &mut Vec::new(), best, true);
                    }
                }
                root
            }
        }
    }

    /// Extends `picked` (names) to a hitting set of `inst`, replacing
    /// `best` when it finds one smaller than it.
    fn search(
        &mut self,
        mut inst: Instance,
        picked: &mut Vec<usize>,
        best: &mut Vec<usize>,
        root: bool,
    ) {
        if !self.enter_node() {
            return;
        }
        let mark = picked.len();
        let done = |picked: &mut Vec<usize>| picked.truncate(mark);
        if !inst.reduce(picked) || picked.len() >= best.len() {
            return done(picked);
        }
        if inst.is_empty() {
            *best = picked.clone();
            return done(picked);
        }
        let budget = best.len() - picked.len();
        // Independent parts are solved one after the other, each to its own
        // optimum, while their sum can still beat `best`.
        let parts = inst.components();
        if parts.len() > 1 && !root {
            let mut total = picked.clone();
            let mut parts: Vec<(usize, Instance)> = parts
                .into_iter()
                .map(|mut part| (part.bound(budget, NODE_ROUNDS).0, part))
                .collect();
            let mut floor: usize = parts.iter().map(|p| p.0).sum();
            if picked.len() + floor >= best.len() {
                return done(picked);
            }
            parts.sort_by_key(|p| p.1.sets.len());
            for (part_bound, part) in parts {
                floor -= part_bound;
                let mut part_best = part.greedy();
                if part_bound < part_best.len() {
                    let mut sub = Vec::new();
                    self.search(part, &mut sub, &mut part_best, false);
                    if self.timed_out {
                        return done(picked);
                    }
                }
                total.extend(part_best);
                if total.len() + floor >= best.len() {
                    return done(picked);
                }
            }
            *best = total;
            return done(picked);
        }
        let mut inst = parts.into_iter().next().unwrap_or(inst);
        let rounds = if root { ROOT_ROUNDS } else { NODE_ROUNDS };
        let (lb, value, cost) = inst.bound(budget, rounds);
        if lb >= budget {
            return done(picked);
        }
        // Fixing by reduced cost: taking an element of positive reduced
        // cost, or leaving out one of negative reduced cost, raises the
        // Lagrangian value by that cost.
        let limit = budget as f64 - 1.0 + EPS;
        let mut forced = Vec::new();
        #[allow(clippy::needless_range_loop)] // `x` also indexes the instance.
        for x in 0..inst.of.len() {
            if inst.live_of(x).next().is_none() {
                continue;
            }
            if cost[x] > 0.0 && value + cost[x] > limit {
                if !inst.forbid(x) {
                    return done(picked);
                }
            } else if cost[x] < 0.0 && value - cost[x] > limit {
                forced.push(x);
            }
        }
        for x in forced {
            if inst.live_of(x).next().is_some() {
                picked.push(inst.names[x]);
                inst.take(x);
            }
        }
        if picked.len() >= best.len() {
            return done(picked);
        }
        if inst.is_empty() {
            *best = picked.clone();
            return done(picked);
        }
        // Branch on the element of least reduced cost (the one the bound
        // most wants), ties by the number of sets.
        let x = (0..inst.of.len())
            .filter(|&x| inst.live_of(x).next().is_some())
            .min_by(|&a, &b| {
                cost[a]
                    .partial_cmp(&cost[b])
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| inst.live_of(b).count().cmp(&inst.live_of(a).count()))
            })
            .expect("a live set has elements");
        let mut with = inst.clone();
        with.take(x);
        picked.push(inst.names[x]);
        self.search(with, picked, best, false);
        picked.pop();
        if inst.forbid(x) {
            self.search(inst, picked, best, false);
        }
        done(picked)
    }
}
