//! Each instruction's constraints against the interpreter on random
//! values: the honest witness satisfies them and agrees with the
//! interpreter on every result; a changed result does not; a trap (the
//! same block run under predicate 0 gives the witness a prover would try)
//! is unsatisfiable.

use ark_bn254::Fr;
use kildall_interpreter::{interpret, InterpreterOptions, Outcome, RuntimeValue};
use kildall_ir::{Module, Value};
use kildall_r1cs::trace::record;
use kildall_r1cs::{assign_block, LowerOptions};
use kildall_testkit::Rng;

fn module(ty: &str, body: &str) -> Module {
    let text = format!("fn main f0 {{\n  b0(v0: {ty}, v1: {ty}):\n{body}\n}}");
    let module = kildall_ir::parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    kildall_ir::verify_module(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    module
}

fn random(rng: &mut Rng, ty: &str) -> RuntimeValue {
    let small = rng.chance(0.3);
    let raw = if small {
        u128::from(rng.below(4))
    } else {
        u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())
    };
    match ty {
        "Field" => RuntimeValue::Field(Fr::from(raw)),
        t if t.starts_with('u') => RuntimeValue::unsigned(t[1..].parse().unwrap(), raw),
        t => RuntimeValue::signed(t[1..].parse().unwrap(), raw as i128),
    }
}

const TYPES: [&str; 6] = ["u1", "u8", "u32", "i8", "i32", "Field"];

fn bodies(ty: &str) -> Vec<String> {
    let mut ops = vec!["add", "sub", "mul", "eq", "lt"];
    if ty != "Field" {
        ops.extend([
            "unchecked_add",
            "unchecked_sub",
            "unchecked_mul",
            "and",
            "or",
            "xor",
            "shl",
            "shr",
        ]);
        ops.extend(["div", "mod"]);
    } else {
        ops.push("div");
    }
    let rt = |op: &str| if op == "eq" || op == "lt" { "u1" } else { ty };
    let mut out: Vec<String> = ops
        .iter()
        .map(|op| format!("    v2 = {op} v0, v1\n    return v2 // {}", rt(op)))
        .collect();
    // Under a run-time predicate: the checks hold only where enabled.
    out.extend(ops.iter().map(|op| {
        format!(
            "    v3 = eq v0, v1\n    enable_side_effects v3\n    v2 = {op} v0, v1\n    return v2"
        )
    }));
    out.push("    constrain v0 == v1\n    return v0".to_string());
    out.push("    constrain v0 != v1\n    return v0".to_string());
    out.push(
        "    v3 = lt v0, v1\n    v2 = if v3 then v0 else (if v3) v1\n    return v2".to_string(),
    );
    if ty != "Field" && ty != "u1" {
        out.push(format!(
            "    v2 = not v0\n    v3 = shl v2, {ty} 3\n    v4 = shr v3, {ty} 1\n    return v4"
        ));
        out.push("    v2 = cast v0 as u16\n    v3 = cast v1 as i16\n    v4 = cast v0 as Field\n    return v2, v3, v4".to_string());
        out.push("    v2 = truncate v0 to 3 bits, max_bit_size: 64\n    range_check v1 to 5 bits\n    return v2".to_string());
    }
    if ty == "Field" {
        out.push("    v2 = truncate v0 to 8 bits, max_bit_size: 254\n    v3 = cast v1 as u8\n    return v2, v3".to_string());
        // A cast whose pattern does not fit traps whatever the predicate.
        out.push("    v3 = lt v0, v1\n    enable_side_effects v3\n    v2 = cast v0 as u8\n    v4 = cast v1 as i8\n    return v2, v4".to_string());
    }
    out
}

#[test]
fn instructions_agree_with_the_interpreter() {
    let mut rng = Rng::new(19);
    let (mut satisfied, mut traps) = (0, 0);
    for ty in TYPES {
        for body in bodies(ty) {
            let body = body.split(" //").next().unwrap().to_string();
            let m = module(ty, &body);
            for _ in 0..40 {
                let args = vec![random(&mut rng, ty), random(&mut rng, ty)];
                if agrees_with_interpreter(&m, args) {
                    satisfied += 1;
                } else {
                    traps += 1;
                }
            }
        }
    }
    assert!(
        satisfied > 2000 && traps > 300,
        "{satisfied} satisfied, {traps} traps"
    );
}

