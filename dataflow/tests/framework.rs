//! The solver on a graph type of its own (not `ir` functions; only the
//! random shapes come from `kildall_harness::testing`): a mock analysis whose
//! state is unique at every program point, checked through the cursor from
//! every point in both directions, as rustc's dataflow framework tests do,
//! with states kept everywhere or at joins and loops iterated or settled
//! through invariants; plus the lattice laws of the stock domains.

use std::collections::BTreeSet;

use cranelift_entity::{entity_impl, EntityRef};
use kildall_dataflow::{
    Analysis, Backward, BitSet, Direction, EffectId, Effects, Flat, Forward, Graph,
    JoinSemiLattice, Loop, MapLattice, Max, Min, PowerSet, ProgramPoint, SparseGraph, StatesKept,
};
use kildall_harness::generate::Rng;
use kildall_harness::testing::{random_cfg, TerminatorMix};

#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Node(u32);
entity_impl!(Node, "n");

/// A graph of blocks with `len` instructions each; instruction `(b, i)`.
/// Predecessors are computed from the definitions, by the simplest means.
/// It keeps no loop structure: the solver computes its order and loops.
struct TestGraph {
    blocks: Vec<(usize, Vec<Node>)>,
    preds: Vec<Vec<Node>>,
}

impl TestGraph {
    fn new(blocks: Vec<(usize, Vec<Node>)>) -> Self {
        let mut preds = vec![Vec::new(); blocks.len()];
        for (b, (_, succs)) in blocks.iter().enumerate() {
            for s in succs {
                preds[s.index()].push(Node::new(b));
            }
        }
        TestGraph { blocks, preds }
    }
}

impl kildall_graph::Graph for TestGraph {
    type Node = Node;
    fn num_node_indices(&self) -> usize {
        self.blocks.len()
    }
    fn entry(&self) -> Option<Node> {
        (!self.blocks.is_empty()).then(|| Node::new(0))
    }
    fn successors(&self, block: Node) -> impl Iterator<Item = Node> + '_ {
        self.blocks[block.index()].1.iter().copied()
    }
    fn predecessors(&self, block: Node) -> impl Iterator<Item = Node> + '_ {
        self.preds[block.index()].iter().copied()
    }
}

impl Graph for TestGraph {
    type Inst = (Node, usize);
    fn block_insts(&self, block: Node) -> impl DoubleEndedIterator<Item = (Node, usize)> + '_ {
        (0..self.blocks[block.index()].0).map(move |i| (block, i))
    }
    fn inst_block(&self, inst: (Node, usize)) -> Option<Node> {
        Some(inst.0)
    }
}

/// A random graph (irreducible loops, unreachable blocks and blocks that
/// reach no exit included) with zero to three instructions a block.
fn random_graph(rng: &mut Rng, n: usize) -> TestGraph {
    let mix = TerminatorMix {
        returns: 1,
        jumps: 1,
        branches: 1,
    };
    let blocks = random_cfg(rng, n, mix)
        .into_iter()
        .map(|succs| (rng.index(4), succs.into_iter().map(Node::new).collect()))
        .collect();
    TestGraph::new(blocks)
}

/// Each program point has an id: instruction `i` of block `b` is
/// `b * 100 + i`, the terminator `b * 100 + len`, the edge `f -> t`
/// `1_000_000 + f * 1000 + t`. Every effect adds its id, so the state at a
/// point tells which effects reached it.
fn inst_id(b: Node, i: usize) -> u32 {
    b.as_u32() * 100 + i as u32
}

/// What the mock analysis declares of its loops. Its effects only add ids,
/// so every part of a header's state passes through them unchanged: any
/// part is a valid invariant.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Invariants {
    /// Nothing: the engine iterates.
    Undeclared,
    /// The header's whole state (what the header reaches, every block of
    /// the loop reaches).
    Whole,
    /// A part of it, so that the back edges carry more than the invariant
    /// and the engine must go on iterating from the latches.
    Part,
}

/// The mock analysis, keeping the states it is told to and declaring the
/// invariants it is told to.
struct Mock<D>(std::marker::PhantomData<D>, StatesKept, Invariants);

