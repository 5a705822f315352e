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
//! (optionally negative) and `true`/`false` (1 and 0). Binary operations are
//! `add sub mul` on integers, `fadd fsub fmul fdiv` on field elements and
//! `eq lt le` (giving 1 or 0). `br v` takes the `true` arm when `v` is
//! non-zero; `if eq/lt/le a b` when the comparison holds. A branch with
//! `out: x` defines `x` in every arm that falls through and `x` is visible
//! after it; other variables assigned in an arm stay local to the arm.
//! Comments run from `--` to the end of the line.
//!
//! The grammar follows the JuvixReg text format of the Juvix compiler
//! (`juvix/tests/Reg`), reduced to the instructions above.

use std::fmt;

use crate::felt::Felt;

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
    #[error("function {name} takes {expected} arguments, {found} given")]
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
    /// A construct that the CASM lowering does not handle yet.
    #[error("`{0}` is not lowered to CASM yet")]
    NotLowered(String),
    /// A JuvixReg instruction this crate does not implement.
    #[error("`{0}` is not supported")]
    Unsupported(String),
    /// A constructor not declared by any `type`.
    #[error("unknown constructor {0}")]
    UnknownConstructor(String),
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

    /// The operation on constants; `None` for a division by zero.
    /// Comparisons give booleans in Juvix's Cairo encoding ([`bool_felt`]).
    pub fn eval(self, a: Felt, b: Felt) -> Option<Felt> {
        Some(match self {
            BinOp::Add | BinOp::FAdd => a + b,
            BinOp::Sub | BinOp::FSub => a - b,
            BinOp::Mul | BinOp::FMul => a * b,
            BinOp::Div => a.signed_quot_rem(&b)?.0,
            BinOp::Mod => a.signed_quot_rem(&b)?.1,
            BinOp::FDiv => a * b.inverse()?,
            BinOp::Eq | BinOp::Lt | BinOp::Le => bool_felt(self.holds(a, b)?),
        })
    }

    /// Whether the comparison holds; `None` for an operation that is not a
    /// comparison.
    pub fn holds(self, a: Felt, b: Felt) -> Option<bool> {
        match self {
            BinOp::Eq => Some(a == b),
            BinOp::Lt => Some(a.signed_cmp(&b).is_lt()),
            BinOp::Le => Some(a.signed_cmp(&b).is_le()),
            _ => None,
        }
    }
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

    /// The definition of `name`, if any.
    pub fn definition(&self, name: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.name == name && f.body.is_some())
    }
}

// ---------------------------------------------------------------- printing

fn write_stmts(f: &mut fmt::Formatter<'_>, stmts: &[Stmt], indent: usize) -> fmt::Result {
    for s in stmts {
        write_stmt(f, s, indent)?;
    }
    Ok(())
}

