//! The text form of a forest, printed by `Display` and read by [`parse`].
//!
//! One item per line; node ids are implicit, counting from 0 in order of
//! appearance; `#` starts a comment.
//!
//! ```text
//! block OP OP ...        operations as Miden prints them: add, movup2, push(1),
//!                        u32assert2(0); decorators start with `@` and attach to
//!                        the operation that follows them
//! join A B | split A B | loop A | call A | syscall A | dyn
//! external [e0, e1, e2, e3]
//! root A
//! entrypoint A           (also makes A a root)
//! advice [k0, k1, k2, k3] [v0, v1, ...]
//!                        an entry of the advice map (miden-core 0.23 on): its key
//!                        and its values, field elements in decimal (or `0x` hex);
//!                        the entries keep their order, each key appears once
//! isa 0.23 | isa 1.0     the instruction set, before the nodes (0.10 when absent)
//! ```
//!
//! Decorators: `@advice(NAME)` with Miden's injector names
//! (`@advice(map_value_to_stack_with_len.2)`), `@asmop("context", "op", CYCLES)`
//! or `@asmop("context", "op", CYCLES, break)` with Rust string escapes, with
//! a source location after the instruction when it has one
//! (`@asmop("context", "op", "path"[START..END], CYCLES)`), `@debug(stack)`
//! and `@debug(stack.N)` (and the other debug options, `@event(N)` and
//! `@trace(N)`, which the draft's binary form does not have).

// FIXME: the text form does not hold a forest's 0.23 debug info beyond its
// blocks' decorators (node decorators, assembly ops of other nodes, error
// messages, procedure names, debug variables); `cargo xtask mast decode`
// says what it leaves out.

use core::fmt;

use crate::decorator::{AdviceInjector, AsmOp, Decorator};
use crate::felt::Felt;
use crate::forest::{BuildError, MastForest, MastForestBuilder, MastNode, MastNodeId};
use crate::ops::{Isa, Operation};

impl fmt::Display for MastForest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.isa() {
            Isa::V0_10 => {}
            Isa::V0_23 => writeln!(f, "isa 0.23")?,
            Isa::V1_0 => writeln!(f, "isa 1.0")?,
        }
        for node in self.nodes() {
            match node {
                MastNode::Block(b) => {
                    f.write_str("block")?;
                    let mut decs = b.decorators().iter().peekable();
                    for i in 0..=b.ops().len() {
                        while let Some((_, d)) = decs.next_if(|(j, _)| *j as usize == i) {
                            f.write_str(" ")?;
                            self.fmt_decorator(d, f)?;
                        }
                        if let Some(op) = b.ops().get(i) {
                            write!(f, " {op}")?;
                        }
                    }
                    writeln!(f)?;
                }
                MastNode::Join { left, right } => writeln!(f, "join {left} {right}")?,
                MastNode::Split { on_true, on_false } => writeln!(f, "split {on_true} {on_false}")?,
                MastNode::Loop { body } => writeln!(f, "loop {body}")?,
                MastNode::Call {
                    callee,
                    is_syscall: false,
                } => writeln!(f, "call {callee}")?,
                MastNode::Call {
                    callee,
                    is_syscall: true,
                } => writeln!(f, "syscall {callee}")?,
                MastNode::Dyn => writeln!(f, "dyn")?,
                MastNode::DynCall => writeln!(f, "dyncall")?,
                MastNode::External(d) => writeln!(f, "external {d}")?,
            }
        }
        for r in self.roots() {
            writeln!(f, "root {r}")?;
        }
        if let Some(e) = self.entrypoint() {
            writeln!(f, "entrypoint {e}")?;
        }
        for (key, values) in self.advice_map() {
            write!(f, "advice {key} [")?;
            for (i, v) in values.iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(f, "{sep}{v}")?;
            }
            writeln!(f, "]")?;
        }
        Ok(())
    }
}

impl MastForest {
    fn fmt_decorator(&self, d: &Decorator, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match d {
            Decorator::Advice(a) => write!(f, "@advice({a})"),
            Decorator::AsmOp(a) => {
                let s = |id| self.strings().get(id).unwrap_or("");
                write!(f, "@asmop({:?}, {:?}, ", s(a.context_name), s(a.op))?;
                if let Some(l) = a.location.and_then(|l| self.location(l)) {
                    write!(f, "{:?}[{}..{}], ", s(l.path), l.start, l.end)?;
                }
                write!(f, "{}", a.num_cycles)?;
                if a.should_break {
                    f.write_str(", break")?;
                }
                f.write_str(")")
            }
            Decorator::StackAll => f.write_str("@debug(stack)"),
            Decorator::StackTop(n) => write!(f, "@debug(stack.{n})"),
            Decorator::MemAll => f.write_str("@debug(mem)"),
            Decorator::MemInterval(a, b) => write!(f, "@debug(mem.{a}.{b})"),
            Decorator::LocalInterval(a, b, c) => write!(f, "@debug(local.{a}.{b}.{c})"),
            Decorator::Event(n) => write!(f, "@event({n})"),
            Decorator::Trace(n) => write!(f, "@trace({n})"),
            Decorator::AdvStackTop(n) => write!(f, "@debug(adv_stack.{n})"),
        }
    }
}

