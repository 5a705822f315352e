//! Whether the compiled machines can print a module's values as the
//! reference interpreter prints terms.
//!
//! Cairo stores `true` as 0, `false` as 1, and `unit` and `void` as 0, so
//! a printer reading a field element can name it only by the kind the
//! program gives it ([`Kind`]); the reference interpreter knows each
//! value's kind at run time. The printers tell numbers from addresses in
//! memory, so what they cannot tell is which scalar a field element is.
//! The conversion therefore follows where scalars lose their kind:
//!
//! * a join of a boolean, `unit` or `void` with another kind (branch arms,
//!   `ret`s, the `alloc`s of a field declared `*`) is [`Kind::Scalar`] or
//!   [`Kind::Mixed`] ([`Kind::join`]);
//! * a parameter declared `*` is [`Kind::Mixed`] when some call passes it
//!   one: a direct call, a `calloc` or a call through a closure of a known
//!   function at that position, and any call through a closure of unknown
//!   function (or a `bind`, which applies one to what an action gives) for
//!   every function a `calloc` names; the entry's arguments too
//!   ([`EntryFlows`]). What the calls pass is learnt by converting again,
//!   with what the functions return;
//!
//! A value given where a kind is declared (a parameter, a field, a
//! function's result) takes that kind on every machine: the reference
//! interpreter reads it as the declaration says
//! ([`crate::jvr_interp::Val::as_declared`]), as the compiled code does.
//!
//! Terms are refused for the whole run, on every machine, when the program
//! prints (`trace`, `return`, the result) a value whose term is unknown,
//! or may print a constructor with such a field. Field elements
//! (`--show felt`) are unaffected: every machine prints the same numbers.
//! A `write` prints its value's text whatever is shown, so such a `write`
//! is refused when compiling.

use super::*;
use crate::jvr_interp::Val;

/// What a module's conversion learns of what its positions of unknown
/// kind receive, and what it prints.
#[derive(Clone, Debug, Default)]
pub(in crate::ssa) struct TermFlows {
    /// What calls pass to each parameter declared `*`, by function and
    /// position, as the previous pass learnt it.
    known: HashMap<(String, usize), Kind>,
    /// The same, learnt by the current pass.
    learnt: HashMap<(String, usize), Kind>,
    /// What calls through closures of unknown functions pass, as the
    /// previous pass learnt it.
    closure_known: Option<Kind>,
    /// The same, learnt by the current pass.
    closure_learnt: Option<Kind>,
    /// The functions a `calloc` names.
    closure_targets: HashSet<String>,
    /// What the current pass prints, in order: traces and the values of
    /// `return`.
    printed: Vec<(Pos, Kind, &'static str)>,
    /// The values the current pass's `write`s print.
    written: Vec<(Pos, Kind)>,
    /// What the entry's arguments give `*` parameters.
    entry: Vec<((String, usize), Kind)>,
}

/// What the entry's arguments give the module: values for its `*`
/// parameters (and those of the closures they hold), values in
/// constructors' fields, and closures of functions.
#[derive(Clone, Debug, Default)]
pub(in crate::ssa) struct EntryFlows {
    /// What each `*` parameter is given, by function and position.
    pub(in crate::ssa) params: Vec<((String, usize), Kind)>,
    /// What each constructor field holds, by tag and position.
    pub(in crate::ssa) fields: Vec<(u32, usize, Kind)>,
    /// The functions of the closures.
    pub(in crate::ssa) closures: Vec<String>,
}

impl EntryFlows {
    /// What `args`, given to `entry`, give `module`.
    pub(in crate::ssa) fn of(module: &Module, entry: &str, args: &[Val]) -> EntryFlows {
        let mut flows = EntryFlows::default();
        for (i, a) in args.iter().enumerate() {
            flows.value(module, Some((entry, i)), a);
        }
        flows
    }

