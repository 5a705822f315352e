//! JuvixReg to Cairo assembly: SSA lowering, per-block liveness, an
//! assembler to Cairo bytecode and a strict CASM interpreter.
//!
//! The pipeline:
//!
//! 1. [`jvr::parse`]: `.jvr` text (JuvixReg) to a syntax tree.
//! 2. [`ssa::convert`]: names resolved, one variable per assignment, branch
//!    outputs as join variables, the kinds of values (for printing terms
//!    and for structural equality).
//! 3. [`lower::lower`]: CASM with blocks cut where the `ap` offset stops
//!    being static, per-block liveness and `call rel` transfers
//!    (the translation of Juvix PR #2697).
//! 4. [`asm::assemble`]: Cairo bytecode and the program JSON of `cairo-vm`.
//! 5. [`interp::run`]: a strict interpreter of the bytecode; with the
//!    `cairo-vm` feature, `vm::run` on the real Cairo VM.
//!
//! [`jvr_interp::run`] is the source-level oracle, and `generate` (feature
//! `generate`, on by default) a seeded generator of programs for
//! differential tests and benchmarks.
#![deny(missing_docs)]

pub mod asm;
pub mod builtins;
pub mod felt;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
#[cfg(any(test, feature = "generate"))]
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
/// JSON input gives them) or closures: the entry sequence writes them into
/// memory first, in the layouts of [`heap`]. The function of a closure
/// argument gets the stubs of every function a closure of the module can
/// hold, whether or not a `calloc` names it.
pub fn build_module_values(
    module: &Module,
    entry: &str,
    args: &[jvr_interp::Val],
    mode: Mode,
) -> Result<Program, Error> {
    let mut ssa = ssa::convert_for_entry(module, Some((entry, args)))?;
    let f = module.definition(entry).ok_or(JvrError {
        pos: jvr::Pos { line: 1, col: 1 },
        kind: JvrErrorKind::NoEntry(entry.to_string()),
    })?;
    let argument_error = |what: String| JvrError {
        pos: f.pos,
        kind: JvrErrorKind::EntryArgument(what),
    };
    for a in args {
        add_closure_funcs(a, &mut ssa).map_err(argument_error)?;
    }
    let listing = lower::lower(&ssa)?;
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
        .map(|a| entry_arg(a, &ssa, &mut objects))
        .collect::<Result<Vec<_>, _>>()
        .map_err(argument_error)?;
    let entry_kind = ssa.functions.iter().find(|f| f.name == entry);
    let entry_kind = entry_kind.map_or(heap::Kind::Any, |f| f.result_kind);
    let shape = match ssa.io {
        // Juvix runs the IO action `main` returns.
        Some(_) if entry_kind == heap::Kind::Io => asm::ResultShape::Io,
        _ => result_shape(module, f),
    };
    let mut prog = asm::assemble_with_objects(&listing, entry, &objects, &args, shape, mode)?;
    prog.names = heap::HeapNames::of(module, &ssa);
    prog.result_kind = entry_kind;
    prog.term_refusal = term_refusal(module, &ssa, f);
    Ok(prog)
}

/// Why the run of entry `f` cannot print terms as the reference
/// interpreter does: the module prints such values
/// ([`ssa::SsaModule::term_hazard`], what the entry's arguments hold
/// included), or the entry returns one.
fn term_refusal(module: &Module, ssa: &ssa::SsaModule, f: &jvr::Function) -> Option<JvrError> {
    if let Some(e) = &ssa.term_hazard {
        return Some(e.clone());
    }
    let kind = ssa
        .find(&f.name)
        .map(|id| ssa.functions[id.0 as usize].result_kind);
    match kind {
        // An IO action's result is printed by the kind its `return` stored.
        Some(heap::Kind::Io) | None => None,
        Some(k) => ssa::unprintable(module, &ssa.field_kinds, k, "the result", f.pos),
    }
}

/// What the entry writes to the `output` builtin: the fields of a record
/// when its declared result type is one, as Juvix's Cairo backend does.
fn result_shape(module: &Module, f: &jvr::Function) -> asm::ResultShape {
    match module.types.iter().find(|t| t.name == f.ret) {
        Some(t) if t.ctors.len() == 1 => asm::ResultShape::Record(t.ctors[0].arity),
        _ => asm::ResultShape::Value,
    }
}

