//! Structured programs: diamonds, counted and while loops, early returns,
//! calls, references (in references, in arrays, as block parameters and
//! call arguments) and arithmetic that traps only when asked to.
//!
//! The generator never builds an unstructured edge: every construct is a
//! single-entry region whose exit is the block the cursor stands in when it
//! returns, so values in scope are exactly those of the enclosing regions
//! (a stack of pools truncated on region exit keeps SSA dominance).
//!
//! Two static facts are tracked per value so that programs do not trap by
//! accident:
//! - an upper bound on the number of significant bits of every integer (and
//!   `Field`) value, so that checked `add`/`mul`/casts are emitted only when
//!   they cannot overflow, unless a risky operation is drawn on purpose
//!   ([`CfgConfig::trap`]);
//! - every reference in a pool has been stored to, and memory cells of
//!   integer type only ever receive values of at most [`MEM_BITS`] bits.
//!
//! Termination: a region is generated against a fuel budget, the number of
//! instructions (terminators included) one execution of it may run at most.
//! Loops divide the budget of their body by their trip bound, calls are
//! emitted only when the callee's bound fits, so the whole function's bound
//! stays under [`CfgConfig::fuel`].

use crate::generate::CfgConfig;
use crate::generate::Rng;
use std::sync::Arc;

use kildall_ir::{
    BinaryOp, Block, Builtin, ConstValue, FuncCursor, FuncId, Function, Module, Terminator, Type,
    Value,
};

mod enumerate;
mod ops;
mod regions;
mod slices;

/// Memory cells and array elements of integer type hold values of at most
/// this many bits; values passed to or returned from calls too.
const MEM_BITS: u16 = 16;
/// Bits of a `Field` value nothing is known about.
const FIELD_BITS: u16 = 254;
/// The most instructions one straight-line operation emits (calls aside).
const OP_COST: u64 = 24;
/// Fuel kept back in every region for what follows its last operation.
const TAIL: u64 = 40;
/// Fuel of one loop latch at most: counter, carried values, jump.
const LATCH: u64 = 16;
/// Fuel of one loop header at most.
const HEADER: u64 = 8;

/// The kinds of values the generator keeps pools of.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Bool,
    U32,
    U64,
    Field,
    RefField,
    RefU32,
    /// `&mut &mut Field`.
    RefRef,
    /// `[u32; 4]`.
    ArrU32,
    /// `[&mut Field; 3]`.
    ArrRef,
    /// `&mut [u32; 4]`.
    RefArr,
    /// `&Field`.
    ImmRefField,
}

const KINDS: usize = 11;
const U32_ARRAY_LEN: u64 = 4;
const REF_ARRAY_LEN: u64 = 3;

impl Kind {
    fn ty(self) -> Type {
        match self {
            Kind::Bool => Type::BOOL,
            Kind::U32 => Type::U32,
            Kind::U64 => Type::Unsigned(64),
            Kind::Field => Type::Field,
            Kind::RefField => Type::reference(Type::Field),
            Kind::RefU32 => Type::reference(Type::U32),
            Kind::RefRef => Type::reference(Type::reference(Type::Field)),
            Kind::ArrU32 => Type::array(Type::U32, U32_ARRAY_LEN as u32),
            Kind::ArrRef => Type::array(Type::reference(Type::Field), REF_ARRAY_LEN as u32),
            Kind::RefArr => Type::reference(Kind::ArrU32.ty()),
            Kind::ImmRefField => Type::ImmutableReference(Arc::new(Type::Field)),
        }
    }

    /// The bit width of integer kinds, `FIELD_BITS` for `Field`.
    fn width(self) -> u16 {
        match self {
            Kind::Bool => 1,
            Kind::U32 => 32,
            Kind::U64 => 64,
            Kind::Field => FIELD_BITS,
            _ => 0,
        }
    }

    fn is_int(self) -> bool {
        matches!(self, Kind::U32 | Kind::U64)
    }
}

/// A function's signature in kinds.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Sig {
    params: Vec<Kind>,
    returns: Vec<Kind>,
}

/// A value and the bound on its significant bits (0 for non-numeric kinds).
#[derive(Copy, Clone, Debug)]
struct Item {
    value: Value,
    bits: u16,
}

fn bits_of(value: u128) -> u16 {
    (128 - value.leading_zeros()).max(1) as u16
}

