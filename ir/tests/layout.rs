//! The layout and cursor API that passes use to move code: every function
//! here is checked against the order it must produce, and the result
//! verifies.

use kildall_ir::{
    parse_module, verify_function, BinaryOp, Block, FuncCursor, Function, Inst, InstructionData,
    Type, Value, ValueDef,
};

/// A function `b0(v0: u32) -> b1 -> return` with two adds in `b0`.
fn two_blocks() -> (Function, [Block; 2], [Inst; 2], Value) {
    let mut func = Function::new("f");
    let mut cur = FuncCursor::new(&mut func);
    let b0 = cur.append_block();
    let b1 = cur.append_block();
    let x = cur.func.dfg.append_block_param(b0, Type::U32);
    cur.goto_bottom(b0);
    let a = cur.binary(BinaryOp::UncheckedAdd, x, x);
    let b = cur.binary(BinaryOp::UncheckedAdd, a, x);
    cur.jmp(b1, vec![]);
    cur.goto_bottom(b1);
    cur.ret(vec![]);
    let def = |v: Value| match func.dfg.value_def(v) {
        ValueDef::Result(inst, _) => inst,
        other => panic!("{other:?}"),
    };
    let insts = [def(a), def(b)];
    (func, [b0, b1], insts, x)
}

fn order(func: &Function, block: Block) -> Vec<Inst> {
    func.layout.block_insts(block).collect()
}

#[test]
fn blocks_link_both_ways() {
    let (func, [b0, b1], _, _) = two_blocks();
    assert_eq!(func.layout.next_block(b0), Some(b1));
    assert_eq!(func.layout.prev_block(b1), Some(b0));
    assert_eq!(func.layout.prev_block(b0), None);
}

#[test]
fn an_instruction_goes_after_another_and_moves_with_its_block() {
    let (mut func, [b0, b1], [a, b], x) = two_blocks();
    let mul = InstructionData::Binary {
        op: BinaryOp::UncheckedMul,
        lhs: x,
        rhs: x,
    };
    let c = func.dfg.make_inst(mul.clone());
    func.dfg.append_result(c, Type::U32);
    func.layout.insert_inst_after(c, a);
    assert_eq!(order(&func, b0), [a, c, b]);
    // After the last instruction is the end of the block.
    let d = func.dfg.make_inst(mul);
    func.dfg.append_result(d, Type::U32);
    func.layout.insert_inst_after(d, b);
    assert_eq!(order(&func, b0), [a, c, b, d]);
    // Moving the body of b0 to the end of b1 keeps the order.
    func.layout.move_insts_to_end(b0, b1);
    assert!(order(&func, b0).is_empty());
    assert_eq!(order(&func, b1), [a, c, b, d]);
    assert!([a, c, b, d]
        .iter()
        .all(|&i| func.layout.inst_block(i) == Some(b1)));
}

#[test]
fn the_cursor_inserts_before_the_instruction_it_stands_on() {
    let (mut func, [b0, _], [a, b], x) = two_blocks();
    let mut cur = FuncCursor::new(&mut func);
    cur.goto_inst(b);
    assert_eq!(cur.current_inst(), Some(b));
    let y = cur.binary(BinaryOp::UncheckedSub, x, x);
    let ValueDef::Result(new, _) = func.dfg.value_def(y) else {
        panic!("a result")
    };
    assert_eq!(order(&func, b0), [a, new, b]);
    verify_function(&func).unwrap();
}

#[test]
fn removing_a_block_parameter_renumbers_the_rest() {
    let mut module =
        parse_module("fn main f0 {\n  b0(v0: u32, v1: Field, v2: u1):\n    return v2\n}\n")
            .unwrap();
    let func = module.functions.values_mut().next().unwrap();
    let b0 = func.entry_block().unwrap();
    let params = func.dfg.block_params(b0).to_vec();
    func.dfg.remove_block_param(b0, 1);
    assert_eq!(func.dfg.block_params(b0), [params[0], params[2]]);
    assert_eq!(func.dfg.value_def(params[2]), ValueDef::Param(b0, 1));
    assert_eq!(func.dfg.value_def(params[1]), ValueDef::Unused);
}

#[test]
fn a_terminator_retargets_every_destination() {
    let module = parse_module(
        "fn main f0 {\n  b0(v0: u1):\n    jmpif v0 then: b1, else: b2\n  b1():\n    return\n  b2():\n    return\n}\n",
    )
    .unwrap();
    let func = module.functions.values().next().unwrap();
    let [b0, b1, b2]: [Block; 3] = func.layout.blocks().collect::<Vec<_>>().try_into().unwrap();
    let mut terminator = func.dfg.terminator(b0).unwrap().clone();
    terminator.map_blocks(|b| if b == b1 { b2 } else { b1 });
    let destinations: Vec<Block> = terminator.successors().collect();
    assert_eq!(destinations, [b2, b1]);
}
