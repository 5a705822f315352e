//! The graph core against brute-force definitions on seeded random graphs
//! (self-loops, repeated edges, unreachable nodes, irreducible cycles and
//! cycles without exit included) and on small graphs written out: the
//! depth-first orders against a recursive search, dominance by
//! reachability with a node removed, post-dominance likewise on the
//! reversed graph, frontiers by their definition, and the loop forest
//! against natural loops by their textbook definition.

use kildall_graph::{
    DominanceFrontiers, DominatorTree, EntityRef, Graph, LoopForest, LoopNest, PostDominatorTree,
    PostOrder,
};
use kildall_testkit::Rng;

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Node(u32);

impl EntityRef for Node {
    fn new(index: usize) -> Self {
        Node(index as u32)
    }
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// A graph given by its successor lists; node 0 is the entry.
struct Edges {
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
}

impl Edges {
    fn new(succs: Vec<Vec<usize>>) -> Self {
        let mut preds = vec![Vec::new(); succs.len()];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        Edges { succs, preds }
    }

    fn len(&self) -> usize {
        self.succs.len()
    }

    /// Which nodes are reachable from `from` without passing `avoid`.
    fn reach(&self, from: usize, avoid: Option<usize>, forward: bool) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        let mut work = vec![from];
        while let Some(b) = work.pop() {
            if Some(b) == avoid || std::mem::replace(&mut seen[b], true) {
                continue;
            }
            work.extend(if forward {
                &self.succs[b]
            } else {
                &self.preds[b]
            });
        }
        seen
    }
}

impl Graph for Edges {
    type Node = Node;
    fn num_node_indices(&self) -> usize {
        self.succs.len()
    }
    fn entry(&self) -> Option<Node> {
        (!self.succs.is_empty()).then_some(Node(0))
    }
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.succs[n.index()].iter().map(|&s| Node::new(s))
    }
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.preds[n.index()].iter().map(|&p| Node::new(p))
    }
}

/// A random graph of `n` nodes: each has up to three successors, any node
/// (itself and the same node twice included), so some nodes are
/// unreachable, some cycles irreducible and some reach no exit.
fn random_graph(rng: &mut Rng, n: usize) -> Edges {
    let succs = (0..n)
        .map(|_| (0..rng.index(4)).map(|_| rng.index(n)).collect())
        .collect();
    Edges::new(succs)
}

fn for_random_graphs(seed: u64, cases: usize, max_nodes: usize, mut check: impl FnMut(&Edges)) {
    let mut rng = Rng::new(seed);
    for _ in 0..cases {
        let n = 1 + rng.index(max_nodes);
        check(&random_graph(&mut rng, n));
    }
}

/// The post-order of a recursive depth-first search visiting successors
/// in the order `arrange` leaves them.
fn recursive_postorder(g: &Edges, arrange: &dyn Fn(&mut Vec<usize>)) -> Vec<usize> {
    fn visit(
        b: usize,
        g: &Edges,
        arrange: &dyn Fn(&mut Vec<usize>),
        seen: &mut [bool],
        out: &mut Vec<usize>,
    ) {
        seen[b] = true;
        let mut succs = g.succs[b].clone();
        arrange(&mut succs);
        for s in succs {
            if !seen[s] {
                visit(s, g, arrange, seen, out);
            }
        }
        out.push(b);
    }
    let mut out = Vec::new();
    visit(0, g, arrange, &mut vec![false; g.len()], &mut out);
    out
}

fn indices(nodes: impl IntoIterator<Item = Node>) -> Vec<usize> {
    nodes.into_iter().map(Node::index).collect()
}

