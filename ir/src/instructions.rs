//! Instructions and terminators: the data of an operation, kept apart from
//! where it sits in the layout.

use std::fmt;

use crate::{Block, Builtin, ForeignId, FuncId, Type, Value};

/// A binary operator. Operands have the same type; `eq` and `lt` give `u1`,
/// the others the operands' type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BinaryOp {
    /// `add`: checked (traps on overflow) on integers.
    Add,
    /// `sub`: checked (traps on underflow) on integers.
    Sub,
    /// `mul`: checked (traps on overflow) on integers.
    Mul,
    /// `div`: traps on division by zero; truncates toward zero on `iN`.
    Div,
    /// `mod`: integers only; traps on division by zero.
    Mod,
    /// `unchecked_add`: wraps modulo 2^N.
    UncheckedAdd,
    /// `unchecked_sub`: wraps modulo 2^N.
    UncheckedSub,
    /// `unchecked_mul`: wraps modulo 2^N.
    UncheckedMul,
    /// `eq`: equality, gives `u1`.
    Eq,
    /// `lt`: less than, gives `u1`.
    Lt,
    /// `and`: bitwise.
    And,
    /// `or`: bitwise.
    Or,
    /// `xor`: bitwise.
    Xor,
    /// `shl`: shift left by less than the bit width, dropping high bits.
    Shl,
    /// `shr`: shift right by less than the bit width.
    Shr,
}

impl BinaryOp {
    /// Every operator, in a fixed order.
    pub const ALL: [BinaryOp; 15] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Mod,
        BinaryOp::UncheckedAdd,
        BinaryOp::UncheckedSub,
        BinaryOp::UncheckedMul,
        BinaryOp::Eq,
        BinaryOp::Lt,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Shl,
        BinaryOp::Shr,
    ];

    /// The mnemonic in the text format.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Mod => "mod",
            BinaryOp::UncheckedAdd => "unchecked_add",
            BinaryOp::UncheckedSub => "unchecked_sub",
            BinaryOp::UncheckedMul => "unchecked_mul",
            BinaryOp::Eq => "eq",
            BinaryOp::Lt => "lt",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
        }
    }

    /// The operator with this mnemonic.
    pub fn from_name(name: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the result is `u1` rather than the operand type.
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::Lt)
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a `call` calls.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Callee {
    /// A function of the module.
    Function(FuncId),
    /// A builtin.
    Builtin(Builtin),
    /// A foreign (oracle) function, known by its name only: the interpreter
    /// asks its caller's handler, and a pass assumes it may read and write
    /// every reference it is given and return any reference.
    Foreign(ForeignId),
    /// The function a value of type `function` holds (`call v10(v0)`), an
    /// operand of the call like its arguments.
    Value(Value),
}

impl Callee {
    /// Whether the call runs code the caller cannot see (a function of the
    /// module, a function value, an oracle, a builtin calling the
    /// functions it is given), which may read and write every reference
    /// it is given or can reach, and return any of them. Any other
    /// builtin's effects are known from its name.
    pub fn runs_unknown_code(&self) -> bool {
        match self {
            Callee::Builtin(builtin) => builtin.calls_function_values(),
            _ => true,
        }
    }
}

impl fmt::Display for Callee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Callee::Function(id) => write!(f, "{id}"),
            Callee::Builtin(b) => f.write_str(b.name()),
            Callee::Foreign(id) => write!(f, "{id}"),
            Callee::Value(v) => write!(f, "{v}"),
        }
    }
}

