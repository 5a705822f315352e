//! Noisy expression DAGs (the noisy-arithmetic model): `main` encodes its `u5` inputs, runs a
//! DAG of noisy `add`/`sub`/`mul` with shared operands, and returns decoded
//! sinks, optionally across a diamond or around a counted loop. Some results
//! may cross a boundary first: a call of a helper `f1` that doubles its
//! argument, or a store and a load.

use crate::generate::Rng;
use crate::generate::{NoiseConfig, NoiseControlFlow};
use kildall_ir::{BinaryOp, Block, EntitySet, FuncCursor, FuncId, Function, Module, Type, Value};

/// The helper the boundary crossings call: `main` is `f0`, it is `f1`.
const HELPER: u32 = 1;

/// The values in scope, and those no operation had used when they were
/// last looked at (entries used since are dropped lazily, see `used`).
#[derive(Clone, Default)]
struct Pool {
    all: Vec<Value>,
    unused: Vec<Value>,
}

impl Pool {
    fn add(&mut self, value: Value) {
        self.all.push(value);
        self.unused.push(value);
    }
}

struct NoiseGen<'a> {
    rng: Rng,
    config: &'a NoiseConfig,
    func: Function,
    block: Block,
    pool: Pool,
    /// Values some operation or jump consumed.
    used: EntitySet<Value>,
}

pub(crate) fn generate(seed: u64, config: &NoiseConfig) -> Module {
    let mut func = Function::new("main");
    let entry = func.dfg.make_block();
    func.layout.append_block(entry);
    let mut gen = NoiseGen {
        rng: Rng::new(seed),
        config,
        func,
        block: entry,
        pool: Pool::default(),
        used: EntitySet::new(),
    };
    gen.build(entry);
    let mut module = Module::new();
    module.push(gen.func);
    if config.boundary_fraction > 0.0 {
        module.push(helper());
    }
    module
}

/// `fn double f1 { b0(v0: noisy): v1 = add v0, v0; return v1 }`.
fn helper() -> Function {
    let mut func = Function::new("double");
    let entry = FuncCursor::new(&mut func).append_block();
    let param = func.dfg.append_block_param(entry, Type::Noisy);
    let mut cursor = FuncCursor::new(&mut func).at_bottom(entry);
    let doubled = cursor.binary(BinaryOp::Add, param, param);
    cursor.ret(vec![doubled]);
    func
}

