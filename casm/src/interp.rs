//! A strict interpreter of assembled Cairo bytecode.
//!
//! It decodes the same words the Cairo VM decodes and follows the state
//! transition of the Cairo whitepaper (§4.5), but checks more than the VM:
//! memory is write-once (a second write must agree, as an assertion), no
//! instruction reads a cell that was never written (except the one cell an
//! assert-equal deduces), and new cells of the execution segment are
//! written strictly in order, with no gaps. These are the memory access
//! rules the translation is built to respect.
//!
//! The initial state mirrors `cairo-vm`: in execution mode the stack holds
//! the builtins' base pointers, a return `fp` and the end address, and the
//! run stops when `pc` reaches the end of the code; in proof mode it holds
//! `fp`, 0 and the base pointers, and the run stops at `__end__`. The
//! `output` segment takes any value, and the result is read from it; the
//! `range_check` segment accepts only values below `2^128`; the `ec_op` and
//! `poseidon` segments deduce an instance's outputs from its inputs when
//! they are read, as the VM's builtin runners do. Builtin cells are written
//! in order too, and each final pointer must be the number of cells used,
//! as the runner checks.

use std::collections::HashMap;

use crate::asm::{Mode, Program, ResultShape};
use crate::felt::Felt;
use crate::heap::{self, Cell, Kind};
use crate::listing::{Builtin, Hint, Val};

/// A memory segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    /// The code.
    Code,
    /// The execution stack.
    Exec,
    /// The caller's frame of the entry (never dereferenced).
    Outer,
    /// A builtin's cells.
    Builtin(Builtin),
}

/// An address: a segment and an offset in it.
type Addr = (Segment, i64);

/// A memory value: a field element or an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// A field element.
    Felt(Felt),
    /// An address in a segment.
    Ptr(Segment, usize),
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// `pc` left the code, or a word is not an instruction.
    #[error("pc {0}: invalid instruction")]
    BadInstruction(usize),
    /// A read of a cell never written.
    #[error("pc {pc}: read of unwritten cell {addr}")]
    Unwritten {
        /// Instruction.
        pc: usize,
        /// Cell of the execution segment.
        addr: i64,
    },
    /// A write that skips cells.
    #[error("pc {pc}: write to cell {addr} leaves a gap (next free cell is {next})")]
    Gap {
        /// Instruction.
        pc: usize,
        /// Cell written.
        addr: i64,
        /// First unwritten cell.
        next: usize,
    },
    /// An assertion between two different values.
    #[error("pc {0}: assertion failed")]
    AssertFailed(usize),
    /// Arithmetic on addresses, or an address where a number is needed.
    #[error("pc {0}: address used as a number")]
    PointerArith(usize),
    /// A deduction with a zero divisor, or of too many unknowns.
    #[error("pc {0}: cannot deduce operands")]
    CannotDeduce(usize),
    /// The step budget ran out.
    #[error("out of steps after {0}")]
    OutOfSteps(u64),
    /// No return value at the end.
    #[error("no return value")]
    NoResult,
    /// A `range_check` cell written with a value of `2^128` or more.
    #[error("pc {0}: range check failed")]
    RangeCheck(usize),
    /// `fail` ran, with this message.
    #[error("fail: {0}")]
    Fail(String),
    /// A result or a traced value that does not print.
    #[error("cannot print the result: {0}")]
    Print(String),
    /// A builtin's final pointer is not one past its last cell.
    #[error("{name}: final pointer does not match the {used} cells used", name = .0.name(), used = .1)]
    BuiltinStop(Builtin, usize),
    /// A builtin instance's inputs have no output (`ec_op` off the curve).
    #[error("pc {0}: the builtin cannot deduce its output")]
    BuiltinDeduction(usize),
    /// A field read of a constructor from another value.
    #[error("pc {0}: {1}")]
    WrongConstructor(usize, heap::WrongConstructorError),
    /// A call of a closure with other than the arguments it still takes,
    /// or `cextend` of it by more.
    #[error("pc {0}: {1}")]
    ClosureArity(usize, heap::ClosureArityError),
    /// `atoi` of a text that spells no integer.
    #[error("string to integer: not an integer")]
    NotAnInteger,
}

