//! Fuzz harnesses, in a library so that the
//! `cargo fuzz` targets, the driver's in-process fuzzer and the seeded smoke
//! tests share them (the regalloc2 arrangement).
//!
//! Every harness takes an [`arbitrary`] input (or raw bytes), is
//! deterministic, returns normally on input that is merely invalid and
//! panics, naming the property, when a property fails:
//!
//! - [`ir_parse`]: the text parser on raw bytes and on printed generated
//!   programs with tokens flipped, inserted, deleted, duplicated or swapped.
//!   Parsing never panics; an error's location lies inside the text; a
//!   module that parses prints to text that parses and prints to the same
//!   text; the verifier never panics on what parses.
//! - [`ir_interp`]: the verifier and the interpreter on parsed modules
//!   (mutated, raw or generated): neither panics, a run never executes more
//!   steps than its fuel, a generated program finishes within the fuel bound
//!   its generator computed, and printing then parsing a verified module
//!   does not change what it computes.
//! - [`check_pipeline`]: the differential harness of the passes. A generated
//!   program runs before and after a sequence of passes ([`FuzzedPass`]); the output must
//!   verify and the outcome (returned values or trap, and printed lines)
//!   must not change. The passes themselves are supplied by the caller, so
//!   that this crate depends on none of them.
//!
//! A failing input prints as a regression file in the data-driven format of
//! the interpreter tests (`// key: value` header lines, then the module):
//! see [`PassInput::regression_file`] and [`check_regression_file`].

use std::fmt::Write as _;

pub use arbitrary;
use arbitrary::Arbitrary;

use crate::generate::{
    generate_cfg_with_fuel, generate_flat_arrays, generate_noise, CfgConfig, FlatArrays,
    NoiseConfig, NoiseControlFlow, Rng,
};
use crate::testing::TestOracles;
use kildall_interpreter::{
    display_list, interpret_with_foreign, Execution, InterpreterOptions, Outcome, RuntimeValue,
    TrapKind, TrapRule,
};
use kildall_ir::{parse_module, verify_module, FuncId, Module, ParseError, Type};

mod passes;

use passes::Header;
pub use passes::{
    check_pass_input, check_pipeline, check_regression_file, outcome_text, FuzzedPass, PassInput,
};

/// The largest fuel the interpreter harness grants a run of a parsed module.
pub const MAX_INTERP_FUEL: u64 = 20_000;

// ---------------------------------------------------------------------------
// Programs and token mutations.

/// A small generated program, named by its generator seed and shape.
#[derive(Copy, Clone, Debug, Arbitrary)]
pub struct GenProgram {
    /// Generator seed.
    pub seed: u64,
    /// Size knob (blocks or noisy operations, reduced modulo a small bound).
    pub size: u8,
    /// Shape knob: which generator and which feature mix.
    pub shape: u8,
}

impl GenProgram {
    /// The program and the most steps a run of `main` takes.
    pub fn build(&self) -> (Module, u64) {
        match self.shape % 10 {
            kind @ 8..=9 => {
                let config = FlatArrays {
                    ops: 1 + usize::from(self.size % 24),
                    references: kind == 8,
                };
                let module = generate_flat_arrays(self.seed, config);
                // No loop and no call: each block runs at most once.
                let func = &module.functions[FuncId::from_u32(0)];
                let steps = func
                    .layout
                    .blocks()
                    .map(|b| func.layout.block_insts(b).count() as u64 + 1)
                    .sum();
                (module, steps)
            }
            kind @ 0..=4 => {
                let mut config = CfgConfig {
                    blocks: 2 + usize::from(self.size % 24),
                    functions: 1 + usize::from(self.size / 64),
                    max_trip: 4,
                    trap: 0.01,
                    fuel: 50_000,
                    ..CfgConfig::default()
                };
                config = match kind {
                    1 => config.no_references(),
                    2 => config.no_control_flow(),
                    3 => {
                        config.predication = 4;
                        config.arrays = 4;
                        config.prints = 1;
                        config
                    }
                    4 => {
                        config.branch_arguments = 0.5;
                        config.select_jumps = 0.3;
                        config.function_values = 0.5;
                        config.immutable_references = 2;
                        config.enumerate = 2;
                        config
                    }
                    _ => config,
                };
                generate_cfg_with_fuel(self.seed, &config)
            }
            kind => {
                let config = NoiseConfig {
                    inputs: 1 + usize::from(self.size % 4),
                    ops: 1 + usize::from(self.size % 40),
                    control_flow: match kind {
                        5 => NoiseControlFlow::None,
                        6 => NoiseControlFlow::Diamond,
                        _ => NoiseControlFlow::Loop,
                    },
                    loop_trips: 1 + u32::from(self.size % 4),
                    plaintext_fraction: if self.size.is_multiple_of(3) {
                        0.2
                    } else {
                        0.0
                    },
                    boundary_fraction: if self.seed.is_multiple_of(3) {
                        0.3
                    } else {
                        0.0
                    },
                    ..NoiseConfig::default()
                };
                (generate_noise(self.seed, &config), config.fuel_bound())
            }
        }
    }
}

