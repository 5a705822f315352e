//! Functions and modules.

use std::collections::HashMap;
use std::fmt;

use cranelift_entity::{PrimaryMap, SecondaryMap};

use crate::{
    Block, BuiltinNames, DataFlowGraph, FuncId, GlobalData, GlobalId, Inst, Layout, Terminator,
    Type, Value,
};

/// The runtime a function is compiled for, printed before `fn`:
/// `acir(inline)` or `brillig(inline)`, followed by the purity Noir's
/// purity analysis found, if any (`acir(inline) pure fn`). Optional in the
/// text; kept as written so programs from Noir round-trip.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Runtime {
    /// `acir` or `brillig`.
    pub kind: RuntimeKind,
    /// The inline annotation inside the parentheses (`inline`, `fold`, ...).
    pub inline: String,
    /// The purity written after the runtime.
    pub purity: Option<Purity>,
}

/// What Noir's purity analysis says of a function: it has no side effects
/// (`pure`), none but depending on the side-effects predicate
/// (`predicate_pure`), or may have some (`impure`). Kept and printed back;
/// the passes here do not rely on it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Purity {
    /// `pure`.
    Pure,
    /// `predicate_pure`.
    PredicatePure,
    /// `impure`.
    Impure,
}

impl Purity {
    /// The keyword of the text format.
    pub fn keyword(self) -> &'static str {
        match self {
            Purity::Pure => "pure",
            Purity::PredicatePure => "predicate_pure",
            Purity::Impure => "impure",
        }
    }

    /// The purity written `keyword`.
    pub fn from_keyword(keyword: &str) -> Option<Purity> {
        match keyword {
            "pure" => Some(Purity::Pure),
            "predicate_pure" => Some(Purity::PredicatePure),
            "impure" => Some(Purity::Impure),
            _ => None,
        }
    }
}

/// The two runtimes of Noir.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RuntimeKind {
    /// Constrained code, compiled to a circuit.
    Acir,
    /// Unconstrained code, compiled to Brillig bytecode.
    Brillig,
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            RuntimeKind::Acir => "acir",
            RuntimeKind::Brillig => "brillig",
        };
        write!(f, "{kind}({})", self.inline)?;
        match self.purity {
            Some(purity) => write!(f, " {}", purity.keyword()),
            None => Ok(()),
        }
    }
}

/// A position in the source text, 1-based; `line == 0` means unknown.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SourceLoc {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

impl SourceLoc {
    /// Whether the position is known.
    pub fn is_known(self) -> bool {
        self.line != 0
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Noir's data bus of an entry function: which values are the call data
/// and the return data a proof system reads through its data bus rather
/// than as plain inputs and outputs. A declaration only: it names values
/// of the function and changes nothing they compute.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataBus {
    /// `call_data(N): array: vA, indices: [vX: I, ...]`, in text order.
    pub call_data: Vec<CallData>,
    /// `return_data: vR`.
    pub return_data: Option<Value>,
}

/// One call-data array of a [`DataBus`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallData {
    /// The call-data id `N`.
    pub id: u32,
    /// The array of the call data.
    pub array: Value,
    /// The values read from it, each with its index in the array.
    pub indices: Vec<(Value, u64)>,
}

impl DataBus {
    /// Whether the function declares no data bus.
    pub fn is_empty(&self) -> bool {
        self.call_data.is_empty() && self.return_data.is_none()
    }

    /// Every value the declarations name, in text order.
    pub fn values(&self) -> impl Iterator<Item = Value> + '_ {
        self.call_data
            .iter()
            .flat_map(|c| std::iter::once(c.array).chain(c.indices.iter().map(|&(v, _)| v)))
            .chain(self.return_data)
    }

    /// Rewrites every value the declarations name through `f`.
    pub fn map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        for call_data in &mut self.call_data {
            call_data.array = f(call_data.array);
            for (value, _) in &mut call_data.indices {
                *value = f(*value);
            }
        }
        if let Some(value) = &mut self.return_data {
            *value = f(*value);
        }
    }
}

