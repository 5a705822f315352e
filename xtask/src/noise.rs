//! `cargo xtask noise FILE [--strategy exact|ilp|greedy] [--cost
//! static|executions] [--trip N] [--effort N] [--time-limit S] [--threads N]
//! [--check] [--trace] [--emit ir|dot]`:
//! verify the noise bound of an IR program, or remove its `reduce_noise` ops
//! and place the cheapest again (the fewest in the text with `--cost
//! static`, the fewest runs by default, a loop of unknown trip count taken
//! to run `--trip` times, 1,000 by default); the rewritten IR goes to
//! stdout, the summary `reduce_noise inserted: N, executions E (strategy,
//! cost C, lower bound B, optimal, time)` to stderr; a search stopped by its
//! effort or by the time limit says which. `--emit dot` prints the (rewritten, or with `--check`
//! the input) program as a Graphviz drawing instead: its CFG, each value's
//! noise beside it, the reductions highlighted, values over the maximum in
//! red.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::collections::HashMap;
use std::fmt::Write;

use kildall_dataflow::Max;
use kildall_ir::pass::{run_module, FunctionAnalyses};
use kildall_ir::{EntityRef, Function, Module, Value};
use kildall_noise::{
    Cost, NoiseAnalysis, NoiseMap, NoiseParams, NoisePlacement, Options, Placements, Progress,
    ProgressHook, Stop, Strategy,
};

use crate::dot::Line;
use crate::input::{self, Diagnostic};
use crate::opt::Emit;

/// Arguments of `cargo xtask noise`.
#[derive(clap::Args)]
pub struct Cmd {
    /// The IR file.
    file: PathBuf,
    /// How to place reductions.
    #[arg(long, value_enum, default_value_t = StrategyArg::Exact)]
    strategy: StrategyArg,
    /// Only check the noise bound: exit 0 when legal, 1 naming the first op over it.
    #[arg(long)]
    check: bool,
    /// What the placement minimizes: reductions in the text, or the times
    /// they run (each costs the product of the trip counts of the loops
    /// around it).
    #[arg(long, value_enum, default_value_t = CostArg::Executions)]
    cost: CostArg,
    /// The trip count assumed for a loop whose trip count is not known.
    #[arg(long, default_value_t = kildall_noise::DEFAULT_TRIP_FALLBACK)]
    trip: u64,
    /// Print the noise inferred for every value as the analysis propagates (stderr).
    #[arg(long)]
    trace: bool,
    /// Noise of a fresh encoding and after `reduce_noise`, in bits.
    #[arg(long, default_value_t = 12)]
    encode_bits: u32,
    /// The largest legal noise, in bits.
    #[arg(long, default_value_t = 26)]
    max_bits: u32,
    /// Work the exact search may do, in simplex pivots and search nodes:
    /// the placement depends on it, not on the machine.
    #[arg(long, default_value_t = kildall_noise::DEFAULT_EFFORT, value_parser = parse_effort, allow_hyphen_values = true)]
    effort: u64,
    /// An optional wall-clock cap on the exact search, in seconds (the ILP's
    /// limit, 10 s without it). A placement it cut short may differ from
    /// one machine to another; the summary says when it did.
    #[arg(long, value_parser = parse_seconds, allow_hyphen_values = true)]
    time_limit: Option<f64>,
    /// Threads of the exact search (the placement is the same for any).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    threads: Option<u32>,
    /// What to print on stdout: the IR, or a Graphviz drawing with the
    /// noise of every value and the reductions highlighted.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    emit: Emit,
}

/// `--time-limit`: a finite, non-negative number of seconds.
fn parse_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!(
            "`{text}` is not a time limit: give a finite, non-negative number of seconds"
        ));
    }
    if seconds > 1e9 {
        return Err(format!("`{text}` seconds is too long a time limit"));
    }
    Ok(seconds)
}

/// `--effort`: a whole number of work units.
fn parse_effort(text: &str) -> Result<u64, String> {
    text.trim().replace('_', "").parse().map_err(|_| {
        format!("`{text}` is not an effort: give a whole number of work units (simplex pivots and search nodes), such as 2000000")
    })
}

