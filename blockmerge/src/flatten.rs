//! Flattening one component into its head (CoBBl's block-merging design, "Merge Blocks").
//!
//! The design builds the merged instruction list backward from the tail; in
//! SSA it is simpler to emit forward, in the order the steps of
//! [`components`](crate::components) describe, at the end of the head:
//!
//! - a branch emits each arm under its predicate `P and c` / `P and not c`
//!   (`P` the enclosing predicate, `c` the condition), each arm's
//!   parameters bound to the arguments of its edge, and the join's
//!   parameters become `vR = if e1 then x1 else (if e2) x2` chains over the
//!   predicates of the incoming edges. Exactly one edge predicate holds
//!   when `P` does, so the chain selects the value of the path taken. A
//!   `jmpif` whose two edges enter one block with different arguments is a
//!   branch whose arms are the join: an `if` per parameter that differs;
//! - predication follows the interpreter's rules (`kildall_interpreter`): an
//!   `enable_side_effects` is emitted before the next instruction with side
//!   effects whenever the predicate changes, and an arm's own
//!   `enable_side_effects x` becomes the predicate `P and x` for the rest of
//!   that block. So a trap, `constrain` or `print` on the side not taken
//!   does not fire;
//! - a counted loop is unrolled: `trip` times the header and the body, the
//!   header's parameters bound to the latch's arguments of the previous
//!   iteration (the body's to the arguments of the header's test), then the
//!   header once more (its last exit test, whose arguments bind the exit's
//!   parameters); no guard is needed because the trip count is exact;
//! - the tail's instructions follow, and the head takes the tail's
//!   terminator; the other blocks leave the layout.
//!
//! Blocks run once are moved (their instructions keep their numbers);
//! blocks of unrolled loops are copied once per iteration. Values of
//! removed blocks become aliases of their last copy or of the `if` chain
//! replacing them, so uses after the component see the right value.

use std::collections::HashMap;

use kildall_ir::SecondaryMap;
use kildall_ir::{
    BinaryOp, Block, ConstValue, Function, Inst, InstructionData, Terminator, Type, Value,
};

use crate::components::{Kind, Kinds};

/// An edge into a block: the predicate under which it is taken (`None`:
/// always) and its arguments.
struct Edge {
    pred: Option<Value>,
    args: Vec<Value>,
}

/// A region being emitted: where the walk stands, up to `stop`, under
/// `pred`.
struct Walk {
    at: At,
    stop: Block,
    pred: Option<Value>,
    copy: bool,
}

impl Walk {
    fn new(start: Block, stop: Block, pred: Option<Value>, copy: bool) -> Self {
        Walk {
            at: At::Block(start),
            stop,
            pred,
            copy,
        }
    }
}

/// What a walk does next.
enum Step {
    /// It moved within its region.
    Next,
    /// A nested region starts.
    Push(Walk),
    /// It reached its stop, with these edges into it.
    Done(Vec<Edge>),
}

/// Where a [`Walk`] stands.
enum At {
    /// About to emit this block and follow its step.
    Block(Block),
    /// Emitting the sides of a branch: `arms[next..]` are left, each with
    /// its predicate and the arguments of the branch's edge into it;
    /// `edges` gathers the edges into `join` of the sides done.
    Arms {
        join: Block,
        arms: [(Block, Value, Vec<Value>); 2],
        next: usize,
        edges: Vec<Edge>,
    },
    /// Unrolling a counted loop: `left` iterations to go after the one
    /// whose body just finished, if any.
    Unroll {
        header: Block,
        body: Block,
        exit: Block,
        left: u64,
    },
}

pub(crate) struct Flattener<'k> {
    kinds: &'k Kinds,
    /// Old value to its current copy; shared across the components of a
    /// function (entries are reset after each) so that it is allocated once.
    head: Block,
    env: &'k mut SecondaryMap<Value, Option<Value>>,
    mapped: Vec<Value>,
    /// `not p` for each predicate `p` a guarded cast has needed, emitted once.
    negations: HashMap<Value, Value>,
    /// The predicate in force at the end of the head (`None`: 1).
    active: Option<Value>,
}

impl<'k> Flattener<'k> {
    pub fn new(
        kinds: &'k Kinds,
        env: &'k mut SecondaryMap<Value, Option<Value>>,
        head: Block,
    ) -> Self {
        Flattener {
            kinds,
            head,
            env,
            mapped: Vec::new(),
            negations: HashMap::new(),
            active: None,
        }
    }

    fn lookup(&self, func: &Function, v: Value) -> Value {
        let v = func.dfg.resolve(v);
        self.env[v].unwrap_or(v)
    }

