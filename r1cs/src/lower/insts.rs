//! The constraints of each instruction.

use ark_bn254::Fr;
use ark_ff::Field;

use super::ints::MAX_BITS;
use super::{pow2, recompose, LowerError, Lowerer, Repr};
use crate::system::{AccessKind, Lc, MemoryAccess, Output, Space};
use kildall_ir::{BinaryOp, Callee, Inst, InstructionData as I, Type, Value};

/// Element `k` of an array in a cell lives at address `cell + k 2^40`.
const ELEMENT_SHIFT: u32 = 40;

impl Lowerer<'_> {
    pub(super) fn lower_inst(&mut self, inst: Inst) -> Result<(), LowerError> {
        let func = self.func;
        let results = func.dfg.inst_results(inst);
        let result = results.first().copied();
        let need = |r: Option<Value>| -> Result<Value, LowerError> {
            r.ok_or_else(|| LowerError::Unsupported {
                inst,
                what: "an instruction without its result".to_string(),
            })
        };
        match &func.dfg[inst] {
            I::Binary { op, lhs, rhs } => self.binary(*op, *lhs, *rhs, need(result)?)?,
            I::Not { arg } => {
                let r = need(result)?;
                let Some(n) = func.dfg.value_type(*arg).bit_size() else {
                    return Err(self.unsupported("`not` on a non-integer"));
                };
                let bits = self.bits_of(*arg, n)?;
                let flipped = bits.iter().map(|b| Lc::from_u64(1).minus(b)).collect();
                self.set_int(r, flipped);
            }
            I::Cast { arg, ty } => {
                let r = need(result)?;
                self.cast(*arg, ty, r)?;
            }
            I::Truncate {
                arg,
                bits,
                max_bit_size,
            } => self.truncate(*arg, *bits, *max_bit_size, need(result)?)?,
            I::RangeCheck { arg, bits, .. } => self.range_check(*arg, *bits)?,
            I::Constrain {
                lhs, rhs, equal, ..
            } => self.constrain(*lhs, *rhs, *equal)?,
            I::EnableSideEffects { condition } => {
                self.predicate = self.scalar(*condition)?;
            }
            I::IfElse {
                then_condition,
                then_value,
                else_value,
                ..
            } => self.if_else(*then_condition, *then_value, *else_value, need(result)?)?,
            I::MakeArray { elements, ty } => self.make_array(elements, ty, need(result)?)?,
            I::ArrayGet { array, index } => {
                let r = need(result)?;
                self.array_get(inst, *array, *index, r)?;
            }
            I::ArraySet {
                array,
                index,
                value,
                ..
            } => {
                let r = need(result)?;
                self.array_set(inst, (*array, *index, *value), r)?;
            }
            I::Allocate => self.allocate(inst, need(result)?)?,
            I::Load { address } => self.load(inst, *address, need(result)?)?,
            I::Store { value, address } => self.store(inst, *value, *address)?,
            I::Call { callee, args } => self.call(inst, callee, args)?,
            I::IncRc { .. } | I::DecRc { .. } | I::Nop => {}
            I::Encode { .. } | I::Decode { .. } | I::ReduceNoise { .. } => {
                return Err(self.unsupported("a noisy operation"))
            }
        }
        Ok(())
    }

    /// `lhs op rhs` into `r`: field arithmetic, integer arithmetic on bits,
    /// or the equality of any two values element by element.
    fn binary(&mut self, op: BinaryOp, lhs: Value, rhs: Value, r: Value) -> Result<(), LowerError> {
        let ty = self.func.dfg.value_type(lhs).clone();
        match ty {
            Type::Field => self.field_binary(op, lhs, rhs, r)?,
            _ if op == BinaryOp::Eq => {
                // References, functions, arrays: equal element by element,
                // `Π [x_k = y_k]`.
                let (a, b) = (self.value(lhs)?, self.value(rhs)?);
                let pairs: Vec<(Lc, Lc)> = a
                    .elements()
                    .iter()
                    .cloned()
                    .zip(b.elements().iter().cloned())
                    .collect();
                let mut all = Lc::from_u64(1);
                let name = self.name();
                for (k, (x, y)) in pairs.iter().enumerate() {
                    let z = self.is_zero(&x.minus(y), None);
                    all = self.product(&all, &z, &format!("{name}.all{k}"));
                }
                self.bits.insert(r, vec![all.clone()]);
                self.repr.insert(r, Repr::Scalar(all));
            }
            Type::Unsigned(n) | Type::Signed(n) => {
                let signed = matches!(ty, Type::Signed(_));
                self.int_binary(op, lhs, rhs, r, n, signed)?
            }
            _ => return Err(self.unsupported(&format!("`{op}` on {ty}"))),
        }
        Ok(())
    }

    /// The low `bits` bits of `arg` into `r`; a field element is decomposed
    /// into `max_bit_size` bits (canonically when that is the whole field).
    fn truncate(
        &mut self,
        arg: Value,
        bits: u32,
        max_bit_size: u32,
        r: Value,
    ) -> Result<(), LowerError> {
        let ty = self.func.dfg.value_type(arg).clone();
        let source_bits = match ty {
            Type::Unsigned(n) | Type::Signed(n) => self.bits_of(arg, n)?,
            Type::Field if max_bit_size <= MAX_BITS => {
                let lc = self.scalar(arg)?;
                let name = self.name();
                self.decompose(&lc, max_bit_size, &name)
            }
            Type::Field => {
                let lc = self.scalar(arg)?;
                self.canonical_bits(&lc)
            }
            _ => return Err(self.unsupported(&format!("`truncate` of {ty}"))),
        };
        let kept: Vec<Lc> = source_bits.iter().take(bits as usize).cloned().collect();
        if ty.is_integer() {
            let n = ty.bit_size().unwrap_or(0) as usize;
            let mut all = kept;
            all.resize(n, Lc::zero());
            self.set_int(r, all);
        } else {
            self.repr.insert(r, Repr::Scalar(recompose(&kept)));
        }
        Ok(())
    }

    /// `arg` fits in `bits` bits, where the block is enabled: its high bits
    /// are zero when they are known, else a fresh decomposition.
    fn range_check(&mut self, arg: Value, bits: u32) -> Result<(), LowerError> {
        let dfg = &self.func.dfg;
        match dfg.value_type(arg).bit_size() {
            Some(n) if bits >= n => {}
            Some(n) if self.bits.contains_key(&dfg.resolve(arg)) => {
                let known = self.bits_of(arg, n)?;
                let high = recompose(&known[bits as usize..]);
                self.enforce_when_enabled(high);
            }
            _ => {
                let lc = self.scalar(arg)?;
                self.range_when_enabled(&lc, bits)?;
            }
        }
        Ok(())
    }

    /// `constrain lhs == rhs` element by element, or `lhs != rhs` through
    /// an inverse, where the block is enabled.
    fn constrain(&mut self, lhs: Value, rhs: Value, equal: bool) -> Result<(), LowerError> {
        let (a, b) = (self.value(lhs)?, self.value(rhs)?);
        if equal {
            for (x, y) in a.elements().iter().zip(b.elements()).collect::<Vec<_>>() {
                self.enforce_when_enabled(x.minus(y));
            }
            return Ok(());
        }
        let (Repr::Scalar(x), Repr::Scalar(y)) = (a, b) else {
            return Err(self.unsupported("`constrain !=` on arrays"));
        };
        // (x - y) * inv = predicate: x != y where enabled.
        let d = x.minus(&y);
        let inv = self
            .eval(&d)
            .zip(self.eval(&self.predicate.clone()))
            .map(|(d, p)| d.inverse().unwrap_or_default() * p);
        let name = self.name();
        let inv = Lc::var(self.new_witness(format!("{name}.inv"), inv));
        self.enforce(d, inv, self.predicate.clone());
        Ok(())
    }

    /// `if c then x else y` into `r`, element by element.
    fn if_else(&mut self, c: Value, x: Value, y: Value, r: Value) -> Result<(), LowerError> {
        let c = self.scalar(c)?;
        let (x, y) = (self.value(x)?, self.value(y)?);
        let name = self.name();
        let mut out = Vec::new();
        for (k, (x, y)) in x.elements().iter().zip(y.elements()).enumerate() {
            // y + c (x - y): one constraint unless x and y agree.
            let s = if x == y {
                Lc::zero()
            } else {
                self.product(&c, &x.minus(y), &format!("{name}.{k}"))
            };
            out.push(y.plus(&s));
        }
        let repr = match x {
            Repr::Scalar(_) => Repr::Scalar(out.pop().expect("one element")),
            Repr::Array(_) => Repr::Array(out),
        };
        self.repr.insert(r, repr);
        Ok(())
    }

    /// A fresh cell into `r`. Its number is a witness; the memory check
    /// proves it fresh: an allocation of every element's address (whatever
    /// the predicate: `allocate` always runs), which must be the first
    /// access to the address.
    fn allocate(&mut self, inst: Inst, r: Value) -> Result<(), LowerError> {
        let value = self.recorded_scalar(r)?;
        let name = self.name();
        let cell = Lc::var(self.new_witness(name, value));
        let pointee = self.func.dfg.value_type(r).pointee().cloned();
        let pointee = pointee.ok_or_else(|| self.unsupported("`allocate` of a non-reference"))?;
        let len = super::flat_len(&pointee)
            .ok_or_else(|| self.unsupported("an allocation of a slice"))?;
        for k in 0..len {
            let at = cell.plus_constant(Fr::from(k as u64) * pow2(ELEMENT_SHIFT));
            let one = Lc::from_u64(1);
            self.access(
                inst,
                one,
                Space::Cells,
                at,
                Lc::zero(),
                AccessKind::Allocate,
            );
        }
        self.repr.insert(r, Repr::Scalar(cell));
        Ok(())
    }

    /// A read of every element of the cell at `address` into `r`, each a
    /// witness the memory check ties to the last write.
    fn load(&mut self, inst: Inst, address: Value, r: Value) -> Result<(), LowerError> {
        let ty = self.func.dfg.value_type(r).clone();
        let len = super::flat_len(&ty).ok_or_else(|| self.unsupported("a load of a slice"))?;
        let address = self.scalar(address)?;
        let recorded = if self.witnessing() {
            Some(self.recorded(r)?)
        } else {
            None
        };
        let name = self.name();
        let mut elements = Vec::with_capacity(len);
        for k in 0..len {
            let value = recorded.as_ref().and_then(|v| v.get(k).copied());
            let v = Lc::var(self.new_witness(format!("{name}.{k}"), value));
            let at = address.plus_constant(Fr::from(k as u64) * pow2(ELEMENT_SHIFT));
            self.memory(inst, Space::Cells, at, v.clone(), AccessKind::Read);
            elements.push(v);
        }
        let repr = match ty {
            Type::Array(..) => Repr::Array(elements),
            _ => Repr::Scalar(elements.pop().expect("a scalar")),
        };
        self.repr.insert(r, repr);
        Ok(())
    }

    /// A write of every element of `value` to the cell at `address`.
    fn store(&mut self, inst: Inst, value: Value, address: Value) -> Result<(), LowerError> {
        let address = self.scalar(address)?;
        let value = self.value(value)?;
        for (k, e) in value.elements().iter().enumerate() {
            let at = address.plus_constant(Fr::from(k as u64) * pow2(ELEMENT_SHIFT));
            self.memory(inst, Space::Cells, at, e.clone(), AccessKind::Write);
        }
        Ok(())
    }

    /// A call: its arguments are outputs of the block (the callee's
    /// instance reads them; the verifier computes a builtin on them), and
    /// every result is an input (the callee's instance, or the builtin,
    /// produced it).
    fn call(&mut self, inst: Inst, callee: &Callee, args: &[Value]) -> Result<(), LowerError> {
        let tag = match callee {
            Callee::Function(_) => Output::CallArguments(inst),
            // FIXME: `vector_enumerate` would need an instance per closure
            // call, as Noir's expansion inlines one per entry; it is refused
            // (today its slice operands are refused before it is reached).
            Callee::Builtin(builtin) if builtin.calls_function_values() => {
                return Err(self.unsupported("a builtin that calls function values"))
            }
            Callee::Builtin(_) => Output::BuiltinArguments(inst),
            Callee::Foreign(_) | Callee::Value(_) => {
                return Err(self.unsupported("a call of an oracle or through a value"))
            }
        };
        for (k, &arg) in args.iter().enumerate() {
            self.output(tag, &format!("{inst}.arg{k}"), arg)?;
        }
        if let Callee::Function(_) = callee {
            self.calls.push((inst, self.predicate.clone()));
        }
        for &r in self.func.dfg.inst_results(inst) {
            self.input(r)?;
        }
        Ok(())
    }

    /// The interpreter's value of a scalar result, when witnessing.
    pub(super) fn recorded_scalar(&self, value: Value) -> Result<Option<Fr>, LowerError> {
        if !self.witnessing() {
            return Ok(None);
        }
        Ok(self.recorded(value)?.first().copied())
    }

    /// An access of the memory check under the block's predicate.
    pub(super) fn memory(
        &mut self,
        inst: Inst,
        space: Space,
        address: Lc,
        value: Lc,
        kind: AccessKind,
    ) {
        let valid = self.predicate.clone();
        self.access(inst, valid, space, address, value, kind);
    }

    fn access(
        &mut self,
        inst: Inst,
        valid: Lc,
        space: Space,
        address: Lc,
        value: Lc,
        kind: AccessKind,
    ) {
        let time = self.cs.memory.len() as u32;
        self.cs.memory.push(MemoryAccess {
            valid,
            space,
            address,
            value,
            kind,
            time,
            inst,
        });
    }

    /// `cast` on bit patterns, as the interpreter casts: an integer's
    /// scalar is its pattern, so a cast to `Field` or to an integer type at
    /// least as wide is that scalar; a narrower integer target requires
    /// the pattern's high bits to be zero; a `Field` source is decomposed
    /// into the target's bits, which requires its canonical representative
    /// to fit. The requirements hold whatever the predicate, as the
    /// interpreter's trap does.
    fn cast(&mut self, arg: Value, ty: &Type, r: Value) -> Result<(), LowerError> {
        let source = self.func.dfg.value_type(arg).clone();
        let source_bits = match source {
            Type::Unsigned(m) | Type::Signed(m) => Some(m),
            Type::Field => None,
            _ => return Err(self.unsupported(&format!("a cast from {source}"))),
        };
        let x = self.scalar(arg)?;
        let n = match *ty {
            Type::Field => {
                self.repr.insert(r, Repr::Scalar(x));
                return Ok(());
            }
            Type::Unsigned(n) | Type::Signed(n) => n,
            _ => return Err(self.unsupported(&format!("a cast to {ty}"))),
        };
        match source_bits {
            Some(m) if m <= n => {
                let known = self.bits.get(&self.func.dfg.resolve(arg)).cloned();
                match known {
                    Some(mut bits) => {
                        bits.resize(n as usize, Lc::zero());
                        self.set_int(r, bits);
                    }
                    None => {
                        self.repr.insert(r, Repr::Scalar(x));
                    }
                }
            }
            Some(m) => {
                let bits = self.bits_of(arg, m)?;
                for high in &bits[n as usize..] {
                    if high.as_constant() != Some(Fr::from(0u64)) {
                        self.enforce(high.clone(), Lc::from_u64(1), Lc::zero());
                    }
                }
                self.set_int(r, bits[..n as usize].to_vec());
            }
            None => {
                let name = self.name();
                let bits = self.decompose(&x, n, &name);
                self.set_int(r, bits);
            }
        }
        Ok(())
    }
}
