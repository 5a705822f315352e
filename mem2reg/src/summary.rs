//! What a call of a module function may do to the caller's memory, and
//! which argument it returns: facts about the whole module, computed once
//! before the pass transforms any function and read at each call site.
//!
//! A call of code the per-function analysis cannot see is assumed to read
//! and write every escaped cell ([`alias`](crate::alias)). Four facts of the
//! module narrow that, in the manner of the interprocedural side-effect
//! summaries of Cooper and Kennedy ("Interprocedural Side-Effect Analysis
//! in Linear Time", PLDI 1988), flow-insensitively:
//!
//! - **What a callee can reach.** A callee reaches the caller's cells only
//!   through the references it is given, unless it runs an oracle (which
//!   keeps state: any reference ever given to one may come back), and a
//!   cell of type `T` is written only through a `&mut T` (the verifier
//!   refuses a `store` through a `&T`, no instruction turns a `&T` into a
//!   `&mut T`, and the interpreter traps on a reference to a cell of
//!   another type). So a callee that runs no oracle writes only the cells
//!   whose types its arguments reach through a `&mut`, and reads only those
//!   whose types they reach at all. A call through a `function` value is
//!   not checked against the signature of the function it reaches, so a
//!   `&T` may arrive as a `&mut T`: such a call (and `vector_enumerate`,
//!   which calls the function values it is given), and any function making
//!   one, writes what its arguments reach through either kind of
//!   reference. The [`Reach`] of each function is the maximum over what
//!   it calls, found by a worklist over the call graph (a call through a
//!   value may reach any function of the module).
//! - **Which parameter a returned reference is.** A function whose every
//!   `return` gives, in some position, one entry parameter (directly, or
//!   through block parameters, `if`s of it, or calls of functions that
//!   return their argument) returns that argument: the call's result is the
//!   argument itself, which makes a store through one and a load through
//!   the other the same cell (Noir's `load_store_forwarding` learns this
//!   from its callees). Recursion is handled by rounds from "unknown"
//!   upwards, each sound on its own, until nothing changes.
//! - **Which returned reference is a fresh cell.** A cell the callee
//!   allocated (itself or through a callee returning a fresh cell) whose
//!   reference reached nothing but loads and stores through it, the jumps
//!   and `if`s carrying it, and the function's one returned reference, is
//!   no cell the caller knows of: the caller keeps it out of the class of
//!   escaped cells (what it holds stays there: the callee may have stored
//!   any reference it reaches into it).
//! - **Which reference parameters are only lent.** A parameter the callee
//!   only loads through (or gives, at such a position, to module functions
//!   that only lend it in turn) is neither written through nor kept: no
//!   store through it or of it, no return, no jump or `if` carrying it, no
//!   oracle, builtin or call through a value given it. A call then reads
//!   the cell at the call and nothing more, so the caller may hand it a
//!   fresh cell holding the current content instead ([`crate::promote`]).
//!   Recursion is resolved from the safe side: a parameter is lent once
//!   every position it is passed to is, a least fixed point found by
//!   counting the positions not yet known (as in Dowling and Gallier's
//!   linear-time Horn satisfiability), so a cycle of calls lends nothing.
//!
//! These facts are about what the functions compute, which the pass
//! preserves, so they stay true while the pass transforms the module.
//! A run on one function without its module ([`ModuleSummary::default`])
//! knows nothing: every call may do anything.
//!
//! FIXME: the facts are read from the functions as they are before the
//! pass, so a callee the pass simplifies may show more (a returned cell
//! now fresh, a parameter now lent) to a second run of the pass than the
//! first saw, and the second run may forward a load in a caller that the
//! first could not (six of the generated programs of `mem2reg`'s
//! differential test run with `MEM2REG_PROGRAMS=20000`, seeds 6029, 6493,
//! 7058, 10291, 14747 and 16172: 8 loads).
//! Computing the facts again after the pass, and running the callers
//! whose callees' facts changed again, would close that gap at the cost
//! of those callers' time.

use std::cell::RefCell;

use kildall_ir::parallel::{available_threads, map_in_order};
use kildall_ir::{
    Block, Callee, DataFlowGraph, EntityRef, EntitySet, FuncId, Function, Inst, InstructionData,
    Module, SecondaryMap, Terminator, Type, Value, ValueDef,
};

