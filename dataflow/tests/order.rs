//! The loop-aware order the solver takes from the function's analyses, on
//! generated programs: a topological order but for back edges, with each
//! loop's blocks together after its header.

use kildall_harness::generate::{generate_cfg, CfgConfig};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::DominatorTree;
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{Block, EntityRef};

/// Blocks that sit between a loop header and its latch in `order`
/// without being in the loop, and all blocks in such ranges.
fn intruders(cfg: &ControlFlowGraph, domtree: &DominatorTree, order: &[Block]) -> (usize, usize) {
    let n = cfg.num_block_indices();
    let mut position = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        position[b.index()] = i;
    }
    let (mut outside, mut inside) = (0, 0);
    for &u in order {
        for &v in cfg.successors(u) {
            let (pu, pv) = (position[u.index()], position[v.index()]);
            if pv > pu || !domtree.dominates(v, u) {
                continue;
            }
            // The natural loop of `v`: the header and the blocks
            // reaching one of its latches without passing through it.
            let mut in_loop = vec![false; n];
            in_loop[v.index()] = true;
            let mut work: Vec<Block> = cfg
                .predecessors(v)
                .iter()
                .copied()
                .filter(|&p| domtree.dominates(v, p))
                .collect();
            while let Some(b) = work.pop() {
                if !std::mem::replace(&mut in_loop[b.index()], true) {
                    work.extend(cfg.predecessors(b).iter().copied());
                }
            }
            for &b in &order[pv..=pu] {
                inside += 1;
                outside += usize::from(!in_loop[b.index()]);
            }
        }
    }
    (outside, inside)
}

/// The solver and the replacement walk rely on the order: every edge
/// goes forward except the back edges (whose target dominates their
/// source), so a block with one predecessor comes after it. The speed
/// relies on each loop coming right after its header, before the blocks
/// after the loop: plain reverse post-order puts the blocks after a loop
/// between its header and latch when the body is the first successor;
/// the loop order leaves only exits that leave several loops at once,
/// such as early returns, visited before their siblings but after the
/// outer loop's other blocks.
#[test]
fn loop_order_is_topological_and_keeps_loops_together() {
    let config = CfgConfig {
        blocks: 120,
        max_depth: 4,
        ..CfgConfig::default()
    };
    let (mut ours, mut plain, mut checked) = (0, 0, 0);
    for seed in 0..300 {
        let module = generate_cfg(seed, &config);
        for func in module.functions.values() {
            let mut analyses = FunctionAnalyses::new();
            let analyses = analyses.all(func);
            let (cfg, domtree) = (analyses.cfg, analyses.domtree);
            let n = cfg.num_block_indices();
            let order: Vec<Block> = analyses.loop_order.reverse_postorder().collect();
            let rpo: Vec<Block> = cfg.reverse_postorder().collect();
            let (mut got, mut expected) = (order.clone(), rpo.clone());
            expected.sort();
            got.sort();
            assert_eq!(got, expected, "seed {seed}: not the reachable blocks");
            let mut position = vec![usize::MAX; n];
            for (i, &b) in order.iter().enumerate() {
                position[b.index()] = i;
            }
            for &u in &order {
                for &v in cfg.successors(u) {
                    if position[v.index()] <= position[u.index()] {
                        assert!(
                            domtree.dominates(v, u),
                            "seed {seed}: {u} -> {v} goes backwards but is no back edge"
                        );
                    }
                }
            }
            let (outside, inside) = intruders(cfg, domtree, &order);
            ours += outside;
            checked += inside;
            plain += intruders(cfg, domtree, &rpo).0;
        }
    }
    eprintln!("{ours} of {checked} blocks inside loop ranges are not in the loop (plain reverse post-order: {plain})");
    assert!(checked > 1000, "too few loops to test: {checked}");
    assert!(
        ours * 20 < checked && ours * 4 < plain,
        "{ours} of {checked} blocks inside loop ranges are not in the loop \
         (plain reverse post-order: {plain})"
    );
}
