//! Alias classes: which references may point to the same memory cell.
//!
//! Noir's mem2reg alias sets (`{v1, *v2[0], v3[0], v4}`) are computed here with
//! Steensgaard's unification-based points-to analysis (B. Steensgaard,
//! "Points-to Analysis in Almost Linear Time", POPL 1996): every value whose
//! type contains a reference gets a node standing for the cells its
//! references may point to, and every instruction that moves references
//! around unifies nodes, so the whole function costs one pass and
//! near-constant time per instruction. Two references may alias exactly when
//! their nodes end in the same class.
//!
//! The rules are Noir's alias-set rules, made flow-insensitive:
//! - `allocate` makes a fresh class (a reference aliases itself);
//! - the reference parameters of the entry block may alias each other, but
//!   only through cells of one type: a cell has one type, and a reference
//!   of type `&mut T` or `&T` names a cell of `T` (the verifier checks it
//!   where types are static, the interpreter where they are not, see
//!   `kildall-interpreter`'s memory). Parameters whose types reach a common
//!   cell type (directly, or through the references their cells hold)
//!   share one class that also holds everything stored in it; the others
//!   get classes of their own;
//! - `store v at a` and `vR = load a` unify the class of `v` (or `vR`) with the
//!   contents of `a`'s class (storing a reference into a reference);
//! - `make_array`, `array_set` (at any index: arrays are summarised, so a
//!   dynamic index needs no special case), `array_get`, `if` and block
//!   parameters unify the classes of the values they combine;
//! - a call of code the pass cannot see (a module function, a `function`
//!   value, a foreign oracle) unifies everything reachable from its
//!   arguments and results with the parameters' class into one class that
//!   contains itself, the *world*, since the callee may store any of those
//!   references into any of those cells; and every such call may write the
//!   world, whatever it is given. One world rather than a class per call,
//!   because oracles keep state: a cell given to one call, or to an oracle
//!   by the function's caller, may come back from any later call (a callee
//!   may call oracles too). A call is the only way a reference leaves the
//!   function besides `return`, so the world is *escaped*.
//!
//! The parameters' classes join the world at the first such call.
//!
//! Two refinements narrow a class without splitting it. A cell has one
//! type, and the interpreter traps on a reference to a cell of another, so
//! references to cells of different types never name the same cell: each
//! class is split into *cell classes*, one per cell type
//! ([`AliasClasses::cell_class`]; a class whose references name cells of
//! several types, the world above all, has several), and a store through
//! one reference writes only the cells of its cell class. And a call of a
//! module function that runs no oracle touches only the cells its
//! arguments reach, written only through their `&mut`s
//! ([`crate::summary`]): [`AliasClasses::call_may_write`] and
//! [`AliasClasses::call_may_read`] tell, per call and address, what a
//! call's class alone cannot.
//!
//! A cell whose only escapes are calls that only lend it (neither write
//! through nor keep the reference, [`crate::summary`]) still escapes here:
//! promotion takes such a cell whole, handing each call a fresh cell
//! holding its content at the call ([`crate::promote`]), and a cell it
//! leaves is one the calls may reach.
//!
//! Unions at joins are implicit: the classes are valid at every program point.

use std::collections::HashMap;

use crate::summary::{CallAccess, ModuleSummary, Returned};
use crate::Renames;
use kildall_ir::{
    Block, Callee, DataFlowGraph, EntityRef, EntitySet, Function, Inst, InstructionData, Layout,
    SecondaryMap, Terminator, Type, Value,
};

/// A node of the unification graph: an index into [`AliasClasses::parent`].
type Node = u32;
const NO_NODE: u32 = u32::MAX;

/// What [`AliasClasses::compute_visiting`] shows its visitor.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Visit<'a> {
    /// An instruction of the current block.
    Inst(Inst, &'a InstructionData),
    /// The end of a block (its instructions were all visited).
    BlockEnd(Block),
}

