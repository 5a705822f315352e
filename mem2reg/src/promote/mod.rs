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
//! A reference may also be an argument of a call that only *lends* it: a
//! module function that neither writes through that parameter nor keeps
//! it ([`crate::summary`]). Such a call reads the cell's content at the
//! call and nothing else, so it is a use of the variable like a load: the
//! renaming hands the call a fresh cell (`allocate`, then a `store` of the
//! current value) in place of the promoted one, the rematerialization
//! Noir's promotion applies to cells passed by immutable reference. Only a
//! cell that is also loaded is promoted so: a cell only lent is what a
//! rematerialization leaves, and promoting it would remove nothing. A call
//! under a predicate that may be 0 counts as an escape, as a store there
//! does.
//!
//! Traps are preserved by refusing, not by reasoning about them: a `load` of
//! a never-stored cell traps in the interpreter, and an SSA value cannot trap
//! when read. So an allocation is promoted only when every `load` of it is
//! *definitely initialised*: every path from the `allocate` to the load
//! passes an unconditional `store` (one not under an `enable_side_effects`
//! predicate that may be 0); a lending call counts as a load. The check
//! walks forward from the allocation until stores end each path, so its
//! cost is the size of that uninitialised region.
//!
//! A store under a predicate `c` that may be 0 writes the cell only when
//! `c` holds, so it defines `if c then value else (if not c) current`: it
//! reads the current value (so it too must find the cell initialised) and
//! the renaming puts that `if` in its place, as Noir's flattening of
//! branches merges the values stored in them. A cell holding references
//! stays in memory (the `if` would merge the references it holds with the
//! stored ones), left to the alias-aware forwarding, as are allocations
//! with accesses in unreachable blocks or needing a parameter in a block
//! with an unreachable predecessor.
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
//!
//! The walk and the placement are here; the pruning (`prune`) and the
//! renaming (`rename`) are submodules. All four share the numbering of
//! the slots and the access tables grouped by block and by slot, which
//! this module owns.

use std::collections::HashMap;

use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::{DominanceFrontiers, DominatorTree};
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{
    Block, Callee, EntityRef, EntitySet, Function, Inst, InstructionData, SecondaryMap, Type, Value,
};

use crate::summary::ModuleSummary;
use crate::{Renames, Stats};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Alloc,
    Load,
    Store,
    /// `inc_rc` / `dec_rc`: removed with the allocation, otherwise ignored.
    Rc,
    /// An argument of a call that only lends it (reads the cell at the
    /// call, keeps nothing): a use of the current value, which a fresh
    /// cell carries into the call.
    Lend,
    /// A store under a predicate that may be 0, to a cell holding no
    /// reference: it reads the current value and defines
    /// `if c then value else current`.
    CondStore,
}

struct Slot {
    ty: Type,
    ok: bool,
    /// The allocation's reference.
    reference: Value,
    /// Whether a load or a call reads the cell: only then does a store
    /// under a predicate need the `if` it defines, and the value it reads.
    read: bool,
}

const NONE: u32 = u32::MAX;