/// How far the writes of a call may go, least to most.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// The cells its arguments reach, written only through their `&mut`s.
    MutableArguments,
    /// The cells its arguments reach, through `&T` or `&mut T` alike.
    Arguments,
    /// Every escaped cell (it may run an oracle).
    #[default]
    Everything,
}

/// The facts of one function.
#[derive(Clone, Debug, Default)]
struct FunctionSummary {
    reach: Reach,
    /// Per returned value: what it always is, if known.
    returns: Vec<Option<Returned>>,
    /// Per entry parameter: whether the function neither writes through
    /// it nor keeps it (only loads through it, directly or in callees).
    lent: Vec<bool>,
}

/// What a returned reference always is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Returned {
    /// The entry parameter of this index: the call's argument.
    Parameter(u32),
    /// A cell the callee allocated and gave nothing else (no store of its
    /// reference, no call, no other returned value): no cell the caller
    /// knows of.
    Fresh,
}

/// The facts of every function of a module.
#[derive(Clone, Debug, Default)]
pub struct ModuleSummary {
    functions: Vec<FunctionSummary>,
    /// The reach of a call through a `function` value.
    value_call: Reach,
}

/// How many rounds the returned-parameter facts get: each round sees one
/// more level of calls of functions that return their argument.
const RETURN_ROUNDS: usize = 8;
/// How deep one trace of a returned value follows block parameters, `if`s
/// and calls before giving up.
const TRACE_DEPTH: u32 = 64;

