//! The fallback of the exact strategy: branch and bound on one component
//! of the DAG itself, bounded by the level dynamic program and searched on
//! cores (the [parent module](super) describes both, with references).

use kildall_cover::Budget;

use super::{Fix, ASCENT_ROUNDS, EPS, INF};
use crate::greedy::{drop_redundant, solve_greedy};
use crate::problem::{NodeKind, Problem, Violation};

/// Branch and bound on one component.
pub(super) struct Search<'p> {
    p: &'p Problem,
    fix: Vec<Fix>,
    levels: usize,
    /// `weight[u][i]`: the charge of the use of input `i` by `u` (the
    /// multipliers; the uses of a value sum to 1).
    weight: Vec<Vec<f64>>,
    /// The tightest level each use was asked for in the last traceback.
    asked: Vec<Vec<usize>>,
    roots: Vec<usize>,
    /// `u[v * levels + x]`: least charge so that `v` has noise at most
    /// `encode + x` before its reduction.
    u: Vec<f64>,
    /// `h[v * levels + x]`: least charge so that `v` leaves with at most `encode + x`.
    h: Vec<f64>,
    pub(super) best: Vec<bool>,
    pub(super) best_cost: u64,
    /// A first placement to start from, if any.
    pub(super) hint: Option<Vec<bool>>,
    /// What reducing each value costs.
    cost: Vec<f64>,
    pub(super) nodes: u64,
    budget: Budget,
    pub(super) timed_out: bool,
}

impl<'p> Search<'p> {
    pub(super) fn new(p: &'p Problem, fix: Vec<Fix>, budget: Budget) -> Self {
        let n = p.len();
        let params = p.params();
        let levels = (params.max - params.encode + 1) as usize;
        let users = p.users();
        let weight = p
            .nodes()
            .iter()
            .map(|node| {
                node.inputs
                    .iter()
                    .map(|&a| 1.0 / users[a].len() as f64)
                    .collect()
            })
            .collect();
        let asked = p
            .nodes()
            .iter()
            .map(|node| vec![usize::MAX; node.inputs.len()])
            .collect();
        let roots = (0..n).filter(|&v| users[v].is_empty()).collect();
        Search {
            p,
            fix,
            levels,
            weight,
            asked,
            roots,
            u: vec![0.0; n * levels],
            h: vec![0.0; n * levels],
            best: Vec::new(),
            best_cost: u64::MAX,
            hint: None,
            cost: p.nodes().iter().map(|node| node.cost as f64).collect(),
            nodes: 0,
            budget,
            timed_out: false,
        }
    }

    /// Runs the search; returns the root bound, `None` if infeasible.
    pub(super) fn run(&mut self) -> Option<u64> {
        let forced: Vec<bool> = vec![false; self.p.len()];
        if let Some(mut greedy) = solve_greedy(self.p) {
            drop_redundant(self.p, &mut greedy, &forced);
            self.offer(greedy);
        }
        if let Some(hint) = self.hint.take() {
            if self.p.is_legal(&hint) {
                self.offer(hint);
            }
        }
        let root = self.ascend();
        if !root.is_finite() {
            return None;
        }
        let root = ceil(root);
        let mut fix = self.fix.clone();
        self.dfs(&mut fix);
        self.fix = fix;
        if self.best_cost == u64::MAX {
            return None;
        }
        Some(root.min(self.best_cost))
    }

    fn offer(&mut self, mut candidate: Vec<bool>) {
        if self.p.cost_of(&candidate) < self.best_cost {
            let forced = vec![false; candidate.len()];
            drop_redundant(self.p, &mut candidate, &forced);
            self.best_cost = self.p.cost_of(&candidate);
            self.best = candidate;
        }
    }

    fn dfs(&mut self, fix: &mut Vec<Fix>) {
        if self.timed_out {
            return;
        }
        if self.budget.exhausted() {
            self.timed_out = true;
            return;
        }
        self.nodes += 1;
        self.budget.charge(1);
        std::mem::swap(&mut self.fix, fix);
        let lb = self.bound();
        if !lb.is_finite() || ceil(lb) >= self.best_cost {
            std::mem::swap(&mut self.fix, fix);
            return;
        }
        let (decision, mixed) = self.traceback();
        std::mem::swap(&mut self.fix, fix);
        let (_, violation) = self.p.evaluate(&decision);
        match violation {
            None => {
                let cost = self.p.cost_of(&decision);
                self.offer(decision);
                if cost <= ceil(lb) || ceil(lb) >= self.best_cost {
                    return;
                }
                let Some(v) = mixed.or_else(|| (0..fix.len()).find(|&v| fix[v] == Fix::Free))
                else {
                    return;
                };
                for choice in [Fix::Reduce, Fix::Keep] {
                    fix[v] = choice;
                    self.dfs(fix);
                }
                fix[v] = Fix::Free;
            }
            Some(violation) => {
                let core = self.core(&decision, fix, violation);
                for &c in &core {
                    fix[c] = Fix::Reduce;
                    self.dfs(fix);
                    fix[c] = Fix::Keep;
                    if self.timed_out {
                        break;
                    }
                }
                for &c in &core {
                    fix[c] = Fix::Free;
                }
            }
        }
    }

