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
use std::time::Instant;

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
    /// The deadline passed, or the pivots stalled.
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

/// Sparse columns stored one after another: the entries `(row, value)` of
/// column `k` are `entries[starts[k]..starts[k + 1]]`.
#[derive(Clone, Debug, Default)]
struct Columns {
    starts: Vec<u32>,
    entries: Vec<(u32, f64)>,
}

impl Columns {
    fn clear(&mut self) {
        self.starts.clear();
        self.entries.clear();
    }

    /// Starts a new column; [`Self::push`] fills it.
    fn open(&mut self) {
        self.starts.push(self.entries.len() as u32);
    }

    fn push(&mut self, row: u32, value: f64) {
        self.entries.push((row, value));
    }

    fn get(&self, k: usize) -> &[(u32, f64)] {
        let end = self
            .starts
            .get(k + 1)
            .map_or(self.entries.len(), |&e| e as usize);
        &self.entries[self.starts[k] as usize..end]
    }
}

/// The entries of one row in one vector or in several solved side by
/// side: the solves are bound by their reads of the factors, so the
/// entering column and the steepest-edge `tau` share one pass.
trait Lanes: Copy {
    fn is_zero(&self) -> bool;
    fn divide(&mut self, d: f64);
    /// `self -= a * t`.
    fn sub_scaled(&mut self, a: f64, t: Self);
    fn negate(&mut self);
}

impl Lanes for f64 {
    fn is_zero(&self) -> bool {
        *self == 0.0
    }

    fn divide(&mut self, d: f64) {
        *self /= d;
    }

    fn sub_scaled(&mut self, a: f64, t: f64) {
        *self -= a * t;
    }

    fn negate(&mut self) {
        *self = -*self;
    }
}

impl Lanes for [f64; 2] {
    fn is_zero(&self) -> bool {
        self[0] == 0.0 && self[1] == 0.0
    }

    fn divide(&mut self, d: f64) {
        self[0] /= d;
        self[1] /= d;
    }

    fn sub_scaled(&mut self, a: f64, t: Self) {
        self[0] -= a * t[0];
        self[1] -= a * t[1];
    }

    fn negate(&mut self) {
        self[0] = -self[0];
        self[1] = -self[1];
    }
}

/// LU factors of a basis, `B = L U` up to the order of the pivots,
/// computed column by column (left-looking, as in Gilbert and Peierls,
/// "Sparse partial pivoting in time proportional to arithmetic
/// operations", 1988). A basic surplus's column `-e_i` pivots on its own
/// row before every structural column, so it has no entries of its own and
/// only its sign is kept. Each structural column `k`, pivoting on row
/// `p_k`, has an `L` column (unit diagonal; entries in the rows pivoted
/// after it) and a `U` column (its diagonal, and entries in the rows
/// pivoted before it).
#[derive(Clone, Debug, Default)]
struct Factors {
    /// Pivot row and `U` diagonal of each structural column, in order.
    pivots: Vec<(u32, f64)>,
    l: Columns,
    u: Columns,
    /// Whether a structural column pivots on the row (else its surplus).
    structural_row: Vec<bool>,
    /// The structural column pivoting on each row (`u32::MAX`: none).
    column_of_row: Vec<u32>,
}

impl Factors {
    fn clear(&mut self, rows: usize) {
        self.pivots.clear();
        self.l.clear();
        self.u.clear();
        self.structural_row.clear();
        self.structural_row.resize(rows, false);
        self.column_of_row.clear();
        self.column_of_row.resize(rows, u32::MAX);
    }

    /// `v <- L^-1 v` with the columns so far, for `v` whose nonzeros
    /// `nonzeros` lists; the entries it fills in join the list. Only the
    /// columns whose pivot row is nonzero are applied, in their order (a
    /// column's entries lie in rows pivoted after it, so the columns still
    /// to apply all come after the current one), found through `pending`, a
    /// bit set of column indices left empty on return.
    fn eliminate_sparse(&self, v: &mut [f64], nonzeros: &mut Vec<u32>, pending: &mut Vec<u64>) {
        pending.resize(self.pivots.len().div_ceil(64), 0);
        let mut first = pending.len();
        for &i in nonzeros.iter() {
            let k = self.column_of_row[i as usize];
            if k != u32::MAX {
                pending[k as usize / 64] |= 1 << (k % 64);
                first = first.min(k as usize / 64);
            }
        }
        for word in first..pending.len() {
            while pending[word] != 0 {
                let bit = pending[word].trailing_zeros() as usize;
                pending[word] &= pending[word] - 1;
                let k = word * 64 + bit;
                let t = v[self.pivots[k].0 as usize];
                if t == 0.0 {
                    continue;
                }
                for &(i, l) in self.l.get(k) {
                    if v[i as usize] == 0.0 {
                        nonzeros.push(i);
                        let later = self.column_of_row[i as usize];
                        if later != u32::MAX {
                            pending[later as usize / 64] |= 1 << (later % 64);
                        }
                    }
                    v[i as usize] -= l * t;
                }
            }
        }
        debug_assert!(pending.iter().all(|&w| w == 0));
    }

