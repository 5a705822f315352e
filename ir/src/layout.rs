//! The order of blocks in a function and of instructions in blocks, kept
//! apart from their data as Cranelift's `Layout` is: doubly linked lists over
//! entity-indexed side tables, so insertion, removal and moves are O(1).

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

use crate::{Block, Inst};

#[derive(Clone, Default)]
struct BlockNode {
    prev: PackedOption<Block>,
    next: PackedOption<Block>,
    first_inst: PackedOption<Inst>,
    last_inst: PackedOption<Inst>,
    inserted: bool,
    len: u32,
}

#[derive(Clone, Default)]
struct InstNode {
    block: PackedOption<Block>,
    prev: PackedOption<Inst>,
    next: PackedOption<Inst>,
}

/// Block order and instruction order of a function. The first block is the
/// entry block.
#[derive(Clone, Default)]
pub struct Layout {
    blocks: SecondaryMap<Block, BlockNode>,
    insts: SecondaryMap<Inst, InstNode>,
    first_block: PackedOption<Block>,
    last_block: PackedOption<Block>,
    num_blocks: u32,
}

impl Layout {
    /// An empty layout.
    pub fn new() -> Self {
        Self::default()
    }

    /// The entry block: the first in the layout.
    pub fn entry_block(&self) -> Option<Block> {
        self.first_block.expand()
    }

    /// The last block in the layout.
    pub fn last_block(&self) -> Option<Block> {
        self.last_block.expand()
    }