    fn bind_value(&mut self, old: Value, new: Value) {
        if self.env[old].is_none() {
            self.mapped.push(old);
        }
        self.env[old] = Some(new);
    }

    fn append(
        &mut self,
        func: &mut Function,
        data: InstructionData,
        result: Option<Type>,
    ) -> Option<Value> {
        let inst = func.dfg.make_inst(data);
        let value = result.map(|ty| func.dfg.append_result(inst, ty));
        func.layout.append_inst(inst, self.head);
        value
    }

    fn and(&mut self, func: &mut Function, pred: Option<Value>, c: Value) -> Value {
        match pred {
            None => c,
            Some(p) => self
                .append(
                    func,
                    InstructionData::Binary {
                        op: BinaryOp::And,
                        lhs: p,
                        rhs: c,
                    },
                    Some(Type::BOOL),
                )
                .expect("one result"),
        }
    }

    fn truth(func: &mut Function, pred: Option<Value>) -> Value {
        pred.unwrap_or_else(|| func.dfg.constant(ConstValue::from_u128(1), Type::BOOL))
    }

    fn ensure_predicate(&mut self, func: &mut Function, pred: Option<Value>) {
        if self.active != pred {
            let condition = Self::truth(func, pred);
            self.append(func, InstructionData::EnableSideEffects { condition }, None);
            self.active = pred;
        }
    }

    /// Emits the instructions of `block` at the end of the head under
    /// `pred`, copying them when `copy` (the block runs several times).
    fn emit_insts(&mut self, func: &mut Function, block: Block, pred: Option<Value>, copy: bool) {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        let mut local = pred;
        for inst in insts {
            if let InstructionData::EnableSideEffects { condition } = func.dfg[inst] {
                let c = self.lookup(func, condition);
                local = match func.dfg.const_value(c) {
                    // `enable_side_effects u1 1` restores the block's predicate.
                    Some(one) if one == ConstValue::from_u128(1) => pred,
                    _ => Some(self.and(func, pred, c)),
                };
                if !copy {
                    func.remove_inst(inst);
                }
                continue;
            }
            if func.dfg[inst].has_side_effects() {
                self.ensure_predicate(func, local);
            }
            let mut data = func.dfg[inst].clone();
            data.map_values(|v| self.lookup(func, v));
            if let (Some(p), InstructionData::Cast { arg, ty }) = (pred, &mut data) {
                if cast_may_fail(func.dfg.value_type(*arg), ty) {
                    *arg = self.guard_operand(func, p, *arg);
                }
            }
            if copy {
                let new = func.dfg.make_inst(data);
                let results = func.dfg.inst_results(inst).to_vec();
                for r in results {
                    let ty = func.dfg.value_type(r).clone();
                    let nr = func.dfg.append_result(new, ty);
                    self.bind_value(r, nr);
                }
                func.layout.append_inst(new, self.head);
                let loc = func.inst_locs[inst];
                func.inst_locs[new] = loc;
            } else {
                func.dfg[inst] = data;
                func.layout.remove_inst(inst);
                func.layout.append_inst(inst, self.head);
            }
        }
    }

    /// `if p then v else 0`, the operand of a cast that traps whatever the
    /// predicate when its pattern does not fit, moved into an arm under
    /// `p`: where the arm is not taken the cast reads zero, which fits, as
    /// the unflattened program never ran it.
    fn guard_operand(&mut self, func: &mut Function, p: Value, v: Value) -> Value {
        let ty = func.dfg.value_type(v).clone();
        let not_p = match self.negations.get(&p) {
            Some(&not_p) => not_p,
            None => {
                let not_p = self
                    .append(func, InstructionData::Not { arg: p }, Some(Type::BOOL))
                    .expect("one result");
                self.negations.insert(p, not_p);
                not_p
            }
        };
        let zero = func.dfg.constant(ConstValue::from_u128(0), ty.clone());
        let data = InstructionData::IfElse {
            then_condition: p,
            then_value: v,
            else_condition: not_p,
            else_value: zero,
        };
        self.append(func, data, Some(ty)).expect("one result")
    }

    /// Binds the parameters of `block` to the arguments of `edges`.
    fn bind(&mut self, func: &mut Function, block: Block, edges: &[Edge]) {
        let params = func.dfg.block_params(block).to_vec();
        for (i, param) in params.into_iter().enumerate() {
            let first = edges[0].args[i];
            if edges.iter().all(|e| e.args[i] == first) {
                self.bind_value(param, first);
                continue;
            }
            let n = edges.len();
            let mut acc = edges[n - 1].args[i];
            for k in (0..n - 1).rev() {
                let then_condition = Self::truth(func, edges[k].pred);
                let else_condition = Self::truth(func, edges[k + 1].pred);
                let ty = func.dfg.value_type(param).clone();
                let data = InstructionData::IfElse {
                    then_condition,
                    then_value: edges[k].args[i],
                    else_condition,
                    else_value: acc,
                };
                acc = self.append(func, data, Some(ty)).expect("one result");
            }
            self.bind_value(param, acc);
        }
    }