/// The instructions the computation of the classes reads: as they are, or
/// rewritten by pending renames one at a time, just before the walk reads
/// them.
enum WalkedDfg<'f> {
    AsIs(&'f DataFlowGraph),
    Renaming(&'f mut DataFlowGraph, &'f Renames),
}

impl WalkedDfg<'_> {
    fn dfg(&self) -> &DataFlowGraph {
        match self {
            WalkedDfg::AsIs(dfg) => dfg,
            WalkedDfg::Renaming(dfg, _) => dfg,
        }
    }

    /// The instructions, with `inst`'s operands renamed.
    fn renamed_inst(&mut self, inst: Inst) -> &DataFlowGraph {
        if let WalkedDfg::Renaming(dfg, renames) = self {
            renames.inst(dfg, inst);
        }
        self.dfg()
    }

    /// The instructions, with the arguments of `block`'s terminator renamed.
    fn renamed_terminator(&mut self, block: Block) -> &DataFlowGraph {
        if let WalkedDfg::Renaming(dfg, renames) = self {
            renames.terminator(dfg, block);
        }
        self.dfg()
    }
}

/// The alias classes of one function's references.
#[derive(Default)]
pub struct AliasClasses {
    parent: Vec<Node>,
    /// The class of the references stored in the cells of a class, or `NO_NODE`.
    content: Vec<Node>,
    escaped: Vec<bool>,
    loaded: Vec<bool>,
    /// Union by size.
    size: Vec<u32>,
    value_node: SecondaryMap<Value, u32>,
    call_class: SecondaryMap<Inst, u32>,
    /// The class of everything code outside the function may hold: the
    /// parameters' cells and whatever a call of unknown code is given or
    /// gives. One class, because a foreign oracle keeps state: a cell given
    /// to one call (or to the caller's oracles, for a parameter) may come
    /// back from any later call, and any call may write it.
    world: Option<Node>,
    /// The calls of unknown code, each of which touches the world.
    unknown_calls: Vec<Inst>,
    /// The classes of the parameters' cells, until a call of unknown code
    /// joins them into the world.
    parameter_classes: Vec<Node>,
    /// Per value: 0 holds no reference, 1 holds some (an array of them),
    /// 2 is a reference. Read from the types in one sequential pass, so
    /// that the walks over instructions look up a byte, not a type (a
    /// cache miss per operand on a large function).
    kind: Vec<u8>,
    /// The cell types each call of unknown code may touch, where the
    /// module's summary narrows them.
    access: CallAccess,
    /// The stores whose unification joined two classes when the walk met
    /// them ([`Self::store_joins_classes`]).
    joining_stores: EntitySet<Inst>,
    /// Per reference: its cell class ([`Self::cell_class`]); `NO_NODE` for
    /// the other values.
    cell_class: SecondaryMap<Value, u32>,
    /// Per class: its first cell class, `NO_NODE` if it has no reference.
    first_cell_class: Vec<u32>,
    /// The cell classes of each class with more than one (whose references
    /// name cells of several types: the world, a parameter reaching
    /// several, an array of several), by root.
    mixed_cell_classes: HashMap<Node, Vec<u32>>,
}

impl AliasClasses {
    /// Computes the classes of `func`'s values; `summary` tells what the
    /// calls of module functions may touch.
    pub fn compute(func: &Function, summary: &ModuleSummary) -> Self {
        Self::compute_with(
            &func.layout,
            WalkedDfg::AsIs(&func.dfg),
            summary,
            &mut |_, _| {},
        )
    }

