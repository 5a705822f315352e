//! The analysis as the engine runs it: on the graph of the events, with
//! states at joins, recording what each event found.

use std::cell::RefCell;

use kildall_dataflow::{EffectId, StatesKept};

use super::*;

/// The graph the engine solves on: the function's blocks and edges, and in
/// each block only its events.
pub(crate) type EventGraph<'g> = SparseGraph<'g, FunctionGraph<'g>, Event>;

/// What the last visit of a block found at one event (the final answer: a
/// block's last visit is made with its final entry state).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Outcome {
    /// Nothing to record.
    Nothing,
    /// A load whose result the value replaces.
    Replace(Value),
}

/// One solve of [`ReferenceValues`] on the engine, over an [`EventGraph`].
///
/// States are kept at joins only ([`StatesKept::AtJoins`]): a block with
/// one predecessor receives the predecessor's exit state when the
/// predecessor is visited and gives it up at its own visit, so the states
/// alive at once are those of the joins and of the pending blocks.
///
/// Each visit overwrites the outcomes of the block's events, so no walk
/// after the solve is needed to read the answer: the engine visits a block
/// again whenever its entry state changes, so its last visit is made with
/// its final entry state. The joins note the pairs of values whose entries
/// they dropped because the predecessors disagreed ([`forward`] decides
/// from them whether another solve can find more).
pub(crate) struct Solve<'r, 'a> {
    values: &'r ReferenceValues<'a>,
    /// By event index ([`EffectId`]).
    pub(crate) outcome: Vec<Outcome>,
    /// The pairs of values of the entries some join dropped because its
    /// predecessors held different values (at any visit; with repeats).
    pub(crate) disagreed: Vec<(EqualValues, EqualValues)>,
    /// The loads of the current block visit found replaceable (see
    /// [`ReferenceValues::transfer`]); emptied at the end of each visit.
    renamed: Vec<(Value, EqualValues)>,
}

impl<'r, 'a> Solve<'r, 'a> {
    pub(crate) fn new(values: &'r ReferenceValues<'a>) -> Self {
        Solve {
            values,
            outcome: vec![Outcome::Nothing; values.effects.len()],
            disagreed: Vec::new(),
            renamed: Vec::new(),
        }
    }
}

impl Analysis<EventGraph<'_>> for Solve<'_, '_> {
    type Domain = KnownValues;
    type Direction = Forward;

    fn bottom_value(&self, _: &EventGraph<'_>) -> KnownValues {
        KnownValues::default()
    }

    fn states_kept(&self) -> StatesKept {
        StatesKept::AtJoins
    }

    fn initialize_start_block(&self, _: &EventGraph<'_>, _: Block, state: &mut KnownValues) {
        // No predecessors: every reference is Unknown.
        state.reached = true;
        state.predicate_one = true;
    }

    fn apply_instruction_effect(
        &mut self,
        graph: &EventGraph<'_>,
        state: &mut KnownValues,
        id: EffectId,
    ) {
        let event = graph.effect(id);
        let func = graph.graph().function();
        let outcome = match self.values.transfer(func, state, event, &mut self.renamed) {
            Some(v) => Outcome::Replace(v),
            None => Outcome::Nothing,
        };
        self.outcome[id.index()] = outcome;
    }

    fn apply_terminator_effect(&mut self, _: &EventGraph<'_>, _: &mut KnownValues, _: Block) {
        // The block visit ends (forward: after its instructions).
        self.renamed.clear();
    }

    fn apply_edge_effect(
        &mut self,
        graph: &EventGraph<'_>,
        state: &mut KnownValues,
        from: Block,
        to: Block,
    ) {
        let func = graph.graph().function();
        self.values
            .edge(func, state, (from, to), &mut self.disagreed);
    }

    fn join_entry(
        &mut self,
        _: &EventGraph<'_>,
        entry: &mut KnownValues,
        incoming: &KnownValues,
        _: Block,
    ) -> bool {
        let disagreed = RefCell::new(std::mem::take(&mut self.disagreed));
        let changed = entry.join_noting(incoming, &|a, b| {
            disagreed.borrow_mut().push((a.clone(), b.clone()))
        });
        self.disagreed = disagreed.into_inner();
        changed
    }
}