    /// Value `v`, given to parameter `at` (if it is one).
    fn value(&mut self, module: &Module, at: Option<(&str, usize)>, v: &Val) {
        let declared = at.and_then(|(f, i)| Some(module.definition(f)?.params.get(i)?.ty.clone()));
        if let (Some((f, i)), Some(ty)) = (at, declared) {
            if type_kind(module, &ty) == Kind::Any {
                self.params.push(((f.to_string(), i), kind_of(v)));
            }
        }
        match v {
            Val::Ctor(c) => {
                for (k, field) in c.fields.iter().enumerate() {
                    self.fields.push((c.tag, k, kind_of(field)));
                    self.value(module, None, field);
                }
            }
            Val::Closure(c) => {
                self.closures.push(c.func.clone());
                for (i, a) in c.args.iter().enumerate() {
                    self.value(module, Some((&c.func, i)), a);
                }
            }
            _ => {}
        }
    }
}

/// What a value given from outside is.
fn kind_of(v: &Val) -> Kind {
    match v {
        Val::Felt(_) => Kind::Int,
        Val::Bool(_) => Kind::Bool,
        Val::Unit => Kind::Unit,
        Val::Void => Kind::Void,
        Val::Str(_) => Kind::Str,
        Val::Ctor(_) => Kind::Object,
        Val::Closure(_) => Kind::Any,
        Val::Io(_) => Kind::Io,
    }
}

impl TermFlows {
    /// Flows in `module`, whose entry is given what `entry` says.
    pub(in crate::ssa) fn of(module: &Module, entry: &EntryFlows) -> TermFlows {
        let mut closure_targets: HashSet<String> = entry.closures.iter().cloned().collect();
        for f in &module.functions {
            callocs(f.body.as_deref().unwrap_or_default(), &mut closure_targets);
        }
        TermFlows {
            closure_targets,
            entry: entry.params.clone(),
            ..TermFlows::default()
        }
    }

    /// Starts a conversion pass with what the previous one learnt; the
    /// entry's arguments are given again.
    pub(in crate::ssa) fn begin_pass(&mut self) {
        self.known = std::mem::take(&mut self.learnt);
        self.closure_known = self.closure_learnt.take();
        self.printed.clear();
        self.written.clear();
        for ((f, i), kind) in self.entry.clone() {
            self.pass((&f, i), kind, Kind::Any);
        }
    }

    /// Whether the pass learnt what the previous one knew.
    pub(in crate::ssa) fn settled(&self) -> bool {
        self.known == self.learnt && self.closure_known == self.closure_learnt
    }

    /// After a pass that did not settle: the next one knows both.
    pub(in crate::ssa) fn widen(&mut self) {
        for (k, v) in &self.known {
            let joined = self.learnt.get(k).map_or(*v, |l| l.join(*v));
            self.learnt.insert(k.clone(), joined);
        }
        self.closure_learnt = match (self.closure_learnt, self.closure_known) {
            (Some(a), Some(b)) => Some(a.join(b)),
            (a, b) => a.or(b),
        };
    }

    /// The kind of parameter `i` of `f`, declared `declared`: a `*`
    /// parameter some call passes a boolean, `unit` or `void` is
    /// [`Kind::Mixed`].
    pub(in crate::ssa) fn param_kind(&self, f: &str, i: usize, declared: Kind) -> Kind {
        if declared != Kind::Any {
            return declared;
        }
        let direct = self.known.get(&(f.to_string(), i)).copied();
        let through_closures = self
            .closure_known
            .filter(|_| self.closure_targets.contains(f));
        direct
            .into_iter()
            .chain(through_closures)
            .fold(Kind::Any, Kind::join)
    }

    /// A value of kind `kind` passed to parameter `i` of `f`, declared
    /// `declared` (which it takes, when it is not `*`).
    fn pass(&mut self, (f, i): (&str, usize), kind: Kind, declared: Kind) {
        if declared == Kind::Any {
            let slot = self.learnt.entry((f.to_string(), i)).or_insert(kind);
            *slot = slot.join(kind);
        }
    }

    /// A value of kind `kind` passed to a closure of unknown function.
    pub(in crate::ssa) fn pass_to_closure(&mut self, kind: Kind) {
        self.closure_learnt = Some(self.closure_learnt.map_or(kind, |k| k.join(kind)));
    }

    /// Whether a closure may hold function `f`.
    pub(in crate::ssa) fn is_closure_target(&self, f: &str) -> bool {
        self.closure_targets.contains(f)
    }

    /// `what` prints a value of kind `kind`.
    pub(in crate::ssa) fn print(&mut self, pos: Pos, kind: Kind, what: &'static str) {
        self.printed.push((pos, kind, what));
    }

    /// A `write` of a value of kind `kind`.
    pub(in crate::ssa) fn write(&mut self, pos: Pos, kind: Kind) {
        self.written.push((pos, kind));
    }

    /// The first `write` whose text the compiled machines cannot give.
    pub(in crate::ssa) fn unwritable(
        &self,
        module: &Module,
        field_kinds: &[Vec<Kind>],
    ) -> Option<JvrError> {
        self.written
            .iter()
            .find_map(|(pos, kind)| unprintable(module, field_kinds, *kind, "write", *pos))
    }

