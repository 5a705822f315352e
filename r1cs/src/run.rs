//! A proof of a whole run as bytes: everything a verifier needs beyond the
//! program, in a versioned binary format, and its decoder, which reads
//! hostile input (every error names its byte offset, every allocation is
//! bounded by the bytes left, nothing panics).
//!
//! # The format (version 1)
//!
//! All integers are little-endian. `Fr` is a BN254 scalar in arkworks'
//! canonical compressed serialization (32 bytes, little-endian, below the
//! modulus); a Groth16 proof is arkworks' canonical compressed `Proof`
//! (`A` in G1, 32 bytes; `B` in G2, 64 bytes; `C` in G1, 32 bytes: 128
//! bytes, each point on its curve and in its prime-order subgroup).
//!
//! | field | bytes |
//! |---|---|
//! | magic `KR1CSRUN` | 8 |
//! | version, 1 | u16 |
//! | SHA-256 of the program's text | 32 |
//! | arguments of `main`: count, then each | u32, count x `Fr` |
//! | its result: count, then each | u32, count x `Fr` |
//! | instances, in the order they started: count, then each | u32 |
//! | - its block: function number, block number | u32, u32 |
//! | - its public inputs: count, then each | u32, count x `Fr` |
//! | - its proof | 128 |
//! | memory check: 0 (none) or 1 | u8 |
//! | - its execution-ordered entries: count, then each | u32 |
//! | - - flags: bit 0 valid, bits 1-2 the kind (read 0, allocate 1, write 2, initialise 3) | u8 |
//! | - - address | u128 |
//! | - - value | `Fr` |
//! | - its proof | 128 |
//!
//! Nothing follows. The sorted list and the challenges of the memory check
//! are not stored: the verifier derives them from the entries, which it
//! derives in turn from the instances' public inputs and compares with
//! these.

use ark_bn254::{Bn254, Fr};
use ark_groth16::Proof;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};

use crate::memory::{Entry, EntryKind};

/// The first bytes of a proof of a run.
pub const MAGIC: [u8; 8] = *b"KR1CSRUN";
/// The format version this crate writes and reads.
pub const VERSION: u16 = 1;

const FR_BYTES: usize = 32;
const PROOF_BYTES: usize = 128;
const ENTRY_BYTES: usize = 1 + 16 + FR_BYTES;

/// A proof of a run of a program: one Groth16 proof per executed block
/// instance and one of the memory check, with the claimed arguments and
/// result.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct RunProof {
    /// The SHA-256 of the program's text the run is of.
    pub program: [u8; 32],
    /// The arguments of `main`, flattened to field elements.
    pub args: Vec<Fr>,
    /// What `main` returned, flattened.
    pub result: Vec<Fr>,
    /// The instances, in the order they started.
    pub instances: Vec<InstanceProof>,
    /// The memory check, when the run accessed memory.
    pub memory: Option<MemoryCheckProof>,
}

/// A proof of one block instance.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct InstanceProof {
    /// The function's number.
    pub function: u32,
    /// The block's number.
    pub block: u32,
    /// The public inputs (the block's interface).
    pub public: Vec<Fr>,
    /// The Groth16 proof.
    pub proof: Proof<Bn254>,
}

/// The memory check's entries and proof.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct MemoryCheckProof {
    /// The execution-ordered entries.
    pub entries: Vec<Entry>,
    /// The Groth16 proof.
    pub proof: Proof<Bn254>,
}

