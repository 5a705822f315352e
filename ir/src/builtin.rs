//! Builtins: the functions a `call` names instead of a function of the
//! module. They are Noir's intrinsics (`array_len`, `as_slice`, the slice
//! operations, `to_le_bits`, `to_le_radix`, `apply_range_constraint`, ...)
//! and its black-box functions (`poseidon2_permutation`,
//! `sha256_compression`, `keccakf1600`, ...), with their signatures.
//!
//! Slices follow Noir's convention: a slice travels with its length, so the
//! slice operations take `(length: u32, slice: [T], ...)` and return the new
//! length and slice (`slice_pop_back` also returns the popped entry after
//! them, `slice_pop_front` before them). An entry of a slice of tuples is
//! one operand per tuple element.
//!
//! `vector_enumerate` is the one builtin that calls code: the closures it
//! is given, functions of the module ([`Enumerate`]).
//!
//! Names: each builtin parses under every name Noir has used for it
//! (`slice_push_back`, `vector_push_back`, and the newest,
//! `list_push_back`). It prints under its `vector_*` name, or under its
//! `list_*` name in a function whose text used those ([`BuiltinNames`]).

use std::fmt;

use crate::Type;

/// A function provided by the toolchain, called by name: `call print(v0)`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Builtin {
    /// `assert_constant(..)`: a compile-time check; no effect at run time.
    AssertConstant,
    /// `static_assert(condition, message..)`: a compile-time check; traps at
    /// run time when the condition is false.
    StaticAssert,
    /// `print(..)`: writes its arguments to the interpreter's output
    /// (`println` is read as `print`).
    Print,
    /// `array_len(array) -> u32`: the number of entries.
    ArrayLen,
    /// `as_vector(array) -> (u32, [T])`: an array as a slice and its length.
    AsSlice,
    /// `vector_push_back(len, slice, entry..) -> (u32, [T])`.
    SlicePushBack,
    /// `vector_push_front(len, slice, entry..) -> (u32, [T])`.
    SlicePushFront,
    /// `vector_pop_back(len, slice) -> (u32, [T], entry..)`.
    SlicePopBack,
    /// `vector_pop_front(len, slice) -> (entry.., u32, [T])`.
    SlicePopFront,
    /// `vector_insert(len, slice, index, entry..) -> (u32, [T])`.
    SliceInsert,
    /// `vector_remove(len, slice, index) -> (u32, [T], entry..)`.
    SliceRemove,
    /// `vector_enumerate(len, slice, forwarded.., constrained_f,
    /// unconstrained_f, user_index: u32, reverse: u1) -> (u32, [T])`: a
    /// slice of `len` entries, entry `i` being what the closure returns
    /// when called with `(len, slice, forwarded.., i, user_index)`; the
    /// closures are called for `i` ascending, or descending when `reverse`
    /// is 1 ([`Enumerate`]).
    SliceEnumerate,
    /// `to_le_bits(x: Field) -> [u1; N]` or `to_be_bits`: the `N` bits of `x`;
    /// traps when `x` needs more.
    ToBits {
        /// Most significant bit first.
        big_endian: bool,
    },
    /// `to_le_radix(x, radix: u32) -> [u8; N]` or `to_be_radix`: the `N`
    /// digits of `x` in `radix` (a power of two, 2 to 256); traps when `x`
    /// needs more.
    ToRadix {
        /// Most significant digit first.
        big_endian: bool,
    },
    /// `apply_range_constraint(x, bits: u32)`: traps unless `x < 2^bits`.
    ApplyRangeConstraint,
    /// `field_less_than(a: Field, b: Field) -> u1`, on the canonical
    /// representatives.
    FieldLessThan,
    /// `is_unconstrained() -> u1`: whether the caller is a `brillig` function.
    IsUnconstrained,
    /// `as_witness(x)`: a hint to the ACIR generator; no effect at run time.
    AsWitness,
    /// `array_refcount(array) -> u32`: Brillig's reference count of an array.
    ArrayRefCount,
    /// `vector_refcount(len, slice) -> u32`: likewise for a slice.
    SliceRefCount,
    /// `derive_pedersen_generators(domain, start) -> [..]`.
    DerivePedersenGenerators,
    /// `black_box(x) -> x`: an optimization barrier; the identity at run time.
    Hint,
    /// A black-box function of the ACIR standard library.
    BlackBox(BlackBox),
}