impl<D: Direction> Analysis<TestGraph> for Mock<D> {
    type Domain = PowerSet<u32>;
    type Direction = D;
    fn bottom_value(&self, _: &TestGraph) -> PowerSet<u32> {
        PowerSet::new()
    }
    fn states_kept(&self) -> StatesKept {
        self.1
    }
    fn has_loop_invariants(&self) -> bool {
        self.2 != Invariants::Undeclared
    }
    fn loop_invariant(&mut self, _: &TestGraph, lp: &Loop<'_, Node>, state: &mut PowerSet<u32>) {
        match self.2 {
            Invariants::Undeclared => unreachable!("no invariants declared"),
            Invariants::Whole => {}
            Invariants::Part => state
                .0
                .retain(|id| !(id + lp.header().as_u32()).is_multiple_of(3)),
        }
    }
    fn initialize_start_block(&self, _: &TestGraph, block: Node, state: &mut PowerSet<u32>) {
        state.insert(900_000 + block.as_u32());
    }
    fn apply_instruction_effect(
        &mut self,
        _: &TestGraph,
        state: &mut PowerSet<u32>,
        (b, i): (Node, usize),
    ) {
        state.insert(inst_id(b, i));
    }
    fn apply_terminator_effect(&mut self, g: &TestGraph, state: &mut PowerSet<u32>, block: Node) {
        state.insert(inst_id(block, g.blocks[block.index()].0));
    }
    fn apply_edge_effect(
        &mut self,
        _: &TestGraph,
        state: &mut PowerSet<u32>,
        from: Node,
        to: Node,
    ) {
        state.insert(1_000_000 + from.as_u32() * 1000 + to.as_u32());
    }
}

/// The state the cursor must show at point `p` of `block` (`p <= len`:
/// before instruction `p` or the terminator, `len + 1`: the block end).
fn expected(
    g: &TestGraph,
    entry: &PowerSet<u32>,
    block: Node,
    p: usize,
    forward: bool,
) -> PowerSet<u32> {
    let len = g.blocks[block.index()].0;
    let mut s = entry.clone();
    for k in 0..=len {
        if (forward && k < p) || (!forward && k >= p) {
            s.insert(inst_id(block, k));
        }
    }
    s
}

/// Whether `g` is reducible, by the definition: without the edges whose
/// target dominates their source (dominance by brute force: `d` dominates
/// `b` when `b` cannot be reached from the entry avoiding `d`), the
/// reachable blocks hold no cycle. If so, how many loop headers (targets
/// of those edges) it has.
fn loop_headers_if_reducible(g: &TestGraph) -> Option<usize> {
    let n = g.blocks.len();
    let reach_avoiding = |avoid: Option<usize>| {
        let mut seen = vec![false; n];
        let mut work = vec![0usize];
        while let Some(b) = work.pop() {
            if Some(b) == avoid || std::mem::replace(&mut seen[b], true) {
                continue;
            }
            work.extend(g.blocks[b].1.iter().map(|s| s.index()));
        }
        seen
    };
    let reachable = reach_avoiding(None);
    let unreached: Vec<Vec<bool>> = (0..n).map(|d| reach_avoiding(Some(d))).collect();
    let dominates = |d: usize, b: usize| d == b || !unreached[d][b];
    // Depth-first cycle search over the remaining edges: 1 on the stack, 2 done.
    let mut mark = vec![0u8; n];
    fn cyclic(
        b: usize,
        g: &TestGraph,
        mark: &mut [u8],
        keep: &dyn Fn(usize, usize) -> bool,
    ) -> bool {
        mark[b] = 1;
        for s in g.blocks[b].1.iter().map(|s| s.index()) {
            if keep(b, s) && (mark[s] == 1 || (mark[s] == 0 && cyclic(s, g, mark, keep))) {
                return true;
            }
        }
        mark[b] = 2;
        false
    }
    let keep = |u: usize, v: usize| !dominates(v, u);
    if (0..n).any(|b| reachable[b] && mark[b] == 0 && cyclic(b, g, &mut mark, &keep)) {
        return None;
    }
    let headers = (0..n)
        .filter(|&h| {
            (0..n).any(|u| reachable[u] && g.blocks[u].1.contains(&Node::new(h)) && dominates(h, u))
        })
        .count();
    Some(headers)
}

