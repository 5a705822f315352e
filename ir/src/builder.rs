//! Building and editing functions: a cursor that inserts, removes and walks
//! instructions (after Cranelift's `FuncCursor`), with one typed method per
//! instruction that computes the result types.

use crate::{
    AssertMessage, BinaryOp, Block, Builtin, Callee, ConstValue, FuncId, Function, Inst,
    InstructionData, Terminator, Type, Value, ValueDef,
};

/// Where a [`FuncCursor`] inserts.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CursorPosition {
    /// Nowhere: inserting panics.
    Nowhere,
    /// At an instruction: inserts go before it.
    At(Inst),
    /// At the start of a block, before its first instruction.
    Before(Block),
    /// At the end of a block, after its last instruction (before its terminator).
    After(Block),
}

/// A position in a function plus the function: insert, remove and walk.
pub struct FuncCursor<'f> {
    /// The function edited.
    pub func: &'f mut Function,
    position: CursorPosition,
}

impl<'f> FuncCursor<'f> {
    /// A cursor at no position.
    pub fn new(func: &'f mut Function) -> Self {
        FuncCursor {
            func,
            position: CursorPosition::Nowhere,
        }
    }

    /// The current position.
    pub fn position(&self) -> CursorPosition {
        self.position
    }

    /// Moves to the end of `block`: inserts append to it.
    pub fn goto_bottom(&mut self, block: Block) -> &mut Self {
        self.position = CursorPosition::After(block);
        self
    }

    /// The cursor moved to the end of `block` (as [`goto_bottom`](Self::goto_bottom)),
    /// for a cursor made to append to one block.
    pub fn at_bottom(mut self, block: Block) -> Self {
        self.goto_bottom(block);
        self
    }

    /// Moves to the start of `block`.
    pub fn goto_top(&mut self, block: Block) -> &mut Self {
        self.position = CursorPosition::Before(block);
        self
    }

    /// Moves to `inst`: inserts go before it.
    pub fn goto_inst(&mut self, inst: Inst) -> &mut Self {
        self.position = CursorPosition::At(inst);
        self
    }

    /// Moves to right after `inst`.
    pub fn goto_after_inst(&mut self, inst: Inst) -> &mut Self {
        self.position = match self.func.layout.next_inst(inst) {
            Some(next) => CursorPosition::At(next),
            None => CursorPosition::After(self.func.layout.inst_block(inst).expect("in layout")),
        };
        self
    }

    /// The block the cursor is in.
    pub fn current_block(&self) -> Option<Block> {
        match self.position {
            CursorPosition::Nowhere => None,
            CursorPosition::At(inst) => self.func.layout.inst_block(inst),
            CursorPosition::Before(block) | CursorPosition::After(block) => Some(block),
        }
    }

    /// The instruction at the cursor.
    pub fn current_inst(&self) -> Option<Inst> {
        match self.position {
            CursorPosition::At(inst) => Some(inst),
            _ => None,
        }
    }

    /// Steps to the next instruction of the block and returns it; at the end
    /// of the block, the cursor stays at its bottom and this returns `None`.
    pub fn next_inst(&mut self) -> Option<Inst> {
        let layout = &self.func.layout;
        let (next, block) = match self.position {
            CursorPosition::Nowhere | CursorPosition::After(_) => return None,
            CursorPosition::At(inst) => (layout.next_inst(inst), layout.inst_block(inst)?),
            CursorPosition::Before(block) => (layout.first_inst(block), block),
        };
        self.position = match next {
            Some(inst) => CursorPosition::At(inst),
            None => CursorPosition::After(block),
        };
        next
    }

    /// Removes the instruction at the cursor (detaching its results) and
    /// moves to the one after it.
    pub fn remove_inst(&mut self) -> Inst {
        let inst = self.current_inst().expect("cursor at an instruction");
        self.goto_after_inst(inst);
        self.func.remove_inst(inst);
        inst
    }

    /// Creates a block and appends it to the layout.
    pub fn append_block(&mut self) -> Block {
        let block = self.func.dfg.make_block();
        self.func.layout.append_block(block);
        block
    }

