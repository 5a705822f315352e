//! Interpreter tests.
//!
//! Most tests are IR programs in `tests/interp_data/*.ssa`, each run by the
//! one [`check`] helper. A file's leading `//` lines are its header:
//!
//! - `// args: u32 3, Field 5` starts a run with these arguments (every
//!   file has at least one, possibly empty);
//! - `// outcome: ...` and `// output: ...` after it are that run's expected
//!   outcome (`return VALUES`, `trap: REASON` or `out of fuel`) and the
//!   lines `print` wrote;
//! - `// fuel: N`, `// noise: off` and `// function: NAME` set the options
//!   of every run of the file; other `//` lines are descriptions.
//!
//! `UPDATE_EXPECT=1 cargo test -p kildall-ir --test interpreter` rewrites
//! the expectations from the actual results.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kildall_interpreter::{
    interpret, Execution, InterpreterOptions, NoiseParams, Outcome, RuntimeValue, TrapKind,
};
use kildall_ir::{parse_module, verify_module, BinaryOp, FuncCursor, Function, Module, Type};
use kildall_testkit::expect::{self as testing, check_each, check_expectation};

/// The text of an outcome in the expectation lines.
fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Return(values) => format!("return {}", kildall_interpreter::display_list(values))
            .trim_end()
            .to_string(),
        Outcome::Trap(trap) => format!("trap: {trap}"),
        Outcome::OutOfFuel => "out of fuel".to_string(),
    }
}

/// One run of a data file: its arguments and expected lines.
struct Case {
    args: String,
    expected: Vec<String>,
}

/// Runs every case of one data file; returns the actual expectation lines
/// per case, or an error for a file that does not load.
fn run_file(text: &str) -> Result<(Vec<Case>, Vec<Vec<String>>), String> {
    let mut options = InterpreterOptions::default();
    let mut function = None;
    let mut cases: Vec<Case> = Vec::new();
    for line in text
        .lines()
        .take_while(|l| l.trim_start().starts_with("//"))
    {
        let line = line.trim_start().trim_start_matches("//").trim();
        if let Some(args) = line.strip_prefix("args:") {
            cases.push(Case {
                args: args.trim().to_string(),
                expected: Vec::new(),
            });
        } else if line.starts_with("outcome:") || line.starts_with("output:") {
            let case = cases
                .last_mut()
                .ok_or("an expectation before the first `// args:`")?;
            case.expected.push(line.to_string());
        } else if let Some(fuel) = line.strip_prefix("fuel:") {
            options.fuel = fuel.trim().parse().map_err(|e| format!("bad fuel: {e}"))?;
        } else if line == "noise: off" {
            options.check_noise = false;
        } else if let Some(name) = line.strip_prefix("function:") {
            function = Some(name.trim().to_string());
        }
    }
    if cases.is_empty() {
        return Err("no `// args:` line".into());
    }
    let module = parse_module(text).map_err(|e| format!("parse error: {e}"))?;
    verify_module(&module).map_err(|e| format!("verifier error: {e}"))?;
    let id = match &function {
        Some(name) => module
            .function_by_name(name)
            .ok_or_else(|| format!("no function {name}"))?,
        None => module.main().ok_or("no function")?,
    };
    let mut actual = Vec::new();
    for case in &cases {
        let args = RuntimeValue::parse_list(&case.args)
            .map_err(|e| format!("bad args `{}`: {e}", case.args))?;
        let execution = interpret(&module, id, args, &options);
        let mut lines = vec![format!("outcome: {}", outcome_text(&execution.outcome))];
        lines.extend(
            execution
                .output
                .iter()
                .map(|l| format!("output: {l}").trim_end().to_string()),
        );
        actual.push(lines);
    }
    Ok((cases, actual))
}

/// Rewrites the header of `text` with the actual expectation lines.
fn bless(text: &str, actual: &[Vec<String>]) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    let mut case = 0;
    while let Some(line) = lines.next_if(|l| l.trim_start().starts_with("//")) {
        let body = line.trim_start().trim_start_matches("//").trim();
        if body.starts_with("outcome:") || body.starts_with("output:") {
            continue;
        }
        writeln!(out, "{line}").unwrap();
        if body.starts_with("args:") {
            for expected in &actual[case] {
                writeln!(out, "// {expected}").unwrap();
            }
            case += 1;
        }
    }
    for line in lines {
        writeln!(out, "{line}").unwrap();
    }
    out
}

