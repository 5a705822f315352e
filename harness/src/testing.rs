//! Helpers for the workspace's tests (cargo feature `testing`): the
//! blessable data-driven tests of [`kildall_testkit`], re-exported, the one
//! oracle of every pass test ([`check_same_behaviour`]), and arbitrary
//! random control-flow graphs.
//!
//! # The oracle
//!
//! A pass is correct on a program when the program computes the same thing
//! after it: [`check_same_behaviour`] verifies the output, runs `main`
//! before and after on the same arguments, and compares the runs under one
//! [`TrapRule`]. Both runs answer oracle calls with [`TestOracles`], which
//! write through the references they are given, so that a pass that takes
//! a cell passed to an oracle for its own changes what the program reads.
//!
//! # Random graphs
//!
//! [`crate::generate::generate_cfg`] makes structured programs: reducible,
//! every block reachable, every loop left. Properties of the CFG analyses and
//! of the dataflow solver must also hold on the graphs a structured
//! generator never makes: irreducible loops, unreachable blocks, loops with
//! no exit, self loops, branches with both arms to one block.
//! [`random_cfg`] draws such graphs; [`cfg_function`] gives one the form of
//! a [`Function`].

pub use kildall_testkit::expect::*;

use std::ops::Range;

use crate::generate::{generate_cfg, CfgConfig, Rng};
use kildall_interpreter::{
    display_list, interpret_with_foreign, Execution, ForeignCall, ForeignHandler, ForeignMemory,
    InterpreterOptions, Outcome, RuntimeValue, TrapRule,
};
use kildall_ir::{
    verify_module, Block, Builtin, Callee, FuncCursor, Function, InstructionData, Module,
    Terminator, Type,
};

/// The oracle of a pass: `after` verifies, and `main` of `after` on `args`
/// behaves as `main` of `before` under `trap_rule` (noise checking off).
/// `before` runs with `fuel`; `after` with as much, or eight times the
/// steps `before` took and then some if that is more: a pass may add steps
/// (a split edge, a jump, both arms of a flattened branch).
/// Returns the run of `before`; when that run is out of fuel there is
/// nothing to compare, and `after` is not run.
///
/// # Errors
///
/// What differs, or why `after` does not verify.
pub fn check_same_behaviour(
    before: &Module,
    after: &Module,
    args: &[RuntimeValue],
    trap_rule: TrapRule,
    fuel: u64,
) -> Result<Execution, String> {
    verify_module(after).map_err(|e| format!("the output does not verify: {e}"))?;
    let main = before.main().ok_or("no function to run")?;
    let options = InterpreterOptions {
        fuel,
        check_noise: false,
        ..InterpreterOptions::default()
    };
    let a = interpret_with_foreign(
        before,
        main,
        args.to_vec(),
        &options,
        &mut TestOracles::default(),
    );
    if a.outcome == Outcome::OutOfFuel {
        return Ok(a);
    }
    let options = InterpreterOptions {
        fuel: fuel.max(a.steps.saturating_mul(8).saturating_add(10_000)),
        ..options
    };
    let b = interpret_with_foreign(
        after,
        main,
        args.to_vec(),
        &options,
        &mut TestOracles::default(),
    );
    if !trap_rule.same_execution(&a, &b) {
        return Err(format!(
            "behaviour changed on ({}): before {:?} {:?}, after {:?} {:?}",
            display_list(args).trim_end(),
            a.outcome,
            a.output,
            b.outcome,
            b.output
        ));
    }
    Ok(a)
}

/// The foreign functions of pass tests, the same whatever their name. Each
/// call changes every `Field` or integer cell it is given (a `Field`
/// becomes 7919, or 7920 if it held 7919; an integer has its low bit
/// flipped) and keeps the last reference it was given; it returns, for a
/// reference result, the kept reference when its cell holds a value of the
/// pointee type (oracles keep state, so a cell may come back), else a fresh
/// cell holding zero, and the zero value of any other result type.
#[derive(Default)]
pub struct TestOracles {
    kept: Option<RuntimeValue>,
}

