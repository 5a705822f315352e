//! Verifier tests: one case per error kind in `data/verifier_errors.txt`
//! (blessable with `UPDATE_EXPECT=1`), plus errors only the API can build.

use std::path::Path;

use kildall_harness::testing::check_cases;
use kildall_ir::{
    parse_module, verify_function, verify_module, verify_module_on, FuncCursor, FuncId, Function,
    Location, ModuleVerifier, Terminator, Type, Value, VerifierErrorKind,
};

#[test]
fn verifier_errors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verifier_errors.txt");
    check_cases(&path, |input| {
        let module = match parse_module(input) {
            Ok(module) => module,
            Err(e) => return format!("parse error: {e}"),
        };
        let result = verify_module(&module);
        // Function by function, the checks agree with the module's.
        let by_function = ModuleVerifier::new(&module).and_then(|verifier| {
            let mut functions = module.functions.iter();
            functions.try_for_each(|(id, func)| verifier.verify_function(id, func, 1))
        });
        assert_eq!(by_function, result, "{input}");
        match result {
            Ok(()) => "ok".into(),
            Err(e) => e.to_string(),
        }
    });
}

#[test]
fn a_module_verifier_describes_only_the_module_it_was_made_from() {
    let text = "g0 = Field 1\n\nfn main f0 {\n  b0(v0: Field):\n    v1 = call f1(v0) -> Field\n    \
                v2 = add v1, g0\n    return v2\n}\n\nfn id f1 {\n  b0(v0: Field):\n    return v0\n}\n";
    let module = parse_module(text).unwrap();
    let verifier = ModuleVerifier::new(&module).unwrap();
    assert!(verifier.describes(&module));
    // A callee's parameter changed: the call in `main` must be checked again.
    let mut changed = module.clone();
    let callee = &mut changed.functions[FuncId::from_u32(1)];
    let entry = callee.entry_block().unwrap();
    callee.dfg.append_block_param(entry, Type::Field);
    assert!(!verifier.describes(&changed));
    assert!(verifier
        .verify_function(
            FuncId::from_u32(0),
            &changed.functions[FuncId::from_u32(0)],
            1
        )
        .is_ok());
    assert!(verify_module(&changed).is_err());
    // A global's type changed.
    let mut changed = module.clone();
    changed.globals.values_mut().for_each(|g| g.ty = Type::U32);
    assert!(!verifier.describes(&changed));
    // Made from the changed module, it finds the use of the global that
    // no longer has its type, as the module's check does.
    let main = FuncId::from_u32(0);
    let by_function =
        ModuleVerifier::new(&changed)
            .unwrap()
            .verify_function(main, &changed.functions[main], 1);
    assert!(by_function.is_err());
    assert_eq!(by_function, verify_module(&changed));
}

#[test]
fn empty_function() {
    let err = verify_function(&Function::new("empty")).unwrap_err();
    assert_eq!(err.kind, VerifierErrorKind::NoEntryBlock);
    assert_eq!(
        err.to_string(),
        "in function `empty` (f0): the function has no blocks"
    );
}

#[test]
fn result_of_a_removed_instruction() {
    let module = parse_module(
        "fn main f0 {\n  b0():\n    v0 = add u32 1, u32 2\n    v1 = add v0, u32 3\n    return v1\n}\n",
    )
    .unwrap();
    let mut func = module.functions[FuncId::from_u32(0)].clone();
    let entry = func.entry_block().unwrap();
    let first = func.layout.first_inst(entry).unwrap();
    // Unlink without detaching the result: its definition is out of the layout.
    func.layout.remove_inst(first);
    let err = verify_function(&func).unwrap_err();
    assert!(
        matches!(err.kind, VerifierErrorKind::DefinitionNotInLayout { .. }),
        "{err}"
    );
    assert_eq!(err.loc.line, 4);
}

