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
//! The initial state mirrors `cairo-vm`: in execution mode the stack holds a
//! return `fp` and the end address and the run stops when `pc` reaches the
//! end of the code; in proof mode it holds `fp` and 0 and the run stops at
//! `__end__`.

use std::collections::HashMap;

use crate::asm::{Mode, Program};
use crate::felt::Felt;
use crate::listing::Hint;

/// A memory segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    /// The code.
    Code,
    /// The execution stack.
    Exec,
    /// The caller's frame of the entry (never dereferenced).
    Outer,
}

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
}

/// The outcome of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// `[ap - 1]` at the end: the entry function's result.
    pub value: Felt,
    /// Instructions executed.
    pub steps: u64,
}

struct Machine<'p> {
    prog: &'p Program,
    mem: Vec<Option<Word>>,
    pc: usize,
    ap: usize,
    fp: usize,
}

type R<T> = Result<T, InterpError>;

impl Machine<'_> {
    fn get(&self, addr: i64) -> Option<Word> {
        if addr < 0 {
            return None;
        }
        self.mem.get(addr as usize).copied().flatten()
    }

    fn read(&self, addr: i64) -> R<Word> {
        self.get(addr)
            .ok_or(InterpError::Unwritten { pc: self.pc, addr })
    }

    fn write(&mut self, addr: i64, w: Word) -> R<()> {
        if let Some(old) = self.get(addr) {
            return if old == w {
                Ok(())
            } else {
                Err(InterpError::AssertFailed(self.pc))
            };
        }
        if addr != self.mem.len() as i64 {
            return Err(InterpError::Gap {
                pc: self.pc,
                addr,
                next: self.mem.len(),
            });
        }
        self.mem.push(Some(w));
        Ok(())
    }

    fn felt(&self, w: Word) -> R<Felt> {
        match w {
            Word::Felt(f) => Ok(f),
            Word::Ptr(..) => Err(InterpError::PointerArith(self.pc)),
        }
    }

    fn run_hints(&mut self) -> R<()> {
        let Some(hs) = self.prog.hints.get(&self.pc) else {
            return Ok(());
        };
        for h in hs.clone() {
            let Hint::IsGt { a, b } = h;
            let a = self.read(self.fp as i64 + a.off as i64)?;
            let b = self.read(self.fp as i64 + b.off as i64)?;
            let (a, b) = (self.felt(a)?, self.felt(b)?);
            let v = if a.canonical_cmp(&b).is_gt() {
                Felt::ONE
            } else {
                Felt::ZERO
            };
            self.write(self.ap as i64, Word::Felt(v))?;
        }
        Ok(())
    }

    fn step(&mut self) -> R<()> {
        self.run_hints()?;
        let bad = InterpError::BadInstruction(self.pc);
        let w = *self.prog.data.get(self.pc).ok_or(bad.clone())?;
        let l = w.limbs();
        if l[1] != 0 || l[2] != 0 || l[3] != 0 || l[0] >> 63 != 0 {
            return Err(bad);
        }
        let w = l[0];
        let off = |k: u32| ((w >> (16 * k)) & 0xffff) as i64 - 0x8000;
        let flags = w >> 48;
        let bit = |b: u32| (flags >> b) & 1 == 1;
        let (off_dst, off_op0, off_op1) = (off(0), off(1), off(2));
        let base = |fp_reg: bool| {
            if fp_reg {
                self.fp as i64
            } else {
                self.ap as i64
            }
        };
        let dst_addr = base(bit(0)) + off_dst;
        let op0_addr = base(bit(1)) + off_op0;
        let op1_src = (flags >> 2) & 7;
        let res_logic = (flags >> 5) & 3;
        let pc_update = (flags >> 7) & 7;
        let ap_update = (flags >> 10) & 3;
        let opcode = (flags >> 12) & 7;
        let size = if op1_src == 1 { 2 } else { 1 };
        let op1_addr: Option<i64> = match op1_src {
            1 => None,
            2 => Some(self.fp as i64 + off_op1),
            4 => Some(self.ap as i64 + off_op1),
            // Double dereference is never emitted by this crate's assembler.
            _ => return Err(bad),
        };
        if res_logic == 3
            || !matches!(pc_update, 0 | 1 | 2 | 4)
            || ap_update == 3
            || !matches!(opcode, 0 | 1 | 2 | 4)
        {
            return Err(bad);
        }
        let imm = if op1_src == 1 {
            Some(*self.prog.data.get(self.pc + 1).ok_or(bad.clone())?)
        } else {
            None
        };
        let next_pc = self.pc + size;

        if opcode == 1 {
            // call: [ap] = fp, [ap + 1] = return pc.
            self.write(dst_addr, Word::Ptr(Segment::Exec, self.fp))?;
            self.write(op0_addr, Word::Ptr(Segment::Code, next_pc))?;
        }
        let mut op0 = self.get(op0_addr);
        let mut op1 = match (imm, op1_addr) {
            (Some(i), _) => Some(Word::Felt(i)),
            (None, Some(a)) => self.get(a),
            (None, None) => None,
        };
        let mut dst = self.get(dst_addr);
        if opcode == 4 {
            // Assert-equal: deduce the one unknown cell.
            let d = |w: Option<Word>| -> R<Option<Felt>> { w.map(|w| self.felt(w)).transpose() };
            match (op0.is_none(), op1.is_none(), dst.is_none()) {
                (false, false, false) => {}
                (true, false, false) if res_logic != 0 => {
                    let (dv, o1) = (d(dst)?.unwrap_or_default(), d(op1)?.unwrap_or_default());
                    let v = if res_logic == 1 {
                        dv - o1
                    } else {
                        dv * o1.inverse().ok_or(InterpError::CannotDeduce(self.pc))?
                    };
                    self.write(op0_addr, Word::Felt(v))?;
                    op0 = Some(Word::Felt(v));
                }
                (false, true, false) => {
                    let a = op1_addr.ok_or(InterpError::CannotDeduce(self.pc))?;
                    let v = match res_logic {
                        0 => dst.unwrap_or(Word::Felt(Felt::ZERO)),
                        1 => Word::Felt(d(dst)?.unwrap_or_default() - d(op0)?.unwrap_or_default()),
                        _ => {
                            let o0 = d(op0)?.unwrap_or_default();
                            let inv = o0.inverse().ok_or(InterpError::CannotDeduce(self.pc))?;
                            Word::Felt(d(dst)?.unwrap_or_default() * inv)
                        }
                    };
                    self.write(a, v)?;
                    op1 = Some(v);
                }
                (op0_missing, false, true) if !op0_missing || res_logic == 0 => {
                    let v = match res_logic {
                        0 => op1.unwrap_or(Word::Felt(Felt::ZERO)),
                        1 => Word::Felt(d(op0)?.unwrap_or_default() + d(op1)?.unwrap_or_default()),
                        _ => Word::Felt(d(op0)?.unwrap_or_default() * d(op1)?.unwrap_or_default()),
                    };
                    self.write(dst_addr, v)?;
                    dst = Some(v);
                }
                _ => return Err(InterpError::CannotDeduce(self.pc)),
            }
        }
        // Everything an instruction names must now be known, including the
        // unused operands at [fp - 1].
        let dst = dst.ok_or(InterpError::Unwritten {
            pc: self.pc,
            addr: dst_addr,
        })?;
        let op0 = op0.ok_or(InterpError::Unwritten {
            pc: self.pc,
            addr: op0_addr,
        })?;
        let op1 = op1.ok_or(InterpError::Unwritten {
            pc: self.pc,
            addr: op1_addr.unwrap_or(-1),
        })?;
        let res = match res_logic {
            0 => op1,
            1 => Word::Felt(self.felt(op0)? + self.felt(op1)?),
            _ => Word::Felt(self.felt(op0)? * self.felt(op1)?),
        };
        if opcode == 4 && res != dst {
            return Err(InterpError::AssertFailed(self.pc));
        }
        let new_pc = match pc_update {
            0 => next_pc,
            1 => match res {
                Word::Ptr(Segment::Code, p) => p,
                _ => return Err(InterpError::PointerArith(self.pc)),
            },
            2 => offset(self.pc, self.felt(res)?).ok_or(InterpError::BadInstruction(self.pc))?,
            _ => {
                if self.felt(dst)?.is_zero() {
                    next_pc
                } else {
                    offset(self.pc, self.felt(op1)?).ok_or(InterpError::BadInstruction(self.pc))?
                }
            }
        };
        let (new_ap, new_fp) = match opcode {
            1 => (self.ap + 2, self.ap + 2),
            2 => match dst {
                Word::Ptr(Segment::Exec, f) => (self.ap, f),
                Word::Ptr(Segment::Outer, _) => (self.ap, 0),
                _ => return Err(InterpError::PointerArith(self.pc)),
            },
            _ => (self.ap, self.fp),
        };
        let new_ap = match ap_update {
            0 => new_ap,
            2 => new_ap + 1,
            _ => {
                let d = self.felt(res)?;
                let l = d.limbs();
                if l[1] != 0 || l[2] != 0 || l[3] != 0 {
                    return Err(InterpError::PointerArith(self.pc));
                }
                usize::try_from(l[0])
                    .ok()
                    .and_then(|d| new_ap.checked_add(d))
                    .ok_or(InterpError::PointerArith(self.pc))?
            }
        };
        self.pc = new_pc;
        self.ap = new_ap;
        self.fp = new_fp;
        Ok(())
    }
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
    let (stack, pc, end) = match (prog.mode, prog.start_end) {
        (Mode::Proof, Some((start, end))) => (
            vec![Word::Ptr(Segment::Exec, 2), Word::Felt(Felt::ZERO)],
            start,
            end,
        ),
        _ => (
            vec![
                Word::Ptr(Segment::Outer, 0),
                Word::Ptr(Segment::Code, prog.data.len()),
            ],
            prog.main_pc,
            prog.data.len(),
        ),
    };
    let mut m = Machine {
        prog,
        mem: stack.into_iter().map(Some).collect(),
        pc,
        ap: 2,
        fp: 2,
    };
    let mut steps = 0u64;
    while m.pc != end {
        if steps >= max_steps {
            return Err(InterpError::OutOfSteps(steps));
        }
        m.step()?;
        steps += 1;
    }
    let v = m.get(m.ap as i64 - 1).ok_or(InterpError::NoResult)?;
    match v {
        Word::Felt(value) => Ok(RunResult { value, steps }),
        Word::Ptr(..) => Err(InterpError::NoResult),
    }
}

/// Labels by pc, for error messages that name a place in the listing.
pub fn label_at(prog: &Program, pc: usize) -> Option<&str> {
    let by_pc: HashMap<usize, &str> = prog.labels.iter().map(|(k, v)| (*v, k.as_str())).collect();
    (0..=pc).rev().find_map(|p| by_pc.get(&p).copied())
}
