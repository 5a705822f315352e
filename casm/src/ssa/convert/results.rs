//! What the functions of a module declared `*` return, learnt by
//! converting the module until it settles, and the kinds of calls' results
//! that follow: a call of a closure whose function is known
//! ([`ClosureShape`]) returns what that function returns, a call of any
//! other closure what any function it can reach returns.

use super::*;

/// Conversions of a module that learn what its functions return, at most.
const MAX_RESULT_PASSES: usize = 8;

/// Converts every function until what the functions return settles: a
/// function whose result is not known yet (a recursion, a later function)
/// adds nothing to its callers' until a later pass knows it. So do what
/// calls pass to parameters ([`TermFlows`], [`ParamShapes`]) and, with
/// `settle_fields`, what the `alloc`s store in fields declared `*`.
pub(super) fn learn_results(
    module: &Module,
    sigs: &Signatures,
    fields_known: &mut FieldKinds,
    settle_fields: bool,
) -> Result<(Vec<SsaFunction>, Vec<FuncId>), JvrError> {
    let mut passes = 0;
    loop {
        let before = fields_known.results.clone();
        let fields_before = fields_known.snapshot();
        let converted = convert_functions(module, sigs, fields_known)?;
        passes += 1;
        let fields_changed = settle_fields && fields_known.settle();
        let settled = fields_known.terms.settled() && fields_known.params.settled();
        if fields_known.results == before && settled && !fields_changed {
            break Ok(converted);
        }
        if passes == MAX_RESULT_PASSES {
            // Not settled: what changed may be anything.
            for (name, kind) in fields_known.results.iter_mut() {
                if before.get(name) != Some(kind) {
                    *kind = Kind::Mixed;
                }
            }
            fields_known.widen_fields(&fields_before);
            fields_known.terms.widen();
            fields_known.params.widen();
            break convert_functions(module, sigs, fields_known);
        }
    }
}

impl FnBuilder<'_> {
    /// The kind of the declared result type of function `name`, or what
    /// the earlier passes saw it return (`None`: nothing yet).
    pub(super) fn learnt_result(&self, name: &str) -> Option<Kind> {
        self.fields_known.learnt_result(name)
    }

    /// [`Self::learnt_result`], unknown when nothing is learnt.
    pub(super) fn declared_result(&self, name: &str) -> Kind {
        self.learnt_result(name).unwrap_or_default()
    }

    /// What a call through a closure with `n` arguments returns (`None`:
    /// nothing known yet), as the pass began knowing it
    /// ([`ClosureResults`]).
    pub(super) fn closure_result(&self, kind: ApplyKind, n: usize) -> Option<Kind> {
        let c = &self.fields_known.closure_results;
        match kind {
            ApplyKind::Call => c.at_least.get(n).copied().flatten(),
            // A closure, or what any function returns.
            _ if n < c.most_params => {
                Some(Kind::Any.join(c.at_least.first().copied().flatten().unwrap_or_default()))
            }
            _ => c.at_least.first().copied().flatten(),
        }
    }
}

/// A closure whose function is known, and the arguments it still takes:
/// made by `calloc`, extended by `cextend` or by a `ccall` with fewer
/// arguments than it takes, copied by an assignment. A call of it with
/// its remaining arguments returns what its function returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::ssa) struct ClosureShape {
    func: String,
    left: usize,
}

impl ClosureShape {
    pub(super) fn new(func: &str, left: usize) -> ClosureShape {
        ClosureShape {
            func: func.to_string(),
            left,
        }
    }
}

impl FnBuilder<'_> {
    /// The function of `closure` and the first parameter its next argument
    /// goes to, when its shape is known.
    pub(super) fn shape_of_closure(&self, env: &Env, closure: &Value) -> Option<(String, usize)> {
        let shape = self.shape_of(env, closure)?;
        let arity = self.sigs.map.get(&shape.func)?.0;
        Some((shape.func.clone(), arity.checked_sub(shape.left)?))
    }

    fn shape_of(&self, env: &Env, closure: &Value) -> Option<&ClosureShape> {
        match closure {
            Value::Var(name, _) => self.shapes.get(&(*env.get(name)?)?),
            _ => None,
        }
    }

    /// What `closure` applied to `n` arguments returns (`None`: nothing
    /// known yet): its function's result when the closure's shape is known
    /// and takes exactly `n` more, a closure (of unknown kind) when it
    /// takes more, else what any closure call returns
    /// ([`Self::closure_result`]).
    pub(super) fn applied_result(
        &self,
        env: &Env,
        closure: &Value,
        kind: ApplyKind,
        n: usize,
    ) -> Option<Kind> {
        match self.shape_of(env, closure) {
            Some(shape) if shape.left == n => self.learnt_result(&shape.func),
            Some(shape) if shape.left > n && kind != ApplyKind::Call => Some(Kind::Any),
            _ => self.closure_result(kind, n),
        }
    }

    /// The shape of what `cextend` or `ccall` of `closure` with `n`
    /// arguments makes, when it is a closure of a known shape.
    pub(super) fn applied_shape(
        &self,
        env: &Env,
        closure: &Value,
        kind: ApplyKind,
        n: usize,
    ) -> Option<ClosureShape> {
        let shape = self.shape_of(env, closure)?;
        let extends = match kind {
            ApplyKind::Extend => shape.left >= n,
            ApplyKind::Any => shape.left > n,
            _ => false,
        };
        extends.then(|| ClosureShape::new(&shape.func, shape.left - n))
    }
}

/// What calls through closures return, by the number of arguments: a
/// closure of `f` calls `f` or extends to a closure. With exactly the
/// arguments it still takes (`call`), `n` of them reach a function of at
/// least `n` parameters; with any number (`ccall`), a function of more
/// than `n` parameters may return a closure, and one of fewer may apply
/// what it returns to the rest, so the result is any function's.
#[derive(Clone, Debug, Default)]
pub(in crate::ssa) struct ClosureResults {
    /// By `n`: what the defined functions of at least `n` parameters
    /// return, joined (`None`: nothing known yet).
    at_least: Vec<Option<Kind>>,
    /// The most parameters of a defined function.
    most_params: usize,
}

impl ClosureResults {
    /// From what the functions of `module` are known to return.
    pub(in crate::ssa) fn of(module: &Module, known: &FieldKinds) -> ClosureResults {
        let defined = module
            .functions
            .iter()
            .filter(|f| f.body.is_some() && known.terms.is_closure_target(&f.name));
        let most_params = defined.clone().map(|f| f.params.len()).max().unwrap_or(0);
        let mut by_arity: Vec<Option<Kind>> = vec![None; most_params + 1];
        for f in defined {
            if let Some(k) = known.learnt_result(&f.name) {
                let slot = &mut by_arity[f.params.len()];
                *slot = Some(slot.map_or(k, |old| old.join(k)));
            }
        }
        // Suffix joins: at least `n` parameters.
        let mut at_least = by_arity;
        for n in (0..most_params).rev() {
            at_least[n] = match (at_least[n], at_least[n + 1]) {
                (Some(a), Some(b)) => Some(a.join(b)),
                (a, b) => a.or(b),
            };
        }
        ClosureResults {
            at_least,
            most_params,
        }
    }
}
