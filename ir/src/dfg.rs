//! The data flow graph: instructions, values, blocks and their parameters,
//! without any order (the [`Layout`](crate::Layout) holds the order).

use std::collections::HashMap;
use std::ops::{Index, IndexMut};

use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::{PrimaryMap, SecondaryMap};

use crate::{
    Block, ConstValue, ForeignId, FuncId, GlobalId, Inst, InstructionData, Terminator, Type, Value,
};

/// Where a value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ValueDef {
    /// Result number `n` of an instruction.
    Result(Inst, u32),
    /// Parameter number `n` of a block.
    Param(Block, u32),
    /// A numeric constant of the value's type.
    Const(ConstValue),
    /// A global of the module, written `gN`.
    Global(GlobalId),
    /// A function of the module as a value of type `function`, written
    /// `fN` (Noir's SSA before defunctionalization).
    Function(FuncId),
    /// Another value this one was replaced by; see [`DataFlowGraph::resolve`].
    Alias(Value),
    /// No definition: an index skipped by the text's numbering, or a value
    /// detached from a removed instruction.
    Unused,
}

/// A value's type, by its index in the graph's [`TypePool`], and its
/// definition ([`DataFlowGraph::value_def`]): 12 bytes.
#[derive(Copy, Clone, Debug)]
struct ValueData {
    ty: u32,
    def: PackedDef,
}

/// The distinct types of a graph's values, each held once: a function has
/// millions of values and a few dozen types, and a [`Type`] takes 24 bytes
/// where its index takes 4.
#[derive(Clone, Default)]
struct TypePool {
    types: Vec<Type>,
    ids: HashMap<Type, u32>,
}

impl TypePool {
    fn intern(&mut self, ty: Type) -> u32 {
        if let Some(&id) = self.ids.get(&ty) {
            return id;
        }
        let id = self.types.len() as u32;
        self.types.push(ty.clone());
        self.ids.insert(ty, id);
        id
    }

    fn get(&self, id: u32) -> &Type {
        &self.types[id as usize]
    }
}

/// A [`ValueDef`] as a value's data holds it: a constant by its index in
/// the graph's pool of constants, so that the data of every value (most
/// are results) stays small; packed into 8 bytes by [`PackedDef`].
#[derive(Copy, Clone, Debug)]
enum StoredDef {
    Result(Inst, u32),
    Param(Block, u32),
    Const(u32),
    Global(GlobalId),
    Function(FuncId),
    Alias(Value),
    Unused,
}

/// A [`StoredDef`] in 8 bytes instead of 12, so that a value's data is 32
/// bytes: the kind in the top three bits of `kind_index`, a result's or
/// parameter's number in the 29 bits below, and the entity in `entity`.
#[derive(Copy, Clone, Debug)]
struct PackedDef {
    kind_index: u32,
    entity: u32,
}

/// The bits of [`PackedDef::kind_index`] below the kind.
const INDEX_BITS: u32 = 29;

impl StoredDef {
    fn pack(self) -> PackedDef {
        let (kind, index, entity) = match self {
            StoredDef::Result(inst, n) => (0, n, inst.as_u32()),
            StoredDef::Param(block, n) => (1, n, block.as_u32()),
            StoredDef::Const(index) => (2, 0, index),
            StoredDef::Global(global) => (3, 0, global.as_u32()),
            StoredDef::Function(function) => (4, 0, function.as_u32()),
            StoredDef::Alias(target) => (5, 0, target.as_u32()),
            StoredDef::Unused => (6, 0, 0),
        };
        // A result or parameter number needs as many values before it: the
        // 2^29 th would take 16 GiB of value data.
        assert!(
            index < 1 << INDEX_BITS,
            "result or parameter number {index} is too large"
        );
        PackedDef {
            kind_index: kind << INDEX_BITS | index,
            entity,
        }
    }
}

