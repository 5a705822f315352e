//! `eq` beyond integers: structural equality of constructors (by the
//! runtime routine `__kildall_eq`), the comparison of field elements for
//! values stored in one, and the refusal of comparisons the compiled code
//! cannot decide.

use super::*;

impl FnBuilder<'_> {
    /// `dst = eq a b` on operands that are not both integers: of two
    /// constructors, the structural comparison of the runtime; of two
    /// strings, their texts (by `__kildall_eq_str`); of two numbers, or a
    /// number and a value of unknown kind, the comparison of the field
    /// elements. A constructor compared with anything else,
    /// constructors some field of which holds values whose kind the
    /// program does not say, two values of unknown kind, a string and
    /// another value, and IO actions are refused.
    pub(super) fn equality(
        &mut self,
        env: &mut Env,
        pos: Pos,
        dst: Option<&VarName>,
        [a, b]: [&Value; 2],
    ) -> Result<Inst, JvrError> {
        let kinds = (self.kind(env, a), self.kind(env, b));
        let (a, b) = (self.operand(env, a)?, self.operand(env, b)?);
        let mut define = |this: &mut Self| match dst {
            Some(name) => this.define(env, name),
            None => this.fresh(),
        };
        let inst = match kinds {
            (Kind::Object, Kind::Object) => {
                if self.fields_known.checked {
                    if let Some((tag, k)) = self.fields_known.unknown() {
                        let ctor = self.module.ctor_by_tag(tag).unwrap_or_default();
                        return err(
                            pos,
                            JvrErrorKind::EqUndefined(format!(
                                "constructors: field {k} of {ctor} holds values of unknown kind"
                            )),
                        );
                    }
                }
                Inst::Apply {
                    dst: define(self),
                    kind: ApplyKind::Equal,
                    closure: a,
                    args: vec![b],
                }
            }
            (Kind::Object, other) | (other, Kind::Object) => {
                return err(
                    pos,
                    JvrErrorKind::EqUndefined(format!(
                        "a constructor and {}",
                        other.name().unwrap_or("a value of unknown kind")
                    )),
                );
            }
            // Two values of which nothing is known may both be
            // constructors, which the reference interpreter compares by
            // structure and the compiled code could only compare by
            // address: refused, rather than answered differently.
            (Kind::Any, Kind::Any) => {
                return err(
                    pos,
                    JvrErrorKind::EqUndefined(
                        "two values of unknown kind on Cairo (declare their types)".to_string(),
                    ),
                );
            }
            (Kind::Io, _) | (_, Kind::Io) => {
                return err(pos, JvrErrorKind::EqUndefined("an IO action".to_string()));
            }
            (Kind::Str, Kind::Str) => Inst::Apply {
                dst: define(self),
                kind: ApplyKind::EqualStrings,
                closure: a,
                args: vec![b],
            },
            (Kind::Str, other) | (other, Kind::Str) => {
                return err(
                    pos,
                    JvrErrorKind::EqUndefined(format!(
                        "a string and {}",
                        other.name().unwrap_or("a value of unknown kind")
                    )),
                );
            }
            // A value of unknown kind compared with a number, boolean,
            // `unit` or `void`: where the reference interpreter compares
            // (the value is one too), so do the field elements.
            // FIXME: when the value of unknown kind is a constructor at run
            // time, the reference interpreter stops with an error and the
            // compiled code compares its address.
            _ => Inst::Binop {
                dst: define(self),
                op: BinOp::Eq,
                a,
                b,
            },
        };
        if let Inst::Apply { dst, .. } | Inst::Binop { dst, .. } = &inst {
            self.kinds.insert(*dst, Kind::Bool);
        }
        Ok(inst)
    }
}