#[test]
fn wrong_result_count_from_the_api() {
    let mut func = Function::new("f");
    let mut cursor = FuncCursor::new(&mut func);
    let block = cursor.append_block();
    cursor.goto_bottom(block);
    let a = cursor.constant(1, Type::U32);
    let inst = cursor.insert(
        kildall_ir::InstructionData::Not { arg: a },
        &[Type::U32, Type::U32],
    );
    cursor.terminate(Terminator::Return { values: vec![] });
    let err = verify_function(&func).unwrap_err();
    assert_eq!(err.location, Location::Inst(inst));
    assert_eq!(
        err.kind,
        VerifierErrorKind::ResultCount {
            opcode: "not",
            expected: 1,
            found: 2
        }
    );
    assert!(!err.loc.is_known());
}

/// Deep dominator trees and long chains stay fast and correct: a chain of
/// blocks, each using a value of the first block.
#[test]
fn long_chain_verifies() {
    let mut text = String::from("fn main f0 {\n  b0(v0: u32):\n    jmp b1()\n");
    for i in 1..2000 {
        text.push_str(&format!(
            "  b{i}():\n    v{i} = add v0, u32 1\n    jmp b{}()\n",
            i + 1
        ));
    }
    text.push_str("  b2000():\n    return v0\n}\n");
    let module = parse_module(&text).unwrap();
    verify_module(&module).unwrap();
}

#[test]
fn call_to_a_missing_function() {
    let mut module = parse_module("fn main f0 {\n  b0():\n    call f0()\n    return\n}\n").unwrap();
    let func = &mut module.functions[FuncId::from_u32(0)];
    let inst = func.layout.first_inst(func.entry_block().unwrap()).unwrap();
    if let kildall_ir::InstructionData::Call { callee, .. } = &mut func.dfg[inst] {
        *callee = kildall_ir::Callee::Function(FuncId::from_u32(5));
    }
    let err = verify_module(&module).unwrap_err();
    assert_eq!(
        err.kind,
        VerifierErrorKind::UnknownCallee(FuncId::from_u32(5))
    );
    assert_eq!(
        err.to_string(),
        "3:5: in function `main` (f0): inst0: call to f5, which is not in the module"
    );
}

/// Blocks in [`split_function`]'s chain: with 20 instructions each, about
/// 70,000 instructions, which the verifier walks in several ranges of
/// blocks on several threads (a range holds 16,384 instructions or more).
const CHAIN_BLOCKS: usize = 3_300;

/// A function `main` of a long chain of blocks, each adding to its
/// parameter, where `extra(i)` gives lines to put at the start of block
/// `i` (from 1); the entry allocates two cells, `v1` and `v2`. Gives the
/// text and, for each block, the line its extra lines start at.
fn split_function(extra: impl Fn(usize) -> Vec<String>) -> (String, Vec<u32>) {
    let mut text = String::from(
        "fn main f0 {\n  b0(v0: u32):\n    v1 = allocate -> &mut u32\n    \
         v2 = allocate -> &mut u32\n    jmp b1(v0)\n",
    );
    let mut lines = vec![0];
    let mut line = 6;
    let mut v = 10;
    for i in 1..=CHAIN_BLOCKS {
        text.push_str(&format!("  b{i}(v{v}: u32):\n"));
        lines.push(line + 1);
        let mut last = v;
        for extra_line in extra(i) {
            text.push_str(&format!("    {extra_line}\n"));
            line += 1;
        }
        for _ in 0..20 {
            text.push_str(&format!("    v{} = add v{last}, u32 1\n", last + 1));
            last += 1;
        }
        text.push_str(&format!("    jmp b{}(v{last})\n", i + 1));
        line += 22;
        v = last + 1;
    }
    text.push_str(&format!(
        "  b{}(v{v}: u32):\n    return v{v}\n}}\n",
        CHAIN_BLOCKS + 1
    ));
    (text, lines)
}

