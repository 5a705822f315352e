//! Heap values in Cairo memory: their layout, the runtime routines that
//! need a dynamic number of cells, and the printing of a result.
//!
//! Objects are written on the execution stack like any other cell, in
//! order and once, by the function that allocates them; a value is the
//! address of its first cell. Every object starts with a header that says
//! what it is, so that a result can be printed from memory alone:
//!
//! * a constructor: `[2 tag + 1, fields...]`, `tag` its index in the module
//!   (records too, unlike Juvix, which drops the header of records);
//! * a closure: `[2 id, left, stored, args...]`, `id` the index of its
//!   function among those `calloc` names, `left` the arguments it still
//!   takes and `stored` the ones it holds;
//! * a string: a leaf `[-1, n, bytes...]` or a concatenation
//!   `[-2, n, left, right]` (`strings`);
//! * an IO action: a constructor numbered after the module's own (`io`).
//!
//! A small odd header is a constructor, a small even one a closure. `case` jumps by
//! the header (less twice the type's first tag) into a table of two-word
//! `jmp`s, which is why headers step by two (as Juvix's `2 tag + 1`).
//!
//! Copying a closure's stored arguments takes a number of cells known only
//! at run time, which a block (whose `ap` offset is static) cannot do, so
//! calls through closures and `cextend` go through routines that return
//! like functions: `__kildall_apply_N` jumps by the closure's id to a stub
//! that pushes the stored and the `N` new arguments and calls the
//! function; `__kildall_cextend_N` copies the stored arguments by jumping
//! into an unrolled copy at the entry that copies exactly that many.

mod io;
mod kind;
mod show;
mod string_eq;
mod strings;

pub use io::{interleave, io_output, run_io_routine, IoTags, IO_CTORS, RUN_IO};
pub use kind::Kind;
pub use show::{show_named_label, show_named_routine, show_routine, SHOW};
pub use string_eq::{eq_str_routine, EQ_STR};
pub use strings::{
    atoi_routine, show_int_routine, ATOI, CONCAT_HEADER, CONCAT_LEFT, MAX_ATOI_DIGITS, SHOW_INT,
    STRING_BYTES, STRING_HEADER, STRING_LEN,
};

use crate::felt::Felt;
use crate::listing::{ArithOp, Hint, Instr, MemRef, Rhs, Target, Val};

/// The routine that returns at once: `call` leaves the caller's `fp` in
/// the cell it wrote at `[ap]`.
pub const GET_FP: &str = "__kildall_get_fp";

/// Longest string the printers read.
const MAX_PRINT_STRING: usize = 1 << 24;

/// The text of the string at `p`, when `p` holds one (a rope of leaves
/// `[-1, n, bytes...]` and concatenations `[-2, n, left, right]`, see
/// `strings`), read in order with an explicit stack.
pub fn string_text<P: Clone>(
    p: &P,
    load: &dyn Fn(&P, usize) -> Option<Cell<P>>,
) -> Option<Result<String, String>> {
    let header = |p: &P| match load(p, 0) {
        Some(Cell::Num(h)) if h == Felt::from_i128(STRING_HEADER) => Some(false),
        Some(Cell::Num(h)) if h == Felt::from_i128(CONCAT_HEADER) => Some(true),
        _ => None,
    };
    header(p)?;
    let bad = || Err("a string with unwritten or malformed cells".to_string());
    let mut bytes = Vec::new();
    let mut stack = vec![p.clone()];
    let mut visited = 0usize;
    while let Some(p) = stack.pop() {
        visited += 1;
        if visited > MAX_PRINT_STRING {
            return Some(bad());
        }
        match header(&p) {
            Some(true) => {
                let part = |k: i16| match load(&p, (CONCAT_LEFT + k) as usize) {
                    Some(Cell::Ptr(q)) => Some(q),
                    _ => None,
                };
                let (Some(left), Some(right)) = (part(0), part(1)) else {
                    return Some(bad());
                };
                stack.push(right);
                stack.push(left);
            }
            Some(false) => {
                let n = match load(&p, STRING_LEN as usize) {
                    Some(Cell::Num(n)) => small(n).map(|n| n as usize),
                    _ => None,
                };
                let Some(n) = n.filter(|n| bytes.len() + n <= MAX_PRINT_STRING) else {
                    return Some(bad());
                };
                for k in 0..n {
                    match load(&p, STRING_BYTES as usize + k) {
                        Some(Cell::Num(b)) if small(b).is_some_and(|b| b < 256) => {
                            bytes.push(small(b).unwrap_or(0) as u8)
                        }
                        _ => return Some(bad()),
                    }
                }
            }
            None => return Some(bad()),
        }
    }
    Some(Ok(String::from_utf8_lossy(&bytes).into_owned()))
}

