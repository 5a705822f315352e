//! The parser of the text format, Noir SSA compatible (see the crate docs
//! and the crate README for the grammar):
//!
//! ```text
//! module    := global* function*
//! global    := gN "=" (type ["-"] INT | "make_array" "[" [gop ("," gop)*] "]" ":" type)
//! gop       := gN | type ["-"] INT
//! function  := [("acir" | "brillig") "(" NAME ")" [PURITY]] "fn" NAME fN "{" databus* block* "}"
//! databus   := "call_data" "(" INT ")" ":" "array" ":" operand "," "indices" ":"
//!              "[" [operand ":" INT ("," operand ":" INT)*] "]"
//!            | "return_data" ":" operand
//! block     := label "(" [value ":" type ("," value ":" type)*] ")" [":"] inst* [terminator]
//! label     := bN | NAME
//! edge      := label ["(" [operand ("," operand)*] ")"]
//! terminator:= "jmp" edge | "jmpif" operand "then:" edge "," "else:" edge
//!            | "return" [operand ("," operand)*] | "unreachable"
//! inst      := [value ("," value)* "="] OPCODE operands... | "nop"
//! call      := "call" (fN | value | BUILTIN | ORACLE) "(" [operand ("," operand)*] ")"
//!              ["->" (type | "(" [type ("," type)*] ")")]
//! operand   := value | gN | fN | type ["-"] INT
//! value     := vN | NAME
//! ```
//!
//! An `array_get` or `array_set` index may carry Brillig's offset,
//! `index u32 4 minus 3`: the index is a constant, and the element read or
//! written is the number minus the offset (see [`Function::array_offsets`]);
//! as in Noir's parser, an `acir` function may not carry one.
//!
//! An integer constant its type cannot hold (`u8 300`, `u8 -1`) parses as
//! Noir's parser reads it, the field element written (`u8 -1` is p - 1),
//! and prints back as that element; the verifier refuses it. `iN`
//! constants are their two's complement bits, so `i8 200` is `i8 -56`.
//!
//! `fN` as an operand is a value of type `function` naming the function
//! (Noir's SSA before defunctionalization); `call v10(..)` calls the
//! function a value holds. A callee that is none of a function, a value
//! or a builtin is a foreign (oracle) function when its name contains
//! `oracle`, the rule of Noir's parser, and otherwise an unknown function.
//!
//! A value `NAME` other than `vN` (Noir's parser accepts `v1_arr`) is
//! numbered after the largest `vN` of its function, in order of first
//! appearance; a name used but never defined is an error at its first use.
//! Globals must be defined before they are used. A block label other than
//! `bN` (`entry`) is numbered the same way, after the largest `bN`.
//!
//! Numbering: value `vK` of the text is `Value::from_u32(K)` and block `bK`
//! is `Block::from_u32(K)` (gaps are allowed and become unused entities);
//! constants are created after every numbered value of the function.
//! Functions are renumbered densely in order of appearance (`f0`, `f1`, ...)
//! and `call fN` is remapped to the function whose header said `fN`.
//!
//! Values and blocks may be used before their definition (forward
//! references). Result types that follow an operand's type (`add`, `not`,
//! `truncate`, `if`, `array_set`) are resolved at the end of the function,
//! in linear time, when that operand is defined later in the text.
//!
//! Older forms accepted: `store X in v`, `jmpif c, then: ...`, a block header
//! without its trailing `:`, `jmp bN` without parentheses, `call println(..)`
//! for `print`, and `bool` for `u1`. Types stay explicit: `allocate`, `load`
//! and `array_get` need their `-> T`, because defaulting them would guess
//! wrong on references to arrays of references.
//!
//! [`parse_module_from_reader`] reads a module from a reader a function
//! at a time, holding only the text of the function being parsed (the
//! `read` module).
//!
//! Robustness: the parser never panics; entity numbers are bounded by a
//! budget linear in the input size (so `v999999999999` is an error, not an
//! allocation), and type nesting is bounded by [`MAX_TYPE_DEPTH`].

