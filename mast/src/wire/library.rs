//! The exports of a library (`.masl`): what follows its forest.
//!
//! ```text
//! count        usize
//! 0.10 export  module path (u16 length, bytes), name (usize length, bytes),
//!              tag 0 and a node u32, or tag 1 and a digest (a re-export)
//! 0.23 export  tag 0 (procedure): path (u16 length, bytes), node u32,
//!                   signature flag (bool) and a function type if set,
//!                   attributes (Vec)
//!              tag 1 (constant): path, a constant value
//!              tag 2 (type): path, a type
//! ```
//!
//! Types are those of the Miden compiler's type system (`midenc-hir-type`):
//! a tag byte, 0 to 15 for the scalar types, then 16 pointer (address space
//! byte, pointee), 17 struct (optional name, representation byte and, for
//! the aligned and packed ones, a non-zero `u16` alignment, a `u8` field
//! count, each field an optional name and a type), 18 array (`usize` length,
//! element), 19 list (element), 20 function, 21 enum. A function type is a
//! calling-convention byte (0 to 3), then its parameter and result types,
//! each a `usize` count. An enum type is a name, a discriminant type (an
//! integer type other than `u256`) and a `usize` count of variants, each a
//! name, a flag and a payload type, and a flag and an explicit discriminant
//! in the discriminant type's width (1 to 8 bits a `u8`, up to 16 a `u16`, 32
//! a `u32`, 64 a `u64`, otherwise a `u128`). Nesting is limited to 128 levels, as in that crate.
//! A signature or type is checked by this grammar and kept as its bytes, so
//! that it is written back as it was read.
//!
//! Attributes are a `Vec` of a tag and an identifier (0, a marker), a name
//! and a `Vec` of meta expressions (1, a list), or a name and a map from
//! identifiers to meta expressions, in increasing key order (2). A meta
//! expression is an identifier (0), an integer below the field modulus (1,
//! a `u64`), a word (2, four field elements) or a string (3). A constant is
//! an integer (1), a string identifier (2), a word (3), or a hash kind byte
//! (0 word, 1 event) and an identifier (4). An identifier is a non-empty
//! string of alphanumeric or ASCII graphic characters other than `#`.
//! Attributes and constants are checked and kept as their bytes too.

use std::collections::{HashMap, HashSet};

use crate::felt::Digest;
use crate::forest::{MastForest, MastNodeId};
use crate::format::{err, DecodeErrorKind, EncodeError, Result};

use super::cursor::{self, put_u32, put_word, Cursor};
use super::{Export, ExportTarget, Format};

/// The deepest nesting of types the compiler's reader accepts.
const MAX_TYPE_NESTING: usize = 128;

/// A type of the Miden compiler's type system, checked and kept as its
/// encoding (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedType(Vec<u8>);