/// Noir's black-box functions.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BlackBox {
    /// `aes128_encrypt(input: [u8; N], iv: [u8; 16], key: [u8; 16]) -> [u8; M]`.
    Aes128Encrypt,
    /// `and(a, b) -> a & b` on integers of one type.
    And,
    /// `xor(a, b) -> a ^ b` on integers of one type.
    Xor,
    /// `range(x, ..)`: a range constraint.
    Range,
    /// `blake2s(input: [u8; N]) -> [u8; 32]`.
    Blake2s,
    /// `blake3(input: [u8; N]) -> [u8; 32]`.
    Blake3,
    /// `ecdsa_secp256k1(..) -> u1`.
    EcdsaSecp256k1,
    /// `ecdsa_secp256r1(..) -> u1`.
    EcdsaSecp256r1,
    /// `multi_scalar_mul(points, scalars, ..) -> [Field; 3]`.
    MultiScalarMul,
    /// `embedded_curve_add(p1, p2, ..) -> [Field; 3]`.
    EmbeddedCurveAdd,
    /// `keccakf1600(state: [u64; 25]) -> [u64; 25]`.
    Keccakf1600,
    /// `recursive_aggregation(..)`: verification of a proof, checked by the backend.
    RecursiveAggregation,
    /// `poseidon2_permutation(state: [Field; N], N: u32) -> [Field; N]`.
    Poseidon2Permutation,
    /// `sha256_compression(input: [u32; 16], state: [u32; 8]) -> [u32; 8]`.
    Sha256Compression,
}

impl BlackBox {
    const ALL: [BlackBox; 14] = [
        BlackBox::Aes128Encrypt,
        BlackBox::And,
        BlackBox::Xor,
        BlackBox::Range,
        BlackBox::Blake2s,
        BlackBox::Blake3,
        BlackBox::EcdsaSecp256k1,
        BlackBox::EcdsaSecp256r1,
        BlackBox::MultiScalarMul,
        BlackBox::EmbeddedCurveAdd,
        BlackBox::Keccakf1600,
        BlackBox::RecursiveAggregation,
        BlackBox::Poseidon2Permutation,
        BlackBox::Sha256Compression,
    ];

    /// The name in the text format.
    pub fn name(self) -> &'static str {
        match self {
            BlackBox::Aes128Encrypt => "aes128_encrypt",
            BlackBox::And => "and",
            BlackBox::Xor => "xor",
            BlackBox::Range => "range",
            BlackBox::Blake2s => "blake2s",
            BlackBox::Blake3 => "blake3",
            BlackBox::EcdsaSecp256k1 => "ecdsa_secp256k1",
            BlackBox::EcdsaSecp256r1 => "ecdsa_secp256r1",
            BlackBox::MultiScalarMul => "multi_scalar_mul",
            BlackBox::EmbeddedCurveAdd => "embedded_curve_add",
            BlackBox::Keccakf1600 => "keccakf1600",
            BlackBox::RecursiveAggregation => "recursive_aggregation",
            BlackBox::Poseidon2Permutation => "poseidon2_permutation",
            BlackBox::Sha256Compression => "sha256_compression",
        }
    }
}

/// Which of Noir's names a function's slice builtins print under:
/// `as_vector` and `vector_*`, or Noir's newest, `as_list` and `list_*`.
/// Only printing depends on it; the parser records the family it read.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum BuiltinNames {
    /// `as_vector`, `vector_push_back`, ...
    #[default]
    Vector,
    /// `as_list`, `list_push_back`, ...
    List,
}

impl BuiltinNames {
    /// The family a builtin's spelling belongs to (`Vector` for every name
    /// that is not one of the `list` names).
    pub fn of_spelling(name: &str) -> BuiltinNames {
        if name == "as_list" || name.starts_with("list_") {
            BuiltinNames::List
        } else {
            BuiltinNames::Vector
        }
    }
}

