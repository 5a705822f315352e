//! Strings in Cairo memory and the routines of `show` and `atoi`.
//!
//! A string is a rope: a leaf `[-1, n, bytes...]` holds `n` bytes of UTF-8
//! text, one per cell (string constants, the digits of `show`); a
//! concatenation `[-2, n, left, right]` holds two strings and their total
//! length. `strcat` is then one object of four cells, whatever the lengths,
//! in write-once memory where a copy of unknown length would need a loop
//! writing cells that are not contiguous.
//!
//! `__kildall_show_int v` writes the decimal digits of `v` from the least
//! significant: at each step the `divmod` hint proposes the sign `s` of
//! the value `u`, `q = |u| / 10` and `r = |u| % 10`; the code proves
//! `s` a bit, `|u| = (1 - 2 s) u`, and range-checks `|u| - s`, `q`, `r`
//! and `9 - r` (4 cells of the `range_check` builtin), then asserts
//! `|u| = 10 q + r`, which cannot wrap around the field's modulus: the
//! digits, the sign and where the digits end are the only ones the
//! checks admit, so a lying hint stops the run instead of changing the
//! text. `|u| - s < 2^128` is the range `show` proves: integers in
//! `[-2^128, 2^128)`. Every step allocates the digit's leaf and a
//! concatenation with the digits after it; the last (most significant)
//! prepends `-` to a negative number.
//!
//! `__kildall_atoi s` walks the rope in order (a concatenation is its
//! left string, then its right) with the state `acc`, `digits`, `neg` and
//! `pos` (characters read); no hint is involved. A `-` first sets `neg`;
//! any other character `c` is a digit when `(c - 48)(c - 49)...(c - 57)`
//! is zero; the run fails otherwise, on a 76th digit, or when no digit
//! came, as Juvix's `atoi` refuses such text.

use super::{imm, jmp, push, GET_FP};
use crate::felt::Felt;
use crate::listing::{ArithOp, Hint, Instr, MemRef, Rhs, Target, Val};

/// The header of a leaf string.
pub const STRING_HEADER: i128 = -1;
/// The header of a concatenation.
pub const CONCAT_HEADER: i128 = -2;

/// Offset of a string's length in bytes.
pub const STRING_LEN: i16 = 1;
/// Offset of a leaf's first byte.
pub const STRING_BYTES: i16 = 2;
/// Offset of a concatenation's left string (its right one follows).
pub const CONCAT_LEFT: i16 = 2;

/// The routine of `show` of an integer.
pub const SHOW_INT: &str = "__kildall_show_int";
/// The routine of `atoi`.
pub const ATOI: &str = "__kildall_atoi";

/// Most digits `atoi` reads: `10^75 < P`, so the value cannot wrap.
pub const MAX_ATOI_DIGITS: u32 = 75;

pub(super) fn val(at: i16) -> Val {
    Val::Mem(MemRef::fp(at))
}

pub(super) fn op(a: i16, o: ArithOp, b: Val) -> Rhs {
    Rhs::Op(o, MemRef::fp(a), b)
}

fn assert_eq(dst: i16, rhs: Rhs) -> Instr {
    Instr::Assign {
        dst: MemRef::fp(dst),
        rhs,
        ap_incr: false,
    }
}

pub(super) fn jnz(label: String, cond: i16) -> Instr {
    Instr::Jump {
        target: Target::Label(label),
        cond: Some(MemRef::fp(cond)),
        ap_incr: false,
    }
}

pub(super) fn call(label: &str) -> Instr {
    Instr::Call(Target::Label(label.to_string()))
}

/// The instructions of a routine whose frame cells are all written by
/// `[ap] = ...; ap++`, so that each has a static offset from `fp`.
pub(super) struct Body {
    pub(super) out: Vec<Instr>,
    pub(super) next: i16,
}

impl Body {
    pub(super) fn push(&mut self, rhs: Rhs) -> i16 {
        self.out.push(push(rhs));
        self.next += 1;
        self.next - 1
    }

    /// A call of the routine that returns at once: the cell it leaves
    /// holds `fp`, for addresses of this frame's cells.
    pub(super) fn get_fp(&mut self) -> i16 {
        self.out.push(call(GET_FP));
        self.next += 2;
        self.next - 2
    }

