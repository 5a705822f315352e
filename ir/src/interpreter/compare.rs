//! When two runs count as the same behaviour: the rule every test of a
//! pass applies to the program before and after the pass.

use super::{Execution, Outcome};

/// What must match when both runs trap.
///
/// Passes move instructions between blocks and merge blocks, so the site
/// of a trap (its block and instruction) is not preserved by a correct
/// pass; what trapped is. [`TrapRule::SameKind`] is the rule for passes,
/// [`TrapRule::SameSite`] for transformations that keep every instruction
/// where it is (printing and parsing a module again).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum TrapRule {
    /// The same [`TrapKind`](super::TrapKind), anywhere.
    #[default]
    SameKind,
    /// The same kind at the same site.
    SameSite,
}

impl TrapRule {
    /// Whether two outcomes agree: the same returned values, both out of
    /// fuel, or traps that match under this rule.
    pub fn same_outcome(self, a: &Outcome, b: &Outcome) -> bool {
        match (a, b) {
            (Outcome::Trap(x), Outcome::Trap(y)) => match self {
                TrapRule::SameKind => x.kind == y.kind,
                TrapRule::SameSite => x == y,
            },
            _ => a == b,
        }
    }

    /// Whether two runs agree: outcomes under this rule, and the same
    /// printed lines.
    pub fn same_execution(self, a: &Execution, b: &Execution) -> bool {
        a.output == b.output && self.same_outcome(&a.outcome, &b.outcome)
    }
}
