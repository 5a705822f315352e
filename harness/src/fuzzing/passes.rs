//! The differential harness of the passes: a generated program runs before
//! and after a pipeline, and the outcome must not change.

use super::*;

/// A pass as the differential harness runs it: its name, a run whose
/// options are drawn from a `knob` (each value one point of the pass's
/// option space), and the contract the harness checks beyond "the outcome
/// does not change". The fuzzing crate implements it for every pass, so
/// the passes carry no fuzzing concern.
pub trait FuzzedPass: Sync {
    /// The pass's name in pipelines and regression files.
    fn name(&self) -> &'static str;

    /// Runs the pass on every function of `module` with the options of
    /// `knob`.
    ///
    /// # Errors
    ///
    /// Why the pass declined the module.
    fn run(&self, module: &mut Module, knob: u64) -> Result<(), String>;

    /// Whether the output runs within the noise bound with the
    /// interpreter's noise checking on, whatever the input did.
    fn establishes_noise_bound(&self) -> bool {
        false
    }
}

/// The input of the pass targets: a generated program, its arguments, and
/// the pipeline around the pass under test.
#[derive(Clone, Debug, Arbitrary)]
pub struct PassInput {
    /// The program.
    pub program: GenProgram,
    /// Seed of the arguments of `main`.
    pub args_seed: u64,
    /// Other passes run with the one under test (each byte picks one).
    pub others: Vec<u8>,
    /// Where the pass under test goes among the others.
    pub position: u8,
    /// Knob handed to every pass.
    pub options: u64,
}

impl PassInput {
    /// The pipeline: `main` and up to three of `all`, in the chosen order.
    pub fn pipeline<'p>(
        &self,
        main: &'p dyn FuzzedPass,
        all: &[&'p dyn FuzzedPass],
    ) -> Vec<&'p dyn FuzzedPass> {
        let mut passes: Vec<&dyn FuzzedPass> = if all.is_empty() {
            Vec::new()
        } else {
            self.others
                .iter()
                .take(3)
                .map(|&b| all[usize::from(b) % all.len()])
                .collect()
        };
        let at = usize::from(self.position) % (passes.len() + 1);
        passes.insert(at, main);
        passes
    }

    /// The regression file of this input run through `pipeline`.
    pub fn regression_file(&self, pipeline: &[&dyn FuzzedPass]) -> String {
        let (module, bound) = self.program.build();
        let main = module.main().expect("generated programs have a main");
        let args = random_args(&module, main, self.args_seed).unwrap_or_default();
        let names: Vec<&str> = pipeline.iter().map(|p| p.name()).collect();
        let mut out = String::new();
        let _ = writeln!(out, "// A failure found by fuzzing: {:?}", self);
        let _ = writeln!(out, "// pipeline: {}", names.join(", "));
        let _ = writeln!(out, "// options: {}", self.options);
        let _ = writeln!(out, "// fuel: {bound}");
        let _ = writeln!(out, "// args: {}", display_list(&args).trim_end());
        let _ = write!(out, "{module}");
        out
    }
}

/// An outcome as one line.
pub fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Return(values) => format!("return {}", display_list(values))
            .trim_end()
            .to_string(),
        Outcome::Trap(trap) => format!("trap: {trap}"),
        Outcome::OutOfFuel => "out of fuel".to_string(),
    }
}

