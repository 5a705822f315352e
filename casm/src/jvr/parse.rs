//! The recursive-descent parser: tokens to a module, every error with its
//! position.

use crate::felt::Felt;

use super::lex::{lex, Tok};
use super::{
    BinOp, Cond, Function, JvrError, JvrErrorKind, Module, Param, Pos, Stmt, StmtKind, Value,
    VarName,
};

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
