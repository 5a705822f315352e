//! The verifier: structural, SSA and type checks of a function or module
//! (the crate README lists them). It reports the first error found, naming the function,
//! the block, instruction or value at fault, and its source position when
//! the function came from text.
//!
//! Checks, in order: the function has an entry block; every block in the
//! layout ends with a terminator whose targets are in the layout; every
//! operand is a defined value whose definition dominates the use (uses in
//! unreachable blocks are only checked for being defined); operand and
//! result types of every instruction; branch arguments against the target's
//! parameters (`jmpif` targets take none); calls against the callee's
//! signature (parameters are the entry block's, results what every `return`
//! returns, and all `return`s agree); in functions with a Noir runtime, the rules of
//! Noir's SSA validator the crate README lists (one return block, `Field`
//! casts shown to fit, the constrained/unconstrained call boundary, the data
//! bus's `return_data`, bounds checks before `vector_insert` and
//! `vector_remove`).
//!
//! Dominators are computed with the iterative algorithm of Cooper, Harvey
//! and Kennedy, "A Simple, Fast Dominance Algorithm" (2001), over a reverse
//! post-order; dominance queries then use pre/post numbers of the dominator
//! tree, so the whole verifier runs in time linear in the function size (for
//! the reducible CFGs compilers produce).
//!
//! A module's functions are checked apart, on several threads for a large
//! module, the largest first ([`map_in_order`]); the walk over the blocks of
//! a large function is cut into ranges checked on several threads too (see
//! the `walk` module). The error reported is the first in module order, and
//! within a function the first in layout order, on any number of threads.

use std::fmt;

use cranelift_entity::{EntitySet, PrimaryMap};

use crate::cfg::ControlFlowGraph;
use crate::dominators::DominatorTree;
use crate::parallel::{available_threads, map_in_order};
use crate::{
    BinaryOp, Block, Callee, FuncId, Function, GlobalData, GlobalId, GlobalInit, GlobalOperand,
    Inst, InstructionData, Module, SourceLoc, Terminator, Type, Value, ValueDef,
};

mod arrays;
mod insts;
mod unwritten;
mod vector_bounds;
mod walk;

use walk::{layout_ranges, BlockWalk};

/// What `array_get` and `array_set` do with their element, in messages.
fn access_verb(opcode: &str) -> &'static str {
    if opcode == "array_set" {
        "writes"
    } else {
        "reads"
    }
}

/// Where in a function an error is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Location {
    /// The function as a whole.
    Function,
    /// A block: its terminator, or its header when it has none (the
    /// position of an error is the terminator's where the text gave one).
    Block(Block),
    /// An instruction.
    Inst(Inst),
    /// A global of the module (the error's function is then empty).
    Global(GlobalId),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Function => Ok(()),
            Location::Block(block) => write!(f, "{block}: "),
            Location::Inst(inst) => write!(f, "{inst}: "),
            Location::Global(global) => write!(f, "{global}: "),
        }
    }
}

/// A verifier error. Displays as `LINE:COL: function NAME: ...` when the
/// position is known.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifierError {
    /// The function's id in its module (`f0` when verified alone).
    pub func: FuncId,
    /// The function's name.
    pub function: String,
    /// The entity at fault.
    pub location: Location,
    /// Its position in the source text, if known.
    pub loc: SourceLoc,
    /// What is wrong.
    pub kind: VerifierErrorKind,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.loc.is_known() {
            write!(f, "{}: ", self.loc)?;
        }
        if let Location::Global(_) = self.location {
            return write!(f, "in the globals: {}{}", self.location, self.kind);
        }
        write!(
            f,
            "in function `{}` ({}): {}{}",
            self.function, self.func, self.location, self.kind
        )
    }
}

impl std::error::Error for VerifierError {}