/// Builtins without a black box, for name lookup.
const PLAIN: [Builtin; 23] = [
    Builtin::AssertConstant,
    Builtin::StaticAssert,
    Builtin::Print,
    Builtin::ArrayLen,
    Builtin::AsSlice,
    Builtin::SlicePushBack,
    Builtin::SlicePushFront,
    Builtin::SlicePopBack,
    Builtin::SlicePopFront,
    Builtin::SliceInsert,
    Builtin::SliceRemove,
    Builtin::SliceEnumerate,
    Builtin::ToBits { big_endian: false },
    Builtin::ToBits { big_endian: true },
    Builtin::ToRadix { big_endian: false },
    Builtin::ToRadix { big_endian: true },
    Builtin::ApplyRangeConstraint,
    Builtin::FieldLessThan,
    Builtin::IsUnconstrained,
    Builtin::AsWitness,
    Builtin::ArrayRefCount,
    Builtin::SliceRefCount,
    Builtin::DerivePedersenGenerators,
];

impl Builtin {
    /// The name in the text format.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::AssertConstant => "assert_constant",
            Builtin::StaticAssert => "static_assert",
            Builtin::Print => "print",
            Builtin::ArrayLen => "array_len",
            Builtin::AsSlice => "as_vector",
            Builtin::SlicePushBack => "vector_push_back",
            Builtin::SlicePushFront => "vector_push_front",
            Builtin::SlicePopBack => "vector_pop_back",
            Builtin::SlicePopFront => "vector_pop_front",
            Builtin::SliceInsert => "vector_insert",
            Builtin::SliceRemove => "vector_remove",
            Builtin::SliceEnumerate => "vector_enumerate",
            Builtin::ToBits { big_endian: false } => "to_le_bits",
            Builtin::ToBits { big_endian: true } => "to_be_bits",
            Builtin::ToRadix { big_endian: false } => "to_le_radix",
            Builtin::ToRadix { big_endian: true } => "to_be_radix",
            Builtin::ApplyRangeConstraint => "apply_range_constraint",
            Builtin::FieldLessThan => "field_less_than",
            Builtin::IsUnconstrained => "is_unconstrained",
            Builtin::AsWitness => "as_witness",
            Builtin::ArrayRefCount => "array_refcount",
            Builtin::SliceRefCount => "vector_refcount",
            Builtin::DerivePedersenGenerators => "derive_pedersen_generators",
            Builtin::Hint => "black_box",
            Builtin::BlackBox(b) => b.name(),
        }
    }

    /// The name in the text format under `names`.
    pub fn name_in(self, names: BuiltinNames) -> &'static str {
        if names == BuiltinNames::Vector {
            return self.name();
        }
        match self {
            Builtin::AsSlice => "as_list",
            Builtin::SlicePushBack => "list_push_back",
            Builtin::SlicePushFront => "list_push_front",
            Builtin::SlicePopBack => "list_pop_back",
            Builtin::SlicePopFront => "list_pop_front",
            Builtin::SliceInsert => "list_insert",
            Builtin::SliceRemove => "list_remove",
            Builtin::SliceRefCount => "list_refcount",
            _ => self.name(),
        }
    }

    /// The builtin with this name, under any of Noir's spellings.
    pub fn from_name(name: &str) -> Option<Builtin> {
        let name = match name {
            "println" => "print",
            "as_slice" | "as_list" => "as_vector",
            "slice_refcount" | "list_refcount" => "vector_refcount",
            _ => name
                .strip_prefix("slice_")
                .or_else(|| name.strip_prefix("list_"))
                .map_or(name, |rest| match rest {
                    "push_back" => "vector_push_back",
                    "push_front" => "vector_push_front",
                    "pop_back" => "vector_pop_back",
                    "pop_front" => "vector_pop_front",
                    "insert" => "vector_insert",
                    "remove" => "vector_remove",
                    _ => name,
                }),
        };
        PLAIN
            .into_iter()
            .chain([Builtin::Hint])
            .chain(BlackBox::ALL.into_iter().map(Builtin::BlackBox))
            .find(|b| b.name() == name)
    }

    /// Whether arguments and results fit the builtin's signature; the
    /// error says what does not. Black boxes whose signature changed across
    /// Noir versions (signatures, curves, AES, recursion) check their
    /// results only.
    pub fn check_signature(self, args: &[Type], results: &[Type]) -> Result<(), String> {
        use Builtin as B;
        let u32 = Type::U32;
        let none: &[Type] = &[];
        match self {
            B::AssertConstant | B::Print | B::AsWitness => expect_results(results, none),
            B::StaticAssert => {
                expect_first(args, &Type::BOOL, "the condition")?;
                expect_results(results, none)
            }
            B::IsUnconstrained => {
                expect_args(args, none)?;
                expect_results(results, &[Type::BOOL])
            }
            B::ArrayLen | B::ArrayRefCount => {
                expect_count(args, 1)?;
                array_entries(&args[0])?;
                expect_results(results, &[u32])
            }
            B::SliceRefCount => {
                slice_with_length(args)?;
                expect_results(results, &[u32])
            }
            B::AsSlice => {
                expect_count(args, 1)?;
                let Type::Array(elements, _) = &args[0] else {
                    return Err(format!(
                        "the argument has type `{}`, expected an array",
                        args[0]
                    ));
                };
                expect_results(results, &[u32, Type::Slice(elements.clone())])
            }
            B::SlicePushBack | B::SlicePushFront | B::SliceInsert => {
                let (slice, entry) = slice_with_length(args)?;
                let mut pushed = &args[2..];
                if self == B::SliceInsert {
                    expect_first(pushed, &u32, "the index")?;
                    pushed = &pushed[1..];
                }
                if pushed != entry {
                    return Err(format!(
                        "the entry pushed has types ({}), the slice holds ({})",
                        list(pushed),
                        list(entry)
                    ));
                }
                expect_results(results, &[u32, slice.clone()])
            }
            B::SlicePopBack | B::SlicePopFront | B::SliceRemove => {
                let (slice, entry) = slice_with_length(args)?;
                if self == B::SliceRemove {
                    expect_args(&args[2..], std::slice::from_ref(&u32))?;
                } else {
                    expect_args(&args[2..], none)?;
                }
                let mut expected = vec![u32, slice.clone()];
                if self == B::SlicePopFront {
                    expected.splice(0..0, entry.iter().cloned());
                } else {
                    expected.extend(entry.iter().cloned());
                }
                expect_results(results, &expected)
            }
            // A `Field` only, as Noir's validator requires (an integer is
            // cast to `Field` first).
            B::ToBits { .. } => {
                expect_args(args, &[Type::Field])?;
                expect_array_of(results, &Type::BOOL)
            }
            B::ToRadix { .. } => {
                expect_count(args, 2)?;
                expect_numeric(&args[0])?;
                expect_args(&args[1..], &[u32])?;
                expect_array_of(results, &Type::Unsigned(8))
            }
            B::ApplyRangeConstraint => {
                expect_count(args, 2)?;
                expect_numeric(&args[0])?;
                expect_args(&args[1..], &[u32])?;
                expect_results(results, none)
            }
            B::FieldLessThan => {
                expect_args(args, &[Type::Field, Type::Field])?;
                expect_results(results, &[Type::BOOL])
            }
            B::Hint => {
                if args != results {
                    return Err(format!(
                        "results ({}) must be the arguments' types ({})",
                        list(results),
                        list(args)
                    ));
                }
                Ok(())
            }
            B::SliceEnumerate => Enumerate::check_signature(args, results),
            B::DerivePedersenGenerators => expect_array_results(results),
            B::BlackBox(black_box) => black_box.check_signature(args, results),
        }
    }

    /// Whether a call of the builtin calls functions it is given as
    /// operands (`vector_enumerate`): it then runs code the caller cannot
    /// see, as a call through a `function` value does.
    pub fn calls_function_values(self) -> bool {
        self == Builtin::SliceEnumerate
    }
}

