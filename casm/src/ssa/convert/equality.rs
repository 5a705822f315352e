//! `eq` beyond integers: structural equality of constructors (by the
//! runtime routine `__kildall_eq`), the comparison of field elements for
//! values stored in one, and the refusal of comparisons the compiled code
//! cannot decide.

use super::*;

impl FnBuilder<'_> {
    /// `dst = eq a b` on operands that are not both integers: of two
    /// constructors, the structural comparison of the runtime; of two
    /// strings, their texts (by `__kildall_eq_str`); of two numbers, the
    /// comparison of the field elements. A constructor compared with
    /// anything else, constructors some field of which holds values whose
    /// kind the program does not say, a value of unknown kind, a string
    /// and another value, and IO actions are refused.
    pub(super) fn equality(
        &mut self,
        env: &mut Env,
        pos: Pos,
        dst: Option<&VarName>,
        [a, b]: [&Value; 2],
    ) -> Result<Inst, JvrError> {
        // What may hide a boolean compares as what nothing is known of.
        let unknown = |k: Kind| if k == Kind::Mixed { Kind::Any } else { k };
        let kinds = (unknown(self.kind(env, a)), unknown(self.kind(env, b)));
        let (a, b) = (self.operand(env, a)?, self.operand(env, b)?);
        let mut define = |this: &mut Self| match dst {
            Some(name) => this.define(env, name),
            None => this.fresh(),
        };
        let name = Kind::what;
        let refuse = |what: String| err(pos, JvrErrorKind::EqUndefined(what));
        let inst = match kinds {
            (Kind::Object, Kind::Object) => {
                if self.fields_known.checked {
                    if let Some((tag, k)) = self.fields_known.unknown() {
                        let ctor = self.module.ctor_by_tag(tag).unwrap_or_default();
                        return refuse(format!(
                            "constructors: field {k} of {ctor} holds values of unknown kind"
                        ));
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
                return refuse(format!("a constructor and {}", name(other)));
            }
            // Two values of which nothing is known may both be
            // constructors, which the reference interpreter compares by
            // structure and the compiled code could only compare by
            // address: refused, rather than answered differently.
            (Kind::Any, Kind::Any) => {
                return refuse("two values of unknown kind on Cairo (declare their types)".into());
            }
            (Kind::Io, _) | (_, Kind::Io) => return refuse("an IO action".into()),
            (Kind::Str, Kind::Str) => Inst::Apply {
                dst: define(self),
                kind: ApplyKind::EqualStrings,
                closure: a,
                args: vec![b],
            },
            (Kind::Str, other) | (other, Kind::Str) => {
                return refuse(format!("a string and {}", name(other)));
            }
            // A value of unknown kind may be a constructor at run time,
            // which the reference interpreter finds unequal to every
            // number; the compiled code holds its address, a field element
            // like any number, and cannot tell the two apart (a prover could
            // make an address equal the number): refused.
            (Kind::Any, other) | (other, Kind::Any) => {
                return refuse(format!(
                    "a value of unknown kind and {} on Cairo (declare its type)",
                    name(other)
                ));
            }
            // Numbers, booleans, `unit` and `void`, of known or of
            // disagreeing kinds: the reference interpreter compares them
            // by their field elements, and so does the compiled code.
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
