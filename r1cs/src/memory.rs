//! The memory check of a run, as CoBBl checks its memory apart from the
//! block instances: every access is a tuple (address, value, kind, time);
//! the tuples in execution order and the same tuples sorted by address,
//! then time, are proven permutations of each other, and the sorted list is
//! checked pair by pair.
//!
//! # The tuples
//!
//! An entry's address is a key: a cell's address (its number, plus
//! `k * 2^40` for element `k` of the value it holds) for `allocate`,
//! `load` and `store`; for an array read at a dynamic index, the index in
//! a segment of its own, above every cell. A segment holds one array's
//! elements, written by initialisation entries before the first read of
//! it (once per distinct array, as a block prover writes an array to
//! memory when it is made). An entry's kind is one of
//!
//! | kind | starts an address | sets the value | code |
//! |---|---|---|---|
//! | read | no | no | 0 |
//! | allocate | yes | no | 1 |
//! | write | no | yes | 2 |
//! | initialise | yes | yes | 3 |
//!
//! and its time is its position in the execution order. An access under
//! predicate 0 stays in the execution-ordered list, marked invalid, and is
//! left out of the sorted one.
//!
//! # The constraints
//!
//! For each pair of neighbours in the sorted list, with `s` = whether they
//! share the address (CoBBl's coherence check, with addresses that are not
//! dense, so their order is proven by a range check):
//!
//! - `s` boolean, `s (a' - a) = 0`, and `(1 - s)(a' - a - 1)` in `W` bits:
//!   addresses increase, so every address is one run of the list;
//! - `s (t' - t - 1)` in `T` bits: times increase within an address;
//! - `(1 - s)(1 - start') = 0` and `s start' = 0`: an address's first
//!   access, and only it, allocates or initialises it, so a cell is
//!   allocated once (the freshness of `allocate`);
//! - a read sees the value before it, `(1 - start' - set')(v' - v) = 0`, and
//!   a value was set since the address started (`defined`, carried along
//!   the run): a load of a cell never stored is unsatisfiable, as it traps.
//!
//! The permutation is a grand product at random challenges `tau`, `g1..g3`:
//! `prod (tau - (a + g1 v + g2 code + g3 t))` over the valid entries of the
//! execution-ordered list equals the same product over the sorted list. `W` is the width of the largest address, `T`
//! of the number of entries; a valid access costs about `22 + W + T`
//! constraints.
//!
//! The challenges are drawn by hashing both lists, which are public
//! inputs (Fiat-Shamir): the sorted list is fixed before them, and a
//! verifier checks [`MemoryCheck::challenges_bound`] beside the proof.
//!
//! The execution-ordered list is a function of the block instances' public
//! inputs ([`MemoryCheck::of_accesses`]): each access's (valid, address,
//! value) and each array read at a dynamic index are public inputs of the
//! instance that makes them, so a verifier rebuilds the list from the
//! instances it checked, and the memory check's proof holds for those
//! accesses only.

use std::fmt;

use ark_bn254::Fr;
use ark_ff::{BigInteger, One, PrimeField, Zero};
use sha2::{Digest, Sha256};

use crate::lower::recompose;
use crate::system::{AccessKind, Assignment, Constraint, ConstraintSystem, Lc, Origin, Var};

/// What an entry of the memory check does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EntryKind {
    /// Sees the value last set.
    Read,
    /// Starts a cell's life, holding no value (`allocate`).
    Allocate,
    /// Sets the value (`store`).
    Write,
    /// Starts an array segment's element with its value.
    Initialise,
}

impl EntryKind {
    fn starts(self) -> bool {
        matches!(self, EntryKind::Allocate | EntryKind::Initialise)
    }

    fn sets(self) -> bool {
        matches!(self, EntryKind::Write | EntryKind::Initialise)
    }

    /// `starts + 2 sets`, the kind as the fingerprint sees it.
    fn code(self) -> u64 {
        u64::from(self.starts()) + 2 * u64::from(self.sets())
    }
}

