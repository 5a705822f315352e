//! What the values of a module are known to be ([`Kind`]), across its
//! functions: constructor fields and the results of functions declared
//! `*`, learnt by a first conversion pass.

use std::collections::HashMap;

use crate::heap::{IoTags, Kind};
use crate::jvr::Module;

/// The kind of a declared type: a type the module declares holds
/// constructors.
pub(crate) fn type_kind(module: &Module, ty: &str) -> Kind {
    match Kind::of_type(ty) {
        Kind::Any if module.types.iter().any(|t| t.name == ty.trim()) => Kind::Object,
        k => k,
    }
}

/// The kind of each function's declared result type, by name.
fn declared_results(module: &Module) -> HashMap<String, Kind> {
    let mut kinds = HashMap::new();
    for f in &module.functions {
        kinds
            .entry(f.name.clone())
            .or_insert_with(|| type_kind(module, &f.ret));
    }
    kinds
}

/// What the module's values are known to be across functions: the fields
/// of each constructor (their declared types' kinds, and for a field
/// declared `*` what the module's `alloc`s store in it) and the results of
/// functions declared `*`.
pub(super) struct FieldKinds {
    /// The constructors the module declares; the IO constructors follow.
    n_module: usize,
    /// By tag, by field: the declared kind (`Any` for `*`).
    declared: Vec<Vec<Kind>>,
    /// What `alloc`s store, joined.
    stored: HashMap<(u32, usize), Kind>,
    /// What the entry's arguments hold in constructors' fields.
    entry_fields: Vec<(u32, usize, Kind)>,
    /// The kinds the conversion uses (declared, then settled).
    known: Vec<Vec<Kind>>,
    /// Whether `known` is settled, so that equality may be checked.
    pub(super) checked: bool,
    /// Whether an `alloc` makes an IO action.
    pub(super) uses_io: bool,
    /// What each function declared `*` was seen to return.
    pub(super) results: HashMap<String, Kind>,
    /// The kind of each function's declared result type (the first
    /// declaration's).
    declared_results: HashMap<String, Kind>,
    /// What calls through closures return, as the current pass began.
    pub(super) closure_results: super::convert::ClosureResults,
    /// What the module's positions of unknown kind receive, and what it
    /// prints.
    pub(super) terms: super::convert::TermFlows,
    /// The closures the parameters of the module's functions hold.
    pub(super) params: super::convert::ParamShapes,
}

impl FieldKinds {
    pub(super) fn declared(module: &Module, entry: &super::convert::EntryFlows) -> FieldKinds {
        let mut declared: Vec<Vec<Kind>> = module
            .types
            .iter()
            .flat_map(|t| &t.ctors)
            .map(|c| {
                let mut kinds: Vec<Kind> = crate::jvr::ctor_field_types(&c.ty)
                    .iter()
                    .map(|ty| type_kind(module, ty))
                    .collect();
                kinds.resize(c.arity, Kind::Any);
                kinds
            })
            .collect();
        let n_module = declared.len();
        // `return x`, `bind a f`, `write x`.
        declared.extend([vec![Kind::Any], vec![Kind::Io, Kind::Any], vec![Kind::Any]]);
        FieldKinds {
            n_module,
            known: declared.clone(),
            declared,
            stored: HashMap::new(),
            checked: false,
            uses_io: false,
            declared_results: declared_results(module),
            closure_results: Default::default(),
            results: HashMap::new(),
            terms: super::convert::TermFlows::of(module, entry),
            entry_fields: entry.fields.clone(),
            params: Default::default(),
        }
    }

    pub(super) fn get(&self, tag: u32, k: usize) -> Kind {
        self.known
            .get(tag as usize)
            .and_then(|f| f.get(k))
            .copied()
            .unwrap_or_default()
    }

    /// The kind of the declared result type of function `name`, or what
    /// the earlier passes saw it return (`None`: nothing yet).
    pub(super) fn learnt_result(&self, name: &str) -> Option<Kind> {
        match self.declared_results.get(name).copied().unwrap_or_default() {
            Kind::Any => self.results.get(name).copied(),
            k => Some(k),
        }
    }

    /// Where the IO constructors are.
    pub(super) fn io_tags(&self) -> IoTags {
        IoTags {
            n_module: self.n_module as u32,
        }
    }

    pub(super) fn store(&mut self, tag: u32, k: usize, kind: Kind) {
        self.uses_io |= tag as usize >= self.n_module;
        self.stored
            .entry((tag, k))
            .and_modify(|old| *old = old.join(kind))
            .or_insert(kind);
    }

    /// Starts a conversion pass: what it stores is learnt afresh, from
    /// what the entry's arguments hold.
    pub(super) fn begin_pass(&mut self) {
        self.stored.clear();
        for (tag, k, kind) in self.entry_fields.clone() {
            self.store(tag, k, kind);
        }
    }

    /// Fields declared `*` take what every `alloc` of the pass stored in
    /// them; returns whether that changed what they are known to hold.
    pub(super) fn settle(&mut self) -> bool {
        let before = self.known.clone();
        for (tag, fields) in self.declared.iter().enumerate() {
            for (k, declared) in fields.iter().enumerate() {
                if *declared == Kind::Any {
                    let stored = self.stored.get(&(tag as u32, k)).copied();
                    self.known[tag][k] = stored.unwrap_or_default();
                }
            }
        }
        self.checked = true;
        self.known != before
    }

    /// After passes that did not settle: fields whose kind changed hold
    /// anything.
    pub(super) fn widen_fields(&mut self, before: &[Vec<Kind>]) {
        for (now, old) in self.known.iter_mut().flatten().zip(before.iter().flatten()) {
            if now != old {
                *now = Kind::Mixed;
            }
        }
    }

    /// What the fields are known to hold, by tag (the IO constructors'
    /// too).
    pub(super) fn snapshot(&self) -> Vec<Vec<Kind>> {
        self.known.clone()
    }

    /// A field whose kind is neither a number's, a constructor's nor a
    /// string's.
    pub(super) fn unknown(&self) -> Option<(u32, usize)> {
        let module = &self.known[..self.n_module];
        module.iter().enumerate().find_map(|(tag, fields)| {
            let k = fields
                .iter()
                .position(|k| !(k.is_scalar() || matches!(k, Kind::Object | Kind::Str)))?;
            Some((tag as u32, k))
        })
    }

    /// A field whose kind `show` cannot print as a term: neither an
    /// integer's, a boolean's, `unit`, `void` nor a constructor's (a
    /// string is printed quoted, a number of disagreeing kinds may be a
    /// boolean or an integer).
    pub(super) fn unshowable(&self) -> Option<(u32, usize, Kind)> {
        let module = &self.known[..self.n_module];
        module.iter().enumerate().find_map(|(tag, fields)| {
            let showable = |k: &Kind| {
                matches!(
                    k,
                    Kind::Int | Kind::Bool | Kind::Unit | Kind::Void | Kind::Object
                )
            };
            let k = fields.iter().position(|k| !showable(k))?;
            Some((tag as u32, k, fields[k]))
        })
    }

    /// The module's own constructors' fields, by tag.
    pub(super) fn by_tag(&self) -> Vec<Vec<Kind>> {
        self.known[..self.n_module].to_vec()
    }
}
