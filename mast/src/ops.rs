//! The operation set of Miden VM, across its released versions.
//!
//! Opcodes are 7-bit values and moved between versions: the table below
//! gives each operation's opcode in miden-core 0.10, in miden-core 0.23 (and
//! 0.24) and in miden-core 1.0 (`operations::opcode_constants` of each),
//! `None` where the version does not have the operation. 1.0 differs from
//! 0.23 in one opcode: `0x50` is `compress` (one Eidos compression) where it
//! was `hperm`; 0.23's `log_precompile` is 1.0's `log_deferred`, the same
//! opcode. Names are those miden-core's `Display` prints.
//! `Push` carries a field element; `Assert`, `MpVerify` and `U32assert2`
//! carry an error code, which is not part of the operation's hash: a `u32`
//! up to 0.10, a full field element from 0.23 on.

use core::fmt;
use core::str::FromStr;

use crate::felt::Felt;

/// An instruction-set version: which opcodes the operations have.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Isa {
    /// miden-core 0.10 (and the draft format), hashed with RPO256.
    #[default]
    V0_10,
    /// miden-core 0.23 and 0.24, hashed with Poseidon2.
    V0_23,
    /// miden-core 1.0, hashed with Eidos.
    V1_0,
}

impl Isa {
    /// The hash function of forests of this version.
    pub fn hasher(self) -> crate::hash::Hasher {
        match self {
            Isa::V0_10 => crate::hash::Hasher::Rpo256,
            Isa::V0_23 => crate::hash::Hasher::Poseidon2,
            Isa::V1_0 => crate::hash::Hasher::Eidos,
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Isa::V0_10 => "miden 0.10",
            Isa::V0_23 => "miden 0.23",
            Isa::V1_0 => "miden 1.0",
        })
    }
}

