//! The work a search may do, counted so that where it stops is a function
//! of the instance and the budget alone.
//!
//! A search charges one unit per simplex pivot and per node of a branch
//! and bound. Those counts depend only on the instance and the order of
//! the search, never on the machine's speed or load, so a search bounded
//! by effort returns the same cover and bound everywhere. A wall-clock
//! deadline can be added as an extra cap; when it is what stopped the
//! search, [`Budget::stop_reason`] says so, and only then may the result
//! depend on timing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What ended a search before it closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// The effort (work units) ran out.
    Effort,
    /// The wall-clock time limit passed.
    TimeLimit,
}

/// A budget of work units, shared by the parts of one search, with an
/// optional deadline. Cloning shares the count; [`Budget::share`] gives a
/// part of what is left to a phase of the search.
#[derive(Clone, Debug)]
pub struct Budget {
    spent: Arc<AtomicU64>,
    /// The count at which this (part of the) budget is exhausted.
    limit: u64,
    deadline: Option<Instant>,
    /// Set once the deadline has been seen passed.
    timed_out: Arc<AtomicBool>,
}

impl Budget {
    /// `effort` work units, and at most `time_limit` of wall-clock time
    /// from now when given.
    pub fn new(effort: u64, time_limit: Option<Duration>) -> Self {
        Self {
            spent: Arc::default(),
            limit: effort,
            deadline: time_limit.map(|limit| Instant::now() + limit),
            timed_out: Arc::default(),
        }
    }

    /// A budget that never runs out (for tests and small instances).
    pub fn unlimited() -> Self {
        Self::new(u64::MAX, None)
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Work units charged so far (by every part of the search).
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// Work units left to this part of the budget.
    pub fn left(&self) -> u64 {
        self.limit.saturating_sub(self.spent())
    }

    /// Charges `units` of work.
    pub fn charge(&self, units: u64) {
        self.spent.fetch_add(units, Ordering::Relaxed);
    }

    /// Whether this part of the budget is used up or the deadline passed.
    pub fn exhausted(&self) -> bool {
        if self.spent() >= self.limit {
            return true;
        }
        self.past_deadline()
    }

    /// Whether the deadline, if any, has passed (the effort aside: for
    /// work that is not charged, such as a local search beside a search
    /// that is).
    pub fn past_deadline(&self) -> bool {
        if self.timed_out() {
            return true;
        }
        let passed = self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline);
        if passed {
            self.timed_out.store(true, Ordering::Relaxed);
        }
        passed
    }

    /// Two halves of what is left, each counted on its own, for two parts
    /// of a search that run side by side: what each may spend does not
    /// depend on the other. Their spending is charged back with
    /// [`Budget::charge`] once they are joined.
    pub fn split(&self) -> [Budget; 2] {
        let half = self.left() / 2;
        [half, self.left() - half].map(|limit| Budget {
            spent: Arc::default(),
            limit,
            deadline: self.deadline,
            timed_out: self.timed_out.clone(),
        })
    }

    /// One `divisor`-th of what is left, for a phase of the search; the
    /// units it spends count against the whole budget too.
    pub fn share(&self, divisor: u64) -> Budget {
        let mut part = self.clone();
        part.limit = self.spent() + self.left() / divisor.max(1);
        part
    }

    /// Whether the deadline has passed (then a search that did not close
    /// stopped on time, and its result may depend on the machine).
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    /// What stopped a search that did not close: the deadline if it
    /// passed, otherwise the effort.
    pub fn stop_reason(&self) -> Stop {
        if self.timed_out() {
            Stop::TimeLimit
        } else {
            Stop::Effort
        }
    }
}