mod body;
mod constants;
mod lexer;
mod read;
mod state;

use read::ModuleBuilder;
pub use read::{parse_module_from_reader, ReadError};

pub(crate) use constants::{constant_fits, field_constant_casts, shorter_field_negation};
use constants::{integer_beyond_range, make_constant};

use std::collections::{HashMap, HashSet};
use std::fmt;

use lexer::{Lexer, Tok, Token};
use state::{FuncState, Materialised};

use crate::{
    AssertMessage, BinaryOp, Block, Builtin, BuiltinNames, CallData, Callee, ConstValue, FuncId,
    Function, GlobalData, GlobalId, GlobalInit, GlobalOperand, Inst, InstructionData, Module,
    Purity, Runtime, RuntimeKind, SourceLoc, Terminator, Type, Value, ValueDef, MAX_INT_BITS,
};

/// The deepest nesting of types (`&mut [&mut [...]]`) the parser accepts.
pub const MAX_TYPE_DEPTH: u32 = 64;

/// Entities numbered at or above this are reserved for constants while a
/// function is parsed.
const CONST_TAG: u32 = 0x8000_0000;

/// A parse error: where, and what went wrong. Displays as `LINE:COL: message`.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{loc}: {kind}")]
pub struct ParseError {
    /// Where the offending token starts.
    pub loc: SourceLoc,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// The kinds of parse errors.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ParseErrorKind {
    /// A character that starts no token.
    #[error("unexpected character `{0}`")]
    UnexpectedChar(char),
    /// A string without its closing quote on the same line.
    #[error("unterminated string")]
    UnterminatedString,
    /// The parser needed one thing and found another.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What would have been accepted here.
        expected: String,
        /// What was there.
        found: String,
    },
    /// A number too large for its place (bit widths, lengths, entity numbers).
    #[error("number `{0}` is too large")]
    NumberTooLarge(String),
    /// An integer bit width outside 1 to 128.
    #[error("bit width {0} is out of range (1 to {MAX_INT_BITS})")]
    BadBitWidth(u64),
    /// A type name that is not one.
    #[error("unknown type `{0}`")]
    UnknownType(String),
    /// Types nested too deeply.
    #[error("type nested deeper than {MAX_TYPE_DEPTH} levels")]
    TypeTooDeep,
    /// A constant of a type that has no constants.
    #[error("constants must have a numeric type, found `{0}`")]
    NonNumericConstant(Type),
    /// A constant outside its type's range.
    #[error("constant `{value}` does not fit in `{ty}`")]
    ConstantOutOfRange {
        /// The constant as written.
        value: String,
        /// Its type.
        ty: Type,
    },
    /// An opcode that is not one.
    #[error("unknown instruction `{0}`")]
    UnknownInstruction(String),
    /// A call to a function that is neither in the module nor a builtin.
    #[error("unknown function `{0}`")]
    UnknownFunction(String),
    /// Two definitions of one value.
    #[error("value `{0}` is defined twice")]
    ValueRedefined(Value),
    /// Two blocks with one label.
    #[error("block `{0}` is defined twice")]
    BlockRedefined(Block),
    /// Two functions with one id.
    #[error("function `f{0}` is defined twice")]
    FunctionRedefined(u32),
    /// The names before `=` do not match what the instruction produces.
    #[error("`{opcode}` produces {expected} result(s), found {found} result name(s)")]
    ResultCount {
        /// The instruction.
        opcode: String,
        /// How many it produces.
        expected: usize,
        /// How many names the text gave.
        found: usize,
    },
    /// A global used or defined out of order, or not defined at all.
    #[error("unknown global `{0}`")]
    UnknownGlobal(String),
    /// A value name used in a function that defines no value of that name.
    #[error("value `{0}` is used but never defined")]
    UndefinedName(String),
    /// A block label other than `bN` jumped to but never defined.
    #[error("block `{0}` is used but never defined")]
    UndefinedBlock(String),
    /// An entity number beyond the budget the input size allows.
    #[error("`{0}`: entity number too large for an input of this size")]
    EntityNumberTooLarge(String),
}

