//! What a miden-core 0.23 debug-info section holds beyond its blocks'
//! operation decorators: node decorators (`before_enter`, `after_exit`),
//! error-code messages and procedure names. Each is read into the forest
//! and the file rewritten byte for byte; a conversion carries a block's
//! node decorators as decorators of its first operation and of its end,
//! and refuses the rest with a typed error naming it; malformed node
//! tables are refused with their offset.

use kildall_mast::wire::{self, Flags, Format};
use kildall_mast::{
    DecodeOptions, Decorator, Digest, Isa, MastForest, MastForestBuilder, MastNodeId,
    NodeDecorators, Operation,
};

const FULL: Flags = Flags {
    stripped: false,
    hashless: false,
};
const STRIPPED: Flags = Flags {
    stripped: true,
    hashless: false,
};

/// Two blocks under a join (nodes 0, 1 and 2).
fn forest() -> MastForest {
    let mut b = MastForestBuilder::new_in(Isa::V0_23);
    let add = b.add_block(vec![Operation::Add], vec![]).unwrap();
    let mul = b.add_block(vec![Operation::Mul; 2], vec![]).unwrap();
    let join = b.add_join(add, mul).unwrap();
    b.add_root(join).unwrap();
    b.build()
}

/// A `usize` below 128 as miden-core writes it (a `vint64`).
fn vint(v: usize) -> u8 {
    assert!(v < 128);
    (v << 1 | 1) as u8
}

fn string(s: &str) -> Vec<u8> {
    let mut out = vec![vint(s.len())];
    out.extend(s.as_bytes());
    out
}

/// A node→decorator table: one row per node up to the last listed.
fn node_table(rows: &[&[u32]]) -> Vec<u8> {
    let ids: Vec<u32> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    let mut out = vec![vint(ids.len())];
    ids.iter().for_each(|id| out.extend(id.to_le_bytes()));
    if rows.is_empty() {
        out.push(vint(0));
        return out;
    }
    out.push(vint(rows.len() + 1));
    let mut end = 0;
    out.push(vint(0));
    for r in rows {
        end += r.len();
        out.push(vint(end));
    }
    out
}

/// What the section holds besides empty operation, assembly-op and
/// debug-variable tables: decorators 0 `StackAll` and 1 `Trace(7)`.
#[derive(Default)]
struct Section<'a> {
    messages: &'a [(u64, &'a str)],
    before_enter: &'a [&'a [u32]],
    after_exit: &'a [&'a [u32]],
    names: &'a [(Digest, &'a str)],
    /// An assembly op (`exec.f`) on node 2, the join.
    join_asm_op: bool,
}

impl Section<'_> {
    fn bytes(&self) -> Vec<u8> {
        // Decorator data (Trace's field), empty string table, two records.
        let mut out = vec![vint(4), 7, 0, 0, 0, vint(0), vint(0), vint(2)];
        out.extend([0, 0, 0, 0, 0, 6, 0, 0, 0, 0]);
        out.push(vint(self.messages.len()));
        for (code, message) in self.messages {
            out.extend(code.to_le_bytes());
            out.extend(string(message));
        }
        // The operation table: no ids, no operation pointers, 4 zero node
        // pointers.
        out.extend([vint(0), vint(0), vint(4), 1, 1, 1, 1]);
        out.extend(node_table(self.before_enter));
        out.extend(node_table(self.after_exit));
        out.push(vint(self.names.len()));
        for (digest, name) in self.names {
            out.extend(digest.to_bytes());
            out.extend(string(name));
        }
        if self.join_asm_op {
            // One record: 1 cycle, no location, strings 0 and 1.
            out.extend([vint(4), 1, 0, vint(0), vint(1)]);
            out.extend([vint(2), vint(0), vint(4), vint(11)]);
            out.extend(string("ctx").into_iter().chain(string("exec.f")));
            out.extend([vint(1), 0, 0, 0, 0]);
            // The entry (operation 0, record 0) in node 2's row.
            out.extend([vint(1), vint(0), 0, 0, 0, 0]);
            out.extend([vint(4), vint(0), vint(0), vint(0), vint(1)]);
        } else {
            out.extend([vint(0); 6]);
        }
        // Debug variables: empty tables.
        out.extend([vint(0); 4]);
        out
    }

    /// The forest as miden-core 0.23 writes it with this section.
    fn file(&self) -> Vec<u8> {
        let mut bytes = wire::write(&forest(), None, Format::V0_23, STRIPPED).unwrap();
        bytes[4] = 0;
        bytes.extend(self.bytes());
        bytes
    }
}

