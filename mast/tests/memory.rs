//! The decoder's memory bound: decoding `n` bytes, whatever they are, never
//! has more than `K * n + C` bytes allocated at once (the decoded forest
//! included), with the constants below.
//!
//! A counting global allocator (`peak_alloc`) gives the peak of the bytes
//! held during each decode. A reallocation counts the old and the new block
//! together, as a copying allocator holds them. The inputs are valid
//! encodings of generated forests of several shapes, the same encodings with
//! bytes flipped, truncated, extended and overwritten by large counts, and
//! random bytes with and without a valid header, and the released Miden files
//! whole, cut and corrupted. Every decode runs trusted, verified, and
//! partially (one tree by each root digest of the original); the released
//! files through the reader of the released formats.
//!
//! All the measuring happens in one test function, since the counter is
//! global to the process and tests otherwise run on parallel threads.

use kildall_mast::format::{MAGIC, NODE_INFO_SIZE, VERSION};
use kildall_mast::generate::Rng;
use kildall_mast::wire;
use kildall_mast::{
    decode, decode_root, encode, generate, DecodeOptions, Decorator, Digest, EncodedForest,
    GenConfig, MastForestBuilder, Operation,
};
use peak_alloc::PeakAlloc;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

/// Bytes allocated per input byte, at most. The densest valid encoding is
/// a block of one-byte decorators, each an `(u32, Decorator)` of 24 bytes in
/// memory: measured 23.96 bytes per input byte (20,069 bytes decoded with
/// digests verified, 480,768 bytes peak). A hostile record claiming as many
/// decorators as its data leaves room for reserves no more than that
/// (measured 22.3). Everything else stays under 8.
const K: usize = 32;
/// Bytes allocated for any input, even an empty one, at most (measured:
/// 1,088 bytes for a 104-byte forest).
const C: usize = 4096;

/// Peak bytes held while `f` runs, above what was held before it (its
/// result is dropped after the measurement, so it counts).
fn peak_of<T>(f: impl FnOnce() -> T) -> usize {
    ALLOC.reset_peak_usage();
    let before = ALLOC.current_usage();
    let out = f();
    let peak = ALLOC.peak_usage().saturating_sub(before);
    drop(out);
    peak
}

#[derive(Default)]
struct Stats {
    inputs: usize,
    /// Largest `peak / len` over inputs of at least 256 bytes.
    worst_ratio: f64,
    worst_ratio_at: (usize, usize, String),
    /// Largest peak over inputs shorter than 256 bytes.
    worst_small: (usize, usize, String),
    violations: Vec<String>,
}

impl Stats {
    fn record(&mut self, len: usize, peak: usize, what: &str) {
        self.inputs += 1;
        if len >= 256 {
            let ratio = peak as f64 / len as f64;
            if ratio > self.worst_ratio {
                self.worst_ratio = ratio;
                self.worst_ratio_at = (len, peak, what.to_string());
            }
        } else if peak > self.worst_small.1 {
            self.worst_small = (len, peak, what.to_string());
        }
        if peak > K * len + C && self.violations.len() < 20 {
            self.violations
                .push(format!("{what}: {len} bytes, peak {peak} bytes allocated"));
        }
    }

    /// Decodes `bytes` every way and records the peaks.
    fn check(&mut self, bytes: &[u8], roots: &[Digest], what: &str) {
        let n = bytes.len();
        let p = peak_of(|| decode(bytes, DecodeOptions::TRUST));
        self.record(n, p, &format!("{what}, trusted"));
        let p = peak_of(|| decode(bytes, DecodeOptions::VERIFY));
        self.record(n, p, &format!("{what}, verified"));
        for d in roots {
            let p = peak_of(|| decode_root(bytes, d, DecodeOptions::TRUST));
            self.record(n, p, &format!("{what}, partial"));
        }
    }

    /// Reads `bytes` as a released format (any version), trusted and verified.
    fn check_released(&mut self, bytes: &[u8], what: &str) {
        let n = bytes.len();
        let p = peak_of(|| wire::read(bytes, DecodeOptions::TRUST));
        self.record(n, p, &format!("{what}, released format, trusted"));
        let p = peak_of(|| wire::read(bytes, DecodeOptions::VERIFY));
        self.record(n, p, &format!("{what}, released format, verified"));
    }
}

