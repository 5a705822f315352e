//! The arithmetic of the interpreter: binary operators on `Field`, `uN`,
//! `iN` and `noisy` values, `not`, `cast`, `truncate` and `range_check`.
//!
//! Each checked operation takes `enabled`, the side-effects predicate: when
//! it is false the operation never traps and gives the wrapped result (or
//! zero for a division by zero or an oversized shift).

use ark_bn254::Fr;
use ark_ff::{Field, PrimeField};

use kildall_ir::{BinaryOp, Type, MAX_INT_BITS};

use super::trap::TrapKind;
use super::value::{field_bits, field_to_const, mask, sign_extend, RuntimeValue};
use super::NoiseParams;

fn type_error(message: String) -> TrapKind {
    TrapKind::TypeError(message)
}

/// Checks a noisy result against the limit.
pub(super) fn check_noise(
    plaintext: u8,
    noise: u32,
    params: &NoiseParams,
    check: bool,
) -> Result<RuntimeValue, TrapKind> {
    if check && noise > params.max_bits {
        return Err(TrapKind::NoiseOverLimit {
            noise,
            max: params.max_bits,
        });
    }
    Ok(RuntimeValue::Noisy {
        plaintext: plaintext & 31,
        noise,
    })
}

/// `op lhs, rhs`.
pub(super) fn binary(
    op: BinaryOp,
    lhs: &RuntimeValue,
    rhs: &RuntimeValue,
    enabled: bool,
    noise: &NoiseParams,
    check_noise_limit: bool,
) -> Result<RuntimeValue, TrapKind> {
    use RuntimeValue as R;
    if op == BinaryOp::Eq {
        return Ok(R::bool(lhs == rhs));
    }
    match (lhs, rhs) {
        (R::Field(a), R::Field(b)) => field_binary(op, *a, *b, lhs, enabled),
        (
            &R::Int {
                bits,
                signed,
                value: a,
            },
            &R::Int {
                bits: rbits,
                signed: rsigned,
                value: b,
            },
        ) => {
            if !(1..=MAX_INT_BITS).contains(&bits) {
                return Err(type_error(format!("integer width {bits} out of range")));
            }
            let is_shift = matches!(op, BinaryOp::Shl | BinaryOp::Shr);
            if !is_shift && (bits != rbits || signed != rsigned) {
                return Err(mismatch(op, lhs, rhs));
            }
            int_binary(op, (bits, signed), (a, b), (lhs, rhs), enabled)
        }
        (
            &R::Noisy {
                plaintext: a,
                noise: na,
            },
            &R::Noisy {
                plaintext: b,
                noise: nb,
            },
        ) => {
            let (plaintext, result_noise) = match op {
                BinaryOp::Add | BinaryOp::UncheckedAdd => {
                    (a.wrapping_add(b), na.max(nb).saturating_add(1))
                }
                BinaryOp::Sub | BinaryOp::UncheckedSub => {
                    (a.wrapping_sub(b), na.max(nb).saturating_add(1))
                }
                BinaryOp::Mul | BinaryOp::UncheckedMul => {
                    (a.wrapping_mul(b), na.saturating_add(nb))
                }
                _ => return Err(type_error(format!("`{op}` is not defined on noisy values"))),
            };
            check_noise(plaintext, result_noise, noise, check_noise_limit)
        }
        (
            &R::Noisy {
                plaintext,
                noise: n,
            },
            &R::Int {
                bits,
                signed,
                value,
            },
        )
        | (
            &R::Int {
                bits,
                signed,
                value,
            },
            &R::Noisy {
                plaintext,
                noise: n,
            },
        ) => noisy_with_plaintext(
            op,
            (lhs, rhs),
            (plaintext, n),
            (bits, signed, value),
            noise,
            check_noise_limit,
        ),
        _ => Err(mismatch(op, lhs, rhs)),
    }
}

