//! The placement problem in the abstract: a DAG of noisy values, each the
//! result of a noise transfer function of its inputs, where any value may be
//! reduced (`reduce_noise` right after its definition, seen by all its users).
//!
//! Reducing a value for all of its users is no loss of generality: a reduced
//! value has the encoding noise, which is the least noise any value has, and
//! every transfer function is monotone, so users never prefer the unreduced
//! value. For the same reason legality is monotone in the set of reduced
//! values (reducing more never makes a legal placement illegal), which the
//! exact search relies on.

use crate::NoiseParams;

/// How a node's noise follows from its inputs' (possibly reduced) noise.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum NodeKind {
    /// A value of known noise: `encode`, a function parameter, an opaque
    /// definition. Levels below the encoding noise are raised to it.
    Source(u32),
    /// `add`/`sub`: the largest input noise plus one.
    Add,
    /// `mul`: the sum of the input noises.
    Mul,
    /// A join (block parameter, `if` select): the largest input noise.
    Join,
    /// One input and a plaintext constant: the input's noise plus the given
    /// bits (`ceil(log2(|c|))` for a `mul` by `c`, 0 for `add`/`sub`; see
    /// `kildall_ir::plaintext`).
    Scale(u32),
}

/// One value of the problem.
#[derive(Clone, Debug)]
pub struct Node {
    /// The transfer function.
    pub kind: NodeKind,
    /// Inputs, all earlier nodes (the node list is in topological order).
    pub inputs: Vec<usize>,
    /// The largest noise the value may have after the optional reduction
    /// (the maximum, or the encoding noise for values carried around a loop).
    pub cap: u32,
    /// Whether a reduction may be placed on this value.
    pub reducible: bool,
    /// What a reduction of this value costs (1 under the static cost; the
    /// times it runs under the executions cost).
    pub cost: u64,
}

/// Why a placement is illegal.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Violation {
    /// The node.
    pub node: usize,
    /// Its noise before any reduction.
    pub noise: u32,
    /// The bound exceeded: the maximum, or the node's cap (then the node was
    /// not reduced).
    pub bound: u32,
}

/// A DAG of noisy values in topological order.
#[derive(Clone, Debug)]
pub struct Problem {
    params: NoiseParams,
    nodes: Vec<Node>,
}

impl Problem {
    /// An empty problem.
    pub fn new(params: NoiseParams) -> Self {
        Problem {
            params,
            nodes: Vec::new(),
        }
    }

    /// The noise parameters.
    pub fn params(&self) -> NoiseParams {
        self.params
    }

    /// The nodes, in topological order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Appends a node whose inputs are all earlier nodes and returns its index.
    ///
    /// # Panics
    /// If an input is not an earlier node (that would break the topological
    /// order every algorithm here relies on).
    pub fn push(&mut self, kind: NodeKind, inputs: Vec<usize>) -> usize {
        let index = self.nodes.len();
        assert!(
            inputs.iter().all(|&i| i < index),
            "inputs must precede their user"
        );
        let kind = match kind {
            NodeKind::Source(level) => NodeKind::Source(level.max(self.params.encode)),
            NodeKind::Mul => {
                assert_eq!(inputs.len(), 2, "mul takes two inputs");
                NodeKind::Mul
            }
            NodeKind::Scale(bits) => {
                assert_eq!(inputs.len(), 1, "a plaintext constant's op takes one input");
                NodeKind::Scale(bits)
            }
            other => {
                assert!(!inputs.is_empty(), "add and join take inputs");
                other
            }
        };
        self.nodes.push(Node {
            kind,
            inputs,
            cap: self.params.max,
            reducible: true,
            cost: 1,
        });
        index
    }

    /// A fresh encoding.
    pub fn encode(&mut self) -> usize {
        self.push(NodeKind::Source(self.params.encode), Vec::new())
    }

