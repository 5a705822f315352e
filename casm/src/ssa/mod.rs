//! SSA form of a checked `.jvr` module: every assignment defines a fresh
//! variable, names are resolved, calls bound to function indices.
//!
//! A branch with `out: x` becomes a join variable: each arm that falls
//! through carries the operand that `x` denotes at its end (the operand of
//! a phi), and only the join variable is visible after the branch. This is
//! the structured form of the classic construction (Cytron et al., "Efficiently
//! Computing Static Single Assignment Form", TOPLAS 1991) for code whose only
//! joins are branch ends.

use std::fmt;

use crate::felt::Felt;
use crate::heap::Kind;
use crate::jvr::{
    BinOp, BuiltinOp, Cond, JvrError, JvrErrorKind, Module, Pos, Stmt, StmtKind, Value, VarName,
};

/// An SSA variable of one function; parameters are `0..n_params`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var(pub u32);

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// A function of an [`SsaModule`], by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

/// An operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A variable.
    Var(Var),
    /// A constant.
    Const(Felt),
}

impl Operand {
    /// The variable read, if any.
    pub fn var(&self) -> Option<Var> {
        match self {
            Operand::Var(v) => Some(*v),
            Operand::Const(_) => None,
        }
    }
}

/// A branch condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SCond {
    /// Non-zero.
    NonZero(Operand),
    /// A comparison holds.
    Cmp(BinOp, Operand, Operand),
}

/// One arm of a branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// Instructions.
    pub body: Vec<Inst>,
    /// Whether the arm can reach its end (rather than returning).
    pub falls: bool,
    /// The value of the branch output at the arm's end, when it falls
    /// through and the branch has an output.
    pub result: Option<Operand>,
}