/// The verification of `text` on one thread, checked to be the same on
/// two and three.
fn verify_on_threads(text: &str) -> Result<(), kildall_ir::VerifierError> {
    let module = parse_module(text).unwrap();
    let one = verify_module_on(&module, 1);
    for threads in [2, 3] {
        assert_eq!(verify_module_on(&module, threads), one, "{threads} threads");
    }
    one
}

#[test]
fn a_large_function_verifies_on_any_number_of_threads() {
    let (text, _) = split_function(|_| Vec::new());
    verify_on_threads(&text).unwrap();
}

#[test]
fn a_large_function_reports_its_first_error_on_any_number_of_threads() {
    let (early, late) = (40, CHAIN_BLOCKS - 40);
    // An operand of the wrong type early, a use of a later value late.
    let bad = |i: usize| match i {
        _ if i == early => vec!["v3 = add v0, Field 1".to_string()],
        _ if i == late => vec!["v4 = add v5, u32 1".into(), "v5 = add v0, u32 1".into()],
        _ => Vec::new(),
    };
    let (text, lines) = split_function(bad);
    let err = verify_on_threads(&text).unwrap_err();
    assert_eq!(err.loc.line, lines[early], "{err}");
    assert!(
        matches!(err.kind, VerifierErrorKind::OperandType { .. }),
        "{err}"
    );
    // Alone, the late error is the one reported.
    let (text, lines) = split_function(|i| if i == early { Vec::new() } else { bad(i) });
    let err = verify_on_threads(&text).unwrap_err();
    assert_eq!(err.loc.line, lines[late], "{err}");
    assert_eq!(
        err.kind,
        VerifierErrorKind::NotDominated(Value::from_u32(5))
    );
}

#[test]
fn loads_of_a_large_function_are_judged_on_the_whole_function() {
    let (early, late) = (40, CHAIN_BLOCKS - 40);
    // `v1` is loaded early and written late, in another range: accepted.
    let written_late = |i: usize| match i {
        _ if i == early => vec!["v3 = load v1 -> u32".to_string()],
        _ if i == late => vec!["store u32 7 at v1".into()],
        _ => Vec::new(),
    };
    let (text, _) = split_function(written_late);
    verify_on_threads(&text).unwrap();
    // `v2`, loaded in the middle, is written nowhere: refused.
    let middle = CHAIN_BLOCKS / 2;
    let (text, lines) = split_function(|i| match i {
        _ if i == middle => vec!["v4 = load v2 -> u32".to_string()],
        _ => written_late(i),
    });
    let err = verify_on_threads(&text).unwrap_err();
    assert_eq!(err.loc.line, lines[middle], "{err}");
    assert_eq!(
        err.kind,
        VerifierErrorKind::LoadOfUnwrittenCell(Value::from_u32(2))
    );
    assert!(err
        .to_string()
        .ends_with(": load from v2, a cell nothing has stored to"));
}

#[test]
fn the_first_refused_load_of_a_large_function_is_reported() {
    let (early, late) = (40, CHAIN_BLOCKS - 40);
    // A load ahead of the store in its cell's block, refused whatever the
    // other blocks do.
    let fresh = || {
        [
            "v6 = allocate -> &mut u32",
            "v7 = load v6 -> u32",
            "store u32 1 at v6",
        ]
        .map(String::from)
        .to_vec()
    };
    let unwritten = || vec!["v4 = load v2 -> u32".to_string()];
    for (first, second) in [(fresh(), unwritten()), (unwritten(), fresh())] {
        let (text, lines) = split_function(|i| match i {
            _ if i == early => first.clone(),
            _ if i == late => second.clone(),
            _ => Vec::new(),
        });
        let err = verify_on_threads(&text).unwrap_err();
        let load_line = lines[early] + u32::from(first.len() == 3);
        assert_eq!(err.loc.line, load_line, "{err}");
        assert!(
            matches!(err.kind, VerifierErrorKind::LoadOfUnwrittenCell(_)),
            "{err}"
        );
    }
}