/// One edit of a program's token sequence.
#[derive(Copy, Clone, Debug, Arbitrary)]
pub enum TokenMutation {
    /// Replace the token at `at` by dictionary entry `with`.
    Flip {
        /// Token position (modulo the count).
        at: u16,
        /// Dictionary entry (modulo the dictionary's size; the program's
        /// own tokens come after the fixed entries).
        with: u16,
    },
    /// Insert dictionary entry `with` before the token at `at`.
    Insert {
        /// Token position.
        at: u16,
        /// Dictionary entry.
        with: u16,
    },
    /// Delete `len + 1` tokens from `at`.
    Delete {
        /// Token position.
        at: u16,
        /// Number of tokens, less one (modulo 8).
        len: u8,
    },
    /// Copy `len + 1` tokens from `from` to before `to`.
    Duplicate {
        /// First token copied.
        from: u16,
        /// Where the copy goes.
        to: u16,
        /// Number of tokens, less one (modulo 16).
        len: u8,
    },
    /// Swap two tokens.
    Swap {
        /// One position.
        a: u16,
        /// The other.
        b: u16,
    },
}

/// Tokens that stress the parser: keywords, types at and past their limits,
/// numbers at and past 2^256, entity names past the arenas, punctuation.
const DICTIONARY: &[&str] = &[
    "fn",
    "acir",
    "brillig",
    "inline",
    "inline_always",
    "fold",
    "main",
    "b0",
    "b1",
    "b4294967295",
    "v0",
    "v1",
    "v4294967295",
    "v99999999999",
    "f0",
    "f1",
    "f4294967296",
    "0",
    "1",
    "32",
    "128",
    "129",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "115792089237316195423570985008687907853269984665640564039457584007913129639935",
    "115792089237316195423570985008687907853269984665640564039457584007913129639936",
    "21888242871839275222246405745257275088548364400416903860308962808495617",
    "Field",
    "u0",
    "u1",
    "u8",
    "u32",
    "u64",
    "u128",
    "u129",
    "i1",
    "i8",
    "i128",
    "i129",
    "bool",
    "noisy",
    "function",
    "&",
    "mut",
    "&mut",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ";",
    ":",
    ",",
    "=",
    "->",
    "-",
    "\"",
    "\"x\"",
    "\"\\",
    "//",
    "\n",
    " ",
    "\t",
    "é",
    "\u{0}",
    "jmp",
    "jmpif",
    "then",
    "else",
    "return",
    "unreachable",
    "call",
    "print",
    "allocate",
    "load",
    "store",
    "at",
    "make_array",
    "array_get",
    "array_set",
    "index",
    "value",
    "constrain",
    "==",
    "!=",
    "range_check",
    "to",
    "bits",
    "enable_side_effects",
    "if",
    "cast",
    "as",
    "truncate",
    "not",
    "add",
    "sub",
    "mul",
    "div",
    "mod",
    "lt",
    "eq",
    "and",
    "or",
    "xor",
    "shl",
    "shr",
    "unchecked_add",
    "encode",
    "decode",
    "reduce_noise",
    "inc_rc",
    "dec_rc",
    "[Field; 4294967295]",
    "[u8; 0]",
    "[(u8, Field); 3]",
];