/// The outcome of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// The entry function's result cell read as a number: the number
    /// itself, or for a heap value its address's offset in the execution
    /// segment.
    pub value: Felt,
    /// Instructions executed.
    pub steps: u64,
    /// What the run prints: a line per `trace` executed, then the result
    /// as read from the `output` builtin (a record field by field; see
    /// [`crate::heap::value_lines`]).
    pub output: Vec<String>,
    /// What the run prints as Juvix's Reg interpreter prints terms: a
    /// line per `trace` (by the kind the program gives the value), then the
    /// result (nothing for `void`); see [`crate::heap::value_term`]. Empty
    /// when [`Program::term_refusal`] says the kinds do not name the
    /// values.
    pub terms: Vec<String>,
    /// The cells of the `output` builtin, the run's public output: the
    /// result, or a record's fields (an address as its offset in the
    /// execution segment).
    pub public_output: Vec<Cell<usize>>,
    /// Cells of the execution segment written (stack and heap).
    pub cells: usize,
}

struct Machine<'p> {
    prog: &'p Program,
    mem: Vec<Option<Word>>,
    /// Cells of each builtin segment, by `Builtin::ALL` index.
    builtin_mem: [Vec<Word>; 4],
    traces: Vec<(Word, Kind, usize)>,
    fail: Option<Word>,
    /// The error a hint recorded for the failing assertion after it.
    trap: Option<InterpError>,
    pc: usize,
    ap: usize,
    fp: usize,
}

type R<T> = Result<T, InterpError>;

fn slot(b: Builtin) -> usize {
    Builtin::ALL.iter().position(|x| *x == b).unwrap_or(0)
}

/// `2^128`, the bound of `range_check` cells.
fn below_2_128(f: Felt) -> bool {
    let l = f.limbs();
    l[2] == 0 && l[3] == 0
}

/// A small non-negative or negative integer, for pointer offsets.
fn small(f: Felt) -> Option<i64> {
    let (m, neg) = if f.is_negative() {
        ((-f).limbs(), true)
    } else {
        (f.limbs(), false)
    };
    if m[1] != 0 || m[2] != 0 || m[3] != 0 || m[0] > i64::MAX as u64 {
        return None;
    }
    Some(if neg { -(m[0] as i64) } else { m[0] as i64 })
}

