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
    /// A literal.
    Const(Felt),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Var(v, _) => v.fmt(f),
            Value::Const(c) => c.fmt(f),
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
    pub const ALL: [BinOp; 10] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
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
    pub fn eval(self, a: Felt, b: Felt) -> Option<Felt> {
        let bool_felt = |b: bool| if b { Felt::ONE } else { Felt::ZERO };
        Some(match self {
            BinOp::Add | BinOp::FAdd => a + b,
            BinOp::Sub | BinOp::FSub => a - b,
            BinOp::Mul | BinOp::FMul => a * b,
            BinOp::FDiv => a * b.inverse()?,
            BinOp::Eq => bool_felt(a == b),
            BinOp::Lt => bool_felt(a.signed_cmp(&b).is_lt()),
            BinOp::Le => bool_felt(a.signed_cmp(&b).is_le()),
        })
    }
}

/// The condition of a branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `br v`: true when `v` is non-zero.
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
    /// Declarations and definitions in source order.
    pub functions: Vec<Function>,
}

impl Module {
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
    Punct(char),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Int(s) => write!(f, "`{s}`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
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
        if c.is_ascii_alphabetic() || c == '_' {
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
            out.push((Tok::Int(chars[start..i].iter().collect()), pos));
        } else if "(){}[],;:=*".contains(c) {
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
    "function", "ret", "tcall", "br", "if", "call", "true", "false", "out", "arg", "tmp", "add",
    "sub", "mul", "fadd", "fsub", "fmul", "fdiv", "eq", "lt", "le",
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
            Tok::Ident(s) if s == "true" => {
                self.bump();
                Ok(Value::Const(Felt::ONE))
            }
            Tok::Ident(s) if s == "false" => {
                self.bump();
                Ok(Value::Const(Felt::ZERO))
            }
            Tok::Ident(_) => {
                let (v, p) = self.var()?;
                Ok(Value::Var(v, p))
            }
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
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(JvrError {
                pos: self.pos(),
                kind: JvrErrorKind::TooDeep(MAX_NESTING),
            });
        }
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
        let kind = if self.is_ident("ret") {
            self.bump();
            let v = self.value()?;
            self.expect_punct(';')?;
            StmtKind::Ret(v)
        } else if self.is_ident("tcall") {
            self.bump();
            let (func, _) = self.ident("a function name")?;
            let args = self.args()?;
            self.expect_punct(';')?;
            StmtKind::TailCall { func, args }
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
            let kind = if self.is_ident("call") {
                self.bump();
                let (func, _) = self.ident("a function name")?;
                let args = self.args()?;
                StmtKind::Call { dst, func, args }
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

    fn ty(&mut self) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            Tok::Punct('*') => {
                self.bump();
                Ok("*".to_string())
            }
            _ => self.err("a type"),
        }
    }

    fn function(&mut self) -> PResult<Function> {
        let pos = self.expect_keyword("function")?;
        let (name, _) = self.ident("a function name")?;
        self.expect_punct('(')?;
        let mut params = Vec::new();
        if !self.is_punct(')') {
            loop {
                let first = self.ty()?;
                if self.is_punct(':') {
                    self.bump();
                    let ty = self.ty()?;
                    params.push(Param {
                        name: Some(first),
                        ty,
                    });
                } else {
                    params.push(Param {
                        name: None,
                        ty: first,
                    });
                }
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
    let mut functions = Vec::new();
    while *p.peek() != Tok::Eof {
        functions.push(p.function()?);
    }
    Ok(Module { functions })
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
