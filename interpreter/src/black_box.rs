//! The black boxes the interpreter computes: Noir's hash permutations and
//! compressions and AES-128, through the RustCrypto implementations that
//! Noir's own solver (`acvm_blackbox_solver`) calls, with its conventions:
//! SHA-256's compression reads its sixteen words big-endian, Keccak-f\[1600\]
//! permutes twenty-five lanes in place, AES-128 encrypts in CBC mode. The
//! solver crate itself is not a dependency: it brings ACIR's serialisation
//! and a second major version of arkworks beside the one this crate uses.
//!
//! Poseidon2 is computed in `poseidon2`, the embedded curve operations in
//! `grumpkin`; ECDSA verification uses the RustCrypto curves `k256` and
//! `p256` as Noir's solver does. Recursive aggregation is not computed
//! ([`compute`] returns `None`; the run traps with
//! [`TrapKind::Unsupported`](super::TrapKind::Unsupported)).

use std::sync::Arc;

use ark_bn254::Fr;
use blake2::Digest;

use super::value::RuntimeValue;
use kildall_ir::{BlackBox, Type};

/// The results of `black_box` on `args`, `None` when the interpreter does
/// not compute it, an error naming what is wrong with the arguments.
pub(super) fn compute(
    black_box: BlackBox,
    args: &[RuntimeValue],
    result_types: &[Type],
) -> Option<Result<Vec<RuntimeValue>, String>> {
    let result = match black_box {
        BlackBox::Blake2s => arg(args, 0).and_then(bytes).map(|input| {
            let digest: [u8; 32] = blake2::Blake2s256::digest(&input).into();
            vec![words(&digest.map(u128::from), 8)]
        }),
        BlackBox::Blake3 => arg(args, 0).and_then(bytes).map(|input| {
            let digest: [u8; 32] = blake3::hash(&input).into();
            vec![words(&digest.map(u128::from), 8)]
        }),
        BlackBox::Sha256Compression => sha256_compression(args),
        BlackBox::Keccakf1600 => {
            arg(args, 0)
                .and_then(|lanes| fixed::<25>(lanes, 64))
                .map(|lanes| {
                    let mut state = lanes.map(|lane| lane as u64);
                    keccak::f1600(&mut state);
                    vec![words(&state.map(u128::from), 64)]
                })
        }
        BlackBox::Aes128Encrypt => aes128_encrypt(args, result_types),
        BlackBox::EmbeddedCurveAdd => super::grumpkin::embedded_curve_add(args, result_types),
        BlackBox::MultiScalarMul => super::grumpkin::multi_scalar_mul(args, result_types),
        BlackBox::Poseidon2Permutation => poseidon2_permutation(args),
        BlackBox::EcdsaSecp256k1 | BlackBox::EcdsaSecp256r1 => ecdsa(black_box, args),
        _ => return None,
    };
    Some(result)
}

/// `ecdsa_secp256k1(key_x: [u8; 32], key_y: [u8; 32], signature: [u8; 64],
/// hashed_message: [u8; N][, predicate]) -> u1` (and `ecdsa_secp256r1`):
/// whether the signature `(r, s)` verifies, as Noir's solver decides: a
/// key off the curve, `r` or `s` zero or not below the order, and an `s`
/// in the upper half (not normalised, BIP 62) do not verify. Under a
/// predicate 0 the result is 0.
fn ecdsa(black_box: BlackBox, args: &[RuntimeValue]) -> Result<Vec<RuntimeValue>, String> {
    let (x, y, signature, message) = match args {
        [x, y, signature, message, ..] => (
            fixed::<32>(x, 8)?.map(|b| b as u8),
            fixed::<32>(y, 8)?.map(|b| b as u8),
            fixed::<64>(signature, 8)?.map(|b| b as u8),
            bytes(message)?,
        ),
        _ => return Err(format!("{} arguments, expected 4 or 5", args.len())),
    };
    if args.get(4).is_some_and(|p| !p.is_true()) {
        return Ok(vec![RuntimeValue::bool(false)]);
    }
    let verified = if black_box == BlackBox::EcdsaSecp256k1 {
        ecdsa_secp256k1(&x, &y, &signature, &message)
    } else {
        ecdsa_secp256r1(&x, &y, &signature, &message)
    };
    Ok(vec![RuntimeValue::bool(verified)])
}

