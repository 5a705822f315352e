//! The values known to equal a cell's content: a small set, cheap to copy.

use std::rc::Rc;

use kildall_ir::Value;

/// A nonempty set of values that all equal the content of one cell at a
/// program point. Almost always one value (the one stored); a load that
/// reads the cell adds its own result, which is what makes the load's
/// transfer monotone (see [`super`]).
#[derive(Clone, Debug)]
pub(crate) enum EqualValues {
    One(Value),
    /// Sorted by index, at least two.
    Many(Rc<[Value]>),
}

impl PartialEq for EqualValues {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (EqualValues::One(a), EqualValues::One(b)) => a == b,
            (EqualValues::Many(a), EqualValues::Many(b)) => Rc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}

impl EqualValues {
    fn from_sorted(values: Vec<Value>) -> Option<Self> {
        match values.len() {
            0 => None,
            1 => Some(EqualValues::One(values[0])),
            _ => Some(EqualValues::Many(values.into())),
        }
    }

    pub(crate) fn as_slice(&self) -> &[Value] {
        match self {
            EqualValues::One(v) => std::slice::from_ref(v),
            EqualValues::Many(values) => values,
        }
    }

    /// The set with `v` added.
    pub(crate) fn with(&self, v: Value) -> Self {
        let values = self.as_slice();
        match values.binary_search(&v) {
            Ok(_) => self.clone(),
            Err(at) => {
                let mut more = Vec::with_capacity(values.len() + 1);
                more.extend_from_slice(&values[..at]);
                more.push(v);
                more.extend_from_slice(&values[at..]);
                EqualValues::Many(more.into())
            }
        }
    }

    /// The values in both sets, `None` if there are none.
    pub(crate) fn intersect(&self, other: &Self) -> Option<Self> {
        let (a, b) = (self.as_slice(), other.as_slice());
        let mut both = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    both.push(a[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        if both.len() == a.len() {
            return Some(self.clone());
        }
        Self::from_sorted(both)
    }

    /// The values other than those `drop` rejects, `None` if none is left.
    pub(crate) fn filtered(&self, drop: impl Fn(Value) -> bool) -> Option<Self> {
        if !self.as_slice().iter().any(|&v| drop(v)) {
            return Some(self.clone());
        }
        Self::from_sorted(
            self.as_slice()
                .iter()
                .copied()
                .filter(|&v| !drop(v))
                .collect(),
        )
    }

    /// The value a load of the cell is replaced by: the first by index
    /// other than the load's own result (any member would do; the first
    /// keeps the choice independent of the order of the solve).
    pub(crate) fn representative(&self, result: Option<Value>) -> Option<Value> {
        self.as_slice().iter().copied().find(|&v| Some(v) != result)
    }
}