impl ModuleSummary {
    /// The facts of `module`'s functions.
    pub fn compute(module: &Module) -> Self {
        let count = module.functions.len();
        let mut summary = ModuleSummary {
            functions: vec![FunctionSummary::default(); count],
            value_call: Reach::Everything,
        };
        let callees = summary.compute_reach(module);
        // A function's facts can change only when a callee's did since they
        // were computed (the trace reads nothing else of the summary), so a
        // round recomputes only the functions with such a callee, which
        // gives what recomputing every function would. Stamps order the
        // computations and the changes.
        let mut stamp = 0u32;
        let mut computed_at = vec![0u32; count];
        let mut changed_at = vec![0u32; count];
        for _ in 0..RETURN_ROUNDS {
            let mut changed = false;
            for (id, func) in module.functions.iter() {
                let f = id.index();
                let due = computed_at[f] == 0
                    || callees[f].iter().any(|&g| changed_at[g] > computed_at[f]);
                if !due {
                    continue;
                }
                stamp += 1;
                computed_at[f] = stamp;
                let returns = returned_parameters(func, &summary);
                if returns != summary.functions[f].returns {
                    summary.functions[f].returns = returns;
                    stamp += 1;
                    changed_at[f] = stamp;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        summary
    }

    /// The least fixed point of each function's reach: its own calls of
    /// oracles and values, joined with the reach of what it calls; and, on
    /// the same walk, which parameters each function only lends. The walks
    /// of the functions are independent: those of a large module run on
    /// several threads ([`kildall_ir::parallel`]). Returns the module
    /// functions each function calls.
    fn compute_reach(&mut self, module: &Module) -> Vec<Vec<usize>> {
        let count = module.functions.len();
        let scans = map_in_order(
            module.functions.values().collect(),
            |func| func.dfg.num_insts(),
            available_threads(),
            ParameterNumbers::default,
            |numbers, func| Scan::of(func, count, numbers),
        );
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); count];
        let mut value_callers = Vec::new();
        let mut reach = Vec::with_capacity(count);
        let mut lent = LentUses::new(module);
        let mut callees = Vec::with_capacity(count);
        for (f, scan) in scans.into_iter().enumerate() {
            reach.push(scan.reach);
            if scan.calls_values {
                value_callers.push(f);
            }
            for &g in &scan.callees {
                callers[g].push(f);
            }
            lent.add(f, &scan);
            callees.push(scan.callees);
        }
        value_callers.dedup();
        let mut value_call = Reach::Arguments;
        let mut work: Vec<usize> = (0..count).collect();
        while let Some(g) = work.pop() {
            if reach[g] > value_call {
                value_call = reach[g];
                for &f in &value_callers {
                    if reach[f] < value_call {
                        reach[f] = value_call;
                        work.push(f);
                    }
                }
            }
            for &f in &callers[g] {
                if reach[f] < reach[g] {
                    reach[f] = reach[g];
                    work.push(f);
                }
            }
        }
        for (summary, reach) in self.functions.iter_mut().zip(reach) {
            summary.reach = reach;
        }
        let (first, lent) = lent.solve();
        for (f, summary) in self.functions.iter_mut().enumerate() {
            summary.lent = lent[first[f]..first[f + 1]].to_vec();
        }
        self.value_call = value_call;
        callees
    }

    /// Whether a call of `id` neither writes through nor keeps its
    /// argument `index` (a call through a value, an oracle or a builtin
    /// never qualifies).
    pub fn lends(&self, id: FuncId, index: usize) -> bool {
        self.functions
            .get(id.index())
            .and_then(|f| f.lent.get(index))
            .copied()
            .unwrap_or(false)
    }

    /// How far a call of `callee` may write.
    pub fn reach(&self, callee: &Callee) -> Reach {
        match callee {
            Callee::Function(id) => self
                .functions
                .get(id.index())
                .map_or(Reach::Everything, |f| f.reach),
            Callee::Value(_) => self.value_call,
            Callee::Builtin(b) if b.calls_function_values() => self.value_call,
            Callee::Foreign(_) | Callee::Builtin(_) => Reach::Everything,
        }
    }

    /// The index of the parameter that result `index` of a call of `id`
    /// always is, if one is.
    pub fn returned_parameter(&self, id: FuncId, index: usize) -> Option<u32> {
        match self.returned(id, index)? {
            Returned::Parameter(p) => Some(p),
            Returned::Fresh => None,
        }
    }

    /// Whether some function of the module returns one of its parameters.
    fn returns_a_parameter(&self) -> bool {
        self.functions.iter().any(|f| {
            f.returns
                .iter()
                .any(|r| matches!(r, Some(Returned::Parameter(_))))
        })
    }

    /// What result `index` of a call of `callee` always is, if known.
    pub fn returned_by(&self, callee: &Callee, index: usize) -> Option<Returned> {
        match callee {
            Callee::Function(id) => self.returned(*id, index),
            _ => None,
        }
    }

    fn returned(&self, id: FuncId, index: usize) -> Option<Returned> {
        *self.functions.get(id.index())?.returns.get(index)?
    }
}

/// What the walk of one function finds, before its callees are known.
struct Scan {
    /// How far its own instructions write: oracles, calls through values,
    /// and calls of functions outside the module.
    reach: Reach,
    /// Whether it calls through a `function` value.
    calls_values: bool,
    /// The module functions it calls (with repeats).
    callees: Vec<usize>,
    /// Per entry parameter: whether the function itself only loads
    /// through it or passes it to module functions.
    local: Vec<bool>,
    /// (parameter, callee, position) of each reference parameter passed to
    /// a module function.
    passed: Vec<(u32, usize, usize)>,
}

/// The number of each reference parameter of the function being walked,
/// kept by a thread from one function to the next.
struct ParameterNumbers {
    number: SecondaryMap<Value, u32>,
    params: Vec<Value>,
}

impl Default for ParameterNumbers {
    fn default() -> Self {
        ParameterNumbers {
            number: SecondaryMap::with_default(u32::MAX),
            params: Vec::new(),
        }
    }
}

impl Scan {
    /// Walks `func`, a function of a module of `count` functions.
    fn of(func: &Function, count: usize, numbers: &mut ParameterNumbers) -> Scan {
        let mut scan = Scan {
            reach: Reach::MutableArguments,
            calls_values: false,
            callees: Vec::new(),
            local: Vec::new(),
            passed: Vec::new(),
        };
        let Some(entry) = func.entry_block() else {
            scan.reach = Reach::Everything;
            return scan;
        };
        let dfg = &func.dfg;
        numbers.begin(dfg, entry);
        scan.local = vec![false; dfg.block_params(entry).len()];
        for &p in &numbers.params {
            scan.local[numbers.number[p] as usize] = true;
        }
        let lends = !numbers.params.is_empty();
        for block in func.layout.blocks() {
            if lends {
                if let Some(term) = dfg.terminator(block) {
                    for &v in term.arguments() {
                        scan.kept(dfg, numbers, v);
                    }
                }
            }
            for inst in func.layout.block_insts(block) {
                let data = &dfg[inst];
                if lends {
                    scan.uses(dfg, numbers, data);
                }
                let InstructionData::Call { callee, .. } = data else {
                    continue;
                };
                match callee {
                    Callee::Builtin(b) if !b.calls_function_values() => {}
                    Callee::Foreign(_) => scan.reach = Reach::Everything,
                    // `vector_enumerate` calls the function values it is
                    // given, as a call through a value does.
                    Callee::Value(_) | Callee::Builtin(_) => {
                        scan.reach = scan.reach.max(Reach::Arguments);
                        scan.calls_values = true;
                    }
                    Callee::Function(g) if g.index() < count => scan.callees.push(g.index()),
                    Callee::Function(_) => scan.reach = Reach::Everything,
                }
            }
        }
        scan
    }

