//! What the functions of a module declared `*` return, learnt by
//! converting the module until it settles, and the kinds of calls' results
//! that follow.

use super::*;

/// Conversions of a module that learn what its functions return, at most.
const MAX_RESULT_PASSES: usize = 8;

/// Converts every function until what the functions return settles: a
/// function whose result is not known yet (a recursion, a later function)
/// adds nothing to its callers' until a later pass knows it.
pub(super) fn learn_results(
    module: &Module,
    sigs: &Signatures,
    fields_known: &mut FieldKinds,
) -> Result<(Vec<SsaFunction>, Vec<FuncId>), JvrError> {
    let mut passes = 0;
    loop {
        let before = fields_known.results.clone();
        let converted = convert_functions(module, sigs, fields_known)?;
        passes += 1;
        if fields_known.results == before {
            break Ok(converted);
        }
        if passes == MAX_RESULT_PASSES {
            // Not settled: what changed is unknown.
            for (name, kind) in fields_known.results.iter_mut() {
                if before.get(name) != Some(kind) {
                    *kind = Kind::Any;
                }
            }
            break convert_functions(module, sigs, fields_known);
        }
    }
}

impl FnBuilder<'_> {
    /// The kind of the declared result type of function `name`, or what
    /// the earlier passes saw it return (`None`: nothing yet).
    pub(super) fn learnt_result(&self, name: &str) -> Option<Kind> {
        let declared = self
            .module
            .functions
            .iter()
            .find(|f| f.name == name)
            .map_or(Kind::Any, |f| type_kind(self.module, &f.ret));
        match declared {
            Kind::Any => self.fields_known.results.get(name).copied(),
            k => Some(k),
        }
    }

    /// [`Self::learnt_result`], unknown when nothing is learnt.
    pub(super) fn declared_result(&self, name: &str) -> Kind {
        self.learnt_result(name).unwrap_or_default()
    }

    /// What a call through a closure with `n` arguments returns (`None`:
    /// nothing known yet). A closure of `f` calls `f` or extends to a
    /// closure: with exactly the arguments it still takes (`call`), a
    /// function of at least `n` parameters; with any number (`ccall`), a
    /// function of more than `n` parameters may return a closure, and one
    /// of fewer may apply what it returns to the rest.
    pub(super) fn closure_result(&self, kind: ApplyKind, n: usize) -> Option<Kind> {
        let defined = self.module.functions.iter().filter(|f| f.body.is_some());
        match kind {
            ApplyKind::Call => defined
                .filter(|f| f.params.len() >= n)
                .filter_map(|f| self.learnt_result(&f.name))
                .reduce(Kind::join),
            _ if defined.clone().any(|f| f.params.len() > n) => Some(Kind::Any),
            _ => defined
                .filter_map(|f| self.learnt_result(&f.name))
                .reduce(Kind::join),
        }
    }
}
