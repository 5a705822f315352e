//! The pruning of the candidate parameters to those some load needs.

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::DominatorTree;
use kildall_ir::{Block, EntityRef, Function};

use super::{num_blocks, Cells, Kind, Rows};

/// What a variable holds during the pruning walk: nothing yet, a value
/// defined by a store, or candidate parameter `k`.
const UNDEFINED: u32 = u32::MAX;
const STORED: u32 = u32::MAX - 1;

/// Which candidate parameters `phis` (sorted by block, then slot) some load
/// needs, directly or through other parameters. A slot whose needed
/// parameter sits in a block with an unreachable predecessor (the renaming
/// cannot pass it an argument there), or receives no value on some edge, is
/// withdrawn from `promoted`.
pub(super) fn live_phis(
    func: &Function,
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
    cells: &Cells,
    promoted: &mut [bool],
    phis: &[(Block, u32)],
) -> Vec<bool> {
    let n = num_blocks(func, cfg);
    // The candidates of each block.
    let of = Rows::group(
        n,
        phis.iter()
            .enumerate()
            .map(|(k, &(b, _))| (b.index(), k as u32)),
        0,
    );
    let mut current = vec![UNDEFINED; promoted.len()];
    let mut undo: Vec<(u32, u32)> = Vec::new();
    let mut live = vec![false; phis.len()];
    let mut work: Vec<u32> = Vec::new();
    // (parameter, what its argument is) for every edge into its block.
    let mut incoming: Vec<(usize, u32)> = Vec::new();
    let mut stack: Vec<(Block, bool)> = vec![(domtree.root().expect("entry reachable"), true)];
    let mut marks: Vec<usize> = Vec::new();
    while let Some((block, enter)) = stack.pop() {
        if !enter {
            let mark = marks.pop().expect("mark");
            while undo.len() > mark {
                let (s, old) = undo.pop().expect("undo entry");
                current[s as usize] = old;
            }
            continue;
        }
        marks.push(undo.len());
        for &k in of.row(block.index()) {
            let s = phis[k as usize].1 as usize;
            undo.push((s as u32, current[s]));
            current[s] = k;
        }
        for &(_, s, kind) in cells.by_block.row(block.index()) {
            let s = s as usize;
            if !promoted[s] {
                continue;
            }
            match kind {
                Kind::Alloc => {
                    undo.push((s as u32, current[s]));
                    current[s] = UNDEFINED;
                }
                Kind::Store => {
                    undo.push((s as u32, current[s]));
                    current[s] = STORED;
                }
                Kind::Load | Kind::Lend | Kind::CondStore => {
                    // A store under a predicate reads the value only if
                    // something reads the cell at all.
                    let c = current[s];
                    let reads = kind != Kind::CondStore || cells.slots[s].read;
                    if reads && c < STORED && !live[c as usize] {
                        live[c as usize] = true;
                        work.push(c);
                    }
                    if kind == Kind::CondStore {
                        undo.push((s as u32, c));
                        current[s] = STORED;
                    }
                }
                Kind::Rc => {}
            }
        }
        for &succ in cfg.successors(block) {
            for &k in of.row(succ.index()) {
                incoming.push((k as usize, current[phis[k as usize].1 as usize]));
            }
        }
        stack.push((block, false));
        for child in domtree.children(block) {
            stack.push((child, true));
        }
    }
    // Group the arguments by parameter and mark from the loads.
    let args = Rows::group(phis.len(), incoming.into_iter(), 0u32);
    while let Some(k) = work.pop() {
        for &c in args.row(k as usize) {
            if c < STORED && !live[c as usize] {
                live[c as usize] = true;
                work.push(c);
            }
        }
    }
    for (k, &(b, s)) in phis.iter().enumerate() {
        if !live[k] {
            continue;
        }
        // FIXME: an unreachable predecessor could pass any value of the type
        // (a zero constant) instead of blocking the promotion.
        if args.row(k).contains(&UNDEFINED)
            || cfg.predecessors(b).iter().any(|&p| !cfg.is_reachable(p))
        {
            promoted[s as usize] = false;
        }
    }
    live
}
