//! Backward liveness of SSA variables over the structured body of a
//! function (Kildall's framework; Aho, Lam, Sethi and Ullman, *Compilers*,
//! 2nd ed., §9.2.5): an arm's live-out is its branch's live-out minus the
//! output plus the operand the arm gives the output.

use crate::ssa::{Arm, Inst, Operand, SCond, Var};

/// A set of SSA variables of one function, as a bitset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct VarSet(Vec<u64>);

impl VarSet {
    pub(super) fn new(n: u32) -> VarSet {
        VarSet(vec![0; (n as usize).div_ceil(64)])
    }
    pub(super) fn insert(&mut self, v: Var) {
        self.0[v.0 as usize / 64] |= 1 << (v.0 % 64);
    }
    pub(super) fn remove(&mut self, v: Var) {
        self.0[v.0 as usize / 64] &= !(1 << (v.0 % 64));
    }
    pub(super) fn union(&mut self, o: &VarSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    pub(super) fn use_op(&mut self, o: &Operand) {
        if let Some(v) = o.var() {
            self.insert(v);
        }
    }
    /// Ascending order: the one order of block parameters.
    pub(super) fn sorted(&self) -> Vec<Var> {
        let mut out = Vec::new();
        for (w, bits) in self.0.iter().enumerate() {
            let mut b = *bits;
            while b != 0 {
                let t = b.trailing_zeros();
                out.push(Var(w as u32 * 64 + t));
                b &= b - 1;
            }
        }
        out
    }
}

/// Live variables before one instruction, given those live after it.
pub(super) fn transfer(inst: &Inst, live_after: &VarSet, n: u32) -> VarSet {
    match inst {
        Inst::Copy { dst, src } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            l.use_op(src);
            l
        }
        Inst::Binop { dst, a, b, .. } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            l.use_op(a);
            l.use_op(b);
            l
        }
        Inst::Call { dst, args, .. }
        | Inst::Alloc { dst, args, .. }
        | Inst::CAlloc { dst, args, .. }
        | Inst::Builtin { dst, args, .. } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            args.iter().for_each(|a| l.use_op(a));
            l
        }
        Inst::Apply {
            dst, closure, args, ..
        } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            l.use_op(closure);
            args.iter().for_each(|a| l.use_op(a));
            l
        }
        Inst::Load { dst, src, .. } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            l.insert(*src);
            l
        }
        Inst::ArgsNum { dst, closure } => {
            let mut l = live_after.clone();
            l.remove(*dst);
            l.use_op(closure);
            l
        }
        Inst::Trace(v) => {
            let mut l = live_after.clone();
            l.use_op(v);
            l
        }
        Inst::Fail(v) => {
            let mut l = VarSet::new(n);
            l.use_op(v);
            l
        }
        Inst::TailCall { args, .. } => {
            let mut l = VarSet::new(n);
            args.iter().for_each(|a| l.use_op(a));
            l
        }
        Inst::TailApply { closure, args } => {
            let mut l = VarSet::new(n);
            l.use_op(closure);
            args.iter().for_each(|a| l.use_op(a));
            l
        }
        Inst::Case {
            scrut, out, arms, ..
        } => {
            let mut l = VarSet::new(n);
            for arm in arms {
                l.union(&live_in(
                    &arm.body,
                    &arm_live_out(arm, *out, live_after, n),
                    n,
                ));
            }
            l.use_op(scrut);
            l
        }
        Inst::Ret(v) => {
            let mut l = VarSet::new(n);
            l.use_op(v);
            l
        }
        Inst::Branch { cond, out, arms } => {
            let mut l = VarSet::new(n);
            for arm in arms.iter() {
                l.union(&live_in(
                    &arm.body,
                    &arm_live_out(arm, *out, live_after, n),
                    n,
                ));
            }
            match cond {
                SCond::NonZero(v) => l.use_op(v),
                SCond::Cmp(_, a, b) => {
                    l.use_op(a);
                    l.use_op(b);
                }
            }
            l
        }
    }
}

pub(super) fn arm_live_out(arm: &Arm, out: Option<Var>, live_after: &VarSet, n: u32) -> VarSet {
    if !arm.falls {
        return VarSet::new(n);
    }
    let mut l = live_after.clone();
    if let Some(o) = out {
        l.remove(o);
    }
    if let Some(r) = &arm.result {
        l.use_op(r);
    }
    l
}

pub(super) fn live_in(insts: &[Inst], live_out: &VarSet, n: u32) -> VarSet {
    let mut l = live_out.clone();
    for i in insts.iter().rev() {
        l = transfer(i, &l, n);
    }
    l
}

/// `before[i]` is live before `insts[i]`; `before[len]` is `live_out`.
pub(super) fn live_before_each(insts: &[Inst], live_out: &VarSet, n: u32) -> Vec<VarSet> {
    let mut v = vec![live_out.clone(); insts.len() + 1];
    for i in (0..insts.len()).rev() {
        v[i] = transfer(&insts[i], &v[i + 1], n);
    }
    v
}
