//! The seed's analysis: the value each reference holds, `Known(v)` or
//! `Unknown`, at every program point, run to a fixed point on the
//! [`kildall_dataflow`] solver, and the replacement of the loads of `Known`
//! references.
//!
//! A state maps references (SSA values) to the value their cell holds; a
//! reference missing from the map is `Unknown`. The join over predecessors
//! keeps the entries on which all agree ("values `A` and `B` unify iff
//! `A = B`"), an entry block starts with every reference `Unknown`, and an
//! unreached block is the lattice's bottom, so a loop header whose back edge
//! has not been seen yet is not made `Unknown` for ever: the solver revisits it
//! and the answer is the greatest set of facts that holds on every path.
//!
//! Effects, in program order:
//! - `store v at a` under predicate 1 makes `a` `Known(v)`, and every other
//!   reference that may alias `a` (same [alias class](crate::alias))
//!   `Unknown`: a store through a reference aliasing several makes all of
//!   them `Unknown`. Under a predicate that may be 0 the store may not
//!   happen, so `a` becomes `Unknown` too;
//! - `vR = load a` is replaced by `v` when `a` is `Known(v)`; otherwise, under
//!   predicate 1, `a` becomes `Known(vR)` (the cell holds what was just read,
//!   and the load did not trap), so a second load is replaced by the first;
//! - a call makes `Unknown` every reference whose class it may reach (the
//!   class of its reference arguments and results, with everything reachable
//!   through them);
//! - defining a value `x` (an instruction result or a block parameter, each
//!   time the definition runs again in a loop) makes `Unknown` the reference
//!   `x` itself and every reference `Known(x)`, whose claim was about an older
//!   `x`;
//! - a jump binds each reference parameter to what its argument holds.
//!
//! States stay small: an edge keeps only the references live at the start of
//! its destination (liveness by path exploration from each use back to the
//! definition, whose cost is the size of its result), so a state never holds
//! more than the references the block and its successors use.

use kildall_dataflow::lattice::JoinSemiLattice;
use kildall_dataflow::{Analysis, Forward};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::{
    Block, Callee, EntityRef, EntitySet, Function, Inst, InstructionData, Value, ValueDef,
};

use crate::alias::{is_reference, AliasClasses};
use crate::Stats;

/// The values of references at a program point: `None` for a point not
/// reached yet (bottom), else the `Known` references sorted by reference.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct KnownValues {
    entries: Option<Vec<(Value, Value)>>,
    /// Whether the side-effects predicate is the constant 1 (block-local:
    /// every block starts with it set).
    predicate_one: bool,
}

impl KnownValues {
    fn entries_mut(&mut self) -> Option<&mut Vec<(Value, Value)>> {
        self.entries.as_mut()
    }

    /// The value `reference` is known to hold.
    pub fn get(&self, reference: Value) -> Option<Value> {
        let entries = self.entries.as_ref()?;
        entries
            .binary_search_by_key(&reference, |e| e.0)
            .ok()
            .map(|i| entries[i].1)
    }

    fn set(&mut self, reference: Value, value: Value) {
        if let Some(entries) = self.entries_mut() {
            match entries.binary_search_by_key(&reference, |e| e.0) {
                Ok(i) => entries[i].1 = value,
                Err(i) => entries.insert(i, (reference, value)),
            }
        }
    }

    fn forget(&mut self, reference: Value) {
        if let Some(entries) = self.entries_mut() {
            if let Ok(i) = entries.binary_search_by_key(&reference, |e| e.0) {
                entries.remove(i);
            }
        }
    }

    /// The number of `Known` references.
    pub fn len(&self) -> usize {
        self.entries.as_ref().map_or(0, Vec::len)
    }

    /// Whether no reference is `Known`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl JoinSemiLattice for KnownValues {
    fn join(&mut self, other: &Self) -> bool {
        let Some(theirs) = &other.entries else {
            return false;
        };
        let Some(mine) = &mut self.entries else {
            self.entries = Some(theirs.clone());
            self.predicate_one = true;
            return true;
        };
        // Intersection of two sorted maps, keeping equal values.
        let before = mine.len();
        let mut j = 0;
        mine.retain(|&(k, v)| {
            while j < theirs.len() && theirs[j].0 < k {
                j += 1;
            }
            j < theirs.len() && theirs[j] == (k, v)
        });
        mine.len() != before
    }
}

/// Reference values live at each block's start, as sorted lists.
pub(crate) struct LiveReferences {
    start: Vec<u32>,
    keys: Vec<Value>,
}