impl ForeignHandler for TestOracles {
    fn call(
        &mut self,
        call: &ForeignCall<'_>,
        memory: &mut ForeignMemory<'_>,
    ) -> Result<Vec<RuntimeValue>, String> {
        for arg in call.args {
            let changed = match memory.load(arg) {
                Some(held @ RuntimeValue::Field(_)) => {
                    let first = RuntimeValue::field(7919);
                    if *held == first {
                        RuntimeValue::field(7920)
                    } else {
                        first
                    }
                }
                Some(&RuntimeValue::Int {
                    bits,
                    signed,
                    value,
                }) => RuntimeValue::Int {
                    bits,
                    signed,
                    value: value ^ 1,
                },
                _ => continue,
            };
            memory.store(arg, changed);
            self.kept = Some(arg.clone());
        }
        let zero =
            |ty: &Type| RuntimeValue::zero(ty).ok_or_else(|| format!("no zero value of `{ty}`"));
        call.result_types
            .iter()
            .map(|ty| match ty.pointee() {
                Some(pointee) => {
                    let kept = self.kept.as_ref().filter(|kept| memory.has_type(kept, ty));
                    match kept {
                        Some(kept) => Ok(kept.clone()),
                        None => Ok(memory.allocate(pointee, Some(zero(pointee)?))),
                    }
                }
                None => zero(ty),
            })
            .collect()
    }
}

/// The number of instructions of `module` (terminators aside) that `pred`
/// accepts: the loads a pass left, the allocations it removed.
pub fn count_insts(module: &Module, pred: impl Fn(&InstructionData) -> bool) -> usize {
    sum_over_blocks(module, |f, b| {
        f.layout.block_insts(b).filter(|&i| pred(&f.dfg[i])).count()
    })
}

/// The sum of `count` over the programs [`generate_cfg`] makes from
/// `seeds` under `config`: how often the generator drew a feature, which a
/// differential test asserts so that it fails, rather than passes on other
/// programs, if the generator stops drawing it.
pub fn count_generated(
    config: &CfgConfig,
    seeds: Range<u64>,
    count: impl Fn(&Module) -> usize,
) -> usize {
    seeds.map(|seed| count(&generate_cfg(seed, config))).sum()
}

/// Whether an instruction calls `builtin`: with [`count_insts`], how many
/// `vector_enumerate` calls a generator drew.
pub fn calls_builtin(data: &InstructionData, builtin: Builtin) -> bool {
    matches!(data, InstructionData::Call { callee: Callee::Builtin(b), .. } if *b == builtin)
}

/// The number of terminators of `module`'s blocks that `pred` accepts.
pub fn count_terminators(module: &Module, pred: impl Fn(&Terminator) -> bool) -> usize {
    sum_over_blocks(module, |f, b| {
        usize::from(f.dfg.terminator(b).is_some_and(&pred))
    })
}

/// The sum of `count` over the blocks of every function of `module`.
fn sum_over_blocks(module: &Module, count: impl Fn(&Function, Block) -> usize) -> usize {
    module
        .functions
        .values()
        .flat_map(|f| f.layout.blocks().map(move |b| (f, b)))
        .map(|(f, b)| count(f, b))
        .sum()
}

/// The program in the text file at `path` and the arguments of its
/// `// args:` header line.
///
/// # Panics
///
/// When the file cannot be read, does not parse, or has no valid
/// `// args:` line: the bundled examples always have one.
pub fn program_with_args(path: &std::path::Path) -> (Module, Vec<RuntimeValue>) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
    let args = text
        .lines()
        .find_map(|l| l.strip_prefix("// args:"))
        .unwrap_or_else(|| panic!("{}: no `// args:` line", path.display()));
    let module =
        kildall_ir::parse_module(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
    let args = RuntimeValue::parse_list(args.trim())
        .unwrap_or_else(|e| panic!("{}: bad `// args:` line: {e}", path.display()));
    (module, args)
}

/// The relative frequencies of the terminators [`random_cfg`] draws.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TerminatorMix {
    /// Blocks without successors (`return`).
    pub returns: u32,
    /// Blocks with one successor (`jmp`).
    pub jumps: u32,
    /// Blocks with two successors, possibly the same block (`jmpif`).
    pub branches: u32,
}

