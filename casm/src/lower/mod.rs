//! Lowering of SSA `.jvr` to CASM with per-block liveness.
//!
//! The algorithm is the one of the Juvix compiler's JuvixReg-to-CASM
//! translation after its fix of the memory access order (Juvix PR #2697,
//! the change this crate follows):
//!
//! * Code is cut into basic blocks where the `ap` offset stops being known
//!   statically: after a `call`, and after a branch one of whose arms calls.
//! * Inside a block, `ap - fp` is known at every instruction, so each
//!   variable gets the fixed cell `[fp + k]`, written by the sequential
//!   `[ap] = ...; ap++` that defines it; no cell is ever written out of
//!   order. Parameters are at `[fp - 3 - i]`.
//! * A block is entered by `call rel` (or `call LABEL` for a branch join)
//!   with the variables live at its start pushed as arguments: the block's
//!   output (a call result, already on the stack, or a branch's `out`
//!   variable) deepest at `[fp - 3 - n]`, then the other live variables in
//!   ascending SSA order `v_0 < ... < v_{n-1}` with `v_k` at `[fp - 3 - k]`.
//!   Every predecessor of a block uses that one order, fixed by the block.
//!   After the `call` comes `ret` (the callee block's result is already at
//!   `[ap - 1]`) and a word-less `nop`, as in the translation's listing.
//! * Liveness is the standard backward analysis (Kildall's framework;
//!   Aho, Lam, Sethi and Ullman, *Compilers*, 2nd ed., §9.2.5), run over the
//!   structured body: an arm's live-out is its branch's live-out minus the
//!   output plus the operand the arm gives the output.
//! * A branch without calls in its arms stays inside the block: both arms
//!   are padded to the same `ap` offset and write the output into the same
//!   cell, so the offset after the join is still static.
//!
//! Integers and field elements are both Cairo field elements, so `add` and
//! `fadd` lower alike. Equality is a `jmp ... if [d] != 0` on the
//! difference. `lt`, `le`, `div` and `mod` take their answer from a hint and
//! prove it with the `range_check` builtin, whose pointer is then threaded
//! like an implicit argument of Cairo 0: every function takes it below its
//! arguments and returns it below its result, every block transfer passes
//! it below the block's output, and inside a block it is a cell plus a
//! static count of the checks made since (see `compare` and `div_mod`).

mod arith;
mod liveness;
mod objects;

use std::collections::HashMap;

use arith::module_builtins;
use liveness::{LiveSet, Liveness};
use objects::runtime;

use crate::felt::Felt;
use crate::heap;
use crate::listing::{ArithOp, Builtin, Hint, Instr, Listing, MemRef, Rhs, Target, Val};
use crate::ssa::{Arm, Inst, Operand, SsaFunction, SsaModule, Var};

/// A lowering failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    /// A frame needs offsets beyond the 16-bit range of Cairo instructions.
    #[error("function {0} needs more than 32767 cells in one block")]
    FrameTooLarge(String),
}

/// Whether code makes a call that returns here (after which `ap` is no
/// longer static).
fn has_call(insts: &[Inst]) -> bool {
    insts.iter().any(|i| match i {
        Inst::Call { .. } | Inst::Apply { .. } => true,
        Inst::Branch { arms, .. } => arms.iter().any(|a| has_call(&a.body)),
        Inst::Case { arms, .. } => arms.iter().any(|a| has_call(&a.body)),
        _ => false,
    })
}

/// Where a sequence goes when it reaches its end.
#[derive(Clone)]
enum Kont {
    /// It cannot: it ends with `ret` or `tcall`.
    Ret,
    /// Stay in the block (an arm of a branch without calls).
    Inline,
    /// Transfer into a join block.
    Join {
        label: String,
        /// The operand the branch output takes on this path.
        out: Option<Operand>,
        /// The join block's other parameters, ascending.
        params: Vec<Var>,
    },
}

/// A builtin's pointer: the value of a cell plus a static offset (the
/// cells used since that cell was written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BuiltinPtr {
    cell: i16,
    off: i32,
}

