//! Functions and single-entry regions: bodies, diamonds, counted and
//! while loops, each generated against its fuel budget.

use super::*;

impl FnGen<'_> {
    pub(super) fn body(&mut self, quota: usize) {
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

    pub(super) fn ret(&mut self, kinds: &[Kind]) {
        let values = kinds.iter().map(|&k| self.get_passable(k).value).collect();
        self.cost += 1;
        self.cursor().ret(values);
        self.terminated = true;
    }

    /// Fills the current block and, while the block quota lasts, opens
    /// constructs; returns with the cursor in the region's exit block.
    pub(super) fn region(&mut self, depth: usize, quota: usize) {
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

    pub(super) fn choose_construct(&mut self, depth: usize, remaining: usize) -> Option<Construct> {
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
    pub(super) fn fair_room(&self, blocks: usize, remaining: usize) -> u64 {
        let room = self.room().saturating_sub(TAIL);
        let share = u128::from(room) * blocks as u128 / remaining.max(1) as u128;
        room.min(u64::try_from(share).unwrap_or(u64::MAX))
    }

    /// The block quota of a nested region: up to `max_region_blocks`.
    pub(super) fn sub_quota(&mut self, remaining: usize, own: usize) -> usize {
        let available = remaining
            .saturating_sub(own)
            .min(self.config.max_region_blocks);
        self.rng.below(available as u64 + 1) as usize
    }

    /// Runs `region` as a nested region in `block` with its own budget;
    /// returns its fuel bound. The cursor ends in the region's exit block.
    pub(super) fn nested(&mut self, block: Block, depth: usize, quota: usize, budget: u64) -> u64 {
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

    pub(super) fn chunk(&mut self) {
        let insts = self.config.insts_per_block as u64;
        let ops = self.rng.range(insts / 2, insts + insts / 2);
        for _ in 0..ops {
            if self.room() < TAIL + OP_COST {
                break;
            }
            self.op();
        }
    }

    pub(super) fn condition(&mut self) -> Value {
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

    /// `jmp` to a fresh block, passing some values through its parameters;
    /// or, when the configuration draws a select jump, `jmpif` to it on
    /// both edges, each passing values of its own.
    pub(super) fn jump(&mut self) {
        let p = self.config.select_jumps;
        let condition = (p > 0.0 && self.rng.chance(p)).then(|| self.condition());
        let next = self.new_block();
        let mut args = Vec::new();
        let mut else_args = Vec::new();
        let mut params = Vec::new();
        let count = self.rng.below(3) + u64::from(condition.is_some());
        for _ in 0..count {
            let kind = self.join_kind();
            let item = self.get_passable(kind);
            let param = self.func.dfg.append_block_param(next, kind.ty());
            args.push(item.value);
            let mut bits = item.bits;
            if condition.is_some() {
                let other = self.get_passable(kind);
                else_args.push(other.value);
                bits = bits.max(other.bits);
            }
            params.push((kind, param, bits));
        }
        self.cost += 1;
        match condition {
            Some(condition) => self.cursor().terminate(Terminator::JmpIf {
                condition,
                then_destination: next,
                then_arguments: args,
                else_destination: next,
                else_arguments: else_args,
            }),
            None => self.cursor().jmp(next, args),
        }
        self.block = next;
        for (kind, param, bits) in params {
            self.push(kind, param, bits);
        }
    }

    pub(super) fn join_kind(&mut self) -> Kind {
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
        if self.config.immutable_references > 0 {
            kinds.push(Kind::ImmRefField);
        }
        kinds[self.rng.index(kinds.len())]
    }

    pub(super) fn diamond(&mut self, depth: usize, remaining: usize) {
        let cond = self.condition();
        let then_block = self.new_block();
        let else_block = self.new_block();
        let join = self.new_block();
        self.cost += 1;
        let arm_params = self.branch(cond, then_block, else_block);

        let kinds: Vec<Kind> = (0..self.rng.below(4)).map(|_| self.join_kind()).collect();
        let params: Vec<Value> = kinds
            .iter()
            .map(|k| self.func.dfg.append_block_param(join, k.ty()))
            .collect();
        let quota = self.sub_quota(remaining, 3);
        let then_quota = self.rng.below(quota as u64 + 1) as usize;
        let arm_budget = self.fair_room(quota + 3, remaining).saturating_sub(2);
        let returns = self.returns.clone();
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
            for &(kind, param, bits) in &arm_params[arm] {
                self.push(kind, param, bits);
            }
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

    /// `jmpif cond then: then_block(..), else: else_block(..)`, passing each
    /// arm values in parameters of its own when the configuration draws
    /// it. Returns each arm's parameters (kind, value, bits).
    fn branch(
        &mut self,
        cond: Value,
        then_block: Block,
        else_block: Block,
    ) -> [Vec<(Kind, Value, u16)>; 2] {
        let mut params: [Vec<(Kind, Value, u16)>; 2] = [Vec::new(), Vec::new()];
        let mut arguments: [Vec<Value>; 2] = [Vec::new(), Vec::new()];
        let p = self.config.branch_arguments;
        if p > 0.0 && self.rng.chance(p) {
            for (arm, block) in [then_block, else_block].into_iter().enumerate() {
                for _ in 0..1 + self.rng.below(2) {
                    let kind = self.join_kind();
                    let item = self.get_passable(kind);
                    let param = self.func.dfg.append_block_param(block, kind.ty());
                    arguments[arm].push(item.value);
                    params[arm].push((kind, param, item.bits));
                }
            }
        }
        let [then_arguments, else_arguments] = arguments;
        self.cursor().terminate(Terminator::JmpIf {
            condition: cond,
            then_destination: then_block,
            then_arguments,
            else_destination: else_block,
            else_arguments,
        });
        params
    }

    /// A loop counting `i` from `start` by `step` while `lt i, bound`, or
    /// until `eq i, bound` (both polarities of the branch), with values
    /// carried around the back edge in header parameters.
    pub(super) fn counted_loop(&mut self, depth: usize, remaining: usize) {
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

        let (mut frame, counter) = self.open_loop(depth, quota, body_budget, trips);
        let mut init = vec![self.konst(u128::from(start), Kind::U32).value];
        let carried_kinds: Vec<Kind> = (0..self.rng.below(3))
            .map(|_| self.carried_kind())
            .collect();
        let mut carried = Vec::new();
        for &kind in &carried_kinds {
            let item = self.get_passable(kind);
            init.push(item.value);
            let param = self.func.dfg.append_block_param(frame.header, kind.ty());
            carried.push((kind, param));
        }
        self.enter_loop(&mut frame, init);
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
                self.cursor().jmpif(cond, frame.body, frame.exit);
            }
            1 => {
                let cond = self.bin(BinaryOp::Eq, counter, bound_value);
                self.cursor().jmpif(cond, frame.exit, frame.body);
            }
            _ => {
                let done = self.bin(BinaryOp::Eq, counter, bound_value);
                self.cost += 1;
                let cond = self.cursor().not(done);
                self.cursor().jmpif(cond, frame.body, frame.exit);
            }
        }
        self.close_loop(frame, |g| {
            let step_value = g.konst(u128::from(step), Kind::U32).value;
            let next = g.bin(BinaryOp::Add, counter, step_value);
            let mut args = vec![next];
            for &(kind, param) in &carried {
                args.push(g.carried_update(kind, param));
            }
            args
        });
    }

    /// Makes the blocks of a loop of `trips` iterations whose body nests at
    /// `depth + 1`, and the header's first parameter, its counter.
    fn open_loop(
        &mut self,
        depth: usize,
        quota: usize,
        body_budget: u64,
        trips: u64,
    ) -> (LoopFrame, Value) {
        let header = self.new_block();
        let frame = LoopFrame {
            header,
            body: self.new_block(),
            exit: self.new_block(),
            depth,
            quota,
            body_budget,
            trips,
            cost_before: 0,
        };
        let counter = self.func.dfg.append_block_param(header, Type::U32);
        (frame, counter)
    }

    /// Jumps from the current block to the loop's header with `init`, its
    /// parameters' first values, and continues in the header.
    fn enter_loop(&mut self, frame: &mut LoopFrame, init: Vec<Value>) {
        self.cost += 1;
        self.cursor().jmp(frame.header, init);
        frame.cost_before = self.cost;
        self.cost = 0;
        self.block = frame.header;
    }

    /// Ends a loop whose header has just branched to `frame.body` or
    /// `frame.exit`: generates the body, then, unless the body ended the
    /// function, a latch jumping back to the header with the arguments
    /// `back_edge` computes; charges the header, body and latch for
    /// `frame.trips` iterations and continues at the exit.
    fn close_loop(&mut self, frame: LoopFrame, back_edge: impl FnOnce(&mut Self) -> Vec<Value>) {
        let header_cost = self.cost + 1;
        debug_assert!(header_cost <= HEADER);

        let mark = self.mark();
        let body_cost = self.nested(frame.body, frame.depth + 1, frame.quota, frame.body_budget);
        let latch_cost = if self.terminated {
            0
        } else {
            let (outer_cost, outer_budget) = (self.cost, self.budget);
            self.cost = 0;
            self.budget = LATCH;
            let args = back_edge(self);
            self.cost += 1;
            self.cursor().jmp(frame.header, args);
            let latch = self.cost;
            debug_assert!(latch <= LATCH);
            (self.cost, self.budget) = (outer_cost, outer_budget);
            latch
        };
        self.reset(&mark);
        let trips = frame.trips;
        self.cost =
            frame.cost_before + header_cost * (trips + 1) + trips * (body_cost + latch_cost);
        self.terminated = false;
        self.block = frame.exit;
    }

    pub(super) fn carried_kind(&mut self) -> Kind {
        match self.rng.below(4) {
            0 | 1 => Kind::U32,
            2 => Kind::Field,
            _ if self.config.memory > 0 => Kind::RefField,
            _ => Kind::Field,
        }
    }

    /// The next value of a loop-carried parameter, at most 4 instructions.
    pub(super) fn carried_update(&mut self, kind: Kind, param: Value) -> Value {
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
    pub(super) fn while_loop(&mut self, depth: usize, remaining: usize) {
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

        let (mut frame, counter) = self.open_loop(depth, quota, body_budget, max_trips);
        let zero = self.konst(0, Kind::U32).value;
        let mut init = vec![zero];
        let (cell, data) = if through_memory {
            let cell = self.get(Kind::RefU32).value;
            (Some(cell), None)
        } else {
            let x = self.get_passable(Kind::U32);
            init.push(x.value);
            let param = self.func.dfg.append_block_param(frame.header, Type::U32);
            (None, Some(param))
        };
        self.enter_loop(&mut frame, init);
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
        self.cursor().jmpif(cond, frame.body, frame.exit);
        self.close_loop(frame, |g| {
            let one = g.konst(1, Kind::U32).value;
            let next = g.bin(BinaryOp::Add, counter, one);
            let mut args = vec![next];
            match (cell, data) {
                (Some(cell), _) => {
                    // Move the observed cell towards the limit.
                    g.cost += 1;
                    let now = g.cursor().load(cell);
                    let item = Item {
                        value: now,
                        bits: MEM_BITS,
                    };
                    let bump = {
                        let n = g.rng.range(1, 9);
                        g.konst(u128::from(n), Kind::U32)
                    };
                    let sum = g.bin(BinaryOp::Add, item.value, bump.value);
                    let sum = g.truncate(
                        Item {
                            value: sum,
                            bits: MEM_BITS + 1,
                        },
                        Kind::U32,
                        MEM_BITS,
                    );
                    g.cost += 1;
                    g.cursor().store(sum.value, cell);
                }
                (_, Some(param)) => args.push(g.carried_update(Kind::U32, param)),
                _ => {}
            }
            args
        });
    }
}

/// A loop being generated, as [`FnGen::close_loop`] finishes it: its
/// blocks, how deep its body nests and what the body may spend, and the
/// cost spent before the loop's entry.
struct LoopFrame {
    header: Block,
    body: Block,
    exit: Block,
    depth: usize,
    quota: usize,
    body_budget: u64,
    trips: u64,
    cost_before: u64,
}
