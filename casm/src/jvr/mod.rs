//! The `.jvr` language: a subset of JuvixReg, its syntax tree, parser and
//! printer.
//!
//! ```text
//! function g(integer) : integer;              -- a declaration
//! function f(integer) : integer {             -- a definition
//!   tmp[0] = add arg[0] 1;
//!   tmp[1] = call g(tmp[0]);
//!   br tmp[1], out: tmp[2] {
//!     true: { tmp[2] = 1; };
//!     false: { tmp[2] = mul tmp[1] 2; };
//!   };
//!   ret tmp[2];
//! }
//! ```
//!
//! Operands are `arg[i]`, `tmp[i]`, named variables, integer literals
//! (optionally negative), `true`/`false` (stored as 0 and 1), `unit`,
//! `void` and string literals. Binary operations are `add sub mul div mod`
//! on integers, `fadd fsub fmul fdiv` on field elements, `eq lt le`
//! (giving booleans; `eq` compares constructors structurally) and
//! `strcat`; `show` and `atoi` take one operand. `br v` takes the `true`
//! arm when `v` is true (0); `if eq/lt/le a b` when the comparison holds.
//! A branch with `out: x` defines `x` in every arm that falls through and
//! `x` is visible after it; so is any variable every falling arm leaves
//! bound. `call c (args)` applies a closure to exactly the arguments it
//! still takes, `ccall`/`tccall` to any number.
//! Comments run from `--` to the end of the line.
//!
//! The grammar follows the JuvixReg text format of the Juvix compiler
//! (`juvix/tests/Reg`), reduced to the instructions above.

use std::fmt;

use crate::felt::Felt;

mod lex;
mod parse;
mod print;

pub use parse::{parse, MAX_NESTING};

/// A 1-based line and column in a source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// What went wrong in a `.jvr` text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JvrErrorKind {
    /// A token other than the grammar allows.
    #[error("expected {expected}, found {found}")]
    Unexpected {
        /// What the grammar allows here.
        expected: String,
        /// What the text has.
        found: String,
    },
    /// A character that starts no token.
    #[error("unexpected character {0:?}")]
    BadChar(char),
    /// A string literal without its closing quote on its line.
    #[error("unterminated string literal")]
    UnterminatedString,
    /// A backslash before a character that is no escape.
    #[error("unknown escape \\{0} in a string literal")]
    BadEscape(char),
    /// An index or literal that does not fit.
    #[error("number {0} is out of range")]
    NumberOutOfRange(String),
    /// Blocks nested deeper than the parser accepts.
    #[error("blocks nested deeper than {0}")]
    TooDeep(usize),
    /// A variable read before any assignment on this path.
    #[error("use of undefined variable {0}")]
    UndefinedVariable(String),
    /// `arg[i]` past the function's parameters.
    #[error("{0} is not a parameter of this function")]
    NoSuchArgument(String),
    /// A call to a function that is neither declared nor defined.
    #[error("unknown function {0}")]
    UnknownFunction(String),
    /// A call to a function that is declared but has no body.
    #[error("function {0} is declared but never defined")]
    NotDefined(String),
    /// A call with the wrong number of arguments.
    #[error("function {name} takes {}, {found} given", crate::counted(*.expected, "argument"))]
    Arity {
        /// The callee.
        name: String,
        /// Its number of parameters.
        expected: usize,
        /// The number of arguments at the call.
        found: usize,
    },
    /// A second definition, or a declaration disagreeing with another.
    #[error("function {0} is defined twice or declared with another arity")]
    Duplicate(String),
    /// A path through a function that reaches its end without `ret`.
    #[error("function {0} can reach its end without ret")]
    MissingRet(String),
    /// An instruction after `ret`, `tcall` or a branch that never falls through.
    #[error("unreachable instruction")]
    Unreachable,
    /// An arm of a branch with `out: x` that falls through without defining `x`.
    #[error("branch arm falls through without assigning its output {0}")]
    OutNotAssigned(String),
    /// A variable reassigned in a branch arm (other than the branch's `out`)
    /// and read after the branch: its value would depend on the path.
    #[error("{0} is assigned in a branch arm that does not declare it as out:, and read after the branch")]
    AssignedInArm(String),
    /// `run` of a program without the requested entry function.
    #[error("no function named {0}")]
    NoEntry(String),
    /// A JuvixReg construct that has no meaning on Cairo (strings, for
    /// instance), named as the source writes it.
    #[error("`{0}` cannot run on Cairo")]
    NotForCairo(String),
    /// A printed value whose term the compiled machines cannot give as the
    /// reference interpreter does: it may be a boolean, `unit` or `void`
    /// that its kind does not name (Cairo stores them as numbers).
    #[error("terms cannot be printed on Cairo: {0}")]
    NoTerms(String),
    /// A construct that the CASM lowering does not handle yet.
    #[error("`{0}` is not lowered to CASM yet")]
    NotLowered(String),
    /// An argument of the entry that cannot be laid out in memory (a
    /// closure of an undefined function, or storing too many arguments).
    #[error("entry argument: {0}")]
    EntryArgument(String),
    /// A JuvixReg instruction this crate does not implement.
    #[error("`{0}` is not supported")]
    Unsupported(String),
    /// A constructor not declared by any `type`.
    #[error("unknown constructor {0}")]
    UnknownConstructor(String),
    /// `alloc` with other than the constructor's number of fields.
    #[error("constructor {name} takes {}, {found} given", crate::counted(*.expected, "field"))]
    CtorArity {
        /// The constructor.
        name: String,
        /// Its fields.
        expected: usize,
        /// Values given.
        found: usize,
    },
    /// A field read past a constructor's fields.
    #[error("constructor {ctor} has no field {index}")]
    NoField {
        /// The constructor.
        ctor: String,
        /// The index read.
        index: u32,
    },
    /// A `case` on a type no `type` declares, or an arm naming a
    /// constructor of another type.
    #[error("`case[{ty}]` cannot have an arm {ctor}")]
    CaseArm {
        /// The type of the case.
        ty: String,
        /// The arm's constructor.
        ctor: String,
    },
    /// `eq` of values that have no equality the compiled code can decide.
    #[error("eq of {0} is not defined")]
    EqUndefined(String),
    /// A constructor or type declared twice.
    #[error("{0} is declared twice")]
    DuplicateType(String),
}

