//! The assembler: CASM listing to Cairo bytecode and to the program JSON
//! that `cairo-vm` loads.
//!
//! An instruction is one 63-bit word (the Cairo whitepaper, Goldberg,
//! Papini and Riabzev 2021, §4.4): three 16-bit offsets biased by `2^15`
//! (`dst`, `op0`, `op1`) in bits 0..48, then fifteen flag bits: the `dst`
//! and `op0` registers, the `op1` source (immediate, `fp`, `ap`), the result
//! logic (`op1`, add, mul), the `pc` update (absolute, relative, jnz), the
//! `ap` update (`+= res`, `++`) and the opcode (call, ret, assert-equal).
//! An immediate follows its instruction in the next word. Labels resolve
//! to offsets relative to the instruction. Subtraction and division are
//! assert-equal with the unknown in the operand: `[ap] = a - b` is
//! `a = [ap] + b`, and the VM deduces `[ap]`. Operands an instruction does
//! not use point at `[fp - 1]`, which every frame has written (the return
//! address).

use std::collections::{BTreeMap, HashMap};

use crate::felt::Felt;
use crate::heap::field_offset;
use crate::listing::{ArithOp, Builtin, Hint, Instr, Listing, MemRef, Reg, Rhs, Target, Val};

/// How the program is entered and left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `__main__.main` is a function that calls the entry and returns.
    Execution,
    /// `__start__` calls the entry and falls into `__end__: jmp rel 0`, the
    /// shape the prover's padding expects.
    Proof,
}

/// An assembly failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AsmError {
    /// A jump or call to a label that is not defined.
    #[error("undefined label {0}")]
    UndefinedLabel(String),
    /// A label defined twice.
    #[error("label {0} is defined twice")]
    DuplicateLabel(String),
    /// A hint that reads an `ap`-based cell (only `fp`-based references
    /// are emitted, which need no ap tracking).
    #[error("hint operand {0} must be fp-based")]
    HintNotFp(MemRef),
    /// A relative offset that does not fit.
    #[error("jump offset out of range at pc {0}")]
    OffsetRange(usize),
    /// A result record with more fields than `ap`-based offsets reach.
    #[error("a result record of {0} fields is too large to output")]
    ResultTooLarge(usize),
}

/// Flag bits, shifted into place above the three offsets.
mod flag {
    pub const DST_FP: u64 = 1;
    pub const OP0_FP: u64 = 1 << 1;
    pub const OP1_IMM: u64 = 1 << 2;
    pub const OP1_FP: u64 = 1 << 3;
    pub const OP1_AP: u64 = 1 << 4;
    pub const RES_ADD: u64 = 1 << 5;
    pub const RES_MUL: u64 = 1 << 6;
    pub const PC_ABS: u64 = 1 << 7;
    pub const PC_REL: u64 = 1 << 8;
    pub const PC_JNZ: u64 = 1 << 9;
    pub const AP_ADD: u64 = 1 << 10;
    pub const AP_ADD1: u64 = 1 << 11;
    pub const OP_CALL: u64 = 1 << 12;
    pub const OP_RET: u64 = 1 << 13;
    pub const OP_ASSERT: u64 = 1 << 14;
}

/// An assembled program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The code segment: instruction words and immediates.
    pub data: Vec<Felt>,
    /// Hints by the pc of the instruction they precede.
    pub hints: BTreeMap<usize, Vec<Hint>>,
    /// Every label's pc.
    pub labels: HashMap<String, usize>,
    /// The pc of `__main__.main`.
    pub main_pc: usize,
    /// Execution or proof mode.
    pub mode: Mode,
    /// In proof mode, the pcs of `__start__` and `__end__`.
    pub start_end: Option<(usize, usize)>,
    /// Builtins the entry takes and returns, in Cairo's order.
    pub builtins: Vec<Builtin>,
    /// Names of constructors and closure functions, to print heap values.
    pub names: crate::heap::HeapNames,
    /// What the entry returns, for printing it as a term.
    pub result_kind: crate::heap::Kind,
    /// Why the run's values cannot be printed as the reference
    /// interpreter prints terms, if they cannot (the runners then give no
    /// terms): a printed value may be a boolean, `unit` or `void` that its
    /// kind does not name.
    pub term_refusal: Option<crate::jvr::JvrError>,
    /// What the entry sequence writes to the `output` builtin.
    pub result: ResultShape,
}