    /// A use of `v` that keeps it or writes through it, if `v` is a
    /// reference parameter.
    fn kept(&mut self, dfg: &DataFlowGraph, numbers: &ParameterNumbers, v: Value) {
        if let Some(k) = numbers.of(dfg, v) {
            self.local[k as usize] = false;
        }
    }

    /// Records the uses of the reference parameters by one instruction.
    fn uses(&mut self, dfg: &DataFlowGraph, numbers: &ParameterNumbers, data: &InstructionData) {
        match data {
            InstructionData::Load { .. }
            | InstructionData::IncRc { .. }
            | InstructionData::DecRc { .. } => {}
            InstructionData::Call {
                callee: Callee::Function(g),
                args,
            } => {
                for (j, &a) in args.iter().enumerate() {
                    if let Some(k) = numbers.of(dfg, a) {
                        self.passed.push((k, g.index(), j));
                    }
                }
            }
            data => {
                for &v in data.arguments().as_slice() {
                    self.kept(dfg, numbers, v);
                }
            }
        }
    }
}

impl ParameterNumbers {
    /// Numbers the reference parameters of `entry`, forgetting the last
    /// function's.
    fn begin(&mut self, dfg: &DataFlowGraph, entry: Block) {
        for &p in &self.params {
            self.number[p] = u32::MAX;
        }
        self.params.clear();
        for (k, &p) in dfg.block_params(entry).iter().enumerate() {
            if matches!(
                dfg.value_type(p),
                Type::Reference(_) | Type::ImmutableReference(_)
            ) {
                self.number[p] = k as u32;
                self.params.push(p);
            }
        }
    }

    /// The number of the parameter `v` is, if it is one.
    fn of(&self, dfg: &DataFlowGraph, v: Value) -> Option<u32> {
        let k = self.number[dfg.resolve(v)];
        (k != u32::MAX).then_some(k)
    }
}

/// The constraints of the lent-parameter facts, one node per entry
/// parameter of the module (numbered function by function), gathered from
/// the walks of [`ModuleSummary::compute_reach`], and their least fixed
/// point: a parameter is lent once its own function only loads through it
/// or passes it on, and every position it is passed to is lent, found by
/// counting the positions not yet known (as in Dowling and Gallier's
/// linear-time Horn satisfiability).
struct LentUses {
    /// Each function's first node, and one past the last.
    first: Vec<usize>,
    /// Whether the parameter's own function only loads through it or
    /// passes it to module functions.
    local: Vec<bool>,
    /// How many positions of callees it is passed to are not yet lent.
    waiting: Vec<u32>,
    /// The parameters waiting for this one.
    dependents: Vec<Vec<usize>>,
}

impl LentUses {
    fn new(module: &Module) -> Self {
        let mut first = Vec::with_capacity(module.functions.len() + 1);
        let mut total = 0usize;
        for (_, func) in module.functions.iter() {
            first.push(total);
            total += func
                .entry_block()
                .map_or(0, |b| func.dfg.block_params(b).len());
        }
        first.push(total);
        LentUses {
            first,
            local: vec![false; total],
            waiting: vec![0; total],
            dependents: vec![Vec::new(); total],
        }
    }

