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
//!   %{ [ap] = [fp + 1] > [fp] %}   -- hint: write the comparison into [ap]
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
}

impl fmt::Display for Rhs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rhs::Val(v) => v.fmt(f),
            Rhs::Op(op, a, b) => write!(f, "{a} {} {b}", op.symbol()),
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
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Label(l) => f.write_str(l),
            Target::Rel(r) => write!(f, "rel {r}"),
        }
    }
}

/// A hint: host code the VM runs before the instruction that follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    /// `memory[ap] = 1 if a > b else 0`, comparing canonical
    /// representatives: cairo-lang's `is_le_felt` hint with `ids.a` and
    /// `ids.b` bound to the two cells (which must be `fp`-based).
    IsGt {
        /// Left cell.
        a: MemRef,
        /// Right cell.
        b: MemRef,
    },
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hint::IsGt { a, b } => write!(f, "%{{ [ap] = {a} > {b} %}}"),
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
    /// Items in order.
    pub items: Vec<Instr>,
}

impl fmt::Display for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
        let off = if self.eat("+") {
            self.small()?
        } else if self.eat("-") {
            -self.small()?
        } else {
            0
        };
        let Ok(off) = i16::try_from(off) else {
            return self.err("an offset in [-32768, 32767]");
        };
        self.expect("]")?;
        Ok(MemRef { reg, off })
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
            Some(w) if w == "rel" => Ok(Target::Rel(self.small()?)),
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

    fn instr(&mut self) -> LResult<Instr> {
        self.ws();
        if self.eat("%{") {
            self.expect("[ap]")?;
            self.expect("=")?;
            let a = self.mem()?;
            self.expect(">")?;
            let b = self.mem()?;
            self.expect("%}")?;
            return Ok(Instr::Hint(Hint::IsGt { a, b }));
        }
        if self.s.get(self.at) == Some(&b'[') {
            let dst = self.mem()?;
            self.expect("=")?;
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
        let i = p.instr()?;
        if !p.at_end() {
            return p.err("end of line");
        }
        items.push(i);
    }
    Ok(Listing { items })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let src = "f:\n  [ap] = [fp - 3] + 1; ap++\n  [ap] = [fp]; ap++\n  call g\n  call rel 3\n  ret\n  nop\n  \
                   [fp - 3] = [ap] * -7\n  [ap] = [fp - 4] - [fp - 3]; ap++\n  [ap] = [fp + 2] / 5; ap++\n  \
                   jmp L$1 if [fp + 2] != 0\n  jmp rel -4; ap++\n  ap += 3\n  %{ [ap] = [fp + 1] > [fp] %}\nL$1:\n";
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