/// What the entry sequence writes to the `output` builtin, after the entry
/// returns: as Juvix's Cairo backend does, the fields of a record (the
/// entry's declared result type has one constructor), else the value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResultShape {
    /// The result cell itself: a number, or the address of an object.
    #[default]
    Value,
    /// The fields of a record of this many fields (one level: a record in
    /// a field is written as its address).
    Record(usize),
    /// The result is an IO action, which the entry sequence runs with
    /// `__kildall_run_io`: each `write` puts its value and the value's kind
    /// code into the next two cells, then the sequence writes the action's
    /// result and its kind code.
    Io,
}

impl ResultShape {
    /// Cells of the `output` builtin the result takes.
    pub fn output_cells(self) -> usize {
        match self {
            ResultShape::Value => 1,
            ResultShape::Record(n) => n,
            ResultShape::Io => 2,
        }
    }

    /// Cells the entry sequence pushes to gather them (a record's fields;
    /// a value is already on the stack).
    fn pushed(self) -> usize {
        match self {
            ResultShape::Value | ResultShape::Io => 0,
            ResultShape::Record(n) => n,
        }
    }
}

impl Program {
    /// How far below `ap` the entry's result is at the end of a run: above
    /// it are the record fields gathered for the output, then the
    /// builtins' final pointers, as the runner reads them.
    pub fn result_depth(&self) -> usize {
        // After an IO action, its result's kind code is above it.
        let code = usize::from(self.result == ResultShape::Io);
        1 + code + self.result.pushed() + self.builtins.len()
    }
}

fn size(i: &Instr) -> usize {
    match i {
        Instr::Label(_) | Instr::Nop | Instr::Hint(_) => 0,
        Instr::Assign { rhs, .. } => match rhs {
            Rhs::Val(Val::Imm(_)) | Rhs::Op(_, _, Val::Imm(_)) => 2,
            Rhs::Val(Val::Mem(_)) | Rhs::Op(_, _, Val::Mem(_)) | Rhs::Deref(..) => 1,
        },
        Instr::Jump {
            target: Target::Cell(_),
            ..
        }
        | Instr::Call(Target::Cell(_)) => 1,
        Instr::Jump { .. } | Instr::Call(_) | Instr::ApAdd(_) => 2,
        Instr::Ret => 1,
    }
}

/// An entry cell: an immediate, or `fp` plus an object's offset.
fn entry_cell(a: &EntryArg, fp_cell: i16, at: &[i16]) -> Rhs {
    match a {
        EntryArg::Imm(f) => Rhs::Val(Val::Imm(*f)),
        EntryArg::Object(k) => Rhs::Op(
            ArithOp::Add,
            MemRef::fp(fp_cell),
            Val::Imm(Felt::from_i128(at.get(*k).copied().unwrap_or(0) as i128)),
        ),
    }
}

fn bias(o: i16) -> u64 {
    (o as i32 + 0x8000) as u64
}

fn word(dst: MemRef, op0: MemRef, off_op1: i16, flags: u64) -> Felt {
    Felt::from_u128(word_bits(dst, op0, off_op1, flags) as u128)
}

fn word_bits(dst: MemRef, op0: MemRef, off_op1: i16, flags: u64) -> u64 {
    let mut f = flags;
    if dst.reg == Reg::Fp {
        f |= flag::DST_FP;
    }
    if op0.reg == Reg::Fp {
        f |= flag::OP0_FP;
    }
    bias(dst.off) | (bias(op0.off) << 16) | (bias(off_op1) << 32) | (f << 48)
}

const UNUSED: MemRef = MemRef {
    reg: Reg::Fp,
    off: -1,
};

/// Whether `word` is the assertion of a constructor's header before a
/// field read, `[ap - 1] = [[fp + k]]` (see `lower`): an assert-equal of
/// `[ap - 1]` with the cell an `fp`-based pointer points at, for any `k`.
/// The machines report a failure of it as a field read of the wrong
/// constructor.
pub fn is_header_check(word: Felt) -> bool {
    let op0_offset = 0xffff_u64 << 16;
    let pattern = word_bits(MemRef::ap(-1), MemRef::fp(0), 0, flag::OP_ASSERT) & !op0_offset;
    let l = word.limbs();
    l[1] == 0 && l[2] == 0 && l[3] == 0 && l[0] & !op0_offset == pattern
}

fn op1_bits(v: &Val) -> (i16, u64, Option<Felt>) {
    match v {
        Val::Imm(c) => (1, flag::OP1_IMM, Some(*c)),
        Val::Mem(MemRef { reg: Reg::Fp, off }) => (*off, flag::OP1_FP, None),
        Val::Mem(MemRef { reg: Reg::Ap, off }) => (*off, flag::OP1_AP, None),
    }
}