/// Placement of variables in the current block.
#[derive(Clone)]
struct Frame {
    loc: HashMap<Var, i16>,
    /// `ap - fp`; meaningful while the block has made no call.
    ap: i32,
    /// Where the pointers of the builtins the module threads are, in
    /// Cairo's order.
    builtins: Vec<BuiltinPtr>,
    /// A cell holding `fp` itself, once an allocation needed it.
    fp_cell: Option<i16>,
}

struct Lowerer<'m> {
    module: &'m SsaModule,
    func: &'m SsaFunction,
    out: Vec<Instr>,
    labels: u32,
    too_large: bool,
    /// The builtins whose pointers every function takes and returns.
    builtins: Vec<Builtin>,
    /// Live variables after the function's calls and branches.
    live: Liveness,
}

/// The frame of a block entered with `params` (ascending, `v_k` at
/// `[fp - 3 - k]`), below them its output, and below everything the
/// pointers of `n_builtins` threaded builtins (the last one highest).
fn block_frame(out: Option<Var>, params: &[Var], n_builtins: usize) -> Frame {
    let n = params.len() as i32;
    let mut loc = HashMap::new();
    for (k, p) in params.iter().enumerate() {
        loc.insert(*p, (-3 - k as i32) as i16);
    }
    if let Some(o) = out {
        loc.insert(o, (-3 - n) as i16);
    }
    let below = -3 - n - i32::from(out.is_some());
    Frame {
        loc,
        ap: 0,
        builtins: builtin_cells(below, n_builtins),
        fp_cell: None,
    }
}

/// `n` builtin pointers pushed in order, the last one at `[fp + top]`.
fn builtin_cells(top: i32, n: usize) -> Vec<BuiltinPtr> {
    (0..n)
        .map(|k| BuiltinPtr {
            cell: (top - (n - 1 - k) as i32).max(i16::MIN as i32) as i16,
            off: 0,
        })
        .collect()
}

