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
//! pass allocates nothing per allocation. Pruning needs no liveness walk per
//! variable (whose cost is the variable's whole live range, cells × blocks
//! on a long function): the candidate parameters at the iterated frontiers
//! are kept when a load needs them, found by one renaming walk that tracks
//! only parameter numbers, so the pass runs in time linear in the function
//! plus the uninitialised regions and the frontiers of the promoted cells.
//!
//! Promoting a cell removes its stores, and a stored reference to another
//! allocation may have been that allocation's only escaping use (nested
//! references). Such freed allocations are promoted in a second step from
//! the first walk's records (the stores of each value, the accesses through
//! each load result, the values passed to new parameters), which find
//! exactly what another walk over the rewritten function would, without
//! the walk.

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominanceFrontiers, DominatorTree};
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{
    Block, EntityRef, EntitySet, Function, Inst, InstructionData, SecondaryMap, Terminator, Type,
    Value, ValueDef,
};

use crate::{Renames, Stats};

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

/// The instructions accessing candidate cells, with the slot they access
/// and how, grouped by block in layout order (compressed rows indexed by
/// block). The walks along the dominator tree read these rather than the
/// instructions, which they would visit out of layout order (a cache miss
/// each on a large function).
struct BlockAccesses {
    start: Vec<u32>,
    insts: Vec<(Inst, u32, Kind)>,
}

impl BlockAccesses {
    fn of(&self, block: Block) -> &[(Inst, u32, Kind)] {
        match self.start.get(block.index()..block.index() + 2) {
            Some(&[lo, hi]) => &self.insts[lo as usize..hi as usize],
            _ => &[],
        }
    }
}

/// Promotes every promotable allocation of `func`. Returns whether a store
/// of an allocation's reference was removed: that reference lost a use
/// that made it escape, so its allocation may now be promotable.
///
/// `pending` holds the renames of earlier replacements, applied by the
/// first walk over the instructions.
pub(crate) fn promote(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    stats: &mut Stats,
    replaced: &mut Vec<Value>,
    pending: Option<Renames>,
) -> bool {
    let cfg = analyses.cfg(func);
    let Some(_) = cfg.entry_block() else {
        if let Some(renames) = pending {
            renames.apply(func);
        }
        return false;
    };
    // 1. One walk over the instructions: allocations, the accesses
    // (load and store addresses, rc counts), and every other use of a
    // value, which makes it escape if it turns out to be an allocation.
    let mut allocations: Vec<(u32, Value)> = Vec::new();
    let mut escaped = EntitySet::<Value>::new();
    let mut raw: Vec<(Value, Block, Inst, Kind)> = Vec::new();
    let mut stored: Vec<(Value, Inst)> = Vec::new();
    for block in func.layout.blocks() {
        let reachable = cfg.is_reachable(block);
        let mut predicate_one = true;
        for inst in func.layout.block_insts(block) {
            if let Some(renames) = &pending {
                renames.inst(&mut func.dfg, inst);
            }
            let mut access = |v: Value, kind: Option<Kind>| match kind {
                Some(kind) if reachable => raw.push((v, block, inst, kind)),
                _ => {
                    escaped.insert(v);
                }
            };
            match &func.dfg[inst] {
                InstructionData::EnableSideEffects { condition } => {
                    predicate_one = func
                        .dfg
                        .const_value(*condition)
                        .is_some_and(|c| c.0 == [1, 0, 0, 0]);
                }
                InstructionData::Allocate => {
                    if let Some(r) = func.dfg.first_result(inst) {
                        if let Some(po) = cfg.postorder_number(block) {
                            allocations.push((po, r));
                        }
                        access(r, Some(Kind::Alloc));
                    }
                }
                InstructionData::Load { address } => access(*address, Some(Kind::Load)),
                InstructionData::Store { value, address } => {
                    // Stored: escapes unless the store goes with a promoted
                    // cell (see `freed`).
                    stored.push((*value, inst));
                    // FIXME: a store under a predicate could become
                    // `v = if c then value else current` when the cell is
                    // initialised before it; such cells are not promoted yet.
                    access(*address, predicate_one.then_some(Kind::Store));
                }
                InstructionData::IncRc { arg } | InstructionData::DecRc { arg } => {
                    access(*arg, Some(Kind::Rc));
                }
                other => {
                    for &v in other.arguments().as_slice() {
                        escaped.insert(v);
                    }
                }
            }
        }
        if let Some(renames) = &pending {
            renames.terminator(&mut func.dfg, block);
        }
        if let Some(term) = func.dfg.terminator(block) {
            for &v in term.arguments() {
                escaped.insert(v);
            }
        }
    }
    let mut stored_set = EntitySet::<Value>::new();
    for &(v, _) in &stored {
        stored_set.insert(v);
    }
    let ok = |r: Value| !escaped.contains(r) && !stored_set.contains(r);
    let mut log = Log::default();
    // Splitting an edge is the only change of the graph promotion makes,
    // and it adds a block.
    let blocks = func.dfg.num_blocks();
    let enabling = promote_cells(
        func,
        analyses,
        allocations.clone(),
        &ok,
        &raw,
        stats,
        replaced,
        Some(&mut log),
    );
    if func.dfg.num_blocks() != blocks {
        analyses.invalidate();
    }
    if !enabling {
        return false;
    }
    // 2. The allocations whose only escaping uses were stores into the
    // cells just promoted, promoted in turn without another walk.
    let owner = freed(func, &allocations, &escaped, &stored, &log);
    drop(log);
    let mut freed_allocations = Vec::new();
    let mut raw_freed = Vec::new();
    for &(v, b, i, k) in &raw {
        let a = owner[v];
        if a == NONE {
            continue;
        }
        let a = Value::new(a as usize);
        if k == Kind::Alloc {
            freed_allocations.push((b, a));
        }
        raw_freed.push((a, b, i, k));
    }
    if freed_allocations.is_empty() {
        return false;
    }
    let cfg = analyses.cfg(func);
    let allocations = freed_allocations
        .into_iter()
        .filter_map(|(b, a)| Some((cfg.postorder_number(b)?, a)))
        .collect();
    let blocks = func.dfg.num_blocks();
    let enabling = promote_cells(
        func,
        analyses,
        allocations,
        &|_| true,
        &raw_freed,
        stats,
        replaced,
        None,
    );
    if func.dfg.num_blocks() != blocks {
        analyses.invalidate();
    }
    enabling
}