/// The differential property of a pipeline on one verified module: after
/// each pass the module verifies, and at the end `main` on `args`
/// computes what it computed before (noise checking off); when the last
/// pass establishes the noise bound, the result also runs with noise checking on
/// without exceeding the noise bound. `fuel` must suffice for the original
/// program; the transformed one gets eight times as much.
pub fn check_pipeline(
    module: &Module,
    args: &[RuntimeValue],
    fuel: u64,
    options: u64,
    pipeline: &[&dyn FuzzedPass],
) {
    let names: Vec<&str> = pipeline.iter().map(|p| p.name()).collect();
    let names = names.join(", ");
    let main = module.main().expect("a module with a main function");
    let off = InterpreterOptions {
        fuel,
        check_noise: false,
        ..InterpreterOptions::default()
    };
    let before = run_checked(module, main, args.to_vec(), &off);
    if before.outcome == Outcome::OutOfFuel {
        panic!("the original program runs out of its fuel bound {fuel}");
    }
    let mut after = module.clone();
    for pass in pipeline {
        if let Err(message) = pass.run(&mut after, options) {
            panic!("[{names}] pass `{}` failed: {message}", pass.name());
        }
        if let Err(err) = verify_module(&after) {
            panic!(
                "[{names}] the output of `{}` does not verify: {err}\n{after}",
                pass.name()
            );
        }
    }
    let more = InterpreterOptions {
        fuel: fuel.saturating_mul(8).saturating_add(10_000),
        ..off.clone()
    };
    let got = run_checked(&after, main, args.to_vec(), &more);
    assert!(
        TrapRule::SameKind.same_execution(&before, &got),
        "[{names}] the outcome changed: before {} (output {:?}), after {} (output {:?})\n--- after\n{after}",
        outcome_text(&before.outcome),
        before.output,
        outcome_text(&got.outcome),
        got.output
    );
    if pipeline.last().is_some_and(|p| p.establishes_noise_bound()) {
        let on = InterpreterOptions {
            check_noise: true,
            ..more
        };
        let checked = run_checked(&after, main, args.to_vec(), &on);
        if let Outcome::Trap(trap) = &checked.outcome {
            assert!(
                !matches!(trap.kind, TrapKind::NoiseOverLimit { .. }),
                "[{names}] the placed program exceeds the noise bound: {trap}\n{after}"
            );
        }
        assert!(
            TrapRule::SameKind.same_execution(&before, &checked),
            "[{names}] with noise checking on: before {}, after {}",
            outcome_text(&before.outcome),
            outcome_text(&checked.outcome)
        );
    }
}

/// A pass target: `main` in a pipeline drawn from `input` among `all`.
pub fn check_pass_input(input: &PassInput, main: &dyn FuzzedPass, all: &[&dyn FuzzedPass]) {
    let (module, fuel) = input.program.build();
    verify_module(&module)
        .unwrap_or_else(|e| panic!("a generated program does not verify: {e}\n{module}"));
    let entry = module.main().expect("generated programs have a main");
    let Some(args) = random_args(&module, entry, input.args_seed) else {
        return;
    };
    let pipeline = input.pipeline(main, all);
    check_pipeline(&module, &args, fuel, input.options, &pipeline);
}

/// The `// key: value` lines at the top of a regression file.
#[derive(Default, Debug)]
pub(super) struct Header {
    pub(super) pipeline: Vec<String>,
    pub(super) options: u64,
    pub(super) fuel: Option<u64>,
    pub(super) args: Option<String>,
    pub(super) args_seed: Option<u64>,
    pub(super) noise: bool,
}

impl Header {
    pub(super) fn parse(text: &str) -> Header {
        let mut header = Header {
            noise: true,
            ..Header::default()
        };
        for line in text
            .lines()
            .take_while(|l| l.trim_start().starts_with("//"))
        {
            let line = line.trim_start().trim_start_matches("//").trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "pipeline" => {
                    header.pipeline = value
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect()
                }
                "options" => header.options = value.parse().unwrap_or(0),
                "fuel" => header.fuel = value.parse().ok(),
                "args" => header.args = Some(value.to_string()),
                "args-seed" => header.args_seed = value.parse().ok(),
                "noise" => header.noise = value != "off",
                _ => {}
            }
        }
        header
    }
}

/// Replays a pass regression file (see [`PassInput::regression_file`])
/// with the passes of `all` named in its `// pipeline:` line. Panics when a
/// property fails, or when the file is malformed or names an unknown pass.
pub fn check_regression_file(text: &str, all: &[&dyn FuzzedPass]) {
    let header = Header::parse(text);
    let module =
        parse_module(text).unwrap_or_else(|e| panic!("the regression file does not parse: {e}"));
    verify_module(&module)
        .unwrap_or_else(|e| panic!("the regression program does not verify: {e}"));
    let args = RuntimeValue::parse_list(header.args.as_deref().unwrap_or(""))
        .unwrap_or_else(|e| panic!("bad `// args:` line: {e}"));
    let pipeline: Vec<&dyn FuzzedPass> = header
        .pipeline
        .iter()
        .map(|name| {
            all.iter()
                .copied()
                .find(|pass| pass.name() == name)
                .unwrap_or_else(|| panic!("unknown pass `{name}`"))
        })
        .collect();
    check_pipeline(
        &module,
        &args,
        header.fuel.unwrap_or(1_000_000),
        header.options,
        &pipeline,
    );
}
