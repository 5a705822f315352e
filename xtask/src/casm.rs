//! `cargo xtask casm`: compile `.jvr` (JuvixReg) to Cairo assembly, and run
//! it on the Cairo VM or on the strict CASM interpreter.
//!
//! A source error is printed as `FILE:LINE:COL: message` on stderr and
//! exits with status 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use kildall_casm::jvr::{self, JvrError};
use kildall_casm::jvr_interp::{self, Show, Val};
use kildall_casm::{Felt, Mode};

use crate::input::{self, Diagnostic, UsageError};
use crate::output;

/// Arguments of `cargo xtask casm`.
#[derive(Args)]
pub struct Cmd {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Compile a `.jvr` file; print the CASM listing (or write it with -o).
    Compile {
        /// The `.jvr` file.
        file: PathBuf,
        /// Write the listing here instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also write the program JSON that cairo-vm loads.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Entry function of the JSON program.
        #[arg(long, default_value = "main", requires = "json")]
        entry: String,
        /// Arguments the JSON program passes to the entry, comma-separated.
        #[arg(
            long,
            value_delimiter = ',',
            allow_hyphen_values = true,
            requires = "json"
        )]
        args: Vec<String>,
        /// Write the JSON in proof mode (`__start__`/`__end__`).
        #[arg(long, requires = "json")]
        proof: bool,
    },
    /// Compile and run; print the entry's result, then `steps: N`.
    Run {
        /// The `.jvr` file.
        file: PathBuf,
        /// Which machine runs the bytecode.
        #[arg(long, value_enum, default_value_t = Vm::Cairo)]
        vm: Vm,
        /// Arguments of the entry, comma-separated (e.g. `3,5`).
        #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
        args: Vec<String>,
        /// The entry's arguments in Juvix's JSON input format (parameter
        /// names to values; `in`, `in1`..`inN` for unnamed parameters).
        #[arg(long, conflicts_with = "args")]
        input: Option<PathBuf>,
        /// Entry function.
        #[arg(long, default_value = "main")]
        entry: String,
        /// Run in proof mode (`__start__`/`__end__`, steps padded to a power
        /// of two), on the Cairo VM only: the other machines do not pad.
        #[arg(long)]
        proof: bool,
        /// Stop a run that takes more steps (exit 4), on every machine.
        #[arg(long, default_value_t = kildall_casm::MAX_STEPS)]
        max_steps: u64,
        /// How values print: `term` as Juvix's Reg interpreter prints them
        /// (booleans, constructor terms, strings, nothing for `void`),
        /// `felt` as the field elements the Cairo backend stores. Default:
        /// `term` on `jvr`, `felt` on `interp` and `cairo`.
        #[arg(long, value_enum)]
        show: Option<ShowArg>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ShowArg {
    /// Values as terms.
    Term,
    /// Values as field elements.
    Felt,
}

#[derive(Clone, Copy, ValueEnum)]
enum Vm {
    /// The real Cairo VM (the `cairo-vm` crate).
    Cairo,
    /// This crate's strict interpreter.
    Interp,
    /// The source-level reference interpreter (no compilation; the step
    /// count is the number of `.jvr` instructions executed).
    Jvr,
}

/// Exit status of a program that ran `fail`.
const FAIL_STATUS: u8 = 3;

/// Exit status of a run stopped by `--max-steps`.
const OUT_OF_STEPS_STATUS: u8 = 4;

fn felts(args: &[String]) -> anyhow::Result<Vec<Felt>> {
    args.iter()
        .map(|a| {
            Felt::parse_decimal(a.trim())
                .with_context(|| format!("argument `{a}` is not a decimal integer"))
        })
        .collect()
}

/// Prints a source error as `FILE:LINE:COL: message`.
fn report(file: &Path, e: &JvrError) -> ExitCode {
    eprintln!("{}:{}: {}", input::display_name(file), e.pos, e.kind);
    ExitCode::FAILURE
}

fn mode(proof: bool) -> Mode {
    if proof {
        Mode::Proof
    } else {
        Mode::Execution
    }
}

/// Runs `cargo xtask casm`.
pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    match cmd.action {
        Action::Compile {
            file,
            output,
            json,
            entry,
            args,
            proof,
        } => {
            let src = input::read_text(&file)?;
            let module = match jvr::parse(&src) {
                Ok(m) => m,
                Err(e) => return Ok(report(&file, &e)),
            };
            let listing = match kildall_casm::compile_module(&module) {
                Ok(l) => l,
                Err(kildall_casm::Error::Jvr(e)) => return Ok(report(&file, &e)),
                Err(e) => return Err(e.into()),
            };
            match output {
                Some(out) => input::write_file(&out, listing.to_string())?,
                None => print!("{listing}"),
            }
            if let Some(json_path) = json {
                let args = felts(&args)?;
                check_arity(&file, &module, &entry, args.len())?;
                let prog = match kildall_casm::build_module(&module, &entry, &args, mode(proof)) {
                    Ok(p) => p,
                    Err(kildall_casm::Error::Jvr(e)) => return Ok(report(&file, &e)),
                    Err(e) => return Err(e.into()),
                };
                let text = serde_json_pretty(&prog);
                input::write_file(&json_path, text)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Run {
            file,
            vm,
            args,
            input,
            entry,
            proof,
            max_steps,
            show,
        } => {
            if proof && !matches!(vm, Vm::Cairo) {
                let message = "--proof runs on the Cairo VM only (--vm cairo)";
                return Err(UsageError(message.to_string()).into());
            }
            let show = match (show, vm) {
                (Some(ShowArg::Term), _) | (None, Vm::Jvr) => Show::Term,
                (Some(ShowArg::Felt), _) | (None, _) => Show::Felt,
            };
            run_file(&RunRequest {
                file: &file,
                vm,
                args: &args,
                input: input.as_deref(),
                entry: &entry,
                proof,
                max_steps,
                show,
            })
        }
    }
}

/// Checks that `entry` is defined and takes `given` arguments, before any
/// work: a missing `--args` is the command line's fault, not the file's.
fn check_arity(file: &Path, module: &jvr::Module, entry: &str, given: usize) -> anyhow::Result<()> {
    let Some(function) = module.definition(entry) else {
        return Err(Diagnostic::new(file, None, format!("no function `{entry}`")).into());
    };
    let arity = function.params.len();
    if arity == given {
        return Ok(());
    }
    let params: Vec<String> = function
        .params
        .iter()
        .map(|p| match &p.name {
            Some(name) => format!("{name}: {}", p.ty),
            None => p.ty.clone(),
        })
        .collect();
    let message = format!(
        "`{entry}` takes {} ({}), given {} in --args",
        output::count(arity as u64, "argument"),
        params.join(", "),
        given
    );
    Err(Diagnostic::new(file, None, message).into())
}

/// What `casm run` runs, and how it prints.
struct RunRequest<'a> {
    file: &'a Path,
    vm: Vm,
    args: &'a [String],
    input: Option<&'a Path>,
    entry: &'a str,
    proof: bool,
    max_steps: u64,
    show: Show,
}

/// `casm run`: prints the run's lines (traces, IO output, result), then
/// `steps: N`.
fn run_file(r: &RunRequest<'_>) -> anyhow::Result<ExitCode> {
    let file = r.file;
    let src = input::read_text(file)?;
    let module = match jvr::parse(&src) {
        Ok(m) => m,
        Err(e) => return Ok(report(file, &e)),
    };
    let values = match r.input {
        Some(path) => {
            let text = input::read_text(path)?;
            let f = module
                .definition(r.entry)
                .ok_or_else(|| Diagnostic::new(file, None, format!("no function `{}`", r.entry)))?;
            kildall_casm::input::args_from_text(&module, f, &text)
                .map_err(|err| Diagnostic::new(path, None, format!("{err:#}")))?
        }
        None => {
            let args = felts(r.args)?;
            check_arity(file, &module, r.entry, args.len())?;
            args.into_iter().map(Val::Felt).collect()
        }
    };
    // Every machine builds the program first, so that the reference
    // interpreter refuses what the compiler refuses (`readLn`, an `eq` or
    // a `show` the compiled code cannot decide, terms it cannot print),
    // with the same error: the three machines run the same programs.
    let prog = match kildall_casm::build_module_values(&module, r.entry, &values, mode(r.proof)) {
        Ok(p) => p,
        Err(kildall_casm::Error::Jvr(e)) => return Ok(report(file, &e)),
        Err(e) => return Err(e.into()),
    };
    if let (Show::Term, Some(e)) = (r.show, &prog.term_refusal) {
        return Ok(report(file, e));
    }
    if let Vm::Jvr = r.vm {
        let limits = jvr_interp::Limits {
            fuel: r.max_steps,
            ..jvr_interp::Limits::default()
        };
        let outcome = jvr_interp::execute(&module, r.entry, values, limits);
        return match outcome {
            Ok(o) => {
                for line in o.lines(r.show) {
                    println!("{line}");
                }
                println!("steps: {}", o.steps);
                Ok(ExitCode::SUCCESS)
            }
            Err(jvr_interp::JvrRunError::Fail(msg)) => {
                eprintln!("fail: {msg}");
                Ok(ExitCode::from(FAIL_STATUS))
            }
            Err(jvr_interp::JvrRunError::OutOfFuel) => Ok(out_of_steps(file, r.max_steps)),
            Err(e) => Err(Diagnostic::new(file, None, e.to_string()).into()),
        };
    }
    let result = match r.vm {
        Vm::Interp | Vm::Jvr => {
            kildall_casm::interp::run(&prog, r.max_steps).map_err(|e| match e {
                kildall_casm::interp::InterpError::Fail(msg) => Failure::Fail(msg),
                kildall_casm::interp::InterpError::OutOfSteps(_) => Failure::OutOfSteps,
                e => Failure::Other(
                    anyhow::Error::new(e).context(format!("{}: CASM interpreter", file.display())),
                ),
            })
        }
        Vm::Cairo => kildall_casm::vm::run_within(&prog, r.max_steps).map_err(|e| match e {
            kildall_casm::vm::VmError::Fail(msg) => Failure::Fail(msg),
            kildall_casm::vm::VmError::OutOfSteps(_) => Failure::OutOfSteps,
            e => Failure::Other(
                anyhow::Error::new(e).context(format!("{}: Cairo VM", file.display())),
            ),
        }),
    };
    match result {
        Ok(result) => {
            let lines = match r.show {
                Show::Term => &result.terms,
                Show::Felt => &result.output,
            };
            for line in lines {
                println!("{line}");
            }
            println!("steps: {}", result.steps);
            Ok(ExitCode::SUCCESS)
        }
        Err(Failure::Fail(msg)) => {
            eprintln!("fail: {msg}");
            Ok(ExitCode::from(FAIL_STATUS))
        }
        Err(Failure::OutOfSteps) => Ok(out_of_steps(file, r.max_steps)),
        Err(Failure::Other(e)) => Err(e),
    }
}

/// Reports a run stopped by its step budget.
fn out_of_steps(file: &Path, max_steps: u64) -> ExitCode {
    eprintln!(
        "{}: out of steps: the run did not return within --max-steps {max_steps}",
        input::display_name(file)
    );
    ExitCode::from(OUT_OF_STEPS_STATUS)
}

/// Why a compiled program did not return.
enum Failure {
    /// It ran `fail`.
    Fail(String),
    /// It took its whole step budget.
    OutOfSteps,
    /// The machine stopped on an error.
    Other(anyhow::Error),
}

fn serde_json_pretty(prog: &kildall_casm::Program) -> String {
    let v = prog.to_json();
    format!("{v:#}\n")
}