/// The operands of `vector_enumerate`, the intrinsic by which Noir's
/// unbounded vectors visit their entries:
///
/// ```text
/// len', slice' = call vector_enumerate(len, slice, forwarded.., f_acir, f_brillig, user_index, reverse)
/// ```
///
/// `len: u32` and `slice: [T]` are the vector enumerated; the `forwarded`
/// operands (none in the form Noir's standard library emits, a second
/// `(length, slice)` pair in Noir's own tests of the intrinsic) are passed
/// to the closure unchanged; `f_acir` and `f_brillig` are the closure's
/// constrained and unconstrained versions (Noir's representation of a
/// value of function type), of which a constrained caller calls the first
/// and an unconstrained caller the second; `user_index: u32` is passed to
/// the closure unchanged and `reverse: u1` orders the calls.
///
/// The closure is called once for each `i` in `0..len` (descending when
/// `reverse` is 1), on the *offered* operands `(len, slice, forwarded..,
/// i, user_index)`, and returns one `T`. Its parameters take the offered
/// operands in order, each the next one of its type, skipping those of
/// other types: Noir's rule, which lets a closure whose unused parameters
/// were pruned still be called ([`Enumerate::bind`]). The result is `len`
/// and a slice whose entry `i` is the value returned for `i`: a fresh slice
/// of `len` entries when `T` is numeric, else `slice` with its first `len`
/// entries replaced, as Noir's expansion of the intrinsic builds it.
///
/// Noir's expansion writes one value per entry, so the entries must have
/// one type: a slice of tuples is refused rather than half-written.
///
/// Noir's own interpreter does not run the intrinsic; its expansion (the
/// `expand_vector_enumerate` pass, constrained code only) is the semantics
/// followed here. When the length is not a compile-time constant that
/// expansion calls the closure once per entry the slice holds rather than
/// per index below `len`: the two agree when `len` counts the slice's
/// entries, as for every vector Noir's standard library builds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Enumerate {
    /// The number of operands of the call.
    pub operands: usize,
}

