//! Run-time values of the interpreter and their text form.
//!
//! `Display` writes IR constant syntax where the IR has one (`Field 7`,
//! `u32 3`, `i8 -1`, arrays `[Field 1, Field 2]`) and an explicit form
//! where it has none: references `&mut 3` (the cell number), noisy values
//! `noisy(plaintext 5, noise 12)`, functions `f2`. [`RuntimeValue::parse_list`]
//! reads every one of these forms back.

use std::fmt;
use std::sync::Arc;

use ark_bn254::Fr;
use ark_ff::{BigInteger, PrimeField};

use kildall_ir::{ConstValue, EntityRef, FuncId, Type, MAX_INT_BITS};

/// The largest number of flattened elements a zero array built from a type
/// may have, so that a huge array type in a signature cannot exhaust memory.
pub const MAX_ZERO_ARRAY_ELEMENTS: u64 = 1 << 20;

/// Nesting limit of [`RuntimeValue::parse_list`], which keeps its recursion bounded.
const MAX_PARSE_DEPTH: usize = 64;

/// A reference: the number of a memory cell of one run.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct RefId(pub u32);

impl fmt::Display for RefId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "&mut {}", self.0)
    }
}

/// A value during interpretation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RuntimeValue {
    /// An element of the BN254 scalar field.
    Field(Fr),
    /// `uN` or `iN`.
    Int {
        /// The bit width `N`, 1 to 128.
        bits: u32,
        /// Whether the type is `iN`.
        signed: bool,
        /// The low `N` bits (two's complement for `iN`); higher bits are zero.
        value: u128,
    },
    /// A reference to a memory cell.
    Ref(RefId),
    /// An array or slice: flattened elements (a tuple entry occupies
    /// `types.len()` consecutive elements) shared until written.
    Array {
        /// The flattened elements.
        elements: Arc<Vec<RuntimeValue>>,
        /// The element types of one entry (one type, or a tuple's).
        types: Arc<[Type]>,
    },
    /// A noisy ciphertext: its plaintext (mod 32) and its noise bound in bits.
    Noisy {
        /// The plaintext, below 32.
        plaintext: u8,
        /// The noise bound, in bits.
        noise: u32,
    },
    /// A function of the module.
    Function(FuncId),
}

/// All ones in the low `bits` bits.
pub(crate) fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `value`.
pub(crate) fn sign_extend(value: u128, bits: u32) -> i128 {
    if bits == 0 || bits >= 128 {
        return value as i128;
    }
    let shift = 128 - bits;
    ((value << shift) as i128) >> shift
}

/// A field element from a constant's bits, reduced modulo p if not canonical.
pub(crate) fn field_from_const(value: ConstValue) -> Fr {
    Fr::from_bigint(ark_ff::BigInt(value.0)).unwrap_or_else(|| {
        let bytes: Vec<u8> = value.0.iter().flat_map(|limb| limb.to_le_bytes()).collect();
        Fr::from_le_bytes_mod_order(&bytes)
    })
}

/// The canonical representative of a field element as a constant.
pub(crate) fn field_to_const(value: &Fr) -> ConstValue {
    ConstValue(value.into_bigint().0)
}

/// The number of significant bits of a field element's canonical representative.
pub(crate) fn field_bits(value: &Fr) -> u32 {
    value.into_bigint().num_bits()
}

impl RuntimeValue {
    /// `u1 0` or `u1 1`.
    pub fn bool(value: bool) -> RuntimeValue {
        RuntimeValue::Int {
            bits: 1,
            signed: false,
            value: u128::from(value),
        }
    }

    /// `uN value`, `value` taken modulo 2^N.
    pub fn unsigned(bits: u32, value: u128) -> RuntimeValue {
        RuntimeValue::Int {
            bits,
            signed: false,
            value: value & mask(bits),
        }
    }

