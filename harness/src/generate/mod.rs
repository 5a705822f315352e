//! Seeded random programs for property tests, differential tests of the
//! passes, fuzzing and benchmarks.
//!
//! - [`generate_cfg`]: structured programs (diamonds joining values in block
//!   parameters, nested counted loops with `lt`, `eq` and `not eq` exits and
//!   steps above one, data-dependent while loops, early returns, calls along
//!   an acyclic call graph, references stored in references and in arrays,
//!   reference-typed block parameters and call arguments, dynamic array
//!   indices kept in bounds, checked arithmetic, `constrain`, predication
//!   with `enable_side_effects` and `if`, `vector_enumerate` calling
//!   generated closures). These exercise the analyses, the
//!   `mem2reg` pass (Noir's mem2reg design) and block merging (CoBBl).
//! - [`generate_flat_arrays`]: nested arrays of references in an `acir`
//!   function, numbered by entry and by leaf (Noir's flat layout).
//! - [`generate_noise`]: noisy expression DAGs with shared operands (the
//!   noisy-arithmetic model), optionally across a diamond or around a loop.
//!
//! The same seed and configuration give the same program on every
//! platform: the random numbers come from our own SplitMix64 ([`Rng`]).
//!
//! # Fuel
//!
//! A generated program terminates: every loop has a constant trip bound and
//! the call graph is acyclic. Its fuel bound, the most instructions (with
//! terminators) a run of `main` may execute whatever its arguments, is at
//! most [`CfgConfig::fuel`]; [`generate_cfg_with_fuel`] returns the exact
//! bound the generator computed. Noise programs run at most
//! [`NoiseConfig::fuel_bound`] instructions.
//!
//! # Traps
//!
//! Programs trap only through operations drawn as risky (probability
//! [`CfgConfig::trap`] per operation: unguarded `sub`, division by a value,
//! narrowing casts, overflowing `add`/`mul`, `constrain v != 0`). Everything
//! else is kept safe by tracking an upper bound on the bits of every integer
//! value, by storing only narrow integers into memory and arrays, and by
//! initialising every reference before use. Noise programs never trap when
//! noise checking is off; with it on they may exceed the noise bound, which
//! is what the noise pass repairs.
//!
//! Generation is linear in the size of the program.

mod cfg;
mod flat;
mod noise;

pub use flat::{generate_flat_arrays, FlatArrays};
pub use kildall_testkit::Rng;

use kildall_ir::Module;