/// An error in a `.jvr` text, with its place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {kind}")]
pub struct JvrError {
    /// Where.
    pub pos: Pos,
    /// What.
    pub kind: JvrErrorKind,
}

/// A variable name in the source.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarName {
    /// `arg[i]`.
    Arg(u32),
    /// `tmp[i]`.
    Tmp(u32),
    /// A named variable.
    Named(String),
}

impl fmt::Display for VarName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarName::Arg(i) => write!(f, "arg[{i}]"),
            VarName::Tmp(i) => write!(f, "tmp[{i}]"),
            VarName::Named(s) => f.write_str(s),
        }
    }
}

/// An operand: a variable or a constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A variable, with the place it is read.
    Var(VarName, Pos),
    /// A literal (integer, or field element written `5F`).
    Const(Felt),
    /// `true` or `false`.
    Bool(bool),
    /// `unit`.
    Unit,
    /// `void`: the value of an instruction sequence that returns nothing
    /// (Juvix compiles it like `unit`).
    Void,
    /// A string literal, unescaped.
    Str(String),
    /// `x.C[i]`: field `i` of the constructor `C` that `x` holds.
    Field {
        /// The variable holding the constructor.
        var: VarName,
        /// Where it is read.
        pos: Pos,
        /// The constructor's name.
        ctor: String,
        /// The field index.
        index: u32,
    },
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Var(v, _) => v.fmt(f),
            Value::Const(c) => c.fmt(f),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Unit => f.write_str("unit"),
            Value::Void => f.write_str("void"),
            Value::Str(text) => write_string_literal(f, text),
            Value::Field {
                var, ctor, index, ..
            } => write!(f, "{var}.{ctor}[{index}]"),
        }
    }
}

/// Binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// Integer addition (modulo the Cairo prime, as on the VM).
    Add,
    /// Integer subtraction.
    Sub,
    /// Integer multiplication.
    Mul,
    /// Integer division, rounding toward zero.
    Div,
    /// Integer remainder, with the sign of the dividend.
    Mod,
    /// Field addition.
    FAdd,
    /// Field subtraction.
    FSub,
    /// Field multiplication.
    FMul,
    /// Field division (traps on a zero divisor).
    FDiv,
    /// Equality: 1 or 0.
    Eq,
    /// Signed less-than: 1 or 0.
    Lt,
    /// Signed less-or-equal: 1 or 0.
    Le,
}

impl BinOp {
    /// Every operation, in a fixed order.
    pub const ALL: [BinOp; 12] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Mod,
        BinOp::FAdd,
        BinOp::FSub,
        BinOp::FMul,
        BinOp::FDiv,
        BinOp::Eq,
        BinOp::Lt,
        BinOp::Le,
    ];

    /// The mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Mod => "mod",
            BinOp::FAdd => "fadd",
            BinOp::FSub => "fsub",
            BinOp::FMul => "fmul",
            BinOp::FDiv => "fdiv",
            BinOp::Eq => "eq",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
        }
    }

    fn from_name(s: &str) -> Option<BinOp> {
        BinOp::ALL.into_iter().find(|op| op.name() == s)
    }

    /// Whether this is a comparison (`eq lt le`).
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Lt | BinOp::Le)
    }

    /// The operation on constants. Comparisons give booleans in Juvix's
    /// Cairo encoding ([`bool_felt`]).
    pub fn eval(self, a: Felt, b: Felt) -> Result<Felt, ArithError> {
        self.check_range(a, b)?;
        Ok(match self {
            BinOp::Add | BinOp::FAdd => a + b,
            BinOp::Sub | BinOp::FSub => a - b,
            BinOp::Mul | BinOp::FMul => a * b,
            BinOp::Div => a.signed_quot_rem(&b).ok_or(ArithError::DivisionByZero)?.0,
            BinOp::Mod => a.signed_quot_rem(&b).ok_or(ArithError::DivisionByZero)?.1,
            BinOp::FDiv => a * b.inverse().ok_or(ArithError::DivisionByZero)?,
            BinOp::Eq | BinOp::Lt | BinOp::Le => bool_felt(self.holds(a, b)?),
        })
    }

    /// Whether the comparison holds.
    pub fn holds(self, a: Felt, b: Felt) -> Result<bool, ArithError> {
        self.check_range(a, b)?;
        match self {
            BinOp::Eq => Ok(a == b),
            BinOp::Lt => Ok(a.signed_cmp(&b).is_lt()),
            BinOp::Le => Ok(a.signed_cmp(&b).is_le()),
            _ => Err(ArithError::NotComparison(self)),
        }
    }

    /// The integer range the compiled code proves with the `range_check`
    /// builtin: `lt` and `le` read integers in `[-2^127, 2^127)`; `div`
    /// and `mod` a dividend of magnitude below `2^128` and a divisor of
    /// magnitude in `[1, 2^123]` (so that `quotient * divisor` cannot wrap
    /// around the field, as in cairo-lang's `unsigned_div_rem`).
    pub fn check_range(self, a: Felt, b: Felt) -> Result<(), ArithError> {
        let magnitude = |x: Felt| if x.is_negative() { -x } else { x };
        let below = |x: Felt, bits: u32| {
            let l = x.limbs();
            let high = [l[1], l[2], l[3]];
            match bits {
                128 => high[1] == 0 && high[2] == 0,
                _ => high[1] == 0 && high[2] == 0 && (l[1] >> (bits - 64)) == 0,
            }
        };
        match self {
            BinOp::Lt | BinOp::Le => {
                let shift = Felt::from_u128(1 << 127);
                for x in [a, b] {
                    if !below(x + shift, 128) {
                        return Err(ArithError::OutOfRange(self, x));
                    }
                }
            }
            BinOp::Div | BinOp::Mod => {
                if b.is_zero() {
                    return Err(ArithError::DivisionByZero);
                }
                if !below(magnitude(a), 128) {
                    return Err(ArithError::OutOfRange(self, a));
                }
                let mb = magnitude(b);
                if !(below(mb, 123) || mb == Felt::from_u128(1 << 123)) {
                    return Err(ArithError::OutOfRange(self, b));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Why an operation has no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArithError {
    /// `fdiv`, `div` or `mod` by zero.
    #[error("division by zero")]
    DivisionByZero,
    /// An operand outside the range the operation is proved on
    /// ([`BinOp::check_range`]).
    #[error("`{op}` operand {value} is out of range", op = .0.name(), value = .1)]
    OutOfRange(BinOp, Felt),
    /// `holds` of an operation that is not a comparison.
    #[error("`{op}` is not a comparison", op = .0.name())]
    NotComparison(BinOp),
}

/// A boolean as Juvix's Cairo backend stores it: `true` is 0 and `false`
/// is 1, so that `br v` takes its `true` arm exactly when `v` is zero (and
/// its `false` arm for any other value).
pub fn bool_felt(b: bool) -> Felt {
    if b {
        Felt::ZERO
    } else {
        Felt::ONE
    }
}

/// The condition of a branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `br v`: true when `v` is zero (see [`bool_felt`]).
    NonZero(Value),
    /// `if op a b` with a comparison `op`.
    Cmp(BinOp, Value, Value),
}

/// One instruction, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// Where it starts.
    pub pos: Pos,
    /// What it is.
    pub kind: StmtKind,
}

/// Instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `x = v`.
    Assign {
        /// Destination.
        dst: VarName,
        /// Source.
        src: Value,
    },
    /// `x = op a b`.
    Binop {
        /// Destination.
        dst: VarName,
        /// Operation.
        op: BinOp,
        /// Left operand.
        a: Value,
        /// Right operand.
        b: Value,
    },
    /// `x = call f(args)`.
    Call {
        /// Destination.
        dst: VarName,
        /// Callee.
        func: String,
        /// Arguments.
        args: Vec<Value>,
    },
    /// `tcall f(args)`: call and return the callee's result.
    TailCall {
        /// Callee.
        func: String,
        /// Arguments.
        args: Vec<Value>,
    },
    /// `ret v`.
    Ret(Value),
    /// `x = argsnum c`: the number of arguments closure `c` still takes.
    ArgsNum {
        /// Destination.
        dst: VarName,
        /// The closure.
        closure: Value,
    },
    /// `x = poseidon s` / `x = ec_op p k q`: a Cairo builtin.
    Builtin {
        /// Destination.
        dst: VarName,
        /// Which builtin.
        op: BuiltinOp,
        /// Operands.
        args: Vec<Value>,
    },
    /// `x = alloc C (args)`: a constructor.
    Alloc {
        /// Destination.
        dst: VarName,
        /// Constructor name.
        ctor: String,
        /// Fields.
        args: Vec<Value>,
    },
    /// `x = calloc f (args)`: a closure of `f` with its first arguments.
    CAlloc {
        /// Destination.
        dst: VarName,
        /// The function.
        func: String,
        /// Arguments stored in the closure.
        args: Vec<Value>,
    },
    /// `x = cextend c (args)`: a new closure with more arguments stored.
    CExtend {
        /// Destination.
        dst: VarName,
        /// The closure extended.
        closure: Value,
        /// Arguments added.
        args: Vec<Value>,
    },
    /// `x = call c (args)` through a closure value, with exactly the
    /// closure's remaining arity.
    CallClosure {
        /// Destination.
        dst: VarName,
        /// The closure.
        closure: Value,
        /// Arguments.
        args: Vec<Value>,
    },
    /// `tcall c (args)` through a closure value.
    TailCallClosure {
        /// The closure.
        closure: Value,
        /// Arguments.
        args: Vec<Value>,
    },
    /// `x = ccall c (args)`: a closure applied to any number of arguments.
    /// Fewer than it takes extend it; more call it with what it takes and
    /// apply the result to the rest (Juvix's `CallClosures`).
    CallClosures {
        /// Destination.
        dst: VarName,
        /// The closure.
        closure: Value,
        /// Arguments.
        args: Vec<Value>,
    },
    /// `tccall c (args)`: [`StmtKind::CallClosures`] in tail position.
    TailCallClosures {
        /// The closure.
        closure: Value,
        /// Arguments.
        args: Vec<Value>,
    },
    /// `x = show v`, `x = atoi v`: the string operations of one operand.
    StrUnop {
        /// Destination.
        dst: VarName,
        /// Operation.
        op: StrOp,
        /// Operand.
        a: Value,
    },
    /// `x = strcat a b`.
    StrCat {
        /// Destination.
        dst: VarName,
        /// Left.
        a: Value,
        /// Right.
        b: Value,
    },
    /// `trace v`: prints `v` (one line per executed trace).
    Trace(Value),
    /// `fail v`: stops the program with the message `v`.
    Fail(Value),
    /// `dump`: prints the interpreter state in Juvix; here a no-op.
    Dump,
    /// `nop`, or `prealloc N`, whose meaning (reserving heap words) the
    /// Cairo translation recomputes.
    Nop,
    /// A bare `{ ... }` block.
    Block(Vec<Stmt>),
    /// `case[T] x { C: {...}; default: {...}; }`.
    Case {
        /// The type named in brackets.
        ty: String,
        /// The scrutinee.
        value: Value,
        /// The variable every arm defines, visible after the case.
        out: Option<VarName>,
        /// One arm per constructor listed.
        arms: Vec<CaseArm>,
        /// The `default` arm, if any.
        default: Option<Vec<Stmt>>,
    },
    /// `br`/`if` with two arms.
    Branch {
        /// Condition.
        cond: Cond,
        /// The variable both arms define, visible after the branch.
        out: Option<VarName>,
        /// Arm taken when the condition holds.
        on_true: Vec<Stmt>,
        /// Arm taken otherwise.
        on_false: Vec<Stmt>,
    },
}

/// One constructor arm of a `case`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseArm {
    /// Where the constructor name is.
    pub pos: Pos,
    /// The constructor.
    pub ctor: String,
    /// The arm's body.
    pub body: Vec<Stmt>,
}

