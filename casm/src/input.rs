//! Juvix's input format: a JSON object mapping the entry function's
//! parameter names to values (`in` for one unnamed parameter, `in1`..`inN`
//! for several).
//!
//! Numbers are JSON integers or strings in decimal or `0x` hexadecimal;
//! `true`/`false` are booleans in Juvix's encoding ([`crate::jvr::bool_felt`]);
//! an object is a record (its fields in the object's key order) of the
//! parameter's type, or of the only record type with that many fields when
//! the type is `*`; an array is a list, built from the type that has one
//! constructor without fields and one with two (`nil` and `cons`).

use std::rc::Rc;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::felt::Felt;
use crate::jvr::{Function, Module, TypeDecl};
use crate::jvr_interp::{CtorVal, Val};

/// Why an input file does not fit the entry function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Not JSON.
    #[error("not JSON: {0}")]
    Syntax(String),
    /// Not a JSON object.
    #[error("the input is not a JSON object: {0}")]
    NotAnObject(String),
    /// A parameter without a value.
    #[error("no value for parameter {0}")]
    Missing(String),
    /// A key that names no parameter.
    #[error("{0} is not a parameter of the entry function")]
    Unknown(String),
    /// A value that does not convert.
    #[error("{key}: {msg}")]
    Bad {
        /// The key (parameter name, with a path inside it).
        key: String,
        /// What is wrong.
        msg: String,
    },
}

/// The names Juvix's input format uses for `f`'s parameters.
pub fn param_keys(f: &Function) -> Vec<String> {
    let n = f.params.len();
    f.params
        .iter()
        .enumerate()
        .map(|(i, p)| match &p.name {
            Some(name) => name.clone(),
            None if n == 1 => "in".to_string(),
            None => format!("in{}", i + 1),
        })
        .collect()
}

/// A JSON value whose objects keep their keys in file order: a record's
/// fields are matched by position.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true`/`false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in file order.
    Object(Vec<(String, Json)>),
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Number(n) => f.write_str(n),
            Json::String(s) => write!(f, "{s:?}"),
            Json::Array(_) => f.write_str("an array"),
            Json::Object(_) => f.write_str("an object"),
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.to_string()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.to_string()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
        Ok(Json::Number(n.to_string()))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            entries.push((k, v));
        }
        Ok(Json::Object(entries))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

/// The values of `f`'s parameters read from the text of a JSON file.
pub fn args_from_text(module: &Module, f: &Function, text: &str) -> Result<Vec<Val>, InputError> {
    let json: Json = serde_json::from_str(text).map_err(|e| InputError::Syntax(e.to_string()))?;
    args_from_json(module, f, &json)
}

/// The values of `f`'s parameters read from `json`.
pub fn args_from_json(module: &Module, f: &Function, json: &Json) -> Result<Vec<Val>, InputError> {
    let Json::Object(map) = json else {
        return Err(InputError::NotAnObject(json.to_string()));
    };
    let keys = param_keys(f);
    if let Some((k, _)) = map.iter().find(|(k, _)| !keys.contains(k)) {
        return Err(InputError::Unknown(k.clone()));
    }
    keys.iter()
        .zip(&f.params)
        .map(|(k, p)| {
            let v = map
                .iter()
                .find(|(name, _)| name == k)
                .map(|(_, v)| v)
                .ok_or_else(|| InputError::Missing(k.clone()))?;
            convert(module, &p.ty, v, k, 0)
        })
        .collect()
}

/// Deepest nesting of arrays and objects converted.
const MAX_DEPTH: usize = 64;

fn bad<T>(key: &str, msg: impl Into<String>) -> Result<T, InputError> {
    Err(InputError::Bad {
        key: key.to_string(),
        msg: msg.into(),
    })
}

/// Parses a decimal or `0x` hexadecimal number, reducing it modulo `P`.
pub fn parse_number(s: &str) -> Option<Felt> {
    let s = s.trim();
    if s.len() > 80 {
        return None;
    }
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if hex.is_empty() {
            return None;
        }
        let mut acc = Felt::ZERO;
        for c in hex.chars() {
            let d = c.to_digit(16)?;
            acc = acc * Felt::from_u128(16) + Felt::from_u128(u128::from(d));
        }
        acc
    } else {
        Felt::parse_decimal(body)?
    };
    Some(if neg { -v } else { v })
}

fn record_type<'m>(module: &'m Module, ty: &str, n: usize) -> Option<&'m TypeDecl> {
    if let Some(t) = module.types.iter().find(|t| t.name == ty) {
        return (t.ctors.len() == 1).then_some(t);
    }
    let mut fits = module
        .types
        .iter()
        .filter(|t| t.ctors.len() == 1 && t.ctors[0].arity == n);
    let first = fits.next()?;
    fits.next().is_none().then_some(first)
}

fn list_type<'m>(module: &'m Module, ty: &str) -> Option<&'m TypeDecl> {
    let is_list = |t: &&TypeDecl| {
        t.ctors.len() == 2
            && t.ctors.iter().any(|c| c.arity == 0)
            && t.ctors.iter().any(|c| c.arity == 2)
    };
    if let Some(t) = module.types.iter().find(|t| t.name == ty) {
        return Some(t).filter(is_list);
    }
    let mut fits = module.types.iter().filter(is_list);
    let first = fits.next()?;
    fits.next().is_none().then_some(first)
}

fn ctor_val(module: &Module, t: &TypeDecl, index: usize, fields: Vec<Val>) -> Val {
    let c = &t.ctors[index];
    let tag = module.ctor(&c.name).map(|(_, tag, _)| tag).unwrap_or(0);
    Val::Ctor(Rc::new(CtorVal {
        tag,
        name: c.name.clone(),
        is_record: t.ctors.len() == 1,
        fields,
    }))
}

fn convert(
    module: &Module,
    ty: &str,
    v: &Json,
    key: &str,
    depth: usize,
) -> Result<Val, InputError> {
    if depth > MAX_DEPTH {
        return bad(key, format!("nested deeper than {MAX_DEPTH}"));
    }
    match v {
        Json::Bool(b) => Ok(Val::Bool(*b)),
        Json::Number(n) => match parse_number(n) {
            Some(f) => Ok(Val::Felt(f)),
            None => bad(key, format!("{n} is not an integer")),
        },
        Json::String(s) => match parse_number(s) {
            Some(f) => Ok(Val::Felt(f)),
            None => bad(key, format!("{s:?} is not a number")),
        },
        Json::Null => bad(key, "null has no value"),
        Json::Object(map) => {
            let Some(t) = record_type(module, ty, map.len()) else {
                return bad(key, format!("no record type of {} fields", map.len()));
            };
            let c = &t.ctors[0];
            if c.arity != map.len() {
                return bad(
                    key,
                    format!("{} has {} fields, not {}", c.name, c.arity, map.len()),
                );
            }
            let fields = map
                .iter()
                .map(|(k, v)| convert(module, "*", v, &format!("{key}.{k}"), depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(ctor_val(module, t, 0, fields))
        }
        Json::Array(items) => {
            let Some(t) = list_type(module, ty) else {
                return bad(key, "no list type (constructors of 0 and 2 fields)");
            };
            let nil = t.ctors.iter().position(|c| c.arity == 0).unwrap_or(0);
            let cons = 1 - nil;
            let mut list = ctor_val(module, t, nil, Vec::new());
            for (i, item) in items.iter().enumerate().rev() {
                let head = convert(module, "*", item, &format!("{key}[{i}]"), depth + 1)?;
                list = ctor_val(module, t, cons, vec![head, list]);
            }
            Ok(list)
        }
    }
}
