//! Promotion of allocations whose address never escapes to SSA values carried
//! in block parameters.
//!
//! An allocation is *promotable* when its reference is used only as the
//! address of `load` and `store` (or by `inc_rc`/`dec_rc`, which have no
//! effect): no other reference can then point to its cell, so the cell is a
//! plain variable. Its stores are definitions, its loads uses, and SSA
//! construction places block parameters at the iterated dominance frontier of
//! the stores (Cytron, Ferrante, Rosen, Wegman and Zadeck, "Efficiently
//! Computing Static Single Assignment Form and the Control Dependence Graph",
//! TOPLAS 1991), pruned to the blocks where the variable is live (Choi,
//! Cytron and Ferrante 1991), and renames along the dominator tree.
//!
//! Traps are preserved by refusing, not by reasoning about them: a `load` of
//! a never-stored cell traps in the interpreter, and an SSA value cannot trap
//! when read. So an allocation is promoted only when every `load` of it is
//! *definitely initialised*: every path from the `allocate` to the load
//! passes an unconditional `store` (one not under an `enable_side_effects`
//! predicate that may be 0). The check walks forward from the allocation
//! until stores end each path, so its cost is the size of that uninitialised
//! region. Allocations with a store under a non-constant predicate are left
//! to the alias-aware forwarding, as are those with accesses in unreachable
//! blocks or needing a parameter in a block with an unreachable predecessor.
//!
//! All work tables are indexed by block and stamped per allocation, so the
//! pass allocates nothing per allocation and runs in time linear in the
//! function plus the uninitialised and live regions of the promoted cells.
//!
//! FIXME(perf): cells live across a whole function make the liveness walks
//! cost cells × blocks; constructing SSA on demand from the loads (Braun et
//! al. 2013) would bound the work by the phis actually needed.

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominanceFrontiers, DominatorTree};
use kildall_ir::{
    Block, EntityRef, Function, Inst, InstructionData, SecondaryMap, Terminator, Type, Value,
};

use crate::Stats;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Alloc,
    Load,
    Store,
    /// `inc_rc` / `dec_rc`: removed with the allocation, otherwise ignored.
    Rc,
}

struct Slot {
    ty: Type,
    ok: bool,
}

const NONE: u32 = u32::MAX;