/// The strategies on the command line.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    /// Branch and bound with a proven lower bound.
    Exact,
    /// The design's ILP (good_lp with the pure-Rust solver).
    Ilp,
    /// Reduce as late as possible.
    Greedy,
}

/// The costs on the command line.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum CostArg {
    /// `reduce_noise` operations in the text.
    Static,
    /// The times `reduce_noise` operations run.
    Executions,
}

pub fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    let mut module = match input::load(&cmd.file) {
        Ok(module) => module,
        Err(diagnostic) => {
            eprintln!("{diagnostic}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let params = NoiseParams {
        encode: cmd.encode_bits,
        max: cmd.max_bits,
    };
    if let Err(err) = params.validate() {
        eprintln!("error: {err}");
        return Ok(ExitCode::FAILURE);
    }
    let options = Options {
        strategy: match cmd.strategy {
            StrategyArg::Exact => Strategy::Exact,
            StrategyArg::Ilp => Strategy::Ilp,
            StrategyArg::Greedy => Strategy::Greedy,
        },
        params,
        effort: cmd.effort,
        time_limit: cmd.time_limit.map(Duration::from_secs_f64),
        threads: cmd
            .threads
            .map_or(Options::default().threads, |n| n as usize),
        progress: std::io::stderr().is_terminal().then(progress_line),
        input_noise: None,
        cost: match cmd.cost {
            CostArg::Static => Cost::Static,
            CostArg::Executions => Cost::Executions,
        },
        trip_fallback: cmd.trip,
    };
    if cmd.trace {
        for (_, func) in module.functions.iter() {
            let analysis = NoiseAnalysis {
                trace: true,
                ..NoiseAnalysis::new(params, options.input_level())
            };
            let map = analysis.run(func, &mut FunctionAnalyses::new());
            eprintln!("// function {}", func.name);
            for line in &map.trace {
                eprintln!("{line}");
            }
        }
    }
    if cmd.check {
        if cmd.emit == Emit::Dot {
            crate::output::emit(&noise_dot(&module, params, options.input_level()))?;
        }
        let mut legal = true;
        for (_, func) in module.functions.iter() {
            let verified = kildall_noise::verify(
                func,
                &mut FunctionAnalyses::new(),
                params,
                options.input_level(),
            );
            if let Err(violation) = verified {
                eprintln!(
                    "{}",
                    Diagnostic::new(&cmd.file, Some(violation.loc), violation.to_string())
                );
                legal = false;
            }
        }
        return Ok(if legal {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let placements = match run_module::<NoisePlacement>(&mut module, &options) {
        Ok(placements) => placements,
        Err(err) => {
            eprintln!("{}: {err}", cmd.file.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut analyses = FunctionAnalyses::new();
    for func in module.functions.values() {
        analyses.invalidate();
        if let Err(violation) =
            kildall_noise::verify(func, &mut analyses, params, options.input_level())
        {
            anyhow::bail!("internal error: the placement is not legal: {violation}");
        }
    }
    if let Err(err) = kildall_ir::verify_module(&module) {
        anyhow::bail!("internal error: the rewritten module does not verify: {err}");
    }
    match cmd.emit {
        // Written as it is formatted, never held whole: the printed module
        // is about as large as the input text.
        Emit::Ir => print!("{module}"),
        Emit::Dot => crate::output::emit(&noise_dot(&module, params, options.input_level()))?,
    }
    if options.progress.is_some() {
        // Clears the progress line, if one was drawn.
        eprint!("\r\x1b[K");
    }
    eprintln!("{}", summary(&placements, &options));
    Ok(ExitCode::SUCCESS)
}

/// A progress line on stderr (a terminal), redrawn in place as a search
/// that has run for more than a second improves its cover or bound, at
/// most ten times a second.
fn progress_line() -> ProgressHook {
    let start = Instant::now();
    let last = Mutex::new(None::<Instant>);
    ProgressHook(Arc::new(move |at: Progress| {
        let now = Instant::now();
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        let due = !matches!(*last, Some(t) if now - t < Duration::from_millis(100));
        if now - start < Duration::from_secs(1) || !due {
            return;
        }
        *last = Some(now);
        eprint!(
            "\r\x1b[Ksearching component {}/{} ({} values): cover {}, lower bound {}, effort {}",
            at.component + 1,
            at.components,
            at.elements,
            at.cover,
            at.bound,
            at.effort
        );
    }))
}

/// `reduce_noise inserted: N, executions E (strategy, cost C, lower bound
/// B, optimal, effort U, T)`, saying what stopped a search that did not
/// prove its placement optimal.
fn summary(placements: &Placements, options: &Options) -> String {
    let list = &placements.0;
    let add = |f: fn(&kildall_noise::Placement) -> u64| {
        list.iter().fold(0u64, |sum, p| sum.saturating_add(f(p)))
    };
    let cost = add(|p| p.cost());
    let lower = add(|p| p.lower_bound);
    let effort = add(|p| p.effort);
    let time: Duration = list.iter().map(|p| p.time).sum();
    let stops: Vec<Stop> = list.iter().filter_map(|p| p.stopped_by).collect();
    let proof = if list.iter().all(|p| p.optimal) {
        "optimal".to_string()
    } else if stops.contains(&Stop::TimeLimit) {
        "not proven optimal: stopped by the time limit".to_string()
    } else if stops.contains(&Stop::Effort) {
        format!(
            "not proven optimal: stopped by the effort limit of {}",
            options.effort
        )
    } else {
        "not proven optimal".to_string()
    };
    format!(
        "{placements} ({}, {} cost {cost}, lower bound {lower}, {proof}, effort {effort}, {})",
        options.strategy,
        options.cost,
        crate::output::duration(time)
    )
}

/// Row colours of the drawing: reductions, values over the maximum, and
/// values within two bits of it.
const REDUCED: &str = "#a6e3a1";
const OVER: &str = "#f38ba8";
const NEAR: &str = "#f9e2af";

/// The CFG of every function of `module` as Graphviz DOT, each noisy value
/// annotated with the noise the analysis infers for it.
pub fn noise_dot(module: &Module, params: NoiseParams, input_noise: u32) -> String {
    let mut out = String::from("digraph noise {\n  node [fontname=\"monospace\", fontsize=10];\n");
    for (id, function) in &module.functions {
        let map =
            NoiseAnalysis::new(params, input_noise).run(function, &mut FunctionAnalyses::new());
        let passing = passed_over(function, &map, input_noise);
        let _ = writeln!(
            out,
            "  subgraph cluster_{id} {{\n    label=\"fn {} {id}: noise in bits (encode {}, max {}); reductions in green\";",
            function.name, params.encode, params.max
        );
        crate::dot::draw_function_annotated(&mut out, &id.to_string(), function, |line| {
            match passing.get(line.trim()) {
                Some(note) => Line {
                    note: Some(note.clone()),
                    colour: Some(OVER.into()),
                    bold: false,
                },
                None => annotate(function, &map, params, line),
            }
        });
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// The printed lines of `function` that pass a value across a boundary (a
/// call, a `return`, a store, an array) with more than the input noise, each
/// with its note: `passes v4 with 24 bits, over 12`.
fn passed_over(function: &Function, map: &NoiseMap, input_noise: u32) -> HashMap<String, String> {
    let mut lines = HashMap::new();
    for block in function.layout.blocks() {
        for inst in function.layout.block_insts(block) {
            let passed = kildall_noise::passed_operands(function, inst);
            if let Some(note) = over_input(map, input_noise, passed) {
                lines.insert(function.display_inst(inst).to_string(), note);
            }
        }
        let returned = kildall_noise::returned_values(function, block);
        if let Some(note) = over_input(map, input_noise, returned) {
            lines.insert(function.display_terminator(block).to_string(), note);
        }
    }
    lines
}

/// The note on the `values` passed with more than the input noise, if any.
fn over_input(
    map: &NoiseMap,
    input_noise: u32,
    values: impl IntoIterator<Item = Value>,
) -> Option<String> {
    let over: Vec<String> = values
        .into_iter()
        .filter_map(|value| match map.noise[value] {
            Max::At(bits) if bits > u64::from(input_noise) => {
                Some(format!("{value} with {bits} bits"))
            }
            Max::Top => Some(format!("{value} growing without bound")),
            _ => None,
        })
        .collect();
    (!over.is_empty()).then(|| format!("passes {}, over {input_noise}", over.join(", ")))
}

/// The value named by a printed `vN`, if the function has it.
fn value_named(function: &Function, name: &str) -> Option<Value> {
    let index: usize = name.strip_prefix('v')?.parse().ok()?;
    (index < function.dfg.num_values()).then(|| Value::new(index))
}

fn show(noise: Max, params: NoiseParams) -> Option<(String, Option<&'static str>)> {
    match noise {
        Max::Bottom => None,
        Max::Top => Some((format!("> {}", params.max), Some(OVER))),
        Max::At(bits) => {
            let colour = if bits > u64::from(params.max) {
                Some(OVER)
            } else if bits + 2 >= u64::from(params.max) {
                Some(NEAR)
            } else {
                None
            };
            Some((bits.to_string(), colour))
        }
    }
}

/// The note and colour of one printed line: an instruction's results, or a
/// block header's noisy parameters.
fn annotate(function: &Function, map: &NoiseMap, params: NoiseParams, line: &str) -> Line {
    let text = line.trim();
    if let Some((results, rest)) = text.split_once(" = ") {
        let first = results.split(',').next().unwrap_or("").trim();
        let Some(value) = value_named(function, first) else {
            return Line::default();
        };
        let Some((note, colour)) = show(map.noise[value], params) else {
            return Line::default();
        };
        if rest.starts_with("reduce_noise ") {
            return Line {
                note: Some(format!("{note} bits, reduced")),
                colour: Some(REDUCED.into()),
                bold: true,
            };
        }
        return Line {
            note: Some(format!("{note} bits")),
            colour: colour.map(Into::into),
            bold: false,
        };
    }
    // A block header `b1(v4: u32, v5: noisy):` lists its parameters' noise.
    let params_text = text
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map(|(inside, _)| inside)
        .unwrap_or("");
    let notes: Vec<String> = params_text
        .split(',')
        .filter_map(|p| {
            let name = p.split(':').next()?.trim();
            let value = value_named(function, name)?;
            let (note, _) = show(map.noise[value], params)?;
            Some(format!("{name}: {note}"))
        })
        .collect();
    Line {
        note: (!notes.is_empty()).then(|| notes.join(", ")),
        ..Line::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node names and edges of a DOT graph as drawn here, checking the
    /// syntax it uses: one statement per line, balanced braces, HTML-like
    /// labels with balanced tags and escaped text.
    fn parse_dot(dot: &str) -> (Vec<String>, Vec<(String, String)>) {
        let mut lines = dot.lines();
        assert!(lines.next().unwrap().starts_with("digraph noise {"));
        let mut depth = 1;
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for line in lines {
            let line = line.trim();
            if line.ends_with('{') {
                depth += 1;
            } else if line == "}" {
                depth -= 1;
            } else if let Some((from, to)) = line.split_once(" -> ") {
                let to = to.split([' ', ';']).next().unwrap();
                edges.push((from.to_string(), to.to_string()));
            } else if let Some((name, rest)) = line.split_once(" [") {
                assert!(rest.ends_with("];"), "{line}");
                if ["node", "edge", "graph"].contains(&name) {
                    continue;
                }
                if let Some(label) = rest.strip_prefix("shape=plain, label=<") {
                    let label = label.strip_suffix(">];").expect("HTML label closes");
                    let mut stack = Vec::new();
                    let mut rest = label;
                    while let Some(open) = rest.find('<') {
                        assert!(!rest[..open].contains('>'), "unescaped > in {label}");
                        let close = rest[open..].find('>').expect("tag closes") + open;
                        let tag = &rest[open + 1..close];
                        let tag_name = tag.split(' ').next().unwrap();
                        match tag_name.strip_prefix('/') {
                            Some(name) => assert_eq!(stack.pop(), Some(name.to_string())),
                            None => stack.push(tag_name.to_string()),
                        }
                        rest = &rest[close + 1..];
                    }
                    assert!(stack.is_empty(), "unclosed tags {stack:?}");
                }
                nodes.push(name.to_string());
            }
        }
        assert_eq!(depth, 0, "braces balance");
        (nodes, edges)
    }

    #[test]
    fn dot_shows_noise_and_reductions() {
        let text = include_str!("../../examples/noise/loop.ssa");
        let mut module = kildall_ir::parse_module(text).unwrap();
        let params = NoiseParams::default();
        let main = module.main().unwrap();
        let mut placements =
            kildall_ir::pass::run_module::<NoisePlacement>(&mut module, &Options::default())
                .unwrap();
        let placement = placements.0.remove(0);
        assert!(placement.count > 0);
        let dot = noise_dot(&module, params, params.encode);
        let (nodes, edges) = parse_dot(&dot);
        let function = &module.functions[main];
        let blocks: Vec<String> = function
            .layout
            .blocks()
            .map(|b| format!("{main}_{b}"))
            .collect();
        assert_eq!(nodes, blocks);
        for (from, to) in &edges {
            assert!(nodes.contains(from) && nodes.contains(to), "{from} -> {to}");
        }
        let successors: usize = function
            .layout
            .blocks()
            .map(|b| function.dfg.successors(b).count())
            .sum();
        assert_eq!(edges.len(), successors);
        // Every inserted reduction is a highlighted row, and the loop's back
        // edge is marked.
        assert_eq!(dot.matches(", reduced").count(), placement.count);
        assert_eq!(dot.matches(REDUCED).count(), 2 * placement.count);
        assert!(dot.contains("label=\"back\""));
        // Every noisy value carries its noise (a block parameter's beside
        // the block), and none is over the maximum.
        let map =
            NoiseAnalysis::new(params, params.encode).run(function, &mut FunctionAnalyses::new());
        for block in function.layout.blocks() {
            for &param in function.dfg.block_params(block) {
                if let Max::At(bits) = map.noise[param] {
                    assert!(dot.contains(&format!("{param}: {bits}")), "{param}: {dot}");
                }
            }
        }
        assert!(!dot.contains(OVER));
    }

    #[test]
    fn dot_of_an_illegal_input_marks_the_values_over_the_maximum() {
        let text = include_str!("../../examples/noise/mul_chain.ssa");
        let module = kildall_ir::parse_module(text).unwrap();
        let params = NoiseParams::default();
        let dot = noise_dot(&module, params, params.encode);
        let (nodes, _) = parse_dot(&dot);
        assert_eq!(nodes.len(), 1);
        assert!(dot.contains("24 bits"));
        assert!(dot.contains(OVER));
        assert!(!dot.contains(REDUCED));
    }

    /// A call that passes a value over the input noise, and a `return` that
    /// does, are the rows marked; once placed, none is.
    #[test]
    fn dot_marks_the_values_passed_over_the_input_noise() {
        let text = include_str!("../../examples/noise/calls.ssa");
        let mut module = kildall_ir::parse_module(text).unwrap();
        let params = NoiseParams::default();
        let dot = noise_dot(&module, params, params.encode);
        parse_dot(&dot);
        assert_eq!(dot.matches(OVER).count(), 2 * 2, "{dot}");
        assert!(dot.contains("passes v4 with 24 bits, over 12"), "{dot}");
        assert!(dot.contains("passes v3 with 25 bits, over 12"), "{dot}");
        kildall_ir::pass::run_module::<NoisePlacement>(&mut module, &Options::default()).unwrap();
        let dot = noise_dot(&module, params, params.encode);
        assert!(!dot.contains(OVER), "{dot}");
        assert!(!dot.contains("passes"), "{dot}");
    }
}
