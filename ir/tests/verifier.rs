//! Verifier tests: one case per error kind in `data/verifier_errors.txt`
//! (blessable with `UPDATE_EXPECT=1`), plus errors only the API can build.

use std::path::Path;

use kildall_harness::testing::check_cases;
use kildall_ir::{
    parse_module, verify_function, verify_module, FuncCursor, FuncId, Function, Location,
    Terminator, Type, VerifierErrorKind,
};

#[test]
fn verifier_errors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verifier_errors.txt");
    check_cases(&path, |input| {
        let module = match parse_module(input) {
            Ok(module) => module,
            Err(e) => return format!("parse error: {e}"),
        };
        match verify_module(&module) {
            Ok(()) => "ok".into(),
            Err(e) => e.to_string(),
        }
    });
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
