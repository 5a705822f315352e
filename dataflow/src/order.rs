//! The solver's worklist over its visiting order.

/// A set of positions in a visiting order that pops its earliest member:
/// the worklist of a solver that settles each loop before going on.
#[derive(Clone, Debug)]
pub struct Worklist {
    words: Vec<u64>,
    /// No member lies below it.
    low: usize,
}

impl Worklist {
    /// An empty set of positions `0..len`.
    pub fn new(len: usize) -> Self {
        Worklist {
            words: vec![0; len.div_ceil(64)],
            low: len,
        }
    }

    /// Adds position `i` (a no-op if it is a member).
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
        self.low = self.low.min(i);
    }

    /// Removes and returns the earliest member.
    pub fn pop_first(&mut self) -> Option<usize> {
        let mut w = self.low / 64;
        while w < self.words.len() {
            let word = self.words[w];
            if word != 0 {
                let i = w * 64 + word.trailing_zeros() as usize;
                self.words[w] &= word - 1;
                self.low = i + 1;
                return Some(i);
            }
            w += 1;
        }
        self.low = self.words.len() * 64;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Worklist;

    #[test]
    fn the_worklist_pops_the_earliest_member() {
        let mut pending = Worklist::new(200);
        for i in [150, 3, 64, 199, 65] {
            pending.insert(i);
        }
        assert_eq!(pending.pop_first(), Some(3));
        assert_eq!(pending.pop_first(), Some(64));
        // A member inserted behind the last one popped comes first again.
        pending.insert(10);
        assert_eq!(pending.pop_first(), Some(10));
        assert_eq!(pending.pop_first(), Some(65));
        assert_eq!(pending.pop_first(), Some(150));
        assert_eq!(pending.pop_first(), Some(199));
        assert_eq!(pending.pop_first(), None);
    }
}