impl Enumerate {
    /// The fewest operands: length, slice, two closures, user index, flag.
    pub const MIN_OPERANDS: usize = 6;

    /// The layout of a call with `operands` operands, if that is enough.
    pub fn new(operands: usize) -> Option<Enumerate> {
        (operands >= Self::MIN_OPERANDS).then_some(Enumerate { operands })
    }

    /// The position of the closure a caller calls: the constrained version
    /// (`unconstrained` false) or the unconstrained one.
    pub fn closure(self, unconstrained: bool) -> usize {
        self.operands - 4 + usize::from(unconstrained)
    }

    /// The position of the user index.
    pub fn user_index(self) -> usize {
        self.operands - 2
    }

    /// The position of the reverse flag.
    pub fn reverse(self) -> usize {
        self.operands - 1
    }

    /// The positions of the operands before the closures, which the
    /// closure is offered ahead of the iteration index and the user index.
    pub fn leading(self) -> std::ops::Range<usize> {
        0..self.operands - 4
    }

    /// The types the closure is offered: those of the leading operands,
    /// then `u32` twice (the iteration index and the user index).
    pub fn offered_types(self, operand_types: &[Type]) -> Vec<Type> {
        let mut offered = operand_types[self.leading()].to_vec();
        offered.extend([Type::U32, Type::U32]);
        offered
    }

    /// For each closure parameter, the offered operand it takes: the next
    /// one of its type, skipping those of other types (the rule of Noir's
    /// expansion, `inline_closure_call`). The error names the first
    /// parameter left without one.
    pub fn bind(offered: &[Type], params: &[Type]) -> Result<Vec<usize>, String> {
        let mut next = 0;
        let mut binding = Vec::with_capacity(params.len());
        for (index, param) in params.iter().enumerate() {
            match offered[next.min(offered.len())..]
                .iter()
                .position(|ty| ty == param)
            {
                Some(skip) => {
                    binding.push(next + skip);
                    next += skip + 1;
                }
                None => {
                    return Err(format!(
                        "parameter {index} (`{param}`) takes none of the operands offered \
                         after the first {next} ({})",
                        list(offered)
                    ))
                }
            }
        }
        Ok(binding)
    }

