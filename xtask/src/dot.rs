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
    let back_edges = back_edges(function);
    for block in function.layout.blocks() {
        let body = block_lines(function, block);
        let label: String = body
            .iter()
            .map(|line| format!("{}\\l", escape(line)))
            .collect();
        let style = match fill(block) {
            Some(colour) => format!(", style=filled, fillcolor=\"{colour}\""),
            None => String::new(),
        };
        let _ = writeln!(out, "    {prefix}_{block} [label=\"{label}\"{style}];");
        draw_edges(out, prefix, function, block, &back_edges);
    }
}

/// How [`draw_function_annotated`] draws one printed line of a block.
#[derive(Default)]
pub struct Line {
    /// A note in a second column (e.g. an analysis result for the value).
    pub note: Option<String>,
    /// A background colour for the whole row.
    pub colour: Option<String>,
    /// Whether the line is set in bold.
    pub bold: bool,
}

/// Like [`draw_function`], but each block is an HTML-like table whose rows
/// `annotate` may mark: a note column and a row colour per printed line.
pub fn draw_function_annotated(
    out: &mut String,
    prefix: &str,
    function: &Function,
    annotate: impl Fn(&str) -> Line,
) {
    let back_edges = back_edges(function);
    for block in function.layout.blocks() {
        let body = block_lines(function, block);
        let mut rows = String::new();
        for line in &body {
            let Line { note, colour, bold } = annotate(line);
            let bg = colour
                .map(|c| format!(" bgcolor=\"{c}\""))
                .unwrap_or_default();
            let (open, close) = if bold { ("<b>", "</b>") } else { ("", "") };
            let _ = write!(
                rows,
                "<tr><td align=\"left\"{bg}>{open}{}{close}</td><td align=\"right\"{bg}>{open}{}{close}</td></tr>",
                html(line),
                // Leading spaces keep the note clear of the text.
                html(&note.map(|n| format!("    {n}")).unwrap_or_default())
            );
        }
        let _ = writeln!(
            out,
            "    {prefix}_{block} [shape=plain, label=<<table border=\"1\" cellborder=\"0\" cellspacing=\"0\">{rows}</table>>];"
        );
        draw_edges(out, prefix, function, block, &back_edges);
    }
}

/// The edges out of `block`, back edges dashed.
fn draw_edges(
    out: &mut String,
    prefix: &str,
    function: &Function,
    block: Block,
    back_edges: &std::collections::HashSet<(Block, Block)>,
) {
    for succ in function.dfg.successors(block) {
        let attrs = if back_edges.contains(&(block, succ)) {
            " [style=dashed, color=red, label=\"back\"]"
        } else {
            ""
        };
        let _ = writeln!(out, "    {prefix}_{block} -> {prefix}_{succ}{attrs};");
    }
}

/// The printed lines of `block`: its header, then its instructions and
/// terminator, indented.
fn block_lines(function: &Function, block: Block) -> Vec<String> {
    let dfg = &function.dfg;
    let params: Vec<String> = dfg
        .block_params(block)
        .iter()
        .map(|&p| format!("{p}: {}", dfg.value_type(p)))
        .collect();
    let mut lines = vec![format!("{block}({}):", params.join(", "))];
    lines.extend(
        function
            .layout
            .block_insts(block)
            .map(|inst| format!("  {}", function.display_inst(inst))),
    );
    if dfg.terminator(block).is_some() {
        lines.push(format!("  {}", function.display_terminator(block)));
    }
    lines
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

/// Text escaped for an HTML-like label (leading spaces kept as
/// non-breaking ones so indentation survives).
fn html(text: &str) -> String {
    let body = text.trim_start_matches(' ');
    let indent = "&#160;".repeat(text.len() - body.len());
    let escaped = body
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    format!("{indent}{escaped}")
}
