//! What the planner knows of each block's instructions, kept across rounds.

use super::*;

/// What the planner needs to know of each block's instructions: their
/// constraints and what keeps the block out of components. Kept across
/// rounds and refreshed only for the blocks a merge changed.
#[derive(Clone, Default)]
pub(crate) struct BlockFacts {
    /// Instruction constraints (parameters apart).
    pub(crate) insts_cost: SecondaryMap<Block, u64>,
    /// The same plus one predicate per `enable_side_effects` (rewritten
    /// into an `and` when the block is merged).
    pub(crate) merged_cost: SecondaryMap<Block, u64>,
    /// Constraints of the parameters.
    pub(crate) params_cost: SecondaryMap<Block, u64>,
    pub(crate) hazard: SecondaryMap<Block, Option<Rejection>>,
    /// What a prover pays per instance, in constraints (0 under the
    /// threshold rule, which does not look at it).
    pub(crate) instance: u64,
}

impl BlockFacts {
    /// The facts of every block in the layout of `func`.
    pub fn new(func: &Function, model: &dyn CostModel) -> Self {
        let mut facts = BlockFacts::default();
        for block in func.layout.blocks() {
            facts.update(func, model, block);
        }
        facts
    }

    /// Recomputes the facts of `block`.
    pub fn update(&mut self, func: &Function, model: &dyn CostModel, block: Block) {
        let mut cost = 0u64;
        let mut predicates = 0u64;
        let mut hazard = None;
        for inst in func.layout.block_insts(block) {
            let data = &func.dfg[inst];
            cost = cost.saturating_add(model.instruction(func, inst));
            let found = match data {
                InstructionData::EnableSideEffects { .. } => {
                    predicates += 1;
                    None
                }
                InstructionData::Call { callee, .. } if callee.runs_unknown_code() => {
                    Some(Rejection::Call)
                }
                InstructionData::Allocate
                | InstructionData::Load { .. }
                | InstructionData::Store { .. } => Some(Rejection::Memory),
                InstructionData::Encode { .. }
                | InstructionData::Decode { .. }
                | InstructionData::ReduceNoise { .. } => Some(Rejection::Noise),
                InstructionData::Binary { lhs, .. }
                    if *func.dfg.value_type(*lhs) == kildall_ir::Type::Noisy =>
                {
                    Some(Rejection::Noise)
                }
                _ => None,
            };
            // A call is reported before anything else, as CoBBl does.
            if let Some(found) = found {
                if hazard.is_none() || found == Rejection::Call {
                    hazard = Some(found);
                }
            }
        }
        self.insts_cost[block] = cost;
        self.merged_cost[block] = cost.saturating_add(predicates.saturating_mul(model.predicate()));
        self.params_cost[block] = func
            .dfg
            .block_params(block)
            .iter()
            .map(|&p| model.block_param(func, p))
            .fold(0, u64::saturating_add);
        self.hazard[block] = hazard;
    }

    /// The constraints of `block`, instructions and parameters, as
    /// [`CostModel::block`] counts them.
    pub fn block_cost(&self, block: Block) -> u64 {
        self.insts_cost[block].saturating_add(self.params_cost[block])
    }

    /// What one execution of `block` costs a prover unmerged: its
    /// constraints and an instance.
    pub fn unmerged(&self, block: Block) -> u64 {
        self.block_cost(block).saturating_add(self.instance)
    }
}