/// Parses a module in the text format.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let mut builder = ModuleBuilder::new();
    builder.piece(text, 1)?;
    builder.finish()
}

/// Parses a text holding exactly one function.
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let mut module = parse_module(text)?;
    let count = module.functions.len();
    if count != 1 {
        return Err(ParseError {
            loc: SourceLoc { line: 1, col: 1 },
            kind: ParseErrorKind::Expected {
                expected: "exactly one function".into(),
                found: format!("{count}"),
            },
        });
    }
    let id = FuncId::from_u32(0);
    Ok(std::mem::replace(
        &mut module.functions[id],
        Function::new(""),
    ))
}

/// What an instruction produces.
enum Results {
    /// Nothing.
    None,
    /// One value of a known type.
    One(Type),
    /// One value of the type of the given operand.
    SameAs(Value),
    /// One value per type (calls).
    Many(Vec<Type>),
}

struct CallFixup {
    func: FuncId,
    inst: Inst,
    number: u32,
    loc: SourceLoc,
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    tok: Token<'a>,
    /// Entities (values and blocks) the text may still create.
    budget: usize,
    /// The globals defined so far: the number the text gives, to the id and type.
    globals: HashMap<u32, (GlobalId, Type)>,
}

fn describe(token: &Token<'_>) -> String {
    match token.tok {
        Tok::Eof => "end of input".into(),
        Tok::Str => "a string".into(),
        _ => format!("`{}`", token.text),
    }
}

/// `prefix` followed by a canonical decimal number (no leading zeros).
fn entity_number(text: &str, prefix: u8) -> Option<&str> {
    let digits = text.strip_prefix(prefix as char)?;
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    canonical.then_some(digits)
}

fn is_type_start(token: &Token<'_>) -> bool {
    match token.tok {
        Tok::Amp | Tok::LBracket => true,
        Tok::Ident => {
            matches!(token.text, "Field" | "bool" | "function" | "noisy")
                || entity_number(token.text, b'u').is_some()
                || entity_number(token.text, b'i').is_some()
        }
        _ => false,
    }
}

fn is_value_name(token: &Token<'_>) -> bool {
    token.tok == Tok::Ident && entity_number(token.text, b'v').is_some()
}

fn is_global_name(token: &Token<'_>) -> bool {
    token.tok == Tok::Ident && entity_number(token.text, b'g').is_some()
}

/// A name other than `vN` that can only be a value where an operand is
/// expected: not a type, a block label or a global.
fn is_other_value_name(token: &Token<'_>) -> bool {
    token.tok == Tok::Ident
        && !is_value_name(token)
        && !is_function_name(token)
        && !is_type_start(token)
        && !is_block_label(token)
        && !is_global_name(token)
}

/// `fN`: a function of the module, called or used as a value.
fn is_function_name(token: &Token<'_>) -> bool {
    token.tok == Tok::Ident && entity_number(token.text, b'f').is_some()
}

fn is_block_label(token: &Token<'_>) -> bool {
    token.tok == Tok::Ident && entity_number(token.text, b'b').is_some()
}