/// Runs `m` on `args`: when it returns, the honest witness satisfies the
/// constraints and a changed output does not (true); when it traps, no
/// witness does (false).
fn agrees_with_interpreter(m: &Module, args: Vec<RuntimeValue>) -> bool {
    let main = m.main().unwrap();
    let run = interpret(m, main, args.clone(), &InterpreterOptions::default());
    match run.outcome {
        Outcome::Return(_) => {
            let trace = record(m, main, args, &InterpreterOptions::default())
                .unwrap_or_else(|e| panic!("{e}\n{m}"));
            let instance = &trace.instances[0];
            let cs = &trace.kinds[&instance.kind];
            assert!(cs.first_unsatisfied(&instance.assignment).is_none(), "{m}");
            // A changed output is not accepted.
            let mut tampered = instance.assignment.clone();
            let out = cs.num_inputs;
            tampered.public[out] += Fr::from(1u64);
            assert!(cs.first_unsatisfied(&tampered).is_some(), "{m}");
            true
        }
        Outcome::Trap(_) => {
            assert_trap_unsatisfiable(m, &args);
            false
        }
        Outcome::OutOfFuel => unreachable!(),
    }
}

/// Casts on bit patterns at their edges: same width, a narrower target
/// (which traps on a pattern too wide, `i16 -1` included), a wider one (a
/// signed value zero-extends, to `iN` and to `Field` alike).
#[test]
fn integer_casts_agree_at_the_pattern_edges() {
    let body = "    v2 = cast v0 as u8\n    v3 = cast v0 as i8\n    v4 = cast v0 as u32\n    v5 = cast v0 as i32\n    v6 = cast v0 as Field\n    return v2, v3, v4, v5, v6";
    let values: [i128; 12] = [0, 1, 127, 128, 200, 255, 256, -1, -56, -128, -129, -200];
    let (mut returned, mut trapped) = (0, 0);
    for (ty, bits, signed) in [
        ("u8", 8, false),
        ("i8", 8, true),
        ("u16", 16, false),
        ("i16", 16, true),
    ] {
        let m = module(ty, body);
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), 1i128 << (bits - 1))
        } else {
            (0, 1i128 << bits)
        };
        for x in values.into_iter().filter(|x| (lo..hi).contains(x)) {
            let arg = if signed {
                RuntimeValue::signed(bits, x)
            } else {
                RuntimeValue::unsigned(bits, x as u128)
            };
            if agrees_with_interpreter(&m, vec![arg.clone(), arg]) {
                returned += 1;
            } else {
                trapped += 1;
            }
        }
    }
    assert!(
        returned >= 10 && trapped >= 5,
        "{returned} returned, {trapped} trapped"
    );
}

/// Under predicate 0 an `array_set` leaves its array as it was, at a
/// constant index and at a run-time one, and an `array_get` outside the
/// array reads its first element of the result's type.
#[test]
fn predicated_array_accesses_agree() {
    let text = "fn main f0 {
  b0(v0: u1, v1: u32):
    v2 = make_array [Field 10, Field 20, Field 30] : [Field; 3]
    enable_side_effects v0
    v3 = array_set v2, index v1, value Field 99
    v4 = array_set v2, index u32 0, value Field 98
    v7 = array_get v2, index v1 -> Field
    enable_side_effects u1 1
    v5 = array_get v3, index u32 1 -> Field
    v6 = array_get v4, index u32 0 -> Field
    return v5, v6, v7
}";
    let disabled_read = "fn main f0 {
  b0(v0: u1, v1: u32):
    v2 = make_array [u8 10, u1 1, u8 20, u1 0] : [(u8, u1); 2]
    enable_side_effects v0
    v3 = array_get v2, index u32 7 -> u1
    enable_side_effects u1 1
    return v3
}";
    let m = kildall_ir::parse_module(disabled_read).unwrap();
    let args = vec![RuntimeValue::unsigned(1, 0), RuntimeValue::unsigned(32, 0)];
    assert!(agrees_with_interpreter(&m, args));
    let m = kildall_ir::parse_module(text).unwrap();
    kildall_ir::verify_module(&m).unwrap();
    for enabled in [0, 1] {
        for index in 0..3 {
            let args = vec![
                RuntimeValue::unsigned(1, enabled),
                RuntimeValue::unsigned(32, index),
            ];
            assert!(agrees_with_interpreter(&m, args));
        }
    }
}