    /// `iN value`, `value` taken modulo 2^N (two's complement).
    pub fn signed(bits: u32, value: i128) -> RuntimeValue {
        RuntimeValue::Int {
            bits,
            signed: true,
            value: value as u128 & mask(bits),
        }
    }

    /// `Field value`.
    pub fn field(value: u128) -> RuntimeValue {
        RuntimeValue::Field(Fr::from(value))
    }

    /// An array of `elements` whose entries have the types `types`.
    pub fn array(elements: Vec<RuntimeValue>, types: Vec<Type>) -> RuntimeValue {
        RuntimeValue::Array {
            elements: Arc::new(elements),
            types: types.into(),
        }
    }

    /// The value of a numeric constant of type `ty` (`None` for types
    /// without numeric constants, or an integer width outside 1 to 128).
    pub fn from_const(value: ConstValue, ty: &Type) -> Option<RuntimeValue> {
        let low = u128::from(value.0[0]) | (u128::from(value.0[1]) << 64);
        match *ty {
            Type::Field => Some(RuntimeValue::Field(field_from_const(value))),
            Type::Unsigned(bits) if (1..=MAX_INT_BITS).contains(&bits) => {
                Some(RuntimeValue::unsigned(bits, low))
            }
            Type::Signed(bits) if (1..=MAX_INT_BITS).contains(&bits) => Some(RuntimeValue::Int {
                bits,
                signed: true,
                value: low & mask(bits),
            }),
            Type::Function => Some(RuntimeValue::Function(FuncId::new(low as usize))),
            _ => None,
        }
    }

    /// The zero value of `ty`: `Field 0`, `u32 0`, arrays of zeros, an empty
    /// slice, `noisy(plaintext 0, noise 0)`, `f0` for functions, and the
    /// reference `&mut 0` (which names a fresh, never-stored cell when passed
    /// as an argument to [`interpret`](super::interpret)). `None` if an array
    /// would have more than [`MAX_ZERO_ARRAY_ELEMENTS`] elements or an
    /// integer width is outside 1 to 128.
    pub fn zero(ty: &Type) -> Option<RuntimeValue> {
        zero_with(ty, &mut |_| RefId(0), &mut 0)
    }

    /// The type of the value; arrays and slices both give an array type.
    pub fn ty(&self) -> Type {
        match self {
            RuntimeValue::Field(_) => Type::Field,
            RuntimeValue::Int {
                bits, signed: true, ..
            } => Type::Signed(*bits),
            RuntimeValue::Int { bits, .. } => Type::Unsigned(*bits),
            RuntimeValue::Ref(_) => Type::reference(Type::Field),
            RuntimeValue::Array { elements, types } => {
                let width = types.len().max(1);
                Type::Array(types.clone(), (elements.len() / width) as u32)
            }
            RuntimeValue::Noisy { .. } => Type::Noisy,
            RuntimeValue::Function(_) => Type::Function,
        }
    }

    /// Whether the value can have type `ty`: same kind and width, arrays of
    /// the right length whose elements fit the element types. The pointee of
    /// a reference is not checked (memory is not at hand).
    pub fn has_type(&self, ty: &Type) -> bool {
        self.has_type_with(ty, &|_, _| true)
    }

    /// [`has_type`](Self::has_type), with each reference also accepted by
    /// `names_cell_of(reference, pointee)` (the run's memory knows the type
    /// of its cells).
    pub(crate) fn has_type_with(
        &self,
        ty: &Type,
        names_cell_of: &dyn Fn(RefId, &Type) -> bool,
    ) -> bool {
        match (self, ty) {
            (RuntimeValue::Field(_), Type::Field) => true,
            (RuntimeValue::Int { bits, signed, .. }, Type::Unsigned(b)) => !signed && bits == b,
            (RuntimeValue::Int { bits, signed, .. }, Type::Signed(b)) => *signed && bits == b,
            (
                RuntimeValue::Ref(id),
                Type::Reference(pointee) | Type::ImmutableReference(pointee),
            ) => names_cell_of(*id, pointee),
            (RuntimeValue::Noisy { .. }, Type::Noisy) => true,
            (RuntimeValue::Function(_), Type::Function) => true,
            (RuntimeValue::Array { elements, .. }, Type::Array(types, _) | Type::Slice(types)) => {
                if let Type::Array(_, _) = ty {
                    if ty.flattened_len() != Some(elements.len() as u64) {
                        return false;
                    }
                } else if types.is_empty() || elements.len() % types.len() != 0 {
                    return false;
                }
                elements
                    .iter()
                    .zip(types.iter().cycle())
                    .all(|(element, ty)| element.has_type_with(ty, names_cell_of))
            }
            _ => false,
        }
    }