impl PackedDef {
    fn unpack(self) -> StoredDef {
        let index = self.kind_index & ((1 << INDEX_BITS) - 1);
        let entity = self.entity;
        match self.kind_index >> INDEX_BITS {
            0 => StoredDef::Result(Inst::from_u32(entity), index),
            1 => StoredDef::Param(Block::from_u32(entity), index),
            2 => StoredDef::Const(entity),
            3 => StoredDef::Global(GlobalId::from_u32(entity)),
            4 => StoredDef::Function(FuncId::from_u32(entity)),
            5 => StoredDef::Alias(Value::from_u32(entity)),
            _ => StoredDef::Unused,
        }
    }
}

/// The results of every instruction: the one result most have in a dense
/// table, the lists of the few with several (calls) in a map of their own,
/// so that an instruction's results take 4 bytes, not the 20 of a pooled
/// list.
#[derive(Clone)]
struct InstResults {
    /// The result of an instruction with exactly one, reserved otherwise.
    single: SecondaryMap<Inst, Value>,
    /// The results of an instruction with two or more.
    several: HashMap<Inst, Vec<Value>>,
}

impl Default for InstResults {
    fn default() -> Self {
        InstResults {
            single: SecondaryMap::with_default(Value::reserved_value()),
            several: HashMap::new(),
        }
    }
}

impl InstResults {
    fn get(&self, inst: Inst) -> &[Value] {
        let single = &self.single[inst];
        if single.is_reserved_value() {
            self.several.get(&inst).map_or(&[], Vec::as_slice)
        } else {
            std::slice::from_ref(single)
        }
    }

    /// Appends `value` to the results of `inst`, giving its number.
    fn push(&mut self, inst: Inst, value: Value) -> u32 {
        let index = self.get(inst).len();
        match index {
            0 => self.single[inst] = value,
            1 => {
                let first = std::mem::replace(&mut self.single[inst], Value::reserved_value());
                self.several.insert(inst, vec![first, value]);
            }
            _ => self.several.entry(inst).or_default().push(value),
        }
        index as u32
    }

    /// Removes and gives the results of `inst` (allocating nothing for
    /// one result).
    fn take(&mut self, inst: Inst) -> impl Iterator<Item = Value> {
        let single = std::mem::replace(&mut self.single[inst], Value::reserved_value());
        let several = if single.is_reserved_value() {
            self.several.remove(&inst).unwrap_or_default()
        } else {
            Vec::new()
        };
        (!single.is_reserved_value())
            .then_some(single)
            .into_iter()
            .chain(several)
    }
}

/// A block's parameters and terminator.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BlockData {
    /// The parameters, bound by the arguments of the jumps into the block.
    pub params: Vec<Value>,
    /// The terminator; `None` while the block is being built.
    pub terminator: Option<Terminator>,
}

/// Instructions, values and blocks of one function.
#[derive(Clone, Default)]
pub struct DataFlowGraph {
    insts: PrimaryMap<Inst, InstructionData>,
    results: InstResults,
    values: PrimaryMap<Value, ValueData>,
    types: TypePool,
    /// The constants of [`StoredDef::Const`] values.
    const_values: Vec<ConstValue>,
    blocks: PrimaryMap<Block, BlockData>,
    constants: HashMap<(Type, ConstValue), Value>,
    globals: HashMap<GlobalId, Value>,
    functions: HashMap<FuncId, Value>,
    foreign_names: PrimaryMap<ForeignId, String>,
    foreign_ids: HashMap<String, ForeignId>,
}

