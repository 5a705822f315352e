//! Local search for small hitting sets: row weighting local search (Gao,
//! Weise and Li, "An efficient local search heuristic with row weighting
//! for the unicost set covering problem", EJOR 2015).
//!
//! Each time the current selection hits every set, it is recorded and the
//! member whose removal leaves the least weight unhit is dropped, so the
//! search always works one element below the best cover found. A step then
//! swaps: it drops the member of least loss (never the one just added),
//! takes the element of most gain from a random unhit set, and raises the
//! weight of every set still unhit, so sets that stay unhit pull the search
//! towards them. Configuration checking keeps a dropped element out until
//! some element sharing a set with it changes, and ties go to the element
//! changed longest ago; both stop the walk from cycling. Scores (the weight
//! an element would hit, or leave unhit) are kept up to date incrementally.
//!
//! Elements of different costs (the weighted hitting set) compare by score
//! per unit of cost, as weighted set covering local searches do. Their
//! step does not swap one for one: it adds the element of most gain per
//! cost from a random unhit set, then drops members of least loss per cost
//! (never that one) while the selection costs no less than the best cover
//! found, so the walk stays below the best cover's cost. With unit costs
//! the swap alone keeps it there, and the walk is the unicost one.

use super::set::Set;

/// When the local search stops.
pub(super) trait Stop {
    /// Whether to stop after `step` steps.
    fn stops(&self, step: u64) -> bool;
    /// Called at the step of each cheaper cover found.
    fn improved(&self, step: u64);
}

/// The cheapest cover found from `start` (local elements hitting every one
/// of `sets` over `0..costs.len()`, element `x` costing `costs[x]`),
/// walking until `stop` says so. `start` is returned unchanged when it is
/// not a cover.
pub(super) fn row_weighting(
    costs: &[u64],
    sets: &[&Set],
    start: &[usize],
    stop: &dyn Stop,
) -> Vec<usize> {
    let n = costs.len();
    let mut walk = RowWeighting::new(costs, sets);
    for &x in start {
        if !walk.chosen[x] {
            walk.add(x);
        }
    }
    if !walk.unhit.is_empty() {
        return start.to_vec();
    }
    // Redundant members first.
    for x in 0..n {
        if walk.chosen[x] && walk.score[x] == 0 {
            walk.remove(x);
        }
    }
    let mut best: Vec<usize> = (0..n).filter(|&x| walk.chosen[x]).collect();
    let mut best_cost = walk.cost;
    let mut rng = 0x2545_f491_4f6c_dd1du64 ^ n as u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let unit = costs.iter().all(|&c| c == 1);
    let mut last_added = usize::MAX;
    for step in 1u64.. {
        if step % 256 == 0 && stop.stops(step) {
            break;
        }
        #[cfg(test)]
        if step % 64 == 0 {
            walk.check();
        }
        while walk.unhit.is_empty() {
            if walk.cost < best_cost {
                best = (0..n).filter(|&x| walk.chosen[x]).collect();
                best_cost = walk.cost;
                stop.improved(step);
            }
            match walk.least_loss(usize::MAX) {
                Some(x) => walk.remove(x),
                None => return best,
            }
        }
        if unit {
            // One out and, below, one in: the size stays one below the best.
            if let Some(x) = walk.least_loss(last_added) {
                walk.remove(x);
            }
        }
        let s = walk.unhit[(next() % walk.unhit.len() as u64) as usize];
        let Some(y) = walk.most_gain(s) else {
            return best;
        };
        walk.add(y);
        last_added = y;
        walk.stamp[y] = step;
        while walk.cost >= best_cost {
            match walk.least_loss(y) {
                Some(x) => walk.remove(x),
                None => break,
            }
        }
        for i in 0..walk.unhit.len() {
            let s = walk.unhit[i];
            walk.weight[s] += 1;
            for &z in walk.sets[s].iter() {
                walk.score[z as usize] += 1;
            }
        }
    }
    best
}