/// Assembles `listing` behind an entry sequence that pushes `args`, calls
/// the function labelled `entry` and writes the value it returns to the
/// `output` builtin.
pub fn assemble(
    listing: &Listing,
    entry: &str,
    args: &[Felt],
    mode: Mode,
) -> Result<Program, AsmError> {
    let args: Vec<EntryArg> = args.iter().map(|a| EntryArg::Imm(*a)).collect();
    assemble_with_objects(listing, entry, &[], &args, ResultShape::Value, mode)
}

/// An argument of the entry: a number, or the address of one of the
/// objects the entry sequence writes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryArg {
    /// A number.
    Imm(Felt),
    /// The address of `objects[k]`.
    Object(usize),
}

/// [`assemble`] with heap arguments: the entry sequence first writes
/// `objects` (each a list of cells; an [`EntryArg::Object`] cell may only
/// name an earlier object) into its own frame, then calls the entry with
/// `args`, and writes its result to the `output` builtin as `result`
/// says.
///
/// The runner gives the entry sequence a pointer for the `output` builtin
/// and for each builtin the listing threads; the entry takes the threaded
/// ones below its arguments and returns them below its result. After the
/// call, the sequence gathers the output cells on the stack (a record's
/// fields, `[ap] = [[ap - 1 - i] + 1 + i]`), asserts each equal to the
/// next cell of the `output` segment (`[ap - n + i] = [[out] + i]`), and
/// leaves every builtin's final pointer on top, `output`'s first.
pub fn assemble_with_objects(
    listing: &Listing,
    entry: &str,
    objects: &[Vec<EntryArg>],
    args: &[EntryArg],
    result: ResultShape,
    mode: Mode,
) -> Result<Program, AsmError> {
    // The copies after the call reach `2 + builtins + fields` cells back.
    if result.pushed() > i16::MAX as usize - 8 {
        return Err(AsmError::ResultTooLarge(result.pushed()));
    }
    let threaded: Vec<Builtin> = listing
        .builtins
        .iter()
        .copied()
        .filter(|b| *b != Builtin::Output)
        .collect();
    let sequence = EntrySequence {
        entry,
        objects,
        args,
        result,
        mode,
        threaded: threaded.len() as i16,
    };
    let mut items: Vec<Instr> = Vec::with_capacity(listing.items.len() + args.len() + 6);
    sequence.call_entry(&mut items);
    sequence.write_result(&mut items);
    items.extend(listing.items.iter().cloned());
    let has_get_fp = |items: &[Instr]| {
        items
            .iter()
            .any(|i| matches!(i, Instr::Label(l) if l == crate::heap::GET_FP))
    };
    if !objects.is_empty() && !has_get_fp(&listing.items) {
        items.push(Instr::Label(crate::heap::GET_FP.to_string()));
        items.push(Instr::Ret);
    }
    let (data, hints, labels) = encode(&items)?;
    let main_pc = match mode {
        Mode::Execution => 0,
        Mode::Proof => *labels
            .get(entry)
            .ok_or_else(|| AsmError::UndefinedLabel(entry.to_string()))?,
    };
    let start_end = match mode {
        Mode::Execution => None,
        Mode::Proof => Some((0, labels.get("__end__").copied().unwrap_or(0))),
    };
    let mut builtins = vec![Builtin::Output];
    builtins.extend(&threaded);
    Ok(Program {
        data,
        hints,
        labels,
        main_pc,
        mode,
        start_end,
        builtins,
        names: crate::heap::HeapNames::default(),
        result_kind: crate::heap::Kind::Any,
        term_refusal: None,
        result,
    })
}

/// What the entry sequence of [`assemble_with_objects`] is built from.
struct EntrySequence<'a> {
    entry: &'a str,
    objects: &'a [Vec<EntryArg>],
    args: &'a [EntryArg],
    result: ResultShape,
    mode: Mode,
    /// The number of builtins the listing threads (all but `output`).
    threaded: i16,
}

fn push(rhs: Rhs) -> Instr {
    Instr::Assign {
        dst: MemRef::ap(0),
        rhs,
        ap_incr: true,
    }
}