impl EncodedType {
    /// The encoding.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A procedure's attributes (a non-empty `Vec`) or an exported constant,
/// checked and kept as its encoding (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedValue(Vec<u8>);

impl EncodedValue {
    /// The encoding.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

pub(crate) fn read_exports(
    c: &mut Cursor<'_>,
    format: Format,
    forest: &MastForest,
) -> Result<Vec<Export>> {
    let n = c.count("exports", 7)?;
    let mut exports = Vec::with_capacity(n);
    for _ in 0..n {
        exports.push(if format == Format::V0_10 {
            read_export_0_10(c, forest)?
        } else {
            read_export_0_23(c, forest)?
        });
    }
    Ok(exports)
}

fn read_path(c: &mut Cursor<'_>) -> Result<String> {
    let len = c.u16("path length")? as usize;
    let at = c.at();
    let bytes = c.take(len, "path")?;
    match core::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => err(
            at + e.valid_up_to(),
            DecodeErrorKind::Invalid("path is not UTF-8"),
        ),
    }
}

fn read_node(c: &mut Cursor<'_>, forest: &MastForest) -> Result<ExportTarget> {
    let at = c.at();
    let id = c.u32("export node")?;
    match forest.node_id(id as usize) {
        Some(id) => Ok(ExportTarget::Node(id)),
        None => err(
            at,
            DecodeErrorKind::NodeOutOfRange {
                index: id,
                count: forest.len() as u32,
            },
        ),
    }
}

fn read_export_0_10(c: &mut Cursor<'_>, forest: &MastForest) -> Result<Export> {
    let module = read_path(c)?;
    let path = format!("{module}::{}", c.string("export name")?);
    let at = c.at();
    let target = match c.u8("export tag")? {
        0 => read_node(c, forest)?,
        1 => ExportTarget::Digest(c.word("export digest")?),
        _ => return err(at, DecodeErrorKind::Invalid("export tag")),
    };
    Ok(Export {
        path,
        target,
        signature: None,
        attributes: None,
    })
}

fn read_export_0_23(c: &mut Cursor<'_>, forest: &MastForest) -> Result<Export> {
    let at = c.at();
    match c.u8("export tag")? {
        0 => {
            let path = read_path(c)?;
            let target = read_node(c, forest)?;
            let signature = if c.bool("signature flag")? {
                let start = c.at();
                read_function_type(c, MAX_TYPE_NESTING)?;
                Some(EncodedType(c.since(start).to_vec()))
            } else {
                None
            };
            let start = c.at();
            let attributes = match c.count("attributes", 2)? {
                0 => None,
                n => {
                    (0..n).try_for_each(|_| read_attribute(c))?;
                    Some(EncodedValue(c.since(start).to_vec()))
                }
            };
            Ok(Export {
                path,
                target,
                signature,
                attributes,
            })
        }
        1 => {
            let path = read_path(c)?;
            let start = c.at();
            read_constant(c)?;
            Ok(Export {
                path,
                target: ExportTarget::Constant(EncodedValue(c.since(start).to_vec())),
                signature: None,
                attributes: None,
            })
        }
        2 => {
            let path = read_path(c)?;
            let start = c.at();
            read_type(c, MAX_TYPE_NESTING)?;
            let ty = EncodedType(c.since(start).to_vec());
            Ok(Export {
                path,
                target: ExportTarget::Type(ty),
                signature: None,
                attributes: None,
            })
        }
        _ => err(at, DecodeErrorKind::Invalid("export tag")),
    }
}

/// Checks one type; `depth` is the nesting left.
fn read_type(c: &mut Cursor<'_>, depth: usize) -> Result<()> {
    let at = c.at();
    let tag = c.u8("type tag")?;
    if (16..=21).contains(&tag) && depth == 0 {
        return err(
            at,
            DecodeErrorKind::Invalid("type nesting exceeds 128 levels"),
        );
    }
    let inner = depth.saturating_sub(1);
    match tag {
        0..=15 => Ok(()),
        16 => {
            let at = c.at();
            if c.u8("address space")? > 1 {
                return err(at, DecodeErrorKind::Invalid("address space"));
            }
            read_type(c, inner)
        }
        17 => read_struct(c, inner),
        18 => {
            c.usize("array length")?;
            read_type(c, inner)
        }
        19 => read_type(c, inner),
        20 => read_function_type(c, inner),
        21 => read_enum(c, inner),
        _ => err(at, DecodeErrorKind::Invalid("type tag")),
    }
}

/// The width in bits of the integer type of tag `tag`, if it is one that
/// can be an enum's discriminant (every integer type but `u256`; a field
/// element counts as 32 bits, as `midenc-hir-type` lays it out).
fn discriminant_bits(tag: u8) -> Option<u32> {
    Some(match tag {
        2 => 1,
        3 | 4 => 8,
        5 | 6 => 16,
        7 | 8 | 15 => 32,
        9 | 10 => 64,
        11 | 12 => 128,
        _ => return None,
    })
}

/// An enum type: a name, its discriminant type, and its variants, each a
/// name, an optional payload type and an optional explicit discriminant
/// sized by the discriminant type. Checked as `midenc-hir-type` checks it:
/// names are distinct, a variant without an explicit discriminant takes the
/// previous one plus one (0 for the first), every discriminant fits the
/// discriminant type, and no variant takes another's explicit value.
fn read_enum(c: &mut Cursor<'_>, depth: usize) -> Result<()> {
    c.string("enum name")?;
    let at = c.at();
    let Some(bits) = discriminant_bits(c.u8("discriminant type")?) else {
        return err(at, DecodeErrorKind::Invalid("discriminant type"));
    };
    // A variant takes at least a one-byte name length and two flags.
    let n = c.count("enum variants", 3)?;
    let mut variants = Vec::with_capacity(n);
    for _ in 0..n {
        let at = c.at();
        let name = c.string("variant name")?;
        if c.bool("payload flag")? {
            read_type(c, depth)?;
        }
        let explicit = if c.bool("discriminant flag")? {
            Some(match bits {
                1 | 8 => u128::from(c.u8("discriminant")?),
                16 => u128::from(c.u16("discriminant")?),
                32 => u128::from(c.u32("discriminant")?),
                64 => u128::from(c.u64("discriminant")?),
                _ => u128::from_le_bytes(c.array("discriminant")?),
            })
        } else {
            None
        };
        variants.push((at, name, explicit));
    }
    check_variants(&variants, bits)
}

/// The rules of [`read_enum`] on its `(offset, name, explicit
/// discriminant)` variants, each offending variant named by its offset.
fn check_variants(variants: &[(usize, &str, Option<u128>)], bits: u32) -> Result<()> {
    let mut names = HashSet::with_capacity(variants.len());
    if let Some(&(at, ..)) = variants.iter().find(|(_, name, _)| !names.insert(*name)) {
        return err(at, DecodeErrorKind::Invalid("repeated enum variant"));
    }
    let mut explicit: HashMap<u128, usize> = HashMap::new();
    for v in variants.iter().filter_map(|v| v.2) {
        *explicit.entry(v).or_default() += 1;
    }
    let mut last: Option<u128> = None;
    for &(at, _, given) in variants {
        let value = match (given, last) {
            (Some(v), _) => Some(v),
            (None, None) => Some(0),
            (None, Some(l)) => l.checked_add(1),
        };
        let Some(value) = value.filter(|v| 128 - v.leading_zeros() <= bits) else {
            return err(
                at,
                DecodeErrorKind::Invalid("discriminant wider than its type"),
            );
        };
        last = Some(value);
        // Another variant's explicit value: this one's own does not count.
        let others = explicit.get(&value).copied().unwrap_or(0) - usize::from(given.is_some());
        if others > 0 {
            return err(at, DecodeErrorKind::Invalid("repeated enum discriminant"));
        }
    }
    Ok(())
}

fn read_struct(c: &mut Cursor<'_>, depth: usize) -> Result<()> {
    let optional_name = |c: &mut Cursor<'_>| -> Result<()> {
        if c.bool("name flag")? {
            c.string("name")?;
        }
        Ok(())
    };
    optional_name(c)?;
    let at = c.at();
    match c.u8("struct representation")? {
        0 | 3 | 4 => {}
        1 | 2 => {
            let at = c.at();
            if c.u16("alignment")? == 0 {
                return err(at, DecodeErrorKind::Invalid("zero alignment"));
            }
        }
        _ => return err(at, DecodeErrorKind::Invalid("struct representation")),
    }
    for _ in 0..c.u8("field count")? {
        optional_name(c)?;
        read_type(c, depth)?;
    }
    Ok(())
}

