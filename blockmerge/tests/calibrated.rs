//! The calibrated rule merges a component only when its merged block costs
//! no more than the cheapest unmerged run of its blocks (constraints plus a
//! per-instance cost): a loop unrolls whatever its size, a branch with one
//! expensive arm stays apart, and no threshold applies.

use kildall_blockmerge::{BlockMerge, MergeRule, Options, Rejection};
use kildall_ir::pass::run_module;

fn merge(text: &str, per_instance: u64) -> kildall_blockmerge::Report {
    let mut module = kildall_ir::parse_module(text).unwrap();
    let options = Options {
        rule: MergeRule::Calibrated { per_instance },
        ..Options::default()
    };
    let reports = run_module::<BlockMerge>(&mut module, &options).unwrap().0;
    kildall_ir::verify_module(&module).unwrap();
    reports.into_iter().next().unwrap()
}

/// A branch whose then-arm multiplies `n` times.
fn branch(n: usize) -> String {
    let mut arm = String::new();
    let mut last = "v0".to_string();
    for k in 0..n {
        arm.push_str(&format!("    v{} = mul {last}, {last}\n", 10 + k));
        last = format!("v{}", 10 + k);
    }
    format!(
        "fn main f0 {{\n  b0(v0: Field, v1: u1):\n    jmpif v1 then: b1, else: b2\n  b1():\n{arm}    jmp b3({last})\n  b2():\n    jmp b3(v0)\n  b3(v2: Field):\n    return v2\n}}"
    )
}

#[test]
fn a_branch_merges_only_while_its_expensive_arm_costs_less_than_the_instances_saved() {
    // Unmerged, the cheapest run is b0, b2, b3: three instances and the
    // join's parameter. Merged: one instance, both arms, the `if`.
    let cheap = merge(&branch(10), 100);
    assert_eq!(cheap.merges.len(), 1, "{cheap}");
    let dear = merge(&branch(400), 100);
    assert_eq!(dear.merges.len(), 0, "{dear}");
    assert!(dear.rejected.contains(&(Rejection::Slower, 1)), "{dear}");
    // Under the threshold rule the dear branch merges (400 < 1024).
    let mut module = kildall_ir::parse_module(&branch(400)).unwrap();
    let reports = run_module::<BlockMerge>(&mut module, &Options::default())
        .unwrap()
        .0;
    assert_eq!(reports[0].merges.len(), 1);
}

#[test]
fn a_counted_loop_unrolls_above_the_threshold() {
    // 40 iterations of 64 products: 2,560 constraints, above 1024.
    let mut body = String::new();
    let mut last = "v2".to_string();
    for k in 0..64 {
        body.push_str(&format!("    v{} = mul {last}, v0\n", 10 + k));
        last = format!("v{}", 10 + k);
    }
    let text = format!(
        "fn main f0 {{\n  b0(v0: Field):\n    jmp b1(u32 0, v0)\n  b1(v1: u32, v2: Field):\n    v3 = lt v1, u32 40\n    jmpif v3 then: b2, else: b3\n  b2():\n{body}    v4 = add v1, u32 1\n    jmp b1(v4, {last})\n  b3():\n    return v2\n}}"
    );
    let report = merge(&text, 70);
    assert_eq!(report.blocks_after, 1, "{report}");
    let mut module = kildall_ir::parse_module(&text).unwrap();
    let threshold = run_module::<BlockMerge>(&mut module, &Options::default())
        .unwrap()
        .0;
    assert!(threshold[0].blocks_after > 1, "{}", threshold[0]);
}

/// Priced memory accesses: a read at a dynamic index, a load, store and
/// allocation per element cost `per_access` each on top of the model's
/// constraints; a read at a constant index costs nothing.
#[test]
fn memory_accesses_are_priced_per_element() {
    use kildall_blockmerge::{CostModel, R1cs, WithAccesses};
    let module = kildall_ir::parse_module(
        "
fn main f0 {
  b0(v0: [Field; 3], v1: u32):
    v2 = array_get v0, index v1 -> Field
    v3 = array_get v0, index u32 1 -> Field
    v4 = allocate -> &mut [Field; 3]
    store v0 at v4
    v5 = load v4 -> [Field; 3]
    return v2
}",
    )
    .unwrap();
    let func = &module.functions[module.main().unwrap()];
    let block = func.entry_block().unwrap();
    let priced = WithAccesses {
        model: std::sync::Arc::new(R1cs),
        per_access: 50,
    };
    // 1 dynamic read, 3 allocated, 3 stored, 3 loaded elements.
    assert_eq!(priced.block(func, block), R1cs.block(func, block) + 10 * 50);
}
