//! The printer of the text format: `Display` for [`Function`] and
//! [`Module`]. It writes the canonical form the parser reads back to the same
//! function (values and blocks keep their numbers, constants are written
//! inline as `Field 5`, `i8 -1`), so `print(parse(text))` is a fixed point.

use std::fmt::{self, Display, Formatter, Write};

use cranelift_entity::EntityRef;

use crate::{
    AssertMessage, Block, Callee, ConstValue, FuncId, Function, GlobalData, GlobalId, GlobalInit,
    GlobalOperand, Inst, InstructionData, Module, Terminator, Type, Value, ValueDef,
};

/// A [`Function`] displayed with the id its module gives it.
pub struct DisplayFunction<'a> {
    func: &'a Function,
    id: FuncId,
}

/// One instruction of a [`Function`], as its line of the text format
/// without indentation (`v7 = mul v5, v6`).
pub struct DisplayInst<'a> {
    func: &'a Function,
    inst: Inst,
}

/// The terminator of a block, as its line of the text format.
pub struct DisplayTerminator<'a> {
    func: &'a Function,
    block: Block,
}

impl Function {
    /// Displays the function with the header id `id` (`fn main f3 {`).
    /// `Display` on the function alone writes `f0`.
    pub fn display(&self, id: FuncId) -> DisplayFunction<'_> {
        DisplayFunction { func: self, id }
    }

    /// Displays instruction `inst` as the printer writes it in its block.
    pub fn display_inst(&self, inst: Inst) -> DisplayInst<'_> {
        DisplayInst { func: self, inst }
    }

    /// Displays the terminator of `block` (nothing if it has none).
    pub fn display_terminator(&self, block: Block) -> DisplayTerminator<'_> {
        DisplayTerminator { func: self, block }
    }
}

impl Display for DisplayInst<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_inst_line(f, self.func, self.inst)
    }
}

impl Display for DisplayTerminator<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.func.dfg.terminator(self.block) {
            Some(terminator) => write_terminator(f, self.func, terminator),
            None => Ok(()),
        }
    }
}

impl Display for DisplayFunction<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_function(f, self.func, self.id)
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_function(f, self, FuncId::from_u32(0))
    }
}

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_module(f, self, &mut |f, id, func| write_function(f, func, id))
    }
}

/// A [`Module`] displayed with its functions' texts written beforehand.
pub struct DisplayModuleWith<'a> {
    module: &'a Module,
    functions: &'a [String],
}

impl Module {
    /// Displays the module as `Display` does, with `functions[i]` written
    /// for its `i`th function: the text [`Function::display`] gives it,
    /// made elsewhere (on the thread that finished the function, say).
    ///
    /// # Panics
    ///
    /// When `functions` does not hold one text per function.
    pub fn display_with<'a>(&'a self, functions: &'a [String]) -> DisplayModuleWith<'a> {
        assert_eq!(
            functions.len(),
            self.functions.len(),
            "one text per function"
        );
        DisplayModuleWith {
            module: self,
            functions,
        }
    }
}

impl Display for DisplayModuleWith<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_module(f, self.module, &mut |f, id, _| {
            f.write_str(&self.functions[id.index()])
        })
    }
}

/// The globals, then each function as `function` writes it, a blank line
/// between items.
fn write_module(
    f: &mut Formatter<'_>,
    module: &Module,
    function: &mut dyn FnMut(&mut Formatter<'_>, FuncId, &Function) -> fmt::Result,
) -> fmt::Result {
    for (id, global) in &module.globals {
        write_global(f, id, global)?;
    }
    for (i, (id, func)) in module.functions.iter().enumerate() {
        if i > 0 || !module.globals.is_empty() {
            f.write_char('\n')?;
        }
        function(f, id, func)?;
    }
    Ok(())
}

/// `g0 = Field 1` or `g1 = make_array [g0, Field 2] : [Field; 2]`, as Noir
/// prints its globals.
fn write_global(f: &mut Formatter<'_>, id: GlobalId, global: &GlobalData) -> fmt::Result {
    write!(f, "{id} = ")?;
    match &global.init {
        GlobalInit::Const(value) => {
            write!(f, "{} ", global.ty)?;
            write_constant_digits(f, &global.ty, *value)?;
        }
        GlobalInit::Array(elements) => {
            f.write_str("make_array [")?;
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                match element {
                    GlobalOperand::Const(value, ty) => {
                        write!(f, "{ty} ")?;
                        write_constant_digits(f, ty, *value)?;
                    }
                    GlobalOperand::Global(g) => write!(f, "{g}")?,
                }
            }
            write!(f, "] : {}", global.ty)?;
        }
    }
    f.write_char('\n')
}

