//! Branch arms and their joins: each arm is converted with its own
//! bindings, and after the branch the names its code may read are joined,
//! found by a backward liveness over the syntax tree (Kildall's framework,
//! as the lowering's), so that a variable reassigned in the arms of a
//! branch is joined only when some later statement reads it.

use super::*;

/// The key of a statement in [`live_after_branches`]: its address, which
/// stays put while the module is borrowed.
pub(super) fn stmt_key(s: &Stmt) -> usize {
    s as *const Stmt as usize
}

/// For every `br`, `if` and `case` of `body`, the source names that the
/// code after it may read before writing them.
pub(super) fn live_after_branches(body: &[Stmt]) -> HashMap<usize, HashSet<VarName>> {
    let mut map = HashMap::new();
    live_in(body, HashSet::new(), &mut map);
    map
}

/// The names live at the start of `stmts`, given those live at its end.
fn live_in(
    stmts: &[Stmt],
    mut live: HashSet<VarName>,
    map: &mut HashMap<usize, HashSet<VarName>>,
) -> HashSet<VarName> {
    for s in stmts.iter().rev() {
        match &s.kind {
            StmtKind::Branch {
                on_true, on_false, ..
            } => {
                map.insert(stmt_key(s), live.clone());
                let t = live_in(on_true, live.clone(), map);
                live = live_in(on_false, live, map);
                live.extend(t);
            }
            StmtKind::Case { arms, default, .. } => {
                map.insert(stmt_key(s), live.clone());
                let mut all = HashSet::new();
                for body in arms.iter().map(|a| &a.body).chain(default) {
                    all.extend(live_in(body, live.clone(), map));
                }
                live = all;
            }
            StmtKind::Block(body) => live = live_in(body, live, map),
            StmtKind::Ret(_)
            | StmtKind::Fail(_)
            | StmtKind::TailCall { .. }
            | StmtKind::TailCallClosure { .. }
            | StmtKind::TailCallClosures { .. } => live.clear(),
            kind => {
                if let Some(dst) = written(kind) {
                    live.remove(dst);
                }
            }
        }
        for v in read_values(&s.kind) {
            match v {
                Value::Var(name, _) | Value::Field { var: name, .. } => {
                    live.insert(name.clone());
                }
                _ => {}
            }
        }
    }
    live
}

/// The name a statement assigns, if any.
fn written(kind: &StmtKind) -> Option<&VarName> {
    match kind {
        StmtKind::Assign { dst, .. }
        | StmtKind::Binop { dst, .. }
        | StmtKind::Call { dst, .. }
        | StmtKind::ArgsNum { dst, .. }
        | StmtKind::Builtin { dst, .. }
        | StmtKind::Alloc { dst, .. }
        | StmtKind::CAlloc { dst, .. }
        | StmtKind::CExtend { dst, .. }
        | StmtKind::CallClosure { dst, .. }
        | StmtKind::CallClosures { dst, .. }
        | StmtKind::StrUnop { dst, .. }
        | StmtKind::StrCat { dst, .. } => Some(dst),
        _ => None,
    }
}

/// The operands a statement reads (not those of nested bodies).
pub(super) fn read_values(kind: &StmtKind) -> Vec<&Value> {
    match kind {
        StmtKind::Assign { src, .. } => vec![src],
        StmtKind::Binop { a, b, .. } | StmtKind::StrCat { a, b, .. } => vec![a, b],
        StmtKind::StrUnop { a, .. } => vec![a],
        StmtKind::Call { args, .. }
        | StmtKind::TailCall { args, .. }
        | StmtKind::Builtin { args, .. }
        | StmtKind::Alloc { args, .. }
        | StmtKind::CAlloc { args, .. } => args.iter().collect(),
        StmtKind::CExtend { closure, args, .. }
        | StmtKind::CallClosure { closure, args, .. }
        | StmtKind::CallClosures { closure, args, .. }
        | StmtKind::TailCallClosures { closure, args }
        | StmtKind::TailCallClosure { closure, args } => {
            std::iter::once(closure).chain(args).collect()
        }
        StmtKind::Ret(v)
        | StmtKind::Trace(v)
        | StmtKind::Fail(v)
        | StmtKind::ArgsNum { closure: v, .. }
        | StmtKind::Case { value: v, .. } => vec![v],
        StmtKind::Branch { cond, .. } => match cond {
            Cond::NonZero(v) => vec![v],
            Cond::Cmp(_, a, b) => vec![a, b],
        },
        StmtKind::Dump | StmtKind::Nop | StmtKind::Block(_) => Vec::new(),
    }
}

