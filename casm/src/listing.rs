//! Cairo assembly (CASM) as a language: the instruction type, its printer
//! and its parser.
//!
//! The syntax is the one of the reference compiler's listings (Juvix's
//! `Casm` pretty printer), close to Cairo 0 assembly:
//!
//! ```text
//! f:
//!   [ap] = [fp - 3] + 1; ap++      -- assert-equal with an addition
//!   [ap] = [fp - 4] - [fp - 3]; ap++   -- subtraction, by deduction
//!   call g                         -- relative call to a label
//!   call rel 3                     -- relative call by an offset in words
//!   jmp L1 if [fp + 2] != 0        -- conditional relative jump
//!   jmp rel 4
//!   ap += 2
//!   %{ [ap] = [fp + 1] < [fp] %}   -- hint: propose the comparison in [ap]
//!   [fp + 2] = [[fp - 4] + 1]      -- a cell read through a pointer
//!   ret
//!   nop
//! ```
//!
//! `nop` occupies no word: the reference compiler puts it after the
//! `call rel 3; ret` of a block transfer, where its own interpreter counts
//! one slot per instruction, so that `rel 3` lands on the next block in both
//! its interpreter and the bytecode. Comments run from `--` to the end of
//! the line.

use std::fmt;

use crate::felt::Felt;
use crate::jvr::Pos;

/// A register that addresses memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reg {
    /// The allocation pointer.
    Ap,
    /// The frame pointer.
    Fp,
}

/// A memory reference `[reg + off]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemRef {
    /// Base register.
    pub reg: Reg,
    /// Offset.
    pub off: i16,
}

impl MemRef {
    /// `[ap + off]`.
    pub fn ap(off: i16) -> MemRef {
        MemRef { reg: Reg::Ap, off }
    }

    /// `[fp + off]`.
    pub fn fp(off: i16) -> MemRef {
        MemRef { reg: Reg::Fp, off }
    }
}

impl fmt::Display for MemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = match self.reg {
            Reg::Ap => "ap",
            Reg::Fp => "fp",
        };
        match self.off {
            0 => write!(f, "[{r}]"),
            o if o < 0 => write!(f, "[{r} - {}]", -(o as i32)),
            o => write!(f, "[{r} + {o}]"),
        }
    }
}

/// The second operand: a memory cell or an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    /// A memory cell.
    Mem(MemRef),
    /// An immediate, stored in the word after the instruction.
    Imm(Felt),
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Mem(m) => m.fmt(f),
            Val::Imm(c) => c.fmt(f),
        }
    }
}

/// Arithmetic of an assignment's right-hand side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`.
    Add,
    /// `-`, assembled by deduction: `[d] = a - b` is `a = [d] + b`.
    Sub,
    /// `*`.
    Mul,
    /// `/`, assembled by deduction: `[d] = a / b` is `a = [d] * b`.
    Div,
}

impl ArithOp {
    fn symbol(self) -> char {
        match self {
            ArithOp::Add => '+',
            ArithOp::Sub => '-',
            ArithOp::Mul => '*',
            ArithOp::Div => '/',
        }
    }
}

/// The right-hand side of an assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rhs {
    /// A plain value.
    Val(Val),
    /// `op0 OP op1`.
    Op(ArithOp, MemRef, Val),
    /// `[[cell] + off]`: the cell at the address that `cell` holds, plus
    /// `off` (`op1` addressed through `op0`).
    Deref(MemRef, i16),
}

impl fmt::Display for Rhs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rhs::Val(v) => v.fmt(f),
            Rhs::Op(op, a, b) => write!(f, "{a} {} {b}", op.symbol()),
            Rhs::Deref(m, 0) => write!(f, "[{m}]"),
            Rhs::Deref(m, o) if *o < 0 => write!(f, "[{m} - {}]", -(*o as i32)),
            Rhs::Deref(m, o) => write!(f, "[{m} + {o}]"),
        }
    }
}

/// A jump or call target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A label, resolved by the assembler to a relative offset.
    Label(String),
    /// A relative offset in words.
    Rel(i64),
    /// A relative offset held in a cell (`jmp rel [fp + 2]`; jumps only).
    Cell(MemRef),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Label(l) => f.write_str(l),
            Target::Rel(r) => write!(f, "rel {r}"),
            Target::Cell(m) => write!(f, "rel {m}"),
        }
    }
}

