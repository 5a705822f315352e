//! Heap objects in the frame (constructors and closures, laid out as
//! [`crate::heap`] says), calls through closures, and the runtime routines
//! the module needs.

use super::{Frame, Lowerer};
use crate::felt::Felt;
use crate::heap::{self, Kind};
use crate::jvr::BuiltinOp;
use crate::listing::{ArithOp, Builtin, Instr, MemRef, Rhs, Target, Val};
use crate::ssa::{ApplyKind, FuncId, Inst, Operand, SsaModule, Var};

impl Lowerer<'_> {
    /// A cell holding the value of `fp`, for addresses of cells of this
    /// frame: `call` writes the caller's `fp` into `[ap]`, so a call of a
    /// function that only returns leaves it there (two steps, once per
    /// block).
    pub(super) fn fp_value(&mut self, frame: &mut Frame) -> MemRef {
        if let Some(c) = frame.fp_cell {
            return MemRef::fp(c);
        }
        let c = frame.ap as i16;
        self.emit(Instr::Call(Target::Label(heap::GET_FP.to_string())));
        frame.ap += 2;
        frame.fp_cell = Some(c);
        MemRef::fp(c)
    }

    /// Writes an object (`header`, then `fields`) into the next cells and
    /// returns a cell holding its address.
    pub(super) fn alloc(&mut self, frame: &mut Frame, header: Felt, fields: &[Operand]) -> MemRef {
        let fields: Vec<Rhs> = fields
            .iter()
            .map(|f| Rhs::Val(self.val(frame, f)))
            .collect();
        self.alloc_rhs(frame, Rhs::Val(Val::Imm(header)), &fields)
    }

    /// [`Self::alloc`] of cells given as right-hand sides.
    fn alloc_rhs(&mut self, frame: &mut Frame, header: Rhs, fields: &[Rhs]) -> MemRef {
        let fp = self.fp_value(frame);
        let at = frame.ap;
        self.push(frame, header);
        for f in fields {
            self.push(frame, *f);
        }
        let at = Felt::from_i128(at as i128);
        self.push(frame, Rhs::Op(ArithOp::Add, fp, Val::Imm(at)))
    }

    /// `poseidon s` and `ec_op p m q` through the builtins: the operands'
    /// fields are written into the next instance, and the outputs the
    /// builtin deduces form a new constructor with the header of the first
    /// operand.
    pub(super) fn builtin(&mut self, frame: &mut Frame, op: BuiltinOp, args: &[Operand]) -> MemRef {
        let (builtin, inputs): (Builtin, Vec<(usize, i16)>) = match op {
            BuiltinOp::Poseidon => (Builtin::Poseidon, vec![(0, 1), (0, 2), (0, 3)]),
            // p.x p.y q.x q.y, then m (index 1, a number).
            BuiltinOp::EcOp => (Builtin::EcOp, vec![(0, 1), (0, 2), (2, 1), (2, 2)]),
        };
        let cells: Vec<MemRef> = args.iter().map(|a| self.in_cell(frame, a)).collect();
        let (ptr, off) = self.builtin_instance(frame, builtin, builtin.cells() as i32);
        let mut k = 0;
        for (arg, field) in inputs {
            let v = self.push(frame, Rhs::Deref(cells[arg], field));
            self.emit(Instr::Assign {
                dst: v,
                rhs: Rhs::Deref(ptr, off + k),
                ap_incr: false,
            });
            k += 1;
        }
        if op == BuiltinOp::EcOp {
            self.emit(Instr::Assign {
                dst: cells[1],
                rhs: Rhs::Deref(ptr, off + k),
                ap_incr: false,
            });
            k += 1;
        }
        let outputs: Vec<Rhs> = (k..builtin.cells() as i16)
            .map(|j| Rhs::Deref(ptr, off + j))
            .collect();
        self.alloc_rhs(frame, Rhs::Deref(cells[0], 0), &outputs)
    }

    /// A string constant: the leaf `[-1, n, bytes...]`.
    pub(super) fn string(&mut self, frame: &mut Frame, text: &str) -> MemRef {
        let cells: Vec<Operand> = std::iter::once(text.len())
            .chain(text.bytes().map(usize::from))
            .map(|c| Operand::Const(Felt::from_u128(c as u128)))
            .collect();
        self.alloc(frame, Felt::from_i128(heap::STRING_HEADER), &cells)
    }

    /// `strcat a b`: the concatenation `[-2, n, a, b]`, `n` the sum of
    /// the two strings' lengths.
    pub(super) fn strcat(&mut self, frame: &mut Frame, a: Var, b: Var) -> MemRef {
        let (a, b) = (self.cell(frame, a), self.cell(frame, b));
        let la = self.push(frame, Rhs::Deref(a, heap::STRING_LEN));
        let lb = self.push(frame, Rhs::Deref(b, heap::STRING_LEN));
        let cells = [
            Rhs::Op(ArithOp::Add, la, Val::Mem(lb)),
            Rhs::Val(Val::Mem(a)),
            Rhs::Val(Val::Mem(b)),
        ];
        let header = Rhs::Val(Val::Imm(Felt::from_i128(heap::CONCAT_HEADER)));
        self.alloc_rhs(frame, header, &cells)
    }

    /// A closure of `func` storing `args` (the layout of [`heap`]).
    pub(super) fn calloc(&mut self, frame: &mut Frame, func: FuncId, args: &[Operand]) -> MemRef {
        let id = self.module.closure_id(func).unwrap_or(0);
        let arity = self
            .module
            .functions
            .get(func.0 as usize)
            .map_or(0, |f| f.n_params as usize);
        let counts = [
            Operand::Const(Felt::from_u128((arity - args.len().min(arity)) as u128)),
            Operand::Const(Felt::from_u128(args.len() as u128)),
        ];
        let fields: Vec<Operand> = counts.iter().chain(args).copied().collect();
        self.alloc(frame, Felt::from_u128(heap::closure_header(id)), &fields)
    }

    /// Calls a runtime routine on a closure: pushes the `range_check`
    /// pointer (when threaded), the arguments in reverse order and the
    /// closure, and calls `__apply_N` or `__cextend_N`.
    pub(super) fn push_apply(
        &mut self,
        frame: &mut Frame,
        kind: ApplyKind,
        closure: &Operand,
        args: &[Operand],
    ) {
        self.push_builtins(frame);
        for a in args.iter().rev() {
            self.push_operand(frame, a);
        }
        self.push_operand(frame, closure);
        let name = match kind {
            ApplyKind::Call => heap::apply_label(args.len()),
            ApplyKind::Extend => heap::extend_label(args.len()),
            ApplyKind::Any => heap::ccall_label(args.len()),
            ApplyKind::Equal => heap::EQ.to_string(),
            ApplyKind::ShowInt => heap::SHOW_INT.to_string(),
            ApplyKind::Atoi => heap::ATOI.to_string(),
            ApplyKind::EqualStrings => heap::EQ_STR.to_string(),
            ApplyKind::ShowCtor => heap::SHOW.to_string(),
            ApplyKind::ShowNamed(kind) => heap::show_named_label(kind),
        };
        self.emit(Instr::Call(Target::Label(name)));
    }
}