impl LiveReferences {
    /// Liveness of the references that can be keys of a state: addresses of
    /// loads and stores and reference block parameters.
    pub(crate) fn compute(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let dfg = &func.dfg;
        let nblocks = cfg.num_block_indices().max(dfg.num_blocks());
        let mut is_key = EntitySet::<Value>::new();
        for block in func.layout.blocks() {
            for &p in dfg.block_params(block) {
                if is_reference(dfg.value_type(p)) {
                    is_key.insert(p);
                }
            }
            for inst in func.layout.block_insts(block) {
                match dfg[inst] {
                    InstructionData::Load { address } | InstructionData::Store { address, .. } => {
                        is_key.insert(address);
                    }
                    _ => {}
                }
            }
        }
        // Uses of keys, grouped by key.
        let mut uses: Vec<(Value, Block)> = Vec::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                for &v in dfg[inst].arguments().as_slice() {
                    if is_key.contains(v) {
                        uses.push((v, block));
                    }
                }
            }
            if let Some(term) = dfg.terminator(block) {
                for &v in term.arguments() {
                    if is_key.contains(v) {
                        uses.push((v, block));
                    }
                }
            }
        }
        uses.sort_unstable_by_key(|&(v, b)| (v.index(), b.index()));
        let mut pairs: Vec<(Block, Value)> = Vec::new();
        let mut stamp = vec![u32::MAX; nblocks];
        let mut work: Vec<Block> = Vec::new();
        let mut i = 0;
        while i < uses.len() {
            let key = uses[i].0;
            let mut j = i;
            while j < uses.len() && uses[j].0 == key {
                j += 1;
            }
            let def_block = match dfg.value_def(key) {
                ValueDef::Param(b, _) => {
                    pairs.push((b, key));
                    Some(b)
                }
                ValueDef::Result(inst, _) => func.layout.inst_block(inst),
                _ => None,
            };
            let tag = key.as_u32();
            work.clear();
            for &(_, b) in &uses[i..j] {
                if Some(b) != def_block && stamp[b.index()] != tag {
                    stamp[b.index()] = tag;
                    pairs.push((b, key));
                    work.push(b);
                }
            }
            while let Some(b) = work.pop() {
                for &p in cfg.predecessors(b) {
                    if Some(p) != def_block && stamp[p.index()] != tag {
                        stamp[p.index()] = tag;
                        pairs.push((p, key));
                        work.push(p);
                    }
                }
            }
            i = j;
        }
        // Counting sort by block; keys stay sorted within a block because they
        // were produced in key order... except for the parameters pushed
        // first, so sort each block's run afterwards.
        let mut start = vec![0u32; nblocks + 1];
        for &(b, _) in &pairs {
            start[b.index() + 1] += 1;
        }
        for k in 0..nblocks {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut keys = vec![Value::new(0); pairs.len()];
        for &(b, v) in &pairs {
            keys[fill[b.index()] as usize] = v;
            fill[b.index()] += 1;
        }
        for k in 0..nblocks {
            keys[start[k] as usize..start[k + 1] as usize].sort_unstable();
        }
        LiveReferences { start, keys }
    }

    fn live_at(&self, block: Block) -> &[Value] {
        match self.start.get(block.index()..block.index() + 2) {
            Some(&[lo, hi]) => &self.keys[lo as usize..hi as usize],
            _ => &[],
        }
    }
}

/// The analysis of reference values, over the alias classes of a function.
pub(crate) struct ReferenceValues<'a> {
    pub(crate) classes: &'a AliasClasses,
    pub(crate) live: &'a LiveReferences,
    /// Values that may appear as a `Known` value: stored values and load
    /// results. Only their definitions need to search the state.
    pub(crate) may_be_known: EntitySet<Value>,
}