/// The expectation lines of every case, under their `// args:` lines.
fn expectation_text<'a>(cases: &[Case], lines: impl Fn(usize) -> &'a [String]) -> String {
    let mut out = String::new();
    for (k, case) in cases.iter().enumerate() {
        writeln!(out, "// args: {}", case.args).unwrap();
        for line in lines(k) {
            writeln!(out, "// {line}").unwrap();
        }
    }
    out
}

/// Runs one data file against its expectations (or blesses it).
fn check(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (cases, actual) = run_file(&text)?;
    let expected = expectation_text(&cases, |k| &cases[k].expected);
    let actual = expectation_text(&cases, |k| &actual[k]);
    check_expectation(path, &expected, &actual, || {
        // Rewriting the header moves the program's lines, and trap reasons
        // name lines: rewrite until the text is a fixed point.
        let mut text = text;
        for _ in 0..3 {
            let (_, actual) = run_file(&text).expect("a blessed file still loads");
            let blessed = bless(&text, &actual);
            if blessed == text {
                break;
            }
            text = blessed;
        }
        text
    })
}

fn data_files() -> Vec<PathBuf> {
    testing::data_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interp_data"),
        "ssa",
    )
}

#[test]
fn data_driven() {
    let files = data_files();
    assert!(files.len() >= 40, "only {} data files", files.len());
    check_each(&files, check);
}

/// Every instruction and terminator of the instruction set occurs in the data files.
#[test]
fn data_files_cover_every_instruction() {
    let mut all = String::new();
    for path in data_files() {
        all.push_str(&std::fs::read_to_string(path).unwrap());
    }
    let mut opcodes: Vec<&str> = BinaryOp::ALL.iter().map(|op| op.name()).collect();
    opcodes.extend([
        "not",
        "cast",
        "truncate",
        "allocate",
        "load",
        "store",
        "make_array",
        "array_get",
        "array_set",
        "constrain",
        "range_check",
        "enable_side_effects",
        "if",
        "call",
        "encode",
        "decode",
        "reduce_noise",
        "inc_rc",
        "dec_rc",
        "jmp",
        "jmpif",
        "return",
        "unreachable",
        "print",
        "assert_constant",
    ]);
    for opcode in opcodes {
        let used = all
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .any(|l| {
                l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|word| word == opcode)
            });
        assert!(used, "no data file uses `{opcode}`");
    }
    for trap in [
        "with overflow",
        "by zero",
        "constraint failed",
        "out of bounds",
        "never stored",
        "noise",
        "range check failed",
        "cast failed",
        "not below the bit width",
        "unreachable",
        "call depth",
        "out of fuel",
    ] {
        assert!(
            all.lines()
                .any(|l| l.starts_with("// outcome:") && l.contains(trap)),
            "no data file expects `{trap}`"
        );
    }
}

fn run(module: &Module, args: Vec<RuntimeValue>) -> Execution {
    interpret(
        module,
        module.main().unwrap(),
        args,
        &InterpreterOptions::default(),
    )
}

/// `fn main(v0: T, v1: T) { return op v0, v1 }` built with the cursor.
fn binary_module(op: BinaryOp, ty: Type) -> Module {
    let mut func = Function::new("main");
    let mut cursor = FuncCursor::new(&mut func);
    let b0 = cursor.append_block();
    let a = cursor.func.dfg.append_block_param(b0, ty.clone());
    let b = cursor.func.dfg.append_block_param(b0, ty);
    cursor.goto_bottom(b0);
    let r = cursor.binary(op, a, b);
    cursor.ret(vec![r]);
    let mut module = Module::new();
    module.push(func);
    module
}

fn returned(execution: &Execution) -> String {
    outcome_text(&execution.outcome)
}

#[test]
fn cursor_built_arithmetic() {
    let module = binary_module(BinaryOp::Add, Type::U32);
    let args = RuntimeValue::parse_list("u32 40, u32 2").unwrap();
    let execution = run(&module, args);
    assert_eq!(returned(&execution), "return u32 42");
    assert_eq!(execution.steps, 2, "one add and one return");

    let module = binary_module(BinaryOp::Div, Type::Signed(128));
    let args = RuntimeValue::parse_list(&format!("i128 {}, i128 -1", i128::MIN)).unwrap();
    assert!(matches!(
        run(&module, args).outcome,
        Outcome::Trap(ref t) if matches!(t.kind, TrapKind::Overflow { op: BinaryOp::Div, .. })
    ));

    let module = binary_module(BinaryOp::UncheckedMul, Type::Unsigned(128));
    let args = RuntimeValue::parse_list(&format!("u128 {}, u128 3", u128::MAX)).unwrap();
    assert_eq!(
        returned(&run(&module, args)),
        format!("return u128 {}", u128::MAX - 2)
    );
}

