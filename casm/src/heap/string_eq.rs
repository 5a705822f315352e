//! `eq` of two strings: `__kildall_eq_str` compares the lengths, then the
//! bytes in order, reading each rope through an iterator, with no hint.
//!
//! An iterator is three cells `s, k, q`: `q` the address of the next byte
//! of the current leaf, `k` the bytes left in it, `s` the stack of the
//! ropes still to read (a list of cells `[rope, rest]`; 0 when empty).
//! `$descend` goes down the left of a rope, pushing each concatenation's
//! right part; `$next` returns the next byte and the iterator after it,
//! popping the stack when the leaf is done (a leaf may be empty). The
//! stack is never read past its end: the lengths are equal, and only as
//! many bytes as that are read.
//!
//! A call returns its results on top of the stack, at a distance from the
//! caller's own cells that only the callee knows; so the caller hands
//! them at once to a continuation (`$k1`, `$k2`, `$loop`) together with
//! the cells of its own frame it still needs.

use super::strings::{CONCAT_LEFT, STRING_BYTES, STRING_HEADER, STRING_LEN};
use super::{imm, push, GET_FP};
use crate::listing::{ArithOp, Instr, MemRef, Rhs, Target, Val};

/// The routine comparing two strings.
pub const EQ_STR: &str = "__kildall_eq_str";

fn label(part: &str) -> String {
    format!("{EQ_STR}${part}")
}

fn fp(at: i16) -> Rhs {
    Rhs::Val(Val::Mem(MemRef::fp(at)))
}

fn ap(at: i16) -> Rhs {
    Rhs::Val(Val::Mem(MemRef::ap(at)))
}

fn call(to: &str) -> Instr {
    Instr::Call(Target::Label(to.to_string()))
}

fn jnz(to: String, cond: MemRef) -> Instr {
    Instr::Jump {
        target: Target::Label(to),
        cond: Some(cond),
        ap_incr: false,
    }
}

/// Pushes the `n_builtins` pointers whose deepest is at `[fp + deepest]`.
fn builtins(out: &mut Vec<Instr>, deepest: i16, n_builtins: usize) {
    for k in 0..n_builtins as i16 {
        out.push(push(fp(deepest + k)));
    }
}

/// Pushes the builtins, then a Juvix boolean, and returns.
fn answer(out: &mut Vec<Instr>, deepest: i16, n_builtins: usize, equal: bool) {
    builtins(out, deepest, n_builtins);
    out.push(push(Rhs::Val(imm(i128::from(!equal)))));
    out.push(Instr::Ret);
}

/// `__kildall_eq_str`: the strings at `[fp - 3]` and `[fp - 4]`, the
/// threaded builtins below (passed through); returns 0 when they hold the
/// same text, 1 otherwise.
pub fn eq_str_routine(n_builtins: usize) -> Vec<Instr> {
    let nb = n_builtins as i16;
    let mut out = vec![
        Instr::Label(EQ_STR.to_string()),
        push(Rhs::Deref(MemRef::fp(-3), STRING_LEN)),
        push(Rhs::Deref(MemRef::fp(-4), STRING_LEN)),
        push(Rhs::Op(
            ArithOp::Sub,
            MemRef::fp(0),
            Val::Mem(MemRef::fp(1)),
        )),
        jnz(label("differ"), MemRef::fp(2)),
    ];
    out.push(push(Rhs::Val(imm(0))));
    out.push(push(fp(-3)));
    out.push(call(&label("descend")));
    // `$k1` takes the builtins, `b`, the length and `a`'s iterator.
    builtins(&mut out, -4 - nb, n_builtins);
    out.push(push(fp(-4)));
    out.push(push(fp(0)));
    for _ in 0..3 {
        out.push(push(ap(-3 - (nb + 2))));
    }
    out.push(call(&label("k1")));
    out.push(Instr::Ret);
    out.push(Instr::Label(label("differ")));
    answer(&mut out, -4 - nb, n_builtins, false);

    // `$k1`: `a`'s iterator at `[fp - 5..=-3]`, the length at `[fp - 6]`,
    // `b` at `[fp - 7]`; starts `b`'s iterator and the loop.
    out.push(Instr::Label(label("k1")));
    out.push(push(Rhs::Val(imm(0))));
    out.push(push(fp(-7)));
    out.push(call(&label("descend")));
    builtins(&mut out, -7 - nb, n_builtins);
    for at in [-6, -5, -4, -3] {
        out.push(push(fp(at)));
    }
    for _ in 0..3 {
        out.push(push(ap(-3 - (nb + 4))));
    }
    out.push(call(&label("loop")));
    out.push(Instr::Ret);

    out.extend(loop_routines(n_builtins));
    out.extend(iterator_routines());
    out
}