/// `op` of a noisy value and a plaintext integer (the rule is in
/// [`kildall_ir::plaintext`]): `mul` grows the noise by `ceil(log2(|c|))` bits,
/// `add`/`sub` leave it.
/// The noisy operand is `(plaintext, noise)`, the integer one `(bits,
/// signed, value)`; `lhs`, `rhs` are the operands in order.
fn noisy_with_plaintext(
    op: BinaryOp,
    (lhs, rhs): (&RuntimeValue, &RuntimeValue),
    (plaintext, noise): (u8, u32),
    (bits, signed, value): (u32, bool, u128),
    params: &NoiseParams,
    check_noise_limit: bool,
) -> Result<RuntimeValue, TrapKind> {
    let c = if signed {
        sign_extend(value, bits)
    } else {
        value as i128
    };
    // The plaintext is kept mod 32.
    let c_mod = c.rem_euclid(32) as u8;
    let noisy_first = matches!(lhs, RuntimeValue::Noisy { .. });
    let (plaintext, result_noise) = match op {
        BinaryOp::Add => (plaintext.wrapping_add(c_mod), noise),
        BinaryOp::Sub if noisy_first => (plaintext.wrapping_sub(c_mod), noise),
        BinaryOp::Sub => (c_mod.wrapping_sub(plaintext), noise),
        BinaryOp::Mul => (
            plaintext.wrapping_mul(c_mod),
            noise.saturating_add(kildall_ir::plaintext::scale_bits(c.unsigned_abs())),
        ),
        _ => return Err(mismatch(op, lhs, rhs)),
    };
    check_noise(plaintext, result_noise, params, check_noise_limit)
}

fn mismatch(op: BinaryOp, lhs: &RuntimeValue, rhs: &RuntimeValue) -> TrapKind {
    type_error(format!(
        "operands of `{op}` have different or unsupported types: {lhs} and {rhs}"
    ))
}

fn field_binary(
    op: BinaryOp,
    a: Fr,
    b: Fr,
    lhs: &RuntimeValue,
    enabled: bool,
) -> Result<RuntimeValue, TrapKind> {
    Ok(RuntimeValue::Field(match op {
        BinaryOp::Add | BinaryOp::UncheckedAdd => a + b,
        BinaryOp::Sub | BinaryOp::UncheckedSub => a - b,
        BinaryOp::Mul | BinaryOp::UncheckedMul => a * b,
        BinaryOp::Div => match b.inverse() {
            Some(inverse) => a * inverse,
            None if enabled => {
                return Err(TrapKind::DivisionByZero {
                    op,
                    lhs: lhs.clone(),
                })
            }
            None => Fr::from(0u8),
        },
        BinaryOp::Lt => return Ok(RuntimeValue::bool(a.into_bigint() < b.into_bigint())),
        BinaryOp::Eq => return Ok(RuntimeValue::bool(a == b)),
        BinaryOp::Mod
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::Shl
        | BinaryOp::Shr => return Err(type_error(format!("`{op}` is not defined on Field"))),
    }))
}