    /// `add a, b` (also `sub`).
    pub fn add(&mut self, a: usize, b: usize) -> usize {
        self.push(NodeKind::Add, vec![a, b])
    }

    /// `mul a, b`.
    pub fn mul(&mut self, a: usize, b: usize) -> usize {
        self.push(NodeKind::Mul, vec![a, b])
    }

    /// `mul a, c` by a plaintext constant of magnitude `c` (or, with `c` of
    /// 0 or 1, the noise of `add a, c`).
    pub fn scale(&mut self, a: usize, c: u128) -> usize {
        let bits = kildall_ir::plaintext::scale_bits(c);
        self.push(NodeKind::Scale(bits), vec![a])
    }

    /// Lowers the cap of `node` (the noise it may have after its optional reduction).
    pub fn set_cap(&mut self, node: usize, cap: u32) {
        self.nodes[node].cap = self.nodes[node].cap.min(cap);
    }

    /// Marks whether a reduction may be placed on `node`.
    pub fn set_reducible(&mut self, node: usize, reducible: bool) {
        self.nodes[node].reducible = reducible;
    }

    /// Sets what a reduction of `node` costs.
    pub fn set_cost(&mut self, node: usize, cost: u64) {
        self.nodes[node].cost = cost;
    }

    /// The cost of the placement `reduced`.
    pub fn cost_of(&self, reduced: &[bool]) -> u64 {
        self.nodes
            .iter()
            .zip(reduced)
            .filter(|&(_, &r)| r)
            .fold(0u64, |sum, (node, _)| sum.saturating_add(node.cost))
    }

    /// The cost every reducible node shares, if they all share one (then the
    /// cheapest placement is the one of fewest reductions).
    pub fn uniform_cost(&self) -> Option<u64> {
        let mut costs = self.nodes.iter().filter(|n| n.reducible).map(|n| n.cost);
        let first = costs.next().unwrap_or(1);
        costs.all(|c| c == first).then_some(first)
    }

    /// The noise of `node` before reduction given the effective noise of
    /// every earlier node.
    pub(crate) fn transfer(&self, node: usize, eff: &[u32]) -> u32 {
        let n = &self.nodes[node];
        match n.kind {
            NodeKind::Source(level) => level,
            NodeKind::Add => n
                .inputs
                .iter()
                .map(|&i| eff[i])
                .max()
                .unwrap_or(0)
                .saturating_add(1),
            NodeKind::Join => n.inputs.iter().map(|&i| eff[i]).max().unwrap_or(0),
            NodeKind::Mul => n
                .inputs
                .iter()
                .fold(0u32, |acc, &i| acc.saturating_add(eff[i])),
            NodeKind::Scale(bits) => eff[n.inputs[0]].saturating_add(bits),
        }
    }

    /// The noise of every node before reduction under the placement `reduced`,
    /// and the first violation in topological order.
    pub fn evaluate(&self, reduced: &[bool]) -> (Vec<u32>, Option<Violation>) {
        let mut noise = vec![0; self.nodes.len()];
        let mut eff = vec![0; self.nodes.len()];
        let mut first = None;
        for v in 0..self.nodes.len() {
            let n = self.transfer(v, &eff);
            noise[v] = n;
            let e = if reduced[v] { self.params.encode } else { n };
            eff[v] = e;
            if first.is_none() {
                if n > self.params.max {
                    first = Some(Violation {
                        node: v,
                        noise: n,
                        bound: self.params.max,
                    });
                } else if e > self.nodes[v].cap {
                    first = Some(Violation {
                        node: v,
                        noise: n,
                        bound: self.nodes[v].cap,
                    });
                }
            }
        }
        (noise, first)
    }

    /// Whether the placement is legal.
    pub fn is_legal(&self, reduced: &[bool]) -> bool {
        self.evaluate(reduced).1.is_none()
    }