/// The value of `f` when it is below `2^64`.
fn small(f: Felt) -> Option<u64> {
    let l = f.limbs();
    ((l[1] | l[2] | l[3]) == 0).then_some(l[0])
}

/// Offset of a closure's `left` count.
pub const CLOSURE_LEFT: i16 = 1;
/// Offset of a closure's `stored` count.
pub const CLOSURE_STORED: i16 = 2;
/// Offset of a closure's first stored argument.
pub const CLOSURE_ARGS: i16 = 3;

/// The header of constructor `tag`.
pub fn ctor_header(tag: u32) -> u128 {
    2 * u128::from(tag) + 1
}

/// The header of a closure of function `id` (among closure functions).
pub fn closure_header(id: u32) -> u128 {
    2 * u128::from(id)
}

/// Offset of field `index` of a constructor.
pub fn field_offset(index: u32) -> i16 {
    (1 + index).min(i16::MAX as u32) as i16
}

/// The routine calling a closure with `n` arguments.
pub fn apply_label(n: usize) -> String {
    format!("__kildall_apply_{n}")
}

/// The routine applying a closure to `n` arguments, however many it takes.
pub fn ccall_label(n: usize) -> String {
    format!("__kildall_ccall_{n}")
}

/// The routine comparing two constructors structurally.
pub const EQ: &str = "__kildall_eq";

/// The routine extending a closure with `n` arguments.
pub fn extend_label(n: usize) -> String {
    format!("__kildall_cextend_{n}")
}

fn assign(dst: MemRef, rhs: Rhs) -> Instr {
    Instr::Assign {
        dst,
        rhs,
        ap_incr: true,
    }
}

fn push(rhs: Rhs) -> Instr {
    assign(MemRef::ap(0), rhs)
}

fn imm(x: i128) -> Val {
    Val::Imm(Felt::from_i128(x))
}

fn jmp(label: String) -> Instr {
    Instr::Jump {
        target: Target::Label(label),
        cond: None,
        ap_incr: false,
    }
}

/// Pushes the builtin pointers a routine was called with, below its
/// closure and `n` arguments, in order.
fn push_builtins(out: &mut Vec<Instr>, n: i16, n_builtins: usize) {
    let deepest = -4 - n - (n_builtins as i16 - 1);
    for k in 0..n_builtins as i16 {
        out.push(push(Rhs::Val(Val::Mem(MemRef::fp(deepest + k)))));
    }
}

/// A function a closure can hold: its label and number of parameters.
pub struct ClosureFunc<'a> {
    /// Label.
    pub name: &'a str,
    /// Parameters.
    pub arity: usize,
}