    /// Appends the column `v = L^-1 a` (nonzero at most at `nonzeros`)
    /// pivoting on row `p`, and zeroes `v` but for the pivot; `unpivoted`
    /// marks the rows no column has pivoted on (a basic surplus's row is
    /// pivoted from the start).
    fn push(&mut self, p: usize, v: &mut [f64], nonzeros: &[u32], unpivoted: &[bool]) {
        let pivot = v[p];
        self.l.open();
        self.u.open();
        self.column_of_row[p] = self.pivots.len() as u32;
        self.pivots.push((p as u32, pivot));
        self.structural_row[p] = true;
        for &i in nonzeros {
            if i as usize == p {
                continue;
            }
            // Zeroed once taken: a row listed twice is taken once.
            let a = std::mem::take(&mut v[i as usize]);
            if a.abs() <= DROP_TOL {
                continue;
            }
            if unpivoted[i as usize] {
                self.l.push(i, a / pivot);
            } else {
                self.u.push(i, a);
            }
        }
    }

    /// `v <- B^-1 v` for one vector or several side by side (see
    /// [`Lanes`]), from row space to basis positions (a column's position
    /// is its pivot row).
    fn solve<V: Lanes>(&self, v: &mut [V]) {
        for k in 0..self.pivots.len() {
            let t = v[self.pivots[k].0 as usize];
            if !t.is_zero() {
                for &(i, l) in self.l.get(k) {
                    v[i as usize].sub_scaled(l, t);
                }
            }
        }
        for k in (0..self.pivots.len()).rev() {
            let (p, pivot) = self.pivots[k];
            v[p as usize].divide(pivot);
            let t = v[p as usize];
            if !t.is_zero() {
                for &(i, u) in self.u.get(k) {
                    v[i as usize].sub_scaled(u, t);
                }
            }
        }
        for (x, &structural) in v.iter_mut().zip(&self.structural_row) {
            if !structural {
                x.negate();
            }
        }
    }

    /// `v <- B^-T v`, from basis positions to row space.
    fn solve_transposed(&self, v: &mut [f64]) {
        for (x, &structural) in v.iter_mut().zip(&self.structural_row) {
            if !structural {
                *x = -*x;
            }
        }
        for k in 0..self.pivots.len() {
            let (p, pivot) = self.pivots[k];
            let mut t = v[p as usize];
            for &(i, u) in self.u.get(k) {
                t -= u * v[i as usize];
            }
            v[p as usize] = t / pivot;
        }
        for k in (0..self.pivots.len()).rev() {
            let p = self.pivots[k].0 as usize;
            let mut t = v[p];
            for &(i, l) in self.l.get(k) {
                t -= l * v[i as usize];
            }
            v[p] = t;
        }
    }
}

/// The pivots since the last factorization, in product form:
/// `B^-1 = E_t ... E_1 (LU)^-1`.
#[derive(Clone, Debug, Default)]
struct Etas {
    /// Pivot position and pivot element of each eta.
    pivots: Vec<(u32, f64)>,
    /// Each eta's other entries.
    columns: Columns,
}

impl Etas {
    fn clear(&mut self) {
        self.pivots.clear();
        self.columns.clear();
    }

    fn len(&self) -> usize {
        self.pivots.len()
    }

    /// Appends the eta of a pivot on position `p`, `column` being the
    /// entering column `B^-1 a_q` position by position.
    fn push(&mut self, p: usize, column: impl Iterator<Item = f64>) {
        self.columns.open();
        self.pivots.push((p as u32, 0.0));
        for (i, a) in column.enumerate() {
            if i == p {
                self.pivots.last_mut().expect("just pushed").1 = a;
            } else if a.abs() > DROP_TOL {
                self.columns.push(i as u32, a);
            }
        }
    }

    /// `v <- E_t ... E_1 v` (see [`Factors::solve`]).
    fn apply<V: Lanes>(&self, v: &mut [V]) {
        for k in 0..self.len() {
            let (p, pivot) = self.pivots[k];
            if v[p as usize].is_zero() {
                continue;
            }
            v[p as usize].divide(pivot);
            let t = v[p as usize];
            for &(i, a) in self.columns.get(k) {
                v[i as usize].sub_scaled(a, t);
            }
        }
    }

