//! Constraint estimates: how many constraints a backend spends on each
//! instruction and block, the input of the merge threshold and of the
//! component sizes (CoBBl's block-merging design, "Estimate Constraints & Merge Threshold").
//!
//! The design counts constraints by lowering blocks to R1CS. Backends differ,
//! so the count is a [`CostModel`] the caller supplies; [`R1cs`] is the
//! documented default.

use kildall_ir::flat::{self, Indexing};
use kildall_ir::{BinaryOp, Block, Function, Inst, InstructionData, Type, Value};

/// What a backend pays, in constraints, for the parts of a block.
///
/// A block costs the sum of its instructions plus one
/// [`block_param`](Self::block_param) per parameter (the transition state a
/// per-block prover checks for consistency); terminators are free. The
/// merge estimates additionally price the instructions flattening creates:
/// one [`if_merge`](Self::if_merge) per replaced join parameter and
/// incoming edge beyond the first, and one [`predicate`](Self::predicate)
/// per arm predicate or rewritten `enable_side_effects`.
pub trait CostModel: Send + Sync {
    /// The constraints of `inst` in `func`.
    fn instruction(&self, func: &Function, inst: Inst) -> u64;

    /// The constraints of carrying `param` across a block transition.
    fn block_param(&self, func: &Function, param: Value) -> u64 {
        let _ = (func, param);
        1
    }

    /// The constraints of one `if c then x else y` of type `ty`.
    fn if_merge(&self, ty: &Type) -> u64 {
        let _ = ty;
        1
    }

    /// The constraints of the `and` that combines two `u1` predicates.
    fn predicate(&self) -> u64 {
        1
    }

    /// The constraints of `block`: its instructions and parameters.
    fn block(&self, func: &Function, block: Block) -> u64 {
        let insts: u64 = func
            .layout
            .block_insts(block)
            .map(|inst| self.instruction(func, inst))
            .fold(0, u64::saturating_add);
        func.dfg
            .block_params(block)
            .iter()
            .map(|&p| self.block_param(func, p))
            .fold(insts, u64::saturating_add)
    }
}

/// The default rank-1 constraint system model (the costs listed in the module documentation).
///
/// | instruction | constraints |
/// |---|---|
/// | `Field` `add`, `sub`, `unchecked_*`, `not`, `make_array`, `enable_side_effects`, memory, calls, `inc_rc`/`dec_rc`, noise ops | 0 (linear, or paid elsewhere) |
/// | `Field` `mul`, `div` | 1 when both operands are non-constant (`div`: when the divisor is), else 0 |
/// | checked `uN`/`iN` `add sub mul div mod` | 1 + N (the operation and a range check of the result) |
/// | `unchecked_add unchecked_sub unchecked_mul` on `uN`/`iN` | 1 + N (the operation and the decomposition that wraps) |
/// | `lt` | N + 1 on `uN`/`iN`, 255 on `Field` |
/// | `eq` | 2 |
/// | `and or xor` | 1 on `u1`; 2N + 1 on wider integers (both operands decomposed) |
/// | `shl shr` | N + 1 |
/// | `constrain` | 1 for `==`, 2 for `!=` (an inverse witness) |
/// | `range_check v to N bits` | N |
/// | `cast v as T` | the bits of `T` when `T` is an integer, else 0 |
/// | `truncate v to N bits` | N |
/// | `if` merge | 1 |
/// | `array_get`, `array_set` | 0 at a constant index, the array's flattened length at a dynamic one (its leaf count at a flat index of nested arrays) |
/// | block parameter | 1 |
#[derive(Copy, Clone, Debug, Default)]
pub struct R1cs;

/// The bits of the integer type of `v` (Field counts as 254 bits).
fn bits(func: &Function, v: Value) -> u64 {
    match func.dfg.value_type(v) {
        Type::Unsigned(n) | Type::Signed(n) => u64::from(*n),
        Type::Field => 254,
        _ => 0,
    }
}