/// `__kildall_apply_N`: called with the closure at `[fp - 3]`, the new
/// argument `j` at `[fp - 4 - j]` and the `n_builtins` threaded builtin
/// pointers below them. Returns what the function returns.
pub fn apply_routine(n: usize, funcs: &[ClosureFunc<'_>], n_builtins: usize) -> Vec<Instr> {
    let name = apply_label(n);
    let n16 = n as i16;
    let mut out = dispatch_by_closure_id(&name, funcs.len());
    for (id, f) in funcs.iter().enumerate() {
        out.push(Instr::Label(format!("{name}${id}")));
        // The closure must take exactly `n` more arguments (a function
        // with fewer parameters fails here too: its `left` is below `n`).
        out.push(push(Rhs::Val(imm(n as i128))));
        out.push(Instr::Assign {
            dst: MemRef::ap(-1),
            rhs: Rhs::Deref(MemRef::fp(-3), CLOSURE_LEFT),
            ap_incr: false,
        });
        if f.arity < n {
            out.push(Instr::Ret);
            continue;
        }
        push_builtins(&mut out, n16, n_builtins);
        push_call_args(&mut out, n16, (f.arity - n) as i16);
        out.push(Instr::Call(Target::Label(f.name.to_string())));
        out.push(Instr::Ret);
    }
    out
}

/// The start of a routine called with a closure at `[fp - 3]`: it jumps by
/// the closure's header `2 id` (plus one, over the `jmp` itself) into a
/// table of two-word jumps to `{name}${id}`, one per closure function.
fn dispatch_by_closure_id(name: &str, n_funcs: usize) -> Vec<Instr> {
    let mut out = vec![
        Instr::Label(name.to_string()),
        push(Rhs::Deref(MemRef::fp(-3), 0)),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(0), imm(1))),
        Instr::Jump {
            target: Target::Cell(MemRef::fp(1)),
            cond: None,
            ap_incr: false,
        },
    ];
    for id in 0..n_funcs {
        out.push(jmp(format!("{name}${id}")));
    }
    out
}

/// Pushes the arguments of a call of the closure's function: its `stored`
/// arguments, then the first `new` of the routine's (at `[fp - 4 - j]`),
/// the last parameter first.
fn push_call_args(out: &mut Vec<Instr>, new: i16, stored: i16) {
    for j in (0..new).rev() {
        out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-4 - j)))));
    }
    for i in (0..stored).rev() {
        out.push(push(Rhs::Deref(MemRef::fp(-3), CLOSURE_ARGS + i)));
    }
}

/// `__kildall_ccall_N`: called like `__kildall_apply_N`; applies the
/// closure to its `N` arguments as Juvix's `CallClosures` does. It jumps
/// by the closure's id to a stub of its function (arity `A`), which jumps
/// by the closure's `left` count (`0..=A`, as `calloc` and `cextend`
/// keep it) into a table of `A + 1` entries:
///
/// * `left = N`: the function is called with the stored and new arguments;
/// * `left > N`: `__kildall_cextend_N` extends the closure;
/// * `left < N`: the function is called with the stored arguments and the
///   first `left` new ones, and `__kildall_ccall_{N - left}` applies the
///   closure it returns to the rest (found `ap`-relative, as the call
///   leaves `ap` where the callee left it).
///
/// Every path ends in `call; ret`, as a tail call does on Cairo.
pub fn ccall_routine(n: usize, funcs: &[ClosureFunc<'_>], n_builtins: usize) -> Vec<Instr> {
    let name = ccall_label(n);
    let n16 = n as i16;
    let nb = n_builtins as i16;
    let mut out = dispatch_by_closure_id(&name, funcs.len());
    for (id, f) in funcs.iter().enumerate() {
        let stub = format!("{name}${id}");
        out.push(Instr::Label(stub.clone()));
        // [fp + 2] left, [fp + 3] 2 left, [fp + 4] 2 left + 1.
        out.push(push(Rhs::Deref(MemRef::fp(-3), CLOSURE_LEFT)));
        out.push(push(Rhs::Op(
            ArithOp::Add,
            MemRef::fp(2),
            Val::Mem(MemRef::fp(2)),
        )));
        out.push(push(Rhs::Op(ArithOp::Add, MemRef::fp(3), imm(1))));
        out.push(Instr::Jump {
            target: Target::Cell(MemRef::fp(4)),
            cond: None,
            ap_incr: false,
        });
        for left in 0..=f.arity {
            out.push(jmp(format!("{stub}${left}")));
        }
        for left in 0..=f.arity {
            out.push(Instr::Label(format!("{stub}${left}")));
            push_builtins(&mut out, n16, n_builtins);
            if left > n {
                for j in (0..n16).rev() {
                    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-4 - j)))));
                }
                out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-3)))));
                out.push(Instr::Call(Target::Label(extend_label(n))));
                out.push(Instr::Ret);
                continue;
            }
            // The stored arguments, then the first `left` new ones.
            push_call_args(&mut out, left as i16, (f.arity - left) as i16);
            out.push(Instr::Call(Target::Label(f.name.to_string())));
            if left < n {
                // The result at `[ap - 1]`, the builtins' pointers below.
                for _ in 0..nb {
                    out.push(push(Rhs::Val(Val::Mem(MemRef::ap(-1 - nb)))));
                }
                let rest = n16 - left as i16;
                for j in (left as i16..n16).rev() {
                    out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-4 - j)))));
                }
                out.push(push(Rhs::Val(Val::Mem(MemRef::ap(-1 - nb - rest)))));
                out.push(Instr::Call(Target::Label(ccall_label(n - left))));
            }
            out.push(Instr::Ret);
        }
    }
    out
}