/// The string operations of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StrOp {
    /// `show v`: the text Juvix prints for `v`.
    Show,
    /// `atoi s`: the integer `s` spells (a failure when it spells none).
    Atoi,
}

impl StrOp {
    /// The mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            StrOp::Show => "show",
            StrOp::Atoi => "atoi",
        }
    }
}

/// Writes `text` as a JuvixReg string literal (`\\`, `\"`, `\n`, `\t`
/// escaped).
fn write_string_literal(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

/// The Cairo builtins JuvixReg calls by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinOp {
    /// `poseidon s`: the Poseidon permutation of a 3-field state.
    Poseidon,
    /// `ec_op p m q`: `p + m * q` on the STARK curve.
    EcOp,
}

impl BuiltinOp {
    /// The mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinOp::Poseidon => "poseidon",
            BuiltinOp::EcOp => "ec_op",
        }
    }

    /// The number of operands.
    pub fn arity(self) -> usize {
        match self {
            BuiltinOp::Poseidon => 1,
            BuiltinOp::EcOp => 3,
        }
    }
}

/// A constructor of a `type` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ctor {
    /// Where its name is.
    pub pos: Pos,
    /// Its name.
    pub name: String,
    /// Its type as written (`(*, List) -> List`).
    pub ty: String,
    /// Its number of fields.
    pub arity: usize,
}