macro_rules! operations {
    ($( $(#[$doc:meta])* $variant:ident = ($v10:expr, $v23:expr, $v1:expr), $name:literal; )*) => {
        /// One VM operation.
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Operation {
            $( $(#[$doc])* $variant, )*
            /// Pushes the immediate field element onto the stack.
            Push(Felt),
            /// Pops the stack and fails with the error code unless the value was 1.
            Assert(Felt),
            /// Verifies a Merkle path; fails with the error code otherwise.
            MpVerify(Felt),
            /// Checks that the top two elements are `u32`; fails with the error code otherwise.
            U32assert2(Felt),
        }

        impl Operation {
            /// Every operation without an immediate, in the order of the source table.
            pub const SIMPLE: &'static [Operation] = &[$(Operation::$variant,)*];

            /// The 7-bit opcode in version `isa`, `None` if that version does not have it.
            pub const fn opcode_in(&self, isa: Isa) -> Option<u8> {
                let (v10, v23, v1): (Option<u8>, Option<u8>, Option<u8>) = match self {
                    $( Operation::$variant => ($v10, $v23, $v1), )*
                    Operation::Push(_) => {
                        (Some(OPCODE_PUSH_0_10), Some(OPCODE_PUSH_0_23), Some(OPCODE_PUSH_0_23))
                    }
                    Operation::Assert(_) => (Some(OPCODE_ASSERT), Some(OPCODE_ASSERT), Some(OPCODE_ASSERT)),
                    Operation::MpVerify(_) => {
                        (Some(OPCODE_MPVERIFY), Some(OPCODE_MPVERIFY), Some(OPCODE_MPVERIFY))
                    }
                    Operation::U32assert2(_) => {
                        (Some(OPCODE_U32ASSERT2), Some(OPCODE_U32ASSERT2), Some(OPCODE_U32ASSERT2))
                    }
                };
                match isa {
                    Isa::V0_10 => v10,
                    Isa::V0_23 => v23,
                    Isa::V1_0 => v1,
                }
            }

            /// The name as Miden prints it, without the immediate.
            pub const fn name(&self) -> &'static str {
                match self {
                    $( Operation::$variant => $name, )*
                    Operation::Push(_) => "push",
                    Operation::Assert(_) => "assert",
                    Operation::MpVerify(_) => "mpverify",
                    Operation::U32assert2(_) => "u32assert2",
                }
            }

            fn simple_from_name(name: &str) -> Option<Operation> {
                match name {
                    $( $name => Some(Operation::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

/// Opcode of `assert` (every version).
pub const OPCODE_ASSERT: u8 = 0b0010_0000;
/// Opcode of `u32assert2` (every version).
pub const OPCODE_U32ASSERT2: u8 = 0b0100_1010;
/// Opcode of `mpverify` (every version).
pub const OPCODE_MPVERIFY: u8 = 0b0101_0001;
/// Opcode of `push` in miden-core 0.10.
pub const OPCODE_PUSH_0_10: u8 = 0b0110_0100;
/// Opcode of `push` in miden-core 0.23.
pub const OPCODE_PUSH_0_23: u8 = 0b0101_1011;

/// Operations without immediate by opcode, per version.
const fn simple_table(isa: Isa) -> [Option<Operation>; 128] {
    let mut table = [None; 128];
    let mut i = 0;
    while i < Operation::SIMPLE.len() {
        let op = Operation::SIMPLE[i];
        if let Some(code) = op.opcode_in(isa) {
            table[code as usize] = Some(op);
        }
        i += 1;
    }
    table
}

const SIMPLE_0_10: [Option<Operation>; 128] = simple_table(Isa::V0_10);
const SIMPLE_0_23: [Option<Operation>; 128] = simple_table(Isa::V0_23);
const SIMPLE_1_0: [Option<Operation>; 128] = simple_table(Isa::V1_0);

operations! {
    /// Does nothing for one cycle.
    Noop = (Some(0b0000_0000), Some(0b0000_0000), Some(0b0000_0000)), "noop";
    /// `a == 0`.
    Eqz = (Some(0b0000_0001), Some(0b0000_0001), Some(0b0000_0001)), "eqz";
    /// Field negation.
    Neg = (Some(0b0000_0010), Some(0b0000_0010), Some(0b0000_0010)), "neg";
    /// Field inverse.
    Inv = (Some(0b0000_0011), Some(0b0000_0011), Some(0b0000_0011)), "inv";
    /// Adds one.
    Incr = (Some(0b0000_0100), Some(0b0000_0100), Some(0b0000_0100)), "incr";
    /// Boolean not.
    Not = (Some(0b0000_0101), Some(0b0000_0101), Some(0b0000_0101)), "not";
    /// Adds the frame pointer.
    FmpAdd = (Some(0b0000_0110), None, None), "fmpadd";
    /// Loads one element from memory.
    MLoad = (Some(0b0000_0111), Some(0b0000_0111), Some(0b0000_0111)), "mload";
    /// Swaps the top two elements.
    Swap = (Some(0b0000_1000), Some(0b0000_1000), Some(0b0000_1000)), "swap";
    /// Hash of the caller of the current syscall.
    Caller = (Some(0b0000_1001), Some(0b0000_1001), Some(0b0000_1001)), "caller";
    /// Moves element 2 to the top.
    MovUp2 = (Some(0b0000_1010), Some(0b0000_1010), Some(0b0000_1010)), "movup2";
    /// Moves the top to position 2.
    MovDn2 = (Some(0b0000_1011), Some(0b0000_1011), Some(0b0000_1011)), "movdn2";
    /// Moves element 3 to the top.
    MovUp3 = (Some(0b0000_1100), Some(0b0000_1100), Some(0b0000_1100)), "movup3";
    /// Moves the top to position 3.
    MovDn3 = (Some(0b0000_1101), Some(0b0000_1101), Some(0b0000_1101)), "movdn3";
    /// Pops a word from the advice stack.
    AdvPopW = (Some(0b0000_1110), Some(0b0000_1110), Some(0b0000_1110)), "advpopw";
    /// One step of exponent accumulation.
    Expacc = (Some(0b0000_1111), Some(0b0000_1111), Some(0b0000_1111)), "expacc";
    /// Moves element 4 to the top.
    MovUp4 = (Some(0b0001_0000), Some(0b0001_0000), Some(0b0001_0000)), "movup4";
    /// Moves the top to position 4.
    MovDn4 = (Some(0b0001_0001), Some(0b0001_0001), Some(0b0001_0001)), "movdn4";
    /// Moves element 5 to the top.
    MovUp5 = (Some(0b0001_0010), Some(0b0001_0010), Some(0b0001_0010)), "movup5";
    /// Moves the top to position 5.
    MovDn5 = (Some(0b0001_0011), Some(0b0001_0011), Some(0b0001_0011)), "movdn5";
    /// Moves element 6 to the top.
    MovUp6 = (Some(0b0001_0100), Some(0b0001_0100), Some(0b0001_0100)), "movup6";
    /// Moves the top to position 6.
    MovDn6 = (Some(0b0001_0101), Some(0b0001_0101), Some(0b0001_0101)), "movdn6";
    /// Moves element 7 to the top.
    MovUp7 = (Some(0b0001_0110), Some(0b0001_0110), Some(0b0001_0110)), "movup7";
    /// Moves the top to position 7.
    MovDn7 = (Some(0b0001_0111), Some(0b0001_0111), Some(0b0001_0111)), "movdn7";
    /// Swaps words 0 and 1.
    SwapW = (Some(0b0001_1000), Some(0b0001_1000), Some(0b0001_1000)), "swapw";
    /// Multiplication in the quadratic extension.
    Ext2Mul = (Some(0b0001_1001), Some(0b0001_1001), Some(0b0001_1001)), "ext2mul";
    /// Moves element 8 to the top.
    MovUp8 = (Some(0b0001_1010), Some(0b0001_1010), Some(0b0001_1010)), "movup8";
    /// Moves the top to position 8.
    MovDn8 = (Some(0b0001_1011), Some(0b0001_1011), Some(0b0001_1011)), "movdn8";
    /// Swaps words 0 and 2.
    SwapW2 = (Some(0b0001_1100), Some(0b0001_1100), Some(0b0001_1100)), "swapw2";
    /// Swaps words 0 and 3.
    SwapW3 = (Some(0b0001_1101), Some(0b0001_1101), Some(0b0001_1101)), "swapw3";
    /// Swaps double words.
    SwapDW = (Some(0b0001_1110), Some(0b0001_1110), Some(0b0001_1110)), "swapdw";
    /// Equality.
    Eq = (Some(0b0010_0001), Some(0b0010_0001), Some(0b0010_0001)), "eq";
    /// Field addition.
    Add = (Some(0b0010_0010), Some(0b0010_0010), Some(0b0010_0010)), "add";
    /// Field multiplication.
    Mul = (Some(0b0010_0011), Some(0b0010_0011), Some(0b0010_0011)), "mul";
    /// Boolean and.
    And = (Some(0b0010_0100), Some(0b0010_0100), Some(0b0010_0100)), "and";
    /// Boolean or.
    Or = (Some(0b0010_0101), Some(0b0010_0101), Some(0b0010_0101)), "or";
    /// Bitwise and of `u32` values.
    U32and = (Some(0b0010_0110), Some(0b0010_0110), Some(0b0010_0110)), "u32and";
    /// Bitwise xor of `u32` values.
    U32xor = (Some(0b0010_0111), Some(0b0010_0111), Some(0b0010_0111)), "u32xor";
    /// FRI folding step.
    FriE2F4 = (Some(0b0010_1000), Some(0b0010_1000), Some(0b0010_1000)), "frie2f4";
    /// Drops the top element.
    Drop = (Some(0b0010_1001), Some(0b0010_1001), Some(0b0010_1001)), "drop";
    /// Conditional swap.
    CSwap = (Some(0b0010_1010), Some(0b0010_1010), Some(0b0010_1010)), "cswap";
    /// Conditional word swap.
    CSwapW = (Some(0b0010_1011), Some(0b0010_1011), Some(0b0010_1011)), "cswapw";
    /// Loads a word from memory.
    MLoadW = (Some(0b0010_1100), Some(0b0010_1100), Some(0b0010_1100)), "mloadw";
    /// Stores one element to memory.
    MStore = (Some(0b0010_1101), Some(0b0010_1101), Some(0b0010_1101)), "mstore";
    /// Stores a word to memory.
    MStoreW = (Some(0b0010_1110), Some(0b0010_1110), Some(0b0010_1110)), "mstorew";
    /// Updates the frame pointer.
    FmpUpdate = (Some(0b0010_1111), None, None), "fmpupdate";
    /// Pushes zero.
    Pad = (Some(0b0011_0000), Some(0b0011_0000), Some(0b0011_0000)), "pad";
    /// Duplicates element 0.
    Dup0 = (Some(0b0011_0001), Some(0b0011_0001), Some(0b0011_0001)), "dup0";
    /// Duplicates element 1.
    Dup1 = (Some(0b0011_0010), Some(0b0011_0010), Some(0b0011_0010)), "dup1";
    /// Duplicates element 2.
    Dup2 = (Some(0b0011_0011), Some(0b0011_0011), Some(0b0011_0011)), "dup2";
    /// Duplicates element 3.
    Dup3 = (Some(0b0011_0100), Some(0b0011_0100), Some(0b0011_0100)), "dup3";
    /// Duplicates element 4.
    Dup4 = (Some(0b0011_0101), Some(0b0011_0101), Some(0b0011_0101)), "dup4";
    /// Duplicates element 5.
    Dup5 = (Some(0b0011_0110), Some(0b0011_0110), Some(0b0011_0110)), "dup5";
    /// Duplicates element 6.
    Dup6 = (Some(0b0011_0111), Some(0b0011_0111), Some(0b0011_0111)), "dup6";
    /// Duplicates element 7.
    Dup7 = (Some(0b0011_1000), Some(0b0011_1000), Some(0b0011_1000)), "dup7";
    /// Duplicates element 9.
    Dup9 = (Some(0b0011_1001), Some(0b0011_1001), Some(0b0011_1001)), "dup9";
    /// Duplicates element 11.
    Dup11 = (Some(0b0011_1010), Some(0b0011_1010), Some(0b0011_1010)), "dup11";
    /// Duplicates element 13.
    Dup13 = (Some(0b0011_1011), Some(0b0011_1011), Some(0b0011_1011)), "dup13";
    /// Duplicates element 15.
    Dup15 = (Some(0b0011_1100), Some(0b0011_1100), Some(0b0011_1100)), "dup15";
    /// Pops one element from the advice stack.
    AdvPop = (Some(0b0011_1101), Some(0b0011_1101), Some(0b0011_1101)), "advpop";
    /// Pushes the stack depth.
    SDepth = (Some(0b0011_1110), Some(0b0011_1110), Some(0b0011_1110)), "sdepth";
    /// Pushes the clock cycle.
    Clk = (Some(0b0011_1111), Some(0b0011_1111), Some(0b0011_1111)), "clk";
    /// `u32` addition.
    U32add = (Some(0b0100_0000), Some(0b0100_0000), Some(0b0100_0000)), "u32add";
    /// `u32` subtraction.
    U32sub = (Some(0b0100_0010), Some(0b0100_0010), Some(0b0100_0010)), "u32sub";
    /// `u32` multiplication.
    U32mul = (Some(0b0100_0100), Some(0b0100_0100), Some(0b0100_0100)), "u32mul";
    /// `u32` division.
    U32div = (Some(0b0100_0110), Some(0b0100_0110), Some(0b0100_0110)), "u32div";
    /// Splits an element into two `u32` halves.
    U32split = (Some(0b0100_1000), Some(0b0100_1000), Some(0b0100_1000)), "u32split";
    /// Three-operand `u32` addition.
    U32add3 = (Some(0b0100_1100), Some(0b0100_1100), Some(0b0100_1100)), "u32add3";
    /// `u32` multiply-add.
    U32madd = (Some(0b0100_1110), Some(0b0100_1110), Some(0b0100_1110)), "u32madd";
    /// RPO permutation of the top 12 elements.
    HPerm = (Some(0b0101_0000), Some(0b0101_0000), None), "hperm";
    /// Reads two words from the advice stack into memory.
    Pipe = (Some(0b0101_0010), Some(0b0101_0010), Some(0b0101_0010)), "pipe";
    /// Streams two words from memory.
    MStream = (Some(0b0101_0011), Some(0b0101_0011), Some(0b0101_0011)), "mstream";
    /// Control: starts a split block.
    Split = (Some(0b0101_0100), Some(0b0101_0100), Some(0b0101_0100)), "split";
    /// Control: starts a loop block.
    Loop = (Some(0b0101_0101), Some(0b0101_0101), Some(0b0101_0101)), "loop";
    /// Control: starts a span block.
    Span = (Some(0b0101_0110), Some(0b0101_0110), Some(0b0101_0110)), "span";
    /// Control: starts a join block.
    Join = (Some(0b0101_0111), Some(0b0101_0111), Some(0b0101_0111)), "join";
    /// Control: starts a dynamic block.
    Dyn = (Some(0b0101_1000), Some(0b0101_1000), Some(0b0101_1000)), "dyn";
    /// Random linear combination step (printed `rcomb1` by Miden).
    RCombBase = (Some(0b0101_1001), None, None), "rcomb1";
    /// Merkle root update.
    MrUpdate = (Some(0b0110_0000), Some(0b0110_0000), Some(0b0110_0000)), "mrupdate";
    /// Control: starts a syscall.
    SysCall = (Some(0b0110_1000), Some(0b0110_1000), Some(0b0110_1000)), "syscall";
    /// Control: starts a call.
    Call = (Some(0b0110_1100), Some(0b0110_1100), Some(0b0110_1100)), "call";
    /// Control: ends a block.
    End = (Some(0b0111_0000), Some(0b0111_0000), Some(0b0111_0000)), "end";
    /// Control: repeats a loop body.
    Repeat = (Some(0b0111_0100), Some(0b0111_0100), Some(0b0111_0100)), "repeat";
    /// Control: starts the next batch of a span.
    Respan = (Some(0b0111_1000), Some(0b0111_1000), Some(0b0111_1000)), "respan";
    /// Control: halts the VM.
    Halt = (Some(0b0111_1100), Some(0b0111_1100), Some(0b0111_1100)), "halt";
    /// Emits an event whose id is on the stack (0.23 on).
    Emit = (None, Some(0b0001_1111), Some(0b0001_1111)), "emit";
    /// Horner evaluation step over base-field coefficients (0.23 on).
    HornerBase = (None, Some(0b0101_1001), Some(0b0101_1001)), "horner_eval_base";
    /// Horner evaluation step over extension-field coefficients (0.23 on).
    HornerExt = (None, Some(0b0101_1010), Some(0b0101_1010)), "horner_eval_ext";
    /// Control: starts a dynamic call (0.23 on).
    DynCall = (None, Some(0b0101_1100), Some(0b0101_1100)), "dyncall";
    /// Evaluates an arithmetic circuit (0.23 on).
    EvalCircuit = (None, Some(0b0101_1101), Some(0b0101_1101)), "eval_circuit";
    /// Logs a precompile request (0.23 on).
    LogPrecompile = (None, Some(0b0101_1110), Some(0b0101_1110)), "log_precompile";
    /// Encrypts a stream of memory words (0.23 on).
    CryptoStream = (None, Some(0b0110_0100), Some(0b0110_0100)), "crypto_stream";
    /// One Eidos compression of the stack's top twelve elements: a block of
    /// eight and a chaining value of four (1.0 on, in `hperm`'s opcode).
    Compress = (None, None, Some(0b0101_0000)), "compress";
}

impl Operation {
    /// Number of bits of an opcode.
    pub const OP_BITS: usize = 7;

    /// The operation without immediate whose opcode in `isa` is `code`.
    pub fn simple_from_opcode(isa: Isa, code: u8) -> Option<Operation> {
        Self::simple_opcodes(isa)
            .get(code as usize)
            .copied()
            .flatten()
    }

    /// The operations without immediate of `isa`, by opcode: a decoder
    /// looks the table up once, not per operation.
    pub(crate) fn simple_opcodes(isa: Isa) -> &'static [Option<Operation>; 128] {
        match isa {
            Isa::V0_10 => &SIMPLE_0_10,
            Isa::V0_23 => &SIMPLE_0_23,
            Isa::V1_0 => &SIMPLE_1_0,
        }
    }

    /// The field element that the operation contributes as its own group
    /// in a batch (only `Push` has one).
    pub const fn imm_value(&self) -> Option<Felt> {
        match self {
            Operation::Push(v) => Some(*v),
            _ => None,
        }
    }

    /// Whether the operation carries an immediate (a value or an error code).
    pub const fn has_immediate(&self) -> bool {
        self.immediate().is_some()
    }

    /// The immediate: the pushed value or the error code.
    pub const fn immediate(&self) -> Option<Felt> {
        match self {
            Operation::Push(v)
            | Operation::Assert(v)
            | Operation::MpVerify(v)
            | Operation::U32assert2(v) => Some(*v),
            _ => None,
        }
    }

    /// The operation with immediate whose opcode in `isa` is `code`, given
    /// its immediate; `Err(true)` if `code` takes an immediate that `imm`
    /// does not fit (not a field element, or an error code above `u32::MAX`
    /// in 0.10), `Err(false)` if `code` takes no immediate.
    pub fn with_immediate(isa: Isa, code: u8, imm: u64) -> Result<Operation, bool> {
        let value = Felt::new(imm).ok_or(true);
        let err_code = || match isa {
            Isa::V0_10 if imm > u32::MAX as u64 => Err(true),
            _ => value,
        };
        let push = match isa {
            Isa::V0_10 => OPCODE_PUSH_0_10,
            Isa::V0_23 | Isa::V1_0 => OPCODE_PUSH_0_23,
        };
        match code {
            c if c == push => value.map(Operation::Push),
            OPCODE_ASSERT => err_code().map(Operation::Assert),
            OPCODE_MPVERIFY => err_code().map(Operation::MpVerify),
            OPCODE_U32ASSERT2 => err_code().map(Operation::U32assert2),
            _ => Err(false),
        }
    }

    /// Whether version `isa` can express this operation, immediate included.
    pub fn exists_in(&self, isa: Isa) -> bool {
        let code_fits = match (isa, self) {
            (
                Isa::V0_10,
                Operation::Assert(c) | Operation::MpVerify(c) | Operation::U32assert2(c),
            ) => c.as_u64() <= u32::MAX as u64,
            _ => true,
        };
        code_fits && self.opcode_in(isa).is_some()
    }

    /// Every operation, with a zero immediate where one is needed.
    pub fn all() -> impl Iterator<Item = Operation> {
        Self::SIMPLE.iter().copied().chain([
            Operation::Push(Felt::ZERO),
            Operation::Assert(Felt::ZERO),
            Operation::MpVerify(Felt::ZERO),
            Operation::U32assert2(Felt::ZERO),
        ])
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.immediate() {
            Some(imm) => write!(f, "{}({imm})", self.name()),
            None => f.write_str(self.name()),
        }
    }
}

/// Why a word is not an operation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseOpError {
    /// No operation has this name.
    #[error("unknown operation `{0}`")]
    Unknown(String),
    /// The operation takes an immediate `name(N)` but none (or a malformed one) was given.
    #[error("`{0}` needs an immediate in parentheses")]
    MissingImmediate(&'static str),
    /// The immediate does not fit the operation.
    #[error("bad immediate for `{name}`: `{imm}`")]
    BadImmediate {
        /// Operation name.
        name: &'static str,
        /// The text of the immediate.
        imm: String,
    },
}

impl FromStr for Operation {
    type Err = ParseOpError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, imm) = match s.split_once('(') {
            Some((name, rest)) => match rest.strip_suffix(')') {
                Some(imm) => (name, Some(imm)),
                None => return Err(ParseOpError::Unknown(s.to_string())),
            },
            None => (s, None),
        };
        let make: fn(Felt) -> Operation = match name {
            "push" => Operation::Push,
            "assert" => Operation::Assert,
            "mpverify" => Operation::MpVerify,
            "u32assert2" => Operation::U32assert2,
            _ => {
                return match (Operation::simple_from_name(name), imm) {
                    (Some(op), None) => Ok(op),
                    _ => Err(ParseOpError::Unknown(s.to_string())),
                }
            }
        };
        let template = make(Felt::ZERO);
        let imm = imm.ok_or(ParseOpError::MissingImmediate(template.name()))?;
        let value = imm
            .parse::<Felt>()
            .map_err(|_| ParseOpError::BadImmediate {
                name: template.name(),
                imm: imm.to_string(),
            })?;
        Ok(make(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_are_seven_bit_and_unique_per_version() {
        for isa in [Isa::V0_10, Isa::V0_23, Isa::V1_0] {
            let mut seen = [false; 128];
            for op in Operation::all() {
                let Some(code) = op.opcode_in(isa) else {
                    continue;
                };
                assert!(code < 128, "{op}");
                assert!(!seen[code as usize], "{isa}: duplicate opcode {code}");
                seen[code as usize] = true;
            }
        }
        let count = |isa| {
            Operation::all()
                .filter(|o| o.opcode_in(isa).is_some())
                .count()
        };
        assert_eq!(count(Isa::V0_10), 89);
        assert_eq!(count(Isa::V0_23), 93);
        assert_eq!(count(Isa::V1_0), 93);
        assert_eq!(
            Operation::simple_from_opcode(Isa::V0_23, 0x50),
            Some(Operation::HPerm)
        );
        assert_eq!(
            Operation::simple_from_opcode(Isa::V1_0, 0x50),
            Some(Operation::Compress)
        );
    }

    #[test]
    fn names_round_trip() {
        for op in Operation::all() {
            assert_eq!(op.to_string().parse::<Operation>(), Ok(op));
        }
        assert_eq!(
            "push(18446744069414584320)".parse::<Operation>(),
            Ok(Operation::Push(Felt::new(18446744069414584320).unwrap()))
        );
        assert!("push(18446744069414584321)".parse::<Operation>().is_err());
        assert!("add(1)".parse::<Operation>().is_err());
        assert!("push".parse::<Operation>().is_err());
        assert!("frob".parse::<Operation>().is_err());
    }

    #[test]
    fn wide_error_codes_exist_only_from_0_23() {
        let wide = Operation::Assert(Felt::new(1 << 40).unwrap());
        assert!(!wide.exists_in(Isa::V0_10));
        assert!(wide.exists_in(Isa::V0_23));
        assert_eq!(
            Operation::with_immediate(Isa::V0_10, OPCODE_ASSERT, 1 << 40),
            Err(true)
        );
        assert!(Operation::with_immediate(Isa::V0_23, OPCODE_ASSERT, 1 << 40).is_ok());
        assert!(!Operation::FmpAdd.exists_in(Isa::V0_23));
        assert!(!Operation::Emit.exists_in(Isa::V0_10));
    }
}
