//! Join semi-lattices and the stock domains.
//!
//! A domain is a set with a partial order `⊑` in which every two elements
//! have a least upper bound, computed by [`JoinSemiLattice::join`]. The
//! solver relies on these laws, which every implementation must keep:
//!
//! - `join` computes the least upper bound, so it is associative,
//!   commutative and idempotent (`a.join(&a)` changes nothing and returns
//!   `false`);
//! - `join` returns `true` exactly when `self` changed; returning `true`
//!   spuriously is allowed but wastes visits, returning `false` after a
//!   change is unsound (the solver stops early);
//! - the lattice has finite height `h` (every strictly ascending chain has at
//!   most `h` steps) *for the values the analysis produces*: [`Max`] and
//!   [`Min`] over unbounded integers only have finite height because their
//!   constructors saturate at a limit.
//!
//! Stock domains: [`Flat`] constants, [`BitSet`] (dense `bitvec` storage, or
//! a sorted vector while small), [`PowerSet`], [`MapLattice`] (pointwise,
//! missing keys are bottom), [`Max`] and [`Min`] over bounded integers, and
//! pairs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::marker::PhantomData;

use bitvec::vec::BitVec;
use cranelift_entity::EntityRef;

/// A join semi-lattice (see the module documentation for the laws).
pub trait JoinSemiLattice {
    /// Sets `self` to the least upper bound of `self` and `other`; returns
    /// whether `self` changed.
    fn join(&mut self, other: &Self) -> bool;
}

/// A lattice with a least element that needs no parameters.
pub trait HasBottom {
    /// The least element: "no information yet" (e.g. unreachable).
    fn bottom() -> Self;
    /// Whether `self` is the least element.
    fn is_bottom(&self) -> bool;
}

/// A lattice with a greatest element that needs no parameters.
pub trait HasTop {
    /// The greatest element: "could be anything".
    fn top() -> Self;
    /// Whether `self` is the greatest element.
    fn is_top(&self) -> bool;
}

impl JoinSemiLattice for () {
    fn join(&mut self, _: &Self) -> bool {
        false
    }
}

impl JoinSemiLattice for bool {
    /// `false ⊑ true`: "may" facts.
    fn join(&mut self, other: &Self) -> bool {
        let changed = !*self && *other;
        *self |= *other;
        changed
    }
}

impl<A: JoinSemiLattice, B: JoinSemiLattice> JoinSemiLattice for (A, B) {
    /// Component-wise (the product lattice).
    fn join(&mut self, other: &Self) -> bool {
        let a = self.0.join(&other.0);
        let b = self.1.join(&other.1);
        a | b
    }
}

impl<A: HasBottom, B: HasBottom> HasBottom for (A, B) {
    fn bottom() -> Self {
        (A::bottom(), B::bottom())
    }
    fn is_bottom(&self) -> bool {
        self.0.is_bottom() && self.1.is_bottom()
    }
}

impl<T: JoinSemiLattice> JoinSemiLattice for Vec<T> {
    /// Pointwise over vectors of equal length (the product of their
    /// elements' lattices). Panics if the lengths differ.
    fn join(&mut self, other: &Self) -> bool {
        assert_eq!(
            self.len(),
            other.len(),
            "joined vectors of different lengths"
        );
        let mut changed = false;
        for (a, b) in self.iter_mut().zip(other) {
            changed |= a.join(b);
        }
        changed
    }
}

// ----- Flat -----

/// The flat lattice of constant propagation: `Bottom ⊑ Known(x) ⊑ Top`,
/// with distinct known values incomparable (their join is `Top`). Height 2.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Flat<T> {
    /// No value reaches here yet.
    #[default]
    Bottom,
    /// Exactly this value.
    Known(T),
    /// Different values reach here.
    Top,
}

impl<T> Flat<T> {
    /// The known value, if there is one.
    pub fn known(&self) -> Option<&T> {
        match self {
            Flat::Known(v) => Some(v),
            _ => None,
        }
    }
}

impl<T: Clone + PartialEq> JoinSemiLattice for Flat<T> {
    fn join(&mut self, other: &Self) -> bool {
        let joined = match (&*self, other) {
            (_, Flat::Bottom) | (Flat::Top, _) => return false,
            (Flat::Bottom, _) => other.clone(),
            (Flat::Known(a), Flat::Known(b)) if a == b => return false,
            _ => Flat::Top,
        };
        *self = joined;
        true
    }
}