    /// Adds the constraints of function `f`, as its walk found them.
    fn add(&mut self, f: usize, scan: &Scan) {
        let base = self.first[f];
        self.local[base..base + scan.local.len()].copy_from_slice(&scan.local);
        for &(k, g, j) in &scan.passed {
            let n = base + k as usize;
            let position = self.first.get(g).map(|first| first + j);
            match position {
                Some(position) if g + 1 < self.first.len() && position < self.first[g + 1] => {
                    self.waiting[n] += 1;
                    self.dependents[position].push(n);
                }
                _ => self.local[n] = false,
            }
        }
    }

    /// The least fixed point: whether each parameter is lent.
    fn solve(mut self) -> (Vec<usize>, Vec<bool>) {
        let total = self.local.len();
        let mut lent = vec![false; total];
        let mut work: Vec<usize> = (0..total)
            .filter(|&n| self.local[n] && self.waiting[n] == 0)
            .collect();
        while let Some(n) = work.pop() {
            lent[n] = true;
            for &d in &self.dependents[n] {
                self.waiting[d] -= 1;
                if self.waiting[d] == 0 && self.local[d] {
                    work.push(d);
                }
            }
        }
        (self.first, lent)
    }
}

/// Per returned position of `func`: the entry parameter every `return`
/// gives there, if one does.
fn returned_parameters(func: &Function, summary: &ModuleSummary) -> Vec<Option<Returned>> {
    let Some(entry) = func.entry_block() else {
        return Vec::new();
    };
    let dfg = &func.dfg;
    let returns: Vec<&[Value]> = func
        .layout
        .blocks()
        .filter_map(|block| match dfg.terminator(block) {
            Some(Terminator::Return { values }) => Some(values.as_slice()),
            _ => None,
        })
        .collect();
    // Only a returned reference is ever looked up: a function returning
    // none needs no trace (and most functions of a large module return none).
    let returns_reference = |values: &[Value]| {
        values
            .iter()
            .any(|&v| dfg.value_type(v).contains_reference())
    };
    if !returns.first().is_some_and(|r| returns_reference(r)) {
        return Vec::new();
    }
    let mut incoming: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    for block in func.layout.blocks() {
        if let Some(term) = dfg.terminator(block) {
            for edge in term.edges() {
                let params = dfg.block_params(edge.destination);
                for (&p, &a) in params.iter().zip(edge.arguments) {
                    incoming[p].push(a);
                }
            }
        }
    }
    let leaked = leaked_references(func, &incoming);
    let tracer = Tracer {
        dfg,
        entry,
        incoming: &incoming,
        leaked: &leaked,
        summary,
        memo: RefCell::default(),
    };
    let Some(&first) = returns.first() else {
        return Vec::new();
    };
    if returns.iter().any(|r| r.len() != first.len()) {
        return Vec::new();
    }
    let mut result: Vec<Option<Returned>> = (0..first.len())
        .map(|k| {
            let p = tracer.trace(first[k], 0)?;
            returns[1..]
                .iter()
                .all(|r| tracer.trace(r[k], 0) == Some(p))
                .then_some(p)
        })
        .collect();
    // A fresh cell returned in one position may also be returned in
    // another (through an `if` or a block parameter the trace gives up on):
    // only a function returning one reference at all returns a fresh one.
    let references = first
        .iter()
        .filter(|&&v| dfg.value_type(v).contains_reference())
        .count();
    if references > 1 {
        for r in &mut result {
            if *r == Some(Returned::Fresh) {
                *r = None;
            }
        }
    }
    result
}

/// The references of `func` that may reach anything but a `load` or
/// `store` through them, a jump or `if` that passes them on, or a
/// `return`: stored, given to a call, put in an array, compared. A block
/// parameter or `if` result that leaks leaks what flows into it.
fn leaked_references(
    func: &Function,
    incoming: &SecondaryMap<Value, Vec<Value>>,
) -> EntitySet<Value> {
    let dfg = &func.dfg;
    let mut leaked = EntitySet::new();
    let mut arms: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            match dfg[inst] {
                InstructionData::Load { .. } => {}
                InstructionData::Store { value, .. } => {
                    leaked.insert(value);
                }
                InstructionData::IfElse {
                    then_value,
                    else_value,
                    ..
                } => {
                    if let Some(r) = dfg.first_result(inst) {
                        arms[r].extend([then_value, else_value]);
                    }
                }
                ref data => {
                    for &v in data.arguments().as_slice() {
                        leaked.insert(v);
                    }
                }
            }
        }
    }
    let mut work: Vec<Value> = leaked.iter().collect();
    while let Some(v) = work.pop() {
        for &source in incoming[v].iter().chain(&arms[v]) {
            if !leaked.contains(source) {
                leaked.insert(source);
                work.push(source);
            }
        }
    }
    leaked
}