/// The knobs of [`generate_cfg`]. Weights are relative frequencies (0
/// disables the feature); probabilities are in `[0, 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CfgConfig {
    /// About how many blocks in the whole module (`main` gets half, the
    /// helpers share the rest).
    pub blocks: usize,
    /// About how many straight-line operations per block (each emits one to
    /// a few instructions).
    pub insts_per_block: usize,
    /// Number of functions, `main` included; `main` is `f0` and a function
    /// only calls functions with larger ids.
    pub functions: usize,
    /// The deepest nesting of diamonds and loops.
    pub max_depth: usize,
    /// The most blocks a loop body or a diamond arm is given.
    pub max_region_blocks: usize,
    /// Weight of if/else diamonds (joining values in block parameters).
    pub diamonds: u32,
    /// Weight of counted loops (`lt`, `eq` and `not eq` exits, steps 1 to 4,
    /// carried values in header parameters).
    pub counted_loops: u32,
    /// Weight of while loops whose exit depends on a carried value or a
    /// memory cell (bounded by a counter so that they terminate).
    pub while_loops: u32,
    /// Weight of plain jumps to a fresh block (straight-line chains).
    pub jumps: u32,
    /// The largest trip count of counted loops (while loops: twice that).
    pub max_trip: u32,
    /// Probability that a diamond arm returns early.
    pub early_return: f64,
    /// Probability that a diamond's `jmpif` passes values to its arms as
    /// edge arguments (`then: b1(v3), else: b2(v4, v5)`). Off by default,
    /// and no random draw is made then, so that a seed keeps the program
    /// it always gave.
    pub branch_arguments: f64,
    /// Probability that a plain jump to a fresh block becomes a `jmpif`
    /// whose two edges both enter that block, each with its own arguments
    /// (`jmpif v2 then: b5(v3), else: b5(v4)`). Off by default, and no
    /// random draw is made then, so that a seed keeps the program it
    /// always gave.
    pub select_jumps: f64,
    /// Weight of arithmetic on `u1`, `u32`, `u64` and `Field`.
    pub arithmetic: u32,
    /// Weight of `allocate`/`store`/`load` on `&mut Field` and `&mut u32`;
    /// 0 also keeps references out of signatures and block parameters.
    pub memory: u32,
    /// Weight of operations on `&mut &mut Field`.
    pub nested_references: u32,
    /// Weight of operations on `[&mut Field; 3]`: `array_set` of a
    /// reference, `array_get` then `load`/`store` through the result.
    pub reference_arrays: u32,
    /// Weight of operations on `[u32; 4]` and `&mut [u32; 4]`.
    pub arrays: u32,
    /// Weight of predicated operations (`enable_side_effects`, `if`).
    pub predication: u32,
    /// Weight of `constrain`.
    pub constrains: u32,
    /// Weight of calls to other generated functions.
    pub calls: u32,
    /// Probability that a call goes through a value of type `function`:
    /// the callee itself as an operand, or an `if` choosing between it and
    /// another function of the same signature. Off by default, and no
    /// random draw is made then, so that a seed keeps the program it
    /// always gave.
    pub function_values: f64,
    /// Weight of `call print(v)`.
    pub prints: u32,
    /// Weight of `range_check` (of a value known to fit, or, when risky,
    /// of one that may not) and of `inc_rc`/`dec_rc` on arrays. Off by
    /// default, so that a seed keeps the program it always gave.
    pub checks: u32,
    /// Weight of signed arithmetic: `u32` values cast to `i8` or `i32`,
    /// `add`, `sub`, `mul`, `div` and `lt` there (overflowing only when
    /// risky), results cast to `Field`. Off by default, like `checks`.
    pub signed: u32,
    /// Weight of slices: `as_vector` of an array, `make_array` of a slice,
    /// `vector_push_back`/`push_front`/`pop_back`/`insert`/`remove`, reads
    /// at indices below the length, and slices of references loaded
    /// through. Off by default, like `checks`.
    pub slices: u32,
    /// Weight of operations on `&Field`: views of a `&mut Field` cell that
    /// a foreign call hands back (`call oracle_view(v) -> &Field`; the test
    /// oracles keep the cell they are given and return it), loads through
    /// them, and `&Field` parameters of the generated functions and of
    /// joins. Off by default, like `checks`.
    pub immutable_references: u32,
    /// Weight of `vector_enumerate` calls on slices of `u32`, `Field` or
    /// `&mut Field` the generator builds. The closures are generated
    /// functions of their own (after the others), of which each call names
    /// two of one signature: they read the entry, add it into the cells
    /// they are forwarded or reach (writing through references a call
    /// through a value hides from its caller), and return an entry; the
    /// caller reads the slice returned and loads the cells back. Off by
    /// default, and no random draw is made then, so that a seed keeps the
    /// program it always gave.
    pub enumerate: u32,
    /// Probability that an index into an array is dynamic (kept in bounds
    /// by `mod`, a mask, `truncate` or a comparison and `if`).
    pub dynamic_index: f64,
    /// Probability that an operation is drawn risky: it may trap.
    pub trap: f64,
    /// The most instructions a run of `main` may execute.
    pub fuel: u64,
}

impl Default for CfgConfig {
    fn default() -> Self {
        CfgConfig {
            blocks: 24,
            insts_per_block: 4,
            functions: 3,
            max_depth: 4,
            max_region_blocks: 12,
            diamonds: 4,
            counted_loops: 2,
            while_loops: 1,
            jumps: 1,
            max_trip: 5,
            early_return: 0.1,
            branch_arguments: 0.0,
            select_jumps: 0.0,
            arithmetic: 10,
            memory: 4,
            nested_references: 1,
            reference_arrays: 1,
            arrays: 2,
            predication: 1,
            constrains: 1,
            calls: 1,
            function_values: 0.0,
            prints: 0,
            checks: 0,
            signed: 0,
            slices: 0,
            immutable_references: 0,
            enumerate: 0,
            dynamic_index: 0.5,
            trap: 0.05,
            fuel: 100_000,
        }
    }
}

impl CfgConfig {
    /// The default mix at about `blocks` blocks: more functions for large
    /// programs, and a fuel budget that grows with the size.
    pub fn sized(blocks: usize) -> Self {
        let default = CfgConfig::default();
        CfgConfig {
            blocks,
            functions: (2 + blocks / 2_000).min(32),
            fuel: default
                .fuel
                .max(blocks as u64 * default.insts_per_block as u64 * 64),
            ..default
        }
    }

