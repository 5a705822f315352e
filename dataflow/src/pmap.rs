//! A persistent map from `u32` keys: a 16-way trie on the key's bits with
//! shared, reference-counted nodes (after Bagwell's hash array mapped trie,
//! with the key as its own hash).
//!
//! Cloning is O(1), an update copies one path (at most eight nodes), and the
//! intersection of two maps that share structure skips every shared subtree
//! in O(1). That is what makes a persistent domain cheap on a large
//! function: the solver copies a state along every edge and into every
//! block visit, but the states of neighbouring blocks differ only where
//! effects changed them, and only those paths are stored twice. A domain
//! built on it is an ordinary [`JoinSemiLattice`](crate::JoinSemiLattice)
//! whose `Clone` is O(1) (mem2reg's reference values are one: alias class
//! to reference to known value, joined by [`PMap::intersect`]).

use std::rc::Rc;

const BITS: u32 = 4;
const MASK: u32 = (1 << BITS) - 1;

enum Node<V> {
    Leaf(u32, V),
    Branch(u16, Box<[Rc<Node<V>>]>),
}

/// A persistent map from `u32` to `V`.
pub struct PMap<V> {
    root: Option<Rc<Node<V>>>,
}

impl<V> Clone for PMap<V> {
    fn clone(&self) -> Self {
        PMap {
            root: self.root.clone(),
        }
    }
}

impl<V> Default for PMap<V> {
    fn default() -> Self {
        PMap { root: None }
    }
}

