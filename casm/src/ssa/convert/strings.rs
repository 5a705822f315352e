//! `show` and `atoi`: which lowering each takes by the kind of its
//! operand.

use super::*;

impl FnBuilder<'_> {
    /// `dst = show v` or `dst = atoi v`, `v` of kind `kind`. `show` of a
    /// string is the string; of an integer, the runtime routine's digits;
    /// of a boolean, `unit` or `void`, the text of the number it stores,
    /// or its digits when it stores none (an ill-typed program gave
    /// another number where the kind is declared: the reference
    /// interpreter keeps it a number); of a constructor, its term, by the runtime routine, when every
    /// constructor's fields can be shown. `atoi` takes a string. Other
    /// kinds are refused on every machine: a value of unknown kind is a
    /// field element that may stand for an integer, a boolean, `unit` or
    /// an address, which the compiled code cannot tell apart, so it could
    /// not print what the reference interpreter prints.
    pub(super) fn string_op(
        &mut self,
        env: &mut Env,
        pos: Pos,
        dst: &VarName,
        op: StrOp,
        (v, kind): (Operand, Kind),
    ) -> Result<Inst, JvrError> {
        let refuse = |what: &str| {
            let kind = kind.what();
            err(pos, JvrErrorKind::NotForCairo(format!("{what} of {kind}")))
        };
        let dst = match (op, kind) {
            (StrOp::Atoi, Kind::Str)
            | (
                StrOp::Show,
                Kind::Str | Kind::Int | Kind::Bool | Kind::Unit | Kind::Void | Kind::Object,
            ) => {
                if kind == Kind::Object {
                    self.check_showable(pos)?;
                }
                self.define(env, dst)
            }
            (StrOp::Atoi, _) => return refuse("atoi"),
            (StrOp::Show, _) => return refuse("show"),
        };
        let apply = |kind| Inst::Apply {
            dst,
            kind,
            closure: v,
            args: Vec::new(),
        };
        Ok(match (op, kind) {
            (StrOp::Atoi, _) => apply(ApplyKind::Atoi),
            (StrOp::Show, Kind::Int) => apply(ApplyKind::ShowInt),
            (StrOp::Show, Kind::Object) => apply(ApplyKind::ShowCtor),
            (StrOp::Show, Kind::Str) => Inst::Copy { dst, src: v },
            // A constant is shown when compiling, by the text of the
            // number it stores, or as an integer when it stores none.
            (StrOp::Show, _) => match v {
                Operand::Const(c) => match kind.stored_texts().iter().find(|(n, _)| *n == c) {
                    Some((_, text)) => Inst::Str {
                        dst,
                        text: text.to_string(),
                    },
                    None => apply(ApplyKind::ShowInt),
                },
                Operand::Var(_) => apply(ApplyKind::ShowNamed(kind)),
            },
        })
    }

    /// Refuses `show` of a constructor when some constructor of the module
    /// has a field the runtime routine cannot print as the reference
    /// interpreter does (checked once the fields' kinds are settled).
    fn check_showable(&self, pos: Pos) -> Result<(), JvrError> {
        if !self.fields_known.checked {
            return Ok(());
        }
        let Some((tag, k, kind)) = self.fields_known.unshowable() else {
            return Ok(());
        };
        let ctor = self.module.ctor_by_tag(tag).unwrap_or_default();
        let what = match kind {
            Kind::Str => "strings",
            Kind::Io => "IO actions",
            Kind::Scalar => "numbers of disagreeing kinds",
            _ => "values of unknown kind",
        };
        err(
            pos,
            JvrErrorKind::NotForCairo(format!(
                "show of constructors: field {k} of {ctor} holds {what}"
            )),
        )
    }
}
