//! Dominators, post-dominators and liveness on generated structured
//! functions of 10,000, 100,000 and 1,000,000 instructions. Throughput is
//! per instruction, so criterion reports the time per instruction; the
//! liveness solver's block visits per block (and the loops it settled
//! through their invariants, with the invariant joins that took the place
//! of visits) are printed next to the deepest loop nesting, and, before
//! the timings, for functions of about
//! 10,000, 100,000 and 1,000,000 blocks (10 million instructions; solved
//! once, not timed).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kildall_dataflow::{liveness, FunctionGraph};
use kildall_harness::generate::Rng;
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominatorTree, PostDominatorTree};
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{BinaryOp, Block, FuncCursor, Function, Type, Value};

/// Builds a structured function: straight-line runs, diamonds joining a
/// value through a block parameter, and counted loops, nested up to depth
/// 3, in SSA form (operands come from dominating definitions). Not
/// `generate_cfg`: a quarter of its operands come from anywhere in scope,
/// so values stay live across much of the function and live sets grow with
/// it; this one keeps live ranges local to their region, the shape on which
/// the cost per instruction should stay flat.
struct Gen<'f> {
    cur: FuncCursor<'f>,
    rng: Rng,
    budget: usize,
    one: Value,
    ten: Value,
}

impl Gen<'_> {
    fn run(&mut self, block: Block, scope: &mut Vec<Value>) {
        for _ in 0..3 + self.rng.index(6) {
            if self.budget == 0 {
                break;
            }
            let x = scope[scope.len() - 1 - self.rng.index(scope.len().min(6))];
            let y = scope[scope.len() - 1 - self.rng.index(scope.len().min(6))];
            self.cur.goto_bottom(block);
            let op = [
                BinaryOp::UncheckedAdd,
                BinaryOp::UncheckedMul,
                BinaryOp::Xor,
            ][self.rng.index(3)];
            let v = self.cur.binary(op, x, y);
            scope.push(v);
            self.budget -= 1;
        }
    }

    /// Emits a region starting in `block`; returns the block it ends in.
    fn region(&mut self, mut block: Block, scope: &mut Vec<Value>, depth: u32) -> Block {
        let base = scope.len();
        for _ in 0..2 + self.rng.index(4) {
            if self.budget == 0 {
                break;
            }
            self.run(block, scope);
            block = match self.rng.index(4) {
                0 if depth < 3 => self.diamond(block, scope, depth),
                1 if depth < 3 => self.counted_loop(block, scope, depth),
                _ => block,
            };
        }
        // Values defined inside stay in their region, keeping live ranges local.
        let last = *scope.last().expect("non-empty scope");
        scope.truncate(base.max(1));
        scope.push(last);
        block
    }

    fn diamond(&mut self, block: Block, scope: &mut Vec<Value>, depth: u32) -> Block {
        let then_block = self.cur.append_block();
        let else_block = self.cur.append_block();
        let join = self.cur.append_block();
        let param = self.cur.func.dfg.append_block_param(join, Type::U32);
        self.cur.goto_bottom(block);
        let c = self
            .cur
            .binary(BinaryOp::Lt, *scope.last().unwrap(), self.ten);
        self.cur.jmpif(c, then_block, else_block);
        for arm in [then_block, else_block] {
            let end = self.region(arm, scope, depth + 1);
            let v = scope.pop().expect("region result");
            self.cur.goto_bottom(end);
            self.cur.jmp(join, vec![v]);
        }
        scope.push(param);
        join
    }

    fn counted_loop(&mut self, block: Block, scope: &mut Vec<Value>, depth: u32) -> Block {
        let header = self.cur.append_block();
        let body = self.cur.append_block();
        let exit = self.cur.append_block();
        let i = self.cur.func.dfg.append_block_param(header, Type::U32);
        let zero = self.cur.constant(0, Type::U32);
        self.cur.goto_bottom(block);
        self.cur.jmp(header, vec![zero]);
        self.cur.goto_bottom(header);
        let c = self.cur.binary(BinaryOp::Lt, i, self.ten);
        self.cur.jmpif(c, body, exit);
        scope.push(i);
        let end = self.region(body, scope, depth + 1);
        scope.pop();
        self.cur.goto_bottom(end);
        let next = self.cur.binary(BinaryOp::UncheckedAdd, i, self.one);
        self.cur.jmp(header, vec![next]);
        exit
    }
}

