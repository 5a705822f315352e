//! The exact placement of a function with loops as one hitting set.
//!
//! The noise analysis reaches its fixed point by iterating from the entry,
//! each step at most the next, so a placement is legal exactly when the
//! first iterations of every loop, unrolled until they stop changing, are
//! legal with the same values reduced in every copy. Legality of the
//! unrolled problem is still monotone in the reduced values, so its
//! witnesses, each mapped to the values its nodes stand for, are the
//! witnesses of the function, and the cheapest placement is their cheapest
//! hitting set: no search over carried levels.
//!
//! Fewer copies are a relaxation (every step is at most the fixed point),
//! so the search starts from a few copies and doubles them until the
//! cheapest placement of the relaxation passes the noise verifier, whose
//! fixed point is the real one; its proven bound then holds for the
//! function. Each carried value's noise only rises from one step to the
//! next while the iteration changes, and stays within the encoding noise
//! and the maximum while it is legal, so `carried * (max - encode + 1) + 1`
//! copies are always enough.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

use kildall_dataflow::Max;
use kildall_ir::{Block, Function, SecondaryMap, Value, ValueDef};

use crate::analysis::{verify_on, NoiseAnalysis};
use kildall_cover::{min_hitting_set, ComponentMemo, HittingSet, SearchLimits};

use crate::exact::hitting_set_weights;
use crate::function::{
    extract_in_order, extract_unrolled, insert_reductions_with_exits, CarriedLevels, Extraction,
};
use crate::levels::Placing;
use crate::solve::hoist;
use crate::witness::witnesses_over;
use crate::Solution;

/// Copies of the function the search starts from.
const FIRST_COPIES: usize = 3;
/// The most nodes the copies may have together: past it the copies stop
/// doubling and the carried values are reduced instead (see below), which
/// bounds the time and memory of the witnesses.
const MAX_UNROLLED_NODES: usize = 1 << 21;

/// The cheapest placement on `func` (with its extraction at the carried
/// levels of its fixed point), or `None` when the witnesses are too many
/// or too heavy to list, or nothing can be placed (the search over
/// carried levels then takes over).
pub(crate) fn solve_unrolled<'f>(
    placing: &Placing<'f>,
    limits: &SearchLimits,
    memo: &mut ComponentMemo,
) -> Option<(Extraction, Solution)> {
    let Placing {
        func,
        cfg,
        order,
        times,
        options,
    } = placing;
    let (func, cfg, options) = (*func, *cfg, *options);
    let start = Instant::now();
    let params = options.params;
    let input = options.input_level();
    let mut copies = FIRST_COPIES;
    loop {
        let unrolled = extract_unrolled(func, order, times, options, copies);
        let enough = unrolled.carried_params.len() * (params.max - params.encode + 1) as usize + 1;
        if copies > enough {
            // Nothing noisy is carried: one pass is the fixed point.
            copies = enough;
            continue;
        }
        let (instance, keys, scale) = value_hitting_set(&unrolled)?;
        let cover = min_hitting_set(instance, limits, Some(&mut *memo));
        let (mut reduced, after_loops) = chosen_values(&cover.chosen, &keys);
        let legal = |reduced: &[Value]| -> Option<Cow<'f, Function>> {
            // Nothing to insert (a function without noisy values): the
            // function itself, without a copy as large as it.
            let placed = if reduced.is_empty() && after_loops.is_empty() {
                Cow::Borrowed(func)
            } else {
                // FIXME: a placement that reduces something is checked on a
                // copy of the whole function, so a function of a million
                // blocks with noisy values needs twice its own memory here.
                let mut placed = func.clone();
                insert_reductions_with_exits(&mut placed, reduced, &after_loops);
                Cow::Owned(placed)
            };
            verify_on(&placed, cfg, params, input)
                .is_ok()
                .then_some(placed)
        };
        let problem = &unrolled.problem;
        let mut placed = match legal(&reduced) {
            Some(placed) => placed,
            None if copies < enough
                && !limits.budget.exhausted()
                && problem.len() / copies * (copies * 2).min(enough) <= MAX_UNROLLED_NODES =>
            {
                copies = (copies * 2).min(enough);
                continue;
            }
            None => {
                // Out of effort or room (or of copies, which cannot happen):
                // every value carried along a back edge is reduced too.
                // Then the first iteration is the fixed point, and every
                // copy made it legal. The relaxation's bound stands.
                let mut present: HashSet<Value> = reduced.iter().copied().collect();
                for &(value, _) in &unrolled.carried_values {
                    if present.insert(value) {
                        reduced.push(value);
                    }
                }
                legal(&reduced)?
            }
        };
        if sink_out_of_headers(func, times, &unrolled.carried_values, &mut reduced, &legal) {
            placed = legal(&reduced).expect("sinking keeps the placement legal");
        }
        let chosen = (reduced.as_slice(), after_loops.as_slice());
        let (fixed, on) = at_carried_levels(placing, &placed, &unrolled, chosen, limits)?;
        let cost = fixed.problem.cost_of(&on);
        let lower_bound = (cover.lower_bound as u64).saturating_mul(scale).min(cost);
        let solution = Solution {
            count: on.iter().filter(|&&r| r).count(),
            cost,
            lower_bound,
            optimal: lower_bound >= cost,
            reduced: on,
            stopped: !cover.optimal,
            search_nodes: cover.nodes,
            time: start.elapsed(),
        };
        return Some((fixed, solution));
    }
}

/// A value of the function, or a value read after the loop that exits
/// to the block.
type ElementKey = (Value, Option<Block>);

