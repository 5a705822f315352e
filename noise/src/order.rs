//! Reverse post-order of a function's blocks, the order in which every
//! value's definition precedes its uses outside loops.

use kildall_ir::{Block, EntitySet, Function};

/// The blocks reachable from the entry, in reverse post-order.
pub fn reverse_post_order(func: &Function) -> Vec<Block> {
    let Some(entry) = func.layout.entry_block() else {
        return Vec::new();
    };
    let mut seen = EntitySet::new();
    let mut post = Vec::new();
    // Iterative DFS: (block, index of the next successor to visit).
    let mut stack = vec![(entry, 0usize)];
    seen.insert(entry);
    while let Some(&mut (block, ref mut next)) = stack.last_mut() {
        let succ = func.dfg.successors(block).nth(*next);
        *next += 1;
        match succ {
            Some(s) => {
                if !seen.contains(s) && func.layout.is_block_inserted(s) {
                    seen.insert(s);
                    stack.push((s, 0));
                }
            }
            None => {
                post.push(block);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}