/// `__kildall_cextend_N`: called like `__kildall_apply_N`; returns a new
/// closure with the `N` arguments stored after the old ones. `max_stored`
/// bounds the stored arguments of any closure (the largest arity).
///
/// A closure that takes fewer than `N` more arguments is refused here, by
/// a jump on its `left` count into a table of `max_stored + 1` two-word
/// jumps, to the end or to a failing assertion (with a hint that names
/// the closure, so that both machines report the same error). `left` is
/// never above `max_stored`: `calloc` writes at most the arity, and the
/// routine only lowers it; so the table covers every value the jump meets.
pub fn extend_routine(n: usize, max_stored: usize, n_builtins: usize) -> Vec<Instr> {
    let n16 = n as i16;
    let max = max_stored.max(1) as i16;
    let name = extend_label(n);
    let refuse = format!("{name}$refuse");
    let ok = format!("{name}$ok");
    let mut out = vec![
        Instr::Label(name),
        // [fp] left, [fp + 1] stored, [fp + 2] closure + stored,
        // [fp + 3] -stored, [fp + 4] the jump into the copy.
        push(Rhs::Deref(MemRef::fp(-3), CLOSURE_LEFT)),
        push(Rhs::Deref(MemRef::fp(-3), CLOSURE_STORED)),
        push(Rhs::Op(
            ArithOp::Add,
            MemRef::fp(-3),
            Val::Mem(MemRef::fp(1)),
        )),
        push(Rhs::Op(ArithOp::Mul, MemRef::fp(1), imm(-1))),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(3), imm(max as i128 + 1))),
        // [fp + 5] fp, [fp + 6] return pc; the new closure from [fp + 7].
        Instr::Call(Target::Label(GET_FP.to_string())),
        push(Rhs::Deref(MemRef::fp(-3), 0)),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(0), imm(-(n as i128)))),
        push(Rhs::Op(ArithOp::Add, MemRef::fp(1), imm(n as i128))),
        // Entry `max - stored` copies the last `stored` of `max` slots,
        // which read the stored arguments in order.
        Instr::Jump {
            target: Target::Cell(MemRef::fp(4)),
            cond: None,
            ap_incr: false,
        },
    ];
    for i in 0..max {
        out.push(push(Rhs::Deref(MemRef::fp(2), CLOSURE_ARGS - max + i)));
    }
    for j in 0..n16 {
        out.push(push(Rhs::Val(Val::Mem(MemRef::fp(-4 - j)))));
    }
    // The check `left >= N`: `jmp rel [ap - 1]` lands `1 + 2 left` words
    // on, at the table's entry for `left`.
    out.push(push(Rhs::Op(
        ArithOp::Add,
        MemRef::fp(0),
        Val::Mem(MemRef::fp(0)),
    )));
    out.push(push(Rhs::Op(ArithOp::Add, MemRef::ap(-1), imm(1))));
    out.push(Instr::Jump {
        target: Target::Cell(MemRef::ap(-1)),
        cond: None,
        ap_incr: false,
    });
    for left in 0..=max as usize {
        out.push(jmp(if left < n { refuse.clone() } else { ok.clone() }));
    }
    out.push(Instr::Label(refuse));
    out.push(Instr::Hint(Hint::ExtendRefused {
        closure: Val::Mem(MemRef::fp(-3)),
        given: imm(n as i128),
    }));
    out.push(fail_here());
    out.push(Instr::Label(ok));
    push_builtins(&mut out, n16, n_builtins);
    out.push(push(Rhs::Op(ArithOp::Add, MemRef::fp(5), imm(7))));
    out.push(Instr::Ret);
    out
}

