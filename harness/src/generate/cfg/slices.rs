//! Slices and signed integers: operations off by default
//! ([`CfgConfig::slices`], [`CfgConfig::signed`]) so that a seed keeps the
//! program it always gave.
//!
//! A slice lives within one operation: the generator knows its length at
//! every step, so reads stay below it (unless drawn risky) and pops never
//! meet an empty slice.

use std::sync::Arc;

use super::*;

impl FnGen<'_> {
    /// Signed arithmetic on `i8` or `i32`: `u32` operands narrowed so that
    /// their casts fit and, unless drawn risky, so that the operation cannot
    /// overflow; results go back to `Field` (a negative one is p - |x|) or,
    /// for `lt`, to the `u1` pool.
    pub(super) fn signed_op(&mut self) {
        let width: u16 = if self.rng.chance(0.5) { 8 } else { 32 };
        let ty = Type::Signed(u32::from(width));
        let risky = self.risky();
        let op = self.rng.below(5);
        // Below 2^(width-2), a sum or a difference stays below the sign bit;
        // a product needs each factor below half of that.
        let narrow = if op == 2 && !risky {
            (width - 2) / 2
        } else {
            width - 2
        };
        let a = self.get(Kind::U32);
        let a = self.truncate(a, Kind::U32, narrow);
        let b = self.get(Kind::U32);
        let b = self.truncate(b, Kind::U32, narrow);
        self.cost += 2;
        let sa = self.cursor().cast(a.value, ty.clone());
        let sb = self.cursor().cast(b.value, ty.clone());
        let value = match op {
            0 => self.bin(BinaryOp::Add, sa, sb),
            1 => self.bin(BinaryOp::Sub, sa, sb),
            2 => self.bin(BinaryOp::Mul, sa, sb),
            3 => {
                // Truncating division of a possibly negative dividend.
                let difference = self.bin(BinaryOp::Sub, sa, sb);
                let divisor = self.rng.range(1, 9);
                let divisor = self.func.dfg.constant_u128(u128::from(divisor), ty);
                self.bin(BinaryOp::Div, difference, divisor)
            }
            _ => {
                let difference = self.bin(BinaryOp::Sub, sa, sb);
                let value = self.bin(BinaryOp::Lt, difference, sa);
                return self.push(Kind::Bool, value, 1);
            }
        };
        self.cost += 1;
        if op == 0 && self.rng.chance(0.3) {
            // A sum of two non-negative values is non-negative.
            let value = self.cursor().cast(value, Type::U32);
            self.push(Kind::U32, value, a.bits.max(b.bits) + 1);
        } else if risky && op == 1 {
            // A negative difference does not fit `u32`: the cast traps.
            let value = self.cursor().cast(value, Type::U32);
            self.push(Kind::U32, value, 32);
        } else {
            let value = self.cursor().cast(value, Type::Field);
            self.push(Kind::Field, value, FIELD_BITS);
        }
    }

    /// A slice of `u32` (made by `make_array` or `as_vector` of an array) or
    /// of `&mut Field`, changed by one or two vector intrinsics, then read
    /// at an index below its length (past it when risky); an entry of a
    /// slice of references is loaded through.
    pub(super) fn slice_op(&mut self) {
        let references = self.config.memory > 0 && self.rng.chance(0.3);
        let (kind, entry_ty) = if references {
            (Kind::RefField, Type::reference(Type::Field))
        } else {
            (Kind::U32, Type::U32)
        };
        let slice_ty = Type::Slice(Arc::from([entry_ty.clone()]));
        let (mut len, mut slice) = if !references && self.rng.chance(0.4) {
            let array = self.get(Kind::ArrU32).value;
            let results = self.call_builtin(
                Builtin::AsSlice,
                vec![array],
                &[Type::U32, slice_ty.clone()],
            );
            (U32_ARRAY_LEN, results[1])
        } else {
            let len = self.rng.range(1, 3);
            let entries = (0..len).map(|_| self.get_passable(kind).value).collect();
            self.cost += 1;
            (len, self.cursor().make_array(entries, slice_ty.clone()))
        };
        for _ in 0..self.rng.range(1, 2) {
            let length = self.func.dfg.constant_u128(u128::from(len), Type::U32);
            let grown = [Type::U32, slice_ty.clone()];
            let shrunk = [Type::U32, slice_ty.clone(), entry_ty.clone()];
            match self.rng.below(5) {
                0 | 1 => {
                    let entry = self.get_passable(kind).value;
                    let builtin = if self.rng.chance(0.5) {
                        Builtin::SlicePushBack
                    } else {
                        Builtin::SlicePushFront
                    };
                    slice = self.call_builtin(builtin, vec![length, slice, entry], &grown)[1];
                    len += 1;
                }
                2 => {
                    let index = self.rng.range(0, len);
                    let index = self.func.dfg.constant_u128(u128::from(index), Type::U32);
                    let entry = self.get_passable(kind).value;
                    let args = vec![length, slice, index, entry];
                    slice = self.call_builtin(Builtin::SliceInsert, args, &grown)[1];
                    len += 1;
                }
                _ if len > 1 => {
                    let (builtin, args) = if self.rng.chance(0.5) {
                        (Builtin::SlicePopBack, vec![length, slice])
                    } else {
                        let index = self.rng.below(len);
                        let index = self.func.dfg.constant_u128(u128::from(index), Type::U32);
                        (Builtin::SliceRemove, vec![length, slice, index])
                    };
                    let results = self.call_builtin(builtin, args, &shrunk);
                    slice = results[1];
                    len -= 1;
                    self.push_entry(kind, results[2]);
                }
                _ => {}
            }
        }
        // A risky read is rarer than other risky operations: an operation
        // here has several places to draw from, and reads past the length
        // are one kind of trap among many.
        let index = if self.risky() && self.rng.chance(0.25) {
            len
        } else {
            self.rng.below(len)
        };
        let index = self.func.dfg.constant_u128(u128::from(index), Type::U32);
        self.cost += 1;
        let entry = self.cursor().array_get(slice, index, entry_ty);
        self.push_entry(kind, entry);
    }

    /// An entry taken out of a slice: a `u32` of at most [`MEM_BITS`] bits,
    /// or a reference whose cell is loaded.
    fn push_entry(&mut self, kind: Kind, entry: Value) {
        if kind == Kind::RefField {
            self.cost += 1;
            let value = self.cursor().load(entry);
            self.push(Kind::Field, value, FIELD_BITS);
        } else {
            self.push(kind, entry, MEM_BITS);
        }
    }

    pub(super) fn call_builtin(
        &mut self,
        builtin: Builtin,
        args: Vec<Value>,
        results: &[Type],
    ) -> Vec<Value> {
        self.cost += 1;
        let inst = self.cursor().call_builtin(builtin, args, results);
        self.func.dfg.inst_results(inst).to_vec()
    }
}
