//! Graphviz DOT drawings of control-flow graphs: one cluster per function,
//! one record per block listing its instructions, back edges dashed.

use std::fmt::Write;

use kildall_ir::{Block, Function, Module};

/// The CFG of every function of `module`.
pub fn cfg(module: &Module) -> String {
    let mut out =
        String::from("digraph cfg {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    for (id, function) in &module.functions {
        let _ = writeln!(
            out,
            "  subgraph cluster_{id} {{\n    label=\"fn {} {id}\";",
            function.name
        );
        draw_function(&mut out, &id.to_string(), function, |_| None);
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// Draws the blocks and edges of `function`; `fill` may give a block a
/// fill colour.
pub fn draw_function(
    out: &mut String,
    prefix: &str,
    function: &Function,
    fill: impl Fn(Block) -> Option<String>,
) {
    let text = function.to_string();
    let mut bodies = block_bodies(&text);
    let back_edges = back_edges(function);
    for block in function.layout.blocks() {
        let body = bodies.remove(&block.to_string()).unwrap_or_default();
        let label: String = body
            .iter()
            .map(|line| format!("{}\\l", escape(line)))
            .collect();
        let style = match fill(block) {
            Some(colour) => format!(", style=filled, fillcolor=\"{colour}\""),
            None => String::new(),
        };
        let _ = writeln!(out, "    {prefix}_{block} [label=\"{label}\"{style}];");
        for succ in function.dfg.successors(block) {
            let attrs = if back_edges.contains(&(block, succ)) {
                " [style=dashed, color=red, label=\"back\"]"
            } else {
                ""
            };
            let _ = writeln!(out, "    {prefix}_{block} -> {prefix}_{succ}{attrs};");
        }
    }
}

/// The printed lines of each block, keyed by the block's name.
fn block_bodies(text: &str) -> std::collections::HashMap<String, Vec<String>> {
    let mut bodies = std::collections::HashMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        let is_header =
            trimmed.starts_with('b') && trimmed.ends_with(':') && !line.starts_with("    ");
        if is_header {
            if let Some((name, lines)) = current.take() {
                bodies.insert(name, lines);
            }
            let name = trimmed
                .split('(')
                .next()
                .unwrap_or(trimmed)
                .trim_end_matches(':');
            current = Some((name.to_string(), vec![trimmed.to_string()]));
        } else if let Some((_, lines)) = &mut current {
            if trimmed != "}" && !trimmed.is_empty() {
                lines.push(format!("  {trimmed}"));
            }
        }
    }
    if let Some((name, lines)) = current {
        bodies.insert(name, lines);
    }
    bodies
}

/// Edges whose target dominates their source: the back edges of natural loops.
fn back_edges(function: &Function) -> std::collections::HashSet<(Block, Block)> {
    let cfg = kildall_ir::cfg::ControlFlowGraph::with_function(function);
    let domtree = kildall_ir::dominators::DominatorTree::with_cfg(&cfg);
    let mut edges = std::collections::HashSet::new();
    for block in function.layout.blocks() {
        for succ in function.dfg.successors(block) {
            if domtree.dominates(succ, block) {
                edges.insert((block, succ));
            }
        }
    }
    edges
}

fn escape(line: &str) -> String {
    line.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('{', "\\{")
        .replace('}', "\\}")
}
