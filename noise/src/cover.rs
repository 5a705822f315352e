//! The placement problem as a hitting-set problem, solved exactly.
//!
//! **Witnesses.** Legality is monotone in the set of reduced values, so a
//! placement is illegal exactly when the values it leaves unreduced contain
//! a *witness*: a set of values that, left unreduced with everything else
//! reduced, already drives some op over its bound. The placements that are
//! legal are therefore the hitting sets of the minimal witnesses, and the
//! fewest reductions is a minimum hitting set. Witnesses are read off the
//! transfer functions by asking, backwards from each op, which unreduced
//! values can account for a given noise: an `add` at `k` bits above the
//! encoding noise needs one input at `k - 1`, a `mul` a split of `k - e`
//! between its inputs, a join one input at `k`. Under the seed's model a
//! `mul` is already at 24 bits, so the demand dies out within two or three
//! steps and witnesses are small (a `mul` and the two `add`s after it, say).
//! Where the demand travels along long chains of `add`s the witnesses can
//! multiply; their number is capped and the caller falls back to the branch
//! and bound of [`crate::exact`] when the cap is hit.
//!
//! **Minimum hitting set.** The classical reduction rules of hitting set
//! (Weihe, "Covering trains by stations or the power of data reduction",
//! ALEX 1998): a witness of one value forces its reduction, a witness that
//! contains another is dropped, and a value whose witnesses all contain
//! some other value is dominated by it and never reduced. The reduced
//! instance splits into connected components. Each starts from a greedy
//! cover improved by local search (add a value, drop those it makes
//! redundant). Small components then get a combinatorial branch and bound
//! (branch on the value the Lagrangian bound most wants: reduce it, or
//! never) with a lower bound from pairwise disjoint witnesses and a
//! Lagrangian bound, reducing again at every search node. Large ones, and
//! small ones that do not close in their share of the time, get a branch
//! and bound on the linear relaxation: row generation (the long witnesses
//! join the relaxation only when violated), {0,1/2}-cuts at the root (the
//! `cuts` module), rounding and strong branching at every node. On large
//! components the local search runs on a second thread while the root
//! relaxation is solved, and the cover it finds ends the cut rounds early
//! when the bound meets it. The reductions preserve at least
//! one optimum, so the optimum of the instance is proven when every
//! component's search closes; otherwise the sum of the components' bounds
//! is reported.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::problem::{NodeKind, Problem};

/// A set of values (node indices), sorted.
type Set = Vec<u32>;

/// Witness sets of one problem, or `None` if there are more than the cap.
pub(crate) struct Witnesses {
    /// The minimal witnesses; an empty one means no placement is legal.
    pub sets: Vec<Set>,
}

/// Most witnesses kept for one demand, and in all.
const CAP_PER_DEMAND: usize = 4_096;
const CAP_TOTAL: usize = 400_000;

struct Enumerator<'p> {
    p: &'p Problem,
    h: u32,
    /// Upper bound on each node's height (noise above the encoding noise)
    /// before its reduction: its noise when nothing is reduced, capped.
    hi: Vec<u32>,
    /// Memo of `pre(v, k)`, indexed `v * (h + 2) + k`.
    memo: Vec<Option<std::rc::Rc<Vec<Set>>>>,
    total: usize,
    overflow: bool,
}

