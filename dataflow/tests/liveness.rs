//! Liveness against its path-based definition on small random functions,
//! settled through loop invariants against plain iteration on generated
//! SSA programs, and the solver's fixed point and order independence on
//! `ir` functions for a backward bit-set analysis and a forward map lattice.

use kildall_dataflow::{
    liveness, Analysis, Backward, BitSet, Forward, FunctionGraph, JoinSemiLattice, Liveness,
    MapLattice, Max,
};
use kildall_harness::generate::{generate_cfg, CfgConfig, Rng};
use kildall_harness::testing::{random_cfg, TerminatorMix};
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{BinaryOp, Block, EntityRef, FuncCursor, Function, Inst, Terminator, Type, Value};

/// The mix of the random graphs: half jumps, some branches, a fifth
/// returns.
const MIX: TerminatorMix = TerminatorMix {
    returns: 2,
    jumps: 5,
    branches: 3,
};

/// A random graph (irreducible loops and unreachable blocks included) with
/// block parameters, instructions over random values (not necessarily in
/// SSA: liveness is defined on any program), and random arguments and
/// returned values; the targets of branches, which take no arguments, have
/// no parameters.
fn random_function(rng: &mut Rng, n: usize) -> Function {
    let shape = random_cfg(rng, n, MIX);
    let mut func = Function::new("f");
    let mut cur = FuncCursor::new(&mut func);
    let blocks: Vec<Block> = (0..n).map(|_| cur.append_block()).collect();
    let mut branch_target = vec![false; n];
    for successors in shape.iter().filter(|s| s.len() == 2) {
        for &s in successors {
            branch_target[s] = true;
        }
    }
    let mut pool: Vec<Value> = Vec::new();
    for (&b, _) in blocks.iter().zip(&branch_target).filter(|(_, &t)| !t) {
        for _ in 0..rng.index(3) {
            pool.push(cur.func.dfg.append_block_param(b, Type::U32));
        }
    }
    let konst = cur.constant(1, Type::U32);
    if pool.is_empty() {
        pool.push(konst);
    }
    for (&b, successors) in blocks.iter().zip(&shape) {
        cur.goto_bottom(b);
        for _ in 0..rng.index(4) {
            let x = pool[rng.index(pool.len())];
            let y = if rng.index(5) == 0 {
                konst
            } else {
                pool[rng.index(pool.len())]
            };
            pool.push(cur.binary(BinaryOp::UncheckedAdd, x, y));
        }
        let pick = |rng: &mut Rng, pool: &[Value]| pool[rng.index(pool.len())];
        let t = match successors[..] {
            [] => Terminator::Return {
                values: (0..rng.index(3)).map(|_| pick(rng, &pool)).collect(),
            },
            [to] => {
                let arity = cur.func.dfg.block_params(blocks[to]).len();
                Terminator::Jmp {
                    destination: blocks[to],
                    arguments: (0..arity).map(|_| pick(rng, &pool)).collect(),
                }
            }
            [then, otherwise] => {
                let condition = pick(rng, &pool);
                let mut args = |to: usize| -> Vec<Value> {
                    let arity = cur.func.dfg.block_params(blocks[to]).len();
                    (0..arity).map(|_| pick(rng, &pool)).collect()
                };
                // Two edges to one block may carry different arguments.
                let then_arguments = args(then);
                let else_arguments = args(otherwise);
                Terminator::JmpIf {
                    condition,
                    then_destination: blocks[then],
                    then_arguments,
                    else_destination: blocks[otherwise],
                    else_arguments,
                }
            }
            _ => unreachable!("at most two successors"),
        };
        cur.terminate(t);
    }
    func
}

fn uses(func: &Function, inst: Inst) -> Vec<Value> {
    func.dfg[inst].arguments().as_slice().to_vec()
}

fn terminator_uses(func: &Function, block: Block) -> Vec<Value> {
    match func.dfg.terminator(block) {
        Some(Terminator::JmpIf { condition, .. }) => vec![*condition],
        Some(Terminator::Return { values }) => values.clone(),
        _ => vec![],
    }
}

/// Whether `v` is live at instruction index `from` of `block` (the
/// terminator at `len`): some path from there reaches a use of `v` with no
/// definition of `v` on the way. A search over blocks entered with `v`
/// still undefined.
fn live_at(func: &Function, block: Block, from: usize, v: Value) -> bool {
    let mut seen = vec![false; func.dfg.num_blocks()];
    let mut stack = vec![(block, from)];
    while let Some((b, start)) = stack.pop() {
        let insts: Vec<Inst> = func.layout.block_insts(b).collect();
        let mut killed = false;
        for &inst in &insts[start.min(insts.len())..] {
            if uses(func, inst).contains(&v) {
                return true;
            }
            if func.dfg.inst_results(inst).contains(&v) {
                killed = true;
                break;
            }
        }
        if killed {
            continue;
        }
        if terminator_uses(func, b).contains(&v) {
            return true;
        }
        let term = func.dfg.terminator(b).unwrap();
        for edge in term.edges() {
            if edge.arguments.contains(&v) {
                return true;
            }
            let s = edge.destination;
            if !func.dfg.block_params(s).contains(&v) && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push((s, 0));
            }
        }
    }
    false
}