impl NoiseGen<'_> {
    fn cursor(&mut self) -> FuncCursor<'_> {
        FuncCursor::new(&mut self.func).at_bottom(self.block)
    }

    fn new_block(&mut self) -> Block {
        FuncCursor::new(&mut self.func).append_block()
    }

    fn build(&mut self, entry: Block) {
        let inputs: Vec<Value> = (0..self.config.inputs.max(1))
            .map(|_| self.func.dfg.append_block_param(entry, Type::Unsigned(5)))
            .collect();
        for &input in &inputs {
            let encoded = self.cursor().encode(input);
            self.pool.add(encoded);
        }
        let ops = self.config.ops;
        match self.config.control_flow {
            NoiseControlFlow::None => self.ops(ops),
            NoiseControlFlow::Diamond => {
                let inner = (ops / 4).max(1);
                let before = ops.saturating_sub(2 * inner) / 2;
                self.ops(before);
                self.diamond(inputs[0], inner);
                self.ops(ops.saturating_sub(before + 2 * inner));
            }
            NoiseControlFlow::Loop => {
                let inner = (ops / 4).max(1);
                let before = ops.saturating_sub(inner) / 2;
                self.ops(before);
                self.counted_loop(inner);
                self.ops(ops.saturating_sub(before + inner));
            }
        }
        // The sinks: values no operation consumed, most recent first.
        let used = &self.used;
        let mut sinks: Vec<Value> = self
            .pool
            .unused
            .iter()
            .rev()
            .copied()
            .filter(|&v| !used.contains(v))
            .collect();
        if sinks.is_empty() {
            sinks.push(*self.pool.all.last().expect("inputs were encoded"));
        }
        sinks.truncate(self.config.outputs.max(1));
        let mut cursor = self.cursor();
        let decoded = sinks.into_iter().map(|v| cursor.decode(v)).collect();
        cursor.ret(decoded);
    }

    /// An operand: a fresh value (one not used yet, recent first) to grow
    /// chains, or with probability `sharing` any value in scope, which
    /// creates fan-out; now and then a freshly encoded constant.
    fn operand(&mut self) -> Value {
        if self.rng.chance(0.04) {
            let plaintext = self.rng.below(32);
            let mut cursor = self.cursor();
            let constant = cursor.constant(u128::from(plaintext), Type::Unsigned(5));
            let encoded = cursor.encode(constant);
            self.pool.all.push(encoded);
            return encoded;
        }
        if !self.rng.chance(self.config.sharing) {
            while let Some(&last) = self.pool.unused.last() {
                if !self.used.contains(last) {
                    break;
                }
                self.pool.unused.pop();
            }
            let unused = self.pool.unused.len();
            if unused > 0 {
                let index = unused - 1 - self.rng.index(unused.min(4));
                let value = self.pool.unused.swap_remove(index);
                if !self.used.contains(value) {
                    self.used.insert(value);
                    return value;
                }
            }
        }
        let value = self.pool.all[self.rng.index(self.pool.all.len())];
        self.used.insert(value);
        value
    }

    fn op(&mut self) -> Value {
        let lhs = self.operand();
        self.op_on(lhs)
    }

    /// An operation whose left operand is `lhs`.
    fn op_on(&mut self, lhs: Value) -> Value {
        let op = if self.rng.chance(self.config.mul_fraction) {
            BinaryOp::Mul
        } else if self.rng.chance(0.75) {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        let plaintext =
            self.config.plaintext_fraction > 0.0 && self.rng.chance(self.config.plaintext_fraction);
        let rhs = if plaintext {
            // A plaintext constant scales the noise (see `kildall_ir::plaintext`).
            let c = self.rng.below(32);
            self.cursor().constant(u128::from(c), Type::Unsigned(5))
        } else {
            self.operand()
        };
        let value = self.cursor().binary(op, lhs, rhs);
        let value = self.across_boundary(value);
        self.pool.add(value);
        value
    }

    /// `value`, or with probability `boundary_fraction` what comes back from
    /// passing it to the helper or through memory.
    fn across_boundary(&mut self, value: Value) -> Value {
        let fraction = self.config.boundary_fraction;
        if fraction <= 0.0 || !self.rng.chance(fraction) {
            return value;
        }
        let call = self.rng.chance(0.5);
        let mut cursor = self.cursor();
        if call {
            let inst = cursor.call(FuncId::from_u32(HELPER), vec![value], &[Type::Noisy]);
            cursor
                .func
                .dfg
                .first_result(inst)
                .expect("the helper returns")
        } else {
            let cell = cursor.allocate(Type::Noisy);
            cursor.store(value, cell);
            cursor.load(cell)
        }
    }

    fn ops(&mut self, count: usize) {
        for _ in 0..count {
            self.op();
        }
    }

    /// `if input < 16` with a few operations per arm, joined in block
    /// parameters.
    fn diamond(&mut self, input: Value, inner: usize) {
        let half = self.func.dfg.constant_u128(16, Type::Unsigned(5));
        let cond = self.cursor().binary(BinaryOp::Lt, input, half);
        let then_block = self.new_block();
        let else_block = self.new_block();
        let join = self.new_block();
        self.cursor().jmpif(cond, then_block, else_block);
        let params = 1 + self.rng.below(2) as usize;
        let outer = self.pool.clone();
        for block in [then_block, else_block] {
            self.pool = outer.clone();
            self.block = block;
            let mut args = Vec::new();
            for k in 0..params {
                let share = inner / params + usize::from(k < inner % params);
                self.ops(share.max(1));
                args.push(*self.pool.all.last().expect("an operation ran"));
            }
            self.cursor().jmp(join, args);
        }
        self.pool = outer;
        self.block = join;
        for _ in 0..params {
            let param = self.func.dfg.append_block_param(join, Type::Noisy);
            self.pool.add(param);
        }
    }

    /// `for i in 0..trips { acc = f(acc, outer values) }`: the carried value's
    /// noise grows every iteration.
    fn counted_loop(&mut self, inner: usize) {
        let trips = self.config.loop_trips;
        let init = self.operand();
        let header = self.new_block();
        let body = self.new_block();
        let exit = self.new_block();
        let zero = self.func.dfg.constant_u128(0, Type::U32);
        self.cursor().jmp(header, vec![zero, init]);
        let counter = self.func.dfg.append_block_param(header, Type::U32);
        let acc = self.func.dfg.append_block_param(header, Type::Noisy);
        self.block = header;
        let bound = self.func.dfg.constant_u128(u128::from(trips), Type::U32);
        let cond = self.cursor().binary(BinaryOp::Lt, counter, bound);
        self.cursor().jmpif(cond, body, exit);

        let outer = self.pool.clone();
        self.block = body;
        // The body feeds the carried value, so its noise grows every trip.
        self.used.insert(acc);
        self.pool.all.push(acc);
        let first = self.op_on(acc);
        let next_acc = if inner >= 2 {
            self.ops(inner - 2);
            self.op_on(first)
        } else {
            first
        };
        let one = self.func.dfg.constant_u128(1, Type::U32);
        let next = self.cursor().binary(BinaryOp::Add, counter, one);
        self.cursor().jmp(header, vec![next, next_acc]);
        self.pool = outer;
        self.block = exit;
        // The loop's result is fresh for what follows, whatever the body did.
        self.used.remove(acc);
        self.pool.add(acc);
    }
}