/// A hint: host code the VM runs before the instruction that follows it.
///
/// A hint only proposes values; the code after it checks every answer
/// with the `range_check` builtin, so a prover that lies makes the run fail
/// (see the lowering of comparisons and of `div`/`mod`). Operands are
/// immediates or `fp`-based cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    /// `memory[ap] = 0 if a < b else 1` (`a <= b` when not strict) on the
    /// signed readings: the comparison as a Juvix boolean.
    Compare {
        /// Left operand.
        a: Val,
        /// Right operand.
        b: Val,
        /// `<` rather than `<=`.
        strict: bool,
    },
    /// `memory[ap + i]` for `i = 0..4`: `1 if a < 0 else 0`,
    /// `1 if b < 0 else 0`, `|a| / |b|` and `|a| % |b|` (signed readings).
    DivMod {
        /// Dividend.
        a: Val,
        /// Divisor.
        b: Val,
    },
    /// `trace v`: the runner records `v` as an output line.
    Trace {
        /// The value.
        v: Val,
        /// What it is, for printing it as a term.
        kind: crate::heap::Kind,
    },
    /// `fail v`: the runner records `v` as the failure's message (the
    /// instruction after it fails).
    Fail {
        /// The message.
        v: Val,
    },
    /// `cextend` by `given` arguments of `closure`, which takes fewer: the
    /// runner records the error (the instruction after it fails).
    ExtendRefused {
        /// The closure.
        closure: Val,
        /// The number of arguments `cextend` adds.
        given: Val,
    },
    /// `atoi` of a text that spells no integer: the runner records the
    /// error (the instruction after it fails).
    NotAnInteger,
}

impl Hint {
    /// The operands the hint reads.
    pub fn operands(&self) -> Vec<Val> {
        match *self {
            Hint::Compare { a, b, .. } | Hint::DivMod { a, b } => vec![a, b],
            Hint::ExtendRefused { closure, given } => vec![closure, given],
            Hint::NotAnInteger => Vec::new(),
            Hint::Trace { v, .. } | Hint::Fail { v } => vec![v],
        }
    }

    /// The honest answer on operand values `a` and `b`: the cells to write
    /// from `[ap]` on. A zero divisor gets zeros (the checks that follow
    /// reject any answer). `trace`, `fail` and a refused `cextend` write
    /// nothing.
    pub fn answer(&self, a: Felt, b: Felt) -> Vec<Felt> {
        let bit = |x: bool| if x { Felt::ONE } else { Felt::ZERO };
        match self {
            Hint::Compare { strict, .. } => {
                let ord = a.signed_cmp(&b);
                let holds = if *strict { ord.is_lt() } else { ord.is_le() };
                vec![bit(!holds)]
            }
            Hint::DivMod { .. } => {
                let magnitude = |x: Felt| if x.is_negative() { -x } else { x };
                let (q, r) = a.signed_quot_rem(&b).unwrap_or_default();
                vec![
                    bit(a.is_negative()),
                    bit(b.is_negative()),
                    magnitude(q),
                    magnitude(r),
                ]
            }
            Hint::Trace { .. }
            | Hint::Fail { .. }
            | Hint::ExtendRefused { .. }
            | Hint::NotAnInteger => Vec::new(),
        }
    }
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hint::Compare { a, b, strict } => {
                let op = if *strict { "<" } else { "<=" };
                write!(f, "%{{ [ap] = {a} {op} {b} %}}")
            }
            Hint::DivMod { a, b } => write!(f, "%{{ [ap] = divmod({a}, {b}) %}}"),
            Hint::Trace { v, kind } => match kind.name() {
                Some(k) => write!(f, "%{{ trace {v} as {k} %}}"),
                None => write!(f, "%{{ trace {v} %}}"),
            },
            Hint::Fail { v } => write!(f, "%{{ fail {v} %}}"),
            Hint::ExtendRefused { closure, given } => {
                write!(f, "%{{ refuse_cextend({closure}, {given}) %}}")
            }
            Hint::NotAnInteger => write!(f, "%{{ not_an_integer() %}}"),
        }
    }
}

/// A builtin the program uses, named as Cairo's `%builtins` directive
/// names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Builtin {
    /// `output`: the program's public output. Only the entry sequence
    /// writes it (the result); functions do not take its pointer.
    Output,
    /// `range_check`: every cell written to its segment is below `2^128`.
    RangeCheck,
    /// `ec_op`: instances of 7 cells, `p.x p.y q.x q.y m` then `r = p + m q`
    /// on the STARK curve.
    EcOp,
    /// `poseidon`: instances of 6 cells, a state of 3 then its Hades
    /// permutation.
    Poseidon,
}

impl Builtin {
    /// Every builtin, in Cairo's order (the order of `%builtins`).
    pub const ALL: [Builtin; 4] = [
        Builtin::Output,
        Builtin::RangeCheck,
        Builtin::EcOp,
        Builtin::Poseidon,
    ];

