//! The basis of the dual simplex as sparse LU factors, and the pivots
//! since the last factorization in product form (an eta file).

use super::*;

/// Sparse columns stored one after another: the entries `(row, value)` of
/// column `k` are `entries[starts[k]..starts[k + 1]]`.
#[derive(Clone, Debug, Default)]
pub(super) struct Columns {
    pub(super) starts: Vec<u32>,
    pub(super) entries: Vec<(u32, f64)>,
}

impl Columns {
    pub(super) fn clear(&mut self) {
        self.starts.clear();
        self.entries.clear();
    }

    /// Starts a new column; [`Self::push`] fills it.
    pub(super) fn open(&mut self) {
        self.starts.push(self.entries.len() as u32);
    }

    pub(super) fn push(&mut self, row: u32, value: f64) {
        self.entries.push((row, value));
    }

    pub(super) fn get(&self, k: usize) -> &[(u32, f64)] {
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
pub(super) trait Lanes: Copy {
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
pub(super) struct Factors {
    /// Pivot row and `U` diagonal of each structural column, in order.
    pub(super) pivots: Vec<(u32, f64)>,
    pub(super) l: Columns,
    pub(super) u: Columns,
    /// Whether a structural column pivots on the row (else its surplus).
    pub(super) structural_row: Vec<bool>,
    /// The structural column pivoting on each row (`u32::MAX`: none).
    pub(super) column_of_row: Vec<u32>,
}

impl Factors {
    pub(super) fn clear(&mut self, rows: usize) {
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
    pub(super) fn eliminate_sparse(
        &self,
        v: &mut [f64],
        nonzeros: &mut Vec<u32>,
        pending: &mut Vec<u64>,
    ) {
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
    pub(super) fn push(&mut self, p: usize, v: &mut [f64], nonzeros: &[u32], unpivoted: &[bool]) {
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
    pub(super) fn solve<V: Lanes>(&self, v: &mut [V]) {
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
    pub(super) fn solve_transposed(&self, v: &mut [f64]) {
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
pub(super) struct Etas {
    /// Pivot position and pivot element of each eta.
    pub(super) pivots: Vec<(u32, f64)>,
    /// Each eta's other entries.
    pub(super) columns: Columns,
}

impl Etas {
    pub(super) fn clear(&mut self) {
        self.pivots.clear();
        self.columns.clear();
    }

    pub(super) fn len(&self) -> usize {
        self.pivots.len()
    }

    /// Appends the eta of a pivot on position `p`, `column` being the
    /// entering column `B^-1 a_q` position by position.
    pub(super) fn push(&mut self, p: usize, column: impl Iterator<Item = f64>) {
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
    pub(super) fn apply<V: Lanes>(&self, v: &mut [V]) {
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
    pub(super) fn apply_transposed(&self, v: &mut [f64]) {
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