#[test]
fn type_errors_trap_instead_of_panicking() {
    // `mod` on Field does not verify, but the interpreter must still not panic.
    let module = binary_module(BinaryOp::Mod, Type::Field);
    let args = RuntimeValue::parse_list("Field 7, Field 2").unwrap();
    let execution = run(&module, args);
    let Outcome::Trap(trap) = execution.outcome else {
        panic!("expected a trap")
    };
    assert!(matches!(trap.kind, TrapKind::TypeError(_)));
    assert_eq!(
        trap.to_string(),
        "type error: `mod` is not defined on Field at `v2 = mod` in b0 of fn main f0"
    );
}

#[test]
fn argument_checks() {
    let module = binary_module(BinaryOp::Add, Type::U32);
    let execution = run(&module, RuntimeValue::parse_list("u32 1").unwrap());
    assert_eq!(
        returned(&execution),
        "trap: f0 takes 2 arguments but was given 1"
    );
    let execution = run(&module, RuntimeValue::parse_list("u32 1, u8 1").unwrap());
    assert_eq!(
        returned(&execution),
        "trap: argument 1 of f0 should be u32, got u8 1"
    );
    assert_eq!(execution.steps, 0);
}

#[test]
fn fuel_is_exact() {
    let module = binary_module(BinaryOp::Add, Type::U32);
    let args = || RuntimeValue::parse_list("u32 1, u32 2").unwrap();
    let with_fuel = |fuel| {
        let options = InterpreterOptions {
            fuel,
            ..InterpreterOptions::default()
        };
        interpret(&module, module.main().unwrap(), args(), &options)
    };
    assert_eq!(returned(&with_fuel(2)), "return u32 3");
    let starved = with_fuel(1);
    assert_eq!(starved.outcome, Outcome::OutOfFuel);
    assert_eq!(starved.steps, 1);
}

#[test]
fn jump_arguments_bind_in_parallel() {
    // b1(v0, v1) loops by jumping to b1(v1, v0): the swap must read both
    // arguments before binding either parameter.
    let mut func = Function::new("main");
    let mut c = FuncCursor::new(&mut func);
    let b0 = c.append_block();
    let b1 = c.append_block();
    let b2 = c.append_block();
    let b3 = c.append_block();
    let x = c.func.dfg.append_block_param(b1, Type::Field);
    let y = c.func.dfg.append_block_param(b1, Type::Field);
    let n = c.func.dfg.append_block_param(b1, Type::U32);
    c.goto_bottom(b0);
    let one = c.constant(1, Type::Field);
    let two = c.constant(2, Type::Field);
    let zero = c.constant(0, Type::U32);
    c.jmp(b1, vec![one, two, zero]);
    c.goto_bottom(b1);
    let three = c.constant(3, Type::U32);
    let again = c.binary(BinaryOp::Lt, n, three);
    c.jmpif(again, b3, b2);
    c.goto_bottom(b3);
    let u1 = c.constant(1, Type::U32);
    let next = c.binary(BinaryOp::Add, n, u1);
    c.jmp(b1, vec![y, x, next]);
    c.goto_bottom(b2);
    c.ret(vec![x, y]);
    let mut module = Module::new();
    module.push(func);
    verify_module(&module).unwrap();
    // Three swaps: (1, 2) -> (2, 1) -> (1, 2) -> (2, 1).
    assert_eq!(returned(&run(&module, vec![])), "return Field 2, Field 1");
}