    /// `v <- E_1^T ... E_t^T v`.
    fn apply_transposed(&self, v: &mut [f64]) {
        for k in (0..self.len()).rev() {
            let (p, pivot) = self.pivots[k];
            let mut t = v[p as usize];
            for &(i, a) in self.columns.get(k) {
                t -= a * v[i as usize];
            }
            v[p as usize] = t / pivot;
        }
    }
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
    pub(super) fn solve(&mut self, deadline: Instant) -> Status {
        self.solve_with_cutoff(deadline, f64::INFINITY)
    }

    /// Solves from the current basis by the dual simplex, or stops with
    /// [`Status::Cutoff`] once the bound exceeds `cutoff`: every basis the
    /// dual simplex passes is dual feasible, so its objective rises towards
    /// the optimum, and the Lagrangian bound of its duals holds on the way.
    pub(super) fn solve_with_cutoff(&mut self, deadline: Instant, cutoff: f64) -> Status {
        let status = self.run(deadline, cutoff);
        self.bound = match status {
            Status::Optimal => self.lagrangian_bound(),
            // The bound that passed the cutoff, which `run` just took.
            Status::Cutoff => self.bound,
            Status::Infeasible => f64::INFINITY,
            Status::Stopped => f64::NEG_INFINITY,
        };
        status
    }

    fn run(&mut self, deadline: Instant, cutoff: f64) -> Status {
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
            if iteration % 32 == 31 && Instant::now() >= deadline {
                return Status::Stopped;
            }
            if iteration >= limit {
                return Status::Stopped;
            }
            if self.etas.len() >= REINVERT_AFTER {
                self.reinvert();
            }
            // Pricing: the most infeasible basic variable by its edge.
            let mut leaving: Option<(usize, f64)> = None;
            let mut best = 0.0;
            for (p, &j) in self.basic.iter().enumerate() {
                let j = j as usize;
                let v = self.value[j];
                let infeasibility = if v < self.lower[j] - PRIMAL_TOL {
                    v - self.lower[j]
                } else if v > self.upper[j] + PRIMAL_TOL {
                    v - self.upper[j]
                } else {
                    continue;
                };
                let score = infeasibility * infeasibility / self.weight[j];
                if score > best {
                    best = score;
                    leaving = Some((p, infeasibility));
                }
            }
            let Some((r, mut delta)) = leaving else {
                return Status::Optimal;
            };
            let out = self.basic[r] as usize;
            let to_lower = delta < 0.0;

            // The pivot row `e_r B^-1 A` over the non-basic variables.
            rho.iter_mut().for_each(|x| *x = 0.0);
            rho[r] = 1.0;
            self.btran(&mut rho);
            // Over the non-basic columns only, each a dot product with
            // `rho`: most structurals are basic, so this reads a tenth of
            // the entries a pass over the rows of `rho`'s nonzeros would.
            // The passes below visit the nonzeros alone (`touched`).
            for &j in &touched {
                row[j as usize] = 0.0;
            }
            touched.clear();
            for (j, column) in self.matrix.columns.iter().enumerate() {
                if self.state[j] == State::Basic {
                    continue;
                }
                let mut a = 0.0;
                for &(i, c) in column {
                    let y = rho[i as usize];
                    if y != 0.0 {
                        a += y * c;
                    }
                }
                if a != 0.0 {
                    row[j] = a;
                    touched.push(j as u32);
                }
            }
            for (i, &y) in rho.iter().enumerate() {
                if y != 0.0 && self.state[n + i] != State::Basic {
                    row[n + i] = -y;
                    touched.push((n + i) as u32);
                }
            }

            // Bound-flipping ratio test: the breakpoints of the dual
            // objective along the ray, passed while its slope stays
            // positive.
            let sign = if to_lower { -1.0 } else { 1.0 };
            candidates.clear();
            for &j in &touched {
                let j = j as usize;
                if self.state[j] == State::Basic || self.lower[j] == self.upper[j] {
                    continue;
                }
                let a = sign * row[j];
                let ratio = match self.state[j] {
                    State::Lower if a > PIVOT_TOL => self.reduced[j].max(0.0) / a,
                    State::Upper if a < -PIVOT_TOL => self.reduced[j].min(0.0) / a,
                    _ => continue,
                };
                candidates.push((ratio, a.abs(), j as u32));
            }
            // The breakpoints in order (of ratio, the larger pivot first
            // among equals), each selected from the rest when the slope is
            // still positive: the step passes few of them (most often
            // none), so sorting them all would cost more.
            let mut slope = delta.abs();
            let mut entering = None;
            let mut flips = 0;
            for k in 0..candidates.len() {
                let next = (k..candidates.len())
                    .min_by(|&x, &y| {
                        let (a, b) = (candidates[x], candidates[y]);
                        a.0.total_cmp(&b.0)
                            .then(b.1.total_cmp(&a.1))
                            .then(a.2.cmp(&b.2))
                    })
                    .expect("k is in range");
                candidates.swap(k, next);
                let (_, a, j) = candidates[k];
                let j = j as usize;
                slope -= a * (self.upper[j] - self.lower[j]);
                if slope < 0.0 || k + 1 == candidates.len() {
                    entering = Some(j);
                    flips = k;
                    break;
                }
            }
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
                let mut shift = vec![0.0; m];
                for &(_, _, j) in &candidates[..flips] {
                    let j = j as usize;
                    let (from, to, state) = match self.state[j] {
                        State::Lower => (self.lower[j], self.upper[j], State::Upper),
                        _ => (self.upper[j], self.lower[j], State::Lower),
                    };
                    self.state[j] = state;
                    self.value[j] = to;
                    let d = to - from;
                    if j < n {
                        for &(i, c) in &self.matrix.columns[j] {
                            shift[i as usize] += c * d;
                        }
                    } else {
                        shift[j - n] -= d;
                    }
                }
                self.move_basics(&mut shift);
                let bound = if to_lower {
                    self.lower[out]
                } else {
                    self.upper[out]
                };
                delta = self.value[out] - bound;
            }

