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
//! returns, and all `return`s agree).
//!
//! Dominators are computed with the iterative algorithm of Cooper, Harvey
//! and Kennedy, "A Simple, Fast Dominance Algorithm" (2001), over a reverse
//! post-order; dominance queries then use pre/post numbers of the dominator
//! tree, so the whole verifier runs in time linear in the function size (for
//! the reducible CFGs compilers produce).

use std::fmt;

use cranelift_entity::SecondaryMap;

use crate::cfg::ControlFlowGraph;
use crate::dominators::DominatorTree;
use crate::{
    BinaryOp, Block, Callee, FuncId, Function, GlobalId, GlobalInit, GlobalOperand, Inst,
    InstructionData, Module, SourceLoc, Terminator, Type, Value, ValueDef,
};

/// Where in a function an error is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Location {
    /// The function as a whole.
    Function,
    /// A block (its header or its terminator).
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
    /// A `jmpif` to a block with parameters.
    #[error("`jmpif` target {0} has parameters")]
    JmpIfTargetHasParams(Block),
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
    /// Two `return`s of one function return different types.
    #[error("`return` returns ({found}), an earlier `return` returns ({expected})")]
    ReturnMismatch {
        /// The types of the first `return`.
        expected: String,
        /// The types of this one.
        found: String,
    },
}