struct RowWeighting<'a> {
    costs: &'a [u64],
    sets: &'a [&'a Set],
    sets_of: Vec<Vec<usize>>,
    chosen: Vec<bool>,
    /// The cost of the chosen elements.
    cost: u64,
    /// Chosen elements in each set.
    hits: Vec<u32>,
    weight: Vec<i64>,
    /// For a chosen element, minus the weight of the sets only it hits; for
    /// another, the weight of the unhit sets holding it.
    score: Vec<i64>,
    /// The unhit sets, and the place of each in that list.
    unhit: Vec<usize>,
    place: Vec<usize>,
    /// Configuration checking: whether an element may be taken.
    may_add: Vec<bool>,
    /// The step of each element's last addition.
    stamp: Vec<u64>,
}

impl<'a> RowWeighting<'a> {
    fn new(costs: &'a [u64], sets: &'a [&'a Set]) -> Self {
        let n = costs.len();
        let mut sets_of = vec![Vec::new(); n];
        let mut score = vec![0i64; n];
        for (i, set) in sets.iter().enumerate() {
            for &x in set.iter() {
                sets_of[x as usize].push(i);
                score[x as usize] += 1;
            }
        }
        RowWeighting {
            costs,
            sets,
            sets_of,
            chosen: vec![false; n],
            cost: 0,
            hits: vec![0; sets.len()],
            weight: vec![1; sets.len()],
            score,
            unhit: (0..sets.len()).collect(),
            place: (0..sets.len()).collect(),
            may_add: vec![true; n],
            stamp: vec![0; n],
        }
    }

    fn add(&mut self, y: usize) {
        self.cost += self.costs[y];
        self.score[y] = -self.score[y];
        for k in 0..self.sets_of[y].len() {
            let s = self.sets_of[y][k];
            let w = self.weight[s];
            match self.hits[s] {
                0 => {
                    for &z in self.sets[s].iter() {
                        if z as usize != y {
                            self.score[z as usize] -= w;
                        }
                    }
                    let i = self.place[s];
                    let last = *self.unhit.last().expect("s is unhit");
                    self.unhit.swap_remove(i);
                    if last != s {
                        self.place[last] = i;
                    }
                }
                1 => {
                    let z = self.only_member(s);
                    self.score[z] += w;
                }
                _ => {}
            }
            self.hits[s] += 1;
            for &z in self.sets[s].iter() {
                self.may_add[z as usize] = true;
            }
        }
        // Only now: a set hit once above names its member other than `y`.
        self.chosen[y] = true;
    }

    fn remove(&mut self, x: usize) {
        self.chosen[x] = false;
        self.cost -= self.costs[x];
        self.score[x] = -self.score[x];
        for k in 0..self.sets_of[x].len() {
            let s = self.sets_of[x][k];
            let w = self.weight[s];
            self.hits[s] -= 1;
            match self.hits[s] {
                0 => {
                    for &z in self.sets[s].iter() {
                        if z as usize != x {
                            self.score[z as usize] += w;
                        }
                    }
                    self.place[s] = self.unhit.len();
                    self.unhit.push(s);
                }
                1 => {
                    let z = self.only_member(s);
                    self.score[z] -= w;
                }
                _ => {}
            }
            for &z in self.sets[s].iter() {
                self.may_add[z as usize] = true;
            }
        }
        self.may_add[x] = false;
    }

    /// Recomputes the counts and scores from scratch and compares.
    #[cfg(test)]
    fn check(&self) {
        let n = self.chosen.len();
        for s in 0..self.sets.len() {
            let h = self.sets[s]
                .iter()
                .filter(|&&z| self.chosen[z as usize])
                .count() as u32;
            assert_eq!(h, self.hits[s], "hits of {s}");
            assert_eq!(h == 0, self.unhit.contains(&s));
        }
        for x in 0..n {
            let weight_hit = |times: u32| {
                self.sets_of[x]
                    .iter()
                    .filter(|&&s| self.hits[s] == times)
                    .map(|&s| self.weight[s])
                    .sum::<i64>()
            };
            let sc = if self.chosen[x] {
                -weight_hit(1)
            } else {
                weight_hit(0)
            };
            assert_eq!(sc, self.score[x], "score of {x} chosen {}", self.chosen[x]);
        }
        let cost: u64 = (0..n)
            .filter(|&x| self.chosen[x])
            .map(|x| self.costs[x])
            .sum();
        assert_eq!(self.cost, cost);
    }

    /// The one chosen element of a set hit once.
    fn only_member(&self, s: usize) -> usize {
        self.sets[s]
            .iter()
            .map(|&z| z as usize)
            .find(|&z| self.chosen[z])
            .expect("a set hit once has a chosen element")
    }

    /// Orders elements by score per unit of cost, then the one changed
    /// longest ago first.
    fn by_score_per_cost(&self, a: usize, b: usize) -> std::cmp::Ordering {
        // Products of an `i64` and a `u64` always fit in an `i128`.
        let per_cost = |x: usize, y: usize| i128::from(self.score[x]) * i128::from(self.costs[y]);
        per_cost(a, b)
            .cmp(&per_cost(b, a))
            .then(self.stamp[b].cmp(&self.stamp[a]))
    }

    /// The chosen element whose removal leaves the least weight unhit per
    /// unit of cost (other than `tabu`).
    fn least_loss(&self, tabu: usize) -> Option<usize> {
        (0..self.chosen.len())
            .filter(|&x| self.chosen[x] && x != tabu)
            .max_by(|&a, &b| self.by_score_per_cost(a, b))
    }

    /// The element of the unhit set `s` that hits the most weight per unit
    /// of cost, among those configuration checking allows (any if none).
    fn most_gain(&self, s: usize) -> Option<usize> {
        let best = |allowed: bool| {
            self.sets[s]
                .iter()
                .map(|&z| z as usize)
                .filter(|&z| !allowed || self.may_add[z])
                .max_by(|&a, &b| self.by_score_per_cost(a, b))
        };
        best(true).or_else(|| best(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Steps(u64);

    impl Stop for Steps {
        fn stops(&self, step: u64) -> bool {
            step >= self.0
        }
        fn improved(&self, _: u64) {}
    }

    fn cost(costs: &[u64], chosen: impl Iterator<Item = usize>) -> u64 {
        chosen.map(|x| costs[x]).sum()
    }

    fn optimum(costs: &[u64], sets: &[Set]) -> u64 {
        (0u32..1 << costs.len())
            .filter(|mask| sets.iter().all(|s| s.iter().any(|&x| mask >> x & 1 == 1)))
            .map(|mask| cost(costs, (0..costs.len()).filter(|x| mask >> x & 1 == 1)))
            .min()
            .expect("every element taken hits every set")
    }

    /// From the cover of every element, the walk returns covers (its
    /// incremental scores and cost are rechecked from scratch as it goes)
    /// and finds the optimum of at least `percent` of 150 small random
    /// instances whose elements cost `1..=max_cost` each.
    fn check_small_optima(max_cost: u64, percent: usize) {
        let mut rng = kildall_testkit::Rng::new(0x5851_f42d_4c95_7f2d);
        let mut next = move |bound: u64| rng.below(bound);
        let (mut tried, mut optimal) = (0, 0);
        for _ in 0..150 {
            let n = 6 + next(9) as usize;
            let costs: Vec<u64> = (0..n).map(|_| 1 + next(max_cost)).collect();
            let sets: Vec<Set> = (0..(4 + next(24)))
                .map(|_| {
                    let mut s: Set = (0..(2 + next(3))).map(|_| next(n as u64) as u32).collect();
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect();
            let refs: Vec<&Set> = sets.iter().collect();
            let all: Vec<usize> = (0..n).collect();
            let cover = row_weighting(&costs, &refs, &all, &Steps(2_000));
            assert!(sets
                .iter()
                .all(|s| s.iter().any(|&x| cover.contains(&(x as usize)))));
            let found = cost(&costs, cover.iter().copied());
            let best = optimum(&costs, &sets);
            assert!(found >= best);
            tried += 1;
            optimal += usize::from(found == best);
        }
        assert!(
            optimal * 100 >= tried * percent,
            "{optimal} of {tried} optimal"
        );
    }

    #[test]
    fn row_weighting_finds_small_optima() {
        check_small_optima(1, 95);
    }

    #[test]
    fn weighted_row_weighting_finds_small_optima() {
        check_small_optima(9, 95);
    }
}