/// The kinds of verifier errors.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum VerifierErrorKind {
    /// The layout has no block.
    #[error("the function has no blocks")]
    NoEntryBlock,
    /// A block in the layout without a terminator.
    #[error("block {0} has no terminator")]
    MissingTerminator(Block),
    /// A branch to a block that is not in the layout.
    #[error("branch to {0}, which is not in the layout")]
    TargetNotInLayout(Block),
    /// A use of a global the module does not define, or a global array
    /// element naming a global defined after it.
    #[error("use of undefined global {0}")]
    UndefinedGlobal(GlobalId),
    /// A call of a builtin whose arguments or results do not fit its signature.
    #[error("call to {builtin}: {reason}")]
    BuiltinSignature {
        /// The builtin's name.
        builtin: &'static str,
        /// What does not fit.
        reason: String,
    },
    /// An operand that no instruction, parameter or constant defines.
    #[error("use of undefined value {0}")]
    UndefinedValue(Value),
    /// A use its definition does not dominate.
    #[error("use of {0} is not dominated by its definition")]
    NotDominated(Value),
    /// A result defined by an instruction that is not in the layout.
    #[error("{value} is defined by {inst}, which is not in the layout")]
    DefinitionNotInLayout {
        /// The value.
        value: Value,
        /// Its defining instruction.
        inst: Inst,
    },
    /// An operand of the wrong type.
    #[error("{what} has type `{found}`, expected {expected}")]
    OperandType {
        /// Which operand.
        what: String,
        /// What was required.
        expected: String,
        /// Its type.
        found: Type,
    },
    /// A result of the wrong type.
    #[error("result {value} has type `{found}`, expected `{expected}`")]
    ResultType {
        /// The result.
        value: Value,
        /// The type the instruction gives.
        expected: Type,
        /// The type recorded.
        found: Type,
    },
    /// An instruction with the wrong number of results.
    #[error("`{opcode}` has {found} result(s), expected {expected}")]
    ResultCount {
        /// The instruction's opcode.
        opcode: &'static str,
        /// How many it must have.
        expected: usize,
        /// How many it has.
        found: usize,
    },
    /// An instruction whose immediate fields are inconsistent.
    #[error("invalid `{opcode}`: {reason}")]
    InvalidImmediate {
        /// The instruction's opcode.
        opcode: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A `make_array` whose element count does not fit its type.
    #[error("`make_array` has {found} elements, its type `{ty}` needs {expected}")]
    ArrayLength {
        /// The array type.
        ty: Type,
        /// Elements required (flattened).
        expected: String,
        /// Elements given.
        found: usize,
    },
    /// A `make_array` that lists the leaves of a nested array type outside
    /// an `acir` function: only Noir's ACIR lays nested arrays out flat
    /// (see [`crate::flat`]).
    #[error("`make_array` lists the {found} leaves of `{ty}`, a flat listing only `acir` functions read (Noir's ACIR flattens nested arrays); here it takes one element per entry ({expected})")]
    FlattenedArray {
        /// The array type.
        ty: Type,
        /// Elements one per entry.
        expected: u64,
        /// Elements given (the flattened leaves).
        found: usize,
    },
    /// An `array_get` or `array_set` taking a leaf of a nested array by a
    /// flat index outside an `acir` function (see [`crate::flat`]).
    #[error("`{opcode}` {} a `{wanted}` at a flat index of `{ty}`, whose entries are arrays: only `acir` functions number nested arrays flat (Noir's ACIR flattens them); here index by entry, then into the entry", access_verb(opcode))]
    FlattenedArrayIndex {
        /// `array_get` or `array_set`.
        opcode: &'static str,
        /// The array's type.
        ty: Type,
        /// The result (or written value) type.
        wanted: Type,
    },
    /// An `array_get` whose result, or an `array_set` whose value, is of a
    /// type the array has no element of at that index.
    #[error("`{opcode}` {} a `{wanted}` {reason}", access_verb(opcode))]
    ArrayElementType {
        /// `array_get` or `array_set`.
        opcode: &'static str,
        /// The result (or written value) type.
        wanted: Type,
        /// Where, and what the array holds there.
        reason: String,
    },
    /// A jump with the wrong number of arguments.
    #[error("jump to {target} passes {found} argument(s), {target} has {expected} parameter(s)")]
    BranchArgCount {
        /// The destination.
        target: Block,
        /// Its parameter count.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// A jump argument of the wrong type.
    #[error("argument {index} of the jump to {target} has type `{found}`, the parameter has `{expected}`")]
    BranchArgType {
        /// The destination.
        target: Block,
        /// The argument position.
        index: usize,
        /// The parameter's type.
        expected: Type,
        /// The argument's type.
        found: Type,
    },
    /// A call from an unconstrained (`brillig`) function to a constrained
    /// (`acir`) one, which Noir's SSA validator rejects: constraints cannot
    /// be generated from unconstrained code.
    #[error("unconstrained function calls constrained function {0}")]
    ConstrainedCalleeInUnconstrained(FuncId),
    /// A call from a constrained (`acir`) function to a foreign (oracle)
    /// function, which Noir's validator rejects: oracles answer only
    /// unconstrained code.
    #[error("constrained function calls foreign function `{0}` (oracles are called from `brillig` functions)")]
    ForeignCallInConstrained(String),
    /// A mutable reference passed from a constrained function to an
    /// unconstrained one: Noir's validator rejects it, as the two do not
    /// share memory.
    #[error("argument {index} passed to unconstrained function {callee} has type `{ty}`, which holds a mutable reference (constrained and unconstrained code share no memory)")]
    ReferenceToUnconstrained {
        /// The callee.
        callee: FuncId,
        /// The argument position.
        index: usize,
        /// Its type.
        ty: Type,
    },
    /// A function value returned from an unconstrained function to a
    /// constrained caller, which Noir's validator rejects.
    #[error("unconstrained function {callee} returns a function value to constrained code (result of type `{ty}`)")]
    FunctionFromUnconstrained {
        /// The callee.
        callee: FuncId,
        /// The result's type.
        ty: Type,
    },
    /// A `return` that does not return exactly the data bus's `return_data`.
    #[error("`return` does not return the data bus's return_data {0} (and only it)")]
    ReturnDataMismatch(Value),
    /// A `cast` of a `Field` to an integer type in a function with a Noir
    /// runtime that nothing shows fits, which Noir's validator rejects.
    #[error("cast of a `Field` to `{0}` that nothing shows fits (Noir's validator wants the `Field` truncated or range-checked to at most that many bits, divided by a constant that leaves no more, or a constant that fits)")]
    UncheckedFieldCast(Type),
    /// A `vector_insert` or `vector_remove` in a function with a Noir
    /// runtime whose index nothing earlier in its block bounds-checks, which
    /// Noir's validator rejects.
    #[error("`{0}` is not preceded in its block by a bounds check of its index (Noir's SSA generation checks it just before the call)")]
    UncheckedVectorIndex(&'static str),
    /// A call to a function that the module does not have.
    #[error("call to {0}, which is not in the module")]
    UnknownCallee(FuncId),
    /// A call whose arguments do not match the callee's parameters.
    #[error("call to {callee} passes ({found}), the callee takes ({expected})")]
    CallArguments {
        /// The callee.
        callee: FuncId,
        /// The callee's parameter types.
        expected: String,
        /// The argument types.
        found: String,
    },
    /// A call whose results do not match what the callee returns.
    #[error("call to {callee} expects ({found}), the callee returns ({expected})")]
    CallResults {
        /// The callee.
        callee: FuncId,
        /// What the callee returns.
        expected: String,
        /// The call's result types.
        found: String,
    },
    /// An integer constant its type cannot hold (`u8 300`), which Noir's
    /// parser reads as the field element written.
    #[error(
        "constant {value} does not fit in `{ty}` (Noir's parser reads it as a field \
         element; the IR gives no value to a constant its type cannot hold)"
    )]
    ConstantOutOfRange {
        /// The constant, as the field element it stands for.
        value: crate::ConstValue,
        /// Its type.
        ty: Type,
    },
    /// A load from a cell that nothing can have written when it runs (no
    /// store, and no use that could lead to one, between the allocation
    /// and the load), which Noir's load and store validator refuses.
    #[error("load from {0}, a cell nothing has stored to")]
    LoadOfUnwrittenCell(Value),
    /// A second block that returns, in a function with a Noir runtime
    /// (`acir`, `brillig`): Noir's validator wants one return block.
    #[error("{second} returns, and so does {first}: a Noir function has one return block")]
    SecondReturnBlock {
        /// The first block that returns, in layout order.
        first: Block,
        /// The second.
        second: Block,
    },
    /// Two `return`s of one function return different types.
    #[error("`return` returns ({found}), an earlier `return` returns ({expected})")]
    ReturnMismatch {
        /// The types of the first `return`.
        expected: String,
        /// The types of this one.
        found: String,
    },
}