/// Verifies every function of a module, calls included.
pub fn verify_module(module: &Module) -> Result<(), VerifierError> {
    verify_globals(module)?;
    let mut verifier = Verifier::default();
    // Signatures once, so that checking a call or a return costs its size only.
    let signatures: Vec<Signature> = module
        .functions
        .values()
        .map(|f| (f.param_types(), f.return_types()))
        .collect();
    for (id, func) in module.functions.iter() {
        verify_global_uses(module, id, func)?;
        verifier.verify(func, id, Some(&signatures))?;
    }
    Ok(())
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
                    let expected = &types[i % types.len()];
                    if found != expected {
                        return Err(error(VerifierErrorKind::OperandType {
                            what: format!("element {i}"),
                            expected: format!("`{expected}`"),
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
fn verify_global_uses(module: &Module, id: FuncId, func: &Function) -> Result<(), VerifierError> {
    for (value, data) in func.dfg.values() {
        let ValueDef::Global(global) = data.def else {
            continue;
        };
        let kind = match module.globals.get(global) {
            None => VerifierErrorKind::UndefinedGlobal(global),
            Some(g) if g.ty != data.ty => VerifierErrorKind::ResultType {
                value,
                expected: g.ty.clone(),
                found: data.ty.clone(),
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
type Signature = (Vec<Type>, Option<Vec<Type>>);

/// Verifies one function on its own: calls to functions of a module are
/// checked only by [`verify_module`].
pub fn verify_function(func: &Function) -> Result<(), VerifierError> {
    Verifier::default().verify(func, FuncId::from_u32(0), None)
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
    inst_pos: SecondaryMap<Inst, u32>,
}

struct Ctx<'a> {
    func: &'a Function,
    id: FuncId,
    signatures: Option<&'a [Signature]>,
    /// The types of the function's first `return`.
    returns: Vec<Type>,
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
            // FIXME: terminators have no source position of their own in
            // `Function`, so their errors point at the block header.
            Location::Block(block) => {
                if self.func.dfg.block_is_valid(block) {
                    self.func.block_locs[block]
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
    ) -> Result<(), VerifierError> {
        let returns = match signatures {
            Some(signatures) => signatures[id.as_u32() as usize].1.clone(),
            None => func.return_types(),
        };
        let cx = Ctx {
            func,
            id,
            signatures,
            returns: returns.unwrap_or_default(),
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
        for block in func.layout.blocks() {
            for (pos, inst) in func.layout.block_insts(block).enumerate() {
                self.inst_pos[inst] = pos as u32;
            }
        }
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let at = Location::Inst(inst);
                let position = self.inst_pos[inst];
                for &arg in dfg[inst].arguments().as_slice() {
                    self.check_use(&cx, arg, block, position, at)?;
                }
                check_inst(&cx, inst)?;
            }
            let terminator = dfg.terminator(block).expect("checked above");
            let at = Location::Block(block);
            let end = func.layout.block_len(block) as u32;
            for &arg in terminator.arguments() {
                self.check_use(&cx, arg, block, end, at)?;
            }
            check_terminator(&cx, block, terminator)?;
        }
        Ok(())
    }

    /// Checks that `value`, used in `block` at instruction position
    /// `position` (the block length for the terminator), is defined and
    /// dominates the use.
    fn check_use(
        &self,
        cx: &Ctx<'_>,
        value: Value,
        block: Block,
        position: u32,
        at: Location,
    ) -> Result<(), VerifierError> {
        let func = cx.func;
        let dfg = &func.dfg;
        let undefined = || cx.error(at, VerifierErrorKind::UndefinedValue(value));
        if !dfg.value_is_valid(value) {
            return Err(undefined());
        }
        let resolved = dfg.resolve(value);
        let (def_block, def_pos) = match dfg.value_def(resolved) {
            ValueDef::Const(_) | ValueDef::Global(_) => return Ok(()),
            ValueDef::Unused | ValueDef::Alias(_) => return Err(undefined()),
            ValueDef::Param(def_block, _) => {
                if !func.layout.is_block_inserted(def_block) {
                    return Err(undefined());
                }
                (def_block, None)
            }
            ValueDef::Result(inst, _) => match func.layout.inst_block(inst) {
                Some(def_block) => (def_block, Some(self.inst_pos[inst])),
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
        if !self.domtree.is_reachable(block) {
            return Ok(());
        }
        let dominated = if def_block == block {
            def_pos.map_or(true, |p| p < position)
        } else {
            self.domtree.dominates(def_block, block)
        };
        if dominated {
            Ok(())
        } else {
            Err(cx.error(at, VerifierErrorKind::NotDominated(value)))
        }
    }
}

fn operand_error(
    cx: &Ctx<'_>,
    inst: Inst,
    what: &str,
    expected: &str,
    found: &Type,
) -> VerifierError {
    cx.error(
        Location::Inst(inst),
        VerifierErrorKind::OperandType {
            what: what.into(),
            expected: expected.into(),
            found: found.clone(),
        },
    )
}

/// Checks `found` against a required type.
/// `add`/`sub`/`mul` of a `noisy` value and an integer-typed one (which must
/// be a constant).
fn noisy_with_plaintext(cx: &Ctx<'_>, op: BinaryOp, lhs: Value, rhs: Value) -> bool {
    let (lt, rt) = (cx.ty(lhs), cx.ty(rhs));
    matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)
        && ((*lt == Type::Noisy && rt.is_integer()) || (lt.is_integer() && *rt == Type::Noisy))
}

fn expect_type(
    cx: &Ctx<'_>,
    inst: Inst,
    what: &str,
    value: Value,
    expected: &Type,
) -> Result<(), VerifierError> {
    let found = cx.ty(value);
    if found == expected {
        Ok(())
    } else {
        Err(operand_error(
            cx,
            inst,
            what,
            &format!("`{expected}`"),
            found,
        ))
    }
}

/// The element type at flattened `index` of an array type with element
/// types `elements`: exact for a constant index, else any of them.
fn element_type<'t>(
    cx: &Ctx<'_>,
    elements: &'t [Type],
    index: Value,
    wanted: &Type,
) -> Option<&'t Type> {
    if elements.len() == 1 {
        return Some(&elements[0]);
    }
    match cx.func.dfg.const_value(index).and_then(|c| c.to_u64()) {
        Some(i) => elements.get((i % elements.len() as u64) as usize),
        None => elements.iter().find(|t| *t == wanted),
    }
}

fn check_inst(cx: &Ctx<'_>, inst: Inst) -> Result<(), VerifierError> {
    use InstructionData::*;
    let dfg = &cx.func.dfg;
    let data = &dfg[inst];
    let opcode = data.opcode_name();
    let results = dfg.inst_results(inst);
    let at = Location::Inst(inst);
    let invalid =
        |reason: String| cx.error(at, VerifierErrorKind::InvalidImmediate { opcode, reason });
    // The result type each single-result instruction gives, checked below.
    let result: Option<Type> = match data {
        Binary { op, lhs, rhs } if noisy_with_plaintext(cx, *op, *lhs, *rhs) => {
            // `mul v2, u5 4`: see the `plaintext` module for the noise rule.
            let constant = if *cx.ty(*lhs) == Type::Noisy {
                *rhs
            } else {
                *lhs
            };
            if crate::plaintext::plaintext_constant(cx.func, constant).is_none() {
                let found = cx.ty(constant);
                return Err(operand_error(
                    cx,
                    inst,
                    "the plaintext operand",
                    "`noisy` or an integer constant",
                    found,
                ));
            }
            Some(Type::Noisy)
        }
        Binary { op, lhs, rhs } => {
            let lt = cx.ty(*lhs);
            let ok = match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                    lt.is_numeric() || *lt == Type::Noisy
                }
                BinaryOp::Div | BinaryOp::Lt => lt.is_numeric(),
                BinaryOp::UncheckedAdd | BinaryOp::UncheckedSub | BinaryOp::UncheckedMul => {
                    lt.is_numeric()
                }
                BinaryOp::Mod
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::Shl
                | BinaryOp::Shr => lt.is_integer(),
                BinaryOp::Eq => {
                    lt.is_numeric() || lt.is_reference() || matches!(lt, Type::Function)
                }
            };
            if !ok {
                let expected = match op {
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => "a numeric type or `noisy`",
                    BinaryOp::Eq => "a numeric, reference or function type",
                    BinaryOp::Mod
                    | BinaryOp::And
                    | BinaryOp::Or
                    | BinaryOp::Xor
                    | BinaryOp::Shl
                    | BinaryOp::Shr => "an integer type",
                    _ => "a numeric type",
                };
                return Err(operand_error(cx, inst, "the left operand", expected, lt));
            }
            expect_type(cx, inst, "the right operand", *rhs, lt)?;
            Some(if op.is_comparison() {
                Type::BOOL
            } else {
                lt.clone()
            })
        }
        Not { arg } => {
            let t = cx.ty(*arg);
            if !t.is_integer() {
                return Err(operand_error(cx, inst, "the operand", "an integer type", t));
            }
            Some(t.clone())
        }
        Cast { arg, ty } => {
            let t = cx.ty(*arg);
            if !t.is_numeric() {
                return Err(operand_error(cx, inst, "the operand", "a numeric type", t));
            }
            if !ty.is_numeric() {
                return Err(invalid(format!("cannot cast to `{ty}`")));
            }
            Some(ty.clone())
        }
        Truncate {
            arg,
            bits,
            max_bit_size,
        } => {
            let t = cx.ty(*arg);
            if !t.is_numeric() {
                return Err(operand_error(cx, inst, "the operand", "a numeric type", t));
            }
            if bits > max_bit_size {
                return Err(invalid(format!(
                    "{bits} bits is more than the maximum bit size {max_bit_size}"
                )));
            }
            Some(t.clone())
        }
        Allocate => {
            if let Some(&r) = results.first() {
                if !dfg.value_type(r).is_reference() {
                    return Err(invalid(format!(
                        "the result type `{}` is not a reference",
                        dfg.value_type(r)
                    )));
                }
                Some(dfg.value_type(r).clone())
            } else {
                None
            }
        }
        Load { address } => {
            let t = cx.ty(*address);
            let Some(pointee) = t.pointee() else {
                return Err(operand_error(cx, inst, "the address", "a reference", t));
            };
            Some(pointee.clone())
        }
        Store { value, address } => {
            let t = cx.ty(*address);
            let Some(pointee) = t.pointee() else {
                return Err(operand_error(cx, inst, "the address", "a reference", t));
            };
            expect_type(cx, inst, "the stored value", *value, pointee)?;
            None
        }
        MakeArray { elements, ty } => {
            let (element_types, len) = match ty {
                Type::Array(e, len) => (e, Some(*len)),
                Type::Slice(e) => (e, None),
                _ => return Err(invalid(format!("`{ty}` is not an array or slice type"))),
            };
            let width = element_types.len();
            let count_ok = match len {
                Some(len) => elements.len() as u64 == width as u64 * u64::from(len),
                None => width > 0 && elements.len() % width == 0,
            };
            if !count_ok {
                let expected = match len {
                    Some(len) => (width as u64 * u64::from(len)).to_string(),
                    None => format!("a multiple of {width}"),
                };
                return Err(cx.error(
                    at,
                    VerifierErrorKind::ArrayLength {
                        ty: ty.clone(),
                        expected,
                        found: elements.len(),
                    },
                ));
            }
            for (i, &element) in elements.iter().enumerate() {
                expect_type(
                    cx,
                    inst,
                    &format!("element {i}"),
                    element,
                    &element_types[i % width],
                )?;
            }
            Some(ty.clone())
        }
        ArrayGet { array, index } => {
            let t = cx.ty(*array);
            let Some(elements) = t.element_types() else {
                return Err(operand_error(cx, inst, "the array", "an array or slice", t));
            };
            expect_type(cx, inst, "the index", *index, &Type::U32)?;
            let wanted = results.first().map(|&r| dfg.value_type(r).clone());
            let wanted = wanted.unwrap_or(Type::Field);
            element_type(cx, elements, *index, &wanted).cloned()
        }
        ArraySet {
            array,
            index,
            value,
            ..
        } => {
            let t = cx.ty(*array);
            let Some(elements) = t.element_types() else {
                return Err(operand_error(cx, inst, "the array", "an array or slice", t));
            };
            expect_type(cx, inst, "the index", *index, &Type::U32)?;
            let vt = cx.ty(*value);
            match element_type(cx, elements, *index, vt) {
                Some(et) => expect_type(cx, inst, "the value", *value, et)?,
                None => {
                    return Err(operand_error(
                        cx,
                        inst,
                        "the value",
                        &format!("an element type of `{t}`"),
                        vt,
                    ))
                }
            }
            Some(t.clone())
        }
        Constrain { lhs, rhs, .. } => {
            expect_type(cx, inst, "the right side", *rhs, cx.ty(*lhs))?;
            None
        }
        RangeCheck { arg, bits, .. } => {
            let t = cx.ty(*arg);
            if !t.is_numeric() {
                return Err(operand_error(cx, inst, "the operand", "a numeric type", t));
            }
            if *bits == 0 || *bits > 254 {
                return Err(invalid(format!("{bits} bits is outside 1 to 254")));
            }
            None
        }
        EnableSideEffects { condition } => {
            expect_type(cx, inst, "the condition", *condition, &Type::BOOL)?;
            None
        }
        IfElse {
            then_condition,
            then_value,
            else_condition,
            else_value,
        } => {
            expect_type(cx, inst, "the then condition", *then_condition, &Type::BOOL)?;
            expect_type(cx, inst, "the else condition", *else_condition, &Type::BOOL)?;
            let t = cx.ty(*then_value);
            expect_type(cx, inst, "the else value", *else_value, t)?;
            Some(t.clone())
        }
        Call { callee, args } => {
            check_call(cx, inst, *callee, args, results)?;
            return Ok(());
        }
        Encode { arg } => {
            expect_type(cx, inst, "the plaintext", *arg, &Type::Unsigned(5))?;
            Some(Type::Noisy)
        }
        Decode { arg } => {
            expect_type(cx, inst, "the ciphertext", *arg, &Type::Noisy)?;
            Some(Type::Unsigned(5))
        }
        ReduceNoise { arg } => {
            expect_type(cx, inst, "the ciphertext", *arg, &Type::Noisy)?;
            Some(Type::Noisy)
        }
        IncRc { .. } | DecRc { .. } => None,
    };
    let expected_count = usize::from(result.is_some() || matches!(data, Allocate));
    if results.len() != expected_count {
        return Err(cx.error(
            at,
            VerifierErrorKind::ResultCount {
                opcode,
                expected: expected_count,
                found: results.len(),
            },
        ));
    }
    if let (Some(expected), Some(&value)) = (result, results.first()) {
        let found = dfg.value_type(value);
        if *found != expected {
            return Err(cx.error(
                at,
                VerifierErrorKind::ResultType {
                    value,
                    expected,
                    found: found.clone(),
                },
            ));
        }
    }
    Ok(())
}

fn check_call(
    cx: &Ctx<'_>,
    inst: Inst,
    callee: Callee,
    args: &[Value],
    results: &[Value],
) -> Result<(), VerifierError> {
    let at = Location::Inst(inst);
    let dfg = &cx.func.dfg;
    let id = match callee {
        Callee::Builtin(builtin) => {
            let arg_types: Vec<Type> = args.iter().map(|&a| cx.ty(a).clone()).collect();
            let result_types: Vec<Type> = results.iter().map(|&r| cx.ty(r).clone()).collect();
            return builtin
                .check_signature(&arg_types, &result_types)
                .map_err(|reason| {
                    cx.error(
                        at,
                        VerifierErrorKind::BuiltinSignature {
                            builtin: builtin.name(),
                            reason,
                        },
                    )
                });
        }
        Callee::Function(id) => id,
    };
    let Some(signatures) = cx.signatures else {
        return Ok(());
    };
    let Some((params, returns)) = signatures.get(id.as_u32() as usize) else {
        return Err(cx.error(at, VerifierErrorKind::UnknownCallee(id)));
    };
    let matches =
        params.len() == args.len() && params.iter().zip(args).all(|(p, &a)| p == cx.ty(a));
    if !matches {
        let arg_types = args.iter().map(|&a| cx.ty(a).clone());
        return Err(cx.error(
            at,
            VerifierErrorKind::CallArguments {
                callee: id,
                expected: type_list(params.iter().cloned()),
                found: type_list(arg_types),
            },
        ));
    }
    // A callee that never returns may be given any result types.
    if let Some(returns) = returns {
        let matches = returns.len() == results.len()
            && returns
                .iter()
                .zip(results)
                .all(|(t, &r)| t == dfg.value_type(r));
        if !matches {
            let result_types = results.iter().map(|&r| dfg.value_type(r).clone());
            return Err(cx.error(
                at,
                VerifierErrorKind::CallResults {
                    callee: id,
                    expected: type_list(returns.iter().cloned()),
                    found: type_list(result_types),
                },
            ));
        }
    }
    Ok(())
}

fn check_terminator(
    cx: &Ctx<'_>,
    block: Block,
    terminator: &Terminator,
) -> Result<(), VerifierError> {
    let dfg = &cx.func.dfg;
    let at = Location::Block(block);
    match terminator {
        Terminator::Jmp {
            destination,
            arguments,
        } => {
            let params = dfg.block_params(*destination);
            if params.len() != arguments.len() {
                return Err(cx.error(
                    at,
                    VerifierErrorKind::BranchArgCount {
                        target: *destination,
                        expected: params.len(),
                        found: arguments.len(),
                    },
                ));
            }
            for (index, (&param, &arg)) in params.iter().zip(arguments).enumerate() {
                let expected = dfg.value_type(param);
                let found = cx.ty(arg);
                if expected != found {
                    return Err(cx.error(
                        at,
                        VerifierErrorKind::BranchArgType {
                            target: *destination,
                            index,
                            expected: expected.clone(),
                            found: found.clone(),
                        },
                    ));
                }
            }
        }
        Terminator::JmpIf {
            condition,
            then_destination,
            else_destination,
        } => {
            let found = cx.ty(*condition);
            if *found != Type::BOOL {
                return Err(cx.error(
                    at,
                    VerifierErrorKind::OperandType {
                        what: "the `jmpif` condition".into(),
                        expected: "`u1`".into(),
                        found: found.clone(),
                    },
                ));
            }
            for target in [*then_destination, *else_destination] {
                if !dfg.block_params(target).is_empty() {
                    return Err(cx.error(at, VerifierErrorKind::JmpIfTargetHasParams(target)));
                }
            }
        }
        Terminator::Return { values } => {
            let expected = &cx.returns;
            let matches = expected.len() == values.len()
                && expected.iter().zip(values).all(|(t, &v)| t == cx.ty(v));
            if !matches {
                return Err(cx.error(
                    at,
                    VerifierErrorKind::ReturnMismatch {
                        expected: type_list(expected.iter().cloned()),
                        found: type_list(values.iter().map(|&v| cx.ty(v).clone())),
                    },
                ));
            }
        }
        Terminator::Unreachable => {}
    }
    Ok(())
}