/// The values of the trapping block run under predicate 0 (where results
/// wrap and only a cast whose pattern does not fit its target still traps)
/// fill the block's witness; it must not satisfy the constraints of the
/// block run under predicate 1. A run that traps there too gives the values
/// defined before the trap, and zero for the results from the trap on.
fn assert_trap_unsatisfiable(m: &Module, args: &[RuntimeValue]) {
    let main = m.main().unwrap();
    let text = m.to_string();
    let disabled = text
        .replacen("):\n", "):\n    enable_side_effects u1 0\n", 1)
        .replace("enable_side_effects v3", "enable_side_effects u1 0");
    let silent = kildall_ir::parse_module(&disabled).unwrap();
    let mut values = std::collections::HashMap::<Value, RuntimeValue>::new();
    struct Keep<'a>(
        &'a mut std::collections::HashMap<Value, RuntimeValue>,
        &'a kildall_ir::Function,
    );
    impl kildall_interpreter::BlockObserver for Keep<'_> {
        fn block_executed(
            &mut self,
            _: kildall_ir::FuncId,
            _: kildall_ir::Block,
            values: &kildall_interpreter::BlockValues<'_>,
        ) {
            self.keep(values);
        }
        fn block_trapped(
            &mut self,
            _: kildall_ir::FuncId,
            _: kildall_ir::Block,
            _: kildall_ir::Inst,
            values: &kildall_interpreter::BlockValues<'_>,
        ) {
            self.keep(values);
        }
    }
    impl Keep<'_> {
        fn keep(&mut self, values: &kildall_interpreter::BlockValues<'_>) {
            for (v, _) in self.1.dfg.values() {
                if let Some(x) = values.get(v) {
                    self.0.insert(v, x);
                }
            }
        }
    }
    let func = &silent.functions[main];
    kildall_interpreter::interpret_observed(
        &silent,
        main,
        args.to_vec(),
        &InterpreterOptions::default(),
        &mut Keep(&mut values, func),
    );
    let original = &m.functions[main];
    let block = original.entry_block().unwrap();
    let get = |v: Value| {
        values
            .get(&v)
            .cloned()
            .or_else(|| zero_of(original.dfg.value_type(v)))
    };
    match assign_block(
        original,
        block,
        LowerOptions {
            program_entry: true,
        },
        &get,
    ) {
        // The lowering itself may already see the disagreement (a checked
        // result the constraints cannot produce).
        Err(kildall_r1cs::LowerError::Mismatch { .. }) => {}
        Err(e) => panic!("{e}\n{m}"),
        Ok((cs, assignment)) => assert!(
            cs.first_unsatisfied(&assignment).is_some(),
            "a trap satisfied its constraints:\n{m}\nargs {args:?}"
        ),
    }
}

/// The zero of a numeric type, the stand-in for a result a trapping run
/// never defined.
fn zero_of(ty: &kildall_ir::Type) -> Option<RuntimeValue> {
    match *ty {
        kildall_ir::Type::Field => Some(RuntimeValue::Field(Fr::from(0u64))),
        kildall_ir::Type::Unsigned(bits) => Some(RuntimeValue::unsigned(bits, 0)),
        kildall_ir::Type::Signed(bits) => Some(RuntimeValue::signed(bits, 0)),
        _ => None,
    }
}

/// `MIN mod -1` traps as `MIN / -1` does, in the constraints as in the
/// interpreter (no witness satisfies them); another remainder of `MIN`
/// returns.
#[test]
fn signed_remainder_overflow_agrees() {
    let m = module("i8", "    v2 = mod v0, v1\n    return v2");
    let min = RuntimeValue::signed(8, -128);
    assert!(!agrees_with_interpreter(
        &m,
        vec![min.clone(), RuntimeValue::signed(8, -1)]
    ));
    assert!(agrees_with_interpreter(
        &m,
        vec![min, RuntimeValue::signed(8, 3)]
    ));
}

/// `vector_enumerate` runs its closure once per entry, which a block's
/// constraints cannot express, over a slice, which this lowering has no
/// layout for: a block calling it is refused with a typed error, not a
/// panic.
#[test]
fn vector_enumerate_is_refused() {
    let text = "acir(inline) fn main f0 {
  b0(v0: u32, v1: [Field]):
    v2, v3 = call vector_enumerate(v0, v1, f1, f1, u32 0, u1 0) -> (u32, [Field])
    return v2, v3
}
acir(inline) fn entry f1 {
  b0(v0: u32, v1: [Field], v2: u32, v3: u32):
    v4 = array_get v1, index v2 -> Field
    return v4
}";
    assert_eq!(refusal(text), "a value of type [Field]");
}