    /// Improves the multipliers at the root: each value's charge moves toward
    /// the use that asks it for the least noise (that use's table value is the
    /// largest, and the bound is the charge-weighted sum of them). Any
    /// multipliers give a valid bound; the best found is kept.
    fn ascend(&mut self) -> f64 {
        let l = self.levels;
        let mut best = self.bound();
        let mut best_weight = self.weight.clone();
        if !best.is_finite() {
            return best;
        }
        let users = self.p.users();
        let mut step = 0.5;
        for _ in 0..ASCENT_ROUNDS {
            if self.budget.exhausted() {
                break;
            }
            let _ = self.traceback();
            // For each value, the use with the largest table value.
            let mut target: Vec<(f64, usize, usize)> = vec![(-1.0, 0, 0); self.p.len()];
            for (v, node) in self.p.nodes().iter().enumerate() {
                for (i, &a) in node.inputs.iter().enumerate() {
                    let x = self.asked[v][i];
                    let value = if x == usize::MAX {
                        0.0
                    } else {
                        self.h[a * l + x]
                    };
                    if value.is_finite() && value > target[a].0 {
                        target[a] = (value, v, i);
                    }
                }
            }
            for (a, &(value, v, i)) in target.iter().enumerate() {
                if value < 0.0 || users[a].len() < 2 {
                    continue;
                }
                for &u in &users[a] {
                    for (j, &input) in self.p.nodes()[u].inputs.iter().enumerate() {
                        if input == a {
                            self.weight[u][j] *= 1.0 - step;
                        }
                    }
                }
                self.weight[v][i] += step;
            }
            let value = self.bound();
            if value > best + EPS {
                best = value;
                best_weight = self.weight.clone();
            }
            step *= 0.8;
        }
        self.weight = best_weight;
        self.bound()
    }

    /// The relaxation's value under the current fixings.
    #[allow(clippy::needless_range_loop)] // `v` indexes four tables.
    fn bound(&mut self) -> f64 {
        let params = self.p.params();
        let e = params.encode as usize;
        let l = self.levels;
        let nodes = self.p.nodes();
        for v in 0..nodes.len() {
            let base = v * l;
            for x in 0..l {
                let value = match nodes[v].kind {
                    NodeKind::Source(c) => {
                        if c as usize <= e + x {
                            0.0
                        } else {
                            INF
                        }
                    }
                    NodeKind::Add => {
                        if x == 0 {
                            INF
                        } else {
                            nodes[v]
                                .inputs
                                .iter()
                                .enumerate()
                                .map(|(i, &a)| charge(self.weight[v][i], self.h[a * l + x - 1]))
                                .sum()
                        }
                    }
                    NodeKind::Join => nodes[v]
                        .inputs
                        .iter()
                        .enumerate()
                        .map(|(i, &a)| charge(self.weight[v][i], self.h[a * l + x]))
                        .sum(),
                    NodeKind::Mul => self.mul_best(v, x).0,
                    NodeKind::Scale(bits) => match x.checked_sub(bits as usize) {
                        Some(y) => charge(self.weight[v][0], self.h[nodes[v].inputs[0] * l + y]),
                        None => INF,
                    },
                };
                self.u[base + x] = value;
            }
            let cap = (nodes[v].cap as usize - e).min(l - 1);
            let reduce = if self.fix[v] != Fix::Keep {
                self.cost[v] + self.u[base + l - 1]
            } else {
                INF
            };
            for x in 0..l {
                let keep = if self.fix[v] != Fix::Reduce {
                    self.u[base + x.min(cap)]
                } else {
                    INF
                };
                self.h[base + x] = keep.min(reduce);
            }
        }
        self.roots.iter().map(|&r| self.h[r * l + l - 1]).sum()
    }

    /// The best split of a `mul`'s budget `encode + x` between its inputs:
    /// the charge and the inputs' levels.
    fn mul_best(&self, v: usize, x: usize) -> (f64, usize, usize) {
        let e = self.p.params().encode as usize;
        let l = self.levels;
        let (a, b) = (self.p.nodes()[v].inputs[0], self.p.nodes()[v].inputs[1]);
        // eff(a) + eff(b) <= e + x with eff = e + y: ya + yb <= x - e.
        let Some(budget) = x.checked_sub(e) else {
            return (INF, 0, 0);
        };
        let mut best = (INF, 0, 0);
        for ya in 0..=budget.min(l - 1) {
            let yb = (budget - ya).min(l - 1);
            let c = charge(self.weight[v][0], self.h[a * l + ya])
                + charge(self.weight[v][1], self.h[b * l + yb]);
            if c < best.0 {
                best = (c, ya, yb);
            }
        }
        best
    }

