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