fn configs() -> Vec<(&'static str, GenConfig)> {
    let small = GenConfig::small();
    vec![
        ("small", small.clone()),
        (
            "one node",
            GenConfig {
                nodes: 1,
                ..small.clone()
            },
        ),
        (
            "tiny blocks",
            GenConfig {
                nodes: 60,
                mean_block_ops: 1,
                block_per_mille: 900,
                ..small.clone()
            },
        ),
        (
            "many decorators",
            GenConfig {
                nodes: 30,
                decorator_per_mille: 500,
                ..small.clone()
            },
        ),
        (
            "control flow only",
            GenConfig {
                nodes: 200,
                block_per_mille: 50,
                ..small.clone()
            },
        ),
        (
            "large blocks",
            GenConfig {
                nodes: 40,
                mean_block_ops: 400,
                push_per_mille: 300,
                ..small.clone()
            },
        ),
        (
            "entrypoint",
            GenConfig {
                entrypoint: true,
                ..small
            },
        ),
    ]
}

/// `value` written little-endian at `at` (as far as the input reaches).
fn write32(bytes: &mut [u8], at: usize, value: u32) {
    for (k, v) in value.to_le_bytes().into_iter().enumerate() {
        if let Some(slot) = bytes.get_mut(at + k) {
            *slot = v;
        }
    }
}

/// Random flips, truncations and large counts, and extensions, of `bytes`.
fn mutations(rng: &mut Rng, bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let len = bytes.len().max(1) as u64;
    let mut out = Vec::new();
    for _ in 0..12 {
        let at = rng.below(len) as usize;
        let mask = (rng.next_u64() as u8).max(1);
        let mut b = bytes.to_vec();
        if let Some(x) = b.get_mut(at) {
            *x ^= mask;
        }
        out.push((format!("{mask:#x} flipped at {at}"), b));
        let at = rng.below(len) as usize;
        out.push((
            format!("truncated at {at}"),
            bytes[..at.min(bytes.len())].to_vec(),
        ));
        let at = rng.below(len) as usize;
        let value = [
            u32::MAX,
            0x7FFF_FFFF,
            0x0100_0000,
            0xFFFF,
            rng.next_u64() as u32,
        ][rng.below(5) as usize];
        let mut b = bytes.to_vec();
        write32(&mut b, at, value);
        out.push((format!("{value:#x} written at {at}"), b));
    }
    for byte in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
        let mut b = bytes.to_vec();
        b.extend([byte; 200]);
        out.push((format!("extended by 200 x {byte:#x}"), b));
    }
    out
}

/// Valid encodings of generated forests and their mutations.
fn generated_forests_and_their_mutations(stats: &mut Stats, rng: &mut Rng) {
    for (name, cfg) in configs() {
        for seed in 0..4 {
            let forest = generate(seed, &cfg);
            let bytes = encode(&forest).unwrap();
            let roots: Vec<Digest> = forest.roots().map(|r| forest.digest(r)).collect();
            let what = format!("{name} seed {seed}");
            stats.check(&bytes, &roots, &what);
            // Truncations: every one of the first forest of each shape.
            if seed == 0 {
                for cut in 0..bytes.len().min(1500) {
                    stats.check(&bytes[..cut], &roots[..1], &format!("{what} cut at {cut}"));
                }
            }
            for (m_name, b) in mutations(rng, &bytes) {
                stats.check(&b, &roots[..1], &format!("{what}, {m_name}"));
            }
            // A large count in every field of the header and the first records.
            for at in 0..bytes.len().min(if seed == 0 { 200 } else { 0 }) {
                let mut b = bytes.clone();
                write32(&mut b, at, u32::MAX);
                stats.check(&b, &[], &format!("{what}, u32::MAX at {at}"));
            }
        }
    }
}

/// Valid forests as dense as the format allows in decorators (one byte
/// each) and in operations (two bytes each).
fn dense_forests(stats: &mut Stats) {
    for (ops, decs) in [(1, 20_000), (10_000, 0), (2_000, 4_000)] {
        let mut b = MastForestBuilder::new();
        let id = b
            .add_block(
                vec![Operation::Noop; ops],
                (0..decs).map(|_| (0, Decorator::StackAll)).collect(),
            )
            .unwrap();
        b.add_root(id).unwrap();
        let forest = b.build();
        let bytes = encode(&forest).unwrap();
        assert_eq!(decode(&bytes, DecodeOptions::TRUST).unwrap(), forest);
        let roots = [forest.digest(id)];
        stats.check(&bytes, &roots, &format!("{ops} noops, {decs} decorators"));
    }
}

