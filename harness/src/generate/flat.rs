//! Programs on nested arrays in an `acir` function, built and read by
//! entry and by leaf (Noir's flat numbering of nested arrays in constrained
//! code, `kildall_ir::flat`): the shape the passes must keep sound when an
//! entry index and a flat index name different elements.
//!
//! `main(v0: u32, v1: u32, v2: u64, v3: Field, v4: u1)` rebuilds a
//! `[[T; 2]; 2]` by `make_array` (leaf listing or entry listing), updates
//! it by `array_set` at flat or entry indices (constant, or the arguments
//! reduced into bounds) and reads leaves out of it either way, in
//! straight-line code and in `if`/`else` diamonds. Nothing traps.
//!
//! With references ([`FlatArrays::references`]), `T` is `&mut Field`: the
//! array is kept in a cell, the leaves read are loaded or stored through,
//! and `main` returns an accumulator of the loads and the cells' contents.
//! Without, `T` is `Field`: the array and an accumulator of the leaves read
//! are values, joined in block parameters after each diamond, and `main`
//! returns both (no memory operation, so that block merging applies).

use std::fmt::Write as _;

use kildall_ir::{parse_module, Module};

use super::Rng;

/// The knobs of [`generate_flat_arrays`].
#[derive(Clone, Copy, Debug)]
pub struct FlatArrays {
    /// About how many operations on the array.
    pub ops: usize,
    /// Leaves are references to cells (else `Field` values).
    pub references: bool,
}

/// How many cells the arrays' references point to.
const CELLS: u64 = 3;

/// The text of one generated program, and the next free value and block
/// numbers while it is written.
struct Writer {
    rng: Rng,
    references: bool,
    text: String,
    next_value: u32,
    next_block: u32,
    /// Without references: the current array and accumulator values.
    array: String,
    acc: String,
}

impl Writer {
    fn value(&mut self) -> String {
        self.next_value += 1;
        format!("v{}", self.next_value - 1)
    }

    fn line(&mut self, line: &str) {
        let _ = writeln!(self.text, "    {line}");
    }