/// Verifies every function of a module, calls included, on
/// [`available_threads`] threads ([`verify_module_on`]).
pub fn verify_module(module: &Module) -> Result<(), VerifierError> {
    verify_module_on(module, available_threads())
}

/// [`verify_module`] with `threads` threads (one if `threads` is 0) for the
/// functions, and as many for the ranges of blocks of each large function.
/// The result, or the error, is the same for any number of threads.
pub fn verify_module_on(module: &Module, threads: usize) -> Result<(), VerifierError> {
    verify_globals(module)?;
    // Signatures once, so that checking a call or a return costs its size only.
    let signatures: Vec<Signature> = module.functions.values().map(Signature::of).collect();
    // The functions are checked apart, on several threads for a large
    // module; the error reported is the first in module order either way.
    let outcomes = map_in_order(
        module.functions.iter().collect(),
        |(_, func)| func.dfg.num_insts(),
        threads,
        Verifier::default,
        |verifier, (id, func)| {
            verify_global_uses(&module.globals, id, func)?;
            verifier.verify(func, id, Some(&signatures), threads)
        },
    );
    outcomes.into_iter().collect()
}

/// What checking one function of a module reads of the rest: the module's
/// globals and its functions' signatures. Made once, it checks functions
/// one at a time, where and when they are ready (on the threads of a pass,
/// as the pass finishes each), with the result [`verify_module`] gives.
pub struct ModuleVerifier {
    globals: PrimaryMap<GlobalId, GlobalData>,
    signatures: Vec<Signature>,
}

