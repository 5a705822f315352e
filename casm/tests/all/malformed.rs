//! Malformed `.jvr` files: each one is rejected with `line:col` and a
//! message, never a panic. Expectations live in `data/malformed.expect`
//! (`UPDATE_EXPECT=1` rewrites it).

use std::path::Path;

use kildall_testkit::expect::{check_file, data_files};

#[test]
fn malformed_sources_report_line_and_column() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let files = data_files(&dir.join("malformed"), "jvr");
    assert!(files.len() >= 20);
    let mut actual = String::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy();
        let src = std::fs::read_to_string(path).unwrap();
        let err = match kildall_casm::compile(&src) {
            Ok(listing) => panic!("{name} compiled:\n{listing}"),
            Err(kildall_casm::Error::Jvr(e)) => e,
            Err(e) => panic!("{name}: not a source error: {e}"),
        };
        assert!(err.pos.line >= 1 && err.pos.col >= 1, "{name}: no position");
        actual.push_str(&format!("{name}: {err}\n"));
    }
    check_file(&dir.join("malformed.expect"), &actual)
        .unwrap_or_else(|e| panic!("malformed.expect: {e}"));
}
