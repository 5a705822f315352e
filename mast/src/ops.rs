//! The operation set of Miden VM as of miden-core 0.10.
//!
//! Opcodes are 7-bit values; the table below is miden-core's
//! `operations::opcode_constants`, and the names are those miden-core's
//! `Display` prints (lowercase, no separators, immediates in parentheses).
//! `Push` carries a field element; `Assert`, `MpVerify` and `U32assert2`
//! carry a `u32` error code, which is not part of the operation's hash.

use core::fmt;
use core::str::FromStr;

use crate::felt::Felt;

macro_rules! operations {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, $name:literal; )*) => {
        /// One VM operation.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Operation {
            $( $(#[$doc])* $variant, )*
            /// Pushes the immediate field element onto the stack.
            Push(Felt),
            /// Pops the stack and fails with the error code unless the value was 1.
            Assert(u32),
            /// Verifies a Merkle path; fails with the error code otherwise.
            MpVerify(u32),
            /// Checks that the top two elements are `u32`; fails with the error code otherwise.
            U32assert2(u32),
        }

        impl Operation {
            /// Every operation without an immediate, in opcode order of the source table.
            pub const SIMPLE: &'static [Operation] = &[$(Operation::$variant,)*];

            /// The 7-bit opcode.
            pub const fn opcode(&self) -> u8 {
                match self {
                    $( Operation::$variant => $code, )*
                    Operation::Push(_) => OPCODE_PUSH,
                    Operation::Assert(_) => OPCODE_ASSERT,
                    Operation::MpVerify(_) => OPCODE_MPVERIFY,
                    Operation::U32assert2(_) => OPCODE_U32ASSERT2,
                }
            }

            /// The operation without immediate whose opcode is `code`.
            pub const fn simple_from_opcode(code: u8) -> Option<Operation> {
                match code {
                    $( $code => Some(Operation::$variant), )*
                    _ => None,
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

/// Opcode of `assert`.
pub const OPCODE_ASSERT: u8 = 0b0010_0000;
/// Opcode of `u32assert2`.
pub const OPCODE_U32ASSERT2: u8 = 0b0100_1010;
/// Opcode of `mpverify`.
pub const OPCODE_MPVERIFY: u8 = 0b0101_0001;
/// Opcode of `push`.
pub const OPCODE_PUSH: u8 = 0b0110_0100;

operations! {
    /// Does nothing for one cycle.
    Noop = 0b0000_0000, "noop";
    /// `a == 0`.
    Eqz = 0b0000_0001, "eqz";
    /// Field negation.
    Neg = 0b0000_0010, "neg";
    /// Field inverse.
    Inv = 0b0000_0011, "inv";
    /// Adds one.
    Incr = 0b0000_0100, "incr";
    /// Boolean not.
    Not = 0b0000_0101, "not";
    /// Adds the frame pointer.
    FmpAdd = 0b0000_0110, "fmpadd";
    /// Loads one element from memory.
    MLoad = 0b0000_0111, "mload";
    /// Swaps the top two elements.
    Swap = 0b0000_1000, "swap";
    /// Hash of the caller of the current syscall.
    Caller = 0b0000_1001, "caller";
    /// Moves element 2 to the top.
    MovUp2 = 0b0000_1010, "movup2";
    /// Moves the top to position 2.
    MovDn2 = 0b0000_1011, "movdn2";
    /// Moves element 3 to the top.
    MovUp3 = 0b0000_1100, "movup3";
    /// Moves the top to position 3.
    MovDn3 = 0b0000_1101, "movdn3";
    /// Pops a word from the advice stack.
    AdvPopW = 0b0000_1110, "advpopw";
    /// One step of exponent accumulation.
    Expacc = 0b0000_1111, "expacc";
    /// Moves element 4 to the top.
    MovUp4 = 0b0001_0000, "movup4";
    /// Moves the top to position 4.
    MovDn4 = 0b0001_0001, "movdn4";
    /// Moves element 5 to the top.
    MovUp5 = 0b0001_0010, "movup5";
    /// Moves the top to position 5.
    MovDn5 = 0b0001_0011, "movdn5";
    /// Moves element 6 to the top.
    MovUp6 = 0b0001_0100, "movup6";
    /// Moves the top to position 6.
    MovDn6 = 0b0001_0101, "movdn6";
    /// Moves element 7 to the top.
    MovUp7 = 0b0001_0110, "movup7";
    /// Moves the top to position 7.
    MovDn7 = 0b0001_0111, "movdn7";
    /// Swaps words 0 and 1.
    SwapW = 0b0001_1000, "swapw";
    /// Multiplication in the quadratic extension.
    Ext2Mul = 0b0001_1001, "ext2mul";
    /// Moves element 8 to the top.
    MovUp8 = 0b0001_1010, "movup8";
    /// Moves the top to position 8.
    MovDn8 = 0b0001_1011, "movdn8";
    /// Swaps words 0 and 2.
    SwapW2 = 0b0001_1100, "swapw2";
    /// Swaps words 0 and 3.
    SwapW3 = 0b0001_1101, "swapw3";
    /// Swaps double words.
    SwapDW = 0b0001_1110, "swapdw";
    /// Equality.
    Eq = 0b0010_0001, "eq";
    /// Field addition.
    Add = 0b0010_0010, "add";
    /// Field multiplication.
    Mul = 0b0010_0011, "mul";
    /// Boolean and.
    And = 0b0010_0100, "and";
    /// Boolean or.
    Or = 0b0010_0101, "or";
    /// Bitwise and of `u32` values.
    U32and = 0b0010_0110, "u32and";
    /// Bitwise xor of `u32` values.
    U32xor = 0b0010_0111, "u32xor";
    /// FRI folding step.
    FriE2F4 = 0b0010_1000, "frie2f4";
    /// Drops the top element.
    Drop = 0b0010_1001, "drop";
    /// Conditional swap.
    CSwap = 0b0010_1010, "cswap";
    /// Conditional word swap.
    CSwapW = 0b0010_1011, "cswapw";
    /// Loads a word from memory.
    MLoadW = 0b0010_1100, "mloadw";
    /// Stores one element to memory.
    MStore = 0b0010_1101, "mstore";
    /// Stores a word to memory.
    MStoreW = 0b0010_1110, "mstorew";
    /// Updates the frame pointer.
    FmpUpdate = 0b0010_1111, "fmpupdate";
    /// Pushes zero.
    Pad = 0b0011_0000, "pad";
    /// Duplicates element 0.
    Dup0 = 0b0011_0001, "dup0";
    /// Duplicates element 1.
    Dup1 = 0b0011_0010, "dup1";
    /// Duplicates element 2.
    Dup2 = 0b0011_0011, "dup2";
    /// Duplicates element 3.
    Dup3 = 0b0011_0100, "dup3";
    /// Duplicates element 4.
    Dup4 = 0b0011_0101, "dup4";
    /// Duplicates element 5.
    Dup5 = 0b0011_0110, "dup5";
    /// Duplicates element 6.
    Dup6 = 0b0011_0111, "dup6";
    /// Duplicates element 7.
    Dup7 = 0b0011_1000, "dup7";
    /// Duplicates element 9.
    Dup9 = 0b0011_1001, "dup9";
    /// Duplicates element 11.
    Dup11 = 0b0011_1010, "dup11";
    /// Duplicates element 13.
    Dup13 = 0b0011_1011, "dup13";
    /// Duplicates element 15.
    Dup15 = 0b0011_1100, "dup15";
    /// Pops one element from the advice stack.
    AdvPop = 0b0011_1101, "advpop";
    /// Pushes the stack depth.
    SDepth = 0b0011_1110, "sdepth";
    /// Pushes the clock cycle.
    Clk = 0b0011_1111, "clk";
    /// `u32` addition.
    U32add = 0b0100_0000, "u32add";
    /// `u32` subtraction.
    U32sub = 0b0100_0010, "u32sub";
    /// `u32` multiplication.
    U32mul = 0b0100_0100, "u32mul";
    /// `u32` division.
    U32div = 0b0100_0110, "u32div";
    /// Splits an element into two `u32` halves.
    U32split = 0b0100_1000, "u32split";
    /// Three-operand `u32` addition.
    U32add3 = 0b0100_1100, "u32add3";
    /// `u32` multiply-add.
    U32madd = 0b0100_1110, "u32madd";
    /// RPO permutation of the top 12 elements.
    HPerm = 0b0101_0000, "hperm";
    /// Reads two words from the advice stack into memory.
    Pipe = 0b0101_0010, "pipe";
    /// Streams two words from memory.
    MStream = 0b0101_0011, "mstream";
    /// Control: starts a split block.
    Split = 0b0101_0100, "split";
    /// Control: starts a loop block.
    Loop = 0b0101_0101, "loop";
    /// Control: starts a span block.
    Span = 0b0101_0110, "span";
    /// Control: starts a join block.
    Join = 0b0101_0111, "join";
    /// Control: starts a dynamic block.
    Dyn = 0b0101_1000, "dyn";
    /// Random linear combination step (printed `rcomb1` by Miden).
    RCombBase = 0b0101_1001, "rcomb1";
    /// Merkle root update.
    MrUpdate = 0b0110_0000, "mrupdate";
    /// Control: starts a syscall.
    SysCall = 0b0110_1000, "syscall";
    /// Control: starts a call.
    Call = 0b0110_1100, "call";
    /// Control: ends a block.
    End = 0b0111_0000, "end";
    /// Control: repeats a loop body.
    Repeat = 0b0111_0100, "repeat";
    /// Control: starts the next batch of a span.
    Respan = 0b0111_1000, "respan";
    /// Control: halts the VM.
    Halt = 0b0111_1100, "halt";
}

impl Operation {
    /// Number of bits of an opcode.
    pub const OP_BITS: usize = 7;

    /// The field element that the operation contributes as its own group
    /// in a batch (only `Push` has one).
    pub const fn imm_value(&self) -> Option<Felt> {
        match self {
            Operation::Push(v) => Some(*v),
            _ => None,
        }
    }

    /// Whether the binary format stores an immediate after the opcode.
    pub const fn has_immediate(&self) -> bool {
        matches!(
            self,
            Operation::Push(_)
                | Operation::Assert(_)
                | Operation::MpVerify(_)
                | Operation::U32assert2(_)
        )
    }

    /// The immediate as stored by the binary format.
    pub const fn immediate(&self) -> Option<u64> {
        match self {
            Operation::Push(v) => Some(v.as_u64()),
            Operation::Assert(c) | Operation::MpVerify(c) | Operation::U32assert2(c) => {
                Some(*c as u64)
            }
            _ => None,
        }
    }

    /// The operation with immediate whose opcode is `code`, given its raw
    /// immediate; `Err(true)` if `code` takes an immediate that `imm` does
    /// not fit, `Err(false)` if `code` takes no immediate.
    pub fn with_immediate(code: u8, imm: u64) -> Result<Operation, bool> {
        let err_code = || u32::try_from(imm).map_err(|_| true);
        match code {
            OPCODE_PUSH => Felt::new(imm).map(Operation::Push).ok_or(true),
            OPCODE_ASSERT => err_code().map(Operation::Assert),
            OPCODE_MPVERIFY => err_code().map(Operation::MpVerify),
            OPCODE_U32ASSERT2 => err_code().map(Operation::U32assert2),
            _ => Err(false),
        }
    }

    /// Every operation, with a zero immediate where one is needed.
    pub fn all() -> impl Iterator<Item = Operation> {
        Self::SIMPLE.iter().copied().chain([
            Operation::Push(Felt::ZERO),
            Operation::Assert(0),
            Operation::MpVerify(0),
            Operation::U32assert2(0),
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
        let template = match name {
            "push" => Operation::Push(Felt::ZERO),
            "assert" => Operation::Assert(0),
            "mpverify" => Operation::MpVerify(0),
            "u32assert2" => Operation::U32assert2(0),
            _ => {
                return match (Operation::simple_from_name(name), imm) {
                    (Some(op), None) => Ok(op),
                    _ => Err(ParseOpError::Unknown(s.to_string())),
                }
            }
        };
        let imm = imm.ok_or(ParseOpError::MissingImmediate(template.name()))?;
        let bad = || ParseOpError::BadImmediate {
            name: template.name(),
            imm: imm.to_string(),
        };
        let value = if let Operation::Push(_) = template {
            imm.parse::<Felt>().map_err(|_| bad())?.as_u64()
        } else {
            if !imm.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            imm.parse::<u32>().map_err(|_| bad())? as u64
        };
        Operation::with_immediate(template.opcode(), value).map_err(|_| bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_are_seven_bit_and_unique() {
        let mut seen = [false; 128];
        for op in Operation::all() {
            let code = op.opcode() as usize;
            assert!(code < 128, "{op}");
            assert!(!seen[code], "duplicate opcode {code}");
            seen[code] = true;
        }
        assert_eq!(Operation::all().count(), 89);
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
        assert!("assert(4294967296)".parse::<Operation>().is_err());
        assert!("add(1)".parse::<Operation>().is_err());
        assert!("push".parse::<Operation>().is_err());
        assert!("frob".parse::<Operation>().is_err());
    }
}