#[test]
fn liveness_agrees_with_paths() {
    let mut rng = Rng::new(21);
    // Functions whose loops were settled through invariants, and of those
    // the ones where values defined in a loop are live around it (not in
    // strict SSA), so the worklist went on.
    let (mut settled, mut iterated_after) = (0, 0);
    for _ in 0..400 {
        let n = 1 + rng.index(8);
        let func = random_function(&mut rng, n);
        let mut analyses = FunctionAnalyses::new();
        let graph = FunctionGraph::new(&func, &mut analyses);
        let mut results = liveness(&graph);
        let stats = *results.stats();
        if stats.loops_settled > 0 {
            settled += 1;
            iterated_after += usize::from(stats.block_visits > stats.blocks as u64);
        }
        let values: Vec<Value> = func
            .dfg
            .values()
            .map(|(v, _)| v)
            .filter(|&v| func.dfg.const_value(v).is_none())
            .collect();
        let reachable: Vec<Block> = func
            .layout
            .blocks()
            .filter(|&b| results.is_reachable(b))
            .collect();
        let mut cursor = results.as_cursor(&graph);
        for &b in &reachable {
            let insts: Vec<Inst> = func.layout.block_insts(b).collect();
            for k in 0..=insts.len() {
                let state = if k < insts.len() {
                    cursor.seek_before(insts[k]).clone()
                } else {
                    cursor.seek_before_terminator(b).clone()
                };
                for &v in &values {
                    assert_eq!(
                        state.contains(v),
                        live_at(&func, b, k, v),
                        "{v} before #{k} of {b}"
                    );
                }
            }
            // Live out: along some edge, used as an argument or live into
            // the successor without being its parameter.
            let out = cursor.seek_to_block_end(b).clone();
            assert_eq!(&out, cursor.results().entry_state(b));
            let term = func.dfg.terminator(b).unwrap();
            for &v in &values {
                let expected = term.edges().any(|edge| {
                    let s = edge.destination;
                    edge.arguments.contains(&v)
                        || (!func.dfg.block_params(s).contains(&v) && live_at(&func, s, 0, v))
                });
                assert_eq!(out.contains(v), expected, "{v} live out of {b}");
            }
        }
    }
    assert!(
        settled > 40 && iterated_after > 5,
        "{settled} settled, {iterated_after} iterated after"
    );
}

/// Liveness without its loop invariants: the engine iterates the loops.
struct Iterated;

impl<'a> Analysis<FunctionGraph<'a>> for Iterated {
    type Domain = BitSet<Value>;
    type Direction = Backward;
    fn bottom_value(&self, func: &FunctionGraph<'a>) -> BitSet<Value> {
        Liveness.bottom_value(func)
    }
    fn initialize_start_block(&self, func: &FunctionGraph<'a>, b: Block, s: &mut BitSet<Value>) {
        Liveness.initialize_start_block(func, b, s)
    }
    fn apply_instruction_effect(&mut self, f: &FunctionGraph<'a>, s: &mut BitSet<Value>, i: Inst) {
        Liveness.apply_instruction_effect(f, s, i)
    }
    fn apply_terminator_effect(&mut self, f: &FunctionGraph<'a>, s: &mut BitSet<Value>, b: Block) {
        Liveness.apply_terminator_effect(f, s, b)
    }
    fn apply_edge_effect(
        &mut self,
        f: &FunctionGraph<'a>,
        s: &mut BitSet<Value>,
        from: Block,
        to: Block,
    ) {
        Liveness.apply_edge_effect(f, s, from, to)
    }
}

/// On SSA programs with nested loops, early returns and unstructured
/// jumps, liveness settled through loop invariants is the iterated fixed
/// point at every block start and end, and visits each block once when
/// the function is reducible.
#[test]
fn liveness_settled_through_loop_invariants_is_the_iterated_fixed_point() {
    let config = CfgConfig {
        blocks: 80,
        max_depth: 4,
        ..CfgConfig::default()
    };
    let (mut settled, mut irreducible) = (0, 0);
    for seed in 0..60 {
        let module = generate_cfg(seed, &config);
        for func in module.functions.values() {
            let mut analyses = FunctionAnalyses::new();
            let graph = FunctionGraph::new(func, &mut analyses);
            let mut fast = liveness(&graph);
            let mut slow = Iterated.into_engine(&graph).iterate_to_fixpoint();
            let stats = *fast.stats();
            let forest = graph.loops().forest();
            match forest.is_reducible().then_some(forest) {
                Some(forest) => {
                    assert_eq!(stats.loops_settled, forest.num_loops());
                    assert_eq!(stats.block_visits, stats.blocks as u64, "seed {seed}");
                    settled += stats.loops_settled;
                }
                None => {
                    assert_eq!(stats.loops_settled, 0);
                    irreducible += 1;
                }
            }
            let blocks: Vec<Block> = func
                .layout
                .blocks()
                .filter(|&b| slow.is_reachable(b))
                .collect();
            let mut fast = fast.as_cursor(&graph);
            let mut slow = slow.as_cursor(&graph);
            for &b in &blocks {
                assert_eq!(
                    fast.seek_to_block_end(b),
                    slow.seek_to_block_end(b),
                    "seed {seed} {b}"
                );
                assert_eq!(
                    fast.seek_to_block_start(b),
                    slow.seek_to_block_start(b),
                    "seed {seed} {b}"
                );
            }
        }
    }
    eprintln!("{settled} loops settled; {irreducible} irreducible functions iterated");
    assert!(settled > 100, "too few loops: {settled}");
}

