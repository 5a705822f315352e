//! What a value is known to be ([`Kind`]): the compiled code stores
//! integers, booleans, `unit` and `void` alike as field elements, so the
//! printers and the runtime routines read a value by the kind the program
//! gives it.

use crate::felt::Felt;

/// What a value is, as far as the program's declared types and its
/// operations say: the printer reads a field element by it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Nothing known: a number prints as an integer, an address as the
    /// object it points to.
    #[default]
    Any,
    /// An integer or a field element.
    Int,
    /// A boolean (0 is `true`, as Juvix's Cairo backend stores it).
    Bool,
    /// `unit`.
    Unit,
    /// `void`.
    Void,
    /// The address of a constructor.
    Object,
    /// The address of a string (see [`super::STRING_HEADER`]).
    Str,
    /// The address of an IO action (see [`super::IO_CTORS`]).
    Io,
    /// A number of a kind the paths that reach it disagree on (an integer
    /// on one, a boolean on another): compares as a field element; its
    /// term cannot be printed (the field element does not say which).
    Scalar,
    /// Nothing known, and a boolean, `unit`, `void` or a number of
    /// disagreeing kinds may be among what reaches it (a `*` parameter
    /// some call passes a boolean, a branch joining a boolean with a
    /// constructor): compares as [`Kind::Any`]; its term cannot be printed.
    Mixed,
}

impl Kind {
    /// The kind of a declared type: `integer`, `field`, `bool`, `unit`;
    /// any other type says nothing.
    pub fn of_type(ty: &str) -> Kind {
        match ty.trim() {
            "integer" | "field" => Kind::Int,
            "bool" => Kind::Bool,
            "unit" => Kind::Unit,
            "void" => Kind::Void,
            "string" => Kind::Str,
            "IO" => Kind::Io,
            _ => Kind::Any,
        }
    }

    /// Whether values of this kind are stored in one field element.
    pub fn is_scalar(self) -> bool {
        matches!(
            self,
            Kind::Int | Kind::Bool | Kind::Unit | Kind::Void | Kind::Scalar
        )
    }

    /// What two paths agree on. A boolean, `unit` or `void` joined with
    /// anything else loses what it is, which [`Kind::Scalar`] and
    /// [`Kind::Mixed`] remember.
    pub fn join(self, other: Kind) -> Kind {
        if self == other {
            self
        } else if self.is_scalar() && other.is_scalar() {
            Kind::Scalar
        } else if self.hides_scalar_kind() || other.hides_scalar_kind() {
            Kind::Mixed
        } else {
            Kind::Any
        }
    }

    /// Whether a value of this kind may be a field element the printer
    /// cannot name: a boolean, `unit` or `void` that is not known to be one
    /// (or one that is, which a join with another kind would hide).
    fn hides_scalar_kind(self) -> bool {
        matches!(
            self,
            Kind::Bool | Kind::Unit | Kind::Void | Kind::Scalar | Kind::Mixed
        )
    }

    /// Whether the printer can give a value of this kind the term the
    /// reference interpreter prints: not when the field element it holds
    /// may be a boolean, `unit` or `void` that the kind does not name.
    pub fn prints_as_term(self) -> bool {
        !matches!(self, Kind::Scalar | Kind::Mixed)
    }

    /// The kind's name for an error message.
    pub fn what(self) -> &'static str {
        match self {
            Kind::Any | Kind::Mixed => "a value of unknown kind",
            k => k.name().unwrap_or("a value of unknown kind"),
        }
    }

    /// The name in a listing's `trace` hint (`None` for [`Kind::Any`]).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Kind::Any => None,
            Kind::Int => Some("integer"),
            Kind::Bool => Some("bool"),
            Kind::Unit => Some("unit"),
            Kind::Void => Some("void"),
            Kind::Object => Some("object"),
            Kind::Str => Some("string"),
            Kind::Io => Some("io"),
            Kind::Scalar => Some("number"),
            Kind::Mixed => Some("unknown"),
        }
    }

    const ALL: [Kind; 10] = [
        Kind::Any,
        Kind::Int,
        Kind::Bool,
        Kind::Unit,
        Kind::Void,
        Kind::Object,
        Kind::Str,
        Kind::Io,
        Kind::Scalar,
        Kind::Mixed,
    ];

    /// The number that stands for this kind in memory: the IO actions
    /// carry the kind of the value they hold, and `__kildall_run_io`
    /// writes it to the `output` builtin beside the value.
    pub fn code(self) -> u32 {
        Kind::ALL.iter().position(|k| *k == self).unwrap_or(0) as u32
    }

    /// The kind of code `c`.
    pub fn from_code(c: Felt) -> Option<Kind> {
        let l = c.limbs();
        if (l[1] | l[2] | l[3]) != 0 {
            return None;
        }
        Kind::ALL.get(usize::try_from(l[0]).ok()?).copied()
    }

    /// The numbers a value of this kind is stored as, each with its text
    /// in a term: `true` (0) and `false` (1) for a boolean (as Juvix's
    /// Cairo backend stores them), 0 for `unit` and `void`; none for the
    /// kinds whose numbers are read otherwise. Another number given where
    /// such a kind is declared (an ill-typed program) is no value of it,
    /// and prints as the number, as the reference interpreter keeps it.
    pub fn stored_texts(self) -> &'static [(Felt, &'static str)] {
        match self {
            Kind::Bool => &[(Felt::ZERO, "true"), (Felt::ONE, "false")],
            Kind::Unit => &[(Felt::ZERO, "unit")],
            Kind::Void => &[(Felt::ZERO, "void")],
            _ => &[],
        }
    }

    /// The kind named `name` in a listing.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == Some(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvr::bool_felt;

    #[test]
    fn stored_texts_are_the_numbers_the_backend_stores() {
        let bool_texts: Vec<(Felt, &str)> =
            vec![(bool_felt(true), "true"), (bool_felt(false), "false")];
        assert_eq!(Kind::Bool.stored_texts(), bool_texts.as_slice());
        assert_eq!(Kind::Unit.stored_texts(), &[(Felt::ZERO, "unit")]);
        assert_eq!(Kind::Void.stored_texts(), &[(Felt::ZERO, "void")]);
        for kind in [Kind::Int, Kind::Object, Kind::Str, Kind::Any] {
            assert!(kind.stored_texts().is_empty(), "{kind:?}");
        }
    }
}
