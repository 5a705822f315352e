//! A prover-time model fit to measured proofs: time of an instance =
//! `per_constraint * constraints + per_instance`, plus `per_access` for
//! each memory access of the separate memory check. Least squares over
//! the block kinds of measured traces, each kind weighted by its instances.

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
    /// Fit on the suite's unmerged runs (`prove_suite` example: Groth16,
    /// release build, the shared 2-core machine of the README's figures).
    fn default() -> Self {
        Calibration {
            per_constraint: 55.0,
            per_instance: 4_000.0,
            per_access: 55.0,
        }
    }
}

impl Calibration {
    /// Least squares fit of `time = a * constraints + b` to measured
    /// `(constraints, instances, total time in µs)` per block kind. The
    /// per-access cost, which no proof measures here (the memory check is
    /// not proven), is priced as one constraint.
    ///
    /// FIXME: calibrate the per-access cost on a proven memory check.
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

    /// The cost of an instance in constraints: what the block-merging
    /// pass's calibrated rule weighs instances by.
    pub fn per_instance_in_constraints(&self) -> u64 {
        if self.per_constraint <= 0.0 {
            return u64::MAX;
        }
        (self.per_instance / self.per_constraint).round() as u64
    }

    /// The predicted proving time of a trace, in microseconds.
    pub fn predict(&self, trace: &Trace) -> f64 {
        let mut per_kind: BTreeMap<BlockKind, u64> = BTreeMap::new();
        for instance in &trace.instances {
            *per_kind.entry(instance.kind).or_default() += 1;
        }
        per_kind
            .iter()
            .map(|(kind, &count)| {
                let cs = &trace.kinds[kind];
                count as f64
                    * (self.per_constraint * cs.num_constraints() as f64
                        + self.per_instance
                        + self.per_access * cs.memory.len() as f64)
            })
            .sum()
    }
}