/// A text-form error at a line and column (both from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    /// Line number.
    pub line: usize,
    /// Column (in characters).
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

struct Token<'a> {
    text: &'a str,
    col: usize,
}

/// Splits a line into whitespace-separated tokens, keeping parenthesised,
/// bracketed and quoted parts whole and dropping a `#` comment.
fn tokenize(line: &str, line_no: usize) -> Result<Vec<Token<'_>>, ParseError> {
    let mut tokens = Vec::new();
    let mut start: Option<(usize, usize)> = None;
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    let mut col = 0;
    for (byte, c) in line.char_indices() {
        col += 1;
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '#' if depth == 0 => {
                if let Some((s, scol)) = start.take() {
                    tokens.push(Token {
                        text: &line[s..byte],
                        col: scol,
                    });
                }
                return Ok(tokens);
            }
            c if c.is_whitespace() && depth == 0 => {
                if let Some((s, scol)) = start.take() {
                    tokens.push(Token {
                        text: &line[s..byte],
                        col: scol,
                    });
                }
            }
            _ => {
                if start.is_none() {
                    start = Some((byte, col));
                }
                match c {
                    '(' | '[' => depth += 1,
                    ')' | ']' => {
                        depth = depth.checked_sub(1).ok_or_else(|| ParseError {
                            line: line_no,
                            col,
                            message: format!("unbalanced `{c}`"),
                        })?
                    }
                    '"' => in_str = true,
                    _ => {}
                }
            }
        }
    }
    if in_str || depth != 0 {
        return Err(ParseError {
            line: line_no,
            col: col + 1,
            message: "unterminated string or parenthesis".into(),
        });
    }
    if let Some((s, scol)) = start {
        tokens.push(Token {
            text: &line[s..],
            col: scol,
        });
    }
    Ok(tokens)
}

/// Reads a Rust-escaped string literal at the start of `s`; returns it and the rest.
fn parse_string(s: &str) -> Option<(String, &str)> {
    let mut chars = s.strip_prefix('"')?.char_indices();
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[1 + i + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                out.push(match e {
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    '0' => '\0',
                    '\\' | '"' | '\'' => e,
                    'u' => {
                        if chars.next()?.1 != '{' {
                            return None;
                        }
                        let mut hex = String::new();
                        loop {
                            let (_, h) = chars.next()?;
                            if h == '}' {
                                break;
                            }
                            hex.push(h);
                            if hex.len() > 6 {
                                return None;
                            }
                        }
                        char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                    }
                    _ => return None,
                });
            }
            c => out.push(c),
        }
    }
    None
}

fn parse_asmop(args: &str, b: &mut MastForestBuilder) -> Option<Decorator> {
    let (ctx, rest) = parse_string(args.trim_start())?;
    let rest = rest.trim_start().strip_prefix(',')?.trim_start();
    let (op, rest) = parse_string(rest)?;
    let mut rest = rest.trim_start().strip_prefix(',')?;
    let mut location = None;
    if rest.trim_start().starts_with('"') {
        let (path, after) = parse_string(rest.trim_start())?;
        let (range, after) = after.strip_prefix('[')?.split_once(']')?;
        let (start, end) = range.split_once("..")?;
        location = Some((path, decimal(start)?, decimal(end)?));
        rest = after.trim_start().strip_prefix(',')?;
    }
    let mut parts = rest.split(',').map(str::trim);
    let cycles = parts.next()?;
    if !cycles.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let num_cycles = cycles.parse().ok()?;
    let should_break = match parts.next() {
        None => false,
        Some("break") => true,
        Some(_) => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    let location = location.map(|(path, start, end)| b.location(&path, start, end));
    Some(Decorator::AsmOp(AsmOp {
        location,
        context_name: b.intern(&ctx),
        op: b.intern(&op),
        num_cycles,
        should_break,
    }))
}

/// The values of an advice-map entry, `[v0, v1, ...]` (`[]` for none);
/// an error names the column of the element at fault.
fn parse_advice_values(t: &Token<'_>, line: usize) -> Result<Vec<Felt>, ParseError> {
    let at = |col: usize, message: String| ParseError { line, col, message };
    let inner = (t.text.strip_prefix('['))
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| at(t.col, format!("expected `[values]`, found `{}`", t.text)))?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut values = Vec::new();
    let mut offset = 1; // in characters, past the `[`
    for part in inner.split(',') {
        let lead = part.chars().take_while(|c| c.is_whitespace()).count();
        let value = part.trim();
        let col = t.col + offset + lead;
        values.push(
            value
                .parse()
                .map_err(|e| at(col, format!("advice value `{value}`: {e}")))?,
        );
        offset += part.chars().count() + 1;
    }
    Ok(values)
}

