//! The order of the basis columns for the LU factorization: a
//! triangularization, then Markowitz's rule on the nucleus left.

use super::Matrix;

/// The counts of `Relaxation::triangular_order`: the remaining basis
/// columns per free row and the free rows per remaining column, with the
/// rows and columns whose count fell to one.
pub(super) struct Pattern<'a> {
    pub(super) matrix: &'a Matrix,
    pub(super) in_basis: Vec<bool>,
    pub(super) taken: Vec<bool>,
    pub(super) active: Vec<bool>,
    pub(super) row_count: Vec<u32>,
    pub(super) column_count: Vec<u32>,
    pub(super) row_singletons: Vec<usize>,
    pub(super) column_singletons: Vec<usize>,
}

impl<'a> Pattern<'a> {
    pub(super) fn new(matrix: &'a Matrix, structurals: &[usize], free: &[bool]) -> Self {
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
    pub(super) fn column_singleton(&mut self) -> Option<(usize, usize)> {
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
    pub(super) fn row_singleton(&mut self) -> Option<(usize, usize)> {
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
    pub(super) fn take(&mut self, j: usize, i: usize) {
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
pub(super) fn markowitz_order(columns: &[Vec<u32>], rows: usize) -> Vec<(usize, Option<usize>)> {
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
pub(super) fn merge(set: &mut [u64], add: &[u64]) -> u32 {
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
pub(super) fn for_each_bit(words: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in words.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            f(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}
