//! The functions of the Cairo builtins that JuvixReg calls by name
//! (`poseidon`, `ec_op`), on the field element type of the Cairo ecosystem
//! (`starknet-types-core`, the crate cairo-vm's builtin runners use), for
//! the reference interpreter.

use starknet_types_core::curve::AffinePoint;
use starknet_types_core::felt::Felt as CoreFelt;
use starknet_types_core::hash::Poseidon;

use crate::felt::Felt;

fn to_core(f: Felt) -> CoreFelt {
    f.to_stark()
}

fn from_core(f: CoreFelt) -> Felt {
    Felt::from_stark(f)
}

/// The Hades permutation of Poseidon over a state of three elements, as
/// the Cairo `poseidon` builtin computes it.
pub fn poseidon(state: [Felt; 3]) -> [Felt; 3] {
    let mut s = state.map(to_core);
    Poseidon::hades_permutation(&mut s);
    s.map(from_core)
}

/// `p + m * q` on the STARK curve, exactly as the Cairo `ec_op` builtin
/// computes it (cairo-lang's `ec_op_impl`, which cairo-vm's builtin runner
/// follows): 256 rounds that each check `p.x != q.x`, add `q` to `p` when
/// the round's bit of `m` is set, and double `q`. `None` when a point is
/// not on the curve or a round meets two points with the same `x` (as
/// `p = q`, or `p + m q` at infinity), where the builtin stops the run.
pub fn ec_op(p: (Felt, Felt), m: Felt, q: (Felt, Felt)) -> Option<(Felt, Felt)> {
    AffinePoint::new(to_core(p.0), to_core(p.1)).ok()?;
    AffinePoint::new(to_core(q.0), to_core(q.1)).ok()?;
    let (mut p, mut q) = (p, q);
    let bits = m.limbs();
    let three = Felt::from_u128(3);
    let two = Felt::from_u128(2);
    for i in 0..256 {
        if p.0 == q.0 {
            return None;
        }
        if (bits[i / 64] >> (i % 64)) & 1 == 1 {
            let slope = (q.1 - p.1) * (q.0 - p.0).inverse()?;
            let x = slope * slope - p.0 - q.0;
            p = (x, slope * (p.0 - x) - p.1);
        }
        // The curve's alpha is 1.
        let slope = (three * q.0 * q.0 + Felt::ONE) * (two * q.1).inverse()?;
        let x = slope * slope - two * q.0;
        q = (x, slope * (q.0 - x) - q.1);
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use starknet_types_core::curve::ProjectivePoint;

    #[test]
    fn conversions_round_trip() {
        for v in [0i128, 1, -1, 12345, -98765] {
            let f = Felt::from_i128(v);
            assert_eq!(from_core(to_core(f)), f);
        }
    }

    #[test]
    fn ec_op_follows_the_builtin() {
        let g = AffinePoint::generator();
        let core = |p: &ProjectivePoint| {
            let a = p.to_affine().unwrap();
            (from_core(a.x()), from_core(a.y()))
        };
        let pg = ProjectivePoint::from_affine(g.x(), g.y()).unwrap();
        let g = (from_core(g.x()), from_core(g.y()));
        // 2g + 5 g = 7g, against the curve crate's own arithmetic.
        let two_g = core(&(&pg + &pg));
        let seven_g = core(&(&pg * CoreFelt::from(7u64)));
        assert_eq!(ec_op(two_g, Felt::from_u128(5), g), Some(seven_g));
        // m = 0 still doubles q each round: 2g meets q = 2g in round 1.
        assert_eq!(ec_op(two_g, Felt::ZERO, g), None);
        // p = q: the builtin meets two points with the same x at once.
        assert_eq!(ec_op(g, Felt::ONE, g), None);
        // g + 1 * (-g) is the point at infinity. (The scalar is an integer
        // below P, not an element of the curve's group order: `-1` as a
        // field element is P - 1, not the group's -1.)
        assert_eq!(ec_op(g, Felt::ONE, (g.0, -g.1)), None);
        // A point off the curve is refused.
        assert_eq!(ec_op((Felt::ONE, Felt::ONE), Felt::ONE, g), None);
    }
}