/// Follows a value back to the entry parameter it always is.
struct Tracer<'a> {
    dfg: &'a DataFlowGraph,
    entry: Block,
    /// The arguments every jump passes each block parameter.
    incoming: &'a SecondaryMap<Value, Vec<Value>>,
    /// The references that may reach more than the `return`.
    leaked: &'a EntitySet<Value>,
    summary: &'a ModuleSummary,
    /// What each value was found to be: a chain of joins or `if`s reaches
    /// one value by many paths, which must not be followed again each time
    /// (the trace stays linear in the function).
    memo: RefCell<SecondaryMap<Value, Traced>>,
}

/// A value's state in the [`Tracer`]'s memo.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum Traced {
    #[default]
    Unvisited,
    /// Being traced: met again, it is a cycle of block parameters, which
    /// is not known to be one parameter.
    InProgress,
    Done(Option<Returned>),
}

impl Tracer<'_> {
    fn trace(&self, value: Value, depth: u32) -> Option<Returned> {
        if depth > TRACE_DEPTH {
            return None;
        }
        let value = self.dfg.resolve(value);
        match self.memo.borrow()[value] {
            Traced::Unvisited => {}
            Traced::InProgress => return None,
            Traced::Done(found) => return found,
        }
        self.memo.borrow_mut()[value] = Traced::InProgress;
        let found = self.trace_definition(value, depth);
        self.memo.borrow_mut()[value] = Traced::Done(found);
        found
    }

    fn trace_definition(&self, value: Value, depth: u32) -> Option<Returned> {
        match self.dfg.value_def(value) {
            ValueDef::Param(block, index) if block == self.entry => {
                Some(Returned::Parameter(index))
            }
            ValueDef::Param(..) => {
                // Every binding but the parameter itself (a loop passing it
                // back) must be the same parameter.
                let mut found = None;
                for &argument in &self.incoming[value] {
                    if self.dfg.resolve(argument) == value {
                        continue;
                    }
                    let p = self.trace(argument, depth + 1)?;
                    if found.is_some_and(|f| f != p) {
                        return None;
                    }
                    found = Some(p);
                }
                found
            }
            ValueDef::Result(inst, index) => self.trace_result(inst, index as usize, depth),
            _ => None,
        }
    }

    fn trace_result(&self, inst: Inst, index: usize, depth: u32) -> Option<Returned> {
        let fresh = || {
            let result = self.dfg.inst_results(inst)[index];
            (!self.leaked.contains(result)).then_some(Returned::Fresh)
        };
        match &self.dfg[inst] {
            InstructionData::Allocate => fresh(),
            InstructionData::IfElse {
                then_value,
                else_value,
                ..
            } => {
                let p = self.trace(*then_value, depth + 1)?;
                (self.trace(*else_value, depth + 1)? == p).then_some(p)
            }
            InstructionData::Call {
                callee: Callee::Function(id),
                args,
            } => match self.summary.returned(*id, index)? {
                Returned::Parameter(argument) => {
                    self.trace(*args.get(argument as usize)?, depth + 1)
                }
                Returned::Fresh => fresh(),
            },
            _ => None,
        }
    }
}

