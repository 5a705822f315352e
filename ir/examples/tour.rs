//! Parses a program, verifies it, runs it on the interpreter and prints the
//! analyses of each function: the CFG, the dominator tree and the loops.
//!
//! ```sh
//! cargo run -p kildall-ir --example tour              # the bundled program
//! cargo run -p kildall-ir --example tour -- FILE.ssa  # your own
//! ```
//!
//! A file's `main` (or first function) is run without arguments, so it
//! should take none.

use std::error::Error;

use kildall_interpreter::{display_list, interpret, InterpreterOptions, Outcome};
use kildall_ir::cfg::ControlFlowGraph;
use kildall_ir::dominators::DominatorTree;
use kildall_ir::loops::LoopAnalysis;
use kildall_ir::{parse_module, verify_module, Block, Function};

/// A counter kept in memory and incremented in a counted loop; prints 1, 2,
/// 3, then 3, and returns `Field 3`.
const PROGRAM: &str = "\
acir(inline) fn main f0 {
  b0():
    v0 = allocate -> &mut Field
    store Field 0 at v0
    jmp b1(u32 0)
  b1(v1: u32):
    v2 = lt v1, u32 3
    jmpif v2 then: b2, else: b3
  b2():
    v3 = load v0 -> Field
    v4 = add v3, Field 1
    store v4 at v0
    v5 = load v0 -> Field
    call print(v5)
    v6 = add v1, u32 1
    jmp b1(v6)
  b3():
    v7 = load v0 -> Field
    call print(v7)
    return v7
}
";

fn main() -> Result<(), Box<dyn Error>> {
    let (name, text) = match std::env::args().nth(1) {
        Some(path) => {
            let text = std::fs::read_to_string(&path)?;
            (path, text)
        }
        None => ("<bundled>".to_string(), PROGRAM.to_string()),
    };

    // Errors carry a position (`line:col`) or the entity they are about.
    let module = parse_module(&text).map_err(|e| format!("{name}:{e}"))?;
    verify_module(&module).map_err(|e| format!("{name}: {e}"))?;
    println!("== {name}: parsed and verified, printed back\n{module}");

    let main = module.main().ok_or("the module has no function")?;
    let run = interpret(&module, main, Vec::new(), &InterpreterOptions::default());
    println!("== run of {}", module.functions[main].name);
    for line in &run.output {
        println!("print: {line}");
    }
    match &run.outcome {
        Outcome::Return(values) => println!("returned: {}", display_list(values)),
        Outcome::Trap(trap) => println!("trap: {trap}"),
        Outcome::OutOfFuel => println!("out of fuel"),
    }
    println!("steps: {}\n", run.steps);

    for (_, func) in module.functions.iter() {
        print_analyses(func);
    }
    Ok(())
}

/// One line per block: predecessors, successors, immediate dominator and
/// loop depth; then each loop with its header, latches and trip count.
fn print_analyses(func: &Function) {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_cfg(&cfg);
    let mut loops = LoopAnalysis::new();
    loops.compute(func, &cfg, &domtree);

    println!("== analyses of {}", func.name);
    println!("block  preds        succs        idom  loop depth");
    for block in func.layout.blocks() {
        let idom = domtree
            .idom(block)
            .map_or_else(|| "-".to_string(), |b| b.to_string());
        println!(
            "{:<6} {:<12} {:<12} {:<5} {}",
            block.to_string(),
            list(cfg.predecessors(block)),
            list(cfg.successors(block)),
            idom,
            loops.loop_depth(block),
        );
    }
    for lp in loops.loops() {
        let trips = loops
            .trip_count(lp)
            .map_or_else(|| "unknown".to_string(), |n| n.to_string());
        println!(
            "loop: header {}, latches {}, blocks {}, trip count {trips}",
            loops.header(lp),
            list(loops.latches(lp)),
            list(loops.blocks(lp)),
        );
    }
    println!();
}

fn list(blocks: &[Block]) -> String {
    if blocks.is_empty() {
        return "-".to_string();
    }
    blocks
        .iter()
        .map(Block::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