    /// The value relabelled with the element types of `ty` (arrays parsed
    /// from text carry guessed element types). Call after [`has_type`](Self::has_type).
    pub(crate) fn conform(self, ty: &Type) -> RuntimeValue {
        match (self, ty) {
            (RuntimeValue::Array { elements, .. }, Type::Array(types, _) | Type::Slice(types)) => {
                let elements = Arc::unwrap_or_clone(elements)
                    .into_iter()
                    .zip(types.iter().cycle())
                    .map(|(element, ty)| element.conform(ty))
                    .collect();
                RuntimeValue::Array {
                    elements: Arc::new(elements),
                    types: types.clone(),
                }
            }
            (value, _) => value,
        }
    }

    /// Whether the value is a nonzero integer or field element (conditions
    /// and predicates).
    pub fn is_true(&self) -> bool {
        match self {
            RuntimeValue::Int { value, .. } => *value != 0,
            RuntimeValue::Field(f) => *f != Fr::from(0u8),
            _ => false,
        }
    }

    /// Parses a comma-separated list of values in the `Display` syntax:
    /// `u32 3, Field 5, [Field 1, Field 2], i8 -1, bool 1, &mut 0,
    /// noisy(plaintext 5, noise 12), f1`. `Field` accepts a negative number
    /// (`Field -1` is p - 1). An array's element types are those of its
    /// first element (the interpreter relabels arguments with the declared
    /// parameter types).
    pub fn parse_list(text: &str) -> Result<Vec<RuntimeValue>, ValueParseError> {
        let mut parser = ValueParser { text, pos: 0 };
        let values = parser.list(None, 0)?;
        parser.skip_ws();
        Ok(values)
    }
}

/// Builds the zero value of `ty`, asking `fresh_ref` for references (a
/// cell of the pointee type it is given);
/// `budget` counts array elements built so far.
pub(crate) fn zero_with(
    ty: &Type,
    fresh_ref: &mut dyn FnMut(&Type) -> RefId,
    budget: &mut u64,
) -> Option<RuntimeValue> {
    Some(match ty {
        Type::Field => RuntimeValue::field(0),
        Type::Unsigned(bits) | Type::Signed(bits) if !(1..=MAX_INT_BITS).contains(bits) => {
            return None
        }
        Type::Unsigned(bits) => RuntimeValue::unsigned(*bits, 0),
        Type::Signed(bits) => RuntimeValue::signed(*bits, 0),
        Type::Reference(pointee) | Type::ImmutableReference(pointee) => {
            RuntimeValue::Ref(fresh_ref(pointee))
        }
        Type::Array(types, len) => build_array(types, *len, budget, &mut |ty, budget| {
            zero_with(ty, fresh_ref, budget)
        })?,
        Type::Slice(types) => RuntimeValue::Array {
            elements: Arc::new(Vec::new()),
            types: types.clone(),
        },
        Type::Function => RuntimeValue::Function(FuncId::new(0)),
        Type::Noisy => RuntimeValue::Noisy {
            plaintext: 0,
            noise: 0,
        },
    })
}

