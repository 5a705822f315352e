//! Malformed `.jvr` files: each one is rejected with `line:col` and a
//! message, never a panic. Expectations live in `data/malformed.expect`
//! (`UPDATE_EXPECT=1` rewrites it).

use std::path::Path;

#[test]
fn malformed_sources_report_line_and_column() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut names: Vec<String> = std::fs::read_dir(dir.join("malformed"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jvr"))
        .collect();
    names.sort();
    assert!(names.len() >= 20);
    let mut actual = String::new();
    for name in &names {
        let src = std::fs::read_to_string(dir.join("malformed").join(name)).unwrap();
        let err = match kildall_casm::compile(&src) {
            Ok(listing) => panic!("{name} compiled:\n{listing}"),
            Err(kildall_casm::Error::Jvr(e)) => e,
            Err(e) => panic!("{name}: not a source error: {e}"),
        };
        assert!(err.pos.line >= 1 && err.pos.col >= 1, "{name}: no position");
        actual.push_str(&format!("{name}: {err}\n"));
    }
    let path = dir.join("malformed.expect");
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&path, &actual).unwrap();
        } else {
            panic!("malformed.expect differs (UPDATE_EXPECT=1 to bless):\n{actual}");
        }
    }
}