impl fmt::Display for EntryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EntryKind::Read => "read",
            EntryKind::Allocate => "allocate",
            EntryKind::Write => "write",
            EntryKind::Initialise => "initialise",
        })
    }
}

/// One access, in execution order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Entry {
    /// Whether it happens (its block's predicate).
    pub valid: bool,
    /// The address.
    pub key: u128,
    /// The value read, written, or 0.
    pub value: Fr,
    /// What it does.
    pub kind: EntryKind,
}

/// Why the accesses of a run are not consistent memory.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum MemoryError {
    /// An address's first access does not allocate or initialise it.
    #[error("entry {entry} ({kind}) is the first access to address {key}")]
    NotStarted {
        /// The entry, by time.
        entry: usize,
        /// Its kind.
        kind: EntryKind,
        /// The address.
        key: u128,
    },
    /// An address is allocated or initialised again.
    #[error("entry {entry} ({kind}) starts address {key} again")]
    StartedTwice {
        /// The entry, by time.
        entry: usize,
        /// Its kind.
        kind: EntryKind,
        /// The address.
        key: u128,
    },
    /// A read does not see the value set last (or nothing was set).
    #[error("entry {entry} reads {read} at address {key}, the value set last is {set}")]
    Stale {
        /// The entry, by time.
        entry: usize,
        /// The address.
        key: u128,
        /// The value read.
        read: String,
        /// The value set last, or `nothing`.
        set: String,
    },
}

impl MemoryError {
    /// The entry (by time) the check failed on.
    pub fn entry(&self) -> usize {
        match self {
            MemoryError::NotStarted { entry, .. }
            | MemoryError::StartedTwice { entry, .. }
            | MemoryError::Stale { entry, .. } => *entry,
        }
    }
}

/// The accesses of a run, in execution order: entry `i` happens at time `i`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct MemoryCheck {
    /// The entries.
    pub entries: Vec<Entry>,
}

fn show(f: Fr) -> String {
    f.into_bigint().to_string()
}

/// The number of bits of `n` (at least 1).
fn width(n: u128) -> u32 {
    (128 - n.leading_zeros()).max(1)
}

/// An access as the block instance that makes it proves it: the
/// execution-ordered list is built from these.
#[derive(Clone, Debug)]
pub struct BlockAccess<'a> {
    /// Whether it happens.
    pub valid: bool,
    /// The cell's address, or the index in the array.
    pub address: Fr,
    /// The value read or written.
    pub value: Fr,
    /// What it does.
    pub kind: AccessKind,
    /// The elements of the array read, or `None` for a cell.
    pub array: Option<&'a [Fr]>,
}

/// An address as a key: the field element when it fits in 128 bits, else
/// one key above every cell.
fn key_of(f: Fr) -> u128 {
    let big: num_bigint::BigUint = f.into();
    u128::try_from(&big).unwrap_or(u128::MAX >> 16)
}

