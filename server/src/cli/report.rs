//! What `lacuna check` found, per file and function: the figures, the generated functions with
//! their stops and MC/DC decisions, and the run's statistics — the data the text, JSON and
//! coverage formats render.

use lacuna_analysis::db::StaticReport;
use lacuna_analysis::diagnostic::{Diagnostic, Selection};
use lacuna_analysis::explain;
use lacuna_grammar::LineIndex;
use std::path::PathBuf;
use std::sync::Arc;

/// One checked file, ready to print.
pub struct CheckedFile {
    /// As shown to the user: relative to the current directory when under it.
    pub display: PathBuf,
    pub text: Option<Arc<str>>,
    pub lines: Arc<LineIndex>,
    pub report: Arc<StaticReport>,
    /// What generation found, per function (empty with `--static`).
    pub generated: Vec<GeneratedFunction>,
    /// Modules that could not be imported (`LCN108`): one per missing dependency or failing
    /// module, placed in this file.
    pub imports: Vec<Diagnostic>,
    /// Whether generation ran (every function then has covered figures, 0 when not explored).
    pub generation: bool,
    /// The codes reported (`--select`, `--ignore`, `[tool.lacuna] select`…).
    pub selection: Arc<Selection>,
    /// With `--shard`: the part of the run this one does.
    pub shard: Option<Arc<crate::cli::shard::Part>>,
    /// Its `# lacuna: ignore[…]` markers.
    pub suppressions: lacuna_analysis::suppression::Suppressions,
}

/// One function's figures under the one definition every output (text, JSON,
/// `--mcdc-report`) uses: every branch side and every MC/DC obligation of the static model,
/// less the excluded ones; covered counts only those; a function not explored covers none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub sides: usize,
    /// With generation.
    pub covered: Option<usize>,
    pub obligations: usize,
    /// With generation.
    pub shown: Option<usize>,
    /// Branch sides left out by a coverage exclusion (`# pragma: no cover`, `exclude_lines`).
    pub excluded: usize,
}

/// The figures of a whole run: the sums of every function's [`Figures`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub files: usize,
    pub functions: usize,
    /// Functions without a decision: nothing to cover.
    pub without_decisions: usize,
    pub decisions: usize,
    pub conditions: usize,
    pub figures: Figures,
    pub diagnostics: usize,
}

impl Totals {
    pub fn of(files: &[CheckedFile]) -> Totals {
        let mut t = Totals {
            files: files.len(),
            ..Totals::default()
        };
        for file in files {
            t.diagnostics += file.diagnostics().len();
            for f in file.functions() {
                let figures = file.figures(f);
                t.functions += 1;
                t.without_decisions += usize::from(f.model.decisions == 0 && f.model.handlers == 0);
                t.decisions += f.model.decisions;
                t.conditions += f.model.conditions;
                let sum = &mut t.figures;
                sum.sides += figures.sides;
                sum.obligations += figures.obligations;
                sum.excluded += figures.excluded;
                if file.generation {
                    *sum.covered.get_or_insert(0) += figures.covered.unwrap_or(0);
                    *sum.shown.get_or_insert(0) += figures.shown.unwrap_or(0);
                }
            }
        }
        t
    }
}

/// The generation results of one function.
pub struct GeneratedFunction {
    pub id: String,
    pub covered: usize,
    /// MC/DC obligations shown, and in total.
    pub obligations: (usize, usize),
    /// Per decision with obligations: what is shown and what is missing.
    pub mcdc: Vec<McdcDecision>,
    /// What the project's own tests cover: branch sides, MC/DC obligations (when it has any).
    pub suite: Option<(usize, usize)>,
    pub executions: u32,
    pub tests: usize,
    /// `except` clauses a kept test enters.
    pub handlers_entered: usize,
    pub time_ms: u128,
    pub solver_queries: u64,
    /// Inputs near the project's own tests' run once coverage was done, and kept for what
    /// they broke of those tests' invariants.
    pub neighbours: lacuna_analysis::explore::exploration::Neighbours,
    pub diagnostics: Vec<Diagnostic>,
    /// Why it could not be explored, when it could not.
    pub failure: Option<String>,
    /// Annotations of its parameters that could not be read.
    pub unread_annotations: Vec<String>,
    /// What ended its exploration.
    pub stopped_by: StoppedBy,
    /// The stop in words, for the stops that need them (a share of the run's budget, a
    /// stall, runs failing alike).
    pub stop_reason: Option<String>,
    /// With `--emit-tests`: the tests left out for a side effect their run attempted, as
    /// (test name, reason).
    pub not_emitted: Vec<(String, String)>,
    /// Every branch side, covered or not.
    pub sides: Vec<SideRecord>,
    /// External calls reached (Covana's EMCP candidates), with the file of each call site as
    /// shown to the user.
    pub external_calls: Vec<(Option<PathBuf>, explain::ExternalCandidate)>,
    /// Fields of object inputs only methods change (Covana's OCP candidates).
    pub object_fields: Vec<explain::FieldCandidate>,
}

