//! The strategies on hand-built and random DAGs, checked against exhaustive
//! enumeration.

use std::time::Duration;

use kildall_noise::{solve, Budget, NoiseParams, Problem, SearchLimits, Strategy};

fn limits(effort: u64, time_limit: Option<Duration>) -> SearchLimits {
    SearchLimits::new(Budget::new(effort, time_limit))
}

fn count(problem: &Problem, strategy: Strategy) -> (usize, Vec<bool>) {
    let s = solve(problem, strategy, &limits(u64::MAX, None)).expect("feasible");
    assert!(
        problem.is_legal(&s.reduced),
        "{strategy} placement is illegal"
    );
    assert_eq!(s.count, s.reduced.iter().filter(|&&r| r).count());
    assert!(s.lower_bound <= s.cost);
    if strategy == Strategy::Exact {
        assert!(s.optimal, "exact search did not finish");
    }
    (s.count, s.reduced)
}

/// `m1 = mul e0, e1; m2 = mul m1, m1; ...` (the tutorial's first test).
#[test]
fn mul_chain_needs_three() {
    let mut p = Problem::new(NoiseParams::default());
    let (a, b) = (p.encode(), p.encode());
    let m1 = p.mul(a, b);
    let m2 = p.mul(m1, m1);
    let m3 = p.mul(m2, m2);
    let m4 = p.mul(m3, m3);
    for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
        let (n, reduced) = count(&p, strategy);
        assert_eq!(n, 3, "{strategy}");
        assert!(reduced[m1] && reduced[m2] && reduced[m3] && !reduced[m4]);
    }
}

#[test]
fn four_adds_need_none() {
    let mut p = Problem::new(NoiseParams::default());
    let (a, b) = (p.encode(), p.encode());
    let mut v = p.add(a, b);
    for _ in 0..3 {
        v = p.add(v, b);
    }
    for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
        assert_eq!(count(&p, strategy).0, 0, "{strategy}");
    }
}

#[test]
fn mul_then_one_add_needs_none() {
    let mut p = Problem::new(NoiseParams::default());
    let (a, b) = (p.encode(), p.encode());
    let m = p.mul(a, b);
    p.add(m, b);
    for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
        assert_eq!(count(&p, strategy).0, 0, "{strategy}");
    }
}

fn adds(p: &mut Problem, from: usize, other: usize, n: usize) -> usize {
    let mut v = from;
    for _ in 0..n {
        v = p.add(v, other);
    }
    v
}

#[test]
fn mul_then_adds_reduces_after_the_mul() {
    let mut p = Problem::new(NoiseParams::default());
    let (a, b) = (p.encode(), p.encode());
    let m = p.mul(a, b);
    adds(&mut p, m, b, 4);
    for strategy in [Strategy::Exact, Strategy::Ilp] {
        let (n, reduced) = count(&p, strategy);
        assert_eq!(n, 1, "{strategy}");
        assert!(reduced[m], "{strategy}");
    }
}

#[test]
fn single_branching_needs_one_after_the_mul() {
    let mut p = Problem::new(NoiseParams::default());
    let (a, b) = (p.encode(), p.encode());
    let m = p.mul(a, b);
    adds(&mut p, m, b, 4);
    adds(&mut p, m, a, 4);
    for strategy in [Strategy::Exact, Strategy::Ilp] {
        let (n, reduced) = count(&p, strategy);
        assert_eq!(n, 1, "{strategy}");
        assert!(reduced[m], "{strategy}");
    }
    // Reducing late needs one per branch.
    assert_eq!(count(&p, Strategy::Greedy).0, 2);
}

#[test]
fn double_branching_needs_three() {
    let mut p = Problem::new(NoiseParams::default());
    let (a, b) = (p.encode(), p.encode());
    let m = p.mul(a, b);
    let x = adds(&mut p, m, b, 4);
    let y = adds(&mut p, m, a, 4);
    p.mul(x, y);
    for strategy in [Strategy::Exact, Strategy::Ilp] {
        let (n, reduced) = count(&p, strategy);
        assert_eq!(n, 3, "{strategy}");
        assert!(reduced[m], "{strategy}");
    }
}

#[test]
fn loop_carried_cap_is_honoured() {
    // A value capped at the encoding noise (it flows around a loop) must be
    // reduced even though nothing downstream exceeds the maximum.
    let params = NoiseParams::default();
    let mut p = Problem::new(params);
    let (a, b) = (p.encode(), p.encode());
    let s = p.add(a, b);
    p.set_cap(s, params.encode);
    let (n, reduced) = count(&p, Strategy::Exact);
    assert_eq!(n, 1);
    assert!(reduced[s]);
    assert_eq!(count(&p, Strategy::Ilp).0, 1);
    assert_eq!(count(&p, Strategy::Greedy).0, 1);
}