/// The data of an instruction: its opcode and operands. Result values and
/// their types live in the [`DataFlowGraph`](crate::DataFlowGraph).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum InstructionData {
    /// `vR = OP lhs, rhs`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `vR = not v`: bitwise complement.
    Not {
        /// The operand.
        arg: Value,
    },
    /// `vR = cast v as T`.
    Cast {
        /// The operand.
        arg: Value,
        /// The target type (also the result's type).
        ty: Type,
    },
    /// `vR = truncate v to N bits, max_bit_size: M`.
    Truncate {
        /// The operand.
        arg: Value,
        /// Bits kept.
        bits: u32,
        /// The largest bit size the operand can have.
        max_bit_size: u32,
    },
    /// `vR = allocate -> &mut T`: a fresh reference (its type is the result's).
    Allocate,
    /// `vR = load a -> T`.
    Load {
        /// The reference read.
        address: Value,
    },
    /// `store v at a`.
    Store {
        /// The value written.
        value: Value,
        /// The reference written.
        address: Value,
    },
    /// `vR = make_array [v, ...] : T`.
    MakeArray {
        /// Flattened elements.
        elements: Vec<Value>,
        /// The array or slice type (also the result's type), boxed so that
        /// the rare `make_array` does not widen every instruction.
        ty: Box<Type>,
    },
    /// `vR = array_get a, index i -> T`.
    ArrayGet {
        /// The array.
        array: Value,
        /// The flattened index, `u32`.
        index: Value,
    },
    /// `vR = array_set a, index i, value v`: a copy of `a` with one element
    /// replaced. `array_set mut` marks an update Noir may do in place (the
    /// array has no other use); the value is the same.
    ArraySet {
        /// The array.
        array: Value,
        /// The flattened index, `u32`.
        index: Value,
        /// The new element.
        value: Value,
        /// Written `array_set mut`.
        mutable: bool,
    },
    /// `constrain a == b` or `constrain a != b`, with an optional message:
    /// a string or the values of a dynamic payload.
    Constrain {
        /// Left side.
        lhs: Value,
        /// Right side.
        rhs: Value,
        /// `==` when true, `!=` when false.
        equal: bool,
        /// What is reported when the check fails, boxed so that the rare
        /// message does not widen every instruction.
        message: Option<Box<AssertMessage>>,
    },
    /// `range_check v to N bits` or `range_check v to N bits, "message"`.
    RangeCheck {
        /// The operand.
        arg: Value,
        /// The bit bound.
        bits: u32,
        /// The message reported when the check fails.
        message: Option<String>,
    },
    /// `enable_side_effects c`.
    EnableSideEffects {
        /// The predicate, `u1`.
        condition: Value,
    },
    /// `vR = if c then x else (if d) y`.
    IfElse {
        /// Selects `then_value` when 1.
        then_condition: Value,
        /// The value when `then_condition` is 1.
        then_value: Value,
        /// The condition of the else side (informative: the value is `else_value`
        /// whenever `then_condition` is 0).
        else_condition: Value,
        /// The value when `then_condition` is 0.
        else_value: Value,
    },
    /// `vR, ... = call f(args) -> (T, ...)`.
    Call {
        /// The function called.
        callee: Callee,
        /// Arguments.
        args: Vec<Value>,
    },
    /// `vR = encode v -> noisy`: a fresh ciphertext of a `u5` plaintext.
    Encode {
        /// The plaintext.
        arg: Value,
    },
    /// `vR = decode v -> u5`.
    Decode {
        /// The ciphertext.
        arg: Value,
    },
    /// `vR = reduce_noise v`: resets the noise to the encoding noise.
    ReduceNoise {
        /// The ciphertext.
        arg: Value,
    },
    /// `inc_rc v`: no semantic effect.
    IncRc {
        /// The operand.
        arg: Value,
    },
    /// `dec_rc v`: no semantic effect.
    DecRc {
        /// The operand.
        arg: Value,
    },
    /// `nop`: no operands, no results, no effect (Noir prints it where a
    /// pass removed an instruction in place).
    Nop,
}