/// `op` on two integers `a`, `b` of the type `(bits, signed)`, whose
/// runtime values `lhs`, `rhs` a trap names.
fn int_binary(
    op: BinaryOp,
    (bits, signed): (u32, bool),
    (a, b): (u128, u128),
    (lhs, rhs): (&RuntimeValue, &RuntimeValue),
    enabled: bool,
) -> Result<RuntimeValue, TrapKind> {
    let m = mask(bits);
    let int = |value: u128| RuntimeValue::Int {
        bits,
        signed,
        value: value & m,
    };
    let (sa, sb) = (sign_extend(a, bits), sign_extend(b, bits));
    let (min, max) = if bits == 128 {
        (i128::MIN, i128::MAX)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    };
    // The exact result if it is representable in the type.
    let exact: Option<u128> = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul if signed => {
            let r = match op {
                BinaryOp::Add => sa.checked_add(sb),
                BinaryOp::Sub => sa.checked_sub(sb),
                _ => sa.checked_mul(sb),
            };
            r.filter(|r| (min..=max).contains(r)).map(|r| r as u128)
        }
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
            let r = match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                _ => a.checked_mul(b),
            };
            r.filter(|r| *r <= m)
        }
        _ => None,
    };
    let result = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => match exact {
            Some(r) => r,
            None if enabled => {
                return Err(TrapKind::Overflow {
                    op,
                    lhs: lhs.clone(),
                    rhs: rhs.clone(),
                })
            }
            None => wrapping(op, a, b),
        },
        BinaryOp::UncheckedAdd | BinaryOp::UncheckedSub | BinaryOp::UncheckedMul => {
            wrapping(op, a, b)
        }
        BinaryOp::Div | BinaryOp::Mod => {
            if b == 0 {
                if enabled {
                    return Err(TrapKind::DivisionByZero {
                        op,
                        lhs: lhs.clone(),
                    });
                }
                0
            } else if signed {
                let r = if op == BinaryOp::Div {
                    sa.wrapping_div(sb)
                } else {
                    sa.wrapping_rem(sb)
                };
                // Only MIN / -1 leaves the range; MIN mod -1 traps with it,
                // as a checked remainder does.
                if enabled && sa == min && sb == -1 {
                    return Err(TrapKind::Overflow {
                        op,
                        lhs: lhs.clone(),
                        rhs: rhs.clone(),
                    });
                }
                r as u128
            } else if op == BinaryOp::Div {
                a / b
            } else {
                a % b
            }
        }
        BinaryOp::Eq => return Ok(RuntimeValue::bool(a == b)),
        BinaryOp::Lt => {
            return Ok(RuntimeValue::bool(if signed { sa < sb } else { a < b }));
        }
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl | BinaryOp::Shr => {
            // The amount is read as unsigned: a negative shift is huge.
            if b >= u128::from(bits) {
                if enabled {
                    return Err(TrapKind::ShiftTooLarge {
                        op,
                        shift: rhs.clone(),
                        bits,
                    });
                }
                0
            } else if op == BinaryOp::Shl {
                a << b
            } else if signed {
                (sa >> b) as u128
            } else {
                a >> b
            }
        }
    };
    Ok(int(result))
}

fn wrapping(op: BinaryOp, a: u128, b: u128) -> u128 {
    match op {
        BinaryOp::Add | BinaryOp::UncheckedAdd => a.wrapping_add(b),
        BinaryOp::Sub | BinaryOp::UncheckedSub => a.wrapping_sub(b),
        _ => a.wrapping_mul(b),
    }
}

/// `not v`: bitwise complement.
pub(super) fn not(value: &RuntimeValue) -> Result<RuntimeValue, TrapKind> {
    match *value {
        RuntimeValue::Int {
            bits,
            signed,
            value,
        } => Ok(RuntimeValue::Int {
            bits,
            signed,
            value: !value & mask(bits),
        }),
        _ => Err(type_error(format!("`not` is not defined on {value}"))),
    }
}

