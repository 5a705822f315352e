//! The optimization entry point and the search over carried levels.
//!
//! The exact strategy places on a function with loops unrolled (see the
//! `unroll` module), and searches levels only where that does not apply
//! (the witnesses of the copies too many or their costs too large to
//! list); the ILP and the greedy place at chosen carried levels.
//!
//! A function with loops has one carried level per noisy parameter fed by a
//! back edge (see the `function` module), and the cheapest placement is the
//! cheapest over every choice of levels. The choices are searched by branch
//! and bound over ranges of levels: a search node gives each parameter a
//! range, its parameter assuming the least level of it and the values
//! carried into it leaving with up to the largest. That problem admits
//! every placement legal under some choice within the ranges, so its proven
//! lower bound bounds the whole subtree, and a subtree whose bound reaches
//! the best placement found is pruned. When the relaxation's placement
//! happens to keep every carried value within the least levels, it is a
//! legal placement there and closes the subtree; otherwise the widest range
//! is halved. A node whose ranges are single levels is a leaf and its
//! placement a candidate. The bound reported is the least of the best cost
//! and the bounds of the subtrees left open (by the time limit, or by a node
//! whose own search did not close), so it stays honest whatever the search
//! finishes.
//!
//! Neighbouring choices differ only around the carried values, so most
//! components of their hitting-set instances recur; the exact strategy
//! keeps the components it closed and takes them again as they are.

use std::cell::RefCell;
use std::time::Instant;

use kildall_cover::SearchLimits;

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{Block, Function, SecondaryMap, Value};

use crate::function::{
    block_executions, extract_in_order, insert_reductions_with_exits, remove_reductions,
    CarriedLevels, Extraction, Options, Placement,
};
use crate::solve::solve_with;
use crate::unroll::solve_unrolled;
use crate::{NoiseError, Solution, Strategy};
use kildall_cover::ComponentMemo;

/// The best placement over the choices of carried levels tried so far, and
/// the least bound of the choices left open.
struct Best {
    extraction: Extraction,
    solution: Solution,
    /// The least lower bound of the subtrees not closed.
    open_bound: u64,
    stopped: bool,
    search_nodes: u64,
}

impl Best {
    fn new(extraction: Extraction, solution: Solution) -> Self {
        Best {
            open_bound: if solution.optimal {
                u64::MAX
            } else {
                solution.lower_bound
            },
            stopped: solution.stopped,
            search_nodes: solution.search_nodes,
            extraction,
            solution,
        }
    }

    /// Takes into account a legal placement and the bound of the choices
    /// of levels it was searched among.
    fn offer(&mut self, extraction: Extraction, solution: Solution) {
        self.stopped |= solution.stopped;
        self.search_nodes += solution.search_nodes;
        if solution.lower_bound < solution.cost {
            self.open_bound = self.open_bound.min(solution.lower_bound);
        }
        if solution.cost < self.solution.cost {
            self.extraction = extraction;
            self.solution = solution;
        }
    }

    /// A subtree left unexplored, bounded by `bound`.
    fn leave_open(&mut self, bound: u64) {
        self.open_bound = self.open_bound.min(bound);
    }

    fn lower_bound(&self) -> u64 {
        self.open_bound.min(self.solution.cost)
    }
}

/// What every placement of one function reads: the function (its own
/// reductions removed), its control-flow graph and reverse post-order,
/// how often each block runs, and the options.
pub(crate) struct Placing<'a> {
    pub(crate) func: &'a Function,
    pub(crate) cfg: &'a ControlFlowGraph,
    pub(crate) order: Vec<Block>,
    pub(crate) times: SecondaryMap<Block, u64>,
    pub(crate) options: &'a Options,
}