/// Splits `text` into tokens: identifier/number runs and single other
/// characters, each with the whitespace that follows it (leading
/// whitespace is a token of its own). Concatenating the pieces gives `text`
/// back; mutations address the non-blank tokens only, so that no edit is
/// wasted on layout.
pub fn tokenize(text: &str) -> Vec<&str> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut start = 0;
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() && i == 0 {
            while chars.peek().is_some_and(|&(_, c)| c.is_whitespace()) {
                chars.next();
            }
        } else if word(c) {
            while chars.peek().is_some_and(|&(_, c)| word(c)) {
                chars.next();
            }
        } else {
            chars.next();
        }
        while chars.peek().is_some_and(|&(_, c)| c.is_whitespace()) {
            chars.next();
        }
        let end = chars.peek().map_or(text.len(), |&(j, _)| j);
        tokens.push(&text[start..end]);
        start = end;
    }
    tokens
}

/// Applies `mutations` to the tokens of `text`.
pub fn mutate_tokens(text: &str, mutations: &[TokenMutation]) -> String {
    let original = tokenize(text);
    let mut tokens: Vec<String> = original.iter().map(|t| t.to_string()).collect();
    let entry = |with: u16| -> String {
        let i = usize::from(with) % (DICTIONARY.len() + original.len().max(1));
        match DICTIONARY.get(i) {
            Some(t) => format!("{t} "),
            None => original
                .get(i - DICTIONARY.len())
                .map_or(" ".to_string(), |t| t.to_string()),
        }
    };
    for m in mutations {
        let n = tokens.len();
        let pos = |at: u16| if n == 0 { 0 } else { usize::from(at) % n };
        match *m {
            TokenMutation::Flip { at, with } => {
                if n > 0 {
                    let p = pos(at);
                    // Keep the layout after the replaced token.
                    let trailing: String = tokens[p]
                        .chars()
                        .rev()
                        .take_while(|c| c.is_whitespace())
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    let new = entry(with);
                    tokens[p] = format!("{}{trailing}", new.trim_end());
                }
            }
            TokenMutation::Insert { at, with } => {
                let p = if n == 0 { 0 } else { usize::from(at) % (n + 1) };
                tokens.insert(p, entry(with));
            }
            TokenMutation::Delete { at, len } => {
                if n > 0 {
                    let p = pos(at);
                    let end = (p + 1 + usize::from(len % 8)).min(n);
                    tokens.drain(p..end);
                }
            }
            TokenMutation::Duplicate { from, to, len } => {
                // Bounded growth: a mutation adds at most 16 tokens.
                if n > 0 {
                    let p = pos(from);
                    let end = (p + 1 + usize::from(len % 16)).min(n);
                    let copy: Vec<String> = tokens[p..end].to_vec();
                    let q = usize::from(to) % (n + 1);
                    tokens.splice(q..q, copy);
                }
            }
            TokenMutation::Swap { a, b } => {
                if n > 0 {
                    let (a, b) = (pos(a), pos(b));
                    tokens.swap(a, b);
                }
            }
        }
    }
    tokens.concat()
}

/// A printed generated program with token mutations.
#[derive(Clone, Debug, Arbitrary)]
pub struct MutatedProgram {
    /// The program.
    pub program: GenProgram,
    /// Edits of its printed text, applied in order.
    pub mutations: Vec<TokenMutation>,
}

impl MutatedProgram {
    /// The mutated text.
    pub fn text(&self) -> String {
        let (module, _) = self.program.build();
        mutate_tokens(&module.to_string(), &self.mutations)
    }
}

// ---------------------------------------------------------------------------
// ir-parse

/// The input of [`ir_parse`].
#[derive(Clone, Debug, Arbitrary)]
pub enum ParseInput {
    /// Raw bytes, read as UTF-8 with replacement characters.
    Bytes(Vec<u8>),
    /// A mutated printed program.
    Mutated(MutatedProgram),
}

impl ParseInput {
    /// The text the harness parses.
    pub fn text(&self) -> String {
        match self {
            ParseInput::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            ParseInput::Mutated(m) => m.text(),
        }
    }
}

/// Panics unless `err`'s location lies inside `text` (or just past its end).
pub fn check_error_location(text: &str, err: &ParseError) {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = err.loc.line as usize;
    assert!(
        line >= 1 && line <= lines.len(),
        "parse error at line {line}, but the text has {} lines: {err}",
        lines.len()
    );
    let chars = lines[line - 1].chars().count();
    let col = err.loc.col as usize;
    assert!(
        col >= 1 && col <= chars + 1,
        "parse error at {line}:{col}, but line {line} has {chars} characters: {err}"
    );
    // Display must not panic either.
    let _ = err.to_string();
}