#[test]
fn postorder_is_the_recursive_search() {
    let mut order = PostOrder::new();
    for_random_graphs(1, 800, 30, |g| {
        order.compute(g);
        let expected = recursive_postorder(g, &|_| {});
        assert_eq!(indices(order.as_slice().iter().copied()), expected);
        assert_eq!(
            indices(order.reverse_postorder()),
            expected.iter().rev().copied().collect::<Vec<_>>()
        );
        let reachable = g.reach(0, None, true);
        for (b, &reached) in reachable.iter().enumerate() {
            let number = expected.iter().position(|&x| x == b).map(|i| i as u32);
            assert_eq!(order.number(Node::new(b)), number);
            assert_eq!(order.is_reachable(Node::new(b)), reached);
        }
        assert_eq!(order.len(), expected.len());
        assert_eq!(order.num_node_indices(), g.len());
    });
}

#[test]
fn sorted_successors_give_the_search_in_that_order() {
    let mut rng = Rng::new(2);
    let mut order = PostOrder::new();
    for _ in 0..500 {
        let n = 1 + rng.index(25);
        let g = random_graph(&mut rng, n);
        let weight: Vec<u32> = (0..n).map(|_| rng.index(3) as u32).collect();
        order.compute_sorted_by_key(&g, |s| weight[s.index()]);
        let expected = recursive_postorder(&g, &|succs| succs.sort_by_key(|&s| weight[s]));
        assert_eq!(indices(order.as_slice().iter().copied()), expected);
    }
}

#[test]
fn dominators_match_reachability_definition() {
    let (mut order, mut tree) = (PostOrder::new(), DominatorTree::new());
    for_random_graphs(3, 800, 20, |g| {
        order.compute(g);
        tree.compute(g, &order);
        let n = g.len();
        let reachable = g.reach(0, None, true);
        // d dominates b: b unreachable once d is removed.
        let dom: Vec<Vec<bool>> = (0..n)
            .map(|d| {
                let without = g.reach(0, Some(d), true);
                (0..n)
                    .map(|b| reachable[d] && reachable[b] && !without[b])
                    .collect()
            })
            .collect();
        for (a, dominated) in dom.iter().enumerate() {
            for (b, &expected) in dominated.iter().enumerate() {
                assert_eq!(
                    tree.dominates(Node::new(a), Node::new(b)),
                    expected,
                    "{a} dom {b}"
                );
            }
        }
        for b in (0..n).filter(|&b| reachable[b]) {
            // The immediate dominator: the strict dominator every other
            // strict dominator dominates.
            let idom = (0..n)
                .filter(|&d| d != b && dom[d][b])
                .find(|&d| (0..n).all(|e| e == b || !dom[e][b] || dom[e][d]));
            assert_eq!(
                tree.idom(Node::new(b)).map(Node::index),
                idom,
                "idom of {b}"
            );
            if let Some(d) = idom {
                assert!(tree.children(Node::new(d)).any(|c| c.index() == b));
            }
            for c in (0..n).filter(|&c| reachable[c]) {
                let common = tree.common_dominator(Node::new(b), Node::new(c)).unwrap();
                assert!(dom[common.index()][b] && dom[common.index()][c]);
                assert!(tree
                    .children(common)
                    .all(|k| !(dom[k.index()][b] && dom[k.index()][c])));
            }
        }
        assert_eq!(tree.root(), Some(Node(0)));
    });
}