fn check_mock<D: Direction>(seed: u64, kept: StatesKept, invariants: Invariants) {
    let mut rng = Rng::new(seed);
    let (mut settled, mut iterated_after) = (0, 0);
    for _ in 0..300 {
        let n = 1 + rng.index(12);
        let g = random_graph(&mut rng, n);
        let dense = Mock::<D>(
            Default::default(),
            StatesKept::AtEveryBlock,
            Invariants::Undeclared,
        )
        .into_engine(&g)
        .iterate_to_fixpoint();
        let entries: Vec<PowerSet<u32>> = (0..n)
            .map(|b| dense.entry_state(Node::new(b)).clone())
            .collect();
        let mut results = Mock::<D>(Default::default(), kept, invariants)
            .into_engine(&g)
            .iterate_to_fixpoint();
        // Loops are settled through invariants exactly for a backward
        // analysis declaring them on a reducible graph; with the whole
        // header state as invariant, each block is visited once.
        let stats = *results.stats();
        let headers = loop_headers_if_reducible(&g);
        let settles = !D::IS_FORWARD && invariants != Invariants::Undeclared && headers.is_some();
        if settles {
            assert_eq!(Some(stats.loops_settled), headers, "loops settled");
        }
        if !settles {
            assert_eq!(stats.loops_settled, 0);
            assert_eq!(stats.invariant_joins, 0);
        } else if stats.loops_settled > 0 {
            settled += 1;
            if invariants == Invariants::Whole {
                assert_eq!(
                    stats.block_visits, stats.blocks as u64,
                    "one visit per block"
                );
            }
            iterated_after += usize::from(stats.block_visits > stats.blocks as u64);
        }
        if kept == StatesKept::AtJoins {
            check_kept_states(&g, &results, &entries, D::IS_FORWARD);
        }
        let reachable: Vec<Node> = (0..n)
            .map(Node::new)
            .filter(|&b| results.is_reachable(b))
            .collect();
        check_fixpoint(
            &g,
            &mut Mock::<D>(
                Default::default(),
                StatesKept::AtEveryBlock,
                Invariants::Undeclared,
            ),
            &entries,
            &reachable,
        );
        let mut cursor = results.as_cursor(&g);
        // Every point, in a random order, so seeks go both ways and across blocks.
        let mut points: Vec<(Node, usize)> = reachable
            .iter()
            .flat_map(|&b| (0..=g.blocks[b.index()].0 + 1).map(move |p| (b, p)))
            .collect();
        for _ in 0..3 {
            for i in (1..points.len()).rev() {
                points.swap(i, rng.index(i + 1));
            }
            for &(b, p) in &points {
                let len = g.blocks[b.index()].0;
                let point = match p {
                    0 if len == 0 || rng.index(2) == 0 => ProgramPoint::BlockStart(b),
                    p if p < len => ProgramPoint::Before((b, p)),
                    p if p == len && rng.index(2) == 0 => ProgramPoint::BeforeTerminator(b),
                    p if p == len + 1 => ProgramPoint::BlockEnd(b),
                    p => ProgramPoint::After((b, p - 1)),
                };
                let got = cursor.seek(point).clone();
                assert_eq!(
                    got,
                    expected(&g, &entries[b.index()], b, p, D::IS_FORWARD),
                    "{point:?}"
                );
            }
        }
    }
    if !D::IS_FORWARD && invariants != Invariants::Undeclared {
        assert!(settled > 30, "too few graphs with loops settled: {settled}");
        // A part of the header's state leaves the rest to the worklist.
        assert_eq!(iterated_after > 0, invariants == Invariants::Part);
    }
}

