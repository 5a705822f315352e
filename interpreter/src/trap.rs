//! Why and where a run trapped.

use std::fmt;

use kildall_ir::{BinaryOp, Block, FuncId, Inst, SourceLoc, Type, Value};

use super::value::RuntimeValue;

/// Why a run stopped abnormally.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum TrapKind {
    /// Checked `add`, `sub` or `mul` whose result is outside its type.
    #[error("attempt to {op} with overflow: {lhs} and {rhs}")]
    Overflow {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: RuntimeValue,
        /// Right operand.
        rhs: RuntimeValue,
    },
    /// `div` or `mod` by zero.
    #[error("attempt to {op} {lhs} by zero")]
    DivisionByZero {
        /// The operator.
        op: BinaryOp,
        /// The dividend.
        lhs: RuntimeValue,
    },
    /// A failed `constrain`.
    #[error("constraint failed: {lhs} {} {rhs}{}", if *.equal { "==" } else { "!=" },
        .message.as_ref().map(|m| format!(": {m:?}")).unwrap_or_default())]
    ConstrainFailed {
        /// Left side.
        lhs: RuntimeValue,
        /// Right side.
        rhs: RuntimeValue,
        /// Whether the constraint was `==` (else `!=`).
        equal: bool,
        /// The constraint's message.
        message: Option<String>,
    },
    /// A failed `range_check`.
    #[error("range check failed: {value} does not fit in {bits} bits")]
    RangeCheckFailed {
        /// The value checked.
        value: RuntimeValue,
        /// The bit bound.
        bits: u32,
    },
    /// A `cast` to a type the value does not fit.
    #[error("cast failed: {value} does not fit in {ty}")]
    CastFailed {
        /// The value cast.
        value: RuntimeValue,
        /// The target type.
        ty: Type,
    },
    /// A `shl` or `shr` by at least the bit width.
    #[error("`{op}` by {shift}, which is not below the bit width {bits}")]
    ShiftTooLarge {
        /// The operator.
        op: BinaryOp,
        /// The shift amount.
        shift: RuntimeValue,
        /// The bit width of the shifted value.
        bits: u32,
    },
    /// `array_get` or `array_set` at an index at or past the length.
    #[error("index {index} out of bounds for an array of {len} elements")]
    IndexOutOfBounds {
        /// The flattened index.
        index: RuntimeValue,
        /// The flattened length.
        len: usize,
    },
    /// `load` of a reference no `store` wrote.
    #[error("load of {reference}, which was never stored")]
    LoadOfUninitialized {
        /// The reference loaded.
        reference: RuntimeValue,
    },
    /// A noisy operation whose result's noise is over the limit.
    #[error("noise {noise} bits exceeds the maximum of {max} bits")]
    NoiseOverLimit {
        /// The result's noise bound.
        noise: u32,
        /// The limit.
        max: u32,
    },
    /// The `unreachable` terminator was executed.
    #[error("executed `unreachable`")]
    Unreachable,
    /// A call nested deeper than the limit.
    #[error("call depth exceeds the limit of {limit}")]
    CallDepthExceeded {
        /// The limit.
        limit: usize,
    },
    /// A function called with the wrong number of arguments.
    #[error("{function} takes {expected} arguments but was given {got}")]
    ArgumentCount {
        /// The function called.
        function: FuncId,
        /// Its parameter count.
        expected: usize,
        /// The arguments given.
        got: usize,
    },
    /// An argument that does not have its parameter's type.
    #[error("argument {index} of {function} should be {expected}, got {got}")]
    ArgumentType {
        /// The function called.
        function: FuncId,
        /// The argument position.
        index: usize,
        /// The parameter type.
        expected: Type,
        /// The argument.
        got: RuntimeValue,
    },
    /// A `return` whose value count differs from the call's result count.
    #[error("{function} returned {got} values where the call expects {expected}")]
    ResultCount {
        /// The function that returned.
        function: FuncId,
        /// The call's result count.
        expected: usize,
        /// The values returned.
        got: usize,
    },
    /// A `jmp` whose argument count differs from the destination's parameters.
    #[error("jump to {block} passes {got} arguments for {expected} parameters")]
    BranchArgumentCount {
        /// The destination.
        block: Block,
        /// Its parameter count.
        expected: usize,
        /// The arguments passed.
        got: usize,
    },
    /// A call of a function the module does not have.
    #[error("call of {function}, which is not in the module")]
    UnknownFunction {
        /// The callee.
        function: FuncId,
    },
    /// A function without blocks, or a block without a terminator.
    #[error("{0}")]
    Malformed(String),
    /// An operand read before it was defined (not in SSA form).
    #[error("{value} used before it is defined")]
    UndefinedValue {
        /// The value read.
        value: Value,
    },
    /// A builtin called outside its domain (popping an empty slice, a
    /// number with more digits than asked for, a false `static_assert`).
    #[error("`{builtin}`: {reason}")]
    Builtin {
        /// The builtin's name.
        builtin: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// A builtin the interpreter cannot compute (most black boxes).
    #[error("`{builtin}` cannot be computed by the interpreter")]
    Unsupported {
        /// The builtin's name.
        builtin: &'static str,
    },
    /// An operand of the wrong type (a program that does not verify).
    #[error("type error: {0}")]
    TypeError(String),
    /// A call of a foreign (oracle) function in a run given no handler.
    #[error("call of the foreign function `{name}`, and the run has no handler for oracles")]
    NoForeignHandler {
        /// The oracle's name.
        name: String,
    },
    /// The handler refused a foreign call, or answered it with results that
    /// do not match the call's result types.
    #[error("the foreign function `{name}` failed: {reason}")]
    ForeignFailed {
        /// The oracle's name.
        name: String,
        /// Why.
        reason: String,
    },
}

/// Where a trap happened.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TrapSite {
    /// The function.
    pub function: FuncId,
    /// Its name.
    pub function_name: String,
    /// The block.
    pub block: Block,
    /// The instruction, or `None` for the block's terminator.
    pub inst: Option<Inst>,
    /// The instruction's mnemonic (or the terminator's).
    pub opcode: &'static str,
    /// The instruction's first result, if any.
    pub result: Option<Value>,
    /// The position in the source text, if known.
    pub loc: SourceLoc,
}

impl fmt::Display for TrapSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("at `")?;
        if let Some(result) = self.result {
            write!(f, "{result} = ")?;
        }
        write!(
            f,
            "{}` in {} of fn {} {}",
            self.opcode, self.block, self.function_name, self.function
        )?;
        if self.loc.is_known() {
            write!(f, " (line {})", self.loc)?;
        }
        Ok(())
    }
}

/// A trap: its reason and, when it happened inside a function, where.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trap {
    /// Why.
    pub kind: TrapKind,
    /// Where; `None` when the run could not start (bad arguments).
    pub site: Option<TrapSite>,
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(site) = &self.site {
            write!(f, " {site}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Trap {}
