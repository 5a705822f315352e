//! What an execution costs a per-block prover: the blocks a run executes,
//! its transitions, and its padded constraint cost.
//!
//! The interpreter exposes no hook per block, so a copy of the module is
//! instrumented: every block starts with a `call print` of a marker and the
//! block's number (a block starts under predicate 1, so the print always
//! runs), and the marked lines of the output are the trace. The outcome is
//! taken from a run of the module as given.

use kildall_interpreter::{interpret, Execution, InterpreterOptions, RuntimeValue};
use kildall_ir::{Block, Builtin, ConstValue, FuncCursor, FuncId, Module, Type};

use crate::cost::CostModel;

/// The type of the marker: a width no generated or hand-written program
/// prints in practice.
const MARKER_TYPE: Type = Type::Unsigned(127);
const MARKER: u128 = 0x006b_696c_6461_6c6c;

/// A run and what it costs a per-block prover.
#[derive(Clone, Debug)]
pub struct TraceCost {
    /// The run of the module as given.
    pub execution: Execution,
    /// The blocks executed, in order, with their functions.
    pub blocks: Vec<(FuncId, Block)>,
    /// Executed blocks.
    pub executed_blocks: u64,
    /// Transitions: every executed block after the first is entered by one
    /// (a jump, a call or a return).
    pub transitions: u64,
    /// The sum over executed blocks of the next power of two of their
    /// constraints: what a prover with one instance size per block pays.
    pub padded_cost: u64,
}

/// Runs `function` of `module` on `args` and measures its block trace.
pub fn trace(
    module: &Module,
    function: FuncId,
    args: Vec<RuntimeValue>,
    options: &InterpreterOptions,
    model: &dyn CostModel,
) -> TraceCost {
    let execution = interpret(module, function, args.clone(), options);
    let mut instrumented = module.clone();
    for (id, func) in instrumented.functions.iter_mut() {
        let blocks: Vec<Block> = func.layout.blocks().collect();
        for block in blocks {
            let marker = func
                .dfg
                .constant(ConstValue::from_u128(MARKER), MARKER_TYPE);
            let f = func.dfg.constant_u128(u128::from(id.as_u32()), Type::U32);
            let b = func
                .dfg
                .constant_u128(u128::from(block.as_u32()), Type::U32);
            let mut cursor = FuncCursor::new(func);
            cursor.goto_top(block);
            cursor.call_builtin(Builtin::Print, vec![marker, f, b], &[]);
        }
    }
    let mut instrumented_options = options.clone();
    instrumented_options.fuel = options.fuel.saturating_mul(2);
    let run = interpret(&instrumented, function, args, &instrumented_options);
    let prefix = format!("{}, ", RuntimeValue::unsigned(127, MARKER));
    let mut blocks = Vec::new();
    for line in &run.output {
        let Some(rest) = line.strip_prefix(&prefix) else {
            continue;
        };
        let numbers: Vec<u32> = rest
            .split(", ")
            .filter_map(|part| part.strip_prefix("u32 ")?.parse().ok())
            .collect();
        if let [f, b] = numbers[..] {
            blocks.push((FuncId::from_u32(f), Block::from_u32(b)));
        }
    }
    let padded_cost = blocks
        .iter()
        .map(|&(f, b)| {
            model
                .block(&module.functions[f], b)
                .checked_next_power_of_two()
                .unwrap_or(u64::MAX)
        })
        .fold(0, u64::saturating_add);
    let executed_blocks = blocks.len() as u64;
    TraceCost {
        execution,
        blocks,
        executed_blocks,
        transitions: executed_blocks.saturating_sub(1),
        padded_cost,
    }
}
