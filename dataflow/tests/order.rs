//! The loop-aware order of the solver: a topological order but for back
//! edges, with each loop's blocks together after its header; and the
//! loop-nesting forest built on it, against the natural loops by their
//! definition.

use kildall_dataflow::{loop_order, FunctionGraph, LoopForest};
use kildall_harness::generate::{generate_cfg, CfgConfig, Rng};
use kildall_harness::testing::{cfg_function, random_cfg, TerminatorMix};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::DominatorTree;
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
            let cfg = ControlFlowGraph::with_function(func);
            let domtree = DominatorTree::with_cfg(&cfg);
            let n = cfg.num_block_indices();
            let order = loop_order(&FunctionGraph::new(func, &cfg));
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
            let (outside, inside) = intruders(&cfg, &domtree, &order);
            ours += outside;
            checked += inside;
            plain += intruders(&cfg, &domtree, &rpo).0;
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

/// On random graphs (irreducible ones and unreachable blocks included):
/// the forest exists exactly when every cycle of the reachable blocks goes
/// through an edge whose target dominates its source, and then its loops
/// are the natural loops (a header with every block that reaches one of
/// its latches without passing it), each inside the smallest loop that
/// holds it. Dominance and reachability by brute force.
#[test]
fn loop_forest_is_the_natural_loops_of_reducible_graphs() {
    let mut rng = Rng::new(31);
    let mix = TerminatorMix {
        returns: 1,
        jumps: 3,
        branches: 3,
    };
    let (mut reducible, mut irreducible, mut nested) = (0, 0, 0);
    for _ in 0..600 {
        let n = 1 + rng.index(14);
        let shape = random_cfg(&mut rng, n, mix);
        let func = cfg_function(&shape);
        let cfg = ControlFlowGraph::with_function(&func);
        let graph = FunctionGraph::new(&func, &cfg);
        let forest = LoopForest::new(&graph, &loop_order(&graph));
        // reach[a][b]: b reachable from a avoiding `avoid` (not counting a itself).
        let reach = |from: usize, avoid: Option<usize>| {
            let mut seen = vec![false; n];
            let mut work: Vec<usize> = if Some(from) == avoid {
                vec![]
            } else {
                vec![from]
            };
            while let Some(b) = work.pop() {
                if Some(b) == avoid || std::mem::replace(&mut seen[b], true) {
                    continue;
                }
                work.extend(shape[b].iter().copied());
            }
            seen
        };
        let reachable = reach(0, None);
        let dominates = |d: usize, b: usize| d == b || !reach(0, Some(d))[b];
        let back = |u: usize, v: usize| reachable[u] && shape[u].contains(&v) && dominates(v, u);
        // Reducible: no cycle among reachable blocks once back edges are removed.
        let cyclic_without_back = (0..n).filter(|&b| reachable[b]).any(|b| {
            // b reaches itself over forward edges?
            let mut seen = vec![false; n];
            let mut work: Vec<usize> = shape[b].iter().copied().filter(|&s| !back(b, s)).collect();
            while let Some(x) = work.pop() {
                if x == b {
                    return true;
                }
                if !std::mem::replace(&mut seen[x], true) {
                    work.extend(shape[x].iter().copied().filter(|&s| !back(x, s)));
                }
            }
            false
        });
        let Some(forest) = forest else {
            assert!(cyclic_without_back, "{shape:?}: reducible but no forest");
            irreducible += 1;
            continue;
        };
        assert!(!cyclic_without_back, "{shape:?}: irreducible but a forest");
        reducible += 1;
        // Natural loops: body[h][b].
        let body: Vec<Option<Vec<bool>>> = (0..n)
            .map(|h| {
                let latches: Vec<usize> = (0..n).filter(|&u| back(u, h)).collect();
                if latches.is_empty() {
                    return None;
                }
                let mut inside = vec![false; n];
                inside[h] = true;
                let mut work = latches;
                while let Some(b) = work.pop() {
                    if !std::mem::replace(&mut inside[b], true) {
                        work.extend((0..n).filter(|&p| reachable[p] && shape[p].contains(&b)));
                    }
                }
                Some(inside)
            })
            .collect();
        let size = |h: usize| {
            body[h]
                .as_ref()
                .map_or(usize::MAX, |s| s.iter().filter(|&&x| x).count())
        };
        assert_eq!(forest.num_loops(), body.iter().flatten().count());
        for lp in forest.loops::<Block>() {
            let h = lp.header().index();
            let inside = body[h].as_ref().expect("a header of a natural loop");
            for b in 0..n {
                assert_eq!(
                    lp.contains(Block::new(b)),
                    reachable[b] && inside[b],
                    "{shape:?}: {b} in loop of {h}"
                );
            }
            // The parent is the smallest other loop holding the header.
            let parent = (0..n)
                .filter(|&o| o != h && body[o].as_ref().is_some_and(|s| s[h]))
                .min_by_key(|&o| size(o));
            assert_eq!(
                lp.parent().map(|p| p.header().index()),
                parent,
                "{shape:?}: parent of {h}"
            );
            nested += usize::from(parent.is_some());
            if let Some(p) = lp.parent() {
                assert!(p.index() < lp.index(), "outer loops first");
            }
        }
        for b in (0..n).filter(|&b| reachable[b]) {
            let innermost = (0..n)
                .filter(|&h| body[h].as_ref().is_some_and(|s| s[b]))
                .min_by_key(|&h| size(h));
            assert_eq!(
                forest.innermost(Block::new(b)).map(|l| l.header().index()),
                innermost
            );
        }
    }
    assert!(
        reducible > 100 && irreducible > 30 && nested > 30,
        "{reducible} {irreducible} {nested}"
    );
}
