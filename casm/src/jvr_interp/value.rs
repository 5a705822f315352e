//! Run-time values of the reference interpreter and the two ways a run
//! prints them: as Juvix's Reg interpreter prints terms (`true`,
//! `cons 1 (cons 2 nil)`, strings as their text, nothing for a `void`
//! result) or as the field elements Juvix's Cairo backend stores.

use std::fmt::Write as _;
use std::rc::Rc;

use super::JvrRunError;
use crate::felt::Felt;
use crate::heap::Kind;
use crate::jvr::bool_felt;

/// A run-time value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    /// An integer or a field element.
    Felt(Felt),
    /// A boolean.
    Bool(bool),
    /// `unit`.
    Unit,
    /// `void`.
    Void,
    /// A string.
    Str(Rc<str>),
    /// A constructor.
    Ctor(Rc<CtorVal>),
    /// A closure.
    Closure(Rc<ClosureVal>),
    /// An IO action: a value of one of Juvix's builtin constructors
    /// `return`, `bind`, `write` and `readLn`, run after `main` returns.
    Io(Rc<IoAction>),
}

/// A constructor value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtorVal {
    /// Its tag: the index of the constructor in the module.
    pub tag: u32,
    /// The constructor's name.
    pub name: String,
    /// Whether it is the only constructor of its type (a record).
    pub is_record: bool,
    /// Its fields.
    pub fields: Vec<Val>,
}

/// A closure value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosureVal {
    /// The function.
    pub func: String,
    /// Its number of parameters.
    pub arity: usize,
    /// Arguments stored so far.
    pub args: Vec<Val>,
}

/// An IO action (Juvix's builtin IO constructors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IoAction {
    /// `return x`: gives `x`.
    Return(Val),
    /// `bind x f`: runs `x`, then the action `f` returns for its result.
    Bind(Val, Val),
    /// `write x`: prints `x` (a string as its text, without a newline).
    Write(Val),
    /// `readLn`: the next line of the input, as a string.
    ReadLn,
}

impl IoAction {
    /// The builtin constructor `name` holding `fields`, if it is one.
    pub fn from_ctor(name: &str, fields: &[Val]) -> Option<IoAction> {
        match (name, fields) {
            ("return", [x]) => Some(IoAction::Return(x.clone())),
            ("bind", [x, f]) => Some(IoAction::Bind(x.clone(), f.clone())),
            ("write", [x]) => Some(IoAction::Write(x.clone())),
            ("readLn", []) => Some(IoAction::ReadLn),
            _ => None,
        }
    }
}

/// How values print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Show {
    /// As Juvix's Reg interpreter prints terms.
    #[default]
    Term,
    /// As the field elements Juvix's Cairo backend stores (booleans 0 for
    /// `true` and 1 for `false`, `unit` and `void` 0; a record as its
    /// fields, one per line).
    Felt,
}

impl Val {
    /// The field element that stores the value on Cairo, or an error naming
    /// what the value is instead.
    pub fn felt(&self) -> Result<Felt, JvrRunError> {
        match self {
            Val::Felt(f) => Ok(*f),
            Val::Bool(b) => Ok(bool_felt(*b)),
            Val::Unit | Val::Void => Ok(Felt::ZERO),
            other => Err(JvrRunError::Kind(format!(
                "{} used as a number",
                other.describe()
            ))),
        }
    }

    /// The value read as a position declared of kind `kind` reads it
    /// (a parameter, a function's result, a constructor's field), keeping
    /// its field element: the compiled machines print a number by the kind
    /// its position declares, so a boolean given where `integer` is
    /// declared is the number that stores it, and 0 or 1 given where `bool`
    /// is declared the boolean it stores. Other values, and positions
    /// declared `*`, keep what they are.
    pub fn as_declared(self, kind: Kind) -> Val {
        if !self.is_scalar() {
            return self;
        }
        let Ok(f) = self.felt() else { return self };
        match kind {
            Kind::Bool if f == bool_felt(true) => Val::Bool(true),
            Kind::Bool if f == bool_felt(false) => Val::Bool(false),
            Kind::Unit if f.is_zero() => Val::Unit,
            Kind::Void if f.is_zero() => Val::Void,
            Kind::Int | Kind::Object | Kind::Str | Kind::Io => Val::Felt(f),
            // Another number where `bool`, `unit` or `void` is declared
            // stays a number, and prints as one on every machine.
            _ => self,
        }
    }

    /// Whether the value is stored in one field element (not on the heap).
    pub fn is_scalar(&self) -> bool {
        matches!(self, Val::Felt(_) | Val::Bool(_) | Val::Unit | Val::Void)
    }

