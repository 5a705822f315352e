//! IO actions in Cairo memory and the routine that runs them.
//!
//! Juvix's Reg language builds IO actions with the constructors `return x`,
//! `bind a f` and `write x`, and runs the one `main` returns after `main`
//! returns. Here they are constructors numbered after the module's own
//! ([`IoTags`]); `return` and `write` store, after their value, the code
//! of its kind ([`Kind::code`]) at the `alloc` that made them, so that
//! what `write` prints and what the run returns can be printed as terms
//! whatever the functions that pass them around declare.
//!
//! `__kildall_run_io` runs an action with the `output` builtin's pointer:
//! `write` asserts its value and kind code into the next two cells of the
//! `output` segment (the runners print them), `bind` runs its action,
//! applies its closure to the result through `__kildall_ccall_1`, and runs
//! the action that returns. It returns the `output` pointer past what it
//! wrote, the result and the result's kind code, as a function returns
//! (threaded builtins below). A constructor of the module is no action:
//! it is its own result, as in Juvix's Reg interpreter.

use super::{ccall_label, imm, jmp, push, push_builtins, Kind};
use crate::listing::{ArithOp, Instr, MemRef, Rhs, Target, Val};

/// The routine running an IO action.
pub const RUN_IO: &str = "__kildall_run_io";

/// The routine `bind` continues with once its action has run.
const BIND_THEN: &str = "__kildall_bind_then";

/// The IO constructors, in tag order, with the number of fields the
/// source gives them.
pub const IO_CTORS: [(&str, usize); 3] = [("return", 1), ("bind", 2), ("write", 1)];

/// Where a module's IO constructors are: after its own `n_module`
/// constructors, in the order of [`IO_CTORS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoTags {
    /// The number of constructors the module declares.
    pub n_module: u32,
}

impl IoTags {
    /// The tag of IO constructor `name`, with its number of fields.
    pub fn ctor(self, name: &str) -> Option<(u32, usize)> {
        let k = IO_CTORS.iter().position(|(n, _)| *n == name)?;
        Some((self.n_module + k as u32, IO_CTORS[k].1))
    }

    /// Whether IO constructor `name` stores the kind code of its value.
    pub fn stores_kind(name: &str) -> bool {
        matches!(name, "return" | "write")
    }
}

fn deref(at: i16, off: i16) -> Rhs {
    Rhs::Deref(MemRef::fp(at), off)
}

fn call(label: &str) -> Instr {
    Instr::Call(Target::Label(label.to_string()))
}

/// `__kildall_run_io` and the routine its `bind` continues with. Called
/// with the action at `[fp - 3]`, the `output` pointer at `[fp - 4]` and
/// the `n_builtins` threaded builtin pointers below them.
pub fn run_io_routine(tags: IoTags, n_builtins: usize) -> Vec<Instr> {
    let label = |what: &str| format!("{RUN_IO}${what}");
    let mut out = vec![
        Instr::Label(RUN_IO.to_string()),
        // The header `2 tag + 1` is the jump to the table's entry for `tag`.
        push(deref(-3, 0)),
        Instr::Jump {
            target: Target::Cell(MemRef::fp(0)),
            cond: None,
            ap_incr: false,
        },
    ];
    for _ in 0..tags.n_module {
        out.push(jmp(label("value")));
    }
    for (name, _) in IO_CTORS {
        out.push(jmp(label(name)));
    }
    // A constructor of the module is its own result.
    out.push(Instr::Label(label("value")));
    push_builtins(&mut out, 1, n_builtins);
    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-4)))));
    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-3)))));
    out.push(push(Rhs::Val(imm(Kind::Object.code().into()))));
    out.push(Instr::Ret);

    out.push(Instr::Label(label("return")));
    push_builtins(&mut out, 1, n_builtins);
    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-4)))));
    out.push(push(deref(-3, 1)));
    out.push(push(deref(-3, 2)));
    out.push(Instr::Ret);

    // The value and its kind code go to the next two `output` cells.
    out.push(Instr::Label(label("write")));
    out.push(push(deref(-3, 1)));
    out.push(push(deref(-3, 2)));
    for k in 0..2 {
        out.push(Instr::Assign {
            dst: MemRef::fp(1 + k),
            rhs: deref(-4, k),
            ap_incr: false,
        });
    }
    push_builtins(&mut out, 1, n_builtins);
    out.push(push(Rhs::Op(ArithOp::Add, MemRef::fp(-4), imm(2))));
    out.push(push(Rhs::Val(imm(0))));
    out.push(push(Rhs::Val(imm(Kind::Void.code().into()))));
    out.push(Instr::Ret);

    // Runs the action, then `__kildall_bind_then` with the builtins, the
    // `output` pointer, the result and its code the call leaves on top.
    out.push(Instr::Label(label("bind")));
    push_builtins(&mut out, 1, n_builtins);
    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-4)))));
    out.push(push(deref(-3, 1)));
    out.push(call(RUN_IO));
    out.push(push(deref(-3, 2)));
    out.push(call(BIND_THEN));
    out.push(Instr::Ret);

    out.extend(bind_then(n_builtins));
    out
}