/// Makes the result of each call that returns one of its arguments that
/// argument (when their types are the same): the call gets a fresh result
/// in its place, and the old one becomes an alias of the argument, whose
/// uses the pass's next walk renames. Returns the replaced results.
///
/// Only calls under the side-effects predicate 1 qualify: under a predicate
/// that may be 0 the call may not happen, and its results are then zero
/// values.
pub fn replace_returned_arguments(func: &mut Function, summary: &ModuleSummary) -> Vec<Value> {
    if !summary.returns_a_parameter() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for block in func.layout.blocks() {
        let mut predicate_one = true;
        for inst in func.layout.block_insts(block) {
            let (callee, args) = match &func.dfg[inst] {
                InstructionData::EnableSideEffects { condition } => {
                    predicate_one = crate::is_predicate_one(&func.dfg, *condition);
                    continue;
                }
                InstructionData::Call { callee, args } if predicate_one => (callee, args),
                _ => continue,
            };
            let Callee::Function(id) = callee else {
                continue;
            };
            for (index, &result) in func.dfg.inst_results(inst).iter().enumerate() {
                let Some(argument) = summary
                    .returned_parameter(*id, index)
                    .and_then(|p| args.get(p as usize))
                else {
                    continue;
                };
                let ty = func.dfg.value_type(result);
                if ty.contains_reference() && ty == func.dfg.value_type(*argument) {
                    found.push((inst, index, *argument));
                }
            }
        }
    }
    let mut replaced = Vec::new();
    let mut i = 0;
    while i < found.len() {
        let inst = found[i].0;
        let results = func.dfg.inst_results(inst).to_vec();
        func.dfg.detach_results(inst);
        for (index, &result) in results.iter().enumerate() {
            let ty = func.dfg.value_type(result).clone();
            match found[i..].iter().find(|f| f.0 == inst && f.1 == index) {
                Some(&(_, _, argument)) => {
                    func.dfg.append_result(inst, ty);
                    func.dfg.replace_all_uses(result, argument);
                    replaced.push(result);
                }
                None => func.dfg.attach_result(inst, result, ty),
            }
        }
        while i < found.len() && found[i].0 == inst {
            i += 1;
        }
    }
    replaced
}

/// The cells the calls of one function may read and write, where a
/// [`ModuleSummary`] narrows them to cell types: per call, the types of
/// the cells written and read (`&T` and `&mut T` alike), or no entry when
/// the call may touch every escaped cell.
pub struct CallAccess {
    index: SecondaryMap<Inst, u32>,
    calls: Vec<CellTypes>,
}

/// The cell types a call writes and reads.
struct CellTypes {
    written: Vec<Type>,
    read: Vec<Type>,
}

const UNRESTRICTED: u32 = u32::MAX;

impl Default for CallAccess {
    fn default() -> Self {
        Self::new()
    }
}

impl CallAccess {
    /// No call seen yet.
    pub fn new() -> Self {
        CallAccess {
            index: SecondaryMap::with_default(UNRESTRICTED),
            calls: Vec::new(),
        }
    }

    /// Records what call `inst` of `callee` with `args` may touch.
    pub fn add_call(
        &mut self,
        dfg: &DataFlowGraph,
        inst: Inst,
        (callee, args): (&Callee, &[Value]),
        summary: &ModuleSummary,
    ) {
        let reach = summary.reach(callee);
        if reach == Reach::Everything || !callee.runs_unknown_code() {
            return;
        }
        let mut written = Vec::new();
        let mut read = Vec::new();
        for &arg in args {
            let ty = dfg.value_type(arg);
            cell_types(ty, true, &mut written);
            cell_types(ty, false, &mut read);
        }
        if reach == Reach::Arguments {
            written.clone_from(&read);
        }
        self.index[inst] = self.calls.len() as u32;
        self.calls.push(CellTypes { written, read });
    }

    /// Whether call `inst` (of unknown code, whose alias class holds
    /// `address`) may write the cell `address` names.
    pub fn may_write(&self, dfg: &DataFlowGraph, inst: Inst, address: Value) -> bool {
        self.may(dfg, inst, address, |c| &c.written)
    }

    /// Whether call `inst` may read the cell `address` names.
    pub fn may_read(&self, dfg: &DataFlowGraph, inst: Inst, address: Value) -> bool {
        self.may(dfg, inst, address, |c| &c.read)
    }

    /// Whether call `inst` may touch every cell of its class, whatever its
    /// type.
    pub fn is_unrestricted(&self, inst: Inst) -> bool {
        self.index[inst] == UNRESTRICTED
    }

    fn may(
        &self,
        dfg: &DataFlowGraph,
        inst: Inst,
        address: Value,
        types: impl Fn(&CellTypes) -> &Vec<Type>,
    ) -> bool {
        let i = self.index[inst];
        if i == UNRESTRICTED {
            return true;
        }
        let Some(cell) = dfg.value_type(address).pointee() else {
            return true;
        };
        types(&self.calls[i as usize])
            .iter()
            .any(|t| t.is_same_cell_type(cell))
    }
}