impl GeneratedFunction {
    /// A function with no exploration of this run: its sides (none covered), why, and the
    /// diagnostics that say so.
    pub(crate) fn unexplored(
        id: String,
        sides: Vec<SideRecord>,
        stopped_by: StoppedBy,
        reason: String,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        GeneratedFunction {
            id,
            covered: 0,
            obligations: (0, 0),
            mcdc: vec![],
            suite: None,
            executions: 0,
            tests: 0,
            handlers_entered: 0,
            time_ms: 0,
            solver_queries: 0,
            neighbours: Default::default(),
            diagnostics,
            failure: Some(reason),
            unread_annotations: vec![],
            stopped_by,
            stop_reason: None,
            not_emitted: vec![],
            sides,
            external_calls: vec![],
            object_fields: vec![],
        }
    }
}

/// What ended a function's exploration: only a time budget makes the same code and
/// configuration give another result on another run (a slower or busier machine runs fewer
/// executions in the same time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedBy {
    /// Every branch side and MC/DC obligation covered.
    Complete,
    /// The time budget (`function-time-ms`) ran out: another run may cover more or less.
    Budget,
    /// Its share of the run's time budget (`--budget`, `run-time-s`) ran out, or was spent
    /// before its turn: another run may cover more or less.
    RunBudget,
    /// No new branch side for `stall-share` of its time: another run may cover more or less.
    /// Never a claim that the rest cannot be covered.
    Stalled,
    /// Every run raised the same exception at the same line before the first decision.
    SameFailure,
    /// The execution budget (`function-executions`) ran out: reproducible.
    Executions,
    /// The search had nothing left to try before either budget ran out: reproducible.
    Exhausted,
    /// Not explored (the reason is given).
    NotExplored,
    /// Not explored: unchanged since `--changed-since`'s revision, and nothing stored for it.
    Unchanged,
    /// Not explored: `--suite-only`.
    SuiteOnly,
}

impl StoppedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            StoppedBy::Complete => "complete",
            StoppedBy::Budget => "budget",
            StoppedBy::RunBudget => "run-budget",
            StoppedBy::Stalled => "stalled",
            StoppedBy::SameFailure => "same-failure",
            StoppedBy::Executions => "executions",
            StoppedBy::Exhausted => "exhausted",
            StoppedBy::NotExplored => "not-explored",
            StoppedBy::Unchanged => "unchanged",
            StoppedBy::SuiteOnly => "suite-only",
        }
    }

    pub(crate) fn of(
        e: &lacuna_analysis::explore::exploration::Exploration,
        complete: bool,
    ) -> StoppedBy {
        use lacuna_analysis::explore::exploration::Stop;
        if e.stop == Stop::RunSpent {
            return StoppedBy::RunBudget;
        }
        if e.failure.is_some() {
            return StoppedBy::NotExplored;
        }
        if complete {
            return StoppedBy::Complete;
        }
        match e.stop {
            Stop::Executions => StoppedBy::Executions,
            Stop::Time => StoppedBy::Budget,
            Stop::RunShare(_) | Stop::RunSpent => StoppedBy::RunBudget,
            Stop::Stalled(_) | Stop::StalledRuns(_) => StoppedBy::Stalled,
            Stop::FailingAlike(_) => StoppedBy::SameFailure,
            Stop::Exhausted => StoppedBy::Exhausted,
        }
    }
}

