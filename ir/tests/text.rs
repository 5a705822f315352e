//! Text format tests: round trips over a corpus covering every instruction
//! and type (printed forms blessed in `data/roundtrip/*.out`), the
//! programs of `examples/ir`, and one case per parse error kind.

use std::path::{Path, PathBuf};

use kildall_harness::testing::{check_cases, check_each, check_file, data_files};
use kildall_ir::{
    parse_module, parse_module_from_reader, verify_module, ConstValue, FuncId, InstructionData,
    ParseErrorKind, ReadError, Type, Value, ValueDef,
};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Parses, verifies and prints `path`; checks the printed form against
/// `expected`, that it is a fixed point, and that it is canonical (parsing
/// and printing it again gives it back byte for byte).
fn round_trip(path: &Path, expected: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let module = parse_module(&text).map_err(|e| format!("{e}"))?;
    verify_module(&module).map_err(|e| format!("{e}"))?;
    let printed = module.to_string();
    let functions: Vec<String> = module
        .functions
        .iter()
        .map(|(id, func)| func.display(id).to_string())
        .collect();
    if module.display_with(&functions).to_string() != printed {
        return Err("printed function by function, the module is not the same".into());
    }
    if read_in_pieces(&text) != format!("ok\n{printed}") {
        return Err("read a function at a time, the module is not the same".into());
    }
    let reparsed = parse_module(&printed).map_err(|e| format!("reparse: {e}"))?;
    verify_module(&reparsed).map_err(|e| format!("the printed form does not verify: {e}"))?;
    if reparsed.to_string() != printed {
        return Err("the printed form is not a fixed point".into());
    }
    check_file(expected, &printed).map_err(|e| format!("{}: {e}", expected.display()))
}

#[test]
fn corpus_round_trips() {
    let files = data_files(&data_dir().join("roundtrip"), "ssa");
    check_each(&files, |path| round_trip(path, &path.with_extension("out")));
}

#[test]
fn examples_round_trip() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ir");
    let out_dir = data_dir().join("examples");
    check_each(&data_files(&examples, "ssa"), |path| {
        let name = path.file_name().expect("file name");
        round_trip(path, &out_dir.join(name).with_extension("out"))
    });
}

/// The blessed printed forms are canonical: printing their parse gives them
/// back unchanged.
#[test]
fn canonical_text_is_identity() {
    for dir in ["roundtrip", "examples"] {
        check_each(&data_files(&data_dir().join(dir), "out"), |path| {
            let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            let module = parse_module(&text).map_err(|e| format!("{e}"))?;
            if module.to_string() != text {
                return Err("printing the parse changes the text".into());
            }
            Ok(())
        });
    }
}

/// The module [`parse_module_from_reader`] reads from `text`, printed, or
/// its error.
fn read_in_pieces(text: &str) -> String {
    match parse_module_from_reader(text.as_bytes()) {
        Ok(module) => format!("ok\n{module}"),
        Err(e) => e.to_string(),
    }
}

