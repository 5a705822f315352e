//! Closed components kept for the next instance.
//!
//! A caller that solves a sequence of instances which differ only in a few
//! places (a parameter sweep, an instance grown step by step) finds most of
//! their components unchanged from one instance to the next. A component
//! is identified by what it is (its elements, its sets over them, and their
//! costs), so a component found again is the same instance and its optimum
//! carries over exactly.

use std::collections::HashMap;

use super::set::Set;

/// A component of a hitting-set instance: its values in order, its sets
/// over their positions, and their costs (`None`: 1 each).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ComponentKey {
    pub(super) names: Vec<usize>,
    pub(super) sets: Vec<Set>,
    pub(super) weights: Option<Vec<u64>>,
}

/// The optimum of every component whose search closed.
#[derive(Default, Debug)]
pub struct ComponentMemo {
    closed: HashMap<ComponentKey, Vec<usize>>,
    /// Components taken from the memo.
    hits: usize,
}

impl ComponentMemo {
    /// A cheapest cover of the component (values), if one was proven.
    pub(super) fn get(&mut self, key: &ComponentKey) -> Option<&[usize]> {
        let cover = self.closed.get(key)?;
        self.hits += 1;
        Some(cover)
    }

    /// How many components were taken from the memo.
    pub fn hits(&self) -> usize {
        self.hits
    }

    /// Records a cover proven cheapest for the component.
    pub(super) fn insert(&mut self, key: ComponentKey, cover: Vec<usize>) {
        self.closed.entry(key).or_insert(cover);
    }
}