impl FnBuilder<'_> {
    /// After the arms of a branch or a `case`: binds after it the names
    /// that some later statement reads and that every falling arm leaves
    /// bound (reassigned in some arm, as Juvix's registers are), besides
    /// the `out:` name. With no such name this is [`Self::join_arms`].
    /// Otherwise each falling arm ends by allocating a tuple of its values
    /// (the output first), the branch's one output is the tuple, and loads
    /// after the branch (pushed to `loads`) bind the names: the lowering
    /// transfers one output per branch. Returns the branch's output and
    /// whether any arm falls through.
    pub(super) fn join_with_phis(
        &mut self,
        env: &mut Env,
        changed: Vec<VarName>,
        out_name: Option<&VarName>,
        arms: &mut [Arm],
        loads: &mut Vec<Inst>,
    ) -> (Option<Var>, bool) {
        let ends = std::mem::take(&mut self.arm_ends);
        let live = self.live_after.get(&self.branch_key).cloned();
        // Names some falling arm rebinds, or binds for the first time.
        let mut candidates: Vec<&VarName> = ends
            .iter()
            .zip(arms.iter())
            .filter(|(_, arm)| arm.falls)
            .filter_map(|(end, _)| end.as_ref())
            .flat_map(|end| {
                end.iter()
                    .filter(|(k, v)| v.is_some() && env.get(*k) != Some(*v))
                    .map(|(k, _)| k)
            })
            .collect();
        candidates.sort();
        candidates.dedup();
        let mut phis: Vec<VarName> = Vec::new();
        for name in candidates {
            let needed = live.as_ref().is_some_and(|l| l.contains(name));
            let bound_everywhere = arms.iter().zip(&ends).all(|(arm, end)| {
                !arm.falls
                    || end
                        .as_ref()
                        .is_some_and(|e| matches!(e.get(name), Some(Some(_))))
            });
            if needed && bound_everywhere && Some(name) != out_name {
                phis.push(name.clone());
            }
        }
        if phis.is_empty() || !arms.iter().any(|a| a.falls) {
            return self.join_arms(env, changed, out_name, arms);
        }
        let mut kinds: Vec<Option<Kind>> = vec![None; phis.len() + usize::from(out_name.is_some())];
        for (arm, end) in arms.iter_mut().zip(&ends) {
            let Some(end) = end.as_ref().filter(|_| arm.falls) else {
                continue;
            };
            let mut fields: Vec<Operand> = arm.result.into_iter().collect();
            fields.extend(phis.iter().map(|n| match end.get(n) {
                Some(Some(v)) => Operand::Var(*v),
                _ => unreachable!("every falling arm binds a joined name"),
            }));
            for (k, f) in fields.iter().enumerate() {
                let kind = match f {
                    Operand::Var(v) => self.kinds.get(v).copied().unwrap_or_default(),
                    Operand::Const(_) => Kind::Any,
                };
                kinds[k] = Some(kinds[k].map_or(kind, |old| old.join(kind)));
            }
            let tuple = self.fresh();
            arm.body.push(Inst::Alloc {
                dst: tuple,
                tag: 0,
                args: fields,
            });
            arm.result = Some(Operand::Var(tuple));
        }
        for k in changed {
            env.insert(k, None);
        }
        let join = self.fresh();
        let names = out_name.into_iter().chain(&phis);
        for (index, (name, kind)) in names.zip(kinds).enumerate() {
            let x = self.fresh();
            self.kinds.insert(x, kind.unwrap_or_default());
            loads.push(Inst::Load {
                dst: x,
                src: join,
                index: index as u32,
            });
            env.insert(name.clone(), Some(x));
        }
        (Some(join), true)
    }

    /// After the arms of a branch or a `case`: the names an arm rebound
    /// are forgotten (their value depends on the path), and the `out:` name
    /// is bound to a fresh join variable when some arm falls through.
    /// Returns the join variable and whether any arm falls through.
    pub(super) fn join_arms(
        &mut self,
        env: &mut Env,
        changed: Vec<VarName>,
        out_name: Option<&VarName>,
        arms: &[Arm],
    ) -> (Option<Var>, bool) {
        for k in changed {
            env.insert(k, None);
        }
        let any_falls = arms.iter().any(|a| a.falls);
        let join = match out_name {
            Some(name) if any_falls => {
                let j = self.fresh();
                env.insert(name.clone(), Some(j));
                let kind = arms
                    .iter()
                    .filter_map(|a| a.result)
                    .map(|r| match r {
                        Operand::Var(v) => self.kinds.get(&v).copied().unwrap_or_default(),
                        Operand::Const(_) => Kind::Any,
                    })
                    .reduce(Kind::join)
                    .unwrap_or_default();
                self.kinds.insert(j, kind);
                Some(j)
            }
            _ => None,
        };
        (join, any_falls)
    }

    /// Converts an arm of a branch or a `case` (`known`: the scrutinee of a
    /// `case` arm, which holds the constructor of its tag there). What the
    /// arm learns stays in it.
    pub(super) fn arm_knowing(
        &mut self,
        env: &Env,
        body: &[Stmt],
        out_name: Option<&VarName>,
        pos: Pos,
        changed: &mut Vec<VarName>,
        known: Option<(Var, u32)>,
    ) -> Result<Arm, JvrError> {
        let before = self.known.clone();
        self.known.extend(known);
        let mut arm_env = env.clone();
        let mut insts = Vec::new();
        // Branches nested in the arm join their own arms.
        let outer_ends = std::mem::take(&mut self.arm_ends);
        let falls = self.seq(&mut arm_env, body, &mut insts);
        self.arm_ends = outer_ends;
        self.known = before;
        let falls = falls?;
        self.arm_ends.push(falls.then(|| arm_env.clone()));
        // Names the arm rebinds become unreadable after the branch, unless
        // they are its output (which the caller binds to the join variable).
        changed.extend(
            arm_env
                .iter()
                .filter(|(k, v)| Some(*k) != out_name && env.get(*k).is_some_and(|old| old != *v))
                .map(|(k, _)| k.clone()),
        );
        let result = match (falls, out_name) {
            (true, Some(name)) => match arm_env.get(name) {
                Some(Some(v)) => Some(Operand::Var(*v)),
                _ => return err(pos, JvrErrorKind::OutNotAssigned(name.to_string())),
            },
            _ => None,
        };
        Ok(Arm {
            body: insts,
            falls,
            result,
        })
    }
}
