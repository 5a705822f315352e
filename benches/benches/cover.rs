//! The weighted hitting-set solver of `kildall-cover` on seeded random
//! instances: unit-cost sets of three elements at three densities (the
//! reductions settle the sparse one, the dense ones need the relaxation's
//! branch and bound), and the same with costs 1-7. Each instance is proven
//! optimal within the limit; the count, bound and nodes are printed once.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kildall_cover::{min_hitting_set, Budget, HittingSet, SearchLimits};
use kildall_testkit::Rng;
use std::hint::black_box;

/// Enough effort to prove every instance optimal.
const EFFORT: u64 = 10_000_000;

/// `sets` random sets of three distinct elements of `0..elements`, and
/// costs 1-7 when `weighted`.
fn instance(elements: usize, sets: usize, weighted: bool) -> HittingSet {
    let mut rng = Rng::new(0x6a09_e667_f3bc_c908 ^ (elements * 31 + sets) as u64);
    let sets = (0..sets)
        .map(|_| {
            let mut set: Vec<u32> = Vec::with_capacity(3);
            while set.len() < 3 {
                let x = rng.below(elements as u64) as u32;
                if !set.contains(&x) {
                    set.push(x);
                }
            }
            set.sort_unstable();
            set
        })
        .collect();
    let weights = weighted.then(|| (0..elements).map(|_| 1 + rng.below(7)).collect());
    HittingSet {
        elements,
        sets,
        weights,
    }
}

fn limits() -> SearchLimits {
    SearchLimits::new(Budget::new(EFFORT, None))
}

fn hitting_set(c: &mut Criterion) {
    let mut group = c.benchmark_group("cover");
    group.sample_size(10);
    for (elements, sets) in [(200, 300), (100, 300), (60, 300)] {
        for weighted in [false, true] {
            let inst = instance(elements, sets, weighted);
            let name = if weighted { "weighted" } else { "unit" };
            let probe = min_hitting_set(inst.clone(), &limits(), None);
            let weight = |x: &usize| inst.weights.as_ref().map_or(1, |w| w[*x]);
            eprintln!(
                "cover/{name}/{elements}x{sets}: {} chosen, cost {}, lower bound {}, optimal {}, nodes {}",
                probe.chosen.len(),
                probe.chosen.iter().map(weight).sum::<u64>(),
                probe.lower_bound,
                probe.optimal,
                probe.nodes
            );
            let id = BenchmarkId::new(name, format!("{elements}x{sets}"));
            group.bench_with_input(id, &inst, |b, inst| {
                b.iter(|| black_box(min_hitting_set(inst.clone(), &limits(), None).lower_bound))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, hitting_set);
criterion_main!(benches);