#[test]
fn infeasible_parameters_name_the_node() {
    // With 14 bits per encoding a mul of two encodings is 28 bits: no placement helps.
    let mut p = Problem::new(NoiseParams {
        encode: 14,
        max: 26,
    });
    let (a, b) = (p.encode(), p.encode());
    let m = p.mul(a, b);
    let err = solve(&p, Strategy::Exact, &limits(u64::MAX, None)).unwrap_err();
    assert_eq!((err.node, err.noise), (m, 28));
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random DAG of `ops` operations over a few encodings, operands drawn
/// mostly from the recent values.
fn random_dag(seed: u64, ops: usize, mul_percent: usize) -> Problem {
    let mut rng = Rng(seed);
    let mut p = Problem::new(NoiseParams::default());
    let sources = 2 + rng.below(3);
    for _ in 0..sources {
        p.encode();
    }
    for _ in 0..ops {
        let len = p.len();
        let pick = |rng: &mut Rng| {
            if rng.below(3) == 0 {
                rng.below(len)
            } else {
                len - 1 - rng.below(len.min(6))
            }
        };
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        if rng.below(100) < mul_percent {
            p.mul(a, b);
        } else {
            p.add(a, b);
        }
    }
    p
}

/// Checks the strategies against `optimum`, the enumerated least number of
/// reductions: the exact search finds it, greedy needs no fewer, and on
/// every fifth seed the ILP gives a legal placement, of `optimum`
/// reductions when it proves optimality.
fn check_against_enumeration(p: &Problem, optimum: usize, seed: u64) {
    let (exact, _) = count(p, Strategy::Exact);
    assert_eq!(exact, optimum, "seed {seed}: exact vs enumeration");
    let greedy = count(p, Strategy::Greedy).0;
    assert!(greedy >= optimum, "seed {seed}");
    if seed.is_multiple_of(5) {
        let ilp = solve(
            p,
            Strategy::Ilp,
            &limits(u64::MAX, Some(Duration::from_secs(5))),
        )
        .unwrap();
        assert!(p.is_legal(&ilp.reduced));
        if ilp.optimal {
            assert_eq!(ilp.count, optimum, "seed {seed}: ILP vs enumeration");
        }
    }
}

#[test]
fn exact_matches_enumeration_on_random_dags() {
    for seed in 0..300u64 {
        let ops = 3 + (seed % 18) as usize;
        let p = random_dag(seed, ops, 15 + (seed % 4) as usize * 10);
        let brute = p.brute_force().expect("feasible");
        let optimum = brute.iter().filter(|&&r| r).count();
        check_against_enumeration(&p, optimum, seed);
    }
}

/// A `mul` by a plaintext 4 adds 2 bits, by 1 none, and an `add` of a
/// plaintext constant none: `mul` (24) then `* 1`, `+ c`, `* 4` is 26, legal;
/// one more `* 4` needs one reduction.
#[test]
fn plaintext_constants_scale_the_noise() {
    let mut p = Problem::new(NoiseParams::default());
    let (a, b) = (p.encode(), p.encode());
    let m = p.mul(a, b);
    let one = p.scale(m, 1);
    let plus = p.scale(one, 0);
    let four = p.scale(plus, 4);
    let (noise, violation) = p.evaluate(&vec![false; p.len()]);
    assert_eq!(
        (noise[m], noise[one], noise[plus], noise[four]),
        (24, 24, 24, 26)
    );
    assert_eq!(violation, None);
    p.scale(four, 4);
    for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
        assert_eq!(count(&p, strategy).0, 1, "{strategy}");
    }
}

/// Random DAGs with plaintext constants (scales of 0 to 5 bits) against
/// enumeration.
#[test]
fn exact_matches_enumeration_with_plaintext_constants() {
    for seed in 0..200u64 {
        let mut rng = Rng(seed ^ 0x5ca1e);
        let mut p = Problem::new(NoiseParams::default());
        for _ in 0..2 + rng.below(3) {
            p.encode();
        }
        for _ in 0..3 + (seed % 16) as usize {
            let len = p.len();
            let a = len - 1 - rng.below(len.min(5));
            let b = rng.below(len);
            match rng.below(10) {
                0 | 1 => p.mul(a, b),
                2..=4 => p.scale(a, 1 + rng.below(31) as u128),
                _ => p.add(a, b),
            };
        }
        let Some(brute) = p.brute_force() else {
            assert!(
                solve(&p, Strategy::Exact, &limits(u64::MAX, None)).is_err(),
                "seed {seed}"
            );
            continue;
        };
        let optimum = brute.iter().filter(|&&r| r).count();
        check_against_enumeration(&p, optimum, seed);
    }
}

