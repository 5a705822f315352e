//! A custom forward analysis, reaching stores, solved on an IR function and
//! queried with the cursor: for each `load`, which `store`s may have written
//! the value it reads.
//!
//! ```sh
//! cargo run -p kildall-dataflow --example reaching_stores              # the bundled program
//! cargo run -p kildall-dataflow --example reaching_stores -- FILE.ssa  # your own
//! ```
//!
//! The state maps each reference value to the set of instructions that may
//! have written its cell last. A `store` to `a` replaces the set of `a` (a
//! strong update: one SSA value is one cell); a `call` that receives `a` may
//! write it, so it joins the set. Two different reference values that point
//! to the same cell are not related here: tracking aliases is the job of
//! `kildall-mem2reg`.

use std::error::Error;

use kildall_dataflow::lattice::{MapLattice, PowerSet};
use kildall_dataflow::{Analysis, Forward, FunctionGraph};
use kildall_ir::pass::FunctionAnalyses;
use kildall_ir::{parse_module, verify_module, Block, Inst, InstructionData, Value};

/// `v0` is written before a branch, on one arm, and in a loop; each load
/// sees a different set of stores.
const PROGRAM: &str = "\
acir(inline) fn main f0 {
  b0(v10: u1):
    v0 = allocate -> &mut Field
    store Field 1 at v0
    jmpif v10 then: b1, else: b2
  b1():
    store Field 2 at v0
    jmp b2()
  b2():
    v1 = load v0 -> Field
    jmp b3(u32 0)
  b3(v2: u32):
    v3 = lt v2, u32 4
    jmpif v3 then: b4, else: b5
  b4():
    v4 = load v0 -> Field
    v5 = add v4, Field 1
    store v5 at v0
    v6 = add v2, u32 1
    jmp b3(v6)
  b5():
    v7 = load v0 -> Field
    return v1, v7
}
";

/// The stores (and calls) that may have written each reference's cell last.
type Stores = MapLattice<Value, PowerSet<Inst>>;

struct ReachingStores;

impl Analysis<FunctionGraph<'_>> for ReachingStores {
    type Domain = Stores;
    type Direction = Forward;

    fn bottom_value(&self, _: &FunctionGraph<'_>) -> Stores {
        Stores::new()
    }

    // Nothing is stored when the function starts.
    fn initialize_start_block(&self, _: &FunctionGraph<'_>, _: Block, _: &mut Stores) {}

    fn apply_instruction_effect(
        &mut self,
        func: &FunctionGraph<'_>,
        state: &mut Stores,
        inst: Inst,
    ) {
        match &func.dfg[inst] {
            InstructionData::Store { address, .. } => {
                let address = func.dfg.resolve(*address);
                state.set(address, std::iter::once(inst).collect());
            }
            InstructionData::Call { args, .. } => {
                for &arg in args.iter() {
                    let arg = func.dfg.resolve(arg);
                    if func.dfg.value_type(arg).is_reference() {
                        let mut stores = state.get_or_bottom(&arg).into_owned();
                        stores.insert(inst);
                        state.set(arg, stores);
                    }
                }
            }
            _ => {}
        }
    }

    // Terminators neither read nor write memory.
    fn apply_terminator_effect(&mut self, _: &FunctionGraph<'_>, _: &mut Stores, _: Block) {}
}

fn main() -> Result<(), Box<dyn Error>> {
    let (name, text) = match std::env::args().nth(1) {
        Some(path) => {
            let text = std::fs::read_to_string(&path)?;
            (path, text)
        }
        None => ("<bundled>".to_string(), PROGRAM.to_string()),
    };
    let module = parse_module(&text).map_err(|e| format!("{name}:{e}"))?;
    verify_module(&module).map_err(|e| format!("{name}: {e}"))?;

    for (_, func) in module.functions.iter() {
        let mut analyses = FunctionAnalyses::new();
        let graph = FunctionGraph::new(func, &mut analyses);
        let mut results = ReachingStores.into_engine(&graph).iterate_to_fixpoint();
        println!(
            "== {}: fixed point after {} block visits ({:.2} per block)",
            func.name,
            results.stats().block_visits,
            results.stats().visits_per_block(),
        );
        // The solver keeps block-entry states only; the cursor replays a
        // block's effects up to the point asked for.
        let mut cursor = results.as_cursor(&graph);
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let InstructionData::Load { address } = func.dfg[inst] else {
                    continue;
                };
                let address = func.dfg.resolve(address);
                let stores = cursor.seek_before(inst).get_or_bottom(&address);
                let lines: Vec<String> = stores
                    .iter()
                    .map(|&s| func.inst_locs[s].to_string())
                    .collect();
                println!(
                    "load of {address} at {} ({block}) reads what was written at: {}",
                    func.inst_locs[inst],
                    if lines.is_empty() {
                        "nothing (an uninitialised read)".to_string()
                    } else {
                        lines.join(", ")
                    },
                );
            }
        }
    }
    Ok(())
}