/// A function of about `insts` instructions.
fn generate(insts: usize, seed: u64) -> Function {
    let mut func = Function::new("bench");
    let mut cur = FuncCursor::new(&mut func);
    let entry = cur.append_block();
    let a = cur.func.dfg.append_block_param(entry, Type::U32);
    let one = cur.constant(1, Type::U32);
    let ten = cur.constant(10, Type::U32);
    let mut gen = Gen {
        cur,
        rng: Rng::new(seed),
        budget: insts,
        one,
        ten,
    };
    let mut scope = vec![a];
    let mut block = entry;
    while gen.budget > 0 {
        block = gen.region(block, &mut scope, 0);
    }
    gen.cur.goto_bottom(block);
    gen.cur.ret(vec![*scope.last().unwrap()]);
    func
}

/// Prints the liveness solver's visits per block on functions of about
/// `blocks` blocks (about ten instructions a block).
fn liveness_visits(blocks: usize) {
    let func = generate(blocks * 10, 0x5eed ^ blocks as u64);
    let mut analyses = FunctionAnalyses::new();
    let stats = *liveness(&FunctionGraph::new(&func, &mut analyses)).stats();
    eprintln!(
        "dataflow/liveness at {} blocks ({} insts): {} visits, {:.3} visits/block, {} restarts, \
         {} loops settled, {} invariant joins ({:.3}/block)",
        stats.blocks,
        func.num_insts(),
        stats.block_visits,
        stats.visits_per_block(),
        stats.restarts,
        stats.loops_settled,
        stats.invariant_joins,
        stats.invariant_joins as f64 / stats.blocks.max(1) as f64
    );
}

fn analyses(c: &mut Criterion) {
    for blocks in [10_000usize, 100_000, 1_000_000] {
        liveness_visits(blocks);
    }
    for &size in &[10_000usize, 100_000, 1_000_000] {
        let func = generate(size, 0x5eed ^ size as u64);
        let n = func.num_insts() as u64;
        let mut cfg = ControlFlowGraph::with_function(&func);
        let mut dt = DominatorTree::with_cfg(&cfg);
        let mut pdt = PostDominatorTree::with_cfg(&cfg);
        let mut loops = LoopAnalysis::new();
        loops.compute(&func, &cfg, &dt);
        let max_depth = loops.loops().map(|l| loops.depth(l)).max().unwrap_or(0);
        let mut analyses = FunctionAnalyses::new();
        let stats = *liveness(&FunctionGraph::new(&func, &mut analyses)).stats();
        eprintln!(
            "dataflow/{n} insts, {} blocks, {} loops, max loop depth {max_depth}: liveness {} visits, \
             {:.3} visits/block, {} restarts, {} loops settled, {} invariant joins",
            stats.blocks,
            loops.num_loops(),
            stats.block_visits,
            stats.visits_per_block(),
            stats.restarts,
            stats.loops_settled,
            stats.invariant_joins
        );

        let mut group = c.benchmark_group("dataflow");
        group.throughput(Throughput::Elements(n));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(if size >= 1_000_000 { 8 } else { 2 }));
        group.bench_with_input(BenchmarkId::new("cfg", n), &func, |b, func| {
            b.iter(|| cfg.compute(black_box(func)))
        });
        group.bench_with_input(BenchmarkId::new("dominators", n), &cfg, |b, cfg| {
            b.iter(|| dt.compute(black_box(cfg)))
        });
        group.bench_with_input(BenchmarkId::new("post_dominators", n), &cfg, |b, cfg| {
            b.iter(|| pdt.compute(black_box(cfg)))
        });
        group.bench_with_input(BenchmarkId::new("loops", n), &func, |b, func| {
            b.iter(|| loops.compute(black_box(func), &cfg, &dt))
        });
        // The analyses the solver reads (graph, dominators, loops, loop
        // order) are computed in each iteration: the figure is the whole
        // cost of liveness on a fresh function.
        group.bench_with_input(BenchmarkId::new("liveness", n), &func, |b, func| {
            b.iter(|| {
                let mut analyses = FunctionAnalyses::new();
                liveness(&FunctionGraph::new(black_box(func), &mut analyses))
                    .stats()
                    .block_visits
            })
        });
        // The solve alone, the analyses kept as a pass driver keeps them.
        group.bench_with_input(BenchmarkId::new("liveness_solve", n), &func, |b, func| {
            b.iter(|| {
                liveness(&FunctionGraph::new(black_box(func), &mut analyses))
                    .stats()
                    .block_visits
            })
        });
        group.finish();
    }
}

criterion_group!(benches, analyses);
criterion_main!(benches);