/// Generates a module; returns it with the fuel bound of `main`.
pub(crate) fn generate(seed: u64, config: &CfgConfig) -> (Module, u64) {
    let mut rng = Rng::new(seed);
    let functions = config.functions.max(1);
    let sigs: Vec<Sig> = (0..functions)
        .map(|index| signature(&mut rng, config, index))
        .collect();
    let closures = if config.enumerate > 0 {
        enumerate::closure_signatures(&mut rng, config)
    } else {
        Vec::new()
    };
    let blocks = config.blocks.max(1);
    let main_blocks = if functions == 1 {
        blocks
    } else {
        (blocks / 2).max(1)
    };
    let helper_blocks = (blocks - main_blocks.min(blocks)) / functions.saturating_sub(1).max(1);

    // Callees have larger indices (the closures come last), so generating
    // backwards knows every callee's fuel bound before its callers need it.
    let total = functions + closures.len();
    let mut bodies: Vec<Option<Function>> = vec![None; total];
    let mut costs: Vec<u64> = vec![u64::MAX; total];
    for index in (0..total).rev() {
        let closure = index.checked_sub(functions).map(|c| &closures[c]);
        let (quota, fuel, name, returns) = match closure {
            Some(closure) => (
                helper_blocks.clamp(1, enumerate::CLOSURE_BLOCKS),
                config.fuel / enumerate::CLOSURE_FUEL_DIVISOR,
                format!("closure{index}"),
                vec![closure.entry],
            ),
            None if index == 0 => (
                main_blocks,
                config.fuel,
                "main".to_string(),
                sigs[0].returns.clone(),
            ),
            None => (
                helper_blocks.max(1),
                config.fuel / 8,
                format!("helper{index}"),
                sigs[index].returns.clone(),
            ),
        };
        let mut gen = FnGen {
            rng: std::mem::replace(&mut rng, Rng::new(0)),
            config,
            func: Function::new(name),
            sigs: &sigs,
            closures: &closures,
            returns,
            costs: costs.clone(),
            this: index,
            block: Block::from_u32(0),
            pools: Default::default(),
            cost: 0,
            budget: fuel.saturating_sub(TAIL),
            blocks_made: 0,
            terminated: false,
            remaining: 1,
        };
        match closure {
            Some(closure) => gen.closure_body(quota, closure),
            None => gen.body(quota),
        }
        rng = gen.rng;
        costs[index] = gen.cost;
        bodies[index] = Some(gen.func);
    }
    let mut module = Module::new();
    for body in bodies {
        module.push(body.expect("every function generated"));
    }
    (module, costs[0])
}

fn signature(rng: &mut Rng, config: &CfgConfig, index: usize) -> Sig {
    if index == 0 {
        // `main` sees arbitrary inputs and returns only plain values, so
        // runs before and after a pass compare directly.
        return Sig {
            params: vec![Kind::U32, Kind::U32, Kind::U64, Kind::Field, Kind::Bool],
            returns: vec![Kind::Field, Kind::U32],
        };
    }
    let mut params_from = vec![Kind::U32, Kind::Field, Kind::U64, Kind::Bool];
    let mut returns_from = vec![Kind::U32, Kind::Field];
    if config.memory > 0 {
        params_from.extend([Kind::RefField, Kind::RefField, Kind::RefU32]);
        returns_from.push(Kind::RefField);
    }
    if config.nested_references > 0 {
        params_from.push(Kind::RefRef);
    }
    if config.reference_arrays > 0 {
        params_from.push(Kind::ArrRef);
        returns_from.push(Kind::ArrRef);
    }
    if config.arrays > 0 {
        params_from.push(Kind::ArrU32);
        returns_from.push(Kind::ArrU32);
        if config.memory > 0 {
            params_from.push(Kind::RefArr);
        }
    }
    if config.immutable_references > 0 {
        params_from.push(Kind::ImmRefField);
    }
    let params = (0..rng.range(1, 4))
        .map(|_| params_from[rng.index(params_from.len())])
        .collect();
    let returns = (0..rng.range(1, 2))
        .map(|_| returns_from[rng.index(returns_from.len())])
        .collect();
    Sig { params, returns }
}

/// The generator of one function body.
struct FnGen<'a> {
    rng: Rng,
    config: &'a CfgConfig,
    func: Function,
    sigs: &'a [Sig],
    /// The closures of `vector_enumerate`, functions `sigs.len()` onwards.
    closures: &'a [enumerate::ClosureSig],
    /// What the function returns.
    returns: Vec<Kind>,
    /// Fuel bounds of the functions generated so far (callees).
    costs: Vec<u64>,
    this: usize,
    /// The block being filled.
    block: Block,
    /// Values in scope, per kind; regions truncate them on exit.
    pools: [Vec<Item>; KINDS],
    /// The fuel bound of the current region so far (its longest path).
    cost: u64,
    /// The most fuel the current region may use.
    budget: u64,
    blocks_made: usize,
    /// Whether the current block already ended in a `return`.
    terminated: bool,
    /// Blocks the current region has yet to make (calls are sized by it).
    remaining: usize,
}

type Mark = [usize; KINDS];

/// The construct a region opens after a straight-line chunk.
#[derive(Copy, Clone)]
enum Construct {
    Diamond,
    CountedLoop,
    WhileLoop,
    Jump,
}