impl MemoryCheck {
    /// The execution-ordered list of a run whose accesses, in execution
    /// order, are `accesses`, and for each entry the access it is (`None`
    /// for an initialisation). Cells keep their addresses; each distinct
    /// array read (by contents, numbered by first read) is a segment above
    /// every cell, a power of two wide, initialised just before its first
    /// read. An access that does not happen enters as zeros.
    pub fn of_accesses(accesses: &[BlockAccess<'_>]) -> (MemoryCheck, Vec<Option<usize>>) {
        let mut cells_top = 0u128;
        let mut segment_len = 1usize;
        for access in accesses.iter().filter(|a| a.valid) {
            match access.array {
                None => cells_top = cells_top.max(key_of(access.address)),
                Some(elements) => segment_len = segment_len.max(elements.len()),
            }
        }
        let base = 1u128 << (128 - cells_top.leading_zeros()).min(126);
        let stride = segment_len.checked_next_power_of_two().unwrap_or(1 << 40) as u128;
        let mut segments: std::collections::HashMap<&[Fr], u128> = Default::default();
        let mut check = MemoryCheck::default();
        let mut origins = Vec::new();
        for (n, access) in accesses.iter().enumerate() {
            let kind = match access.kind {
                AccessKind::Allocate => EntryKind::Allocate,
                AccessKind::Read => EntryKind::Read,
                AccessKind::Write => EntryKind::Write,
            };
            let key = match access.array {
                _ if !access.valid => 0,
                None => key_of(access.address),
                Some(elements) => {
                    let next = segments.len() as u128;
                    let segment = *segments.entry(elements).or_insert(next);
                    let at = base.saturating_add(segment.saturating_mul(stride));
                    if segment == next {
                        for (k, &element) in elements.iter().enumerate() {
                            check.entries.push(Entry {
                                valid: true,
                                key: at.saturating_add(k as u128),
                                value: element,
                                kind: EntryKind::Initialise,
                            });
                            origins.push(None);
                        }
                    }
                    at.saturating_add(key_of(access.address))
                }
            };
            check.entries.push(Entry {
                valid: access.valid,
                key,
                value: if access.valid {
                    access.value
                } else {
                    Fr::zero()
                },
                kind,
            });
            origins.push(Some(n));
        }
        (check, origins)
    }

    /// The valid entries' times, sorted by address, then time.
    fn sorted(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].valid)
            .collect();
        order.sort_by_key(|&i| (self.entries[i].key, i));
        order
    }

    /// The number of valid entries: the sorted list's length.
    pub fn valid_entries(&self) -> usize {
        self.entries.iter().filter(|e| e.valid).count()
    }

    /// Checks the memory natively, as the constraints do: every address
    /// started once, by its first access; every read sees the value set
    /// last.
    pub fn check(&self) -> Result<(), MemoryError> {
        let mut last: Option<(u128, Option<Fr>)> = None;
        for i in self.sorted() {
            let e = &self.entries[i];
            let same = last.is_some_and(|(key, _)| key == e.key);
            if !same && !e.kind.starts() {
                return Err(MemoryError::NotStarted {
                    entry: i,
                    kind: e.kind,
                    key: e.key,
                });
            }
            if same && e.kind.starts() {
                return Err(MemoryError::StartedTwice {
                    entry: i,
                    kind: e.kind,
                    key: e.key,
                });
            }
            let set = if same {
                last.and_then(|(_, v)| v)
            } else {
                None
            };
            if e.kind == EntryKind::Read && set != Some(e.value) {
                return Err(MemoryError::Stale {
                    entry: i,
                    key: e.key,
                    read: show(e.value),
                    set: set.map_or("nothing".to_string(), show),
                });
            }
            let set = if e.kind.sets() { Some(e.value) } else { set };
            last = Some((e.key, set));
        }
        Ok(())
    }

    /// The width of the address range check.
    pub fn key_bits(&self) -> u32 {
        width(self.entries.iter().map(|e| e.key).max().unwrap_or(0))
    }

    /// The width of the time range check.
    pub fn time_bits(&self) -> u32 {
        width(self.entries.len() as u128)
    }

    /// The public inputs after the challenges, in the order the system
    /// declares them: each execution-ordered tuple (valid, address, value,
    /// kind code, time), then each sorted tuple (address, value, start,
    /// set, time).
    pub fn public_tuples(&self) -> Vec<Fr> {
        let mut public = Vec::with_capacity(5 * self.entries.len() + 5 * self.valid_entries());
        for (i, e) in self.entries.iter().enumerate() {
            public.extend([
                Fr::from(u64::from(e.valid)),
                Fr::from(e.key),
                e.value,
                Fr::from(e.kind.code()),
                Fr::from(i as u64),
            ]);
        }
        for i in self.sorted() {
            let e = &self.entries[i];
            public.extend([
                Fr::from(e.key),
                e.value,
                Fr::from(u64::from(e.kind.starts())),
                Fr::from(u64::from(e.kind.sets())),
                Fr::from(i as u64),
            ]);
        }
        public
    }

    /// The challenges `tau, g1, g2, g3` (Fiat-Shamir): SHA-256 of every
    /// other public input, both lists, with a counter, reduced into the
    /// field. The sorted list is fixed before the challenges are drawn, so
    /// the grand products agree at them only if the lists are permutations
    /// of each other (but with probability about `n / p`).
    pub fn challenges(&self) -> [Fr; 4] {
        challenges_of(&self.public_tuples())
    }

    /// Whether a memory check's public inputs carry the challenges their
    /// other inputs give: what a verifier checks besides the proof.
    pub fn challenges_bound(public: &[Fr]) -> bool {
        public.len() >= 4 && public[..4] == challenges_of(&public[4..])
    }

    /// The constraint system of the check and its assignment: public inputs
    /// the challenges and the tuples of both lists ([`Self::public_tuples`]),
    /// witnesses what the checks need. The system's shape depends only on the number of
    /// entries, of valid entries, and the two widths.
    pub fn system(&self) -> (ConstraintSystem, Assignment) {
        let mut b = Builder::default();
        let challenges = self.challenges();
        let [tau, g1, g2, g3] =
            ["tau", "g1", "g2", "g3"].map(|name| b.public(name.to_string(), Fr::zero()));
        for (k, &c) in challenges.iter().enumerate() {
            b.assignment.public[k] = c;
        }
        let fingerprint = |b: &mut Builder, key: &Lc, value: &Lc, code: &Lc, time: &Lc, n: &str| {
            let v = b.product(&Lc::var(g1), value, &format!("{n}.g1v"));
            let c = b.product(&Lc::var(g2), code, &format!("{n}.g2c"));
            let t = b.product(&Lc::var(g3), time, &format!("{n}.g3t"));
            // tau - (a + g1 v + g2 code + g3 t)
            Lc::var(tau).minus(&key.plus(&v).plus(&c).plus(&t))
        };
        // The execution-ordered list.
        let mut exec_product: Option<Lc> = None;
        for (i, e) in self.entries.iter().enumerate() {
            let n = format!("e{i}");
            let valid = Lc::var(b.public(format!("{n}.valid"), Fr::from(u64::from(e.valid))));
            let key = Lc::var(b.public(format!("{n}.addr"), Fr::from(e.key)));
            let value = Lc::var(b.public(format!("{n}.value"), e.value));
            let code = Lc::var(b.public(format!("{n}.kind"), Fr::from(e.kind.code())));
            let time = Lc::var(b.public(format!("{n}.time"), Fr::from(i as u64)));
            let root = fingerprint(&mut b, &key, &value, &code, &time, &n);
            // valid ? root : 1
            let masked = b.product(&valid, &root.plus_constant(-Fr::one()), &format!("{n}.x"));
            let factor = masked.plus_constant(Fr::one());
            exec_product = Some(match exec_product {
                None => factor,
                Some(p) => b.product(&p, &factor, &format!("{n}.p")),
            });
        }
        // The sorted list.
        let key_bits = self.key_bits();
        let time_bits = self.time_bits();
        let mut sorted_product: Option<Lc> = None;
        let mut previous: Option<(Lc, Lc, Lc, Lc)> = None; // key, value, time, defined
        for (j, i) in self.sorted().into_iter().enumerate() {
            let e = &self.entries[i];
            let n = format!("s{j}");
            let key = Lc::var(b.public(format!("{n}.addr"), Fr::from(e.key)));
            let value = Lc::var(b.public(format!("{n}.value"), e.value));
            let start = b.public_boolean(format!("{n}.start"), e.kind.starts());
            let set = b.public_boolean(format!("{n}.set"), e.kind.sets());
            let time = Lc::var(b.public(format!("{n}.time"), Fr::from(i as u64)));
            // read = (1 - start)(1 - set)
            let initialises = b.product(&start, &set, &format!("{n}.init"));
            let read = Lc::from_u64(1).minus(&start).minus(&set).plus(&initialises);
            let defined = match &previous {
                None => {
                    // The first access starts its address.
                    b.enforce(start.clone(), Lc::from_u64(1), Lc::from_u64(1));
                    set.clone()
                }
                Some((key0, value0, time0, defined0)) => {
                    let same_value = b.eval(&key) == b.eval(key0);
                    let s = b.boolean(format!("{n}.same"), same_value);
                    let not_s = Lc::from_u64(1).minus(&s);
                    let step = key.minus(key0);
                    b.enforce(s.clone(), step.clone(), Lc::zero());
                    let gap =
                        b.product(&not_s, &step.plus_constant(-Fr::one()), &format!("{n}.gap"));
                    b.decompose(&gap, key_bits, &format!("{n}.gap"));
                    let later = time.minus(time0).plus_constant(-Fr::one());
                    let later = b.product(&s, &later, &format!("{n}.later"));
                    b.decompose(&later, time_bits, &format!("{n}.later"));
                    b.enforce(not_s.clone(), Lc::from_u64(1).minus(&start), Lc::zero());
                    b.enforce(s.clone(), start.clone(), Lc::zero());
                    b.enforce(read.clone(), value.minus(value0), Lc::zero());
                    b.enforce(read.clone(), Lc::from_u64(1).minus(defined0), Lc::zero());
                    // defined = set or (same and defined before)
                    let kept = b.product(&s, defined0, &format!("{n}.kept"));
                    let both = b.product(&set, &kept, &format!("{n}.both"));
                    set.plus(&kept).minus(&both)
                }
            };
            let code = start.plus(&set.scale(Fr::from(2u64)));
            let root = fingerprint(&mut b, &key, &value, &code, &time, &n);
            sorted_product = Some(match sorted_product {
                None => root,
                Some(p) => b.product(&p, &root, &format!("{n}.p")),
            });
            previous = Some((key, value, time, defined));
        }
        let exec_product = exec_product.unwrap_or_else(|| Lc::from_u64(1));
        let sorted_product = sorted_product.unwrap_or_else(|| Lc::from_u64(1));
        b.enforce(exec_product, Lc::from_u64(1), sorted_product);
        b.cs.num_inputs = b.cs.public_names.len();
        (b.cs, b.assignment)
    }
}