/// `, "message"` after a `constrain` or a `range_check`, escaped as the
/// parser reads it back; nothing without a message.
fn write_message(f: &mut Formatter<'_>, message: Option<&str>) -> fmt::Result {
    let Some(message) = message else {
        return Ok(());
    };
    f.write_str(", \"")?;
    for c in message.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// Writes the constant `value` of type `ty` as its digits, negative for
/// `iN` values with the sign bit set and for field elements whose negation
/// has fewer digits (`Field -1`), as Noir writes them.
pub(crate) fn write_constant_digits(
    f: &mut impl Write,
    ty: &Type,
    value: ConstValue,
) -> fmt::Result {
    if let Some(negated) = (*ty == Type::Field)
        .then(|| crate::parser::shorter_field_negation(value))
        .flatten()
    {
        return write!(f, "-{negated}");
    }
    if let (Type::Signed(bits), Some(raw)) = (ty, value.to_u128()) {
        let bits = *bits;
        if (1..=128).contains(&bits) && (raw >> (bits - 1)) & 1 == 1 {
            let mask = if bits == 128 {
                u128::MAX
            } else {
                (1u128 << bits) - 1
            };
            let magnitude = raw.wrapping_neg() & mask;
            let magnitude = if magnitude == 0 { raw } else { magnitude };
            return write!(f, "-{magnitude}");
        }
    }
    write!(f, "{value}")
}

struct Operand<'a>(&'a Function, Value);

impl Display for Operand<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let dfg = &self.0.dfg;
        let value = if dfg.value_is_valid(self.1) {
            dfg.resolve(self.1)
        } else {
            self.1
        };
        if dfg.value_is_valid(value) {
            match dfg.value_def(value) {
                ValueDef::Const(c) => {
                    let ty = dfg.value_type(value);
                    write!(f, "{ty} ")?;
                    return write_constant_digits(f, ty, c);
                }
                ValueDef::Global(global) => return write!(f, "{global}"),
                ValueDef::Function(function) => return write!(f, "{function}"),
                _ => {}
            }
        }
        write!(f, "{value}")
    }
}

struct List<'a>(&'a Function, &'a [Value]);

impl Display for List<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, &value) in self.1.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", Operand(self.0, value))?;
        }
        Ok(())
    }
}

fn write_function(f: &mut Formatter<'_>, func: &Function, id: FuncId) -> fmt::Result {
    if let Some(runtime) = &func.runtime {
        write!(f, "{runtime} ")?;
    }
    writeln!(f, "fn {} {id} {{", func.name)?;
    write_databus(f, func)?;
    for block in func.layout.blocks() {
        write_block(f, func, block)?;
    }
    f.write_str("}\n")
}

/// `call_data(0): array: v5, indices: [v0: 0, v1: 1]` and `return_data:
/// v7`, before the blocks, as Noir prints them.
fn write_databus(f: &mut Formatter<'_>, func: &Function) -> fmt::Result {
    for call_data in &func.databus.call_data {
        write!(
            f,
            "  call_data({}): array: {}, indices: [",
            call_data.id,
            Operand(func, call_data.array)
        )?;
        for (i, &(value, index)) in call_data.indices.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}: {index}", Operand(func, value))?;
        }
        f.write_str("]\n")?;
    }
    if let Some(value) = func.databus.return_data {
        writeln!(f, "  return_data: {}", Operand(func, value))?;
    }
    Ok(())
}

