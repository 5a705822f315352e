//! Noir's embedded curve operations, `embedded_curve_add` and
//! `multi_scalar_mul`, on Grumpkin: `y^2 = x^3 - 17` over the BN254 scalar
//! field (the IR's `Field`), a curve of prime order (BN254's base field
//! modulus), so every point on it is in the group. As Noir's solver does, a
//! point is the point at infinity when its flag is set or it is `(0, 0)`;
//! another point must be on the curve; a scalar is given as two 128-bit
//! limbs and must be below the group order. The result at infinity is
//! `(0, 0)` with its flag set.
//!
//! The curve arithmetic is `ark-grumpkin`'s: its base field is `ark-bn254`'s
//! scalar field, so coordinates pass between the two without conversion.

use std::sync::Arc;

use ark_bn254::Fr;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInt, BigInteger, PrimeField, Zero};
use ark_grumpkin::Affine;

use super::value::RuntimeValue;
use kildall_ir::Type;

/// A point of the curve, `None` at infinity.
type Point = Option<Affine>;

/// The group order, BN254's base field modulus, as (high, low) 128-bit limbs.
const ORDER: (u128, u128) = (
    64323764613183177041862057485226039389,
    201385395114098847380338600778089168199,
);

/// `embedded_curve_add(x1, y1, inf1, x2, y2, inf2[, predicate])`, or
/// without the flags as older Noir wrote it.
pub(super) fn embedded_curve_add(
    args: &[RuntimeValue],
    result_types: &[Type],
) -> Result<Vec<RuntimeValue>, String> {
    let (points, predicate) = match args.len() {
        6 | 7 => (vec![point(&args[0..3])?, point(&args[3..6])?], args.get(6)),
        4 | 5 => (vec![point(&args[0..2])?, point(&args[2..4])?], args.get(4)),
        n => return Err(format!("{n} arguments, expected two points")),
    };
    if predicate.is_some_and(|p| !p.is_true()) {
        return result(None, result_types);
    }
    result(add(points[0], points[1]), result_types)
}

/// `multi_scalar_mul(points, scalars[, predicate])`: the sum of each point
/// times its scalar, the points `(x, y, inf)` (or `(x, y)`) entries, the
/// scalars `(low, high)` limbs, tuples or flattened.
pub(super) fn multi_scalar_mul(
    args: &[RuntimeValue],
    result_types: &[Type],
) -> Result<Vec<RuntimeValue>, String> {
    let (points, scalars) = match args {
        [points, scalars, ..] => (elements(points)?, elements(scalars)?),
        _ => return Err("expected points and scalars".into()),
    };
    if args.get(2).is_some_and(|p| !p.is_true()) {
        return result(None, result_types);
    }
    if scalars.len() % 2 != 0 || scalars.is_empty() && !points.is_empty() {
        return Err(format!("{} scalar limbs, expected pairs", scalars.len()));
    }
    let count = scalars.len() / 2;
    let width = points.len().checked_div(count).unwrap_or(3);
    if !(2..=3).contains(&width) || width * count != points.len() {
        return Err(format!(
            "{} point coordinates for {count} scalars",
            points.len()
        ));
    }
    let mut sum = None;
    for (point_fields, limbs) in points.chunks_exact(width).zip(scalars.chunks_exact(2)) {
        let base = point(point_fields)?;
        let (low, high) = (limb(&limbs[0])?, limb(&limbs[1])?);
        if (high, low) >= ORDER {
            return Err(format!(
                "the scalar {high} * 2^128 + {low} is not below the group order"
            ));
        }
        sum = add(sum, multiply(base, high, low));
    }
    result(sum, result_types)
}

fn elements(value: &RuntimeValue) -> Result<&[RuntimeValue], String> {
    match value {
        RuntimeValue::Array { elements, .. } => Ok(elements),
        other => Err(format!("{other} is not an array")),
    }
}

fn field(value: &RuntimeValue) -> Result<Fr, String> {
    match value {
        RuntimeValue::Field(f) => Ok(*f),
        other => Err(format!("{other} is not a field element")),
    }
}

/// A scalar limb, below 2^128.
fn limb(value: &RuntimeValue) -> Result<u128, String> {
    let f = field(value)?;
    let bytes = f.into_bigint().to_bytes_le();
    if bytes[16..].iter().any(|&b| b != 0) {
        return Err(format!("the limb {f} is not below 2^128"));
    }
    Ok(u128::from_le_bytes(
        bytes[..16].try_into().expect("16 bytes"),
    ))
}

/// `(x, y)` or `(x, y, inf)`; the flag is a `u1` or a `Field`.
fn point(fields: &[RuntimeValue]) -> Result<Point, String> {
    let (x, y) = (field(&fields[0])?, field(&fields[1])?);
    let infinite = fields.get(2).is_some_and(RuntimeValue::is_true);
    if infinite || x.is_zero() && y.is_zero() {
        return Ok(None);
    }
    let point = Affine::new_unchecked(x, y);
    // Grumpkin has prime order: every point on the curve is in the group.
    if !point.is_on_curve() {
        return Err(format!("({x}, {y}) is not on the curve"));
    }
    Ok(Some(point))
}

fn add(p: Point, q: Point) -> Point {
    match (p, q) {
        (None, other) | (other, None) => other,
        (Some(p), Some(q)) => {
            let sum = (p + q).into_affine();
            (!sum.is_zero()).then_some(sum)
        }
    }
}

/// `scalar * base`, the scalar `high * 2^128 + low`.
fn multiply(base: Point, high: u128, low: u128) -> Point {
    let scalar = BigInt::<4>([
        low as u64,
        (low >> 64) as u64,
        high as u64,
        (high >> 64) as u64,
    ]);
    let product = base?.mul_bigint(scalar).into_affine();
    (!product.is_zero()).then_some(product)
}

/// The result as the call's type spells a point.
fn result(point: Point, result_types: &[Type]) -> Result<Vec<RuntimeValue>, String> {
    let (x, y) = point
        .and_then(|p| p.xy())
        .unwrap_or((Fr::zero(), Fr::zero()));
    let infinite = point.is_none();
    let (elements, types): (Vec<RuntimeValue>, Arc<[Type]>) = match result_types {
        [Type::Array(types, 1)] if types.len() == 3 => (
            vec![
                RuntimeValue::Field(x),
                RuntimeValue::Field(y),
                RuntimeValue::bool(infinite),
            ],
            types.clone(),
        ),
        [Type::Array(types, 1)] if types.len() == 2 => (
            vec![RuntimeValue::Field(x), RuntimeValue::Field(y)],
            types.clone(),
        ),
        [Type::Array(types, 3)] => (
            vec![
                RuntimeValue::Field(x),
                RuntimeValue::Field(y),
                RuntimeValue::Field(Fr::from(u8::from(infinite))),
            ],
            types.clone(),
        ),
        _ => return Err("the call does not return a point".into()),
    };
    Ok(vec![RuntimeValue::Array {
        elements: Arc::new(elements),
        types,
    }])
}
