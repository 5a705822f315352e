//! `alloc`: constructors of the module's types, and the IO actions
//! `return`, `bind` and `write`, which follow them.

use super::*;

impl FnBuilder<'_> {
    /// `dst = alloc C (args)`.
    pub(super) fn alloc(
        &mut self,
        env: &mut Env,
        pos: Pos,
        dst: &VarName,
        ctor: &str,
        args: &[Value],
        out: &mut Vec<Inst>,
    ) -> Result<(), JvrError> {
        let kinds: Vec<Kind> = args.iter().map(|a| self.kind(env, a)).collect();
        if let ("bind", [action, closure]) = (ctor, args) {
            if self.module.ctor(ctor).is_none() {
                self.bind_flows(env, action, closure);
            }
        }
        let values = args;
        let mut args = self.operands(env, args)?;
        let io = self.fields_known.io_tags();
        let (tag, arity, kind) = match (self.module.ctor(ctor), io.ctor(ctor)) {
            (Some((_, tag, c)), _) => (tag, c.arity, Kind::Object),
            (None, Some((tag, arity))) => (tag, arity, Kind::Io),
            (None, None) if ctor == "readLn" => {
                // Refused on every machine: a Cairo run has no standard
                // input, its input is the entry's arguments, fixed before
                // the run. A line supplied during the run would be a hint
                // no code can check (any bytes pass), so a proof would not
                // attest what was read.
                return err(pos, JvrErrorKind::NotForCairo(ctor.to_string()));
            }
            (None, None) => return err(pos, JvrErrorKind::UnknownConstructor(ctor.to_string())),
        };
        if arity != args.len() {
            return err(
                pos,
                JvrErrorKind::CtorArity {
                    name: ctor.to_string(),
                    expected: arity,
                    found: args.len(),
                },
            );
        }
        self.alloc_flows(pos, ctor, &kinds);
        if kind == Kind::Io && heap::IoTags::stores_kind(ctor) {
            let code = kinds.first().copied().unwrap_or_default().code();
            args.push(Operand::Const(Felt::from_u128(code.into())));
        }
        for (k, kind) in kinds.into_iter().enumerate() {
            let from = args.get(k).and_then(Operand::var);
            // A value read from this very field adds nothing to it.
            if from.and_then(|v| self.field_origin.get(&v)) != Some(&(tag, k)) {
                self.fields_known.store(tag, k, kind);
            }
        }
        let d = self.fresh();
        env.insert(dst.clone(), Some(d));
        self.known.insert((d, tag));
        self.kinds.insert(d, kind);
        if kind == Kind::Io {
            let given = match (ctor, values) {
                ("write", _) => Some(Kind::Void),
                ("return", [x]) => Some(self.kind(env, x)),
                _ => None,
            };
            self.io_results.extend(given.map(|k| (d, k)));
        }
        out.push(Inst::Alloc { dst: d, tag, args });
        Ok(())
    }
}

impl FnBuilder<'_> {
    /// What an IO action prints: `write` its value, `return` its value
    /// when it is the result.
    fn alloc_flows(&mut self, pos: Pos, ctor: &str, kinds: &[Kind]) {
        let terms = &mut self.fields_known.terms;
        match (ctor, kinds) {
            ("write", [k]) if self.module.ctor(ctor).is_none() => terms.write(pos, *k),
            ("return", [k]) if self.module.ctor(ctor).is_none() => terms.print(pos, *k, "return"),
            _ => {}
        }
    }
}
