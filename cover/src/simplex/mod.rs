//! The relaxations of the branch and bound: a bounded dual simplex made for
//! covering programs `min c.x` subject to `A x >= b` and `0 <= x <= 1`,
//! with `c >= 0`.
//!
//! Every variable is boxed: a structural one by `[0, 1]` (or fixed by the
//! search), the surplus `s_i = a_i x - b_i` of a row by `[0, U_i]`, where
//! `U_i` is the most the box lets `a_i x` exceed `b_i` (an implied bound,
//! which changes nothing). A basis is therefore dual feasible as soon as
//! each non-basic variable sits at the bound its reduced cost asks for, so
//! the dual simplex needs no first phase: it starts from the surplus basis,
//! and after a fixing or an added row it resumes from the last basis
//! (which is what makes a child of the search cost a few dozen pivots).
//!
//! The method is the textbook one of Koberstein ("The dual simplex method,
//! techniques for a fast and stable implementation", PhD thesis, Paderborn
//! 2005): dual steepest-edge pricing (Forrest and Goldfarb, 1992) and the
//! bound-flipping ratio test, which lets a step pass every breakpoint the
//! dual objective still rises through by moving boxed variables to their
//! other bound. The basis is kept as sparse LU factors (see [`Factors`];
//! the columns are ordered by a triangularization first, and what is left
//! in Markowitz order), with the pivots since in product form (an eta
//! file), and refactorized every
//! [`REINVERT_AFTER`] pivots and after rows are added or dropped.
//!
//! Costs are perturbed by a relative `1e-7` against the dual degeneracy of
//! covering programs, under which an unperturbed dual simplex can cycle.
//!
//! The bound the search prunes with is not the simplex's objective but the
//! Lagrangian bound of its row duals (see [`Relaxation::bound`]), valid for
//! any multipliers, so round-off in the pivots can weaken it, never make
//! it wrong.

use std::sync::Arc;

use crate::budget::Budget;

mod lu;
mod markowitz;
mod pivot;
#[cfg(test)]
mod tests;

use lu::{Etas, Factors, Lanes};
use markowitz::{markowitz_order, Pattern};

/// A row `sum coef * x >= rhs` over structural indices.
pub(super) type Row = (Vec<(u32, f64)>, f64);

/// Primal feasibility tolerance on the basic values.
const PRIMAL_TOL: f64 = 1e-9;
/// Dual feasibility tolerance on the reduced costs.
const DUAL_TOL: f64 = 1e-7;
/// The smallest pivot element the ratio test accepts.
const PIVOT_TOL: f64 = 1e-7;
/// Entries of a transformed column below this are dropped.
const DROP_TOL: f64 = 1e-13;
/// The relative perturbation of the costs, against the dual degeneracy of
/// covering programs (cycling); the bound is taken with the true costs.
const PERTURBATION: f64 = 1e-7;
/// Pivots after a failed check of the bound against the cutoff before the
/// next.
const CUTOFF_RECHECK: u64 = 8;
/// Pivots between two factorizations of the basis.
const REINVERT_AFTER: usize = 32;

/// How a solve ended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Status {
    Optimal,
    /// No point satisfies the rows within the bounds.
    Infeasible,
    /// The budget ran out, or the pivots stalled.
    Stopped,
    /// The bound passed the cutoff before the relaxation was solved (the
    /// point is not yet feasible).
    Cutoff,
}

