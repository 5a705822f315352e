//! `show` of a constructor: `__kildall_show` writes its term as Juvix's
//! Reg interpreter prints it (the constructor's name, then each field
//! after a space, a field that is a constructor with fields in
//! parentheses: `cons 1 (cons 2 nil)`) as a rope of leaves and
//! concatenations (`strings`).
//!
//! The routine jumps by the constructor's header, as `case` does, into a
//! table of the module's constructors; a second table, `$nested`, serves
//! terms that are fields. An entry writes the name's leaf (after `(` in a
//! field with fields of its own) and hands it with each field in turn to
//! the step of the field's kind, which returns the term so far followed by
//! a space and the field's text: `$int` by `__kildall_show_int` (whose
//! digits are proved), `$ctor` by the nested table, `$bool`, `$unit` and
//! `$void` by the routines of `show` of such a value
//! ([`show_named_routine`]: the text of the number the field stores, or
//! its digits when it stores none, as the reference interpreter keeps a
//! number given where such a kind is declared). A call returns its result at a distance from the caller's
//! cells that only the callee knows, so each step is a routine with a
//! frame of static offsets, and what a call returns goes at once to the
//! next step (`$join` appends a string a call made; `$close` appends the
//! `)`). Nothing is proposed by a hint beyond `show` of integers' digits.

use super::strings::{call, jnz, op, val, Body, SHOW_INT, STRING_HEADER, STRING_LEN};
use super::{field_offset, imm, jmp, push, Kind};
use crate::listing::{ArithOp, Instr, MemRef, Reg, Rhs, Target, Val};

/// The routine of `show` of a constructor.
pub const SHOW: &str = "__kildall_show";

fn label(part: &str) -> String {
    format!("{SHOW}${part}")
}

/// The table of a term at the top, or of one in a field.
fn table(nested: bool) -> String {
    if nested {
        label("nested")
    } else {
        SHOW.to_string()
    }
}

fn entry(tag: usize, nested: bool) -> String {
    label(&if nested {
        format!("{tag}$nested")
    } else {
        tag.to_string()
    })
}

/// The step that appends a field of `kind`: one of the kinds
/// `crate::ssa` admits in a constructor that `show` prints.
fn step(kind: Kind) -> String {
    label(match kind {
        Kind::Int => "int",
        Kind::Bool => "bool",
        Kind::Unit => "unit",
        Kind::Void => "void",
        _ => "ctor",
    })
}

fn ap(at: i16) -> Rhs {
    Rhs::Val(Val::Mem(MemRef::ap(at)))
}

/// The cells of a leaf holding `text`.
fn leaf(text: &str) -> Vec<Rhs> {
    let mut cells = vec![
        Rhs::Val(imm(STRING_HEADER)),
        Rhs::Val(imm(text.len() as i128)),
    ];
    cells.extend(text.bytes().map(|b| Rhs::Val(imm(b.into()))));
    cells
}

/// Writes `[fp + acc] ++ " " ++ [fp + s]` and returns its cell.
fn append(b: &mut Body, fp_cell: i16, acc: i16, s: i16) -> i16 {
    let space = b.object(fp_cell, &leaf(" "));
    let len = b.push(Rhs::Deref(MemRef::fp(acc), STRING_LEN));
    let len = b.push(op(len, ArithOp::Add, imm(1)));
    let spaced = b.concat(fp_cell, len, acc, space);
    let more = b.push(Rhs::Deref(MemRef::fp(s), STRING_LEN));
    let len = b.push(op(len, ArithOp::Add, val(more)));
    b.concat(fp_cell, len, spaced, s)
}

/// Returns the builtins (from `[fp + deepest]`) and the string in
/// `[fp + result]`.
fn finish(mut b: Body, deepest: i16, n_builtins: usize, result: i16) -> Vec<Instr> {
    b.builtins(deepest, n_builtins, 0);
    b.push(Rhs::Val(val(result)));
    b.out.push(Instr::Ret);
    b.out
}

/// After a call that returned the builtins and a value: pushes the
/// builtins again, then `cells` (read as if nothing had been pushed yet),
/// and calls `to`.
fn pass_on(out: &mut Vec<Instr>, n_builtins: usize, cells: &[Rhs], to: &str) {
    let nb = n_builtins as i16;
    for _ in 0..nb {
        out.push(push(ap(-1 - nb)));
    }
    for (k, cell) in cells.iter().enumerate() {
        let moved = match cell {
            Rhs::Val(Val::Mem(m)) if m.reg == Reg::Ap => ap(m.off - nb - k as i16),
            other => *other,
        };
        out.push(push(moved));
    }
    out.push(call(to));
}

/// `__kildall_show` and its parts: the constructor at `[fp - 3]`, the
/// threaded builtins below (`range_check` first); returns its term.
/// `names` and `field_kinds` are the module's constructors by tag.
pub fn show_routine(names: &[String], field_kinds: &[Vec<Kind>], n_builtins: usize) -> Vec<Instr> {
    let mut out = Vec::new();
    for nested in [false, true] {
        out.push(Instr::Label(table(nested)));
        out.push(push(Rhs::Deref(MemRef::fp(-3), 0)));
        // The header `2 tag + 1` is the jump to the table's entry for `tag`.
        out.push(Instr::Jump {
            target: Target::Cell(MemRef::fp(0)),
            cond: None,
            ap_incr: false,
        });
        for (tag, kinds) in field_kinds.iter().enumerate() {
            out.push(jmp(entry(tag, nested && !kinds.is_empty())));
        }
    }
    for (tag, kinds) in field_kinds.iter().enumerate() {
        let name = names.get(tag).map_or("", String::as_str);
        out.extend(entry_routine(tag, name, kinds, false, n_builtins));
        if !kinds.is_empty() {
            out.extend(entry_routine(tag, name, kinds, true, n_builtins));
        }
    }
    let named: Vec<Kind> = [Kind::Bool, Kind::Unit, Kind::Void]
        .into_iter()
        .filter(|k| field_kinds.iter().flatten().any(|f| f == k))
        .collect();
    out.extend(step_routines(n_builtins, &named));
    out
}