impl Lowerer<'_> {
    fn label(&mut self) -> String {
        self.labels += 1;
        format!("{}$L{}", self.func.name, self.labels)
    }

    fn emit(&mut self, i: Instr) {
        self.out.push(i);
    }

    fn cell(&mut self, frame: &Frame, v: Var) -> MemRef {
        // Liveness guarantees that every read variable has a cell here.
        MemRef::fp(frame.loc.get(&v).copied().unwrap_or(-1))
    }

    fn val(&mut self, frame: &Frame, o: &Operand) -> Val {
        match o {
            Operand::Var(v) => Val::Mem(self.cell(frame, *v)),
            Operand::Const(c) => Val::Imm(*c),
        }
    }

    /// `[ap] = rhs; ap++`: the next cell of the frame.
    fn push(&mut self, frame: &mut Frame, rhs: Rhs) -> MemRef {
        let off = frame.ap;
        if off > i16::MAX as i32 - 1 {
            self.too_large = true;
        }
        frame.ap += 1;
        self.emit(Instr::Assign {
            dst: MemRef::ap(0),
            rhs,
            ap_incr: true,
        });
        MemRef::fp(off as i16)
    }

    fn push_operand(&mut self, frame: &mut Frame, o: &Operand) -> MemRef {
        let v = self.val(frame, o);
        self.push(frame, Rhs::Val(v))
    }

    /// A cell holding `o`: its own cell for a variable, a new one for a constant.
    fn in_cell(&mut self, frame: &mut Frame, o: &Operand) -> MemRef {
        match o {
            Operand::Var(v) => self.cell(frame, *v),
            Operand::Const(_) => self.push_operand(frame, o),
        }
    }

    /// Pushes the `range_check` pointer (when threaded), then the
    /// arguments in reverse order, and calls `func`.
    fn push_args_and_call(
        &mut self,
        frame: &mut Frame,
        func: crate::ssa::FuncId,
        args: &[Operand],
    ) {
        self.push_builtins(frame);
        for a in args.iter().rev() {
            self.push_operand(frame, a);
        }
        let name = self
            .module
            .functions
            .get(func.0 as usize)
            .map(|f| f.name.clone())
            .unwrap_or_default();
        self.emit(Instr::Call(Target::Label(name)));
    }

    /// Pushes a block's arguments: the `range_check` pointer (when
    /// threaded), the output, and the parameters in reverse order. Right
    /// after a call, `on_stack` is its result, on top of the callee's
    /// `range_check` pointer: when it is the output, both are already in
    /// place; otherwise the pointer is copied from `[ap - 2]`.
    fn transfer_pushes(
        &mut self,
        frame: &mut Frame,
        out: Option<&Operand>,
        on_stack: Option<Var>,
        params: &[Var],
    ) {
        let in_place = match (out, on_stack) {
            (Some(o), Some(v)) => o.var() == Some(v),
            _ => false,
        };
        if !in_place {
            if on_stack.is_some() {
                let nb = self.builtins.len() as i16;
                for _ in 0..nb {
                    self.push(frame, Rhs::Val(Val::Mem(MemRef::ap(-1 - nb))));
                }
            } else {
                self.push_builtins(frame);
            }
            if let Some(o) = out {
                self.push_operand(frame, o);
            }
        }
        for p in params.iter().rev() {
            self.push_operand(frame, &Operand::Var(*p));
        }
    }

    /// Lowers `insts` starting in `frame`. Returns the frame at the end when
    /// `kont` is [`Kont::Inline`] and the sequence falls through.
    fn seq(&mut self, mut frame: Frame, insts: &[Inst], kont: &Kont) -> Option<Frame> {
        for (i, inst) in insts.iter().enumerate() {
            let rest = &insts[i + 1..];
            frame = match inst {
                Inst::Call { .. } | Inst::Apply { .. } => self.call(frame, inst, rest, kont)?,
                Inst::Branch { cond, out, arms } => {
                    let (cell, holds_if_nonzero) = self.test(&mut frame, cond);
                    // The arm taken on a non-zero cell, and the other one.
                    let (nz, z) = if holds_if_nonzero {
                        (&arms[0], &arms[1])
                    } else {
                        (&arms[1], &arms[0])
                    };
                    let nz_label = self.label();
                    self.emit(Instr::Jump {
                        target: Target::Label(nz_label.clone()),
                        cond: Some(cell),
                        ap_incr: false,
                    });
                    let arms = [(z, None), (nz, Some(nz_label))];
                    let after = self.live.after(inst).clone();
                    self.arms(frame, *out, &arms, &after, rest, kont)?
                }
                Inst::Case {
                    scrut,
                    first_tag,
                    table,
                    out,
                    arms,
                } => {
                    let labels = self.jump_table(&mut frame, scrut, *first_tag, table, arms.len());
                    let arms: Vec<(&Arm, Option<String>)> =
                        arms.iter().zip(labels.into_iter().map(Some)).collect();
                    let after = self.live.after(inst).clone();
                    self.arms(frame, *out, &arms, &after, rest, kont)?
                }
                Inst::Fail(_) | Inst::TailCall { .. } | Inst::TailApply { .. } | Inst::Ret(_) => {
                    self.terminator(&mut frame, inst);
                    return None;
                }
                _ => {
                    self.straight(&mut frame, inst);
                    frame
                }
            };
        }
        match kont {
            Kont::Inline => Some(frame),
            _ => {
                self.finish(&mut frame, kont, None);
                None
            }
        }
    }

    /// An instruction that neither calls, branches nor ends the sequence.
    fn straight(&mut self, frame: &mut Frame, inst: &Inst) {
        let defined = match inst {
            Inst::Copy { dst, src } => (*dst, self.push_operand(frame, src)),
            Inst::Binop { dst, op, a, b } => (*dst, self.binop(frame, *op, a, b)),
            Inst::Alloc { dst, tag, args } => {
                let header = Felt::from_u128(heap::ctor_header(*tag));
                (*dst, self.alloc(frame, header, args))
            }
            Inst::Str { dst, text } => (*dst, self.string(frame, text)),
            Inst::StrCat { dst, a, b } => (*dst, self.strcat(frame, *a, *b)),
            Inst::Builtin { dst, op, args } => (*dst, self.builtin(frame, *op, args)),
            Inst::CAlloc { dst, func, args } => (*dst, self.calloc(frame, *func, args)),
            Inst::CheckTag { src, tag } => {
                // `[ap] = 2 tag + 1; ap++` then `[ap - 1] = [[fp + k]]`:
                // a read that names another constructor cannot be
                // proved (`asm::is_header_check` recognises the
                // assertion, for the machines' error message).
                let p = self.cell(frame, *src);
                let header = Felt::from_u128(heap::ctor_header(*tag));
                self.push(frame, Rhs::Val(Val::Imm(header)));
                self.emit(Instr::Assign {
                    dst: MemRef::ap(-1),
                    rhs: Rhs::Deref(p, 0),
                    ap_incr: false,
                });
                return;
            }
            Inst::Load { dst, src, index } => {
                let p = self.cell(frame, *src);
                (
                    *dst,
                    self.push(frame, Rhs::Deref(p, heap::field_offset(*index))),
                )
            }
            Inst::ArgsNum { dst, closure } => {
                let p = self.in_cell(frame, closure);
                (*dst, self.push(frame, Rhs::Deref(p, heap::CLOSURE_LEFT)))
            }
            Inst::Trace(v, kind) => {
                // The hint records the value; the copy is the
                // instruction it is attached to, so that it runs on
                // this path only.
                let v = self.val(frame, v);
                self.emit(Instr::Hint(Hint::Trace { v, kind: *kind }));
                self.push(frame, Rhs::Val(v));
                return;
            }
            _ => unreachable!("not a straight-line instruction: {inst:?}"),
        };
        frame.loc.insert(defined.0, defined.1.off);
    }

    /// An instruction that ends its sequence: `fail`, a tail call, `ret`.
    fn terminator(&mut self, frame: &mut Frame, inst: &Inst) {
        match inst {
            Inst::Fail(v) => {
                let v = self.val(frame, v);
                self.emit(Instr::Hint(Hint::Fail { v }));
                self.emit(heap::fail_here());
            }
            Inst::TailCall { func, args } => {
                // `tcall` is `call; ret`, as Cairo's own compiler lowers
                // `return f(...)`: no instruction but `call` sets `fp`,
                // and the callee's arguments below its `fp` cannot reuse
                // the caller's cells in write-once memory. A tail-recursive
                // loop thus costs its arguments plus two frame cells per
                // iteration (any Cairo loop writes fresh cells), and one
                // `ret` per iteration on the way out.
                self.push_args_and_call(frame, *func, args);
                self.emit(Instr::Ret);
            }
            Inst::TailApply {
                kind,
                closure,
                args,
            } => {
                self.push_apply(frame, *kind, closure, args);
                self.emit(Instr::Ret);
            }
            Inst::Ret(v) => {
                self.push_builtins(frame);
                self.push_operand(frame, v);
                self.emit(Instr::Ret);
            }
            _ => unreachable!("not a terminator: {inst:?}"),
        }
    }

    /// A call (direct or through a closure), then the block after it,
    /// entered by `call rel` with the variables live after the call.
    /// Returns the frame of that block, or `None` when the sequence ends.
    fn call(&mut self, mut frame: Frame, inst: &Inst, rest: &[Inst], kont: &Kont) -> Option<Frame> {
        let dst = match inst {
            Inst::Call { dst, func, args } => {
                self.push_args_and_call(&mut frame, *func, args);
                *dst
            }
            Inst::Apply {
                dst,
                kind,
                closure,
                args,
            } => {
                self.push_apply(&mut frame, *kind, closure, args);
                *dst
            }
            _ => unreachable!("not a call: {inst:?}"),
        };
        if let [Inst::Ret(Operand::Var(r))] = rest {
            if *r == dst {
                self.emit(Instr::Ret);
                return None;
            }
        }
        if rest.is_empty() {
            self.finish(&mut frame, kont, Some(dst));
            return None;
        }
        let mut params = self.live.after(inst).clone();
        params.remove(dst);
        let params: Vec<Var> = params.iter().collect();
        if params.len() > 30_000 {
            self.too_large = true;
        }
        // The call's result, and below it the callee's
        // `range_check` pointer, are in place: only the
        // parameters are pushed.
        for p in params.iter().rev() {
            self.push_operand(&mut frame, &Operand::Var(*p));
        }
        self.emit(Instr::Call(Target::Rel(3)));
        self.emit(Instr::Ret);
        self.emit(Instr::Nop);
        Some(block_frame(Some(dst), &params, self.builtins.len()))
    }

    /// The jump table of a `case`: the header `2 tag + 1`, less twice the
    /// type's first tag, is the relative jump from the `jmp` (one word) to
    /// the two-word entry of the constructor. Returns the arms' labels.
    fn jump_table(
        &mut self,
        frame: &mut Frame,
        scrut: &Operand,
        first_tag: u32,
        table: &[usize],
        n_arms: usize,
    ) -> Vec<String> {
        let p = self.in_cell(frame, scrut);
        let mut offset = self.push(frame, Rhs::Deref(p, 0));
        if first_tag != 0 {
            let by = Felt::from_i128(-2 * i128::from(first_tag));
            offset = self.push(frame, Rhs::Op(ArithOp::Add, offset, Val::Imm(by)));
        }
        self.emit(Instr::Jump {
            target: Target::Cell(offset),
            cond: None,
            ap_incr: false,
        });
        let labels: Vec<String> = (0..n_arms).map(|_| self.label()).collect();
        for k in table {
            self.emit(Instr::Jump {
                target: Target::Label(labels[*k].clone()),
                cond: None,
                ap_incr: false,
            });
        }
        labels
    }

    /// The arms of a branch or a case, each after its label (if any),
    /// starting in `frame`. Returns the frame in which the code after them
    /// continues, or `None` when nothing follows (no arm falls through, or
    /// `rest` is empty and the join block handed the end to `kont`).
    fn arms(
        &mut self,
        frame: Frame,
        out: Option<Var>,
        arms: &[(&Arm, Option<String>)],
        live_after: &LiveSet,
        rest: &[Inst],
        kont: &Kont,
    ) -> Option<Frame> {
        if !arms.iter().any(|(a, _)| has_call(&a.body)) {
            return self.inline_arms(frame, out, arms);
        }
        let falls = arms.iter().any(|(a, _)| a.falls);
        let join = self.label();
        let mut params = live_after.clone();
        if let Some(o) = out {
            params.remove(o);
        }
        let params: Vec<Var> = params.iter().collect();
        if params.len() > 30_000 {
            self.too_large = true;
        }
        for (arm, label) in arms {
            if let Some(l) = label {
                self.emit(Instr::Label(l.clone()));
            }
            let arm_kont = if arm.falls {
                Kont::Join {
                    label: join.clone(),
                    out: arm.result,
                    params: params.clone(),
                }
            } else {
                Kont::Ret
            };
            self.seq(frame.clone(), &arm.body, &arm_kont);
        }
        if !falls {
            return None;
        }
        self.emit(Instr::Label(join));
        let mut frame = block_frame(out, &params, self.builtins.len());
        if rest.is_empty() {
            self.finish(&mut frame, kont, None);
            return None;
        }
        Some(frame)
    }

    /// The end of a sequence that falls through into a join block.
    fn finish(&mut self, frame: &mut Frame, kont: &Kont, on_stack: Option<Var>) {
        if let Kont::Join { label, out, params } = kont {
            self.transfer_pushes(frame, out.as_ref(), on_stack, params);
            self.emit(Instr::Call(Target::Label(label.clone())));
            self.emit(Instr::Ret);
        }
    }

    /// Arms without calls, inline: each ends padded to one `ap` offset and
    /// writes the output (if any) into that one cell; all but the last jump
    /// to the end.
    ///
    /// Only arms that reach their end join: an arm that returns on every
    /// path has no `ap` at the join, and its last `ap` must not decide the
    /// join's (the arms end at different offsets before padding). Returns
    /// the frame after the join, or `None` when no arm reaches it.
    fn inline_arms(
        &mut self,
        frame: Frame,
        out: Option<Var>,
        arms: &[(&Arm, Option<String>)],
    ) -> Option<Frame> {
        let mut bodies = Vec::new();
        for (arm, _) in arms {
            let saved = std::mem::take(&mut self.out);
            let end = self.seq(frame.clone(), &arm.body, &Kont::Inline);
            let code = std::mem::replace(&mut self.out, saved);
            bodies.push((code, end.filter(|_| arm.falls), arm.result));
        }
        // Every falling arm is padded to `join_ap`, then writes the output
        // (if any) into that one cell.
        let join_ap = bodies
            .iter()
            .filter_map(|(_, e, _)| e.as_ref().map(|f| f.ap))
            .max();
        // Arms that made different numbers of range checks join their
        // `range_check` pointers in one cell, as a second output.
        let mut ends = bodies
            .iter()
            .filter_map(|(_, e, _)| e.as_ref().map(|f| f.builtins.clone()));
        let first_rc = ends.next().unwrap_or_default();
        let join_rc = ends.any(|rc| rc != first_rc);
        let end_label = self.label();
        let mut need_end = false;
        let last = bodies.len() - 1;
        for (k, ((code, end, value), (_, label))) in bodies.into_iter().zip(arms).enumerate() {
            if let Some(l) = label {
                self.emit(Instr::Label(l.clone()));
            }
            self.out.extend(code);
            let (Some(mut f), Some(target)) = (end, join_ap) else {
                continue;
            };
            while f.ap < target {
                self.push(&mut f, Rhs::Val(Val::Imm(Felt::ZERO)));
            }
            if join_rc {
                self.push_builtins(&mut f);
            }
            if let Some(v) = value {
                self.push_operand(&mut f, &v);
            }
            if k != last {
                need_end = true;
                self.emit(Instr::Jump {
                    target: Target::Label(end_label.clone()),
                    cond: None,
                    ap_incr: false,
                });
            }
        }
        if need_end {
            self.emit(Instr::Label(end_label));
        }
        let join_ap = join_ap?;
        let mut result = frame;
        result.ap = join_ap;
        if join_rc {
            let n = first_rc.len();
            result.builtins = builtin_cells(join_ap + n as i32 - 1, n);
            result.ap += n as i32;
        } else {
            result.builtins = first_rc;
        }
        if let Some(o) = out {
            result.loc.insert(o, result.ap as i16);
            result.ap += 1;
        }
        Some(result)
    }
}

/// Lowers every function of `module` to one listing, each function under
/// its name as a label, in module order.
pub fn lower(module: &SsaModule) -> Result<Listing, LowerError> {
    let builtins = module_builtins(module);
    let mut items = Vec::new();
    for func in &module.functions {
        let mut l = Lowerer {
            module,
            func,
            out: Vec::new(),
            labels: 0,
            too_large: false,
            builtins: builtins.clone(),
            live: Liveness::of(func),
        };
        l.emit(Instr::Label(func.name.clone()));
        let loc = (0..func.n_params)
            .map(|i| (Var(i), (-3 - i as i64).clamp(i16::MIN as i64, 0) as i16))
            .collect();
        if func.n_params > 32000 {
            return Err(LowerError::FrameTooLarge(func.name.clone()));
        }
        let frame = Frame {
            loc,
            ap: 0,
            builtins: builtin_cells(-3 - func.n_params as i32, builtins.len()),
            fp_cell: None,
        };
        l.seq(frame, &func.body, &Kont::Ret);
        if l.too_large {
            return Err(LowerError::FrameTooLarge(func.name.clone()));
        }
        items.extend(l.out);
    }
    items.extend(runtime(module, builtins.len()));
    Ok(Listing { builtins, items })
}
