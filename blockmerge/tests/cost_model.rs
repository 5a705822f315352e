//! The default R1CS model against hand-counted golden values, and a custom
//! model changing what merges.

use kildall_blockmerge::{BlockMerge, CostModel, Options, R1cs};
use kildall_ir::pass::run_module;
use kildall_ir::{parse_module, FuncId, Function, Inst};

#[test]
fn r1cs_golden_block() {
    let module = parse_module(
        "fn main f0 {
  b0(v0: u32, v1: Field, v2: Field, v3: [u32; 4]):
    v4 = add v0, u32 1
    v5 = mul v1, v2
    v6 = mul v1, Field 3
    v7 = add v1, v2
    v8 = lt v0, u32 7
    v9 = eq v0, u32 7
    constrain v9 == u1 1
    range_check v0 to 8 bits
    v10 = cast v0 as u8
    v11 = truncate v0 to 4 bits, max_bit_size: 32
    v12 = array_get v3, index v0 -> u32
    v13 = array_get v3, index u32 1 -> u32
    v14 = if v9 then v4 else (if v8) v0
    constrain v5 != v7
    return v14
}",
    )
    .unwrap();
    let func = &module.functions[FuncId::from_u32(0)];
    let block = func.entry_block().unwrap();
    let costs: Vec<u64> = func
        .layout
        .block_insts(block)
        .map(|i| R1cs.instruction(func, i))
        .collect();
    assert_eq!(costs, [33, 1, 0, 0, 33, 2, 1, 8, 8, 4, 4, 0, 1, 2]);
    // Plus one per parameter.
    assert_eq!(R1cs.block(func, block), 97 + 4);
}

/// Every instruction costs 300 constraints.
struct Flat300;

impl CostModel for Flat300 {
    fn instruction(&self, _: &Function, _: Inst) -> u64 {
        300
    }
}

#[test]
fn the_model_decides() {
    let text = "fn main f0 {
  b0(v0: u32):
    jmp b1(u32 0, v0)
  b1(v1: u32, v2: u32):
    v3 = lt v1, u32 4
    jmpif v3 then: b2, else: b3
  b2():
    v4 = unchecked_add v2, v1
    v5 = add v1, u32 1
    jmp b1(v5, v4)
  b3():
    return v2
}";
    let mut merged = parse_module(text).unwrap();
    let reports = run_module::<BlockMerge>(&mut merged, &Options::default())
        .unwrap()
        .0;
    assert_eq!(reports[0].blocks_after, 1);

    // Under the flat model the unrolled loop costs 5 * 300 + 4 * 600 > 1024.
    let mut kept = parse_module(text).unwrap();
    let options = Options {
        cost_model: std::sync::Arc::new(Flat300),
        ..Options::default()
    };
    let reports = run_module::<BlockMerge>(&mut kept, &options).unwrap().0;
    assert_eq!(reports[0].blocks_after, 4, "{}", reports[0]);
    assert_eq!(reports[0].threshold, 1024);
    assert_eq!(
        reports[0].rejected,
        [(kildall_blockmerge::Rejection::TooLarge, 1)]
    );
}