impl EntrySequence<'_> {
    /// The cell holding the `output` builtin's pointer. The runner puts
    /// the builtins' base pointers on the stack, `output`'s first: below
    /// `fp` for `main` (execution mode), at `[fp]` onwards for
    /// `__start__`.
    fn output_ptr(&self) -> MemRef {
        match self.mode {
            Mode::Execution => MemRef::fp(-2 - (self.threaded + 1)),
            Mode::Proof => MemRef::fp(0),
        }
    }

    /// The sequence up to the call of the entry: the objects, the threaded
    /// builtins' pointers and the arguments.
    fn call_entry(&self, items: &mut Vec<Instr>) {
        let first = match self.mode {
            Mode::Execution => "__main__",
            Mode::Proof => "__start__",
        };
        items.push(Instr::Label(first.to_string()));
        let nb = self.threaded;
        let n_all = nb + 1;
        // Where the objects start, and the cell that holds `fp`.
        let mut frame = 0i16;
        if self.mode == Mode::Proof {
            items.push(Instr::ApAdd(Felt::from_u128(n_all as u128)));
            frame = n_all;
        }
        let fp_cell = frame;
        let mut at = Vec::with_capacity(self.objects.len());
        if !self.objects.is_empty() {
            items.push(Instr::Call(Target::Label(crate::heap::GET_FP.to_string())));
            frame += 2;
            for o in self.objects {
                at.push(frame);
                for cell in o {
                    items.push(push(entry_cell(cell, fp_cell, &at)));
                    frame += 1;
                }
            }
        }
        match self.mode {
            Mode::Execution => {
                for k in 0..nb {
                    items.push(push(Rhs::Val(Val::Mem(MemRef::fp(-1 - n_all + k)))));
                }
            }
            Mode::Proof if !self.objects.is_empty() => {
                for k in 0..nb {
                    items.push(push(Rhs::Val(Val::Mem(MemRef::fp(1 + k)))));
                }
            }
            // The threaded pointers are the cells just below `ap`.
            Mode::Proof => {}
        }
        for a in self.args.iter().rev() {
            items.push(push(entry_cell(a, fp_cell, &at)));
        }
        items.push(Instr::Call(Target::Label(self.entry.to_string())));
    }

    /// The sequence after the call: the result to the `output` builtin,
    /// every builtin's final pointer on top, then `ret` (or the proof
    /// mode's final loop).
    fn write_result(&self, items: &mut Vec<Instr>) {
        if self.result == ResultShape::Io {
            return self.run_io(items);
        }
        let nb = self.threaded;
        let output_ptr = self.output_ptr();
        // The result is at `[ap - 1]`, the threaded builtins' final pointers
        // below it.
        let fields = self.result.pushed() as i16;
        for i in 0..fields {
            items.push(push(Rhs::Deref(MemRef::ap(-1 - i), field_offset(i as u32))));
        }
        let out = self.result.output_cells() as i16;
        for i in 0..out {
            items.push(Instr::Assign {
                dst: MemRef::ap(i - out),
                rhs: Rhs::Deref(output_ptr, i),
                ap_incr: false,
            });
        }
        items.push(push(Rhs::Op(
            ArithOp::Add,
            output_ptr,
            Val::Imm(Felt::from_i128(out as i128)),
        )));
        // Each threaded pointer is `2 + nb + fields` cells below the top when
        // it is copied: the cells pushed since the call come between.
        for _ in 0..nb {
            items.push(push(Rhs::Val(Val::Mem(MemRef::ap(-2 - nb - fields)))));
        }
        self.finish(items);
    }

    /// The sequence after the call of an entry that returns an IO action:
    /// `__kildall_run_io` runs it with the `output` pointer, which it
    /// returns past the cells its `write`s took, above the builtins'
    /// pointers and below the result and its kind code; these two go to
    /// the next `output` cells.
    fn run_io(&self, items: &mut Vec<Instr>) {
        let nb = self.threaded;
        for _ in 0..nb {
            items.push(push(Rhs::Val(Val::Mem(MemRef::ap(-1 - nb)))));
        }
        items.push(push(Rhs::Val(Val::Mem(self.output_ptr()))));
        items.push(push(Rhs::Val(Val::Mem(MemRef::ap(-2 - nb)))));
        items.push(Instr::Call(Target::Label(crate::heap::RUN_IO.to_string())));
        for i in 0..2 {
            items.push(Instr::Assign {
                dst: MemRef::ap(-2 + i),
                rhs: Rhs::Deref(MemRef::ap(-3), i),
                ap_incr: false,
            });
        }
        items.push(push(Rhs::Op(
            ArithOp::Add,
            MemRef::ap(-3),
            Val::Imm(Felt::from_i128(2)),
        )));
        for _ in 0..nb {
            items.push(push(Rhs::Val(Val::Mem(MemRef::ap(-4 - nb)))));
        }
        self.finish(items);
    }

    /// `ret`, or the proof mode's final loop.
    fn finish(&self, items: &mut Vec<Instr>) {
        match self.mode {
            Mode::Execution => items.push(Instr::Ret),
            Mode::Proof => {
                items.push(Instr::Label("__end__".to_string()));
                items.push(Instr::Jump {
                    target: Target::Rel(0),
                    cond: None,
                    ap_incr: false,
                });
            }
        }
    }
}