impl<'a> Placing<'a> {
    /// The placement context of `func` (its reductions already removed)
    /// under `options`, from its control-flow graph and loops.
    pub(crate) fn new(
        func: &'a Function,
        (cfg, loops): (&'a ControlFlowGraph, &LoopAnalysis),
        options: &'a Options,
    ) -> Self {
        Placing {
            func,
            cfg,
            order: cfg.reverse_postorder().collect(),
            times: block_executions(func, loops, options.trip_fallback),
            options,
        }
    }
}

/// Removes existing `reduce_noise` ops of `func`, then inserts the
/// cheapest (or, with [`Strategy::Greedy`], the greedy) reductions so that
/// no noisy op's result, before or after a reduction, exceeds the maximum;
/// `analyses` (of `func`) stay valid: reductions go inside blocks. The
/// pass, [`NoisePlacement`](crate::NoisePlacement), runs it.
pub(crate) fn place_function(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    options: &Options,
) -> Result<Placement, NoiseError> {
    let start = Instant::now();
    options.params.validate()?;
    let (cfg, _, loops) = analyses.loops(func);
    let has_loops = loops.num_loops() > 0;
    let removed = remove_reductions(func);
    let placing = Placing::new(func, (cfg, loops), options);
    let limits = options.limits();
    // The exact strategy solves loops unrolled, as one hitting set (see the
    // `unroll` module); the carried levels are searched where that does
    // not apply, and by the other strategies.
    let unroll = options.strategy == Strategy::Exact;
    let best = place(&placing, &limits, has_loops, unroll)?;
    let Best {
        extraction,
        solution,
        stopped,
        search_nodes,
        ..
    } = &best;
    let lower_bound = best.lower_bound();
    let chosen = |node: usize| solution.reduced[node];
    let reduced: Vec<Value> = (0..extraction.values.len())
        .filter(|&node| chosen(node))
        .filter_map(|node| extraction.values[node])
        .collect();
    let after_loops: Vec<(Value, Block)> = extraction
        .exits
        .iter()
        .filter(|exit| chosen(exit.node))
        .map(|exit| (exit.value, exit.block))
        .collect();
    let executions = (0..extraction.values.len())
        .filter(|&node| chosen(node))
        .fold(0u64, |sum, node| {
            sum.saturating_add(extraction.executions[node])
        });
    insert_reductions_with_exits(func, &reduced, &after_loops);
    let cost = solution.cost;
    Ok(Placement {
        strategy: options.strategy,
        cost_model: options.cost,
        count: reduced.len() + after_loops.len(),
        executions,
        lower_bound: lower_bound.min(cost),
        optimal: lower_bound >= cost,
        stopped_by: stopped.then(|| limits.budget.stop_reason()),
        effort: limits.budget.spent(),
        search_nodes: *search_nodes,
        time: start.elapsed(),
        removed,
        reduced,
        reduced_after_loops: after_loops,
    })
}

/// The best placement on `func` and the bound of the choices of carried
/// levels left open. With loops: from the loops unrolled when `unroll` is
/// set and that applies, otherwise from every carried value at the
/// encoding noise and the search over carried levels.
fn place(
    placing: &Placing<'_>,
    limits: &SearchLimits,
    has_loops: bool,
    unroll: bool,
) -> Result<Best, NoiseError> {
    let Placing {
        func,
        order,
        times,
        options,
        ..
    } = placing;
    let (func, options) = (*func, *options);
    let extract = |levels: &CarriedLevels| extract_in_order(func, order, times, options, levels);
    let memo = RefCell::new(ComponentMemo::default());
    let attempt = |levels: &CarriedLevels, limits: &SearchLimits| {
        let extraction = extract(levels);
        let solved = solve_with(
            &extraction.problem,
            options.strategy,
            limits,
            Some(&mut memo.borrow_mut()),
        );
        match solved {
            Ok(solution) => Ok((extraction, solution)),
            Err(violation) => {
                let value = (0..=violation.node)
                    .rev()
                    .find_map(|n| extraction.values[n])
                    .expect("a node with a value");
                Err(NoiseError::Unplaceable {
                    value,
                    noise: violation.noise,
                    bound: violation.bound,
                })
            }
        }
    };
    let unrolled = if has_loops && unroll {
        solve_unrolled(placing, limits, &mut memo.borrow_mut())
    } else {
        None
    };
    let best = match unrolled {
        Some((extraction, solution)) => Best::new(extraction, solution),
        None => {
            // Every carried value at the encoding noise: always placeable
            // when anything is, since a carried value can always be
            // reduced. With carried values it gets half the effort: the
            // level search needs the rest (at least for the relaxation
            // that bounds every level).
            let levels_to_search = has_loops && options.strategy != Strategy::Greedy;
            let first = limits.share(if levels_to_search { 2 } else { 1 });
            let (extraction, solution) = attempt(&CarriedLevels::Fixed(Vec::new()), &first)?;
            let carried = extraction.carried_params.len();
            let mut best = Best::new(extraction, solution);
            if carried > 0 {
                if options.strategy == Strategy::Greedy {
                    // The greedy keeps carried values at the encoding
                    // noise; only the relaxation bounds the placements
                    // with other levels.
                    match attempt(&CarriedLevels::Relaxed, limits) {
                        Ok((_, relaxed)) => best.leave_open(relaxed.lower_bound),
                        Err(_) => best.leave_open(0),
                    }
                } else {
                    best.open_bound = u64::MAX;
                    let mut search = LevelSearch {
                        attempt: &attempt,
                        extract: &extract,
                        limits,
                        best: &mut best,
                    };
                    let every = (options.params.encode, options.params.max);
                    search.node(&mut vec![every; carried], 0);
                }
            }
            best
        }
    };
    Ok(best)
}

type Attempt<'a> =
    dyn Fn(&CarriedLevels, &SearchLimits) -> Result<(Extraction, Solution), NoiseError> + 'a;

/// The branch and bound over carried levels (see the module docs).
struct LevelSearch<'a, 'b> {
    attempt: &'a Attempt<'a>,
    /// Extracts the problem of one choice of levels.
    extract: &'a dyn Fn(&CarriedLevels) -> Extraction,
    limits: &'a SearchLimits,
    best: &'b mut Best,
}

impl LevelSearch<'_, '_> {
    /// The subtree of the choices of levels within `ranges` (one per
    /// carried parameter); `parent` is its parent's bound, which holds for
    /// it too.
    fn node(&mut self, ranges: &mut [(u32, u32)], parent: u64) {
        // A sibling's placement may have reached the parent's bound.
        if parent >= self.best.solution.cost {
            return;
        }
        if self.limits.budget.exhausted() {
            self.best.stopped = true;
            self.best.leave_open(parent);
            return;
        }
        let lows: Vec<u32> = ranges.iter().map(|&(low, _)| low).collect();
        let fixed = ranges.iter().all(|&(low, high)| low == high);
        let choice = if fixed {
            CarriedLevels::Fixed(lows.clone())
        } else {
            CarriedLevels::Ranges(ranges.to_vec())
        };
        // Half of what is left: the nodes after this one get the rest.
        let Ok((extraction, mut solution)) = (self.attempt)(&choice, &self.limits.share(2)) else {
            // No placement within these ranges: nothing to bound.
            return;
        };
        // The parent's bound holds here too, if this search left more open.
        solution.lower_bound = solution.lower_bound.max(parent);
        if fixed {
            self.best.offer(extraction, solution);
            return;
        }
        // The relaxation's placement may keep every carried value within
        // the least levels of the ranges: then it is a fixed point there,
        // a legal placement, and no choice within the ranges does better
        // than its bound.
        let at_lows = (self.extract)(&CarriedLevels::Fixed(lows));
        if at_lows.problem.is_legal(&solution.reduced) {
            self.best.offer(at_lows, solution);
            return;
        }
        self.best.search_nodes += solution.search_nodes;
        let bound = solution.lower_bound;
        if bound >= self.best.solution.cost {
            return;
        }
        // Halve the widest range, the lower levels first.
        let (i, &(low, high)) = ranges
            .iter()
            .enumerate()
            .max_by_key(|&(i, &(low, high))| (high - low, std::cmp::Reverse(i)))
            .expect("a range wider than one level");
        let mid = low + (high - low) / 2;
        for half in [(low, mid), (mid + 1, high)] {
            ranges[i] = half;
            self.node(ranges, bound);
        }
        ranges[i] = (low, high);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Cost;
    use kildall_cover::Budget;
    use kildall_harness::generate::{generate_noise, NoiseConfig, NoiseControlFlow};

    /// Out of time before the copies show the fixed point, the unrolled
    /// placement still comes back legal (the carried value reduced), with
    /// the relaxation's bound.
    #[test]
    fn unrolled_placement_out_of_time_is_legal() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join("../examples/noise/slow_growth.ssa")).unwrap();
        let module = kildall_ir::parse_module(&text).unwrap();
        let func = &module.functions[module.main().unwrap()];
        let mut analyses = FunctionAnalyses::new();
        let (cfg, _, loops) = analyses.loops(func);
        let options = Options::default();
        let placing = Placing::new(func, (cfg, loops), &options);
        let memo = &mut ComponentMemo::default();
        let none_left = SearchLimits::new(Budget::new(0, None));
        let (extraction, solution) = solve_unrolled(&placing, &none_left, memo).unwrap();
        assert!(extraction.problem.is_legal(&solution.reduced));
        assert_eq!(solution.count, 1);
        assert!(!solution.optimal && solution.lower_bound < solution.cost);
    }

