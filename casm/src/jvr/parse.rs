//! The recursive-descent parser: tokens to a module, every error with its
//! position.

use crate::felt::Felt;

use super::lex::{lex, Tok};
use super::{
    BinOp, BuiltinOp, CaseArm, Cond, Ctor, Function, JvrError, JvrErrorKind, Module, Param, Pos,
    Stmt, StmtKind, StrOp, TypeDecl, Value, VarName,
};

/// Deepest block nesting the parser accepts; deeper input is an error, not
/// a stack overflow.
pub const MAX_NESTING: usize = 64;

const KEYWORDS: &[&str] = &[
    "function", "type", "ret", "tcall", "tccall", "ccall", "void", "show", "atoi", "strcat", "br",
    "if", "case", "call", "true", "false", "unit", "out", "arg", "tmp", "add", "sub", "mul", "div",
    "mod", "fadd", "fsub", "fmul", "fdiv", "eq", "lt", "le", "nop", "trace", "dump", "fail",
    "prealloc", "alloc", "calloc", "cextend", "argsnum", "poseidon", "ec_op",
];

/// JuvixReg instructions this crate rejects by name.
const UNSUPPORTED: &[&str] = &["assert", "random_ec_point", "range_check", "itof", "ftoi"];

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
        if !(self.is_punct(',')
            && matches!(&self.toks[self.at + 1].0, Tok::Ident(s) if s == "live"))
        {
            return Ok(());
        }
        self.bump();
        self.bump();
        self.expect_punct(':')?;
        self.parenthesized(Self::var)?;
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
            Tok::Ident(s) if s == "void" => {
                self.bump();
                Ok(Value::Void)
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
            Tok::Str(text) => {
                self.bump();
                Ok(Value::Str(text))
            }
            _ => self.err("an operand"),
        }
    }

    fn args(&mut self) -> PResult<Vec<Value>> {
        self.parenthesized(Self::value)
    }

    /// `(item, item, ...)`, possibly empty.
    fn parenthesized<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        self.expect_punct('(')?;
        let mut items = Vec::new();
        if !self.is_punct(')') {
            loop {
                items.push(item(self)?);
                if self.is_punct(',') {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        self.expect_punct(')')?;
        Ok(items)
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

    /// The `, out: VAR` of a branch or a case, if it has one.
    fn out_var(&mut self) -> PResult<Option<VarName>> {
        if !self.is_punct(',') {
            return Ok(None);
        }
        self.bump();
        self.expect_keyword("out")?;
        self.expect_punct(':')?;
        Ok(Some(self.var()?.0))
    }

    fn branch_tail(&mut self) -> PResult<(Option<VarName>, Vec<Stmt>, Vec<Stmt>)> {
        let out = self.out_var()?;
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
            if UNSUPPORTED.contains(&word.as_str()) {
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
            self.case()?
        } else if self.is_ident("ret") {
            self.bump();
            let v = self.value()?;
            self.expect_punct(';')?;
            StmtKind::Ret(v)
        } else if self.is_ident("tccall") {
            self.bump();
            let closure = self.value()?;
            let args = self.args()?;
            self.expect_punct(';')?;
            StmtKind::TailCallClosures { closure, args }
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
        } else if self.is_ident("br") || self.is_ident("if") {
            self.branch()?
        } else {
            self.assignment()?
        };
        Ok(Stmt { pos, kind })
    }

    /// `br v { ... }` or `if op a b { ... }`.
    fn branch(&mut self) -> PResult<StmtKind> {
        if self.is_ident("br") {
            self.bump();
            let v = self.value()?;
            let (out, on_true, on_false) = self.branch_tail()?;
            Ok(StmtKind::Branch {
                cond: Cond::NonZero(v),
                out,
                on_true,
                on_false,
            })
        } else {
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
            Ok(StmtKind::Branch {
                cond: Cond::Cmp(op, a, b),
                out,
                on_true,
                on_false,
            })
        }
    }

    /// `case[T] x { C: {...}; default: {...}; }`.
    fn case(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct('[')?;
        let ty = self.name("a type name")?.0;
        self.expect_punct(']')?;
        let value = self.value()?;
        let out = self.out_var()?;
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
        Ok(StmtKind::Case {
            ty,
            value,
            out,
            arms,
            default,
        })
    }

    /// `x = ...;`: an operation, a call, an allocation or a copy.
    fn assignment(&mut self) -> PResult<StmtKind> {
        if !matches!(self.peek(), Tok::Ident(_)) {
            return self.err("an instruction");
        }
        let (dst, _) = self.var()?;
        self.expect_punct('=')?;
        if let Tok::Ident(word) = self.peek() {
            if UNSUPPORTED.contains(&word.as_str()) {
                return Err(JvrError {
                    pos: self.pos(),
                    kind: JvrErrorKind::Unsupported(word.clone()),
                });
            }
        }
        let kind = if self.is_ident("call") {
            self.bump();
            if self.closure_operand() {
                let closure = self.value()?;
                let args = self.args()?;
                self.live_vars()?;
                StmtKind::CallClosure { dst, closure, args }
            } else {
                let (func, _) = self.ident("a function name")?;
                let args = self.args()?;
                self.live_vars()?;
                StmtKind::Call { dst, func, args }
            }
        } else if self.is_ident("ccall") {
            self.bump();
            let closure = self.value()?;
            let args = self.args()?;
            self.live_vars()?;
            StmtKind::CallClosures { dst, closure, args }
        } else if let Some(op) = [StrOp::Show, StrOp::Atoi]
            .into_iter()
            .find(|op| self.is_ident(op.name()))
        {
            self.bump();
            let a = self.value()?;
            StmtKind::StrUnop { dst, op, a }
        } else if self.is_ident("strcat") {
            self.bump();
            let a = self.value()?;
            let b = self.value()?;
            StmtKind::StrCat { dst, a, b }
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
        Ok(kind)
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
        let params = self.parenthesized(Self::param)?;
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