impl Machine<'_> {
    fn get(&self, (seg, addr): Addr) -> Option<Word> {
        if addr < 0 {
            return None;
        }
        match seg {
            Segment::Exec => self.mem.get(addr as usize).copied().flatten(),
            Segment::Builtin(b) => self.builtin_mem[slot(b)].get(addr as usize).copied(),
            Segment::Code | Segment::Outer => None,
        }
    }

    fn read(&self, addr: Addr) -> R<Word> {
        self.get(addr).ok_or(InterpError::Unwritten {
            pc: self.pc,
            addr: addr.1,
        })
    }

    fn write(&mut self, addr: Addr, w: Word) -> R<()> {
        if let Some(old) = self.get(addr) {
            return if old == w {
                Ok(())
            } else {
                Err(InterpError::AssertFailed(self.pc))
            };
        }
        let len = match addr.0 {
            Segment::Exec => self.mem.len(),
            Segment::Builtin(b) => self.builtin_mem[slot(b)].len(),
            Segment::Code | Segment::Outer => return Err(InterpError::PointerArith(self.pc)),
        };
        if addr.1 != len as i64 {
            return Err(InterpError::Gap {
                pc: self.pc,
                addr: addr.1,
                next: len,
            });
        }
        match addr.0 {
            // The output takes any value: a number or an address.
            Segment::Builtin(Builtin::Output) => self.builtin_mem[slot(Builtin::Output)].push(w),
            Segment::Builtin(Builtin::RangeCheck) => match w {
                Word::Felt(f) if below_2_128(f) => {
                    self.builtin_mem[slot(Builtin::RangeCheck)].push(w)
                }
                _ => return Err(InterpError::RangeCheck(self.pc)),
            },
            Segment::Builtin(b) => match w {
                Word::Felt(_) => self.builtin_mem[slot(b)].push(w),
                _ => return Err(InterpError::PointerArith(self.pc)),
            },
            _ => self.mem.push(Some(w)),
        }
        Ok(())
    }

    /// Before a read of `addr`: an output cell of an `ec_op` or `poseidon`
    /// instance whose inputs are all written gets its value (and so do the
    /// instance's other outputs).
    fn deduce(&mut self, (seg, addr): Addr) -> R<()> {
        let Segment::Builtin(b) = seg else {
            return Ok(());
        };
        let (cells, inputs) = match b {
            Builtin::Output | Builtin::RangeCheck => return Ok(()),
            Builtin::EcOp => (7, 5),
            Builtin::Poseidon => (6, 3),
        };
        let mem = &self.builtin_mem[slot(b)];
        let Ok(addr) = usize::try_from(addr) else {
            return Ok(());
        };
        let base = addr - addr % cells;
        if addr % cells < inputs || mem.len() != base + inputs {
            return Ok(());
        }
        let x: Vec<Felt> = mem[base..base + inputs]
            .iter()
            .map(|w| self.felt(*w))
            .collect::<R<_>>()?;
        let out: Vec<Felt> = match b {
            Builtin::Poseidon => crate::builtins::poseidon([x[0], x[1], x[2]]).to_vec(),
            _ => {
                let r = crate::builtins::ec_op((x[0], x[1]), x[4], (x[2], x[3]))
                    .ok_or(InterpError::BuiltinDeduction(self.pc))?;
                vec![r.0, r.1]
            }
        };
        self.builtin_mem[slot(b)].extend(out.into_iter().map(Word::Felt));
        Ok(())
    }

    fn felt(&self, w: Word) -> R<Felt> {
        match w {
            Word::Felt(f) => Ok(f),
            Word::Ptr(..) => Err(InterpError::PointerArith(self.pc)),
        }
    }

    /// `a + b`: field addition, or an address moved by a number.
    fn add(&self, a: Word, b: Word) -> R<Word> {
        let moved = |s, o: usize, by: Felt| {
            small(by)
                .and_then(|d| (o as i64).checked_add(d))
                .filter(|x| *x >= 0)
                .map(|x| Word::Ptr(s, x as usize))
                .ok_or(InterpError::PointerArith(self.pc))
        };
        match (a, b) {
            (Word::Felt(x), Word::Felt(y)) => Ok(Word::Felt(x + y)),
            (Word::Ptr(s, o), Word::Felt(y)) | (Word::Felt(y), Word::Ptr(s, o)) => moved(s, o, y),
            _ => Err(InterpError::PointerArith(self.pc)),
        }
    }

    /// `a - b`: field subtraction, an address moved back, or the distance
    /// between two addresses of one segment.
    fn sub(&self, a: Word, b: Word) -> R<Word> {
        match (a, b) {
            (Word::Ptr(s, x), Word::Ptr(t, y)) if s == t => {
                Ok(Word::Felt(Felt::from_i128(x as i128 - y as i128)))
            }
            (_, Word::Felt(y)) => self.add(a, Word::Felt(-y)),
            _ => Err(InterpError::PointerArith(self.pc)),
        }
    }

    fn mul(&self, a: Word, b: Word) -> R<Word> {
        Ok(Word::Felt(self.felt(a)? * self.felt(b)?))
    }

    fn word(&self, v: Val) -> R<Word> {
        match v {
            Val::Imm(c) => Ok(Word::Felt(c)),
            Val::Mem(m) => self.read((Segment::Exec, self.fp as i64 + m.off as i64)),
        }
    }

    fn operand(&self, v: Val) -> R<Felt> {
        let w = self.word(v)?;
        self.felt(w)
    }

    /// The text of a value as a term of kind `kind`.
    fn term(&self, w: Word, kind: Kind) -> R<String> {
        let load =
            |p: &(Segment, usize), k: usize| self.get((p.0, (p.1 + k) as i64)).map(word_cell);
        heap::value_term(&word_cell(w), kind, &load, &self.prog.names).map_err(InterpError::Print)
    }

    /// What the `write`s of an IO action printed, and its result, from the
    /// `output` segment.
    fn io_output(&self, public: &[Word]) -> R<(Vec<String>, Word, Kind)> {
        let cell = |w: Word| match w {
            Word::Felt(f) => Cell::Num(f),
            Word::Ptr(s, o) => Cell::Ptr((s, o)),
        };
        let load = |p: &(Segment, usize), k: usize| self.get((p.0, (p.1 + k) as i64)).map(cell);
        let cells: Vec<_> = public.iter().map(|w| cell(*w)).collect();
        let (text, value, kind) =
            heap::io_output(&cells, &load, &self.prog.names).map_err(InterpError::Print)?;
        let value = match value {
            Cell::Num(f) => Word::Felt(f),
            Cell::Ptr((s, o)) => Word::Ptr(s, o),
        };
        Ok((text, value, kind))
    }

    /// The lines a value prints as.
    fn lines(&self, w: Word) -> R<Vec<String>> {
        let cell = |w: Word| match w {
            Word::Felt(f) => Cell::Num(f),
            Word::Ptr(s, o) => Cell::Ptr((s, o)),
        };
        let load = |p: &(Segment, usize), k: usize| self.get((p.0, (p.1 + k) as i64)).map(cell);
        heap::value_lines(&cell(w), &load, &self.prog.names).map_err(InterpError::Print)
    }

    fn run_hints(&mut self) -> R<()> {
        let Some(hs) = self.prog.hints.get(&self.pc) else {
            return Ok(());
        };
        for h in hs.clone() {
            match h {
                Hint::Trace { v, kind } => {
                    let w = self.word(v)?;
                    let written = self.builtin_mem[slot(Builtin::Output)].len();
                    self.traces.push((w, kind, written));
                }
                Hint::Fail { v } => self.fail = Some(self.word(v)?),
                Hint::ExtendRefused { closure, given } => {
                    let Word::Ptr(seg, at) = self.word(closure)? else {
                        return Err(InterpError::PointerArith(self.pc));
                    };
                    let header = self.read((seg, at as i64))?;
                    let left = self.read((seg, at as i64 + heap::CLOSURE_LEFT as i64))?;
                    let err = heap::ClosureArityError::new(
                        self.felt(header)?,
                        self.felt(left)?,
                        self.operand(given)?,
                        &self.prog.names,
                    );
                    self.trap = Some(InterpError::ClosureArity(self.pc, err));
                }
                Hint::NotAnInteger => self.trap = Some(InterpError::NotAnInteger),
                Hint::Compare { a, b, .. } | Hint::DivMod { a, b } => {
                    let (a, b) = (self.operand(a)?, self.operand(b)?);
                    for (k, v) in h.answer(a, b).into_iter().enumerate() {
                        self.write((Segment::Exec, (self.ap + k) as i64), Word::Felt(v))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Decodes the instruction at `pc` (the Cairo whitepaper's §4.4
    /// encoding), refusing flag combinations the VM refuses.
    fn decode(&self) -> R<Decoded> {
        let bad = InterpError::BadInstruction(self.pc);
        let word = *self.prog.data.get(self.pc).ok_or(bad.clone())?;
        let l = word.limbs();
        if l[1] != 0 || l[2] != 0 || l[3] != 0 || l[0] >> 63 != 0 {
            return Err(bad);
        }
        let w = l[0];
        let off = |k: u32| ((w >> (16 * k)) & 0xffff) as i64 - 0x8000;
        let flags = w >> 48;
        let d = Decoded {
            word,
            off_dst: off(0),
            off_op0: off(1),
            off_op1: off(2),
            dst_fp: flags & 1 == 1,
            op0_fp: (flags >> 1) & 1 == 1,
            op1_src: (flags >> 2) & 7,
            res_logic: (flags >> 5) & 3,
            pc_update: (flags >> 7) & 7,
            ap_update: (flags >> 10) & 3,
            opcode: (flags >> 12) & 7,
            imm: None,
        };
        if !matches!(d.op1_src, 0 | 1 | 2 | 4)
            || d.res_logic == 3
            || !matches!(d.pc_update, 0 | 1 | 2 | 4)
            || d.ap_update == 3
            || !matches!(d.opcode, 0 | 1 | 2 | 4)
        {
            return Err(bad);
        }
        let imm = if d.op1_src == 1 {
            Some(*self.prog.data.get(self.pc + 1).ok_or(bad)?)
        } else {
            None
        };
        Ok(Decoded { imm, ..d })
    }

    fn step(&mut self) -> R<()> {
        self.run_hints()?;
        let d = self.decode()?;
        let base = |fp_reg: bool| {
            if fp_reg {
                self.fp as i64
            } else {
                self.ap as i64
            }
        };
        let dst_addr: Addr = (Segment::Exec, base(d.dst_fp) + d.off_dst);
        let op0_addr: Addr = (Segment::Exec, base(d.op0_fp) + d.off_op0);
        let next_pc = self.pc + if d.imm.is_some() { 2 } else { 1 };
        if d.opcode == 1 {
            // call: [ap] = fp, [ap + 1] = return pc.
            self.write(dst_addr, Word::Ptr(Segment::Exec, self.fp))?;
            self.write(op0_addr, Word::Ptr(Segment::Code, next_pc))?;
        }
        let op0 = self.get(op0_addr);
        let op1_addr: Option<Addr> = match d.op1_src {
            1 => None,
            2 => Some((Segment::Exec, self.fp as i64 + d.off_op1)),
            4 => Some((Segment::Exec, self.ap as i64 + d.off_op1)),
            // op1 = [op0 + off]: op0 must hold an address.
            _ => match op0 {
                Some(Word::Ptr(seg, o)) => Some((seg, o as i64 + d.off_op1)),
                Some(Word::Felt(_)) => return Err(InterpError::PointerArith(self.pc)),
                None => {
                    return Err(InterpError::Unwritten {
                        pc: self.pc,
                        addr: op0_addr.1,
                    })
                }
            },
        };
        if let Some(a) = op1_addr {
            self.deduce(a)?;
        }
        let op1 = match (d.imm, op1_addr) {
            (Some(i), _) => Some(Word::Felt(i)),
            (None, Some(a)) => self.get(a),
            (None, None) => None,
        };
        let mut operands = Operands {
            dst: self.get(dst_addr),
            op0,
            op1,
            dst_addr,
            op0_addr,
            op1_addr,
        };
        if d.opcode == 4 {
            self.assert_equal(&d, &mut operands)?;
        }
        // Everything an instruction names must now be known, including the
        // unused operands at [fp - 1].
        let unwritten = |addr: i64| InterpError::Unwritten { pc: self.pc, addr };
        let dst = operands.dst.ok_or(unwritten(dst_addr.1))?;
        let op0 = operands.op0.ok_or(unwritten(op0_addr.1))?;
        let op1 = operands
            .op1
            .ok_or(unwritten(op1_addr.map_or(-1, |a| a.1)))?;
        let res = match d.res_logic {
            0 => op1,
            1 => self.add(op0, op1)?,
            _ => self.mul(op0, op1)?,
        };
        if d.opcode == 4 && res != dst {
            return Err(self.assertion_failure(d.word, dst, res));
        }
        self.update_registers(&d, next_pc, Resolved { dst, op1, res })
    }

    /// An assert-equal with one unknown cell: deduces it (the Cairo
    /// whitepaper's §4.5 deduction rules).
    fn assert_equal(&mut self, d: &Decoded, o: &mut Operands) -> R<()> {
        let inverse = |this: &Self, w: Word| {
            this.felt(w)?
                .inverse()
                .ok_or(InterpError::CannotDeduce(this.pc))
        };
        match (o.op0, o.op1, o.dst) {
            (Some(_), Some(_), Some(_)) => {}
            (None, Some(o1), Some(dst)) if d.res_logic != 0 && d.op1_src != 0 => {
                let v = if d.res_logic == 1 {
                    self.sub(dst, o1)?
                } else {
                    Word::Felt(self.felt(dst)? * inverse(self, o1)?)
                };
                self.write(o.op0_addr, v)?;
                o.op0 = Some(v);
            }
            (Some(o0), None, Some(dst)) => {
                let a = o.op1_addr.ok_or(InterpError::CannotDeduce(self.pc))?;
                let v = match d.res_logic {
                    0 => dst,
                    1 => self.sub(dst, o0)?,
                    _ => Word::Felt(self.felt(dst)? * inverse(self, o0)?),
                };
                self.write(a, v)?;
                o.op1 = Some(v);
            }
            (None, Some(o1), None) if d.res_logic == 0 && d.op1_src != 0 => {
                self.write(o.dst_addr, o1)?;
                o.dst = Some(o1);
            }
            (Some(o0), Some(o1), None) => {
                let v = match d.res_logic {
                    0 => o1,
                    1 => self.add(o0, o1)?,
                    _ => self.mul(o0, o1)?,
                };
                self.write(o.dst_addr, v)?;
                o.dst = Some(v);
            }
            _ => return Err(InterpError::CannotDeduce(self.pc)),
        }
        Ok(())
    }

    /// The error of a failed assertion: a typed trap where the code says
    /// which check it is, else [`InterpError::AssertFailed`].
    fn assertion_failure(&self, word: Felt, dst: Word, res: Word) -> InterpError {
        if let (true, Word::Felt(expected), Word::Felt(found)) =
            (crate::asm::is_header_check(word), dst, res)
        {
            let err = heap::WrongConstructorError::new(expected, found, &self.prog.names);
            return InterpError::WrongConstructor(self.pc, err);
        }
        if let (Some(label), Word::Felt(given), Word::Felt(left)) =
            (label_at(self.prog, self.pc), dst, res)
        {
            let names = &self.prog.names;
            if let Some(err) = heap::apply_arity_failure(label, given, left, names) {
                return InterpError::ClosureArity(self.pc, err);
            }
        }
        InterpError::AssertFailed(self.pc)
    }

    /// `pc`, `ap` and `fp` after the instruction.
    fn update_registers(&mut self, d: &Decoded, next_pc: usize, v: Resolved) -> R<()> {
        let new_pc = match d.pc_update {
            0 => next_pc,
            1 => match v.res {
                Word::Ptr(Segment::Code, p) => p,
                _ => return Err(InterpError::PointerArith(self.pc)),
            },
            2 => offset(self.pc, self.felt(v.res)?).ok_or(InterpError::BadInstruction(self.pc))?,
            _ => {
                if self.felt(v.dst)?.is_zero() {
                    next_pc
                } else {
                    offset(self.pc, self.felt(v.op1)?)
                        .ok_or(InterpError::BadInstruction(self.pc))?
                }
            }
        };
        let (new_ap, new_fp) = match d.opcode {
            1 => (self.ap + 2, self.ap + 2),
            2 => match v.dst {
                Word::Ptr(Segment::Exec, f) => (self.ap, f),
                Word::Ptr(Segment::Outer, _) => (self.ap, 0),
                _ => return Err(InterpError::PointerArith(self.pc)),
            },
            _ => (self.ap, self.fp),
        };
        let new_ap = match d.ap_update {
            0 => new_ap,
            2 => new_ap + 1,
            _ => {
                let by = self.felt(v.res)?;
                let l = by.limbs();
                if l[1] != 0 || l[2] != 0 || l[3] != 0 {
                    return Err(InterpError::PointerArith(self.pc));
                }
                usize::try_from(l[0])
                    .ok()
                    .and_then(|by| new_ap.checked_add(by))
                    .ok_or(InterpError::PointerArith(self.pc))?
            }
        };
        self.pc = new_pc;
        self.ap = new_ap;
        self.fp = new_fp;
        Ok(())
    }
}

/// A decoded instruction word.
struct Decoded {
    word: Felt,
    off_dst: i64,
    off_op0: i64,
    off_op1: i64,
    dst_fp: bool,
    op0_fp: bool,
    op1_src: u64,
    res_logic: u64,
    pc_update: u64,
    ap_update: u64,
    opcode: u64,
    /// The immediate after the word, when `op1_src` is 1.
    imm: Option<Felt>,
}

/// The operands of an instruction, known or not yet, and their addresses.
struct Operands {
    dst: Option<Word>,
    op0: Option<Word>,
    op1: Option<Word>,
    dst_addr: Addr,
    op0_addr: Addr,
    op1_addr: Option<Addr>,
}

/// The values the register update reads.
struct Resolved {
    dst: Word,
    op1: Word,
    res: Word,
}

fn offset(pc: usize, by: Felt) -> Option<usize> {
    let signed = if by.is_negative() {
        let m = (-by).limbs();
        if m[1] != 0 || m[2] != 0 || m[3] != 0 {
            return None;
        }
        -(m[0] as i128)
    } else {
        let m = by.limbs();
        if m[1] != 0 || m[2] != 0 || m[3] != 0 {
            return None;
        }
        m[0] as i128
    };
    usize::try_from(pc as i128 + signed).ok()
}

/// Runs `prog` for at most `max_steps` instructions.
pub fn run(prog: &Program, max_steps: u64) -> Result<RunResult, InterpError> {
    let bases: Vec<Word> = prog
        .builtins
        .iter()
        .map(|b| Word::Ptr(Segment::Builtin(*b), 0))
        .collect();
    let (stack, start, end) = match (prog.mode, prog.start_end) {
        (Mode::Proof, Some((start, end))) => {
            let mut s = vec![Word::Ptr(Segment::Exec, 2), Word::Felt(Felt::ZERO)];
            s.extend(bases);
            (s, 2, (start, end))
        }
        _ => {
            let mut s = bases;
            s.push(Word::Ptr(Segment::Outer, 0));
            s.push(Word::Ptr(Segment::Code, prog.data.len()));
            let n = s.len();
            (s, n, (prog.main_pc, prog.data.len()))
        }
    };
    let (pc, end) = end;
    let mut m = Machine {
        prog,
        mem: stack.into_iter().map(Some).collect(),
        builtin_mem: Default::default(),
        traces: Vec::new(),
        fail: None,
        trap: None,
        pc,
        ap: start,
        fp: start,
    };
    let mut steps = 0u64;
    while m.pc != end {
        if steps >= max_steps {
            return Err(InterpError::OutOfSteps(steps));
        }
        if let Err(e) = m.step() {
            return Err(match (m.fail, m.trap.take()) {
                (Some(msg), _) => InterpError::Fail(m.lines(msg)?.join(" ")),
                (None, Some(trap)) => trap,
                (None, None) => e,
            });
        }
        steps += 1;
    }
    // The builtins' final pointers are on top, as the runner reads them.
    for (k, b) in prog.builtins.iter().rev().enumerate() {
        let used = m.builtin_mem[slot(*b)].len();
        match m.get((Segment::Exec, m.ap as i64 - 1 - k as i64)) {
            Some(Word::Ptr(Segment::Builtin(s), stop)) if s == *b && stop == used => {}
            _ => return Err(InterpError::BuiltinStop(*b, used)),
        }
    }
    let at = m.ap as i64 - prog.result_depth() as i64;
    let v = m.get((Segment::Exec, at)).ok_or(InterpError::NoResult)?;
    let number = |w: Word| match w {
        Word::Felt(f) => Ok(f),
        Word::Ptr(Segment::Exec, o) => Ok(Felt::from_u128(o as u128)),
        Word::Ptr(..) => Err(InterpError::NoResult),
    };
    let value = number(v)?;
    let mut felt_traces = Vec::with_capacity(m.traces.len());
    let mut traces = Vec::with_capacity(m.traces.len());
    for (t, kind, written) in &m.traces {
        let lines: String = m.lines(*t)?.iter().map(|l| format!("{l}\n")).collect();
        felt_traces.push((lines, *written));
        traces.push((format!("{}\n", m.term(*t, *kind)?), *written));
    }
    let mut output: Vec<String>;
    let public = &m.builtin_mem[slot(Builtin::Output)];
    let mut text;
    if prog.result == ResultShape::Io {
        let (writes, value, kind) = m.io_output(public)?;
        text = heap::interleave(&traces, &writes);
        let mut felt = heap::interleave(&felt_traces, &writes);
        m.lines(value)?
            .iter()
            .for_each(|l| felt.push_str(&format!("{l}\n")));
        output = lines_of(&felt);
        if !heap::prints_nothing(&word_cell(value), kind) {
            text.push_str(&m.term(value, kind)?);
            text.push('\n');
        }
    } else {
        text = heap::interleave(&traces, &[]);
        output = lines_of(&heap::interleave(&felt_traces, &[]));
        if !heap::prints_nothing(&word_cell(v), prog.result_kind) {
            text.push_str(&m.term(v, prog.result_kind)?);
            text.push('\n');
        }
        for w in public {
            output.extend(m.lines(*w)?);
        }
    }
    let public_output = public
        .iter()
        .map(|w| match *w {
            Word::Felt(f) => Ok(Cell::Num(f)),
            Word::Ptr(Segment::Exec, o) => Ok(Cell::Ptr(o)),
            Word::Ptr(..) => Err(InterpError::NoResult),
        })
        .collect::<R<_>>()?;
    Ok(RunResult {
        value,
        steps,
        output,
        terms: match prog.term_refusal {
            Some(_) => Vec::new(),
            None => lines_of(&text),
        },
        public_output,
        cells: m.mem.len(),
    })
}

/// A word as the printers see it.
fn word_cell(w: Word) -> Cell<(Segment, usize)> {
    match w {
        Word::Felt(f) => Cell::Num(f),
        Word::Ptr(s, o) => Cell::Ptr((s, o)),
    }
}

fn lines_of(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// Labels by pc, for error messages that name a place in the listing.
pub fn label_at(prog: &Program, pc: usize) -> Option<&str> {
    let by_pc: HashMap<usize, &str> = prog.labels.iter().map(|(k, v)| (*v, k.as_str())).collect();
    (0..=pc).rev().find_map(|p| by_pc.get(&p).copied())
}
