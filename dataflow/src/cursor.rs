//! States inside blocks, recomputed from the block-entry states.

use std::borrow::BorrowMut;
use std::marker::PhantomData;

use cranelift_entity::EntityRef;

use crate::analysis::{Analysis, Direction, Graph};
use crate::engine::Results;

/// A position in the program at which [`ResultsCursor`] can stand, in
/// program order whatever the direction of the analysis.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ProgramPoint<B, I> {
    /// The start of a block, after its parameters are bound.
    BlockStart(B),
    /// Right before an instruction executes.
    Before(I),
    /// Right after an instruction executes.
    After(I),
    /// Right before the terminator of a block.
    BeforeTerminator(B),
    /// The end of a block, after its terminator (before any edge effect).
    BlockEnd(B),
}

/// Reads the state at any point of a block: seeks from the block's entry
/// state (or from where the cursor stands, when that is on the way) by
/// applying the analysis's effects, as rustc's `ResultsCursor` does.
///
/// Walking a block in the analysis direction costs one effect per step;
/// seeking against it restarts from the block's entry state. Positions are
/// in program order: for a backward analysis, the state "before" an
/// instruction includes that instruction's effect (e.g. what is live into it).
pub struct ResultsCursor<
    'g,
    G: Graph + ?Sized,
    A: Analysis<G>,
    R: BorrowMut<Results<G, A>> = Results<G, A>,
> {
    graph: &'g G,
    results: R,
    state: A::Domain,
    block: Option<G::Node>,
    insts: Vec<G::Inst>,
    /// The point within `block`: `k <= n` is before instruction `k` (`n`:
    /// before the terminator), `n + 1` is the block end.
    point: usize,
    marker: PhantomData<fn(&A)>,
}

