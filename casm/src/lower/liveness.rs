//! Backward liveness of SSA variables, solved by the `kildall-dataflow`
//! engine (Kildall's framework; Aho, Lam, Sethi and Ullman, *Compilers*,
//! 2nd ed., §9.2.5) over a control-flow graph flattened from the structured
//! body.
//!
//! Each node of the graph is a straight run of instructions, ended by a
//! control instruction (`br`/`if`, `case`, `ret`, a tail call, `fail`),
//! whose operands are the node's terminator effect. A branch's arms are
//! nodes of their own; an arm that falls through has an edge into the node
//! after the branch (its join), whose edge effect is the arm's phi: the
//! branch output dies there and the operand the arm gives it is live.
//! Structured code has no loops (they are recursion), so the solver visits
//! each node once. The lowering needs the live variables after calls and
//! after branches (the parameters of the block that follows), which
//! [`Liveness::after`] answers.

use std::collections::HashMap;

use cranelift_entity::{entity_impl, EntityRef};
use kildall_dataflow::{Analysis, Backward, BitSet, Graph, LoopStructure};
use kildall_graph::LoopNest;

use crate::ssa::{Arm, Inst, Operand, SCond, SsaFunction, Var};

impl EntityRef for Var {
    fn new(index: usize) -> Self {
        Var(index as u32)
    }
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// A set of SSA variables.
pub(super) type LiveSet = BitSet<Var>;

/// A node of the flattened graph.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Node(u32);
entity_impl!(Node, "node");

#[derive(Default)]
struct NodeData<'f> {
    insts: Vec<u32>,
    term: Option<&'f Inst>,
    succs: Vec<Node>,
    preds: Vec<Node>,
}

/// A function's body as a graph the dataflow engine runs over.
struct Flat<'f> {
    n_vars: usize,
    /// The straight-line instructions, by index.
    insts: Vec<&'f Inst>,
    inst_node: Vec<Node>,
    nodes: Vec<NodeData<'f>>,
    /// The phi of an arm's edge into its join: the join's output and the
    /// arm's operand for it.
    phis: HashMap<(Node, Node), (Option<Var>, Option<Operand>)>,
    /// The join after each branch or `case` (by address) that has one.
    joins: HashMap<*const Inst, Node>,
    /// The depth-first orders and loops of the graph, once it is built.
    nest: LoopNest<Node>,
}

impl<'f> Flat<'f> {
    fn new_node(&mut self) -> Node {
        self.nodes.push(NodeData::default());
        Node::new(self.nodes.len() - 1)
    }

    fn edge(&mut self, from: Node, to: Node) {
        self.nodes[from.index()].succs.push(to);
        self.nodes[to.index()].preds.push(from);
    }

    /// Adds `insts` from node `cur` on; returns the node where the sequence
    /// falls through, if it does.
    fn seq(&mut self, insts: &'f [Inst], mut cur: Node) -> Option<Node> {
        for inst in insts {
            let (arms, out): (&'f [Arm], Option<Var>) = match inst {
                Inst::Branch { arms, out, .. } => (&arms[..], *out),
                Inst::Case { arms, out, .. } => (arms, *out),
                Inst::Ret(_) | Inst::TailCall { .. } | Inst::TailApply { .. } | Inst::Fail(_) => {
                    self.nodes[cur.index()].term = Some(inst);
                    return None;
                }
                _ => {
                    self.insts.push(inst);
                    self.inst_node.push(cur);
                    let k = self.insts.len() as u32 - 1;
                    self.nodes[cur.index()].insts.push(k);
                    continue;
                }
            };
            self.nodes[cur.index()].term = Some(inst);
            let join = self.new_node();
            let mut falls = false;
            for arm in arms {
                let start = self.new_node();
                self.edge(cur, start);
                if let Some(end) = self.seq(&arm.body, start) {
                    self.edge(end, join);
                    self.phis.insert((end, join), (out, arm.result));
                    falls = true;
                }
            }
            if !falls {
                return None;
            }
            self.joins.insert(inst as *const Inst, join);
            cur = join;
        }
        Some(cur)
    }
}

impl kildall_graph::Graph for Flat<'_> {
    type Node = Node;

    fn num_node_indices(&self) -> usize {
        self.nodes.len()
    }
    fn entry(&self) -> Option<Node> {
        Some(Node::new(0))
    }
    fn successors(&self, block: Node) -> impl Iterator<Item = Node> + '_ {
        self.nodes[block.index()].succs.iter().copied()
    }
    fn predecessors(&self, block: Node) -> impl Iterator<Item = Node> + '_ {
        self.nodes[block.index()].preds.iter().copied()
    }
}

impl Graph for Flat<'_> {
    type Inst = u32;

    fn block_insts(&self, block: Node) -> impl DoubleEndedIterator<Item = u32> + '_ {
        self.nodes[block.index()].insts.iter().copied()
    }
    fn inst_block(&self, inst: u32) -> Option<Node> {
        self.inst_node.get(inst as usize).copied()
    }
    fn loop_structure(&self) -> Option<LoopStructure<'_, Node>> {
        Some(LoopStructure {
            order: self.nest.loop_order(),
            forest: self.nest.forest(),
        })
    }
}

fn use_op(state: &mut LiveSet, o: &Operand) {
    if let Some(v) = o.var() {
        state.insert(v);
    }
}

/// Live variables, backward.
struct LiveVars;