/// What promotion did that tells which other allocations it freed.
#[derive(Default)]
struct Log {
    /// Stores removed.
    stores: EntitySet<Inst>,
    /// Replaced load results with their replacements.
    loads: Vec<(Value, Value)>,
    /// Values passed to new block parameters.
    arguments: EntitySet<Value>,
}

/// The allocations among `allocations` that promotion (`log`) freed: their
/// reference, and every load result replaced by it, is used only as the
/// address of loads and stores, or stored by the stores promotion removed,
/// and is passed to no new block parameter (this is what the walk of
/// [`promote`] would find on the rewritten function). Returns, by value,
/// the freed allocation each such value stands for (`NONE` for the rest).
fn freed(
    func: &Function,
    allocations: &[(u32, Value)],
    escaped: &EntitySet<Value>,
    stored: &[(Value, Inst)],
    log: &Log,
) -> SecondaryMap<Value, u32> {
    let mut owner: SecondaryMap<Value, u32> = SecondaryMap::with_default(NONE);
    // Candidates: not escaped otherwise, stored only (the stores checked
    // below), and not passed to a new parameter.
    let mut stored_set = EntitySet::<Value>::new();
    for &(v, _) in stored {
        stored_set.insert(v);
    }
    let mut owned: Vec<Value> = Vec::new();
    for &(_, a) in allocations {
        if !escaped.contains(a) && stored_set.contains(a) && !log.arguments.contains(a) {
            if func.dfg.value_type(a).pointee().is_none() {
                continue;
            }
            owner[a] = a.as_u32();
            owned.push(a);
        }
    }
    if owned.is_empty() {
        return owner;
    }
    let mut rejected = EntitySet::<Value>::new();
    for &(r, v) in &log.loads {
        let a = owner[v];
        if a == NONE || owner[r] != NONE {
            continue;
        }
        owner[r] = a;
        owned.push(r);
        if escaped.contains(r) {
            rejected.insert(Value::new(a as usize));
        }
    }
    for &(v, inst) in stored {
        let a = owner[v];
        if a != NONE && !log.stores.contains(inst) {
            rejected.insert(Value::new(a as usize));
        }
    }
    for v in owned {
        if rejected.contains(Value::new(owner[v] as usize)) {
            owner[v] = NONE;
        }
    }
    owner
}