/// The rows, by row and by column, shared between the relaxations of a
/// search until one of them adds a row.
#[derive(Clone, Debug)]
struct Matrix {
    rows: Vec<Row>,
    columns: Vec<Vec<(u32, f64)>>,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum State {
    Basic,
    Lower,
    Upper,
}

/// A covering relaxation and its current basis.
#[derive(Clone, Debug)]
pub(super) struct Relaxation {
    matrix: Arc<Matrix>,
    /// The structural variables' costs.
    true_cost: Vec<f64>,
    /// Structural variables first (perturbed), then one surplus per row.
    cost: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    state: Vec<State>,
    /// Every variable's value (basic ones from the basis).
    value: Vec<f64>,
    /// Reduced costs of the non-basic variables (zero for basic ones).
    reduced: Vec<f64>,
    /// Dual steepest-edge weights of the basic variables.
    weight: Vec<f64>,
    /// The variable at each basis position.
    basic: Vec<u32>,
    factors: Factors,
    etas: Etas,
    /// The rows changed since the basis was factorized.
    stale: bool,
    bound: f64,
}

/// One pivot of the dual simplex.
#[derive(Clone, Copy)]
struct Pivot {
    /// The row whose basic variable leaves.
    row: usize,
    /// The variable that enters the basis.
    entering: usize,
    /// The variable that leaves it.
    leaving: usize,
    /// Whether the leaving variable goes to its lower bound.
    to_lower: bool,
    /// How far the leaving variable is beyond that bound.
    delta: f64,
    /// The pivot element.
    pivot: f64,
}

impl Relaxation {
    /// `min costs.x` subject to `rows` and `0 <= x <= 1`, not yet solved.
    pub(super) fn new(costs: &[f64], rows: Vec<Row>) -> Self {
        let n = costs.len();
        let mut relaxation = Relaxation {
            matrix: Arc::new(Matrix {
                rows: Vec::new(),
                columns: vec![Vec::new(); n],
            }),
            true_cost: costs.to_vec(),
            cost: costs
                .iter()
                .enumerate()
                .map(|(j, &c)| c + c * PERTURBATION * (1.0 + perturbation(j)))
                .collect(),
            lower: vec![0.0; n],
            upper: vec![1.0; n],
            state: vec![State::Lower; n],
            value: vec![0.0; n],
            reduced: vec![0.0; n],
            weight: vec![1.0; n],
            basic: Vec::new(),
            factors: Factors::default(),
            etas: Etas::default(),
            stale: true,
            bound: f64::NEG_INFINITY,
        };
        relaxation.add_rows(rows);
        relaxation
    }

    fn structurals(&self) -> usize {
        self.matrix.columns.len()
    }

    /// Adds `rows` (each `terms >= rhs`); their surpluses join the basis.
    pub(super) fn add_rows(&mut self, rows: impl IntoIterator<Item = Row>) {
        let n = self.structurals();
        let matrix = Arc::make_mut(&mut self.matrix);
        for (terms, rhs) in rows {
            let i = matrix.rows.len() as u32;
            let reach: f64 = terms.iter().map(|&(_, c)| c.max(0.0)).sum();
            let activity: f64 = terms.iter().map(|&(x, c)| c * self.value[x as usize]).sum();
            for &(x, c) in &terms {
                matrix.columns[x as usize].push((i, c));
            }
            matrix.rows.push((terms, rhs));
            self.cost.push(0.0);
            self.lower.push(0.0);
            self.upper.push((reach - rhs).max(0.0));
            self.state.push(State::Basic);
            self.value.push(activity - rhs);
            self.reduced.push(0.0);
            // Its weight in the surplus basis; the exact one would cost a
            // solve, and pricing needs no more than an estimate.
            self.weight.push(1.0);
            self.basic.push((n + i as usize) as u32);
            self.stale = true;
        }
    }