/// The entry of constructor `tag` in a table (its header is at
/// `[fp + 0]`): the name, then each field by the step of its kind.
fn entry_routine(
    tag: usize,
    name: &str,
    kinds: &[Kind],
    nested: bool,
    n_builtins: usize,
) -> Vec<Instr> {
    let deepest = -3 - n_builtins as i16;
    let mut b = Body {
        out: vec![Instr::Label(entry(tag, nested))],
        next: 1,
    };
    let fp_cell = b.get_fp();
    let open = if nested { "(" } else { "" };
    let head = b.object(fp_cell, &leaf(&format!("{open}{name}")));
    let Some((first, rest)) = kinds.split_first() else {
        return finish(b, deepest, n_builtins, head);
    };
    b.builtins(deepest, n_builtins, 0);
    b.push(Rhs::Deref(MemRef::fp(-3), field_offset(0)));
    b.push(Rhs::Val(val(head)));
    b.out.push(call(&step(*first)));
    for (k, kind) in rest.iter().enumerate() {
        let field = Rhs::Deref(MemRef::fp(-3), field_offset(k as u32 + 1));
        pass_on(&mut b.out, n_builtins, &[field, ap(-1)], &step(*kind));
    }
    if nested {
        pass_on(&mut b.out, n_builtins, &[ap(-1)], &label("close"));
    }
    b.out.push(Instr::Ret);
    b.out
}

/// The steps, each called with the term so far at `[fp - 3]`, the field
/// at `[fp - 4]` and the builtins below; and `$join` (a string at
/// `[fp - 4]`) and `$close` (no field). `named` are the kinds among
/// boolean, `unit` and `void` that some field has.
fn step_routines(n_builtins: usize, named: &[Kind]) -> Vec<Instr> {
    let nb = n_builtins as i16;
    let deepest = -4 - nb;
    let mut out = Vec::new();
    // Each field is shown by a call: its string goes to `$join` with the
    // term.
    let by_name = named.iter().map(|k| (*k, show_named_label(*k)));
    let steps = [
        (Kind::Int, SHOW_INT.to_string()),
        (Kind::Object, table(true)),
    ];
    for (kind, routine) in steps.into_iter().chain(by_name) {
        out.push(Instr::Label(step(kind)));
        for k in 0..nb {
            out.push(push(Rhs::Val(val(deepest + k))));
        }
        out.push(push(Rhs::Val(val(-4))));
        out.push(call(&routine));
        pass_on(
            &mut out,
            n_builtins,
            &[ap(-1), Rhs::Val(val(-3))],
            &label("join"),
        );
        out.push(Instr::Ret);
    }
    let mut b = Body {
        out: vec![Instr::Label(label("join"))],
        next: 0,
    };
    let fp_cell = b.get_fp();
    let joined = append(&mut b, fp_cell, -3, -4);
    out.extend(finish(b, deepest, n_builtins, joined));

    let mut b = Body {
        out: vec![Instr::Label(label("close"))],
        next: 0,
    };
    let fp_cell = b.get_fp();
    let paren = b.object(fp_cell, &leaf(")"));
    let len = b.push(Rhs::Deref(MemRef::fp(-3), STRING_LEN));
    let len = b.push(op(len, ArithOp::Add, imm(1)));
    let closed = b.concat(fp_cell, len, -3, paren);
    out.extend(finish(b, -3 - nb, n_builtins, closed));
    out
}

/// The routine of `show` of a value declared a boolean, `unit` or `void`
/// (`__kildall_show_bool`, ...).
pub fn show_named_label(kind: Kind) -> String {
    format!("{SHOW}_{}", kind.name().unwrap_or_default())
}

/// `show` of the value at `[fp - 3]` declared of `kind` (a boolean,
/// `unit` or `void`), the threaded builtins below; returns its string.
/// The routine compares the value with each number the kind stores
/// ([`Kind::stored_texts`]) by a branch on their difference, and returns
/// the text of the one it equals; a number it equals none of (given
/// where the kind is declared, in an ill-typed program) is shown as an
/// integer by `__kildall_show_int`, as the reference interpreter keeps
/// it. The branches read only the value, so no hint can steer them.
pub fn show_named_routine(kind: Kind, n_builtins: usize) -> Vec<Instr> {
    let name = show_named_label(kind);
    let deepest = -3 - n_builtins as i16;
    let mut out = vec![Instr::Label(name.clone())];
    let mut next = 0;
    for (k, (stored, text)) in kind.stored_texts().iter().enumerate() {
        let other = format!("{name}${k}");
        let mut b = Body {
            out: Vec::new(),
            next,
        };
        let apart = if stored.is_zero() {
            -3
        } else {
            b.push(Rhs::Op(ArithOp::Sub, MemRef::fp(-3), Val::Imm(*stored)))
        };
        b.out.push(jnz(other.clone(), apart));
        next = b.next;
        let fp_cell = b.get_fp();
        let text = b.object(fp_cell, &leaf(text));
        out.extend(finish(b, deepest, n_builtins, text));
        out.push(Instr::Label(other));
    }
    let mut b = Body {
        out: Vec::new(),
        next,
    };
    b.builtins(deepest, n_builtins, 0);
    b.push(Rhs::Val(val(-3)));
    b.out.push(call(SHOW_INT));
    b.out.push(Instr::Ret);
    out.extend(b.out);
    out
}
