//! Value types, written as in Noir's SSA: `Field`, `u32`, `i8`, `&mut T`, `&T`,
//! `[T; N]`, `[(T1, T2); N]`, `[T]`, `function`, and `noisy`.

use std::fmt;
use std::sync::Arc;

/// The largest bit width of `uN` and `iN`.
pub const MAX_INT_BITS: u32 = 128;

/// The type of an SSA value.
///
/// Composite types share their element lists through `Arc`, so cloning a
/// type is cheap whatever its depth.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Type {
    /// An element of the BN254 scalar field.
    Field,
    /// `uN`: an unsigned integer of `N` bits, 1 to 128 (`u1` is also written `bool`).
    Unsigned(u32),
    /// `iN`: a two's complement integer of `N` bits, 1 to 128.
    Signed(u32),
    /// `&mut T`: a reference to a memory cell holding a `T`.
    Reference(Arc<Type>),
    /// `&T`: Noir's immutable reference. It names a cell of `T` as `&mut T`
    /// does and can be loaded through, but not stored through (the verifier
    /// refuses it), and no instruction turns it into a `&mut T`: a function
    /// given only a `&T` to a cell cannot write it, except through a call
    /// whose callee is not checked against its signature (a `function`
    /// value, an oracle).
    ImmutableReference(Arc<Type>),
    /// `[T; N]` or `[(T1, T2, ...); N]`: `N` entries of the element types,
    /// stored flattened (entry `i` of a tuple array of width `k` occupies
    /// flat indices `i * k .. i * k + k`).
    Array(Arc<[Type]>, u32),
    /// `[T]` or `[(T1, T2, ...)]`: a slice of unknown length.
    Slice(Arc<[Type]>),
    /// `function`: a reference to a function.
    Function,
    /// `noisy`: a noisy ciphertext of a 5-bit plaintext (the noisy-arithmetic model of FHE schemes).
    Noisy,
}

impl Type {
    /// `u1`, the type of comparisons and conditions.
    pub const BOOL: Type = Type::Unsigned(1);
    /// `u32`, the type of array indices.
    pub const U32: Type = Type::Unsigned(32);

    /// `&mut T`.
    pub fn reference(pointee: Type) -> Type {
        Type::Reference(Arc::new(pointee))
    }

    /// `[T; len]` with a single element type.
    pub fn array(element: Type, len: u32) -> Type {
        Type::Array(Arc::from([element]), len)
    }

    /// Whether this is `uN` or `iN`.
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Unsigned(_) | Type::Signed(_))
    }

    /// Whether this is `Field`, `uN` or `iN`: a type with numeric constants.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Type::Field | Type::Unsigned(_) | Type::Signed(_))
    }

    /// Whether this is `&mut T` or `&T`.
    pub fn is_reference(&self) -> bool {
        matches!(self, Type::Reference(_) | Type::ImmutableReference(_))
    }

    /// Whether this type is a reference or contains one (in array elements).
    pub fn contains_reference(&self) -> bool {
        match self {
            Type::Reference(_) | Type::ImmutableReference(_) => true,
            Type::Array(elements, _) | Type::Slice(elements) => {
                elements.iter().any(Type::contains_reference)
            }
            _ => false,
        }
    }

    /// Whether this type is `function` or contains one (in array elements or
    /// behind a reference).
    pub fn contains_function(&self) -> bool {
        match self {
            Type::Function => true,
            Type::Array(elements, _) | Type::Slice(elements) => {
                elements.iter().any(Type::contains_function)
            }
            Type::Reference(pointee) | Type::ImmutableReference(pointee) => {
                pointee.contains_function()
            }
            _ => false,
        }
    }

    /// The bit width of an integer type.
    pub fn bit_size(&self) -> Option<u32> {
        match *self {
            Type::Unsigned(bits) | Type::Signed(bits) => Some(bits),
            _ => None,
        }
    }

    /// The pointee of a reference type, `&mut T` or `&T`.
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Reference(pointee) | Type::ImmutableReference(pointee) => Some(pointee),
            _ => None,
        }
    }

    /// Whether a reference to `other` may name a cell of this type: the
    /// same type, `&T` and `&mut T` alike at any depth (mutability belongs
    /// to a reference, not to the cell it names).
    pub fn is_same_cell_type(&self, other: &Type) -> bool {
        let same_elements = |a: &[Type], b: &[Type]| {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.is_same_cell_type(b))
        };
        match (self, other) {
            (
                Type::Reference(a) | Type::ImmutableReference(a),
                Type::Reference(b) | Type::ImmutableReference(b),
            ) => a.is_same_cell_type(b),
            (Type::Array(a, n), Type::Array(b, m)) => n == m && same_elements(a, b),
            (Type::Slice(a), Type::Slice(b)) => same_elements(a, b),
            _ => self == other,
        }
    }

    /// The element types of an array or slice.
    pub fn element_types(&self) -> Option<&[Type]> {
        match self {
            Type::Array(elements, _) | Type::Slice(elements) => Some(elements),
            _ => None,
        }
    }

    /// The number of flattened elements of an array type: entries times the
    /// tuple width.
    pub fn flattened_len(&self) -> Option<u64> {
        match self {
            Type::Array(elements, len) => Some(elements.len() as u64 * u64::from(*len)),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn elements(f: &mut fmt::Formatter<'_>, elements: &[Type]) -> fmt::Result {
            if let [single] = elements {
                return write!(f, "{single}");
            }
            f.write_str("(")?;
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{element}")?;
            }
            f.write_str(")")
        }
        match self {
            Type::Field => f.write_str("Field"),
            Type::Unsigned(bits) => write!(f, "u{bits}"),
            Type::Signed(bits) => write!(f, "i{bits}"),
            Type::Reference(pointee) => write!(f, "&mut {pointee}"),
            Type::ImmutableReference(pointee) => write!(f, "&{pointee}"),
            Type::Array(elems, len) => {
                f.write_str("[")?;
                elements(f, elems)?;
                write!(f, "; {len}]")
            }
            Type::Slice(elems) => {
                f.write_str("[")?;
                elements(f, elems)?;
                f.write_str("]")
            }
            Type::Function => f.write_str("function"),
            Type::Noisy => f.write_str("noisy"),
        }
    }
}