impl ModuleVerifier {
    /// Checks `module`'s globals and records what its functions' checks
    /// read.
    ///
    /// # Errors
    ///
    /// The first global that does not verify.
    pub fn new(module: &Module) -> Result<Self, VerifierError> {
        verify_globals(module)?;
        Ok(ModuleVerifier {
            globals: module.globals.clone(),
            signatures: module.functions.values().map(Signature::of).collect(),
        })
    }

    /// Whether `module` has the globals and signatures this was made from,
    /// so that [`verify_function`](Self::verify_function) on each of its
    /// functions verifies it.
    pub fn describes(&self, module: &Module) -> bool {
        module.globals == self.globals
            && module.functions.len() == self.signatures.len()
            && module
                .functions
                .values()
                .zip(&self.signatures)
                .all(|(func, signature)| Signature::of(func) == *signature)
    }

    /// Checks function `id` of the module, given as `func`, on up to
    /// `threads` threads (for the ranges of blocks of a large function).
    ///
    /// # Errors
    ///
    /// The first error of the function, as [`verify_module`] reports it.
    pub fn verify_function(
        &self,
        id: FuncId,
        func: &Function,
        threads: usize,
    ) -> Result<(), VerifierError> {
        verify_global_uses(&self.globals, id, func)?;
        Verifier::default().verify(func, id, Some(&self.signatures), threads)
    }
}