/// What the lowering of `main`'s entry block, which must be refused, says
/// it does not support.
fn refusal(text: &str) -> String {
    let m = kildall_ir::parse_module(text).unwrap();
    kildall_ir::verify_module(&m).unwrap();
    let func = &m.functions[m.main().unwrap()];
    let block = func.entry_block().unwrap();
    let options = LowerOptions {
        program_entry: false,
    };
    match kildall_r1cs::lower_block(func, block, options) {
        Err(kildall_r1cs::LowerError::Unsupported { what, .. }) => what,
        other => panic!("lowered: {other:?}"),
    }
}

/// An array holding slices has no flat layout (Noir has none either): a
/// block reading one is refused with a typed error naming its type.
#[test]
fn arrays_of_slices_are_refused() {
    let text = "fn main f0 {
  b0(v0: [[Field]; 2]):
    v1 = array_get v0, index u32 1 -> [Field]
    return v1
}";
    assert_eq!(refusal(text), "a value of type [[Field]; 2]");
}

fn u32s(values: &[u128]) -> Vec<RuntimeValue> {
    values
        .iter()
        .map(|&v| RuntimeValue::unsigned(32, v))
        .collect()
}

/// Runs `text` on each argument list: every run that returns satisfies its
/// constraints, every trap is unsatisfiable; returns how many returned.
fn agree_on(text: &str, runs: Vec<Vec<RuntimeValue>>) -> usize {
    let m = kildall_ir::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    kildall_ir::verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{text}"));
    runs.into_iter()
        .filter(|args| agrees_with_interpreter(&m, args.clone()))
        .count()
}

/// A `[[Field; 2]; 3]` numbered by entry (a function without a runtime):
/// an inner array read and written whole at constant and run-time
/// indices, and a leaf read out of it at a run-time index.
#[test]
fn nested_arrays_by_entry_agree() {
    let text = "fn main f0 {
  b0(v0: Field, v1: u32, v2: u32):
    v3 = make_array [v0, Field 2] : [Field; 2]
    v4 = make_array [Field 3, v0] : [Field; 2]
    v5 = make_array [v3, v4, v3] : [[Field; 2]; 3]
    v6 = array_get v5, index u32 1 -> [Field; 2]
    v7 = array_get v5, index v1 -> [Field; 2]
    v8 = array_get v7, index v2 -> Field
    v9 = array_set v5, index v1, value v4
    v10 = array_set v5, index u32 2, value v6
    v11 = array_get v9, index u32 0 -> [Field; 2]
    return v8, v6, v7, v9, v10, v11
}";
    let mut runs = Vec::new();
    for row in 0..4 {
        for column in 0..3 {
            let mut args = vec![RuntimeValue::field(7)];
            args.extend(u32s(&[row, column]));
            runs.push(args);
        }
    }
    // Rows 0 to 2 and columns 0 and 1 return; the others trap.
    assert_eq!(agree_on(text, runs), 6);
}

/// The same matrix listed leaf by leaf in an `acir` function and read and
/// written by flat index (a scalar at an index into the six leaves), next
/// to an entry read of the same array.
#[test]
fn nested_arrays_by_leaf_agree() {
    let text = "acir(inline) fn main f0 {
  b0(v0: Field, v1: u32, v2: Field):
    v3 = make_array [v0, Field 2, Field 3, v2, Field 5, v0] : [[Field; 2]; 3]
    v4 = array_get v3, index u32 3 -> Field
    v5 = array_get v3, index v1 -> Field
    v6 = array_set v3, index v1, value v2
    v7 = array_set v3, index u32 4, value v0
    v8 = array_get v6, index u32 1 -> [Field; 2]
    v9 = array_get v7, index u32 5 -> Field
    return v4, v5, v6, v7, v8, v9
}";
    let runs = (0..8)
        .map(|i| {
            vec![
                RuntimeValue::field(11),
                RuntimeValue::unsigned(32, i),
                RuntimeValue::field(13),
            ]
        })
        .collect();
    assert_eq!(agree_on(text, runs), 6);
}