impl<T> HasBottom for Flat<T> {
    fn bottom() -> Self {
        Flat::Bottom
    }
    fn is_bottom(&self) -> bool {
        matches!(self, Flat::Bottom)
    }
}

impl<T> HasTop for Flat<T> {
    fn top() -> Self {
        Flat::Top
    }
    fn is_top(&self) -> bool {
        matches!(self, Flat::Top)
    }
}

impl<T: fmt::Display> fmt::Display for Flat<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Flat::Bottom => f.write_str("⊥"),
            Flat::Known(v) => v.fmt(f),
            Flat::Top => f.write_str("⊤"),
        }
    }
}

// ----- Max / Min -----

/// Integers ordered by `≤` and joined by `max`, saturating: `Bottom ⊑ At(0) ⊑
/// At(1) ⊑ ... ⊑ Top`. Values above a limit become `Top` through
/// [`Max::saturating`], which bounds the height by `limit + 2` (e.g. a noise
/// bound: joining branches takes the worse one, loops that keep growing it
/// reach `Top`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Max {
    /// No value yet.
    #[default]
    Bottom,
    /// At most this much.
    At(u64),
    /// Above the limit.
    Top,
}

impl Max {
    /// `At(value)`, or `Top` if `value > limit`.
    pub fn saturating(value: u64, limit: u64) -> Max {
        if value > limit {
            Max::Top
        } else {
            Max::At(value)
        }
    }

    /// The value, if it is one.
    pub fn value(self) -> Option<u64> {
        match self {
            Max::At(v) => Some(v),
            _ => None,
        }
    }
}

impl JoinSemiLattice for Max {
    fn join(&mut self, other: &Self) -> bool {
        let joined = match (*self, *other) {
            (_, Max::Bottom) | (Max::Top, _) => return false,
            (Max::At(a), Max::At(b)) if a >= b => return false,
            _ => *other,
        };
        *self = joined;
        true
    }
}

impl HasBottom for Max {
    fn bottom() -> Self {
        Max::Bottom
    }
    fn is_bottom(&self) -> bool {
        *self == Max::Bottom
    }
}

impl HasTop for Max {
    fn top() -> Self {
        Max::Top
    }
    fn is_top(&self) -> bool {
        *self == Max::Top
    }
}

/// Integers ordered by `≥` and joined by `min`, saturating: `Bottom ⊑ At(n)
/// ⊑ At(n - 1) ⊑ ... ⊑ Top`. Values below a floor become `Top` through
/// [`Min::saturating`], which bounds the height.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Min {
    /// No value yet.
    #[default]
    Bottom,
    /// At least this much.
    At(u64),
    /// Below the floor.
    Top,
}

impl Min {
    /// `At(value)`, or `Top` if `value < floor`.
    pub fn saturating(value: u64, floor: u64) -> Min {
        if value < floor {
            Min::Top
        } else {
            Min::At(value)
        }
    }

    /// The value, if it is one.
    pub fn value(self) -> Option<u64> {
        match self {
            Min::At(v) => Some(v),
            _ => None,
        }
    }
}

impl JoinSemiLattice for Min {
    fn join(&mut self, other: &Self) -> bool {
        let joined = match (*self, *other) {
            (_, Min::Bottom) | (Min::Top, _) => return false,
            (Min::At(a), Min::At(b)) if a <= b => return false,
            _ => *other,
        };
        *self = joined;
        true
    }
}

impl HasBottom for Min {
    fn bottom() -> Self {
        Min::Bottom
    }
    fn is_bottom(&self) -> bool {
        *self == Min::Bottom
    }
}

impl HasTop for Min {
    fn top() -> Self {
        Min::Top
    }
    fn is_top(&self) -> bool {
        *self == Min::Top
    }
}

// ----- PowerSet -----

/// Subsets of `T` ordered by inclusion, joined by union. Height: the number
/// of elements that can occur.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct PowerSet<T: Ord>(pub BTreeSet<T>);