fn read_function_type(c: &mut Cursor<'_>, depth: usize) -> Result<()> {
    let at = c.at();
    if c.u8("calling convention")? > 3 {
        return err(at, DecodeErrorKind::Invalid("calling convention"));
    }
    for field in ["parameters", "results"] {
        // Each type takes at least its tag byte.
        for _ in 0..c.count(field, 1)? {
            read_type(c, depth)?;
        }
    }
    Ok(())
}

/// An identifier: non-empty, alphanumeric or ASCII graphic characters but
/// `#`.
fn read_ident<'a>(c: &mut Cursor<'a>) -> Result<&'a str> {
    let at = c.at();
    let s = c.string("identifier")?;
    let valid = |ch: char| (ch.is_ascii_graphic() || ch.is_alphanumeric()) && ch != '#';
    if s.is_empty() || !s.chars().all(valid) {
        return err(at, DecodeErrorKind::Invalid("identifier"));
    }
    Ok(s)
}

fn read_attribute(c: &mut Cursor<'_>) -> Result<()> {
    let at = c.at();
    match c.u8("attribute tag")? {
        0 => read_ident(c).map(drop),
        1 => {
            read_ident(c)?;
            (0..c.count("meta list", 2)?).try_for_each(|_| read_meta_expr(c))
        }
        2 => {
            read_ident(c)?;
            let mut previous: Option<&str> = None;
            for _ in 0..c.count("meta map", 3)? {
                let at = c.at();
                let key = read_ident(c)?;
                if previous.is_some_and(|p| p >= key) {
                    return err(at, DecodeErrorKind::NonCanonical("meta map key order"));
                }
                previous = Some(key);
                read_meta_expr(c)?;
            }
            Ok(())
        }
        _ => err(at, DecodeErrorKind::Invalid("attribute tag")),
    }
}

