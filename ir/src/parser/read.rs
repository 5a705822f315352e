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
//!
//! What the pieces share, the module so far, its globals and the calls to
//! resolve once every function is known, is a `ModuleBuilder`;
//! [`parse_module`](super::parse_module) gives it the whole text as one
//! piece.

use std::collections::HashMap;
use std::io::BufRead;

use super::{is_global_name, CallFixup, Lexer, ParseError, ParseErrorKind, Parser, Tok};
use crate::{Callee, FuncId, GlobalId, InstructionData, Module, SourceLoc, Type};

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

/// What the functions of a module share while the text is read, one piece
/// of whole functions after another ([`parse_module_from_reader`]): the
/// module so far, the globals, the function numbers and the references to
/// functions to resolve once every function is known.
pub(super) struct ModuleBuilder {
    module: Module,
    /// The number the text gives each function, to its id.
    ids: HashMap<u32, FuncId>,
    fixups: Vec<CallFixup>,
    function_refs: Vec<(u32, SourceLoc)>,
    /// The globals defined so far: the number the text gives, to the id and type.
    globals: HashMap<u32, (GlobalId, Type)>,
    /// Entities (values and blocks) the text read so far may still create.
    budget: usize,
}

impl ModuleBuilder {
    pub(super) fn new() -> Self {
        ModuleBuilder {
            module: Module::new(),
            ids: HashMap::new(),
            fixups: Vec::new(),
            function_refs: Vec::new(),
            globals: HashMap::new(),
            budget: 1024,
        }
    }

    /// Parses `text`, whose first line is line `first_line` of the whole:
    /// whole functions, and the globals before them when no function has
    /// been read yet. The text grants entities in proportion to its length.
    pub(super) fn piece(&mut self, text: &str, first_line: u32) -> Result<(), ParseError> {
        let budget = self.budget.saturating_add(text.len().saturating_mul(4));
        let mut lexer = Lexer::at_line(text, first_line);
        let tok = lexer.next_token()?;
        let mut parser = Parser {
            lexer,
            tok,
            budget,
            globals: std::mem::take(&mut self.globals),
        };
        let read = parser.functions(self);
        self.globals = parser.globals;
        self.budget = parser.budget;
        read
    }

    /// The module, every `call fN` and `fN` operand resolved to the
    /// function whose header said `fN`.
    pub(super) fn finish(self) -> Result<Module, ParseError> {
        let ModuleBuilder {
            mut module,
            ids,
            fixups,
            function_refs,
            ..
        } = self;
        for fixup in fixups {
            let Some(&target) = ids.get(&fixup.number) else {
                return Err(ParseError {
                    loc: fixup.loc,
                    kind: ParseErrorKind::UnknownFunction(format!("f{}", fixup.number)),
                });
            };
            if let InstructionData::Call { callee, .. } =
                &mut module.functions[fixup.func].dfg[fixup.inst]
            {
                *callee = Callee::Function(target);
            }
        }
        if let Some(&(number, loc)) = function_refs.iter().find(|(n, _)| !ids.contains_key(n)) {
            return Err(ParseError {
                loc,
                kind: ParseErrorKind::UnknownFunction(format!("f{number}")),
            });
        }
        for func in module.functions.values_mut() {
            func.dfg
                .map_function_refs(|text| ids.get(&text.as_u32()).copied().unwrap_or(text));
        }
        Ok(module)
    }
}

impl Parser<'_> {
    /// The globals (before the module's first function) and the functions
    /// of the text, added to `m`.
    fn functions(&mut self, m: &mut ModuleBuilder) -> Result<(), ParseError> {
        if m.module.functions.is_empty() {
            while is_global_name(&self.tok) {
                self.global(&mut m.module)?;
            }
        }
        while self.tok.tok != Tok::Eof {
            let id = m.module.functions.next_key();
            let (func, number, number_loc) =
                self.function(id, &mut m.fixups, &mut m.function_refs)?;
            if m.ids.insert(number, id).is_some() {
                return Err(ParseError {
                    loc: number_loc,
                    kind: ParseErrorKind::FunctionRedefined(number),
                });
            }
            m.module.push(func);
        }
        Ok(())
    }
}