/// Applying every transfer function once more changes no entry state, and
/// every entry state is exactly the join of what flows into it (the least
/// fixed point, for this analysis whose start states are unique).
fn check_fixpoint<D: Direction>(
    g: &TestGraph,
    a: &mut Mock<D>,
    entries: &[PowerSet<u32>],
    reachable: &[Node],
) {
    let mut recomputed: Vec<PowerSet<u32>> = vec![PowerSet::new(); entries.len()];
    for &b in reachable {
        let len = g.blocks[b.index()].0;
        if D::IS_FORWARD && b.index() == 0 {
            a.initialize_start_block(g, b, &mut recomputed[0]);
        }
        if !D::IS_FORWARD && g.blocks[b.index()].1.is_empty() {
            a.initialize_start_block(g, b, &mut recomputed[b.index()]);
        }
        let mut s = entries[b.index()].clone();
        if D::IS_FORWARD {
            for i in 0..len {
                a.apply_instruction_effect(g, &mut s, (b, i));
            }
            a.apply_terminator_effect(g, &mut s, b);
            for &t in &g.blocks[b.index()].1 {
                let mut e = s.clone();
                a.apply_edge_effect(g, &mut e, b, t);
                assert!(
                    !entries[t.index()].clone().join(&e),
                    "not a fixed point at {t}"
                );
                recomputed[t.index()].join(&e);
            }
        } else {
            a.apply_terminator_effect(g, &mut s, b);
            for i in (0..len).rev() {
                a.apply_instruction_effect(g, &mut s, (b, i));
            }
            for &p in reachable {
                for &t in &g.blocks[p.index()].1 {
                    if t == b {
                        let mut e = s.clone();
                        a.apply_edge_effect(g, &mut e, p, b);
                        assert!(
                            !entries[p.index()].clone().join(&e),
                            "not a fixed point at {p}"
                        );
                        recomputed[p.index()].join(&e);
                    }
                }
            }
        }
    }
    for &b in reachable {
        assert_eq!(
            recomputed[b.index()],
            entries[b.index()],
            "entry of {b} is not the join of its inputs"
        );
    }
}

#[test]
fn mock_forward_cursor_at_every_point() {
    check_mock::<Forward>(11, StatesKept::AtEveryBlock, Invariants::Undeclared);
}

#[test]
fn mock_backward_cursor_at_every_point() {
    check_mock::<Backward>(12, StatesKept::AtEveryBlock, Invariants::Undeclared);
}

#[test]
fn states_kept_at_joins_forward_give_the_same_answer_at_every_point() {
    check_mock::<Forward>(14, StatesKept::AtJoins, Invariants::Undeclared);
}

#[test]
fn states_kept_at_joins_backward_give_the_same_answer_at_every_point() {
    check_mock::<Backward>(15, StatesKept::AtJoins, Invariants::Undeclared);
}

#[test]
fn loops_settled_through_invariants_give_the_same_answer_at_every_point() {
    check_mock::<Backward>(18, StatesKept::AtEveryBlock, Invariants::Whole);
    check_mock::<Backward>(19, StatesKept::AtJoins, Invariants::Whole);
}

#[test]
fn partial_loop_invariants_are_completed_by_the_worklist() {
    check_mock::<Backward>(20, StatesKept::AtEveryBlock, Invariants::Part);
    check_mock::<Backward>(21, StatesKept::AtJoins, Invariants::Part);
}

#[test]
fn forward_analyses_iterate_whatever_invariants_they_declare() {
    check_mock::<Forward>(22, StatesKept::AtEveryBlock, Invariants::Whole);
    check_mock::<Forward>(23, StatesKept::AtJoins, Invariants::Part);
}

/// With states kept at joins, the kept ones are the fixed point's, and
/// exactly the blocks where states meet, start, or close a cycle of the
/// visiting order keep one: every block with one incoming edge that is
/// not a start block and lies on no cycle keeps none.
fn check_kept_states<D: Direction>(
    g: &TestGraph,
    results: &kildall_dataflow::Results<TestGraph, Mock<D>>,
    entries: &[PowerSet<u32>],
    forward: bool,
) {
    let n = entries.len();
    let reachable: Vec<bool> = (0..n).map(|b| results.is_reachable(Node::new(b))).collect();
    // Blocks on a cycle, by the definition: a block reaches itself.
    let reaches = |from: usize, to: usize| {
        let mut seen = vec![false; n];
        let mut work: Vec<usize> = g.blocks[from].1.iter().map(|s| s.index()).collect();
        while let Some(b) = work.pop() {
            if b == to {
                return true;
            }
            if !std::mem::replace(&mut seen[b], true) {
                work.extend(g.blocks[b].1.iter().map(|s| s.index()));
            }
        }
        false
    };
    for b in 0..n {
        let node = Node::new(b);
        if let Some(state) = results.kept_entry_state(node) {
            assert_eq!(state, &entries[b], "kept state of {node}");
        }
        if !reachable[b] {
            assert!(results.keeps_state(node));
            continue;
        }
        let incoming = if forward {
            g.preds[b].iter().filter(|p| reachable[p.index()]).count()
        } else {
            g.blocks[b].1.len()
        };
        let start = if forward {
            b == 0
        } else {
            g.blocks[b].1.is_empty()
        };
        if !start && incoming == 1 && !reaches(b, b) {
            assert!(
                !results.keeps_state(node),
                "{node} keeps a state it need not"
            );
        }
        if start || incoming != 1 {
            assert!(results.keeps_state(node), "{node} keeps no state");
        }
    }
}