/// The runtime routines the module's code calls (see [`heap`]).
pub(super) fn runtime(module: &SsaModule, n_builtins: usize) -> Vec<Instr> {
    let mut get_fp = false;
    let mut applies = std::collections::BTreeSet::new();
    let mut extends = std::collections::BTreeSet::new();
    let mut ccalls = std::collections::BTreeSet::new();
    let mut eq = false;
    let (mut show_int, mut atoi, mut eq_str) = (false, false, false);
    let mut show = false;
    let mut named = Vec::new();
    let mut routines = Routines {
        eq: &mut eq,
        show: &mut show,
        named: &mut named,
        eq_str: &mut eq_str,
        show_int: &mut show_int,
        atoi: &mut atoi,
        get_fp: &mut get_fp,
        applies: &mut applies,
        extends: &mut extends,
        ccalls: &mut ccalls,
    };
    for f in &module.functions {
        routines.scan(&f.body);
    }
    // Structural equality compares string fields by `__kildall_eq_str`.
    if eq && module.field_kinds.iter().flatten().any(|k| *k == Kind::Str) {
        eq_str = true;
        get_fp = true;
    }
    // `show` of a constructor shows its boolean, `unit` and `void` fields
    // as `show` of such a value does.
    if show {
        let fields = module.field_kinds.iter().flatten();
        named.extend(fields.filter(|k| !k.stored_texts().is_empty()));
    }
    named.sort_by_key(|k| k.code());
    named.dedup();
    // `bind` applies its closure to one argument.
    if module.io.is_some() {
        ccalls.insert(1);
    }
    // `ccall N` may extend by, or apply the result to, any fewer arguments.
    if let Some(&most) = ccalls.iter().max() {
        get_fp = true;
        ccalls.extend(1..=most);
        extends.extend(ccalls.iter().copied());
    }
    let funcs: Vec<heap::ClosureFunc<'_>> = module
        .closure_funcs
        .iter()
        .map(|id| {
            let f = &module.functions[id.0 as usize];
            heap::ClosureFunc {
                name: &f.name,
                arity: f.n_params as usize,
            }
        })
        .collect();
    let max_stored = funcs.iter().map(|f| f.arity).max().unwrap_or(0);
    let mut out = Vec::new();
    if get_fp {
        out.push(Instr::Label(heap::GET_FP.to_string()));
        out.push(Instr::Ret);
    }
    for n in applies {
        out.extend(heap::apply_routine(n, &funcs, n_builtins));
    }
    for n in extends {
        out.extend(heap::extend_routine(n, max_stored, n_builtins));
    }
    for n in ccalls {
        out.extend(heap::ccall_routine(n, &funcs, n_builtins));
    }
    if eq {
        out.extend(heap::eq_routine(&module.field_kinds, n_builtins));
    }
    if show {
        out.extend(heap::show_routine(
            &module.ctor_names,
            &module.field_kinds,
            n_builtins,
        ));
    }
    for kind in &named {
        out.extend(heap::show_named_routine(*kind, n_builtins));
    }
    if show_int || show || !named.is_empty() {
        out.extend(heap::show_int_routine(n_builtins));
    }
    if atoi {
        out.extend(heap::atoi_routine(n_builtins));
    }
    if eq_str {
        out.extend(heap::eq_str_routine(n_builtins));
    }
    if let Some(tags) = module.io {
        out.extend(heap::run_io_routine(tags, n_builtins));
    }
    out
}