/// An assertion that cannot hold (`[fp - 1]`, the return address, equal
/// to itself plus one): the run stops at it on every machine.
pub fn fail_here() -> Instr {
    Instr::Assign {
        dst: MemRef::fp(-1),
        rhs: Rhs::Op(ArithOp::Add, MemRef::fp(-1), Val::Imm(Felt::ONE)),
        ap_incr: false,
    }
}

/// A closure given other than the arguments it still takes (by a call or
/// by `cextend`), as both machines report it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("closure of {func} takes {left} more arguments, {given} given")]
pub struct ClosureArityError {
    /// The closure's function.
    pub func: String,
    /// The arguments it still takes.
    pub left: Felt,
    /// The arguments given.
    pub given: Felt,
}

impl ClosureArityError {
    /// The error for the closure whose header and `left` count are
    /// `header` and `left`.
    pub fn new(header: Felt, left: Felt, given: Felt, names: &HeapNames) -> ClosureArityError {
        let l = header.limbs();
        let known = (l[1] | l[2] | l[3]) == 0 && l[0].is_multiple_of(2);
        let func = usize::try_from(l[0] / 2)
            .ok()
            .filter(|_| known)
            .and_then(|id| names.closures.get(id))
            .cloned()
            .unwrap_or_else(|| format!("<object with header {header}>"));
        ClosureArityError { func, left, given }
    }
}

/// The error of a failed check `left = N` in the stub of
/// `__kildall_apply_N` for a closure function (`label` is the stub's,
/// `given` and `left` the two sides of the assertion); `None` when `label`
/// is not such a stub.
pub fn apply_arity_failure(
    label: &str,
    given: Felt,
    left: Felt,
    names: &HeapNames,
) -> Option<ClosureArityError> {
    let (n, id) = label.strip_prefix("__kildall_apply_")?.split_once('$')?;
    n.parse::<usize>().ok()?;
    let func = names.closures.get(id.parse::<usize>().ok()?)?.clone();
    Some(ClosureArityError { func, left, given })
}

/// A field read of one constructor from another value, as both machines
/// report it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a field of {expected} read from {found}")]
pub struct WrongConstructorError {
    /// The constructor the read names.
    pub expected: String,
    /// What the value is.
    pub found: String,
}

impl WrongConstructorError {
    /// The error for an object whose header is `found` read as the
    /// constructor whose header is `expected`.
    pub fn new(expected: Felt, found: Felt, names: &HeapNames) -> WrongConstructorError {
        WrongConstructorError {
            expected: describe_header(expected, names),
            found: describe_header(found, names),
        }
    }
}

