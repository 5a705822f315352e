//! `show` and `atoi`: which lowering each takes by the kind of its
//! operand.

use super::*;

impl FnBuilder<'_> {
    /// `dst = show v` or `dst = atoi v`, `v` of kind `kind`. `show` of a
    /// string is the string; of an integer, the runtime routine's digits;
    /// of a boolean, one of two constants; of `unit` and `void`, their
    /// names. `atoi` takes a string. Other kinds are refused: the compiled
    /// code could not tell what the value is.
    pub(super) fn string_op(
        &mut self,
        env: &mut Env,
        pos: Pos,
        dst: &VarName,
        op: StrOp,
        (v, kind): (Operand, Kind),
    ) -> Result<Inst, JvrError> {
        let refuse = |what: &str| {
            let kind = kind.name().unwrap_or("a value of unknown kind");
            err(pos, JvrErrorKind::NotForCairo(format!("{what} of {kind}")))
        };
        let dst = match (op, kind) {
            (StrOp::Atoi, Kind::Str)
            | (StrOp::Show, Kind::Str | Kind::Int | Kind::Bool | Kind::Unit | Kind::Void) => {
                self.define(env, dst)
            }
            (StrOp::Atoi, _) => return refuse("atoi"),
            // FIXME: `show` of a constructor (its term) or of a value of
            // unknown kind on Cairo.
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
            (StrOp::Show, Kind::Bool) => Inst::ShowBool { dst, v },
            (StrOp::Show, Kind::Str) => Inst::Copy { dst, src: v },
            _ => Inst::Str {
                dst,
                text: kind.name().unwrap_or_default().to_string(),
            },
        })
    }
}
