//! The one shape of a pass: a [`FunctionPass`] transforms one function,
//! [`run_module`] drives it over a module, and [`FunctionAnalyses`] holds
//! the analyses a pass reads so that they are computed once and rebuilt only
//! when a pass says it changed the control flow (Cranelift's `Context`).
//!
//! A driver that picks passes by name at run time (the command line, the
//! fuzz targets) holds them as [`ModulePass`] objects: every
//! [`FunctionPass`] is one through [`Registered`].

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::ops::AddAssign;

use kildall_graph::PostOrder;

use crate::cfg::ControlFlowGraph;
use crate::dominators::{DominatorTree, PostDominatorTree};
use crate::loops::LoopAnalysis;
use crate::parallel::{available_threads, map_in_order};
use crate::{Block, FuncId, Function, Module};

/// A transformation of one function.
///
/// The function given to [`run`](Self::run) verifies; the pass leaves it
/// verifying and computing what it computed before.
pub trait FunctionPass {
    /// The name in pipelines, on the command line and in regression files.
    const NAME: &'static str;

    /// The knobs of the pass; the default is what a driver runs.
    type Options: Default + Sync;

    /// What a run did; the runs over a module add up.
    type Report: Default + AddAssign + fmt::Display + Send;

    /// Why the pass declines a function.
    type Error: std::error::Error + Send;

    /// What the pass learns of the whole module before it transforms any
    /// function (summaries of the functions a call reaches); `()` for a
    /// pass that reads one function at a time.
    type ModuleFacts: Default + Sync;

    /// Computes the facts of `module`, once per [`run_module`]. They must
    /// stay true while the pass transforms the module's functions; the
    /// default learns nothing.
    fn module_facts(module: &Module, options: &Self::Options) -> Self::ModuleFacts {
        let _ = (module, options);
        Self::ModuleFacts::default()
    }

    /// Transforms `func`. The analyses in `analyses` describe `func` as it
    /// is given; a pass that changes the control flow calls
    /// [`FunctionAnalyses::invalidate`] before it returns.
    ///
    /// # Errors
    ///
    /// When the pass declines the function, which is then unchanged.
    fn run(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Self::Options,
    ) -> Result<Self::Report, Self::Error>;

    /// Transforms `func`, a function of the module `facts` describe; the
    /// default ignores them and calls [`run`](Self::run).
    ///
    /// # Errors
    ///
    /// When the pass declines the function, which is then unchanged.
    fn run_in_module(
        func: &mut Function,
        analyses: &mut FunctionAnalyses,
        options: &Self::Options,
        facts: &Self::ModuleFacts,
    ) -> Result<Self::Report, Self::Error> {
        let _ = facts;
        Self::run(func, analyses, options)
    }
}

/// A pass that failed on one function of a module.
#[derive(Debug, thiserror::Error)]
#[error("in function `{function}`: {error}")]
pub struct PassError<E: std::error::Error> {
    /// The name of the function.
    pub function: String,
    /// What the pass said.
    pub error: E,
}

/// Runs `P` on every function of `module`, given the facts it learns of
/// the module first, and adds up the reports in function order. The
/// functions are independent once the facts are known, so they run on up
/// to [`std::thread::available_parallelism`] threads ([`run_module_on`]);
/// the result is the same on any number of threads.
///
/// # Errors
///
/// The first function, in module order, that the pass declines. Every
/// function is run: those the pass declines are unchanged, the others
/// transformed.
pub fn run_module<P: FunctionPass>(
    module: &mut Module,
    options: &P::Options,
) -> Result<P::Report, PassError<P::Error>> {
    run_module_on::<P>(module, options, available_threads())
}

