//! JuvixReg to Cairo assembly: SSA lowering, per-block liveness, an
//! assembler to Cairo bytecode and a strict CASM interpreter.
//!
//! The pipeline:
//!
//! 1. [`jvr::parse`]: `.jvr` text (a JuvixReg subset) to a syntax tree.
//! 2. [`ssa::convert`]: names resolved, one variable per assignment, branch
//!    outputs as join variables.
//! 3. [`lower::lower`]: CASM with blocks cut where the `ap` offset stops
//!    being static, per-block liveness and `call rel` transfers
//!    (the translation of Juvix PR #2697).
//! 4. [`asm::assemble`]: Cairo bytecode and the program JSON of `cairo-vm`.
//! 5. [`interp::run`]: a strict interpreter of the bytecode; with the
//!    `cairo-vm` feature, `vm::run` on the real Cairo VM.
//!
//! [`jvr_interp::run`] is the source-level oracle, and [`generate`] a seeded
//! generator of programs for differential tests and benchmarks.
#![deny(missing_docs)]

pub mod asm;
pub mod builtins;
pub mod felt;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod generate;
pub mod heap;
pub mod input;
pub mod interp;
pub mod jvr;
pub mod jvr_interp;
pub mod listing;
pub mod lower;
pub mod ssa;
#[cfg(feature = "cairo-vm")]
pub mod vm;

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub use asm::{Mode, Program};
pub use felt::Felt;
pub use listing::Listing;

use jvr::{JvrError, JvrErrorKind, Module};

/// Any failure between a `.jvr` text and a result.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Syntax or name errors, with `line:col`.
    #[error(transparent)]
    Jvr(#[from] JvrError),
    /// Lowering limits.
    #[error(transparent)]
    Lower(#[from] lower::LowerError),
    /// Assembly.
    #[error(transparent)]
    Asm(#[from] asm::AsmError),
    /// Our interpreter stopped on an error.
    #[error(transparent)]
    Interp(#[from] interp::InterpError),
    /// The Cairo VM stopped on an error.
    #[cfg(feature = "cairo-vm")]
    #[error(transparent)]
    Vm(#[from] vm::VmError),
}

/// Compiles a parsed module to a CASM listing.
pub fn compile_module(module: &Module) -> Result<Listing, Error> {
    let ssa = ssa::convert(module)?;
    Ok(lower::lower(&ssa)?)
}

/// Compiles `.jvr` text to a CASM listing.
pub fn compile(src: &str) -> Result<Listing, Error> {
    compile_module(&jvr::parse(src)?)
}

/// Compiles and assembles a module to run `entry` on `args`.
pub fn build_module(
    module: &Module,
    entry: &str,
    args: &[Felt],
    mode: Mode,
) -> Result<Program, Error> {
    let values: Vec<jvr_interp::Val> = args.iter().map(|a| jvr_interp::Val::Felt(*a)).collect();
    build_module_values(module, entry, &values, mode)
}

/// [`build_module`] with arguments that may be constructors (as Juvix's
/// JSON input gives them): the entry sequence writes them into memory
/// first.
pub fn build_module_values(
    module: &Module,
    entry: &str,
    args: &[jvr_interp::Val],
    mode: Mode,
) -> Result<Program, Error> {
    let ssa = ssa::convert(module)?;
    let listing = lower::lower(&ssa)?;
    let f = module.definition(entry).ok_or(JvrError {
        pos: jvr::Pos { line: 1, col: 1 },
        kind: JvrErrorKind::NoEntry(entry.to_string()),
    })?;
    if f.params.len() != args.len() {
        return Err(JvrError {
            pos: f.pos,
            kind: JvrErrorKind::Arity {
                name: entry.to_string(),
                expected: f.params.len(),
                found: args.len(),
            },
        }
        .into());
    }
    let mut objects = Vec::new();
    let args = args
        .iter()
        .map(|a| entry_arg(a, &mut objects))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|what| JvrError {
            pos: f.pos,
            kind: JvrErrorKind::NotLowered(what),
        })?;
    let mut prog = asm::assemble_with_objects(
        &listing,
        entry,
        &objects,
        &args,
        result_shape(module, f),
        mode,
    )?;
    prog.names = heap::HeapNames::of(module, &ssa);
    Ok(prog)
}

/// What the entry writes to the `output` builtin: the fields of a record
/// when its declared result type is one, as Juvix's Cairo backend does.
fn result_shape(module: &Module, f: &jvr::Function) -> asm::ResultShape {
    match module.types.iter().find(|t| t.name == f.ret) {
        Some(t) if t.ctors.len() == 1 => asm::ResultShape::Record(t.ctors[0].arity),
        _ => asm::ResultShape::Value,
    }
}

/// Lays out a value for the entry sequence: constructors become objects
/// (fields first), numbers stay immediates.
fn entry_arg(
    v: &jvr_interp::Val,
    objects: &mut Vec<Vec<asm::EntryArg>>,
) -> Result<asm::EntryArg, String> {
    match v {
        jvr_interp::Val::Felt(f) => Ok(asm::EntryArg::Imm(*f)),
        jvr_interp::Val::Ctor(c) => {
            let mut cells = vec![asm::EntryArg::Imm(Felt::from_u128(heap::ctor_header(
                c.tag,
            )))];
            for field in &c.fields {
                cells.push(entry_arg(field, objects)?);
            }
            objects.push(cells);
            Ok(asm::EntryArg::Object(objects.len() - 1))
        }
        // FIXME: a closure as an argument of the entry (Juvix's input
        // format has none).
        jvr_interp::Val::Closure(_) => Err("a closure argument".to_string()),
    }
}

/// Compiles and assembles `.jvr` text to run `entry` on `args`.
pub fn build(src: &str, entry: &str, args: &[Felt], mode: Mode) -> Result<Program, Error> {
    build_module(&jvr::parse(src)?, entry, args, mode)
}

/// Step budget of [`run_interp`].
pub const MAX_STEPS: u64 = 50_000_000;

/// Compiles `src` and runs `entry(args)` on the strict interpreter.
pub fn run_interp(src: &str, entry: &str, args: &[Felt]) -> Result<interp::RunResult, Error> {
    let prog = build(src, entry, args, Mode::Execution)?;
    Ok(interp::run(&prog, MAX_STEPS)?)
}