/// A `type` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeDecl {
    /// Where `type` is.
    pub pos: Pos,
    /// Its name.
    pub name: String,
    /// Its constructors, in declaration order.
    pub ctors: Vec<Ctor>,
}

/// A parameter: an optional name and a type name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name, if the source gives one.
    pub name: Option<String>,
    /// The type name (`integer`, `field`, ...), not checked.
    pub ty: String,
}

/// A function declaration or definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Where `function` is.
    pub pos: Pos,
    /// Name.
    pub name: String,
    /// Parameters.
    pub params: Vec<Param>,
    /// Result type name.
    pub ret: String,
    /// The body of a definition; `None` for a declaration.
    pub body: Option<Vec<Stmt>>,
    /// Where the closing `}` of a definition is.
    pub end: Pos,
}

impl Function {
    /// The number of arguments of the function's whole type: its
    /// parameters, then those of the arrows of its result type.
    pub fn type_arity(&self) -> usize {
        let mut depth = 0usize;
        let mut arrows = 0usize;
        let bytes = self.ret.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            match b {
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                b'-' if depth == 0 && bytes.get(i + 1) == Some(&b'>') => arrows += 1,
                _ => {}
            }
        }
        self.params.len() + arrows
    }
}

/// The field types of a constructor type as written (`(*, list) -> list`
/// gives `*` and `list`; `integer -> t` gives `integer`; `t` none).
pub fn ctor_field_types(ty: &str) -> Vec<String> {
    let bytes = ty.as_bytes();
    let mut depth = 0usize;
    let mut arrow = None;
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b'-' if depth == 0 && bytes.get(i + 1) == Some(&b'>') => {
                arrow = Some((i, 2));
                break;
            }
            _ if depth == 0 && ty[i..].starts_with('→') => {
                arrow = Some((i, '→'.len_utf8()));
                break;
            }
            _ => {}
        }
    }
    let Some((at, _)) = arrow else {
        return Vec::new();
    };
    let args = ty[..at].trim();
    let inner = match args.strip_prefix('(').and_then(|a| a.strip_suffix(')')) {
        Some(inner) => inner,
        None => return vec![args.to_string()],
    };
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(inner[start..].trim().to_string());
    parts
}

