//! Watching a run block by block: [`interpret_observed`](super::interpret_observed)
//! calls a [`BlockObserver`] every time a block reaches its terminator, with
//! the values the block computed. A witness generator for a per-block
//! prover reads each executed block's values from it.

use kildall_ir::{Block, FuncId, Function, Inst, Value};

use super::{read, Frame, FuncInfo, RuntimeValue};

/// Receives every executed block, in the order their terminators run (a
/// block that calls a function ends after the callee's blocks), and every
/// call as it is entered, so that what a block did before and after a call
/// can be ordered around the callee's blocks.
pub trait BlockObserver {
    /// `block` of `function` reached its terminator; `values` reads the
    /// values of this execution of it.
    fn block_executed(&mut self, function: FuncId, block: Block, values: &BlockValues<'_>);

    /// The call `call` of `block` of `function` runs its callee: the
    /// callee's blocks are executed next, before `block` reaches its
    /// terminator. A call under predicate 0 does not run and is not seen.
    fn call_entered(&mut self, function: FuncId, block: Block, call: Inst) {
        let _ = (function, block, call);
    }

    /// The instruction `inst` of `block` of `function` trapped; `values`
    /// reads the values its execution had defined before it (a witness
    /// generator that wants the constraints of a failing run starts here).
    fn block_trapped(
        &mut self,
        function: FuncId,
        block: Block,
        inst: Inst,
        values: &BlockValues<'_>,
    ) {
        let _ = (function, block, inst, values);
    }
}

/// The values of one execution of a block, read at its terminator: its
/// parameters, its instructions' results, and the values of the blocks
/// that dominate it.
pub struct BlockValues<'a> {
    pub(super) func: &'a Function,
    pub(super) info: &'a FuncInfo,
    pub(super) frame: &'a Frame,
}

impl BlockValues<'_> {
    /// The value of `value` (a constant, a parameter or a result), or
    /// `None` when it has none in this execution.
    pub fn get(&self, value: Value) -> Option<RuntimeValue> {
        read(self.func, self.info, self.frame, value).ok()
    }

    /// Whether the block's instructions ran under predicate 1 at the end
    /// (after its last `enable_side_effects`).
    pub fn predicate(&self) -> bool {
        self.frame.predicate
    }
}