#[test]
fn runtime_value_text() {
    let text = "u32 3, Field 5, [Field 1, Field 2], i8 -1, u1 1, [[u8 1], [u8 2]], \
                noisy(plaintext 5, noise 12), &mut 0, f1, Field 0, i128 -170141183460469231731687303715884105728";
    let values = RuntimeValue::parse_list(text).unwrap();
    assert_eq!(values.len(), 11);
    assert_eq!(kildall_interpreter::display_list(&values), text);
    assert_eq!(
        RuntimeValue::parse_list("Field -1").unwrap()[0].to_string(),
        "Field 21888242871839275222246405745257275088548364400416034343698204186575808495616"
    );
    assert_eq!(
        RuntimeValue::parse_list("bool 1").unwrap()[0].to_string(),
        "u1 1"
    );
    assert_eq!(RuntimeValue::parse_list("  ").unwrap(), vec![]);
    assert_eq!(RuntimeValue::parse_list("[]").unwrap()[0].to_string(), "[]");

    let errors = [
        ("u8 256", 3, "value does not fit in u8"),
        ("i8 -129", 3, "value does not fit in i8"),
        ("u8 -1", 3, "value does not fit in u8"),
        ("u0 0", 0, "integer width must be between 1 and 128"),
        ("u129 0", 0, "integer width must be between 1 and 128"),
        ("u32", 3, "expected a decimal number"),
        ("u32 1 u32 2", 6, "expected `,` or the end of the list"),
        ("[u32 1", 6, "expected `,` or `]`"),
        (
            "x 1",
            0,
            "expected a value (`Field`, `uN`, `iN`, `[`, `&mut`, `noisy`), found `x`",
        ),
        (
            "Field 21888242871839275222246405745257275088548364400416034343698204186575808495617",
            0,
            "Field value is not below the BN254 modulus",
        ),
        (
            "noisy(plaintext 32, noise 1)",
            16,
            "a plaintext must be between 0 and 31",
        ),
        (
            "u32 1,",
            6,
            "expected a value (`Field`, `uN`, `iN`, `[`, `&mut`, `noisy`), found ``",
        ),
    ];
    for (text, offset, message) in errors {
        let error = RuntimeValue::parse_list(text).unwrap_err();
        assert_eq!(
            (error.offset, error.message.as_str()),
            (offset, message),
            "{text}"
        );
    }
    // Deep nesting is an error, not a stack overflow.
    let deep = "[".repeat(100_000);
    assert_eq!(
        RuntimeValue::parse_list(&deep).unwrap_err().message,
        "arrays nested too deeply"
    );
}

#[test]
fn zero_values() {
    let ty = Type::Array(vec![Type::Field, Type::reference(Type::U32)].into(), 2);
    let zero = RuntimeValue::zero(&ty).unwrap();
    assert_eq!(zero.to_string(), "[Field 0, &mut 0, Field 0, &mut 0]");
    assert!(zero.has_type(&ty));
    assert_eq!(zero.ty(), ty);
    assert_eq!(
        RuntimeValue::zero(&Type::Signed(8)).unwrap().to_string(),
        "i8 0"
    );
    assert_eq!(
        RuntimeValue::zero(&Type::Noisy).unwrap().to_string(),
        "noisy(plaintext 0, noise 0)"
    );
    assert!(RuntimeValue::zero(&Type::array(Type::Field, u32::MAX)).is_none());
    assert!(RuntimeValue::zero(&Type::Unsigned(0)).is_none());
}

#[test]
fn argument_references_are_fresh_cells() {
    // fn main(v0: &mut Field, v1: &mut Field) -> u1 { store 5 at v0; return eq v0, v1; load v1 }
    let text = "fn main f0 {
  b0(v0: &mut Field, v1: &mut Field):
    store Field 5 at v0
    v2 = eq v0, v1
    v3 = load v1 -> Field
    return v2, v3
}";
    let module = parse_module(text).unwrap();
    // Equal numbers denote the same cell.
    let same = run(&module, RuntimeValue::parse_list("&mut 7, &mut 7").unwrap());
    assert_eq!(returned(&same), "return u1 1, Field 5");
    let different = run(&module, RuntimeValue::parse_list("&mut 7, &mut 8").unwrap());
    assert!(matches!(
        different.outcome,
        Outcome::Trap(ref t) if matches!(t.kind, TrapKind::LoadOfUninitialized { .. })
    ));
}

/// The message of a run that must trap on a value of the wrong type.
fn type_error(module: &Module, args: &str) -> String {
    match run(module, RuntimeValue::parse_list(args).unwrap()).outcome {
        Outcome::Trap(trap)
            if matches!(
                trap.kind,
                TrapKind::TypeError(_) | TrapKind::ArgumentType { .. }
            ) =>
        {
            trap.to_string()
        }
        other => panic!("expected a type error, got {}", outcome_text(&other)),
    }
}