fn write_block(f: &mut Formatter<'_>, func: &Function, block: Block) -> fmt::Result {
    let dfg = &func.dfg;
    write!(f, "  {block}(")?;
    for (i, &param) in dfg.block_params(block).iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{param}: {}", dfg.value_type(param))?;
    }
    f.write_str("):\n")?;
    for inst in func.layout.block_insts(block) {
        f.write_str("    ")?;
        write_inst_line(f, func, inst)?;
        f.write_char('\n')?;
    }
    if let Some(terminator) = dfg.terminator(block) {
        f.write_str("    ")?;
        write_terminator(f, func, terminator)?;
        f.write_char('\n')?;
    }
    Ok(())
}

/// The text of a `u8` array or slice whose elements are all constant
/// printable bytes, which Noir's printer writes `b"..."` (ASCII letters,
/// digits, punctuation and white space but the form feed).
fn byte_string(func: &Function, elements: &[Value], ty: &Type) -> Option<String> {
    let (Type::Array(types, _) | Type::Slice(types)) = ty else {
        return None;
    };
    if types[..] != [Type::Unsigned(8)] {
        return None;
    }
    elements
        .iter()
        .map(|&v| {
            let byte = u8::try_from(func.dfg.const_value(v)?.to_u64()?).ok()?;
            let printable = byte != 0x0c
                && (byte.is_ascii_alphanumeric()
                    || byte.is_ascii_punctuation()
                    || byte.is_ascii_whitespace());
            printable.then_some(char::from(byte))
        })
        .collect()
}

/// `v1, v2 = op ...`: the results, then the instruction.
fn write_inst_line(f: &mut Formatter<'_>, func: &Function, inst: Inst) -> fmt::Result {
    let results = func.dfg.inst_results(inst);
    for (i, result) in results.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{result}")?;
    }
    if !results.is_empty() {
        f.write_str(" = ")?;
    }
    write_inst(f, func, inst, results)
}

/// An `array_get` or `array_set` index: `u32 4 minus 3` for a constant
/// index with Brillig's offset, the operand otherwise.
struct Index<'a>(&'a Function, Inst, Value);

impl Display for Index<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Index(func, inst, index) = *self;
        let offset = func.array_offsets.get(&inst).copied().unwrap_or(0);
        let shifted = func
            .dfg
            .const_value(index)
            .and_then(|c| c.to_u128())
            .and_then(|c| c.checked_add(u128::from(offset)));
        match shifted {
            Some(shifted) if offset != 0 => {
                write!(f, "{} {shifted} minus {offset}", func.dfg.value_type(index))
            }
            _ => write!(f, "{}", Operand(func, index)),
        }
    }
}