/// Makes the functions of the closures in `v` closure functions of `ssa`
/// (with an id, and stubs in the call and `cextend` routines).
fn add_closure_funcs(v: &jvr_interp::Val, ssa: &mut ssa::SsaModule) -> Result<(), String> {
    match v {
        jvr_interp::Val::Felt(_)
        | jvr_interp::Val::Bool(_)
        | jvr_interp::Val::Unit
        | jvr_interp::Val::Void => Ok(()),
        jvr_interp::Val::Str(_) | jvr_interp::Val::Io(_) => Err(format!(
            "{}, which cannot be laid out on Cairo",
            v.describe()
        )),
        jvr_interp::Val::Ctor(c) => c.fields.iter().try_for_each(|f| add_closure_funcs(f, ssa)),
        jvr_interp::Val::Closure(c) => {
            let Some(at) = ssa.functions.iter().position(|f| f.name == c.func) else {
                return Err(format!("a closure of {}, which has no definition", c.func));
            };
            let arity = ssa.functions[at].n_params as usize;
            if c.arity != arity || c.args.len() > arity {
                return Err(format!(
                    "a closure of {} ({arity} parameters) storing {} of {} arguments",
                    c.func,
                    c.args.len(),
                    c.arity
                ));
            }
            let id = ssa::FuncId(at as u32);
            if !ssa.closure_funcs.contains(&id) {
                ssa.closure_funcs.push(id);
            }
            c.args.iter().try_for_each(|a| add_closure_funcs(a, ssa))
        }
    }
}

/// Lays out a value for the entry sequence: constructors and closures
/// become objects (fields or stored arguments first), numbers stay
/// immediates.
fn entry_arg(
    v: &jvr_interp::Val,
    ssa: &ssa::SsaModule,
    objects: &mut Vec<Vec<asm::EntryArg>>,
) -> Result<asm::EntryArg, String> {
    let imm = |x: u128| asm::EntryArg::Imm(Felt::from_u128(x));
    let (mut cells, inner) = match v {
        jvr_interp::Val::Str(_) | jvr_interp::Val::Io(_) => {
            return Err(format!(
                "{}, which cannot be laid out on Cairo",
                v.describe()
            ))
        }
        jvr_interp::Val::Felt(_)
        | jvr_interp::Val::Bool(_)
        | jvr_interp::Val::Unit
        | jvr_interp::Val::Void => {
            return v.felt().map(asm::EntryArg::Imm).map_err(|e| e.to_string())
        }
        jvr_interp::Val::Ctor(c) => (vec![imm(heap::ctor_header(c.tag))], &c.fields),
        jvr_interp::Val::Closure(c) => {
            // `add_closure_funcs` has given the function an id.
            let id = ssa
                .closure_funcs
                .iter()
                .position(|f| ssa.functions[f.0 as usize].name == c.func)
                .ok_or_else(|| format!("a closure of {}, which has no definition", c.func))?;
            let left = c.arity - c.args.len();
            let header = vec![
                imm(heap::closure_header(id as u32)),
                imm(left as u128),
                imm(c.args.len() as u128),
            ];
            (header, &c.args)
        }
    };
    for field in inner {
        cells.push(entry_arg(field, ssa, objects)?);
    }
    objects.push(cells);
    Ok(asm::EntryArg::Object(objects.len() - 1))
}

/// Compiles and assembles `.jvr` text to run `entry` on `args`.
pub fn build(src: &str, entry: &str, args: &[Felt], mode: Mode) -> Result<Program, Error> {
    build_module(&jvr::parse(src)?, entry, args, mode)
}

/// The default step budget of every machine that runs a program: the
/// Cairo VM, the CASM interpreter and the reference interpreter. The Cairo
/// VM keeps every memory cell a run writes, so the budget also bounds its
/// memory.
pub const MAX_STEPS: u64 = 10_000_000;

/// Compiles `src` and runs `entry(args)` on the strict interpreter.
pub fn run_interp(src: &str, entry: &str, args: &[Felt]) -> Result<interp::RunResult, Error> {
    let prog = build(src, entry, args, Mode::Execution)?;
    Ok(interp::run(&prog, MAX_STEPS)?)
}

/// `n` and `noun`, plural unless `n` is 1: `1 argument`, `2 arguments`.
pub(crate) fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}
