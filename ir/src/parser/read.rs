//! Parsing from a reader without holding the whole text: the text is read
//! line by line and handed to the parser in pieces of whole functions, each
//! dropped once parsed, so that reading a module takes the memory of the
//! module and of its largest function's text, not of the whole text.
//!
//! A piece ends after a line where the braces opened since the piece began
//! are all closed again. Tokens never span lines (a string ends on its
//! line, a comment runs to the end of it), so a line's braces are counted
//! on the line alone, outside strings and comments. A text that does not
//! parse is cut the same way and gives the same error as
//! [`parse_module`](super::parse_module) on the whole text: the first
//! error in text order lies in the first piece that does not parse, and
//! every token is at its place in the whole.

use std::io::BufRead;

use super::{ModuleBuilder, ParseError};
use crate::Module;

/// Why a module could not be read from a reader.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The reader failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not UTF-8: the offset of the first that is not.
    #[error("not UTF-8 text at byte {0}")]
    NotUtf8(u64),
    /// The text does not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
}

/// Parses a module in the text format read from `input`, one function at
/// a time (see the module docs): the same module, or the same error, as
/// [`parse_module`](super::parse_module) on the whole text.
pub fn parse_module_from_reader(mut input: impl BufRead) -> Result<Module, ReadError> {
    let mut builder = ModuleBuilder::new();
    let mut piece = String::new();
    let mut piece_line = 1u32;
    let mut lines = 0u32;
    let mut braces = Braces::default();
    let mut line = Vec::new();
    let mut offset = 0u64;
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        let text = std::str::from_utf8(&line)
            .map_err(|err| ReadError::NotUtf8(offset + err.valid_up_to() as u64))?;
        offset += read as u64;
        piece.push_str(text);
        lines = lines.saturating_add(1);
        braces.count(text);
        if braces.closed && braces.depth <= 0 {
            // Taken, not cleared: a large function's text is not kept as
            // the capacity of the next piece.
            builder.piece(&std::mem::take(&mut piece), piece_line)?;
            piece_line = piece_line.saturating_add(lines);
            lines = 0;
            braces = Braces::default();
        }
    }
    builder.piece(&piece, piece_line)?;
    Ok(builder.finish()?)
}

/// The braces of the lines of a piece so far.
#[derive(Default)]
struct Braces {
    /// Opened minus closed.
    depth: i64,
    /// Whether a `}` was seen.
    closed: bool,
}

impl Braces {
    /// Counts the braces of one line outside strings and comments, as the
    /// lexer reads them.
    fn count(&mut self, line: &str) {
        let mut bytes = line.bytes();
        let mut in_string = false;
        while let Some(byte) = bytes.next() {
            match byte {
                b'\\' if in_string => {
                    bytes.next();
                }
                b'"' => in_string = !in_string,
                _ if in_string => {}
                b'/' if line.as_bytes().get(line.len() - bytes.len()) == Some(&b'/') => break,
                b'{' => self.depth += 1,
                b'}' => {
                    self.depth -= 1;
                    self.closed = true;
                }
                _ => {}
            }
        }
    }
}