/// Reads `bytes` with every digest verified and checks that the forest is
/// written back as them.
fn read(bytes: &[u8]) -> MastForest {
    let file = wire::read(bytes, DecodeOptions::VERIFY).unwrap();
    let again = wire::write(&file.forest, None, Format::V0_23, FULL).unwrap();
    assert!(again == bytes, "rewritten bytes differ");
    file.forest
}

fn id(i: u32) -> MastNodeId {
    forest().node_id(i as usize).unwrap()
}

#[test]
fn node_decorators_of_blocks_convert() {
    let section = Section {
        before_enter: &[&[1]],
        after_exit: &[&[], &[0, 1]],
        ..Section::default()
    };
    let forest = read(&section.file());
    let info = forest.debug_info().expect("debug info");
    let expected = [
        NodeDecorators {
            node: id(0),
            before_enter: vec![Decorator::Trace(7)],
            after_exit: vec![],
        },
        NodeDecorators {
            node: id(1),
            before_enter: vec![],
            after_exit: vec![Decorator::StackAll, Decorator::Trace(7)],
        },
    ];
    assert_eq!(info.node_decorators(), expected);
    assert_eq!(info.node_decorator_count(), 3);
    for isa in [Isa::V0_10, Isa::V1_0] {
        let converted = wire::convert(&forest, isa).unwrap();
        let decorators = |i: usize| match &converted.nodes()[i] {
            kildall_mast::MastNode::Block(b) => b.decorators().to_vec(),
            _ => unreachable!("nodes 0 and 1 are blocks"),
        };
        assert_eq!(decorators(0), [(0, Decorator::Trace(7))], "{isa}");
        let end = [(2, Decorator::StackAll), (2, Decorator::Trace(7))];
        assert_eq!(decorators(1), end, "{isa}");
    }
    // In 0.10 they are the blocks' own, and come back so.
    let old = wire::convert(&forest, Isa::V0_10).unwrap();
    let bytes = wire::write(&old, None, Format::V0_10, Flags::default()).unwrap();
    assert_eq!(
        wire::read(&bytes, DecodeOptions::VERIFY).unwrap().forest,
        old
    );
}

#[test]
fn what_only_0_23_has_is_a_typed_error() {
    let digest = forest().digest(id(2));
    let cases: [(Section<'_>, &str); 4] = [
        (
            Section {
                before_enter: &[&[], &[], &[0]],
                ..Section::default()
            },
            "node 2 (join): node decorators",
        ),
        (
            Section {
                messages: &[(5, "boom"), (9, "bang")],
                ..Section::default()
            },
            "the message of error code 5 (\"boom\")",
        ),
        (
            Section {
                names: &[(digest, "::lib::main")],
                ..Section::default()
            },
            "procedure",
        ),
        (
            Section {
                join_asm_op: true,
                ..Section::default()
            },
            "node 2 (join): the assembly op `exec.f`",
        ),
    ];
    for (section, what) in cases {
        let forest = read(&section.file());
        for isa in [Isa::V0_10, Isa::V1_0] {
            let e = wire::convert(&forest, isa).unwrap_err().to_string();
            assert!(e.contains(what) && e.ends_with("(strip it)"), "{e}");
        }
    }
    let forest = read(
        &Section {
            messages: &[(5, "boom")],
            names: &[(digest, "::lib::main")],
            ..Section::default()
        }
        .file(),
    );
    let info = forest.debug_info().unwrap();
    assert_eq!(info.error_messages(), [(5, "boom".to_string())]);
    assert_eq!(
        info.procedure_names(),
        [(digest, "::lib::main".to_string())]
    );
}

/// miden-core's checks of a node table: decorator ids in range, row
/// pointers from 0 to the number of ids, non-decreasing; and rows only for
/// nodes of the forest.
#[test]
fn malformed_node_tables() {
    let good = Section::default().file();
    let tables_at = good.len() - 10 - 1 - 2 * 2;
    let cases: [(&[&[u32]], usize, &str); 3] = [
        (&[&[2]], tables_at + 1, "node decorator id"),
        (
            &[&[], &[], &[], &[0]],
            tables_at,
            "node decorators of a node that does not exist",
        ),
        (&[&[0]], 0, "node decorator index"),
    ];
    for (i, (rows, at, what)) in cases.into_iter().enumerate() {
        let mut bytes = Section {
            before_enter: rows,
            ..Section::default()
        }
        .file();
        if i == 2 {
            // Row pointers 1, 1: not from 0.
            let ptrs_at = tables_at + 1 + 4 + 1;
            bytes[ptrs_at] = vint(1);
        }
        let e = wire::read(&bytes, DecodeOptions::TRUST).unwrap_err();
        assert_eq!(e.kind, kildall_mast::DecodeErrorKind::Invalid(what), "{e}");
        if at != 0 {
            assert_eq!(e.offset, at, "{e}");
        }
    }
}
