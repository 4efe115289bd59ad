//! `lacuna check`: loads the project into the database, computes each file's report in parallel
//! on snapshots of the database, and prints it.

use super::{CheckArgs, Format, json, render};
use anyhow::Context;
use lacuna_analysis::config::{Config, Grants};
use lacuna_analysis::db::{Database, StaticReport, Workspace, line_index, static_report};
use lacuna_analysis::diagnostic::{Diagnostic, Selection};
use lacuna_analysis::explain::not_explored;
use lacuna_analysis::workspace::{FileContents, discover_files};
use lacuna_analysis::{explain, generation};
use lacuna_grammar::LineIndex;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

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
    pub shard: Option<Arc<super::shard::Part>>,
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
                t.without_decisions += usize::from(f.model.decisions == 0);
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
    pub time_ms: u128,
    pub solver_queries: u64,
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
    fn unexplored(
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
            time_ms: 0,
            solver_queries: 0,
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

    fn of(e: &lacuna_analysis::explore::exploration::Exploration, complete: bool) -> StoppedBy {
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
            Stop::Stalled(_) => StoppedBy::Stalled,
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
    fn new(
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
    /// The project's own suite, run under pytest (absent when it has no test directory).
    pub suite: Option<SuiteSummary>,
}

/// The project's own suite as the JSON document's `suite` section gives it.
#[derive(Default)]
pub struct SuiteSummary {
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
fn side_records(
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

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![cwd.clone()]
    } else {
        args.paths.iter().map(|p| cwd.join(p)).collect()
    };
    let mut config = match &args.config {
        Some(file) => Config::load(file)?,
        None => Config::discover(&paths[0])?,
    };
    config.grants = Grants::user_level()?.union(Grants {
        allow_write: args.allow_write.iter().map(|d| cwd.join(d)).collect(),
        allow_network: args.allow_network,
        allow_subprocess: args.allow_subprocess,
        allow_unconfined: args.allow_unconfined,
    });
    if let Some(seconds) = args.budget {
        config.budget.run_time_s = Some(seconds);
    }
    if let Some(workers) = args.workers {
        config.budget.workers = workers;
        config.budget.force_workers = true;
    }
    if !args.static_only
        && let Some(capped) = config.workers_capped()
    {
        eprintln!("lacuna: {capped}");
    }
    let discovered = discover_files(&config, &paths).map_err(anyhow::Error::msg)?;
    for warning in &discovered.warnings {
        eprintln!("lacuna: warning: {warning}");
    }
    let files = discovered.files;
    // The whole project is loaded, so that calls and classes of other modules are known; the
    // report covers the files asked for.
    let mut project_files = if paths.iter().all(|p| p.starts_with(&config.root)) {
        discover_files(&config, std::slice::from_ref(&config.root))
            .map(|d| d.files)
            .unwrap_or_default()
    } else {
        vec![]
    };
    project_files.extend(files.iter().cloned());
    project_files.sort();
    project_files.dedup();
    let contents: Vec<(PathBuf, FileContents)> = project_files
        .par_iter()
        .map(|p| (p.clone(), FileContents::read(p)))
        .collect();
    let cli = Selection::parse(
        args.select.as_deref(),
        &args.extend_select,
        &args.ignore,
        |key| format!("--{key}"),
    )
    .map_err(anyhow::Error::msg)?;
    let selection = Arc::new(config.selection.clone().then(cli));
    let show_suspicious = config.suspicious.show;
    let mut workspace = Workspace::new(Database::default(), config);
    let all = workspace.add_files(contents);
    let sources: Vec<_> = all
        .iter()
        .copied()
        .filter(|f| files.iter().any(|p| p == f.path(&workspace.db)))
        .collect();
    let cache = (!args.no_cache && !args.static_only).then(|| match &args.cache_dir {
        Some(dir) => cwd.join(dir),
        None => super::cache::default_dir(&workspace.project.config(&workspace.db).root),
    });
    let part = args.shard.map(|shard| {
        Arc::new(shard_part(
            &workspace,
            &sources,
            shard,
            cache.as_deref(),
            &cwd,
        ))
    });
    let snapshot = workspace.snapshot();
    let mut checked: Vec<CheckedFile> = sources
        .par_iter()
        .map_with(snapshot, |db, &file| {
            let path = file.path(db);
            let text = file.contents(db).text().cloned();
            let lines = line_index(db, file).clone();
            CheckedFile {
                display: display_path(path, &cwd),
                suppressions: text
                    .as_deref()
                    .map(|t| lacuna_analysis::suppression::Suppressions::of(t, &lines))
                    .unwrap_or_default(),
                text,
                lines,
                report: static_report(db, file).clone(),
                generated: vec![],
                imports: vec![],
                generation: !args.static_only,
                selection: selection.clone(),
                shard: part.clone(),
            }
        })
        .collect();
    let stats = if args.static_only {
        None
    } else {
        let emit = args.emit_tests.as_ref().map(|d| cwd.join(d));
        Some(generate(
            &workspace,
            &sources,
            &all,
            &mut checked,
            emit.as_deref(),
            &Scope {
                cwd: &cwd,
                quiet: args.quiet,
                shard: part.as_deref(),
                cache: cache.as_deref(),
                changed_since: args.changed_since.as_deref(),
                suite_only: args.suite_only,
                project: &project_files,
            },
        )?)
    };
    match args.format {
        _ if args.mcdc_report => super::mcdc_report::print(&checked),
        Format::Text => {
            // The top of the suspicious-assertion ranking; JSON has all of it.
            let hidden = keep_top_suspicious(&mut checked, show_suspicious);
            render::print(&checked);
            if hidden > 0 {
                println!(
                    "{hidden} more suspicious assertion{} (LCN300) ranked below the top {show_suspicious}: `--format json` lists them all",
                    if hidden == 1 { "" } else { "s" }
                );
            }
        }
        Format::Json => json::print(&checked, stats.as_ref(), args.shard)?,
        Format::Sarif => {
            super::format::sarif::print(&checked, &super::shard::Shard::automation(args.shard))?
        }
        Format::Github => super::format::github::print(&checked),
    }
    if args.lcov.is_some() || args.cobertura.is_some() {
        let coverage = super::format::coverage::of(&checked, args.coverage_of);
        if let Some(file) = &args.lcov {
            let text = super::format::lcov::tracefile(
                &coverage,
                args.coverage_of.test_name(),
                args.lcov_format,
            );
            std::fs::write(cwd.join(file), text)
                .with_context(|| format!("cannot write {}", file.display()))?;
        }
        if let Some(file) = &args.cobertura {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            std::fs::write(
                cwd.join(file),
                super::format::cobertura::document(&coverage, now),
            )
            .with_context(|| format!("cannot write {}", file.display()))?;
        }
    }
    let errors = checked
        .iter()
        .flat_map(|f| f.diagnostics())
        .any(|d| args.fail_on.fails(d.severity));
    // Nothing could be imported: the run measured nothing, whatever the report says.
    if stats.as_ref().is_some_and(|s| s.nothing_imported) {
        return Ok(ExitCode::from(2));
    }
    Ok(if errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Where a generation run reports and which part of it this is.
#[derive(Clone, Copy)]
struct Scope<'a> {
    /// Paths are shown relative to it.
    cwd: &'a Path,
    quiet: bool,
    shard: Option<&'a super::shard::Part>,
    /// The results store's directory, unless `--no-cache`.
    cache: Option<&'a Path>,
    /// `--changed-since`.
    changed_since: Option<&'a str>,
    /// `--suite-only`: the project's own tests run, nothing is explored.
    suite_only: bool,
    /// Every file of the project.
    project: &'a [PathBuf],
}

/// Part `shard` of the run over `sources`: balanced by the exploration times the results store
/// in `cache` has (none with `--no-cache` or `--static`: the stable hash then).
fn shard_part(
    workspace: &Workspace,
    sources: &[lacuna_analysis::db::SourceFile],
    shard: super::shard::Shard,
    cache: Option<&Path>,
    cwd: &Path,
) -> super::shard::Part {
    let db = &workspace.db;
    let index = lacuna_analysis::db::module_index(db, workspace.project);
    let mut functions: Vec<(PathBuf, String, String)> = vec![];
    for &file in sources {
        let module = index.name(file).unwrap_or_default();
        for f in &static_report(db, file).functions {
            functions.push((
                display_path(file.path(db), cwd),
                f.id.to_string(),
                super::cache::Cache::time_key(module, f.id.as_str()),
            ));
        }
    }
    let times = cache
        .filter(|_| !functions.is_empty())
        .and_then(|dir| {
            let config = workspace.project.config(db);
            super::cache::Cache::new(dir.to_owned(), config).open()
        })
        .map(|store| {
            let keys: Vec<String> = functions.iter().map(|f| f.2.clone()).collect();
            store.times(&keys)
        })
        .unwrap_or_default();
    let with_times: Vec<(&Path, &str, Option<u64>)> = functions
        .iter()
        .map(|(path, id, key)| (path.as_path(), id.as_str(), times.get(key).copied()))
        .collect();
    super::shard::Part::new(shard, &with_times)
}

/// Leaves out the `LCN300` diagnostics ranked below `show`; returns how many.
fn keep_top_suspicious(checked: &mut [CheckedFile], show: usize) -> usize {
    let mut hidden = 0;
    for file in checked {
        for g in &mut file.generated {
            g.diagnostics.retain(|d| {
                let below = d.code == lacuna_analysis::diagnostic::Code::SuspiciousAssertion
                    && d.data
                        .as_ref()
                        .and_then(|v| v["rank"].as_u64())
                        .is_some_and(|rank| rank as usize > show);
                hidden += usize::from(below);
                !below
            });
        }
    }
    hidden
}

/// Runs test generation on every explorable function and attaches the results to the files.
fn generate(
    workspace: &Workspace,
    sources: &[lacuna_analysis::db::SourceFile],
    project: &[lacuna_analysis::db::SourceFile],
    checked: &mut [CheckedFile],
    emit: Option<&Path>,
    scope: &Scope<'_>,
) -> anyhow::Result<RunStats> {
    let Scope {
        cwd, quiet, shard, ..
    } = *scope;
    let db = &workspace.db;
    let config = workspace.project.config(db).clone();
    let started = Instant::now();
    let (pool, refused) = generation::start_pool(&config).map_err(anyhow::Error::msg)?;
    let layers = lacuna_analysis::sandbox::Layers::current();
    if !quiet {
        eprintln!("lacuna: sandbox: {layers}");
    }
    if !layers.complete() {
        eprintln!(
            "lacuna: warning: the sandbox is weaker here: {}",
            layers.missing()
        );
    }
    for message in refused {
        eprintln!("lacuna: warning: {message}");
    }
    let agent_start = started.elapsed();
    let (mut targets, mut skipped) = generation::targets(db, sources);
    if let Some(shard) = shard {
        let owned = |file: lacuna_analysis::db::SourceFile, id: &lacuna_grammar::FunctionId| {
            shard.owns(&display_path(file.path(db), cwd), Some(id.as_str()))
        };
        targets.retain(|t| owned(t.0, &t.1));
        skipped.retain(|s| owned(s.file, &s.function));
    }
    let guidance = lacuna_analysis::guidance::load(&pool, &config).map_err(anyhow::Error::msg)?;
    let mut facts = generation::Facts {
        writers: generation::writers(db, project),
        guidance: guidance.into(),
        observed: Default::default(),
    };
    // What the store has for the functions' code as it is now, and with `--changed-since`,
    // which functions are as they were at the revision.
    let fingerprint_of = |file: lacuna_analysis::db::SourceFile,
                          id: &lacuna_grammar::FunctionId| {
        static_report(db, file)
            .functions
            .iter()
            .find(|f| f.id == *id)
            .map_or(0, |f| f.fingerprint)
    };
    let cache = scope
        .cache
        .map(|dir| super::cache::Cache::new(dir.to_owned(), &config));
    let at_revision = scope
        .changed_since
        .map(|revision| super::changed::at_revision(&config, scope.project, revision))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut reused: Vec<(usize, generation::FunctionResult)> = vec![];
    let mut unchanged: Vec<generation::Target> = vec![];
    let mut to_explore: Vec<(usize, generation::Target)> = vec![];
    {
        let store = cache.as_ref().and_then(super::cache::Cache::open);
        for (i, t) in targets.into_iter().enumerate() {
            if scope.suite_only {
                unchanged.push(t);
                continue;
            }
            let fingerprint = fingerprint_of(t.0, &t.1);
            if let (Some(cache), Some(store)) = (&cache, &store)
                && let Some(stored) =
                    cache.current(store, &cache.key(&t.2.module, t.1.as_str()), fingerprint)
            {
                let (file, function, target, _) = t;
                reused.push((
                    i,
                    generation::FunctionResult {
                        file,
                        function,
                        target,
                        exploration: stored.exploration,
                        import_failure: None,
                        guidance_subjects: Some(stored.guidance_subjects.into_iter().collect()),
                    },
                ));
                continue;
            }
            if let Some(at) = &at_revision
                && at.unchanged(t.0.path(db), t.1.as_str(), fingerprint)
            {
                unchanged.push(t);
                continue;
            }
            to_explore.push((i, t));
        }
    }
    let (order, targets): (Vec<usize>, Vec<generation::Target>) = to_explore.into_iter().unzip();
    let budget = generation::budget(&config);
    let progress = progress_bar(targets.len(), quiet);
    // The project's own tests, under pytest, first: their coverage and MC/DC go next to the
    // generated tests', their invariants check the generated assertions, and the arguments
    // they call each function with are the first inputs the generator tries.
    progress.set_message("the project's own tests");
    let suite_started = Instant::now();
    let suite = lacuna_analysis::suite::run(&pool, &config);
    let suite_ms = suite_started.elapsed().as_millis();
    if let Some(failure) = &suite.failure {
        if scope.suite_only && suite.tests.is_empty() {
            progress.finish_and_clear();
            anyhow::bail!("--suite-only could not run the project's tests: {failure}");
        }
        progress.suspend(|| eprintln!("lacuna: warning: {failure}"));
    }
    if let Some(cut) = suite.truncation() {
        progress.suspend(|| eprintln!("lacuna: warning: {cut}"));
    }
    if scope.suite_only
        && suite.tests.is_empty()
        && suite.collection_errors.is_empty()
        && suite.failure.is_none()
    {
        progress.finish_and_clear();
        let configured: Vec<String> = config
            .tests
            .iter()
            .map(|p| format!("`{}`", display_path(p, scope.cwd).display()))
            .collect();
        anyhow::bail!(
            "--suite-only found no tests to run in {} (`[tool.lacuna] tests`); set it to where the project's tests are, e.g. `tests = [\"test_module.py\"]`",
            configured.join(", ")
        );
    }
    facts.observed = generation::observed_inputs(&suite.observations).into();
    let started = Instant::now();
    let run_time = config.budget.run_time_s.map(std::time::Duration::from_secs);
    let explored = generation::explore_all_reporting(
        &pool,
        targets,
        &facts,
        &budget,
        run_time,
        pool.size(),
        &|event| match event {
            generation::Progress::Started { module, qualname } => {
                progress.set_message(format!("{module}.{qualname}"));
            }
            generation::Progress::Finished => progress.inc(1),
        },
    );
    let explore = started.elapsed();
    // What was explored goes into the store for the next run; explorations that could not run
    // (an import that failed, the run's budget spent before their turn) are tried again.
    if let Some(cache) = &cache
        && !explored.is_empty()
        && let Some(store) = cache.open()
    {
        let entries: Vec<(String, crate::store::StoredExploration)> = explored
            .iter()
            .filter(|r| r.exploration.failure.is_none())
            .filter_map(|r| {
                let subjects = r.guidance_subjects.as_ref()?;
                Some((
                    cache.key(&r.target.module, r.function.as_str()),
                    cache.entry(
                        fingerprint_of(r.file, &r.function),
                        subjects,
                        &r.exploration,
                    ),
                ))
            })
            .collect();
        if let Err(e) = store.put_explorations(&entries) {
            eprintln!("lacuna: warning: cannot store results: {e}");
        }
        // Every shard of a run must balance by the same times: only unsharded runs record them.
        if shard.is_none() {
            let times: Vec<(String, u64)> = explored
                .iter()
                .filter(|r| r.exploration.failure.is_none())
                .map(|r| {
                    (
                        super::cache::Cache::time_key(&r.target.module, r.function.as_str()),
                        r.exploration.elapsed.as_millis() as u64,
                    )
                })
                .collect();
            if let Err(e) = store.put_times(&times) {
                eprintln!("lacuna: warning: cannot store exploration times: {e}");
            }
        }
    }
    let (explored_count, reused_count) = (explored.len(), reused.len());
    let executions: u64 = explored
        .iter()
        .map(|r| u64::from(r.exploration.executions))
        .sum();
    let solver_queries: u64 = explored.iter().map(|r| r.exploration.solver_queries).sum();
    let mut results: Vec<(usize, generation::FunctionResult)> =
        order.into_iter().zip(explored).chain(reused).collect();
    results.sort_by_key(|(i, _)| *i);
    let results: Vec<generation::FunctionResult> = results.into_iter().map(|(_, r)| r).collect();
    if !quiet && (reused_count > 0 || !unchanged.is_empty() || at_revision.is_some()) {
        eprintln!(
            "lacuna: {explored_count} functions explored, {reused_count} reported from the results store{}",
            match &at_revision {
                Some(at) => format!(
                    ", {} unchanged since {} and not explored",
                    unchanged.len(),
                    at.revision
                ),
                None => String::new(),
            }
        );
    }
    progress.finish_and_clear();
    // With emitted tests, coverage is what they reproduce.
    let started = Instant::now();
    let (kept, mut not_emitted, mut files) = match emit {
        Some(dir) => {
            let (kept, not_emitted, files) = emit_tests(&config, &results, dir)?;
            (Some(kept), not_emitted, files)
        }
        None => (None, vec![], vec![]),
    };
    // Generated assertions that break what the project's own tests established (LCN300).
    let mut suspicious = suspicious_assertions(
        &pool,
        &config,
        &results,
        &suite.observations,
        kept.as_ref(),
        emit.map(|dir| (dir, &mut files)),
    )?;
    let pool_stats = pool.stats();
    let mut stats = RunStats {
        workers: pool.size(),
        agent_start_ms: agent_start.as_millis(),
        explore_ms: explore.as_millis(),
        emit_ms: if emit.is_some() {
            started.elapsed().as_millis()
        } else {
            0
        },
        workers_started: pool_stats.started,
        timeouts: pool_stats.timeouts,
        crashes: pool_stats.crashes,
        suite: (!suite.tests.is_empty()
            || !suite.collection_errors.is_empty()
            || suite.failure.is_some())
        .then(|| SuiteSummary {
            tests: suite.tests.clone(),
            collection_errors: suite.collection_errors.clone(),
            failure: suite.failure.clone(),
            ms: suite_ms,
        }),
        ..RunStats::default()
    };
    stats.executions = executions;
    stats.solver_queries = solver_queries;
    stats.explored = explored_count;
    stats.reused = reused_count;
    stats.unchanged = unchanged.len();
    stats.nothing_imported =
        !results.is_empty() && results.iter().all(|r| r.import_failure.is_some());
    import_diagnostics(&config, &results, checked, cwd);
    for result in results {
        let Some(i) = sources.iter().position(|&f| f == result.file) else {
            continue;
        };
        let restricted;
        let e = match &kept {
            Some(kept) => {
                let indices = kept
                    .get(&(result.target.module.clone(), result.target.qualname.clone()))
                    .cloned()
                    .unwrap_or_default();
                restricted = result.exploration.restricted_to(&indices);
                &restricted
            }
            None => &result.exploration,
        };
        let report = explain::explain(&result.target, e, &config.mcdc);
        let obligations = report.obligations_covered();
        let stopped_by = StoppedBy::of(
            &result.exploration,
            report.covered >= report.total && obligations.0 >= obligations.1,
        );
        let stop_reason = matches!(
            stopped_by,
            StoppedBy::RunBudget | StoppedBy::Stalled | StoppedBy::SameFailure
        )
        .then(|| result.exploration.stop.describe())
        .flatten();
        let own = suite.coverage(&result.target);
        let sides = side_records(
            &result.target.syntax,
            result.target.anchor,
            &result.target.lines,
            &result.target.text,
            &|d, side| e.covered.contains_key(&(d, side)),
            &|d, side| own.sides.contains(&(d, side)),
        );
        checked[i].generated.push(GeneratedFunction {
            id: result.function.to_string(),
            covered: report.covered,
            obligations,
            suite: (!suite.tests.is_empty()).then(|| suite_figures(&report, &own)),
            mcdc: report
                .obligations
                .iter()
                .map(|o| {
                    let mut m = McdcDecision::new(&result.target, o);
                    m.suite = own.independence.get(&o.decision).map_or(0, |i| i.len());
                    if let Some(i) = own.independence.get(&o.decision) {
                        m.suite_shown = (0..m.conditions.len() as u16)
                            .flat_map(|c| [(c, false), (c, true)])
                            .filter(|&(condition, value)| {
                                i.contains(lacuna_analysis::model::mcdc::Obligation {
                                    condition,
                                    value,
                                })
                            })
                            .collect();
                    }
                    m
                })
                .collect(),
            executions: e.executions,
            tests: e.tests.len(),
            time_ms: e.elapsed.as_millis(),
            solver_queries: result.exploration.solver_queries,
            diagnostics: if let Some(failure) = &e.failure {
                // An import that failed is its module's `LCN108`; any other failure is this
                // function's `LCN107`, as the functions skipped before exploring have.
                match result.import_failure {
                    Some(_) => vec![],
                    None => not_explored::failed_exploration(&result.target, failure)
                        .into_iter()
                        .collect(),
                }
            } else {
                let mut all = report.diagnostics;
                all.extend(
                    suspicious
                        .remove(&(result.target.module.clone(), result.target.qualname.clone()))
                        .unwrap_or_default(),
                );
                all
            },
            failure: e.failure.as_deref().map(not_explored::without_addresses),
            unread_annotations: e.unread_annotations.clone(),
            stopped_by,
            stop_reason,
            not_emitted: not_emitted
                .extract_if(.., |n| {
                    n.module == result.target.module && n.function == result.target.qualname
                })
                .map(|n| (n.test, n.reason))
                .collect(),
            sides,
            external_calls: report
                .external_calls
                .into_iter()
                .map(|c| {
                    let file = c.file.as_deref().map(|p| display_path(Path::new(p), cwd));
                    (file, c)
                })
                .collect(),
            object_fields: report.object_fields,
        });
    }
    // Unchanged since the revision, with nothing stored, or left out by `--suite-only`: not
    // explored, and said so.
    for (file, function, target, _) in unchanged {
        let Some(i) = sources.iter().position(|&f| f == file) else {
            continue;
        };
        let own = suite.coverage(&target);
        let sides = side_records(
            &target.syntax,
            target.anchor,
            &target.lines,
            &target.text,
            &|_, _| false,
            &|d, side| own.sides.contains(&(d, side)),
        );
        let (stopped_by, reason) = match scope.changed_since {
            _ if scope.suite_only => (
                StoppedBy::SuiteOnly,
                "`--suite-only`: only the project's own tests ran".to_owned(),
            ),
            revision => (
                StoppedBy::Unchanged,
                format!(
                    "unchanged since {}, and the results store has no exploration of it",
                    revision.unwrap_or_default()
                ),
            ),
        };
        let mut unexplored =
            GeneratedFunction::unexplored(function.to_string(), sides, stopped_by, reason, vec![]);
        if !suite.tests.is_empty() {
            unexplored.suite = Some(unexplored_suite_figures(&target, &own, &config));
        }
        checked[i].generated.push(unexplored);
    }
    // Every function has an outcome: those not explored say why, and their sides count.
    for s in skipped {
        let Some(i) = sources.iter().position(|&f| f == s.file) else {
            continue;
        };
        // Its sides for the coverage files: none covered by generated tests, those the
        // project's own tests take.
        let own = s
            .observed_as
            .as_ref()
            .map(|target| suite.coverage(target))
            .unwrap_or_default();
        let sides = lacuna_analysis::db::file_functions(db, s.file)
            .iter()
            .find(|f| f.id(db) == &s.function)
            .map(|f| {
                let text = s.file.contents(db).text().cloned().unwrap_or_default();
                side_records(
                    f.syntax(db),
                    f.anchor(db),
                    line_index(db, s.file),
                    &text,
                    &|_, _| false,
                    &|d, side| own.sides.contains(&(d, side)),
                )
            })
            .unwrap_or_default();
        let mut function = GeneratedFunction::unexplored(
            s.function.to_string(),
            sides,
            StoppedBy::NotExplored,
            s.reason,
            vec![s.diagnostic],
        );
        if let Some(target) = s.observed_as.as_ref().filter(|_| !suite.tests.is_empty()) {
            function.suite = Some(unexplored_suite_figures(target, &own, &config));
        }
        checked[i].generated.push(function);
    }
    Ok(stats)
}

/// The branch sides the project's own tests take of a function, and the MC/DC obligations of
/// its `report` they show.
fn suite_figures(
    report: &explain::FunctionReport,
    own: &lacuna_analysis::suite::SuiteCoverage,
) -> (usize, usize) {
    let shown = report
        .obligations
        .iter()
        .map(|o| {
            own.independence
                .get(&o.decision)
                .map_or(0, |i| i.len().min(o.total))
        })
        .sum();
    (own.sides.len(), shown)
}

/// [`suite_figures`] of a function not explored: its obligations are those of an exploration
/// that ran nothing.
fn unexplored_suite_figures(
    target: &lacuna_analysis::explore::coverage::FunctionUnderTest,
    own: &lacuna_analysis::suite::SuiteCoverage,
    config: &Config,
) -> (usize, usize) {
    let nothing = lacuna_analysis::explore::exploration::Exploration::default();
    suite_figures(&explain::explain(target, &nothing, &config.mcdc), own)
}

/// One `LCN108` per missing dependency or module that fails to import, in the file of the
/// report where its import statement is.
fn import_diagnostics(
    config: &Config,
    results: &[generation::FunctionResult],
    checked: &mut [CheckedFile],
    cwd: &Path,
) {
    let failed: Vec<lacuna_analysis::imports::Failed<'_>> = results
        .iter()
        .filter_map(|r| {
            Some(lacuna_analysis::imports::Failed {
                module: &r.target.module,
                file: &r.target.file,
                failure: r.import_failure.as_ref()?,
            })
        })
        .collect();
    if failed.is_empty() {
        return;
    }
    let python = lacuna_analysis::agent::interpreter::discover(
        &config.root,
        config.python.as_deref(),
        config.grants.allow_unconfined,
    )
    .map(|p| p.path)
    .unwrap_or_else(|_| PathBuf::from("python3"));
    let mut shown = lacuna_analysis::imports::Shown::default();
    let mut paths = vec![];
    for f in checked.iter() {
        if let Some(text) = &f.text {
            let path = cwd.join(&f.display);
            shown.add(&path, text.clone());
            paths.push(std::fs::canonicalize(&path).unwrap_or(path));
        } else {
            paths.push(PathBuf::new());
        }
    }
    for (file, diagnostic) in
        lacuna_analysis::imports::diagnostics(&failed, &python, &config.root, &shown)
    {
        let file = std::fs::canonicalize(&file).unwrap_or(file);
        if let Some(i) = paths.iter().position(|p| *p == file) {
            checked[i].imports.push(diagnostic);
        }
    }
}

/// The `LCN300` diagnostics of the run, by (module, function): the generated tests (those
/// written to `emitted`'s files, when tests were written) run again with their program points
/// recorded, checked against the invariants of the suite's passing tests, ranked; the rank of
/// each suspicious assertion is written beside it in its file.
fn suspicious_assertions(
    pool: &lacuna_analysis::agent::Pool,
    config: &Config,
    results: &[generation::FunctionResult],
    observations: &lacuna_analysis::suite::Observations,
    kept: Option<&lacuna_analysis::emit::KeptTests>,
    emitted: Option<(&Path, &mut Vec<lacuna_analysis::emit::TestFile>)>,
) -> anyhow::Result<std::collections::BTreeMap<(String, String), Vec<Diagnostic>>> {
    use lacuna_analysis::emit::{self as emit, AssertionSite};
    use lacuna_analysis::suspicious::{self, EmittedAt, Settings};
    use std::collections::{BTreeMap, BTreeSet};
    let mut out = BTreeMap::new();
    if !config.suspicious.enabled || observations.functions.is_empty() {
        return Ok(out);
    }
    let settings = Settings::of(&config.suspicious).accepting(&config.guidance);
    // Only functions with invariants are worth running again.
    let observed_functions: BTreeSet<&str> = observations
        .functions
        .iter()
        .map(|f| f.function.as_str())
        .filter(|f| suspicious::has_invariants(observations, f, &settings))
        .collect();
    let file_name = |module: &str| format!("test_lacuna_{}.py", module.replace('.', "_"));
    let (dir, mut files) = match emitted {
        Some((dir, files)) => (Some(dir), Some(files)),
        None => (None, None),
    };
    // Where each generated test's assertion is, by (module, function, test index).
    let sites_of = |files: Option<&[emit::TestFile]>| {
        // A test's assertions, in order: the one a violation relates to is chosen by what
        // it reads.
        let mut sites: BTreeMap<(String, String, usize), Vec<EmittedAt>> = BTreeMap::new();
        for r in results {
            let key = r.target.observed_name();
            if r.exploration.failure.is_some() || !observed_functions.contains(key.as_str()) {
                continue;
            }
            let found: Vec<(AssertionSite, Option<PathBuf>)> = match (dir, files) {
                (Some(dir), Some(files)) => files
                    .iter()
                    .filter(|f| f.name == file_name(&r.target.module))
                    .flat_map(|f| {
                        let path = dir.join(&f.name);
                        f.assertions()
                            .into_iter()
                            .map(move |s| (s, Some(path.clone())))
                    })
                    .collect(),
                _ => {
                    let tests = r.exploration.tests.iter().collect();
                    emit::module_tests(
                        &r.target.module,
                        &[(r.target.qualname.clone(), tests)],
                        &mut vec![],
                    )
                    .map(|f| f.assertions().into_iter().map(|s| (s, None)).collect())
                    .unwrap_or_default()
                }
            };
            for (site, file) in found {
                if site.origin.0 == r.target.qualname {
                    sites
                        .entry((
                            r.target.module.clone(),
                            site.origin.0.clone(),
                            site.origin.1,
                        ))
                        .or_default()
                        .push(EmittedAt { site, file });
                }
            }
        }
        sites
    };
    let sites = sites_of(files.as_deref().map(|f| f.as_slice()));
    let mut observed = vec![];
    for r in results {
        let asserted: BTreeMap<usize, Vec<emit::Reads>> = sites
            .iter()
            .filter(|((m, q, _), _)| *m == r.target.module && *q == r.target.qualname)
            .filter(|((_, _, i), _)| {
                kept.is_none_or(|k| {
                    k.get(&(r.target.module.clone(), r.target.qualname.clone()))
                        .is_some_and(|s| s.contains(i))
                })
            })
            .map(|((_, _, i), at)| (*i, at.iter().map(|at| at.site.reads.clone()).collect()))
            .collect();
        if asserted.is_empty() {
            continue;
        }
        observed.extend(suspicious::observe(
            pool,
            &r.target,
            &r.exploration,
            &asserted,
        ));
    }
    let ranking = suspicious::rank(observations, &observed, &settings);
    let target_of = |function: &str| {
        results
            .iter()
            .find(|r| r.target.observed_name() == function)
    };
    // A suspicion's function and the assertion it relates to, among `sites`.
    let located = |s: &suspicious::Suspicion,
                   sites: &BTreeMap<(String, String, usize), Vec<EmittedAt>>| {
        let r = target_of(&s.function)?;
        let key = (r.target.module.clone(), r.target.qualname.clone(), s.test);
        let at = suspicious::site_of(s, sites.get(&key)?)?.clone();
        Some((r, at))
    };
    // The rank beside each suspicious assertion, in the files written.
    if let (Some(dir), Some(files)) = (dir, files.as_deref_mut()) {
        for s in &ranking.assertions {
            let Some((r, at)) = located(s, &sites) else {
                continue;
            };
            for f in files.iter_mut() {
                if f.name == file_name(&r.target.module) {
                    f.mark_suspicious(&at.site, s.rank);
                }
            }
        }
        for f in files.iter() {
            if f.tests.iter().any(|t| t.source.contains("# LCN300")) {
                std::fs::write(dir.join(&f.name), f.render())
                    .with_context(|| format!("cannot write {}", dir.join(&f.name).display()))?;
            }
        }
    }
    // Read again: the marks written beside assertions moved what follows them.
    let sites = sites_of(files.as_deref().map(|f| f.as_slice()));
    for s in &ranking.assertions {
        let Some((r, at)) = located(s, &sites) else {
            continue;
        };
        if let Some(d) = suspicious::diagnostic(s, &r.target, &at, &config.root) {
            out.entry((r.target.module.clone(), r.target.qualname.clone()))
                .or_insert_with(Vec::new)
                .push(d);
        }
    }
    if !ranking.assertions.is_empty() {
        eprintln!(
            "lacuna: suspicious assertions: {} of {} generated tests checked against {} invariants of your tests ({} violations, {} in comparable runs{})",
            ranking.assertions.len(),
            ranking.checked,
            ranking.invariants,
            ranking.violations,
            ranking.comparable,
            if ranking.ill_typed > 0 {
                format!(
                    "; {} with an input of a type your tests never passed",
                    ranking.ill_typed
                )
            } else {
                String::new()
            }
        );
    } else if ranking.checked > 0 {
        eprintln!(
            "lacuna: suspicious assertions: none ({} generated tests checked against {} invariants of your tests)",
            ranking.checked, ranking.invariants
        );
    }
    Ok(out)
}

/// Writes one pytest file per module into `dir`, checked under pytest; returns the tests kept,
/// those left out for a side effect, and the files as written.
fn emit_tests(
    config: &lacuna_analysis::config::Config,
    results: &[generation::FunctionResult],
    dir: &Path,
) -> anyhow::Result<(
    lacuna_analysis::emit::KeptTests,
    Vec<lacuna_analysis::emit::NotEmitted>,
    Vec<lacuna_analysis::emit::TestFile>,
)> {
    let functions: Vec<lacuna_analysis::emit::Explored<'_>> = results
        .iter()
        .map(|r| lacuna_analysis::emit::Explored {
            module: &r.target.module,
            qualname: &r.target.qualname,
            exploration: &r.exploration,
        })
        .collect();
    let python = lacuna_analysis::agent::interpreter::discover(
        &config.root,
        config.python.as_deref(),
        config.grants.allow_unconfined,
    )
    .map_err(anyhow::Error::msg)?
    .path;
    let (sandbox, _) = config.sandbox_policy(&std::env::temp_dir());
    let emitted =
        lacuna_analysis::emit::emit_project(&functions, &python, &config.src, dir, &sandbox)
            .with_context(|| format!("cannot write tests to {}", dir.display()))?;
    let report = &emitted.verification;
    let tests: usize = emitted.files.iter().map(|f| f.tests.len()).sum();
    eprintln!(
        "lacuna: wrote {tests} tests in {} files to {}{}",
        emitted.files.len(),
        dir.display(),
        match &report.skipped {
            Some(why) => format!(" (not checked under pytest: {why})"),
            None => format!(
                "; checked under pytest: {} as generated, {} without their assertion, {} left out",
                report.passed,
                report.weakened.len(),
                report.dropped.len()
            ),
        }
    );
    for n in &emitted.not_emitted {
        eprintln!(
            "lacuna: not emitted: {} (`{}`): {}",
            n.test, n.function, n.reason
        );
    }
    Ok((emitted.kept, emitted.not_emitted, emitted.files))
}

/// The progress of exploration on standard error: functions done of all, the function started
/// last, time elapsed. Drawn only when standard error is a terminal and `--quiet` is not given
/// (never in piped output, logs or tests); it disappears when exploration ends.
fn progress_bar(functions: usize, quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let colour = super::render::colour(true);
    let template = if colour {
        "{elapsed:>4.dim} {bar:24.cyan/blue} {pos}/{len} functions  {wide_msg}"
    } else {
        "{elapsed:>4} {bar:24} {pos}/{len} functions  {wide_msg}"
    };
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(functions as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

fn display_path(path: &Path, cwd: &Path) -> PathBuf {
    path.strip_prefix(cwd)
        .map(Path::to_owned)
        .unwrap_or_else(|_| path.to_owned())
}