/// What is wrong with bytes that should hold a proof of a run.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum DecodeError {
    /// The bytes do not start with [`MAGIC`].
    #[error("byte 0: not a proof of a run (no `KR1CSRUN` magic)")]
    Magic,
    /// Another version of the format.
    #[error("byte 8: format version {0}, this verifier reads version 1")]
    Version(u16),
    /// The bytes end inside a field.
    #[error("byte {offset}: {what} needs {needed} bytes, {left} left")]
    Truncated {
        /// Where the field starts.
        offset: usize,
        /// The field.
        what: &'static str,
        /// Its size.
        needed: usize,
        /// The bytes left.
        left: usize,
    },
    /// A count larger than the bytes left could hold.
    #[error("byte {offset}: {count} {what} cannot fit in the {left} bytes left")]
    Count {
        /// Where the count is.
        offset: usize,
        /// What it counts.
        what: &'static str,
        /// The count.
        count: u32,
        /// The bytes left after it.
        left: usize,
    },
    /// A field element not below the modulus.
    #[error("byte {offset}: {what} is not a canonical BN254 scalar")]
    Scalar {
        /// Where it is.
        offset: usize,
        /// What it is.
        what: &'static str,
    },
    /// A proof whose points are not on the curve or not in the subgroup.
    #[error(
        "byte {offset}: {what} is not a valid Groth16 proof (points off the curve or the subgroup)"
    )]
    Proof {
        /// Where it is.
        offset: usize,
        /// Whose proof.
        what: &'static str,
    },
    /// A memory check flag other than 0 or 1.
    #[error("byte {offset}: memory check flag {flag}, expected 0 or 1")]
    MemoryFlag {
        /// Where it is.
        offset: usize,
        /// The flag.
        flag: u8,
    },
    /// An entry's flags with bits above bit 2 set.
    #[error("byte {offset}: entry flags {flags:#04x} set bits above bit 2")]
    EntryFlags {
        /// Where they are.
        offset: usize,
        /// The flags.
        flags: u8,
    },
    /// Bytes after the end.
    #[error("byte {offset}: {left} bytes after the end of the proof")]
    Trailing {
        /// Where the proof ends.
        offset: usize,
        /// How many bytes follow.
        left: usize,
    },
}

impl RunProof {
    /// The proof in the format of version [`VERSION`].
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.program);
        write_scalars(&mut out, &self.args);
        write_scalars(&mut out, &self.result);
        write_len(&mut out, self.instances.len());
        for instance in &self.instances {
            out.extend_from_slice(&instance.function.to_le_bytes());
            out.extend_from_slice(&instance.block.to_le_bytes());
            write_scalars(&mut out, &instance.public);
            write_proof(&mut out, &instance.proof);
        }
        match &self.memory {
            None => out.push(0),
            Some(memory) => {
                out.push(1);
                write_len(&mut out, memory.entries.len());
                for e in &memory.entries {
                    let code = match e.kind {
                        EntryKind::Read => 0,
                        EntryKind::Allocate => 1,
                        EntryKind::Write => 2,
                        EntryKind::Initialise => 3,
                    };
                    out.push(u8::from(e.valid) | (code << 1));
                    out.extend_from_slice(&e.key.to_le_bytes());
                    write_scalar(&mut out, e.value);
                }
                write_proof(&mut out, &memory.proof);
            }
        }
        out
    }

    /// Reads a proof of a run, as hostile input.
    pub fn decode(bytes: &[u8]) -> Result<RunProof, DecodeError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "the magic").ok() != Some(&MAGIC[..]) {
            return Err(DecodeError::Magic);
        }
        let version = r.u16("the version")?;
        if version != VERSION {
            return Err(DecodeError::Version(version));
        }
        let program = r
            .take(32, "the program's digest")?
            .try_into()
            .expect("32 bytes");
        let args = r.scalars("arguments")?;
        let result = r.scalars("result values")?;
        let count = r.count("instances", 12 + PROOF_BYTES)?;
        let mut instances = Vec::with_capacity(count);
        for _ in 0..count {
            let function = r.u32("an instance's function")?;
            let block = r.u32("an instance's block")?;
            let public = r.scalars("public inputs")?;
            let proof = r.proof("an instance's proof")?;
            instances.push(InstanceProof {
                function,
                block,
                public,
                proof,
            });
        }
        let flag_at = r.at;
        let memory = match r.take(1, "the memory check flag")?[0] {
            0 => None,
            1 => {
                let count = r.count("memory check entries", ENTRY_BYTES)?;
                let mut entries = Vec::with_capacity(count);
                for _ in 0..count {
                    entries.push(r.entry()?);
                }
                let proof = r.proof("the memory check's proof")?;
                Some(MemoryCheckProof { entries, proof })
            }
            flag => {
                return Err(DecodeError::MemoryFlag {
                    offset: flag_at,
                    flag,
                })
            }
        };
        if r.at != bytes.len() {
            return Err(DecodeError::Trailing {
                offset: r.at,
                left: bytes.len() - r.at,
            });
        }
        Ok(RunProof {
            program,
            args,
            result,
            instances,
            memory,
        })
    }
}