#[test]
fn post_dominators_match_definition_where_every_node_reaches_an_exit() {
    let (mut order, mut tree) = (PostOrder::new(), PostDominatorTree::new());
    let mut checked = 0;
    for_random_graphs(4, 1500, 16, |g| {
        order.compute(g);
        tree.compute(g, &order);
        let n = g.len();
        let reachable = g.reach(0, None, true);
        let exits: Vec<usize> = (0..n)
            .filter(|&b| reachable[b] && g.succs[b].is_empty())
            .collect();
        // Every reachable node is in the tree, under the virtual exit.
        for b in (0..n).filter(|&b| reachable[b]) {
            assert!(tree.is_reachable(Node::new(b)));
        }
        for (b, &reached) in reachable.iter().enumerate() {
            assert_eq!(tree.post_dominates(Node::new(b), Node::new(b)), reached);
        }
        let reaches_exit = |b: usize, avoid: Option<usize>| {
            let seen = g.reach(b, avoid, true);
            exits.iter().any(|&e| seen[e])
        };
        if !(0..n).all(|b| !reachable[b] || reaches_exit(b, None)) {
            return;
        }
        checked += 1;
        for a in (0..n).filter(|&a| reachable[a]) {
            for b in (0..n).filter(|&b| reachable[b]) {
                let expected = a == b || !reaches_exit(b, Some(a));
                assert_eq!(
                    tree.post_dominates(Node::new(a), Node::new(b)),
                    expected,
                    "{a} pdom {b}"
                );
            }
        }
        let mut attached = indices(tree.attached_to_exit().iter().copied());
        attached.sort_unstable();
        assert_eq!(attached, exits, "only the exits are attached");
    });
    assert!(
        checked > 200,
        "only {checked} graphs where every node exits"
    );
}

#[test]
fn dominance_frontiers_match_definition() {
    let (mut order, mut tree, mut df) = (
        PostOrder::new(),
        DominatorTree::new(),
        DominanceFrontiers::new(),
    );
    let mut idf = Vec::new();
    for_random_graphs(5, 600, 16, |g| {
        order.compute(g);
        tree.compute(g, &order);
        df.compute(g, &tree);
        let n = g.len();
        let reachable = g.reach(0, None, true);
        for b in (0..n).filter(|&b| reachable[b]) {
            let b_node = Node::new(b);
            // j is in DF(b): b dominates a predecessor of j and does not
            // strictly dominate j.
            let expected: Vec<usize> = (0..n)
                .filter(|&j| reachable[j])
                .filter(|&j| {
                    let dominates_pred = g.preds[j]
                        .iter()
                        .any(|&p| reachable[p] && tree.dominates(b_node, Node::new(p)));
                    dominates_pred && !tree.strictly_dominates(b_node, Node::new(j))
                })
                .collect();
            assert_eq!(
                indices(df.frontier(b_node).iter().copied()),
                expected,
                "DF({b})"
            );
        }
        // The iterated frontier is closed: the frontier of every member is in it.
        df.iterated_frontier([Node(0)], &mut idf);
        for &j in &idf {
            for k in df.frontier(j) {
                assert!(idf.contains(k));
            }
        }
    });
}

/// The natural loops of `g` by their definition: for each header, its
/// body (the header and the nodes reaching a latch without passing it),
/// where a latch is a reachable predecessor the header dominates.
fn natural_loops(g: &Edges, tree: &DominatorTree<Node>) -> Vec<Option<Vec<bool>>> {
    let n = g.len();
    let reachable = g.reach(0, None, true);
    (0..n)
        .map(|h| {
            let latches: Vec<usize> = g.preds[h]
                .iter()
                .copied()
                .filter(|&p| reachable[p] && tree.dominates(Node::new(h), Node::new(p)))
                .collect();
            if latches.is_empty() {
                return None;
            }
            let mut inside = vec![false; n];
            inside[h] = true;
            let mut work = latches;
            while let Some(b) = work.pop() {
                if !std::mem::replace(&mut inside[b], true) {
                    work.extend(g.preds[b].iter().filter(|&&p| reachable[p]));
                }
            }
            Some(inside)
        })
        .collect()
}

/// Whether the reachable part of `g` holds a cycle once the edges whose
/// target dominates their source are removed.
fn cyclic_without_back_edges(g: &Edges, tree: &DominatorTree<Node>) -> bool {
    let reachable = g.reach(0, None, true);
    let forward = |u: usize, v: usize| !tree.dominates(Node::new(v), Node::new(u));
    (0..g.len()).filter(|&b| reachable[b]).any(|b| {
        let mut seen = vec![false; g.len()];
        let mut work: Vec<usize> = g.succs[b]
            .iter()
            .copied()
            .filter(|&s| forward(b, s))
            .collect();
        while let Some(x) = work.pop() {
            if x == b {
                return true;
            }
            if !std::mem::replace(&mut seen[x], true) {
                work.extend(g.succs[x].iter().copied().filter(|&s| forward(x, s)));
            }
        }
        false
    })
}

