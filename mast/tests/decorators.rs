//! Decorators across versions: a 0.10 forest's decorators go into the
//! debug-info section of the 0.23 file it converts to and come back; what a
//! version cannot express is a typed error; sections with decorators that do
//! not fit their forest are refused with the offset of their table.

use kildall_mast::wire::{self, Flags, Format};
use kildall_mast::{
    AdviceInjector, DecodeOptions, Decorator, Felt, Isa, MastForest, MastForestBuilder, Operation,
};

const FULL: Flags = Flags {
    stripped: false,
    hashless: false,
};

/// Blocks whose padded form differs from their operations (a `push` closing
/// a group, eight pushes over two batches), decorated before operations, at
/// equal indices, and after the last operation.
fn decorated(isa: Isa, extra: Decorator) -> MastForest {
    let mut b = MastForestBuilder::new_in(isa);
    let mut ops = vec![Operation::Add; 8];
    ops.push(Operation::Push(Felt::new(7).unwrap()));
    ops.extend([Operation::Mul, Operation::Drop]);
    let n = ops.len() as u32;
    let first = b
        .add_block(
            ops,
            vec![
                (0, Decorator::StackAll),
                (0, Decorator::Trace(3)),
                (8, Decorator::StackTop(4)),
                (9, Decorator::MemInterval(1, 9)),
                (n, Decorator::LocalInterval(1, 2, 3)),
                (n, extra),
            ],
        )
        .unwrap();
    let plain = b.add_block(vec![Operation::Swap], vec![]).unwrap();
    let pushes = vec![Operation::Push(Felt::ONE); 8];
    let second = b
        .add_block(
            pushes,
            vec![(7, Decorator::MemAll), (7, Decorator::StackAll)],
        )
        .unwrap();
    let join = b.add_join(first, plain).unwrap();
    let root = b.add_join(join, second).unwrap();
    b.add_root(root).unwrap();
    b.add_root(plain).unwrap();
    b.build()
}

#[test]
fn decorators_of_0_10_go_into_0_23_debug_info_and_back() {
    let old = decorated(Isa::V0_10, Decorator::Trace(9));
    let new = wire::convert(&old, Isa::V0_23).unwrap();
    let bytes = wire::write(&new, None, Format::V0_23, FULL).unwrap();
    let read = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
    let info = read.forest.debug_info().expect("a debug-info section");
    assert_eq!(info.asm_op_count(), 0);
    for (a, b) in read.forest.nodes().iter().zip(new.nodes()) {
        assert_eq!(a, b, "decorators lifted back onto their operations");
    }
    // The file read is written back byte for byte, and so is the forest
    // built again from its decorators.
    assert_eq!(
        wire::write(&read.forest, None, Format::V0_23, FULL).unwrap(),
        bytes
    );
    let back = wire::convert(&read.forest, Isa::V0_10).unwrap();
    assert_eq!(back, old);
    assert_eq!(wire::convert(&back, Isa::V0_23).unwrap(), new);
    let old_bytes = wire::write(&old, None, Format::V0_10, Flags::default()).unwrap();
    assert_eq!(
        wire::write(&back, None, Format::V0_10, Flags::default()).unwrap(),
        old_bytes
    );
}

#[test]
fn stripping_drops_the_decorators_only_when_asked() {
    let new = wire::convert(&decorated(Isa::V0_10, Decorator::Trace(9)), Isa::V0_23).unwrap();
    let stripped = Flags {
        stripped: true,
        hashless: false,
    };
    let bytes = wire::write(&new, None, Format::V0_23, stripped).unwrap();
    let read = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
    assert!(read.forest.debug_info().is_none());
    let e = wire::write(&new, None, Format::V0_24, FULL).unwrap_err();
    assert!(e.to_string().contains("decorators"), "{e}");
    wire::write(&new, None, Format::V0_24, stripped).unwrap();
}

#[test]
fn the_advice_stack_option_exists_only_from_0_23() {
    let new = decorated(Isa::V0_23, Decorator::AdvStackTop(5));
    let bytes = wire::write(&new, None, Format::V0_23, FULL).unwrap();
    let read = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
    assert_eq!(read.forest.nodes(), new.nodes());
    let e = wire::convert(&new, Isa::V0_10).unwrap_err();
    assert!(e.to_string().contains("advice-stack"), "{e}");
}