impl<'g, G: Graph + ?Sized, A: Analysis<G>, R: BorrowMut<Results<G, A>>>
    ResultsCursor<'g, G, A, R>
{
    /// A cursor over `results` (of an analysis over `graph`), at no position.
    pub fn new(graph: &'g G, results: R) -> Self {
        let state = results.borrow().analysis.bottom_value(graph);
        ResultsCursor {
            graph,
            results,
            state,
            block: None,
            insts: Vec::new(),
            point: 0,
            marker: PhantomData,
        }
    }

    /// The results.
    pub fn results(&self) -> &Results<G, A> {
        self.results.borrow()
    }

    /// The results, mutably.
    pub fn results_mut(&mut self) -> &mut Results<G, A> {
        self.results.borrow_mut()
    }

    /// The analysis.
    pub fn analysis(&self) -> &A {
        &self.results.borrow().analysis
    }

    /// Gives back the results.
    pub fn into_results(self) -> R {
        self.results
    }

    /// The block the cursor is in.
    pub fn block(&self) -> Option<G::Node> {
        self.block
    }

    /// The state where the cursor stands.
    pub fn get(&self) -> &A::Domain {
        &self.state
    }

    /// Moves to the start of `block` (after its parameters are bound).
    pub fn seek_to_block_start(&mut self, block: G::Node) -> &A::Domain {
        self.seek_to_point(block, 0)
    }

    /// Moves to the end of `block` (after its terminator's effect, before
    /// the effect of any outgoing edge).
    pub fn seek_to_block_end(&mut self, block: G::Node) -> &A::Domain {
        self.load_block(block);
        let end = self.insts.len() + 1;
        self.seek_to_point(block, end)
    }

    /// Moves to right before the terminator of `block`.
    pub fn seek_before_terminator(&mut self, block: G::Node) -> &A::Domain {
        self.load_block(block);
        let n = self.insts.len();
        self.seek_to_point(block, n)
    }

    /// Moves to right before `inst`. Panics if `inst` is not in a block.
    pub fn seek_before(&mut self, inst: G::Inst) -> &A::Domain {
        let (block, index) = self.locate(inst);
        self.seek_to_point(block, index)
    }

    /// Moves to right after `inst`. Panics if `inst` is not in a block.
    pub fn seek_after(&mut self, inst: G::Inst) -> &A::Domain {
        let (block, index) = self.locate(inst);
        self.seek_to_point(block, index + 1)
    }

    /// Moves to `point`.
    pub fn seek(&mut self, point: ProgramPoint<G::Node, G::Inst>) -> &A::Domain {
        match point {
            ProgramPoint::BlockStart(b) => self.seek_to_block_start(b),
            ProgramPoint::Before(i) => self.seek_before(i),
            ProgramPoint::After(i) => self.seek_after(i),
            ProgramPoint::BeforeTerminator(b) => self.seek_before_terminator(b),
            ProgramPoint::BlockEnd(b) => self.seek_to_block_end(b),
        }
    }

    fn load_block(&mut self, block: G::Node) {
        if self.block != Some(block) {
            self.insts.clear();
            self.insts.extend(self.graph.block_insts(block));
            self.block = Some(block);
            self.reset();
        }
    }

    fn locate(&mut self, inst: G::Inst) -> (G::Node, usize) {
        let block = self.graph.inst_block(inst).expect("instruction in a block");
        self.load_block(block);
        // Walks usually go one instruction at a time: look near the cursor first.
        let guess = [self.point, self.point.wrapping_sub(1), self.point + 1];
        for g in guess {
            if self.insts.get(g) == Some(&inst) {
                return (block, g);
            }
        }
        let index = self
            .insts
            .iter()
            .position(|&i| i == inst)
            .expect("instruction in its block");
        (block, index)
    }

    /// Sets the state to the current block's entry state.
    fn reset(&mut self) {
        let block = self.block.expect("a block");
        let forward = <A::Direction as Direction>::IS_FORWARD;
        let graph = self.graph;
        let results = self.results.borrow_mut();
        if results.keeps_state(block) {
            self.state.clone_from(&results.entry_states[block.index()]);
        } else {
            // A block without a kept state has one incoming edge, from a
            // block whose state is kept or can be found the same way (every
            // cycle holds a kept state): replay the effects from there.
            let mut chain = vec![block];
            let mut b = block;
            while !results.keeps_state(b) {
                let from = if forward {
                    graph.predecessors(b).find(|&p| results.is_reachable(p))
                } else {
                    graph.successors(b).next()
                };
                b = from.expect("a block without a kept state has one incoming edge");
                chain.push(b);
            }
            let Results {
                analysis,
                entry_states,
                ..
            } = results;
            self.state.clone_from(&entry_states[b.index()]);
            for i in (1..chain.len()).rev() {
                let (here, next) = (chain[i], chain[i - 1]);
                if forward {
                    for inst in graph.block_insts(here) {
                        analysis.apply_instruction_effect(graph, &mut self.state, inst);
                    }
                    analysis.apply_terminator_effect(graph, &mut self.state, here);
                    analysis.apply_edge_effect(graph, &mut self.state, here, next);
                } else {
                    analysis.apply_terminator_effect(graph, &mut self.state, here);
                    for inst in graph.block_insts(here).rev() {
                        analysis.apply_instruction_effect(graph, &mut self.state, inst);
                    }
                    analysis.apply_edge_effect(graph, &mut self.state, next, here);
                }
            }
        }
        self.point = if <A::Direction as Direction>::IS_FORWARD {
            0
        } else {
            self.insts.len() + 1
        };
    }

    fn seek_to_point(&mut self, block: G::Node, target: usize) -> &A::Domain {
        self.load_block(block);
        let n = self.insts.len();
        let graph = self.graph;
        if <A::Direction as Direction>::IS_FORWARD {
            if target < self.point {
                self.reset();
            }
            let analysis = &mut self.results.borrow_mut().analysis;
            for k in self.point..target {
                if k < n {
                    analysis.apply_instruction_effect(graph, &mut self.state, self.insts[k]);
                } else {
                    analysis.apply_terminator_effect(graph, &mut self.state, block);
                }
            }
        } else {
            if target > self.point {
                self.reset();
            }
            let analysis = &mut self.results.borrow_mut().analysis;
            for k in (target..self.point).rev() {
                if k == n {
                    analysis.apply_terminator_effect(graph, &mut self.state, block);
                } else {
                    analysis.apply_instruction_effect(graph, &mut self.state, self.insts[k]);
                }
            }
        }
        self.point = target;
        &self.state
    }
}