    /// The arguments of the jump that ends a plain step: a `jmp`, or a
    /// `jmpif` whose two edges pass the same arguments to one block.
    fn jump_args(&self, func: &Function, block: Block) -> Vec<Value> {
        match func.dfg.terminator(block).and_then(|t| t.edges().next()) {
            Some(edge) => edge
                .arguments
                .iter()
                .map(|&v| self.lookup(func, v))
                .collect(),
            None => Vec::new(),
        }
    }

    /// The arguments of the then edge and of the else edge of the `jmpif`
    /// that ends `block`.
    fn branch_args(&self, func: &Function, block: Block) -> [Vec<Value>; 2] {
        let mut args = [Vec::new(), Vec::new()];
        if let Some(term) = func.dfg.terminator(block) {
            for (slot, edge) in args.iter_mut().zip(term.edges()) {
                *slot = edge
                    .arguments
                    .iter()
                    .map(|&v| self.lookup(func, v))
                    .collect();
            }
        }
        args
    }

    /// Emits the region from `start` up to `stop` under `pred`, returning
    /// the edges entering `stop`. The head's own instructions are in place:
    /// `start == head` skips them.
    ///
    /// Nested regions (the sides of a branch, the body of each unrolled
    /// iteration) are walked with an explicit stack of [`Walk`]s, so the
    /// nesting depth of the input does not bound the call stack; the order
    /// of the emitted instructions is that of a recursive walk.
    fn emit_region(
        &mut self,
        func: &mut Function,
        start: Block,
        stop: Block,
        pred: Option<Value>,
        copy: bool,
    ) -> Vec<Edge> {
        let mut stack = vec![Walk::new(start, stop, pred, copy)];
        // The edges out of the walk that finished last, for its parent.
        let mut finished: Option<Vec<Edge>> = None;
        loop {
            let walk = stack.last_mut().expect("a walk in progress");
            let step = match walk.at {
                At::Block(cur) => self.step_block(func, walk, cur),
                At::Arms { .. } => self.step_arms(func, walk, finished.take()),
                At::Unroll { .. } => self.step_unroll(func, walk, finished.take()),
            };
            match step {
                Step::Next => {}
                Step::Push(child) => stack.push(child),
                Step::Done(edges) => {
                    stack.pop();
                    if stack.is_empty() {
                        return edges;
                    }
                    finished = Some(edges);
                }
            }
        }
    }

    /// Emits block `cur` of `walk` and follows its step: on to the next
    /// block, into the arms of a branch, or into an unrolled loop.
    fn step_block(&mut self, func: &mut Function, walk: &mut Walk, cur: Block) -> Step {
        let (stop, pred) = (walk.stop, walk.pred);
        if cur != self.head {
            self.emit_insts(func, cur, pred, walk.copy);
        }
        match self.kinds.kind(cur).expect("planned block") {
            Kind::Plain { dest } => {
                let edge = Edge {
                    pred,
                    args: self.jump_args(func, cur),
                };
                if dest == stop {
                    return Step::Done(vec![edge]);
                }
                self.bind(func, dest, &[edge]);
                walk.at = At::Block(dest);
            }
            Kind::Branch {
                cond,
                then_dest,
                else_dest,
                join,
            } => {
                let c = self.lookup(func, cond);
                let then_pred = self.and(func, pred, c);
                let not_c = self
                    .append(func, InstructionData::Not { arg: c }, Some(Type::BOOL))
                    .expect("one result");
                let else_pred = self.and(func, pred, not_c);
                let [then_args, else_args] = self.branch_args(func, cur);
                walk.at = At::Arms {
                    join,
                    arms: [
                        (then_dest, then_pred, then_args),
                        (else_dest, else_pred, else_args),
                    ],
                    next: 0,
                    edges: Vec::new(),
                };
            }
            Kind::Loop {
                header,
                body,
                exit,
                trip,
            } => {
                let args = self.jump_args(func, cur);
                self.bind(func, header, &[Edge { pred, args }]);
                walk.at = At::Unroll {
                    header,
                    body,
                    exit,
                    left: trip,
                };
            }
        }
        Step::Next
    }