    /// Writes an object of `cells` and returns the cell of its address.
    pub(super) fn object(&mut self, fp_cell: i16, cells: &[Rhs]) -> i16 {
        let at = self.next;
        for c in cells {
            self.push(*c);
        }
        self.push(op(fp_cell, ArithOp::Add, imm(at.into())))
    }

    /// Writes the concatenation of the strings in `[fp + left]` and
    /// `[fp + right]`, of `len` bytes in all, and returns its address's cell.
    pub(super) fn concat(&mut self, fp_cell: i16, len: i16, left: i16, right: i16) -> i16 {
        self.object(
            fp_cell,
            &[
                Rhs::Val(imm(CONCAT_HEADER)),
                Rhs::Val(val(len)),
                Rhs::Val(val(left)),
                Rhs::Val(val(right)),
            ],
        )
    }

    /// Pushes the builtins' pointers from `[fp + deepest]` up, the first
    /// (`range_check` when threaded) advanced by `used` cells.
    pub(super) fn builtins(&mut self, deepest: i16, n_builtins: usize, used: i128) {
        for k in 0..n_builtins as i16 {
            let at = deepest + k;
            let rhs = match (k, used) {
                (0, u) if u != 0 => op(at, ArithOp::Add, imm(u)),
                _ => Rhs::Val(val(at)),
            };
            self.push(rhs);
        }
    }
}

/// `__kildall_show_int`: the integer at `[fp - 3]`, the threaded builtins
/// below (`range_check` first); returns the string of its decimal digits.
/// Its steps run in `__kildall_show_int$digits`, called with the value
/// `u` at `[fp - 3]`, the string of the digits after its own at
/// `[fp - 4]` and the sign already proved at `[fp - 5]`.
pub fn show_int_routine(n_builtins: usize) -> Vec<Instr> {
    let digits = format!("{SHOW_INT}$digits");
    let mut b = Body {
        out: vec![Instr::Label(SHOW_INT.to_string())],
        next: 0,
    };
    let fp_cell = b.get_fp();
    let empty = b.object(fp_cell, &[Rhs::Val(imm(STRING_HEADER)), Rhs::Val(imm(0))]);
    b.builtins(-3 - n_builtins as i16, n_builtins, 0);
    b.push(Rhs::Val(imm(0)));
    b.push(Rhs::Val(val(empty)));
    b.push(Rhs::Val(val(-3)));
    b.out.push(call(&digits));
    b.out.push(Instr::Ret);
    let mut out = b.out;
    out.extend(digits_routine(&digits, n_builtins));
    out
}

/// One step of `show`: see [`show_int_routine`].
fn digits_routine(label: &str, n_builtins: usize) -> Vec<Instr> {
    let deepest = -5 - n_builtins as i16;
    let mut b = Body {
        out: vec![
            Instr::Label(label.to_string()),
            Instr::Hint(Hint::DivMod {
                a: val(-3),
                b: imm(10),
            }),
            Instr::ApAdd(Felt::from_u128(4)),
        ],
        next: 4,
    };
    let (s, sb, q, r) = (0, 1, 2, 3);
    b.out.push(assert_eq(s, op(s, ArithOp::Mul, val(s))));
    b.out.push(assert_eq(sb, Rhs::Val(imm(0))));
    let m = b.push(op(s, ArithOp::Mul, imm(-2)));
    let m = b.push(op(m, ArithOp::Add, imm(1)));
    let abs = b.push(op(m, ArithOp::Mul, val(-3)));
    let abs_less_s = b.push(op(abs, ArithOp::Sub, val(s)));
    let minus_r = b.push(op(r, ArithOp::Mul, imm(-1)));
    let nine_less_r = b.push(op(minus_r, ArithOp::Add, imm(9)));
    for (k, cell) in [abs_less_s, q, r, nine_less_r].into_iter().enumerate() {
        b.out
            .push(assert_eq(cell, Rhs::Deref(MemRef::fp(deepest), k as i16)));
    }
    let ten_q = b.push(op(q, ArithOp::Mul, imm(10)));
    b.out.push(assert_eq(abs, op(ten_q, ArithOp::Add, val(r))));
    let neg = b.push(op(-5, ArithOp::Add, val(s)));
    let fp_cell = b.get_fp();
    let byte = b.push(op(r, ArithOp::Add, imm(48)));
    let leaf = b.object(
        fp_cell,
        &[
            Rhs::Val(imm(STRING_HEADER)),
            Rhs::Val(imm(1)),
            Rhs::Val(val(byte)),
        ],
    );
    let len = b.push(Rhs::Deref(MemRef::fp(-4), STRING_LEN));
    let len = b.push(op(len, ArithOp::Add, imm(1)));
    let text = b.concat(fp_cell, len, leaf, -4);
    let more = format!("{label}$more");
    let minus = format!("{label}$minus");
    b.out.push(jnz(more.clone(), q));
    b.out.push(jnz(minus.clone(), neg));
    let at_end = b.next;
    b.builtins(deepest, n_builtins, 4);
    b.push(Rhs::Val(val(text)));
    b.out.push(Instr::Ret);

    // The most significant digit of a negative number: `-` before it.
    b.out.push(Instr::Label(minus));
    b.next = at_end;
    let sign = b.object(
        fp_cell,
        &[
            Rhs::Val(imm(STRING_HEADER)),
            Rhs::Val(imm(1)),
            Rhs::Val(imm(45)),
        ],
    );
    let len = b.push(op(len, ArithOp::Add, imm(1)));
    let signed = b.concat(fp_cell, len, sign, text);
    b.builtins(deepest, n_builtins, 4);
    b.push(Rhs::Val(val(signed)));
    b.out.push(Instr::Ret);

    b.out.push(Instr::Label(more));
    b.next = at_end;
    b.builtins(deepest, n_builtins, 4);
    b.push(Rhs::Val(val(neg)));
    b.push(Rhs::Val(val(text)));
    b.push(Rhs::Val(val(q)));
    b.out.push(call(label));
    b.out.push(Instr::Ret);
    b.out
}