/// An arbitrary graph of `blocks` blocks: the successors of each block, by
/// index, drawn uniformly among all blocks; block 0 is the entry. The graphs
/// include what structured programs never have: irreducible loops,
/// unreachable blocks, loops without an exit, self loops.
///
/// # Panics
///
/// If every weight of `mix` is zero.
pub fn random_cfg(rng: &mut Rng, blocks: usize, mix: TerminatorMix) -> Vec<Vec<usize>> {
    let total = u64::from(mix.returns) + u64::from(mix.jumps) + u64::from(mix.branches);
    assert!(total > 0, "a terminator mix with no weight");
    (0..blocks)
        .map(|_| {
            let draw = rng.below(total);
            let successors = if draw < u64::from(mix.returns) {
                0
            } else if draw < u64::from(mix.returns) + u64::from(mix.jumps) {
                1
            } else {
                2
            };
            (0..successors).map(|_| rng.index(blocks)).collect()
        })
        .collect()
}

/// A function whose control-flow graph is `shape` (as [`random_cfg`] makes
/// it: at most two successors a block), for tests of the graph alone: no
/// instructions, no block parameters, every branch on the constant `u1 1`
/// (a branch may target the entry, whose parameters no `jmpif` could pass),
/// so the function verifies.
///
/// # Panics
///
/// If a block has more than two successors or one out of range.
pub fn cfg_function(shape: &[Vec<usize>]) -> Function {
    let mut func = Function::new("f");
    let mut cur = FuncCursor::new(&mut func);
    let blocks: Vec<Block> = shape.iter().map(|_| cur.append_block()).collect();
    let condition = cur.constant(1, Type::BOOL);
    for (&block, successors) in blocks.iter().zip(shape) {
        cur.goto_bottom(block);
        cur.terminate(match successors[..] {
            [] => Terminator::Return { values: vec![] },
            [to] => Terminator::Jmp {
                destination: blocks[to],
                arguments: vec![],
            },
            [then, otherwise] => Terminator::JmpIf {
                condition,
                then_destination: blocks[then],
                then_arguments: vec![],
                else_destination: blocks[otherwise],
                else_arguments: vec![],
            },
            _ => panic!("{block} has {} successors", successors.len()),
        });
    }
    func
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracle_sees_changed_returns_and_traps() {
        let parse = |text: &str| kildall_ir::parse_module(text).unwrap();
        let returns = |c: u32| {
            parse(&format!(
                "fn main f0 {{\n  b0(v0: u32):\n    v1 = add v0, u32 {c}\n    return v1\n}}\n"
            ))
        };
        let args = [RuntimeValue::unsigned(32, 1)];
        let rule = TrapRule::SameKind;
        let run = check_same_behaviour(&returns(1), &returns(1), &args, rule, 100).unwrap();
        assert_eq!(
            run.outcome,
            Outcome::Return(vec![RuntimeValue::unsigned(32, 2)])
        );
        assert!(check_same_behaviour(&returns(1), &returns(2), &args, rule, 100).is_err());
        // An overflow trap moved to another instruction is the same trap
        // for a pass, not for a round trip.
        let overflow = |extra: &str| {
            parse(&format!(
                "fn main f0 {{\n  b0(v0: u32):\n{extra}    v1 = add v0, u32 4294967295\n    return v1\n}}\n"
            ))
        };
        let moved = overflow("    v2 = add v0, u32 0\n");
        assert!(check_same_behaviour(&overflow(""), &moved, &args, rule, 100).is_ok());
        assert!(
            check_same_behaviour(&overflow(""), &moved, &args, TrapRule::SameSite, 100).is_err()
        );
    }

    #[test]
    fn random_graphs_follow_the_mix() {
        let mut rng = Rng::new(3);
        let mix = TerminatorMix {
            returns: 1,
            jumps: 0,
            branches: 1,
        };
        let shape = random_cfg(&mut rng, 200, mix);
        assert!(shape
            .iter()
            .all(|s| s.len() != 1 && s.iter().all(|&t| t < 200)));
        let returns = shape.iter().filter(|s| s.is_empty()).count();
        assert!((60..140).contains(&returns), "{returns}");
        let func = cfg_function(&shape);
        for (b, successors) in func.layout.blocks().zip(&shape) {
            let got: Vec<usize> = func
                .dfg
                .successors(b)
                .map(kildall_ir::EntityRef::index)
                .collect();
            assert_eq!(&got, successors);
        }
        kildall_ir::verify_function(&func).unwrap();
    }
}
