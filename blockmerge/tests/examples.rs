//! The workspace's `examples/blockmerge` programs: merging keeps their
//! results, removes blocks and executed transitions, and never raises the
//! padded cost of their runs.

use kildall_blockmerge::trace::trace;
use kildall_blockmerge::{BlockMerge, Options, R1cs};
use kildall_interpreter::{InterpreterOptions, Outcome, RuntimeValue};
use kildall_ir::pass::run_module;
use kildall_testkit::expect::data_files;

#[test]
fn examples_merge_and_cost_less() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/blockmerge");
    let paths = data_files(&dir, "ssa");
    assert!(paths.len() >= 4, "the suite has at least four programs");
    for path in paths {
        let name = path.display();
        let text = std::fs::read_to_string(&path).unwrap();
        let args = text
            .lines()
            .find_map(|l| l.strip_prefix("// args:"))
            .unwrap_or_else(|| panic!("{name}: no args line"));
        let args = RuntimeValue::parse_list(args.trim()).unwrap();
        let before = kildall_ir::parse_module(&text).unwrap();
        kildall_ir::verify_module(&before).unwrap();
        // A program whose blocks are all large declares the smallest
        // threshold it merges under.
        let min_block_size = text
            .lines()
            .find_map(|l| l.strip_prefix("// min-block-size:"))
            .map_or(Options::default().min_block_size, |n| {
                n.trim().parse().unwrap()
            });
        let mut after = before.clone();
        run_module::<BlockMerge>(
            &mut after,
            &Options {
                min_block_size,
                ..Options::default()
            },
        )
        .unwrap();
        kildall_ir::verify_module(&after).unwrap_or_else(|e| panic!("{name}: {e}"));
        let main = before.main().unwrap();
        let interp = InterpreterOptions::default();
        let a = trace(&before, main, args.clone(), &interp, &R1cs);
        let b = trace(&after, main, args, &interp, &R1cs);
        assert!(
            matches!(a.execution.outcome, Outcome::Return(_)),
            "{name}: {:?}",
            a.execution.outcome
        );
        assert_eq!(a.execution.outcome, b.execution.outcome, "{name}");
        // Every executed block starts with the marker: the trace saw them all.
        assert!(
            a.executed_blocks > 1,
            "{name}: trace of {} blocks",
            a.executed_blocks
        );
        assert!(
            b.transitions < a.transitions,
            "{name}: transitions {} -> {}",
            a.transitions,
            b.transitions
        );
        assert!(
            b.padded_cost <= a.padded_cost,
            "{name}: padded cost {} -> {}",
            a.padded_cost,
            b.padded_cost
        );
        let blocks = |m: &kildall_ir::Module| -> usize {
            m.functions.values().map(|f| f.layout.num_blocks()).sum()
        };
        assert!(blocks(&after) < blocks(&before), "{name}");
    }
}

#[test]
fn find_min_trace_golden() {
    // b0, the header 8 times, 7 iterations of three body blocks, the exit.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/blockmerge/find_min.ssa");
    let text = std::fs::read_to_string(path).unwrap();
    let before = kildall_ir::parse_module(&text).unwrap();
    let mut after = before.clone();
    run_module::<BlockMerge>(&mut after, &Options::default()).unwrap();
    let args = RuntimeValue::parse_list("[u32 5, u32 3, u32 9, u32 1, u32 7, u32 8, u32 2, u32 6]")
        .unwrap();
    let main = before.main().unwrap();
    let interp = InterpreterOptions::default();
    let a = trace(&before, main, args.clone(), &interp, &R1cs);
    let b = trace(&after, main, args, &interp, &R1cs);
    assert_eq!((a.executed_blocks, a.transitions), (31, 30));
    assert_eq!((b.executed_blocks, b.transitions), (1, 0));
    // One merged block of at most 1024 constraints pads to at most 1024.
    assert!(
        b.padded_cost <= 1024 && b.padded_cost > 512,
        "{}",
        b.padded_cost
    );
}