#[test]
fn loop_forest_is_the_natural_loops() {
    let (mut order, mut tree, mut forest) =
        (PostOrder::new(), DominatorTree::new(), LoopForest::new());
    let (mut reducible, mut irreducible, mut nested, mut irreducible_with_loops) = (0, 0, 0, 0);
    for_random_graphs(6, 1500, 14, |g| {
        order.compute(g);
        tree.compute(g, &order);
        forest.compute(g, &order, &tree);
        let n = g.len();
        let reachable = g.reach(0, None, true);
        let body = natural_loops(g, &tree);
        let size = |h: usize| {
            body[h]
                .as_ref()
                .map_or(usize::MAX, |s| s.iter().filter(|&&x| x).count())
        };
        let is_reducible = !cyclic_without_back_edges(g, &tree);
        assert_eq!(forest.is_reducible(), is_reducible, "{:?}", g.succs);
        if is_reducible {
            reducible += 1;
        } else {
            irreducible += 1;
            irreducible_with_loops += usize::from(forest.num_loops() > 0);
        }
        assert_eq!(forest.num_loops(), body.iter().flatten().count());
        for lp in forest.loops() {
            let h = lp.header().index();
            let inside = body[h].as_ref().expect("a header of a natural loop");
            for b in 0..n {
                assert_eq!(
                    lp.contains(Node::new(b)),
                    reachable[b] && inside[b],
                    "{:?}: {b} in loop of {h}",
                    g.succs
                );
            }
            let latches: Vec<usize> = g.preds[h]
                .iter()
                .copied()
                .filter(|&p| tree.dominates(Node::new(h), Node::new(p)))
                .collect();
            assert_eq!(indices(lp.latches().iter().copied()), latches);
            // The parent is the smallest other loop holding the header.
            let parent = (0..n)
                .filter(|&o| o != h && body[o].as_ref().is_some_and(|s| s[h]))
                .min_by_key(|&o| size(o));
            assert_eq!(
                lp.parent().map(|p| p.header().index()),
                parent,
                "{:?}: parent of {h}",
                g.succs
            );
            nested += usize::from(parent.is_some());
            match lp.parent() {
                Some(p) => {
                    assert!(p.index() < lp.index(), "outer loops first");
                    assert_eq!(lp.depth(), p.depth() + 1);
                }
                None => assert_eq!(lp.depth(), 1),
            }
            assert_eq!(
                forest.headed_by(lp.header()).map(|l| l.index()),
                Some(lp.index())
            );
        }
        for b in 0..n {
            let containing =
                (0..n).filter(|&h| reachable[b] && body[h].as_ref().is_some_and(|s| s[b]));
            let innermost = containing.clone().min_by_key(|&h| size(h));
            assert_eq!(
                forest.innermost(Node::new(b)).map(|l| l.header().index()),
                innermost
            );
            assert_eq!(forest.loop_depth(Node::new(b)), containing.count() as u32);
        }
    });
    assert!(
        reducible > 300 && irreducible > 100 && nested > 100 && irreducible_with_loops > 20,
        "{reducible} reducible, {irreducible} irreducible ({irreducible_with_loops} with loops), {nested} nested"
    );
}

#[test]
fn loop_order_is_the_search_by_loop_depth_and_topological_but_for_back_edges() {
    let mut nest = LoopNest::new();
    for_random_graphs(7, 800, 30, |g| {
        nest.compute(g);
        let forest = nest.forest();
        let depth = |s: usize| forest.cycle_depth(Node::new(s));
        let expected = recursive_postorder(g, &|succs| succs.sort_by_key(|&s| depth(s)));
        let order = nest.loop_order();
        assert_eq!(indices(order.as_slice().iter().copied()), expected);
        if forest.is_reducible() {
            for &u in order.as_slice() {
                for v in g.successors(u) {
                    if order.is_retreating_edge(u, v) {
                        assert!(
                            nest.domtree().dominates(v, u),
                            "{u:?} -> {v:?} is no back edge"
                        );
                    }
                }
            }
        }
    });
}