impl InstructionData {
    /// The operands, in textual order.
    pub fn arguments(&self) -> Operands<'_> {
        use InstructionData::*;
        match self {
            Binary { lhs, rhs, .. } => Operands::Few([*lhs, *rhs, *lhs, *lhs], 2),
            Not { arg }
            | Cast { arg, .. }
            | Truncate { arg, .. }
            | RangeCheck { arg, .. }
            | Encode { arg }
            | Decode { arg }
            | ReduceNoise { arg }
            | IncRc { arg }
            | DecRc { arg } => Operands::Few([*arg; 4], 1),
            Allocate => Operands::Few([Value::from_u32(0); 4], 0),
            Load { address } => Operands::Few([*address; 4], 1),
            Store { value, address } => Operands::Few([*value, *address, *value, *value], 2),
            MakeArray { elements, .. } => Operands::Many(elements),
            ArrayGet { array, index } => Operands::Few([*array, *index, *array, *array], 2),
            ArraySet {
                array,
                index,
                value,
                ..
            } => Operands::Few([*array, *index, *value, *value], 3),
            Constrain {
                lhs, rhs, message, ..
            } => match message.as_deref() {
                Some(AssertMessage::Data(payload)) => Operands::Owned(
                    [*lhs, *rhs]
                        .into_iter()
                        .chain(payload.iter().copied())
                        .collect(),
                ),
                _ => Operands::Few([*lhs, *rhs, *lhs, *lhs], 2),
            },
            EnableSideEffects { condition } => Operands::Few([*condition; 4], 1),
            IfElse {
                then_condition,
                then_value,
                else_condition,
                else_value,
            } => Operands::Few(
                [*then_condition, *then_value, *else_condition, *else_value],
                4,
            ),
            Call {
                callee: Callee::Value(callee),
                args,
            } => Operands::Owned(
                std::iter::once(*callee)
                    .chain(args.iter().copied())
                    .collect(),
            ),
            Call { args, .. } => Operands::Many(args),
            Nop => Operands::Few([Value::from_u32(0); 4], 0),
        }
    }

    /// Rewrites every operand through `f`.
    pub fn map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        use InstructionData::*;
        match self {
            Binary { lhs, rhs, .. } => {
                *lhs = f(*lhs);
                *rhs = f(*rhs);
            }
            Constrain {
                lhs, rhs, message, ..
            } => {
                *lhs = f(*lhs);
                *rhs = f(*rhs);
                if let Some(AssertMessage::Data(payload)) = message.as_deref_mut() {
                    payload.iter_mut().for_each(|v| *v = f(*v));
                }
            }
            Not { arg }
            | Cast { arg, .. }
            | Truncate { arg, .. }
            | RangeCheck { arg, .. }
            | Encode { arg }
            | Decode { arg }
            | ReduceNoise { arg }
            | IncRc { arg }
            | DecRc { arg } => *arg = f(*arg),
            Allocate => {}
            Load { address } => *address = f(*address),
            Store { value, address } => {
                *value = f(*value);
                *address = f(*address);
            }
            MakeArray { elements, .. } => elements.iter_mut().for_each(|v| *v = f(*v)),
            ArrayGet { array, index } => {
                *array = f(*array);
                *index = f(*index);
            }
            ArraySet {
                array,
                index,
                value,
                ..
            } => {
                *array = f(*array);
                *index = f(*index);
                *value = f(*value);
            }
            EnableSideEffects { condition } => *condition = f(*condition),
            IfElse {
                then_condition,
                then_value,
                else_condition,
                else_value,
            } => {
                *then_condition = f(*then_condition);
                *then_value = f(*then_value);
                *else_condition = f(*else_condition);
                *else_value = f(*else_value);
            }
            Call { callee, args } => {
                if let Callee::Value(callee) = callee {
                    *callee = f(*callee);
                }
                args.iter_mut().for_each(|v| *v = f(*v));
            }
            Nop => {}
        }
    }

    /// The mnemonic in the text format.
    pub fn opcode_name(&self) -> &'static str {
        use InstructionData::*;
        match self {
            Binary { op, .. } => op.name(),
            Not { .. } => "not",
            Cast { .. } => "cast",
            Truncate { .. } => "truncate",
            Allocate => "allocate",
            Load { .. } => "load",
            Store { .. } => "store",
            MakeArray { .. } => "make_array",
            ArrayGet { .. } => "array_get",
            ArraySet { .. } => "array_set",
            Constrain { .. } => "constrain",
            RangeCheck { .. } => "range_check",
            EnableSideEffects { .. } => "enable_side_effects",
            IfElse { .. } => "if",
            Call { .. } => "call",
            Encode { .. } => "encode",
            Decode { .. } => "decode",
            ReduceNoise { .. } => "reduce_noise",
            IncRc { .. } => "inc_rc",
            DecRc { .. } => "dec_rc",
            Nop => "nop",
        }
    }

    /// Whether the instruction has an effect beyond computing its results
    /// (writes memory, may trap, prints, or changes the predicate), so that it
    /// may not be removed when its results are unused.
    pub fn has_side_effects(&self) -> bool {
        use InstructionData::*;
        match self {
            Binary { op, .. } => matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::Mod
                    | BinaryOp::Shl
                    | BinaryOp::Shr
            ),
            Cast { .. } | ArrayGet { .. } | ArraySet { .. } | Load { .. } => true,
            Store { .. } | Constrain { .. } | RangeCheck { .. } | EnableSideEffects { .. } => true,
            Call { .. } => true,
            Encode { .. } | Decode { .. } | ReduceNoise { .. } => false,
            Not { .. } | Truncate { .. } | Allocate | MakeArray { .. } | IfElse { .. } => false,
            IncRc { .. } | DecRc { .. } | Nop => false,
        }
    }
}

/// What a failed `constrain` reports.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AssertMessage {
    /// `, "text"`: a message known at compile time.
    Static(String),
    /// `, data v1, v2`: values the runtime formats into the message (Noir's
    /// dynamic assertion payload, such as a formatted string's arguments).
    Data(Vec<Value>),
}