fn decimal<T: core::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_decorator(tok: &str, b: &mut MastForestBuilder) -> Option<Decorator> {
    let (name, args) = tok.strip_prefix('@')?.split_once('(')?;
    let args = args.strip_suffix(')')?;
    match name {
        "advice" => args.parse::<AdviceInjector>().ok().map(Decorator::Advice),
        "asmop" => parse_asmop(args, b),
        "debug" if args == "stack" => Some(Decorator::StackAll),
        "debug" if args == "mem" => Some(Decorator::MemAll),
        "debug" => {
            if let Some(n) = args.strip_prefix("stack.") {
                return decimal(n).map(Decorator::StackTop);
            }
            if let Some(n) = args.strip_prefix("adv_stack.") {
                return decimal(n).map(Decorator::AdvStackTop);
            }
            if let Some(rest) = args.strip_prefix("mem.") {
                let (a, b) = rest.split_once('.')?;
                return Some(Decorator::MemInterval(decimal(a)?, decimal(b)?));
            }
            let rest = args.strip_prefix("local.")?;
            let mut parts = rest.split('.');
            let (a, b, c) = (parts.next()?, parts.next()?, parts.next()?);
            if parts.next().is_some() {
                return None;
            }
            Some(Decorator::LocalInterval(
                decimal(a)?,
                decimal(b)?,
                decimal(c)?,
            ))
        }
        "event" => decimal(args).map(Decorator::Event),
        "trace" => decimal(args).map(Decorator::Trace),
        _ => None,
    }
}