/// A `.jvr` file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// `type` declarations in source order.
    pub types: Vec<TypeDecl>,
    /// Declarations and definitions in source order.
    pub functions: Vec<Function>,
}

impl Module {
    /// The constructor `name`: its type, its tag (its index among all
    /// constructors of the module, in declaration order) and its
    /// declaration.
    pub fn ctor(&self, name: &str) -> Option<(&TypeDecl, u32, &Ctor)> {
        let mut tag = 0u32;
        for t in &self.types {
            for c in &t.ctors {
                if c.name == name {
                    return Some((t, tag, c));
                }
                tag += 1;
            }
        }
        None
    }

    /// The name of the constructor of tag `tag`.
    pub fn ctor_by_tag(&self, tag: u32) -> Option<String> {
        self.types
            .iter()
            .flat_map(|t| &t.ctors)
            .nth(tag as usize)
            .map(|c| c.name.clone())
    }

    /// The definition of `name`, if any.
    pub fn definition(&self, name: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.name == name && f.body.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_stably() {
        let src = "function g(integer) : integer;\n\
                   function f(x : integer) : integer { -- comment\n\
                     tmp[0] = add arg[0] -1;\n\
                     y = call g(tmp[0]);\n\
                     if lt y 3, out: z { true: { z = 1; }; false: { z = fmul y y; }; };\n\
                     ret z;\n\
                   }\n";
        let m = parse(src).unwrap();
        let printed = m.to_string();
        assert_eq!(parse(&printed).unwrap().to_string(), printed);
        assert_eq!(m.functions.len(), 2);
        assert!(m.definition("f").is_some());
        assert!(m.definition("g").is_none());
    }

    #[test]
    fn errors_have_positions() {
        let e = parse("function f() : integer {\n  ret ;\n}").unwrap_err();
        assert_eq!(e.pos, Pos { line: 2, col: 7 });
        let e = parse("function f() : integer {\n  x = 1 # 2;\n}").unwrap_err();
        assert_eq!(e.kind, JvrErrorKind::BadChar('#'));
        assert_eq!(e.pos, Pos { line: 2, col: 9 });
        let deep = format!(
            "function f() : integer {{ {} }}",
            "br 1 { true: { ".repeat(100)
        );
        assert_eq!(
            parse(&deep).unwrap_err().kind,
            JvrErrorKind::TooDeep(MAX_NESTING)
        );
    }
}