/// The array of `len` entries of element types `types`, its elements built
/// in order by `element`; `budget` counts array elements built so far.
/// `None` past [`MAX_ZERO_ARRAY_ELEMENTS`] elements or when `element` fails.
pub(crate) fn build_array(
    types: &Arc<[Type]>,
    len: u32,
    budget: &mut u64,
    element: &mut dyn FnMut(&Type, &mut u64) -> Option<RuntimeValue>,
) -> Option<RuntimeValue> {
    let total = types.len() as u64 * u64::from(len);
    *budget += total;
    if *budget > MAX_ZERO_ARRAY_ELEMENTS {
        return None;
    }
    let mut elements = Vec::with_capacity(total as usize);
    for _ in 0..len {
        for ty in types.iter() {
            elements.push(element(ty, budget)?);
        }
    }
    Some(RuntimeValue::Array {
        elements: Arc::new(elements),
        types: types.clone(),
    })
}

impl Default for RuntimeValue {
    fn default() -> Self {
        RuntimeValue::field(0)
    }
}

impl fmt::Display for RuntimeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeValue::Field(value) => write!(f, "Field {}", field_to_const(value)),
            RuntimeValue::Int {
                bits,
                signed: false,
                value,
            } => write!(f, "u{bits} {value}"),
            RuntimeValue::Int {
                bits,
                signed: true,
                value,
            } => write!(f, "i{bits} {}", sign_extend(*value, *bits)),
            RuntimeValue::Ref(id) => write!(f, "{id}"),
            RuntimeValue::Array { elements, .. } => {
                f.write_str("[")?;
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{element}")?;
                }
                f.write_str("]")
            }
            RuntimeValue::Noisy { plaintext, noise } => {
                write!(f, "noisy(plaintext {plaintext}, noise {noise})")
            }
            RuntimeValue::Function(id) => write!(f, "{id}"),
        }
    }
}

/// Writes values separated by `, `, the form of `print` and of a run's results.
pub fn display_list(values: &[RuntimeValue]) -> String {
    let mut out = String::new();
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&value.to_string());
    }
    out
}

/// An error of [`RuntimeValue::parse_list`].
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("byte {offset}: {message}")]
pub struct ValueParseError {
    /// Byte offset in the text where the problem is.
    pub offset: usize,
    /// What was expected or wrong.
    pub message: String,
}

struct ValueParser<'a> {
    text: &'a str,
    pos: usize,
}

