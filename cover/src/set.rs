//! Sets of elements as sorted vectors.

/// A set of elements (indices), sorted ascending, without repeats.
pub type Set = Vec<u32>;

/// Whether every element of `small` is in `big` (both sorted), by one merge.
pub fn is_subset(small: &[u32], big: &[u32]) -> bool {
    let mut j = 0;
    for &x in small {
        while j < big.len() && big[j] < x {
            j += 1;
        }
        if j == big.len() || big[j] != x {
            return false;
        }
        j += 1;
    }
    true
}