/// The operands of an instruction or terminator, without allocating except
/// for a `constrain` with a dynamic payload.
pub enum Operands<'a> {
    /// Up to four operands inline: the array and how many are used.
    Few([Value; 4], u8),
    /// A list owned by the instruction.
    Many(&'a [Value]),
    /// Operands gathered from several fields of the instruction.
    Owned(Vec<Value>),
}

impl Operands<'_> {
    /// The operands as a slice.
    pub fn as_slice(&self) -> &[Value] {
        match self {
            Operands::Few(values, len) => &values[..usize::from(*len)],
            Operands::Many(values) => values,
            Operands::Owned(values) => values,
        }
    }
}

impl<'a> IntoIterator for &'a Operands<'a> {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Which of its block's terminator's edges an edge is: with the block, it
/// names the edge (the two edges of a `jmpif` may join the same two blocks).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EdgeSlot {
    /// The edge of a `jmp`.
    Jump,
    /// The edge a `jmpif` takes when its condition is 1.
    Then,
    /// The edge a `jmpif` takes when its condition is 0.
    Else,
}

/// One edge out of a block: see [`Terminator::edges`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Edge<'a> {
    /// Which of the terminator's edges it is.
    pub slot: EdgeSlot,
    /// The block it enters.
    pub destination: Block,
    /// One argument per parameter of `destination`.
    pub arguments: &'a [Value],
}

/// The terminator that ends every block.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Terminator {
    /// `jmp bN(args)`: the arguments bind the destination's parameters.
    Jmp {
        /// The destination.
        destination: Block,
        /// One argument per destination parameter.
        arguments: Vec<Value>,
    },
    /// `jmpif c then: bT(args), else: bF(args)`: each edge binds its
    /// destination's parameters. Both destinations may be one block, with
    /// different arguments on the two edges (`then: b1(v2), else: b1(v3)`
    /// binds `b1`'s parameter to `v2` or `v3` by the condition): an edge is
    /// named by its block and [`EdgeSlot`], not by its two blocks.
    JmpIf {
        /// The condition, `u1`.
        condition: Value,
        /// Taken when the condition is 1.
        then_destination: Block,
        /// One argument per parameter of `then_destination`.
        then_arguments: Vec<Value>,
        /// Taken when the condition is 0.
        else_destination: Block,
        /// One argument per parameter of `else_destination`.
        else_arguments: Vec<Value>,
    },
    /// `return v, ...`.
    Return {
        /// The returned values.
        values: Vec<Value>,
    },
    /// `unreachable`: executing it traps.
    Unreachable,
}