#[test]
fn decorators_0_23_lacks_are_typed_errors() {
    let mut b = MastForestBuilder::new();
    let name = b.intern("proc");
    let asm = kildall_mast::AsmOp {
        location: None,
        context_name: name,
        op: name,
        num_cycles: 1,
        should_break: false,
    };
    let breaks = kildall_mast::AsmOp {
        should_break: true,
        ..asm
    };
    for (d, at, what) in [
        (
            Decorator::Advice(AdviceInjector::U64Div),
            0,
            "advice injector",
        ),
        (Decorator::Event(3), 0, "event"),
        (Decorator::AsmOp(asm), 1, "after the last operation"),
        (Decorator::AsmOp(breaks), 0, "breaks"),
    ] {
        let mut b = b.clone();
        let block = b.add_block(vec![Operation::Add], vec![(at, d)]).unwrap();
        b.add_root(block).unwrap();
        let e = wire::convert(&b.build(), Isa::V0_23).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
}

/// Where a file written from `decorated` has its debug-info section, its
/// first decorator record and its operation→decorator table: after the
/// decorator data (a one-byte length and the fields), the empty string
/// table, the records (a one-byte count) and the empty error codes.
fn section_layout(bytes: &[u8], forest: &MastForest) -> (usize, usize) {
    let stripped = Flags {
        stripped: true,
        hashless: false,
    };
    let section = wire::write(forest, None, Format::V0_23, stripped)
        .unwrap()
        .len();
    let data_len = (bytes[section] >> 1) as usize;
    let records_at = section + 1 + data_len + 2;
    let records = (bytes[records_at] >> 1) as usize;
    (records_at + 1, records_at + 1 + 5 * records + 1)
}

#[test]
fn decorator_tables_that_do_not_fit_are_refused() {
    let new = wire::convert(&decorated(Isa::V0_10, Decorator::Trace(9)), Isa::V0_23).unwrap();
    let bytes = wire::write(&new, None, Format::V0_23, FULL).unwrap();
    let (first_record, table) = section_layout(&bytes, &new);
    // The first decorator id names a decorator that does not exist.
    let mut b = bytes.clone();
    b[table + 1] = 0xff;
    let e = wire::read(&b, DecodeOptions::TRUST).unwrap_err();
    assert_eq!(e.offset, table + 1, "{e}");
    assert!(e.to_string().contains("decorator id"), "{e}");
    // An unknown decorator variant.
    let mut b = bytes.clone();
    b[first_record] = 7;
    let e = wire::read(&b, DecodeOptions::TRUST).unwrap_err();
    assert_eq!(e.offset, first_record, "{e}");
    // Truncated anywhere in the section: an error, never a panic.
    for end in first_record..bytes.len() {
        assert!(wire::read(&bytes[..end], DecodeOptions::TRUST).is_err());
    }
}

/// A 0.10 `AssemblyOp` with a source location round-trips through the 0.10
/// format and the text form; the draft format has no locations.
#[test]
fn assembly_op_locations_in_0_10() {
    let mut b = MastForestBuilder::new();
    let located = kildall_mast::AsmOp {
        location: Some(b.location("lib/math, \"u64\".masm", 120, 131)),
        context_name: b.intern("math::u64::add"),
        op: b.intern("u32overflowing_add"),
        num_cycles: 3,
        should_break: true,
    };
    let plain = kildall_mast::AsmOp {
        location: None,
        ..located
    };
    let ops = vec![Operation::Add, Operation::Mul];
    let decorators = vec![(0, Decorator::AsmOp(plain)), (1, Decorator::AsmOp(located))];
    let block = b.add_block(ops, decorators).unwrap();
    b.add_root(block).unwrap();
    let forest = b.build();
    let bytes = wire::write(&forest, None, Format::V0_10, Flags::default()).unwrap();
    let read = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
    assert_eq!(read.format, Format::V0_10);
    // Strings are interned in the file's order: compared through the text.
    assert_eq!(read.forest.to_string(), forest.to_string());
    assert_eq!(
        wire::write(&read.forest, None, Format::V0_10, Flags::default()).unwrap(),
        bytes
    );
    let text = forest.to_string();
    assert!(
        text.contains(r#""lib/math, \"u64\".masm"[120..131], 3, break"#),
        "{text}"
    );
    assert_eq!(kildall_mast::parse(&text).unwrap().to_string(), text);
    let e = wire::write(&forest, None, Format::Draft, Flags::default()).unwrap_err();
    assert!(e.to_string().contains("node 0"), "{e}");
}

/// A debug variable and the table that places it, in place of the empty
/// ones that end a section: `x` at stack position 2, of type 7, the first
/// argument, declared at `a.masm:3:4`, attached to operation 0 of node 0.
fn with_a_debug_variable(section_end: &[u8], argument: u8, id: u8) -> Vec<u8> {
    let mut b = section_end[..section_end.len() - 4].to_vec();
    b.extend([3, 3, b'x', 0, 2, 1, 7, 0, 0, 0, 1, argument, 0, 0, 0, 1, 13]);
    b.extend(b"a.masm");
    b.extend([3, 0, 0, 0, 4, 0, 0, 0]);
    b.extend([3, id, 0, 0, 0, 5, 1, 3, 5, 1, 3]);
    b
}

#[test]
fn debug_variables_are_checked_and_kept() {
    let mut b = MastForestBuilder::new_in(Isa::V0_23);
    let block = b.add_block(vec![Operation::Add], vec![]).unwrap();
    b.add_root(block).unwrap();
    let bytes = wire::write(&b.build(), None, Format::V0_23, FULL).unwrap();
    let with_var = with_a_debug_variable(&bytes, 1, 0);
    let read = wire::read(&with_var, DecodeOptions::VERIFY).unwrap();
    let info = read.forest.debug_info().expect("debug info");
    assert_eq!(info.debug_variable_count(), 1);
    let one = std::num::NonZeroU32::MIN;
    let expected = kildall_mast::DebugVariable {
        name: "x".into(),
        location: kildall_mast::VariableLocation::Stack(2),
        type_id: Some(7),
        argument: Some(one),
        source: Some(kildall_mast::SourcePosition {
            file: "a.masm".into(),
            line: one.saturating_add(2),
            column: one.saturating_add(3),
        }),
    };
    assert_eq!(info.debug_variables(), [expected]);
    assert_eq!(
        wire::write(&read.forest, None, Format::V0_23, FULL).unwrap(),
        with_var
    );
    let e = wire::convert(&read.forest, Isa::V0_10).unwrap_err();
    assert!(
        e.to_string().contains("debug variables (the first: `x`)"),
        "{e}"
    );
    // Argument index 0 and an id past the variables are refused.
    let arg_at = bytes.len() - 4 + 11;
    let e = wire::read(&with_a_debug_variable(&bytes, 0, 0), DecodeOptions::TRUST).unwrap_err();
    assert_eq!(e.offset, arg_at, "{e}");
    let id_at = with_var.len() - 10;
    let e = wire::read(&with_a_debug_variable(&bytes, 1, 1), DecodeOptions::TRUST).unwrap_err();
    assert_eq!(e.offset, id_at, "{e}");
    for end in bytes.len() - 4..with_var.len() {
        assert!(wire::read(&with_var[..end], DecodeOptions::TRUST).is_err());
    }
}

/// miden-core does not require a node pointer per node: nodes past the
/// table's node pointers have no decorators.
#[test]
fn node_pointers_may_stop_before_the_last_node() {
    let new = wire::convert(&decorated(Isa::V0_10, Decorator::Trace(9)), Isa::V0_23).unwrap();
    let bytes = wire::write(&new, None, Format::V0_23, FULL).unwrap();
    // The section ends with the six node pointers (one byte each, after
    // their count) and fifteen empty vectors; the last two nodes, a join and
    // the root, have no decorators.
    let count_at = bytes.len() - 15 - 7;
    assert_eq!(bytes[count_at], 6 << 1 | 1);
    let mut short = bytes[..count_at].to_vec();
    short.push(4 << 1 | 1);
    short.extend_from_slice(&bytes[count_at + 1..count_at + 5]);
    short.extend_from_slice(&bytes[bytes.len() - 15..]);
    let read = wire::read(&short, DecodeOptions::VERIFY).unwrap();
    assert_eq!(read.forest.nodes(), new.nodes());
    assert_eq!(
        wire::write(&read.forest, None, Format::V0_23, FULL).unwrap(),
        short
    );
}

/// 0.10 `AssemblyOp` decorators go into the assembly-op tables of 0.23 and
/// come back, after the other decorators of their operation; two at one
/// operation are a typed error.
#[test]
fn assembly_ops_go_into_0_23_tables_and_back() {
    let mut b = MastForestBuilder::new();
    let asm = |b: &mut MastForestBuilder, op: &str, location| kildall_mast::AsmOp {
        location,
        context_name: b.intern("lib::proc"),
        op: b.intern(op),
        num_cycles: 2,
        should_break: false,
    };
    let here = Some(b.location("lib.masm", 4, 9));
    let (first, second) = (asm(&mut b, "add", here), asm(&mut b, "mul.2", None));
    let mut ops = vec![Operation::Add; 8];
    ops.push(Operation::Push(Felt::new(7).unwrap()));
    ops.extend([Operation::Mul, Operation::Drop]);
    let decorators = vec![
        (0, Decorator::StackAll),
        (0, Decorator::AsmOp(first)),
        (9, Decorator::Trace(1)),
        (9, Decorator::AsmOp(second)),
        (10, Decorator::AsmOp(first)),
    ];
    let block = b.add_block(ops, decorators).unwrap();
    let plain = b.add_block(vec![Operation::Swap], vec![]).unwrap();
    let root = b.add_join(block, plain).unwrap();
    b.add_root(root).unwrap();
    let old = b.build();
    let new = wire::convert(&old, Isa::V0_23).unwrap();
    let bytes = wire::write(&new, None, Format::V0_23, FULL).unwrap();
    let read = wire::read(&bytes, DecodeOptions::VERIFY).unwrap();
    assert_eq!(read.forest.debug_info().unwrap().asm_op_count(), 2);
    assert_eq!(
        wire::write(&read.forest, None, Format::V0_23, FULL).unwrap(),
        bytes
    );
    let back = wire::convert(&read.forest, Isa::V0_10).unwrap();
    let old_bytes = wire::write(&old, None, Format::V0_10, Flags::default()).unwrap();
    assert_eq!(
        wire::write(&back, None, Format::V0_10, Flags::default()).unwrap(),
        old_bytes
    );

    let mut b = MastForestBuilder::new();
    let a = asm(&mut b, "add", None);
    let twice = vec![(0, Decorator::AsmOp(a)), (0, Decorator::AsmOp(a))];
    let block = b.add_block(vec![Operation::Add], twice).unwrap();
    b.add_root(block).unwrap();
    let e = wire::convert(&b.build(), Isa::V0_23).unwrap_err();
    assert!(e.to_string().contains("two AsmOps"), "{e}");

    let mut b = MastForestBuilder::new();
    let a = asm(&mut b, "add", None);
    let before = vec![(0, Decorator::AsmOp(a)), (0, Decorator::Trace(2))];
    let block = b.add_block(vec![Operation::Add], before).unwrap();
    b.add_root(block).unwrap();
    let e = wire::convert(&b.build(), Isa::V0_23).unwrap_err();
    assert!(e.to_string().contains("before another decorator"), "{e}");
}

/// The core library's assembly ops are checked when decoded and read into
/// its debug info, 5,767 records at 75,714 operations (a conversion to 0.10
/// puts those of blocks on them): its blocks have no decorators in memory.
#[test]
fn core_library_assembly_ops_stay_in_the_debug_info() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/core-0.23.5.mast");
    let file = wire::read(&std::fs::read(path).unwrap(), DecodeOptions::TRUST).unwrap();
    let info = file.forest.debug_info().unwrap();
    assert_eq!(info.asm_op_count(), 5767);
    assert_eq!(info.asm_op_placements().len(), 75_714);
    let decorated = file
        .forest
        .nodes()
        .iter()
        .any(|n| matches!(n, kildall_mast::MastNode::Block(b) if !b.decorators().is_empty()));
    assert!(!decorated);
}