/// `$loop`: `b`'s iterator at `[fp - 5..=-3]`, `a`'s at `[fp - 8..=-6]`,
/// the bytes left at `[fp - 9]`; `$k2` holds `a`'s next byte while `b`'s
/// is read, compares them and loops.
fn loop_routines(n_builtins: usize) -> Vec<Instr> {
    let nb = n_builtins as i16;
    let mut out = vec![
        Instr::Label(label("loop")),
        jnz(label("step"), MemRef::fp(-9)),
    ];
    answer(&mut out, -9 - nb, n_builtins, true);
    out.push(Instr::Label(label("step")));
    for at in [-8, -7, -6] {
        out.push(push(fp(at)));
    }
    out.push(call(&label("next")));
    // `$k2` takes the builtins, the bytes left, `b`'s iterator, then `a`'s
    // next iterator and byte (the four cells `$next` left on top).
    builtins(&mut out, -9 - nb, n_builtins);
    for at in [-9, -5, -4, -3] {
        out.push(push(fp(at)));
    }
    for _ in 0..4 {
        out.push(push(ap(-4 - (nb + 4))));
    }
    out.push(call(&label("k2")));
    out.push(Instr::Ret);

    // `$k2`: `a`'s byte at `[fp - 3]`, its iterator at `[fp - 6..=-4]`,
    // `b`'s at `[fp - 9..=-7]`, the bytes left at `[fp - 10]`.
    out.push(Instr::Label(label("k2")));
    for at in [-9, -8, -7] {
        out.push(push(fp(at)));
    }
    out.push(call(&label("next")));
    out.push(push(Rhs::Op(
        ArithOp::Sub,
        MemRef::fp(-3),
        Val::Mem(MemRef::ap(-1)),
    )));
    out.push(jnz(label("k2$differ"), MemRef::ap(-1)));
    builtins(&mut out, -10 - nb, n_builtins);
    out.push(push(Rhs::Op(ArithOp::Add, MemRef::fp(-10), imm(-1))));
    for at in [-6, -5, -4] {
        out.push(push(fp(at)));
    }
    // `b`'s next iterator is below its byte and the difference.
    for _ in 0..3 {
        out.push(push(ap(-5 - (nb + 4))));
    }
    out.push(call(&label("loop")));
    out.push(Instr::Ret);
    out.push(Instr::Label(label("k2$differ")));
    answer(&mut out, -10 - nb, n_builtins, false);
    out
}

/// `$next` (the iterator `s, k, q` at `[fp - 5..=-3]`; returns the
/// iterator after the byte, then the byte) and `$descend` (the rope at
/// `[fp - 3]`, the stack at `[fp - 4]`; returns an iterator at the rope's
/// first leaf).
fn iterator_routines() -> Vec<Instr> {
    let header = |at: i16| Rhs::Deref(MemRef::fp(at), 0);
    vec![
        Instr::Label(label("next")),
        jnz(label("next$byte"), MemRef::fp(-4)),
        // The leaf is done: the rope on top of the stack is next.
        push(Rhs::Deref(MemRef::fp(-5), 1)),
        push(Rhs::Deref(MemRef::fp(-5), 0)),
        call(&label("descend")),
        call(&label("next")),
        Instr::Ret,
        Instr::Label(label("next$byte")),
        push(fp(-5)),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(-4), imm(-1))),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(-3), imm(1))),
        push(Rhs::Deref(MemRef::fp(-3), 0)),
        Instr::Ret,
        Instr::Label(label("descend")),
        push(header(-3)),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(0), imm(2))),
        jnz(label("descend$leaf"), MemRef::fp(1)),
        // A concatenation: its right part goes on the stack, `[right, s]`.
        call(GET_FP),
        push(Rhs::Deref(MemRef::fp(-3), CONCAT_LEFT + 1)),
        push(fp(-4)),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(2), imm(4))),
        push(fp(6)),
        push(Rhs::Deref(MemRef::fp(-3), CONCAT_LEFT)),
        call(&label("descend")),
        Instr::Ret,
        Instr::Label(label("descend$leaf")),
        Instr::Assign {
            dst: MemRef::fp(0),
            rhs: Rhs::Val(imm(STRING_HEADER)),
            ap_incr: false,
        },
        push(fp(-4)),
        push(Rhs::Deref(MemRef::fp(-3), STRING_LEN)),
        push(Rhs::Op(
            ArithOp::Add,
            MemRef::fp(-3),
            imm(STRING_BYTES.into()),
        )),
        Instr::Ret,
    ]
}
