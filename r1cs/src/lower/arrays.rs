//! Arrays, nested ones included, as the vectors of their leaves.
//!
//! A value of an array type is represented by its leaves in Noir's flat
//! order ([`kildall_ir::flat`]): a `[[Field; 2]; 3]` is six linear
//! combinations, entry 0's two leaves first. An array instruction indexes
//! *elements*, each a contiguous run of leaves. By entry (the IR's own
//! numbering) element `k` of an array whose entries have `w` components is
//! component `k mod w` of entry `k / w`, which covers that component's
//! leaves; by leaf (Noir's ACIR numbering in `acir` functions, decided by
//! [`kildall_ir::Function::array_indexing`]) element `k` is leaf `k`.
//!
//! At a constant index an element's leaves are picked out directly. At a
//! run-time index a read is one access per leaf of the memory check
//! (CoBBl's), whose segment for the array holds its leaves, at the
//! element's first leaf plus the leaf's rank; a write selects the element
//! by one-hot selectors and moves each of its leaves. When every component
//! has as many leaves `L`, element `k` starts at leaf `k L`; otherwise the
//! read names the entry `e` and the component `j` of its result's type,
//! with `k = w e + j`, and starts at `e P + start(j)`, `P` leaves per entry.

use ark_bn254::Fr;
use num_bigint::BigUint;

use super::{flat_len, LowerError, Lowerer, Repr};
use crate::system::{AccessKind, Lc, Space};
use kildall_ir::flat::{self, Indexing};
use kildall_ir::{Inst, Type, Value};

/// One component of an array's entry, as an instruction indexes it.
#[derive(Clone, Debug)]
struct Component {
    /// Its first leaf in the entry.
    start: usize,
    /// How many leaves it has.
    len: usize,
    /// Its type (`None` for a leaf of a flat numbering, of any type).
    ty: Option<Type>,
}

/// The elements an array instruction's index ranges over.
#[derive(Clone, Debug)]
struct Elements {
    components: Vec<Component>,
    /// Leaves per entry.
    per_entry: usize,
    /// How many elements: the index's bound.
    count: usize,
}

impl Elements {
    /// The elements of array type `ty` numbered as `indexing` says;
    /// `None` when `ty` has no flat form.
    fn of(ty: &Type, indexing: Indexing) -> Option<Elements> {
        let Type::Array(types, len) = ty else {
            return None;
        };
        if indexing == Indexing::Flat {
            let leaves = flat_len(ty)?;
            let leaf = Component {
                start: 0,
                len: 1,
                ty: None,
            };
            return Some(Elements {
                components: vec![leaf],
                per_entry: 1,
                count: leaves,
            });
        }
        let mut components = Vec::with_capacity(types.len());
        let mut start = 0;
        for t in types.iter() {
            let len = flat_len(t)?;
            components.push(Component {
                start,
                len,
                ty: Some(t.clone()),
            });
            start += len;
        }
        let count = types.len().checked_mul(*len as usize)?;
        Some(Elements {
            components,
            per_entry: start,
            count,
        })
    }

    fn width(&self) -> usize {
        self.components.len().max(1)
    }

    /// The component of element `k`.
    fn component(&self, k: usize) -> &Component {
        &self.components[k % self.width()]
    }

    /// The leaves of element `k`: its first leaf and how many.
    fn leaves(&self, k: usize) -> (usize, usize) {
        let c = self.component(k);
        ((k / self.width()) * self.per_entry + c.start, c.len)
    }

    /// The leaf count every component shares, if they do.
    fn uniform_len(&self) -> Option<usize> {
        let first = self.components.first()?.len;
        self.components
            .iter()
            .all(|c| c.len == first)
            .then_some(first)
    }
}

/// The representation of a value of type `ty` whose leaves are `leaves`.
fn repr_of(ty: &Type, mut leaves: Vec<Lc>) -> Repr {
    match ty {
        Type::Array(..) => Repr::Array(leaves),
        _ => Repr::Scalar(leaves.pop().unwrap_or_else(Lc::zero)),
    }
}