/// Parses the text form.
pub fn parse(text: &str) -> Result<MastForest, ParseError> {
    let mut b = MastForestBuilder::new();
    for (idx, line) in text.lines().enumerate() {
        let line_no = idx + 1;
        let tokens = tokenize(line, line_no)?;
        let Some((head, args)) = tokens.split_first() else {
            continue;
        };
        let at = |t: &Token<'_>, message: String| ParseError {
            line: line_no,
            col: t.col,
            message,
        };
        let defined = b.len();
        let node_ref = |i: usize| -> Result<MastNodeId, ParseError> {
            let t = args
                .get(i)
                .ok_or_else(|| at(head, format!("`{}` needs {} operand(s)", head.text, i + 1)))?;
            if !t.text.bytes().all(|c| c.is_ascii_digit()) {
                return Err(at(t, format!("expected a node id, found `{}`", t.text)));
            }
            let n: u32 = t
                .text
                .parse()
                .map_err(|_| at(t, format!("node id `{}` is too large", t.text)))?;
            if n as usize >= defined {
                return Err(at(t, format!("node {n} is not defined (yet)")));
            }
            Ok(MastNodeId(n))
        };
        let arity = match head.text {
            "join" | "split" => 2,
            "loop" | "call" | "syscall" | "root" | "entrypoint" => 1,
            "dyn" | "dyncall" => 0,
            "isa" => 1,
            "advice" => 2,
            "external" | "block" => usize::MAX,
            other => return Err(at(head, format!("unknown item `{other}`"))),
        };
        if arity != usize::MAX && args.len() != arity {
            let extra = args.get(arity).unwrap_or(head);
            return Err(at(
                extra,
                format!("`{}` takes {arity} operand(s)", head.text),
            ));
        }
        let built: Result<(), BuildError> = match head.text {
            "join" => b.add_join(node_ref(0)?, node_ref(1)?).map(drop),
            "split" => b.add_split(node_ref(0)?, node_ref(1)?).map(drop),
            "loop" => b.add_loop(node_ref(0)?).map(drop),
            "call" => b.add_call(node_ref(0)?, false).map(drop),
            "syscall" => b.add_call(node_ref(0)?, true).map(drop),
            "dyn" => b.add_dyn().map(drop),
            "dyncall" => b.add_node(MastNode::DynCall).map(drop),
            "isa" => {
                let isa = match args[0].text {
                    "0.10" => Isa::V0_10,
                    "0.23" => Isa::V0_23,
                    "1.0" => Isa::V1_0,
                    other => return Err(at(&args[0], format!("unknown isa `{other}`"))),
                };
                if !b.is_empty() || !b.advice_map().is_empty() {
                    return Err(at(
                        head,
                        "`isa` must come before the nodes and the advice map".into(),
                    ));
                }
                b = MastForestBuilder::new_in(isa);
                Ok(())
            }
            "advice" => {
                let key = args[0]
                    .text
                    .parse()
                    .map_err(|e| at(&args[0], format!("{e}")))?;
                let values = parse_advice_values(&args[1], line_no)?;
                b.add_advice_entry(key, values)
                    .map_err(|e| at(&args[0], e.to_string()))?;
                Ok(())
            }
            "root" => b.add_root(node_ref(0)?),
            "entrypoint" => b.set_entrypoint(node_ref(0)?),
            "external" => {
                let [t] = args else {
                    return Err(at(head, "`external` takes one digest".into()));
                };
                let d = t.text.parse().map_err(|e| at(t, format!("{e}")))?;
                b.add_external(d).map(drop)
            }
            _ => {
                let mut ops = Vec::new();
                let mut decorators = Vec::new();
                for t in args {
                    if t.text.starts_with('@') {
                        let d = parse_decorator(t.text, &mut b)
                            .ok_or_else(|| at(t, format!("bad decorator `{}`", t.text)))?;
                        decorators.push((ops.len() as u32, d));
                    } else {
                        let op: Operation = t.text.parse().map_err(|e| at(t, format!("{e}")))?;
                        ops.push(op);
                    }
                }
                b.add_block(ops, decorators).map(drop)
            }
        };
        built.map_err(|e| at(head, e.to_string()))?;
    }
    Ok(b.build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_with_escapes_round_trip() {
        for s in [
            "plain",
            "a \"quoted\" #hash",
            "tab\tnl\n\0nul",
            "é\u{7f}",
            "",
        ] {
            let printed = format!("{s:?}");
            let (parsed, rest) = parse_string(&printed).unwrap();
            assert_eq!(parsed, s);
            assert_eq!(rest, "");
        }
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse("block add\njoin 0 7\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 8));
        let e = parse("block add\nloop 1\n").unwrap_err();
        assert_eq!(
            (e.line, e.col, e.message.as_str()),
            (2, 6, "node 1 is not defined (yet)")
        );
        let e = parse("block add frob").unwrap_err();
        assert_eq!((e.line, e.col), (1, 11));
        let e = parse("block").unwrap_err();
        assert!(e.message.contains("no operations"), "{e}");
        let e = parse("block @asmop(\"x\", 1)").unwrap_err();
        assert_eq!(e.col, 7);
    }

    /// The advice map is printed after the roots, one entry a line in its
    /// order, and read back the same.
    #[test]
    fn advice_map_round_trips() {
        let text = "isa 0.23\nblock add\nroot 0\n\
                    advice [1, 2, 3, 4] [5, 18446744069414584320, 0]\n\
                    advice [0, 0, 0, 0] []\n";
        let forest = parse(text).unwrap();
        let key = |k: [u64; 4]| crate::felt::Digest::from_u64s(k).unwrap();
        let felt = |v| Felt::new(v).unwrap();
        let expected = vec![
            (
                key([1, 2, 3, 4]),
                vec![felt(5), felt(u64::MAX - u32::MAX as u64), felt(0)],
            ),
            (key([0; 4]), vec![]),
        ];
        assert_eq!(forest.advice_map(), expected);
        assert_eq!(forest.to_string(), text);
        assert_eq!(parse(&forest.to_string()).unwrap(), forest);
        let hex = parse("advice [1, 2, 3, 4] [0x10]").unwrap();
        assert_eq!(hex.advice_map()[0].1, vec![felt(16)]);
    }

    #[test]
    fn malformed_advice_entries_name_line_and_column() {
        let cases = [
            ("advice [1, 2, 3] []", (1, 8), "expected a digest"),
            ("advice [1, 2, 3, 4]", (1, 1), "takes 2 operand(s)"),
            ("advice [1, 2, 3, 4] 5", (1, 21), "expected `[values]`"),
            (
                "advice [1, 2, 3, 4] [1,  x, 3]",
                (1, 26),
                "advice value `x`",
            ),
            (
                "advice [1, 2, 3, 4] [18446744069414584321]",
                (1, 22),
                "not below the field modulus",
            ),
            ("advice [1, 2, 3, 4] [1,]", (1, 24), "advice value ``"),
            (
                "advice [1, 2, 3, 4] []\nadvice [1, 2, 3, 4] [1]",
                (2, 8),
                "repeats an earlier entry",
            ),
            (
                "advice [1, 2, 3, 4] []\nisa 0.23",
                (2, 1),
                "before the nodes and the advice map",
            ),
            ("advice [1, 2, 3, 4] [1] [2]", (1, 25), "takes 2 operand(s)"),
        ];
        for (text, place, message) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!((e.line, e.col), place, "{text}: {e}");
            assert!(e.message.contains(message), "{text}: {e}");
        }
    }
}