/// One decision's MC/DC obligations, for `--mcdc-report`.
pub struct McdcDecision {
    pub id: String,
    /// Where the decision starts (1-based line and column).
    pub line: u32,
    pub column: u32,
    /// The decision's source, and the same with whitespace collapsed.
    pub source: String,
    pub text: String,
    /// Its conditions' source, in evaluation order.
    pub conditions: Vec<String>,
    /// The (condition, value) pairs shown.
    pub shown: Vec<(u16, bool)>,
    /// How many the project's own tests show.
    pub suite: usize,
    /// The (condition, value) pairs the project's own tests show.
    pub suite_shown: Vec<(u16, bool)>,
    pub covered: usize,
    pub total: usize,
    /// (condition index, condition text, value, infeasible, needed vector).
    pub missing: Vec<(u16, String, bool, bool, String)>,
}

impl McdcDecision {
    pub(crate) fn new(
        f: &lacuna_analysis::explore::coverage::FunctionUnderTest,
        o: &lacuna_analysis::explain::mcdc::DecisionObligations,
    ) -> McdcDecision {
        let decision = &f.syntax.decisions[o.decision];
        let range = decision.range.absolute(f.anchor);
        let at = f.lines.line_col(range.start);
        let source = f
            .text
            .get(range.start as usize..range.end as usize)
            .unwrap_or_default()
            .to_owned();
        let text = source.split_whitespace().collect::<Vec<_>>().join(" ");
        let condition = |c: u16| {
            decision
                .conditions
                .get(c as usize)
                .map_or_else(String::new, |c| c.text.to_string())
        };
        McdcDecision {
            id: decision.id.as_str().to_owned(),
            line: at.line + 1,
            column: at.col + 1,
            source,
            text,
            conditions: decision
                .conditions
                .iter()
                .map(|c| c.text.to_string())
                .collect(),
            shown: o.shown.iter().map(|o| (o.condition, o.value)).collect(),
            suite: 0,
            suite_shown: vec![],
            covered: o.covered,
            total: o.total,
            missing: o
                .missing
                .iter()
                .map(|m| {
                    let vector = m
                        .vector
                        .as_ref()
                        .map(|v| {
                            v.iter()
                                .map(|&(c, v)| format!("`{}` {v}", condition(c)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        })
                        .unwrap_or_default();
                    (
                        m.obligation.condition,
                        condition(m.obligation.condition),
                        m.obligation.value,
                        m.infeasible,
                        vector,
                    )
                })
                .collect(),
        }
    }
}

/// What a generation run cost as a whole, for the JSON document's `generation` object.
#[derive(Default)]
pub struct RunStats {
    /// Worker processes the pool may run at once.
    pub workers: usize,
    /// Starting the pool: the first worker's interpreter, agent import and configuration.
    pub agent_start_ms: u128,
    /// Exploring every function (on `workers` threads), from the first signature to the last
    /// execution.
    pub explore_ms: u128,
    /// Writing the tests and checking them under pytest (0 without `--emit-tests`).
    pub emit_ms: u128,
    pub executions: u64,
    pub solver_queries: u64,
    pub workers_started: u64,
    pub timeouts: u64,
    pub crashes: u64,
    /// Every function explored failed to import its module.
    pub nothing_imported: bool,
    /// Functions explored by this run.
    pub explored: usize,
    /// Functions reported from the results store (`--cache-dir`).
    pub reused: usize,
    /// Functions unchanged since `--changed-since`'s revision the store had nothing for: not
    /// explored.
    pub unchanged: usize,
    /// The project's own suite, run under pytest (or where it was looked for in vain).
    pub suite: Option<SuiteSummary>,
}

/// The project's own suite as the JSON document's `suite` section gives it.
#[derive(Default)]
pub struct SuiteSummary {
    /// Where the run looked for the tests (`[tool.lacuna] tests`, or where pytest would look).
    pub paths: Vec<String>,
    pub tests: Vec<lacuna_analysis::suite::TestResult>,
    pub collection_errors: Vec<lacuna_analysis::suite::CollectionError>,
    pub failure: Option<String>,
    pub ms: u128,
}

/// One branch side as the JSON document lists it.
pub struct SideRecord {
    pub decision: String,
    pub kind: &'static str,
    /// 1-based line of the decision's keyword.
    pub line: u32,
    pub side: bool,
    /// The side's name: `true`/`false`, `enter`/`exit` (`while`), `pass`/`fail` (`assert`).
    pub name: &'static str,
    pub covered: bool,
    /// Whether the project's own tests take it.
    pub suite_covered: bool,
    /// 1-based first line of the code this side runs (`if`/`elif`/`while` bodies).
    pub target_line: Option<u32>,
}

/// Every modelled branch side of a function, with whether the generated tests (`covered`) and
/// the project's own suite (`suite`) take it.
pub(crate) fn side_records(
    syntax: &lacuna_grammar::FunctionSyntax,
    anchor: lacuna_grammar::Anchor,
    lines: &LineIndex,
    text: &str,
    covered: &dyn Fn(usize, bool) -> bool,
    suite: &dyn Fn(usize, bool) -> bool,
) -> Vec<SideRecord> {
    let line = |r: lacuna_grammar::TextRange| lines.line_col(r.absolute(anchor).start).line + 1;
    let mut out = vec![];
    for (d, decision) in syntax.decisions.iter().enumerate() {
        if decision.expr.is_none() {
            continue;
        }
        for side in &decision.sides {
            out.push(SideRecord {
                decision: decision.id.to_string(),
                kind: decision.kind.as_str(),
                line: line(decision.keyword),
                side: side.outcome,
                name: decision.kind.side_names()[usize::from(!side.outcome)],
                covered: covered(d, side.outcome),
                suite_covered: suite(d, side.outcome),
                target_line: side.target.map(|t| {
                    // The first line of a block: skip to its first statement.
                    let abs = t.absolute(anchor);
                    let body = text.get(abs.start as usize..abs.end as usize).unwrap_or("");
                    let skip = body.len() - body.trim_start().len();
                    lines.line_col(abs.start + skip as u32).line + 1
                }),
            });
        }
    }
    out
}

impl CheckedFile {
    /// Static diagnostics and generation diagnostics, in source order (a total order: the
    /// same report prints the same way whatever order the threads finished in).
    pub fn diagnostics(&self) -> Vec<&Diagnostic> {
        // A shard reports the static diagnostics of its functions and files, and what its own
        // exploration found.
        let mut all: Vec<&Diagnostic> = self
            .report
            .diagnostics
            .iter()
            .filter(|d| self.owns(d.function.as_deref()))
            .chain(self.generated.iter().flat_map(|g| &g.diagnostics))
            .chain(self.imports.iter().filter(|_| self.owns(None)))
            .filter(|d| self.selection.selects(d.code))
            .filter(|d| !self.suppressions.suppresses(d, &self.lines))
            .collect();
        all.sort_by(|a, b| {
            let key = |d: &'_ Diagnostic| {
                (
                    d.range.start,
                    d.code,
                    d.range.end,
                    d.message.clone(),
                    d.function.clone(),
                )
            };
            key(a).cmp(&key(b))
        });
        all
    }

    /// Whether this run reports the function `id` (`None`: what the file has outside
    /// functions): always, unless it is a shard.
    pub fn owns(&self, id: Option<&str>) -> bool {
        self.shard
            .as_ref()
            .is_none_or(|s| s.owns(&self.display, id))
    }

    /// The functions this run reports, in source order.
    pub fn functions(&self) -> impl Iterator<Item = &lacuna_analysis::db::FunctionSummary> {
        self.report
            .functions
            .iter()
            .filter(|f| self.owns(Some(f.id.as_str())))
    }

    /// What generation found for a function, when it ran and the function has sides.
    pub fn generated(&self, id: &lacuna_grammar::FunctionId) -> Option<&GeneratedFunction> {
        self.generated.iter().find(|g| g.id == id.as_str())
    }

    /// The function's figures (see [`Figures`]).
    pub fn figures(&self, f: &lacuna_analysis::db::FunctionSummary) -> Figures {
        let g = self.generated(&f.id);
        let explored = g.filter(|g| g.failure.is_none());
        Figures {
            sides: f.model.branch_sides,
            covered: self
                .generation
                .then(|| explored.map_or(0, |g| g.covered.min(f.model.branch_sides))),
            obligations: f.model.obligations,
            shown: self
                .generation
                .then(|| explored.map_or(0, |g| g.obligations.0.min(f.model.obligations))),
            excluded: f.model.excluded_sides,
        }
    }
}