impl CostModel for R1cs {
    fn instruction(&self, func: &Function, inst: Inst) -> u64 {
        let dfg = &func.dfg;
        let is_const = |v: Value| dfg.const_value(v).is_some();
        match &dfg[inst] {
            InstructionData::Binary { op, lhs, rhs } => {
                let field = *dfg.value_type(*lhs) == Type::Field;
                let n = bits(func, *lhs);
                match op {
                    BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::UncheckedAdd
                    | BinaryOp::UncheckedSub
                        if field =>
                    {
                        0
                    }
                    BinaryOp::Mul | BinaryOp::UncheckedMul if field => {
                        u64::from(!is_const(*lhs) && !is_const(*rhs))
                    }
                    BinaryOp::Div if field => u64::from(!is_const(*rhs)),
                    BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::Mod
                    | BinaryOp::UncheckedAdd
                    | BinaryOp::UncheckedSub
                    | BinaryOp::UncheckedMul => 1 + n,
                    BinaryOp::Lt => n + 1,
                    BinaryOp::Eq => 2,
                    BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                        if n <= 1 {
                            1
                        } else {
                            2 * n + 1
                        }
                    }
                    BinaryOp::Shl | BinaryOp::Shr => n + 1,
                }
            }
            InstructionData::Constrain { equal, .. } => {
                if *equal {
                    1
                } else {
                    2
                }
            }
            InstructionData::RangeCheck { bits, .. } => u64::from(*bits),
            InstructionData::Cast { ty, .. } => ty.bit_size().map_or(0, u64::from),
            InstructionData::Truncate { bits, .. } => u64::from(*bits),
            InstructionData::IfElse { then_value, .. } => {
                self.if_merge(dfg.value_type(*then_value))
            }
            InstructionData::ArrayGet { array, index }
            | InstructionData::ArraySet { array, index, .. } => {
                let ty = dfg.value_type(*array);
                match (is_const(*index), func.array_indexing(inst)) {
                    (true, _) => 0,
                    (false, Indexing::Entry) => ty.flattened_len().unwrap_or(0),
                    (false, Indexing::Flat) => flat::leaf_count(ty).unwrap_or(0),
                }
            }
            InstructionData::Not { .. }
            | InstructionData::Allocate
            | InstructionData::Load { .. }
            | InstructionData::Store { .. }
            | InstructionData::MakeArray { .. }
            | InstructionData::EnableSideEffects { .. }
            | InstructionData::Call { .. }
            | InstructionData::Encode { .. }
            | InstructionData::Decode { .. }
            | InstructionData::ReduceNoise { .. }
            | InstructionData::IncRc { .. }
            | InstructionData::DecRc { .. }
            | InstructionData::Nop => 0,
        }
    }
}

/// A model that adds, to another model's constraints, the price of the
/// memory accesses an instruction makes for a separate memory check (a
/// read at a dynamic index; a load, store or allocation per element), in
/// constraints each: what a prover with a proven memory check pays per
/// access. A merge that turns a dynamic index into a constant saves it.
#[derive(Clone)]
pub struct WithAccesses {
    /// The constraints of the instructions themselves.
    pub model: std::sync::Arc<dyn CostModel>,
    /// The price of one access, in constraints.
    pub per_access: u64,
}

impl WithAccesses {
    /// The memory accesses `inst` makes.
    ///
    /// FIXME: the initialisation of an array read at a dynamic index (one
    /// write per element, once per distinct array) is not priced.
    pub fn accesses(func: &Function, inst: Inst) -> u64 {
        let dfg = &func.dfg;
        let flat = |ty: &Type| ty.flattened_len().unwrap_or(1);
        match &dfg[inst] {
            InstructionData::ArrayGet { index, .. } => u64::from(dfg.const_value(*index).is_none()),
            InstructionData::Load { .. } => dfg
                .first_result(inst)
                .map_or(0, |r| flat(dfg.value_type(r))),
            InstructionData::Store { value, .. } => flat(dfg.value_type(*value)),
            InstructionData::Allocate => dfg
                .first_result(inst)
                .and_then(|r| dfg.value_type(r).pointee().map(flat))
                .unwrap_or(0),
            _ => 0,
        }
    }
}

impl CostModel for WithAccesses {
    fn instruction(&self, func: &Function, inst: Inst) -> u64 {
        Self::accesses(func, inst)
            .saturating_mul(self.per_access)
            .saturating_add(self.model.instruction(func, inst))
    }

    fn block_param(&self, func: &Function, param: Value) -> u64 {
        self.model.block_param(func, param)
    }

    fn if_merge(&self, ty: &Type) -> u64 {
        self.model.if_merge(ty)
    }

    fn predicate(&self) -> u64 {
        self.model.predicate()
    }
}
