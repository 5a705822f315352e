//! The walk over a function's blocks in layout order that checks each
//! instruction and terminator: the dominance of its operands, its types,
//! and the facts of the unwritten-load check.
//!
//! What the walk checks at a block depends on nothing but that block, the
//! CFG and the dominator tree: a use in the block of its definition is
//! dominated when the walk got to the definition first, any other use when
//! the definition's block dominates the use's; whether a load is fresh is
//! decided in its block, and which cells are written is a union. So the
//! walk of a function of many instructions is cut into contiguous ranges of
//! whole layout blocks ([`layout_ranges`]), walked apart on several threads
//! against the one CFG and dominator tree, each with its own facts, and the
//! outcomes are taken back in layout order: the first range with an error
//! gives it, which is the error a single walk would have met first, and
//! otherwise the ranges' unwritten-load facts are judged together, as one
//! walk's would be.
//!
//! A function's ranges run inside the function's own piece of the module's
//! schedule: the functions are still taken largest first, each whole, and a
//! large function's ranges share the cores with the smaller functions the
//! other threads check meanwhile, instead of leaving them idle while one
//! thread walks it. There are a few ranges per thread, so that a thread
//! slowed by other work holds the rest back by a small range only. Which
//! thread walks which range never changes the result.

use cranelift_entity::EntitySet;

use super::insts::{check_inst, check_terminator};
use super::unwritten::{CellFacts, UnwrittenLoads};
use super::{Ctx, Location, VerifierError, VerifierErrorKind};
use crate::dominators::DominatorTree;
use crate::parallel::PARALLEL_MIN_WEIGHT;
use crate::{Block, Function, Inst, Value, ValueDef};

/// The walk over a range of blocks in layout order, checking each
/// instruction and terminator; buffers reused from one range to the next.
#[derive(Default)]
pub(super) struct BlockWalk {
    /// The instructions of the range the walk has checked: a definition in
    /// the block of its use dominates the use exactly when the walk, in
    /// layout order, got to it first (no walk of its own to number the
    /// instructions).
    walked: EntitySet<Inst>,
    unwritten_loads: UnwrittenLoads,
}

/// `len` consecutive blocks of a function's layout from `first`.
#[derive(Clone, Copy)]
pub(super) struct BlockRange {
    first: Block,
    len: usize,
    /// Its instructions and terminators: the work of walking it.
    pub(super) weight: usize,
}

/// A walk in ranges gives each range this many instructions or more:
/// fewer would cost more in threads than they save.
const MIN_RANGE_WEIGHT: usize = PARALLEL_MIN_WEIGHT;

/// Ranges per thread: a few, so that a thread slowed by other work holds
/// the others back by a small range only.
const RANGES_PER_THREAD: usize = 4;

/// The layout of `func` cut into ranges of about equal weight for
/// `threads` threads: one range for a small function or one thread.
pub(super) fn layout_ranges(func: &Function, threads: usize) -> Vec<BlockRange> {
    let layout = &func.layout;
    let weight = |block| layout.block_len(block) + 1;
    let total: usize = layout.blocks().map(weight).sum();
    let count = (threads * RANGES_PER_THREAD)
        .min(total / MIN_RANGE_WEIGHT)
        .max(1);
    let mut ranges: Vec<BlockRange> = Vec::with_capacity(count);
    let mut walked = 0;
    for block in layout.blocks() {
        // Range `k` ends once the walk has covered `k + 1` shares of the total.
        let share_end = total * ranges.len() / count;
        match ranges.last_mut() {
            Some(range) if walked < share_end => {
                range.len += 1;
                range.weight += weight(block);
            }
            _ => ranges.push(BlockRange {
                first: block,
                len: 1,
                weight: weight(block),
            }),
        }
        walked += weight(block);
    }
    ranges
}

impl BlockWalk {
    /// Checks the instructions and terminators of `range`, in layout order,
    /// and gives its unwritten-load facts, or its first error.
    pub(super) fn walk(
        &mut self,
        cx: &Ctx<'_>,
        domtree: &DominatorTree,
        range: BlockRange,
    ) -> Result<CellFacts, VerifierError> {
        let (layout, dfg) = (&cx.func.layout, &cx.func.dfg);
        self.walked.clear();
        self.unwritten_loads.start();
        let blocks = std::iter::successors(Some(range.first), |&b| layout.next_block(b));
        for block in blocks.take(range.len) {
            for inst in layout.block_insts(block) {
                let at = Location::Inst(inst);
                for &arg in dfg[inst].arguments().as_slice() {
                    self.check_use(cx, domtree, arg, block, at)?;
                }
                check_inst(cx, inst)?;
                self.unwritten_loads.inst(dfg, block, inst);
                self.walked.insert(inst);
            }
            let terminator = dfg.terminator(block).expect("checked before the walk");
            let at = Location::Block(block);
            for &arg in terminator.arguments() {
                self.check_use(cx, domtree, arg, block, at)?;
            }
            check_terminator(cx, block, terminator)?;
            self.unwritten_loads
                .terminator_args(dfg, terminator.arguments());
        }
        Ok(self.unwritten_loads.take_facts())
    }