impl<'f> Analysis<Flat<'f>> for LiveVars {
    type Domain = LiveSet;
    type Direction = Backward;

    fn bottom_value(&self, graph: &Flat<'f>) -> LiveSet {
        BitSet::new_empty(graph.n_vars)
    }

    fn initialize_start_block(&self, _: &Flat<'f>, _: Node, _: &mut LiveSet) {}

    fn apply_instruction_effect(&mut self, graph: &Flat<'f>, state: &mut LiveSet, inst: u32) {
        let (dst, uses): (Option<Var>, Vec<&Operand>) = match graph.insts[inst as usize] {
            Inst::Copy { dst, src } => (Some(*dst), vec![src]),
            Inst::Binop { dst, a, b, .. } => (Some(*dst), vec![a, b]),
            Inst::Call { dst, args, .. }
            | Inst::Alloc { dst, args, .. }
            | Inst::CAlloc { dst, args, .. }
            | Inst::Builtin { dst, args, .. } => (Some(*dst), args.iter().collect()),
            Inst::Apply {
                dst, closure, args, ..
            } => (Some(*dst), std::iter::once(closure).chain(args).collect()),
            Inst::Load { dst, src, .. } => {
                state.remove(*dst);
                state.insert(*src);
                return;
            }
            Inst::CheckTag { src, .. } => {
                state.insert(*src);
                return;
            }
            Inst::Str { dst, .. } => (Some(*dst), Vec::new()),
            Inst::StrCat { dst, a, b } => {
                state.remove(*dst);
                state.insert(*a);
                state.insert(*b);
                return;
            }
            Inst::ArgsNum { dst, closure } => (Some(*dst), vec![closure]),
            Inst::Trace(v, _) => (None, vec![v]),
            // Control instructions are terminators, never instructions.
            _ => (None, Vec::new()),
        };
        if let Some(d) = dst {
            state.remove(d);
        }
        uses.into_iter().for_each(|o| use_op(state, o));
    }

    fn apply_terminator_effect(&mut self, graph: &Flat<'f>, state: &mut LiveSet, block: Node) {
        match graph.nodes[block.index()].term {
            Some(Inst::Branch { cond, .. }) => match cond {
                SCond::NonZero(v) => use_op(state, v),
                SCond::Cmp(_, a, b) => {
                    use_op(state, a);
                    use_op(state, b);
                }
            },
            Some(Inst::Case { scrut, .. }) => use_op(state, scrut),
            Some(Inst::Ret(v) | Inst::Fail(v)) => use_op(state, v),
            Some(Inst::TailCall { args, .. }) => args.iter().for_each(|a| use_op(state, a)),
            Some(Inst::TailApply { closure, args, .. }) => {
                use_op(state, closure);
                args.iter().for_each(|a| use_op(state, a));
            }
            _ => {}
        }
    }

    fn apply_edge_effect(&mut self, graph: &Flat<'f>, state: &mut LiveSet, from: Node, to: Node) {
        if let Some((out, result)) = graph.phis.get(&(from, to)) {
            phi(state, *out, result.as_ref());
        }
    }
}

/// An arm's phi, backward: the output dies, the arm's operand for it lives.
fn phi(state: &mut LiveSet, out: Option<Var>, result: Option<&Operand>) {
    if let Some(o) = out {
        state.remove(o);
    }
    if let Some(r) = result {
        use_op(state, r);
    }
}

/// The live variables after each call and each branch of one function.
pub(super) struct Liveness {
    after: HashMap<*const Inst, LiveSet>,
    empty: LiveSet,
}

impl Liveness {
    /// Solves liveness for `func`.
    pub(super) fn of(func: &SsaFunction) -> Liveness {
        let mut flat = Flat {
            n_vars: func.n_vars as usize,
            insts: Vec::new(),
            inst_node: Vec::new(),
            nodes: Vec::new(),
            phis: HashMap::new(),
            joins: HashMap::new(),
            nest: LoopNest::new(),
        };
        let entry = flat.new_node();
        flat.seq(&func.body, entry);
        flat.nest = LoopNest::with_graph(&flat);
        let mut results = LiveVars.into_engine(&flat).iterate_to_fixpoint();
        let mut after = HashMap::new();
        // Node start states: the join's start is what is live after its
        // branch.
        let mut start = vec![None; flat.nodes.len()];
        for &n in flat.nest.postorder().as_slice() {
            let mut state = results.entry_state(n).clone();
            let analysis = results.analysis_mut();
            analysis.apply_terminator_effect(&flat, &mut state, n);
            for &k in flat.nodes[n.index()].insts.iter().rev() {
                let inst = flat.insts[k as usize];
                if matches!(inst, Inst::Call { .. } | Inst::Apply { .. }) {
                    after.insert(inst as *const Inst, state.clone());
                }
                analysis.apply_instruction_effect(&flat, &mut state, k);
            }
            start[n.index()] = Some(state);
        }
        for (inst, join) in &flat.joins {
            if let Some(s) = &start[join.index()] {
                after.insert(*inst, s.clone());
            }
        }
        Liveness {
            after,
            empty: BitSet::new_empty(func.n_vars as usize),
        }
    }

    /// The variables live after `inst` (a call or a branch of the function).
    pub(super) fn after(&self, inst: &Inst) -> &LiveSet {
        self.after
            .get(&(inst as *const Inst))
            .unwrap_or(&self.empty)
    }
}