    /// Checks a closure of parameters `params` and returns `returns` (when
    /// it returns) against a call with operands of `operand_types`.
    pub fn check_closure(
        self,
        operand_types: &[Type],
        params: &[Type],
        returns: Option<&[Type]>,
    ) -> Result<(), String> {
        Self::bind(&self.offered_types(operand_types), params)?;
        let entry = operand_types[1].element_types().unwrap_or_default();
        match returns {
            Some(returns) if returns != entry => Err(format!(
                "it returns ({}), the slice holds ({})",
                list(returns),
                list(entry)
            )),
            _ => Ok(()),
        }
    }

    fn check_signature(args: &[Type], results: &[Type]) -> Result<(), String> {
        let Some(layout) = Enumerate::new(args.len()) else {
            return Err(format!(
                "{} argument(s), expected at least {} (length, slice, constrained and \
                 unconstrained closures, user index, reverse flag)",
                args.len(),
                Self::MIN_OPERANDS
            ));
        };
        let (slice, entry) = slice_with_length(args)?;
        if entry.len() != 1 {
            return Err(format!(
                "the slice holds tuples ({}), but the closure gives one value per entry \
                 (Noir's expansion of the intrinsic writes a single value at each index)",
                list(entry)
            ));
        }
        for (position, what) in [(layout.closure(false), "the constrained closure")]
            .into_iter()
            .chain([(layout.closure(true), "the unconstrained closure")])
        {
            if args[position] != Type::Function {
                return Err(format!(
                    "{what} has type `{}`, expected `function`",
                    args[position]
                ));
            }
        }
        expect_first(&args[layout.user_index()..], &Type::U32, "the user index")?;
        expect_first(&args[layout.reverse()..], &Type::BOOL, "the reverse flag")?;
        expect_results(results, &[Type::U32, slice.clone()])
    }
}