            // The entering column, and a check that it agrees with the row;
            // beside it `tau = B^-1 rho` for the steepest-edge update.
            for (lane, &y) in lanes.iter_mut().zip(&rho) {
                *lane = [0.0, y];
            }
            if q < n {
                for &(i, c) in &self.matrix.columns[q] {
                    lanes[i as usize][0] = c;
                }
            } else {
                lanes[q - n][0] = -1.0;
            }
            self.ftran(&mut lanes);
            let pivot = lanes[r][0];
            if (pivot - row[q]).abs() > 1e-6 * (1.0 + pivot.abs()) || pivot.abs() < PIVOT_TOL {
                if self.etas.len() == 0 {
                    return Status::Stopped;
                }
                self.reinvert();
                continue;
            }

            // Dual step (`touched` holds non-basic variables only).
            let theta_dual = self.reduced[q] / row[q];
            for &j in &touched {
                self.reduced[j as usize] -= theta_dual * row[j as usize];
            }
            self.reduced[q] = 0.0;
            self.reduced[out] = -theta_dual;

            // Primal step.
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

            // Dual steepest-edge weights (Forrest and Goldfarb's update).
            let w_out: f64 = rho.iter().map(|y| y * y).sum();
            for (p, &[a, tau]) in lanes.iter().enumerate() {
                if p != r && a != 0.0 {
                    let j = self.basic[p] as usize;
                    let k = a / pivot;
                    self.weight[j] = (self.weight[j] + k * (k * w_out - 2.0 * tau)).max(1e-10);
                }
            }
            self.weight[q] = (w_out / (pivot * pivot)).max(1e-10);

            self.state[out] = if to_lower { State::Lower } else { State::Upper };
            self.state[q] = State::Basic;
            self.basic[r] = q as u32;
            self.etas.push(r, lanes.iter().map(|lane| lane[0]));

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

/// The counts of [`Relaxation::triangular_order`]: the remaining basis
/// columns per free row and the free rows per remaining column, with the
/// rows and columns whose count fell to one.
struct Pattern<'a> {
    matrix: &'a Matrix,
    in_basis: Vec<bool>,
    taken: Vec<bool>,
    active: Vec<bool>,
    row_count: Vec<u32>,
    column_count: Vec<u32>,
    row_singletons: Vec<usize>,
    column_singletons: Vec<usize>,
}

impl<'a> Pattern<'a> {
    fn new(matrix: &'a Matrix, structurals: &[usize], free: &[bool]) -> Self {
        let n = matrix.columns.len();
        let mut in_basis = vec![false; n];
        let mut row_count = vec![0u32; free.len()];
        let mut column_count = vec![0u32; n];
        for &j in structurals {
            in_basis[j] = true;
            for &(i, _) in &matrix.columns[j] {
                if free[i as usize] {
                    row_count[i as usize] += 1;
                    column_count[j] += 1;
                }
            }
        }
        Pattern {
            matrix,
            taken: vec![false; n],
            active: free.to_vec(),
            row_singletons: (0..free.len())
                .filter(|&i| free[i] && row_count[i] == 1)
                .collect(),
            column_singletons: structurals
                .iter()
                .copied()
                .filter(|&j| column_count[j] == 1)
                .collect(),
            in_basis,
            row_count,
            column_count,
        }
    }

