//! The noise of a legal placement, kept up to date as reductions come and
//! go: a change is propagated forward only as far as the noise changes, so
//! trying one costs what it touches, not the whole problem. The local
//! improvements that try a move per reduction (dropping, relocating,
//! hoisting) stay near-linear on large problems this way.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::problem::Problem;

pub(crate) struct Incremental<'p> {
    problem: &'p Problem,
    users: Vec<Vec<usize>>,
    /// Each node's noise before its reduction...
    noise: Vec<u32>,
    /// ...and after it.
    eff: Vec<u32>,
    queued: Vec<bool>,
    /// The nodes the trial under way changed, with their previous noise.
    undo: Vec<(usize, u32, u32)>,
    /// The trial's nodes to recompute, least first.
    heap: BinaryHeap<Reverse<usize>>,
    /// What the trial's changes replaced.
    previous: Vec<(usize, bool)>,
}

impl<'p> Incremental<'p> {
    /// The noise of `reduced`, or `None` if it is not legal.
    pub(crate) fn new(problem: &'p Problem, reduced: &[bool]) -> Option<Self> {
        let (noise, violation) = problem.evaluate(reduced);
        if violation.is_some() {
            return None;
        }
        let encode = problem.params().encode;
        Some(Incremental {
            problem,
            users: problem.users(),
            eff: (0..noise.len())
                .map(|v| if reduced[v] { encode } else { noise[v] })
                .collect(),
            queued: vec![false; noise.len()],
            noise,
            undo: Vec::new(),
            heap: BinaryHeap::new(),
            previous: Vec::new(),
        })
    }

    /// Each node's noise before its reduction, under the current placement.
    pub(crate) fn noise(&self) -> &[u32] {
        &self.noise
    }

    /// Sets `reduced[v] = r` for every `(v, r)` of `changes` and keeps the
    /// change when the placement stays legal and `accept` takes the change
    /// of the total noise (before reductions) it makes; otherwise leaves
    /// everything as it was. Returns whether the change was kept.
    pub(crate) fn try_change(
        &mut self,
        reduced: &mut [bool],
        changes: &[(usize, bool)],
        accept: impl FnOnce(i64) -> bool,
    ) -> bool {
        let params = self.problem.params();
        let nodes = self.problem.nodes();
        self.previous.clear();
        for &(v, r) in changes {
            self.previous.push((v, reduced[v]));
            reduced[v] = r;
            if !self.queued[v] {
                self.queued[v] = true;
                self.heap.push(Reverse(v));
            }
        }
        let mut delta: i64 = 0;
        let mut legal = true;
        // Nodes in topological order: every input of a node is final before
        // the node is recomputed.
        while let Some(Reverse(v)) = self.heap.pop() {
            self.queued[v] = false;
            let noise = self.problem.transfer(v, &self.eff);
            let eff = if reduced[v] { params.encode } else { noise };
            if noise > params.max || eff > nodes[v].cap {
                legal = false;
                break;
            }
            if (noise, eff) == (self.noise[v], self.eff[v]) {
                continue;
            }
            self.undo.push((v, self.noise[v], self.eff[v]));
            delta += i64::from(noise) - i64::from(self.noise[v]);
            let eff_changed = eff != self.eff[v];
            self.noise[v] = noise;
            self.eff[v] = eff;
            if eff_changed {
                for &u in &self.users[v] {
                    if !self.queued[u] {
                        self.queued[u] = true;
                        self.heap.push(Reverse(u));
                    }
                }
            }
        }
        for Reverse(v) in self.heap.drain() {
            self.queued[v] = false;
        }
        if legal && accept(delta) {
            self.undo.clear();
            return true;
        }
        for (v, noise, eff) in self.undo.drain(..).rev() {
            self.noise[v] = noise;
            self.eff[v] = eff;
        }
        for &(v, r) in self.previous.iter().rev() {
            reduced[v] = r;
        }
        false
    }
}