impl DataFlowGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    // ----- blocks -----

    /// Creates a block with no parameters and no terminator. It is not in the
    /// layout until appended there.
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// The number of blocks created (including those not in the layout).
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Whether `block` is a block of this graph.
    pub fn block_is_valid(&self, block: Block) -> bool {
        self.blocks.is_valid(block)
    }

    /// Appends a parameter of type `ty` to `block`.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let index = self.blocks[block].params.len() as u32;
        let ty = self.types.intern(ty);
        let value = self.values.push(ValueData {
            ty,
            def: StoredDef::Param(block, index).pack(),
        });
        self.blocks[block].params.push(value);
        value
    }

    /// Makes `value`, created by [`make_unused_value`](Self::make_unused_value),
    /// the next parameter of `block`.
    pub fn attach_block_param(&mut self, block: Block, value: Value, ty: Type) {
        let index = self.blocks[block].params.len() as u32;
        self.values[value] = ValueData {
            ty: self.types.intern(ty),
            def: StoredDef::Param(block, index).pack(),
        };
        self.blocks[block].params.push(value);
    }

    /// Removes parameter `index` of `block`, renumbering the ones after it.
    /// The caller updates the jumps into the block.
    pub fn remove_block_param(&mut self, block: Block, index: usize) {
        let removed = self.blocks[block].params.remove(index);
        self.values[removed].def = StoredDef::Unused.pack();
        for (i, &value) in self.blocks[block].params.iter().enumerate().skip(index) {
            self.values[value].def = StoredDef::Param(block, i as u32).pack();
        }
    }

    /// The parameters of `block`.
    pub fn block_params(&self, block: Block) -> &[Value] {
        &self.blocks[block].params
    }

    /// The terminator of `block`, once set.
    pub fn terminator(&self, block: Block) -> Option<&Terminator> {
        self.blocks[block].terminator.as_ref()
    }

    /// The terminator of `block`, mutably.
    pub fn terminator_mut(&mut self, block: Block) -> Option<&mut Terminator> {
        self.blocks[block].terminator.as_mut()
    }

    /// Sets the terminator of `block`, returning the previous one.
    pub fn set_terminator(&mut self, block: Block, terminator: Terminator) -> Option<Terminator> {
        self.blocks[block].terminator.replace(terminator)
    }

    /// Removes the terminator of `block`.
    pub fn take_terminator(&mut self, block: Block) -> Option<Terminator> {
        self.blocks[block].terminator.take()
    }

    /// The successors of `block` (none while it has no terminator).
    pub fn successors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        self.terminator(block)
            .into_iter()
            .flat_map(Terminator::successors)
    }

    // ----- instructions -----

    /// Creates an instruction with no results. It is not in the layout until
    /// inserted there.
    pub fn make_inst(&mut self, data: InstructionData) -> Inst {
        self.insts.push(data)
    }

    /// The number of instructions created (including removed ones).
    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }

    /// Appends a result of type `ty` to `inst`.
    pub fn append_result(&mut self, inst: Inst, ty: Type) -> Value {
        let ty = self.types.intern(ty);
        let value = self.values.push(ValueData {
            ty,
            def: StoredDef::Unused.pack(),
        });
        let index = self.results.push(inst, value);
        self.values[value].def = StoredDef::Result(inst, index).pack();
        value
    }

    /// Makes `value`, created by [`make_unused_value`](Self::make_unused_value),
    /// the next result of `inst`.
    pub fn attach_result(&mut self, inst: Inst, value: Value, ty: Type) {
        let index = self.results.push(inst, value);
        self.values[value] = ValueData {
            ty: self.types.intern(ty),
            def: StoredDef::Result(inst, index).pack(),
        };
    }

    /// The results of `inst`.
    pub fn inst_results(&self, inst: Inst) -> &[Value] {
        self.results.get(inst)
    }

    /// The first result of `inst`, if it has one.
    pub fn first_result(&self, inst: Inst) -> Option<Value> {
        self.inst_results(inst).first().copied()
    }

    /// Detaches the results of `inst` (they become [`ValueDef::Unused`]), as
    /// when the instruction is removed.
    pub fn detach_results(&mut self, inst: Inst) {
        for value in self.results.take(inst) {
            self.values[value].def = StoredDef::Unused.pack();
        }
    }

    // ----- values -----

    /// Reserves room for `values` more values and `blocks` more blocks, so
    /// that a graph whose size is known up front (the parser reads the
    /// largest numbers first) grows its tables once.
    pub fn reserve(&mut self, values: usize, blocks: usize) {
        self.values.reserve(values);
        self.blocks.reserve(blocks);
    }

    /// Creates a value with no definition, to be attached later as a result or
    /// parameter (the parser uses this to keep the text's value numbers).
    pub fn make_unused_value(&mut self) -> Value {
        let ty = self.types.intern(Type::Field);
        self.values.push(ValueData {
            ty,
            def: StoredDef::Unused.pack(),
        })
    }

    /// The number of values created.
    pub fn num_values(&self) -> usize {
        self.values.len()
    }

    /// Whether `value` is a value of this graph.
    pub fn value_is_valid(&self, value: Value) -> bool {
        self.values.is_valid(value)
    }

    /// The type of `value`.
    pub fn value_type(&self, value: Value) -> &Type {
        self.types.get(self.values[value].ty)
    }

    /// The definition of `value` (aliases not resolved).
    pub fn value_def(&self, value: Value) -> ValueDef {
        match self.values[value].def.unpack() {
            StoredDef::Result(inst, n) => ValueDef::Result(inst, n),
            StoredDef::Param(block, n) => ValueDef::Param(block, n),
            StoredDef::Const(index) => ValueDef::Const(self.const_values[index as usize]),
            StoredDef::Global(global) => ValueDef::Global(global),
            StoredDef::Function(function) => ValueDef::Function(function),
            StoredDef::Alias(target) => ValueDef::Alias(target),
            StoredDef::Unused => ValueDef::Unused,
        }
    }

    /// All values with their types, in index order.
    pub fn values(&self) -> impl Iterator<Item = (Value, &Type)> {
        self.values
            .iter()
            .map(|(value, data)| (value, self.types.get(data.ty)))
    }

    /// The constant `value` of type `ty`, interned: the same constant is the
    /// same value.
    pub fn constant(&mut self, value: ConstValue, ty: Type) -> Value {
        if let Some(&existing) = self.constants.get(&(ty.clone(), value)) {
            return existing;
        }
        let index = self.const_values.len() as u32;
        self.const_values.push(value);
        let v = self.values.push(ValueData {
            ty: self.types.intern(ty.clone()),
            def: StoredDef::Const(index).pack(),
        });
        self.constants.insert((ty, value), v);
        v
    }

    /// The value naming global `global` of type `ty` (the global's type),
    /// interned: one value per global.
    pub fn global(&mut self, global: GlobalId, ty: Type) -> Value {
        if let Some(&existing) = self.globals.get(&global) {
            return existing;
        }
        let v = self.values.push(ValueData {
            ty: self.types.intern(ty),
            def: StoredDef::Global(global).pack(),
        });
        self.globals.insert(global, v);
        v
    }

    /// The value naming function `function` of the module, of type
    /// `function`, interned: one value per function.
    pub fn function_ref(&mut self, function: FuncId) -> Value {
        if let Some(&existing) = self.functions.get(&function) {
            return existing;
        }
        let v = self.values.push(ValueData {
            ty: self.types.intern(Type::Function),
            def: StoredDef::Function(function).pack(),
        });
        self.functions.insert(function, v);
        v
    }

    /// Rewrites the function every [`ValueDef::Function`] value names
    /// through `f` (the parser numbers functions as the text does, then
    /// densely).
    pub fn map_function_refs(&mut self, mut f: impl FnMut(FuncId) -> FuncId) {
        let old = std::mem::take(&mut self.functions);
        for (_, value) in old {
            if let StoredDef::Function(function) = self.values[value].def.unpack() {
                let mapped = f(function);
                self.values[value].def = StoredDef::Function(mapped).pack();
                self.functions.insert(mapped, value);
            }
        }
    }

    /// The id of the foreign (oracle) function named `name`, interned.
    pub fn foreign(&mut self, name: &str) -> ForeignId {
        if let Some(&id) = self.foreign_ids.get(name) {
            return id;
        }
        let id = self.foreign_names.push(name.to_string());
        self.foreign_ids.insert(name.to_string(), id);
        id
    }

    /// The name of foreign function `id`.
    pub fn foreign_name(&self, id: ForeignId) -> &str {
        self.foreign_names.get(id).map_or("", String::as_str)
    }

    /// The constant `value` of type `ty`, from a `u128`.
    pub fn constant_u128(&mut self, value: u128, ty: Type) -> Value {
        self.constant(ConstValue::from_u128(value), ty)
    }

    /// The constant a value holds, aliases resolved.
    pub fn const_value(&self, value: Value) -> Option<ConstValue> {
        match self.values[self.resolve(value)].def.unpack() {
            StoredDef::Const(index) => Some(self.const_values[index as usize]),
            _ => None,
        }
    }

    /// The value `value` stands for: aliases followed to the end.
    pub fn resolve(&self, mut value: Value) -> Value {
        // Aliases never form a cycle: `replace_all_uses` resolves its target first.
        while let StoredDef::Alias(target) = self.values[value].def.unpack() {
            value = target;
        }
        value
    }

    /// Replaces every use of `old` by `new` in O(1): `old` becomes an alias of
    /// `new`. Operands still name `old` until [`resolve_aliases`](Self::resolve_aliases)
    /// rewrites them; readers call [`resolve`](Self::resolve).
    ///
    /// `old` must no longer be defined by an instruction or parameter the
    /// caller keeps (its definition is dropped).
    pub fn replace_all_uses(&mut self, old: Value, new: Value) {
        let new = self.resolve(new);
        if old != new {
            self.values[old].def = StoredDef::Alias(new).pack();
        }
    }

    /// Rewrites every operand and terminator argument to its resolved value,
    /// in one linear pass.
    pub fn resolve_aliases(&mut self) {
        let Self {
            insts,
            values,
            blocks,
            ..
        } = self;
        let resolve = |mut v: Value| {
            while let StoredDef::Alias(target) = values[v].def.unpack() {
                v = target;
            }
            v
        };
        for data in insts.values_mut() {
            data.map_values(resolve);
        }
        for block in blocks.values_mut() {
            if let Some(terminator) = &mut block.terminator {
                terminator.map_values(resolve);
            }
        }
    }
}