    /// The builtins whose pointers functions take and return, in Cairo's
    /// order.
    pub const THREADED: [Builtin; 3] = [Builtin::RangeCheck, Builtin::EcOp, Builtin::Poseidon];

    /// The name in `%builtins` and in the program JSON.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Output => "output",
            Builtin::RangeCheck => "range_check",
            Builtin::EcOp => "ec_op",
            Builtin::Poseidon => "poseidon",
        }
    }

    /// Cells per instance.
    pub fn cells(self) -> usize {
        match self {
            Builtin::Output | Builtin::RangeCheck => 1,
            Builtin::EcOp => 7,
            Builtin::Poseidon => 6,
        }
    }
}

/// A CASM instruction or a label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    /// `name:`.
    Label(String),
    /// `dst = rhs`, with an optional `ap++`.
    Assign {
        /// Destination.
        dst: MemRef,
        /// Value.
        rhs: Rhs,
        /// `; ap++`.
        ap_incr: bool,
    },
    /// `jmp target [if cond != 0]`, with an optional `ap++`.
    Jump {
        /// Target.
        target: Target,
        /// Jump only when this cell is non-zero.
        cond: Option<MemRef>,
        /// `; ap++`.
        ap_incr: bool,
    },
    /// `call target` (relative).
    Call(Target),
    /// `ret`.
    Ret,
    /// `ap += n`.
    ApAdd(Felt),
    /// `nop`: no word.
    Nop,
    /// A hint attached to the next instruction.
    Hint(Hint),
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let incr =
            |f: &mut fmt::Formatter<'_>, on: bool| if on { f.write_str("; ap++") } else { Ok(()) };
        match self {
            Instr::Label(l) => write!(f, "{l}:"),
            Instr::Assign { dst, rhs, ap_incr } => {
                write!(f, "{dst} = {rhs}")?;
                incr(f, *ap_incr)
            }
            Instr::Jump {
                target,
                cond,
                ap_incr,
            } => {
                write!(f, "jmp {target}")?;
                if let Some(c) = cond {
                    write!(f, " if {c} != 0")?;
                }
                incr(f, *ap_incr)
            }
            Instr::Call(t) => write!(f, "call {t}"),
            Instr::Ret => f.write_str("ret"),
            Instr::ApAdd(n) => write!(f, "ap += {n}"),
            Instr::Nop => f.write_str("nop"),
            Instr::Hint(h) => h.fmt(f),
        }
    }
}

/// A CASM listing: labels and instructions in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// Builtins whose pointers every function takes and returns, in
    /// Cairo's order; printed as a first line `%builtins NAME ...`.
    pub builtins: Vec<Builtin>,
    /// Items in order.
    pub items: Vec<Instr>,
}

impl fmt::Display for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.builtins.is_empty() {
            f.write_str("%builtins")?;
            for b in &self.builtins {
                write!(f, " {}", b.name())?;
            }
            writeln!(f)?;
        }
        for i in &self.items {
            match i {
                Instr::Label(_) => writeln!(f, "{i}")?,
                _ => writeln!(f, "  {i}")?,
            }
        }
        Ok(())
    }
}

/// A CASM syntax error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct CasmParseError {
    /// Where.
    pub pos: Pos,
    /// What was expected.
    pub message: String,
}

struct LineParser<'a> {
    s: &'a [u8],
    at: usize,
    line: u32,
}

type LResult<T> = Result<T, CasmParseError>;