    /// Gathers the edges of the arm that `finished`, and starts the next
    /// arm; after both, binds the join's parameters and goes on from it.
    fn step_arms(
        &mut self,
        func: &mut Function,
        walk: &mut Walk,
        finished: Option<Vec<Edge>>,
    ) -> Step {
        let (stop, copy) = (walk.stop, walk.copy);
        let At::Arms {
            join,
            arms,
            next,
            edges,
        } = &mut walk.at
        else {
            unreachable!("a walk in the arms of a branch")
        };
        let join = *join;
        edges.extend(finished.into_iter().flatten());
        while let Some((arm, arm_pred, args)) = arms.get_mut(*next) {
            *next += 1;
            let (arm, arm_pred) = (*arm, *arm_pred);
            let edge = Edge {
                pred: Some(arm_pred),
                args: std::mem::take(args),
            };
            if arm != join {
                self.bind(func, arm, std::slice::from_ref(&edge));
                return Step::Push(Walk::new(arm, join, Some(arm_pred), copy));
            }
            edges.push(edge);
        }
        let edges = std::mem::take(edges);
        if join == stop {
            return Step::Done(edges);
        }
        self.bind(func, join, &edges);
        walk.at = At::Block(join);
        Step::Next
    }

    /// Binds the header to the latch edges of the iteration that
    /// `finished`, emits the header's test, and starts the next iteration's
    /// body while iterations are left.
    fn step_unroll(
        &mut self,
        func: &mut Function,
        walk: &mut Walk,
        finished: Option<Vec<Edge>>,
    ) -> Step {
        let (stop, pred) = (walk.stop, walk.pred);
        let At::Unroll {
            header,
            body,
            exit,
            left,
        } = &mut walk.at
        else {
            unreachable!("a walk unrolling a loop")
        };
        let (header, body, exit) = (*header, *body, *exit);
        if let Some(latch) = finished {
            self.bind(func, header, &latch);
        }
        self.emit_insts(func, header, pred, true);
        // The header's test passes its own arguments to the body and to
        // the exit, read from this iteration's copy of the header.
        let [then_args, else_args] = self.branch_args(func, header);
        let body_is_then = matches!(
            func.dfg.terminator(header),
            Some(Terminator::JmpIf { then_destination, .. }) if *then_destination == body
        );
        let (body_args, exit_args) = if body_is_then {
            (then_args, else_args)
        } else {
            (else_args, then_args)
        };
        if *left > 0 {
            *left -= 1;
            let edge = Edge {
                pred,
                args: body_args,
            };
            self.bind(func, body, &[edge]);
            return Step::Push(Walk::new(body, header, pred, true));
        }
        let edge = Edge {
            pred,
            args: exit_args,
        };
        if exit == stop {
            return Step::Done(vec![edge]);
        }
        self.bind(func, exit, &[edge]);
        walk.at = At::Block(exit);
        Step::Next
    }

    /// Flattens the component from the head to `tail` (whose blocks are
    /// `blocks`, head first) into the head.
    pub fn run(mut self, func: &mut Function, tail: Block, blocks: &[Block]) {
        // The predicate in force after the head's own instructions.
        let last_ese =
            func.layout
                .block_insts(self.head)
                .rev()
                .find_map(|inst| match func.dfg[inst] {
                    InstructionData::EnableSideEffects { condition } => {
                        Some(func.dfg.resolve(condition))
                    }
                    _ => None,
                });
        if let Some(c) = last_ese {
            let one = func.dfg.constant(ConstValue::from_u128(1), Type::BOOL);
            self.active = if c == one { None } else { Some(c) };
        }
        let edges = self.emit_region(func, self.head, tail, None, false);
        self.bind(func, tail, &edges);
        self.emit_insts(func, tail, None, false);
        let mut terminator = func.dfg.take_terminator(tail).expect("terminated");
        terminator.map_values(|v| self.lookup(func, v));
        func.dfg.set_terminator(self.head, terminator);

        // What is left in the other blocks are the originals of copied
        // blocks and the bodies of loops that run zero times.
        for &block in blocks {
            if block == self.head {
                continue;
            }
            let insts: Vec<Inst> = func.layout.block_insts(block).collect();
            for inst in insts {
                func.remove_inst(inst);
            }
            func.dfg.take_terminator(block);
            func.layout.remove_block(block);
        }
        for &old in &self.mapped {
            let new = self.env[old].take().expect("mapped");
            func.dfg.replace_all_uses(old, new);
        }
    }
}

/// Whether `cast _ as target` of a `source` value can trap: a `Field`, or an
/// integer pattern wider than the integer target.
fn cast_may_fail(source: &Type, target: &Type) -> bool {
    match (source.bit_size(), target) {
        (_, Type::Field) => false,
        (Some(m), Type::Unsigned(n) | Type::Signed(n)) => m > *n,
        _ => true,
    }
}