/// "Depth" of each value: instruction results are one more than their
/// deepest operand, block parameters the deepest argument, saturating at 6.
/// A forward map lattice shaped like the noise analysis.
#[derive(Copy, Clone)]
struct Depth;

impl Analysis<FunctionGraph<'_>> for Depth {
    type Domain = MapLattice<Value, Max>;
    type Direction = Forward;
    fn bottom_value(&self, _: &FunctionGraph<'_>) -> Self::Domain {
        MapLattice::new()
    }
    fn initialize_start_block(
        &self,
        func: &FunctionGraph<'_>,
        block: Block,
        state: &mut Self::Domain,
    ) {
        for &p in func.dfg.block_params(block) {
            state.set(p, Max::At(0));
        }
    }
    fn apply_instruction_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut Self::Domain,
        inst: Inst,
    ) {
        let mut depth = Max::At(0);
        for v in func.dfg[inst].arguments().as_slice() {
            depth.join(&state.get_or_bottom(v));
        }
        let result = match depth {
            Max::At(d) => Max::saturating(d + 1, 6),
            other => other,
        };
        for &r in func.dfg.inst_results(inst) {
            state.set(r, result);
        }
    }
    fn apply_terminator_effect(&mut self, _: &FunctionGraph<'_>, _: &mut Self::Domain, _: Block) {}
    fn apply_edge_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut Self::Domain,
        from: Block,
        to: Block,
    ) {
        // A parameter bound on two edges (a `jmpif` to `to` on both) is as
        // deep as the deeper argument.
        let params = func.dfg.block_params(to);
        let mut values = vec![Max::Bottom; params.len()];
        for args in func.dfg.terminator(from).unwrap().edges_to(to) {
            for (value, a) in values.iter_mut().zip(args) {
                value.join(&state.get_or_bottom(a));
            }
        }
        for (&p, d) in params.iter().zip(values) {
            state.set(p, d);
        }
    }
}

fn check_order_independence<'g, A: Analysis<FunctionGraph<'g>> + Copy>(
    analysis: A,
    func: &FunctionGraph<'g>,
    rng: &mut Rng,
) where
    A::Domain: PartialEq + std::fmt::Debug,
{
    let base = analysis.into_engine(func).iterate_to_fixpoint();
    for _ in 0..3 {
        let mut order: Vec<Block> = func.layout.blocks().collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.index(i + 1));
        }
        let other = analysis
            .into_engine(func)
            .with_order(order)
            .iterate_to_fixpoint();
        for b in func.layout.blocks() {
            assert_eq!(base.entry_state(b), other.entry_state(b), "{b}");
        }
    }
    // A fixed point: one more application of every transfer function
    // changes no entry state.
    let mut a = analysis;
    let forward = <A::Direction as kildall_dataflow::Direction>::IS_FORWARD;
    for b in func.layout.blocks().filter(|&b| base.is_reachable(b)) {
        let mut state = base.entry_state(b).clone();
        if forward {
            for inst in func.layout.block_insts(b) {
                a.apply_instruction_effect(func, &mut state, inst);
            }
            a.apply_terminator_effect(func, &mut state, b);
            for s in func.dfg.successors(b) {
                let mut e = state.clone();
                a.apply_edge_effect(func, &mut e, b, s);
                assert!(!base.entry_state(s).clone().join(&e), "{b} -> {s}");
            }
        } else {
            a.apply_terminator_effect(func, &mut state, b);
            for inst in func.layout.block_insts(b).rev() {
                a.apply_instruction_effect(func, &mut state, inst);
            }
            for p in func.layout.blocks().filter(|&p| base.is_reachable(p)) {
                if func.dfg.successors(p).any(|s| s == b) {
                    let mut e = state.clone();
                    a.apply_edge_effect(func, &mut e, p, b);
                    assert!(!base.entry_state(p).clone().join(&e), "{p} -> {b}");
                }
            }
        }
    }
}

#[test]
fn fixed_point_and_order_independence_on_ir() {
    let mut rng = Rng::new(22);
    for _ in 0..500 {
        let n = 1 + rng.index(14);
        let func = random_function(&mut rng, n);
        let mut analyses = FunctionAnalyses::new();
        let graph = FunctionGraph::new(&func, &mut analyses);
        check_order_independence(Liveness, &graph, &mut rng);
        check_order_independence(Depth, &graph, &mut rng);
    }
}