/// The witnesses of `unrolled` as a hitting set over what its nodes stand
/// for: one element per value, and per value read after its loop, every
/// copy of a value the same element. Gives the instance, each element's
/// key, and the factor the weights were divided by; `None` when the
/// witnesses are too many or too heavy to list, or a reducible node
/// stands for no value.
fn value_hitting_set(unrolled: &Extraction) -> Option<(HittingSet, Vec<ElementKey>, u64)> {
    let problem = &unrolled.problem;
    let mut element_of: Vec<Option<u32>> = vec![None; problem.len()];
    let mut index: HashMap<ElementKey, u32> = HashMap::new();
    let mut keys: Vec<ElementKey> = Vec::new();
    let mut first_node: Vec<usize> = Vec::new();
    let mut name = |node: usize, key: ElementKey| {
        let next = keys.len() as u32;
        let element = *index.entry(key).or_insert(next);
        if element == next {
            keys.push(key);
            first_node.push(node);
        }
        element_of[node] = Some(element);
    };
    for (node, value) in unrolled.values.iter().enumerate() {
        if let Some(value) = value {
            name(node, (*value, None));
        }
    }
    for exit in &unrolled.exits {
        name(exit.node, (exit.value, Some(exit.block)));
    }
    let (weights, scale) = hitting_set_weights(problem)?;
    let reducible = |node: usize| problem.nodes()[node].reducible;
    if (0..problem.len()).any(|node| reducible(node) && element_of[node].is_none()) {
        return None;
    }
    let element_of: Vec<u32> = element_of.iter().map(|e| e.unwrap_or(u32::MAX)).collect();
    let mut sets = witnesses_over(problem, &element_of)?.sets;
    if sets.iter().any(|set| set.is_empty()) {
        return None;
    }
    sets.sort_unstable();
    sets.dedup();
    let weights: Vec<u64> = first_node.iter().map(|&node| weights[node]).collect();
    let instance = HittingSet {
        elements: keys.len(),
        sets,
        weights: weights.iter().any(|&w| w != 1).then_some(weights),
    };
    Some((instance, keys, scale))
}

/// The values a cover chose: those reduced where they are defined, and
/// those reduced after the loop they leave.
fn chosen_values(chosen: &[usize], keys: &[ElementKey]) -> (Vec<Value>, Vec<(Value, Block)>) {
    let mut reduced = Vec::new();
    let mut after_loops = Vec::new();
    for &e in chosen {
        match keys[e] {
            (value, None) => reduced.push(value),
            (value, Some(block)) => after_loops.push((value, block)),
        }
    }
    (reduced, after_loops)
}

/// The legal placement `placed` (the values `chosen` reduces, where they
/// are defined and after their loops) as a placement of the extraction at
/// the carried levels of its fixed point, where the usual hoisting
/// applies; `None` when it is not legal there.
fn at_carried_levels(
    placing: &Placing<'_>,
    placed: &Function,
    unrolled: &Extraction,
    (reduced, after_loops): (&[Value], &[(Value, Block)]),
    limits: &SearchLimits,
) -> Option<(Extraction, Vec<bool>)> {
    let params = placing.options.params;
    let input = placing.options.input_level();
    let noise = NoiseAnalysis::new(params, input)
        .map(placed, placing.cfg)
        .noise;
    let levels: Vec<u32> = unrolled
        .carried_params
        .iter()
        .map(|&param| match noise[param] {
            Max::At(bits) => bits as u32,
            _ => params.encode,
        })
        .collect();
    let fixed = extract_in_order(
        placing.func,
        &placing.order,
        &placing.times,
        placing.options,
        &CarriedLevels::Fixed(levels),
    );
    let chosen: HashSet<Value> = reduced.iter().copied().collect();
    let chosen_after: HashSet<(Value, Block)> = after_loops.iter().copied().collect();
    let mut on = vec![false; fixed.problem.len()];
    for (node, value) in fixed.values.iter().enumerate() {
        on[node] = value.is_some_and(|v| chosen.contains(&v));
    }
    for exit in &fixed.exits {
        on[exit.node] = chosen_after.contains(&(exit.value, exit.block));
    }
    if !fixed.problem.is_legal(&on) {
        return None;
    }
    hoist(&fixed.problem, &mut on, &limits.budget);
    Some((fixed, on))
}

/// Among placements of the same cost, prefers reductions that run less
/// often: a reduced loop parameter moves onto a value carried into it
/// (`carried`: value and parameter), when that alone keeps the placement
/// legal and the value's block is charged no more than the parameter's.
/// A loop header runs once more than its body (its last test), so a
/// carried value is better reduced before the back edge than at the top of
/// the loop, under the static cost too. Returns whether anything moved.
fn sink_out_of_headers<'f>(
    func: &Function,
    times: &SecondaryMap<Block, u64>,
    carried: &[(Value, Value)],
    reduced: &mut [Value],
    legal: &dyn Fn(&[Value]) -> Option<Cow<'f, Function>>,
) -> bool {
    let block_of = |value: Value| match func.dfg.value_def(value) {
        ValueDef::Param(block, _) => Some(block),
        ValueDef::Result(inst, _) => func.layout.inst_block(inst),
        _ => None,
    };
    let mut position: HashMap<Value, usize> =
        reduced.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut moved = false;
    for &(value, param) in carried {
        let (Some(header), Some(from)) = (block_of(param), block_of(value)) else {
            continue;
        };
        let Some(&i) = position.get(&param) else {
            continue;
        };
        if from == header || times[from] > times[header] || position.contains_key(&value) {
            continue;
        }
        reduced[i] = value;
        if legal(reduced).is_some() {
            position.remove(&param);
            position.insert(value, i);
            moved = true;
        } else {
            reduced[i] = param;
        }
    }
    moved
}