/// Whether the signature verifies on the curve of the RustCrypto crate
/// `$curve` (`k256` or `p256`): a key on the curve, `r` and `s` in range,
/// `s` normalised, and the verification equation.
macro_rules! ecdsa_verify {
    ($curve:ident, $x:expr, $y:expr, $signature:expr, $message:expr) => {{
        use $curve::ecdsa::signature::hazmat::PrehashVerifier;
        use $curve::ecdsa::{Signature, VerifyingKey};
        let point = $curve::EncodedPoint::from_affine_coordinates($x.into(), $y.into(), false);
        match (
            VerifyingKey::from_encoded_point(&point),
            Signature::from_slice($signature),
        ) {
            (Ok(key), Ok(signature)) => {
                signature.normalize_s().is_none()
                    && key.verify_prehash($message, &signature).is_ok()
            }
            _ => false,
        }
    }};
}

fn ecdsa_secp256k1(x: &[u8; 32], y: &[u8; 32], signature: &[u8; 64], message: &[u8]) -> bool {
    ecdsa_verify!(k256, x, y, signature, message)
}

fn ecdsa_secp256r1(x: &[u8; 32], y: &[u8; 32], signature: &[u8; 64], message: &[u8]) -> bool {
    ecdsa_verify!(p256, x, y, signature, message)
}

/// `poseidon2_permutation(state: [Field; 4][, u32 4]) -> [Field; 4]`.
fn poseidon2_permutation(args: &[RuntimeValue]) -> Result<Vec<RuntimeValue>, String> {
    let RuntimeValue::Array { elements, types } = arg(args, 0)? else {
        return Err("the state is not an array".into());
    };
    let state: Vec<Fr> = elements
        .iter()
        .map(|element| match element {
            RuntimeValue::Field(f) => Ok(*f),
            other => Err(format!("{other} is not a field element")),
        })
        .collect::<Result<_, _>>()?;
    let len = state.len();
    let state: [Fr; 4] = state
        .try_into()
        .map_err(|_| format!("a state of {len} elements, expected 4"))?;
    let state = super::poseidon2::permutation(state);
    Ok(vec![RuntimeValue::Array {
        elements: Arc::new(state.map(RuntimeValue::Field).into()),
        types: types.clone(),
    }])
}

/// `sha256_compression(message: [u32; 16], state: [u32; 8]) -> [u32; 8]`.
fn sha256_compression(args: &[RuntimeValue]) -> Result<Vec<RuntimeValue>, String> {
    let message = fixed::<16>(arg(args, 0)?, 32)?;
    let mut state = fixed::<8>(arg(args, 1)?, 32)?.map(|word| word as u32);
    let mut block = [0u8; 64];
    for (chunk, word) in block.chunks_exact_mut(4).zip(message) {
        chunk.copy_from_slice(&(word as u32).to_be_bytes());
    }
    sha2::compress256(&mut state, &[block.into()]);
    Ok(vec![words(&state.map(u128::from), 32)])
}

/// `aes128_encrypt(input: [u8; N], iv: [u8; 16], key: [u8; 16]) -> [u8; M]`:
/// CBC mode; `M = N` (a multiple of 16) as Noir calls it now, or the
/// PKCS#7-padded length as older Noir did.
fn aes128_encrypt(
    args: &[RuntimeValue],
    result_types: &[Type],
) -> Result<Vec<RuntimeValue>, String> {
    use aes::cipher::block_padding::{NoPadding, Pkcs7};
    use aes::cipher::{BlockEncryptMut, KeyIvInit};
    type Encryptor = cbc::Encryptor<aes::Aes128>;

    let input = bytes(arg(args, 0)?)?;
    let iv = fixed::<16>(arg(args, 1)?, 8)?.map(|b| b as u8);
    let key = fixed::<16>(arg(args, 2)?, 8)?.map(|b| b as u8);
    let output_len = match result_types {
        [Type::Array(_, len)] => *len as usize,
        _ => return Err("the call does not return one array".into()),
    };
    let encryptor = Encryptor::new(&key.into(), &iv.into());
    let output = if output_len == input.len() && input.len() % 16 == 0 {
        encryptor.encrypt_padded_vec_mut::<NoPadding>(&input)
    } else if output_len == (input.len() / 16 + 1) * 16 {
        encryptor.encrypt_padded_vec_mut::<Pkcs7>(&input)
    } else {
        return Err(format!(
            "{} input bytes do not encrypt to the {output_len} of the result",
            input.len()
        ));
    };
    Ok(vec![words(
        &output.iter().map(|&b| u128::from(b)).collect::<Vec<_>>(),
        8,
    )])
}