/// The words, hints and labels of an assembled program.
type Encoded = (
    Vec<Felt>,
    BTreeMap<usize, Vec<Hint>>,
    HashMap<String, usize>,
);

/// Encodes `items` as Cairo words (two passes: labels, then words).
fn encode(items: &[Instr]) -> Result<Encoded, AsmError> {
    let mut labels = HashMap::new();
    let mut pc = 0usize;
    for i in items {
        if let Instr::Label(l) = i {
            if labels.insert(l.clone(), pc).is_some() {
                return Err(AsmError::DuplicateLabel(l.clone()));
            }
        }
        pc += size(i);
    }
    let mut data = Vec::with_capacity(pc);
    let mut hints: BTreeMap<usize, Vec<Hint>> = BTreeMap::new();
    for i in items {
        let pc = data.len();
        match i {
            Instr::Label(_) | Instr::Nop => {}
            Instr::Hint(h) => {
                for v in h.operands() {
                    if let Val::Mem(m) = v {
                        if m.reg != Reg::Fp {
                            return Err(AsmError::HintNotFp(m));
                        }
                    }
                }
                hints.entry(pc).or_default().push(*h);
            }
            Instr::Assign { dst, rhs, ap_incr } => encode_assign(*dst, rhs, *ap_incr, &mut data),
            Instr::Jump {
                target,
                cond,
                ap_incr,
            } => {
                let (off1, src, imm) = op1_bits(&relative(target, pc, &labels)?);
                let ap = if *ap_incr { flag::AP_ADD1 } else { 0 };
                let (dst, pcu) = match cond {
                    Some(c) => (*c, flag::PC_JNZ),
                    None => (UNUSED, flag::PC_REL),
                };
                data.push(word(dst, UNUSED, off1, src | pcu | ap));
                data.extend(imm);
            }
            Instr::Call(target) => {
                let (off1, src, imm) = op1_bits(&relative(target, pc, &labels)?);
                data.push(word(
                    MemRef::ap(0),
                    MemRef::ap(1),
                    off1,
                    src | flag::PC_REL | flag::OP_CALL,
                ));
                data.extend(imm);
            }
            Instr::Ret => {
                data.push(word(
                    MemRef::fp(-2),
                    UNUSED,
                    -1,
                    flag::OP1_FP | flag::PC_ABS | flag::OP_RET,
                ));
            }
            Instr::ApAdd(n) => {
                data.push(word(UNUSED, UNUSED, 1, flag::OP1_IMM | flag::AP_ADD));
                data.push(*n);
            }
        }
    }
    Ok((data, hints, labels))
}

/// A jump or call target's op1 at `pc`: an immediate offset, or the cell
/// holding it.
fn relative(t: &Target, pc: usize, labels: &HashMap<String, usize>) -> Result<Val, AsmError> {
    match t {
        Target::Cell(m) => Ok(Val::Mem(*m)),
        Target::Rel(r) => Ok(Val::Imm(Felt::from_i128(*r as i128))),
        Target::Label(l) => {
            let to = *labels
                .get(l)
                .ok_or_else(|| AsmError::UndefinedLabel(l.clone()))?;
            Ok(Val::Imm(Felt::from_i128(to as i128 - pc as i128)))
        }
    }
}