/// SHA-256 of the public inputs, then of that seed with a counter `k`,
/// reduced into the field: challenge `k`.
fn challenges_of(public: &[Fr]) -> [Fr; 4] {
    let mut hasher = Sha256::new();
    for x in public {
        hasher.update(x.into_bigint().to_bytes_le());
    }
    let seed = hasher.finalize();
    std::array::from_fn(|k| {
        let digest = Sha256::new()
            .chain_update(seed)
            .chain_update([k as u8])
            .finalize();
        Fr::from_le_bytes_mod_order(&digest)
    })
}

/// Builds the check's system and its assignment together.
#[derive(Default)]
struct Builder {
    cs: ConstraintSystem,
    assignment: Assignment,
}

impl Builder {
    fn public(&mut self, name: String, value: Fr) -> Var {
        self.cs.public_names.push(name);
        self.assignment.public.push(value);
        Var::Public(self.cs.public_names.len() as u32 - 1)
    }

    fn witness(&mut self, name: String, value: Fr) -> Var {
        self.cs.witness_names.push(name);
        self.assignment.witness.push(value);
        Var::Witness(self.cs.witness_names.len() as u32 - 1)
    }

    fn enforce(&mut self, a: Lc, b: Lc, c: Lc) {
        self.cs.constraints.push(Constraint {
            a,
            b,
            c,
            origin: Origin::MemoryCheck,
        });
    }

