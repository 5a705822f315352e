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
        // FIXME: a value of unknown kind here (a `*` parameter) is printed
        // by what it is in memory: a boolean passed through one prints as
        // 0 or 1 where the reference interpreter prints `true`/`false`.
        // Refusing such a `write` would refuse Juvix's own IO programs (a
        // `print(*)` applied by `bind` to strings and integers); giving the
        // reference's answer needs the kind at run time, with the value
        // through calls, closures and `bind`.
        if kind == Kind::Io && heap::IoTags::stores_kind(ctor) {
            let code = kinds.first().copied().unwrap_or_default().code();
            args.push(Operand::Const(Felt::from_u128(code.into())));
        }
        for (k, kind) in kinds.into_iter().enumerate() {
            self.fields_known.store(tag, k, kind);
        }
        let d = self.fresh();
        env.insert(dst.clone(), Some(d));
        self.known.insert((d, tag));
        self.kinds.insert(d, kind);
        out.push(Inst::Alloc { dst: d, tag, args });
        Ok(())
    }
}