fn write_inst(
    f: &mut Formatter<'_>,
    func: &Function,
    inst: Inst,
    results: &[Value],
) -> fmt::Result {
    use InstructionData::*;
    let data = &func.dfg[inst];
    let op = |v: Value| Operand(func, v);
    let result_ty = |i: usize| results.get(i).map(|&v| func.dfg.value_type(v));
    let name = data.opcode_name();
    match data {
        Binary { op: _, lhs, rhs } => write!(f, "{name} {}, {}", op(*lhs), op(*rhs)),
        Not { arg } | ReduceNoise { arg } | IncRc { arg } | DecRc { arg } => {
            write!(f, "{name} {}", op(*arg))
        }
        Cast { arg, ty } => write!(f, "cast {} as {ty}", op(*arg)),
        Truncate {
            arg,
            bits,
            max_bit_size,
        } => write!(
            f,
            "truncate {} to {bits} bits, max_bit_size: {max_bit_size}",
            op(*arg)
        ),
        Allocate => {
            f.write_str("allocate")?;
            write_arrow(f, result_ty(0))
        }
        Load { address } => {
            write!(f, "load {}", op(*address))?;
            write_arrow(f, result_ty(0))
        }
        Store { value, address } => write!(f, "store {} at {}", op(*value), op(*address)),
        MakeArray { elements, ty } => match byte_string(func, elements, ty) {
            Some(text) => {
                let slice = if matches!(**ty, Type::Slice(_)) {
                    "&"
                } else {
                    ""
                };
                write!(f, "make_array {slice}b{text:?}")
            }
            None => write!(f, "make_array [{}] : {ty}", List(func, elements)),
        },
        ArrayGet { array, index } => {
            let index = Index(func, inst, *index);
            write!(f, "array_get {}, index {index}", op(*array))?;
            write_arrow(f, result_ty(0))
        }
        ArraySet {
            array,
            index,
            value,
            mutable,
        } => write!(
            f,
            "array_set {}{}, index {}, value {}",
            if *mutable { "mut " } else { "" },
            op(*array),
            Index(func, inst, *index),
            op(*value)
        ),
        Constrain {
            lhs,
            rhs,
            equal,
            message,
        } => {
            let cmp = if *equal { "==" } else { "!=" };
            write!(f, "constrain {} {cmp} {}", op(*lhs), op(*rhs))?;
            match message.as_deref() {
                Some(AssertMessage::Static(text)) => write_message(f, Some(text)),
                Some(AssertMessage::Data(payload)) => write!(f, ", data {}", List(func, payload)),
                None => Ok(()),
            }
        }
        RangeCheck { arg, bits, message } => {
            write!(f, "range_check {} to {bits} bits", op(*arg))?;
            write_message(f, message.as_deref())
        }
        EnableSideEffects { condition } => write!(f, "enable_side_effects {}", op(*condition)),
        IfElse {
            then_condition,
            then_value,
            else_condition,
            else_value,
        } => write!(
            f,
            "if {} then {} else (if {}) {}",
            op(*then_condition),
            op(*then_value),
            op(*else_condition),
            op(*else_value)
        ),
        Call { callee, args } => write_call(f, func, *callee, args, results),
        Encode { arg } | Decode { arg } => {
            write!(f, "{name} {}", op(*arg))?;
            write_arrow(f, result_ty(0))
        }
        Nop => f.write_str(name),
    }
}

/// `call f1(v0) -> (u32, Field)`: the callee as the text names it (a
/// function, a value, a builtin or an oracle), the arguments, and the
/// result types.
fn write_call(
    f: &mut Formatter<'_>,
    func: &Function,
    callee: Callee,
    args: &[Value],
    results: &[Value],
) -> fmt::Result {
    f.write_str("call ")?;
    match callee {
        Callee::Foreign(id) => f.write_str(func.dfg.foreign_name(id))?,
        Callee::Value(value) => write!(f, "{}", Operand(func, value))?,
        Callee::Builtin(builtin) => f.write_str(builtin.name_in(func.builtin_names))?,
        Callee::Function(_) => write!(f, "{callee}")?,
    }
    write!(f, "({})", List(func, args))?;
    match results {
        [] => Ok(()),
        [single] => write!(f, " -> {}", func.dfg.value_type(*single)),
        many => {
            f.write_str(" -> (")?;
            for (i, &v) in many.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{}", func.dfg.value_type(v))?;
            }
            f.write_char(')')
        }
    }
}

fn write_arrow(f: &mut Formatter<'_>, ty: Option<&Type>) -> fmt::Result {
    match ty {
        Some(ty) => write!(f, " -> {ty}"),
        // A malformed instruction without its result: the verifier reports it.
        None => Ok(()),
    }
}

fn write_terminator(
    f: &mut Formatter<'_>,
    func: &Function,
    terminator: &Terminator,
) -> fmt::Result {
    match terminator {
        Terminator::Jmp {
            destination,
            arguments,
        } => write!(f, "jmp {destination}({})", List(func, arguments)),
        Terminator::JmpIf {
            condition,
            then_destination,
            then_arguments,
            else_destination,
            else_arguments,
        } => write!(
            f,
            "jmpif {} then: {then_destination}({}), else: {else_destination}({})",
            Operand(func, *condition),
            List(func, then_arguments),
            List(func, else_arguments)
        ),
        Terminator::Return { values } if values.is_empty() => f.write_str("return"),
        Terminator::Return { values } => write!(f, "return {}", List(func, values)),
        Terminator::Unreachable => f.write_str("unreachable"),
    }
}
