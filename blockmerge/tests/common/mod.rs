//! Shared by the tests: one pass run checked against the interpreter.

use kildall_ir::interpreter::{interpret, InterpreterOptions, RuntimeValue};
use kildall_ir::{verify_module, Module};

/// Runs `main` of `before` and `after` on `args` and requires the same
/// outcome (returns and traps alike) and the same output.
pub fn same_behaviour(
    before: &Module,
    after: &Module,
    args: &[RuntimeValue],
) -> Result<(), String> {
    let main = before.main().ok_or("no function")?;
    let options = InterpreterOptions {
        fuel: 1_000_000,
        ..InterpreterOptions::default()
    };
    let a = interpret(before, main, args.to_vec(), &options);
    let b = interpret(after, main, args.to_vec(), &options);
    // A trap's site names blocks and instructions, which merging moves:
    // compare what trapped, not where.
    let outcome = |e: &kildall_ir::interpreter::Execution| match &e.outcome {
        kildall_ir::interpreter::Outcome::Trap(trap) => format!("trap {:?}", trap.kind),
        other => format!("{other:?}"),
    };
    if outcome(&a) != outcome(&b) || a.output != b.output {
        return Err(format!(
            "behaviour changed on ({}): before {} {:?}, after {} {:?}",
            kildall_ir::interpreter::display_list(args),
            outcome(&a),
            a.output,
            outcome(&b),
            b.output
        ));
    }
    verify_module(after).map_err(|e| format!("output does not verify: {e}"))?;
    Ok(())
}