impl<T: Ord> Default for PowerSet<T> {
    fn default() -> Self {
        PowerSet(BTreeSet::new())
    }
}

impl<T: Ord> PowerSet<T> {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<T: Ord> std::ops::Deref for PowerSet<T> {
    type Target = BTreeSet<T>;
    fn deref(&self) -> &BTreeSet<T> {
        &self.0
    }
}

impl<T: Ord> std::ops::DerefMut for PowerSet<T> {
    fn deref_mut(&mut self) -> &mut BTreeSet<T> {
        &mut self.0
    }
}

impl<T: Ord> FromIterator<T> for PowerSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        PowerSet(iter.into_iter().collect())
    }
}

impl<T: Ord + Clone> JoinSemiLattice for PowerSet<T> {
    fn join(&mut self, other: &Self) -> bool {
        let before = self.0.len();
        if before == 0 {
            self.0.clone_from(&other.0);
        } else {
            self.0.extend(other.0.iter().cloned());
        }
        self.0.len() != before
    }
}

impl<T: Ord> HasBottom for PowerSet<T> {
    fn bottom() -> Self {
        Self::default()
    }
    fn is_bottom(&self) -> bool {
        self.0.is_empty()
    }
}

// ----- MapLattice -----

/// A pointwise map from keys to a lattice, stored sparsely: a missing key
/// means bottom. Joined key by key. Height: the sum of the values' heights
/// over the keys that occur.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MapLattice<K: Ord, V>(pub BTreeMap<K, V>);

impl<K: Ord, V> Default for MapLattice<K, V> {
    fn default() -> Self {
        MapLattice(BTreeMap::new())
    }
}

impl<K: Ord, V> MapLattice<K, V> {
    /// The map where every key is bottom.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<K: Ord, V: HasBottom> MapLattice<K, V> {
    /// The value of `key` (bottom if missing).
    pub fn get_or_bottom(&self, key: &K) -> std::borrow::Cow<'_, V>
    where
        V: Clone,
    {
        match self.0.get(key) {
            Some(v) => std::borrow::Cow::Borrowed(v),
            None => std::borrow::Cow::Owned(V::bottom()),
        }
    }

    /// Sets `key` to `value`; a bottom value removes the key, so that equal
    /// maps are equal as data.
    pub fn set(&mut self, key: K, value: V) {
        if value.is_bottom() {
            self.0.remove(&key);
        } else {
            self.0.insert(key, value);
        }
    }
}

impl<K: Ord, V> std::ops::Deref for MapLattice<K, V> {
    type Target = BTreeMap<K, V>;
    fn deref(&self) -> &BTreeMap<K, V> {
        &self.0
    }
}

impl<K: Ord, V> std::ops::DerefMut for MapLattice<K, V> {
    fn deref_mut(&mut self) -> &mut BTreeMap<K, V> {
        &mut self.0
    }
}

impl<K: Ord + Clone, V: JoinSemiLattice + HasBottom + Clone> JoinSemiLattice for MapLattice<K, V> {
    fn join(&mut self, other: &Self) -> bool {
        let mut changed = false;
        for (key, value) in &other.0 {
            match self.0.get_mut(key) {
                Some(mine) => changed |= mine.join(value),
                None => {
                    if !value.is_bottom() {
                        self.0.insert(key.clone(), value.clone());
                        changed = true;
                    }
                }
            }
        }
        changed
    }
}

impl<K: Ord, V> HasBottom for MapLattice<K, V> {
    fn bottom() -> Self {
        Self::default()
    }
    /// Whether no key is present (keys set to bottom through
    /// [`set`](MapLattice::set) are removed).
    fn is_bottom(&self) -> bool {
        self.0.is_empty()
    }
}

// ----- BitSet -----

/// A set of entities `0..domain_size` ordered by inclusion, joined by union.
/// Height: `domain_size`.
///
/// Small sets are a sorted vector; once a set holds more than 1/32 of its
/// domain (and at least 32 elements) it becomes a dense `bitvec` bit
/// vector. A function of a million values has tens of thousands of blocks,
/// and one dense set per block would not fit in memory, while the sets
/// dataflow problems like liveness produce are small.
#[derive(Clone)]
pub struct BitSet<T> {
    domain_size: usize,
    repr: Repr,
    marker: PhantomData<fn(T) -> T>,
}

