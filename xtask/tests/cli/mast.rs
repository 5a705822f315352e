//! `cargo xtask mast`: conversions between formats, inspection, malformed files.

use super::*;

/// `mast convert INPUT -o OUTPUT` followed by `more`.
fn mast_convert(input: &Path, output: &Path, more: &[&str]) -> Output {
    mast_writing("convert", input, output, more)
}

/// `mast ACTION INPUT -o OUTPUT` followed by `more`.
fn mast_writing(action: &str, input: &Path, output: &Path, more: &[&str]) -> Output {
    let args = [
        "mast",
        action,
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ];
    xtask(&[&args[..], more].concat())
}

#[test]
fn a_corrupt_mast_file_names_the_byte_and_exits_1() {
    let file = temp_file("bad.mast", b"garbage");
    let out = xtask(&["mast", "decode", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error at byte 0: bad magic"),
        "{}",
        stderr(&out)
    );
}

/// `convert` with no options writes each released file back byte for byte,
/// and `inspect` lists every root with the digest miden-core computed.
#[test]
fn mast_convert_is_the_identity_and_inspect_lists_the_roots() {
    let data = workspace().join("mast/tests/data");
    for (name, roots, header) in [
        (
            "core-0.23.5.stripped.mast",
            "core-0.23.5.roots",
            "format: miden 0.23 (version [0,0,3]), flags: stripped\n",
        ),
        (
            "core-0.23.5.hashless.mast",
            "core-0.23.5.roots",
            "format: miden 0.23 (version [0,0,3]), flags: stripped, hashless\n",
        ),
        (
            "core-0.23.5.masl",
            "core-0.23.5.roots",
            "format: miden 0.23 (version [0,0,3]), flags: none\n",
        ),
        (
            "core-0.24.2.mast",
            "core-0.24.2.roots",
            "format: miden 0.24 (version [0,0,4]), flags: stripped\n",
        ),
        (
            "core-0.24.2.hashless.mast",
            "core-0.24.2.roots",
            "format: miden 0.24 (version [0,0,4]), flags: stripped, hashless\n",
        ),
        (
            "std-0.10.5.masl",
            "std-0.10.5.roots",
            "format: miden 0.10 (version [0,0,0]), flags: none\n",
        ),
    ] {
        let input = data.join(name);
        let output = temp_file(name, b"");
        let out = mast_convert(&input, &output, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            std::fs::read(&input).unwrap() == std::fs::read(&output).unwrap(),
            "{name}"
        );

        let out = xtask(&["mast", "inspect", input.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report = stdout(&out);
        assert!(report.starts_with(header), "{report}");
        let listed: String = report
            .lines()
            .filter(|l| l.starts_with("root "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            listed,
            std::fs::read_to_string(data.join(roots)).unwrap(),
            "{name}"
        );
        if name == "core-0.23.5.masl" {
            let exports: String = report
                .lines()
                .filter(|l| l.starts_with("export "))
                .map(|l| format!("{l}\n"))
                .collect();
            let expected = data.join("core-0.23.5.exports");
            assert_eq!(exports, std::fs::read_to_string(expected).unwrap());
            assert!(report.contains("\ntype ::miden::core::math::u256::u256\n"));
        }
    }
}

/// A target format that cannot express the forest is a typed error, exit 1.
#[test]
fn mast_convert_refuses_what_the_target_cannot_express() {
    let input = workspace().join("mast/tests/data/core-0.23.5.mast");
    let output = temp_file("refused.mast", b"");
    let out = mast_convert(&input, &output, &["--format", "0.10"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: miden 0.10 cannot express"),
        "{}",
        stderr(&out)
    );
    // Debug info left the forest in 0.24: it is dropped only when asked.
    let out = mast_convert(&input, &output, &["--format", "0.24"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: miden 0.24 cannot express")
            && stderr(&out).contains("debug info"),
        "{}",
        stderr(&out)
    );
    let out = mast_convert(&input, &output, &["--format", "0.24", "--stripped"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let golden = workspace().join("mast/tests/data/core-0.24.2.mast");
    assert!(std::fs::read(&output).unwrap() == std::fs::read(golden).unwrap());
}

/// `extract` from a 0.23 file with debug info writes the tree in full, with
/// the debug info of its nodes: root 60 of the core library, a tree of 15
/// nodes with 145 assembly ops and 9 error messages.
#[test]
fn mast_extract_keeps_the_debug_info_of_the_tree() {
    let input = workspace().join("mast/tests/data/core-0.23.5.mast");
    let output = temp_file("extracted.mast", b"");
    let args = ["mast", "extract", input.to_str().unwrap(), "--root", "60"];
    let out = xtask(&[&args[..], &["-o", output.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = xtask(&["mast", "inspect", output.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.starts_with("format: miden 0.23 (version [0,0,3]), flags: none\n"));
    let summary = "debug info 145 assembly ops, 9 error messages, 0 procedure names";
    assert!(report.contains(summary), "{report}");
    let digest = std::fs::read_to_string(workspace().join("mast/tests/data/core-0.23.5.roots"))
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("root 60 ")
                .map(|rest| rest.split_once(' ').unwrap().1.to_string())
        })
        .unwrap();
    assert!(report.contains(&digest), "{report}");
}

/// `decode` prints the text form, which holds the advice map but not the
/// 0.23 debug info beyond the decorators of blocks: it says so on stderr
/// rather than dropping it silently. `encode` reads the advice map back.
#[test]
fn mast_decode_says_what_the_text_form_leaves_out() {
    let data = workspace().join("mast/tests/data");
    let out = xtask(&[
        "mast",
        "decode",
        data.join("core-0.23.5.mast").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let note = "note: the text form leaves out the debug info \
                (5767 assembly ops, 78 error messages, 0 procedure names, 0 node decorators, \
                0 debug variables)";
    assert!(stderr(&out).contains(note), "{}", stderr(&out));
    let input = data.join("core-0.24.2.mast");
    let out = xtask(&["mast", "decode", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("note:"), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("advice [")).count(),
        1
    );
    // Encoded back as 0.24, the text is the file it was decoded from.
    let text_file = temp_file("core-0.24.2.txt", text.as_bytes());
    let output = temp_file("core-0.24.2.encoded.mast", b"");
    let out = mast_writing("encode", &text_file, &output, &["--format", "0.24"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read(&output).unwrap() == std::fs::read(&input).unwrap());
    let out = xtask(&[
        "mast",
        "decode",
        data.join("std-0.10.5.mast").to_str().unwrap(),
    ]);
    assert!(!stderr(&out).contains("note:"), "{}", stderr(&out));
}

/// An extracted tree keeps the advice map, which 0.10 cannot express:
/// converting it to 0.10 is refused until `--strip-advice-map` asks for it
/// to be dropped; converted back, it is the tree without its advice map.
#[test]
fn mast_convert_to_0_10_strips_the_advice_map_only_when_asked() {
    let input = workspace().join("mast/tests/data/core-0.23.5.stripped.mast");
    let tree = temp_file("tree.mast", b"");
    let out = mast_writing("extract", &input, &tree, &["--root", ROOT_0_10]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = inspect_report(&tree);
    assert!(report.contains("advice map 1 entries"), "{report}");
    let output = temp_file("tree.0.10.mast", b"");
    let out = mast_convert(&tree, &output, &["--format", "0.10"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: miden 0.10 cannot express an advice map (strip it)\n"
    );
    let out = mast_convert(&tree, &output, &["--format", "0.10", "--strip-advice-map"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = inspect_report(&output);
    assert!(
        report.starts_with("format: miden 0.10 (version [0,0,0])")
            && report.contains("advice map 0 entries"),
        "{report}"
    );
    let back = temp_file("tree.back.mast", b"");
    let out = mast_convert(&output, &back, &["--format", "0.23", "--stripped"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let without = temp_file("tree.without.mast", b"");
    let out = mast_convert(&tree, &without, &["--strip-advice-map"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read(&back).unwrap() == std::fs::read(&without).unwrap());
}

/// What `mast inspect` prints of `file`.
fn inspect_report(file: &Path) -> String {
    let out = xtask(&["mast", "inspect", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

/// A root of the 0.23 core library whose tree 0.10 can express.
const ROOT_0_10: &str = "5";