    /// A remaining column with one free row left, and that row.
    fn column_singleton(&mut self) -> Option<(usize, usize)> {
        while let Some(j) = self.column_singletons.pop() {
            if self.taken[j] || self.column_count[j] != 1 {
                continue;
            }
            let i = self.matrix.columns[j]
                .iter()
                .map(|&(i, _)| i as usize)
                .find(|&i| self.active[i])
                .expect("a column's count is its free rows");
            return Some((j, i));
        }
        None
    }

    /// A free row with one remaining column, and that column.
    fn row_singleton(&mut self) -> Option<(usize, usize)> {
        while let Some(i) = self.row_singletons.pop() {
            if !self.active[i] || self.row_count[i] != 1 {
                continue;
            }
            let j = self.matrix.rows[i]
                .0
                .iter()
                .map(|&(x, _)| x as usize)
                .find(|&x| self.in_basis[x] && !self.taken[x])
                .expect("a row's count is its remaining columns");
            return Some((j, i));
        }
        None
    }

    /// Column `j` pivots on row `i`.
    fn take(&mut self, j: usize, i: usize) {
        self.taken[j] = true;
        self.active[i] = false;
        for &(r, _) in &self.matrix.columns[j] {
            let r = r as usize;
            if self.active[r] {
                self.row_count[r] -= 1;
                if self.row_count[r] == 1 {
                    self.row_singletons.push(r);
                }
            }
        }
        // The remaining columns that touch row `i` lose a free row.
        for &(x, _) in &self.matrix.rows[i].0 {
            let x = x as usize;
            if self.in_basis[x] && !self.taken[x] {
                self.column_count[x] -= 1;
                if self.column_count[x] == 1 {
                    self.column_singletons.push(x);
                }
            }
        }
    }
}