    /// The number of blocks in the layout.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks as usize
    }

    /// Whether `block` is in the layout.
    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.blocks[block].inserted
    }

    /// Appends `block` at the end of the layout.
    pub fn append_block(&mut self, block: Block) {
        assert!(
            !self.is_block_inserted(block),
            "{block} is already in the layout"
        );
        let prev = self.last_block;
        {
            let node = &mut self.blocks[block];
            node.inserted = true;
            node.prev = prev;
            node.next = None.into();
        }
        match prev.expand() {
            Some(prev) => self.blocks[prev].next = block.into(),
            None => self.first_block = block.into(),
        }
        self.last_block = block.into();
        self.num_blocks += 1;
    }

    /// Inserts `block` right after `after`.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        assert!(
            !self.is_block_inserted(block),
            "{block} is already in the layout"
        );
        assert!(
            self.is_block_inserted(after),
            "{after} is not in the layout"
        );
        let next = self.blocks[after].next;
        {
            let node = &mut self.blocks[block];
            node.inserted = true;
            node.prev = after.into();
            node.next = next;
        }
        self.blocks[after].next = block.into();
        match next.expand() {
            Some(next) => self.blocks[next].prev = block.into(),
            None => self.last_block = block.into(),
        }
        self.num_blocks += 1;
    }

    /// Removes `block` from the layout; it must hold no instructions.
    pub fn remove_block(&mut self, block: Block) {
        assert!(
            self.is_block_inserted(block),
            "{block} is not in the layout"
        );
        assert!(
            self.blocks[block].first_inst.is_none(),
            "{block} is not empty"
        );
        let BlockNode { prev, next, .. } = std::mem::take(&mut self.blocks[block]);
        match prev.expand() {
            Some(prev) => self.blocks[prev].next = next,
            None => self.first_block = next,
        }
        match next.expand() {
            Some(next) => self.blocks[next].prev = prev,
            None => self.last_block = prev,
        }
        self.num_blocks -= 1;
    }

    /// The blocks in layout order.
    pub fn blocks(&self) -> Blocks<'_> {
        Blocks {
            layout: self,
            next: self.first_block.expand(),
        }
    }

    /// The block after `block` in the layout.
    pub fn next_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].next.expand()
    }

    /// The block before `block` in the layout.
    pub fn prev_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].prev.expand()
    }

    /// The number of instructions in `block` (its terminator not counted).
    pub fn block_len(&self, block: Block) -> usize {
        self.blocks[block].len as usize
    }

    /// The block `inst` is in, if it is in the layout.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.insts[inst].block.expand()
    }

    /// The first instruction of `block`.
    pub fn first_inst(&self, block: Block) -> Option<Inst> {
        self.blocks[block].first_inst.expand()
    }

    /// The last instruction of `block` (before its terminator).
    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.blocks[block].last_inst.expand()
    }

    /// The instruction after `inst` in its block.
    pub fn next_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts[inst].next.expand()
    }

    /// The instruction before `inst` in its block.
    pub fn prev_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts[inst].prev.expand()
    }

    /// The instructions of `block`, in order.
    pub fn block_insts(&self, block: Block) -> Insts<'_> {
        Insts {
            layout: self,
            next: self.first_inst(block),
            back: self.last_inst(block),
        }
    }

    /// Appends `inst` at the end of `block`.
    pub fn append_inst(&mut self, inst: Inst, block: Block) {
        assert!(
            self.is_block_inserted(block),
            "{block} is not in the layout"
        );
        assert!(
            self.insts[inst].block.is_none(),
            "{inst} is already in the layout"
        );
        let prev = self.blocks[block].last_inst;
        self.insts[inst] = InstNode {
            block: block.into(),
            prev,
            next: None.into(),
        };
        match prev.expand() {
            Some(prev) => self.insts[prev].next = inst.into(),
            None => self.blocks[block].first_inst = inst.into(),
        }
        self.blocks[block].last_inst = inst.into();
        self.blocks[block].len += 1;
    }

    /// Inserts `inst` at the start of `block`.
    pub fn prepend_inst(&mut self, inst: Inst, block: Block) {
        match self.first_inst(block) {
            Some(first) => self.insert_inst_before(inst, first),
            None => self.append_inst(inst, block),
        }
    }

    /// Inserts `inst` right before `before`.
    pub fn insert_inst_before(&mut self, inst: Inst, before: Inst) {
        assert!(
            self.insts[inst].block.is_none(),
            "{inst} is already in the layout"
        );
        let block = self.insts[before]
            .block
            .expand()
            .expect("the instruction to insert before is in the layout");
        let prev = self.insts[before].prev;
        self.insts[inst] = InstNode {
            block: block.into(),
            prev,
            next: before.into(),
        };
        self.insts[before].prev = inst.into();
        match prev.expand() {
            Some(prev) => self.insts[prev].next = inst.into(),
            None => self.blocks[block].first_inst = inst.into(),
        }
        self.blocks[block].len += 1;
    }

    /// Inserts `inst` right after `after`.
    pub fn insert_inst_after(&mut self, inst: Inst, after: Inst) {
        match self.next_inst(after) {
            Some(next) => self.insert_inst_before(inst, next),
            None => {
                let block = self.inst_block(after).expect("instruction in the layout");
                self.append_inst(inst, block);
            }
        }
    }

    /// Removes `inst` from the layout.
    pub fn remove_inst(&mut self, inst: Inst) {
        let InstNode { block, prev, next } = std::mem::take(&mut self.insts[inst]);
        let block = block
            .expand()
            .expect("the instruction to remove is in the layout");
        match prev.expand() {
            Some(prev) => self.insts[prev].next = next,
            None => self.blocks[block].first_inst = next,
        }
        match next.expand() {
            Some(next) => self.insts[next].prev = prev,
            None => self.blocks[block].last_inst = prev,
        }
        self.blocks[block].len -= 1;
    }

    /// Moves every instruction of `from` to the end of `to`, in order, in
    /// O(length of `from`) (each instruction's block is updated).
    pub fn move_insts_to_end(&mut self, from: Block, to: Block) {
        let mut next = self.first_inst(from);
        while let Some(inst) = next {
            next = self.next_inst(inst);
            self.remove_inst(inst);
            self.append_inst(inst, to);
        }
    }
}

/// Iterator over the blocks of a layout.
pub struct Blocks<'a> {
    layout: &'a Layout,
    next: Option<Block>,
}

impl Iterator for Blocks<'_> {
    type Item = Block;
    fn next(&mut self) -> Option<Block> {
        let block = self.next?;
        self.next = self.layout.next_block(block);
        Some(block)
    }
}

/// Iterator over the instructions of a block.
pub struct Insts<'a> {
    layout: &'a Layout,
    next: Option<Inst>,
    back: Option<Inst>,
}

impl Iterator for Insts<'_> {
    type Item = Inst;
    fn next(&mut self) -> Option<Inst> {
        let inst = self.next?;
        if Some(inst) == self.back {
            self.next = None;
            self.back = None;
        } else {
            self.next = self.layout.next_inst(inst);
        }
        Some(inst)
    }
}

impl DoubleEndedIterator for Insts<'_> {
    fn next_back(&mut self) -> Option<Inst> {
        let inst = self.back?;
        if Some(inst) == self.next {
            self.next = None;
            self.back = None;
        } else {
            self.back = self.layout.prev_inst(inst);
        }
        Some(inst)
    }
}