/// Promotes every promotable allocation of `func`. Returns whether a load
/// of a reference was replaced, which may enable more promotion.
pub(crate) fn promote(func: &mut Function, stats: &mut Stats) -> bool {
    let cfg = ControlFlowGraph::with_function(func);
    let Some(_) = cfg.entry_block() else {
        return false;
    };
    // 1. Candidates: allocations in reachable blocks.
    let mut slot_of: SecondaryMap<Value, u32> = SecondaryMap::with_default(NONE);
    let mut slots: Vec<Slot> = Vec::new();
    for block in cfg.reverse_postorder() {
        for inst in func.layout.block_insts(block) {
            if let InstructionData::Allocate = func.dfg[inst] {
                let Some(r) = func.dfg.first_result(inst) else {
                    continue;
                };
                let Some(ty) = func.dfg.value_type(r).pointee().cloned() else {
                    continue;
                };
                slot_of[r] = slots.len() as u32;
                slots.push(Slot { ty, ok: true });
            }
        }
    }
    if slots.is_empty() {
        return false;
    }
    // 2. Accesses, in layout order, and escapes.
    let mut accesses: Vec<(u32, Block, Inst, Kind)> = Vec::new();
    for block in func.layout.blocks() {
        let reachable = cfg.is_reachable(block);
        let mut predicate_one = true;
        for inst in func.layout.block_insts(block) {
            let data = &func.dfg[inst];
            let mut kind_of = |v: Value, kind: Option<Kind>, slots: &mut Vec<Slot>| {
                let s = slot_of[v];
                if s == NONE {
                    return;
                }
                match kind {
                    Some(kind) if reachable => accesses.push((s, block, inst, kind)),
                    _ => slots[s as usize].ok = false,
                }
            };
            match data {
                InstructionData::EnableSideEffects { condition } => {
                    predicate_one = func
                        .dfg
                        .const_value(*condition)
                        .is_some_and(|c| c.0 == [1, 0, 0, 0]);
                }
                InstructionData::Allocate => {
                    if let Some(r) = func.dfg.first_result(inst) {
                        kind_of(r, Some(Kind::Alloc), &mut slots);
                    }
                }
                InstructionData::Load { address } => {
                    kind_of(*address, Some(Kind::Load), &mut slots);
                }
                InstructionData::Store { value, address } => {
                    kind_of(*value, None, &mut slots);
                    // FIXME: a store under a predicate could become
                    // `v = if c then value else current` when the cell is
                    // initialised before it; such cells are not promoted yet.
                    let kind = predicate_one.then_some(Kind::Store);
                    kind_of(*address, kind, &mut slots);
                }
                InstructionData::IncRc { arg } | InstructionData::DecRc { arg } => {
                    kind_of(*arg, Some(Kind::Rc), &mut slots);
                }
                other => {
                    for &v in other.arguments().as_slice() {
                        kind_of(v, None, &mut slots);
                    }
                }
            }
        }
        if let Some(term) = func.dfg.terminator(block) {
            for &v in term.arguments() {
                let s = slot_of[v];
                if s != NONE {
                    slots[s as usize].ok = false;
                }
            }
        }
    }
    // Group the accesses by slot, keeping layout order within a slot.
    let mut start = vec![0u32; slots.len() + 1];
    for a in &accesses {
        start[a.0 as usize + 1] += 1;
    }
    for i in 0..slots.len() {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut grouped = vec![(Block::new(0), Inst::new(0), Kind::Rc); accesses.len()];
    for &(s, b, i, k) in &accesses {
        grouped[fill[s as usize] as usize] = (b, i, k);
        fill[s as usize] += 1;
    }
    drop(accesses);

    let domtree = DominatorTree::with_cfg(&cfg);
    let mut df = DominanceFrontiers::new();
    let mut df_computed = false;

    // 3. Per slot: initialisation check, liveness, parameter placement.
    let n = cfg.num_block_indices().max(func.dfg.num_blocks());
    let mut access_stamp = vec![NONE; n];
    let mut first_kind = vec![Kind::Rc; n];
    let mut has_def = vec![false; n];
    let mut visit_stamp = vec![NONE; n];
    let mut live_stamp = vec![NONE; n];
    let mut idf_stamp = vec![NONE; n];
    let mut work: Vec<Block> = Vec::new();
    let mut defs: Vec<Block> = Vec::new();
    let mut phis: Vec<(Block, u32)> = Vec::new();
    let mut slot_phis: Vec<Block> = Vec::new();
    let mut promoted = vec![false; slots.len()];
    for s in 0..slots.len() {
        if !slots[s].ok {
            continue;
        }
        let stamp = s as u32;
        let list = &grouped[start[s] as usize..start[s + 1] as usize];
        // Per block: first access (ignoring rc), whether it defines.
        let mut alloc_block = None;
        let mut after_alloc: Option<Kind> = None;
        let mut seen_alloc = false;
        defs.clear();
        for &(b, _, k) in list {
            let bi = b.index();
            if access_stamp[bi] != stamp {
                access_stamp[bi] = stamp;
                first_kind[bi] = Kind::Rc;
                has_def[bi] = false;
            }
            if k == Kind::Rc {
                continue;
            }
            if seen_alloc && after_alloc.is_none() && Some(b) == alloc_block {
                after_alloc = Some(k);
            }
            if k == Kind::Alloc {
                alloc_block = Some(b);
                seen_alloc = true;
            }
            if first_kind[bi] == Kind::Rc {
                first_kind[bi] = k;
            }
            if matches!(k, Kind::Alloc | Kind::Store) && !has_def[bi] {
                has_def[bi] = true;
                defs.push(b);
            }
        }
        let Some(alloc_block) = alloc_block else {
            continue;
        };
        // Definitely initialised: no load in the region reachable from the
        // allocation before a store.
        let mut ok = true;
        work.clear();
        match after_alloc {
            Some(Kind::Load) => ok = false,
            Some(_) => {}
            None => work.extend(cfg.successors(alloc_block)),
        }
        while ok {
            let Some(b) = work.pop() else { break };
            let bi = b.index();
            if visit_stamp[bi] == stamp {
                continue;
            }
            visit_stamp[bi] = stamp;
            let kind = if access_stamp[bi] == stamp {
                first_kind[bi]
            } else {
                Kind::Rc
            };
            match kind {
                Kind::Load => ok = false,
                Kind::Store | Kind::Alloc => {}
                Kind::Rc => work.extend(cfg.successors(b)),
            }
        }
        if !ok {
            continue;
        }
        // Liveness of the variable: backward from upward-exposed loads.
        work.clear();
        for &(b, _, _) in list {
            let bi = b.index();
            if first_kind[bi] == Kind::Load && live_stamp[bi] != stamp {
                live_stamp[bi] = stamp;
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &p in cfg.predecessors(b) {
                let pi = p.index();
                let defines = access_stamp[pi] == stamp && has_def[pi];
                if live_stamp[pi] != stamp && !defines {
                    live_stamp[pi] = stamp;
                    work.push(p);
                }
            }
        }
        // Parameters at the iterated dominance frontier of the definitions,
        // where the variable is live.
        if !df_computed {
            df.compute(&cfg, &domtree);
            df_computed = true;
        }
        slot_phis.clear();
        work.clear();
        work.extend(defs.iter().copied());
        while let Some(b) = work.pop() {
            for &j in df.frontier(b) {
                let ji = j.index();
                if idf_stamp[ji] == stamp {
                    continue;
                }
                idf_stamp[ji] = stamp;
                work.push(j);
                if live_stamp[ji] == stamp {
                    slot_phis.push(j);
                }
            }
        }
        // Every predecessor of a parameter's block must pass an argument; the
        // renaming only visits reachable blocks.
        // FIXME: an unreachable predecessor could pass any value of the type
        // (a zero constant) instead of blocking the promotion.
        if slot_phis
            .iter()
            .any(|&j| cfg.predecessors(j).iter().any(|&p| !cfg.is_reachable(p)))
        {
            continue;
        }
        promoted[s] = true;
        phis.extend(slot_phis.iter().map(|&j| (j, s as u32)));
    }
    if !promoted.iter().any(|&p| p) {
        return false;
    }
    let mut enabling = false;

    // 4. Block parameters, grouped by block in slot order.
    phis.sort_unstable_by_key(|&(b, s)| (b.index(), s));
    let mut phi_start: SecondaryMap<Block, u32> = SecondaryMap::with_default(NONE);
    let mut phi_params: Vec<(u32, Value)> = Vec::with_capacity(phis.len());
    let mut phi_end: SecondaryMap<Block, u32> = SecondaryMap::with_default(0);
    for &(b, s) in &phis {
        if phi_start[b] == NONE {
            phi_start[b] = phi_params.len() as u32;
        }
        let ty = slots[s as usize].ty.clone();
        let p = func.dfg.append_block_param(b, ty);
        phi_params.push((s, p));
        phi_end[b] = phi_params.len() as u32;
    }
    let phis_of = |b: Block| -> std::ops::Range<usize> {
        let lo = phi_start[b];
        if lo == NONE {
            0..0
        } else {
            lo as usize..phi_end[b] as usize
        }
    };

    // 5. Renaming along the dominator tree.
    let mut current: Vec<Option<Value>> = vec![None; slots.len()];
    let mut undo: Vec<(u32, Option<Value>)> = Vec::new();
    enum Step {
        Enter(Block),
        Exit(usize),
    }
    let mut stack = vec![Step::Enter(domtree.root().expect("entry reachable"))];
    let mut insts: Vec<Inst> = Vec::new();
    let is_promoted = |v: Value, slot_of: &SecondaryMap<Value, u32>| -> Option<u32> {
        let s = slot_of[v];
        (s != NONE && promoted[s as usize]).then_some(s)
    };
    while let Some(step) = stack.pop() {
        let block = match step {
            Step::Exit(mark) => {
                while undo.len() > mark {
                    let (s, old) = undo.pop().expect("undo entry");
                    current[s as usize] = old;
                }
                continue;
            }
            Step::Enter(block) => block,
        };
        let mark = undo.len();
        for &(s, p) in &phi_params[phis_of(block)] {
            undo.push((s, current[s as usize]));
            current[s as usize] = Some(p);
        }
        insts.clear();
        insts.extend(func.layout.block_insts(block));
        for &inst in &insts {
            match func.dfg[inst] {
                InstructionData::Allocate => {
                    let r = func.dfg.first_result(inst);
                    if let Some(s) = r.and_then(|r| is_promoted(r, &slot_of)) {
                        undo.push((s, current[s as usize]));
                        current[s as usize] = None;
                        func.remove_inst(inst);
                        stats.allocations_removed += 1;
                    }
                }
                InstructionData::Store { value, address } => {
                    if let Some(s) = is_promoted(address, &slot_of) {
                        undo.push((s, current[s as usize]));
                        current[s as usize] = Some(func.dfg.resolve(value));
                        func.remove_inst(inst);
                        stats.stores_removed += 1;
                    }
                }
                InstructionData::Load { address } => {
                    if let Some(s) = is_promoted(address, &slot_of) {
                        let value =
                            current[s as usize].expect("a promoted load is definitely initialised");
                        let result = func.dfg.first_result(inst);
                        func.remove_inst(inst);
                        if let Some(result) = result {
                            enabling |= func.dfg.value_type(result).contains_reference();
                            func.dfg.replace_all_uses(result, value);
                        }
                        stats.loads_replaced += 1;
                    }
                }
                InstructionData::IncRc { arg } | InstructionData::DecRc { arg }
                    if is_promoted(arg, &slot_of).is_some() =>
                {
                    func.remove_inst(inst);
                }
                _ => {}
            }
        }
        // Arguments for the successors' new parameters.
        let args_for = |dest: Block, current: &[Option<Value>]| -> Vec<Value> {
            phi_params[phis_of(dest)]
                .iter()
                .map(|&(s, _)| {
                    current[s as usize].expect("a live variable is defined on every edge")
                })
                .collect()
        };
        let term = func.dfg.terminator(block).cloned();
        match term {
            Some(Terminator::Jmp { destination, .. }) => {
                let extra = args_for(destination, &current);
                if let Some(Terminator::Jmp { arguments, .. }) = func.dfg.terminator_mut(block) {
                    arguments.extend(extra);
                }
            }
            Some(Terminator::JmpIf {
                condition,
                then_destination,
                else_destination,
            }) => {
                // A `jmpif` passes no arguments: split the edge with a block
                // that jumps with them.
                let split = |dest: Block, func: &mut Function| -> Block {
                    let extra = args_for(dest, &current);
                    if extra.is_empty() {
                        return dest;
                    }
                    let edge = func.dfg.make_block();
                    func.layout.insert_block_after(edge, block);
                    func.dfg.set_terminator(
                        edge,
                        Terminator::Jmp {
                            destination: dest,
                            arguments: extra,
                        },
                    );
                    edge
                };
                let new_then = split(then_destination, func);
                let new_else = if else_destination == then_destination {
                    new_then
                } else {
                    split(else_destination, func)
                };
                func.dfg.set_terminator(
                    block,
                    Terminator::JmpIf {
                        condition,
                        then_destination: new_then,
                        else_destination: new_else,
                    },
                );
            }
            _ => {}
        }
        stack.push(Step::Exit(mark));
        for child in domtree.children(block) {
            stack.push(Step::Enter(child));
        }
    }
    enabling
}
