//! The combinatorial branch and bound of small unit-cost components:
//! branch on the element the Lagrangian bound most wants (take it, or
//! never), reducing again at every node.

use super::hitting_set::{Solver, EPS, NODE_ROUNDS, ROOT_ROUNDS};
use super::instance::Instance;

impl Solver {
    /// Extends `picked` (names) to a hitting set of `inst`, replacing
    /// `best` when it finds one smaller than it.
    pub(super) fn search(
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
                    if self.stopped {
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