/// The pivots of a sparse LU factorization of the matrix whose columns
/// hold the rows `columns` (of `rows` rows), in Markowitz order: each
/// step pivots on the entry whose row and column hold the fewest other
/// entries of what is left (the product of the two counts bounds the fill
/// of the step), the pattern of what is left updated for that fill
/// (Markowitz, "The elimination form of the inverse and its application
/// to linear programming", 1957). The search looks at the few columns
/// of fewest entries only, and at every row in them (Zlatev's restricted
/// search, "On some pivotal strategies in Gaussian elimination by sparse
/// technique", 1980). The numeric factorization may still pivot
/// elsewhere for stability. A column left without rows (the matrix is
/// singular) ends the order, with no row.
///
/// The patterns are bit sets, by column and by row: a nucleus has a few
/// hundred columns, so a step's fill is a few words per touched row.
fn markowitz_order(columns: &[Vec<u32>], rows: usize) -> Vec<(usize, Option<usize>)> {
    /// Columns of the fewest entries the search looks at each step.
    const SEARCH_COLUMNS: usize = 4;
    let k = columns.len();
    let row_words = rows.div_ceil(64);
    let column_words = k.div_ceil(64);
    // `by_column[c]` holds the rows of column `c`, `by_row[r]` the columns
    // of row `r`.
    let mut by_column = vec![0u64; k * row_words];
    let mut by_row = vec![0u64; rows * column_words];
    for (c, column) in columns.iter().enumerate() {
        for &r in column {
            let r = r as usize;
            by_column[c * row_words + r / 64] |= 1 << (r % 64);
            by_row[r * column_words + c / 64] |= 1 << (c % 64);
        }
    }
    // Counted once; then the counts follow the bits as they change (a
    // population count is a dozen instructions where the target has no
    // instruction for it).
    let count = |set: &[u64]| set.iter().map(|w| w.count_ones()).sum::<u32>();
    let mut column_count: Vec<u32> = (0..k)
        .map(|c| count(&by_column[c * row_words..(c + 1) * row_words]))
        .collect();
    let mut row_count: Vec<u32> = (0..rows)
        .map(|r| count(&by_row[r * column_words..(r + 1) * column_words]))
        .collect();
    // The columns by their count (a column whose count changed is listed
    // again under the new one; the stale entries go when met).
    let mut by_count: Vec<Vec<u32>> = vec![Vec::new(); rows + 1];
    for (c, &n) in column_count.iter().enumerate() {
        by_count[n as usize].push(c as u32);
    }
    let mut done = vec![false; k];
    let mut order = Vec::with_capacity(k);
    let mut pivot_row = vec![0u64; column_words];
    let mut pivot_column = vec![0u64; row_words];
    let mut candidates: Vec<usize> = Vec::with_capacity(SEARCH_COLUMNS);
    loop {
        // The columns of fewest entries (none empty).
        candidates.clear();
        'search: for (n, listed) in by_count.iter_mut().enumerate().skip(1) {
            let mut i = 0;
            while i < listed.len() {
                let c = listed[i] as usize;
                if done[c] || column_count[c] as usize != n || candidates.contains(&c) {
                    listed.swap_remove(i);
                    continue;
                }
                candidates.push(c);
                if candidates.len() == SEARCH_COLUMNS {
                    break 'search;
                }
                i += 1;
            }
        }
        let mut best: Option<(u64, usize, usize)> = None;
        for &c in &candidates {
            for_each_bit(&by_column[c * row_words..(c + 1) * row_words], |r| {
                let cost = u64::from(column_count[c] - 1) * u64::from(row_count[r] - 1);
                if best.is_none_or(|b| cost < b.0) {
                    best = Some((cost, c, r));
                }
            });
        }
        let Some((_, c, r)) = best else {
            break;
        };
        done[c] = true;
        order.push((c, Some(r)));
        // What is left loses row `r` and column `c`; every other row of
        // column `c` takes the columns of row `r` (the fill).
        pivot_row.copy_from_slice(&by_row[r * column_words..(r + 1) * column_words]);
        pivot_row[c / 64] &= !(1 << (c % 64));
        pivot_column.copy_from_slice(&by_column[c * row_words..(c + 1) * row_words]);
        pivot_column[r / 64] &= !(1 << (r % 64));
        for_each_bit(&pivot_column, |s| {
            let row = &mut by_row[s * column_words..(s + 1) * column_words];
            row[c / 64] &= !(1 << (c % 64));
            row_count[s] = row_count[s] - 1 + merge(row, &pivot_row);
        });
        for_each_bit(&pivot_row, |d| {
            let column = &mut by_column[d * row_words..(d + 1) * row_words];
            column[r / 64] &= !(1 << (r % 64));
            let n = column_count[d] - 1 + merge(column, &pivot_column);
            if n != column_count[d] {
                column_count[d] = n;
                by_count[n as usize].push(d as u32);
            }
        });
        by_row[r * column_words..(r + 1) * column_words].fill(0);
        row_count[r] = 0;
    }
    order.extend((0..k).filter(|&c| !done[c]).map(|c| (c, None)));
    order
}

/// Sets in `set` the bits of `add`; returns how many were not set.
fn merge(set: &mut [u64], add: &[u64]) -> u32 {
    let mut added = 0;
    for (w, &a) in set.iter_mut().zip(add) {
        let new = a & !*w;
        if new != 0 {
            added += new.count_ones();
            *w |= new;
        }
    }
    added
}

