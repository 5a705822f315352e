//! A prover-time model fit to measured proofs: time of an instance =
//! `per_constraint * constraints + per_instance`, plus, for the run's
//! memory check (one more proof), `per_instance + per_access` for each of
//! its accesses. Least squares over the block kinds of measured traces,
//! each kind weighted by its instances, and over the measured memory-check
//! proofs.

use std::collections::BTreeMap;

use crate::trace::{BlockKind, Trace};

/// The fitted costs, in microseconds.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Calibration {
    /// Per constraint of an instance.
    pub per_constraint: f64,
    /// Per instance, whatever its size (the fixed cost of a proof).
    pub per_instance: f64,
    /// Per memory access.
    pub per_access: f64,
}

impl Default for Calibration {
    /// Fit on the suite's runs (`prove_suite` example: Groth16, release
    /// build, the shared 2-core machine of the README's figures). An access
    /// of the proven memory check cost about 59 constraints of a block
    /// (3.9 ms against 66 µs in one run, 2.4 ms against 43 µs in another),
    /// priced here at the per-constraint cost of the same run as the other
    /// two.
    fn default() -> Self {
        Calibration {
            per_constraint: 55.0,
            per_instance: 4_000.0,
            per_access: 59.0 * 55.0,
        }
    }
}

impl Calibration {
    /// Least squares fit of `time = a * constraints + b` to measured
    /// `(constraints, instances, total time in µs)` per block kind. The
    /// per-access cost is left at `a` until [`Calibration::with_memory`]
    /// fits it on proven memory checks.
    pub fn fit(samples: &[(f64, f64, f64)]) -> Option<Calibration> {
        let n: f64 = samples.iter().map(|s| s.1).sum();
        if n == 0.0 || samples.len() < 2 {
            return None;
        }
        // Weighted by instances: each instance is a point (c, t/instances).
        let mean_c = samples.iter().map(|s| s.0 * s.1).sum::<f64>() / n;
        let mean_t = samples.iter().map(|s| s.2).sum::<f64>() / n;
        let sxx: f64 = samples.iter().map(|s| s.1 * (s.0 - mean_c).powi(2)).sum();
        let sxy: f64 = samples
            .iter()
            .map(|s| (s.0 - mean_c) * (s.2 - s.1 * mean_t))
            .sum();
        if sxx == 0.0 {
            return None;
        }
        let a = (sxy / sxx).max(0.0);
        let b = (mean_t - a * mean_c).max(0.0);
        Some(Calibration {
            per_constraint: a,
            per_instance: b,
            per_access: a,
        })
    }

    /// The per-access cost fit to measured memory-check proofs, `(valid
    /// accesses, time in µs)` each: least squares of `time - per_instance
    /// = per_access * accesses` (the fixed cost of a proof is the one the
    /// block instances measured).
    pub fn with_memory(self, samples: &[(f64, f64)]) -> Calibration {
        let sxx: f64 = samples.iter().map(|s| s.0 * s.0).sum();
        if sxx == 0.0 {
            return self;
        }
        let sxy: f64 = samples
            .iter()
            .map(|s| s.0 * (s.1 - self.per_instance))
            .sum();
        Calibration {
            per_access: (sxy / sxx).max(0.0),
            ..self
        }
    }

    /// The cost of a memory access in constraints: what the block-merging
    /// pass's calibrated rule prices each access at (its cost model
    /// `WithAccesses`), so that a merge turning a dynamic index into a
    /// constant counts the accesses it saves.
    pub fn per_access_in_constraints(&self) -> u64 {
        if self.per_constraint <= 0.0 {
            return u64::MAX;
        }
        (self.per_access / self.per_constraint).round() as u64
    }

    /// The cost of an instance in constraints: what the block-merging
    /// pass's calibrated rule weighs instances by.
    pub fn per_instance_in_constraints(&self) -> u64 {
        if self.per_constraint <= 0.0 {
            return u64::MAX;
        }
        (self.per_instance / self.per_constraint).round() as u64
    }

    /// The predicted proving time of a trace, in microseconds: its block
    /// instances and its memory check.
    pub fn predict(&self, trace: &Trace) -> f64 {
        let mut per_kind: BTreeMap<BlockKind, u64> = BTreeMap::new();
        for instance in &trace.instances {
            *per_kind.entry(instance.kind).or_default() += 1;
        }
        let blocks: f64 = per_kind
            .iter()
            .map(|(kind, &count)| {
                let cs = &trace.kinds[kind];
                count as f64
                    * (self.per_constraint * cs.num_constraints() as f64 + self.per_instance)
            })
            .sum();
        let memory = if trace.memory.entries.is_empty() {
            0.0
        } else {
            self.per_instance + self.per_access * trace.memory.valid_entries() as f64
        };
        blocks + memory
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_recover_a_linear_model() {
        // 10 µs per constraint, 2 ms per instance; 500 µs per access.
        let kinds = [(100.0, 3.0), (400.0, 1.0), (50.0, 7.0)];
        let samples: Vec<_> = kinds
            .iter()
            .map(|&(c, n)| (c, n, n * (10.0 * c + 2000.0)))
            .collect();
        let fit = Calibration::fit(&samples).unwrap();
        assert!((fit.per_constraint - 10.0).abs() < 1e-6, "{fit:?}");
        assert!((fit.per_instance - 2000.0).abs() < 1e-3, "{fit:?}");
        let memory = [(10.0, 7000.0), (40.0, 22000.0)];
        let fit = fit.with_memory(&memory);
        assert!((fit.per_access - 500.0).abs() < 1e-6, "{fit:?}");
    }
}
