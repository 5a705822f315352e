//! The functions of the Cairo builtins that JuvixReg calls by name
//! (`poseidon`, `ec_op`), on the field element type of the Cairo ecosystem
//! (`starknet-types-core`, the crate cairo-vm's builtin runners use), for
//! the reference interpreter.

use starknet_types_core::curve::{AffinePoint, ProjectivePoint};
use starknet_types_core::felt::Felt as CoreFelt;
use starknet_types_core::hash::Poseidon;

use crate::felt::Felt;

fn to_core(f: Felt) -> CoreFelt {
    let mut bytes = [0u8; 32];
    for (i, limb) in f.limbs().iter().enumerate() {
        bytes[i * 8..i * 8 + 8].copy_from_slice(&limb.to_le_bytes());
    }
    CoreFelt::from_bytes_le(&bytes)
}

fn from_core(f: CoreFelt) -> Felt {
    let bytes = f.to_bytes_le();
    let mut limbs = [0u64; 4];
    for (i, limb) in limbs.iter_mut().enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
        *limb = u64::from_le_bytes(word);
    }
    // A core felt is canonical, so this never falls back.
    Felt::from_canonical_limbs(limbs).unwrap_or(Felt::ZERO)
}

/// The Hades permutation of Poseidon over a state of three elements, as
/// the Cairo `poseidon` builtin computes it.
pub fn poseidon(state: [Felt; 3]) -> [Felt; 3] {
    let mut s = state.map(to_core);
    Poseidon::hades_permutation(&mut s);
    s.map(from_core)
}

/// `p + m * q` on the STARK curve, as the Cairo `ec_op` builtin computes
/// it; `None` when a point is not on the curve or the result is the point
/// at infinity (which has no affine coordinates).
pub fn ec_op(p: (Felt, Felt), m: Felt, q: (Felt, Felt)) -> Option<(Felt, Felt)> {
    let p = AffinePoint::new(to_core(p.0), to_core(p.1)).ok()?;
    let q = ProjectivePoint::from_affine(to_core(q.0), to_core(q.1)).ok()?;
    let r = (&q * to_core(m)) + p;
    let r = r.to_affine().ok()?;
    if r.is_identity() {
        return None;
    }
    Some((from_core(r.x()), from_core(r.y())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        for v in [0i128, 1, -1, 12345, -98765] {
            let f = Felt::from_i128(v);
            assert_eq!(from_core(to_core(f)), f);
        }
    }

    #[test]
    fn ec_op_doubles_a_point() {
        // g + 1 * g = 2g, and 2g + 0 * g = 2g.
        let g = AffinePoint::generator();
        let g = (from_core(g.x()), from_core(g.y()));
        let two_g = ec_op(g, Felt::ONE, g).unwrap();
        assert_ne!(two_g, g);
        assert_eq!(ec_op(two_g, Felt::ZERO, g), Some(two_g));
        // g + 1 * (-g) is the point at infinity. (The scalar is an integer
        // below P, not an element of the curve's group order: `-1` as a
        // field element is P - 1, not the group's -1.)
        assert_eq!(ec_op(g, Felt::ONE, (g.0, -g.1)), None);
        // A point off the curve is refused.
        assert_eq!(ec_op((Felt::ONE, Felt::ONE), Felt::ONE, g), None);
    }
}
