//! Tokens with their positions.

use std::fmt;

use super::*;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Ident(String),
    Int(String),
    /// A field literal, `5F`; the digits without the `F`.
    FieldLit(String),
    Punct(char),
    /// `->` or `→`.
    Arrow,
    /// A string literal: JuvixReg has them, Cairo does not.
    Str(String),
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
            Tok::Str(_) => f.write_str("a string"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

pub(super) fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, JvrError> {
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
            let text = string_literal(&chars, &mut i, pos)?;
            out.push((Tok::Str(text), pos));
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

/// The string literal starting at `chars[*i]` (a `"`), unescaped (`\n`,
/// `\t`, `\\`, `\"`); `*i` moves past its closing quote.
fn string_literal(chars: &[char], i: &mut usize, pos: Pos) -> Result<String, JvrError> {
    let mut text = String::new();
    *i += 1;
    loop {
        let unterminated = JvrError {
            pos,
            kind: JvrErrorKind::UnterminatedString,
        };
        match chars.get(*i) {
            None | Some('\n') => return Err(unterminated),
            Some('"') => {
                *i += 1;
                return Ok(text);
            }
            Some('\\') => {
                let c = match chars.get(*i + 1) {
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some(c @ ('\\' | '"')) => *c,
                    Some(c) => {
                        return Err(JvrError {
                            pos,
                            kind: JvrErrorKind::BadEscape(*c),
                        })
                    }
                    None => return Err(unterminated),
                };
                text.push(c);
                *i += 2;
            }
            Some(c) => {
                text.push(*c);
                *i += 1;
            }
        }
    }
}