    /// Straight-line control flow only: no diamonds or loops, one block per
    /// function unless jumps split it.
    pub fn no_control_flow(mut self) -> Self {
        self.diamonds = 0;
        self.counted_loops = 0;
        self.while_loops = 0;
        self.early_return = 0.0;
        self.select_jumps = 0.0;
        self
    }

    /// No references, arrays of references or memory cells.
    pub fn no_references(mut self) -> Self {
        self.memory = 0;
        self.nested_references = 0;
        self.reference_arrays = 0;
        self.immutable_references = 0;
        self
    }
}

/// A structured program of about `config.blocks` blocks; `main` is `f0`
/// and takes `(u32, u32, u64, Field, u1)`, returning `(Field, u32)`.
pub fn generate_cfg(seed: u64, config: &CfgConfig) -> Module {
    cfg::generate(seed, config).0
}

/// [`generate_cfg`] and the fuel bound of `main`: no run executes more
/// instructions (terminators counted), and the bound is at most
/// `config.fuel`.
pub fn generate_cfg_with_fuel(seed: u64, config: &CfgConfig) -> (Module, u64) {
    cfg::generate(seed, config)
}

/// The control flow around a noisy DAG.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum NoiseControlFlow {
    /// One block.
    #[default]
    None,
    /// An if/else on an input, joining noisy values in block parameters.
    Diamond,
    /// A counted loop carrying a noisy value, whose noise grows each trip.
    Loop,
}

/// The knobs of [`generate_noise`].
#[derive(Clone, Debug, PartialEq)]
pub struct NoiseConfig {
    /// Number of `u5` parameters of `main`, each encoded (at least 1).
    pub inputs: usize,
    /// Number of noisy `add`/`sub`/`mul` operations.
    pub ops: usize,
    /// Fraction of operations that are `mul` (the rest: 3/4 `add`, 1/4
    /// `sub`).
    pub mul_fraction: f64,
    /// Probability that an operand is any value in scope (fan-out) rather
    /// than a recent value not used yet (chains).
    pub sharing: f64,
    /// Most decoded values returned (sinks of the DAG, most recent first).
    pub outputs: usize,
    /// Control flow around the DAG.
    pub control_flow: NoiseControlFlow,
    /// Trip count of the loop of [`NoiseControlFlow::Loop`].
    pub loop_trips: u32,
    /// Fraction of operations whose right operand is a plaintext `u5`
    /// constant instead of a ciphertext (0 by default).
    pub plaintext_fraction: f64,
    /// Fraction of operations whose result crosses a boundary before its
    /// uses (0 by default): it goes through a call of a helper function that
    /// doubles it, or is stored and loaded back.
    pub boundary_fraction: f64,
}

impl Default for NoiseConfig {
    fn default() -> Self {
        NoiseConfig {
            inputs: 4,
            ops: 64,
            mul_fraction: 0.25,
            sharing: 0.3,
            outputs: 2,
            control_flow: NoiseControlFlow::None,
            loop_trips: 3,
            plaintext_fraction: 0.0,
            boundary_fraction: 0.0,
        }
    }
}

impl NoiseConfig {
    /// The default mix with `ops` operations.
    pub fn sized(ops: usize) -> Self {
        NoiseConfig {
            ops,
            ..NoiseConfig::default()
        }
    }

    /// The most instructions a run of a program generated with this
    /// configuration executes.
    pub fn fuel_bound(&self) -> u64 {
        // Encodes, constants' encodes (at most two per op), ops, decodes,
        // the loop's counter and branch instructions per trip, terminators;
        // a boundary crossed, at most an allocation, a store and a load, or
        // a call and the helper's `add` and `return`.
        let per_op = if self.boundary_fraction > 0.0 { 6 } else { 3 };
        let ops = self.ops as u64 + 1;
        let trips = u64::from(self.loop_trips) + 1;
        self.inputs.max(1) as u64
            + self.outputs.max(1) as u64
            + 16
            + ops * per_op * trips
            + 4 * trips
    }
}

/// A noisy expression DAG of `config.ops` operations in `main`, which takes
/// `config.inputs` `u5` values and returns decoded `u5` values.
pub fn generate_noise(seed: u64, config: &NoiseConfig) -> Module {
    noise::generate(seed, config)
}