/// What an object with header `h` is: `constructor C`, `a closure of f`.
pub fn describe_header(h: Felt, names: &HeapNames) -> String {
    let l = h.limbs();
    let small = (l[1] | l[2] | l[3]) == 0;
    let named = if !small {
        None
    } else if l[0] % 2 == 1 {
        let tag = usize::try_from(l[0] / 2).ok();
        tag.and_then(|t| names.ctors.get(t))
            .map(|c| format!("constructor {}", c.0))
    } else {
        let id = usize::try_from(l[0] / 2).ok();
        id.and_then(|i| names.closures.get(i))
            .map(|f| format!("a closure of {f}"))
    };
    named.unwrap_or_else(|| format!("an object with header {h}"))
}

/// What the printer needs to know of a module's heap values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeapNames {
    /// Every constructor by tag: name, number of fields, whether it is a
    /// record (the only constructor of its type).
    pub ctors: Vec<(String, usize, bool)>,
    /// What the fields of the module's own constructors hold, by tag: the
    /// printer reads a field element by it (the IO constructors' fields,
    /// and any missing here, print as [`Kind::Any`]).
    pub field_kinds: Vec<Vec<Kind>>,
    /// Every closure function by id.
    pub closures: Vec<String>,
}

impl HeapNames {
    /// The names of `module`'s constructors and of the functions its
    /// closures can hold.
    pub fn of(module: &crate::jvr::Module, ssa: &crate::ssa::SsaModule) -> HeapNames {
        let ctors = module
            .types
            .iter()
            .flat_map(|t| {
                let record = t.ctors.len() == 1;
                t.ctors
                    .iter()
                    .map(move |c| (c.name.clone(), c.arity, record))
            })
            .chain(IO_CTORS.iter().map(|(n, a)| (n.to_string(), *a, false)))
            .collect();
        let closures = ssa
            .closure_funcs
            .iter()
            .map(|f| ssa.functions[f.0 as usize].name.clone())
            .collect();
        HeapNames {
            ctors,
            field_kinds: ssa.field_kinds.clone(),
            closures,
        }
    }
}

/// A memory value as the printer sees it: a number or an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell<P> {
    /// A field element.
    Num(Felt),
    /// An address.
    Ptr(P),
}

/// Deepest nesting of records the printer follows.
const MAX_PRINT_DEPTH: usize = 1000;

/// The lines of a value, as `jvr_interp::Val::output_lines` prints the
/// same value: a number in signed decimal, a record field by field
/// (flattened), another constructor as `<Name>`, a closure as
/// `<closure f>`. `load(p, k)` reads the cell `k` after address `p`.
pub fn value_lines<P: Clone>(
    v: &Cell<P>,
    load: &dyn Fn(&P, usize) -> Option<Cell<P>>,
    names: &HeapNames,
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    push_lines(v, load, names, 0, &mut out)?;
    Ok(out)
}

fn push_lines<P: Clone>(
    v: &Cell<P>,
    load: &dyn Fn(&P, usize) -> Option<Cell<P>>,
    names: &HeapNames,
    depth: usize,
    out: &mut Vec<String>,
) -> Result<(), String> {
    let p = match v {
        Cell::Num(f) => {
            out.push(f.to_string());
            return Ok(());
        }
        Cell::Ptr(p) => p,
    };
    if let Some(text) = string_text(p, load) {
        out.extend(text?.split('\n').map(str::to_string));
        return Ok(());
    }
    if depth > MAX_PRINT_DEPTH {
        return Err("records nested too deep to print".to_string());
    }
    let header = match load(p, 0) {
        Some(Cell::Num(h)) => h.limbs(),
        _ => return Err("an address that holds no object".to_string()),
    };
    if header[1] != 0 || header[2] != 0 || header[3] != 0 {
        return Err("an object with an unknown header".to_string());
    }
    let h = header[0] as usize;
    let unknown = || "an object with an unknown header".to_string();
    if h.is_multiple_of(2) {
        let f = names.closures.get(h / 2).ok_or_else(unknown)?;
        out.push(format!("<closure {f}>"));
        return Ok(());
    }
    let (name, arity, record) = names.ctors.get(h / 2).ok_or_else(unknown)?;
    if !record {
        out.push(format!("<{name}>"));
        return Ok(());
    }
    for k in 0..*arity {
        let field = load(p, 1 + k).ok_or("a record with an unwritten field")?;
        push_lines(&field, load, names, depth + 1, out)?;
    }
    Ok(())
}