    fn leaf_type(&self) -> &'static str {
        if self.references {
            "&mut Field"
        } else {
            "Field"
        }
    }

    fn nested(&self) -> String {
        format!("[[{}; 2]; 2]", self.leaf_type())
    }

    /// A leaf to store: one of the cells (`v10`, `v11`, ...), or a `Field`
    /// constant, argument or the accumulator.
    fn leaf(&mut self) -> String {
        if self.references {
            return format!("v{}", 10 + self.rng.below(CELLS));
        }
        match self.rng.below(4) {
            0 => "v3".to_string(),
            1 => self.acc.clone(),
            _ => format!("Field {}", self.rng.below(100)),
        }
    }

    /// A flat index: a constant below 4, or `v6` (`v0 mod 4`).
    fn flat_index(&mut self) -> String {
        match self.rng.below(3) {
            0 => "v6".to_string(),
            _ => format!("u32 {}", self.rng.below(4)),
        }
    }

    /// An entry index: a constant below 2, or `v7` (`v1 mod 2`).
    fn entry_index(&mut self) -> String {
        match self.rng.below(3) {
            0 => "v7".to_string(),
            _ => format!("u32 {}", self.rng.below(2)),
        }
    }

    /// The current array.
    fn array(&mut self) -> String {
        if !self.references {
            return self.array.clone();
        }
        let (a, nested) = (self.value(), self.nested());
        self.line(&format!("{a} = load v8 -> {nested}"));
        a
    }

    fn set_array(&mut self, a: String) {
        if self.references {
            self.line(&format!("store {a} at v8"));
        } else {
            self.array = a;
        }
    }

    fn inner(&mut self) -> String {
        let (i, x, y) = (self.value(), self.leaf(), self.leaf());
        let ty = self.leaf_type();
        self.line(&format!("{i} = make_array [{x}, {y}] : [{ty}; 2]"));
        i
    }

    /// Adds `leaf` to the accumulator; a reference is loaded through
    /// first, or stored through instead.
    fn use_leaf(&mut self, leaf: &str) {
        if !self.references {
            let sum = self.value();
            self.line(&format!("{sum} = add {}, {leaf}", self.acc));
            self.acc = sum;
        } else if self.rng.below(2) == 0 {
            let (x, acc, sum) = (self.value(), self.value(), self.value());
            self.line(&format!("{x} = load {leaf} -> Field"));
            self.line(&format!("{acc} = load v9 -> Field"));
            self.line(&format!("{sum} = add {acc}, {x}"));
            self.line(&format!("store {sum} at v9"));
        } else {
            let c = self.rng.below(100);
            self.line(&format!("store Field {c} at {leaf}"));
        }
    }

    fn op(&mut self) {
        let (nested, ty) = (self.nested(), self.leaf_type());
        match self.rng.below(6) {
            0 => {
                let leaves: Vec<String> = (0..4).map(|_| self.leaf()).collect();
                let a = self.value();
                self.line(&format!(
                    "{a} = make_array [{}] : {nested}",
                    leaves.join(", ")
                ));
                self.set_array(a);
            }
            1 => {
                let (i, j, a) = (self.inner(), self.inner(), self.value());
                self.line(&format!("{a} = make_array [{i}, {j}] : {nested}"));
                self.set_array(a);
            }
            2 => {
                let (a, index, r) = (self.array(), self.flat_index(), self.value());
                self.line(&format!("{r} = array_get {a}, index {index} -> {ty}"));
                self.use_leaf(&r);
            }
            3 => {
                let (a, index, i) = (self.array(), self.entry_index(), self.value());
                self.line(&format!("{i} = array_get {a}, index {index} -> [{ty}; 2]"));
                let (r, k) = (self.value(), self.rng.below(2));
                self.line(&format!("{r} = array_get {i}, index u32 {k} -> {ty}"));
                self.use_leaf(&r);
            }
            4 => {
                let (a, index, x, b) = (self.array(), self.flat_index(), self.leaf(), self.value());
                self.line(&format!("{b} = array_set {a}, index {index}, value {x}"));
                self.set_array(b);
            }
            _ => {
                let (a, i, index, b) =
                    (self.array(), self.inner(), self.entry_index(), self.value());
                self.line(&format!("{b} = array_set {a}, index {index}, value {i}"));
                self.set_array(b);
            }
        }
    }

    /// A few operations, and possibly a diamond around more of them
    /// (`depth` levels at most); ends in the block it leaves open.
    fn region(&mut self, depth: u32) {
        for _ in 0..self.rng.range(1, 4) {
            if depth > 0 && self.rng.below(3) == 0 {
                self.diamond(depth - 1);
            } else {
                self.op();
            }
        }
    }

    fn diamond(&mut self, depth: u32) {
        let condition = match self.rng.below(2) {
            0 => "v4".to_string(),
            _ => {
                let c = self.value();
                let k = self.rng.below(4);
                self.line(&format!("{c} = eq v6, u32 {k}"));
                c
            }
        };
        let (then_block, else_block, join) =
            (self.next_block, self.next_block + 1, self.next_block + 2);
        self.next_block += 3;
        self.line(&format!(
            "jmpif {condition} then: b{then_block}(), else: b{else_block}()"
        ));
        let state = (self.array.clone(), self.acc.clone());
        for arm in [then_block, else_block] {
            (self.array, self.acc) = state.clone();
            let _ = writeln!(self.text, "  b{arm}():");
            self.region(depth);
            let passed = match self.references {
                true => String::new(),
                false => format!("{}, {}", self.array, self.acc),
            };
            self.line(&format!("jmp b{join}({passed})"));
        }
        if self.references {
            let _ = writeln!(self.text, "  b{join}():");
        } else {
            let (a, acc, nested) = (self.value(), self.value(), self.nested());
            let _ = writeln!(self.text, "  b{join}({a}: {nested}, {acc}: Field):");
            (self.array, self.acc) = (a, acc);
        }
    }

    /// The cells, and the array kept in `v8` (references), or the first
    /// array `v5` and the accumulator `v3` (values).
    fn prologue(&mut self) {
        let nested = self.nested();
        if !self.references {
            self.line(&format!(
                "v5 = make_array [Field 1, v3, Field 2, Field 3] : {nested}"
            ));
            (self.array, self.acc) = ("v5".to_string(), "v3".to_string());
            return;
        }
        for k in 0..CELLS {
            self.line(&format!("v{} = allocate -> &mut Field", 10 + k));
            self.line(&format!("store Field {k} at v{}", 10 + k));
        }
        self.line("v9 = allocate -> &mut Field");
        self.line("store v3 at v9");
        self.line(&format!("v8 = allocate -> &mut {nested}"));
        self.line(&format!("v5 = make_array [v10, v11, v12, v10] : {nested}"));
        self.line("store v5 at v8");
    }

    fn epilogue(&mut self) {
        if !self.references {
            let returned = format!("return {}, {}", self.acc, self.array);
            self.line(&returned);
            return;
        }
        let loads: Vec<String> = (0..=CELLS)
            .map(|k| {
                let (cell, x) = (if k == CELLS { 9 } else { 10 + k }, self.value());
                self.line(&format!("{x} = load v{cell} -> Field"));
                x
            })
            .collect();
        self.line(&format!("return {}", loads.join(", ")));
    }
}

/// The program of `seed` (see the module docs).
pub fn generate_flat_arrays(seed: u64, config: FlatArrays) -> Module {
    let mut w = Writer {
        rng: Rng::new(seed),
        references: config.references,
        text: String::new(),
        next_value: 10 + CELLS as u32,
        next_block: 1,
        array: String::new(),
        acc: String::new(),
    };
    w.text.push_str(
        "acir(inline) fn main f0 {\n  b0(v0: u32, v1: u32, v2: u64, v3: Field, v4: u1):\n",
    );
    w.line("v6 = mod v0, u32 4");
    w.line("v7 = mod v1, u32 2");
    w.prologue();
    for _ in 0..config.ops.div_ceil(3) {
        w.region(2);
    }
    w.epilogue();
    w.text.push_str("}\n");
    parse_module(&w.text)
        .unwrap_or_else(|e| panic!("generated program of seed {seed}: {e}\n{}", w.text))
}
