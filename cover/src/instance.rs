//! A hitting-set instance over local elements: the reduction rules,
//! components, the greedy cover, the local search and the packing and
//! Lagrangian bounds.

use std::collections::BinaryHeap;
use std::sync::Arc;

use super::hitting_set::{ceil, Walk};
use super::local_search::row_weighting;
use super::lp_branch::{lp_root, LpRoot};
use super::memo::ComponentKey;
use super::set::{is_subset, Set};
use crate::budget::Budget;
use crate::cuts::TotalF64;

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
    pub(super) weights: Option<Arc<[u64]>>,
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
    pub(super) fn key(&self) -> ComponentKey {
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

    pub(super) fn live_of(&self, x: usize) -> impl Iterator<Item = u32> + '_ {
        self.of[x]
            .iter()
            .copied()
            .filter(|&s| self.alive[s as usize])
    }

    /// Takes `x`: every set containing it is hit.
    pub(super) fn take(&mut self, x: usize) {
        for i in 0..self.of[x].len() {
            let s = self.of[x][i] as usize;
            self.alive[s] = false;
        }
        self.of[x].clear();
    }

    /// Forbids `x`: it leaves every set. Returns false if a set empties.
    pub(super) fn forbid(&mut self, x: usize) -> bool {
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
    pub(super) fn drop_supersets(&mut self, t: usize, degree: &mut [usize], work: &mut Worklists) {
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
    pub(super) fn is_dominated(&self, x: usize, degree: &[usize]) -> bool {
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
    pub(super) fn kill(&mut self, s: usize, degree: &mut [usize], work: &mut Worklists) {
        self.alive[s] = false;
        for &x in &self.sets[s] {
            degree[x as usize] -= 1;
            work.element(x);
        }
    }

    /// [`Instance::take`], keeping the degrees and worklists.
    pub(super) fn take_tracked(&mut self, x: usize, degree: &mut [usize], work: &mut Worklists) {
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
    pub(super) fn forbid_tracked(&mut self, x: usize, degree: &mut [usize], work: &mut Worklists) {
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
    pub(super) fn components(&self) -> Vec<Instance> {
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

    pub(super) fn is_empty(&self) -> bool {
        !self.alive.iter().any(|&a| a)
    }

    /// The root relaxation (stopping early once its bound meets the cost
    /// of `cover`) and the local search from `cover`, on two threads when
    /// `threads` allows: neither reads what the other finds, so the result
    /// is the same on one.
    pub(super) fn root_beside_local_search(
        &self,
        cover: &[usize],
        moves: u64,
        budget: &Budget,
        threads: usize,
    ) -> (Vec<usize>, Option<LpRoot<'_>>) {
        let upper = self.cost_of(cover);
        let walk = Walk::new(moves, true, budget);
        if threads < 2 {
            let lp = lp_root(self, upper, budget);
            return (self.local_search(cover, &walk), lp);
        }
        std::thread::scope(|scope| {
            let local = scope.spawn(|| self.local_search(cover, &walk));
            let lp = lp_root(self, upper, budget);
            let found = local
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (found, lp)
        })
    }

    /// Improves the hitting set `cover` (names) by the row weighting local
    /// search until `walk` stops it; returns the cheapest cover seen.
    pub(super) fn local_search(&self, cover: &[usize], walk: &Walk<'_>) -> Vec<usize> {
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
    pub(super) fn greedy(&self) -> Vec<usize> {
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
    pub(super) fn packing_bound(&self) -> usize {
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
    pub(super) fn bound(&mut self, upper: usize, rounds: usize) -> (usize, f64, Vec<f64>) {
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
pub(super) struct Worklists {
    sets: Vec<u32>,
    set_queued: Vec<bool>,
    elements: Vec<u32>,
    element_queued: Vec<bool>,
    /// Scratch: the sets one shrunk set implies.
    implied: Vec<usize>,
}

impl Worklists {
    pub(super) fn set(&mut self, s: u32) {
        if !std::mem::replace(&mut self.set_queued[s as usize], true) {
            self.sets.push(s);
        }
    }

    pub(super) fn element(&mut self, x: u32) {
        if !std::mem::replace(&mut self.element_queued[x as usize], true) {
            self.elements.push(x);
        }
    }
}