/// [`run_module`] on at most `threads` threads (one if `threads` is 0).
/// The largest functions are started first; each thread keeps its own
/// analyses' buffers from one function to the next. A module of fewer than
/// 16,384 instructions runs on the calling thread.
///
/// # Errors
///
/// As [`run_module`].
pub fn run_module_on<P: FunctionPass>(
    module: &mut Module,
    options: &P::Options,
    threads: usize,
) -> Result<P::Report, PassError<P::Error>> {
    run_module_then::<P>(module, options, threads, &|_, _| {})
}

/// [`run_module_on`], calling `then` on each function as soon as the pass
/// is done with it, on the thread that ran the pass, whether or not the
/// pass declined it. Work on the output of the small functions (checking
/// it, printing it) then overlaps the pass on the large ones.
///
/// # Errors
///
/// As [`run_module`].
pub fn run_module_then<P: FunctionPass>(
    module: &mut Module,
    options: &P::Options,
    threads: usize,
    then: &(dyn Fn(FuncId, &Function) + Sync),
) -> Result<P::Report, PassError<P::Error>> {
    let facts = P::module_facts(module, options);
    let outcomes = map_in_order(
        module.functions.iter_mut().collect(),
        |(_, func)| func.dfg.num_insts(),
        threads,
        FunctionAnalyses::new,
        |analyses, (id, func)| {
            analyses.invalidate();
            let outcome = P::run_in_module(func, analyses, options, &facts);
            then(id, func);
            outcome
        },
    );
    let mut report = P::Report::default();
    let mut first_error = None;
    for (func, outcome) in module.functions.values().zip(outcomes) {
        match outcome {
            Ok(r) => report += r,
            Err(error) => {
                first_error.get_or_insert(PassError {
                    function: func.name.clone(),
                    error,
                });
            }
        }
    }
    first_error.map_or(Ok(report), Err)
}

/// The control-flow graph, dominator and post-dominator trees, loop forest
/// and loop-aware order of one function, each computed on first use and
/// kept until [`invalidate`](Self::invalidate).
///
/// Passes and their phases ask for what they read instead of building it;
/// one that changes the control flow (adds, removes or retargets a block)
/// invalidates. Changes within blocks keep every analysis valid.
#[derive(Default)]
pub struct FunctionAnalyses {
    cfg: ControlFlowGraph,
    domtree: DominatorTree,
    post_domtree: PostDominatorTree,
    loops: LoopAnalysis,
    loop_order: PostOrder<Block>,
}

/// Every analysis of [`FunctionAnalyses`], borrowed together.
#[derive(Clone, Copy)]
pub struct Analyses<'a> {
    /// The control-flow graph.
    pub cfg: &'a ControlFlowGraph,
    /// The dominator tree.
    pub domtree: &'a DominatorTree,
    /// The post-dominator tree.
    pub post_domtree: &'a PostDominatorTree,
    /// The natural loops.
    pub loops: &'a LoopAnalysis,
    /// The depth-first order that keeps each loop together after its header.
    pub loop_order: &'a PostOrder<Block>,
}

impl FunctionAnalyses {
    /// No analysis computed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every analysis (keeping their buffers): the control flow of
    /// the function changed, or another function comes.
    pub fn invalidate(&mut self) {
        self.cfg.clear();
        self.domtree.clear();
        self.post_domtree.clear();
        self.loops.clear();
        self.loop_order.clear();
    }

    /// The control-flow graph of `func`.
    pub fn cfg(&mut self, func: &Function) -> &ControlFlowGraph {
        self.ensure_cfg(func);
        &self.cfg
    }

    /// The control-flow graph and dominator tree of `func`.
    pub fn domtree(&mut self, func: &Function) -> (&ControlFlowGraph, &DominatorTree) {
        self.ensure_domtree(func);
        (&self.cfg, &self.domtree)
    }

    /// The control-flow graph, dominator tree and loops of `func`.
    pub fn loops(&mut self, func: &Function) -> (&ControlFlowGraph, &DominatorTree, &LoopAnalysis) {
        self.ensure_domtree(func);
        if !self.loops.is_valid() {
            self.loops.compute(func, &self.cfg, &self.domtree);
        }
        (&self.cfg, &self.domtree, &self.loops)
    }

