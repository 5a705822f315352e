//! The lexer of the text format: identifiers, decimal integers, strings,
//! punctuation; whitespace and `//` comments are skipped. It runs on demand
//! (one token of lookahead), so memory stays constant in the input size.

use super::{ParseError, ParseErrorKind};
use crate::SourceLoc;

/// The kind of a token.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*`: names, keywords, types, `v3`, `b2`, `f0`.
    Ident,
    /// `[0-9]+`.
    Int,
    /// `"..."`; the token text is the raw contents between the quotes.
    Str,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Colon,
    Semi,
    Eq,
    EqEq,
    NotEq,
    Arrow,
    Amp,
    Minus,
    Eof,
}

/// A token: its kind, its text and where it starts.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Token<'a> {
    pub tok: Tok,
    pub text: &'a str,
    pub loc: SourceLoc,
}

#[derive(Clone)]
pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
}

impl<'a> Lexer<'a> {
    /// A lexer of `src` whose first line is line `line` of the whole text.
    pub(crate) fn at_line(src: &'a str, line: u32) -> Self {
        Lexer {
            src,
            pos: 0,
            line,
            col: 1,
        }
    }

    fn loc(&self) -> SourceLoc {
        SourceLoc {
            line: self.line,
            col: self.col,
        }
    }

    /// Steps over one byte; columns count characters, not UTF-8 continuation bytes.
    fn step(&mut self) {
        let byte = self.src.as_bytes()[self.pos];
        self.pos += 1;
        if byte == b'\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else if byte & 0xC0 != 0x80 {
            self.col = self.col.saturating_add(1);
        }
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + ahead).copied()
    }

    fn skip_trivia(&mut self) {
        while let Some(byte) = self.peek_byte(0) {
            match byte {
                b' ' | b'\t' | b'\r' | b'\n' => self.step(),
                b'/' if self.peek_byte(1) == Some(b'/') => {
                    while !matches!(self.peek_byte(0), None | Some(b'\n')) {
                        self.step();
                    }
                }
                _ => break,
            }
        }
    }

    /// The next token, or an error for a character that starts none.
    pub(crate) fn next_token(&mut self) -> Result<Token<'a>, ParseError> {
        self.skip_trivia();
        let loc = self.loc();
        let start = self.pos;
        let Some(byte) = self.peek_byte(0) else {
            return Ok(Token {
                tok: Tok::Eof,
                text: "",
                loc,
            });
        };
        let tok = match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                while matches!(self.peek_byte(0), Some(b) if b.is_ascii_alphanumeric() || b == b'_')
                {
                    self.step();
                }
                Tok::Ident
            }
            b'0'..=b'9' => {
                while matches!(self.peek_byte(0), Some(b'0'..=b'9')) {
                    self.step();
                }
                Tok::Int
            }
            b'"' => {
                self.step();
                loop {
                    match self.peek_byte(0) {
                        None | Some(b'\n') => {
                            return Err(ParseError {
                                loc,
                                kind: ParseErrorKind::UnterminatedString,
                            })
                        }
                        Some(b'"') => break,
                        Some(b'\\') => {
                            self.step();
                            if matches!(self.peek_byte(0), None | Some(b'\n')) {
                                continue;
                            }
                            self.step();
                        }
                        Some(_) => self.step(),
                    }
                }
                let text = &self.src[start + 1..self.pos];
                self.step();
                return Ok(Token {
                    tok: Tok::Str,
                    text,
                    loc,
                });
            }
            _ => {
                let two = self.peek_byte(1);
                let (tok, len) = match (byte, two) {
                    (b'(', _) => (Tok::LParen, 1),
                    (b')', _) => (Tok::RParen, 1),
                    (b'{', _) => (Tok::LBrace, 1),
                    (b'}', _) => (Tok::RBrace, 1),
                    (b'[', _) => (Tok::LBracket, 1),
                    (b']', _) => (Tok::RBracket, 1),
                    (b',', _) => (Tok::Comma, 1),
                    (b':', _) => (Tok::Colon, 1),
                    (b';', _) => (Tok::Semi, 1),
                    (b'&', _) => (Tok::Amp, 1),
                    (b'=', Some(b'=')) => (Tok::EqEq, 2),
                    (b'=', _) => (Tok::Eq, 1),
                    (b'!', Some(b'=')) => (Tok::NotEq, 2),
                    (b'-', Some(b'>')) => (Tok::Arrow, 2),
                    (b'-', _) => (Tok::Minus, 1),
                    _ => {
                        let ch = self.src[start..].chars().next().unwrap_or('\u{FFFD}');
                        return Err(ParseError {
                            loc,
                            kind: ParseErrorKind::UnexpectedChar(ch),
                        });
                    }
                };
                for _ in 0..len {
                    self.step();
                }
                tok
            }
        };
        Ok(Token {
            tok,
            text: &self.src[start..self.pos],
            loc,
        })
    }
}