/// The cycle depth of each node by its definition: how many nodes `h`
/// with a retreating predecessor have `b` in their cycle, `h` itself and
/// the nodes below `h` in the search that reach such a predecessor without
/// passing `h`. Natural loops or not, so on a reducible graph the loop depth.
#[test]
fn cycle_depth_counts_every_cycle_of_the_search() {
    let mut nest = LoopNest::new();
    let (mut irreducible, mut deeper) = (0, 0);
    // Up to 12 nodes: the walks stay within their budget.
    for_random_graphs(9, 1500, 12, |g| {
        nest.compute(g);
        let (order, forest) = (nest.postorder(), nest.forest());
        let number = |b: usize| order.number(Node::new(b));
        let mut depth = vec![0u32; g.len()];
        for h in (0..g.len()).filter(|&h| number(h).is_some()) {
            let below = |x: usize| number(x).is_some_and(|p| p < number(h).unwrap());
            let retreating: Vec<usize> = g.preds[h]
                .iter()
                .copied()
                .filter(|&p| order.is_retreating_edge(Node::new(p), Node::new(h)))
                .collect();
            if retreating.is_empty() {
                continue;
            }
            let mut inside = vec![false; g.len()];
            inside[h] = true;
            let mut work = retreating;
            while let Some(b) = work.pop() {
                if !std::mem::replace(&mut inside[b], true) {
                    work.extend(g.preds[b].iter().copied().filter(|&x| below(x)));
                }
            }
            for (d, _) in depth.iter_mut().zip(&inside).filter(|(_, &i)| i) {
                *d += 1;
            }
        }
        for (b, &d) in depth.iter().enumerate() {
            let node = Node::new(b);
            assert_eq!(
                forest.cycle_depth(node),
                d,
                "{:?}: cycle depth of {b}",
                g.succs
            );
            if forest.is_reducible() {
                assert_eq!(forest.loop_depth(node), d);
            }
            deeper += usize::from(forest.cycle_depth(node) > forest.loop_depth(node));
        }
        irreducible += usize::from(!forest.is_reducible());
    });
    assert!(
        irreducible > 100 && deeper > 100,
        "{irreducible} irreducible, {deeper} deeper"
    );
}

#[test]
fn analyses_reuse_their_buffers_across_graphs() {
    let mut rng = Rng::new(8);
    let mut nest = LoopNest::new();
    let mut pdt = PostDominatorTree::new();
    let mut df = DominanceFrontiers::new();
    for _ in 0..200 {
        let n = 1 + rng.index(20);
        let g = random_graph(&mut rng, n);
        nest.compute(&g);
        pdt.compute(&g, nest.postorder());
        df.compute(&g, nest.domtree());
        let fresh = LoopNest::with_graph(&g);
        let fresh_pdt = PostDominatorTree::with_graph(&g, fresh.postorder());
        let mut fresh_df = DominanceFrontiers::new();
        fresh_df.compute(&g, fresh.domtree());
        assert_eq!(nest.loop_order().as_slice(), fresh.loop_order().as_slice());
        for a in (0..n).map(Node::new) {
            assert_eq!(nest.domtree().idom(a), fresh.domtree().idom(a));
            assert_eq!(pdt.ipdom(a), fresh_pdt.ipdom(a));
            assert_eq!(df.frontier(a), fresh_df.frontier(a));
            assert_eq!(nest.forest().cycle_depth(a), fresh.forest().cycle_depth(a));
        }
    }
}

