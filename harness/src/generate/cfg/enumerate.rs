//! `vector_enumerate` ([`CfgConfig::enumerate`]): slices the generator
//! builds, enumerated by closures that are generated functions of their
//! own, numbered after the others.
//!
//! A closure's signature ([`ClosureSig`]) fixes the kind of the entries and
//! the operands forwarded to it; its parameters are some of the operands a
//! call offers (length, slice, forwarded operands, iteration index, user
//! index), bound to them by Noir's rule, each parameter taking the next
//! offered operand of its type ([`Enumerate::bind`]). Pruned parameters are
//! drawn on purpose: a closure keeping one `u32` but not the length gets
//! the length in it, not the iteration index, and its body knows it.
//!
//! The body reads its entry (at the iteration index when a parameter takes
//! it, else at 0: every slice enumerated has an entry), adds it into every
//! cell at hand (cells forwarded to it, and the entry itself in a slice of
//! references), runs a region of the usual operations, and returns an
//! entry computed from the one it read, or any value of the entry's kind.
//! Its caller cannot see these stores: `vector_enumerate` is a call through
//! the function values it is given. The caller then reads the slice the
//! call returns and loads the cells it forwarded.
//!
//! A closure runs only through `vector_enumerate` calls the generator
//! made, so what it assumes of its parameters holds at each of them: the
//! length is at most [`MAX_ENTRIES`], the iteration index is below it,
//! integers forwarded or returned have at most [`MEM_BITS`] bits, and
//! every cell has been stored to.
//!
//! Generated functions carry no runtime, so a caller counts as constrained
//! and runs the first closure it names; the second, as in Noir's calls,
//! has the same signature (the same function, or another of that
//! signature) and is only a value.

use std::sync::Arc;

use kildall_ir::Enumerate;

use super::*;

/// The most closures a module gets.
const CLOSURES: usize = 4;
/// The most blocks of a closure's body.
pub(super) const CLOSURE_BLOCKS: usize = 4;
/// A closure's fuel is the configuration's divided by this: it runs once
/// per entry of every slice enumerated with it.
pub(super) const CLOSURE_FUEL_DIVISOR: u64 = 64;
/// The longest slice enumerated: `as_vector` of a `[u32; 4]`, one entry
/// pushed.
const MAX_ENTRIES: u64 = U32_ARRAY_LEN + 1;
/// Fuel enough for the operands of a `vector_enumerate` call and the reads
/// after it.
const ENUMERATE_OPERANDS: u64 = 2 * OP_COST;

/// The signature of a closure of `vector_enumerate`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct ClosureSig {
    /// The kind of the slice's entries and of what the closure returns:
    /// `u32`, `Field` or `&mut Field`.
    pub(super) entry: Kind,
    /// The kinds of the operands forwarded to the closure unchanged.
    forwarded: Vec<Kind>,
    /// The positions, among the operands offered ([`ClosureSig::offered`]),
    /// of those the closure has a parameter of their type for, ascending;
    /// the slice always.
    kept: Vec<usize>,
}

impl ClosureSig {
    fn slice_type(&self) -> Type {
        Type::Slice(Arc::from([self.entry.ty()]))
    }

    /// The types of the operands a call offers the closure: the length,
    /// the slice, the forwarded operands, the iteration index and the
    /// user index.
    fn offered(&self) -> Vec<Type> {
        let mut offered = vec![Type::U32, self.slice_type()];
        offered.extend(self.forwarded.iter().map(|kind| kind.ty()));
        offered.extend([Type::U32, Type::U32]);
        offered
    }

    /// The position of the iteration index among the offered operands.
    fn iteration(&self) -> usize {
        2 + self.forwarded.len()
    }
}

/// Two to [`CLOSURES`] closure signatures, some repeated.
pub(super) fn closure_signatures(rng: &mut Rng, config: &CfgConfig) -> Vec<ClosureSig> {
    let mut entries = vec![Kind::U32, Kind::Field];
    let mut forwardable = vec![Kind::U32, Kind::Field];
    if config.memory > 0 {
        entries.push(Kind::RefField);
        forwardable.extend([Kind::RefField, Kind::RefField, Kind::RefU32]);
    }
    let count = 2 + rng.index(CLOSURES - 1);
    let mut sigs: Vec<ClosureSig> = Vec::with_capacity(count);
    for _ in 0..count {
        let repeat = rng.chance(0.3);
        if let (true, Some(last)) = (repeat, sigs.last()) {
            sigs.push(last.clone());
            continue;
        }
        let entry = entries[rng.index(entries.len())];
        let forwarded: Vec<Kind> = (0..rng.below(3))
            .map(|_| forwardable[rng.index(forwardable.len())])
            .collect();
        let iteration = 2 + forwarded.len();
        let kept = (0..iteration + 2)
            .filter(|&operand| match operand {
                1 => true,
                _ if operand == iteration => rng.chance(0.85),
                _ => rng.chance(0.6),
            })
            .collect();
        sigs.push(ClosureSig {
            entry,
            forwarded,
            kept,
        });
    }
    sigs
}