/// The parser properties on one text: see the module documentation.
/// Returns the parsed module, if any.
pub fn check_text(text: &str) -> Option<Module> {
    let module = match parse_module(text) {
        Ok(module) => module,
        Err(err) => {
            check_error_location(text, &err);
            return None;
        }
    };
    let printed = module.to_string();
    let reparsed = parse_module(&printed)
        .unwrap_or_else(|e| panic!("the printed module does not parse: {e}\n{printed}"));
    let again = reparsed.to_string();
    assert!(
        again == printed,
        "print, parse, print is not stable:\n--- first\n{printed}\n--- second\n{again}"
    );
    if let Err(err) = verify_module(&module) {
        let _ = err.to_string();
    }
    Some(module)
}

/// The `ir-parse` target on raw bytes.
pub fn parse_bytes(data: &[u8]) {
    check_text(&String::from_utf8_lossy(data));
}

/// The `ir-parse` target.
pub fn ir_parse(input: &ParseInput) {
    check_text(&input.text());
}

// ---------------------------------------------------------------------------
// ir-interp

/// Where the module of [`ir_interp`] comes from.
#[derive(Clone, Debug, Arbitrary)]
pub enum ModuleSource {
    /// Raw bytes parsed as text.
    Bytes(Vec<u8>),
    /// A mutated printed program.
    Mutated(MutatedProgram),
    /// A generated program, unmodified.
    Generated(GenProgram),
}

/// The input of [`ir_interp`].
#[derive(Clone, Debug, Arbitrary)]
pub struct InterpInput {
    /// The module.
    pub source: ModuleSource,
    /// Fuel (modulo [`MAX_INTERP_FUEL`] + 1) for parsed modules.
    pub fuel: u16,
    /// Seed of the argument values.
    pub args_seed: u64,
    /// Whether noise checking is on.
    pub check_noise: bool,
}

impl InterpInput {
    /// The regression file of this input (replayed by [`check_interp_file`]).
    pub fn regression_file(&self) -> String {
        let fuel = u64::from(self.fuel) % (MAX_INTERP_FUEL + 1);
        let (text, fuel) = match &self.source {
            ModuleSource::Bytes(bytes) => (String::from_utf8_lossy(bytes).into_owned(), fuel),
            ModuleSource::Mutated(m) => (m.text(), fuel),
            ModuleSource::Generated(g) => {
                let (module, bound) = g.build();
                (module.to_string(), bound)
            }
        };
        let noise = if self.check_noise { "on" } else { "off" };
        format!(
            "// A failure found by fuzzing.\n// fuel: {fuel}\n// args-seed: {}\n// noise: {noise}\n{text}",
            self.args_seed
        )
    }
}

/// A value of type `ty` drawn from `rng`: integers and field elements
/// favour the edges (0, 1, the largest); arrays and references are zero
/// values (references become fresh cells in the interpreter).
pub fn random_value(ty: &Type, rng: &mut Rng) -> Option<RuntimeValue> {
    let pick = |rng: &mut Rng, bits: u32| -> u128 {
        let mask = if bits >= 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        let raw = match rng.below(6) {
            0 => 0,
            1 => 1,
            2 => u128::MAX,
            3 => u128::from(rng.below(16)),
            _ => u128::from(rng.next_u64()) | (u128::from(rng.next_u64()) << 64),
        };
        raw & mask
    };
    match ty {
        Type::Field => Some(RuntimeValue::field(pick(rng, 128))),
        Type::Unsigned(bits) => Some(RuntimeValue::unsigned(*bits, pick(rng, *bits))),
        Type::Signed(bits) => {
            let raw = pick(rng, *bits);
            // Sign-extend the low `bits` bits.
            let shift = 128 - (*bits).clamp(1, 128);
            let value = ((raw << shift) as i128) >> shift;
            Some(RuntimeValue::signed(*bits, value))
        }
        Type::Noisy => Some(RuntimeValue::Noisy {
            plaintext: rng.below(32) as u8,
            noise: 12,
        }),
        _ => RuntimeValue::zero(ty),
    }
}

/// Arguments for every parameter of `func`'s entry block, or `None` when a
/// parameter has no value (a too large array, a slice).
pub fn random_args(module: &Module, func: FuncId, seed: u64) -> Option<Vec<RuntimeValue>> {
    let mut rng = Rng::new(seed);
    module.functions[func]
        .param_types()
        .iter()
        .map(|ty| random_value(ty, &mut rng))
        .collect()
}