/// Adds the types of the cells a value of type `ty` reaches (through any
/// reference, or only through `&mut` ones if `mutable`) to `out`, and what
/// those cells' contents reach in turn.
fn cell_types(ty: &Type, mutable: bool, out: &mut Vec<Type>) {
    match ty {
        Type::Reference(pointee) | Type::ImmutableReference(pointee) => {
            let through_mut = matches!(ty, Type::Reference(_));
            if (through_mut || !mutable) && !out.iter().any(|t| t.is_same_cell_type(pointee)) {
                out.push(Type::clone(pointee));
            }
            cell_types(pointee, mutable, out);
        }
        Type::Array(elements, _) | Type::Slice(elements) => {
            for element in elements.iter() {
                cell_types(element, mutable, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lent(text: &str) -> Vec<Vec<bool>> {
        let module = kildall_ir::parse_module(text).expect("the test module parses");
        let summary = ModuleSummary::compute(&module);
        summary.functions.iter().map(|f| f.lent.clone()).collect()
    }

    /// A reference returned through a chain of joins, each reached by two
    /// jumps passing the join before it: a trace without its memo follows
    /// 2^48 paths.
    #[test]
    fn a_chain_of_joins_is_traced_once_per_value() {
        const JOINS: usize = 48;
        let mut text = String::from(
            "brillig(inline) fn id f0 {\n  b0(v0: &mut Field, v1: u1):\n    jmp b1(v0)\n",
        );
        for k in 0..JOINS {
            let (join, then, other, next) = (1 + 3 * k, 2 + 3 * k, 3 + 3 * k, 4 + 3 * k);
            let param = 2 + k;
            text += &format!(
                "  b{join}(v{param}: &mut Field):\n    jmpif v1 then: b{then}(), else: b{other}()\n\
                 \x20 b{then}():\n    jmp b{next}(v{param})\n\
                 \x20 b{other}():\n    jmp b{next}(v{param})\n"
            );
        }
        text += &format!(
            "  b{}(v{}: &mut Field):\n    return v{}\n}}\n",
            1 + 3 * JOINS,
            2 + JOINS,
            2 + JOINS
        );
        let module = kildall_ir::parse_module(&text).expect("the test module parses");
        let summary = ModuleSummary::compute(&module);
        assert_eq!(
            summary.returned(FuncId::new(0), 0),
            Some(Returned::Parameter(0))
        );
    }

    #[test]
    fn a_chain_of_readers_lends_and_a_cycle_lends_nothing() {
        let text = "
brillig(inline) fn main f0 {
  b0(v0: &mut Field):
    v1 = call f1(v0) -> Field
    v2 = call f3(v0, Field 1) -> Field
    return v1
}
brillig(inline) fn ping f1 {
  b0(v0: &mut Field):
    v1 = call f2(v0) -> Field
    return v1
}
brillig(inline) fn pong f2 {
  b0(v0: &mut Field):
    v1 = load v0 -> Field
    v2 = call f1(v0) -> Field
    return v1
}
brillig(inline) fn outer f3 {
  b0(v0: &mut Field, v1: Field):
    v2 = call f4(v0, v0) -> Field
    return v2
}
brillig(inline) fn inner f4 {
  b0(v0: &mut Field, v1: &mut Field):
    v2 = load v0 -> Field
    dec_rc v1
    return v2
}";
        let expected = [
            vec![false],
            vec![false],
            vec![false],
            vec![true, false],
            vec![true, true],
        ];
        assert_eq!(lent(text), expected);
    }

    #[test]
    fn a_parameter_given_elsewhere_is_kept() {
        let text = "
brillig(inline) fn jumps f0 {
  b0(v0: &mut Field):
    jmp b1(v0)
  b1(v1: &mut Field):
    v2 = load v1 -> Field
    return v2
}
brillig(inline) fn through_value f1 {
  b0(v0: &mut Field, v1: function):
    v2 = call v1(v0) -> Field
    return v2
}
brillig(inline) fn in_array f2 {
  b0(v0: &mut Field):
    v1 = make_array [v0] : [&mut Field; 1]
    return
}";
        assert_eq!(lent(text), [vec![false], vec![false, false], vec![false]]);
    }
}