impl<V: Clone> PMap<V> {
    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    /// Whether both maps are the same object (so certainly equal).
    pub fn ptr_eq(&self, other: &Self) -> bool {
        match (&self.root, &other.root) {
            (None, None) => true,
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// A map with one entry.
    pub fn singleton(key: u32, value: V) -> Self {
        PMap {
            root: Some(Rc::new(Node::Leaf(key, value))),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: u32) -> Option<&V> {
        get_node(self.root.as_ref()?, key, 0)
    }

    /// Sets `key` to `value`.
    pub fn insert(&mut self, key: u32, value: V) {
        self.root = Some(match self.root.take() {
            None => Rc::new(Node::Leaf(key, value)),
            Some(root) => insert(&root, key, value, 0),
        });
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: u32) {
        if self.get(key).is_none() {
            return;
        }
        if let Some(root) = self.root.take() {
            self.root = remove(&root, key, 0);
        }
    }

    /// The entries of both maps whose values `combine` merges: `combine(a, b)`
    /// returns the merged value and whether it differs from `a`, or `None`
    /// to drop the key. Keys in only one map are dropped. Returns the result
    /// and whether it differs from `self`.
    pub fn intersect(
        &self,
        other: &Self,
        combine: &impl Fn(&V, &V) -> Option<(V, bool)>,
    ) -> (Self, bool) {
        match (&self.root, &other.root) {
            (None, _) => (PMap { root: None }, false),
            (Some(_), None) => (PMap { root: None }, true),
            (Some(a), Some(b)) => {
                let (root, changed) = intersect(a, b, 0, combine);
                (PMap { root }, changed)
            }
        }
    }

    /// Calls `f` on every entry.
    pub fn for_each(&self, f: &mut impl FnMut(u32, &V)) {
        fn walk<V>(node: &Node<V>, f: &mut impl FnMut(u32, &V)) {
            match node {
                Node::Leaf(k, v) => f(*k, v),
                Node::Branch(_, children) => children.iter().for_each(|c| walk(c, f)),
            }
        }
        if let Some(root) = &self.root {
            walk(root, f);
        }
    }
}

fn get_node<V>(node: &Rc<Node<V>>, key: u32, mut shift: u32) -> Option<&V> {
    let mut node = node;
    loop {
        match &**node {
            Node::Leaf(k, v) => return (*k == key).then_some(v),
            Node::Branch(bitmap, children) => {
                let bit = 1u16 << ((key >> shift) & MASK);
                if bitmap & bit == 0 {
                    return None;
                }
                node = &children[(bitmap & (bit - 1)).count_ones() as usize];
                shift += BITS;
            }
        }
    }
}

fn branch_of_two<V>(a: Rc<Node<V>>, ka: u32, b: Rc<Node<V>>, kb: u32, shift: u32) -> Rc<Node<V>> {
    let (ia, ib) = ((ka >> shift) & MASK, (kb >> shift) & MASK);
    if ia == ib {
        let child = branch_of_two(a, ka, b, kb, shift + BITS);
        return Rc::new(Node::Branch(1 << ia, Box::new([child])));
    }
    let bitmap = (1u16 << ia) | (1u16 << ib);
    let children: Box<[Rc<Node<V>>]> = if ia < ib {
        Box::new([a, b])
    } else {
        Box::new([b, a])
    };
    Rc::new(Node::Branch(bitmap, children))
}

fn insert<V: Clone>(node: &Rc<Node<V>>, key: u32, value: V, shift: u32) -> Rc<Node<V>> {
    match &**node {
        Node::Leaf(k, _) if *k == key => Rc::new(Node::Leaf(key, value)),
        Node::Leaf(k, _) => branch_of_two(
            node.clone(),
            *k,
            Rc::new(Node::Leaf(key, value)),
            key,
            shift,
        ),
        Node::Branch(bitmap, children) => {
            let bit = 1u16 << ((key >> shift) & MASK);
            let at = (bitmap & (bit - 1)).count_ones() as usize;
            // Allocated at its final length: the boxed slice takes the
            // buffer as it is, with no growth nor shrinking.
            let children: Box<[Rc<Node<V>>]> = if bitmap & bit == 0 {
                let mut new = Vec::with_capacity(children.len() + 1);
                new.extend_from_slice(&children[..at]);
                new.push(Rc::new(Node::Leaf(key, value)));
                new.extend_from_slice(&children[at..]);
                new.into_boxed_slice()
            } else {
                let mut new = children.clone();
                new[at] = insert(&children[at], key, value, shift + BITS);
                new
            };
            Rc::new(Node::Branch(bitmap | bit, children))
        }
    }
}

/// The remaining children of a branch being rebuilt, by slot: at most 16,
/// kept on the stack (a rebuild allocates only the new branch).
struct Children<V> {
    bitmap: u16,
    nodes: [Option<Rc<Node<V>>>; 16],
}

impl<V> Children<V> {
    fn new() -> Self {
        Children {
            bitmap: 0,
            nodes: std::array::from_fn(|_| None),
        }
    }

    fn push(&mut self, slot: u32, node: Rc<Node<V>>) {
        self.bitmap |= 1 << slot;
        self.nodes[slot as usize] = Some(node);
    }
}

/// Rebuilds a branch from its remaining children, collapsing a branch left
/// with a single leaf so that the shape stays canonical-ish and shallow.
fn rebuild<V>(mut children: Children<V>) -> Option<Rc<Node<V>>> {
    match children.bitmap.count_ones() {
        0 => None,
        1 => {
            let slot = children.bitmap.trailing_zeros() as usize;
            let only = children.nodes[slot].take().expect("a child in its slot");
            if matches!(*only, Node::Leaf(..)) {
                Some(only)
            } else {
                Some(Rc::new(Node::Branch(children.bitmap, Box::new([only]))))
            }
        }
        _ => Some(Rc::new(Node::Branch(
            children.bitmap,
            children.nodes.into_iter().flatten().collect(),
        ))),
    }
}

fn slots(bitmap: u16) -> impl Iterator<Item = u32> {
    (0..16u32).filter(move |i| bitmap & (1 << i) != 0)
}

fn remove<V: Clone>(node: &Rc<Node<V>>, key: u32, shift: u32) -> Option<Rc<Node<V>>> {
    match &**node {
        Node::Leaf(k, _) if *k == key => None,
        Node::Leaf(..) => Some(node.clone()),
        Node::Branch(bitmap, children) => {
            let idx = (key >> shift) & MASK;
            let mut list = Children::new();
            for (i, c) in slots(*bitmap).zip(children.iter()) {
                let kept = if i == idx {
                    remove(c, key, shift + BITS)
                } else {
                    Some(c.clone())
                };
                if let Some(c) = kept {
                    list.push(i, c);
                }
            }
            rebuild(list)
        }
    }
}

fn intersect<V: Clone>(
    a: &Rc<Node<V>>,
    b: &Rc<Node<V>>,
    shift: u32,
    combine: &impl Fn(&V, &V) -> Option<(V, bool)>,
) -> (Option<Rc<Node<V>>>, bool) {
    if Rc::ptr_eq(a, b) {
        return (Some(a.clone()), false);
    }
    match (&**a, &**b) {
        (Node::Leaf(k, va), _) => match get_node(b, *k, shift).and_then(|vb| combine(va, vb)) {
            Some((_, false)) => (Some(a.clone()), false),
            Some((v, true)) => (Some(Rc::new(Node::Leaf(*k, v))), true),
            None => (None, true),
        },
        (Node::Branch(..), Node::Leaf(k, vb)) => {
            // At most one entry survives: `k`, if `a` has it.
            let result = get_node(a, *k, shift).and_then(|va| combine(va, vb));
            (result.map(|(v, _)| Rc::new(Node::Leaf(*k, v))), true)
        }
        (Node::Branch(bm_a, ca), Node::Branch(bm_b, cb)) => {
            let mut changed = bm_a & !bm_b != 0;
            let mut list = Children::new();
            for (ia, i) in slots(*bm_a).enumerate() {
                let bit = 1u16 << i;
                if bm_b & bit == 0 {
                    continue;
                }
                let ib = (bm_b & (bit - 1)).count_ones() as usize;
                let (child, ch) = intersect(&ca[ia], &cb[ib], shift + BITS, combine);
                changed |= ch;
                if let Some(child) = child {
                    list.push(i, child);
                }
            }
            if !changed {
                return (Some(a.clone()), false);
            }
            (rebuild(list), true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn entries(m: &PMap<u32>) -> BTreeMap<u32, u32> {
        let mut out = BTreeMap::new();
        m.for_each(&mut |k, v| {
            out.insert(k, *v);
        });
        out
    }

    #[test]
    fn agrees_with_a_btreemap() {
        // A deterministic pseudo-random sequence of operations on two maps.
        let mut x = 12345u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut a, mut b) = (PMap::default(), PMap::default());
        let (mut ma, mut mb) = (BTreeMap::new(), BTreeMap::new());
        for step in 0..4000 {
            let key = (next() % 300) as u32 * if step % 3 == 0 { 4099 } else { 1 };
            let value = (next() % 3) as u32;
            match next() % 5 {
                0 | 1 => {
                    a.insert(key, value);
                    ma.insert(key, value);
                }
                2 => {
                    b.insert(key, value);
                    mb.insert(key, value);
                }
                3 => {
                    a.remove(key);
                    ma.remove(&key);
                }
                _ => {
                    if next() % 50 == 0 {
                        b = a.clone();
                        mb = ma.clone();
                    }
                }
            }
            assert_eq!(a.get(key).copied(), ma.get(&key).copied());
            if step % 97 == 0 {
                let (c, changed) = a.intersect(&b, &|x, y| (x == y).then_some((*x, false)));
                let expected: BTreeMap<u32, u32> = ma
                    .iter()
                    .filter(|(k, v)| mb.get(k) == Some(v))
                    .map(|(k, v)| (*k, *v))
                    .collect();
                assert_eq!(entries(&c), expected);
                assert_eq!(changed, expected.len() != ma.len());
                assert_eq!(entries(&a), ma);
            }
        }
    }
}