impl Enumerator<'_> {
    /// Sets whose members, all unreduced, give `v` at least `k` bits above
    /// the encoding noise before `v`'s own reduction (`v` not included).
    fn pre(&mut self, v: usize, k: u32) -> std::rc::Rc<Vec<Set>> {
        if k == 0 {
            return std::rc::Rc::new(vec![Vec::new()]);
        }
        if k > self.hi[v] {
            return std::rc::Rc::new(Vec::new());
        }
        let slot = v * (self.h as usize + 2) + k as usize;
        if let Some(sets) = &self.memo[slot] {
            return sets.clone();
        }
        let e = self.p.params().encode;
        let node = &self.p.nodes()[v];
        let mut out: Vec<Set> = Vec::new();
        match node.kind {
            NodeKind::Source(c) => {
                if c - e >= k {
                    out.push(Vec::new());
                }
            }
            NodeKind::Add | NodeKind::Join => {
                let need = if node.kind == NodeKind::Add { k - 1 } else { k };
                for &a in &node.inputs.clone() {
                    let sets = self.eff(a, need);
                    out.extend(sets.iter().cloned());
                }
            }
            NodeKind::Mul => {
                // Height of a product: e + ha + hb.
                if k <= e {
                    out.push(Vec::new());
                } else {
                    let rest = k - e;
                    let (a, b) = (node.inputs[0], node.inputs[1]);
                    for s in 0..=rest {
                        let left = self.eff(a, s);
                        if left.is_empty() {
                            continue;
                        }
                        let right = self.eff(b, rest - s);
                        for x in left.iter() {
                            for y in right.iter() {
                                out.push(union(x, y));
                                if out.len() > 4 * CAP_PER_DEMAND {
                                    self.overflow = true;
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
        minimize(&mut out);
        if out.len() > CAP_PER_DEMAND {
            self.overflow = true;
            out.truncate(CAP_PER_DEMAND);
        }
        self.total += out.len();
        if self.total > CAP_TOTAL {
            self.overflow = true;
        }
        let out = std::rc::Rc::new(out);
        self.memo[slot] = Some(out.clone());
        out
    }

    /// Like [`Self::pre`] for the noise `v`'s users see: `v` itself must be
    /// unreduced, so it joins every set (unless it may not be reduced).
    fn eff(&mut self, v: usize, k: u32) -> std::rc::Rc<Vec<Set>> {
        let pre = self.pre(v, k);
        if k == 0 || !self.p.nodes()[v].reducible {
            return pre;
        }
        let v = v as u32;
        std::rc::Rc::new(
            pre.iter()
                .map(|s| {
                    let mut s = s.clone();
                    if let Err(i) = s.binary_search(&v) {
                        s.insert(i, v);
                    }
                    s
                })
                .collect(),
        )
    }
}

fn union(x: &[u32], y: &[u32]) -> Set {
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => {
                out.push(x[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(y[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(x[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&x[i..]);
    out.extend_from_slice(&y[j..]);
    out
}

fn is_subset(small: &[u32], big: &[u32]) -> bool {
    let mut j = 0;
    for &x in small {
        while j < big.len() && big[j] < x {
            j += 1;
        }
        if j == big.len() || big[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

/// Drops duplicates and sets that contain another set.
fn minimize(sets: &mut Vec<Set>) {
    sets.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    sets.dedup();
    if sets.len() > 512 {
        // Quadratic minimisation is too slow here; duplicates are gone and
        // supersets are harmless to the hitting-set solver, which drops them.
        return;
    }
    let mut kept: Vec<Set> = Vec::with_capacity(sets.len());
    for s in sets.drain(..) {
        if !kept.iter().any(|k| is_subset(k, &s)) {
            kept.push(s);
        }
    }
    *sets = kept;
}

/// The minimal witnesses of `problem`, or `None` when there are too many.
pub(crate) fn witnesses(problem: &Problem) -> Option<Witnesses> {
    let params = problem.params();
    let (e, m) = (params.encode, params.max);
    let h = m - e;
    let n = problem.len();
    let top = problem.evaluate(&vec![false; n]).0;
    let hi: Vec<u32> = top.iter().map(|&x| x.min(m + 1) - e).collect();
    let mut en = Enumerator {
        p: problem,
        h,
        hi,
        memo: vec![None; n * (h as usize + 2)],
        total: 0,
        overflow: false,
    };
    let mut sets = Vec::new();
    for v in 0..n {
        // Over the maximum before the reduction.
        let over = en.pre(v, h + 1);
        // Over the cap after it (only when unreduced).
        let cap = problem.nodes()[v].cap.min(m);
        let capped = if cap < m {
            en.eff(v, cap - e + 1).to_vec()
        } else {
            Vec::new()
        };
        for s in over.iter().chain(capped.iter()) {
            sets.push(s.clone());
        }
        if en.overflow {
            return None;
        }
    }
    Some(Witnesses { sets })
}

/// The outcome of the hitting-set search.
pub(crate) struct Cover {
    /// The values to reduce.
    pub chosen: Vec<usize>,
    /// A proven lower bound on the size of any hitting set.
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
const COMBINATORIAL_FIRST: usize = 200;

/// Moves of the local search on each component's first cover, per element.
const LOCAL_MOVES: u64 = 2_000;

/// Subgradient rounds at the root of a component and at other search nodes.
const ROOT_ROUNDS: usize = 600;
const NODE_ROUNDS: usize = 25;
const EPS: f64 = 1e-6;

/// A minimum hitting set of `sets` over the elements `0..n` (every set
/// non-empty), unless `deadline` passes first.
pub(crate) fn min_hitting_set(n: usize, sets: Vec<Set>, deadline: Instant) -> Cover {
    min_hitting_set_with(n, sets, deadline, COMBINATORIAL_FIRST)
}

/// [`min_hitting_set`], searching components of at most `small` elements
/// combinatorially first (so that tests reach both searches).
fn min_hitting_set_with(n: usize, sets: Vec<Set>, deadline: Instant, small: usize) -> Cover {
    let mut solver = Solver {
        deadline,
        nodes: 0,
        timed_out: false,
    };
    let names: Vec<usize> = (0..n).collect();
    let mut inst = Instance::new(names, sets, None);
    let mut chosen = Vec::new();
    let feasible = inst.reduce(&mut chosen);
    debug_assert!(feasible, "witnesses are non-empty");
    let mut lower_bound = chosen.len();
    let mut optimal = true;
    let components = inst.components();
    let count = components.len();
    for mut comp in components {
        let greedy = comp.greedy();
        let share = Instant::now() + deadline.saturating_duration_since(Instant::now()) / 8;
        let moves = LOCAL_MOVES * comp.of.len() as u64;
        solver.timed_out = false;
        let mut best;
        let mut root;
        if comp.of.len() > small && Instant::now() < deadline {
            // Large components go to the relaxation at once: the cuts need
            // the time. Its root needs no incumbent, so the local search
            // runs beside it on a second thread.
            let upper = AtomicUsize::new(greedy.len());
            let (found, lp) = std::thread::scope(|scope| {
                let local = scope.spawn(|| {
                    let found = comp.local_search(&greedy, share, moves);
                    upper.fetch_min(found.len(), Ordering::Relaxed);
                    found
                });
                let lp = lp_root(&comp, &upper, deadline);
                let found = local
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (found, lp)
            });
            best = found;
            root = solver.search_from_root(&comp, lp, 0, &mut best);
        } else {
            best = comp.local_search(&greedy, share, moves);
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
        if solver.timed_out {
            optimal = false;
            lower_bound += root.min(best.len());
        } else {
            lower_bound += best.len();
        }
        chosen.extend(best);
    }
    chosen.sort_unstable();
    chosen.dedup();
    Cover {
        lower_bound: lower_bound.min(chosen.len()),
        optimal: optimal && lower_bound >= chosen.len(),
        chosen,
        nodes: solver.nodes,
        components: count,
    }
}

/// A hitting-set instance over local element ids, each naming a value.
#[derive(Clone)]
struct Instance {
    /// The value of each element.
    names: Vec<usize>,
    sets: Vec<Set>,
    alive: Vec<bool>,
    /// The Lagrange multiplier of each set (warm start for the bound).
    lambda: Vec<f64>,
    /// For each element, the sets containing it (possibly dead).
    of: Vec<Vec<u32>>,
}

impl Instance {
    fn new(names: Vec<usize>, sets: Vec<Set>, lambda: Option<Vec<f64>>) -> Self {
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

    /// Applies the reduction rules to a fixed point; the values of forced
    /// elements go to `chosen`. Returns false if some set cannot be hit.
    fn reduce(&mut self, chosen: &mut Vec<usize>) -> bool {
        let mut changed = true;
        while changed {
            changed = false;
            // Singletons force their element.
            for s in 0..self.sets.len() {
                if !self.alive[s] {
                    continue;
                }
                match self.sets[s].len() {
                    0 => return false,
                    1 => {
                        let x = self.sets[s][0] as usize;
                        chosen.push(self.names[x]);
                        self.take(x);
                        changed = true;
                    }
                    _ => {}
                }
            }
            // A set containing another live set is implied by it.
            for x in 0..self.of.len() {
                let alive = &self.alive;
                self.of[x].retain(|&s| alive[s as usize]);
            }
            for s in 0..self.sets.len() {
                if !self.alive[s] {
                    continue;
                }
                let set = &self.sets[s];
                let Some(&pivot) = set.iter().min_by_key(|&&x| self.of[x as usize].len()) else {
                    continue;
                };
                let superset = self.of[pivot as usize].iter().any(|&t| {
                    let t = t as usize;
                    t != s
                        && self.alive[t]
                        && (self.sets[t].len() < set.len()
                            || (self.sets[t].len() == set.len() && t < s))
                        && is_subset(&self.sets[t], set)
                });
                if superset {
                    self.alive[s] = false;
                    changed = true;
                }
            }
            for x in 0..self.of.len() {
                let alive = &self.alive;
                self.of[x].retain(|&s| alive[s as usize]);
            }
            // An element whose sets all contain another element is
            // dominated by it: some optimum does without it.
            for x in 0..self.of.len() {
                if self.of[x].is_empty() {
                    continue;
                }
                let first = self.of[x][0] as usize;
                let dominated = self.sets[first].iter().any(|&y| {
                    let y = y as usize;
                    y != x
                        && self.of[y].len() >= self.of[x].len()
                        && (self.of[y].len() > self.of[x].len() || y < x)
                        && self.of[x]
                            .iter()
                            .all(|&s| self.sets[s as usize].binary_search(&(y as u32)).is_ok())
                });
                if dominated {
                    if !self.forbid(x) {
                        return false;
                    }
                    changed = true;
                }
            }
        }
        true
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
            .map(|(names, sets, lambda)| Instance::new(names, sets, Some(lambda)))
            .collect()
    }

    fn is_empty(&self) -> bool {
        !self.alive.iter().any(|&a| a)
    }

    /// Improves the hitting set `cover` (values) by local search until
    /// `deadline` or `moves` moves: add an element outside the cover, then
    /// drop every element the addition made redundant. Dropping two is an
    /// improvement; dropping one is a swap that keeps the size and moves the
    /// search along the plateau (a random walk, as in the iterated local
    /// searches for unicost set covering). Returns the smallest cover seen.
    fn local_search(&self, cover: &[usize], deadline: Instant, moves: u64) -> Vec<usize> {
        let n = self.of.len();
        let live: Vec<usize> = (0..self.sets.len()).filter(|&s| self.alive[s]).collect();
        let slot = {
            let mut slot = vec![usize::MAX; self.sets.len()];
            for (i, &s) in live.iter().enumerate() {
                slot[s] = i;
            }
            slot
        };
        let sets_of: Vec<Vec<usize>> = (0..n)
            .map(|x| {
                self.of[x]
                    .iter()
                    .filter(|&&s| self.alive[s as usize])
                    .map(|&s| slot[s as usize])
                    .collect()
            })
            .collect();
        let max_name = self.names.iter().copied().max().unwrap_or(0);
        let mut local = vec![usize::MAX; max_name + 1];
        for (x, &name) in self.names.iter().enumerate() {
            local[name] = x;
        }
        let mut in_c = vec![false; n];
        for &v in cover {
            if let Some(&x) = local.get(v) {
                if x != usize::MAX {
                    in_c[x] = true;
                }
            }
        }
        let mut hits = vec![0u32; live.len()];
        for (x, sets) in sets_of.iter().enumerate() {
            if in_c[x] {
                for &i in sets {
                    hits[i] += 1;
                }
            }
        }
        if hits.contains(&0) {
            return cover.to_vec();
        }
        let redundant =
            |x: usize, hits: &[u32]| -> bool { sets_of[x].iter().all(|&i| hits[i] >= 2) };
        let mut size = in_c.iter().filter(|&&c| c).count();
        // Redundant members first.
        for x in 0..n {
            if in_c[x] && redundant(x, &hits) {
                in_c[x] = false;
                size -= 1;
                for &i in &sets_of[x] {
                    hits[i] -= 1;
                }
            }
        }
        let mut best_size = size;
        let mut best_c = in_c.clone();
        let candidates: Vec<usize> = (0..n).filter(|&x| !sets_of[x].is_empty()).collect();
        if candidates.is_empty() {
            return cover.to_vec();
        }
        let mut rng = 0x2545_f491_4f6c_dd1du64 ^ n as u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut dropped = Vec::new();
        let mut last_added = vec![0u64; n];
        for step in 1..=moves {
            if step % 1024 == 0 && Instant::now() >= deadline {
                break;
            }
            // A move helps only if `y` hits a witness that some member hits
            // alone: draw a member, one such witness of it, and `y` in it.
            let x = candidates[(next() % candidates.len() as u64) as usize];
            if !in_c[x] {
                continue;
            }
            let critical = sets_of[x].iter().filter(|&&i| hits[i] == 1).count();
            if critical == 0 {
                continue;
            }
            let pick = (next() % critical as u64) as usize;
            let Some(&i) = sets_of[x].iter().filter(|&&i| hits[i] == 1).nth(pick) else {
                continue;
            };
            let set = &self.sets[live[i]];
            let y = set[(next() % set.len() as u64) as usize] as usize;
            if in_c[y] {
                continue;
            }
            in_c[y] = true;
            last_added[y] = step;
            for &i in &sets_of[y] {
                hits[i] += 1;
            }
            // Members sharing a witness with `y` may have become redundant;
            // the oldest additions go first so the walk does not undo itself.
            dropped.clear();
            for &i in &sets_of[y] {
                for &x in &self.sets[live[i]] {
                    let x = x as usize;
                    if x != y && in_c[x] && !dropped.contains(&x) {
                        dropped.push(x);
                    }
                }
            }
            for i in (1..dropped.len()).rev() {
                let j = (next() % (i as u64 + 1)) as usize;
                dropped.swap(i, j);
            }
            dropped.sort_by_key(|&x| last_added[x]);
            let mut removed = 0;
            for &x in &dropped {
                if redundant(x, &hits) {
                    in_c[x] = false;
                    removed += 1;
                    for &i in &sets_of[x] {
                        hits[i] -= 1;
                    }
                }
            }
            if removed == 0 {
                in_c[y] = false;
                for &i in &sets_of[y] {
                    hits[i] -= 1;
                }
                continue;
            }
            size = size + 1 - removed;
            if size < best_size {
                best_size = size;
                best_c.copy_from_slice(&in_c);
            }
        }
        (0..n)
            .filter(|&x| best_c[x])
            .map(|x| self.names[x])
            .collect()
    }

    /// A hitting set (values) by repeatedly taking the element in most live sets.
    fn greedy(&self) -> Vec<usize> {
        let mut inst = self.clone();
        let mut chosen = Vec::new();
        while let Some(x) = (0..inst.of.len())
            .filter(|&x| inst.live_of(x).next().is_some())
            .max_by_key(|&x| inst.live_of(x).count())
        {
            chosen.push(inst.names[x]);
            inst.take(x);
        }
        chosen
    }

    /// Pairwise disjoint live sets, smallest first: each needs its own element.
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
        let mut count = 0;
        for s in order {
            if s.iter().all(|&x| !used[x as usize]) {
                for &x in s {
                    used[x as usize] = true;
                }
                count += 1;
            }
        }
        count
    }

    /// A lower bound on the size of a hitting set: the better of the
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
            cost.iter_mut().for_each(|c| *c = 1.0);
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
            if (upper as f64) - best <= 1.0 + EPS || mu < 1e-3 {
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

fn ceil(x: f64) -> usize {
    (x - EPS).ceil().max(0.0) as usize
}

struct Solver {
    deadline: Instant,
    nodes: u64,
    timed_out: bool,
}

impl Solver {
    /// Counts a search node; false once the deadline has passed.
    fn enter_node(&mut self) -> bool {
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
    /// when the relaxation could not be solved, replacing `best` by the
    /// smaller covers found. Returns the larger of `bound` (a bound already
    /// known) and the root's.
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
                if root < best.len() {
                    lp.search(best, self);
                }
                root
            }
            None => {
                // A copy: the multipliers of `comp` stay as they are.
                let mut fallback = comp.clone();
                let root = bound.max(fallback.bound(best.len(), ROOT_ROUNDS).0);
                if root < best.len() {
                    self.search(fallback, &mut Vec::new(), best, true);
                }
                root
            }
        }
    }

    /// Extends `picked` (values) to a hitting set of `inst`, replacing
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

/// The root of the branch and bound on one component with the linear
/// relaxation of the hitting set as bound (`microlp`). The relaxation
/// starts from the small witnesses only and takes in the others as they are
/// violated (row generation: a relaxation of fewer constraints still bounds
/// the optimum), and is tightened by {0,1/2}-cuts (see the `cuts` module)
/// while they raise the bound and it stays below `upper` (the size of the
/// best cover known, which a concurrent local search may lower). `None`
/// when the relaxation could not be solved before `deadline` (then the
/// caller keeps its combinatorial search).
fn lp_root<'a>(inst: &'a Instance, upper: &AtomicUsize, deadline: Instant) -> Option<LpRoot<'a>> {
    let n = inst.of.len();
    let live: Vec<&Set> = inst
        .sets
        .iter()
        .zip(&inst.alive)
        .filter(|(_, &a)| a)
        .map(|(s, _)| s)
        .collect();
    let refs: Vec<&[u32]> = live.iter().map(|s| s.as_slice()).collect();
    let mut in_lp: Vec<bool> = live.iter().map(|s| s.len() <= INITIAL_ROWS).collect();
    let mut rows: Vec<(Vec<(u32, f64)>, f64)> = live
        .iter()
        .zip(&in_lp)
        .filter(|(_, &i)| i)
        .map(|(s, _)| (s.iter().map(|&x| (x, 1.0)).collect(), 1.0))
        .collect();
    // Row generation from scratch while the relaxation leaves witnesses
    // unhit: it stays small (most long witnesses are hit anyway).
    let (mut root, mut vars) = loop {
        let (sol, vars) = solve_rows(n, &rows, deadline)?;
        let value: Vec<f64> = vars.iter().map(|&v| sol.var_value_raw(v)).collect();
        let mut added = 0;
        for (i, set) in live.iter().enumerate() {
            if !in_lp[i] && set.iter().map(|&x| value[x as usize]).sum::<f64>() < 1.0 - EPS {
                in_lp[i] = true;
                rows.push((set.iter().map(|&x| (x, 1.0)).collect(), 1.0));
                added += 1;
            }
        }
        if added == 0 {
            break (sol, vars);
        }
    };
    // Cut rounds, each re-solved by the dual simplex from the last basis.
    let mut stall = 0;
    let mut last = f64::NEG_INFINITY;
    loop {
        let objective = root.objective();
        if ceil(objective) >= upper.load(Ordering::Relaxed) || Instant::now() >= deadline {
            break;
        }
        if objective < last + STALL {
            stall += 1;
            if stall >= STALL_ROUNDS {
                break;
            }
        } else {
            stall = 0;
            last = objective;
        }
        let value: Vec<f64> = vars.iter().map(|&v| root.var_value_raw(v)).collect();
        let mut new_rows: Vec<(Vec<(u32, f64)>, f64)> = Vec::new();
        for (i, set) in live.iter().enumerate() {
            if !in_lp[i] && set.iter().map(|&x| value[x as usize]).sum::<f64>() < 1.0 - EPS {
                in_lp[i] = true;
                new_rows.push((set.iter().map(|&x| (x, 1.0)).collect(), 1.0));
            }
        }
        if new_rows.is_empty() {
            let cuts = crate::cuts::odd_cycle_cuts(&refs, &value, CUTS_PER_ROUND);
            new_rows.extend(cuts.into_iter().map(|c| (c.terms, c.rhs)));
        }
        if new_rows.is_empty() {
            break;
        }
        let mut next = Some(root.clone());
        for (terms, rhs) in &new_rows {
            if Instant::now() >= deadline {
                // The cuts added so far already give a valid relaxation.
                break;
            }
            let Some(cur) = next.take() else { break };
            let mut expr = microlp::LinearExpr::empty();
            for &(e, c) in terms {
                expr.add(vars[e as usize], c);
            }
            if let Ok(outcome) = cur.add_constraint(expr, microlp::ComparisonOp::Ge, *rhs) {
                next = outcome.into_solution().ok().filter(|s| s.is_optimal_lp());
            }
        }
        let Some(next) = next else {
            // Out of time (or a failed re-solve): the last complete
            // relaxation still bounds the optimum.
            break;
        };
        rows.extend(new_rows);
        root = next;
    }
    let root_bound = ceil(root.objective());
    // The search re-solves after every fixing, and each re-solve pays for
    // every row: the rows the root leaves slack (most cuts of the early
    // rounds, long witnesses) go. The root's point stays optimal without
    // them, and a witness violated below joins again there.
    let value: Vec<f64> = vars.iter().map(|&v| root.var_value_raw(v)).collect();
    let before = rows.len();
    rows.retain(|(terms, rhs)| {
        let activity: f64 = terms.iter().map(|&(x, c)| c * value[x as usize]).sum();
        activity < rhs + EPS
    });
    if rows.len() < before {
        if let Some((tight, tight_vars)) = solve_rows(n, &rows, deadline) {
            (root, vars) = (tight, tight_vars);
        }
    }
    Some(LpRoot {
        ctx: LpContext { inst, live, vars },
        solution: root,
        bound: root_bound,
    })
}

/// The relaxation at the root of a component's search.
struct LpRoot<'a> {
    ctx: LpContext<'a>,
    solution: microlp::Solution,
    /// The root's lower bound on the component's optimum.
    bound: usize,
}

impl LpRoot<'_> {
    /// Branches from the root, replacing `best` by the smaller covers found.
    /// Below the root the relaxation is re-solved by the dual simplex after
    /// each fixing.
    fn search(self, best: &mut Vec<usize>, solver: &mut Solver) {
        self.ctx.dfs(self.solution, best, solver);
    }
}

/// Elements whose two children strong branching solves at each node.
const STRONG_CANDIDATES: usize = 8;

/// Witnesses of at most this many values start in the relaxation.
const INITIAL_ROWS: usize = 3;
/// Cuts added per separation round at the root.
const CUTS_PER_ROUND: usize = 64;
/// Separation stops after this many rounds that raise the bound by less
/// than [`STALL`].
const STALL_ROUNDS: usize = 10;
const STALL: f64 = 1e-3;

/// The relaxation `min sum x` subject to `rows` and `0 <= x <= 1`, solved
/// from scratch, with its variables; `None` if it could not be solved
/// before `deadline`.
fn solve_rows(
    n: usize,
    rows: &[(Vec<(u32, f64)>, f64)],
    deadline: Instant,
) -> Option<(microlp::Solution, Vec<microlp::Variable>)> {
    use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem as Lp};
    let mut lp = Lp::new(OptimizationDirection::Minimize);
    let vars: Vec<microlp::Variable> = (0..n).map(|_| lp.add_var(1.0, (0.0, 1.0))).collect();
    for (terms, rhs) in rows {
        let mut expr = LinearExpr::empty();
        for &(x, c) in terms {
            expr.add(vars[x as usize], c);
        }
        lp.add_constraint(expr, ComparisonOp::Ge, *rhs);
    }
    lp.set_time_limit(deadline.checked_duration_since(Instant::now())?);
    let sol = lp.solve().ok()?.into_solution().ok()?;
    sol.is_optimal_lp().then_some((sol, vars))
}

trait OptimalLp {
    fn is_optimal_lp(&self) -> bool;
}

impl OptimalLp for microlp::Solution {
    fn is_optimal_lp(&self) -> bool {
        self.status() == microlp::SolutionStatus::Optimal
    }
}

struct LpContext<'a> {
    inst: &'a Instance,
    live: Vec<&'a Set>,
    vars: Vec<microlp::Variable>,
}

impl LpContext<'_> {
    fn dfs(&self, mut sol: microlp::Solution, best: &mut Vec<usize>, solver: &mut Solver) {
        if !solver.enter_node() {
            return;
        }
        let mut value: Vec<f64>;
        loop {
            if !sol.is_optimal_lp() {
                solver.timed_out = true;
                return;
            }
            if ceil(sol.objective()) >= best.len() {
                return;
            }
            value = self.vars.iter().map(|&v| sol.var_value_raw(v)).collect();
            // A witness the relaxation left out and the point leaves unhit
            // joins it, here and below (a sibling checks again for itself).
            let violated = (0..self.live.len()).find(|&i| {
                self.live[i].iter().map(|&x| value[x as usize]).sum::<f64>() < 1.0 - EPS
            });
            let Some(i) = violated else { break };
            let mut expr = microlp::LinearExpr::empty();
            for &x in self.live[i].iter() {
                expr.add(self.vars[x as usize], 1.0);
            }
            match sol.add_constraint(expr, microlp::ComparisonOp::Ge, 1.0) {
                Ok(outcome) => match self.child(outcome, solver) {
                    Some(s) => sol = s,
                    None => return,
                },
                Err(microlp::Error::Infeasible) => return,
                Err(_) => {
                    solver.timed_out = true;
                    return;
                }
            }
        }
        self.round(&value, best);
        if ceil(sol.objective()) >= best.len() {
            return;
        }
        // Strong branching: both children of the most fractional elements
        // are solved, and the search branches where the weaker child rises
        // most (the product rule of Achterberg, Koch and Martin, "Branching
        // rules revisited", 2005). A child the incumbent already prunes
        // settles its element at once.
        let mut candidates: Vec<usize> = (0..value.len())
            .filter(|&x| value[x] > EPS && value[x] < 1.0 - EPS)
            .collect();
        candidates.sort_by(|&a, &b| (value[a] - 0.5).abs().total_cmp(&(value[b] - 0.5).abs()));
        candidates.truncate(STRONG_CANDIDATES);
        let parent = sol.objective();
        let mut chosen: Option<(f64, Vec<microlp::Solution>)> = None;
        for &x in &candidates {
            let mut children = Vec::with_capacity(2);
            for val in [1.0, 0.0] {
                match sol.clone().fix_var(self.vars[x], val) {
                    Ok(outcome) => match self.child(outcome, solver) {
                        Some(child) if ceil(child.objective()) < best.len() => children.push(child),
                        Some(_) => {}
                        None => return,
                    },
                    Err(microlp::Error::Infeasible) => {}
                    Err(_) => {
                        solver.timed_out = true;
                        return;
                    }
                }
            }
            if children.len() < 2 {
                // At most one side survives: this node is that side.
                if let Some(only) = children.pop() {
                    self.dfs(only, best, solver);
                }
                return;
            }
            let gain = |s: &microlp::Solution| (s.objective() - parent).max(1e-6);
            let score = gain(&children[0]) * gain(&children[1]);
            if chosen.as_ref().map_or(true, |c| score > c.0) {
                chosen = Some((score, children));
            }
            if Instant::now() >= solver.deadline {
                solver.timed_out = true;
                return;
            }
        }
        let Some((_, mut children)) = chosen else {
            return;
        };
        // The weaker child first: it holds the better covers, which prune
        // the rest of the tree.
        children.sort_by(|a, b| a.objective().total_cmp(&b.objective()));
        for child in children {
            self.dfs(child, best, solver);
            if solver.timed_out {
                return;
            }
        }
    }

    /// The solution of a re-solve; an interrupted or failed one leaves the
    /// search open (never counted as pruned).
    fn child(
        &self,
        outcome: microlp::SolveOutcome,
        solver: &mut Solver,
    ) -> Option<microlp::Solution> {
        match outcome.into_solution() {
            Ok(s) if s.is_optimal_lp() => Some(s),
            _ => {
                solver.timed_out = true;
                None
            }
        }
    }

    /// A cover read off the relaxation: elements at 1/2 or more, every set
    /// left unhit completed by its largest element, then elements whose
    /// sets are all hit by others dropped, smallest value first.
    fn round(&self, value: &[f64], best: &mut Vec<usize>) {
        let n = value.len();
        let mut take: Vec<bool> = value.iter().map(|&v| v >= 0.5).collect();
        for set in &self.live {
            if !set.iter().any(|&x| take[x as usize]) {
                let x = set
                    .iter()
                    .copied()
                    .max_by(|&a, &b| value[a as usize].total_cmp(&value[b as usize]))
                    .expect("non-empty set");
                take[x as usize] = true;
            }
        }
        let mut hits = vec![0u32; self.live.len()];
        for (i, set) in self.live.iter().enumerate() {
            hits[i] = set.iter().filter(|&&x| take[x as usize]).count() as u32;
        }
        let mut order: Vec<usize> = (0..n).filter(|&x| take[x]).collect();
        order.sort_by(|&a, &b| value[a].total_cmp(&value[b]));
        let mut sets_of: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, set) in self.live.iter().enumerate() {
            for &x in set.iter() {
                sets_of[x as usize].push(i);
            }
        }
        for x in order {
            if sets_of[x].iter().all(|&i| hits[i] >= 2) {
                take[x] = false;
                for &i in &sets_of[x] {
                    hits[i] -= 1;
                }
            }
        }
        let count = take.iter().filter(|&&t| t).count();
        if count < best.len() {
            *best = (0..n)
                .filter(|&x| take[x])
                .map(|x| self.inst.names[x])
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn covers(sets: &[Set], chosen: &[usize]) -> bool {
        sets.iter()
            .all(|s| s.iter().any(|&x| chosen.contains(&(x as usize))))
    }

    /// The fewest elements hitting every set, by enumeration.
    fn brute_force(n: usize, sets: &[Set]) -> usize {
        (0u32..1 << n)
            .filter(|mask| sets.iter().all(|s| s.iter().any(|&x| mask >> x & 1 == 1)))
            .map(|mask| mask.count_ones() as usize)
            .min()
            .expect("every element taken hits every set")
    }

    fn random_instances() -> Vec<(usize, Vec<Set>)> {
        let mut rng = kildall_ir::generate::Rng::new(0x853c_49e6_748f_ea9b);
        let mut next = move |bound: u64| rng.below(bound);
        (0..120)
            .map(|_| {
                let n = 6 + next(9) as usize;
                let sets = (0..(4 + next(24)))
                    .map(|_| {
                        let mut s: Set =
                            (0..(2 + next(3))).map(|_| next(n as u64) as u32).collect();
                        s.sort_unstable();
                        s.dedup();
                        s
                    })
                    .collect();
                (n, sets)
            })
            .collect()
    }

    /// The root bound and the cover of the LP branch and bound on `sets`,
    /// started from the cover of every element.
    fn lp_from_worst_cover(n: usize, sets: Vec<Set>) -> (usize, Vec<usize>) {
        let inst = Instance::new((0..n).collect(), sets, None);
        let mut best: Vec<usize> = (0..n).collect();
        let mut solver = Solver {
            deadline: Instant::now() + Duration::from_secs(60),
            nodes: 0,
            timed_out: false,
        };
        let lp = lp_root(&inst, &AtomicUsize::new(best.len()), solver.deadline)
            .expect("relaxation solved");
        let root = lp.bound;
        lp.search(&mut best, &mut solver);
        assert!(!solver.timed_out);
        (root, best)
    }

    /// The LP branch and bound (row generation, cuts, lazy witnesses)
    /// started from the worst cover ends at the optimum, and its root bound
    /// never exceeds it.
    #[test]
    fn lp_search_matches_enumeration() {
        for (n, sets) in random_instances() {
            let optimum = brute_force(n, &sets);
            let (root, best) = lp_from_worst_cover(n, sets.clone());
            assert!(
                root <= optimum,
                "root bound {root} over the optimum {optimum}"
            );
            assert!(covers(&sets, &best));
            assert_eq!(best.len(), optimum, "{sets:?}");
        }
    }

    /// The whole solver (reductions, components, local search, searches),
    /// with small components searched as small and as large ones are (the
    /// local search beside the root relaxation; on these instances the
    /// root closes, and the branching below it is checked by
    /// `lp_search_matches_enumeration`).
    #[test]
    fn min_hitting_set_matches_enumeration() {
        for (n, sets) in random_instances() {
            let optimum = brute_force(n, &sets);
            for small in [COMBINATORIAL_FIRST, 0] {
                let deadline = Instant::now() + Duration::from_secs(60);
                let cover = min_hitting_set_with(n, sets.clone(), deadline, small);
                assert!(cover.optimal);
                assert!(covers(&sets, &cover.chosen));
                assert_eq!(cover.chosen.len(), optimum, "{sets:?}");
                assert_eq!(cover.lower_bound, optimum);
            }
        }
    }

    /// A five-cycle of pairs: the relaxation alone gives 5/2, the odd-cycle
    /// cut raises the root bound to the optimum, 3.
    #[test]
    fn odd_cycle_cut_closes_the_five_cycle() {
        let sets: Vec<Set> = (0..5u32)
            .map(|i| {
                let mut s = vec![i, (i + 1) % 5];
                s.sort_unstable();
                s
            })
            .collect();
        let (root, best) = lp_from_worst_cover(5, sets);
        assert_eq!((root, best.len()), (3, 3));
    }
}
