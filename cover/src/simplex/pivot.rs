//! The steps of one dual simplex pivot: pricing, the pivot row, the
//! bound-flipping ratio test, the bound flips and the steepest-edge
//! update (the loop that sequences them is `Relaxation::run`).

use super::*;

impl Relaxation {
    /// Dual pricing: the most infeasible basic variable by its edge
    /// weight (its position in the basis and its infeasibility), or `None`
    /// when the basis is primal feasible.
    pub(super) fn price(&self) -> Option<(usize, f64)> {
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
        leaving
    }

    /// The pivot row `e_r B^-1 A` over the non-basic variables into `row`
    /// (`rho = e_r B^-1`), its nonzeros listed in `touched`. It is computed
    /// over the non-basic columns only, each a dot product with `rho`: most
    /// structurals are basic, so this reads a tenth of the entries a pass
    /// over the rows of `rho`'s nonzeros would.
    pub(super) fn pivot_row(
        &self,
        r: usize,
        rho: &mut [f64],
        row: &mut [f64],
        touched: &mut Vec<u32>,
    ) {
        let n = self.structurals();
        rho.iter_mut().for_each(|x| *x = 0.0);
        rho[r] = 1.0;
        self.btran(rho);
        for &j in touched.iter() {
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
    }

    /// The bound-flipping ratio test: the breakpoints of the dual objective
    /// along the ray, passed while its slope stays positive. Returns the
    /// entering variable, how many breakpoints before it flip (the first
    /// `flips` of `candidates`), and the slope left.
    pub(super) fn ratio_test(
        &self,
        row: &[f64],
        touched: &[u32],
        candidates: &mut Vec<(f64, f64, u32)>,
        to_lower: bool,
        delta: f64,
    ) -> (Option<usize>, usize, f64) {
        let sign = if to_lower { -1.0 } else { 1.0 };
        candidates.clear();
        for &j in touched {
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
        // The breakpoints in order (of ratio, the larger pivot first among
        // equals), each selected from the rest when the slope is still
        // positive: the step passes few of them (most often none), so
        // sorting them all would cost more.
        let mut slope = delta.abs();
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
                return (Some(j), k, slope);
            }
        }
        (None, 0, slope)
    }

    /// Moves the `flipped` breakpoints' variables to their other bounds,
    /// and the basic values with them.
    pub(super) fn flip_bounds(&mut self, flipped: &[(f64, f64, u32)]) {
        let n = self.structurals();
        let mut shift = vec![0.0; self.matrix.rows.len()];
        for &(_, _, j) in flipped {
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
    }

    /// The dual steepest-edge weights after the pivot on row `r` with
    /// entering `q` (Forrest and Goldfarb's update): `lanes` holds the
    /// entering column and `tau = B^-1 rho`.
    pub(super) fn update_weights(
        &mut self,
        rho: &[f64],
        lanes: &[[f64; 2]],
        r: usize,
        q: usize,
        pivot: f64,
    ) {
        let w_out: f64 = rho.iter().map(|y| y * y).sum();
        for (p, &[a, tau]) in lanes.iter().enumerate() {
            if p != r && a != 0.0 {
                let j = self.basic[p] as usize;
                let k = a / pivot;
                self.weight[j] = (self.weight[j] + k * (k * w_out - 2.0 * tau)).max(1e-10);
            }
        }
        self.weight[q] = (w_out / (pivot * pivot)).max(1e-10);
    }
}