/// A function: its data flow graph and layout. Its parameters are the entry
/// block's parameters; its results are what its `return`s return.
#[derive(Clone)]
pub struct Function {
    /// The name (`main`, ...).
    pub name: String,
    /// The runtime annotation, if the text had one.
    pub runtime: Option<Runtime>,
    /// Instructions, values and blocks.
    pub dfg: DataFlowGraph,
    /// Block and instruction order.
    pub layout: Layout,
    /// Where each instruction came from in the text (unknown for those made by passes).
    pub inst_locs: SecondaryMap<Inst, SourceLoc>,
    /// Where each block's header came from in the text.
    pub block_locs: SecondaryMap<Block, SourceLoc>,
    /// Where each block's terminator came from in the text (unknown for
    /// those made by passes); see [`Function::terminator_loc`].
    pub terminator_locs: SecondaryMap<Block, SourceLoc>,
    /// The offset Noir's Brillig code generation adds to a constant
    /// `array_get` or `array_set` index (1 past an array's reference count,
    /// 3 past a slice's header), written `index u32 4 minus 3`. The
    /// instruction's index operand is the element's index, 1 there; the
    /// offset only changes how the index is printed, so a pass that
    /// rewrites the instruction may ignore it. Sparse: only the few
    /// instructions that have an offset are in it.
    pub array_offsets: HashMap<Inst, u32>,
    /// The data bus declarations of an entry function (empty elsewhere).
    pub databus: DataBus,
    /// The names the slice builtins print under (the family the text
    /// used); like `array_offsets`, it only changes printing.
    pub builtin_names: BuiltinNames,
}

impl Function {
    /// An empty function.
    pub fn new(name: impl Into<String>) -> Self {
        Function {
            name: name.into(),
            runtime: None,
            dfg: DataFlowGraph::new(),
            layout: Layout::new(),
            inst_locs: SecondaryMap::new(),
            block_locs: SecondaryMap::new(),
            terminator_locs: SecondaryMap::new(),
            array_offsets: HashMap::new(),
            databus: DataBus::default(),
            builtin_names: BuiltinNames::default(),
        }
    }

    /// Where `block`'s terminator came from in the text, or its header's
    /// position when the terminator's is unknown (a block without one, or
    /// a terminator a pass made).
    pub fn terminator_loc(&self, block: Block) -> SourceLoc {
        let loc = self.terminator_locs[block];
        if loc == SourceLoc::default() {
            self.block_locs[block]
        } else {
            loc
        }
    }

    /// Whether the function is constrained code: its runtime is `acir`.
    pub fn is_acir(&self) -> bool {
        self.runtime_kind() == Some(RuntimeKind::Acir)
    }

    /// Whether the function is unconstrained code: its runtime is `brillig`.
    pub fn is_brillig(&self) -> bool {
        self.runtime_kind() == Some(RuntimeKind::Brillig)
    }

    fn runtime_kind(&self) -> Option<RuntimeKind> {
        self.runtime.as_ref().map(|r| r.kind)
    }

    /// The entry block.
    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// The parameter types: those of the entry block.
    pub fn param_types(&self) -> Vec<Type> {
        self.entry_block()
            .map(|entry| {
                let params = self.dfg.block_params(entry);
                params
                    .iter()
                    .map(|&v| self.dfg.value_type(v).clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The result types: those of the first `return` in layout order (the
    /// verifier checks that every `return` agrees). `None` if nothing returns.
    pub fn return_types(&self) -> Option<Vec<Type>> {
        self.layout
            .blocks()
            .find_map(|block| match self.dfg.terminator(block) {
                Some(Terminator::Return { values }) => Some(
                    values
                        .iter()
                        .map(|&v| self.dfg.value_type(v).clone())
                        .collect(),
                ),
                _ => None,
            })
    }

    /// The number of instructions in the layout, terminators not counted.
    pub fn num_insts(&self) -> usize {
        self.layout.blocks().map(|b| self.layout.block_len(b)).sum()
    }

    /// Removes `inst` from the layout and detaches its results.
    pub fn remove_inst(&mut self, inst: Inst) {
        self.layout.remove_inst(inst);
        self.dfg.detach_results(inst);
    }
}

/// A program: functions `f0`, `f1`, ...
#[derive(Clone, Default)]
pub struct Module {
    /// The globals, indexed by id, each defined before its uses.
    pub globals: PrimaryMap<GlobalId, GlobalData>,
    /// The functions, indexed by id.
    pub functions: PrimaryMap<FuncId, Function>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a function, returning its id.
    pub fn push(&mut self, function: Function) -> FuncId {
        self.functions.push(function)
    }

    /// The function named `name`.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    /// The function runs start from: `main` if there is one, else the first.
    pub fn main(&self) -> Option<FuncId> {
        self.function_by_name("main")
            .or_else(|| self.functions.keys().next())
    }
}