#[test]
fn the_classic_irreducible_graph_has_no_loop() {
    // 0 -> 1, 0 -> 2, 1 <-> 2: a cycle entered at both of its nodes.
    let g = Edges::new(vec![vec![1, 2], vec![2], vec![1, 3], vec![]]);
    let nest = LoopNest::with_graph(&g);
    assert!(!nest.forest().is_reducible());
    assert_eq!(nest.forest().num_loops(), 0);
    assert_eq!(nest.domtree().idom(Node(1)), Some(Node(0)));
    assert_eq!(nest.domtree().idom(Node(2)), Some(Node(0)));
    assert_eq!(nest.domtree().idom(Node(3)), Some(Node(2)));
}

#[test]
fn a_natural_loop_inside_an_irreducible_cycle_is_a_loop() {
    // 0 -> 1, 0 -> 3; 1 -> 2 -> 1 (a natural loop); 1 -> 3 -> 1 (a cycle
    // also entered at 3); 3 -> 4 exits.
    let g = Edges::new(vec![vec![1, 3], vec![2, 3], vec![1], vec![1, 4], vec![]]);
    let nest = LoopNest::with_graph(&g);
    let forest = nest.forest();
    assert!(!forest.is_reducible());
    assert_eq!(forest.num_loops(), 1);
    let lp = forest.headed_by(Node(1)).expect("the natural loop of 1");
    assert_eq!(lp.latches(), &[Node(2)]);
    assert!(lp.contains(Node(2)) && !lp.contains(Node(3)));
}

#[test]
fn nested_loops_and_a_self_loop() {
    // 0 -> 1; 1 -> 2 | 5; 2 -> 3; 3 -> 3 | 4; 4 -> 2 | 1; 5 exits.
    let g = Edges::new(vec![
        vec![1],
        vec![2, 5],
        vec![3],
        vec![3, 4],
        vec![2, 1],
        vec![],
    ]);
    let nest = LoopNest::with_graph(&g);
    let forest = nest.forest();
    assert!(forest.is_reducible());
    let depths: Vec<u32> = (0..6).map(|b| forest.loop_depth(Node(b))).collect();
    assert_eq!(depths, [0, 1, 2, 3, 2, 0]);
    let inner = forest.headed_by(Node(3)).unwrap();
    assert_eq!(inner.latches(), &[Node(3)]);
    assert_eq!(inner.parent().map(|p| p.header()), Some(Node(2)));
    // The loop order keeps the outer loop's body right after its header,
    // its exit last, although the search meets the exit first.
    let rpo: Vec<Node> = nest.loop_order().reverse_postorder().collect();
    assert_eq!(rpo, [Node(0), Node(1), Node(2), Node(3), Node(4), Node(5)]);
}

#[test]
fn a_loop_without_exit_hangs_from_the_virtual_exit() {
    // 0 -> 1 | 3; 1 -> 2; 2 -> 1 (never leaves); 3 exits.
    let g = Edges::new(vec![vec![1, 3], vec![2], vec![1], vec![]]);
    let order = PostOrder::with_graph(&g);
    let pdt = PostDominatorTree::with_graph(&g, &order);
    // The exit first, then the node of the endless loop that finishes
    // first in the forward search.
    assert_eq!(pdt.attached_to_exit(), &[Node(3), Node(2)]);
    assert_eq!(pdt.ipdom(Node(1)), Some(Node(2)));
    assert_eq!(pdt.ipdom(Node(0)), None);
    let mut roots: Vec<Node> = pdt.roots().collect();
    roots.sort();
    assert_eq!(roots, [Node(0), Node(2), Node(3)]);
}

#[test]
fn an_empty_graph_has_nothing() {
    let g = Edges::new(Vec::new());
    let nest = LoopNest::with_graph(&g);
    assert!(nest.postorder().is_empty() && nest.postorder().is_valid());
    assert_eq!(nest.domtree().root(), None);
    assert_eq!(nest.forest().num_loops(), 0);
}