#[test]
fn one_cell_is_never_named_with_two_pointee_types() {
    // Arguments: one number for a `&mut Field` and a `&mut u32` is refused.
    let module = parse_module(
        "fn main f0 {
  b0(v0: &mut Field, v1: &mut u32):
    store Field 5 at v0
    return
}",
    )
    .unwrap();
    let message = type_error(&module, "&mut 7, &mut 7");
    assert!(message.contains("another type"), "{message}");
    assert!(!matches!(
        run(&module, RuntimeValue::parse_list("&mut 7, &mut 8").unwrap()).outcome,
        Outcome::Trap(_)
    ));

    // A call through a `function` value: the callee's parameter types are
    // checked against the cells given, its results against the call's.
    let module = parse_module(
        "fn main f0 {
  b0(v0: u1):
    v1 = allocate -> &mut Field
    store Field 1 at v1
    v2 = if v0 then f1 else (if v0) f2
    v3 = call v2(v1) -> &mut Field
    return
}
fn takes_u32 f1 {
  b0(v0: &mut u32):
    return v0
}
fn gives_u32 f2 {
  b0(v0: &mut Field):
    v1 = allocate -> &mut u32
    return v1
}",
    )
    .unwrap();
    let message = type_error(&module, "u1 1");
    assert!(
        message.contains("argument 0 of f1 should be &mut u32"),
        "{message}"
    );
    let message = type_error(&module, "u1 0");
    assert!(
        message.contains("where the call names `&mut Field`"),
        "{message}"
    );

    // A dynamic index into an array of tuples landing on the other type.
    let module = parse_module(
        "fn main f0 {
  b0(v0: u32):
    v1 = allocate -> &mut Field
    v2 = allocate -> &mut u32
    v3 = make_array [v1, v2] : [(&mut Field, &mut u32); 1]
    v4 = array_get v3, index v0 -> &mut Field
    store Field 1 at v4
    return
}",
    )
    .unwrap();
    let message = type_error(&module, "u32 1");
    assert!(message.contains("array_get"), "{message}");
    assert!(!matches!(
        run(&module, RuntimeValue::parse_list("u32 0").unwrap()).outcome,
        Outcome::Trap(_)
    ));
}

#[test]
fn noise_parameters_are_configurable() {
    let text = "fn main f0 {
  b0(v0: u5):
    v1 = encode v0 -> noisy
    v2 = add v1, v1
    v3 = mul v2, v1
    v4 = decode v3 -> u5
    return v4, v3
}";
    let module = parse_module(text).unwrap();
    let args = || RuntimeValue::parse_list("u5 7").unwrap();
    let with = |encode_bits, max_bits, check_noise| {
        let options = InterpreterOptions {
            check_noise,
            noise: NoiseParams {
                encode_bits,
                max_bits,
            },
            ..InterpreterOptions::default()
        };
        returned(&interpret(
            &module,
            module.main().unwrap(),
            args(),
            &options,
        ))
    };
    // Default: 12, 13, 25.
    assert_eq!(
        with(12, 26, true),
        "return u5 2, noisy(plaintext 2, noise 25)"
    );
    assert_eq!(
        with(12, 24, true),
        "trap: noise 25 bits exceeds the maximum of 24 bits at `v3 = mul` in b0 of fn main f0 (line 5:5)"
    );
    assert_eq!(
        with(20, 26, true),
        "trap: noise 41 bits exceeds the maximum of 26 bits at `v3 = mul` in b0 of fn main f0 (line 5:5)"
    );
    assert_eq!(
        with(20, 26, false),
        "return u5 2, noisy(plaintext 2, noise 41)"
    );
}

#[test]
fn call_depth_is_configurable_and_steps_count_callees() {
    let text = "fn main f0 {
  b0(v0: u32):
    v1 = call f1(v0) -> u32
    return v1
}
fn down f1 {
  b0(v0: u32):
    v1 = eq v0, u32 0
    jmpif v1 then: b1, else: b2
  b1():
    return u32 0
  b2():
    v2 = sub v0, u32 1
    v3 = call f1(v2) -> u32
    return v3
}";
    let module = parse_module(text).unwrap();
    let with_depth = |n: u32, max_call_depth| {
        let options = InterpreterOptions {
            max_call_depth,
            ..InterpreterOptions::default()
        };
        let args = vec![RuntimeValue::unsigned(32, u128::from(n))];
        interpret(&module, module.main().unwrap(), args, &options)
    };
    // main plus n + 1 frames of `down`.
    let ok = with_depth(3, 5);
    assert_eq!(returned(&ok), "return u32 0");
    // main: call, return; down with n > 0: eq, jmpif, sub, call, return; n = 0: eq, jmpif, return.
    assert_eq!(ok.steps, 2 + 3 * 5 + 3);
    assert!(matches!(
        with_depth(4, 5).outcome,
        Outcome::Trap(ref t) if t.kind == TrapKind::CallDepthExceeded { limit: 5 }
    ));
}