/// A DAG in the style of the IR generator: operands are mostly recent values
/// not used yet (chains), with probability `sharing` any value (fan-out).
fn chain_dag(seed: u64, ops: usize, sharing: f64) -> Problem {
    let mut rng = Rng(seed);
    let mut p = Problem::new(NoiseParams::default());
    let mut unused: Vec<usize> = (0..4).map(|_| p.encode()).collect();
    let mut used = vec![false; 4];
    for _ in 0..ops {
        let mut operand = |rng: &mut Rng, p: &mut Problem, used: &mut Vec<bool>| {
            if rng.below(100) < 4 {
                used.push(true);
                return p.encode();
            }
            unused.retain(|&v| !used[v]);
            if (rng.below(1000) as f64) >= sharing * 1000.0 && !unused.is_empty() {
                let i = unused.len() - 1 - rng.below(unused.len().min(4));
                let v = unused.swap_remove(i);
                used[v] = true;
                return v;
            }
            let v = rng.below(p.len());
            used[v] = true;
            v
        };
        let a = operand(&mut rng, &mut p, &mut used);
        let b = operand(&mut rng, &mut p, &mut used);
        let v = if rng.below(100) < 25 {
            p.mul(a, b)
        } else {
            p.add(a, b)
        };
        used.push(false);
        unused.push(v);
    }
    p
}

#[test]
fn exact_reports_an_honest_bound_on_a_large_dag() {
    // Too large to close with the effort given: the placement is legal,
    // no worse than greedy, and the bound is a bound.
    let p = chain_dag(7, 300, 0.3);
    let s = solve(&p, Strategy::Exact, &limits(2_000, None)).unwrap();
    assert!(p.is_legal(&s.reduced));
    let greedy = solve(&p, Strategy::Greedy, &limits(u64::MAX, None)).unwrap();
    assert!(s.count <= greedy.count);
    assert!(s.lower_bound <= s.cost);
    assert_eq!(s.optimal, s.lower_bound == s.cost);
    assert_eq!(s.stopped, !s.optimal);
}

/// A random DAG of 3 to 14 ops (a quarter `mul`) whose values cost one of
/// `costs` each, and the cost of its cheapest placement by enumeration.
fn weighted_dag(seed: u64, salt: u64, costs: &[u64]) -> (Problem, u64) {
    let mut p = random_dag(seed ^ salt, 3 + (seed % 12) as usize, 25);
    let mut rng = Rng(seed);
    for v in 0..p.len() {
        p.set_cost(v, costs[rng.below(costs.len())]);
    }
    let brute = p.brute_force_cost().expect("feasible");
    let optimum = p.cost_of(&brute);
    (p, optimum)
}

/// Costs whose total passes what the hitting set's floating-point
/// relaxation adds exactly (loops of huge trip counts): the exact strategy
/// takes its fallback and still finds the cheapest placement.
#[test]
fn huge_weighted_costs_match_enumeration() {
    for seed in 0..60u64 {
        let (p, optimum) = weighted_dag(seed, 0x6e67, &[1, 3, 1 << 33, 1 << 40]);
        let s = solve(&p, Strategy::Exact, &limits(u64::MAX, None)).expect("feasible");
        assert!(p.is_legal(&s.reduced), "seed {seed}");
        assert!(s.optimal, "seed {seed}");
        assert_eq!(s.cost, optimum, "seed {seed}");
        assert_eq!(s.lower_bound, optimum, "seed {seed}");
    }
}

/// Reductions of different costs (as inside and outside loops): the exact
/// strategy and the ILP find the cheapest placement that enumeration finds,
/// the greedy a legal one no cheaper.
#[test]
fn weighted_costs_match_enumeration() {
    for seed in 0..150u64 {
        let (p, optimum) = weighted_dag(seed, 0xc057, &[1, 1, 3, 10, 100]);
        for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
            let s = solve(&p, strategy, &limits(u64::MAX, None)).expect("feasible");
            assert!(p.is_legal(&s.reduced), "seed {seed}: {strategy}");
            assert_eq!(s.cost, p.cost_of(&s.reduced));
            assert!(s.lower_bound <= optimum, "seed {seed}: {strategy} bound");
            match strategy {
                Strategy::Greedy => assert!(s.cost >= optimum),
                _ => {
                    assert!(s.optimal, "seed {seed}: {strategy}");
                    assert_eq!(s.cost, optimum, "seed {seed}: {strategy}");
                }
            }
        }
    }
}