impl<'a> Parser<'a> {
    fn bump(&mut self) -> Result<Token<'a>, ParseError> {
        let next = self.lexer.next_token()?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError {
            loc: self.tok.loc,
            kind,
        }
    }

    fn expected(&self, what: impl fmt::Display) -> ParseError {
        self.error(ParseErrorKind::Expected {
            expected: what.to_string(),
            found: describe(&self.tok),
        })
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<Token<'a>, ParseError> {
        if self.tok.tok == tok {
            self.bump()
        } else {
            Err(self.expected(what))
        }
    }

    fn eat(&mut self, tok: Tok) -> Result<bool, ParseError> {
        if self.tok.tok == tok {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn is_kw(&self, kw: &str) -> bool {
        self.tok.tok == Tok::Ident && self.tok.text == kw
    }

    fn expect_kw(&mut self, kw: &str, what: &str) -> Result<(), ParseError> {
        if self.is_kw(kw) {
            self.bump()?;
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    fn number_u64(&mut self, what: &str) -> Result<u64, ParseError> {
        if self.tok.tok != Tok::Int {
            return Err(self.expected(what));
        }
        let value = self.tok.text.parse::<u64>();
        match value {
            Ok(n) => {
                self.bump()?;
                Ok(n)
            }
            Err(_) => Err(self.error(ParseErrorKind::NumberTooLarge(self.tok.text.into()))),
        }
    }

    fn number_u32(&mut self, what: &str) -> Result<u32, ParseError> {
        let text = self.tok.text;
        let loc = self.tok.loc;
        let n = self.number_u64(what)?;
        u32::try_from(n).map_err(|_| ParseError {
            loc,
            kind: ParseErrorKind::NumberTooLarge(text.into()),
        })
    }

    /// An entity number in the token text after its one-letter prefix,
    /// bounded so that it cannot collide with constant tags.
    fn entity(&self, prefix: u8) -> Result<u32, ParseError> {
        let digits = entity_number(self.tok.text, prefix).unwrap_or("");
        digits
            .parse::<u32>()
            .ok()
            .filter(|&n| n < CONST_TAG)
            .ok_or_else(|| self.error(ParseErrorKind::EntityNumberTooLarge(self.tok.text.into())))
    }

    // ----- module and functions -----

    fn function(
        &mut self,
        id: FuncId,
        fixups: &mut Vec<CallFixup>,
        function_refs: &mut Vec<(u32, SourceLoc)>,
    ) -> Result<(Function, u32, SourceLoc), ParseError> {
        let runtime = if self.is_kw("acir") || self.is_kw("brillig") {
            let kind = if self.bump()?.text == "acir" {
                RuntimeKind::Acir
            } else {
                RuntimeKind::Brillig
            };
            self.expect(Tok::LParen, "`(` after the runtime")?;
            let inline = self
                .expect(Tok::Ident, "an inline annotation such as `inline`")?
                .text
                .to_string();
            self.expect(Tok::RParen, "`)` after the inline annotation")?;
            let purity = Purity::from_keyword(self.tok.text).filter(|_| self.tok.tok == Tok::Ident);
            if purity.is_some() {
                self.bump()?;
            }
            Some(Runtime {
                kind,
                inline,
                purity,
            })
        } else {
            None
        };
        self.expect_kw("fn", "`fn` or a runtime such as `acir(inline)`")?;
        let name = self.expect(Tok::Ident, "a function name after `fn`")?.text;
        if self.tok.tok != Tok::Ident || entity_number(self.tok.text, b'f').is_none() {
            return Err(self.expected("a function id such as `f0` after the name"));
        }
        let number_loc = self.tok.loc;
        let number = self.entity(b'f')?;
        self.bump()?;
        self.expect(Tok::LBrace, "`{` after the function id")?;
        let mut state = FuncState {
            func: Function::new(name),
            consts: Vec::new(),
            const_ids: HashMap::new(),
            pending: Vec::new(),
            pending_set: HashSet::new(),
            results: Vec::new(),
            names: HashMap::new(),
            next_named: self.largest_number(b'v').map_or(0, |n| n + 1),
            block_names: HashMap::new(),
            next_named_block: self.largest_number(b'b').map_or(0, |n| n + 1),
            function_refs: Vec::new(),
            offset: 0,
        };
        state.func.runtime = runtime;
        // The text numbers values and blocks up to these; bounded by what
        // the input's size allows, so a large number alone reserves little.
        let values = (state.next_named as usize).min(self.budget);
        let blocks = (state.next_named_block as usize).min(self.budget);
        state.func.dfg.reserve(values, blocks);
        self.databus(&mut state)?;
        while self.at_block_start() {
            self.block(&mut state, id, fixups)?;
        }
        self.expect(Tok::RBrace, "a block label such as `b0`, or `}`")?;
        function_refs.extend_from_slice(&state.function_refs);
        Ok((state.finish()?, number, number_loc))
    }

    /// The data bus declarations before the first block:
    /// `call_data(0): array: v5, indices: [v0: 0, v1: 1]` and
    /// `return_data: v7` (told from a block named `call_data` by the
    /// number in its parentheses).
    fn databus(&mut self, state: &mut FuncState) -> Result<(), ParseError> {
        loop {
            if self.is_kw("return_data") && self.next_is(Tok::Colon) {
                self.bump()?;
                self.bump()?;
                let value = self.operand(state, "the return data value")?;
                state.func.databus.return_data = Some(value);
            } else if self.is_kw("call_data") && self.peek(2) == Some(Tok::Int) {
                self.bump()?;
                self.bump()?;
                let id = self.number_u32("a call data id")?;
                self.expect(Tok::RParen, "`)` after the call data id")?;
                self.expect(Tok::Colon, "`:` after `call_data(N)`")?;
                self.expect_kw("array", "`array`")?;
                self.expect(Tok::Colon, "`:` after `array`")?;
                let array = self.operand(state, "the call data array")?;
                self.expect(Tok::Comma, "`,` after the call data array")?;
                self.expect_kw("indices", "`indices`")?;
                self.expect(Tok::Colon, "`:` after `indices`")?;
                self.expect(Tok::LBracket, "`[` before the indices")?;
                let mut indices = Vec::new();
                while self.tok.tok != Tok::RBracket {
                    let value = self.operand(state, "a value read from the call data")?;
                    self.expect(Tok::Colon, "`:` after the value")?;
                    indices.push((value, self.number_u64("its index in the call data")?));
                    if !self.eat(Tok::Comma)? {
                        break;
                    }
                }
                self.expect(Tok::RBracket, "`,` or `]` after an index")?;
                let call_data = CallData { id, array, indices };
                state.func.databus.call_data.push(call_data);
            } else {
                return Ok(());
            }
        }
    }

    // ----- entities -----

    fn ensure_values(&mut self, state: &mut FuncState, number: u32) -> Result<Value, ParseError> {
        let needed = (number as usize + 1).saturating_sub(state.func.dfg.num_values());
        if needed > self.budget {
            return Err(self.error(ParseErrorKind::EntityNumberTooLarge(self.tok.text.into())));
        }
        self.budget -= needed;
        for _ in 0..needed {
            state.func.dfg.make_unused_value();
        }
        Ok(Value::from_u32(number))
    }

    /// Whether the current token starts a block: `bN`, or a name followed
    /// by `(` (Noir's named labels, `entry(v0: u32):`).
    pub(super) fn at_block_start(&self) -> bool {
        is_block_label(&self.tok) || (is_other_value_name(&self.tok) && self.next_is(Tok::LParen))
    }

    /// The block the current label names: `bN` is block `N`; any other name
    /// gets the next number after the function's largest `bN`, in order of
    /// first appearance (printed back as `bN`, as Noir prints it).
    fn block_ref(&mut self, state: &mut FuncState) -> Result<Block, ParseError> {
        let number = if is_block_label(&self.tok) {
            self.entity(b'b')?
        } else if is_other_value_name(&self.tok) {
            match state.block_names.get(self.tok.text) {
                Some(&(block, _)) => block.as_u32(),
                None => {
                    let number = state.next_named_block;
                    state.next_named_block = number.saturating_add(1);
                    let block = Block::from_u32(number);
                    state
                        .block_names
                        .insert(self.tok.text.to_string(), (block, self.tok.loc));
                    number
                }
            }
        } else {
            return Err(self.expected("a block label such as `b1`"));
        };
        let needed = (number as usize + 1).saturating_sub(state.func.dfg.num_blocks());
        if needed > self.budget {
            return Err(self.error(ParseErrorKind::EntityNumberTooLarge(self.tok.text.into())));
        }
        self.budget -= needed;
        for _ in 0..needed {
            state.func.dfg.make_block();
        }
        self.bump()?;
        Ok(Block::from_u32(number))
    }

    /// A value name being defined.
    fn value_def(&mut self, state: &mut FuncState) -> Result<Value, ParseError> {
        if !is_value_name(&self.tok) && !is_other_value_name(&self.tok) {
            return Err(self.expected("a value name such as `v0`"));
        }
        let value = self.value_name(state)?;
        if state.func.dfg.value_def(value) != ValueDef::Unused {
            return Err(self.error(ParseErrorKind::ValueRedefined(value)));
        }
        self.bump()?;
        Ok(value)
    }

    /// The value the current token names: `vN` is value `N`; any other name
    /// gets the next number after the function's largest `vN`, as Noir's
    /// parser renumbers them.
    fn value_name(&mut self, state: &mut FuncState) -> Result<Value, ParseError> {
        if is_value_name(&self.tok) {
            let number = self.entity(b'v')?;
            return self.ensure_values(state, number);
        }
        if let Some(&(value, _)) = state.names.get(self.tok.text) {
            return Ok(value);
        }
        let number = state.next_named;
        if number >= CONST_TAG {
            return Err(self.error(ParseErrorKind::EntityNumberTooLarge(self.tok.text.into())));
        }
        let value = self.ensure_values(state, number)?;
        state.next_named += 1;
        state
            .names
            .insert(self.tok.text.to_string(), (value, self.tok.loc));
        Ok(value)
    }

    /// The largest `vN` (or `bN`, by `prefix`) between the current token and
    /// the end of the function, read ahead on a copy of the lexer (linear,
    /// twice per function).
    fn largest_number(&self, prefix: u8) -> Option<u32> {
        let mut lexer = self.lexer.clone();
        let mut token = self.tok;
        let mut depth = 1u32;
        let mut largest = None;
        loop {
            match token.tok {
                Tok::Eof => break,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Ident => {
                    let number =
                        entity_number(token.text, prefix).and_then(|d| d.parse::<u32>().ok());
                    if let Some(n) = number.filter(|&n| n < CONST_TAG) {
                        largest = largest.max(Some(n));
                    }
                }
                _ => {}
            }
            match lexer.next_token() {
                Ok(next) => token = next,
                Err(_) => break,
            }
        }
        largest
    }

    /// The kind of the token `n` places after the current one (1 is the
    /// next), if it lexes.
    fn peek(&self, n: usize) -> Option<Tok> {
        let mut lexer = self.lexer.clone();
        let mut kind = None;
        for _ in 0..n {
            kind = Some(lexer.next_token().ok()?.tok);
        }
        kind
    }

    /// Whether the token after the current one is `tok`.
    fn next_is(&self, tok: Tok) -> bool {
        self.lexer
            .clone()
            .next_token()
            .is_ok_and(|next| next.tok == tok)
    }

    /// `gN = TYPE CONST` or `gN = make_array [operands] : TYPE`.
    fn global(&mut self, module: &mut Module) -> Result<(), ParseError> {
        let loc = self.tok.loc;
        let number = self.entity(b'g')?;
        if self.globals.contains_key(&number) {
            return Err(self.error(ParseErrorKind::Expected {
                expected: "a global defined once".into(),
                found: format!("a second `g{number}`"),
            }));
        }
        self.bump()?;
        self.expect(Tok::Eq, "`=` after the global's name")?;
        let (ty, init) = if self.is_kw("make_array") {
            self.bump()?;
            self.expect(Tok::LBracket, "`[` after `make_array`")?;
            let mut elements = Vec::new();
            while self.tok.tok != Tok::RBracket {
                elements.push(self.global_operand()?);
                if !self.eat(Tok::Comma)? {
                    break;
                }
            }
            self.expect(Tok::RBracket, "`,` or `]` after an array element")?;
            self.expect(Tok::Colon, "`:` and the array type")?;
            (self.ty(0)?, GlobalInit::Array(elements))
        } else {
            match self.global_operand()? {
                GlobalOperand::Const(value, ty) => (ty, GlobalInit::Const(value)),
                GlobalOperand::Global(_) => {
                    return Err(ParseError {
                        loc,
                        kind: ParseErrorKind::Expected {
                            expected: "a constant or `make_array` defining the global".into(),
                            found: "another global".into(),
                        },
                    })
                }
            }
        };
        let id = module.globals.push(GlobalData {
            ty: ty.clone(),
            init,
        });
        self.globals.insert(number, (id, ty));
        Ok(())
    }

    /// An element of a global array: a typed constant or an earlier global.
    fn global_operand(&mut self) -> Result<GlobalOperand, ParseError> {
        if is_global_name(&self.tok) {
            let (id, _) = self.global_ref()?;
            return Ok(GlobalOperand::Global(id));
        }
        let (ty, value) = self.typed_constant("a constant or a global")?;
        Ok(GlobalOperand::Const(value, ty))
    }

    /// A use of global `gN`: its id and type.
    fn global_ref(&mut self) -> Result<(GlobalId, Type), ParseError> {
        let number = self.entity(b'g')?;
        let Some((id, ty)) = self.globals.get(&number).cloned() else {
            return Err(self.error(ParseErrorKind::UnknownGlobal(self.tok.text.into())));
        };
        self.bump()?;
        Ok((id, ty))
    }

    fn operand(&mut self, state: &mut FuncState, what: &str) -> Result<Value, ParseError> {
        if is_value_name(&self.tok) || is_other_value_name(&self.tok) {
            let value = self.value_name(state)?;
            self.bump()?;
            return Ok(value);
        }
        if is_global_name(&self.tok) {
            let (id, ty) = self.global_ref()?;
            return Ok(state.materialised(ty, Materialised::Global(id)));
        }
        if is_function_name(&self.tok) {
            let number = self.entity(b'f')?;
            state.function_refs.push((number, self.tok.loc));
            self.bump()?;
            return Ok(state.materialised(Type::Function, Materialised::Function(number)));
        }
        let (ty, constant) = self.typed_constant(what)?;
        Ok(state.materialised(ty, Materialised::Const(constant)))
    }

    /// `TYPE [-]DIGITS`: a numeric constant and its type.
    fn typed_constant(&mut self, what: &str) -> Result<(Type, ConstValue), ParseError> {
        if self.tok.tok == Tok::Int {
            return Err(self.expected(format_args!(
                "{what} (constants need their type, as in `u32 0`)"
            )));
        }
        if !is_type_start(&self.tok) {
            return Err(self.expected(what));
        }
        let ty_loc = self.tok.loc;
        let ty = self.ty(0)?;
        if !ty.is_numeric() {
            return Err(ParseError {
                loc: ty_loc,
                kind: ParseErrorKind::NonNumericConstant(ty),
            });
        }
        let negative = self.eat(Tok::Minus)?;
        if self.tok.tok != Tok::Int {
            return Err(self.expected(format_args!("a number after the type `{ty}`")));
        }
        let text = self.tok.text;
        let constant = ConstValue::parse_decimal(text).and_then(|magnitude| {
            make_constant(&ty, negative, magnitude)
                .or_else(|| integer_beyond_range(&ty, negative, magnitude))
        });
        let Some(constant) = constant else {
            let value = if negative {
                format!("-{text}")
            } else {
                text.into()
            };
            return Err(self.error(ParseErrorKind::ConstantOutOfRange { value, ty }));
        };
        self.bump()?;
        Ok((ty, constant))
    }

    /// Comma-separated operands up to (not including) `close`.
    fn operand_list(
        &mut self,
        state: &mut FuncState,
        close: Tok,
        what: &str,
    ) -> Result<Vec<Value>, ParseError> {
        let mut values = Vec::new();
        if self.tok.tok == close {
            return Ok(values);
        }
        loop {
            values.push(self.operand(state, what)?);
            if !self.eat(Tok::Comma)? {
                return Ok(values);
            }
        }
    }
}

/// The contents of a string literal with `\"`, `\\`, `\n` and `\t` decoded.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