/// Block records claiming the most operations or decorators that the data
/// section leaves room for: the decoder reserves what a record claims
/// before reading the entries, so this is the largest reservation an input
/// can ask for.
fn largest_claims(stats: &mut Stats) {
    for (name, cfg) in configs() {
        let forest = generate(7, &cfg);
        let bytes = encode(&forest).unwrap();
        let header = EncodedForest::parse(&bytes).unwrap();
        let data = header.data_size() as u32;
        for i in 0..header.node_count() {
            let at = header.infos_offset() + i as usize * NODE_INFO_SIZE;
            if bytes[at] != bytes[header.infos_offset()] {
                continue; // not a block (node 0 always is one)
            }
            let offset = u32::from_le_bytes(bytes[at + 12..at + 16].try_into().unwrap());
            let room = data - offset;
            for (ops, decs) in [(room / 2, 0), (1, room - 2), (room / 4, room / 2)] {
                let mut b = bytes.clone();
                b[at + 4..at + 8].copy_from_slice(&ops.to_le_bytes());
                b[at + 8..at + 12].copy_from_slice(&decs.to_le_bytes());
                stats.check(
                    &b,
                    &[],
                    &format!("{name}: block {i} claims {ops} ops, {decs} decorators"),
                );
            }
        }
    }
}

/// The files of the format tests, each byte flipped.
fn flipped_format_files(stats: &mut Stats) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for name in ["all_nodes", "all_ops", "library"] {
        let bytes = std::fs::read(dir.join(format!("{name}.mast"))).unwrap();
        for at in 0..bytes.len() {
            for mask in [0x01, 0xFF] {
                let mut b = bytes.clone();
                b[at] ^= mask;
                stats.check(&b, &[], &format!("{name}.mast, {mask:#x} flipped at {at}"));
            }
        }
    }
}

/// The released Miden files, whole, cut, and with bytes flipped.
fn released_files(stats: &mut Stats, rng: &mut Rng) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for name in [
        "core-0.23.5.stripped.mast",
        "core-0.23.5.hashless.mast",
        "core-0.24.2.hashless.mast",
        "core-0.23.5.masl",
        "core-1.0.0-rc.0.mast",
        "core-1.0.0-rc.0.hashless.mast",
        "std-0.10.5.mast",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        stats.check_released(&bytes, name);
        for i in 0..3 {
            let at = rng.below(bytes.len() as u64) as usize;
            stats.check_released(&bytes[..at], &format!("{name} cut at {at}"));
            let mut b = bytes.clone();
            b[at] ^= 1 << (i % 8);
            stats.check_released(&b, &format!("{name}, bit flipped at {at}"));
        }
    }
}

/// Random bytes, raw and behind a valid magic and version.
fn random_bytes(stats: &mut Stats, rng: &mut Rng) {
    for i in 0..2000 {
        let len = if i % 2 == 0 {
            rng.below(64) as usize
        } else {
            rng.below(4096) as usize
        };
        let mut b: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        stats.check(&b, &[], &format!("random {len} bytes"));
        let mut prefixed = MAGIC.to_vec();
        prefixed.extend(VERSION);
        prefixed.append(&mut b);
        stats.check(&prefixed, &[], &format!("header + random {len} bytes"));
    }
}

#[test]
fn decoding_allocates_at_most_a_small_multiple_of_the_input() {
    let mut stats = Stats::default();
    let mut rng = Rng::new(0xA110C);
    generated_forests_and_their_mutations(&mut stats, &mut rng);
    dense_forests(&mut stats);
    largest_claims(&mut stats);
    flipped_format_files(&mut stats);
    released_files(&mut stats, &mut rng);
    random_bytes(&mut stats, &mut rng);

    let (len, peak, what) = &stats.worst_ratio_at;
    eprintln!(
        "{} decodes; worst ratio {:.2} bytes per input byte ({what}: {len} bytes, peak {peak}); \
         worst short input: {:?}",
        stats.inputs, stats.worst_ratio, stats.worst_small
    );
    assert!(stats.violations.is_empty(), "{:#?}", stats.violations);
    // The bound follows the in-memory size of the densest entry.
    assert!(std::mem::size_of::<(u32, Decorator)>() <= K);
    // The measurement must see real decodes, not only early rejections.
    assert!(stats.worst_ratio > 1.0, "{}", stats.worst_ratio);
}