fn write_args(f: &mut fmt::Formatter<'_>, args: &[Value]) -> fmt::Result {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

fn write_stmt(f: &mut fmt::Formatter<'_>, s: &Stmt, indent: usize) -> fmt::Result {
    let pad = "  ".repeat(indent);
    match &s.kind {
        StmtKind::Assign { dst, src } => writeln!(f, "{pad}{dst} = {src};"),
        StmtKind::Binop { dst, op, a, b } => writeln!(f, "{pad}{dst} = {} {a} {b};", op.name()),
        StmtKind::Call { dst, func, args } => {
            write!(f, "{pad}{dst} = call {func}(")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::TailCall { func, args } => {
            write!(f, "{pad}tcall {func}(")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::Ret(v) => writeln!(f, "{pad}ret {v};"),
        StmtKind::ArgsNum { dst, closure } => writeln!(f, "{pad}{dst} = argsnum {closure};"),
        StmtKind::Builtin { dst, op, args } => {
            write!(f, "{pad}{dst} = {}", op.name())?;
            for a in args {
                write!(f, " {a}")?;
            }
            writeln!(f, ";")
        }
        StmtKind::Alloc { dst, ctor, args } => {
            write!(f, "{pad}{dst} = alloc {ctor} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::CAlloc { dst, func, args } => {
            write!(f, "{pad}{dst} = calloc {func} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::CExtend { dst, closure, args } => {
            write!(f, "{pad}{dst} = cextend {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::CallClosure { dst, closure, args } => {
            write!(f, "{pad}{dst} = call {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::TailCallClosure { closure, args } => {
            write!(f, "{pad}tcall {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::Trace(v) => writeln!(f, "{pad}trace {v};"),
        StmtKind::Fail(v) => writeln!(f, "{pad}fail {v};"),
        StmtKind::Dump => writeln!(f, "{pad}dump;"),
        StmtKind::Nop => writeln!(f, "{pad}nop;"),
        StmtKind::Block(body) => {
            writeln!(f, "{pad}{{")?;
            write_stmts(f, body, indent + 1)?;
            writeln!(f, "{pad}}};")
        }
        StmtKind::Case {
            ty,
            value,
            out,
            arms,
            default,
        } => {
            write!(f, "{pad}case[{ty}] {value}")?;
            if let Some(o) = out {
                write!(f, ", out: {o}")?;
            }
            writeln!(f, " {{")?;
            for arm in arms {
                writeln!(f, "{pad}  {}: {{", arm.ctor)?;
                write_stmts(f, &arm.body, indent + 2)?;
                writeln!(f, "{pad}  }};")?;
            }
            if let Some(d) = default {
                writeln!(f, "{pad}  default: {{")?;
                write_stmts(f, d, indent + 2)?;
                writeln!(f, "{pad}  }};")?;
            }
            writeln!(f, "{pad}}};")
        }
        StmtKind::Branch {
            cond,
            out,
            on_true,
            on_false,
        } => {
            match cond {
                Cond::NonZero(v) => write!(f, "{pad}br {v}")?,
                Cond::Cmp(op, a, b) => write!(f, "{pad}if {} {a} {b}", op.name())?,
            }
            if let Some(o) = out {
                write!(f, ", out: {o}")?;
            }
            writeln!(f, " {{")?;
            writeln!(f, "{pad}  true: {{")?;
            write_stmts(f, on_true, indent + 2)?;
            writeln!(f, "{pad}  }};")?;
            writeln!(f, "{pad}  false: {{")?;
            write_stmts(f, on_false, indent + 2)?;
            writeln!(f, "{pad}  }};")?;
            writeln!(f, "{pad}}};")
        }
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for t in &self.types {
            writeln!(f, "type {} {{", t.name)?;
            for c in &t.ctors {
                writeln!(f, "  {} : {};", c.name, c.ty)?;
            }
            writeln!(f, "}}\n")?;
        }
        for (i, func) in self.functions.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "function {}(", func.name)?;
            for (j, p) in func.params.iter().enumerate() {
                if j > 0 {
                    f.write_str(", ")?;
                }
                match &p.name {
                    Some(n) => write!(f, "{n} : {}", p.ty)?,
                    None => f.write_str(&p.ty)?,
                }
            }
            write!(f, ") : {}", func.ret)?;
            match &func.body {
                None => writeln!(f, ";")?,
                Some(body) => {
                    writeln!(f, " {{")?;
                    write_stmts(f, body, 1)?;
                    writeln!(f, "}}")?;
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- lexing

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Int(String),
    /// A field literal, `5F`; the digits without the `F`.
    FieldLit(String),
    Punct(char),
    /// `->` or `→`.
    Arrow,
    /// A string literal: JuvixReg has them, Cairo does not.
    Str,
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Int(s) => write!(f, "`{s}`"),
            Tok::FieldLit(s) => write!(f, "`{s}F`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Arrow => f.write_str("`->`"),
            Tok::Str => f.write_str("a string"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, JvrError> {
    let mut out = Vec::new();
    let chars: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '-' && chars.get(i + 1) == Some(&'-') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        if c == '"' {
            // Skipped to its end so that the parser can name the construct.
            i += 1;
            while i < chars.len() && chars[i] != '"' && chars[i] != '\n' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            out.push((Tok::Str, pos));
        } else if c == '→' {
            i += 1;
            out.push((Tok::Arrow, pos));
        } else if c == '-' && chars.get(i + 1) == Some(&'>') {
            i += 2;
            out.push((Tok::Arrow, pos));
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '\'')
            {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), pos));
        } else if c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            if chars.get(i) == Some(&'F') {
                i += 1;
                out.push((Tok::FieldLit(digits), pos));
            } else {
                out.push((Tok::Int(digits), pos));
            }
        } else if "(){}[],;:=*.".contains(c) {
            i += 1;
            out.push((Tok::Punct(c), pos));
        } else {
            return Err(JvrError {
                pos,
                kind: JvrErrorKind::BadChar(c),
            });
        }
        col += (i - start) as u32;
    }
    out.push((Tok::Eof, Pos { line, col }));
    Ok(out)
}

// ---------------------------------------------------------------- parsing

/// Deepest block nesting the parser accepts; deeper input is an error, not
/// a stack overflow.
pub const MAX_NESTING: usize = 64;

const KEYWORDS: &[&str] = &[
    "function", "type", "ret", "tcall", "br", "if", "case", "call", "true", "false", "unit", "out",
    "arg", "tmp", "add", "sub", "mul", "div", "mod", "fadd", "fsub", "fmul", "fdiv", "eq", "lt",
    "le", "nop", "trace", "dump", "fail", "prealloc", "alloc", "calloc", "cextend", "argsnum",
    "poseidon", "ec_op",
];

/// JuvixReg instructions on strings: Cairo has no strings.
const STRING_OPS: &[&str] = &["strcat", "show", "atoi"];

/// JuvixReg instructions this crate rejects by name.
const UNSUPPORTED: &[&str] = &[
    "ccall",
    "tccall",
    "assert",
    "random_ec_point",
    "range_check",
    "itof",
    "ftoi",
];

struct Parser {
    toks: Vec<(Tok, Pos)>,
    at: usize,
    depth: usize,
}

type PResult<T> = Result<T, JvrError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].0
    }

    fn pos(&self) -> Pos {
        self.toks[self.at].1
    }

    fn bump(&mut self) -> (Tok, Pos) {
        let t = self.toks[self.at].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn err<T>(&self, expected: &str) -> PResult<T> {
        Err(JvrError {
            pos: self.pos(),
            kind: JvrErrorKind::Unexpected {
                expected: expected.to_string(),
                found: self.peek().to_string(),
            },
        })
    }

    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Tok::Punct(c)
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(i) if i == s)
    }

    fn expect_punct(&mut self, c: char) -> PResult<Pos> {
        if self.is_punct(c) {
            Ok(self.bump().1)
        } else {
            self.err(&format!("`{c}`"))
        }
    }

    fn expect_keyword(&mut self, k: &str) -> PResult<Pos> {
        if self.is_ident(k) {
            Ok(self.bump().1)
        } else {
            self.err(&format!("`{k}`"))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(String, Pos)> {
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                let p = self.bump().1;
                Ok((s, p))
            }
            _ => self.err(what),
        }
    }

    /// Any identifier, keywords included (constructor and type names).
    fn name(&mut self, what: &str) -> PResult<(String, Pos)> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                let p = self.bump().1;
                Ok((s, p))
            }
            _ => self.err(what),
        }
    }

    /// `, live: (vars)` after a call or `prealloc`: accepted and dropped,
    /// since liveness is recomputed.
    fn live_vars(&mut self) -> PResult<()> {
        if !(self.is_punct(',') && matches!(&self.toks[self.at + 1].0, Tok::Ident(s) if s == "live"))
        {
            return Ok(());
        }
        self.bump();
        self.bump();
        self.expect_punct(':')?;
        self.expect_punct('(')?;
        if !self.is_punct(')') {
            loop {
                self.var()?;
                if self.is_punct(',') {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        self.expect_punct(')')?;
        Ok(())
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(JvrError {
                pos: self.pos(),
                kind: JvrErrorKind::TooDeep(MAX_NESTING),
            });
        }
        Ok(())
    }

    fn closure_operand(&self) -> bool {
        self.is_ident("tmp") || self.is_ident("arg")
    }

    fn index(&mut self) -> PResult<u32> {
        self.expect_punct('[')?;
        let pos = self.pos();
        let n = match self.peek().clone() {
            Tok::Int(s) if !s.starts_with('-') => s.parse::<u32>().map_err(|_| JvrError {
                pos,
                kind: JvrErrorKind::NumberOutOfRange(s.clone()),
            })?,
            _ => return self.err("an index"),
        };
        self.bump();
        self.expect_punct(']')?;
        Ok(n)
    }

    fn var(&mut self) -> PResult<(VarName, Pos)> {
        let pos = self.pos();
        if self.is_ident("arg") {
            self.bump();
            Ok((VarName::Arg(self.index()?), pos))
        } else if self.is_ident("tmp") {
            self.bump();
            Ok((VarName::Tmp(self.index()?), pos))
        } else {
            let (s, p) = self.ident("a variable")?;
            Ok((VarName::Named(s), p))
        }
    }

    fn value(&mut self) -> PResult<Value> {
        match self.peek().clone() {
            Tok::Int(s) => {
                let pos = self.pos();
                self.bump();
                // Literals are bounded so that a long digit string cannot cost
                // more than a fixed amount of work.
                if s.len() > 80 {
                    return Err(JvrError {
                        pos,
                        kind: JvrErrorKind::NumberOutOfRange(s),
                    });
                }
                match Felt::parse_decimal(&s) {
                    Some(f) => Ok(Value::Const(f)),
                    None => Err(JvrError {
                        pos,
                        kind: JvrErrorKind::NumberOutOfRange(s),
                    }),
                }
            }
            Tok::FieldLit(s) => {
                let pos = self.pos();
                self.bump();
                match Felt::parse_decimal(&s).filter(|_| s.len() <= 80) {
                    Some(f) => Ok(Value::Const(f)),
                    None => Err(JvrError {
                        pos,
                        kind: JvrErrorKind::NumberOutOfRange(format!("{s}F")),
                    }),
                }
            }
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.bump();
                Ok(Value::Bool(s == "true"))
            }
            Tok::Ident(s) if s == "unit" => {
                self.bump();
                Ok(Value::Unit)
            }
            Tok::Ident(_) => {
                let (v, p) = self.var()?;
                if self.is_punct('.') {
                    self.bump();
                    let ctor = self.name("a constructor name")?.0;
                    let index = self.index()?;
                    return Ok(Value::Field {
                        var: v,
                        pos: p,
                        ctor,
                        index,
                    });
                }
                Ok(Value::Var(v, p))
            }
            Tok::Str => Err(JvrError {
                pos: self.pos(),
                kind: JvrErrorKind::NotForCairo("string literal".to_string()),
            }),
            _ => self.err("an operand"),
        }
    }

    fn args(&mut self) -> PResult<Vec<Value>> {
        self.expect_punct('(')?;
        let mut args = Vec::new();
        if !self.is_punct(')') {
            loop {
                args.push(self.value()?);
                if self.is_punct(',') {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        self.expect_punct(')')?;
        Ok(args)
    }

    fn block(&mut self) -> PResult<(Vec<Stmt>, Pos)> {
        self.expect_punct('{')?;
        self.enter()?;
        let mut stmts = Vec::new();
        while !self.is_punct('}') {
            stmts.push(self.stmt()?);
        }
        self.depth -= 1;
        let end = self.expect_punct('}')?;
        Ok((stmts, end))
    }

    fn arm(&mut self, label: &str) -> PResult<Vec<Stmt>> {
        self.expect_keyword(label)?;
        self.expect_punct(':')?;
        let (body, _) = self.block()?;
        if self.is_punct(';') {
            self.bump();
        }
        Ok(body)
    }

    fn branch_tail(&mut self) -> PResult<(Option<VarName>, Vec<Stmt>, Vec<Stmt>)> {
        let mut out = None;
        if self.is_punct(',') {
            self.bump();
            self.expect_keyword("out")?;
            self.expect_punct(':')?;
            out = Some(self.var()?.0);
        }
        self.expect_punct('{')?;
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(JvrError {
                pos: self.pos(),
                kind: JvrErrorKind::TooDeep(MAX_NESTING),
            });
        }
        let on_true = self.arm("true")?;
        let on_false = self.arm("false")?;
        self.depth -= 1;
        self.expect_punct('}')?;
        if self.is_punct(';') {
            self.bump();
        }
        Ok((out, on_true, on_false))
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let pos = self.pos();
        if let Tok::Ident(word) = self.peek() {
            if UNSUPPORTED.contains(&word.as_str()) || STRING_OPS.contains(&word.as_str()) {
                return Err(JvrError {
                    pos,
                    kind: JvrErrorKind::Unsupported(word.clone()),
                });
            }
        }
        let simple = |p: &mut Parser, kind: StmtKind| -> PResult<StmtKind> {
            p.bump();
            p.expect_punct(';')?;
            Ok(kind)
        };
        let kind = if self.is_ident("nop") {
            simple(self, StmtKind::Nop)?
        } else if self.is_ident("dump") {
            simple(self, StmtKind::Dump)?
        } else if self.is_ident("prealloc") {
            self.bump();
            match self.peek() {
                Tok::Int(n) if !n.starts_with('-') => {
                    self.bump();
                }
                _ => return self.err("a number of words"),
            }
            self.live_vars()?;
            self.expect_punct(';')?;
            StmtKind::Nop
        } else if self.is_ident("trace") || self.is_ident("fail") {
            let is_trace = self.is_ident("trace");
            self.bump();
            let v = self.value()?;
            self.expect_punct(';')?;
            if is_trace {
                StmtKind::Trace(v)
            } else {
                StmtKind::Fail(v)
            }
        } else if self.is_punct('{') {
            let (body, _) = self.block()?;
            if self.is_punct(';') {
                self.bump();
            }
            StmtKind::Block(body)
        } else if self.is_ident("case") {
            self.bump();
            self.expect_punct('[')?;
            let ty = self.name("a type name")?.0;
            self.expect_punct(']')?;
            let value = self.value()?;
            let mut out = None;
            if self.is_punct(',') {
                self.bump();
                self.expect_keyword("out")?;
                self.expect_punct(':')?;
                out = Some(self.var()?.0);
            }
            self.expect_punct('{')?;
            self.enter()?;
            let (mut arms, mut default) = (Vec::new(), None);
            while !self.is_punct('}') {
                let (ctor, cpos) = self.name("a constructor name or `default`")?;
                self.expect_punct(':')?;
                let (body, _) = self.block()?;
                if self.is_punct(';') {
                    self.bump();
                }
                if ctor == "default" {
                    if default.is_some() {
                        return Err(JvrError {
                            pos: cpos,
                            kind: JvrErrorKind::DuplicateType("default".to_string()),
                        });
                    }
                    default = Some(body);
                } else {
                    arms.push(CaseArm {
                        pos: cpos,
                        ctor,
                        body,
                    });
                }
            }
            self.depth -= 1;
            self.expect_punct('}')?;
            if self.is_punct(';') {
                self.bump();
            }
            StmtKind::Case {
                ty,
                value,
                out,
                arms,
                default,
            }
        } else if self.is_ident("ret") {
            self.bump();
            let v = self.value()?;
            self.expect_punct(';')?;
            StmtKind::Ret(v)
        } else if self.is_ident("tcall") {
            self.bump();
            if self.closure_operand() {
                let closure = self.value()?;
                let args = self.args()?;
                self.expect_punct(';')?;
                StmtKind::TailCallClosure { closure, args }
            } else {
                let (func, _) = self.ident("a function name")?;
                let args = self.args()?;
                self.expect_punct(';')?;
                StmtKind::TailCall { func, args }
            }
        } else if self.is_ident("br") {
            self.bump();
            let v = self.value()?;
            let (out, on_true, on_false) = self.branch_tail()?;
            StmtKind::Branch {
                cond: Cond::NonZero(v),
                out,
                on_true,
                on_false,
            }
        } else if self.is_ident("if") {
            self.bump();
            let op = match self.peek() {
                Tok::Ident(s) => BinOp::from_name(s).filter(|op| op.is_comparison()),
                _ => None,
            };
            let Some(op) = op else {
                return self.err("`eq`, `lt` or `le`");
            };
            self.bump();
            let a = self.value()?;
            let b = self.value()?;
            let (out, on_true, on_false) = self.branch_tail()?;
            StmtKind::Branch {
                cond: Cond::Cmp(op, a, b),
                out,
                on_true,
                on_false,
            }
        } else {
            if !matches!(self.peek(), Tok::Ident(_)) {
                return self.err("an instruction");
            }
            let (dst, _) = self.var()?;
            self.expect_punct('=')?;
            if let Tok::Ident(word) = self.peek() {
                let bad = if STRING_OPS.contains(&word.as_str()) {
                    Some(JvrErrorKind::NotForCairo(word.clone()))
                } else if UNSUPPORTED.contains(&word.as_str()) {
                    Some(JvrErrorKind::Unsupported(word.clone()))
                } else {
                    None
                };
                if let Some(kind) = bad {
                    return Err(JvrError {
                        pos: self.pos(),
                        kind,
                    });
                }
            }
            let kind = if self.is_ident("call") {
                self.bump();
                if self.closure_operand() {
                    let closure = self.value()?;
                    let args = self.args()?;
                    self.live_vars()?;
                    StmtKind::CallClosure {
                        dst,
                        closure,
                        args,
                    }
                } else {
                    let (func, _) = self.ident("a function name")?;
                    let args = self.args()?;
                    self.live_vars()?;
                    StmtKind::Call { dst, func, args }
                }
            } else if self.is_ident("alloc") {
                self.bump();
                let ctor = self.name("a constructor name")?.0;
                let args = self.args()?;
                StmtKind::Alloc { dst, ctor, args }
            } else if self.is_ident("calloc") {
                self.bump();
                let (func, _) = self.ident("a function name")?;
                let args = self.args()?;
                StmtKind::CAlloc { dst, func, args }
            } else if self.is_ident("cextend") {
                self.bump();
                let closure = self.value()?;
                let args = self.args()?;
                StmtKind::CExtend { dst, closure, args }
            } else if self.is_ident("argsnum") {
                self.bump();
                let closure = self.value()?;
                StmtKind::ArgsNum { dst, closure }
            } else if let Some(op) = [BuiltinOp::Poseidon, BuiltinOp::EcOp]
                .into_iter()
                .find(|op| self.is_ident(op.name()))
            {
                self.bump();
                let mut args = Vec::new();
                for _ in 0..op.arity() {
                    args.push(self.value()?);
                }
                StmtKind::Builtin { dst, op, args }
            } else if let Some(op) = match self.peek() {
                Tok::Ident(s) => BinOp::from_name(s),
                _ => None,
            } {
                self.bump();
                let a = self.value()?;
                let b = self.value()?;
                StmtKind::Binop { dst, op, a, b }
            } else {
                StmtKind::Assign {
                    dst,
                    src: self.value()?,
                }
            };
            self.expect_punct(';')?;
            kind
        };
        Ok(Stmt { pos, kind })
    }

    /// A type, printed back as text: `*`, a name, a tuple `(a, b)` or an
    /// arrow `a -> b` (written `->` or `→`). Returns the text and, for an
    /// arrow, the number of arguments on its left.
    fn ty_arity(&mut self) -> PResult<(String, usize)> {
        self.enter()?;
        let (left, n_left) = match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                (s, 1)
            }
            Tok::Punct('*') => {
                self.bump();
                ("*".to_string(), 1)
            }
            Tok::Punct('(') => {
                self.bump();
                let mut parts = vec![self.ty_arity()?.0];
                while self.is_punct(',') {
                    self.bump();
                    parts.push(self.ty_arity()?.0);
                }
                self.expect_punct(')')?;
                let n = parts.len();
                (format!("({})", parts.join(", ")), n)
            }
            _ => return self.err("a type"),
        };
        let result = if *self.peek() == Tok::Arrow {
            self.bump();
            let (right, _) = self.ty_arity()?;
            (format!("{left} -> {right}"), n_left)
        } else {
            (left, 0)
        };
        self.depth -= 1;
        Ok(result)
    }

    fn ty(&mut self) -> PResult<String> {
        Ok(self.ty_arity()?.0)
    }

    fn type_decl(&mut self) -> PResult<TypeDecl> {
        let pos = self.expect_keyword("type")?;
        let name = self.name("a type name")?.0;
        self.expect_punct('{')?;
        let mut ctors = Vec::new();
        while !self.is_punct('}') {
            let (cname, cpos) = self.name("a constructor name")?;
            self.expect_punct(':')?;
            let (ty, arity) = self.ty_arity()?;
            self.expect_punct(';')?;
            ctors.push(Ctor {
                pos: cpos,
                name: cname,
                ty,
                arity,
            });
        }
        self.expect_punct('}')?;
        if self.is_punct(';') {
            self.bump();
        }
        Ok(TypeDecl { pos, name, ctors })
    }

    /// A parameter: `name : type` or a bare type.
    fn param(&mut self) -> PResult<Param> {
        let named = matches!(self.peek(), Tok::Ident(_))
            && self.toks.get(self.at + 1).map(|t| &t.0) == Some(&Tok::Punct(':'));
        if named {
            let (name, _) = self.name("a parameter name")?;
            self.bump();
            let ty = self.ty()?;
            return Ok(Param {
                name: Some(name),
                ty,
            });
        }
        Ok(Param {
            name: None,
            ty: self.ty()?,
        })
    }

    fn function(&mut self) -> PResult<Function> {
        let pos = self.expect_keyword("function")?;
        let (name, _) = self.ident("a function name")?;
        self.expect_punct('(')?;
        let mut params = Vec::new();
        if !self.is_punct(')') {
            loop {
                params.push(self.param()?);
                if self.is_punct(',') {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        self.expect_punct(')')?;
        self.expect_punct(':')?;
        let ret = self.ty()?;
        if self.is_punct(';') {
            let end = self.bump().1;
            return Ok(Function {
                pos,
                name,
                params,
                ret,
                body: None,
                end,
            });
        }
        if !self.is_punct('{') {
            return self.err("`;` or `{`");
        }
        let (body, end) = self.block()?;
        if self.is_punct(';') {
            self.bump();
        }
        Ok(Function {
            pos,
            name,
            params,
            ret,
            body: Some(body),
            end,
        })
    }
}

/// Parses a `.jvr` text. Errors carry the line and column.
pub fn parse(src: &str) -> Result<Module, JvrError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        at: 0,
        depth: 0,
    };
    let (mut types, mut functions) = (Vec::new(), Vec::new());
    while *p.peek() != Tok::Eof {
        if p.is_ident("type") {
            types.push(p.type_decl()?);
        } else {
            functions.push(p.function()?);
        }
    }
    let module = Module { types, functions };
    check_types(&module)?;
    Ok(module)
}

/// Constructor names are unique across the module (a `case` arm and an
/// `alloc` name a constructor without its type), and so are type names.
fn check_types(module: &Module) -> Result<(), JvrError> {
    let mut seen = std::collections::HashSet::new();
    for t in &module.types {
        if !seen.insert(format!("type {}", t.name)) {
            return Err(JvrError {
                pos: t.pos,
                kind: JvrErrorKind::DuplicateType(t.name.clone()),
            });
        }
        for c in &t.ctors {
            if !seen.insert(c.name.clone()) {
                return Err(JvrError {
                    pos: c.pos,
                    kind: JvrErrorKind::DuplicateType(c.name.clone()),
                });
            }
        }
    }
    Ok(())
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