impl FnGen<'_> {
    /// The body of a closure of signature `sig`: its entry read and added
    /// into the cells at hand, a region of about `quota` blocks, an entry
    /// returned.
    pub(super) fn closure_body(&mut self, quota: usize, sig: &ClosureSig) {
        let entry_block = self.new_block();
        self.block = entry_block;
        let offered = sig.offered();
        let types: Vec<Type> = sig.kept.iter().map(|&o| offered[o].clone()).collect();
        let binding =
            Enumerate::bind(&offered, &types).expect("a closure's parameters are offered operands");
        let iteration = sig.iteration();
        let length_bits = bits_of(u128::from(MAX_ENTRIES));
        let (mut slice, mut index) = (None, None);
        let mut cells = Vec::new();
        for (ty, operand) in types.iter().zip(binding) {
            let param = self.func.dfg.append_block_param(entry_block, ty.clone());
            match operand {
                0 => self.push(Kind::U32, param, length_bits),
                1 => slice = Some(param),
                _ if operand == iteration => {
                    index = Some(param);
                    self.push(Kind::U32, param, length_bits);
                }
                _ if operand == iteration + 1 => self.push(Kind::U32, param, MEM_BITS),
                _ => {
                    let kind = sig.forwarded[operand - 2];
                    if matches!(kind, Kind::RefField | Kind::RefU32) {
                        cells.push((kind, param));
                    }
                    let bits = if kind.is_int() {
                        MEM_BITS
                    } else {
                        kind.width()
                    };
                    self.push(kind, param, bits);
                }
            }
        }
        let slice = slice.expect("every closure takes the slice");
        let index = index.unwrap_or_else(|| self.konst(0, Kind::U32).value);
        self.cost += 1;
        let entry = self.cursor().array_get(slice, index, sig.entry.ty());
        let read = self.read_entry(sig.entry, entry);
        if sig.entry == Kind::RefField {
            cells.push((Kind::RefField, entry));
        }
        for (kind, cell) in cells {
            self.accumulate(kind, cell, read);
        }
        self.region(0, quota.saturating_sub(1));
        if !self.terminated {
            self.closure_return(sig.entry, entry, read);
        }
    }

    /// Pushes an entry of kind `kind` read from a slice; returns the number
    /// it holds (loaded, for a reference) and that number's kind.
    fn read_entry(&mut self, kind: Kind, entry: Value) -> (Kind, Item) {
        let bits = if kind == Kind::U32 {
            MEM_BITS
        } else {
            FIELD_BITS
        };
        self.push(kind, entry, bits);
        if kind != Kind::RefField {
            return (kind, Item { value: entry, bits });
        }
        self.cost += 1;
        let value = self.cursor().load(entry);
        self.push(Kind::Field, value, FIELD_BITS);
        (
            Kind::Field,
            Item {
                value,
                bits: FIELD_BITS,
            },
        )
    }

    /// Adds `read` into the `Field` cell `cell` (a `u32` cell: exclusive
    /// or, which keeps it within [`MEM_BITS`]).
    fn accumulate(&mut self, kind: Kind, cell: Value, (read_kind, read): (Kind, Item)) {
        self.cost += 1;
        let old = self.cursor().load(cell);
        let new = if kind == Kind::RefField {
            let addend = if read_kind == Kind::Field {
                read.value
            } else {
                self.cost += 1;
                self.cursor().cast(read.value, Type::Field)
            };
            let new = self.bin(BinaryOp::Add, old, addend);
            self.push(Kind::Field, new, FIELD_BITS);
            new
        } else {
            let addend = if read_kind == Kind::U32 {
                read
            } else {
                self.get_small(Kind::U32, MEM_BITS)
            };
            let new = self.bin(BinaryOp::Xor, old, addend.value);
            self.push(Kind::U32, new, MEM_BITS);
            new
        };
        self.cost += 1;
        self.cursor().store(new, cell);
    }

    /// Returns an entry of kind `kind`: usually one computed from `read`,
    /// the number the closure read (or, for references, the entry itself),
    /// else any value of that kind.
    fn closure_return(&mut self, kind: Kind, entry: Value, (_, read): (Kind, Item)) {
        if self.rng.chance(0.4) {
            return self.ret(&[kind]);
        }
        let value = match kind {
            Kind::U32 => {
                let other = self.get_small(Kind::U32, MEM_BITS);
                self.bin(BinaryOp::Xor, read.value, other.value)
            }
            Kind::Field => {
                let factor = self.random_const(Kind::Field);
                let scaled = self.bin(BinaryOp::Mul, read.value, factor.value);
                let other = self.get(Kind::Field);
                self.bin(BinaryOp::Add, scaled, other.value)
            }
            _ => entry,
        };
        self.cost += 1;
        self.cursor().ret(vec![value]);
        self.terminated = true;
    }

    /// A `vector_enumerate` call on a slice built here, naming a closure
    /// and a second one of its signature; an entry of the slice it returns
    /// is read (and sometimes stored), and the cells forwarded to it are
    /// loaded back.
    pub(super) fn enumerate_op(&mut self) {
        let first = self.sigs.len();
        let (lo, hi) = ((self.this + 1).max(first), first + self.closures.len());
        if lo >= hi {
            return self.arithmetic();
        }
        let closure = lo + self.rng.index(hi - lo);
        let sig = self.closures[closure - first].clone();
        // `None`: the slice is `as_vector` of a `[u32; 4]`.
        let from_array = sig.entry == Kind::U32 && self.config.arrays > 0 && self.rng.chance(0.4);
        let made = (!from_array).then(|| self.rng.range(1, 3));
        let pushed = self.rng.chance(0.3);
        let len = made.unwrap_or(U32_ARRAY_LEN) + u64::from(pushed);
        let need = len
            .saturating_mul(self.costs[closure].saturating_add(1))
            .saturating_add(1 + ENUMERATE_OPERANDS);
        if need > self.fair_room(4, self.remaining) {
            return self.arithmetic();
        }
        let (length, slice) = self.enumerated_slice(&sig, made, pushed);
        let mut args = vec![length, slice];
        let mut cells = Vec::new();
        for &kind in &sig.forwarded {
            let item = self.get_passable(kind);
            if matches!(kind, Kind::RefField | Kind::RefU32) {
                cells.push((kind, item.value));
            }
            args.push(item.value);
        }
        let twins: Vec<usize> = (lo..hi)
            .filter(|&c| self.closures[c - first] == sig)
            .collect();
        let twin = twins[self.rng.index(twins.len())];
        for function in [closure, twin] {
            let id = FuncId::from_u32(function as u32);
            args.push(self.func.dfg.function_ref(id));
        }
        args.push(self.get_small(Kind::U32, MEM_BITS).value);
        args.push(self.get(Kind::Bool).value);
        let results = self.call_builtin(
            Builtin::SliceEnumerate,
            args,
            &[Type::U32, sig.slice_type()],
        );
        self.cost += len * (self.costs[closure] + 1);
        self.push(Kind::U32, results[0], bits_of(u128::from(len)));
        self.use_enumerated(sig.entry, results[1], len);
        for (kind, cell) in cells {
            self.cost += 1;
            let value = self.cursor().load(cell);
            let (kind, bits) = if kind == Kind::RefField {
                (Kind::Field, FIELD_BITS)
            } else {
                (Kind::U32, MEM_BITS)
            };
            self.push(kind, value, bits);
        }
    }

    /// A slice of the closure's kind: `as_vector` of a `[u32; 4]` when
    /// `made` is `None`, else `make_array` of `made` entries; one more entry
    /// pushed when `pushed`. Returns its length and the slice.
    fn enumerated_slice(
        &mut self,
        sig: &ClosureSig,
        made: Option<u64>,
        pushed: bool,
    ) -> (Value, Value) {
        let slice_ty = sig.slice_type();
        let grown = [Type::U32, slice_ty.clone()];
        let (length, slice) = if let Some(made) = made {
            let entries = (0..made)
                .map(|_| self.get_passable(sig.entry).value)
                .collect();
            self.cost += 1;
            let slice = self.cursor().make_array(entries, slice_ty);
            (self.konst(u128::from(made), Kind::U32).value, slice)
        } else {
            let array = self.get(Kind::ArrU32).value;
            let results = self.call_builtin(Builtin::AsSlice, vec![array], &grown);
            (results[0], results[1])
        };
        if !pushed {
            return (length, slice);
        }
        let entry = self.get_passable(sig.entry).value;
        let args = vec![length, slice, entry];
        let results = self.call_builtin(Builtin::SlicePushBack, args, &grown);
        (results[0], results[1])
    }

    /// Reads an entry of `slice`, the result of an enumeration of `len`
    /// entries, and stores the number it holds into a cell half the time.
    fn use_enumerated(&mut self, kind: Kind, slice: Value, len: u64) {
        let index = self.index(len);
        self.cost += 1;
        let entry = self.cursor().array_get(slice, index, kind.ty());
        let (kind, read) = self.read_entry(kind, entry);
        if self.config.memory > 0 && self.rng.chance(0.5) {
            let cell_kind = if kind == Kind::U32 {
                Kind::RefU32
            } else {
                Kind::RefField
            };
            let cell = self.get(cell_kind).value;
            self.cost += 1;
            self.cursor().store(read.value, cell);
        }
    }
}