    /// Checks that `value`, used in `block` by the instruction (or the
    /// terminator) the walk is at, is defined and dominates the use.
    fn check_use(
        &self,
        cx: &Ctx<'_>,
        domtree: &DominatorTree,
        value: Value,
        block: Block,
        at: Location,
    ) -> Result<(), VerifierError> {
        let func = cx.func;
        let dfg = &func.dfg;
        let undefined = || cx.error(at, VerifierErrorKind::UndefinedValue(value));
        if !dfg.value_is_valid(value) {
            return Err(undefined());
        }
        let resolved = dfg.resolve(value);
        let (def_block, def_walked) = match dfg.value_def(resolved) {
            ValueDef::Const(c) => {
                let ty = dfg.value_type(resolved);
                return if crate::parser::constant_fits(ty, c) {
                    Ok(())
                } else {
                    Err(cx.error(
                        at,
                        VerifierErrorKind::ConstantOutOfRange {
                            value: c,
                            ty: ty.clone(),
                        },
                    ))
                };
            }
            ValueDef::Global(_) => return Ok(()),
            ValueDef::Function(id) => {
                let known = cx
                    .signatures
                    .is_none_or(|s| (id.as_u32() as usize) < s.len());
                return if known {
                    Ok(())
                } else {
                    Err(cx.error(at, VerifierErrorKind::UnknownCallee(id)))
                };
            }
            ValueDef::Unused | ValueDef::Alias(_) => return Err(undefined()),
            ValueDef::Param(def_block, _) => {
                if !func.layout.is_block_inserted(def_block) {
                    return Err(undefined());
                }
                (def_block, None)
            }
            ValueDef::Result(inst, _) => match func.layout.inst_block(inst) {
                Some(def_block) => (def_block, Some(self.walked.contains(inst))),
                None => {
                    return Err(cx.error(
                        at,
                        VerifierErrorKind::DefinitionNotInLayout {
                            value: resolved,
                            inst,
                        },
                    ))
                }
            },
        };
        if !domtree.is_reachable(block) {
            return Ok(());
        }
        let dominated = if def_block == block {
            def_walked.is_none_or(|walked| walked)
        } else {
            domtree.dominates(def_block, block)
        };
        if dominated {
            Ok(())
        } else {
            Err(cx.error(at, VerifierErrorKind::NotDominated(value)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_function;

    /// A chain of `blocks` blocks of `insts` instructions each.
    fn chain(blocks: usize, insts: usize) -> Function {
        let mut text = String::from("fn main f0 {\n");
        for b in 0..blocks {
            text.push_str(&format!("  b{b}(v{b}: u32):\n"));
            for i in 0..insts {
                text.push_str(&format!(
                    "    v{} = add v{b}, u32 1\n",
                    (blocks + 1) * (i + 1) + b
                ));
            }
            text.push_str(&format!("    jmp b{}(v{b})\n", b + 1));
        }
        text.push_str(&format!(
            "  b{blocks}(v{blocks}: u32):\n    return v{blocks}\n}}\n"
        ));
        parse_function(&text).unwrap()
    }

    /// The blocks `ranges` cover, in order.
    fn covered(func: &Function, ranges: &[BlockRange]) -> Vec<Block> {
        let next = |&b: &Block| func.layout.next_block(b);
        ranges
            .iter()
            .flat_map(|r| std::iter::successors(Some(r.first), next).take(r.len))
            .collect()
    }

    #[test]
    fn ranges_cover_the_layout_in_order_with_about_equal_weights() {
        let func = chain(1000, 99);
        let blocks: Vec<Block> = func.layout.blocks().collect();
        for threads in [0, 1, 2, 3, 8] {
            let ranges = layout_ranges(&func, threads);
            assert_eq!(covered(&func, &ranges), blocks, "{threads} threads");
            // A hundred per block, and the last block's `return`.
            let total: usize = ranges.iter().map(|r| r.weight).sum();
            assert_eq!(total, 100_001);
            let expected = (threads * RANGES_PER_THREAD).clamp(1, total / MIN_RANGE_WEIGHT);
            assert_eq!(ranges.len(), expected, "{threads} threads");
            for range in &ranges {
                assert!(
                    range.weight.abs_diff(total / ranges.len()) <= 100,
                    "{threads} threads"
                );
            }
        }
    }

    #[test]
    fn a_small_function_is_one_range() {
        let func = chain(10, 10);
        let ranges = layout_ranges(&func, 8);
        assert_eq!(ranges.len(), 1);
        assert_eq!(
            covered(&func, &ranges),
            func.layout.blocks().collect::<Vec<_>>()
        );
    }
}