    /// Drops the rows whose surplus is basic and positive at the current
    /// point (the rows it leaves slack): the basis stays a basis, and the
    /// point stays optimal. Returns, for each row before, whether it stays.
    pub(super) fn drop_slack_rows(&mut self) -> Vec<bool> {
        let n = self.structurals();
        let m = self.matrix.rows.len();
        let keep: Vec<bool> = (0..m)
            .map(|i| !(self.state[n + i] == State::Basic && self.value[n + i] > 1e-6))
            .collect();
        if keep.iter().all(|&k| k) {
            return keep;
        }
        let kept_rows: Vec<Row> = self
            .matrix
            .rows
            .iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(r, _)| r.clone())
            .collect();
        let mut columns = vec![Vec::new(); n];
        for (i, (terms, _)) in kept_rows.iter().enumerate() {
            for &(x, c) in terms {
                columns[x as usize].push((i as u32, c));
            }
        }
        self.matrix = Arc::new(Matrix {
            rows: kept_rows,
            columns,
        });
        fn surplus_keep<T>(v: &mut Vec<T>, n: usize, keep: &[bool]) {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                i <= n || keep[i - 1 - n]
            });
        }
        surplus_keep(&mut self.cost, n, &keep);
        surplus_keep(&mut self.lower, n, &keep);
        surplus_keep(&mut self.upper, n, &keep);
        surplus_keep(&mut self.state, n, &keep);
        surplus_keep(&mut self.value, n, &keep);
        surplus_keep(&mut self.reduced, n, &keep);
        surplus_keep(&mut self.weight, n, &keep);
        let rows = self.matrix.rows.len();
        self.basic = (0..(n + rows) as u32)
            .filter(|&j| self.state[j as usize] == State::Basic)
            .collect();
        debug_assert_eq!(self.basic.len(), rows);
        self.stale = true;
        keep
    }

    /// Fixes structural `x` at `val` (0 or 1).
    pub(super) fn fix(&mut self, x: usize, val: f64) {
        self.lower[x] = val;
        self.upper[x] = val;
        if self.state[x] != State::Basic {
            let delta = val - self.value[x];
            if delta != 0.0 {
                self.value[x] = val;
                let mut shift = vec![0.0; self.matrix.rows.len()];
                for &(i, c) in &self.matrix.columns[x] {
                    shift[i as usize] = c * delta;
                }
                self.move_basics(&mut shift);
            }
        }
    }

    /// The basic values after the non-basic ones moved by `shift` (row
    /// space, `sum a_j dx_j`): `dx_B = -B^-1 shift`.
    fn move_basics(&mut self, shift: &mut [f64]) {
        if self.stale {
            // The rebuild recomputes every value.
            return;
        }
        self.ftran(shift);
        for (p, &d) in shift.iter().enumerate() {
            self.value[self.basic[p] as usize] -= d;
        }
    }

    /// A lower bound on `costs.x` over the points of the box (with the
    /// search's fixings) that satisfy the rows: the Lagrangian bound `b.y +
    /// sum_j min over [l_j, u_j] of (c_j - a_j.y) x_j` of the row duals
    /// `y`, clamped at 0. It holds for any such `y`; at an optimal basis it
    /// is the relaxation's value.
    pub(super) fn bound(&self) -> f64 {
        self.bound
    }

    /// Structural `x`'s bounds (equal once the search fixed it).
    pub(super) fn bounds(&self, x: usize) -> (f64, f64) {
        (self.lower[x], self.upper[x])
    }

    /// The structural values.
    pub(super) fn point(&self) -> Vec<f64> {
        self.value[..self.structurals()].to_vec()
    }

    /// `v <- B^-1 v`, from row space to basis positions, for one vector or
    /// several side by side (see [`Lanes`]).
    fn ftran<V: Lanes>(&self, v: &mut [V]) {
        self.factors.solve(v);
        self.etas.apply(v);
    }

    /// `v <- B^-T v`, from basis positions to row space.
    fn btran(&self, v: &mut [f64]) {
        self.etas.apply_transposed(v);
        self.factors.solve_transposed(v);
    }

    /// Solves from the current basis by the dual simplex.
    pub(super) fn solve(&mut self, budget: &Budget) -> Status {
        self.solve_with_cutoff(budget, f64::INFINITY)
    }

    /// Solves from the current basis by the dual simplex, or stops with
    /// [`Status::Cutoff`] once the bound exceeds `cutoff`: every basis the
    /// dual simplex passes is dual feasible, so its objective rises towards
    /// the optimum, and the Lagrangian bound of its duals holds on the way.
    pub(super) fn solve_with_cutoff(&mut self, budget: &Budget, cutoff: f64) -> Status {
        let status = self.run(budget, cutoff);
        self.bound = match status {
            Status::Optimal => self.lagrangian_bound(),
            // The bound that passed the cutoff, which `run` just took.
            Status::Cutoff => self.bound,
            Status::Infeasible => f64::INFINITY,
            Status::Stopped => f64::NEG_INFINITY,
        };
        status
    }

    fn run(&mut self, budget: &Budget, cutoff: f64) -> Status {
        let m = self.matrix.rows.len();
        let n = self.structurals();
        if self.stale || self.etas.len() >= REINVERT_AFTER {
            self.reinvert();
        }
        // A generous stall guard: a covering program needs far fewer.
        let limit = 50 * (n + m) as u64 + 1000;
        let mut row = vec![0.0; n + m];
        let mut touched: Vec<u32> = Vec::new();
        let mut rho = vec![0.0; m];
        let mut candidates: Vec<(f64, f64, u32)> = Vec::new();
        // The entering column and `tau` side by side, reused by every pivot.
        let mut lanes: Vec<[f64; 2]> = vec![[0.0; 2]; m];
        // The first iteration at which the bound may be checked against the
        // cutoff (a check costs a solve).
        let mut next_check = 0;
        for iteration in 0.. {
            // One work unit per pivot: where a search stops does not
            // depend on the machine.
            if budget.exhausted() {
                return Status::Stopped;
            }
            budget.charge(1);
            if iteration >= limit {
                return Status::Stopped;
            }
            if self.etas.len() >= REINVERT_AFTER {
                self.reinvert();
            }
            let Some((r, mut delta)) = self.price() else {
                return Status::Optimal;
            };
            let out = self.basic[r] as usize;
            let to_lower = delta < 0.0;

            self.pivot_row(r, &mut rho, &mut row, &mut touched);

            let (entering, flips, slope) =
                self.ratio_test(&row, &touched, &mut candidates, to_lower, delta);
            if entering.is_none() || slope > PRIMAL_TOL {
                // Even with every candidate at its other bound the row
                // stays violated: `rho` combines the rows into one that no
                // point of the box satisfies, if the arithmetic agrees.
                return if self.proves_infeasible(&rho) {
                    Status::Infeasible
                } else {
                    Status::Stopped
                };
            }
            let q = entering.expect("checked above");

            // The flipped variables move the basic values.
            if flips > 0 {
                self.flip_bounds(&candidates[..flips]);
                let bound = if to_lower {
                    self.lower[out]
                } else {
                    self.upper[out]
                };
                delta = self.value[out] - bound;
            }

            // The entering column, and a check that it agrees with the row.
            self.entering_column(q, &rho, &mut lanes);
            let pivot = lanes[r][0];
            if (pivot - row[q]).abs() > 1e-6 * (1.0 + pivot.abs()) || pivot.abs() < PIVOT_TOL {
                if self.etas.len() == 0 {
                    return Status::Stopped;
                }
                self.reinvert();
                continue;
            }
            let step = Pivot {
                row: r,
                entering: q,
                leaving: out,
                to_lower,
                delta,
                pivot,
            };
            self.pivot(&step, (&row, &touched), &rho, &lanes);

            // The basic point's objective is the dual objective; once it
            // passes the cutoff, the bound with the true costs is checked.
            if cutoff.is_finite() && iteration >= next_check {
                let objective: f64 = (0..n).map(|j| self.cost[j] * self.value[j]).sum();
                if objective > cutoff {
                    let bound = self.lagrangian_bound();
                    if bound > cutoff {
                        self.bound = bound;
                        return Status::Cutoff;
                    }
                    next_check = iteration + CUTOFF_RECHECK;
                }
            }
        }
        unreachable!()
    }

    /// `B^-1` times the column of variable `q` in `lanes[..][0]`, and
    /// beside it `tau = B^-1 rho` for the steepest-edge update.
    fn entering_column(&self, q: usize, rho: &[f64], lanes: &mut [[f64; 2]]) {
        let n = self.structurals();
        for (lane, &y) in lanes.iter_mut().zip(rho) {
            *lane = [0.0, y];
        }
        if q < n {
            for &(i, c) in &self.matrix.columns[q] {
                lanes[i as usize][0] = c;
            }
        } else {
            lanes[q - n][0] = -1.0;
        }
        self.ftran(lanes);
    }

    /// Carries out `step`: the dual step on the reduced costs along the
    /// pivot row (`row`, its non-zero non-basic entries in `touched`), the
    /// primal step on the basic values along the entering column
    /// (`lanes[..][0]`), the steepest-edge weights, and the basis change.
    fn pivot(
        &mut self,
        step: &Pivot,
        (row, touched): (&[f64], &[u32]),
        rho: &[f64],
        lanes: &[[f64; 2]],
    ) {
        let Pivot {
            row: r,
            entering: q,
            leaving: out,
            to_lower,
            delta,
            pivot,
        } = *step;
        let theta_dual = self.reduced[q] / row[q];
        for &j in touched {
            self.reduced[j as usize] -= theta_dual * row[j as usize];
        }
        self.reduced[q] = 0.0;
        self.reduced[out] = -theta_dual;

        let theta_primal = delta / pivot;
        for (p, &[a, _]) in lanes.iter().enumerate() {
            if a != 0.0 {
                self.value[self.basic[p] as usize] -= theta_primal * a;
            }
        }
        self.value[q] += theta_primal;
        self.value[out] = if to_lower {
            self.lower[out]
        } else {
            self.upper[out]
        };

        self.update_weights(rho, lanes, r, q, pivot);

        self.state[out] = if to_lower { State::Lower } else { State::Upper };
        self.state[q] = State::Basic;
        self.basic[r] = q as u32;
        self.etas.push(r, lanes.iter().map(|lane| lane[0]));
    }

    /// Rebuilds the eta file from the basis columns, then recomputes the
    /// basic values and the reduced costs from it. A column that depends on
    /// the ones before it leaves the basis for a surplus; a non-basic
    /// variable whose reduced cost asks for its other bound moves there
    /// (both keep the basis dual feasible).
    fn reinvert(&mut self) {
        let n = self.structurals();
        let m = self.matrix.rows.len();
        self.etas.clear();
        // Surpluses hold their own rows; structurals take the rows whose
        // surplus is not basic, in an order that keeps the factors sparse.
        let structurals: Vec<usize> = self
            .basic
            .iter()
            .map(|&j| j as usize)
            .filter(|&j| j < n)
            .collect();
        let mut free: Vec<bool> = (0..m).map(|i| self.state[n + i] != State::Basic).collect();
        let order = self.triangular_order(structurals, &free);
        let mut basic: Vec<u32> = (n as u32..(n + m) as u32).collect();
        self.factors.clear(m);
        // One dense column, its nonzeros listed (the columns and their
        // eliminations are sparse; the rows are many).
        let mut column = vec![0.0; m];
        let mut nonzeros: Vec<u32> = Vec::new();
        let mut pending = Vec::new();
        for (j, row) in order {
            for &(i, c) in &self.matrix.columns[j] {
                column[i as usize] = c;
                nonzeros.push(i);
            }
            self.factors
                .eliminate_sparse(&mut column, &mut nonzeros, &mut pending);
            // The planned row unless its element is small against the
            // column's largest (threshold pivoting).
            let largest = nonzeros
                .iter()
                .map(|&i| i as usize)
                .filter(|&p| free[p])
                .max_by(|&a, &b| column[a].abs().total_cmp(&column[b].abs()));
            let pivot = match largest {
                Some(big)
                    if row < m && free[row] && column[row].abs() >= 0.01 * column[big].abs() =>
                {
                    Some(row)
                }
                other => other,
            };
            match pivot {
                Some(p) if column[p].abs() > PIVOT_TOL => {
                    free[p] = false;
                    basic[p] = j as u32;
                    self.factors.push(p, &mut column, &nonzeros, &free);
                }
                _ => {
                    // Dependent: it leaves at the bound nearest its value.
                    let v = self.value[j];
                    self.state[j] = if v - self.lower[j] <= self.upper[j] - v {
                        State::Lower
                    } else {
                        State::Upper
                    };
                }
            }
            for i in nonzeros.drain(..) {
                column[i as usize] = 0.0;
            }
        }
        // Rows no structural took keep their surplus basic.
        for (p, &f) in free.iter().enumerate() {
            if f {
                self.state[n + p] = State::Basic;
            }
        }
        self.basic = basic;
        self.stale = false;
        for j in 0..n + m {
            match self.state[j] {
                State::Lower => self.value[j] = self.lower[j],
                State::Upper => self.value[j] = self.upper[j],
                State::Basic => {}
            }
        }
        self.recompute_reduced_costs();
        // Dual feasibility: each non-basic variable at the bound its
        // reduced cost asks for.
        for j in 0..n + m {
            let state = self.state[j];
            if state == State::Lower && self.reduced[j] < -DUAL_TOL {
                self.state[j] = State::Upper;
                self.value[j] = self.upper[j];
            } else if state == State::Upper && self.reduced[j] > DUAL_TOL {
                self.state[j] = State::Lower;
                self.value[j] = self.lower[j];
            }
        }
        self.recompute_values();
    }

    /// The order in which [`Self::reinvert`] takes the basic `structurals`
    /// into the factors, each with the row it should pivot on (`usize::MAX`
    /// for a column left with no free row, which depends on the others).
    ///
    /// First the triangularization, on the pattern alone ([`Self::reinvert`]
    /// checks each pivot's magnitude), among the `free` rows (those whose
    /// surplus leaves the basis). A column with one free row left takes
    /// that row and goes to the end, in the reverse order of finding: the
    /// rows its other entries had are pivoted on after it. A free row that
    /// one remaining column alone touches takes that column at the front:
    /// its other entries lie in rows no column has pivoted on yet. Either
    /// way the factors hold the column itself (no fill). What is left (the
    /// nucleus) goes in the middle, in the order of [`markowitz_order`].
    fn triangular_order(&self, structurals: Vec<usize>, free: &[bool]) -> Vec<(usize, usize)> {
        let mut pattern = Pattern::new(&self.matrix, &structurals, free);
        let mut back = Vec::new();
        let mut front = Vec::with_capacity(structurals.len());
        loop {
            if let Some((j, i)) = pattern.column_singleton() {
                back.push((j, i));
                pattern.take(j, i);
            } else if let Some((j, i)) = pattern.row_singleton() {
                front.push((j, i));
                pattern.take(j, i);
            } else {
                break;
            }
        }
        // The nucleus, its free rows renumbered densely.
        let nucleus: Vec<usize> = structurals
            .into_iter()
            .filter(|&j| !pattern.taken[j])
            .collect();
        let mut index = vec![u32::MAX; free.len()];
        let mut rows: Vec<usize> = Vec::new();
        let columns: Vec<Vec<u32>> = nucleus
            .iter()
            .map(|&j| {
                self.matrix.columns[j]
                    .iter()
                    .map(|&(i, _)| i as usize)
                    .filter(|&i| pattern.active[i])
                    .map(|i| {
                        if index[i] == u32::MAX {
                            index[i] = rows.len() as u32;
                            rows.push(i);
                        }
                        index[i]
                    })
                    .collect()
            })
            .collect();
        front.extend(
            markowitz_order(&columns, rows.len())
                .into_iter()
                .map(|(c, r)| (nucleus[c], r.map_or(usize::MAX, |r| rows[r]))),
        );
        front.extend(back.into_iter().rev());
        front
    }

    /// Whether the combination `rho` of the rows `a_i x - s_i = b_i` proves
    /// them unsatisfiable in the box (structural bounds with the search's
    /// fixings, surpluses in `[0, U_i]`): `rho.b` lies beyond the range
    /// of `rho.(A x - s)` over the box, by a margin round-off cannot close.
    fn proves_infeasible(&self, rho: &[f64]) -> bool {
        let n = self.structurals();
        let mut target = 0.0;
        let (mut low, mut high) = (0.0, 0.0);
        let mut scale = 0.0f64;
        let mut add = |g: f64, lower: f64, upper: f64| {
            let (a, b) = (g * lower, g * upper);
            low += a.min(b);
            high += a.max(b);
            scale = scale.max(a.abs()).max(b.abs());
        };
        let mut combined = vec![0.0; n];
        for (i, (terms, rhs)) in self.matrix.rows.iter().enumerate() {
            if rho[i] == 0.0 {
                continue;
            }
            target += rho[i] * rhs;
            for &(x, c) in terms {
                combined[x as usize] += rho[i] * c;
            }
            add(-rho[i], self.lower[n + i], self.upper[n + i]);
        }
        for (j, &g) in combined.iter().enumerate() {
            add(g, self.lower[j], self.upper[j]);
        }
        let margin = 1e-6 * (1.0 + scale.max(target.abs()));
        target > high + margin || target < low - margin
    }

    /// `x_B = B^-1 (b - N x_N)`.
    fn recompute_values(&mut self) {
        let n = self.structurals();
        let m = self.matrix.rows.len();
        let mut rhs: Vec<f64> = self.matrix.rows.iter().map(|r| r.1).collect();
        for j in 0..n + m {
            if self.state[j] == State::Basic || self.value[j] == 0.0 {
                continue;
            }
            let v = self.value[j];
            if j < n {
                for &(i, c) in &self.matrix.columns[j] {
                    rhs[i as usize] -= c * v;
                }
            } else {
                rhs[j - n] += v;
            }
        }
        self.ftran(&mut rhs);
        for (p, &v) in rhs.iter().enumerate() {
            self.value[self.basic[p] as usize] = v;
        }
    }

    /// `y = B^-T c_B`, `d_j = c_j - a_j y`; a surplus's reduced cost is its
    /// row's dual.
    fn recompute_reduced_costs(&mut self) {
        let n = self.structurals();
        let mut y: Vec<f64> = self.basic.iter().map(|&j| self.cost[j as usize]).collect();
        self.btran(&mut y);
        for j in 0..n {
            self.reduced[j] = if self.state[j] == State::Basic {
                0.0
            } else {
                self.cost[j]
                    - self.matrix.columns[j]
                        .iter()
                        .map(|&(i, c)| c * y[i as usize])
                        .sum::<f64>()
            };
        }
        for (i, &dual) in y.iter().enumerate() {
            self.reduced[n + i] = if self.state[n + i] == State::Basic {
                0.0
            } else {
                dual
            };
        }
    }

    #[cfg(test)]
    fn dual_errors(&mut self) -> Vec<String> {
        let kept = self.reduced.clone();
        self.recompute_reduced_costs();
        let mut errors = Vec::new();
        for (j, &before) in kept.iter().enumerate() {
            let d = self.reduced[j];
            if (d - before).abs() > 1e-6 {
                errors.push(format!("drift {j}: {before} vs {d}"));
            }
            if self.lower[j] < self.upper[j] {
                match self.state[j] {
                    State::Lower if d < -1e-6 => errors.push(format!("{j} lower d {d}")),
                    State::Upper if d > 1e-6 => errors.push(format!("{j} upper d {d}")),
                    _ => {}
                }
            }
        }
        self.reduced = kept;
        errors
    }

    /// See [`Self::bound`]; the duals are recomputed from the basis.
    fn lagrangian_bound(&self) -> f64 {
        self.lagrangian().1
    }

    /// The structurals' reduced costs `c_j - a_j y` under the true costs
    /// and the basis's duals `y` clamped at 0, and the Lagrangian bound
    /// they give (see [`Self::bound`]); `None` while the rows changed since
    /// the last solve.
    pub(super) fn reduced_costs(&self) -> Option<(Vec<f64>, f64)> {
        (!self.stale).then(|| self.lagrangian())
    }

    fn lagrangian(&self) -> (Vec<f64>, f64) {
        let n = self.structurals();
        debug_assert!(self.matrix.rows.len() == self.basic.len());
        let mut y: Vec<f64> = self.basic.iter().map(|&j| self.cost[j as usize]).collect();
        self.btran(&mut y);
        let mut bound = 0.0;
        for (i, (_, rhs)) in self.matrix.rows.iter().enumerate() {
            y[i] = y[i].max(0.0);
            bound += rhs * y[i];
        }
        let reduced: Vec<f64> = (0..n)
            .map(|j| {
                self.true_cost[j]
                    - self.matrix.columns[j]
                        .iter()
                        .map(|&(i, c)| c * y[i as usize])
                        .sum::<f64>()
            })
            .collect();
        for (j, &d) in reduced.iter().enumerate() {
            bound += d * if d < 0.0 {
                self.upper[j]
            } else {
                self.lower[j]
            };
        }
        (reduced, bound)
    }
}

/// A pseudo-random number in `[0, 1)` for variable `j`, the same on every
/// run.
fn perturbation(j: usize) -> f64 {
    (splitmix64(j as u64) >> 11) as f64 / (1u64 << 53) as f64
}

/// SplitMix64's output function (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014): a fixed, well-mixed hash of `x`.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