#[test]
fn mock_results_do_not_depend_on_worklist_order() {
    let mut rng = Rng::new(13);
    for _ in 0..300 {
        let n = 1 + rng.index(15);
        let g = random_graph(&mut rng, n);
        let fwd = Mock::<Forward>(
            Default::default(),
            StatesKept::AtEveryBlock,
            Invariants::Undeclared,
        )
        .into_engine(&g)
        .iterate_to_fixpoint();
        let bwd = Mock::<Backward>(
            Default::default(),
            StatesKept::AtEveryBlock,
            Invariants::Undeclared,
        )
        .into_engine(&g)
        .iterate_to_fixpoint();
        let mut order: Vec<Node> = (0..n).map(Node::new).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.index(i + 1));
        }
        let fwd2 = Mock::<Forward>(
            Default::default(),
            StatesKept::AtEveryBlock,
            Invariants::Undeclared,
        )
        .into_engine(&g)
        .with_order(order.clone())
        .iterate_to_fixpoint();
        let bwd2 = Mock::<Backward>(
            Default::default(),
            StatesKept::AtEveryBlock,
            Invariants::Undeclared,
        )
        .into_engine(&g)
        .with_order(order)
        .iterate_to_fixpoint();
        for b in (0..n).map(Node::new) {
            assert_eq!(fwd.entry_state(b), fwd2.entry_state(b));
            assert_eq!(bwd.entry_state(b), bwd2.entry_state(b));
        }
        // Each visit after the first follows a strict increase of an entry
        // state, bounded by the number of ids that can flow.
        let stats = fwd.stats();
        assert!(stats.block_visits as usize <= stats.blocks + stats.changed_joins as usize);
    }
}

// ----- lattice laws -----

fn check_laws<T: JoinSemiLattice + Clone + PartialEq + std::fmt::Debug>(values: &[T]) {
    for a in values {
        let mut x = a.clone();
        assert!(!x.join(a), "join not idempotent: {a:?}");
        for b in values {
            let (mut ab, mut ba) = (a.clone(), b.clone());
            let changed = ab.join(b);
            ba.join(a);
            assert_eq!(ab, ba, "join not commutative: {a:?} {b:?}");
            assert_eq!(changed, ab != *a, "change flag wrong: {a:?} {b:?}");
            // a ⊑ a ⊔ b
            let mut again = ab.clone();
            assert!(!again.join(a));
            for c in values {
                let (mut l, mut r) = (ab.clone(), b.clone());
                l.join(c);
                r.join(c);
                let mut r2 = a.clone();
                r2.join(&r);
                assert_eq!(l, r2, "join not associative: {a:?} {b:?} {c:?}");
            }
        }
    }
}

#[test]
fn stock_lattices_obey_the_laws() {
    check_laws(&[Flat::Bottom, Flat::Known(1), Flat::Known(2), Flat::Top]);
    check_laws(&[
        Max::Bottom,
        Max::At(0),
        Max::At(3),
        Max::saturating(27, 26),
        Max::Top,
    ]);
    check_laws(&[
        Min::Bottom,
        Min::At(0),
        Min::At(3),
        Min::saturating(1, 2),
        Min::Top,
    ]);
    let sets: Vec<PowerSet<u8>> = vec![
        PowerSet::new(),
        [1].into_iter().collect(),
        [1, 2].into_iter().collect(),
        [3].into_iter().collect(),
    ];
    check_laws(&sets);
    let mut maps = vec![MapLattice::<u8, Flat<u8>>::new()];
    for (k, v) in [
        (1, Flat::Known(1)),
        (1, Flat::Known(2)),
        (2, Flat::Top),
        (3, Flat::Known(1)),
    ] {
        let mut m = MapLattice::new();
        m.set(k, v);
        maps.push(m.clone());
        m.set(4, Flat::Known(4));
        maps.push(m);
    }
    check_laws(&maps);
    check_laws(&[
        (Max::At(1), Flat::Known(1)),
        (Max::At(2), Flat::Bottom),
        (Max::Bottom, Flat::Top),
    ]);
}