/// The runtime routines a module's code calls, by argument count.
struct Routines<'a> {
    eq: &'a mut bool,
    show: &'a mut bool,
    /// The kinds of `show`'s routines of booleans, `unit` and `void`.
    named: &'a mut Vec<Kind>,
    eq_str: &'a mut bool,
    show_int: &'a mut bool,
    atoi: &'a mut bool,
    get_fp: &'a mut bool,
    applies: &'a mut std::collections::BTreeSet<usize>,
    extends: &'a mut std::collections::BTreeSet<usize>,
    ccalls: &'a mut std::collections::BTreeSet<usize>,
}

impl Routines<'_> {
    fn scan(&mut self, insts: &[Inst]) {
        for i in insts {
            let (kind, n) = match i {
                Inst::Alloc { .. }
                | Inst::CAlloc { .. }
                | Inst::Builtin { .. }
                | Inst::Str { .. }
                | Inst::StrCat { .. } => {
                    *self.get_fp = true;
                    continue;
                }
                Inst::Apply { kind, args, .. } | Inst::TailApply { kind, args, .. } => {
                    (*kind, args.len())
                }
                Inst::Branch { arms, .. } => {
                    arms.iter().for_each(|a| self.scan(&a.body));
                    continue;
                }
                Inst::Case { arms, .. } => {
                    arms.iter().for_each(|a| self.scan(&a.body));
                    continue;
                }
                _ => continue,
            };
            match kind {
                ApplyKind::Call => self.applies.insert(n),
                ApplyKind::Extend => {
                    *self.get_fp = true;
                    self.extends.insert(n)
                }
                ApplyKind::Any => self.ccalls.insert(n),
                ApplyKind::Equal => {
                    *self.eq = true;
                    true
                }
                ApplyKind::ShowInt => {
                    *self.get_fp = true;
                    *self.show_int = true;
                    true
                }
                ApplyKind::Atoi => {
                    *self.atoi = true;
                    true
                }
                ApplyKind::EqualStrings => {
                    *self.get_fp = true;
                    *self.eq_str = true;
                    true
                }
                ApplyKind::ShowCtor => {
                    *self.get_fp = true;
                    *self.show = true;
                    true
                }
                ApplyKind::ShowNamed(kind) => {
                    *self.get_fp = true;
                    self.named.push(kind);
                    true
                }
            };
        }
    }
}
