//! The smallest vertex cover of the Petersen graph, as a hitting set of its
//! edges: every edge is a set of two vertices, and a cover must hit each.
//! The graph has no triangle-free shortcut to the bound: its linear
//! relaxation gives 5 (every vertex at 1/2), while the optimum is 6, which
//! the odd-cycle cuts prove at the root.
//!
//! `cargo run -p kildall-cover --example petersen`

use kildall_cover::{min_hitting_set, Budget, HittingSet, SearchLimits};

fn main() {
    // The outer 5-cycle 0..5, the inner pentagram 5..10, and the spokes.
    let mut edges: Vec<Vec<u32>> = Vec::new();
    for i in 0..5u32 {
        edges.push(vec![i, (i + 1) % 5]);
        edges.push(vec![5 + i, 5 + (i + 2) % 5]);
        edges.push(vec![i, 5 + i]);
    }
    for edge in &mut edges {
        edge.sort_unstable();
    }
    let instance = HittingSet {
        elements: 10,
        sets: edges,
        weights: None,
    };
    let cover = min_hitting_set(instance, &SearchLimits::new(Budget::unlimited()), None);
    println!(
        "vertex cover {:?}: {} vertices, lower bound {}, proven optimal: {}",
        cover.chosen,
        cover.chosen.len(),
        cover.lower_bound,
        cover.optimal
    );
}
