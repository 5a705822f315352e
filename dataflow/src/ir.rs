//! The binding to `kildall-ir`: functions as [`Graph`]s, and liveness.

use kildall_ir::{Block, Function, Inst, Terminator, Value, ValueDef};

use crate::analysis::{Analysis, Backward, Graph};
use crate::engine::Results;
use crate::lattice::BitSet;

impl Graph for Function {
    type Block = Block;
    type Inst = Inst;

    fn num_block_indices(&self) -> usize {
        self.dfg.num_blocks()
    }

    fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    fn successors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        let inserted = self.layout.is_block_inserted(block);
        let mut previous = None;
        self.dfg
            .successors(block)
            .filter(move |&s| inserted && previous.replace(s) != Some(s))
    }

    fn block_insts(&self, block: Block) -> impl DoubleEndedIterator<Item = Inst> + '_ {
        self.layout.block_insts(block)
    }

    fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.layout.inst_block(inst)
    }
}

/// Liveness of SSA values: a value is live at a point when some path from
/// the point reaches a use of it without passing its definition. Backward,
/// over a [`BitSet`] of values.
///
/// Uses are instruction operands, terminator operands (the `jmpif`
/// condition, returned values) and branch arguments, which are used *on the
/// edge*: an argument passed to `b3` is live out of its block only along the
/// edge to `b3`. Block parameters are defined at the start of their block,
/// so they are live at a block start when used later but never live out of
/// a predecessor. Constants are never live (they have no definition to
/// reach); operands are resolved through aliases.
///
/// The entry state of a block is its live-out set
/// ([`Results::entry_state`]); its live-in set is the state at
/// [`ResultsCursor::seek_to_block_start`](crate::ResultsCursor::seek_to_block_start).
#[derive(Copy, Clone, Debug, Default)]
pub struct Liveness;

impl Liveness {
    fn gen(func: &Function, state: &mut BitSet<Value>, value: Value) {
        let value = func.dfg.resolve(value);
        if !matches!(func.dfg.value_def(value), ValueDef::Const(_)) {
            state.insert(value);
        }
    }
}

impl Analysis<Function> for Liveness {
    type Domain = BitSet<Value>;
    type Direction = Backward;

    fn bottom_value(&self, func: &Function) -> BitSet<Value> {
        BitSet::new_empty(func.dfg.num_values())
    }

    fn initialize_start_block(&self, _: &Function, _: Block, _: &mut BitSet<Value>) {
        // Nothing is live after a `return`: its operands are uses of the
        // terminator itself.
    }

    fn apply_instruction_effect(&mut self, func: &Function, state: &mut BitSet<Value>, inst: Inst) {
        for &result in func.dfg.inst_results(inst) {
            state.remove(result);
        }
        for &arg in func.dfg[inst].arguments().as_slice() {
            Self::gen(func, state, arg);
        }
    }

    fn apply_terminator_effect(
        &mut self,
        func: &Function,
        state: &mut BitSet<Value>,
        block: Block,
    ) {
        match func.dfg.terminator(block) {
            Some(Terminator::JmpIf { condition, .. }) => Self::gen(func, state, *condition),
            Some(Terminator::Return { values }) => {
                for &v in values {
                    Self::gen(func, state, v);
                }
            }
            Some(Terminator::Jmp { .. } | Terminator::Unreachable) | None => {}
        }
    }

    fn apply_edge_effect(
        &mut self,
        func: &Function,
        state: &mut BitSet<Value>,
        from: Block,
        to: Block,
    ) {
        for &param in func.dfg.block_params(to) {
            state.remove(param);
        }
        if let Some(terminator) = func.dfg.terminator(from) {
            for &arg in terminator.edge_arguments(to) {
                Self::gen(func, state, arg);
            }
        }
    }
}

/// Solves liveness for `func`.
pub fn liveness(func: &Function) -> Results<Function, Liveness> {
    Liveness.into_engine(func).iterate_to_fixpoint()
}
