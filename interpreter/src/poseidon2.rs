//! The Poseidon2 permutation over BN254 as Noir's `poseidon2_permutation`
//! computes it (Grassi, Khovratovich and Schofnegger, "Poseidon2: A Faster
//! Version of the Poseidon Hash Function", 2023): width 4, S-box `x^5`, 8
//! full rounds around 56 partial ones, the external matrix `M4` of the
//! paper, and the internal matrix `1 + diag(d)` with the reference
//! instance's diagonal.
//!
//! The round constants are generated as the reference implementation
//! generates them, by the Grain LFSR of the Poseidon paper (Grassi et al.,
//! 2019, appendix F) seeded with the instance (prime field, `x^alpha`,
//! 254-bit field, width 4, 8 full and 56 partial rounds), rejecting samples
//! not below the modulus: four constants per full round, one per partial
//! round.

use std::sync::LazyLock;

use ark_bn254::Fr;
use ark_ff::{BigInteger, PrimeField};

const WIDTH: usize = 4;
const FULL_ROUNDS: usize = 8;
const PARTIAL_ROUNDS: usize = 56;
const FIELD_BITS: usize = 254;

/// The diagonal `d` of the internal matrix `1 + diag(d)` (the reference
/// instance for BN254, width 4).
const INTERNAL_DIAGONAL: [&str; WIDTH] = [
    "7626475329478847982857743246276194948757851985510858890691733676098590062311",
    "5498568565063849786384470689962419967523752476452646391422913716315471115275",
    "148936322117705719734052984176402258788283488576388928671173547788498414613",
    "15456385653678559339152734484033356164266089951521103188900320352052358038155",
];

struct Constants {
    /// In round order: `WIDTH` per full round, one per partial round.
    rounds: Vec<Fr>,
    diagonal: [Fr; WIDTH],
}

static CONSTANTS: LazyLock<Constants> = LazyLock::new(|| {
    let mut grain = Grain::new();
    let count = FULL_ROUNDS * WIDTH + PARTIAL_ROUNDS;
    let rounds = (0..count).map(|_| grain.field_element()).collect();
    let diagonal = INTERNAL_DIAGONAL.map(|d| d.parse().expect("a field element"));
    Constants { rounds, diagonal }
});

/// The permutation of a state of four field elements.
pub(super) fn permutation(mut state: [Fr; WIDTH]) -> [Fr; WIDTH] {
    let constants = &*CONSTANTS;
    let (first, rest) = constants.rounds.split_at(FULL_ROUNDS / 2 * WIDTH);
    let (partial, last) = rest.split_at(PARTIAL_ROUNDS);
    external(&mut state);
    for round in first.chunks_exact(WIDTH) {
        full_round(&mut state, round);
    }
    for &c in partial {
        state[0] = sbox(state[0] + c);
        let sum: Fr = state.iter().sum();
        for (x, d) in state.iter_mut().zip(constants.diagonal) {
            *x = *x * d + sum;
        }
    }
    for round in last.chunks_exact(WIDTH) {
        full_round(&mut state, round);
    }
    state
}

fn full_round(state: &mut [Fr; WIDTH], constants: &[Fr]) {
    for (x, &c) in state.iter_mut().zip(constants) {
        *x = sbox(*x + c);
    }
    external(state);
}

fn sbox(x: Fr) -> Fr {
    let x2 = x * x;
    x2 * x2 * x
}

/// The paper's `M4`: rows (5 7 1 3), (4 6 1 1), (1 3 5 7), (1 1 4 6).
fn external(state: &mut [Fr; WIDTH]) {
    let [a, b, c, d] = *state;
    let ab = a + b;
    let cd = c + d;
    let b2_cd = b + b + cd;
    let d2_ab = d + d + ab;
    let four_cd = cd + cd + cd + cd + d2_ab;
    let four_ab = ab + ab + ab + ab + b2_cd;
    *state = [d2_ab + four_ab, four_ab, b2_cd + four_cd, four_cd];
}

/// The Grain LFSR in its self-shrinking mode.
struct Grain {
    bits: [bool; 80],
}

impl Grain {
    fn new() -> Self {
        let mut seed = Vec::with_capacity(80);
        let mut push = |value: usize, width: usize| {
            seed.extend((0..width).rev().map(|i| value >> i & 1 == 1));
        };
        push(1, 2); // a prime field
        push(0, 4); // the S-box x^alpha
        push(FIELD_BITS, 12);
        push(WIDTH, 12);
        push(FULL_ROUNDS, 10);
        push(PARTIAL_ROUNDS, 10);
        seed.extend([true; 30]);
        let mut grain = Grain {
            bits: seed.try_into().expect("80 bits"),
        };
        for _ in 0..160 {
            grain.step();
        }
        grain
    }

    fn step(&mut self) -> bool {
        let b = &self.bits;
        let new = b[62] ^ b[51] ^ b[38] ^ b[23] ^ b[13] ^ b[0];
        self.bits.copy_within(1.., 0);
        self.bits[79] = new;
        new
    }

    /// One output bit: a pair of bits gives its second when the first is 1.
    fn bit(&mut self) -> bool {
        loop {
            let keep = self.step();
            let bit = self.step();
            if keep {
                return bit;
            }
        }
    }

    /// A field element from `FIELD_BITS` bits, most significant first,
    /// sampled again while not below the modulus.
    fn field_element(&mut self) -> Fr {
        loop {
            let bits: Vec<bool> = (0..FIELD_BITS).map(|_| self.bit()).collect();
            let value = <Fr as PrimeField>::BigInt::from_bits_be(&bits);
            if let Some(f) = Fr::from_bigint(value) {
                return f;
            }
        }
    }
}