impl ValueParser<'_> {
    fn error(&self, message: impl Into<String>) -> ValueParseError {
        ValueParseError {
            offset: self.pos,
            message: message.into(),
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), ValueParseError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{token}`")))
        }
    }

    /// A word of letters, digits and `_`.
    fn word(&mut self) -> &str {
        self.skip_ws();
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(self.rest().len());
        self.pos += len;
        &self.text[start..start + len]
    }

    /// An optionally negative decimal number: (negative, magnitude).
    fn number(&mut self) -> Result<(bool, ConstValue), ValueParseError> {
        let negative = self.eat("-");
        self.skip_ws();
        let start = self.pos;
        let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(self.error("expected a decimal number"));
        }
        self.pos += digits;
        let magnitude =
            ConstValue::parse_decimal(&self.text[start..self.pos]).ok_or(ValueParseError {
                offset: start,
                message: "number does not fit in 256 bits".into(),
            })?;
        Ok((negative, magnitude))
    }

    fn small_number(&mut self, what: &str, max: u128) -> Result<u128, ValueParseError> {
        self.skip_ws();
        let start = self.pos;
        let (negative, magnitude) = self.number()?;
        match magnitude.to_u128() {
            Some(n) if !negative && n <= max => Ok(n),
            _ => Err(ValueParseError {
                offset: start,
                message: format!("{what} must be between 0 and {max}"),
            }),
        }
    }

    /// Values up to `close` (or the end when `None`), separated by commas.
    fn list(
        &mut self,
        close: Option<&str>,
        depth: usize,
    ) -> Result<Vec<RuntimeValue>, ValueParseError> {
        let mut values = Vec::new();
        self.skip_ws();
        let at_end = |p: &mut Self| match close {
            Some(close) => p.eat(close),
            None => {
                p.skip_ws();
                p.pos == p.text.len()
            }
        };
        if at_end(self) {
            return Ok(values);
        }
        loop {
            values.push(self.value(depth)?);
            if at_end(self) {
                return Ok(values);
            }
            if !self.eat(",") {
                let expected = close.map_or("`,` or the end of the list".to_string(), |c| {
                    format!("`,` or `{c}`")
                });
                return Err(self.error(format!("expected {expected}")));
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<RuntimeValue, ValueParseError> {
        if depth > MAX_PARSE_DEPTH {
            return Err(self.error("arrays nested too deeply"));
        }
        if self.eat("[") {
            let elements = self.list(Some("]"), depth + 1)?;
            let types = elements.first().map(RuntimeValue::ty).into_iter().collect();
            return Ok(RuntimeValue::array(elements, types));
        }
        if self.eat("&mut") {
            let id = self.small_number("a reference number", u128::from(u32::MAX))?;
            return Ok(RuntimeValue::Ref(RefId(id as u32)));
        }
        let start = {
            self.skip_ws();
            self.pos
        };
        let word = self.word().to_string();
        let type_error = |message: String| ValueParseError {
            offset: start,
            message,
        };
        if word == "noisy" {
            self.expect("(")?;
            self.expect("plaintext")?;
            let plaintext = self.small_number("a plaintext", 31)? as u8;
            self.expect(",")?;
            self.expect("noise")?;
            let noise = self.small_number("a noise bound", u128::from(u32::MAX))? as u32;
            self.expect(")")?;
            return Ok(RuntimeValue::Noisy { plaintext, noise });
        }
        if word == "Field" {
            let (negative, magnitude) = self.number()?;
            let value = field_from_const(magnitude);
            if field_to_const(&value) != magnitude {
                return Err(type_error(
                    "Field value is not below the BN254 modulus".into(),
                ));
            }
            return Ok(RuntimeValue::Field(if negative { -value } else { value }));
        }
        let int_type = |prefix: char| {
            word.strip_prefix(prefix)
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|digits| digits.parse::<u32>().ok())
        };
        if let Some(id) = int_type('f') {
            return Ok(RuntimeValue::Function(FuncId::from_u32(id)));
        }
        let (bits, signed) = match (word.as_str(), int_type('u'), int_type('i')) {
            ("bool", _, _) => (1, false),
            (_, Some(bits), _) => (bits, false),
            (_, _, Some(bits)) => (bits, true),
            _ => {
                return Err(type_error(format!(
                    "expected a value (`Field`, `uN`, `iN`, `[`, `&mut`, `noisy`), found `{word}`"
                )))
            }
        };
        if !(1..=MAX_INT_BITS).contains(&bits) {
            return Err(type_error(format!(
                "integer width must be between 1 and {MAX_INT_BITS}"
            )));
        }
        let number_start = {
            self.skip_ws();
            self.pos
        };
        let (negative, magnitude) = self.number()?;
        let out_of_range = || ValueParseError {
            offset: number_start,
            message: format!("value does not fit in {word}"),
        };
        let magnitude = magnitude.to_u128().ok_or_else(out_of_range)?;
        if signed {
            let half = 1u128 << (bits - 1);
            let fits = if negative {
                magnitude <= half
            } else {
                magnitude < half
            };
            if !fits {
                return Err(out_of_range());
            }
            let value = if negative {
                magnitude.wrapping_neg()
            } else {
                magnitude
            };
            Ok(RuntimeValue::Int {
                bits,
                signed: true,
                value: value & mask(bits),
            })
        } else {
            if (negative && magnitude != 0) || magnitude > mask(bits) {
                return Err(out_of_range());
            }
            Ok(RuntimeValue::unsigned(bits, magnitude))
        }
    }
}