#[test]
fn a_plaintext_operand_scales_the_noise() {
    let text = "fn main f0 {
  b0(v0: u5):
    v1 = encode v0 -> noisy
    v2 = mul u5 4, v1
    v3 = sub v2, i5 -3
    v4 = decode v3 -> u5
    return v4
}";
    let module = parse_module(text).unwrap();
    verify_module(&module).unwrap();
    let main = module.main().unwrap();
    let args = RuntimeValue::parse_list("u5 5").unwrap();
    let run = interpret(&module, main, args, &InterpreterOptions::default());
    // (5 * 4 + 3) mod 32, with 12 + 2 bits of noise on the way.
    let expected = RuntimeValue::parse_list("u5 23").unwrap();
    assert_eq!(run.outcome, Outcome::Return(expected));
}

/// An oracle handler that reads and writes the run's cells: `oracle_mut`
/// returns a fresh cell holding `Field 40`, `oracle_op` adds one to the
/// cell it is given, and any other name is refused.
struct CountingOracles {
    calls: Vec<String>,
}

impl kildall_interpreter::ForeignHandler for CountingOracles {
    fn call(
        &mut self,
        call: &kildall_interpreter::ForeignCall<'_>,
        memory: &mut kildall_interpreter::ForeignMemory<'_>,
    ) -> Result<Vec<RuntimeValue>, String> {
        self.calls.push(call.name.to_string());
        match call.name {
            "oracle_mut" => Ok(vec![
                memory.allocate(&Type::Field, Some(RuntimeValue::field(40)))
            ]),
            "oracle_op" => {
                let held = memory.load(&call.args[0]).cloned();
                let next = match held {
                    Some(v) if v == RuntimeValue::field(40) => RuntimeValue::field(41),
                    other => return Err(format!("unexpected cell {other:?}")),
                };
                memory.store(&call.args[0], next);
                Ok(vec![])
            }
            other => Err(format!("no oracle `{other}`")),
        }
    }
}

/// Runs `module`'s `main` without arguments, its oracles answered by
/// [`CountingOracles`]; returns the run and the oracles called, in order.
fn run_with_oracles(module: &Module) -> (Execution, Vec<String>) {
    let main = module.main().expect("main");
    let mut oracles = CountingOracles { calls: Vec::new() };
    let run = kildall_interpreter::interpret_with_foreign(
        module,
        main,
        Vec::new(),
        &InterpreterOptions::default(),
        &mut oracles,
    );
    (run, oracles.calls)
}

#[test]
fn oracles_answer_through_the_handler() {
    let text = "brillig(inline) fn main f0 {
  b0():
    v0 = call oracle_mut() -> &mut Field
    call oracle_op(v0)
    v1 = load v0 -> Field
    return v1
}
";
    let module = parse_module(text).expect("parses");
    verify_module(&module).expect("verifies");
    let main = module.main().expect("main");
    let (run, calls) = run_with_oracles(&module);
    assert_eq!(run.outcome, Outcome::Return(vec![RuntimeValue::field(41)]));
    assert_eq!(calls, ["oracle_mut", "oracle_op"]);

    // Without a handler the run stops at the first oracle and names it.
    let refused = interpret(&module, main, Vec::new(), &InterpreterOptions::default());
    let Outcome::Trap(trap) = refused.outcome else {
        panic!("expected a trap, got {:?}", refused.outcome);
    };
    assert_eq!(
        trap.kind,
        TrapKind::NoForeignHandler {
            name: "oracle_mut".into()
        }
    );
}

#[test]
fn an_oracle_answer_of_the_wrong_type_traps() {
    let text = "brillig(inline) fn main f0 {
  b0():
    v0 = call oracle_mut() -> u32
    return v0
}
";
    let module = parse_module(text).expect("parses");
    let (run, _) = run_with_oracles(&module);
    let Outcome::Trap(trap) = run.outcome else {
        panic!("expected a trap, got {:?}", run.outcome);
    };
    assert!(
        matches!(&trap.kind, TrapKind::ForeignFailed { name, reason }
            if name == "oracle_mut" && reason.contains("`u32`")),
        "{trap}"
    );
}