/// Calls `f` with the index of every bit set in `words`.
fn for_each_bit(words: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in words.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            f(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use kildall_testkit::Rng;
    use std::time::Duration;

    fn microlp_optimum(costs: &[f64], rows: &[Row], fixed: &[(usize, f64)]) -> Option<f64> {
        use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem};
        let mut lp = Problem::new(OptimizationDirection::Minimize);
        let vars: Vec<_> = costs
            .iter()
            .enumerate()
            .map(|(j, &c)| {
                let fix = fixed.iter().rev().find(|f| f.0 == j).map(|f| f.1);
                lp.add_var(c, fix.map_or((0.0, 1.0), |v| (v, v)))
            })
            .collect();
        for (terms, rhs) in rows {
            let mut expr = LinearExpr::empty();
            for &(x, c) in terms {
                expr.add(vars[x as usize], c);
            }
            lp.add_constraint(expr, ComparisonOp::Ge, *rhs);
        }
        match lp.solve() {
            Ok(outcome) => outcome.into_solution().ok().map(|s| s.objective()),
            Err(microlp::Error::Infeasible) => None,
            Err(e) => panic!("{e}"),
        }
    }

    fn random_rows(rng: &mut Rng, n: usize, m: usize) -> Vec<Row> {
        (0..m)
            .map(|_| {
                let mut terms: Vec<(u32, f64)> = Vec::new();
                for _ in 0..2 + rng.below(4) {
                    let x = rng.below(n as u64) as u32;
                    if terms.iter().all(|t| t.0 != x) {
                        terms.push((x, 1.0 + rng.below(2) as f64));
                    }
                }
                let reach: f64 = terms.iter().map(|t| t.1).sum();
                let rhs = (1 + rng.below(2)) as f64;
                (terms, rhs.min(reach))
            })
            .collect()
    }

    /// The fill of eliminating `columns` (rows of each column) in `order`
    /// (right-looking: a pivot updates the columns not yet eliminated).
    fn fill_of(columns: &[Vec<u32>], rows: usize, order: &[(usize, Option<usize>)]) -> usize {
        let mut pattern: Vec<Vec<bool>> = columns
            .iter()
            .map(|c| (0..rows as u32).map(|r| c.contains(&r)).collect())
            .collect();
        let mut pivoted = vec![false; rows];
        let mut eliminated = vec![false; columns.len()];
        let mut fill = 0;
        for &(c, r) in order {
            eliminated[c] = true;
            let Some(r) = r else { continue };
            assert!(
                pattern[c][r] && !pivoted[r],
                "a pivot on an entry of a free row"
            );
            pivoted[r] = true;
            let others: Vec<usize> = (0..rows)
                .filter(|&s| !pivoted[s] && pattern[c][s])
                .collect();
            for (d, column) in pattern.iter_mut().enumerate() {
                if !eliminated[d] && column[r] {
                    for &s in &others {
                        if !std::mem::replace(&mut column[s], true) {
                            fill += 1;
                        }
                    }
                }
            }
        }
        fill
    }

    /// Markowitz order takes every column once and each row at most once,
    /// leaves the columns of a singular pattern without a row, and
    /// eliminates an arrowhead matrix (dense first row and column) without
    /// fill, where the natural order fills it completely.
    #[test]
    fn markowitz_order_avoids_the_fill_of_an_arrowhead() {
        let n = 12u32;
        let arrow: Vec<Vec<u32>> = (0..n)
            .map(|c| if c == 0 { (0..n).collect() } else { vec![0, c] })
            .collect();
        let natural: Vec<(usize, Option<usize>)> = (0..n as usize).map(|c| (c, Some(c))).collect();
        assert_eq!(
            fill_of(&arrow, n as usize, &natural),
            ((n - 1) * (n - 2)) as usize
        );
        let order = markowitz_order(&arrow, n as usize);
        let mut columns: Vec<usize> = order.iter().map(|&(c, _)| c).collect();
        columns.sort_unstable();
        assert_eq!(columns, (0..n as usize).collect::<Vec<_>>());
        assert!(order.iter().all(|&(_, r)| r.is_some()));
        assert_eq!(fill_of(&arrow, n as usize, &order), 0);
        // Two columns on the same single row: one of them has none left.
        let singular = vec![vec![0], vec![0], vec![1]];
        let order = markowitz_order(&singular, 2);
        assert_eq!(order.iter().filter(|&&(_, r)| r.is_none()).count(), 1);
        assert_eq!(fill_of(&singular, 2, &order), 0);
        // Columns with no rows at all, and a row listed twice.
        assert_eq!(
            markowitz_order(&[vec![], vec![]], 0),
            [(0, None), (1, None)]
        );
        assert_eq!(markowitz_order(&[vec![1, 1]], 2), [(0, Some(1))]);
    }

    /// A solve of two vectors side by side gives each exactly what it
    /// gives alone, through the factors and through the eta file.
    #[test]
    fn two_lanes_solve_as_one() {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        let mut with_etas = 0;
        for _ in 0..50 {
            let n = 10 + rng.below(60) as usize;
            let m = 5 + rng.below(80) as usize;
            let mut lp = Relaxation::new(&vec![1.0; n], random_rows(&mut rng, n, m));
            if lp.solve(deadline) != Status::Optimal {
                continue;
            }
            for x in 0..n.min(3) {
                lp.fix(x, 0.0);
            }
            lp.solve(deadline);
            let vector = |rng: &mut Rng| -> Vec<f64> {
                (0..m)
                    .map(|_| match rng.below(3) {
                        0 => 0.0,
                        _ => rng.below(1000) as f64 / 7.0 - 70.0,
                    })
                    .collect()
            };
            let (mut a, mut b) = (vector(&mut rng), vector(&mut rng));
            let mut lanes: Vec<[f64; 2]> = a.iter().zip(&b).map(|(&x, &y)| [x, y]).collect();
            with_etas += usize::from(lp.etas.len() > 0);
            lp.ftran(&mut lanes);
            lp.ftran(&mut a);
            lp.ftran(&mut b);
            for (p, lane) in lanes.iter().enumerate() {
                assert_eq!(lane[0].to_bits() | (1 << 63), a[p].to_bits() | (1 << 63));
                assert_eq!(lane[1].to_bits() | (1 << 63), b[p].to_bits() | (1 << 63));
            }
        }
        assert!(
            with_etas > 10,
            "only {with_etas} bases with pivots since factorizing"
        );
    }

    /// Re-solving after fixings, added rows and dropped rows, the dual
    /// simplex agrees with `microlp` solving each program from scratch on
    /// feasibility, its point satisfies the rows and the fixings, and both
    /// its bound and its point's cost lie within the reach of the cost
    /// perturbation of that optimum, the bound never above it.
    #[test]
    fn dual_simplex_matches_microlp() {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for case in 0..2000 {
            // Half small, half as large as the components the search meets
            // most often.
            let scale = if case % 4 < 2 { 1 } else { 4 };
            let n = 3 + rng.below(30 * scale) as usize;
            let m = 1 + rng.below(40 * scale) as usize;
            let costs: Vec<f64> = (0..n)
                .map(|_| (1 + rng.below(if case % 2 == 0 { 1 } else { 9 })) as f64)
                .collect();
            let mut rows = random_rows(&mut rng, n, m);
            let mut lp = Relaxation::new(&costs, rows.clone());
            let mut fixed: Vec<(usize, f64)> = Vec::new();
            let mut ops: Vec<String> = Vec::new();
            for step in 0..6 {
                let before = lp.clone();
                let status = lp.solve(deadline);
                let expected = microlp_optimum(&costs, &rows, &fixed);
                if let Some(opt) = expected {
                    // A cutoff below the optimum may stop the solve, with a
                    // bound past it; one above may not.
                    let mut below = before.clone();
                    match below.solve_with_cutoff(deadline, opt - 1.0) {
                        Status::Cutoff => assert!(
                            below.bound() > opt - 1.0 && below.bound() <= opt + 1e-9,
                            "case {case} step {step}: cut off at {}",
                            below.bound()
                        ),
                        status => assert_eq!(status, Status::Optimal, "case {case} step {step}"),
                    }
                    let mut above = before;
                    let status = above.solve_with_cutoff(deadline, opt + 0.5);
                    assert_eq!(status, Status::Optimal, "case {case} step {step}");
                }
                match expected {
                    None => {
                        assert_eq!(status, Status::Infeasible, "case {case} step {step}");
                        break;
                    }
                    Some(opt) => {
                        assert_eq!(status, Status::Optimal, "case {case} step {step}");
                        let reach = 2.0 * PERTURBATION * costs.iter().sum::<f64>() + 1e-9;
                        let bound = lp.bound();
                        let errors = lp.dual_errors();
                        assert!(
                            errors.is_empty(),
                            "case {case} step {step}: {errors:?} {ops:?}"
                        );
                        assert!(
                            bound <= opt + 1e-9,
                            "case {case} step {step}: {bound} > {opt}"
                        );
                        assert!(
                            bound >= opt - reach,
                            "case {case} step {step}: {bound} < {opt}"
                        );
                        let value = lp.point();
                        let objective: f64 = value.iter().zip(&costs).map(|(v, c)| v * c).sum();
                        assert!((objective - opt).abs() <= reach, "case {case} step {step}");
                        for (terms, rhs) in &rows {
                            let a: f64 = terms.iter().map(|&(x, c)| c * value[x as usize]).sum();
                            assert!(a >= rhs - 1e-7, "case {case} step {step}");
                        }
                        for &(x, v) in &fixed {
                            let last = fixed.iter().rev().find(|f| f.0 == x).map(|f| f.1);
                            assert!(last != Some(v) || (value[x] - v).abs() < 1e-9);
                        }
                    }
                }
                match rng.below(3) {
                    0 => {
                        let count = 1 + rng.below(4) as usize;
                        let more = random_rows(&mut rng, n, count);
                        ops.push(format!("add {}", more.len()));
                        rows.extend(more.iter().cloned());
                        lp.add_rows(more);
                    }
                    1 => {
                        let keep = lp.drop_slack_rows();
                        ops.push(format!("drop {}", keep.iter().filter(|&&k| !k).count()));
                        rows = rows
                            .into_iter()
                            .zip(&keep)
                            .filter(|(_, &k)| k)
                            .map(|(r, _)| r)
                            .collect();
                    }
                    _ => {
                        let x = rng.below(n as u64) as usize;
                        let v = rng.below(2) as f64;
                        ops.push(format!("fix {x} {v}"));
                        fixed.push((x, v));
                        lp.fix(x, v);
                    }
                }
            }
        }
    }
}