/// `__kildall_atoi`: the string at `[fp - 3]` (threaded builtins below,
/// passed through untouched); returns the integer it spells. The walk
/// (`$walk`, `$leaf`) takes and returns the state `acc`, `digits`, `neg`,
/// `pos` as four cells, the string (or the leaf's next byte and the bytes
/// left) above it.
pub fn atoi_routine(n_builtins: usize) -> Vec<Instr> {
    let walk = format!("{ATOI}$walk");
    let fail = format!("{ATOI}$fail");
    let mut b = Body {
        out: vec![Instr::Label(ATOI.to_string())],
        next: 0,
    };
    for _ in 0..4 {
        b.push(Rhs::Val(imm(0)));
    }
    b.push(Rhs::Val(val(-3)));
    b.out.push(call(&walk));
    // The state is on top: `[ap - 4]` is `acc`, then `digits`, `neg`, `pos`.
    b.out.push(Instr::Jump {
        target: Target::Rel(4),
        cond: Some(MemRef::ap(-3)),
        ap_incr: false,
    });
    b.out.push(jmp(fail.clone()));
    // `acc * (1 - 2 neg)`, above the builtins' pointers.
    let sign = [
        push(Rhs::Op(ArithOp::Mul, MemRef::ap(-2), imm(-2))),
        push(Rhs::Op(ArithOp::Add, MemRef::ap(-1), imm(1))),
    ];
    b.out.extend(sign);
    for k in 0..n_builtins as i16 {
        let at = -3 - n_builtins as i16 + k;
        b.out.push(push(Rhs::Val(Val::Mem(MemRef::fp(at)))));
    }
    let (acc_at, m_at) = (-6 - n_builtins as i16, -1 - n_builtins as i16);
    b.out.push(push(Rhs::Op(
        ArithOp::Mul,
        MemRef::ap(m_at),
        Val::Mem(MemRef::ap(acc_at)),
    )));
    b.out.push(Instr::Ret);
    let mut out = b.out;
    out.extend(walk_routines(&walk, &fail));
    out
}