/// Items grouped by a key below `n`, each group in the order the items
/// came (a counting sort into compressed rows). The walks along the
/// dominator tree read the accesses of a block from these rather than the
/// instructions, which they would visit out of layout order (a cache miss
/// each on a large function).
struct Rows<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Rows<T> {
    /// Groups `entries` (key, item) by key; `filler` only fills the buffer
    /// before every slot is written.
    fn group<I>(n: usize, entries: I, filler: T) -> Self
    where
        I: Iterator<Item = (usize, T)> + Clone,
    {
        let mut start = vec![0u32; n + 1];
        for (key, _) in entries.clone() {
            start[key + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![filler; start[n] as usize];
        for (key, item) in entries {
            items[fill[key] as usize] = item;
            fill[key] += 1;
        }
        Rows { start, items }
    }

    fn row(&self, key: usize) -> &[T] {
        match self.start.get(key..key + 2) {
            Some(&[lo, hi]) => &self.items[lo as usize..hi as usize],
            _ => &[],
        }
    }
}

/// An access to a candidate cell: address, block, instruction, kind.
type RawAccess = (Value, Block, Inst, Kind);

/// What the first walk of [`promote`] found.
struct Walk {
    /// (postorder number of the block, reference) of each allocation in a
    /// reachable block.
    allocations: Vec<(u32, Value)>,
    /// Values used other than as an address of a load or store.
    escaped: EntitySet<Value>,
    /// The accesses, in layout order.
    raw: Vec<RawAccess>,
    /// Every store's value, with the store.
    stored: Vec<(Value, Inst)>,
    /// The predicate of each store under one that may be 0 ([`Kind::CondStore`]).
    conditions: HashMap<Inst, Value>,
}

/// Promotes every promotable allocation of `func`. Returns whether a store
/// of an allocation's reference was removed: that reference lost a use
/// that made it escape, so its allocation may now be promotable.
///
/// `pending` holds the renames of earlier replacements, applied by the
/// first walk over the instructions; `summary` tells which call arguments
/// are only lent.
pub(crate) fn promote(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    summary: &ModuleSummary,
    stats: &mut Stats,
    replaced: &mut Vec<Value>,
    pending: Option<Renames>,
) -> bool {
    if analyses.cfg(func).entry_block().is_none() {
        if let Some(renames) = pending {
            renames.apply(func);
        }
        return false;
    }
    // 1. One walk over the instructions: allocations, the accesses
    // (load and store addresses, rc counts), and every other use of a
    // value, which makes it escape if it turns out to be an allocation.
    let walk = walk(func, analyses.cfg(func), summary, pending.as_ref());
    let mut stored_set = EntitySet::<Value>::new();
    for &(v, _) in &walk.stored {
        stored_set.insert(v);
    }
    let ok = |r: Value| !walk.escaped.contains(r) && !stored_set.contains(r);
    let mut log = Log::default();
    let candidates = Candidates {
        allocations: walk.allocations.clone(),
        ok: &ok,
        raw: &walk.raw,
        conditions: &walk.conditions,
    };
    let mut out = Outcome {
        stats,
        replaced,
        log: Some(&mut log),
    };
    if !promote_cells(func, analyses, candidates, &mut out) {
        return false;
    }
    // 2. The allocations whose only escaping uses were stores into the
    // cells just promoted, promoted in turn without another walk.
    let owner = freed(func, &walk, &log);
    let mut freed_allocations = Vec::new();
    let mut raw_freed = Vec::new();
    for &(v, b, i, k) in &walk.raw {
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
    let candidates = Candidates {
        allocations,
        ok: &|_| true,
        raw: &raw_freed,
        conditions: &walk.conditions,
    };
    let mut out = Outcome {
        stats,
        replaced,
        log: None,
    };
    promote_cells(func, analyses, candidates, &mut out)
}

/// The first walk of [`promote`], which also applies `pending`.
fn walk(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    summary: &ModuleSummary,
    pending: Option<&Renames>,
) -> Walk {
    let mut found = Walk {
        allocations: Vec::new(),
        escaped: EntitySet::new(),
        raw: Vec::new(),
        stored: Vec::new(),
        conditions: HashMap::new(),
    };
    for block in func.layout.blocks() {
        let reachable = cfg.is_reachable(block);
        let mut predicate_one = true;
        let mut predicate = None;
        for inst in func.layout.block_insts(block) {
            if let Some(renames) = pending {
                renames.inst(&mut func.dfg, inst);
            }
            let mut access = |v: Value, kind: Option<Kind>| match kind {
                Some(kind) if reachable => found.raw.push((v, block, inst, kind)),
                _ => {
                    found.escaped.insert(v);
                }
            };
            match &func.dfg[inst] {
                InstructionData::EnableSideEffects { condition } => {
                    predicate_one = crate::is_predicate_one(&func.dfg, *condition);
                    predicate = Some(*condition);
                }
                InstructionData::Allocate => {
                    if let Some(r) = func.dfg.first_result(inst) {
                        if let Some(po) = cfg.postorder_number(block) {
                            found.allocations.push((po, r));
                        }
                        access(r, Some(Kind::Alloc));
                    }
                }
                InstructionData::Load { address } => access(*address, Some(Kind::Load)),
                InstructionData::Store { value, address } => {
                    // Stored: escapes unless the store goes with a promoted
                    // cell (see `freed`).
                    found.stored.push((*value, inst));
                    let kind = match predicate {
                        _ if predicate_one => Some(Kind::Store),
                        // A cell holding references stays: the `if` would
                        // merge what it holds with what is stored.
                        Some(condition) if holds_no_reference(&func.dfg, *address) => {
                            found.conditions.insert(inst, condition);
                            Some(Kind::CondStore)
                        }
                        _ => None,
                    };
                    access(*address, kind);
                }
                InstructionData::IncRc { arg } | InstructionData::DecRc { arg } => {
                    access(*arg, Some(Kind::Rc));
                }
                InstructionData::Call {
                    callee: Callee::Function(id),
                    args,
                } if predicate_one => {
                    // Under a predicate that may be 0 the call may not
                    // happen, nor the store filling its fresh cell.
                    for (j, &v) in args.iter().enumerate() {
                        if !summary.lends(*id, j) {
                            access(v, None);
                        } else if !args[..j].contains(&v) {
                            access(v, Some(Kind::Lend));
                        }
                    }
                }
                other => {
                    for &v in other.arguments().as_slice() {
                        found.escaped.insert(v);
                    }
                }
            }
        }
        if let Some(renames) = pending {
            renames.terminator(&mut func.dfg, block);
        }
        if let Some(term) = func.dfg.terminator(block) {
            for &v in term.arguments() {
                found.escaped.insert(v);
            }
        }
    }
    found
}

/// Whether `address` names a cell whose type holds no reference.
fn holds_no_reference(dfg: &kildall_ir::DataFlowGraph, address: Value) -> bool {
    dfg.value_type(address)
        .pointee()
        .is_some_and(|cell| !cell.contains_reference())
}

/// What promotion did that tells which other allocations it freed.
#[derive(Default)]
struct Log {
    /// Stores removed.
    stores: EntitySet<Inst>,
    /// Replaced load results with their replacements.
    loads: Vec<(Value, Value)>,
    /// Values passed to new block parameters or stored into fresh cells.
    arguments: EntitySet<Value>,
}

/// The allocations of `walk` that promotion (`log`) freed: their
/// reference, and every load result replaced by it, is used only as the
/// address of loads and stores, or stored by the stores promotion removed,
/// and is passed to no new block parameter nor stored into a fresh cell
/// (this is what the walk of
/// [`promote`] would find on the rewritten function). Returns, by value,
/// the freed allocation each such value stands for (`NONE` for the rest).
fn freed(func: &Function, walk: &Walk, log: &Log) -> SecondaryMap<Value, u32> {
    let mut owner: SecondaryMap<Value, u32> = SecondaryMap::with_default(NONE);
    // Candidates: not escaped otherwise, stored only (the stores checked
    // below), and not passed to a new parameter.
    let mut stored_set = EntitySet::<Value>::new();
    for &(v, _) in &walk.stored {
        stored_set.insert(v);
    }
    let mut owned: Vec<Value> = Vec::new();
    for &(_, a) in &walk.allocations {
        if !walk.escaped.contains(a) && stored_set.contains(a) && !log.arguments.contains(a) {
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
        if walk.escaped.contains(r) {
            rejected.insert(Value::new(a as usize));
        }
    }
    for &(v, inst) in &walk.stored {
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

/// The cells one call of [`promote_cells`] considers.
struct Candidates<'a> {
    /// (postorder number of the block, reference) of each allocation.
    allocations: Vec<(u32, Value)>,
    /// Whether an allocation's reference does not escape.
    ok: &'a dyn Fn(Value) -> bool,
    /// The accesses to the cells, in layout order.
    raw: &'a [RawAccess],
    /// The predicates of the [`Kind::CondStore`] accesses.
    conditions: &'a HashMap<Inst, Value>,
}

/// Where promotion writes down what it did.
struct Outcome<'a> {
    stats: &'a mut Stats,
    /// Replaced load results (their uses renamed later, see [`Renames`]).
    replaced: &'a mut Vec<Value>,
    /// Kept by the first promotion, to find the allocations it freed.
    log: Option<&'a mut Log>,
}

/// The candidate cells, numbered (as slots) in reverse post-order of their
/// blocks and in layout order within a block, with their accesses grouped
/// by block and by slot.
struct Cells {
    slots: Vec<Slot>,
    /// (instruction, slot, kind) by block.
    by_block: Rows<(Inst, u32, Kind)>,
    /// (block, instruction, kind) by slot.
    by_slot: Rows<(Block, Inst, Kind)>,
}

impl Cells {
    fn collect(
        func: &Function,
        cfg: &ControlFlowGraph,
        candidates: Candidates<'_>,
    ) -> Option<Cells> {
        let mut allocations = candidates.allocations;
        allocations.sort_by_key(|&(po, _)| std::cmp::Reverse(po));
        let mut slot_of: SecondaryMap<Value, u32> = SecondaryMap::with_default(NONE);
        let mut slots: Vec<Slot> = Vec::new();
        for &(_, r) in &allocations {
            let Some(ty) = func.dfg.value_type(r).pointee().cloned() else {
                continue;
            };
            slot_of[r] = slots.len() as u32;
            slots.push(Slot {
                ty,
                ok: (candidates.ok)(r),
                reference: r,
                read: false,
            });
        }
        if slots.is_empty() {
            return None;
        }
        let accesses: Vec<(u32, Block, Inst, Kind)> = candidates
            .raw
            .iter()
            .filter_map(|&(v, b, i, k)| {
                let s = slot_of[v];
                (s != NONE).then_some((s, b, i, k))
            })
            .collect();
        for &(s, _, _, k) in &accesses {
            if matches!(k, Kind::Load | Kind::Lend) {
                slots[s as usize].read = true;
            }
        }
        let n = num_blocks(func, cfg);
        let filler = (Inst::new(0), 0, Kind::Rc);
        let by_block = Rows::group(
            n,
            accesses.iter().map(|&(s, b, i, k)| (b.index(), (i, s, k))),
            filler,
        );
        let filler = (Block::new(0), Inst::new(0), Kind::Rc);
        let by_slot = Rows::group(
            slots.len(),
            accesses.iter().map(|&(s, b, i, k)| (s as usize, (b, i, k))),
            filler,
        );
        Some(Cells {
            slots,
            by_block,
            by_slot,
        })
    }
}

/// Block indices of `func` as the tables indexed by block need them.
fn num_blocks(func: &Function, cfg: &ControlFlowGraph) -> usize {
    cfg.num_block_indices().max(func.dfg.num_blocks())
}

/// Promotes the promotable cells among `candidates`, with the control flow
/// and dominators of `analyses`. Returns whether a store of an
/// allocation's reference was removed.
fn promote_cells(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    candidates: Candidates<'_>,
    out: &mut Outcome<'_>,
) -> bool {
    let (cfg, domtree) = analyses.domtree(func);
    let conditions = candidates.conditions;
    let Some(cells) = Cells::collect(func, cfg, candidates) else {
        return false;
    };
    let mut placement = Placement::new(num_blocks(func, cfg));
    let (mut promoted, mut phis) = placement.place(cfg, domtree, &cells);
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
    let live = live_phis(func, cfg, domtree, &cells, &mut promoted, &phis);
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
    // Promotion adds block parameters and edge arguments, never an edge:
    // the analyses stay valid.
    let mut renaming = Renaming::new(func, &cells, (promoted, conditions), &phis);
    renaming.run(func, domtree, &cells.by_block, out)
}

/// The work tables of parameter placement, indexed by block and stamped
/// with the slot being placed, so that placing every slot allocates
/// nothing per slot.
struct Placement {
    access_stamp: Vec<u32>,
    /// The first access of the block (`Rc` for none).
    first_kind: Vec<Kind>,
    has_def: Vec<bool>,
    visit_stamp: Vec<u32>,
    idf_stamp: Vec<u32>,
    work: Vec<Block>,
    /// The blocks that define the slot (allocate or store it).
    defs: Vec<Block>,
    /// Whether the slot scanned last is loaded, and lent to a call.
    loaded: bool,
    lent: bool,
}

impl Placement {
    fn new(n: usize) -> Self {
        Placement {
            access_stamp: vec![NONE; n],
            first_kind: vec![Kind::Rc; n],
            has_def: vec![false; n],
            visit_stamp: vec![NONE; n],
            idf_stamp: vec![NONE; n],
            work: Vec::new(),
            defs: Vec::new(),
            loaded: false,
            lent: false,
        }
    }

    /// The slots that can be promoted, and the candidate parameters (block,
    /// slot) at the iterated dominance frontiers of their definitions
    /// (minimal SSA; [`live_phis`] prunes them).
    fn place(
        &mut self,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        cells: &Cells,
    ) -> (Vec<bool>, Vec<(Block, u32)>) {
        let mut df = DominanceFrontiers::new();
        let mut phis = Vec::new();
        let mut promoted = vec![false; cells.slots.len()];
        for (s, slot) in cells.slots.iter().enumerate() {
            if !slot.ok {
                continue;
            }
            let stamp = s as u32;
            let Some((alloc_block, after_alloc)) = self.scan(stamp, cells.by_slot.row(s)) else {
                continue;
            };
            // A cell only lent, never loaded, is what the rematerialization
            // of another leaves behind: promoting it would make it again.
            if self.lent && !self.loaded {
                continue;
            }
            if !self.definitely_initialised(cfg, stamp, alloc_block, after_alloc) {
                continue;
            }
            if !df.is_valid() {
                df.compute(cfg, domtree);
            }
            self.work.clear();
            self.work.extend(self.defs.iter().copied());
            while let Some(b) = self.work.pop() {
                for &j in df.frontier(b) {
                    if self.idf_stamp[j.index()] == stamp {
                        continue;
                    }
                    self.idf_stamp[j.index()] = stamp;
                    self.work.push(j);
                    phis.push((j, stamp));
                }
            }
            promoted[s] = true;
        }
        (promoted, phis)
    }

    /// Notes, per block, the slot's first access (ignoring rc counts) and
    /// whether it defines the slot, and whether the slot is loaded or lent.
    /// Returns the allocation's block and the first access after the allocation
    /// in that block.
    fn scan(&mut self, stamp: u32, list: &[(Block, Inst, Kind)]) -> Option<(Block, Option<Kind>)> {
        let mut alloc_block = None;
        let mut after_alloc: Option<Kind> = None;
        self.defs.clear();
        self.loaded = false;
        self.lent = false;
        for &(b, _, k) in list {
            self.loaded |= k == Kind::Load;
            self.lent |= k == Kind::Lend;
            let bi = b.index();
            if self.access_stamp[bi] != stamp {
                self.access_stamp[bi] = stamp;
                self.first_kind[bi] = Kind::Rc;
                self.has_def[bi] = false;
            }
            if k == Kind::Rc {
                continue;
            }
            if alloc_block.is_some() && after_alloc.is_none() && Some(b) == alloc_block {
                after_alloc = Some(k);
            }
            if k == Kind::Alloc {
                alloc_block = Some(b);
            }
            if self.first_kind[bi] == Kind::Rc {
                self.first_kind[bi] = k;
            }
            if matches!(k, Kind::Alloc | Kind::Store | Kind::CondStore) && !self.has_def[bi] {
                self.has_def[bi] = true;
                self.defs.push(b);
            }
        }
        alloc_block.map(|b| (b, after_alloc))
    }

    /// Whether no load is reachable from the allocation before a store
    /// (the walk stops at the blocks whose first access stores).
    fn definitely_initialised(
        &mut self,
        cfg: &ControlFlowGraph,
        stamp: u32,
        alloc_block: Block,
        after_alloc: Option<Kind>,
    ) -> bool {
        self.work.clear();
        match after_alloc {
            Some(Kind::Load | Kind::Lend | Kind::CondStore) => return false,
            Some(_) => return true,
            None => self.work.extend(cfg.successors(alloc_block)),
        }
        while let Some(b) = self.work.pop() {
            let bi = b.index();
            if self.visit_stamp[bi] == stamp {
                continue;
            }
            self.visit_stamp[bi] = stamp;
            let kind = if self.access_stamp[bi] == stamp {
                self.first_kind[bi]
            } else {
                Kind::Rc
            };
            match kind {
                Kind::Load | Kind::Lend | Kind::CondStore => return false,
                Kind::Store | Kind::Alloc => {}
                Kind::Rc => self.work.extend(cfg.successors(b)),
            }
        }
        true
    }
}

mod prune;
mod rename;

use prune::live_phis;
use rename::Renaming;
