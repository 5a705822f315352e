//! The closures the parameters of a module's functions hold, learnt from
//! the direct calls that reach them, so that a call through a parameter
//! returns what its one function returns (`map` called with a closure of
//! `dec` returns `dec`'s integers, not what any closure of the module may
//! return).
//!
//! A parameter is known to hold closures of one shape (function and
//! arguments left) when every direct call passes one of that shape. The
//! learning is optimistic, as for results: a parameter no call has reached
//! yet adds nothing to the calls that pass it on (a recursion passing its
//! own parameter), and converting again until nothing changes settles it.
//! The parameters of functions entered otherwise are open (they hold
//! anything): the entry, whose arguments come from outside, and every
//! function a closure may hold.

use super::*;

/// What the direct calls pass to one parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Passed {
    /// Closures of this shape.
    Shape(ClosureShape),
    /// Anything else, or shapes that disagree.
    Any,
}

impl Passed {
    fn join(self, other: Passed) -> Passed {
        if self == other {
            self
        } else {
            Passed::Any
        }
    }
}

/// What the parameters of a module's functions hold.
#[derive(Clone, Debug, Default)]
pub(in crate::ssa) struct ParamShapes {
    /// By function and position, as the previous pass learnt it (absent:
    /// no call seen).
    known: HashMap<(String, usize), Passed>,
    /// The same, learnt by the current pass.
    learnt: HashMap<(String, usize), Passed>,
    /// The entry, when it is known; otherwise any function may be one.
    entry: Option<String>,
}

impl ParamShapes {
    pub(in crate::ssa) fn new(entry: Option<&str>) -> ParamShapes {
        ParamShapes {
            entry: entry.map(str::to_string),
            ..ParamShapes::default()
        }
    }

    /// Starts a conversion pass with what the previous one learnt.
    pub(in crate::ssa) fn begin_pass(&mut self) {
        self.known = std::mem::take(&mut self.learnt);
    }

    /// Whether the pass learnt what the previous one knew.
    pub(in crate::ssa) fn settled(&self) -> bool {
        self.known == self.learnt
    }

    /// After a pass that did not settle: what changed holds anything.
    pub(in crate::ssa) fn widen(&mut self) {
        for (k, v) in &self.known {
            if self.learnt.get(k) != Some(v) {
                self.learnt.insert(k.clone(), Passed::Any);
            }
        }
    }

    /// Whether the parameters of `f` receive what no call of the module
    /// passes.
    fn open(&self, f: &str, terms: &TermFlows) -> bool {
        self.entry.as_deref().is_none_or(|e| e == f) || terms.is_closure_target(f)
    }

    /// The shape of the closures parameter `i` of `f` holds, if known.
    pub(in crate::ssa) fn shape(
        &self,
        f: &str,
        i: usize,
        terms: &TermFlows,
    ) -> Option<ClosureShape> {
        if self.open(f, terms) {
            return None;
        }
        match self.known.get(&(f.to_string(), i)) {
            Some(Passed::Shape(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// Whether no call has reached parameter `i` of `f` yet.
    fn unreached(&self, f: &str, i: usize, terms: &TermFlows) -> bool {
        !self.open(f, terms) && !self.known.contains_key(&(f.to_string(), i))
    }

    fn pass(&mut self, f: &str, i: usize, passed: Passed) {
        let key = (f.to_string(), i);
        let joined = match self.learnt.remove(&key) {
            Some(old) => old.join(passed),
            None => passed,
        };
        self.learnt.insert(key, joined);
    }
}

impl FnBuilder<'_> {
    /// The closures the arguments of a direct call of `f` give its
    /// parameters.
    pub(super) fn pass_shapes(&mut self, env: &Env, f: &str, args: &[Value]) {
        for (i, a) in args.iter().enumerate() {
            let var = match a {
                Value::Var(name, _) => env.get(name).copied().flatten(),
                _ => None,
            };
            let passed = match var {
                Some(x) => match (self.shapes.get(&x), self.param_origin.get(&x)) {
                    (Some(s), _) => Passed::Shape(s.clone()),
                    // A parameter no call has reached yet adds nothing.
                    (None, Some(p)) if self.param_unreached(*p) => continue,
                    _ => Passed::Any,
                },
                None => Passed::Any,
            };
            self.fields_known.params.pass(f, i, passed);
        }
    }

    fn param_unreached(&self, p: u32) -> bool {
        let known = &*self.fields_known;
        known.params.unreached(self.name, p as usize, &known.terms)
    }
}