/// Each global: a numeric constant of its type, or an array whose elements
/// fit its type and name only earlier globals (so globals have no cycles).
fn verify_globals(module: &Module) -> Result<(), VerifierError> {
    for (id, global) in &module.globals {
        let error = |kind| VerifierError {
            func: FuncId::from_u32(0),
            function: String::new(),
            location: Location::Global(id),
            loc: SourceLoc::default(),
            kind,
        };
        match &global.init {
            GlobalInit::Const(_) if global.ty.is_numeric() => {}
            GlobalInit::Const(_) => {
                return Err(error(VerifierErrorKind::OperandType {
                    what: "the constant".into(),
                    expected: "a numeric type".into(),
                    found: global.ty.clone(),
                }))
            }
            GlobalInit::Array(elements) => {
                let (Some(types), Some(len)) =
                    (global.ty.element_types(), global.ty.flattened_len())
                else {
                    return Err(error(VerifierErrorKind::OperandType {
                        what: "a `make_array` global".into(),
                        expected: "an array type".into(),
                        found: global.ty.clone(),
                    }));
                };
                if elements.len() as u64 != len {
                    return Err(error(VerifierErrorKind::ArrayLength {
                        ty: global.ty.clone(),
                        expected: len.to_string(),
                        found: elements.len(),
                    }));
                }
                for (i, element) in elements.iter().enumerate() {
                    let found = match element {
                        GlobalOperand::Const(_, ty) => ty,
                        GlobalOperand::Global(g) if *g < id => &module.globals[*g].ty,
                        GlobalOperand::Global(g) => {
                            return Err(error(VerifierErrorKind::UndefinedGlobal(*g)))
                        }
                    };
                    let expected = i.checked_rem(types.len()).and_then(|k| types.get(k));
                    if expected != Some(found) {
                        let expected = expected.map_or("no element".into(), |t| format!("`{t}`"));
                        return Err(error(VerifierErrorKind::OperandType {
                            what: format!("element {i}"),
                            expected,
                            found: found.clone(),
                        }));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Every value of `func` naming a global names one of the module, with its type.
fn verify_global_uses(
    globals: &PrimaryMap<GlobalId, GlobalData>,
    id: FuncId,
    func: &Function,
) -> Result<(), VerifierError> {
    for (value, ty) in func.dfg.values() {
        let ValueDef::Global(global) = func.dfg.value_def(value) else {
            continue;
        };
        let kind = match globals.get(global) {
            None => VerifierErrorKind::UndefinedGlobal(global),
            Some(g) if g.ty != *ty => VerifierErrorKind::ResultType {
                value,
                expected: g.ty.clone(),
                found: ty.clone(),
            },
            Some(_) => continue,
        };
        return Err(VerifierError {
            func: id,
            function: func.name.clone(),
            location: Location::Function,
            loc: SourceLoc::default(),
            kind,
        });
    }
    Ok(())
}

/// Parameter types, and result types if the function returns.
/// What a call needs to know of its callee.
#[derive(PartialEq)]
struct Signature {
    params: Vec<Type>,
    /// `None` for a function that never returns.
    returns: Option<Vec<Type>>,
    /// An `acir` function: an unconstrained (`brillig`) one may not call it.
    constrained: bool,
    /// A `brillig` function: an `acir` one may not pass it references or
    /// take function values from it.
    unconstrained: bool,
}

impl Signature {
    fn of(func: &Function) -> Self {
        Signature {
            params: func.param_types(),
            returns: func.return_types(),
            constrained: func.is_acir(),
            unconstrained: func.is_brillig(),
        }
    }
}

/// Verifies one function on its own: calls to functions of a module are
/// checked only by [`verify_module`].
pub fn verify_function(func: &Function) -> Result<(), VerifierError> {
    Verifier::default().verify(func, FuncId::from_u32(0), None, available_threads())
}

fn type_list(types: impl IntoIterator<Item = Type>) -> String {
    let mut out = String::new();
    for (i, ty) in types.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&ty.to_string());
    }
    out
}

/// Buffers reused across the functions of a module.
#[derive(Default)]
struct Verifier {
    cfg: ControlFlowGraph,
    domtree: DominatorTree,
    /// The walk of a function checked on one thread.
    walk: BlockWalk,
    /// The cells some range of the function writes.
    written_cells: EntitySet<Value>,
}

struct Ctx<'a> {
    func: &'a Function,
    id: FuncId,
    signatures: Option<&'a [Signature]>,
    /// The types of the function's first `return`.
    returns: Vec<Type>,
    /// In a function with a Noir runtime, the `cast`s of a `Field` that a
    /// `range_check` to at most the target's bits comes before.
    range_checked_casts: EntitySet<Inst>,
}

impl Ctx<'_> {
    fn error(&self, location: Location, kind: VerifierErrorKind) -> VerifierError {
        let loc = match location {
            Location::Global(_) => SourceLoc::default(),
            Location::Function => self
                .func
                .entry_block()
                .map(|b| self.func.block_locs[b])
                .unwrap_or_default(),
            Location::Block(block) => {
                if self.func.dfg.block_is_valid(block) {
                    self.func.terminator_loc(block)
                } else {
                    SourceLoc::default()
                }
            }
            Location::Inst(inst) => self.func.inst_locs[inst],
        };
        VerifierError {
            func: self.id,
            function: self.func.name.clone(),
            location,
            loc,
            kind,
        }
    }

    fn ty(&self, value: Value) -> &Type {
        self.func.dfg.value_type(self.func.dfg.resolve(value))
    }
}

impl Verifier {
    fn verify(
        &mut self,
        func: &Function,
        id: FuncId,
        signatures: Option<&[Signature]>,
        threads: usize,
    ) -> Result<(), VerifierError> {
        let returns = match signatures {
            Some(signatures) => signatures[id.as_u32() as usize].returns.clone(),
            None => func.return_types(),
        };
        let cx = Ctx {
            func,
            id,
            signatures,
            returns: returns.unwrap_or_default(),
            range_checked_casts: range_checked_casts(func),
        };
        let dfg = &func.dfg;
        if func.entry_block().is_none() {
            return Err(cx.error(Location::Function, VerifierErrorKind::NoEntryBlock));
        }
        for block in func.layout.blocks() {
            let Some(terminator) = dfg.terminator(block) else {
                return Err(cx.error(
                    Location::Block(block),
                    VerifierErrorKind::MissingTerminator(block),
                ));
            };
            for target in terminator.successors() {
                if !dfg.block_is_valid(target) || !func.layout.is_block_inserted(target) {
                    return Err(cx.error(
                        Location::Block(block),
                        VerifierErrorKind::TargetNotInLayout(target),
                    ));
                }
            }
        }
        // Every target is a block of the layout (checked above), so the
        // graph is well formed.
        self.cfg.compute(func);
        self.domtree.compute(&self.cfg);
        let cell_facts = self.walk_blocks(&cx, threads)?;
        unwritten::judge_loads(&cx, &cell_facts, &mut self.written_cells)?;
        vector_bounds::check_vector_bounds(&cx)?;
        if func.runtime.is_some() {
            let mut returns = func
                .layout
                .blocks()
                .filter(|&b| matches!(dfg.terminator(b), Some(Terminator::Return { .. })));
            if let (Some(first), Some(second)) = (returns.next(), returns.next()) {
                return Err(cx.error(
                    Location::Block(second),
                    VerifierErrorKind::SecondReturnBlock { first, second },
                ));
            }
        }
        // The data bus names values the function defines anywhere (it is
        // read after the whole function, so dominance does not apply).
        for value in func.databus.values() {
            let defined = dfg.value_is_valid(value)
                && !matches!(
                    dfg.value_def(dfg.resolve(value)),
                    ValueDef::Unused | ValueDef::Alias(_)
                );
            if !defined {
                return Err(cx.error(Location::Function, VerifierErrorKind::UndefinedValue(value)));
            }
        }
        if let Some(return_data) = func.databus.return_data {
            let return_data = dfg.resolve(return_data);
            for block in func.layout.blocks() {
                if let Some(Terminator::Return { values }) = dfg.terminator(block) {
                    if !matches!(values.as_slice(), [v] if dfg.resolve(*v) == return_data) {
                        return Err(cx.error(
                            Location::Block(block),
                            VerifierErrorKind::ReturnDataMismatch(return_data),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Walks the blocks of `cx`'s function, in ranges on up to `threads`
    /// threads when it is large, and gives the unwritten-load facts of the
    /// ranges in layout order, or the first error in layout order.
    fn walk_blocks(
        &mut self,
        cx: &Ctx<'_>,
        threads: usize,
    ) -> Result<Vec<unwritten::CellFacts>, VerifierError> {
        let ranges = layout_ranges(cx.func, threads);
        if let [whole] = ranges[..] {
            return Ok(vec![self.walk.walk(cx, &self.domtree, whole)?]);
        }
        let domtree = &self.domtree;
        map_in_order(
            ranges,
            |range| range.weight,
            threads,
            BlockWalk::default,
            |walk, range| walk.walk(cx, domtree, range),
        )
        .into_iter()
        .collect()
    }
}

/// In a function with a Noir runtime, the `cast`s whose operand a
/// `range_check` to at most the target's bits comes before, in layout order
/// (the order Noir's validator visits blocks in).
fn range_checked_casts(func: &Function) -> EntitySet<Inst> {
    let mut casts = EntitySet::new();
    if func.runtime.is_none() {
        return casts;
    }
    let mut checked = std::collections::HashMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            match func.dfg[inst] {
                InstructionData::RangeCheck { arg, bits, .. } => {
                    let entry = checked.entry(func.dfg.resolve(arg)).or_insert(bits);
                    *entry = (*entry).min(bits);
                }
                InstructionData::Cast { arg, ref ty } => {
                    let fewest = checked.get(&func.dfg.resolve(arg));
                    if fewest.zip(ty.bit_size()).is_some_and(|(c, t)| *c <= t) {
                        casts.insert(inst);
                    }
                }
                _ => {}
            }
        }
    }
    casts
}