/// A constant index as a `usize`, if it is one.
fn constant_index(i: &Lc) -> Option<Option<usize>> {
    let k: BigUint = i.as_constant()?.into();
    Some(usize::try_from(&k).ok())
}

impl Lowerer<'_> {
    /// The elements `inst` indexes in `array`, whose representation has
    /// `leaves` leaves.
    fn elements_of(&self, inst: Inst, array: Value, leaves: usize) -> Result<Elements, LowerError> {
        let ty = self.func.dfg.value_type(array);
        Elements::of(ty, self.func.array_indexing(inst))
            .filter(|_| flat_len(ty) == Some(leaves))
            // FIXME: an array holding slices has no flat layout (Noir has
            // none either); it is refused.
            .ok_or_else(|| self.unsupported(&format!("an array of type {ty}")))
    }

    /// `make_array`: by entry, its elements' leaves one after the other;
    /// by leaf, its scalar elements, which are the leaves. Both are the
    /// concatenation of the elements' leaves.
    pub(super) fn make_array(
        &mut self,
        elements: &[Value],
        ty: &Type,
        r: Value,
    ) -> Result<(), LowerError> {
        let mut leaves = Vec::new();
        for &e in elements {
            leaves.extend_from_slice(self.value(e)?.elements());
        }
        if flat_len(ty) != Some(leaves.len()) {
            return Err(self.unsupported(&format!(
                "a `make_array` of {} leaves of type {ty}",
                leaves.len()
            )));
        }
        self.repr.insert(r, Repr::Array(leaves));
        Ok(())
    }

    /// `index < len` where enabled: `len - 1 - index` fits in 32 bits.
    fn bounds_check(&mut self, index: &Lc, len: usize) -> Result<(), LowerError> {
        if len == 0 {
            self.enforce_when_enabled(Lc::from_u64(1));
            return Ok(());
        }
        let slack = Lc::from_u64(len as u64 - 1).minus(index);
        self.range_when_enabled(&slack, 32)
    }

    pub(super) fn array_get(
        &mut self,
        inst: Inst,
        array: Value,
        index: Value,
        r: Value,
    ) -> Result<(), LowerError> {
        let Repr::Array(leaves) = self.value(array)? else {
            return Err(self.unsupported("`array_get` on a non-array"));
        };
        let elements = self.elements_of(inst, array, leaves.len())?;
        let ty = self.func.dfg.value_type(r).clone();
        let i = self.scalar(index)?;
        let Some(k) = constant_index(&i) else {
            return self.array_get_dynamic(inst, (array, &elements), &i, r);
        };
        let picked = match k.filter(|&k| k < elements.count) {
            Some(k) => {
                let (start, len) = elements.leaves(k);
                leaves[start..start + len].to_vec()
            }
            None => {
                // Out of bounds: a failure where enabled; elsewhere the
                // interpreter's read, the first element of the result's type.
                self.enforce_when_enabled(Lc::from_u64(1));
                let array_ty = self.func.dfg.value_type(array);
                match first_of_type(array_ty, &elements, &ty) {
                    Some((start, len)) => leaves[start..start + len].to_vec(),
                    None => vec![Lc::zero(); flat_len(&ty).unwrap_or(1)],
                }
            }
        };
        self.repr.insert(r, repr_of(&ty, picked));
        Ok(())
    }

    /// `array_get` at a run-time index: one read of the array's memory per
    /// leaf of the result, checked apart, and the bounds here.
    fn array_get_dynamic(
        &mut self,
        inst: Inst,
        (array, elements): (Value, &Elements),
        i: &Lc,
        r: Value,
    ) -> Result<(), LowerError> {
        let ty = self.func.dfg.value_type(r).clone();
        let wanted =
            flat_len(&ty).ok_or_else(|| self.unsupported(&format!("a read of type {ty}")))?;
        let start = match elements.uniform_len() {
            Some(len) if len == wanted => {
                self.bounds_check(i, elements.count)?;
                i.scale(Fr::from(len as u64))
            }
            _ => self.entry_start(elements, i, &ty)?,
        };
        let recorded = if self.witnessing() {
            Some(self.recorded(r)?)
        } else {
            None
        };
        let name = self.name();
        let array = self.func.dfg.resolve(array);
        let mut out = Vec::with_capacity(wanted);
        for t in 0..wanted {
            let value = recorded.as_ref().and_then(|v| v.get(t).copied());
            let v = Lc::var(self.new_witness(leaf_name(&name, t, wanted), value));
            let at = start.plus_constant(Fr::from(t as u64));
            self.memory(inst, Space::Array(array), at, v.clone(), AccessKind::Read);
            out.push(v);
        }
        self.repr.insert(r, repr_of(&ty, out));
        Ok(())
    }

    /// The first leaf of element `i` (a run-time index by entry) of an
    /// array whose components differ in leaf count: a witness entry `e`
    /// below the entry count and the component `j` of the result's type
    /// (a constant when the entry has one such component, else one flag
    /// per such component, one set where enabled), with `i = w e + j` where
    /// enabled; the leaf is `e P + start(j)`.
    fn entry_start(&mut self, elements: &Elements, i: &Lc, ty: &Type) -> Result<Lc, LowerError> {
        let matching: Vec<(usize, usize)> = (elements.components.iter().enumerate())
            .filter(|(_, c)| c.ty.as_ref() == Some(ty))
            .map(|(j, c)| (j, c.start))
            .collect();
        if matching.is_empty() {
            return Err(self.unsupported(&format!(
                "a run-time read of {ty} from entries without such a component"
            )));
        }
        let w = elements.width();
        let entries = elements.count / w;
        let k = self.eval(i).map(|f| {
            let k: BigUint = f.into();
            usize::try_from(&k).unwrap_or(usize::MAX)
        });
        let name = self.name();
        let entry = k.map(|k| Fr::from((k / w) as u64));
        let e = Lc::var(self.new_witness(format!("{name}.entry"), entry));
        let flags: Vec<Lc> = match matching[..] {
            [_] => vec![Lc::from_u64(1)],
            _ => {
                let mut flags = Vec::with_capacity(matching.len());
                for &(j, _) in &matching {
                    let value = k.map(|k| Fr::from(u64::from(k % w == j)));
                    let f = Lc::var(self.new_witness(format!("{name}.component{j}"), value));
                    self.enforce(f.clone(), f.clone(), f.clone());
                    flags.push(f);
                }
                let picked = flags.iter().fold(Lc::zero(), |acc, f| acc.plus(f));
                self.enforce_when_enabled(Lc::from_u64(1).minus(&picked));
                flags
            }
        };
        let weigh = |pick: fn(&(usize, usize)) -> usize| {
            (matching.iter().zip(&flags)).fold(Lc::zero(), |acc, (m, f)| {
                acc.add_scaled(Fr::from(pick(m) as u64), f)
            })
        };
        let (component, start) = (weigh(|m| m.0), weigh(|m| m.1));
        let rebuilt = e.scale(Fr::from(w as u64)).plus(&component);
        self.enforce_when_enabled(i.minus(&rebuilt));
        self.bounds_check(&e, entries)?;
        Ok(e.scale(Fr::from(elements.per_entry as u64)).plus(&start))
    }

    pub(super) fn array_set(
        &mut self,
        inst: Inst,
        (array, index, value): (Value, Value, Value),
        r: Value,
    ) -> Result<(), LowerError> {
        let Repr::Array(mut leaves) = self.value(array)? else {
            return Err(self.unsupported("`array_set` on a non-array"));
        };
        let elements = self.elements_of(inst, array, leaves.len())?;
        let i = self.scalar(index)?;
        let v = self.value(value)?.elements().to_vec();
        if let Some(k) = constant_index(&i) {
            let slot = k
                .filter(|&k| k < elements.count)
                .map(|k| elements.leaves(k))
                .filter(|&(_, len)| len == v.len());
            match slot {
                Some((start, _)) => {
                    let write = self.predicate.clone();
                    let name = self.name();
                    for (t, x) in v.iter().enumerate() {
                        let a = &leaves[start + t];
                        let moved =
                            self.product(&write, &x.minus(a), &leaf_name(&name, t, v.len()));
                        leaves[start + t] = a.plus(&moved);
                    }
                }
                None => self.enforce_when_enabled(Lc::from_u64(1)),
            }
            self.repr.insert(r, Repr::Array(leaves));
            return Ok(());
        }
        let selectors = self.select(&i, elements.count)?;
        // Under predicate 0 the array stays as it was. An element of
        // another leaf count than the value cannot be written: selecting it
        // is a failure where enabled.
        let name = self.name();
        for (k, s) in selectors.iter().enumerate() {
            let p = self.predicate.clone();
            let (start, len) = elements.leaves(k);
            if len != v.len() {
                self.enforce(p, s.clone(), Lc::zero());
                continue;
            }
            let write = self.product(&p, s, &format!("{name}.w{k}"));
            for (t, x) in v.iter().enumerate() {
                let a = &leaves[start + t];
                let leaf = leaf_name(&format!("{name}.{k}"), t, v.len());
                let moved = self.product(&write, &x.minus(a), &leaf);
                leaves[start + t] = a.plus(&moved);
            }
        }
        self.repr.insert(r, Repr::Array(leaves));
        Ok(())
    }

    /// One-hot selectors of index `i` among `count` elements: sel_k
    /// boolean, Σ sel_k = inside (boolean), Σ k sel_k = index * inside,
    /// inside = 1 where enabled, and (1 - inside)(index - count) in 32 bits
    /// (outside means out of bounds).
    fn select(&mut self, i: &Lc, count: usize) -> Result<Vec<Lc>, LowerError> {
        let name = self.name();
        let iv = self.eval(i).map(|f| {
            let f: BigUint = f.into();
            usize::try_from(&f).ok().filter(|&k| k < count)
        });
        let mut selectors = Vec::with_capacity(count);
        for k in 0..count {
            let value = iv.map(|iv| Fr::from(u64::from(iv == Some(k))));
            let s = Lc::var(self.new_witness(format!("{name}.sel{k}"), value));
            self.enforce(s.clone(), s.clone(), s.clone());
            selectors.push(s);
        }
        let inside = selectors.iter().fold(Lc::zero(), |acc, s| acc.plus(s));
        self.enforce(inside.clone(), inside.clone(), inside.clone());
        let weighted = selectors
            .iter()
            .enumerate()
            .fold(Lc::zero(), |acc, (k, s)| {
                acc.add_scaled(Fr::from(k as u64), s)
            });
        let product = self.product(i, &inside, &format!("{name}.at"));
        self.enforce(weighted, Lc::from_u64(1), product);
        self.enforce_when_enabled(Lc::from_u64(1).minus(&inside));
        let beyond = i.plus_constant(-Fr::from(count as u64));
        let outside = Lc::from_u64(1).minus(&inside);
        let excess = self.product(&outside, &beyond, &format!("{name}.out"));
        self.decompose(&excess, 32, &format!("{name}.out"));
        Ok(selectors)
    }
}

/// The witness name of leaf `t` of a value of `leaves` leaves: `name`
/// itself for a scalar.
fn leaf_name(name: &str, t: usize, leaves: usize) -> String {
    if leaves == 1 {
        name.to_string()
    } else {
        format!("{name}.{t}")
    }
}

/// The leaves of the first element of type `ty` of an array of type
/// `array_ty` (the interpreter's read outside the array under predicate 0).
fn first_of_type(array_ty: &Type, elements: &Elements, ty: &Type) -> Option<(usize, usize)> {
    if elements.components.iter().all(|c| c.ty.is_none()) {
        let leaves = flat::leaf_types(array_ty, elements.count as u64)?;
        return leaves.iter().position(|&t| t == ty).map(|k| (k, 1));
    }
    let k = (0..elements.count).find(|&k| elements.component(k).ty.as_ref() == Some(ty))?;
    Some(elements.leaves(k))
}