    /// [`Self::compute`] on a function whose operands `renames` still has
    /// to rewrite (each instruction is rewritten just before the walk reads
    /// it, so the renaming costs no walk of its own), calling `visit` on
    /// every instruction and at the end of every block on the way, in
    /// layout order, so that a client needing its own walk over the
    /// function shares this one.
    pub(crate) fn compute_visiting(
        func: &mut Function,
        summary: &ModuleSummary,
        renames: Option<&Renames>,
        visit: &mut dyn FnMut(&DataFlowGraph, Visit<'_>),
    ) -> Self {
        let dfg = match renames {
            Some(renames) => WalkedDfg::Renaming(&mut func.dfg, renames),
            None => WalkedDfg::AsIs(&func.dfg),
        };
        Self::compute_with(&func.layout, dfg, summary, visit)
    }

    fn compute_with(
        layout: &Layout,
        dfg: WalkedDfg<'_>,
        summary: &ModuleSummary,
        visit: &mut dyn FnMut(&DataFlowGraph, Visit<'_>),
    ) -> Self {
        let mut this = AliasClasses {
            value_node: SecondaryMap::with_default(NO_NODE),
            call_class: SecondaryMap::with_default(NO_NODE),
            cell_class: SecondaryMap::with_default(NO_NODE),
            ..Default::default()
        };
        this.build(layout, dfg, summary, visit);
        this
    }

    fn build(
        &mut self,
        layout: &Layout,
        mut walked: WalkedDfg<'_>,
        summary: &ModuleSummary,
        visit: &mut dyn FnMut(&DataFlowGraph, Visit<'_>),
    ) {
        let dfg = walked.dfg();
        self.kind = dfg
            .values()
            .map(|(_, ty)| match ty {
                ty if ty.is_reference() => 2,
                ty => u8::from(ty.contains_reference()),
            })
            .collect();
        let kind = std::mem::take(&mut self.kind);
        let has_refs = |v: Value| kind.get(v.index()).is_none_or(|&k| k > 0);
        // Parameters of the function: self-containing classes, one per
        // group of parameters whose types reach a common cell type.
        if let Some(entry) = layout.entry_block() {
            self.add_parameters(dfg, dfg.block_params(entry), &has_refs);
        }
        let mut loads = Vec::new();
        for block in layout.blocks() {
            for inst in layout.block_insts(block) {
                let dfg = walked.renamed_inst(inst);
                visit(dfg, Visit::Inst(inst, &dfg[inst]));
                self.add_inst(dfg, (inst, summary), &has_refs, &mut loads);
                if let InstructionData::Call { callee, args } = &dfg[inst] {
                    self.access.add_call(dfg, inst, (callee, args), summary);
                }
            }
            let dfg = walked.renamed_terminator(block);
            visit(dfg, Visit::BlockEnd(block));
            self.add_terminator(dfg, block, &has_refs);
        }
        let dfg = walked.dfg();
        self.kind = kind;
        if let Some(world) = self.world {
            for &inst in &self.unknown_calls {
                self.call_class[inst] = world;
            }
        }
        // Flatten: every node points at its representative, so queries are O(1).
        for n in 0..self.parent.len() as Node {
            let root = self.find_compress(n);
            self.parent[n as usize] = root;
        }
        for address in loads {
            let n = self.class_of_node(self.value_node[address]);
            self.loaded[n as usize] = true;
        }
        self.find_cell_classes(dfg);
        // Resolve the call classes to their final representatives.
        let calls: Vec<Inst> = self
            .call_class
            .keys()
            .filter(|&i| self.call_class[i] != NO_NODE)
            .collect();
        for inst in calls {
            self.call_class[inst] = self.find(self.call_class[inst]);
        }
    }

    /// Splits each class by cell type into cell classes ([`Self::cell_class`]),
    /// comparing each reference's cell type with those already seen in its
    /// class (interned types: equal types are usually one pointer).
    fn find_cell_classes(&mut self, dfg: &DataFlowGraph) {
        let nodes = self.parent.len();
        self.first_cell_class = vec![NO_NODE; nodes];
        let same = |a: &Type, b: &Type| std::ptr::eq(a, b) || a.is_same_cell_type(b);
        let mut first: Vec<Option<&Type>> = vec![None; nodes];
        let mut mixed: HashMap<Node, Vec<(&Type, u32)>> = HashMap::new();
        let mut next = 0u32;
        for (v, &kind) in self.kind.iter().enumerate() {
            let value = Value::new(v);
            let n = self.value_node[value];
            if kind != 2 || n == NO_NODE {
                continue;
            }
            let root = self.parent[n as usize];
            let Some(cell) = dfg.value_type(value).pointee() else {
                continue;
            };
            let r = root as usize;
            let id = match first[r] {
                None => {
                    first[r] = Some(cell);
                    self.first_cell_class[r] = next;
                    next += 1;
                    next - 1
                }
                Some(seen) if same(seen, cell) => self.first_cell_class[r],
                Some(seen) => {
                    let types = mixed
                        .entry(root)
                        .or_insert_with(|| vec![(seen, self.first_cell_class[r])]);
                    match types.iter().find(|(ty, _)| same(ty, cell)) {
                        Some(&(_, id)) => id,
                        None => {
                            types.push((cell, next));
                            next += 1;
                            next - 1
                        }
                    }
                }
            };
            self.cell_class[value] = id;
        }
        self.mixed_cell_classes = mixed
            .into_iter()
            .map(|(root, types)| (root, types.into_iter().map(|(_, id)| id).collect()))
            .collect();
    }

    /// The classes one instruction joins: a stored value with its cell's
    /// content, a load's result with it, everything a call of unknown code
    /// is given or gives (external), and everything the instructions that
    /// move references between values take and give.
    fn add_inst(
        &mut self,
        dfg: &DataFlowGraph,
        (inst, summary): (Inst, &ModuleSummary),
        has_refs: &impl Fn(Value) -> bool,
        loads: &mut Vec<Value>,
    ) {
        // Results are fetched only by the instructions that move
        // references: most instructions compute numbers.
        let results = || dfg.inst_results(inst);
        match &dfg[inst] {
            InstructionData::Allocate => {
                for &r in results() {
                    self.node(r);
                }
            }
            InstructionData::Store { value, address } => {
                let a = self.node(*address);
                if has_refs(*value) {
                    let c = self.content(a);
                    let v = self.node(*value);
                    if self.find(c) != self.find(v) {
                        self.joining_stores.insert(inst);
                    }
                    self.unify(c, v);
                }
            }
            InstructionData::Load { address } => {
                let a = self.node(*address);
                loads.push(*address);
                if let Some(&r) = results().first() {
                    if has_refs(r) {
                        let c = self.content(a);
                        let rn = self.node(r);
                        self.unify(c, rn);
                    }
                }
            }
            InstructionData::Call { callee, args } if callee.runs_unknown_code() => {
                self.unknown_calls.push(inst);
                // The first such call joins the parameters' classes into
                // the world: the caller's oracles may hold any of them.
                for class in std::mem::take(&mut self.parameter_classes) {
                    self.join_world(class);
                }
                let fresh =
                    |index: usize| summary.returned_by(callee, index) == Some(Returned::Fresh);
                let given = results()
                    .iter()
                    .enumerate()
                    .filter(|&(index, _)| !fresh(index))
                    .map(|(_, r)| r);
                let mut class = self.unify_refs(args.iter().chain(given), has_refs);
                // A fresh cell is no cell the caller knows, but it may hold
                // anything the call reaches.
                for (_, &r) in results()
                    .iter()
                    .enumerate()
                    .filter(|&(index, _)| fresh(index))
                {
                    let cell = self.node(r);
                    let content = self.content(cell);
                    class = Some(match class {
                        None => content,
                        Some(c) => self.unify(c, content),
                    });
                }
                if let Some(c) = class {
                    self.make_external(c);
                    self.join_world(c);
                }
            }
            InstructionData::MakeArray { .. }
            | InstructionData::ArrayGet { .. }
            | InstructionData::ArraySet { .. }
            | InstructionData::IfElse { .. }
            | InstructionData::Call {
                callee: Callee::Builtin(_),
                ..
            } => {
                // The instructions that move references between values: one
                // class for all of them (arrays are summarised, so any
                // index, constant or dynamic). These builtins (not
                // `vector_enumerate`, an unknown call above) never store
                // through a reference, but the slice operations, `as_vector`
                // and `black_box` pass references from arguments to results.
                let arguments = dfg[inst].arguments();
                self.unify_refs(arguments.as_slice().iter().chain(results()), has_refs);
            }
            // The rest take and give numbers, ciphertexts or nothing (`eq`
            // and `constrain` compare references without aliasing them; rc
            // counts do not keep them).
            _ => {}
        }
    }

    /// The classes a terminator joins: each edge's arguments with the
    /// parameters they bind; returned references are external.
    fn add_terminator(
        &mut self,
        dfg: &DataFlowGraph,
        block: Block,
        has_refs: &impl Fn(Value) -> bool,
    ) {
        match dfg.terminator(block) {
            Some(term @ (Terminator::Jmp { .. } | Terminator::JmpIf { .. })) => {
                // Every edge, so a `jmpif` to one block on both edges joins
                // each parameter with both of its arguments.
                for edge in term.edges() {
                    let params = dfg.block_params(edge.destination);
                    for (&param, &arg) in params.iter().zip(edge.arguments) {
                        if has_refs(arg) {
                            let p = self.node(param);
                            let a = self.node(arg);
                            self.unify(p, a);
                        }
                    }
                }
            }
            Some(Terminator::Return { values }) => {
                for &v in values {
                    if has_refs(v) {
                        let n = self.node(v);
                        self.make_external(n);
                    }
                }
            }
            _ => {}
        }
    }

    /// Unifies the parameters among `params` whose types reach a common
    /// cell type (compared as cells are: `&T` and `&mut T` alike): only
    /// those may name the same cell, or cells one of which holds a
    /// reference to the other's. Each resulting class is external.
    fn add_parameters(
        &mut self,
        dfg: &DataFlowGraph,
        params: &[Value],
        has_refs: &impl Fn(Value) -> bool,
    ) {
        let mut owners: Vec<(Type, Node)> = Vec::new();
        let mut cell_types = Vec::new();
        for &param in params.iter().filter(|&&p| has_refs(p)) {
            let n = self.node(param);
            cell_types.clear();
            reached_cell_types(dfg.value_type(param), &mut cell_types);
            for ty in cell_types.drain(..) {
                match owners
                    .iter()
                    .find(|(owned, _)| owned.is_same_cell_type(&ty))
                {
                    Some(&(_, owner)) => {
                        self.unify(owner, n);
                    }
                    None => owners.push((ty, n)),
                }
            }
        }
        let mut roots: Vec<Node> = params
            .iter()
            .filter(|&&p| has_refs(p))
            .map(|&p| self.find(self.value_node[p]))
            .collect();
        roots.sort_unstable();
        roots.dedup();
        for root in roots {
            self.make_external(root);
            self.parameter_classes.push(root);
        }
    }

    fn join_world(&mut self, class: Node) {
        self.world = Some(match self.world {
            None => class,
            Some(world) => self.unify(world, class),
        });
    }

    /// Unifies the classes of the values among `values` that may hold a
    /// reference; the class they end in, if any does.
    fn unify_refs<'v>(
        &mut self,
        values: impl Iterator<Item = &'v Value>,
        has_refs: &impl Fn(Value) -> bool,
    ) -> Option<Node> {
        let mut class = None;
        for &v in values {
            if has_refs(v) {
                let n = self.node(v);
                class = Some(match class {
                    None => n,
                    Some(c) => self.unify(c, n),
                });
            }
        }
        class
    }

    fn new_node(&mut self) -> Node {
        let n = self.parent.len() as Node;
        self.parent.push(n);
        self.content.push(NO_NODE);
        self.escaped.push(false);
        self.loaded.push(false);
        self.size.push(1);
        n
    }

    fn node(&mut self, v: Value) -> Node {
        let n = self.value_node[v];
        if n != NO_NODE {
            return n;
        }
        let n = self.new_node();
        self.value_node[v] = n;
        n
    }

    fn find(&self, mut n: Node) -> Node {
        while self.parent[n as usize] != n {
            n = self.parent[n as usize];
        }
        n
    }

    fn find_compress(&mut self, n: Node) -> Node {
        let root = self.find(n);
        let mut n = n;
        while self.parent[n as usize] != root {
            let next = self.parent[n as usize];
            self.parent[n as usize] = root;
            n = next;
        }
        root
    }

    /// The class of the references held by the cells of class `n`.
    fn content(&mut self, n: Node) -> Node {
        let r = self.find_compress(n);
        let c = self.content[r as usize];
        if c != NO_NODE {
            return self.find_compress(c);
        }
        let c = self.new_node();
        self.content[r as usize] = c;
        c
    }

    /// Joins two classes and, recursively, their contents (iteratively, so
    /// long chains of references to references cannot overflow the stack).
    fn unify(&mut self, a: Node, b: Node) -> Node {
        let mut work = vec![(a, b)];
        let mut first = None;
        while let Some((a, b)) = work.pop() {
            let (a, b) = (self.find_compress(a), self.find_compress(b));
            if a == b {
                first.get_or_insert(a);
                continue;
            }
            // Union by size with path compression: near-constant amortised.
            let (root, child) = if self.size[a as usize] >= self.size[b as usize] {
                (a, b)
            } else {
                (b, a)
            };
            self.parent[child as usize] = root;
            self.size[root as usize] += self.size[child as usize];
            self.escaped[root as usize] |= self.escaped[child as usize];
            let (cr, cc) = (self.content[root as usize], self.content[child as usize]);
            match (cr, cc) {
                (NO_NODE, _) => self.content[root as usize] = cc,
                (_, NO_NODE) => {}
                _ => work.push((cr, cc)),
            }
            first.get_or_insert(root);
        }
        self.find_compress(first.expect("one pair unified"))
    }

    /// Makes class `n` escaped and its own contents, so that everything
    /// reachable from it is one class.
    fn make_external(&mut self, n: Node) {
        let c = self.content(n);
        let root = self.unify(n, c);
        self.escaped[root as usize] = true;
    }

    fn class_of_node(&self, n: Node) -> u32 {
        if n == NO_NODE {
            NO_NODE
        } else {
            self.find(n)
        }
    }

    /// The class of the cells `v` may point to; `None` for values that hold
    /// no reference or were not seen.
    pub fn class(&self, v: Value) -> Option<u32> {
        let n = self.value_node[v];
        (n != NO_NODE).then(|| self.find(n))
    }

    /// Whether `v` is a reference (not an array holding some).
    pub fn is_reference(&self, v: Value) -> bool {
        self.kind.get(v.index()).copied() == Some(2)
    }

    /// Whether references `a` and `b` may point to the same cell.
    pub fn may_alias(&self, a: Value, b: Value) -> bool {
        match (self.class(a), self.class(b)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
    }

    /// The cell class of the reference `v`: the references of its class
    /// whose cells have its cell's type (`&T` and `&mut T` alike). A cell
    /// has one type, so references of two cell classes never name the same
    /// cell; a class whose references all name cells of one type is one
    /// cell class.
    /// `None` for a value that is not a reference.
    pub fn cell_class(&self, v: Value) -> Option<u32> {
        let c = self.cell_class[v];
        (c != NO_NODE).then_some(c)
    }

    /// The cell classes of `class` (none if it has no reference).
    pub fn cell_classes(&self, class: u32) -> &[u32] {
        let root = self.find(class);
        match self.mixed_cell_classes.get(&root) {
            Some(all) => all,
            None => self
                .first_cell_class
                .get(root as usize)
                .filter(|&&c| c != NO_NODE)
                .map_or(&[], std::slice::from_ref),
        }
    }

    /// The class a call to a function may read and write, if it receives or
    /// returns any reference.
    pub fn call_class(&self, inst: Inst) -> Option<u32> {
        let c = self.call_class[inst];
        (c != NO_NODE).then_some(c)
    }

    /// Whether call `inst`, of unknown code, may write the cell `address`
    /// names (given that `address` is in the call's class).
    pub fn call_may_write(&self, dfg: &DataFlowGraph, inst: Inst, address: Value) -> bool {
        self.access.may_write(dfg, inst, address)
    }

    /// Whether call `inst`, of unknown code, may read the cell `address`
    /// names (given that `address` is in the call's class).
    pub fn call_may_read(&self, dfg: &DataFlowGraph, inst: Inst, address: Value) -> bool {
        self.access.may_read(dfg, inst, address)
    }

    /// Whether call `inst` may touch every cell of its class, whatever the
    /// cell's type: [`call_may_write`](Self::call_may_write) and
    /// [`call_may_read`](Self::call_may_read) say yes to every address.
    pub fn call_is_unrestricted(&self, inst: Inst) -> bool {
        self.access.is_unrestricted(inst)
    }

    /// Whether cells of this class may be seen outside the function (through
    /// a parameter, a call or a returned value).
    pub fn is_escaped(&self, class: u32) -> bool {
        self.escaped[self.find(class) as usize]
    }

    /// Recomputes which classes some `load` reads, given the addresses of
    /// every `load` left in the function after loads were removed. The
    /// classes themselves stay valid: removing a load or replacing its result
    /// by the value stored (which is in the same class) only removes ways
    /// references move.
    pub fn set_loads(&mut self, addresses: &[Value]) {
        self.loaded.iter_mut().for_each(|l| *l = false);
        for &address in addresses {
            match self.class(address) {
                Some(c) => self.loaded[c as usize] = true,
                // An address never seen: be conservative everywhere.
                None => self.loaded.iter_mut().for_each(|l| *l = true),
            }
        }
    }

    /// Whether some `load` may read a cell of this class.
    pub fn is_loaded(&self, class: u32) -> bool {
        self.loaded[self.find(class) as usize]
    }

    /// Whether the store `inst` joined two classes when the walk met it.
    /// A store that did not (its value's class was already that of the
    /// cells' contents) changed nothing in the classes: without it they
    /// are the same, so removing it splits none.
    pub fn store_joins_classes(&self, inst: Inst) -> bool {
        self.joining_stores.contains(inst)
    }
}

/// Whether `ty` is a reference.
pub fn is_reference(ty: &Type) -> bool {
    ty.is_reference()
}

/// The types of the cells a value of type `ty` can reach: the pointee of
/// each reference in it, and what those cells' contents reach in turn.
fn reached_cell_types(ty: &Type, out: &mut Vec<Type>) {
    match ty {
        Type::Reference(pointee) | Type::ImmutableReference(pointee) => {
            out.push(Type::clone(pointee));
            reached_cell_types(pointee, out);
        }
        Type::Array(elements, _) | Type::Slice(elements) => {
            for element in elements.iter() {
                reached_cell_types(element, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_joins_classes_only_when_its_value_was_not_in_the_cells_class() {
        let module = kildall_ir::parse_module(
            "fn main f0 {\n  b0():\n    v0 = allocate -> &mut &mut Field\n    \
             v1 = allocate -> &mut Field\n    store Field 1 at v1\n    store v1 at v0\n    \
             store v1 at v0\n    v2 = load v0 -> &mut Field\n    v3 = load v2 -> Field\n    \
             return v3\n}\n",
        )
        .unwrap();
        let func = &module.functions[kildall_ir::FuncId::from_u32(0)];
        let classes = AliasClasses::compute(func, &ModuleSummary::default());
        let entry = func.entry_block().unwrap();
        let joins: Vec<bool> = func
            .layout
            .block_insts(entry)
            .filter(|&i| matches!(func.dfg[i], InstructionData::Store { .. }))
            .map(|i| classes.store_joins_classes(i))
            .collect();
        // A number stored; `v1` stored into `v0`'s cell, then again.
        assert_eq!(joins, [false, true, false]);
    }
}