#[test]
fn bit_sets_agree_with_btree_sets() {
    let mut rng = Rng::new(14);
    for round in 0..400 {
        let domain = 1 + rng.index(if round % 2 == 0 { 64 } else { 3000 });
        let mut sets: Vec<(BitSet<Node>, BTreeSet<usize>)> = Vec::new();
        for _ in 0..4 {
            let mut s = BitSet::new_empty(domain);
            let mut t = BTreeSet::new();
            for _ in 0..rng.index(domain.min(200) + 1) {
                let e = rng.index(domain);
                assert_eq!(s.insert(Node::new(e)), t.insert(e));
                if rng.index(4) == 0 {
                    let r = rng.index(domain);
                    assert_eq!(s.remove(Node::new(r)), t.remove(&r));
                }
            }
            assert_eq!(s.len(), t.len());
            assert!(s.iter().map(|n| n.index()).eq(t.iter().copied()));
            sets.push((s, t));
        }
        let all: Vec<BitSet<Node>> = sets.iter().map(|(s, _)| s.clone()).collect();
        check_laws(&all);
        let (mut a, ta) = sets[0].clone();
        let (b, tb) = &sets[1];
        let changed = a.join(b);
        let union: BTreeSet<usize> = ta.union(tb).copied().collect();
        assert_eq!(changed, union.len() != ta.len());
        assert!(a.iter().map(|n| n.index()).eq(union.iter().copied()));
        for e in 0..domain {
            assert_eq!(a.contains(Node::new(e)), union.contains(&e));
        }
        a.subtract(b);
        assert!(a.iter().map(|n| n.index()).eq(ta.difference(tb).copied()));
    }
    let full = BitSet::<Node>::new_filled(70);
    assert_eq!(full.len(), 70);
}

#[test]
fn must_sets_join_by_intersection_with_unreached_as_identity() {
    use kildall_dataflow::{BitSet, JoinSemiLattice, Must};
    let set = |elems: &[usize]| {
        let mut s = BitSet::<Node>::new_empty(8);
        for &e in elems {
            s.insert(Node::new(e));
        }
        Must::Holds(s)
    };
    let mut state = Must::Unreached;
    assert!(!state.join(&Must::Unreached));
    assert!(state.join(&set(&[1, 2, 3])));
    assert!(state == set(&[1, 2, 3]));
    assert!(!state.join(&Must::Unreached));
    assert!(!state.join(&set(&[1, 2, 3, 4])));
    assert!(state.join(&set(&[2, 3, 5])));
    assert!(state == set(&[2, 3]));
    assert!(state.join(&set(&[])));
    assert!(state.holds().is_some_and(|s| s.is_empty()));
}

// ----- sparse effects -----

/// The mock analysis acting on the odd-numbered instructions only, seen two
/// ways: on the whole graph, where the others do nothing, and on a
/// [`SparseGraph`] whose effects are the odd ones, with states at joins.
struct OddOnly<D>(std::marker::PhantomData<D>);

