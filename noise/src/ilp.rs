//! The integer linear program of the MLIR tutorial's noisy dialect, modelled so that the reduction
//! count is the whole objective, solved with `good_lp` on the pure-Rust
//! `microlp` backend (the `minilp` feature). Kept as a cross-check of the
//! exact strategy and as an option.
//!
//! Variables: `r_v` in {0, 1} (reduce `v`), `x_v` in `[encode, max]` (noise of
//! `v` before its reduction), `e_v` in `[encode, cap_v]` (noise its users
//! see). Constraints: `x_v >= c` for a source of noise `c`; `x_v >= e_a + 1`
//! for every input of an `add`; `x_v >= e_a + e_b` for a `mul`;
//! `x_v >= e_a + b` for a `mul` by a plaintext constant of `b` bits; `x_v >= e_a`
//! for a join; `e_v >= x_v - M_v r_v`. The noise variables are only bounded
//! from below by the transfer functions, so they may exceed the true noise,
//! never undercut it; their upper bounds make the placement legal. No
//! auxiliary "max" variable needs an objective weight: the tutorial's model
//! minimised `sum r + 0.1 sum z`, and that weight let the solver buy a
//! reduction to lower the `z` terms (a `mul` followed by one `add` needs no
//! reduction, yet that model inserts one). Here the objective is `sum r`, each
//! `r_v` weighed by what the reduction costs (1, or the times it runs).
//!
//! The big-M is the smallest that keeps `e_v = encode` reachable when
//! `r_v = 1`: `M_v = min(max, hi_v) - encode`, with `hi_v` the noise of `v`
//! when nothing is reduced. A legal placement (the greedy one) warm-starts
//! the solver, and its time limit is passed through; when it expires the
//! incumbent is returned and the outcome says so.

use std::time::Duration;

use good_lp::{
    constraint, variable, variables, Expression, ResolutionError, Solution, SolutionStatus,
    SolverModel, Variable, WithInitialSolution, WithTimeLimit,
};

use crate::problem::{NodeKind, Problem};

/// How the ILP solve ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IlpStatus {
    /// The solver proved its placement optimal.
    Optimal,
    /// The time limit expired; the placement is the best incumbent.
    TimedOut,
    /// The solver failed (the placement is the warm start).
    Failed(String),
}

/// The ILP's placement and status.
#[derive(Clone, Debug)]
pub struct IlpSolution {
    /// The placement (legal).
    pub reduced: Vec<bool>,
    /// How the solve ended.
    pub status: IlpStatus,
}

/// Solves `problem` with the ILP, warm-started from the legal placement
/// `start`, within `time_limit`.
pub fn solve_ilp(problem: &Problem, start: &[bool], time_limit: Duration) -> IlpSolution {
    let params = problem.params();
    let (e, m) = (f64::from(params.encode), f64::from(params.max));
    let nodes = problem.nodes();
    let hi = problem.evaluate(&vec![false; nodes.len()]).0;
    let (start_noise, _) = problem.evaluate(start);

    let mut vars = variables!();
    let mut x = Vec::with_capacity(nodes.len());
    let mut eff = Vec::with_capacity(nodes.len());
    let mut r: Vec<Option<Variable>> = Vec::with_capacity(nodes.len());
    let mut initial = Vec::new();
    let mut objective = Expression::from(0.0);
    for (v, node) in nodes.iter().enumerate() {
        let xv = vars.add(variable().min(e).max(m));
        let ev = vars.add(variable().min(e).max(f64::from(node.cap.min(params.max))));
        let start_eff = if start[v] {
            params.encode
        } else {
            start_noise[v]
        };
        initial.push((xv, f64::from(start_noise[v])));
        initial.push((ev, f64::from(start_eff)));
        let rv = (node.reducible && hi[v] > params.encode).then(|| {
            let rv = vars.add(variable().binary());
            objective += node.cost as f64 * rv;
            initial.push((rv, if start[v] { 1.0 } else { 0.0 }));
            rv
        });
        x.push(xv);
        eff.push(ev);
        r.push(rv);
    }
    let mut model = vars
        .minimise(objective)
        .using(good_lp::microlp)
        .with_time_limit(time_limit.as_secs_f64())
        .with_initial_solution(initial);
    for (v, node) in nodes.iter().enumerate() {
        match node.kind {
            NodeKind::Source(c) => {
                model.add_constraint(constraint!(x[v] >= f64::from(c)));
            }
            NodeKind::Add => {
                for &a in &node.inputs {
                    model.add_constraint(constraint!(x[v] >= eff[a] + 1.0));
                }
            }
            NodeKind::Join => {
                for &a in &node.inputs {
                    model.add_constraint(constraint!(x[v] >= eff[a]));
                }
            }
            NodeKind::Scale(bits) => {
                let a = node.inputs[0];
                model.add_constraint(constraint!(x[v] >= eff[a] + f64::from(bits)));
            }
            NodeKind::Mul => {
                let (a, b) = (node.inputs[0], node.inputs[1]);
                model.add_constraint(constraint!(x[v] >= eff[a] + eff[b]));
            }
        }
        match r[v] {
            Some(rv) => {
                let big_m = f64::from(hi[v].min(params.max)) - e;
                model.add_constraint(constraint!(eff[v] >= x[v] - big_m * rv));
            }
            None => {
                model.add_constraint(constraint!(eff[v] >= x[v]));
            }
        }
    }
    let fallback = |status| IlpSolution {
        reduced: start.to_vec(),
        status,
    };
    match model.solve() {
        Ok(solution) => {
            let status = match solution.status() {
                SolutionStatus::Optimal => IlpStatus::Optimal,
                _ => IlpStatus::TimedOut,
            };
            let reduced: Vec<bool> = r
                .iter()
                .map(|rv| rv.is_some_and(|rv| solution.value(rv) > 0.5))
                .collect();
            if problem.is_legal(&reduced) {
                IlpSolution { reduced, status }
            } else {
                fallback(IlpStatus::Failed(
                    "the solver's placement is not legal (numerical trouble)".into(),
                ))
            }
        }
        Err(ResolutionError::Other(message)) if message.contains("Time limit") => {
            fallback(IlpStatus::TimedOut)
        }
        Err(err) => fallback(IlpStatus::Failed(err.to_string())),
    }
}