    /// Inserts an instruction at the cursor with results of the given types.
    pub fn insert(&mut self, data: InstructionData, result_types: &[Type]) -> Inst {
        let inst = self.func.dfg.make_inst(data);
        for ty in result_types {
            self.func.dfg.append_result(inst, ty.clone());
        }
        match self.position {
            CursorPosition::Nowhere => panic!("cursor has no position"),
            CursorPosition::At(at) => self.func.layout.insert_inst_before(inst, at),
            CursorPosition::Before(block) => {
                // Later inserts go after this one, in program order.
                self.position = match self.func.layout.first_inst(block) {
                    Some(first) => CursorPosition::At(first),
                    None => CursorPosition::After(block),
                };
                self.func.layout.prepend_inst(inst, block);
            }
            CursorPosition::After(block) => self.func.layout.append_inst(inst, block),
        }
        inst
    }

    fn insert1(&mut self, data: InstructionData, ty: Type) -> Value {
        let inst = self.insert(data, std::slice::from_ref(&ty));
        self.func.dfg.first_result(inst).expect("one result")
    }

    fn ty(&self, value: Value) -> Type {
        self.func.dfg.value_type(value).clone()
    }

    /// The constant `value` of type `ty`.
    pub fn constant(&mut self, value: u128, ty: Type) -> Value {
        self.func.dfg.constant(ConstValue::from_u128(value), ty)
    }

    /// `OP lhs, rhs`.
    pub fn binary(&mut self, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
        let ty = if op.is_comparison() {
            Type::BOOL
        } else if matches!(self.func.dfg.value_def(lhs), ValueDef::Const(_)) {
            // `mul u5 4, v2`: a plaintext constant scales a `noisy` value.
            self.ty(rhs)
        } else {
            self.ty(lhs)
        };
        self.insert1(InstructionData::Binary { op, lhs, rhs }, ty)
    }

    /// `not arg`.
    pub fn not(&mut self, arg: Value) -> Value {
        let ty = self.ty(arg);
        self.insert1(InstructionData::Not { arg }, ty)
    }

    /// `cast arg as ty`.
    pub fn cast(&mut self, arg: Value, ty: Type) -> Value {
        self.insert1(
            InstructionData::Cast {
                arg,
                ty: ty.clone(),
            },
            ty,
        )
    }

    /// `truncate arg to bits bits, max_bit_size: max_bit_size`.
    pub fn truncate(&mut self, arg: Value, bits: u32, max_bit_size: u32) -> Value {
        let ty = self.ty(arg);
        let data = InstructionData::Truncate {
            arg,
            bits,
            max_bit_size,
        };
        self.insert1(data, ty)
    }

    /// `allocate -> &mut pointee`.
    pub fn allocate(&mut self, pointee: Type) -> Value {
        self.insert1(InstructionData::Allocate, Type::reference(pointee))
    }

    /// `load address -> T`, `T` the pointee type.
    pub fn load(&mut self, address: Value) -> Value {
        let ty = self.ty(address).pointee().cloned().unwrap_or(Type::Field);
        self.insert1(InstructionData::Load { address }, ty)
    }

    /// `store value at address`.
    pub fn store(&mut self, value: Value, address: Value) -> Inst {
        self.insert(InstructionData::Store { value, address }, &[])
    }

    /// `make_array [elements] : ty`.
    pub fn make_array(&mut self, elements: Vec<Value>, ty: Type) -> Value {
        self.insert1(
            InstructionData::MakeArray {
                elements,
                ty: Box::new(ty.clone()),
            },
            ty,
        )
    }

    /// `array_get array, index index -> ty`.
    pub fn array_get(&mut self, array: Value, index: Value, ty: Type) -> Value {
        self.insert1(InstructionData::ArrayGet { array, index }, ty)
    }

    /// `array_set array, index index, value value`.
    pub fn array_set(&mut self, array: Value, index: Value, value: Value) -> Value {
        let ty = self.ty(array);
        self.insert1(
            InstructionData::ArraySet {
                array,
                index,
                value,
                mutable: false,
            },
            ty,
        )
    }