/// Argument `i`; the verifier checks the count, but a run may be of an
/// unverified program.
fn arg(args: &[RuntimeValue], i: usize) -> Result<&RuntimeValue, String> {
    args.get(i)
        .ok_or_else(|| format!("{} argument(s), expected more than {i}", args.len()))
}

/// The elements of an array of unsigned integers of `bits` bits.
fn unsigned_elements(value: &RuntimeValue, bits: u32) -> Result<Vec<u128>, String> {
    let RuntimeValue::Array { elements, .. } = value else {
        return Err(format!("{value} is not an array"));
    };
    elements
        .iter()
        .map(|element| match *element {
            RuntimeValue::Int {
                bits: b,
                signed: false,
                value,
            } if b == bits => Ok(value),
            ref other => Err(format!("{other} is not a u{bits}")),
        })
        .collect()
}

fn bytes(value: &RuntimeValue) -> Result<Vec<u8>, String> {
    Ok(unsigned_elements(value, 8)?
        .into_iter()
        .map(|b| b as u8)
        .collect())
}

fn fixed<const N: usize>(value: &RuntimeValue, bits: u32) -> Result<[u128; N], String> {
    let elements = unsigned_elements(value, bits)?;
    let len = elements.len();
    elements
        .try_into()
        .map_err(|_| format!("an array of {len} entries, expected {N}"))
}

/// An array of `uN` of the given values.
fn words(values: &[u128], bits: u32) -> RuntimeValue {
    RuntimeValue::Array {
        elements: Arc::new(
            values
                .iter()
                .map(|&value| RuntimeValue::unsigned(bits, value))
                .collect(),
        ),
        types: Arc::from([Type::Unsigned(bits)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn byte_array(bytes: &[u8]) -> RuntimeValue {
        words(&bytes.iter().map(|&b| u128::from(b)).collect::<Vec<_>>(), 8)
    }

    fn verify(black_box: BlackBox, x: &[u8], y: &[u8], signature: &[u8], message: &[u8]) -> bool {
        let args = [x, y, signature, message].map(byte_array);
        let results = compute(black_box, &args, &[Type::BOOL]).unwrap().unwrap();
        results[0].is_true()
    }

    /// Signs with a fixed key (RFC 6979 nonces, low `s`), then checks that
    /// the signature verifies, that a changed message, key or signature does
    /// not, and that the same signature with `s` in the upper half does not.
    macro_rules! ecdsa_round_trip {
        ($name:ident, $curve:ident, $black_box:expr) => {
            #[test]
            fn $name() {
                use $curve::ecdsa::signature::hazmat::PrehashSigner;
                use $curve::ecdsa::{Signature, SigningKey};
                let key = SigningKey::from_slice(&[7u8; 32]).unwrap();
                let point = key.verifying_key().to_encoded_point(false);
                let (x, y) = (point.x().unwrap().to_vec(), point.y().unwrap().to_vec());
                let message = [0x5au8; 32];
                let signature: Signature = key.sign_prehash(&message).unwrap();
                let signature = signature.normalize_s().unwrap_or(signature);
                let bytes = signature.to_bytes().to_vec();
                assert!(verify($black_box, &x, &y, &bytes, &message));

                let mut other_message = message;
                other_message[0] ^= 1;
                assert!(!verify($black_box, &x, &y, &bytes, &other_message));
                let mut other_y = y.clone();
                other_y[31] ^= 1;
                assert!(!verify($black_box, &x, &other_y, &bytes, &message));
                let mut other_signature = bytes.clone();
                other_signature[40] ^= 1;
                assert!(!verify($black_box, &x, &y, &other_signature, &message));
                assert!(!verify($black_box, &x, &y, &[0u8; 64], &message));

                let (r, s) = signature.split_scalars();
                let high = Signature::from_scalars(r, -*s).unwrap();
                assert!(!verify($black_box, &x, &y, &high.to_bytes(), &message));
            }
        };
    }

    ecdsa_round_trip!(ecdsa_secp256k1_round_trip, k256, BlackBox::EcdsaSecp256k1);
    ecdsa_round_trip!(ecdsa_secp256r1_round_trip, p256, BlackBox::EcdsaSecp256r1);
}