    /// The control-flow graph, loops and loop-aware order of `func`: the
    /// depth-first post-order that visits successors by increasing loop
    /// depth, so that, reversed, each loop's body comes right after its
    /// header ([`PostOrder::compute_loops_together`]). What a fixed-point
    /// solver visits blocks in.
    pub fn loop_order(
        &mut self,
        func: &Function,
    ) -> (&ControlFlowGraph, &LoopAnalysis, &PostOrder<Block>) {
        self.loops(func);
        if !self.loop_order.is_valid() {
            self.loop_order
                .compute_loops_together(&self.cfg, self.loops.forest());
        }
        (&self.cfg, &self.loops, &self.loop_order)
    }

    /// Every analysis of `func`.
    pub fn all(&mut self, func: &Function) -> Analyses<'_> {
        self.loop_order(func);
        if !self.post_domtree.is_valid() {
            self.post_domtree.compute(&self.cfg);
        }
        Analyses {
            cfg: &self.cfg,
            domtree: &self.domtree,
            post_domtree: &self.post_domtree,
            loops: &self.loops,
            loop_order: &self.loop_order,
        }
    }

    fn ensure_cfg(&mut self, func: &Function) {
        if !self.cfg.is_valid() {
            self.cfg.compute(func);
        }
    }

    fn ensure_domtree(&mut self, func: &Function) {
        self.ensure_cfg(func);
        if !self.domtree.is_valid() {
            self.domtree.compute(&self.cfg);
        }
    }
}

/// What a [`ModulePass`] reports: the pass's own [`FunctionPass::Report`],
/// printable, and recoverable by its type.
pub trait PassReport: fmt::Display + fmt::Debug + Any {
    /// The report as [`Any`], to downcast to the pass's report type.
    fn as_any(&self) -> &dyn Any;
}

impl<R: fmt::Display + fmt::Debug + Any> PassReport for R {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl dyn PassReport {
    /// The report as `R`, if it is one.
    pub fn downcast_ref<R: Any>(&self) -> Option<&R> {
        self.as_any().downcast_ref()
    }
}

/// A pass of a [`ModulePass`] pipeline that declined a function.
#[derive(Debug, thiserror::Error)]
#[error("pass `{pass}` failed in function `{function}`: {error}")]
pub struct ModulePassError {
    /// The pass's name.
    pub pass: &'static str,
    /// The function it declined.
    pub function: String,
    /// Why.
    pub error: Box<dyn std::error::Error + Send + Sync>,
}

/// A pass as a driver holds it when it picks passes by name at run time.
pub trait ModulePass: Sync {
    /// The pass's [`FunctionPass::NAME`].
    fn name(&self) -> &'static str;

    /// Runs the pass with its default options on every function of
    /// `module` ([`run_module`]).
    ///
    /// # Errors
    ///
    /// The first function the pass declines.
    fn run(&self, module: &mut Module) -> Result<Box<dyn PassReport>, ModulePassError> {
        self.run_then(module, &|_, _| {})
    }