/// Runs `func`, its foreign calls answered by [`TestOracles`] (the same
/// answers on every run), and panics if the run took more steps than its
/// fuel.
fn run_checked(
    module: &Module,
    func: FuncId,
    args: Vec<RuntimeValue>,
    options: &InterpreterOptions,
) -> Execution {
    let run = interpret_with_foreign(module, func, args, options, &mut TestOracles::default());
    assert!(
        run.steps <= options.fuel,
        "the run took {} steps with fuel {}",
        run.steps,
        options.fuel
    );
    if let Outcome::Trap(trap) = &run.outcome {
        let _ = trap.to_string();
    }
    run
}

/// The interpreter properties on one module; `bound` is the generator's fuel
/// bound of `main` when the module is generated and unmodified.
pub fn check_interp(
    module: &Module,
    fuel: u64,
    args_seed: u64,
    check_noise: bool,
    bound: Option<u64>,
) {
    let verified = verify_module(module).is_ok();
    let options = InterpreterOptions {
        fuel: bound.unwrap_or(fuel),
        check_noise,
        max_call_depth: 256,
        ..InterpreterOptions::default()
    };
    // A verified module is run from each function (at most four); an
    // unverified one too: the interpreter must trap, not panic, on
    // malformed code.
    for (i, func) in module.functions.keys().take(4).enumerate() {
        let Some(args) = random_args(module, func, args_seed.wrapping_add(i as u64)) else {
            continue;
        };
        let run = run_checked(module, func, args.clone(), &options);
        if bound.is_some() && Some(func) == module.main() {
            assert!(
                run.outcome != Outcome::OutOfFuel,
                "a generated program ran out of its fuel bound {}",
                options.fuel
            );
        }
        if verified {
            let printed = module.to_string();
            let reparsed = parse_module(&printed)
                .unwrap_or_else(|e| panic!("the printed module does not parse: {e}\n{printed}"));
            let again = run_checked(&reparsed, func, args, &options);
            assert!(
                TrapRule::SameKind.same_execution(&run, &again),
                "printing and parsing changed a run of {func}: {} vs {}",
                outcome_text(&run.outcome),
                outcome_text(&again.outcome)
            );
        }
    }
}

/// The `ir-interp` target.
pub fn ir_interp(input: &InterpInput) {
    let fuel = u64::from(input.fuel) % (MAX_INTERP_FUEL + 1);
    let (module, bound) = match &input.source {
        ModuleSource::Bytes(bytes) => (parse_module(&String::from_utf8_lossy(bytes)).ok(), None),
        ModuleSource::Mutated(m) => (parse_module(&m.text()).ok(), None),
        ModuleSource::Generated(g) => {
            let (module, bound) = g.build();
            verify_module(&module)
                .unwrap_or_else(|e| panic!("a generated program does not verify: {e}\n{module}"));
            (Some(module), Some(bound))
        }
    };
    let Some(module) = module else { return };
    check_interp(&module, fuel, input.args_seed, input.check_noise, bound);
}

/// The `ir-interp` regression format: `// fuel: N`, `// args-seed: N` and
/// `// noise: on|off` header lines, then the module text. Replays one.
pub fn check_interp_file(text: &str) {
    let header = Header::parse(text);
    let Ok(module) = parse_module(text) else {
        return;
    };
    check_interp(
        &module,
        header.fuel.unwrap_or(MAX_INTERP_FUEL),
        header.args_seed.unwrap_or(0),
        header.noise,
        None,
    );
}

// ---------------------------------------------------------------------------
// Seeded runs.

/// A value of `T` built by `arbitrary` from `len` random bytes of `rng`.
pub fn random_input<T: for<'a> Arbitrary<'a>>(rng: &mut Rng, len: usize) -> Option<T> {
    let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
    T::arbitrary_take_rest(arbitrary::Unstructured::new(&bytes)).ok()
}

/// Runs `harness` on `iterations` inputs drawn from `seed` (byte lengths
/// up to `max_len`).
pub fn smoke<T: for<'a> Arbitrary<'a>>(
    seed: u64,
    iterations: usize,
    max_len: usize,
    harness: impl Fn(&T),
) {
    let mut rng = Rng::new(seed);
    for _ in 0..iterations {
        let len = rng.index(max_len + 1);
        if let Some(input) = random_input::<T>(&mut rng, len) {
            harness(&input);
        }
    }
}