fn write_len(out: &mut Vec<u8>, n: usize) {
    let n = u32::try_from(n).expect("fewer than 2^32 items");
    out.extend_from_slice(&n.to_le_bytes());
}

fn write_scalar(out: &mut Vec<u8>, x: Fr) {
    x.serialize_compressed(&mut *out)
        .expect("a Vec takes any bytes");
}

fn write_scalars(out: &mut Vec<u8>, xs: &[Fr]) {
    write_len(out, xs.len());
    for &x in xs {
        write_scalar(out, x);
    }
}

fn write_proof(out: &mut Vec<u8>, proof: &Proof<Bn254>) {
    proof
        .serialize_compressed(&mut *out)
        .expect("a Vec takes any bytes");
}

/// A cursor over hostile bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        if self.left() < n {
            return Err(DecodeError::Truncated {
                offset: self.at,
                what,
                needed: n,
                left: self.left(),
            });
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u16(&mut self, what: &'static str) -> Result<u16, DecodeError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A count of items of at least `size` bytes each, checked against
    /// the bytes left before anything is allocated for them.
    fn count(&mut self, what: &'static str, size: usize) -> Result<usize, DecodeError> {
        let offset = self.at;
        let count = self.u32(what)?;
        let fits = (count as usize)
            .checked_mul(size)
            .is_some_and(|n| n <= self.left());
        if !fits {
            return Err(DecodeError::Count {
                offset,
                what,
                count,
                left: self.left(),
            });
        }
        Ok(count as usize)
    }

    fn scalar(&mut self, what: &'static str) -> Result<Fr, DecodeError> {
        let offset = self.at;
        let mut b = self.take(FR_BYTES, what)?;
        Fr::deserialize_compressed(&mut b).map_err(|_| DecodeError::Scalar { offset, what })
    }

    fn scalars(&mut self, what: &'static str) -> Result<Vec<Fr>, DecodeError> {
        let count = self.count(what, FR_BYTES)?;
        (0..count).map(|_| self.scalar(what)).collect()
    }

    fn proof(&mut self, what: &'static str) -> Result<Proof<Bn254>, DecodeError> {
        let offset = self.at;
        let mut b = self.take(PROOF_BYTES, what)?;
        Proof::deserialize_compressed(&mut b).map_err(|_| DecodeError::Proof { offset, what })
    }

    fn entry(&mut self) -> Result<Entry, DecodeError> {
        let offset = self.at;
        let flags = self.take(1, "an entry's flags")?[0];
        if flags >> 3 != 0 {
            return Err(DecodeError::EntryFlags { offset, flags });
        }
        let kind = match flags >> 1 {
            0 => EntryKind::Read,
            1 => EntryKind::Allocate,
            2 => EntryKind::Write,
            _ => EntryKind::Initialise,
        };
        let key = self.take(16, "an entry's address")?;
        let key = u128::from_le_bytes(key.try_into().expect("16 bytes"));
        let value = self.scalar("an entry's value")?;
        Ok(Entry {
            valid: flags & 1 == 1,
            key,
            value,
            kind,
        })
    }
}
