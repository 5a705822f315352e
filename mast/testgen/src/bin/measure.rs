//! Times miden-core 0.23.5 on the core library it serializes: trusted
//! decoding, untrusted decoding with validation (every digest recomputed),
//! and encoding; the median of repeated runs, for comparison with the
//! `kildall-mast` benchmarks run on the same machine.
//!
//! Usage: `cargo run --release --bin measure -- mast/tests/data/core-0.23.5.mast`

use std::time::{Duration, Instant};

use miden_core::mast::{MastForest, UntrustedMastForest};
use miden_core::serde::{Deserializable, Serializable};

fn median(mut f: impl FnMut()) -> Duration {
    for _ in 0..5 {
        f();
    }
    let mut times: Vec<Duration> = (0..51)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: measure FILE");
    let bytes = std::fs::read(&path).expect("read the file");
    let forest = MastForest::read_from_bytes(&bytes).expect("trusted read");
    let trusted = median(|| {
        std::hint::black_box(MastForest::read_from_bytes(&bytes).unwrap());
    });
    let untrusted = median(|| {
        let u = UntrustedMastForest::read_from_bytes(&bytes).unwrap();
        std::hint::black_box(u.validate().unwrap());
    });
    let encode = median(|| {
        std::hint::black_box(forest.to_bytes());
    });
    println!("miden-core 0.23.5 on {path} ({} bytes):", bytes.len());
    println!("  trusted decode            {trusted:?}");
    println!("  untrusted decode+validate {untrusted:?}");
    println!("  encode                    {encode:?}");
}