impl FnGen<'_> {
    // ----- plumbing -----

    fn cursor(&mut self) -> FuncCursor<'_> {
        FuncCursor::new(&mut self.func).at_bottom(self.block)
    }

    fn new_block(&mut self) -> Block {
        self.blocks_made += 1;
        FuncCursor::new(&mut self.func).append_block()
    }

    fn room(&self) -> u64 {
        self.budget.saturating_sub(self.cost)
    }

    fn mark(&self) -> Mark {
        std::array::from_fn(|k| self.pools[k].len())
    }

    fn reset(&mut self, mark: &Mark) {
        for (pool, &len) in self.pools.iter_mut().zip(mark) {
            pool.truncate(len);
        }
    }

    fn push(&mut self, kind: Kind, value: Value, bits: u16) {
        self.pools[kind as usize].push(Item { value, bits });
    }

    fn konst(&mut self, value: u128, kind: Kind) -> Item {
        let v = self
            .func
            .dfg
            .constant(ConstValue::from_u128(value), kind.ty());
        Item {
            value: v,
            bits: bits_of(value),
        }
    }

    /// A random constant of an integer, boolean or `Field` kind, usually small.
    fn random_const(&mut self, kind: Kind) -> Item {
        let value = match kind {
            Kind::Bool => u128::from(self.rng.below(2)),
            _ if self.rng.chance(0.8) => u128::from(self.rng.below(64)),
            _ => u128::from(self.rng.below(1 << MEM_BITS)),
        };
        self.konst(value, kind)
    }

    fn bin(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        self.cost += 1;
        self.cursor().binary(op, a, b)
    }

    fn truncate(&mut self, item: Item, kind: Kind, bits: u16) -> Item {
        if item.bits <= bits {
            return item;
        }
        self.cost += 1;
        let max = u32::from(kind.width());
        let value = self.cursor().truncate(item.value, u32::from(bits), max);
        Item { value, bits }
    }

    /// Picks a value of `kind` in scope, preferring recent ones (locality
    /// makes live ranges realistic); `None` if the pool is empty.
    fn pick(&mut self, kind: Kind) -> Option<Item> {
        let len = self.pools[kind as usize].len();
        if len == 0 {
            return None;
        }
        let index = if self.rng.chance(0.75) {
            len - 1 - self.rng.index(len.min(8))
        } else {
            self.rng.index(len)
        };
        Some(self.pools[kind as usize][index])
    }

    /// A value of `kind`: from the pool, or made (constants for numbers,
    /// initialised cells for references).
    fn get(&mut self, kind: Kind) -> Item {
        let reuse = match kind {
            Kind::Bool | Kind::U32 | Kind::U64 | Kind::Field => 0.85,
            _ => 0.9,
        };
        if self.rng.chance(reuse) {
            if let Some(item) = self.pick(kind) {
                return item;
            }
        }
        self.make(kind)
    }

    /// A value of an integer or `Field` kind of at most `bits` bits.
    fn get_small(&mut self, kind: Kind, bits: u16) -> Item {
        let item = self.get(kind);
        if kind == Kind::Bool {
            return item;
        }
        self.truncate(item, kind, bits)
    }

    /// A value fit for `kind` crossing a call, a memory cell or a join:
    /// integers narrowed to `MEM_BITS`.
    fn get_passable(&mut self, kind: Kind) -> Item {
        if kind.is_int() {
            self.get_small(kind, MEM_BITS)
        } else {
            self.get(kind)
        }
    }

    fn make(&mut self, kind: Kind) -> Item {
        let item = match kind {
            Kind::Bool => {
                if let (true, Some(a)) = (self.rng.chance(0.7), self.pick(Kind::U32)) {
                    let b = self.random_const(Kind::U32);
                    let value = self.bin(BinaryOp::Lt, a.value, b.value);
                    Item { value, bits: 1 }
                } else {
                    self.random_const(Kind::Bool)
                }
            }
            Kind::U32 | Kind::U64 | Kind::Field => self.random_const(kind),
            Kind::RefField | Kind::RefU32 | Kind::RefRef | Kind::RefArr => {
                let pointee = match kind {
                    Kind::RefField => Kind::Field,
                    Kind::RefU32 => Kind::U32,
                    Kind::RefRef => Kind::RefField,
                    _ => Kind::ArrU32,
                };
                let init = self.get_passable(pointee);
                self.cost += 2;
                let mut cursor = self.cursor();
                let value = cursor.allocate(pointee.ty());
                cursor.store(init.value, value);
                Item { value, bits: 0 }
            }
            Kind::ArrU32 | Kind::ArrRef => {
                let (element, len) = if kind == Kind::ArrU32 {
                    (Kind::U32, U32_ARRAY_LEN)
                } else {
                    (Kind::RefField, REF_ARRAY_LEN)
                };
                let elements = (0..len).map(|_| self.get_passable(element).value).collect();
                self.cost += 1;
                let value = self.cursor().make_array(elements, kind.ty());
                Item { value, bits: 0 }
            }
            Kind::ImmRefField => {
                let cell = self.get(Kind::RefField).value;
                self.cost += 1;
                let value = self.view(cell);
                Item { value, bits: 0 }
            }
        };
        self.push(kind, item.value, item.bits);
        item
    }
}
