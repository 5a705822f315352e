//! Every executed block instance of the suite's programs satisfies its
//! constraints, before and after block merging, and so does the memory
//! check of each run.

use kildall_blockmerge::{BlockMerge, Options};
use kildall_interpreter::{InterpreterOptions, RuntimeValue};
use kildall_ir::pass::run_module;
use kildall_r1cs::trace::record;
use kildall_testkit::expect::data_files;

fn suite() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/blockmerge");
    data_files(&dir, "ssa")
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn suite_instances_are_satisfied_before_and_after_merging() {
    let programs = suite();
    assert!(programs.len() >= 8, "the suite has eight programs or more");
    for (name, text) in programs {
        let line = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .map(str::trim)
        };
        let args = line("// args:").unwrap_or_else(|| panic!("{name}: no args line"));
        let args = RuntimeValue::parse_list(args).unwrap();
        let min_block_size = line("// min-block-size:")
            .map_or(Options::default().min_block_size, |n| n.parse().unwrap());
        let before = kildall_ir::parse_module(&text).unwrap();
        let mut after = before.clone();
        let options = Options {
            min_block_size,
            ..Options::default()
        };
        run_module::<BlockMerge>(&mut after, &options).unwrap();
        let main = before.main().unwrap();
        let interp = InterpreterOptions::default();
        let a =
            record(&before, main, args.clone(), &interp).unwrap_or_else(|e| panic!("{name}: {e}"));
        let b = record(&after, main, args, &interp).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(a.execution.outcome, b.execution.outcome, "{name}");
        for trace in [&a, &b] {
            let (cs, assignment) = trace.memory.system();
            assert!(
                cs.first_unsatisfied(&assignment).is_none(),
                "{name}: memory check"
            );
        }
        assert!(
            b.instances.len() < a.instances.len(),
            "{name}: {} -> {} instances",
            a.instances.len(),
            b.instances.len()
        );
    }
}

/// A block that calls a function stores before the call and loads after
/// it; the callee loads the caller's value and stores its own: the memory
/// check sees the accesses in execution order.
#[test]
fn memory_across_calls_is_checked_in_execution_order() {
    let module = kildall_ir::parse_module(
        "
fn main f0 {
  b0(v0: Field):
    v1 = allocate -> &mut Field
    store v0 at v1
    v2 = call f1(v1) -> Field
    v3 = load v1 -> Field
    v4 = add v2, v3
    return v4
}
fn bump f1 {
  b0(v0: &mut Field):
    v1 = load v0 -> Field
    v2 = add v1, Field 1
    store v2 at v0
    return v1
}",
    )
    .unwrap();
    let main = module.main().unwrap();
    let trace = record(
        &module,
        main,
        vec![RuntimeValue::field(41)],
        &InterpreterOptions::default(),
    )
    .unwrap();
    // allocate, store, (callee: load, store), load.
    let kinds: Vec<String> = trace
        .memory
        .entries
        .iter()
        .map(|e| e.kind.to_string())
        .collect();
    assert_eq!(kinds, ["allocate", "write", "read", "write", "read"]);
    let (cs, assignment) = trace.memory.system();
    assert!(cs.first_unsatisfied(&assignment).is_none());
}
