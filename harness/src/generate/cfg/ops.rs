//! Straight-line operations: arithmetic that traps only when asked to,
//! memory, references in references and arrays, predication, checks,
//! calls and prints.

use super::*;
use kildall_ir::{AssertMessage, Callee, InstructionData};

impl FnGen<'_> {
    pub(super) fn op(&mut self) {
        let c = self.config;
        let weights = [
            c.arithmetic,
            c.memory,
            c.nested_references,
            c.reference_arrays,
            c.arrays,
            c.predication,
            c.constrains,
            c.calls,
            c.prints,
            c.checks,
            c.signed,
            c.slices,
            c.immutable_references,
            c.enumerate,
        ];
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        if total == 0 {
            return;
        }
        let mut roll = self.rng.below(total);
        let mut choice = 0;
        for (i, &w) in weights.iter().enumerate() {
            if roll < u64::from(w) {
                choice = i;
                break;
            }
            roll -= u64::from(w);
        }
        match choice {
            0 => self.arithmetic(),
            1 => self.memory_op(),
            2 => self.nested_reference_op(),
            3 => self.reference_array_op(),
            4 => self.array_op(),
            5 => self.predicated_op(),
            6 => self.constrain_op(),
            7 => self.call_op(),
            8 => self.print_op(),
            9 => self.check_op(),
            10 => self.signed_op(),
            11 => self.slice_op(),
            12 => self.immutable_reference_op(),
            _ => self.enumerate_op(),
        }
    }

    pub(super) fn risky(&mut self) -> bool {
        self.rng.chance(self.config.trap)
    }

    pub(super) fn arithmetic(&mut self) {
        let kind = match self.rng.below(20) {
            0..=9 => Kind::U32,
            10..=12 => Kind::U64,
            13..=17 => Kind::Field,
            _ => Kind::Bool,
        };
        match kind {
            Kind::Bool => self.bool_op(),
            Kind::Field => self.field_op(),
            _ => self.int_op(kind),
        }
    }

    pub(super) fn bool_op(&mut self) {
        let a = self.get(Kind::Bool);
        let value = match self.rng.below(4) {
            0 => {
                self.cost += 1;
                self.cursor().not(a.value)
            }
            n => {
                let b = self.get(Kind::Bool);
                let op = [BinaryOp::And, BinaryOp::Or, BinaryOp::Xor][n as usize - 1];
                self.bin(op, a.value, b.value)
            }
        };
        self.push(Kind::Bool, value, 1);
    }

    pub(super) fn field_op(&mut self) {
        let a = self.get(Kind::Field);
        let b = self.get(Kind::Field);
        match self.rng.below(8) {
            0..=2 => {
                let value = self.bin(BinaryOp::Add, a.value, b.value);
                self.push(Kind::Field, value, (a.bits.max(b.bits) + 1).min(FIELD_BITS));
            }
            3 => {
                let value = self.bin(BinaryOp::Sub, a.value, b.value);
                self.push(Kind::Field, value, FIELD_BITS);
            }
            4 | 5 => {
                let value = self.bin(BinaryOp::Mul, a.value, b.value);
                self.push(Kind::Field, value, (a.bits + b.bits).min(FIELD_BITS));
            }
            6 => {
                let divisor = {
                    let n = self.rng.range(1, 9);
                    self.konst(u128::from(n), Kind::Field)
                };
                let value = self.bin(BinaryOp::Div, a.value, divisor.value);
                self.push(Kind::Field, value, FIELD_BITS);
            }
            _ => {
                // Back to an integer: checked cast, safe once narrowed.
                let a = if self.risky() {
                    a
                } else {
                    self.truncate(a, Kind::Field, 32)
                };
                self.cost += 1;
                let value = self.cursor().cast(a.value, Type::U32);
                self.push(Kind::U32, value, a.bits.min(32));
            }
        }
    }

    pub(super) fn int_op(&mut self, kind: Kind) {
        let width = kind.width();
        let a = self.get(kind);
        let b = self.get(kind);
        let risky = self.risky();
        let (value, bits) = match self.rng.below(16) {
            pick @ 0..=7 => self.checked_int_op(pick, kind, (a, b), risky),
            8 => {
                let op = [
                    BinaryOp::UncheckedAdd,
                    BinaryOp::UncheckedSub,
                    BinaryOp::UncheckedMul,
                ][self.rng.index(3)];
                (self.bin(op, a.value, b.value), width)
            }
            9 => (
                self.bin(BinaryOp::And, a.value, b.value),
                a.bits.min(b.bits),
            ),
            10 => {
                let op = if self.rng.chance(0.5) {
                    BinaryOp::Or
                } else {
                    BinaryOp::Xor
                };
                (self.bin(op, a.value, b.value), a.bits.max(b.bits))
            }
            11 => {
                let shift = self.rng.below(u64::from(width).min(16));
                let amount = self.konst(u128::from(shift), kind);
                if self.rng.chance(0.5) {
                    let bits = (a.bits + shift as u16).min(width);
                    (self.bin(BinaryOp::Shl, a.value, amount.value), bits)
                } else {
                    let bits = a.bits.saturating_sub(shift as u16).max(1);
                    (self.bin(BinaryOp::Shr, a.value, amount.value), bits)
                }
            }
            12 => {
                let op = if self.rng.chance(0.5) {
                    BinaryOp::Lt
                } else {
                    BinaryOp::Eq
                };
                let value = self.bin(op, a.value, b.value);
                self.push(Kind::Bool, value, 1);
                return;
            }
            13 => {
                self.cost += 1;
                (self.cursor().not(a.value), width)
            }
            14 => {
                let bits = self.rng.range(1, u64::from(width) - 1) as u16;
                let item = self.truncate(a, kind, bits);
                (item.value, item.bits)
            }
            _ => {
                // Casts between the integer kinds and to `Field`.
                let (target, a) = match (kind, self.rng.below(2)) {
                    (_, 0) => (Kind::Field, a),
                    (Kind::U32, _) => (Kind::U64, a),
                    _ => {
                        let a = if risky { a } else { self.truncate(a, kind, 32) };
                        (Kind::U32, a)
                    }
                };
                self.cost += 1;
                let value = self.cursor().cast(a.value, target.ty());
                self.push(target, value, a.bits.min(target.width()));
                return;
            }
        };
        self.push(kind, value, bits);
    }

    /// The checked arithmetic of [`int_op`](Self::int_op), operands kept
    /// small enough not to trap unless the operation is `risky`: `add`
    /// (`pick` 0-2), `sub` (3-4), `mul` (5-6), `div` or `mod` (7).
    fn checked_int_op(
        &mut self,
        pick: u64,
        kind: Kind,
        (a, b): (Item, Item),
        risky: bool,
    ) -> (Value, u16) {
        let width = kind.width();
        match pick {
            0..=2 => {
                let (a, b) = if risky || a.bits.max(b.bits) < width {
                    (a, b)
                } else {
                    (
                        self.truncate(a, kind, width - 1),
                        self.truncate(b, kind, width - 1),
                    )
                };
                let value = self.bin(BinaryOp::Add, a.value, b.value);
                (value, (a.bits.max(b.bits) + 1).min(width))
            }
            3 | 4 => {
                if risky {
                    (self.bin(BinaryOp::Sub, a.value, b.value), width)
                } else {
                    // `a - (a & m)` never underflows.
                    let mask = self.random_const(kind);
                    let low = self.bin(BinaryOp::And, a.value, mask.value);
                    (self.bin(BinaryOp::Sub, a.value, low), a.bits)
                }
            }
            5 | 6 => {
                let (a, b) = if risky || a.bits + b.bits <= width {
                    (a, b)
                } else {
                    (
                        self.truncate(a, kind, width / 2),
                        self.truncate(b, kind, width / 2),
                    )
                };
                let value = self.bin(BinaryOp::Mul, a.value, b.value);
                (value, (a.bits + b.bits).min(width))
            }
            _ => {
                let op = if self.rng.chance(0.5) {
                    BinaryOp::Div
                } else {
                    BinaryOp::Mod
                };
                let divisor = if risky {
                    b.value
                } else {
                    let one = self.konst(1, kind);
                    self.bin(BinaryOp::Or, b.value, one.value)
                };
                let bits = if op == BinaryOp::Mod {
                    a.bits.min(b.bits.max(1))
                } else {
                    a.bits
                };
                (self.bin(op, a.value, divisor), bits)
            }
        }
    }

    /// An in-bounds index into an array of `len` entries: constant, or
    /// dynamic and kept in bounds by `mod`, a mask, `truncate` or a
    /// comparison selecting between the index and 0.
    pub(super) fn index(&mut self, len: u64) -> Value {
        if !self.rng.chance(self.config.dynamic_index) {
            return {
                let n = self.rng.below(len);
                self.konst(u128::from(n), Kind::U32)
            }
            .value;
        }
        let x = self.get(Kind::U32);
        let len_value = self.konst(u128::from(len), Kind::U32).value;
        let power_of_two = len.is_power_of_two();
        match self.rng.below(4) {
            0 => self.bin(BinaryOp::Mod, x.value, len_value),
            1 if power_of_two => {
                let mask = self.konst(u128::from(len - 1), Kind::U32).value;
                self.bin(BinaryOp::And, x.value, mask)
            }
            2 if power_of_two => {
                let bits = len.trailing_zeros() as u16;
                if x.bits <= bits {
                    return x.value;
                }
                self.truncate(x, Kind::U32, bits).value
            }
            _ => {
                let in_bounds = self.bin(BinaryOp::Lt, x.value, len_value);
                self.cost += 2;
                let mut cursor = self.cursor();
                let out = cursor.not(in_bounds);
                let zero = cursor.constant(0, Type::U32);
                cursor.if_else(in_bounds, x.value, out, zero)
            }
        }
    }

    pub(super) fn memory_op(&mut self) {
        let kind = if self.rng.chance(0.6) {
            Kind::RefField
        } else {
            Kind::RefU32
        };
        let pointee = if kind == Kind::RefField {
            Kind::Field
        } else {
            Kind::U32
        };
        match self.rng.below(4) {
            0 => {
                self.make(kind);
            }
            1 => {
                let cell = self.get(kind).value;
                let value = self.get_passable(pointee).value;
                self.cost += 1;
                self.cursor().store(value, cell);
            }
            _ => {
                let cell = self.get(kind).value;
                self.cost += 1;
                let value = self.cursor().load(cell);
                let bits = if pointee == Kind::U32 {
                    MEM_BITS
                } else {
                    FIELD_BITS
                };
                self.push(pointee, value, bits);
            }
        }
    }

    pub(super) fn nested_reference_op(&mut self) {
        let outer = self.get(Kind::RefRef).value;
        match self.rng.below(5) {
            0 => {
                // Re-point the outer cell.
                let inner = self.get(Kind::RefField).value;
                self.cost += 1;
                self.cursor().store(inner, outer);
            }
            1 => {
                let other = self.get(Kind::RefField).value;
                self.cost += 2;
                let inner = self.cursor().load(outer);
                let same = self.cursor().binary(BinaryOp::Eq, inner, other);
                self.push(Kind::RefField, inner, 0);
                self.push(Kind::Bool, same, 1);
            }
            n => {
                self.cost += 1;
                let inner = self.cursor().load(outer);
                self.push(Kind::RefField, inner, 0);
                if n == 2 {
                    self.cost += 1;
                    let value = self.cursor().load(inner);
                    self.push(Kind::Field, value, FIELD_BITS);
                } else {
                    let value = self.get(Kind::Field).value;
                    self.cost += 1;
                    self.cursor().store(value, inner);
                }
            }
        }
    }

    pub(super) fn reference_array_op(&mut self) {
        let array = self.get(Kind::ArrRef).value;
        let index = self.index(REF_ARRAY_LEN);
        if self.rng.chance(0.35) {
            let reference = self.get(Kind::RefField).value;
            self.cost += 1;
            let updated = self.cursor().array_set(array, index, reference);
            self.push(Kind::ArrRef, updated, 0);
            return;
        }
        self.cost += 1;
        let reference = self.cursor().array_get(array, index, Kind::RefField.ty());
        self.push(Kind::RefField, reference, 0);
        if self.rng.chance(0.5) {
            self.cost += 1;
            let value = self.cursor().load(reference);
            self.push(Kind::Field, value, FIELD_BITS);
        } else {
            let value = self.get(Kind::Field).value;
            self.cost += 1;
            self.cursor().store(value, reference);
        }
    }

    pub(super) fn array_op(&mut self) {
        match self.rng.below(5) {
            0 | 1 => {
                let array = self.get(Kind::ArrU32).value;
                let index = self.index(U32_ARRAY_LEN);
                self.cost += 1;
                let value = self.cursor().array_get(array, index, Type::U32);
                self.push(Kind::U32, value, MEM_BITS);
            }
            2 | 3 => {
                let array = self.get(Kind::ArrU32).value;
                let index = self.index(U32_ARRAY_LEN);
                let value = self.get_passable(Kind::U32).value;
                self.cost += 1;
                let updated = self.cursor().array_set(array, index, value);
                self.push(Kind::ArrU32, updated, 0);
            }
            _ if self.config.memory == 0 => {
                let array = self.get(Kind::ArrU32).value;
                let index = self.index(U32_ARRAY_LEN);
                self.cost += 1;
                let value = self.cursor().array_get(array, index, Type::U32);
                self.push(Kind::U32, value, MEM_BITS);
            }
            _ => {
                // An array behind a reference: load, update, store back.
                let cell = self.get(Kind::RefArr).value;
                let index = self.index(U32_ARRAY_LEN);
                let value = self.get_passable(Kind::U32).value;
                self.cost += 3;
                let mut cursor = self.cursor();
                let array = cursor.load(cell);
                let updated = cursor.array_set(array, index, value);
                cursor.store(updated, cell);
                self.push(Kind::ArrU32, array, 0);
                self.push(Kind::ArrU32, updated, 0);
            }
        }
    }

    /// Side effects under `enable_side_effects`: a guarded dynamic
    /// `array_get`, a guarded subtraction that would underflow when the
    /// guard is off, or a guarded store; results merged with `if`.
    pub(super) fn predicated_op(&mut self) {
        match self.rng.below(3) {
            0 if self.config.arrays > 0 => {
                let array = self.get(Kind::ArrU32).value;
                let x = self.get(Kind::U32).value;
                let len = self.konst(u128::from(U32_ARRAY_LEN), Kind::U32).value;
                let guard = self.bin(BinaryOp::Lt, x, len);
                self.cost += 5;
                let mut cursor = self.cursor();
                cursor.enable_side_effects(guard);
                let element = cursor.array_get(array, x, Type::U32);
                let on = cursor.constant(1, Type::BOOL);
                cursor.enable_side_effects(on);
                let off = cursor.not(guard);
                let zero = cursor.constant(0, Type::U32);
                let merged = cursor.if_else(guard, element, off, zero);
                self.push(Kind::U32, merged, MEM_BITS);
            }
            1 => {
                let a = self.get(Kind::U32).value;
                let limit = self.rng.range(1, 1 << 12);
                let k = self.konst(u128::from(limit), Kind::U32).value;
                let guard = self.bin(BinaryOp::Lt, a, k);
                self.cost += 5;
                let mut cursor = self.cursor();
                cursor.enable_side_effects(guard);
                let difference = cursor.binary(BinaryOp::Sub, k, a);
                let on = cursor.constant(1, Type::BOOL);
                cursor.enable_side_effects(on);
                let off = cursor.not(guard);
                let merged = cursor.if_else(guard, difference, off, k);
                self.push(Kind::U32, merged, bits_of(u128::from(limit)));
            }
            _ => {
                let guard = self.get(Kind::Bool).value;
                let (cell, value) = if self.config.memory > 0 {
                    let cell = self.get(Kind::RefField).value;
                    (Some(cell), self.get(Kind::Field).value)
                } else {
                    (None, self.get(Kind::Field).value)
                };
                let other = self.get(Kind::Field).value;
                self.cost += 4 + u64::from(cell.is_some());
                let mut cursor = self.cursor();
                cursor.enable_side_effects(guard);
                if let Some(cell) = cell {
                    cursor.store(value, cell);
                }
                let on = cursor.constant(1, Type::BOOL);
                cursor.enable_side_effects(on);
                let off = cursor.not(guard);
                let merged = cursor.if_else(guard, value, off, other);
                self.push(Kind::Field, merged, FIELD_BITS);
            }
        }
    }

    pub(super) fn constrain_op(&mut self) {
        let a = self.get(Kind::U32);
        if self.risky() {
            let zero = self.konst(0, Kind::U32).value;
            self.cost += 1;
            self.cursor().constrain(a.value, zero, false, None);
            return;
        }
        // `(a & 7) < 8` always holds.
        let seven = self.konst(7, Kind::U32).value;
        let eight = self.konst(8, Kind::U32).value;
        let low = self.bin(BinaryOp::And, a.value, seven);
        let holds = self.bin(BinaryOp::Lt, low, eight);
        let one = self.konst(1, Kind::Bool).value;
        let message = self
            .rng
            .chance(0.3)
            .then(|| AssertMessage::Static("low bits".to_string()));
        self.cost += 1;
        self.cursor().constrain(holds, one, true, message);
    }

    /// `range_check` of a value within its known bit bound (risky: one bit
    /// short, which traps when the value uses that bit), or `inc_rc` and
    /// `dec_rc` of an array, which have no effect on the run.
    pub(super) fn check_op(&mut self) {
        if self.rng.chance(0.3) {
            let array = self.get(Kind::ArrU32).value;
            self.cost += 2;
            let mut cursor = self.cursor();
            cursor.insert(InstructionData::IncRc { arg: array }, &[]);
            cursor.insert(InstructionData::DecRc { arg: array }, &[]);
            return;
        }
        let kind = if self.rng.chance(0.5) {
            Kind::U32
        } else {
            Kind::Field
        };
        let a = self.get(kind);
        let bits = u32::from(a.bits).clamp(1, 254);
        let bits = if self.risky() && bits > 1 {
            bits - 1
        } else {
            bits
        };
        self.cost += 1;
        self.cursor().range_check(a.value, bits);
    }

    pub(super) fn call_op(&mut self) {
        let functions = self.sigs.len();
        if self.this + 1 >= functions {
            return self.arithmetic();
        }
        let callee = self.this + 1 + self.rng.index(functions - self.this - 1);
        let sig = &self.sigs[callee];
        // Making an argument costs at most 8 instructions.
        let need = self.costs[callee].saturating_add(1 + 8 * sig.params.len() as u64);
        // A callee costs at most its share of the region's room (a few
        // blocks' worth), so calls do not starve the rest of the region.
        if need > self.fair_room(4, self.remaining) {
            return self.arithmetic();
        }
        let sig = sig.clone();
        let args = sig
            .params
            .iter()
            .map(|&kind| self.get_passable(kind).value)
            .collect();
        let types: Vec<Type> = sig.returns.iter().map(|k| k.ty()).collect();
        self.cost += 1 + self.costs[callee];
        let callee_id = FuncId::from_u32(callee as u32);
        let p = self.config.function_values;
        let inst = if p > 0.0 && self.rng.chance(p) {
            let value = self.function_value(callee, need);
            self.cursor().call_value(value, args, &types)
        } else {
            self.cursor().call(callee_id, args, &types)
        };
        let results = self.func.dfg.inst_results(inst).to_vec();
        for (&kind, value) in sig.returns.iter().zip(results) {
            let bits = if kind.is_int() {
                MEM_BITS
            } else {
                kind.width()
            };
            self.push(kind, value, bits);
        }
    }

    /// A `function` value naming `callee`: the function itself, or an `if`
    /// choosing between it and another callable function of the same
    /// signature whose cost (with its arguments) is at most `need`, whose
    /// cost is then added.
    fn function_value(&mut self, callee: usize, need: u64) -> Value {
        let callee_ref = self.func.dfg.function_ref(FuncId::from_u32(callee as u32));
        let other = (self.this + 1..self.sigs.len()).find(|&f| {
            f != callee
                && self.sigs[f] == self.sigs[callee]
                && self.costs[f].saturating_add(1 + 8 * self.sigs[f].params.len() as u64) <= need
        });
        let Some(other) = other else {
            return callee_ref;
        };
        let other_ref = self.func.dfg.function_ref(FuncId::from_u32(other as u32));
        let condition = self.get(Kind::Bool).value;
        let negated = self.cursor().not(condition);
        self.cost += 2 + self.costs[other];
        self.cursor()
            .if_else(condition, callee_ref, negated, other_ref)
    }

    /// A `&Field` view of `cell` from a foreign call: the test oracles
    /// write the cell (its `Field` becomes 7919 or 7920), keep it and hand
    /// it back, so the view and the cell name one cell.
    pub(super) fn view(&mut self, cell: Value) -> Value {
        let oracle = self.func.dfg.foreign("oracle_view");
        let data = InstructionData::Call {
            callee: Callee::Foreign(oracle),
            args: vec![cell],
        };
        let inst = self.cursor().insert(data, &[Kind::ImmRefField.ty()]);
        self.func.dfg.inst_results(inst)[0]
    }

    /// A new `&Field` view, or a load through one.
    pub(super) fn immutable_reference_op(&mut self) {
        if self.rng.chance(0.3) {
            self.make(Kind::ImmRefField);
            return;
        }
        let view = self.get(Kind::ImmRefField).value;
        self.cost += 1;
        let value = self.cursor().load(view);
        self.push(Kind::Field, value, FIELD_BITS);
    }

    pub(super) fn print_op(&mut self) {
        let kind = if self.rng.chance(0.5) {
            Kind::U32
        } else {
            Kind::Field
        };
        let value = self.get(kind).value;
        self.cost += 1;
        self.cursor().call_builtin(Builtin::Print, vec![value], &[]);
    }
}