/// The in-order walk of `atoi` over a rope, and its failure.
fn walk_routines(walk: &str, fail: &str) -> Vec<Instr> {
    let leaf = format!("{ATOI}$leaf");
    let concat = format!("{walk}$concat");
    // `$walk`: the string at `[fp - 3]`, the state at `[fp - 7..=-4]`
    // (`acc` deepest).
    let state = |out: &mut Vec<Instr>| {
        for k in 0..4 {
            out.push(push(Rhs::Val(val(-7 + k))));
        }
    };
    let mut out = vec![
        Instr::Label(walk.to_string()),
        push(Rhs::Deref(MemRef::fp(-3), 0)),
        push(op(0, ArithOp::Add, imm(-CONCAT_HEADER))),
        jnz(format!("{walk}$leaf"), 1),
        jmp(concat.clone()),
        Instr::Label(format!("{walk}$leaf")),
        // A leaf (or no string: the assertion stops the run).
        assert_eq(0, Rhs::Val(imm(STRING_HEADER))),
    ];
    state(&mut out);
    out.push(push(Rhs::Deref(MemRef::fp(-3), STRING_LEN)));
    out.push(push(op(-3, ArithOp::Add, imm(STRING_BYTES.into()))));
    out.push(call(&leaf));
    out.push(Instr::Ret);
    out.push(Instr::Label(concat));
    state(&mut out);
    out.push(push(Rhs::Deref(MemRef::fp(-3), CONCAT_LEFT)));
    out.push(call(walk));
    out.push(push(Rhs::Deref(MemRef::fp(-3), CONCAT_LEFT + 1)));
    out.push(call(walk));
    out.push(Instr::Ret);
    out.extend(leaf_routine(&leaf, fail));
    out.push(Instr::Label(fail.to_string()));
    out.push(Instr::Hint(Hint::NotAnInteger));
    out.push(super::fail_here());
    out
}

/// `$leaf`: the address of the next byte at `[fp - 3]`, the bytes left at
/// `[fp - 4]`, the state at `[fp - 8..=-5]` (`acc`, `digits`, `neg`,
/// `pos`); returns the state after the bytes.
fn leaf_routine(label: &str, fail: &str) -> Vec<Instr> {
    let (acc, digits, neg, pos) = (-8, -7, -6, -5);
    let digit = format!("{label}$digit");
    let done = format!("{label}$done");
    let next = format!("{label}$next");
    let mut b = Body {
        out: vec![
            Instr::Label(label.to_string()),
            jnz(format!("{label}$byte"), -4),
            Instr::Label(done.clone()),
        ],
        next: 0,
    };
    for at in [acc, digits, neg, pos] {
        b.push(Rhs::Val(val(at)));
    }
    b.out.push(Instr::Ret);
    b.out.push(Instr::Label(format!("{label}$byte")));
    b.next = 0;
    let c = b.push(Rhs::Deref(MemRef::fp(-3), 0));
    // `-` as the first character sets `neg`.
    let dash = b.push(op(c, ArithOp::Add, imm(-45)));
    b.out.push(jnz(digit.clone(), pos));
    b.out.push(jnz(digit.clone(), dash));
    b.push(Rhs::Val(val(acc)));
    b.push(Rhs::Val(val(digits)));
    b.push(Rhs::Val(imm(1)));
    b.out.push(jmp(next.clone()));
    b.out.push(Instr::Label(digit));
    b.next = 2;
    let mut product = b.push(op(c, ArithOp::Add, imm(-48)));
    let d = product;
    for k in 1..10 {
        let f = b.push(op(c, ArithOp::Add, imm(-48 - k)));
        product = b.push(op(product, ArithOp::Mul, val(f)));
    }
    b.out.push(jnz(fail.to_string(), product));
    let ten_acc = b.push(op(acc, ArithOp::Mul, imm(10)));
    let count = b.push(op(digits, ArithOp::Add, imm(1)));
    let room = b.push(op(count, ArithOp::Add, imm(-(MAX_ATOI_DIGITS as i128) - 1)));
    b.out.push(jnz(format!("{label}$room"), room));
    b.out.push(jmp(fail.to_string()));
    b.out.push(Instr::Label(format!("{label}$room")));
    b.push(op(ten_acc, ArithOp::Add, val(d)));
    b.push(Rhs::Val(val(count)));
    b.push(Rhs::Val(val(neg)));
    b.out.push(Instr::Label(next));
    // Both paths leave `acc`, `digits`, `neg` on top; `pos`, the bytes
    // left and the next byte follow.
    b.out.push(push(op(pos, ArithOp::Add, imm(1))));
    b.out.push(push(op(-4, ArithOp::Add, imm(-1))));
    b.out.push(push(op(-3, ArithOp::Add, imm(1))));
    b.out.push(call(label));
    b.out.push(Instr::Ret);
    b.out
}