/// Promotes the promotable cells among `allocations` (postorder number of
/// the block, reference), whose accesses are `raw` (address, block,
/// instruction, kind; in layout order) and which `ok` says do not escape.
/// Returns whether a store of an allocation's reference was removed.
#[allow(clippy::too_many_arguments)]
fn promote_cells(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    mut allocations: Vec<(u32, Value)>,
    ok: &dyn Fn(Value) -> bool,
    raw: &[(Value, Block, Inst, Kind)],
    stats: &mut Stats,
    replaced: &mut Vec<Value>,
    mut log: Option<&mut Log>,
) -> bool {
    // Candidates: allocations in reachable blocks, numbered in reverse
    // post-order of their blocks (layout order within a block).
    let cfg = analyses.cfg(func);
    allocations.sort_by_key(|&(po, _)| std::cmp::Reverse(po));
    let mut slot_of: SecondaryMap<Value, u32> = SecondaryMap::with_default(NONE);
    let mut slots: Vec<Slot> = Vec::new();
    for &(_, r) in &allocations {
        let Some(ty) = func.dfg.value_type(r).pointee().cloned() else {
            continue;
        };
        slot_of[r] = slots.len() as u32;
        slots.push(Slot { ty, ok: ok(r) });
    }
    drop(allocations);
    if slots.is_empty() {
        return false;
    }
    let accesses: Vec<(u32, Block, Inst, Kind)> = raw
        .iter()
        .filter_map(|&(v, b, i, k)| {
            let s = slot_of[v];
            (s != NONE).then_some((s, b, i, k))
        })
        .collect();
    // The accesses of each block, in order: the renaming walks look at
    // these, not at every instruction of the function.
    let n = cfg.num_block_indices().max(func.dfg.num_blocks());
    let by_block = {
        let mut start = vec![0u32; n + 1];
        for a in &accesses {
            start[a.1.index() + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut insts = vec![(Inst::new(0), 0, Kind::Rc); accesses.len()];
        for &(s, b, i, k) in &accesses {
            insts[fill[b.index()] as usize] = (i, s, k);
            fill[b.index()] += 1;
        }
        BlockAccesses { start, insts }
    };
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

    let (cfg, domtree) = analyses.domtree(func);
    let mut df = DominanceFrontiers::new();
    let mut df_computed = false;

    // 3. Per slot: initialisation check, liveness, parameter placement.
    let mut access_stamp = vec![NONE; n];
    let mut first_kind = vec![Kind::Rc; n];
    let mut has_def = vec![false; n];
    let mut visit_stamp = vec![NONE; n];
    let mut idf_stamp = vec![NONE; n];
    let mut work: Vec<Block> = Vec::new();
    let mut defs: Vec<Block> = Vec::new();
    let mut phis: Vec<(Block, u32)> = Vec::new();
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
        // Parameters at the iterated dominance frontier of the definitions
        // (minimal SSA); the ones no load needs are pruned below.
        if !df_computed {
            df.compute(cfg, domtree);
            df_computed = true;
        }
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
                phis.push((j, s as u32));
            }
        }
        promoted[s] = true;
    }
    if !promoted.iter().any(|&p| p) {
        return false;
    }
    // Pruning (Choi, Cytron and Ferrante 1991), by uses rather than by a
    // liveness walk per variable, whose cost is the variable's whole live
    // range: a renaming pass over the dominator tree that only tracks which
    // candidate parameter reaches each load and each edge, then a marking
    // from the loads through the parameters' arguments. A parameter is kept
    // exactly when the variable is live into its block, so the result is the
    // pruned form, in time linear in the function and the candidates.
    phis.sort_unstable_by_key(|&(b, s)| (b.index(), s));
    let live = live_phis(func, cfg, domtree, &by_block, &mut promoted, &phis);
    let mut kept = 0;
    for k in 0..phis.len() {
        if live[k] && promoted[phis[k].1 as usize] {
            phis[kept] = phis[k];
            kept += 1;
        }
    }
    phis.truncate(kept);
    if !promoted.iter().any(|&p| p) {
        return false;
    }
    if !promoted.iter().any(|&p| p) {
        return false;
    }
    let mut enabling = false;

    // 4. Block parameters, grouped by block in slot order.
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
        for &(inst, s, kind) in by_block.of(block) {
            if !promoted[s as usize] {
                continue;
            }
            match (kind, &func.dfg[inst]) {
                (Kind::Alloc, _) => {
                    undo.push((s, current[s as usize]));
                    current[s as usize] = None;
                    func.remove_inst(inst);
                    stats.allocations_removed += 1;
                }
                (Kind::Store, &InstructionData::Store { value, .. }) => {
                    undo.push((s, current[s as usize]));
                    let value = func.dfg.resolve(value);
                    current[s as usize] = Some(value);
                    // Only an allocation's own reference can become
                    // promotable by losing this use: any other value
                    // holding it got it through a use that escapes.
                    enabling |= matches!(
                        func.dfg.value_def(value),
                        ValueDef::Result(i, _) if matches!(func.dfg[i], InstructionData::Allocate)
                    );
                    func.remove_inst(inst);
                    stats.stores_removed += 1;
                    if let Some(log) = log.as_deref_mut() {
                        log.stores.insert(inst);
                    }
                }
                (Kind::Load, _) => {
                    let value =
                        current[s as usize].expect("a promoted load is definitely initialised");
                    let result = func.dfg.first_result(inst);
                    func.remove_inst(inst);
                    if let Some(result) = result {
                        func.dfg.replace_all_uses(result, value);
                        replaced.push(result);
                        if let Some(log) = log.as_deref_mut() {
                            log.loads.push((result, value));
                        }
                    }
                    stats.loads_replaced += 1;
                }
                (Kind::Rc, _) => func.remove_inst(inst),
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
        // The terminator's shape, without cloning its arguments.
        let term = match func.dfg.terminator(block) {
            Some(&Terminator::Jmp { destination, .. }) => Some(Terminator::Jmp {
                destination,
                arguments: Vec::new(),
            }),
            Some(Terminator::JmpIf { .. }) => func.dfg.terminator(block).cloned(),
            _ => None,
        };
        match term {
            Some(Terminator::Jmp { destination, .. }) if !phis_of(destination).is_empty() => {
                let extra = args_for(destination, &current);
                if let Some(log) = log.as_deref_mut() {
                    for &v in &extra {
                        log.arguments.insert(v);
                    }
                }
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
                let mut split = |dest: Block, func: &mut Function| -> Block {
                    let extra = args_for(dest, &current);
                    if let Some(log) = log.as_deref_mut() {
                        for &v in &extra {
                            log.arguments.insert(v);
                        }
                    }
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

/// What a variable holds during the pruning walk: nothing yet, a value
/// defined by a store, or candidate parameter `k`.
const UNDEFINED: u32 = u32::MAX;
const STORED: u32 = u32::MAX - 1;

/// Which candidate parameters `phis` (sorted by block, then slot) some load
/// needs, directly or through other parameters. A slot whose needed
/// parameter sits in a block with an unreachable predecessor (the renaming
/// cannot pass it an argument there), or receives no value on some edge, is
/// withdrawn from `promoted`.
fn live_phis(
    func: &Function,
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
    by_block: &BlockAccesses,
    promoted: &mut [bool],
    phis: &[(Block, u32)],
) -> Vec<bool> {
    let n = cfg.num_block_indices().max(func.dfg.num_blocks());
    // `first[b]..first[b + 1]` are the candidates of block `b`.
    let mut counts = vec![0u32; n + 1];
    for &(b, _) in phis {
        counts[b.index() + 1] += 1;
    }
    for i in 0..n {
        counts[i + 1] += counts[i];
    }
    let first = counts;
    let of = |b: Block| first[b.index()] as usize..first[b.index() + 1] as usize;
    let mut current = vec![UNDEFINED; promoted.len()];
    let mut undo: Vec<(u32, u32)> = Vec::new();
    let mut live = vec![false; phis.len()];
    let mut work: Vec<u32> = Vec::new();
    // (parameter, what its argument is) for every edge into its block.
    let mut incoming: Vec<(u32, u32)> = Vec::new();
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
        for k in of(block) {
            let s = phis[k].1 as usize;
            undo.push((s as u32, current[s]));
            current[s] = k as u32;
        }
        for &(_, s, kind) in by_block.of(block) {
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
                Kind::Load => {
                    let c = current[s];
                    if c < STORED && !live[c as usize] {
                        live[c as usize] = true;
                        work.push(c);
                    }
                }
                Kind::Rc => {}
            }
        }
        for &succ in cfg.successors(block) {
            for k in of(succ) {
                incoming.push((k as u32, current[phis[k].1 as usize]));
            }
        }
        stack.push((block, false));
        for child in domtree.children(block) {
            stack.push((child, true));
        }
    }
    // Group the arguments by parameter and mark from the loads.
    let mut start = vec![0u32; phis.len() + 1];
    for &(k, _) in &incoming {
        start[k as usize + 1] += 1;
    }
    for i in 0..phis.len() {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut args = vec![0u32; incoming.len()];
    for &(k, c) in &incoming {
        args[fill[k as usize] as usize] = c;
        fill[k as usize] += 1;
    }
    while let Some(k) = work.pop() {
        for &c in &args[start[k as usize] as usize..start[k as usize + 1] as usize] {
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
        let args = &args[start[k] as usize..start[k + 1] as usize];
        // FIXME: an unreachable predecessor could pass any value of the type
        // (a zero constant) instead of blocking the promotion.
        if args.contains(&UNDEFINED) || cfg.predecessors(b).iter().any(|&p| !cfg.is_reachable(p)) {
            promoted[s as usize] = false;
        }
    }
    live
}
