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
use crate::{
    BinaryOp, Block, Builtin, ConstValue, FuncCursor, FuncId, Function, Module, Type, Value,
};

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
}

const KINDS: usize = 10;
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
#[derive(Clone, Debug)]
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
    let blocks = config.blocks.max(1);
    let main_blocks = if functions == 1 {
        blocks
    } else {
        (blocks / 2).max(1)
    };
    let helper_blocks = (blocks - main_blocks.min(blocks)) / functions.saturating_sub(1).max(1);

    // Callees have larger indices, so generating backwards knows every
    // callee's fuel bound before its callers need it.
    let mut bodies: Vec<Option<Function>> = vec![None; functions];
    let mut costs: Vec<u64> = vec![u64::MAX; functions];
    for index in (0..functions).rev() {
        let (quota, fuel) = if index == 0 {
            (main_blocks, config.fuel)
        } else {
            (helper_blocks.max(1), config.fuel / 8)
        };
        let name = if index == 0 {
            "main".to_string()
        } else {
            format!("helper{index}")
        };
        let mut gen = FnGen {
            rng: std::mem::replace(&mut rng, Rng::new(0)),
            config,
            func: Function::new(name),
            sigs: &sigs,
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
        gen.body(quota);
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
        let block = self.block;
        let mut cursor = FuncCursor::new(&mut self.func);
        cursor.goto_bottom(block);
        cursor
    }

    fn new_block(&mut self) -> Block {
        self.blocks_made += 1;
        let block = self.func.dfg.make_block();
        self.func.layout.append_block(block);
        block
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
        };
        self.push(kind, item.value, item.bits);
        item
    }

    // ----- functions and regions -----

    fn body(&mut self, quota: usize) {
        let entry = self.new_block();
        self.block = entry;
        let sig = self.sigs[self.this].clone();
        for &kind in &sig.params {
            let value = self.func.dfg.append_block_param(entry, kind.ty());
            let bits = match kind {
                // `main`'s inputs are arbitrary; callers pass narrow integers.
                Kind::U32 | Kind::U64 if self.this == 0 => kind.width(),
                Kind::U32 | Kind::U64 => MEM_BITS,
                _ => kind.width(),
            };
            self.push(kind, value, bits);
        }
        self.region(0, quota.saturating_sub(1));
        if !self.terminated {
            self.ret(&sig.returns);
        }
    }

    fn ret(&mut self, kinds: &[Kind]) {
        let values = kinds.iter().map(|&k| self.get_passable(k).value).collect();
        self.cost += 1;
        self.cursor().ret(values);
        self.terminated = true;
    }

    /// Fills the current block and, while the block quota lasts, opens
    /// constructs; returns with the cursor in the region's exit block.
    fn region(&mut self, depth: usize, quota: usize) {
        let start = self.blocks_made;
        loop {
            self.remaining = quota.saturating_sub(self.blocks_made - start).max(1);
            self.chunk();
            if self.terminated {
                return;
            }
            let used = self.blocks_made - start;
            if used >= quota || self.room() < TAIL + 2 * OP_COST {
                return;
            }
            let remaining = quota - used;
            let Some(construct) = self.choose_construct(depth, remaining) else {
                return;
            };
            match construct {
                Construct::Diamond => self.diamond(depth, remaining),
                Construct::CountedLoop => self.counted_loop(depth, remaining),
                Construct::WhileLoop => self.while_loop(depth, remaining),
                Construct::Jump => self.jump(),
            }
        }
    }

    fn choose_construct(&mut self, depth: usize, remaining: usize) -> Option<Construct> {
        let c = self.config;
        let nested = depth < c.max_depth && remaining >= 3;
        let weights = [
            (Construct::Diamond, if nested { c.diamonds } else { 0 }),
            (
                Construct::CountedLoop,
                if nested { c.counted_loops } else { 0 },
            ),
            (Construct::WhileLoop, if nested { c.while_loops } else { 0 }),
            (Construct::Jump, c.jumps),
        ];
        let total: u64 = weights.iter().map(|&(_, w)| u64::from(w)).sum();
        if total == 0 {
            return None;
        }
        let mut roll = self.rng.below(total);
        for (construct, weight) in weights {
            if roll < u64::from(weight) {
                return Some(construct);
            }
            roll -= u64::from(weight);
        }
        None
    }

    /// The fuel a construct of `blocks` blocks may use when `remaining`
    /// blocks of the region are still to come: its share of the room, so
    /// that early constructs do not starve later ones; `TAIL` is kept for
    /// what follows.
    fn fair_room(&self, blocks: usize, remaining: usize) -> u64 {
        let room = self.room().saturating_sub(TAIL);
        let share = u128::from(room) * blocks as u128 / remaining.max(1) as u128;
        room.min(u64::try_from(share).unwrap_or(u64::MAX))
    }

    /// The block quota of a nested region: up to `max_region_blocks`.
    fn sub_quota(&mut self, remaining: usize, own: usize) -> usize {
        let available = remaining
            .saturating_sub(own)
            .min(self.config.max_region_blocks);
        self.rng.below(available as u64 + 1) as usize
    }

    /// Runs `region` as a nested region in `block` with its own budget;
    /// returns its fuel bound. The cursor ends in the region's exit block.
    fn nested(&mut self, block: Block, depth: usize, quota: usize, budget: u64) -> u64 {
        let (cost, outer_budget) = (self.cost, self.budget);
        self.cost = 0;
        self.budget = budget;
        self.block = block;
        self.terminated = false;
        self.region(depth, quota);
        let inner = self.cost;
        debug_assert!(inner <= budget, "region over budget");
        self.cost = cost;
        self.budget = outer_budget;
        inner
    }

    fn chunk(&mut self) {
        let insts = self.config.insts_per_block as u64;
        let ops = self.rng.range(insts / 2, insts + insts / 2);
        for _ in 0..ops {
            if self.room() < TAIL + OP_COST {
                break;
            }
            self.op();
        }
    }

    fn condition(&mut self) -> Value {
        if self.rng.chance(0.3) {
            if let Some(item) = self.pick(Kind::Bool) {
                return item.value;
            }
        }
        let kind = if self.rng.chance(0.8) {
            Kind::U32
        } else {
            Kind::Field
        };
        let a = self.get(kind);
        match self.rng.below(3) {
            0 => {
                let one = self.konst(1, kind);
                let low = if kind == Kind::Field {
                    self.truncate(a, kind, 1)
                } else {
                    let value = self.bin(BinaryOp::And, a.value, one.value);
                    Item { value, bits: 1 }
                };
                self.bin(BinaryOp::Eq, low.value, one.value)
            }
            _ => {
                let b = self.get(kind);
                self.bin(BinaryOp::Lt, a.value, b.value)
            }
        }
    }

    /// `jmp` to a fresh block, passing some values through its parameters.
    fn jump(&mut self) {
        let next = self.new_block();
        let mut args = Vec::new();
        let mut params = Vec::new();
        for _ in 0..self.rng.below(3) {
            let kind = self.join_kind();
            let item = self.get_passable(kind);
            let param = self.func.dfg.append_block_param(next, kind.ty());
            args.push(item.value);
            params.push((kind, param, item.bits));
        }
        self.cost += 1;
        self.cursor().jmp(next, args);
        self.block = next;
        for (kind, param, bits) in params {
            self.push(kind, param, bits);
        }
    }

    fn join_kind(&mut self) -> Kind {
        let mut kinds = vec![Kind::U32, Kind::Field, Kind::Bool, Kind::U64];
        if self.config.memory > 0 {
            kinds.extend([Kind::RefField, Kind::RefField]);
        }
        if self.config.reference_arrays > 0 {
            kinds.push(Kind::ArrRef);
        }
        if self.config.arrays > 0 {
            kinds.push(Kind::ArrU32);
        }
        kinds[self.rng.index(kinds.len())]
    }

    fn diamond(&mut self, depth: usize, remaining: usize) {
        let cond = self.condition();
        let then_block = self.new_block();
        let else_block = self.new_block();
        let join = self.new_block();
        self.cost += 1;
        self.cursor().jmpif(cond, then_block, else_block);

        let kinds: Vec<Kind> = (0..self.rng.below(4)).map(|_| self.join_kind()).collect();
        let params: Vec<Value> = kinds
            .iter()
            .map(|k| self.func.dfg.append_block_param(join, k.ty()))
            .collect();
        let quota = self.sub_quota(remaining, 3);
        let then_quota = self.rng.below(quota as u64 + 1) as usize;
        let arm_budget = self.fair_room(quota + 3, remaining).saturating_sub(2);
        let returns = self.sigs[self.this].returns.clone();
        let early = self.rng.chance(self.config.early_return);
        let early_arm = self.rng.below(2);

        let mark = self.mark();
        let mut arm_costs = [0u64; 2];
        let mut bits = vec![0u16; kinds.len()];
        for (arm, (block, quota)) in [(then_block, then_quota), (else_block, quota - then_quota)]
            .into_iter()
            .enumerate()
        {
            let (outer_cost, outer_budget) = (self.cost, self.budget);
            let mut cost = self.nested(block, depth + 1, quota, arm_budget);
            // The arm's tail runs under the arm's budget too.
            (self.cost, self.budget) = (cost, arm_budget + TAIL);
            if !self.terminated {
                if early && arm as u64 == early_arm {
                    self.ret(&returns);
                } else {
                    let mut args = Vec::with_capacity(kinds.len());
                    for (i, &kind) in kinds.iter().enumerate() {
                        let item = self.get_passable(kind);
                        bits[i] = bits[i].max(item.bits);
                        args.push(item.value);
                    }
                    self.cost += 1;
                    self.cursor().jmp(join, args);
                }
            }
            cost = self.cost;
            (self.cost, self.budget) = (outer_cost, outer_budget);
            arm_costs[arm] = cost;
            self.reset(&mark);
        }
        self.cost += arm_costs[0].max(arm_costs[1]);
        self.terminated = false;
        self.block = join;
        for ((&kind, &param), &b) in kinds.iter().zip(&params).zip(&bits) {
            self.push(kind, param, b);
        }
    }

    /// A loop counting `i` from `start` by `step` while `lt i, bound`, or
    /// until `eq i, bound` (both polarities of the branch), with values
    /// carried around the back edge in header parameters.
    fn counted_loop(&mut self, depth: usize, remaining: usize) {
        let c = self.config;
        let mut trips = if self.rng.chance(0.1) {
            0
        } else {
            self.rng.range(1, u64::from(c.max_trip.max(1)))
        };
        // Fit the trip count to the budget: the body needs room for at
        // least a few operations per iteration.
        let quota = self.sub_quota(remaining, 3);
        let room = self.fair_room(quota + 3, remaining);
        let per_trip = HEADER + LATCH + TAIL + 2 * OP_COST;
        if room < HEADER + per_trip {
            return self.jump();
        }
        trips = trips.min((room - HEADER) / per_trip);
        let step = if self.rng.chance(0.6) {
            1
        } else {
            self.rng.range(2, 4)
        };
        let start = self.rng.below(4);
        let style = self.rng.below(3);
        let last = start + trips * step;
        let bound = if style == 0 && trips > 0 {
            // Any bound in (last - step, last] gives the same trip count.
            last - self.rng.below(step)
        } else {
            last
        };
        let body_budget = match (room - HEADER * (trips + 1)).checked_div(trips) {
            Some(per_trip) => per_trip - LATCH,
            None => TAIL,
        };

        let header = self.new_block();
        let body = self.new_block();
        let exit = self.new_block();
        let counter = self.func.dfg.append_block_param(header, Type::U32);
        let mut init = vec![self.konst(u128::from(start), Kind::U32).value];
        let carried_kinds: Vec<Kind> = (0..self.rng.below(3))
            .map(|_| self.carried_kind())
            .collect();
        let mut carried = Vec::new();
        for &kind in &carried_kinds {
            let item = self.get_passable(kind);
            init.push(item.value);
            let param = self.func.dfg.append_block_param(header, kind.ty());
            carried.push((kind, param));
        }
        self.cost += 1;
        self.cursor().jmp(header, init);

        let cost_before = self.cost;
        self.cost = 0;
        self.block = header;
        let bound_value = self.konst(u128::from(bound), Kind::U32).value;
        let counter_bits = bits_of(u128::from(last + step));
        self.push(Kind::U32, counter, counter_bits);
        for &(kind, param) in &carried {
            let bits = if kind.is_int() {
                MEM_BITS
            } else {
                kind.width()
            };
            self.push(kind, param, bits);
        }
        match style {
            0 => {
                let cond = self.bin(BinaryOp::Lt, counter, bound_value);
                self.cursor().jmpif(cond, body, exit);
            }
            1 => {
                let cond = self.bin(BinaryOp::Eq, counter, bound_value);
                self.cursor().jmpif(cond, exit, body);
            }
            _ => {
                let done = self.bin(BinaryOp::Eq, counter, bound_value);
                self.cost += 1;
                let cond = self.cursor().not(done);
                self.cursor().jmpif(cond, body, exit);
            }
        }
        let header_cost = self.cost + 1;
        debug_assert!(header_cost <= HEADER);

        let mark = self.mark();
        let body_cost = self.nested(body, depth + 1, quota, body_budget);
        let latch_cost = if self.terminated {
            0
        } else {
            let (outer_cost, outer_budget) = (self.cost, self.budget);
            self.cost = 0;
            self.budget = LATCH;
            let step_value = self.konst(u128::from(step), Kind::U32).value;
            let next = self.bin(BinaryOp::Add, counter, step_value);
            let mut args = vec![next];
            for &(kind, param) in &carried {
                args.push(self.carried_update(kind, param));
            }
            self.cost += 1;
            self.cursor().jmp(header, args);
            let latch = self.cost;
            debug_assert!(latch <= LATCH);
            (self.cost, self.budget) = (outer_cost, outer_budget);
            latch
        };
        self.reset(&mark);
        self.cost = cost_before + header_cost * (trips + 1) + trips * (body_cost + latch_cost);
        self.terminated = false;
        self.block = exit;
    }

    fn carried_kind(&mut self) -> Kind {
        match self.rng.below(4) {
            0 | 1 => Kind::U32,
            2 => Kind::Field,
            _ if self.config.memory > 0 => Kind::RefField,
            _ => Kind::Field,
        }
    }

    /// The next value of a loop-carried parameter, at most 4 instructions.
    fn carried_update(&mut self, kind: Kind, param: Value) -> Value {
        match kind {
            Kind::U32 => {
                let x = self
                    .pick(Kind::U32)
                    .unwrap_or_else(|| self.konst(1, Kind::U32));
                let x = self.truncate(x, kind, MEM_BITS - 1);
                let sum = self.bin(BinaryOp::Add, param, x.value);
                let item = Item {
                    value: sum,
                    bits: MEM_BITS + 1,
                };
                self.truncate(item, kind, MEM_BITS).value
            }
            Kind::Field => {
                let x = self
                    .pick(Kind::Field)
                    .unwrap_or_else(|| self.konst(3, Kind::Field));
                let op = if self.rng.chance(0.5) {
                    BinaryOp::Add
                } else {
                    BinaryOp::Mul
                };
                self.bin(op, param, x.value)
            }
            _ => self.pick(kind).map_or(param, |item| item.value),
        }
    }

    /// A loop whose exit depends on data (a carried value or a memory
    /// cell), bounded by a hidden iteration counter so that it terminates.
    fn while_loop(&mut self, depth: usize, remaining: usize) {
        let quota = self.sub_quota(remaining, 3);
        let room = self.fair_room(quota + 3, remaining);
        let per_trip = HEADER + LATCH + TAIL + 2 * OP_COST;
        if room < HEADER + per_trip {
            return self.jump();
        }
        let max_trips = self
            .rng
            .range(1, 2 * u64::from(self.config.max_trip.max(1)))
            .min((room - HEADER) / per_trip);
        let body_budget = (room - HEADER * (max_trips + 1)) / max_trips - LATCH;
        let through_memory = self.config.memory > 0 && self.rng.chance(0.5);
        let limit = {
            let n = self.rng.range(1, 40);
            self.konst(u128::from(n), Kind::U32)
        }
        .value;

        let header = self.new_block();
        let body = self.new_block();
        let exit = self.new_block();
        let counter = self.func.dfg.append_block_param(header, Type::U32);
        let zero = self.konst(0, Kind::U32).value;
        let mut init = vec![zero];
        let (cell, data) = if through_memory {
            let cell = self.get(Kind::RefU32).value;
            (Some(cell), None)
        } else {
            let x = self.get_passable(Kind::U32);
            init.push(x.value);
            let param = self.func.dfg.append_block_param(header, Type::U32);
            (None, Some(param))
        };
        self.cost += 1;
        self.cursor().jmp(header, init);

        let cost_before = self.cost;
        self.cost = 0;
        self.block = header;
        self.push(Kind::U32, counter, bits_of(u128::from(max_trips) + 1));
        let max_value = self.konst(u128::from(max_trips), Kind::U32).value;
        let in_range = self.bin(BinaryOp::Lt, counter, max_value);
        let observed = match (cell, data) {
            (Some(cell), _) => {
                self.cost += 1;
                let loaded = self.cursor().load(cell);
                self.push(Kind::U32, loaded, MEM_BITS);
                loaded
            }
            (_, Some(param)) => {
                self.push(Kind::U32, param, MEM_BITS);
                param
            }
            _ => unreachable!("a while loop observes a cell or a parameter"),
        };
        let going = self.bin(BinaryOp::Lt, observed, limit);
        let cond = self.bin(BinaryOp::And, in_range, going);
        self.cursor().jmpif(cond, body, exit);
        let header_cost = self.cost + 1;
        debug_assert!(header_cost <= HEADER);

        let mark = self.mark();
        let body_cost = self.nested(body, depth + 1, quota, body_budget);
        let latch_cost = if self.terminated {
            0
        } else {
            let (outer_cost, outer_budget) = (self.cost, self.budget);
            self.cost = 0;
            self.budget = LATCH;
            let one = self.konst(1, Kind::U32).value;
            let next = self.bin(BinaryOp::Add, counter, one);
            let mut args = vec![next];
            match (cell, data) {
                (Some(cell), _) => {
                    // Move the observed cell towards the limit.
                    self.cost += 1;
                    let now = self.cursor().load(cell);
                    let item = Item {
                        value: now,
                        bits: MEM_BITS,
                    };
                    let bump = {
                        let n = self.rng.range(1, 9);
                        self.konst(u128::from(n), Kind::U32)
                    };
                    let sum = self.bin(BinaryOp::Add, item.value, bump.value);
                    let sum = self.truncate(
                        Item {
                            value: sum,
                            bits: MEM_BITS + 1,
                        },
                        Kind::U32,
                        MEM_BITS,
                    );
                    self.cost += 1;
                    self.cursor().store(sum.value, cell);
                }
                (_, Some(param)) => args.push(self.carried_update(Kind::U32, param)),
                _ => {}
            }
            self.cost += 1;
            self.cursor().jmp(header, args);
            let latch = self.cost;
            debug_assert!(latch <= LATCH);
            (self.cost, self.budget) = (outer_cost, outer_budget);
            latch
        };
        self.reset(&mark);
        self.cost =
            cost_before + header_cost * (max_trips + 1) + max_trips * (body_cost + latch_cost);
        self.terminated = false;
        self.block = exit;
    }

    // ----- straight-line operations -----

    fn op(&mut self) {
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
            _ => self.print_op(),
        }
    }

    fn risky(&mut self) -> bool {
        self.rng.chance(self.config.trap)
    }

    fn arithmetic(&mut self) {
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

    fn bool_op(&mut self) {
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

    fn field_op(&mut self) {
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

    fn int_op(&mut self, kind: Kind) {
        let width = kind.width();
        let a = self.get(kind);
        let b = self.get(kind);
        let risky = self.risky();
        let (value, bits) = match self.rng.below(16) {
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
            7 => {
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

    /// An in-bounds index into an array of `len` entries: constant, or
    /// dynamic and kept in bounds by `mod`, a mask, `truncate` or a
    /// comparison selecting between the index and 0.
    fn index(&mut self, len: u64) -> Value {
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

    fn memory_op(&mut self) {
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

    fn nested_reference_op(&mut self) {
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

    fn reference_array_op(&mut self) {
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

    fn array_op(&mut self) {
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
    fn predicated_op(&mut self) {
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

    fn constrain_op(&mut self) {
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
        let message = self.rng.chance(0.3).then(|| "low bits".to_string());
        self.cost += 1;
        self.cursor().constrain(holds, one, true, message);
    }

    fn call_op(&mut self) {
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
        let inst = self.cursor().call(callee_id, args, &types);
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

    fn print_op(&mut self) {
        let kind = if self.rng.chance(0.5) {
            Kind::U32
        } else {
            Kind::Field
        };
        let value = self.get(kind).value;
        self.cost += 1;
        self.cursor().call_builtin(Builtin::Print, vec![value]);
    }
}