impl<'a> ReferenceValues<'a> {
    pub(crate) fn new(
        func: &Function,
        classes: &'a AliasClasses,
        live: &'a LiveReferences,
    ) -> Self {
        let mut may_be_known = EntitySet::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                match func.dfg[inst] {
                    InstructionData::Store { value, .. } => {
                        may_be_known.insert(value);
                    }
                    InstructionData::Load { .. } => {
                        for &r in func.dfg.inst_results(inst) {
                            may_be_known.insert(r);
                        }
                    }
                    _ => {}
                }
            }
        }
        ReferenceValues {
            classes,
            live,
            may_be_known,
        }
    }

    /// `x` is (re)defined: claims about `x` and about an older `x` are void.
    fn define(&self, state: &mut KnownValues, x: Value) {
        let check_values = self.may_be_known.contains(x);
        if let Some(entries) = state.entries_mut() {
            if check_values {
                entries.retain(|&(k, v)| k != x && v != x);
            } else if let Ok(i) = entries.binary_search_by_key(&x, |e| e.0) {
                entries.remove(i);
            }
        }
    }

    fn forget_class(&self, state: &mut KnownValues, class: Option<u32>, except: Option<Value>) {
        let classes = self.classes;
        if let Some(entries) = state.entries_mut() {
            entries.retain(|&(k, _)| {
                Some(k) == except || (class.is_some() && classes.class(k) != class)
            });
        }
    }

    /// The effect of `inst`; for a load of a `Known` reference, returns the
    /// value that replaces its result.
    pub(crate) fn transfer(
        &self,
        func: &Function,
        state: &mut KnownValues,
        inst: Inst,
    ) -> Option<Value> {
        let dfg = &func.dfg;
        let mut replacement = None;
        match &dfg[inst] {
            InstructionData::EnableSideEffects { condition } => {
                state.predicate_one = dfg
                    .const_value(*condition)
                    .is_some_and(|c| c.to_u64() == Some(1));
            }
            &InstructionData::Store { value, address } => {
                self.forget_class(state, self.classes.class(address), Some(address));
                if state.predicate_one {
                    state.set(address, value);
                } else {
                    state.forget(address);
                }
            }
            &InstructionData::Load { address } => {
                replacement = state.get(address);
                if let Some(r) = dfg.first_result(inst) {
                    self.define(state, r);
                    if replacement.is_none() && state.predicate_one {
                        state.set(address, r);
                    }
                }
                return replacement;
            }
            InstructionData::Call {
                callee: Callee::Function(_),
                ..
            } => {
                if let Some(class) = self.classes.call_class(inst) {
                    self.forget_class(state, Some(class), None);
                }
            }
            _ => {}
        }
        for &r in dfg.inst_results(inst) {
            self.define(state, r);
        }
        replacement
    }

    /// Binds the parameters of `to` on the edge from `from`, and keeps the
    /// references live in `to`.
    fn edge(&self, func: &Function, state: &mut KnownValues, from: Block, to: Block) {
        let dfg = &func.dfg;
        let params = dfg.block_params(to);
        let live = self.live.live_at(to);
        let Some(entries) = state.entries.as_mut() else {
            return;
        };
        let is_param = |v: Value| matches!(dfg.value_def(v), ValueDef::Param(b, _) if b == to);
        let mut bound: Vec<(Value, Value)> = Vec::new();
        if !params.is_empty() {
            if let Some(term) = dfg.terminator(from) {
                for (&p, &a) in params.iter().zip(term.edge_arguments(to)) {
                    if is_reference(dfg.value_type(p)) {
                        if let Ok(i) = entries.binary_search_by_key(&a, |e| e.0) {
                            let known = entries[i].1;
                            if !is_param(known) {
                                bound.push((p, known));
                            }
                        }
                    }
                }
            }
            // Parameters are redefined by the edge.
            entries.retain(|&(k, v)| !is_param(k) && !is_param(v));
        }
        entries.retain(|&(k, _)| live.binary_search(&k).is_ok());
        state.predicate_one = true;
        for (p, v) in bound {
            if live.binary_search(&p).is_ok() {
                state.set(p, v);
            }
        }
    }
}

impl Analysis<Function> for ReferenceValues<'_> {
    type Domain = KnownValues;
    type Direction = Forward;

    fn bottom_value(&self, _: &Function) -> KnownValues {
        KnownValues::default()
    }

    fn initialize_start_block(&self, _: &Function, _: Block, state: &mut KnownValues) {
        // No predecessors: every reference is Unknown.
        state.entries = Some(Vec::new());
        state.predicate_one = true;
    }

    fn apply_instruction_effect(&mut self, func: &Function, state: &mut KnownValues, inst: Inst) {
        self.transfer(func, state, inst);
    }

    fn apply_terminator_effect(&mut self, _: &Function, _: &mut KnownValues, _: Block) {}

    fn apply_edge_effect(
        &mut self,
        func: &Function,
        state: &mut KnownValues,
        from: Block,
        to: Block,
    ) {
        self.edge(func, state, from, to);
    }
}

/// Solves the analysis and replaces the loads of `Known` references.
/// Returns whether anything changed.
pub(crate) fn forward(func: &mut Function, classes: &AliasClasses, stats: &mut Stats) -> bool {
    let cfg = ControlFlowGraph::with_function(func);
    let live = LiveReferences::compute(func, &cfg);
    let analysis = ReferenceValues::new(func, classes, &live);
    let results = analysis.into_engine(func).iterate_to_fixpoint();
    stats.solver_visits += results.stats().block_visits as usize;
    let analysis = results.analysis();
    let mut replacements: Vec<(Inst, Value)> = Vec::new();
    for block in cfg.reverse_postorder() {
        let mut state = results.entry_state(block).clone();
        if state.entries.is_none() {
            continue;
        }
        for inst in func.layout.block_insts(block) {
            if let Some(v) = analysis.transfer(func, &mut state, inst) {
                replacements.push((inst, v));
            }
        }
    }
    let changed = !replacements.is_empty();
    for (inst, value) in replacements {
        let result = func.dfg.first_result(inst);
        func.remove_inst(inst);
        if let Some(result) = result {
            func.dfg.replace_all_uses(result, value);
        }
        stats.loads_replaced += 1;
    }
    changed
}
