//! Data-driven tests on the IR programs of `examples/noise`: for each
//! program, the noise check of the input, then for each strategy the count,
//! the bound and the rewritten IR, compared with `tests/data/NAME.out`
//! (`UPDATE_EXPECT=1` rewrites the expectations). Every output passes the
//! IR verifier and the noise verifier, and the interpreter gives the same
//! plaintext results before (noise traps off) and after (noise traps on).

use std::fmt::Write;
use std::path::Path;

use kildall_harness::testing;
use kildall_interpreter::{
    interpret, Execution, InterpreterOptions, Outcome, RuntimeValue, TrapRule,
};
use kildall_ir::{parse_module, verify_module, Module};
mod common;

use common::{place, verify};
use kildall_noise::{Cost, NoiseParams, Options, Strategy};

/// The totals of a module's placements.
struct Placement {
    count: usize,
    executions: u64,
    lower_bound: u64,
    optimal: bool,
}

impl Default for Placement {
    fn default() -> Self {
        Placement {
            count: 0,
            executions: 0,
            lower_bound: 0,
            optimal: true,
        }
    }
}

/// Enough for every example.
const FUEL: u64 = 1_000_000;

fn run(module: &Module, args: &str, check_noise: bool) -> Execution {
    let main = module.main().expect("a main function");
    let args = RuntimeValue::parse_list(args).expect("arguments parse");
    let options = InterpreterOptions {
        check_noise,
        ..InterpreterOptions::default()
    };
    interpret(module, main, args, &options)
}

/// Runs every strategy under both costs on one program and renders what the
/// expectation holds: per strategy the count, the times the reductions run
/// (by the model, and as the interpreter counts them on the first
/// arguments), the bound; the exact placement's IR (once when both costs
/// place alike).
fn render(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable");
    let module = parse_module(&text).expect("example parses");
    verify_module(&module).expect("example verifies");
    let params = NoiseParams::default();
    let mut out = String::new();
    let violations: Vec<_> = module
        .functions
        .values()
        .filter_map(|func| verify(func, params, params.encode).err())
        .collect();
    if violations.is_empty() {
        writeln!(out, "check: legal").unwrap();
    }
    for violation in violations {
        writeln!(out, "check: {}: {violation}", violation.loc).unwrap();
    }
    let mut exact_ir: Option<String> = None;
    for cost in [Cost::Static, Cost::Executions] {
        for strategy in [Strategy::Exact, Strategy::Ilp, Strategy::Greedy] {
            let mut optimized = module.clone();
            // Time enough for the ILP to prove every example (its search
            // over carried levels takes 10 s on `three_carried.ssa`), so
            // that what it proves does not depend on the machine.
            let options = Options {
                strategy,
                cost,
                time_limit: None,
                ..Options::default()
            };
            // Every function on its own, the totals summed.
            let mut placement = Placement::default();
            for func in optimized.functions.values_mut() {
                let one = place(func, &options).expect("placement exists");
                verify(func, params, params.encode).unwrap_or_else(|v| {
                    panic!("{}: {strategy} output over the bound: {v}", path.display())
                });
                placement.count += one.count;
                placement.executions += one.executions;
                placement.lower_bound += one.lower_bound;
                placement.optimal &= one.optimal;
            }
            verify_module(&optimized).expect("output verifies");
            if strategy == Strategy::Exact {
                assert!(placement.optimal, "{}: not proven optimal", path.display());
            }
            let mut runs = Vec::new();
            for args in ["u5 3, u5 4", "u5 0, u5 31", "u5 17, u5 9"] {
                let values = RuntimeValue::parse_list(args).expect("arguments parse");
                testing::check_same_behaviour(
                    &module,
                    &optimized,
                    &values,
                    TrapRule::SameKind,
                    FUEL,
                )
                .unwrap_or_else(|e| panic!("{}: {strategy} on {args}: {e}", path.display()));
                // Within the bound: with noise checking on, the placed program
                // returns what the input returned with it off.
                let before = run(&module, args, false);
                let after = run(&optimized, args, true);
                assert!(
                    matches!(after.outcome, Outcome::Return(_)),
                    "{}: {:?}",
                    path.display(),
                    after.outcome
                );
                assert_eq!(
                    before.outcome,
                    after.outcome,
                    "{}: {strategy} on {args}",
                    path.display()
                );
                // Each executed reduce_noise is one more step. The model
                // charges every block the runs of its loops (every loop of
                // these examples is counted), so no run does more.
                let run = after.steps - before.steps;
                assert!(
                    run <= placement.executions,
                    "{}: {strategy} on {args}: {run} runs, {} charged",
                    path.display(),
                    placement.executions
                );
                runs.push(run);
            }
            writeln!(
                out,
                "{strategy} ({cost} cost): {} inserted, {} executions (run {}), lower bound {}, {}",
                placement.count,
                placement.executions,
                runs[0],
                placement.lower_bound,
                if placement.optimal {
                    "optimal"
                } else {
                    "not proven optimal"
                }
            )
            .unwrap();
            if strategy == Strategy::Exact {
                let ir = optimized.to_string();
                if exact_ir.as_ref() != Some(&ir) {
                    write!(out, "{ir}").unwrap();
                }
                exact_ir = Some(ir);
            }
        }
    }
    out
}

#[test]
fn examples_match_expectations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let examples = testing::data_files(&root.join("../examples/noise"), "ssa");
    testing::check_each(&examples, |path| {
        let stem = path.file_stem().expect("a file name");
        let expected = root.join("tests/data").join(stem).with_extension("out");
        testing::check_file(&expected, &render(path))
    });
}

/// The plaintext-constant rule, by the analysis and by the interpreter's
/// noise tracking alike: `mul` by 1 is 0 bits, `add` of a constant 0, `mul`
/// by 4 (and by -4) 2 bits.
#[test]
fn plaintext_constants_scale_by_their_log2() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("../examples/noise/scale.ssa")).unwrap();
    let module = parse_module(&text).expect("parses");
    verify_module(&module).expect("verifies");
    let main = module.main().unwrap();
    let func = &module.functions[main];
    let params = NoiseParams::default();
    let map = kildall_noise::NoiseAnalysis::new(params, params.encode)
        .run(func, &mut kildall_ir::pass::FunctionAnalyses::new());
    let bits = |name: &str| {
        let value = func
            .dfg
            .values()
            .map(|(v, _)| v)
            .find(|v| v.to_string() == name)
            .expect("the value exists");
        map.noise[value]
    };
    use kildall_dataflow::Max;
    let expected = [
        ("v4", 24),
        ("v5", 24),
        ("v6", 24),
        ("v7", 26),
        ("v9", 26 + 1),
    ];
    for (name, noise) in expected {
        let want = if noise > params.max {
            Max::Top
        } else {
            Max::At(noise as u64)
        };
        assert_eq!(bits(name), want, "{name}");
    }
    // v8 = mul i5 -4, v7 is 28 bits: the interpreter traps with that figure.
    match run(&module, "u5 3, u5 4", true).outcome {
        Outcome::Trap(trap) => assert!(trap.to_string().contains("noise 28 bits"), "{trap}"),
        other => panic!("expected a noise trap, got {other:?}"),
    }
}