#[derive(Clone)]
enum Repr {
    Sparse(Vec<u32>),
    Dense(BitVec<u64>, usize),
}

const SPARSE_MIN: usize = 32;

impl<T: EntityRef> BitSet<T> {
    /// The empty set over `0..domain_size`.
    pub fn new_empty(domain_size: usize) -> Self {
        assert!(domain_size <= u32::MAX as usize, "domain too large");
        BitSet {
            domain_size,
            repr: Repr::Sparse(Vec::new()),
            marker: PhantomData,
        }
    }

    /// The full set over `0..domain_size`.
    pub fn new_filled(domain_size: usize) -> Self {
        let mut set = Self::new_empty(domain_size);
        let bits = BitVec::repeat(true, domain_size);
        set.repr = Repr::Dense(bits, domain_size);
        set
    }

    /// The size of the domain.
    pub fn domain_size(&self) -> usize {
        self.domain_size
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Sparse(v) => v.len(),
            Repr::Dense(_, n) => *n,
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `elem` is in the set.
    pub fn contains(&self, elem: T) -> bool {
        let i = elem.index();
        match &self.repr {
            Repr::Sparse(v) => v.binary_search(&(i as u32)).is_ok(),
            Repr::Dense(bits, _) => bits.get(i).is_some_and(|b| *b),
        }
    }

    /// Inserts `elem`; returns whether it was new. Panics outside the domain.
    pub fn insert(&mut self, elem: T) -> bool {
        let i = elem.index();
        assert!(
            i < self.domain_size,
            "element {i} outside domain {}",
            self.domain_size
        );
        match &mut self.repr {
            Repr::Sparse(v) => match v.binary_search(&(i as u32)) {
                Ok(_) => false,
                Err(pos) => {
                    v.insert(pos, i as u32);
                    self.maybe_densify();
                    true
                }
            },
            Repr::Dense(bits, n) => {
                let was = bits.replace(i, true);
                *n += usize::from(!was);
                !was
            }
        }
    }

    /// Removes `elem`; returns whether it was present.
    pub fn remove(&mut self, elem: T) -> bool {
        let i = elem.index();
        match &mut self.repr {
            Repr::Sparse(v) => match v.binary_search(&(i as u32)) {
                Ok(pos) => {
                    v.remove(pos);
                    true
                }
                Err(_) => false,
            },
            Repr::Dense(bits, n) => {
                if i >= bits.len() {
                    return false;
                }
                let was = bits.replace(i, false);
                *n -= usize::from(was);
                was
            }
        }
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.repr = Repr::Sparse(Vec::new());
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        let (sparse, dense) = match &self.repr {
            Repr::Sparse(v) => (Some(v.iter().map(|&i| T::new(i as usize))), None),
            Repr::Dense(bits, _) => (None, Some(bits.iter_ones().map(T::new))),
        };
        sparse
            .into_iter()
            .flatten()
            .chain(dense.into_iter().flatten())
    }

    /// Adds every element of `other`; returns whether `self` changed.
    pub fn union(&mut self, other: &Self) -> bool {
        assert_eq!(
            self.domain_size, other.domain_size,
            "bit sets over different domains"
        );
        match (&mut self.repr, &other.repr) {
            (_, Repr::Sparse(theirs)) if theirs.is_empty() => false,
            (Repr::Sparse(mine), Repr::Sparse(theirs)) => {
                if mine.is_empty() {
                    mine.clone_from(theirs);
                    self.maybe_densify();
                    return true;
                }
                let before = mine.len();
                let merged = merge_sorted(mine, theirs);
                if merged.len() == before {
                    return false;
                }
                *mine = merged;
                self.maybe_densify();
                true
            }
            (Repr::Dense(bits, n), Repr::Sparse(theirs)) => {
                let mut changed = false;
                for &i in theirs {
                    let was = bits.replace(i as usize, true);
                    changed |= !was;
                    *n += usize::from(!was);
                }
                changed
            }
            (Repr::Sparse(_), Repr::Dense(..)) => {
                self.densify();
                self.union(other)
            }
            (Repr::Dense(bits, n), Repr::Dense(theirs, _)) => {
                let mut changed = false;
                for (a, b) in bits
                    .as_raw_mut_slice()
                    .iter_mut()
                    .zip(theirs.as_raw_slice())
                {
                    let new = *a | *b;
                    changed |= new != *a;
                    *a = new;
                }
                if changed {
                    *n = bits.count_ones();
                }
                changed
            }
        }
    }

    /// Removes every element of `other`; returns whether `self` changed.
    pub fn subtract(&mut self, other: &Self) -> bool {
        let mut changed = false;
        let elems: Vec<T> = other.iter().collect();
        for e in elems {
            changed |= self.remove(e);
        }
        changed
    }

    fn maybe_densify(&mut self) {
        if let Repr::Sparse(v) = &self.repr {
            if v.len() > SPARSE_MIN && v.len() > self.domain_size / 32 {
                self.densify();
            }
        }
    }

    fn densify(&mut self) {
        if let Repr::Sparse(v) = &self.repr {
            let mut bits = BitVec::repeat(false, self.domain_size);
            for &i in v {
                bits.set(i as usize, true);
            }
            let n = v.len();
            self.repr = Repr::Dense(bits, n);
        }
    }
}

fn merge_sorted(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

impl<T: EntityRef> JoinSemiLattice for BitSet<T> {
    fn join(&mut self, other: &Self) -> bool {
        self.union(other)
    }
}

impl<T: EntityRef> BitSet<T> {
    /// Keeps only the elements for which `keep` returns true; returns
    /// whether `self` changed.
    pub fn retain(&mut self, mut keep: impl FnMut(T) -> bool) -> bool {
        match &mut self.repr {
            Repr::Sparse(v) => {
                let before = v.len();
                v.retain(|&i| keep(T::new(i as usize)));
                v.len() != before
            }
            Repr::Dense(..) => {
                let gone: Vec<T> = self.iter().filter(|&e| !keep(e)).collect();
                for &e in &gone {
                    self.remove(e);
                }
                !gone.is_empty()
            }
        }
    }

    /// Keeps only the elements of `other`; returns whether `self` changed.
    pub fn intersect(&mut self, other: &Self) -> bool {
        let gone: Vec<T> = self.iter().filter(|&e| !other.contains(e)).collect();
        for &e in &gone {
            self.remove(e);
        }
        !gone.is_empty()
    }
}

// ----- Must -----

/// A set of facts that hold on every path, for must-analyses: joined by
/// intersection. `Unreached` is the bottom (no path seen yet), the identity
/// of the join, so a block whose successors or predecessors are not yet
/// visited does not empty the set. Height: the domain size plus one.
#[derive(Clone)]
pub enum Must<T> {
    /// No path reaches this point yet.
    Unreached,
    /// The facts that hold on every path seen.
    Holds(BitSet<T>),
}

impl<T: EntityRef> Must<T> {
    /// The facts, if some path reached this point.
    pub fn holds(&self) -> Option<&BitSet<T>> {
        match self {
            Must::Unreached => None,
            Must::Holds(set) => Some(set),
        }
    }
}

impl<T: EntityRef> PartialEq for Must<T> {
    fn eq(&self, other: &Self) -> bool {
        self.holds() == other.holds()
    }
}

impl<T: EntityRef> Eq for Must<T> {}

impl<T: EntityRef> JoinSemiLattice for Must<T> {
    fn join(&mut self, other: &Self) -> bool {
        match (&mut *self, other) {
            (_, Must::Unreached) => false,
            (Must::Unreached, Must::Holds(theirs)) => {
                *self = Must::Holds(theirs.clone());
                true
            }
            (Must::Holds(mine), Must::Holds(theirs)) => mine.intersect(theirs),
        }
    }
}

impl<T: EntityRef> PartialEq for BitSet<T> {
    fn eq(&self, other: &Self) -> bool {
        self.domain_size == other.domain_size
            && self.len() == other.len()
            && self.iter().eq(other.iter())
    }
}

impl<T: EntityRef> Eq for BitSet<T> {}

impl<T: EntityRef + fmt::Debug> fmt::Debug for BitSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (k, e) in self.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{e:?}")?;
        }
        f.write_str("}")
    }
}