    fn eval(&self, lc: &Lc) -> Fr {
        lc.evaluate(&self.assignment)
    }

    fn public_boolean(&mut self, name: String, value: bool) -> Lc {
        let b = Lc::var(self.public(name, Fr::from(u64::from(value))));
        self.enforce(b.clone(), b.clone(), b.clone());
        b
    }

    fn boolean(&mut self, name: String, value: bool) -> Lc {
        let b = Lc::var(self.witness(name, Fr::from(u64::from(value))));
        self.enforce(b.clone(), b.clone(), b.clone());
        b
    }

    fn product(&mut self, a: &Lc, b: &Lc, name: &str) -> Lc {
        let value = self.eval(a) * self.eval(b);
        let m = Lc::var(self.witness(name.to_string(), value));
        self.enforce(a.clone(), b.clone(), m.clone());
        m
    }

    /// `t` in `k` bits: `k` booleans and one linear constraint.
    fn decompose(&mut self, t: &Lc, k: u32, name: &str) {
        let value = self.eval(t).into_bigint();
        let bits: Vec<Lc> = (0..k)
            .map(|i| self.boolean(format!("{name}.b{i}"), value.get_bit(i as usize)))
            .collect();
        self.enforce(recompose(&bits), Lc::from_u64(1), t.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: u128, value: u64, kind: EntryKind) -> Entry {
        Entry {
            valid: true,
            key,
            value: Fr::from(value),
            kind,
        }
    }

    fn satisfied(check: &MemoryCheck) -> bool {
        let (cs, assignment) = check.system();
        cs.first_unsatisfied(&assignment).is_none()
    }

    fn honest() -> MemoryCheck {
        use EntryKind::*;
        MemoryCheck {
            entries: vec![
                entry(7, 0, Allocate),
                entry(3, 0, Allocate),
                entry(7, 5, Write),
                entry(3, 9, Write),
                entry(7, 5, Read),
                Entry {
                    valid: false,
                    ..entry(3, 1, Read)
                },
                entry(7, 6, Write),
                entry(3, 9, Read),
                entry(7, 6, Read),
                entry(1 << 90, 4, Initialise),
                entry(1 << 90, 4, Read),
            ],
        }
    }

    #[test]
    fn challenges_are_bound_to_both_lists() {
        let check = honest();
        let (_, assignment) = check.system();
        let public = &assignment.public;
        assert_eq!(public[..4], check.challenges());
        assert_eq!(public[4..], check.public_tuples()[..]);
        assert!(MemoryCheck::challenges_bound(public));
        // Any other sorted list (here one value changed) draws other
        // challenges: a prover cannot pick it after seeing them.
        let mut forged = public.clone();
        let last = forged.len() - 4;
        forged[last] += Fr::one();
        assert!(!MemoryCheck::challenges_bound(&forged));
    }

    #[test]
    fn honest_memory_is_satisfied() {
        let check = honest();
        assert_eq!(check.check(), Ok(()));
        assert!(satisfied(&check));
        let (cs, _) = check.system();
        // 11 entries, 10 valid; W = 91, T = 4.
        assert_eq!((check.key_bits(), check.time_bits()), (91, 4));
        assert!(cs.num_constraints() > 10 * (91 + 4));
    }

    #[test]
    fn a_stale_read_is_unsatisfied() {
        let mut check = honest();
        check.entries[4].value = Fr::from(6u64);
        assert!(matches!(
            check.check(),
            Err(MemoryError::Stale { entry: 4, .. })
        ));
        assert!(!satisfied(&check));
    }

    #[test]
    fn a_read_of_a_cell_never_written_is_unsatisfied() {
        use EntryKind::*;
        let check = MemoryCheck {
            entries: vec![entry(2, 0, Allocate), entry(2, 0, Read)],
        };
        assert!(matches!(
            check.check(),
            Err(MemoryError::Stale { entry: 1, .. })
        ));
        assert!(!satisfied(&check));
    }

    #[test]
    fn a_cell_allocated_twice_is_unsatisfied() {
        let mut check = honest();
        check.entries[1].key = 7;
        check.entries[3].key = 7;
        check.entries[7].key = 7;
        assert!(matches!(
            check.check(),
            Err(MemoryError::StartedTwice { .. })
        ));
        assert!(!satisfied(&check));
    }

    #[test]
    fn an_access_before_allocation_is_unsatisfied() {
        let mut check = honest();
        check.entries.swap(0, 2);
        assert!(matches!(
            check.check(),
            Err(MemoryError::NotStarted { entry: 0, .. })
        ));
        assert!(!satisfied(&check));
    }

    #[test]
    fn an_invalid_access_is_not_checked() {
        let mut check = honest();
        check.entries[5].value = Fr::from(1234u64);
        assert_eq!(check.check(), Ok(()));
        assert!(satisfied(&check));
    }
}