    /// A placement read off the relaxation (a value is reduced when any of
    /// its copies is) and a free value whose copies disagree, if any.
    fn traceback(&mut self) -> (Vec<bool>, Option<usize>) {
        for asked in &mut self.asked {
            asked.iter_mut().for_each(|a| *a = usize::MAX);
        }
        let n = self.p.len();
        let l = self.levels;
        let nodes = self.p.nodes();
        let mut demand = vec![0u64; n];
        for &r in &self.roots {
            demand[r] |= 1 << (l - 1);
        }
        let mut decision = vec![false; n];
        let mut mixed = None;
        for v in (0..n).rev() {
            let base = v * l;
            let cap = (nodes[v].cap as usize - self.p.params().encode as usize).min(l - 1);
            let mut saw = [false; 2];
            let mut targets = 0u64;
            let mut bits = demand[v];
            while bits != 0 {
                let x = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let keep = if self.fix[v] != Fix::Reduce {
                    self.u[base + x.min(cap)]
                } else {
                    INF
                };
                let reduce = if self.fix[v] != Fix::Keep {
                    self.cost[v] + self.u[base + l - 1]
                } else {
                    INF
                };
                if reduce < keep - EPS {
                    saw[1] = true;
                    targets |= 1 << (l - 1);
                } else if keep.is_finite() {
                    saw[0] = true;
                    targets |= 1 << x.min(cap);
                }
            }
            decision[v] = saw[1] || self.fix[v] == Fix::Reduce;
            if saw[0] && saw[1] && self.fix[v] == Fix::Free && mixed.is_none() {
                mixed = Some(v);
            }
            while targets != 0 {
                let t = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                match nodes[v].kind {
                    NodeKind::Source(_) => {}
                    NodeKind::Add | NodeKind::Join => {
                        let y = if nodes[v].kind == NodeKind::Add {
                            t.saturating_sub(1)
                        } else {
                            t
                        };
                        for (i, &a) in nodes[v].inputs.iter().enumerate() {
                            demand[a] |= 1 << y;
                            self.asked[v][i] = self.asked[v][i].min(y);
                        }
                    }
                    NodeKind::Scale(bits) => {
                        if let Some(y) = t.checked_sub(bits as usize) {
                            demand[nodes[v].inputs[0]] |= 1 << y;
                            self.asked[v][0] = self.asked[v][0].min(y);
                        }
                    }
                    NodeKind::Mul => {
                        let (c, ya, yb) = self.mul_best(v, t);
                        if c.is_finite() {
                            demand[nodes[v].inputs[0]] |= 1 << ya;
                            demand[nodes[v].inputs[1]] |= 1 << yb;
                            self.asked[v][0] = self.asked[v][0].min(ya);
                            self.asked[v][1] = self.asked[v][1].min(yb);
                        }
                    }
                }
            }
        }
        (decision, mixed)
    }

    /// A minimal set of free values, unreduced in `decision`, of which every
    /// legal completion of `fix` reduces one; ordered latest first.
    fn core(&self, decision: &[bool], fix: &[Fix], violation: Violation) -> Vec<usize> {
        let nodes = self.p.nodes();
        let u = violation.node;
        let mut seen = vec![false; self.p.len()];
        let mut stack: Vec<usize> = Vec::new();
        let mut core = Vec::new();
        if violation.noise <= self.p.params().max {
            // The value itself leaves too noisy: reducing it is a way out.
            if fix[u] == Fix::Free {
                core.push(u);
            }
        }
        stack.extend(&nodes[u].inputs);
        while let Some(a) = stack.pop() {
            if std::mem::replace(&mut seen[a], true) || decision[a] {
                continue;
            }
            if fix[a] == Fix::Free {
                core.push(a);
            }
            stack.extend(&nodes[a].inputs);
        }
        // Reduce everything else, then drop members while the violation stays.
        let mut trial: Vec<bool> = (0..self.p.len()).map(|v| fix[v] != Fix::Keep).collect();
        for &c in &core {
            trial[c] = false;
        }
        core.sort_unstable();
        let mut kept = Vec::with_capacity(core.len());
        for &c in &core {
            trial[c] = true;
            if !self.violates(&trial, u) {
                trial[c] = false;
                kept.push(c);
            }
        }
        kept.reverse();
        kept
    }

    /// Whether node `u` exceeds its bound under `reduced`.
    fn violates(&self, reduced: &[bool], u: usize) -> bool {
        let params = self.p.params();
        let mut eff = vec![0u32; u + 1];
        for v in 0..=u {
            let n = self.p.transfer(v, &eff);
            if v == u {
                return n > params.max || (!reduced[u] && n > self.p.nodes()[u].cap);
            }
            eff[v] = if reduced[v] { params.encode } else { n };
        }
        false
    }
}

/// A use's charge: its weight times the input's table, where an impossible
/// level stays impossible even at weight 0.
fn charge(weight: f64, h: f64) -> f64 {
    if h.is_finite() {
        weight * h
    } else {
        INF
    }
}

fn ceil(x: f64) -> u64 {
    if x.is_finite() {
        (x - EPS).ceil().max(0.0) as u64
    } else {
        u64::MAX
    }
}