    /// The users of every node (one entry per use).
    pub fn users(&self) -> Vec<Vec<usize>> {
        let mut users = vec![Vec::new(); self.nodes.len()];
        for (u, node) in self.nodes.iter().enumerate() {
            for &i in &node.inputs {
                users[i].push(u);
            }
        }
        users
    }

    /// The least reduction count by enumerating placements in order of size:
    /// exponential, for testing the other strategies on small problems.
    /// `None` if no placement is legal.
    pub fn brute_force(&self) -> Option<Vec<bool>> {
        self.brute_force_within(self.len())
    }

    /// The cheapest legal placement by enumerating every subset of the
    /// reducible nodes: exponential, for testing weighted costs on small
    /// problems. `None` if no placement is legal.
    pub fn brute_force_cost(&self) -> Option<Vec<bool>> {
        let candidates: Vec<usize> = (0..self.len())
            .filter(|&v| self.nodes[v].reducible)
            .collect();
        assert!(candidates.len() < 30, "too many candidates to enumerate");
        let mut best: Option<(u64, Vec<bool>)> = None;
        let mut reduced = vec![false; self.len()];
        for mask in 0u32..1 << candidates.len() {
            for (i, &c) in candidates.iter().enumerate() {
                reduced[c] = mask >> i & 1 == 1;
            }
            let cost = self.cost_of(&reduced);
            if best.as_ref().is_some_and(|b| b.0 <= cost) {
                continue;
            }
            if self.is_legal(&reduced) {
                best = Some((cost, reduced.clone()));
            }
        }
        best.map(|b| b.1)
    }

    /// [`Problem::brute_force`] among placements of at most `most`
    /// reductions: `None` if none of them is legal.
    pub fn brute_force_within(&self, most: usize) -> Option<Vec<bool>> {
        let candidates: Vec<usize> = (0..self.len())
            .filter(|&v| self.nodes[v].reducible)
            .collect();
        let mut reduced = vec![false; self.len()];
        for k in 0..=candidates.len().min(most) {
            let mut pick: Vec<usize> = (0..k).collect();
            loop {
                reduced.iter_mut().for_each(|r| *r = false);
                for &p in &pick {
                    reduced[candidates[p]] = true;
                }
                if self.is_legal(&reduced) {
                    return Some(reduced);
                }
                // Next k-combination in lexicographic order.
                let mut i = k;
                loop {
                    if i == 0 {
                        break;
                    }
                    i -= 1;
                    if pick[i] < candidates.len() - k + i {
                        pick[i] += 1;
                        for j in i + 1..k {
                            pick[j] = pick[j - 1] + 1;
                        }
                        i = usize::MAX;
                        break;
                    }
                }
                if i != usize::MAX {
                    break;
                }
            }
        }
        None
    }
}

/// A random DAG for tests: [`random_dag`] of 4 to `4 + extra - 1` ops;
/// reductions cost 1 to 4 when `weighted`.
#[cfg(test)]
pub(crate) fn random_problem(
    rng: &mut kildall_testkit::Rng,
    extra: u64,
    weighted: bool,
) -> Problem {
    let ops = 4 + rng.below(extra) as usize;
    let mut p = random_dag(rng, ops);
    if weighted {
        for v in 0..p.len() {
            p.set_cost(v, 1 + rng.below(4));
        }
    }
    p
}

/// A random DAG for tests: three encodings, then `ops` ops, a quarter
/// `mul`s and the rest `add`s, each reading one of the last five nodes and
/// any node.
#[cfg(test)]
pub(crate) fn random_dag(rng: &mut kildall_testkit::Rng, ops: usize) -> Problem {
    let mut p = Problem::new(crate::NoiseParams::default());
    for _ in 0..3 {
        p.encode();
    }
    for _ in 0..ops {
        let len = p.len() as u64;
        let a = (len - 1 - rng.below(len.min(5))) as usize;
        let b = rng.below(len) as usize;
        if rng.below(4) == 0 {
            p.mul(a, b);
        } else {
            p.add(a, b);
        }
    }
    p
}