fn read_meta_expr(c: &mut Cursor<'_>) -> Result<()> {
    let at = c.at();
    match c.u8("meta expression tag")? {
        0 => read_ident(c).map(drop),
        1 => c.felt("integer").map(drop),
        2 => c.word("word").map(drop),
        3 => c.string("string").map(drop),
        _ => err(at, DecodeErrorKind::Invalid("meta expression tag")),
    }
}

fn read_constant(c: &mut Cursor<'_>) -> Result<()> {
    let at = c.at();
    match c.u8("constant tag")? {
        1 => c.felt("integer").map(drop),
        2 => read_ident(c).map(drop),
        3 => c.word("word").map(drop),
        4 => {
            let at = c.at();
            if c.u8("hash kind")? > 1 {
                return err(at, DecodeErrorKind::Invalid("hash kind"));
            }
            read_ident(c).map(drop)
        }
        _ => err(at, DecodeErrorKind::Invalid("constant tag")),
    }
}

pub(crate) fn write_export(
    e: &Export,
    format: Format,
    out: &mut Vec<u8>,
) -> core::result::Result<(), EncodeError> {
    let put_path = |out: &mut Vec<u8>, p: &str| -> core::result::Result<(), EncodeError> {
        let len = u16::try_from(p.len())
            .map_err(|_| EncodeError::unrepresentable("a library", "a path over 65535 bytes"))?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(p.as_bytes());
        Ok(())
    };
    if format == Format::V0_10 {
        if e.signature.is_some() || e.attributes.is_some() {
            return Err(EncodeError::unrepresentable(
                "miden 0.10",
                format!("the signature or attributes of export {}", e.path),
            ));
        }
        let (module, name) = e.path.rsplit_once("::").unwrap_or(("", &e.path));
        put_path(out, module)?;
        cursor::put_str(out, name);
        match &e.target {
            ExportTarget::Node(id) => {
                out.push(0);
                put_u32(out, id.0);
            }
            ExportTarget::Digest(d) => {
                out.push(1);
                put_word(out, d);
            }
            ExportTarget::Type(_) | ExportTarget::Constant(_) => {
                return Err(EncodeError::unrepresentable(
                    "miden 0.10",
                    format!("type or constant export {}", e.path),
                ))
            }
        }
        return Ok(());
    }
    match &e.target {
        ExportTarget::Node(MastNodeId(id)) => {
            out.push(0);
            put_path(out, &e.path)?;
            put_u32(out, *id);
            match &e.signature {
                Some(sig) => {
                    out.push(1);
                    out.extend_from_slice(sig.bytes());
                }
                None => out.push(0),
            }
            match &e.attributes {
                Some(attributes) => out.extend_from_slice(attributes.bytes()),
                // An empty `Vec`.
                None => out.push(1),
            }
        }
        ExportTarget::Constant(value) => {
            out.push(1);
            put_path(out, &e.path)?;
            out.extend_from_slice(value.bytes());
        }
        ExportTarget::Type(ty) => {
            out.push(2);
            put_path(out, &e.path)?;
            out.extend_from_slice(ty.bytes());
        }
        ExportTarget::Digest(_) => {
            return Err(EncodeError::unrepresentable(
                "miden 0.23",
                "a re-export by digest",
            ))
        }
    }
    Ok(())
}