impl BlackBox {
    fn check_signature(self, args: &[Type], results: &[Type]) -> Result<(), String> {
        let byte = Type::Unsigned(8);
        match self {
            BlackBox::And | BlackBox::Xor => {
                expect_count(args, 2)?;
                if !args[0].is_integer() || args[0] != args[1] {
                    return Err(format!(
                        "the operands have types ({}), expected two integers of one type",
                        list(args)
                    ));
                }
                expect_results(results, &args[..1])
            }
            BlackBox::Range => expect_results(results, &[]),
            BlackBox::Blake2s | BlackBox::Blake3 => {
                expect_count(args, 1)?;
                expect_array_of(std::slice::from_ref(&args[0]), &byte)?;
                expect_results(results, &[Type::array(byte, 32)])
            }
            BlackBox::Keccakf1600 => {
                let state = Type::array(Type::Unsigned(64), 25);
                expect_args(args, std::slice::from_ref(&state))?;
                expect_results(results, &[state])
            }
            BlackBox::Sha256Compression => {
                let word = Type::U32;
                expect_args(
                    args,
                    &[Type::array(word.clone(), 16), Type::array(word.clone(), 8)],
                )?;
                expect_results(results, &[Type::array(word, 8)])
            }
            BlackBox::Poseidon2Permutation => {
                // Noir dropped the state length argument (`u32 4`) once the
                // state became a fixed-size array; both spellings are read.
                match args.len() {
                    1 => {}
                    2 => expect_args(&args[1..], &[Type::U32])?,
                    n => return Err(format!("{n} argument(s), expected 1 or 2")),
                }
                expect_array_of(&args[..1], &Type::Field)?;
                expect_results(results, &args[..1])
            }
            BlackBox::EcdsaSecp256k1 | BlackBox::EcdsaSecp256r1 => {
                expect_results(results, &[Type::BOOL])
            }
            BlackBox::MultiScalarMul | BlackBox::EmbeddedCurveAdd => {
                check_point_flags(self, args)?;
                // A point: `[(Field, Field, u1); 1]` as Noir prints it now,
                // `[(Field, Field); 1]` or `[Field; 3]` in older versions.
                let point = |types: &[Type]| Type::Array(types.into(), 1);
                let spellings = [
                    point(&[Type::Field, Type::Field, Type::BOOL]),
                    point(&[Type::Field, Type::Field]),
                    Type::array(Type::Field, 3),
                ];
                match results {
                    [result] if spellings.contains(result) => Ok(()),
                    _ => Err(format!(
                        "results ({}), expected a point: ({})",
                        list(results),
                        list(&spellings)
                    )),
                }
            }
            BlackBox::Aes128Encrypt => expect_array_of(results, &byte),
            BlackBox::RecursiveAggregation => expect_results(results, &[]),
        }
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The flags of the curve operations are `u1`, as Noir's validator requires:
/// the `is_infinite` element of `multi_scalar_mul`'s points (when they are
/// `(Field, Field, u1)` tuples) and its predicate, and `embedded_curve_add`'s
/// two `is_infinite` arguments and predicate when the points are passed as
/// scalars.
fn check_point_flags(black_box: BlackBox, args: &[Type]) -> Result<(), String> {
    let flag = |index: usize, what: &str| match args.get(index) {
        Some(ty) if *ty != Type::BOOL => Err(format!(
            "argument {index} ({what}) has type `{ty}`, expected `u1`"
        )),
        _ => Ok(()),
    };
    match black_box {
        BlackBox::MultiScalarMul => {
            if let Some(elements) = args.first().and_then(Type::element_types) {
                if elements.len() == 3 && elements[2] != Type::BOOL {
                    return Err(format!(
                        "the points' infinity flag has type `{}`, expected `u1`",
                        elements[2]
                    ));
                }
            }
            flag(2, "the predicate")
        }
        _ if args.len() >= 6 => {
            flag(2, "the first point's infinity flag")?;
            flag(5, "the second point's infinity flag")?;
            flag(6, "the predicate")
        }
        _ => Ok(()),
    }
}

fn list(types: &[Type]) -> String {
    types
        .iter()
        .map(Type::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn expect_count(args: &[Type], count: usize) -> Result<(), String> {
    if args.len() == count {
        Ok(())
    } else {
        Err(format!("{} argument(s), expected {count}", args.len()))
    }
}

fn expect_args(args: &[Type], expected: &[Type]) -> Result<(), String> {
    if args == expected {
        Ok(())
    } else {
        Err(format!(
            "arguments ({}), expected ({})",
            list(args),
            list(expected)
        ))
    }
}

fn expect_first(args: &[Type], expected: &Type, what: &str) -> Result<(), String> {
    match args.first() {
        Some(ty) if ty == expected => Ok(()),
        Some(ty) => Err(format!("{what} has type `{ty}`, expected `{expected}`")),
        None => Err(format!("{what} is missing")),
    }
}

fn expect_results(results: &[Type], expected: &[Type]) -> Result<(), String> {
    if results == expected {
        Ok(())
    } else {
        Err(format!(
            "results ({}), expected ({})",
            list(results),
            list(expected)
        ))
    }
}

fn expect_numeric(ty: &Type) -> Result<(), String> {
    if ty.is_numeric() {
        Ok(())
    } else {
        Err(format!("the operand has type `{ty}`, expected a number"))
    }
}

/// One result (or argument), an array of `element`.
fn expect_array_of(types: &[Type], element: &Type) -> Result<(), String> {
    match types {
        [Type::Array(elements, _)] if elements[..] == [element.clone()] => Ok(()),
        _ => Err(format!("({}), expected one `[{element}; N]`", list(types))),
    }
}

fn expect_array_results(results: &[Type]) -> Result<(), String> {
    match results {
        [Type::Array(..)] => Ok(()),
        _ => Err(format!("results ({}), expected one array", list(results))),
    }
}

fn array_entries(ty: &Type) -> Result<(), String> {
    match ty {
        Type::Array(..) | Type::Slice(_) => Ok(()),
        _ => Err(format!("the argument has type `{ty}`, expected an array")),
    }
}

/// `(u32, [T], ..)`: the slice type and its entry types.
fn slice_with_length(args: &[Type]) -> Result<(&Type, &[Type]), String> {
    match args {
        [Type::Unsigned(32), slice @ Type::Slice(entry), ..] => Ok((slice, entry)),
        _ => Err(format!(
            "arguments ({}), expected a length `u32` and a slice first",
            list(args)
        )),
    }
}