/// Arrays of tuples holding arrays, `[([u8; 2], u1); 2]`: by entry, an
/// inner array read at a run-time entry index starts at its entry's first
/// leaf (entries of three leaves, components of two and one); by leaf, a
/// run-time index reads one `u8` or `u1`. Writes of both kinds, under a
/// run-time predicate too.
#[test]
fn arrays_of_tuples_holding_arrays_agree() {
    let by_entry = "fn main f0 {
  b0(v0: u32, v1: u8, v2: u1):
    v3 = not v2
    v4 = make_array [v1, u8 2] : [u8; 2]
    v5 = make_array [u8 3, v1] : [u8; 2]
    v6 = make_array [v4, v2, v5, u1 1] : [([u8; 2], u1); 2]
    v7 = unchecked_mul v0, u32 2
    v8 = unchecked_add v7, u32 1
    v9 = array_get v6, index v7 -> [u8; 2]
    v10 = array_get v6, index v8 -> u1
    v11 = array_get v6, index u32 2 -> [u8; 2]
    v12 = array_set v6, index v7, value v5
    enable_side_effects v3
    v13 = array_set v6, index v7, value v4
    v14 = array_set v6, index v8, value u1 0
    return v9, v10, v11, v12, v13, v14
}";
    let by_leaf = "acir(inline) fn main f0 {
  b0(v0: u32, v1: u8, v2: u1):
    v3 = make_array [v1, u8 2, v2, u8 3, v1, u1 1] : [([u8; 2], u1); 2]
    v4 = array_get v3, index v0 -> u8
    v5 = array_get v3, index u32 2 -> u1
    v6 = array_set v3, index v0, value u8 9
    return v4, v5, v6
}";
    // Two components of the read's type: the component is a witness too.
    let two_components = "fn main f0 {
  b0(v0: u32, v1: u8, v2: u1):
    v3 = make_array [v1, u8 2] : [u8; 2]
    v4 = make_array [u8 3, v1] : [u8; 2]
    v5 = make_array [v3, v2, v4, v4, u1 1, v3] : [([u8; 2], u1, [u8; 2]); 2]
    v6 = array_get v5, index v0 -> [u8; 2]
    return v6
}";
    let runs = [0, 2, 3, 5, 6]
        .map(|i| {
            vec![
                RuntimeValue::unsigned(32, i),
                RuntimeValue::unsigned(8, 200),
                RuntimeValue::unsigned(1, 1),
            ]
        })
        .to_vec();
    assert_eq!(agree_on(two_components, runs), 4);
    let mut entry_runs = Vec::new();
    let mut leaf_runs = Vec::new();
    for flag in 0..2 {
        for i in 0..7 {
            let args = vec![
                RuntimeValue::unsigned(32, i),
                RuntimeValue::unsigned(8, 200),
                RuntimeValue::unsigned(1, flag),
            ];
            if i < 3 {
                entry_runs.push(args.clone());
            }
            leaf_runs.push(args);
        }
    }
    // Entries 0 and 1 return; entry 2 traps. Leaves 0, 1, 3 and 4 hold a
    // `u8`; leaves 2 and 5 hold a `u1`, read as the leaf they are (the
    // interpreter does not type a run-time read), and 6 traps.
    assert_eq!(agree_on(by_entry, entry_runs), 4);
    assert_eq!(agree_on(by_leaf, leaf_runs), 12);
}

/// A nested array through block parameters (the program's argument,
/// range-checked leaf by leaf, and a jump argument), an `if` of nested
/// arrays, and a nested array stored in a cell and loaded back.
#[test]
fn nested_arrays_through_blocks_and_cells_agree() {
    let text = "fn main f0 {
  b0(v0: [[u8; 2]; 2], v1: u1, v2: u32):
    v3 = array_get v0, index u32 1 -> [u8; 2]
    v4 = make_array [v3, v3] : [[u8; 2]; 2]
    v5 = not v1
    v6 = if v1 then v0 else (if v5) v4
    v7 = allocate -> &mut [[u8; 2]; 2]
    store v6 at v7
    jmpif v1 then: b1, else: b2
  b1():
    jmp b3(v6)
  b2():
    v8 = load v7 -> [[u8; 2]; 2]
    v9 = array_set v8, index v2, value v3
    jmp b3(v9)
  b3(v10: [[u8; 2]; 2]):
    v11 = array_get v10, index v2 -> [u8; 2]
    v12 = load v7 -> [[u8; 2]; 2]
    return v11, v10, v12
}";
    let row = |a: u128, b: u128| {
        RuntimeValue::array(
            vec![RuntimeValue::unsigned(8, a), RuntimeValue::unsigned(8, b)],
            vec![kildall_ir::Type::Unsigned(8)],
        )
    };
    let matrix = RuntimeValue::array(
        vec![row(1, 2), row(250, 4)],
        vec![kildall_ir::Type::array(kildall_ir::Type::Unsigned(8), 2)],
    );
    // (The trap check lowers the entry block alone: every run here
    // returns.)
    let mut runs = Vec::new();
    for flag in 0..2 {
        for i in 0..2 {
            runs.push(vec![
                matrix.clone(),
                RuntimeValue::unsigned(1, flag),
                RuntimeValue::unsigned(32, i),
            ]);
        }
    }
    assert_eq!(agree_on(text, runs), 4);
}