/// `__kildall_bind_then`: the closure at `[fp - 3]`, the kind code of the
/// result at `[fp - 4]`, the result at `[fp - 5]`, the `output` pointer at
/// `[fp - 6]`, the builtins below. Applies the closure to the result and
/// runs the action it returns (`call; ret`, as every tail call).
fn bind_then(n_builtins: usize) -> Vec<Instr> {
    let nb = n_builtins as i16;
    let mut out = vec![Instr::Label(BIND_THEN.to_string())];
    push_builtins(&mut out, 3, n_builtins);
    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-5)))));
    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-3)))));
    out.push(call(&ccall_label(1)));
    // The builtins' pointers and the action are on top: `nb + 1` cells.
    for _ in 0..nb {
        out.push(push(Rhs::Val(Val::Mem(MemRef::ap(-1 - nb)))));
    }
    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-6)))));
    out.push(push(Rhs::Val(Val::Mem(MemRef::ap(-2 - nb)))));
    out.push(call(RUN_IO));
    out.push(Instr::Ret);
    out
}

/// What a run whose entry returned an IO action printed and returned, read
/// from the cells of its `output` segment (pairs of a value and its kind
/// code, the last pair the result): the text of each `write`, as Juvix's
/// Reg interpreter prints them (strings as their text, other values as
/// terms, nothing between them), then the result and its kind.
pub fn io_output<P: Clone>(
    public: &[super::Cell<P>],
    load: &dyn Fn(&P, usize) -> Option<super::Cell<P>>,
    names: &super::HeapNames,
) -> Result<(Vec<String>, super::Cell<P>, Kind), String> {
    let pairs = public.chunks(2);
    let n = pairs.len();
    let mut text = Vec::new();
    let mut result = None;
    for (k, pair) in pairs.enumerate() {
        let [value, super::Cell::Num(code)] = pair else {
            return Err("an output cell that is not a value and a kind code".to_string());
        };
        let kind = Kind::from_code(*code).ok_or("an output cell with no kind code")?;
        if k + 1 == n {
            result = Some((value.clone(), kind));
        } else {
            text.push(super::value_term(value, kind, load, names)?);
        }
    }
    let (value, kind) = result.ok_or("no result in the output")?;
    Ok((text, value, kind))
}

/// The text a run printed, in the order it ran: each trace's lines
/// (`traces` holds its text, ending in a newline, and the number of
/// `output` cells written before it), the text of each `write` (two cells
/// each) where it came.
pub fn interleave(traces: &[(String, usize)], writes: &[String]) -> String {
    let mut text = String::new();
    let mut next = writes.iter().enumerate().peekable();
    for (line, cells) in traces {
        while let Some((_, w)) = next.next_if(|(k, _)| 2 * k < *cells) {
            text.push_str(w);
        }
        text.push_str(line);
    }
    next.for_each(|(_, w)| text.push_str(w));
    text
}