/// The digest an export names, if it names a procedure.
pub(crate) fn export_digest(forest: &MastForest, e: &Export) -> Option<Digest> {
    match &e.target {
        ExportTarget::Node(id) => Some(forest.digest(*id)),
        ExportTarget::Digest(d) => Some(*d),
        ExportTarget::Type(_) | ExportTarget::Constant(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: &[u8]) -> Result<usize> {
        let mut c = Cursor::new(bytes, 0);
        read_type(&mut c, MAX_TYPE_NESTING)?;
        Ok(c.at())
    }

    #[test]
    fn nesting_is_bounded() {
        // 128 nested lists of a felt are accepted, 129 are not.
        let mut deep = vec![19u8; 128];
        deep.push(15);
        assert_eq!(check(&deep), Ok(129));
        let mut deeper = vec![19u8; 129];
        deeper.push(15);
        let e = check(&deeper).unwrap_err();
        assert_eq!(e.offset, 128);
    }

    #[test]
    fn malformed_types_name_their_byte() {
        let cases: [(&[u8], usize, DecodeErrorKind); 5] = [
            (&[22], 0, DecodeErrorKind::Invalid("type tag")),
            (&[16, 2, 15], 1, DecodeErrorKind::Invalid("address space")),
            (
                &[17, 0, 1, 0, 0, 0],
                3,
                DecodeErrorKind::Invalid("zero alignment"),
            ),
            (
                &[17, 0, 5, 0],
                2,
                DecodeErrorKind::Invalid("struct representation"),
            ),
            (
                &[20, 4, 1, 1],
                1,
                DecodeErrorKind::Invalid("calling convention"),
            ),
        ];
        for (bytes, offset, kind) in cases {
            let e = check(bytes).unwrap_err();
            assert_eq!((e.offset, e.kind), (offset, kind), "{bytes:?}");
        }
    }

    /// `enum "e" : u8 { a, b(felt) = 5, c }`, then the same with its
    /// discriminants broken one way at a time.
    #[test]
    fn enum_types() {
        let e = |variants: &[&[u8]], discriminant: u8| {
            let mut bytes = vec![21, 3, b'e', discriminant, 1 + 2 * variants.len() as u8];
            variants.iter().for_each(|v| bytes.extend_from_slice(v));
            check(&bytes)
        };
        let (a, c): (&[u8], &[u8]) = (&[3, b'a', 0, 0], &[3, b'c', 0, 0]);
        let b5: &[u8] = &[3, b'b', 1, 15, 1, 5];
        assert_eq!(e(&[a, b5, c], 4), Ok(5 + 4 + 6 + 4));
        // A phantom enum has no variants; an `i1` takes 0 and 1 only.
        assert_eq!(e(&[], 2), Ok(5));
        assert_eq!(e(&[a, c], 2), Ok(5 + 8));
        let cases: [(&[&[u8]], u8, usize, &str); 5] = [
            (&[a, b5, c], 13, 3, "discriminant type"),
            (&[a, a], 4, 9, "repeated enum variant"),
            (
                &[a, c, &[3, b'b', 0, 1, 1]],
                4,
                9,
                "repeated enum discriminant",
            ),
            (
                &[a, c, &[3, b'b', 0, 0]],
                2,
                13,
                "discriminant wider than its type",
            ),
            (
                &[&[3, b'b', 0, 1, 255], c],
                4,
                10,
                "discriminant wider than its type",
            ),
        ];
        for (variants, discriminant, offset, what) in cases {
            let err = e(variants, discriminant).unwrap_err();
            assert_eq!(
                (err.offset, err.kind),
                (offset, DecodeErrorKind::Invalid(what))
            );
        }
    }

    #[test]
    fn a_struct_with_named_fields() {
        // struct "p" (default repr) { x: felt, y: ptr<u8> in element space }
        let bytes = [17, 1, 3, b'p', 0, 2, 1, 3, b'x', 15, 1, 3, b'y', 16, 1, 4];
        assert_eq!(check(&bytes), Ok(bytes.len()));
        // A function type: C calling convention, (u32, felt) -> i1.
        let mut c = Cursor::new(&[1, 5, 8, 15, 3, 2], 0);
        assert_eq!(read_function_type(&mut c, MAX_TYPE_NESTING), Ok(()));
        assert!(c.is_at_end());
    }

    fn read_all(bytes: &[u8], read: fn(&mut Cursor<'_>) -> Result<()>) -> Result<usize> {
        let mut c = Cursor::new(bytes, 0);
        read(&mut c)?;
        Ok(c.at())
    }

    #[test]
    fn attributes() {
        // `inline`, `doc("x")` and `cfg(a = 1, b = w)`.
        let marker = [0, 13, b'i', b'n', b'l', b'i', b'n', b'e'];
        let list = [1, 7, b'd', b'o', b'c', 3, 3, 3, b'x'];
        let mut map = vec![2, 7, b'c', b'f', b'g', 5];
        map.extend([3, b'a', 1, 1, 0, 0, 0, 0, 0, 0, 0]);
        map.extend([3, b'b', 0, 3, b'w']);
        for bytes in [&marker[..], &list[..], &map[..]] {
            assert_eq!(
                read_all(bytes, read_attribute),
                Ok(bytes.len()),
                "{bytes:?}"
            );
        }
        // Keys out of order, an integer not below the modulus, a `#`.
        let mut swapped = vec![2, 7, b'c', b'f', b'g', 5];
        swapped.extend([3, b'b', 0, 3, b'w']);
        swapped.extend([3, b'a', 0, 3, b'w']);
        let e = read_all(&swapped, read_attribute).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (11, DecodeErrorKind::NonCanonical("meta map key order"))
        );
        let mut big = vec![1, 7, b'd', b'o', b'c', 3, 1];
        big.extend(u64::MAX.to_le_bytes());
        let e = read_all(&big, read_attribute).unwrap_err();
        assert_eq!(e.offset, 7, "{e}");
        let e = read_all(&[0, 3, b'#'], read_attribute).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (1, DecodeErrorKind::Invalid("identifier"))
        );
        let e = read_all(&[0, 1], read_attribute).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (1, DecodeErrorKind::Invalid("identifier"))
        );
        let e = read_all(&[3], read_attribute).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (0, DecodeErrorKind::Invalid("attribute tag"))
        );
    }

    #[test]
    fn constants() {
        let word = [3, 0, 0, 0, 0, 0, 0, 0, 0]
            .into_iter()
            .chain([0u8; 24])
            .collect::<Vec<u8>>();
        let cases: [&[u8]; 4] = [
            &[1, 5, 0, 0, 0, 0, 0, 0, 0],
            &[2, 3, b'k'],
            &word,
            &[4, 1, 5, b'e', b'v'],
        ];
        for bytes in cases {
            assert_eq!(read_all(bytes, read_constant), Ok(bytes.len()), "{bytes:?}");
        }
        let e = read_all(&[4, 2, 3, b'k'], read_constant).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (1, DecodeErrorKind::Invalid("hash kind"))
        );
        let e = read_all(&[0], read_constant).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (0, DecodeErrorKind::Invalid("constant tag"))
        );
    }
}