/// Whether a result prints nothing as a term: `void`, as Juvix prints it
/// (a number given where `void` is declared is no `void`, and prints).
pub fn prints_nothing<P>(v: &Cell<P>, kind: Kind) -> bool {
    kind == Kind::Void && matches!(v, Cell::Num(f) if f.is_zero())
}

/// The text of a value as Juvix's Reg interpreter prints it (see
/// `jvr_interp::Val::text`): a number by its kind, a constructor as a
/// term `C f1 (D f2)`, a closure as `<closure f>`.
pub fn value_term<P: Clone>(
    v: &Cell<P>,
    kind: Kind,
    load: &dyn Fn(&P, usize) -> Option<Cell<P>>,
    names: &HeapNames,
) -> Result<String, String> {
    let mut out = String::new();
    push_term(v, kind, load, names, 0, &mut out)?;
    Ok(out)
}

fn push_term<P: Clone>(
    v: &Cell<P>,
    kind: Kind,
    load: &dyn Fn(&P, usize) -> Option<Cell<P>>,
    names: &HeapNames,
    depth: usize,
    out: &mut String,
) -> Result<(), String> {
    // A number given where `bool`, `unit` or `void` is declared that none
    // of them stores prints as the number, as the reference interpreter
    // keeps it (`jvr_interp::Val::as_declared`).
    let p = match v {
        Cell::Num(f) => {
            match kind.stored_texts().iter().find(|(n, _)| n == f) {
                Some((_, text)) => out.push_str(text),
                None => out.push_str(&f.to_string()),
            }
            return Ok(());
        }
        Cell::Ptr(p) => p,
    };
    if let Some(text) = string_text(p, load) {
        out.push_str(&text?);
        return Ok(());
    }
    if depth > MAX_PRINT_DEPTH {
        return Err("constructors nested too deep to print".to_string());
    }
    let unknown = || "an object with an unknown header".to_string();
    let header = match load(p, 0) {
        Some(Cell::Num(h)) => h.limbs(),
        _ => return Err("an address that holds no object".to_string()),
    };
    if header[1] != 0 || header[2] != 0 || header[3] != 0 {
        return Err(unknown());
    }
    let h = header[0] as usize;
    if h.is_multiple_of(2) {
        let f = names.closures.get(h / 2).ok_or_else(unknown)?;
        out.push_str(&format!("<closure {f}>"));
        return Ok(());
    }
    let (name, arity, _) = names.ctors.get(h / 2).ok_or_else(unknown)?;
    if *arity > 0 && depth > 0 {
        out.push('(');
    }
    out.push_str(name);
    let kinds = names.field_kinds.get(h / 2);
    for k in 0..*arity {
        let field = load(p, 1 + k).ok_or("a constructor with an unwritten field")?;
        let kind = kinds.and_then(|f| f.get(k)).copied().unwrap_or_default();
        out.push(' ');
        push_term(&field, kind, load, names, depth + 1, out)?;
    }
    if *arity > 0 && depth > 0 {
        out.push(')');
    }
    Ok(())
}

/// Where the threaded builtins' pointers are inside `__kildall_eq`.
#[derive(Clone, Copy)]
enum BuiltinsAt {
    /// Below the two operands, as the routine was called.
    Entry,
    /// Below the result of the last recursive call, `pushed` cells since.
    AfterCall { pushed: i16 },
}