/// Encodes an assertion `dst = rhs`.
fn encode_assign(dst: MemRef, rhs: &Rhs, ap_incr: bool, data: &mut Vec<Felt>) {
    let ap = if ap_incr { flag::AP_ADD1 } else { 0 };
    let (d, op0, op1, res) = match rhs {
        Rhs::Val(v) => (dst, UNUSED, v, 0),
        Rhs::Op(ArithOp::Add, a, v) => (dst, *a, v, flag::RES_ADD),
        Rhs::Op(ArithOp::Mul, a, v) => (dst, *a, v, flag::RES_MUL),
        Rhs::Op(ArithOp::Sub, a, v) => (*a, dst, v, flag::RES_ADD),
        Rhs::Op(ArithOp::Div, a, v) => (*a, dst, v, flag::RES_MUL),
        Rhs::Deref(cell, off) => {
            // op1 = [op0 + off]: no op1 source flag.
            data.push(word(dst, *cell, *off, ap | flag::OP_ASSERT));
            return;
        }
    };
    let (off1, src, imm) = op1_bits(op1);
    data.push(word(d, op0, off1, src | res | ap | flag::OP_ASSERT));
    data.extend(imm);
}

impl Program {
    /// The program JSON of the Cairo toolchain (`cairo-compile` output),
    /// as `cairo-vm` loads it.
    pub fn to_json(&self) -> serde_json::Value {
        // A hint's code is its listing text; `vm::HintRunner` parses it back
        // (cairo-lang's Python hints do not apply to these operands).
        let mut hints = serde_json::Map::new();
        for (pc, hs) in &self.hints {
            let list = hs
                .iter()
                .map(|h| {
                    serde_json::json!({
                        "accessible_scopes": ["__main__"],
                        "code": h.to_string(),
                        "flow_tracking_data": {
                            "ap_tracking": {"group": 0, "offset": 0},
                            "reference_ids": {},
                        },
                    })
                })
                .collect();
            hints.insert(pc.to_string(), serde_json::Value::Array(list));
        }
        let mut identifiers = serde_json::Map::new();
        identifiers.insert(
            "__main__.main".to_string(),
            serde_json::json!({"decorators": [], "pc": self.main_pc, "type": "function"}),
        );
        if let Some((s, e)) = self.start_end {
            identifiers.insert(
                "__main__.__start__".to_string(),
                serde_json::json!({"pc": s, "type": "label"}),
            );
            identifiers.insert(
                "__main__.__end__".to_string(),
                serde_json::json!({"pc": e, "type": "label"}),
            );
        }
        serde_json::json!({
            "attributes": [],
            "builtins": self.builtins.iter().map(|b| b.name()).collect::<Vec<_>>(),
            "compiler_version": "0.13.1",
            "data": self.data.iter().map(|w| w.to_hex()).collect::<Vec<_>>(),
            "debug_info": null,
            "hints": hints,
            "identifiers": identifiers,
            "main_scope": "__main__",
            "prime": "0x800000000000011000000000000000000000000000000000000000000000001",
            "reference_manager": {"references": []},
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listing::parse;

    fn words(src: &str) -> Vec<String> {
        let l = parse(&format!("e:\n{src}")).unwrap();
        let p = assemble(&l, "e", &[], Mode::Execution).unwrap();
        p.data[p.labels["e"]..].iter().map(|w| w.to_hex()).collect()
    }

    #[test]
    fn a_result_record_too_large_to_output_is_an_error() {
        let l = parse("e:\n  ret\n").unwrap();
        let huge = ResultShape::Record(40_000);
        let err = assemble_with_objects(&l, "e", &[], &[], huge, Mode::Execution).unwrap_err();
        assert_eq!(err, AsmError::ResultTooLarge(40_000));
        let fits = ResultShape::Record(3);
        assert!(assemble_with_objects(&l, "e", &[], &[], fits, Mode::Proof).is_ok());
    }

    /// Encodings as cairo-lang's assembler produces them.
    #[test]
    fn known_encodings() {
        assert_eq!(
            words("[ap] = [fp - 3] + 1; ap++"),
            ["0x482680017ffd8000", "0x1"]
        );
        assert_eq!(words("ret"), ["0x208b7fff7fff7ffe"]);
        assert_eq!(words("call rel 3"), ["0x1104800180018000", "0x3"]);
        assert_eq!(words("jmp rel 3"), ["0x10780017fff7fff", "0x3"]);
        assert_eq!(
            words("jmp rel 3 if [ap - 1] != 0"),
            ["0x20680017fff7fff", "0x3"]
        );
        // `[ap] = [fp - 4] + [fp - 3]; ap++`
        assert_eq!(
            words("[ap] = [fp - 4] + [fp - 3]; ap++"),
            ["0x482a7ffd7ffc8000"]
        );
        // `[ap] = [fp]; ap++` copies through op1 with op0 at [fp - 1].
        assert_eq!(words("[ap] = [fp]; ap++"), ["0x480a80007fff8000"]);
    }
}