/// SSA instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inst {
    /// `dst = src`.
    Copy {
        /// Destination.
        dst: Var,
        /// Source.
        src: Operand,
    },
    /// `dst = op a b`.
    Binop {
        /// Destination.
        dst: Var,
        /// Operation.
        op: BinOp,
        /// Left.
        a: Operand,
        /// Right.
        b: Operand,
    },
    /// `dst = call func(args)`.
    Call {
        /// Destination.
        dst: Var,
        /// Callee.
        func: FuncId,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// `tcall func(args)`.
    TailCall {
        /// Callee.
        func: FuncId,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// `ret v`.
    Ret(Operand),
    /// `dst = alloc`: a constructor `[2 tag + 1, fields...]` in memory.
    Alloc {
        /// Destination (the address).
        dst: Var,
        /// The constructor's index in the module.
        tag: u32,
        /// Fields.
        args: Vec<Operand>,
    },
    /// `dst = "text"`: a string `[-1, n, bytes...]` in memory, one byte of
    /// its UTF-8 text per cell.
    Str {
        /// Destination (the address).
        dst: Var,
        /// The text.
        text: String,
    },
    /// `dst = strcat a b`: a concatenation `[-2, n, a, b]` of two strings.
    StrCat {
        /// Destination (the address).
        dst: Var,
        /// Left.
        a: Var,
        /// Right.
        b: Var,
    },
    /// `dst = [[src] + 1 + index]`: a constructor's field.
    Load {
        /// Destination.
        dst: Var,
        /// The constructor's address.
        src: Var,
        /// Field index.
        index: u32,
    },
    /// Asserts that the constructor at `src` is the one of index `tag`
    /// (its header is `2 tag + 1`), before a field read that names it.
    CheckTag {
        /// The constructor's address.
        src: Var,
        /// The constructor the read names.
        tag: u32,
    },
    /// `dst = calloc`: a closure `[2 id, left, stored, args...]`.
    CAlloc {
        /// Destination (the address).
        dst: Var,
        /// The function.
        func: FuncId,
        /// Stored arguments.
        args: Vec<Operand>,
    },
    /// `dst = argsnum closure`: the arguments it still takes.
    ArgsNum {
        /// Destination.
        dst: Var,
        /// The closure.
        closure: Operand,
    },
    /// A call of a closure or of a runtime routine, that returns like a
    /// function call (and so ends a block).
    Apply {
        /// Destination.
        dst: Var,
        /// What is called.
        kind: ApplyKind,
        /// The closure.
        closure: Operand,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// A tail call through a closure.
    TailApply {
        /// [`ApplyKind::Call`] or [`ApplyKind::Any`].
        kind: ApplyKind,
        /// The closure.
        closure: Operand,
        /// Arguments.
        args: Vec<Operand>,
    },
    /// `dst = poseidon s` or `dst = ec_op p m q`, through the builtin.
    Builtin {
        /// Destination (a new constructor like the first operand's).
        dst: Var,
        /// Which builtin.
        op: BuiltinOp,
        /// Operands.
        args: Vec<Operand>,
    },
    /// `trace v`: one output line.
    Trace(Operand, Kind),
    /// `fail v`: stops the run with `v` as the message.
    Fail(Operand),
    /// Dispatch on a constructor's tag.
    Case {
        /// The constructor's address.
        scrut: Operand,
        /// The module index of the type's first constructor.
        first_tag: u32,
        /// For each constructor of the type, in order, its arm.
        table: Vec<usize>,
        /// Join variable defined by the case.
        out: Option<Var>,
        /// Arms (the `default` one last, when present).
        arms: Vec<Arm>,
    },
    /// Two-way branch.
    Branch {
        /// Condition.
        cond: SCond,
        /// Join variable defined by the branch.
        out: Option<Var>,
        /// `[true arm, false arm]`.
        arms: Box<[Arm; 2]>,
    },
}

/// A call through a closure value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyKind {
    /// Call the closure with exactly its remaining arguments.
    Call,
    /// `cextend`: a new closure with more stored arguments.
    Extend,
    /// `ccall`: any number of arguments (fewer extend the closure, more
    /// call it and apply the result to the rest).
    Any,
    /// `eq` of two constructors: the `closure` operand and the one
    /// argument are compared structurally by the runtime routine
    /// `__kildall_eq`, called like a closure.
    Equal,
    /// `show` of an integer (the `closure` operand), by the runtime
    /// routine `__kildall_show_int`.
    ShowInt,
    /// `atoi` of the string in the `closure` operand, by `__kildall_atoi`.
    Atoi,
    /// `eq` of two strings (the `closure` operand and the one argument),
    /// by `__kildall_eq_str`.
    EqualStrings,
    /// `show` of a constructor (the `closure` operand): its term, by the
    /// runtime routine `__kildall_show`.
    ShowCtor,
    /// `show` of a value declared a boolean, `unit` or `void` (the kind):
    /// the text of the number it stores, or its digits when it stores
    /// none, by the runtime routine `__kildall_show_bool` (`_unit`,
    /// `_void`).
    ShowNamed(Kind),
}

/// A function in SSA form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaFunction {
    /// Name.
    pub name: String,
    /// Number of parameters (variables `0..n_params`).
    pub n_params: u32,
    /// Number of variables.
    pub n_vars: u32,
    /// Body.
    pub body: Vec<Inst>,
    /// What the function returns: its declared result type's kind, or
    /// what its `ret`s agree on.
    pub result_kind: Kind,
    /// What its parameters hold: their declared types' kinds, a `*`
    /// parameter [`Kind::Mixed`] when some call passes it a boolean,
    /// `unit` or `void`.
    pub param_kinds: Vec<Kind>,
}

/// The defined functions of a module in SSA form, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaModule {
    /// Functions; [`FuncId`] indexes this.
    pub functions: Vec<SsaFunction>,
    /// The functions `calloc` names, in order of first use: a closure
    /// stores its function's index in this list.
    pub closure_funcs: Vec<FuncId>,
    /// What each constructor's fields hold, by tag (for equality and for
    /// printing terms).
    pub field_kinds: Vec<Vec<Kind>>,
    /// Why the compiled machines cannot print what the module prints
    /// (traces, IO output) as the reference interpreter prints terms, if
    /// they cannot: a printed value may be a boolean, `unit` or `void` its
    /// kind does not name.
    pub term_hazard: Option<JvrError>,
    /// The module's constructors' names, by tag (for `show`).
    pub ctor_names: Vec<String>,
    /// Where the IO constructors are, when the module makes IO actions.
    pub io: Option<crate::heap::IoTags>,
}

impl SsaModule {
    /// A function's closure id, if some closure can hold it.
    pub fn closure_id(&self, f: FuncId) -> Option<u32> {
        self.closure_funcs
            .iter()
            .position(|g| *g == f)
            .map(|i| i as u32)
    }
}

impl SsaModule {
    /// The index of the function called `name`.
    pub fn find(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }
}

mod convert;
mod kinds;

pub(crate) use convert::unprintable;
pub use convert::{convert, convert_for_entry};
pub(crate) use kinds::type_kind;
