//! Deeply nested input: 10,000 branches nested in one another, generated
//! here. The component analysis, the walks over components and the
//! flattening all use explicit stacks, so the pass runs on a thread with a
//! 256 KiB stack (a recursion once per nesting level overflowed even the
//! 2 MiB stack of a test thread here), and the merged program behaves as
//! the input does.

use kildall_blockmerge::{BlockMerge, Options};
use kildall_harness::testing::check_same_behaviour;
use kildall_interpreter::{interpret, InterpreterOptions, Outcome, RuntimeValue, TrapRule};
use kildall_ir::pass::run_module;
use kildall_ir::{parse_module, verify_module, FuncId, Module};

const DEPTH: u32 = 10_000;

/// `main(v0)`: level `k` goes one level deeper when `k < v0` and otherwise
/// jumps to its join with `k`; every join adds one on the way out. So the
/// result is `2 * v0 + 1` for `v0 < DEPTH` and `v0 + DEPTH` otherwise.
fn nested_branches(depth: u32) -> String {
    // Blocks: b0 entry; per level k: H_k = b(3k+1), E_k = b(3k+2),
    // J_k = b(3k+3); the innermost block L = b(3 * depth + 1).
    let h = |k: u32| 3 * k + 1;
    let leaf = 3 * depth + 1;
    let mut text = String::from("fn main f0 {\n  b0(v0: u32):\n    jmp b1()\n");
    let mut v = 0;
    for k in 0..depth {
        v += 1;
        let then = if k + 1 < depth { h(k + 1) } else { leaf };
        text += &format!(
            "  b{}():\n    v{v} = lt u32 {k}, v0\n    jmpif v{v} then: b{then}, else: b{}\n",
            h(k),
            h(k) + 1
        );
        text += &format!("  b{}():\n    jmp b{}(u32 {k})\n", h(k) + 1, h(k) + 2);
    }
    text += &format!("  b{leaf}():\n    jmp b{}(v0)\n", h(depth - 1) + 2);
    for k in (0..depth).rev() {
        let (x, y) = (v + 1, v + 2);
        v += 2;
        text += &format!(
            "  b{}(v{x}: u32):\n    v{y} = unchecked_add v{x}, u32 1\n",
            h(k) + 2
        );
        if k == 0 {
            text += &format!("    return v{y}\n");
        } else {
            text += &format!("    jmp b{}(v{y})\n", h(k - 1) + 2);
        }
    }
    text + "}\n"
}

fn result(module: &Module, v0: u128) -> Outcome {
    let options = InterpreterOptions {
        fuel: 10_000_000,
        ..InterpreterOptions::default()
    };
    let args = vec![RuntimeValue::unsigned(32, v0)];
    interpret(module, FuncId::from_u32(0), args, &options).outcome
}

/// Runs the pass on a thread with a 256 KiB stack.
fn merge_on_small_stack(module: &Module, min_block_size: u64) -> (Module, usize) {
    let mut module = module.clone();
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let options = Options {
                min_block_size,
                max_merged_insts: 1 << 24,
                ..Options::default()
            };
            let reports = run_module::<BlockMerge>(&mut module, &options).unwrap().0;
            (module, reports[0].blocks_after)
        })
        .unwrap()
        .join()
        .expect("the pass ran on a small stack")
}

#[test]
fn ten_thousand_nested_branches() {
    let before = parse_module(&nested_branches(DEPTH)).unwrap();
    verify_module(&before).unwrap();
    assert_eq!(
        before.functions[FuncId::from_u32(0)].layout.num_blocks(),
        30_002
    );
    // Everything merges, or only what fits the default threshold.
    for (min_block_size, most_blocks) in [(u64::MAX, 1), (1024, 29_999)] {
        let (after, blocks) = merge_on_small_stack(&before, min_block_size);
        assert!(blocks <= most_blocks, "{blocks} blocks after");
        verify_module(&after).unwrap();
        for v0 in [0u128, 1, 77, 9_999, 10_000, 12_345] {
            let expected = if v0 < u128::from(DEPTH) {
                2 * v0 + 1
            } else {
                v0 + u128::from(DEPTH)
            };
            let expected = Outcome::Return(vec![RuntimeValue::unsigned(32, expected)]);
            assert_eq!(result(&before, v0), expected, "input, v0 = {v0}");
            assert_eq!(result(&after, v0), expected, "merged, v0 = {v0}");
            let args = [RuntimeValue::unsigned(32, v0)];
            check_same_behaviour(&before, &after, &args, TrapRule::SameKind, 10_000_000).unwrap();
        }
    }
}

/// `main(v0)`: `depth` counted loops nested in one another, each running
/// once; the innermost adds one to an accumulator that every level passes
/// on, so the result is `v0 + 1`.
fn nested_loops(depth: u32) -> String {
    // Per level k: preheader P_k, header H_k(i, acc), exit X_k; the
    // innermost body B. P_0 = b0; P_{k+1} = the body of level k.
    let header = |k: u32| 3 * k + 1;
    let pre = |k: u32| if k == 0 { 0 } else { 3 * k - 1 };
    let exit = |k: u32| 3 * k + 3;
    let (i, acc, c) = (
        |k: u32| 10 * k + 1,
        |k: u32| 10 * k + 2,
        |k: u32| 10 * k + 3,
    );
    let mut text = String::from("fn main f0 {\n  b0(v0: u32):\n    jmp b1(u32 0, v0)\n");
    for k in 0..depth {
        if k > 0 {
            text += &format!(
                "  b{}():\n    jmp b{}(u32 0, v{})\n",
                pre(k),
                header(k),
                acc(k - 1)
            );
        }
        let body = if k + 1 < depth {
            pre(k + 1)
        } else {
            3 * depth + 1
        };
        text += &format!(
            "  b{}(v{}: u32, v{}: u32):\n    v{} = lt v{}, u32 1\n    jmpif v{} then: b{body}, else: b{}\n",
            header(k),
            i(k),
            acc(k),
            c(k),
            i(k),
            c(k),
            exit(k)
        );
    }
    // The innermost body, then the exits from the inside out: each is the
    // latch of the loop around it.
    let last = depth - 1;
    text += &format!(
        "  b{}():\n    v{} = unchecked_add v{}, u32 1\n    v{} = add v{}, u32 1\n    jmp b{}(v{}, v{})\n",
        3 * depth + 1,
        10 * depth + 4,
        acc(last),
        10 * depth + 5,
        i(last),
        header(last),
        10 * depth + 5,
        10 * depth + 4
    );
    for k in (0..depth).rev() {
        if k == 0 {
            text += &format!("  b{}():\n    return v{}\n", exit(0), acc(0));
        } else {
            text += &format!(
                "  b{}():\n    v{} = add v{}, u32 1\n    jmp b{}(v{}, v{})\n",
                exit(k),
                10 * k + 4,
                i(k - 1),
                header(k - 1),
                10 * k + 4,
                acc(k)
            );
        }
    }
    text + "}\n"
}

#[test]
fn two_thousand_nested_counted_loops() {
    const LOOPS: u32 = 2_000;
    let before = parse_module(&nested_loops(LOOPS)).unwrap();
    verify_module(&before).unwrap();
    let (after, blocks) = merge_on_small_stack(&before, u64::MAX);
    assert_eq!(blocks, 1);
    verify_module(&after).unwrap();
    for v0 in [0u128, 5] {
        let expected = Outcome::Return(vec![RuntimeValue::unsigned(32, v0 + 1)]);
        assert_eq!(result(&before, v0), expected, "input, v0 = {v0}");
        assert_eq!(result(&after, v0), expected, "merged, v0 = {v0}");
    }
}