    /// `constrain lhs == rhs` (or `!=` when `equal` is false).
    pub fn constrain(
        &mut self,
        lhs: Value,
        rhs: Value,
        equal: bool,
        message: Option<AssertMessage>,
    ) -> Inst {
        let data = InstructionData::Constrain {
            lhs,
            rhs,
            equal,
            message: message.map(Box::new),
        };
        self.insert(data, &[])
    }

    /// `range_check arg to bits bits`.
    pub fn range_check(&mut self, arg: Value, bits: u32) -> Inst {
        let data = InstructionData::RangeCheck {
            arg,
            bits,
            message: None,
        };
        self.insert(data, &[])
    }

    /// `enable_side_effects condition`.
    pub fn enable_side_effects(&mut self, condition: Value) -> Inst {
        self.insert(InstructionData::EnableSideEffects { condition }, &[])
    }

    /// `if then_condition then then_value else (if else_condition) else_value`.
    pub fn if_else(
        &mut self,
        then_condition: Value,
        then_value: Value,
        else_condition: Value,
        else_value: Value,
    ) -> Value {
        let ty = self.ty(then_value);
        let data = InstructionData::IfElse {
            then_condition,
            then_value,
            else_condition,
            else_value,
        };
        self.insert1(data, ty)
    }

    /// `call function(args) -> (result_types)`; returns the instruction, whose
    /// results are in the data flow graph.
    pub fn call(&mut self, function: FuncId, args: Vec<Value>, result_types: &[Type]) -> Inst {
        let data = InstructionData::Call {
            callee: Callee::Function(function),
            args,
        };
        self.insert(data, result_types)
    }

    /// `call vF(args) -> (result_types)`: a call through a value of type
    /// `function`.
    pub fn call_value(&mut self, callee: Value, args: Vec<Value>, result_types: &[Type]) -> Inst {
        let data = InstructionData::Call {
            callee: Callee::Value(callee),
            args,
        };
        self.insert(data, result_types)
    }

    /// `call builtin(args) -> (result_types)`.
    pub fn call_builtin(
        &mut self,
        builtin: Builtin,
        args: Vec<Value>,
        result_types: &[Type],
    ) -> Inst {
        let data = InstructionData::Call {
            callee: Callee::Builtin(builtin),
            args,
        };
        self.insert(data, result_types)
    }

    /// `encode arg -> noisy`.
    pub fn encode(&mut self, arg: Value) -> Value {
        self.insert1(InstructionData::Encode { arg }, Type::Noisy)
    }

    /// `decode arg -> u5`.
    pub fn decode(&mut self, arg: Value) -> Value {
        self.insert1(InstructionData::Decode { arg }, Type::Unsigned(5))
    }

    /// `reduce_noise arg`.
    pub fn reduce_noise(&mut self, arg: Value) -> Value {
        self.insert1(InstructionData::ReduceNoise { arg }, Type::Noisy)
    }

    /// Ends the current block with `terminator`.
    pub fn terminate(&mut self, terminator: Terminator) {
        let block = self.current_block().expect("cursor in a block");
        self.func.dfg.set_terminator(block, terminator);
    }

    /// Ends the current block with `jmp destination(arguments)`.
    pub fn jmp(&mut self, destination: Block, arguments: Vec<Value>) {
        self.terminate(Terminator::Jmp {
            destination,
            arguments,
        });
    }

    /// Ends the current block with `jmpif condition then: then_destination(),
    /// else: else_destination()` (edges without arguments).
    pub fn jmpif(&mut self, condition: Value, then_destination: Block, else_destination: Block) {
        self.terminate(Terminator::JmpIf {
            condition,
            then_destination,
            then_arguments: Vec::new(),
            else_destination,
            else_arguments: Vec::new(),
        });
    }

    /// Ends the current block with `return values`.
    pub fn ret(&mut self, values: Vec<Value>) {
        self.terminate(Terminator::Return { values });
    }
}