    /// The loops unrolled as one hitting set and the search over carried
    /// levels reach the same optimum, on two examples and on generated
    /// loops (with plaintext constants in half of them), under both costs.
    #[test]
    fn unrolled_loops_match_the_level_search() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        // Three carried values; one that needs every copy the unrolling
        // may make before its fixed point shows.
        let mut modules = Vec::new();
        for name in ["three_carried.ssa", "slow_growth.ssa"] {
            let text = std::fs::read_to_string(root.join("../examples/noise").join(name)).unwrap();
            modules.push(kildall_ir::parse_module(&text).unwrap());
        }
        for seed in 0..10u64 {
            let config = NoiseConfig {
                ops: 30 + (seed % 5) as usize * 10,
                control_flow: NoiseControlFlow::Loop,
                plaintext_fraction: if seed % 2 == 0 { 0.0 } else { 0.2 },
                ..NoiseConfig::default()
            };
            modules.push(generate_noise(seed, &config));
        }
        for (i, module) in modules.iter().enumerate() {
            let func = &module.functions[module.main().unwrap()];
            let mut analyses = FunctionAnalyses::new();
            let (cfg, _, loops) = analyses.loops(func);
            for cost in [Cost::Static, Cost::Executions] {
                let options = Options {
                    cost,
                    ..Options::default()
                };
                let placing = Placing::new(func, (cfg, loops), &options);
                let limits = SearchLimits::new(Budget::unlimited());
                let memo = &mut ComponentMemo::default();
                let (extraction, unrolled) =
                    solve_unrolled(&placing, &limits, memo).expect("the witnesses are listed");
                let searched = place(&placing, &limits, true, false).unwrap();
                assert!(unrolled.optimal, "program {i}, {cost} cost");
                assert!(searched.lower_bound() >= searched.solution.cost);
                assert_eq!(
                    unrolled.cost, searched.solution.cost,
                    "program {i}, {cost} cost"
                );
                assert!(extraction.problem.is_legal(&unrolled.reduced));
            }
        }
    }
}
