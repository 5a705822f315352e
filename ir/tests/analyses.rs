//! Property tests of the CFG analyses against brute-force definitions on
//! seeded random graphs: dominance by reachability with a block removed,
//! post-dominance likewise on the reversed graph, random paths, natural
//! loops by their textbook definition, and trip counts by simulation.

use kildall_harness::generate::Rng;
use kildall_harness::testing::{cfg_function, random_cfg, TerminatorMix};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominanceFrontiers, DominatorTree, PostDominatorTree};
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::{BinaryOp, Block, EntityRef, FuncCursor, Function, Type, Value};

/// The mix of the random graphs: mostly branches and jumps, a few
/// returns; some blocks are not reachable, some loops never exit, some are
/// irreducible.
const MIX: TerminatorMix = TerminatorMix {
    returns: 1,
    jumps: 4,
    branches: 5,
};

/// Runs `check` on `cases` random functions of 1 to `max_blocks` blocks
/// drawn from `seed`, with their control-flow graphs.
fn for_random_cfgs(
    seed: u64,
    cases: usize,
    max_blocks: usize,
    mut check: impl FnMut(&mut Rng, &Function, &ControlFlowGraph),
) {
    let mut rng = Rng::new(seed);
    let mut cfg = ControlFlowGraph::new();
    for _ in 0..cases {
        let n = 1 + rng.index(max_blocks);
        let func = cfg_function(&random_cfg(&mut rng, n, MIX));
        cfg.compute(&func);
        check(&mut rng, &func, &cfg);
    }
}