/// `cast v as ty` on bit patterns, as Noir's SSA defines it. The operand's
/// pattern is its canonical representative for `Field`, its value for `uN`
/// and its `N`-bit two's complement pattern for `iN` (so widening a signed
/// value zero-extends: `cast i8 -1 as i32` is `i32 255`, and
/// `cast i8 -1 as Field` is `Field 255`; a frontend sign-extends with
/// explicit instructions). The result is that pattern read in the target:
/// any pattern is a `Field`; an `iN`/`uN` target takes it when it is below
/// `2^N` (`cast u8 200 as i8` is `i8 -56`) and traps otherwise
/// (`cast i16 -1 as i8` traps, as does a `Field` at or above `2^N`).
///
/// The trap does not depend on the predicate: such a cast is not a
/// program that Noir's SSA gives a meaning to (its narrowing is a
/// `truncate` first), whether or not it is reached under a true predicate.
pub(super) fn cast(value: &RuntimeValue, ty: &Type) -> Result<RuntimeValue, TrapKind> {
    let pattern = match *value {
        RuntimeValue::Field(f) => CastPattern::Field(f),
        RuntimeValue::Int { value: pattern, .. } => CastPattern::Int(pattern),
        _ => return Err(type_error(format!("cannot cast {value} to {ty}"))),
    };
    match *ty {
        Type::Field => Ok(RuntimeValue::Field(match pattern {
            CastPattern::Field(f) => f,
            CastPattern::Int(bits) => Fr::from(bits),
        })),
        Type::Unsigned(bits) | Type::Signed(bits) if (1..=MAX_INT_BITS).contains(&bits) => {
            let fitting = match pattern {
                CastPattern::Field(f) => field_to_const(&f).to_u128(),
                CastPattern::Int(p) => Some(p),
            };
            match fitting {
                Some(p) if p <= mask(bits) => Ok(RuntimeValue::Int {
                    bits,
                    signed: matches!(ty, Type::Signed(_)),
                    value: p,
                }),
                _ => Err(TrapKind::CastFailed {
                    value: value.clone(),
                    ty: ty.clone(),
                }),
            }
        }
        _ => Err(type_error(format!("cannot cast {value} to {ty}"))),
    }
}

/// The bit pattern a cast reads: a `Field`'s canonical representative, or
/// an integer's (unsigned) pattern.
enum CastPattern {
    Field(Fr),
    Int(u128),
}

/// `truncate v to bits bits`: the low `bits` bits, same type.
pub(super) fn truncate(value: &RuntimeValue, bits: u32) -> Result<RuntimeValue, TrapKind> {
    match *value {
        RuntimeValue::Int {
            bits: width,
            signed,
            value: v,
        } => Ok(RuntimeValue::Int {
            bits: width,
            signed,
            value: v & mask(bits),
        }),
        RuntimeValue::Field(f) => {
            if bits >= 254 {
                return Ok(value.clone());
            }
            let mut c = field_to_const(&f);
            for (i, limb) in c.0.iter_mut().enumerate() {
                let low = 64 * i as u32;
                if bits <= low {
                    *limb = 0;
                } else if bits < low + 64 {
                    *limb &= (1u64 << (bits - low)) - 1;
                }
            }
            Ok(RuntimeValue::Field(super::value::field_from_const(c)))
        }
        _ => Err(type_error(format!("`truncate` is not defined on {value}"))),
    }
}

/// Whether `v < 2^bits`: the canonical representative for `Field`, the
/// two's complement bits for `iN`.
pub(super) fn fits_bits(value: &RuntimeValue, bits: u32) -> Result<bool, TrapKind> {
    match *value {
        RuntimeValue::Int { value: v, .. } => Ok(bits >= 128 || v >> bits == 0),
        RuntimeValue::Field(f) => Ok(field_bits(&f) <= bits),
        _ => Err(type_error(format!(
            "`range_check` is not defined on {value}"
        ))),
    }
}

/// The plaintext `encode` takes from an operand: its low 5 bits.
pub(super) fn plaintext_of(value: &RuntimeValue) -> Result<u8, TrapKind> {
    match *value {
        RuntimeValue::Int { value: v, .. } => Ok((v & 31) as u8),
        RuntimeValue::Field(f) => Ok((field_to_const(&f).0[0] & 31) as u8),
        _ => Err(type_error(format!("cannot encode {value}"))),
    }
}

/// An array index as a `usize`, if it is a small integer or field element.
pub(super) fn index_of(value: &RuntimeValue) -> Result<Option<usize>, TrapKind> {
    match *value {
        RuntimeValue::Int { value: v, .. } => Ok(usize::try_from(v).ok()),
        RuntimeValue::Field(f) => Ok(field_to_const(&f)
            .to_u64()
            .and_then(|v| usize::try_from(v).ok())),
        _ => Err(type_error(format!("{value} is not an array index"))),
    }
}