impl<D: Direction> Analysis<TestGraph> for OddOnly<D> {
    type Domain = PowerSet<u32>;
    type Direction = D;
    fn bottom_value(&self, _: &TestGraph) -> PowerSet<u32> {
        PowerSet::new()
    }
    fn initialize_start_block(&self, _: &TestGraph, block: Node, state: &mut PowerSet<u32>) {
        state.insert(900_000 + block.as_u32());
    }
    fn apply_instruction_effect(
        &mut self,
        _: &TestGraph,
        s: &mut PowerSet<u32>,
        (b, i): (Node, usize),
    ) {
        if i % 2 == 1 {
            s.insert(inst_id(b, i));
        }
    }
    fn apply_terminator_effect(&mut self, g: &TestGraph, s: &mut PowerSet<u32>, block: Node) {
        s.insert(inst_id(block, g.blocks[block.index()].0));
    }
    fn apply_edge_effect(&mut self, _: &TestGraph, s: &mut PowerSet<u32>, from: Node, to: Node) {
        s.insert(1_000_000 + from.as_u32() * 1000 + to.as_u32());
    }
}

type Sparse<'a> = SparseGraph<'a, TestGraph, (Node, usize)>;

impl<D: Direction> Analysis<Sparse<'_>> for OddOnly<D> {
    type Domain = PowerSet<u32>;
    type Direction = D;
    fn bottom_value(&self, _: &Sparse<'_>) -> PowerSet<u32> {
        PowerSet::new()
    }
    fn states_kept(&self) -> StatesKept {
        StatesKept::AtJoins
    }
    fn initialize_start_block(&self, _: &Sparse<'_>, block: Node, state: &mut PowerSet<u32>) {
        state.insert(900_000 + block.as_u32());
    }
    fn apply_instruction_effect(&mut self, g: &Sparse<'_>, s: &mut PowerSet<u32>, id: EffectId) {
        let (b, i) = *g.effect(id);
        s.insert(inst_id(b, i));
    }
    fn apply_terminator_effect(&mut self, g: &Sparse<'_>, s: &mut PowerSet<u32>, block: Node) {
        s.insert(inst_id(block, g.graph().blocks[block.index()].0));
    }
    fn apply_edge_effect(&mut self, _: &Sparse<'_>, s: &mut PowerSet<u32>, from: Node, to: Node) {
        s.insert(1_000_000 + from.as_u32() * 1000 + to.as_u32());
    }
}

fn check_sparse<D: Direction>(seed: u64) {
    let mut rng = Rng::new(seed);
    for _ in 0..300 {
        let n = 1 + rng.index(12);
        let g = random_graph(&mut rng, n);
        // Every instruction declared, blocks in a random order, then the
        // even ones dropped.
        let mut blocks: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            blocks.swap(i, rng.index(i + 1));
        }
        let mut effects = Effects::new();
        for &b in &blocks {
            for i in 0..g.blocks[b].0 {
                effects.push((Node::new(b), i));
            }
            effects.end_block(Node::new(b));
        }
        effects.retain(|&(_, i)| i % 2 == 1);
        let sparse = SparseGraph::new(&g, &effects);
        let mut dense = OddOnly::<D>(Default::default())
            .into_engine(&g)
            .iterate_to_fixpoint();
        let mut results = OddOnly::<D>(Default::default())
            .into_engine(&sparse)
            .iterate_to_fixpoint();
        assert!(results.stats().block_visits <= dense.stats().block_visits + n as u64);
        let mut expected = dense.as_cursor(&g);
        let mut cursor = results.as_cursor(&sparse);
        for b in (0..n).map(Node::new) {
            if !expected.results().is_reachable(b) {
                continue;
            }
            assert_eq!(
                cursor.seek_to_block_start(b),
                expected.seek_to_block_start(b)
            );
            assert_eq!(cursor.seek_to_block_end(b), expected.seek_to_block_end(b));
            for id in sparse.block_insts(b) {
                let (eb, i) = *sparse.effect(id);
                assert_eq!((eb, i % 2), (b, 1));
                assert_eq!(sparse.inst_block(id), Some(b));
                assert_eq!(
                    cursor.seek_before(id),
                    expected.seek_before((b, i)),
                    "{b} {i}"
                );
                assert_eq!(
                    cursor.seek_after(id),
                    expected.seek_after((b, i)),
                    "{b} {i}"
                );
            }
            assert_eq!(sparse.block_insts(b).count(), g.blocks[b.index()].0 / 2);
        }
    }
}

#[test]
fn sparse_effects_forward_agree_with_the_whole_graph() {
    check_sparse::<Forward>(16);
}

#[test]
fn sparse_effects_backward_agree_with_the_whole_graph() {
    check_sparse::<Backward>(17);
}