impl LineParser<'_> {
    fn err<T>(&self, what: &str) -> LResult<T> {
        Err(CasmParseError {
            pos: Pos {
                line: self.line,
                col: self.at as u32 + 1,
            },
            message: format!("expected {what}"),
        })
    }

    fn ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        self.ws();
        if self.s[self.at..].starts_with(lit.as_bytes()) {
            self.at += lit.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, lit: &str) -> LResult<()> {
        if self.eat(lit) {
            Ok(())
        } else {
            self.err(&format!("`{lit}`"))
        }
    }

    fn at_end(&mut self) -> bool {
        self.ws();
        self.at == self.s.len()
    }

    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.at;
        while self.at < self.s.len() {
            let c = self.s[self.at];
            let ok = c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$' || c == b'\'';
            if !ok || (self.at == start && c.is_ascii_digit()) {
                break;
            }
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
    }

    fn int(&mut self) -> LResult<String> {
        self.ws();
        let start = self.at;
        if self.at < self.s.len() && self.s[self.at] == b'-' {
            self.at += 1;
        }
        while self.at < self.s.len() && self.s[self.at].is_ascii_digit() && self.at - start <= 80 {
            self.at += 1;
        }
        let text = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
        if text.is_empty() || text == "-" {
            self.at = start;
            return self.err("a number");
        }
        Ok(text)
    }

    fn felt(&mut self) -> LResult<Felt> {
        let t = self.int()?;
        match Felt::parse_decimal(&t) {
            Some(f) => Ok(f),
            None => self.err("a number"),
        }
    }

    fn small(&mut self) -> LResult<i64> {
        let t = self.int()?;
        match t.parse::<i64>() {
            Ok(v) => Ok(v),
            Err(_) => self.err("a small offset"),
        }
    }

    fn mem(&mut self) -> LResult<MemRef> {
        self.expect("[")?;
        let reg = if self.eat("ap") {
            Reg::Ap
        } else if self.eat("fp") {
            Reg::Fp
        } else {
            return self.err("`ap` or `fp`");
        };
        let off = self.offset()?;
        self.expect("]")?;
        Ok(MemRef { reg, off })
    }

    /// An optional `+ n` or `- n` after a register or a cell, as an
    /// instruction offset (0 when absent).
    fn offset(&mut self) -> LResult<i16> {
        let off = if self.eat("+") {
            self.small()?
        } else if self.eat("-") {
            -self.small()?
        } else {
            0
        };
        match i16::try_from(off) {
            Ok(off) => Ok(off),
            Err(_) => self.err("an offset in [-32768, 32767]"),
        }
    }

    fn val(&mut self) -> LResult<Val> {
        self.ws();
        if self.s.get(self.at) == Some(&b'[') {
            Ok(Val::Mem(self.mem()?))
        } else {
            Ok(Val::Imm(self.felt()?))
        }
    }

    fn target(&mut self) -> LResult<Target> {
        let save = self.at;
        match self.ident() {
            Some(w) if w == "rel" => {
                self.ws();
                if self.s.get(self.at) == Some(&b'[') {
                    Ok(Target::Cell(self.mem()?))
                } else {
                    Ok(Target::Rel(self.small()?))
                }
            }
            Some(w) if w == "if" => {
                self.at = save;
                self.err("a target")
            }
            Some(w) => Ok(Target::Label(w)),
            None => self.err("a target"),
        }
    }

    fn ap_incr(&mut self) -> LResult<bool> {
        if self.eat(";") {
            self.expect("ap++")?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// A hint, after its `%{`.
    fn hint(&mut self) -> LResult<Instr> {
        if self.eat("trace") || self.eat("fail") {
            let trace = self.s[..self.at].ends_with(b"trace");
            let v = self.val()?;
            let mut kind = crate::heap::Kind::Any;
            if trace && self.eat("as") {
                self.ws();
                let start = self.at;
                while self.s.get(self.at).is_some_and(u8::is_ascii_alphabetic) {
                    self.at += 1;
                }
                let name = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
                kind = match crate::heap::Kind::from_name(&name) {
                    Some(k) => k,
                    None => {
                        return self
                            .err("a kind (integer, bool, unit, void, object, string, io, number)")
                    }
                };
            }
            self.expect("%}")?;
            return Ok(Instr::Hint(if trace {
                Hint::Trace { v, kind }
            } else {
                Hint::Fail { v }
            }));
        }
        if self.eat("not_an_integer") {
            self.expect("(")?;
            self.expect(")")?;
            self.expect("%}")?;
            return Ok(Instr::Hint(Hint::NotAnInteger));
        }
        if self.eat("refuse_cextend") {
            self.expect("(")?;
            let closure = self.val()?;
            self.expect(",")?;
            let given = self.val()?;
            self.expect(")")?;
            self.expect("%}")?;
            return Ok(Instr::Hint(Hint::ExtendRefused { closure, given }));
        }
        self.expect("[ap]")?;
        self.expect("=")?;
        let hint = if self.eat("divmod") {
            self.expect("(")?;
            let a = self.val()?;
            self.expect(",")?;
            let b = self.val()?;
            self.expect(")")?;
            Hint::DivMod { a, b }
        } else {
            let a = self.val()?;
            let strict = if self.eat("<=") {
                false
            } else {
                self.expect("<")?;
                true
            };
            let b = self.val()?;
            Hint::Compare { a, b, strict }
        };
        self.expect("%}")?;
        Ok(Instr::Hint(hint))
    }

    fn instr(&mut self) -> LResult<Instr> {
        self.ws();
        if self.eat("%{") {
            return self.hint();
        }
        if self.s.get(self.at) == Some(&b'[') {
            let dst = self.mem()?;
            self.expect("=")?;
            self.ws();
            if self.s.get(self.at..self.at + 2) == Some(b"[[") {
                self.at += 1;
                let cell = self.mem()?;
                let off = self.offset()?;
                self.expect("]")?;
                let ap_incr = self.ap_incr()?;
                return Ok(Instr::Assign {
                    dst,
                    rhs: Rhs::Deref(cell, off),
                    ap_incr,
                });
            }
            let first = self.val()?;
            self.ws();
            let op = match self.s.get(self.at) {
                Some(b'+') => Some(ArithOp::Add),
                Some(b'-') => Some(ArithOp::Sub),
                Some(b'*') => Some(ArithOp::Mul),
                Some(b'/') => Some(ArithOp::Div),
                _ => None,
            };
            let rhs = match op {
                None => Rhs::Val(first),
                Some(op) => {
                    let Val::Mem(a) = first else {
                        return self.err("a memory cell as the first operand");
                    };
                    self.at += 1;
                    Rhs::Op(op, a, self.val()?)
                }
            };
            let ap_incr = self.ap_incr()?;
            return Ok(Instr::Assign { dst, rhs, ap_incr });
        }
        let save = self.at;
        let Some(word) = self.ident() else {
            return self.err("an instruction");
        };
        if self.eat(":") {
            return Ok(Instr::Label(word));
        }
        match word.as_str() {
            "ret" => Ok(Instr::Ret),
            "nop" => Ok(Instr::Nop),
            "call" => Ok(Instr::Call(self.target()?)),
            "jmp" => {
                let target = self.target()?;
                let cond = if self.eat("if") {
                    let c = self.mem()?;
                    self.expect("!=")?;
                    self.expect("0")?;
                    Some(c)
                } else {
                    None
                };
                let ap_incr = self.ap_incr()?;
                Ok(Instr::Jump {
                    target,
                    cond,
                    ap_incr,
                })
            }
            "ap" => {
                self.expect("+=")?;
                Ok(Instr::ApAdd(self.felt()?))
            }
            _ => {
                self.at = save;
                self.err("an instruction")
            }
        }
    }
}

/// Parses a CASM listing, one instruction or label per line.
pub fn parse(src: &str) -> Result<Listing, CasmParseError> {
    let mut items = Vec::new();
    let mut builtins = Vec::new();
    for (n, raw) in src.lines().enumerate() {
        let code = match raw.find("--") {
            Some(i) => &raw[..i],
            None => raw,
        };
        let mut p = LineParser {
            s: code.as_bytes(),
            at: 0,
            line: n as u32 + 1,
        };
        if p.at_end() {
            continue;
        }
        if items.is_empty() && builtins.is_empty() && p.eat("%builtins") {
            while !p.at_end() {
                let name = p.ident();
                match Builtin::ALL
                    .into_iter()
                    .find(|b| Some(b.name()) == name.as_deref())
                {
                    Some(b) => builtins.push(b),
                    None => return p.err("a builtin name"),
                }
            }
            continue;
        }
        let i = p.instr()?;
        if !p.at_end() {
            return p.err("end of line");
        }
        items.push(i);
    }
    Ok(Listing { builtins, items })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let src = "%builtins range_check\nf:\n  [ap] = [fp - 3] + 1; ap++\n  [ap] = [fp]; ap++\n  call g\n  call rel 3\n  ret\n  nop\n  \
                   [fp - 3] = [ap] * -7\n  [ap] = [fp - 4] - [fp - 3]; ap++\n  [ap] = [fp + 2] / 5; ap++\n  \
                   jmp L$1 if [fp + 2] != 0\n  jmp rel -4; ap++\n  ap += 3\n  %{ [ap] = [fp + 1] < [fp] %}\n  \
                   %{ [ap] = [fp - 3] <= -5 %}\n  %{ [ap] = divmod([fp + 1], 7) %}\n  %{ trace [fp - 3] %}\n  %{ fail 42 %}\n  %{ refuse_cextend([fp - 3], 2) %}\n  jmp rel [ap - 1]\n  [fp + 2] = [[fp - 4] + 3]\n  \
                   [ap] = [[fp]]; ap++\nL$1:\n";
        let l = parse(src).unwrap();
        assert_eq!(l.to_string(), src);
        assert_eq!(parse(&l.to_string()).unwrap(), l);
    }

    #[test]
    fn errors() {
        let e = parse("f:\n  [ap] = 3 + [fp]\n").unwrap_err();
        assert_eq!(e.pos.line, 2);
        assert!(parse("  [ap + 99999] = 1").is_err());
        assert!(parse("  jmp if [ap] != 0").is_err());
        assert!(parse("  call").is_err());
    }
}
