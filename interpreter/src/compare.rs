//! When two runs count as the same behaviour: the rule every test of a
//! pass applies to the program before and after the pass.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{display_list, Execution, Outcome};

/// What must match when both runs trap.
///
/// Passes move instructions between blocks and merge blocks, so the site
/// of a trap (its block and instruction) is not preserved by a correct
/// pass; what trapped is. [`TrapRule::SameKind`] is the rule for passes,
/// [`TrapRule::SameSite`] for transformations that keep every instruction
/// where it is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum TrapRule {
    /// The same [`TrapKind`](super::TrapKind), anywhere.
    #[default]
    SameKind,
    /// The same kind at the same site.
    SameSite,
}

impl TrapRule {
    /// Whether two runs agree: the same returned values, both out of fuel,
    /// or traps that match under this rule; and the same printed lines.
    ///
    /// References compare up to a renaming: a pass that removes an
    /// allocation renumbers the cells allocated after it, so `&mut 3` before
    /// may be `&mut 2` after, as long as the same cells stay the same and
    /// different cells stay different.
    pub fn same_execution(self, a: &Execution, b: &Execution) -> bool {
        canonical(&self.render(a)) == canonical(&self.render(b))
    }

    /// The outcome and output as text, with what this rule compares.
    fn render(self, execution: &Execution) -> String {
        let mut text = match &execution.outcome {
            Outcome::Return(values) => format!("return {}", display_list(values)),
            Outcome::Trap(trap) => match self {
                TrapRule::SameKind => format!("trap {}", trap.kind),
                TrapRule::SameSite => format!("trap {trap}"),
            },
            Outcome::OutOfFuel => "out of fuel".to_string(),
        };
        for line in &execution.output {
            let _ = write!(text, "\n{line}");
        }
        text
    }
}

/// `text` with every reference `&mut N` renumbered by order of first
/// appearance.
fn canonical(text: &str) -> String {
    const REF: &str = "&mut ";
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(REF) {
        out.push_str(&rest[..at + REF.len()]);
        rest = &rest[at + REF.len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            let next = names.len();
            let name = *names.entry(&rest[..digits]).or_insert(next);
            let _ = write!(out, "#{name}");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RefId, RuntimeValue};

    fn returning(refs: &[u32]) -> Execution {
        Execution {
            outcome: Outcome::Return(refs.iter().map(|&r| RuntimeValue::Ref(RefId(r))).collect()),
            output: vec![],
            steps: 1,
        }
    }

    #[test]
    fn references_compare_up_to_a_renaming() {
        let rule = TrapRule::SameKind;
        assert!(rule.same_execution(&returning(&[3, 4, 3]), &returning(&[1, 2, 1])));
        assert!(!rule.same_execution(&returning(&[3, 4]), &returning(&[1, 1])));
        assert!(!rule.same_execution(&returning(&[3, 3]), &returning(&[1, 2])));
        assert_eq!(
            canonical("&mut 12, &mut 7, &mut 12"),
            "&mut #0, &mut #1, &mut #0"
        );
    }
}