/// What [`parse_module`] gives for `text`, printed as [`read_in_pieces`]
/// prints it.
fn parse_whole(text: &str) -> String {
    match parse_module(text) {
        Ok(module) => format!("ok\n{module}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parse_errors() {
    check_cases(&data_dir().join("parse_errors.txt"), |input| {
        let whole = parse_whole(input);
        let read = read_in_pieces(input);
        if read == whole {
            whole
        } else {
            format!("{whole}\nread a function at a time: {read}")
        }
    });
}

/// Read a function at a time, a module's errors keep their place in the
/// whole text, and bytes that are not UTF-8 are named by their offset.
#[test]
fn reading_in_pieces_keeps_positions() {
    let text = "g0 = u32 1\nfn main f0 {\n  b0():\n    return g0\n}\n// }\n\
                fn f f1 { b0(): constrain u1 1 == u1 1, \"{ } //\"\n return }\n\
                fn g f2 {\n  b0():\n    v0 = frobnicate\n}\n";
    let e = parse_module(text).err().expect("an unknown instruction");
    assert_eq!((e.loc.line, e.loc.col), (11, 10), "{e}");
    assert_eq!(read_in_pieces(text), e.to_string());
    let valid = &text[..text.find("fn g").expect("third function")];
    assert_eq!(read_in_pieces(valid), parse_whole(valid));
    assert!(read_in_pieces(valid).starts_with("ok\n"));
    let mut bytes = valid.as_bytes().to_vec();
    bytes.extend_from_slice(b"fn h f3 { b0(): return }\n// \xff\n");
    let e = parse_module_from_reader(bytes.as_slice())
        .err()
        .expect("not UTF-8");
    assert!(
        matches!(e, ReadError::NotUtf8(n) if n == bytes.len() as u64 - 2),
        "{e}"
    );
}

#[test]
fn every_parse_error_kind_is_covered() {
    // One witness per kind; the messages are checked in `parse_errors.txt`.
    let witnesses = [
        "fn main f0 { b0(): return } #",
        "fn main f0 { b0(): constrain u1 1 == u1 1, \"open",
        "fn main f0 { b0(): return; }",
        "fn main f0 { b0(v0: [Field; 99999999999]): return }",
        "fn main f0 { b0(v0: u129): return }",
        "fn main f0 { b0(v0: Fieldd): return }",
        "fn main f0 { b0(): return noisy 1 }",
        "fn main f0 { b0(): return u8 21888242871839275222246405745257275088548364400416034343698204186575808495617 }",
        "fn main f0 { b0(): v0 = frobnicate }",
        "fn main f0 { b0(): call f9() return }",
        "fn main f0 { b0(v0: u1, v0: u1): return }",
        "fn main f0 { b0(): return b0(): return }",
        "fn main f0 { b0(): return } fn main f0 { b0(): return }",
        "fn main f0 { b0(): v0 = store u1 1 at v1 return }",
        "fn main f0 { b0(): return v99999999 }",
        "fn main f0 { b0(): return g0 }",
        "fn main f0 { b0(): return named }",
        "fn main f0 { b0(): jmp exit() }",
    ];
    let mut kinds: Vec<String> = witnesses
        .iter()
        .map(|w| {
            let e = parse_module(w).err().expect(w);
            format!("{:?}", e.kind)
                .split(['(', ' '])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    let mut deep = String::from("fn main f0 { b0(v0: ");
    deep.push_str(&"&mut ".repeat(1000));
    deep.push_str("Field): return }");
    let e = parse_module(&deep).err().expect("deep type");
    assert_eq!(e.kind, ParseErrorKind::TypeTooDeep);
    kinds.push("TypeTooDeep".into());
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), 19, "{kinds:?}");
}

#[test]
fn numbers_are_preserved_and_calls_remapped() {
    let text = std::fs::read_to_string(data_dir().join("roundtrip/numbering.ssa")).unwrap();
    let module = parse_module(&text).unwrap();
    let main = &module.functions[FuncId::from_u32(0)];
    let helper = &module.functions[FuncId::from_u32(1)];
    assert_eq!(main.name, "main");
    let entry = main.entry_block().unwrap();
    assert_eq!(entry.as_u32(), 0);
    assert_eq!(main.dfg.block_params(entry), &[Value::from_u32(3)]);
    let order: Vec<u32> = main.layout.blocks().map(|b| b.as_u32()).collect();
    assert_eq!(order, [0, 3, 5]);
    // Skipped numbers are unused values; constants come after v41.
    assert_eq!(main.dfg.value_def(Value::from_u32(0)), ValueDef::Unused);
    for (value, _) in main.dfg.values() {
        if let ValueDef::Const(_) = main.dfg.value_def(value) {
            assert!(value.as_u32() > 41, "{value} is a constant");
        }
    }
    // Result types resolved through forward references.
    for v in [31, 32, 33, 34, 35] {
        assert_eq!(
            main.dfg.value_type(Value::from_u32(v)),
            &Type::Unsigned(64),
            "v{v}"
        );
    }
    assert_eq!(
        main.dfg.value_type(Value::from_u32(36)),
        &Type::array(Type::Unsigned(64), 2)
    );
    // `call f7` in helper is a call of f0.
    let inst = helper
        .layout
        .block_insts(helper.entry_block().unwrap())
        .next()
        .unwrap();
    match &helper.dfg[inst] {
        InstructionData::Call { callee, .. } => assert_eq!(callee.to_string(), "f0"),
        other => panic!("{other:?}"),
    }
    assert_eq!(helper.inst_locs[inst].line, 24);
    let b5 = kildall_ir::Block::from_u32(5);
    assert_eq!(main.block_locs[b5].line, 17);
    // The terminator has a position of its own, which errors at it report.
    assert_eq!(
        (main.terminator_locs[b5].line, main.terminator_locs[b5].col),
        (20, 5)
    );
    assert_eq!(main.terminator_loc(b5), main.terminator_locs[b5]);
}

#[test]
fn constants_are_reduced_to_their_representation() {
    let text =
        "fn main f0 { b0(): v0 = add Field -1, Field 0\n v1 = add i8 -128, i8 -1\n return v0, v1 }";
    let module = parse_module(text).unwrap();
    let f = &module.functions[FuncId::from_u32(0)];
    let p_minus_1 = ConstValue::parse_decimal(
        "21888242871839275222246405745257275088548364400416034343698204186575808495616",
    )
    .unwrap();
    let consts: Vec<(Type, ConstValue)> = f
        .dfg
        .values()
        .filter_map(|(v, ty)| match f.dfg.value_def(v) {
            ValueDef::Const(c) => Some((ty.clone(), c)),
            _ => None,
        })
        .collect();
    assert!(consts.contains(&(Type::Field, p_minus_1)));
    assert!(consts.contains(&(Type::Signed(8), ConstValue::from_u128(128))));
    assert!(consts.contains(&(Type::Signed(8), ConstValue::from_u128(255))));
    assert!(module.to_string().contains("add i8 -128, i8 -1"));
}

/// Mangled inputs never panic: every prefix and single-byte deletion of the
/// corpus either parses or gives an error inside the text, the same read a
/// function at a time as parsed whole.
#[test]
fn truncations_and_deletions_never_panic() {
    let text = std::fs::read_to_string(data_dir().join("roundtrip/instructions.ssa")).unwrap();
    let lines = text.lines().count() as u32 + 1;
    let check = |input: &str| {
        if let Err(e) = parse_module(input) {
            assert!(e.loc.line >= 1 && e.loc.line <= lines, "{e}");
        }
        assert_eq!(read_in_pieces(input), parse_whole(input), "{input}");
    };
    for (i, _) in text.char_indices() {
        check(&text[..i]);
        let mut deleted = String::with_capacity(text.len());
        deleted.push_str(&text[..i]);
        deleted.push_str(&text[i + 1..]);
        check(&deleted);
    }
}

/// Integer constants outside their type parse as Noir's parser reads them
/// (the field element written: `u8 -1` is p - 1), print back to a fixed
/// point, and the verifier refuses them, naming the type.
#[test]
fn constants_beyond_their_range_parse_and_are_refused() {
    let text = "fn main f0 {
  b0():
    v0 = add u8 300, u8 -1
    v1 = add i8 200, i8 -200
    return v0, v1
}
";
    let module = parse_module(text).expect("Noir's parser accepts these constants");
    let printed = module.to_string();
    let p_minus_1 = "21888242871839275222246405745257275088548364400416034343698204186575808495616";
    assert!(
        printed.contains("add u8 300, u8 ") && printed.contains(p_minus_1),
        "{printed}"
    );
    // `i8 200` is the i8 whose bits are 200.
    assert!(printed.contains("add i8 -56, i8 "), "{printed}");
    let reparsed = parse_module(&printed).expect("the printed form parses");
    assert_eq!(reparsed.to_string(), printed);
    let error = verify_module(&module).expect_err("u8 300 does not fit");
    assert!(
        matches!(&error.kind, kildall_ir::VerifierErrorKind::ConstantOutOfRange { ty, .. }
            if *ty == Type::Unsigned(8)),
        "{error}"
    );
}