fn push_builtins_at(out: &mut Vec<Instr>, at: BuiltinsAt, n_builtins: usize) {
    match at {
        BuiltinsAt::Entry => push_builtins(out, 1, n_builtins),
        BuiltinsAt::AfterCall { pushed } => {
            let nb = n_builtins as i16;
            for _ in 0..nb {
                out.push(push(Rhs::Val(Val::Mem(MemRef::ap(-1 - nb - pushed)))));
            }
        }
    }
}

/// `__kildall_eq`: structural equality of the constructors at `[fp - 3]`
/// and `[fp - 4]` (threaded builtins below them, as a function takes
/// them); returns a Juvix boolean (0 when equal). Different headers are
/// unequal; equal headers jump by the header into a table of the
/// module's constructors (`field_kinds` by tag), whose entry compares the
/// fields in order: numbers by the difference of their cells, constructors
/// by a recursive call, strings by `__kildall_eq_str`. Every failing
/// comparison ends in its own tail,
/// which knows where the builtins' pointers are.
pub fn eq_routine(field_kinds: &[Vec<Kind>], n_builtins: usize) -> Vec<Instr> {
    let differ = format!("{EQ}$differ");
    let mut out = vec![
        Instr::Label(EQ.to_string()),
        push(Rhs::Deref(MemRef::fp(-3), 0)),
        push(Rhs::Deref(MemRef::fp(-4), 0)),
        push(Rhs::Op(
            ArithOp::Sub,
            MemRef::fp(0),
            Val::Mem(MemRef::fp(1)),
        )),
        Instr::Jump {
            target: Target::Label(differ.clone()),
            cond: Some(MemRef::fp(2)),
            ap_incr: false,
        },
        // The header `2 tag + 1` is the jump to the table's entry for `tag`.
        Instr::Jump {
            target: Target::Cell(MemRef::fp(0)),
            cond: None,
            ap_incr: false,
        },
    ];
    for tag in 0..field_kinds.len() {
        out.push(jmp(format!("{EQ}${tag}")));
    }
    let mut tails = vec![(differ, BuiltinsAt::Entry)];
    for (tag, kinds) in field_kinds.iter().enumerate() {
        out.push(Instr::Label(format!("{EQ}${tag}")));
        let mut at = BuiltinsAt::Entry;
        for (k, kind) in kinds.iter().enumerate() {
            let off = field_offset(k as u32);
            if matches!(kind, Kind::Object | Kind::Str) {
                let routine = if *kind == Kind::Str { EQ_STR } else { EQ };
                push_builtins_at(&mut out, at, n_builtins);
                out.push(push(Rhs::Deref(MemRef::fp(-4), off)));
                out.push(push(Rhs::Deref(MemRef::fp(-3), off)));
                out.push(Instr::Call(Target::Label(routine.to_string())));
                at = BuiltinsAt::AfterCall { pushed: 0 };
            } else {
                out.push(push(Rhs::Deref(MemRef::fp(-3), off)));
                out.push(push(Rhs::Deref(MemRef::fp(-4), off)));
                out.push(push(Rhs::Op(
                    ArithOp::Sub,
                    MemRef::ap(-2),
                    Val::Mem(MemRef::ap(-1)),
                )));
                if let BuiltinsAt::AfterCall { pushed } = &mut at {
                    *pushed += 3;
                }
            }
            let fail = format!("{EQ}${tag}$differ{k}");
            out.push(Instr::Jump {
                target: Target::Label(fail.clone()),
                cond: Some(MemRef::ap(-1)),
                ap_incr: false,
            });
            tails.push((fail, at));
        }
        push_builtins_at(&mut out, at, n_builtins);
        out.push(push(Rhs::Val(imm(0))));
        out.push(Instr::Ret);
    }
    for (label, at) in tails {
        out.push(Instr::Label(label));
        push_builtins_at(&mut out, at, n_builtins);
        out.push(push(Rhs::Val(imm(1))));
        out.push(Instr::Ret);
    }
    out
}