    /// [`run`](Self::run), calling `then` on each function as soon as the
    /// pass is done with it ([`run_module_then`]).
    ///
    /// # Errors
    ///
    /// The first function the pass declines.
    fn run_then(
        &self,
        module: &mut Module,
        then: &(dyn Fn(FuncId, &Function) + Sync),
    ) -> Result<Box<dyn PassReport>, ModulePassError>;
}

/// A [`FunctionPass`] as a [`ModulePass`]: `&Registered::<P>::NEW`.
pub struct Registered<P>(PhantomData<fn() -> P>);

impl<P> Registered<P> {
    /// The pass `P`.
    pub const NEW: Registered<P> = Registered(PhantomData);
}

impl<P> ModulePass for Registered<P>
where
    P: FunctionPass,
    P::Report: fmt::Debug + Any,
    P::Error: Send + Sync + 'static,
{
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn run_then(
        &self,
        module: &mut Module,
        then: &(dyn Fn(FuncId, &Function) + Sync),
    ) -> Result<Box<dyn PassReport>, ModulePassError> {
        let options = P::Options::default();
        match run_module_then::<P>(module, &options, available_threads(), then) {
            Ok(report) => Ok(Box::new(report)),
            Err(PassError { function, error }) => Err(ModulePassError {
                pass: P::NAME,
                function,
                error: Box::new(error),
            }),
        }
    }
}

/// The pass named `name` among `passes`.
pub fn find<'p>(passes: &[&'p dyn ModulePass], name: &str) -> Option<&'p dyn ModulePass> {
    passes.iter().copied().find(|pass| pass.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_module;

    /// Counts blocks, checks the analyses it is handed describe the
    /// function, and marks the function's name.
    struct CountBlocks;

    #[derive(Default, Debug, PartialEq)]
    struct Blocks(usize);

    impl AddAssign for Blocks {
        fn add_assign(&mut self, other: Blocks) {
            self.0 += other.0;
        }
    }

    impl fmt::Display for Blocks {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{} blocks", self.0)
        }
    }

    impl FunctionPass for CountBlocks {
        const NAME: &'static str = "count-blocks";
        type Options = ();
        type Report = Blocks;
        type Error = std::convert::Infallible;
        type ModuleFacts = ();

        fn run(
            func: &mut Function,
            analyses: &mut FunctionAnalyses,
            _: &(),
        ) -> Result<Blocks, Self::Error> {
            let (cfg, domtree, loops) = analyses.loops(func);
            assert_eq!(cfg.num_reachable(), func.layout.blocks().count());
            assert_eq!(domtree.root(), func.entry_block());
            let _ = loops;
            let blocks = cfg.num_reachable();
            func.name.push('!');
            Ok(Blocks(blocks))
        }
    }

    #[test]
    fn reports_add_up_over_functions_and_analyses_follow_them() {
        let mut module = parse_module(
            "fn main f0 {\n  b0():\n    jmp b1()\n  b1():\n    return\n}\n\
             fn g f1 {\n  b0():\n    return\n}\n",
        )
        .unwrap();
        let report = run_module::<CountBlocks>(&mut module, &()).unwrap();
        assert_eq!(report, Blocks(3));
        let registered: &dyn ModulePass = &Registered::<CountBlocks>::NEW;
        let passes = [registered];
        let pass = find(&passes, "count-blocks").unwrap();
        let report = pass.run(&mut module).unwrap();
        assert_eq!(report.to_string(), "3 blocks");
        assert_eq!(report.downcast_ref::<Blocks>(), Some(&Blocks(3)));
        assert!(find(&passes, "other").is_none());
    }

    #[test]
    fn then_sees_each_function_once_after_its_pass() {
        // More instructions than one thread takes alone.
        let mut text = String::new();
        for f in 0..4 {
            text.push_str(&format!("fn f{f} f{f} {{\n  b0(v0: u32):\n"));
            for i in 0..5000 {
                text.push_str(&format!("    v{} = add v{i}, u32 1\n", i + 1));
            }
            text.push_str("    return v5000\n}\n");
        }
        let mut module = parse_module(&text).unwrap();
        for threads in [1, 2, 3] {
            let seen = std::sync::Mutex::new(Vec::new());
            let then = |id: FuncId, func: &Function| {
                seen.lock().unwrap().push((id, func.name.clone()));
            };
            let report = run_module_then::<CountBlocks>(&mut module, &(), threads, &then).unwrap();
            assert_eq!(report, Blocks(4));
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            let expected: Vec<_> = module
                .functions
                .iter()
                .map(|(id, f)| (id, f.name.clone()))
                .collect();
            assert_eq!(seen, expected, "{threads} threads");
        }
    }
}