impl Index<Inst> for DataFlowGraph {
    type Output = InstructionData;
    fn index(&self, inst: Inst) -> &InstructionData {
        &self.insts[inst]
    }
}

impl IndexMut<Inst> for DataFlowGraph {
    fn index_mut(&mut self, inst: Inst) -> &mut InstructionData {
        &mut self.insts[inst]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value has this data, so its size is the IR's memory per value
    /// (Cranelift checks its `InstructionData` the same way).
    /// One result in the dense table, several in the map, moved there by
    /// the second; detaching either kind leaves no result behind.
    #[test]
    fn results_one_and_several() {
        let mut dfg = DataFlowGraph::new();
        let none = dfg.make_inst(InstructionData::Nop);
        let one = dfg.make_inst(InstructionData::Allocate);
        let several = dfg.make_inst(InstructionData::Nop);
        let r = dfg.append_result(one, Type::Field);
        let rs: Vec<Value> = (0..3)
            .map(|_| dfg.append_result(several, Type::BOOL))
            .collect();
        assert_eq!(dfg.inst_results(none), &[]);
        assert_eq!(dfg.inst_results(one), &[r]);
        assert_eq!(dfg.inst_results(several), rs.as_slice());
        for (n, &value) in rs.iter().enumerate() {
            assert_eq!(dfg.value_def(value), ValueDef::Result(several, n as u32));
        }
        dfg.detach_results(several);
        dfg.detach_results(one);
        assert_eq!(dfg.inst_results(several), &[]);
        assert_eq!(dfg.inst_results(one), &[]);
        assert_eq!(dfg.value_def(r), ValueDef::Unused);
        assert!(rs.iter().all(|&v| dfg.value_def(v) == ValueDef::Unused));
        let again = dfg.make_unused_value();
        dfg.attach_result(one, again, Type::Field);
        assert_eq!(dfg.value_def(again), ValueDef::Result(one, 0));
    }

    #[test]
    fn value_data_is_12_bytes() {
        assert_eq!(std::mem::size_of::<ValueData>(), 12);
    }
}