impl Terminator {
    /// The successor blocks, in textual order (a `jmpif` to the same block
    /// twice lists it twice).
    pub fn successors(&self) -> impl Iterator<Item = Block> + '_ {
        let (first, second) = match *self {
            Terminator::Jmp { destination, .. } => (Some(destination), None),
            Terminator::JmpIf {
                then_destination,
                else_destination,
                ..
            } => (Some(then_destination), Some(else_destination)),
            Terminator::Return { .. } | Terminator::Unreachable => (None, None),
        };
        first.into_iter().chain(second)
    }

    /// The values the terminator reads, in textual order (a `jmpif`'s
    /// condition, then the arguments of each edge).
    pub fn arguments(&self) -> impl Iterator<Item = &Value> + '_ {
        let none: &[Value] = &[];
        let (first, second, third) = match self {
            Terminator::Jmp { arguments, .. } => (arguments.as_slice(), none, none),
            Terminator::JmpIf {
                condition,
                then_arguments,
                else_arguments,
                ..
            } => (
                std::slice::from_ref(condition),
                then_arguments.as_slice(),
                else_arguments.as_slice(),
            ),
            Terminator::Return { values } => (values.as_slice(), none, none),
            Terminator::Unreachable => (none, none, none),
        };
        first.iter().chain(second).chain(third)
    }

    /// The arguments of every edge (a `jmpif`'s then edge, then its else
    /// edge), without the condition.
    pub fn branch_arguments(&self) -> impl Iterator<Item = &Value> + '_ {
        let none: &[Value] = &[];
        let (first, second) = match self {
            Terminator::Jmp { arguments, .. } => (arguments.as_slice(), none),
            Terminator::JmpIf {
                then_arguments,
                else_arguments,
                ..
            } => (then_arguments.as_slice(), else_arguments.as_slice()),
            Terminator::Return { .. } | Terminator::Unreachable => (none, none),
        };
        first.iter().chain(second)
    }

    /// Rewrites the arguments of every edge through `f` (not the condition
    /// nor the returned values).
    pub fn map_branch_arguments(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            Terminator::Jmp { arguments, .. } => arguments.iter_mut().for_each(|v| *v = f(*v)),
            Terminator::JmpIf {
                then_arguments,
                else_arguments,
                ..
            } => {
                then_arguments.iter_mut().for_each(|v| *v = f(*v));
                else_arguments.iter_mut().for_each(|v| *v = f(*v));
            }
            Terminator::Return { .. } | Terminator::Unreachable => {}
        }
    }

    /// The edges the terminator leaves by, in textual order (a `jmpif`'s
    /// then edge, then its else edge): each with its slot, destination and
    /// arguments. A `jmpif` whose destinations are one block has two edges to
    /// it, which may pass different arguments.
    pub fn edges(&self) -> impl Iterator<Item = Edge<'_>> + '_ {
        let (first, second) = match self {
            Terminator::Jmp {
                destination,
                arguments,
            } => (Some((EdgeSlot::Jump, *destination, arguments)), None),
            Terminator::JmpIf {
                then_destination,
                then_arguments,
                else_destination,
                else_arguments,
                ..
            } => (
                Some((EdgeSlot::Then, *then_destination, then_arguments)),
                Some((EdgeSlot::Else, *else_destination, else_arguments)),
            ),
            Terminator::Return { .. } | Terminator::Unreachable => (None, None),
        };
        first
            .into_iter()
            .chain(second)
            .map(|(slot, destination, arguments)| Edge {
                slot,
                destination,
                arguments,
            })
    }

    /// The argument lists of the edges to `successor`, one per edge: none
    /// if it is not a successor, two for a `jmpif` whose destinations are
    /// both `successor` (then edge first). A binding of `successor`'s
    /// parameters from this block must account for every list.
    pub fn edges_to(&self, successor: Block) -> impl Iterator<Item = &[Value]> + '_ {
        self.edges()
            .filter(move |edge| edge.destination == successor)
            .map(|edge| edge.arguments)
    }

    /// Whether this is a `jmpif` whose two edges enter one block with
    /// different arguments: a jump that selects its destination's
    /// parameters by the condition.
    pub fn is_select_jump(&self) -> bool {
        matches!(
            self,
            Terminator::JmpIf {
                then_destination,
                then_arguments,
                else_destination,
                else_arguments,
                ..
            } if then_destination == else_destination && then_arguments != else_arguments
        )
    }

    /// The argument lists of the edges to `successor`, to append to or
    /// rewrite (both of a `jmpif` whose destinations are the same block).
    pub fn edges_to_mut(&mut self, successor: Block) -> impl Iterator<Item = &mut Vec<Value>> {
        let (first, second) = match self {
            Terminator::Jmp {
                destination,
                arguments,
            } => ((*destination == successor).then_some(arguments), None),
            Terminator::JmpIf {
                then_destination,
                then_arguments,
                else_destination,
                else_arguments,
                ..
            } => (
                (*then_destination == successor).then_some(then_arguments),
                (*else_destination == successor).then_some(else_arguments),
            ),
            Terminator::Return { .. } | Terminator::Unreachable => (None, None),
        };
        first.into_iter().chain(second)
    }

    /// Rewrites every operand through `f`.
    pub fn map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            Terminator::JmpIf { condition, .. } => *condition = f(*condition),
            Terminator::Return { values } => values.iter_mut().for_each(|v| *v = f(*v)),
            Terminator::Jmp { .. } | Terminator::Unreachable => {}
        }
        self.map_branch_arguments(f);
    }

    /// Rewrites every destination through `f`.
    pub fn map_blocks(&mut self, mut f: impl FnMut(Block) -> Block) {
        match self {
            Terminator::Jmp { destination, .. } => *destination = f(*destination),
            Terminator::JmpIf {
                then_destination,
                else_destination,
                ..
            } => {
                *then_destination = f(*then_destination);
                *else_destination = f(*else_destination);
            }
            Terminator::Return { .. } | Terminator::Unreachable => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every instruction has this data, so its size is the IR's memory per
    /// instruction (Cranelift checks its `InstructionData` the same way):
    /// the payloads of rare instructions that would widen it are boxed.
    #[test]
    fn instruction_data_is_40_bytes() {
        assert_eq!(std::mem::size_of::<InstructionData>(), 40);
    }
}