    /// Why the values the module prints have no term the compiled
    /// machines can give (`field_kinds`: what the module's constructors'
    /// fields hold), if they have none.
    pub(in crate::ssa) fn hazard(
        &self,
        module: &Module,
        field_kinds: &[Vec<Kind>],
    ) -> Option<JvrError> {
        self.printed
            .iter()
            .find_map(|(pos, kind, what)| unprintable(module, field_kinds, *kind, what, *pos))
    }
}

/// Why a value of kind `kind` printed by `what` at `pos` has no term the
/// compiled machines can give: its field element may be a boolean, `unit`
/// or `void` its kind does not name, or it may be a constructor of which
/// such a field is.
pub(crate) fn unprintable(
    module: &Module,
    field_kinds: &[Vec<Kind>],
    kind: Kind,
    what: &str,
    pos: Pos,
) -> Option<JvrError> {
    let refuse = |text: String| {
        Some(JvrError {
            pos,
            kind: JvrErrorKind::NoTerms(text),
        })
    };
    if !kind.prints_as_term() {
        return refuse(format!(
            "{what} of {}, which may be a boolean, `unit` or `void` (numbers on Cairo)",
            kind.what()
        ));
    }
    if !matches!(kind, Kind::Object | Kind::Any) {
        return None;
    }
    let (tag, k) = field_kinds.iter().enumerate().find_map(|(tag, fields)| {
        let k = fields.iter().position(|k| !k.prints_as_term())?;
        Some((tag, k))
    })?;
    let ctor = module.ctor_by_tag(tag as u32).unwrap_or_default();
    refuse(format!(
        "{what} of {}, and field {k} of {ctor} holds values of unknown kind",
        kind.what()
    ))
}

/// The functions `calloc` names in `body`.
fn callocs(body: &[Stmt], out: &mut HashSet<String>) {
    for s in body {
        match &s.kind {
            StmtKind::CAlloc { func, .. } => {
                out.insert(func.clone());
            }
            StmtKind::Block(b) => callocs(b, out),
            StmtKind::Branch {
                on_true, on_false, ..
            } => {
                callocs(on_true, out);
                callocs(on_false, out);
            }
            StmtKind::Case { arms, default, .. } => {
                for a in arms {
                    callocs(&a.body, out);
                }
                callocs(default.as_deref().unwrap_or_default(), out);
            }
            _ => {}
        }
    }
}

impl FnBuilder<'_> {
    /// The arguments `args` given to `f` from its parameter `first` on.
    pub(super) fn pass_args(&mut self, env: &Env, f: &str, first: usize, args: &[Value]) {
        let declared: Vec<Kind> = match self.module.definition(f) {
            Some(def) => def
                .params
                .iter()
                .map(|p| type_kind(self.module, &p.ty))
                .collect(),
            None => return,
        };
        for (j, a) in args.iter().enumerate() {
            let kind = self.kind(env, a);
            match declared.get(first + j) {
                Some(d) => self.fields_known.terms.pass((f, first + j), kind, *d),
                // More arguments than the function takes: the rest go to
                // the closure it returns.
                None => self.fields_known.terms.pass_to_closure(kind),
            }
        }
    }

    /// The arguments `args` given to `closure`: to its function's
    /// parameters when its shape is known, else to any closure.
    pub(super) fn pass_closure_args(&mut self, env: &Env, closure: &Value, args: &[Value]) {
        let kinds: Vec<Kind> = args.iter().map(|a| self.kind(env, a)).collect();
        self.pass_closure_kinds(env, closure, &kinds);
    }

    fn pass_closure_kinds(&mut self, env: &Env, closure: &Value, kinds: &[Kind]) {
        let declared: Option<(String, usize, Vec<Kind>)> = self
            .shape_of_closure(env, closure)
            .and_then(|(func, first)| {
                let def = self.module.definition(&func)?;
                let declared = def.params.iter().map(|p| type_kind(self.module, &p.ty));
                Some((func, first, declared.collect()))
            });
        let terms = &mut self.fields_known.terms;
        for (j, kind) in kinds.iter().enumerate() {
            match &declared {
                Some((func, first, params)) if first + j < params.len() => {
                    terms.pass((func, first + j), *kind, params[first + j]);
                }
                _ => terms.pass_to_closure(*kind),
            }
        }
    }

    /// `alloc bind (action, closure)`: the closure receives what the
    /// action gives, when it was made here, else anything.
    pub(super) fn bind_flows(&mut self, env: &Env, action: &Value, closure: &Value) {
        let given = match action {
            Value::Var(name, _) => env
                .get(name)
                .copied()
                .flatten()
                .and_then(|v| self.io_results.get(&v).copied()),
            _ => None,
        };
        self.pass_closure_kinds(env, closure, &[given.unwrap_or(Kind::Mixed)]);
    }
}