fn reachable_without(
    cfg: &ControlFlowGraph,
    from: Block,
    removed: Option<Block>,
    forward: bool,
) -> Vec<bool> {
    let n = cfg.num_block_indices();
    let mut seen = vec![false; n];
    if Some(from) == removed {
        return seen;
    }
    let mut stack = vec![from];
    seen[from.index()] = true;
    while let Some(b) = stack.pop() {
        let next = if forward {
            cfg.successors(b)
        } else {
            cfg.predecessors(b)
        };
        for &s in next {
            if Some(s) != removed && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    seen
}

#[test]
fn cfg_edges_and_orders() {
    for_random_cfgs(7, 300, 25, |_, func, cfg| {
        let reach = reachable_without(cfg, func.entry_block().unwrap(), None, true);
        for b in func.layout.blocks() {
            let succs: Vec<Block> = func.dfg.successors(b).collect();
            for s in cfg.successors(b) {
                assert!(succs.contains(s));
                assert_eq!(cfg.predecessors(*s).iter().filter(|&&p| p == b).count(), 1);
            }
            assert_eq!(cfg.is_reachable(b), reach[b.index()]);
        }
        // Reverse post-order: every forward (non-retreating) edge goes forward.
        let rpo: Vec<Block> = cfg.reverse_postorder().collect();
        assert_eq!(rpo.len(), reach.iter().filter(|&&r| r).count());
        assert_eq!(rpo[0], func.entry_block().unwrap());
        for &b in &rpo {
            for &s in cfg.successors(b) {
                let (pb, ps) = (
                    cfg.postorder_number(b).unwrap(),
                    cfg.postorder_number(s).unwrap(),
                );
                assert!(ps < pb || cfg.is_retreating_edge(b, s));
            }
        }
    });
}

#[test]
fn dominators_match_reachability_definition() {
    let mut dt = DominatorTree::new();
    let mut irreducible = 0;
    for_random_cfgs(1, 1500, 20, |_, func, cfg| {
        dt.compute(cfg);
        // A retreating edge to a block that does not dominate its source
        // enters a loop by a second way.
        irreducible += usize::from(cfg.postorder().iter().any(|&b| {
            cfg.successors(b)
                .iter()
                .any(|&s| cfg.is_retreating_edge(b, s) && !dt.dominates(s, b))
        }));
        let entry = func.entry_block().unwrap();
        let reach = reachable_without(cfg, entry, None, true);
        for d in func.layout.blocks() {
            let without = reachable_without(cfg, entry, Some(d), true);
            for b in func.layout.blocks() {
                let expected =
                    reach[b.index()] && reach[d.index()] && (d == b || !without[b.index()]);
                assert_eq!(
                    dt.dominates(d, b),
                    expected,
                    "{d} dom {b}\n{}",
                    dump(cfg, func)
                );
            }
        }
        for b in func.layout.blocks() {
            // The immediate dominator is the closest strict dominator.
            if let Some(idom) = dt.idom(b) {
                assert!(dt.strictly_dominates(idom, b));
                for c in dt.children(idom) {
                    assert_eq!(dt.idom(c), Some(idom));
                }
            } else {
                assert!(b == entry || !reach[b.index()]);
            }
        }
    });
    assert!(irreducible > 150, "only {irreducible} irreducible graphs");
}

#[test]
fn dominators_appear_earlier_on_random_paths() {
    let mut dt = DominatorTree::new();
    for_random_cfgs(2, 2000, 40, |rng, func, cfg| {
        dt.compute(cfg);
        let mut path = vec![func.entry_block().unwrap()];
        for _ in 0..60 {
            let b = *path.last().unwrap();
            let mut d = Some(b);
            while let Some(dom) = d {
                assert!(
                    path.contains(&dom),
                    "{dom} dominates {b} but is not on the path"
                );
                d = dt.idom(dom);
            }
            let succs = cfg.successors(b);
            if succs.is_empty() {
                break;
            }
            path.push(succs[rng.index(succs.len())]);
        }
    });
}

#[test]
fn post_dominators_match_reachability_definition() {
    let mut pdt = PostDominatorTree::new();
    let mut exact_checks = 0;
    for_random_cfgs(3, 1500, 20, |_, func, cfg| {
        pdt.compute(cfg);
        // Every reachable block is in the tree.
        for &b in cfg.postorder() {
            assert!(pdt.is_reachable(b));
        }
        // Where every reachable block reaches a real exit, compare with the
        // definition: `a` post-dominates `b` iff removing `a` cuts `b` off
        // from every exit.
        let exits: Vec<Block> = cfg
            .postorder()
            .iter()
            .copied()
            .filter(|&b| cfg.successors(b).is_empty())
            .collect();
        let reaches_exit = |removed: Option<Block>| {
            let mut seen = vec![false; cfg.num_block_indices()];
            for &e in &exits {
                for (i, r) in reachable_without(cfg, e, removed, false)
                    .into_iter()
                    .enumerate()
                {
                    seen[i] |= r;
                }
            }
            seen
        };
        let all = reaches_exit(None);
        if !cfg.postorder().iter().all(|b| all[b.index()]) {
            return;
        }
        exact_checks += 1;
        for &a in cfg.postorder() {
            let without = reaches_exit(Some(a));
            for &b in cfg.postorder() {
                let expected = a == b || !without[b.index()];
                assert_eq!(
                    pdt.post_dominates(a, b),
                    expected,
                    "{a} pdom {b}\n{}",
                    dump(cfg, func)
                );
            }
        }
    });
    assert!(
        exact_checks > 300,
        "too few graphs with exits everywhere: {exact_checks}"
    );
}

#[test]
fn post_dominators_appear_on_paths_to_exits() {
    let mut pdt = PostDominatorTree::new();
    for_random_cfgs(4, 2000, 40, |rng, func, cfg| {
        pdt.compute(cfg);
        // A random walk from each block; when it reaches an exit, every
        // post-dominator of its start must be on it: reversed, the walk is
        // a path from the exit on which post-dominators come first.
        for &start in cfg.postorder() {
            let mut path = vec![start];
            for _ in 0..80 {
                let b = *path.last().unwrap();
                let succs = cfg.successors(b);
                if succs.is_empty() {
                    let mut p = Some(start);
                    while let Some(pd) = p {
                        assert!(
                            path.contains(&pd),
                            "{pd} post-dominates {start}\n{}",
                            dump(cfg, func)
                        );
                        p = pdt.ipdom(pd);
                    }
                    break;
                }
                path.push(succs[rng.index(succs.len())]);
            }
        }
    });
}

#[test]
fn dominance_frontiers_match_definition() {
    let (mut dt, mut df) = (DominatorTree::new(), DominanceFrontiers::new());
    let mut idf = Vec::new();
    for_random_cfgs(5, 800, 20, |rng, _, cfg| {
        dt.compute(cfg);
        df.compute(cfg, &dt);
        for &b in cfg.postorder() {
            let mut expected: Vec<Block> = cfg
                .postorder()
                .iter()
                .copied()
                .filter(|&j| {
                    cfg.predecessors(j).iter().any(|&p| dt.dominates(b, p))
                        && !dt.strictly_dominates(b, j)
                })
                .collect();
            expected.sort();
            assert_eq!(df.frontier(b), &expected[..]);
        }
        // The iterated frontier is closed under frontiers and contains the frontier.
        let defs: Vec<Block> = cfg
            .postorder()
            .iter()
            .copied()
            .filter(|_| rng.index(3) == 0)
            .collect();
        df.iterated_frontier(defs.iter().copied(), &mut idf);
        for &d in defs.iter().chain(idf.iter()) {
            for j in df.frontier(d) {
                assert!(idf.contains(j));
            }
        }
    });
}

#[test]
fn natural_loops_match_definition() {
    let (mut dt, mut la) = (DominatorTree::new(), LoopAnalysis::new());
    for_random_cfgs(6, 1500, 20, |_, func, cfg| {
        dt.compute(cfg);
        la.compute(func, cfg, &dt);
        // Textbook natural loops: per header, the blocks reaching a latch
        // without passing the header.
        let mut depth = vec![0u32; cfg.num_block_indices()];
        let mut headers = 0;
        for &h in cfg.postorder() {
            let latches: Vec<Block> = cfg
                .predecessors(h)
                .iter()
                .copied()
                .filter(|&p| dt.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            headers += 1;
            let lp = la.is_loop_header(h).expect("a header");
            let mut body = vec![false; cfg.num_block_indices()];
            body[h.index()] = true;
            let mut stack = latches.clone();
            while let Some(b) = stack.pop() {
                if !body[b.index()] {
                    body[b.index()] = true;
                    stack.extend(
                        cfg.predecessors(b)
                            .iter()
                            .copied()
                            .filter(|&p| cfg.is_reachable(p)),
                    );
                }
            }
            for &b in cfg.postorder() {
                assert_eq!(
                    la.contains(lp, b),
                    body[b.index()],
                    "{b} in loop of {h}\n{}",
                    dump(cfg, func)
                );
                depth[b.index()] += u32::from(body[b.index()]);
            }
            let mut listed: Vec<Block> = la.blocks(lp).to_vec();
            listed.sort();
            let expected: Vec<Block> = (0..body.len())
                .filter(|&i| body[i])
                .map(Block::new)
                .collect();
            assert_eq!(listed, expected);
            let mut exits = la.exit_edges(lp, cfg);
            exits.sort();
            for (from, to) in exits {
                assert!(body[from.index()] && !body[to.index()]);
            }
        }
        assert_eq!(la.num_loops(), headers);
        for &b in cfg.postorder() {
            assert_eq!(
                la.loop_depth(b),
                depth[b.index()],
                "depth of {b}\n{}",
                dump(cfg, func)
            );
        }
        for lp in la.loops() {
            match la.parent(lp) {
                Some(p) => {
                    assert_eq!(la.depth(lp), la.depth(p) + 1);
                    assert!(la.children(p).contains(&lp));
                    assert!(la.contains(p, la.header(lp)));
                }
                None => assert_eq!(la.depth(lp), 1),
            }
        }
    });
}

fn dump(cfg: &ControlFlowGraph, func: &Function) -> String {
    func.layout
        .blocks()
        .map(|b| format!("{b} -> {:?}\n", cfg.successors(b)))
        .collect()
}

// ----- trip counts -----

#[derive(Copy, Clone, Debug)]
enum Test {
    /// `lt i, B` / `lt B, i` / `eq i, B` / `eq B, i`.
    Lt {
        iv_left: bool,
    },
    Eq {
        iv_left: bool,
    },
}

/// A counted loop on `bits`-bit unsigned integers.
#[derive(Copy, Clone, Debug)]
struct LoopCase {
    bits: u32,
    start: u128,
    step: u128,
    bound: u128,
    test: Test,
    /// Whether the comparison is negated (`not`) before the branch.
    negate: bool,
    /// Whether the body is the `then` arm.
    body_on_then: bool,
    /// Whether the increment is a checked `add`.
    checked: bool,
}

impl LoopCase {
    /// `b0: jmp b1(start)`; `b1(i): c = test; [c = not c]; jmpif c then: X, else: Y`
    /// with the body `b2: n = add i, step; jmp b1(n)` and the exit `b3: return i`.
    fn build(&self) -> Function {
        let ty = Type::Unsigned(self.bits);
        let mut func = Function::new("loop");
        let mut cur = FuncCursor::new(&mut func);
        let b0 = cur.append_block();
        let b1 = cur.append_block();
        let b2 = cur.append_block();
        let b3 = cur.append_block();
        let i = cur.func.dfg.append_block_param(b1, ty.clone());
        cur.goto_bottom(b0);
        let s = cur.constant(self.start, ty.clone());
        cur.jmp(b1, vec![s]);
        cur.goto_bottom(b1);
        let bnd = cur.constant(self.bound, ty.clone());
        let mut c = match self.test {
            Test::Lt { iv_left: true } => cur.binary(BinaryOp::Lt, i, bnd),
            Test::Lt { iv_left: false } => cur.binary(BinaryOp::Lt, bnd, i),
            Test::Eq { iv_left: true } => cur.binary(BinaryOp::Eq, i, bnd),
            Test::Eq { iv_left: false } => cur.binary(BinaryOp::Eq, bnd, i),
        };
        if self.negate {
            c = cur.not(c);
        }
        if self.body_on_then {
            cur.jmpif(c, b2, b3);
        } else {
            cur.jmpif(c, b3, b2);
        }
        cur.goto_bottom(b2);
        let st = cur.constant(self.step, ty);
        let op = if self.checked {
            BinaryOp::Add
        } else {
            BinaryOp::UncheckedAdd
        };
        let next = cur.binary(op, i, st);
        cur.jmp(b1, vec![next]);
        cur.goto_bottom(b3);
        cur.ret(vec![i]);
        func
    }

    /// Runs the loop; `None` if it runs past 10,000 iterations, or an
    /// increment leaves the type (a checked `add` traps, an unchecked one
    /// wraps).
    fn simulate(&self) -> Option<u64> {
        let max = u128::MAX >> (128 - self.bits);
        let mut i = self.start;
        let mut count = 0u64;
        loop {
            let mut c = match self.test {
                Test::Lt { iv_left: true } => i < self.bound,
                Test::Lt { iv_left: false } => self.bound < i,
                Test::Eq { .. } => i == self.bound,
            };
            if self.negate {
                c = !c;
            }
            if c != self.body_on_then {
                return Some(count);
            }
            count += 1;
            if count > 10_000 {
                return None;
            }
            i = i.checked_add(self.step).filter(|&v| v <= max)?;
        }
    }
}

#[test]
fn trip_counts_match_simulation() {
    let mut rng = Rng::new(8);
    let (mut cfg, mut dt, mut la) = (
        ControlFlowGraph::new(),
        DominatorTree::new(),
        LoopAnalysis::new(),
    );
    let mut counted = 0;
    for round in 0..3000 {
        let bits = [8u32, 16, 32][rng.index(3)];
        let max = u128::MAX >> (128 - bits);
        let small = |rng: &mut Rng| u128::from(rng.below(40));
        let rng = &mut rng;
        // Values near the type's maximum only on 8 bits, so that every
        // finite loop runs at most a few hundred times.
        let near_max = bits == 8;
        let start = if near_max && rng.index(4) == 0 {
            max - small(rng)
        } else {
            small(rng)
        };
        let bound = if near_max && rng.index(4) == 0 {
            max - small(rng)
        } else {
            small(rng)
        };
        let step = 1 + rng.below(5) as u128;
        let test = match rng.index(4) {
            0 => Test::Lt { iv_left: true },
            1 => Test::Lt { iv_left: false },
            2 => Test::Eq { iv_left: true },
            _ => Test::Eq { iv_left: false },
        };
        let case = LoopCase {
            bits,
            start,
            step,
            bound,
            test,
            negate: rng.index(2) == 0,
            body_on_then: rng.index(2) == 0,
            checked: round % 2 == 0,
        };
        let func = case.build();
        cfg.compute(&func);
        dt.compute(&cfg);
        la.compute(&func, &cfg, &dt);
        assert_eq!(la.num_loops(), 1);
        let lp = la.loops().next().unwrap();
        let expected = case.simulate();
        let got = la.trip_count(lp);
        // The analysis may decline a loop it cannot prove finite, but every
        // count it gives must be exact; the common shapes must be counted.
        if let Some(got) = got {
            assert_eq!(Some(got), expected, "{case:?}");
            counted += 1;
        } else {
            assert!(expected.is_none(), "{case:?}: expected {expected:?}");
        }
    }
    assert!(counted > 1500, "{counted}");
}

/// The loop `while counter < bound { ...; counter += step }` over the blocks
/// `[header, body, latch, exit]`: the header's test, and the latch's
/// increment and back edge (the body and latch may be one block).
fn count_up(
    cur: &mut FuncCursor<'_>,
    (counter, bound, step): (Value, Value, Value),
    blocks: [Block; 4],
) {
    let [header, body, latch, exit] = blocks;
    cur.goto_bottom(header);
    let c = cur.binary(BinaryOp::Lt, counter, bound);
    cur.jmpif(c, body, exit);
    cur.goto_bottom(latch);
    let next = cur.binary(BinaryOp::Add, counter, step);
    cur.jmp(header, vec![next]);
}

#[test]
fn nested_loops_and_non_counted_shapes() {
    // for i in 0..3 { for j in 0..4 {} }; let mut k = 0; while k < n { k += 1 }
    let mut func = Function::new("nest");
    let mut cur = FuncCursor::new(&mut func);
    let b: Vec<Block> = (0..10).map(|_| cur.append_block()).collect();
    let n = cur.func.dfg.append_block_param(b[0], Type::U32);
    let i = cur.func.dfg.append_block_param(b[1], Type::U32);
    let j = cur.func.dfg.append_block_param(b[2], Type::U32);
    let k = cur.func.dfg.append_block_param(b[5], Type::U32);
    let zero = cur.constant(0, Type::U32);
    let one = cur.constant(1, Type::U32);
    let three = cur.constant(3, Type::U32);
    let four = cur.constant(4, Type::U32);
    cur.goto_bottom(b[0]);
    cur.jmp(b[1], vec![zero]);
    count_up(&mut cur, (i, three, one), [b[1], b[3], b[7], b[4]]);
    cur.goto_bottom(b[3]);
    cur.jmp(b[2], vec![zero]);
    count_up(&mut cur, (j, four, one), [b[2], b[6], b[6], b[7]]);
    cur.goto_bottom(b[4]);
    cur.jmp(b[5], vec![zero]);
    count_up(&mut cur, (k, n, one), [b[5], b[8], b[8], b[9]]);
    cur.goto_bottom(b[9]);
    cur.ret(vec![]);

    let (mut cfg, mut dt, mut la) = (
        ControlFlowGraph::new(),
        DominatorTree::new(),
        LoopAnalysis::new(),
    );
    cfg.compute(&func);
    dt.compute(&cfg);
    la.compute(&func, &cfg, &dt);
    assert_eq!(la.num_loops(), 3);
    let outer = la.is_loop_header(b[1]).unwrap();
    let inner = la.is_loop_header(b[2]).unwrap();
    let while_loop = la.is_loop_header(b[5]).unwrap();
    assert_eq!(la.parent(inner), Some(outer));
    assert_eq!(la.parent(while_loop), None);
    assert_eq!(la.children(outer), &[inner]);
    assert_eq!(
        (
            la.loop_depth(b[6]),
            la.loop_depth(b[7]),
            la.loop_depth(b[3])
        ),
        (2, 1, 1)
    );
    assert_eq!(
        (
            la.loop_depth(b[4]),
            la.loop_depth(b[8]),
            la.loop_depth(b[9])
        ),
        (0, 1, 0)
    );
    assert_eq!(la.trip_count(outer), Some(3));
    assert_eq!(la.trip_count(inner), Some(4));
    assert_eq!(la.trip_count(while_loop), None);
    let counted = la.counted_loop(inner).unwrap();
    assert_eq!(
        (counted.induction_var, counted.latch, counted.exit),
        (j, b[6], b[7])
    );
    assert_eq!(la.exit_edges(outer, &cfg), vec![(b[1], b[4])]);
}

#[test]
fn infinite_loops_get_post_dominator_parents() {
    // b0 -> b1 -> b2 <-> b3 (never exits); b0 -> b4 (return).
    let mut func = Function::new("spin");
    let mut cur = FuncCursor::new(&mut func);
    let b: Vec<Block> = (0..5).map(|_| cur.append_block()).collect();
    let c = cur.func.dfg.append_block_param(b[0], Type::BOOL);
    cur.goto_bottom(b[0]);
    cur.jmpif(c, b[1], b[4]);
    cur.goto_bottom(b[1]);
    cur.jmp(b[2], vec![]);
    cur.goto_bottom(b[2]);
    cur.jmp(b[3], vec![]);
    cur.goto_bottom(b[3]);
    cur.jmp(b[2], vec![]);
    cur.goto_bottom(b[4]);
    cur.ret(vec![]);
    let cfg = ControlFlowGraph::with_function(&func);
    let pdt = PostDominatorTree::with_cfg(&cfg);
    for &blk in &b {
        assert!(pdt.is_reachable(blk));
    }
    // The loop is attached from inside, so the blocks leading only into it
    // are post-dominated by it.
    assert!(pdt.post_dominates(b[2], b[1]) || pdt.post_dominates(b[3], b[1]));
    assert_eq!(pdt.ipdom(b[0]), None);
    assert_eq!(pdt.ipdom(b[4]), None);
}
