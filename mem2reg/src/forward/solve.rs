//! The solve loop: states only at join blocks, events only, the earliest
//! pending block of the loop-aware order first.

use super::*;

/// What the last visit of a block found at one event (the final answer: a
/// block's last visit is made with its final entry state).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Outcome {
    /// Nothing to record.
    Nothing,
    /// A load whose result the value replaces.
    Replace(Value),
    /// A store of a value not renamed within its block: if that value is the
    /// result of a load replaced elsewhere, the solve compared it under the
    /// load's name (see [`forward`]).
    Stores(Value),
}

/// The fixed point of [`ReferenceValues`], computed by [`Solution::solve`]:
/// the outcome of every event at its block's last visit.
pub(crate) struct Solution {
    /// By event index ([`ReferenceValues::events`] of all blocks, in order).
    pub(crate) outcome: Vec<Outcome>,
    /// The pairs of values of the entries some join dropped because its
    /// predecessors held different values (at any visit; with repeats).
    pub(crate) disagreed: Vec<(Value, Value)>,
    /// Block visits.
    pub(crate) visits: usize,
}

impl Solution {
    /// Solves `analysis` over `func`.
    ///
    /// The worklist always takes the earliest pending block in reverse
    /// post-order, so a loop is settled before the blocks after it are
    /// visited (the round-robin order instead carries each change at a loop
    /// header down the rest of the function, once per sweep). Only join
    /// blocks keep a state: a block with one predecessor gets the
    /// predecessor's exit state when the predecessor is visited, and gives it
    /// up when it is visited itself, so the states alive at once are those of
    /// the joins and of the blocks waiting in the worklist.
    ///
    /// Each visit overwrites the outcomes of the block's events, so no walk
    /// after the solve is needed to read the answer: a block is visited again
    /// whenever its entry state changes, so its last visit is made with its
    /// final entry state (a join's slot holds it; a block with one
    /// predecessor receives a state at each visit of the predecessor, and the
    /// predecessor's last visit comes before its own).
    ///
    /// Termination does not rest on monotone transfer functions (the load's
    /// is not: an `Unknown` reference becomes `Known(result)`, a `Known(v)`
    /// one stays `Known(v)`): the entry state of a join block only ever
    /// shrinks (it is the intersection of everything that reached it), a
    /// chain of single-predecessor blocks is a function of the join state
    /// heading it, and every loop goes through a join. The answer is sound
    /// whatever the order: at the end every block has been visited with its
    /// final entry state, and each join's state is contained in the
    /// intersection of what its predecessors finally pass, so every fact
    /// holds on every path. Which sound answer is found may depend on the
    /// order; the order is fixed, so the answer is deterministic.
    pub(crate) fn solve(
        func: &Function,
        cfg: &ControlFlowGraph,
        order: &BlockOrder,
        analysis: &ReferenceValues<'_>,
    ) -> Self {
        let n = order.position.len();
        let rpo = &order.rpo;
        let join = &order.join;
        let mut outcome = vec![Outcome::Nothing; analysis.events.len()];
        let disagreed = std::cell::RefCell::new(Vec::new());
        let note = |a: Value, b: Value| disagreed.borrow_mut().push((a, b));
        let mut states: Vec<KnownValues> = vec![KnownValues::default(); n];
        let mut visits = 0;
        if let Some(&entry) = rpo.first() {
            states[entry.index()] = KnownValues {
                reached: true,
                classes: PMap::default(),
                predicate_one: true,
            };
            let mut pending = Worklist::new(rpo.len());
            let mut renamed = Vec::new();
            pending.insert(0);
            while let Some(i) = pending.pop_first() {
                let block = rpo[i];
                visits += 1;
                let mut state = if join[block.index()] {
                    states[block.index()].clone()
                } else {
                    std::mem::take(&mut states[block.index()])
                };
                state.predicate_one = true;
                renamed.clear();
                let (lo, hi) = analysis.ranges[block.index()];
                let events = &analysis.events[lo as usize..hi as usize];
                let slots = &mut outcome[lo as usize..hi as usize];
                for (event, slot) in events.iter().zip(slots) {
                    *slot = match analysis.transfer(func, &mut state, event, &mut renamed) {
                        Some(v) => Outcome::Replace(v),
                        None => match event.op {
                            Op::Store { value, .. } => {
                                if renamed.iter().any(|&(r, _)| r == value) {
                                    Outcome::Nothing
                                } else {
                                    Outcome::Stores(value)
                                }
                            }
                            _ => Outcome::Nothing,
                        },
                    };
                }
                let succs = cfg.successors(block);
                for (k, &succ) in succs.iter().enumerate() {
                    let mut edge = if k + 1 == succs.len() {
                        std::mem::take(&mut state)
                    } else {
                        state.clone()
                    };
                    analysis.edge(func, &mut edge, block, succ);
                    let slot = &mut states[succ.index()];
                    let changed = if join[succ.index()] {
                        slot.join_noting(&edge, &note)
                    } else {
                        *slot = edge;
                        true
                    };
                    if changed {
                        pending.insert(order.position[succ.index()] as usize);
                    }
                }
            }
        }
        Solution {
            outcome,
            disagreed: disagreed.into_inner(),
            visits,
        }
    }
}

/// The visiting order of the solver and which blocks keep a state, computed
/// once per graph and shared by the solves on it.
pub(crate) struct BlockOrder {
    /// Reachable blocks in the loop-aware reverse post-order ([`loop_order`]).
    pub(super) rpo: Vec<Block>,
    /// Position in `rpo` by block index (`u32::MAX`: unreachable).
    pub(super) position: Vec<u32>,
    /// Whether a block is a join block (the entry block, or a block with
    /// several reachable predecessors), by block index.
    pub(super) join: Vec<bool>,
}

impl BlockOrder {
    /// The order of `cfg`'s reachable blocks.
    pub(crate) fn new(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let n = cfg.num_block_indices().max(func.dfg.num_blocks());
        let rpo = loop_order(&FunctionGraph::new(func, cfg));
        let mut position = vec![u32::MAX; n];
        for (i, &b) in rpo.iter().enumerate() {
            position[b.index()] = i as u32;
        }
        let mut join = vec![false; n];
        for &b in &rpo {
            let preds = cfg
                .predecessors(b)
                .iter()
                .filter(|&&p| position[p.index()] != u32::MAX)
                .count();
            join[b.index()] = preds > 1;
        }
        if let Some(&entry) = rpo.first() {
            join[entry.index()] = true;
        }
        BlockOrder {
            rpo,
            position,
            join,
        }
    }
}