    /// What the value is, for an error message.
    pub fn describe(&self) -> String {
        match self {
            Val::Felt(f) => format!("the number {f}"),
            Val::Bool(b) => format!("the boolean {b}"),
            Val::Unit => "unit".to_string(),
            Val::Void => "void".to_string(),
            Val::Str(_) => "a string".to_string(),
            Val::Ctor(c) => format!("constructor {}", c.name),
            Val::Closure(c) => format!("a closure of {}", c.func),
            Val::Io(_) => "an IO action".to_string(),
        }
    }

    /// Structural equality, as Juvix's `eq`: numbers (and booleans, `unit`
    /// and `void`) by the field element that stores them, strings by their
    /// text, constructors by tag and fields; a number, a string and a
    /// constructor are unequal to one another, as in Juvix's Reg
    /// interpreter. Closures and IO actions have no equality: comparing one
    /// is an error.
    pub fn structural_eq(&self, other: &Val) -> Result<bool, JvrRunError> {
        let data = |v: &Val| v.is_scalar() || matches!(v, Val::Str(_) | Val::Ctor(_));
        match (self, other) {
            (a, b) if a.is_scalar() && b.is_scalar() => Ok(a.felt()? == b.felt()?),
            (Val::Str(a), Val::Str(b)) => Ok(a == b),
            (Val::Ctor(a), Val::Ctor(b)) => {
                if a.tag != b.tag || a.name != b.name {
                    return Ok(false);
                }
                for (x, y) in a.fields.iter().zip(&b.fields) {
                    if !x.structural_eq(y)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            (a, b) if data(a) && data(b) => Ok(false),
            (a, b) => Err(JvrRunError::Kind(format!(
                "eq of {} and {}",
                a.describe(),
                b.describe()
            ))),
        }
    }

    /// The lines the Cairo backend prints for a result: a number in signed
    /// decimal; a record, each of its fields (records nested in it
    /// flattened); any other constructor, its name; a closure, its
    /// function's name.
    pub fn output_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.push_lines(&mut out);
        out
    }

    fn push_lines(&self, out: &mut Vec<String>) {
        match self {
            Val::Ctor(c) if c.is_record => c.fields.iter().for_each(|f| f.push_lines(out)),
            Val::Ctor(c) => out.push(format!("<{}>", c.name)),
            Val::Closure(c) => out.push(format!("<closure {}>", c.func)),
            Val::Str(s) => out.push(s.to_string()),
            Val::Io(_) => out.push("<IO>".to_string()),
            scalar => out.push(scalar.felt().map(|f| f.to_string()).unwrap_or_default()),
        }
    }

    /// The text Juvix prints for the value (and `show` gives): a string
    /// as its text, anything else as a term.
    pub fn text(&self) -> String {
        match self {
            Val::Str(s) => s.to_string(),
            v => {
                let mut out = String::new();
                v.write_term(&mut out, false);
                out
            }
        }
    }

    /// Writes the value as a term: a constructor applied to its fields,
    /// in parentheses when it is an argument with fields.
    fn write_term(&self, out: &mut String, nested: bool) {
        match self {
            Val::Felt(f) => {
                let _ = write!(out, "{f}");
            }
            Val::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Val::Unit => out.push_str("unit"),
            Val::Void => out.push_str("void"),
            Val::Str(s) => {
                let _ = write!(out, "{s:?}");
            }
            Val::Ctor(c) if c.fields.is_empty() => out.push_str(&c.name),
            Val::Ctor(c) => {
                if nested {
                    out.push('(');
                }
                out.push_str(&c.name);
                for f in &c.fields {
                    out.push(' ');
                    f.write_term(out, true);
                }
                if nested {
                    out.push(')');
                }
            }
            Val::Closure(c) => {
                let _ = write!(out, "<closure {}>", c.func);
            }
            Val::Io(_) => out.push_str("<IO>"),
        }
    }
}

/// What a run printed, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `trace v`: the value on a line of its own.
    Trace(Val),
    /// An IO `write`: the value's text, no newline added.
    Write(Val),
}

/// The lines a run prints: its events, then the result (nothing for a
/// `void` result when printing terms, as Juvix).
pub fn printed_lines(events: &[Event], result: &Val, show: Show) -> Vec<String> {
    let mut text = String::new();
    let push_value = |text: &mut String, v: &Val| match show {
        Show::Term => {
            text.push_str(&v.text());
            text.push('\n');
        }
        Show::Felt => {
            for line in v.output_lines() {
                text.push_str(&line);
                text.push('\n');
            }
        }
    };
    for e in events {
        match e {
            Event::Trace(v) => push_value(&mut text, v),
            Event::Write(v) => text.push_str(&v.text()),
        }
    }
    if !(show == Show::Term && *result == Val::Void) {
        push_value(&mut text, result);
    }
    text.lines().map(str::to_string).collect()
}
