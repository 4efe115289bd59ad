//! The JSON document of `lacuna check --format json`, documented in `docs/json-output.md`.
//! Fields are only ever added, never renamed or removed; `version` changes if that ever has to.

use super::report::{CheckedFile, RunStats, Totals};
use lacuna_analysis::diagnostic::{Diagnostic, Evidence};
use lacuna_grammar::{FunctionKind, LineIndex, TextRange};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    lacuna: &'static str,
    mode: &'static str,
    /// With `--shard`: `i/n`; `lacuna merge` joins the shards' documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<String>,
    files: Files<'a>,
    summary: Summary,
    /// With generation: what the run cost as a whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    generation: Option<Generation>,
    /// With generation: the project's own suite, run under pytest.
    #[serde(skip_serializing_if = "Option::is_none")]
    suite: Option<JsonSuiteRun<'a>>,
}

#[derive(Serialize)]
struct JsonSuiteRun<'a> {
    /// Tests by outcome (`passed`, `failed`, `error`, `skipped`, `xfailed`, `xpassed`,
    /// `crashed`), those with none left out.
    counts: std::collections::BTreeMap<&'static str, usize>,
    /// Where the tests were looked for.
    paths: &'a [String],
    tests: Vec<JsonTest<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    collection_errors: Vec<JsonCollectionError<'a>>,
    /// Why the suite did not run, or not completely (a module its tests need is missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    time_ms: u128,
}

#[derive(Serialize)]
struct JsonTest<'a> {
    id: &'a str,
    outcome: &'static str,
    duration_ms: u64,
    /// The end of pytest's report of a failure or an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonCollectionError<'a> {
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    missing: Option<&'a str>,
    message: &'a str,
}

#[derive(Serialize)]
struct Generation {
    workers: usize,
    agent_start_ms: u128,
    explore_ms: u128,
    emit_ms: u128,
    executions: u64,
    solver_queries: u64,
    workers_started: u64,
    timeouts: u64,
    crashes: u64,
    explored: usize,
    reused: usize,
    #[serde(skip_serializing_if = "is_zero")]
    unchanged: usize,
}

#[derive(Serialize)]
struct File<'a> {
    path: String,
    functions: Vec<Function<'a>>,
    diagnostics: Vec<JsonDiagnostic<'a>>,
}

/// Inputs near the suite's run by an exploration, and kept.
#[derive(Serialize)]
struct JsonNeighbours {
    run: u32,
    kept: u32,
}

/// A function's `except` clauses, and those a kept test enters (with generation).
#[derive(Serialize)]
struct ExceptBlocks {
    total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    entered: Option<usize>,
}

#[derive(Serialize)]
struct JsonNotEmitted<'a> {
    test: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    kind: &'static str,
    line: u32,
    branches: Total,
    decisions: usize,
    conditions: usize,
    obligations: Total,
    fingerprint: String,
    /// With generation: executions run, tests kept, time spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    executions: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tests: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_ms: Option<u128>,
    /// With generation: z3 queries made while exploring it.
    #[serde(skip_serializing_if = "Option::is_none")]
    solver_queries: Option<u64>,
    /// Its `except` clauses, and with generation those a kept test enters; absent when it
    /// has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    except_blocks: Option<ExceptBlocks>,
    /// With generation and the project's suite: the inputs near its tests' that were run once
    /// coverage was done, and kept for what they broke of its invariants (`run`, `kept`);
    /// absent when none ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    neighbours: Option<JsonNeighbours>,
    /// Why generation could not explore this function.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_explored: Option<&'a str>,
    /// With generation: annotations of its parameters that could not be read (the parameter,
    /// the annotation, why): those parameters were tried as any value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unread_annotations: Vec<&'a str>,
    /// With `--emit-tests`: the tests left out because their run attempted a side effect.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_emitted: Vec<JsonNotEmitted<'a>>,
    /// With generation: what ended its exploration (`complete`, `budget`, `run-budget`,
    /// `stalled`, `same-failure`, `executions`, `exhausted`, `not-explored`); only `budget`,
    /// `run-budget` and `stalled` may differ from one run to the next.
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_by: Option<&'static str>,
    /// With `run-budget`, `stalled` and `same-failure`: the stop in words (the share, the
    /// time without a new side, the exception and its line).
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_reason: Option<&'a str>,
    /// With generation: `explored`, `not-explored` (with `not_explored` saying why), or
    /// `trivial` (no branch sides: nothing to explore).
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<&'static str>,
    /// With generation: every branch side, covered or not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sides: Vec<JsonSide<'a>>,
    /// With generation: per decision with MC/DC obligations, the pairs shown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    mcdc: Vec<JsonMcdc<'a>>,
    /// With generation: what the project's own tests cover.
    #[serde(skip_serializing_if = "Option::is_none")]
    suite: Option<JsonSuite>,
    /// With generation: the external calls exploration reached (EMCP candidates).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    external_calls: Vec<JsonExternalCall<'a>>,
    /// With generation: the fields of object inputs it reads that only methods change (OCP
    /// candidates).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    object_fields: Vec<JsonObjectField<'a>>,
}

#[derive(Serialize)]
struct JsonSuite {
    branches: usize,
    obligations: usize,
}

#[derive(Serialize)]
struct JsonMcdc<'a> {
    decision: &'a str,
    line: u32,
    column: u32,
    source: &'a str,
    conditions: &'a [String],
    covered: usize,
    total: usize,
    shown: Vec<JsonObligation>,
}

#[derive(Serialize)]
struct JsonObligation {
    condition: u16,
    value: bool,
}

#[derive(Serialize)]
struct JsonExternalCall<'a> {
    callee: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    external: &'static str,
    calls: u32,
    raised: bool,
    identified: bool,
}

#[derive(Serialize)]
struct JsonObjectField<'a> {
    class: &'a str,
    field: &'a str,
    writers: &'a [String],
    identified: bool,
}

/// Candidates for Covana's two problems over the whole run, and how many an explanation names.
#[derive(Serialize, Default)]
struct Candidates {
    external_calls: CandidateCount,
    object_fields: CandidateCount,
}

#[derive(Serialize, Default)]
struct CandidateCount {
    total: usize,
    identified: usize,
}

#[derive(Serialize)]
struct JsonSide<'a> {
    decision: &'a str,
    kind: &'static str,
    line: u32,
    side: &'static str,
    covered: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    target_line: Option<u32>,
    /// Whether the project's own passing tests take it (when the suite ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    suite: Option<bool>,
}

#[derive(Serialize)]
struct Total {
    total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    covered: Option<usize>,
    /// Branch sides left out by an exclusion, not counted in `total`.
    #[serde(skip_serializing_if = "is_zero")]
    excluded: usize,
}

#[derive(Serialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    kind: &'static str,
    code: &'static str,
    name: &'static str,
    severity: &'static str,
    #[serde(flatten)]
    position: Position,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<&'a str>,
    /// For uncovered branch sides: `"true"` or `"false"`, and the cause.
    #[serde(skip_serializing_if = "Option::is_none")]
    side: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related: Vec<JsonRelated<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    /// In another file than the diagnostic's (an emitted test, a test of the suite).
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(flatten)]
    position: Position,
    message: &'a str,
}

#[derive(Serialize, Default)]
struct Summary {
    files: usize,
    functions: usize,
    branches: usize,
    #[serde(skip_serializing_if = "is_zero")]
    covered: usize,
    decisions: usize,
    conditions: usize,
    obligations: usize,
    #[serde(skip_serializing_if = "is_zero")]
    obligations_covered: usize,
    /// Branch sides left out by exclusions (not in `branches`).
    #[serde(skip_serializing_if = "is_zero")]
    excluded: usize,
    diagnostics: usize,
    /// With generation.
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates: Option<Candidates>,
}

/// 1-based lines and 1-based columns counted in characters.
pub fn position(text: Option<&str>, lines: &LineIndex, range: TextRange) -> Position {
    let at = |offset: u32| {
        let lc = lines.line_col(offset);
        let column = match (text, lines.line_range(lc.line)) {
            (Some(text), Some(line)) => {
                let start = line.start as usize;
                let end = (start + lc.col as usize).min(text.len());
                text.get(start..end)
                    .map_or(lc.col, |s| s.chars().count() as u32)
            }
            _ => lc.col,
        };
        (lc.line + 1, column + 1)
    };
    let (line, column) = at(range.start);
    let (end_line, end_column) = at(range.end);
    Position {
        line,
        column,
        end_line,
        end_column,
    }
}

fn diagnostic<'a>(file: &CheckedFile, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        kind: d.code.kind(),
        code: d.code.as_str(),
        name: d.code.name(),
        severity: d.severity.as_str(),
        position: position(file.text.as_deref(), &file.lines, d.range),
        message: &d.message,
        function: d.function.as_deref(),
        side: d
            .evidence
            .as_ref()
            .and_then(Evidence::side)
            .map(|s| if s.side { "true" } else { "false" }),
        cause: d.code.cause().map(|c| c.as_str()),
        related: d
            .related
            .iter()
            .map(|r| match &r.path {
                None => JsonRelated {
                    path: None,
                    position: position(file.text.as_deref(), &file.lines, r.range),
                    message: &r.message,
                },
                Some(path) => {
                    let text = std::fs::read_to_string(path).unwrap_or_default();
                    let lines = LineIndex::new(&text);
                    let shown = std::env::current_dir()
                        .ok()
                        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_owned))
                        .unwrap_or_else(|| path.clone());
                    JsonRelated {
                        path: Some(shown.to_string_lossy().into_owned()),
                        position: position(Some(&text), &lines, r.range),
                        message: &r.message,
                    }
                }
            })
            .collect(),
        data: d.evidence.as_ref().map(Evidence::to_json),
    }
}

pub fn print(
    files: &[CheckedFile],
    stats: Option<&RunStats>,
    shard: Option<super::shard::Shard>,
) -> anyhow::Result<()> {
    let totals = Totals::of(files);
    let mut summary = Summary {
        files: totals.files,
        functions: totals.functions,
        branches: totals.figures.sides,
        covered: totals.figures.covered.unwrap_or(0),
        decisions: totals.decisions,
        conditions: totals.conditions,
        obligations: totals.figures.obligations,
        obligations_covered: totals.figures.shown.unwrap_or(0),
        excluded: totals.figures.excluded,
        diagnostics: totals.diagnostics,
        candidates: None,
    };
    summary.candidates = candidates(files);
    let files = Files { files, stats };
    let document = Document {
        version: VERSION,
        lacuna: env!("CARGO_PKG_VERSION"),
        mode: if stats.is_some() {
            "generate"
        } else {
            "static"
        },
        shard: shard.map(|s| s.to_string()),
        files,
        summary,
        generation: stats.map(|s| Generation {
            workers: s.workers,
            agent_start_ms: s.agent_start_ms,
            explore_ms: s.explore_ms,
            emit_ms: s.emit_ms,
            executions: s.executions,
            solver_queries: s.solver_queries,
            workers_started: s.workers_started,
            timeouts: s.timeouts,
            crashes: s.crashes,
            explored: s.explored,
            reused: s.reused,
            unchanged: s.unchanged,
        }),
        suite: stats.and_then(|s| s.suite.as_ref()).map(|s| {
            let mut counts = std::collections::BTreeMap::new();
            for t in &s.tests {
                *counts.entry(t.outcome.as_str()).or_default() += 1;
            }
            JsonSuiteRun {
                counts,
                paths: &s.paths,
                tests: s
                    .tests
                    .iter()
                    .map(|t| JsonTest {
                        id: &t.id,
                        outcome: t.outcome.as_str(),
                        duration_ms: t.duration_ms,
                        message: t.message.as_deref(),
                    })
                    .collect(),
                collection_errors: s
                    .collection_errors
                    .iter()
                    .map(|e| JsonCollectionError {
                        path: &e.path,
                        missing: e.missing.as_deref(),
                        message: &e.message,
                    })
                    .collect(),
                error: s.failure.as_deref(),
                time_ms: s.ms,
            }
        }),
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut stdout, &document)?;
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(())
}

/// The files of the document, each built as it is written: the document of a large project is
/// never held whole in memory.
struct Files<'a> {
    files: &'a [CheckedFile],
    stats: Option<&'a RunStats>,
}

impl Serialize for Files<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.files.iter().map(|f| file(f, self.stats)))
    }
}

/// How many of the candidates of Covana's problems (external calls, object fields) the run's
/// explanations name, over every explored function.
fn candidates(files: &[CheckedFile]) -> Option<Candidates> {
    let mut out: Option<Candidates> = None;
    for f in files {
        for s in f.functions() {
            let Some(g) = f.generated(&s.id) else {
                continue;
            };
            let c = out.get_or_insert_with(Candidates::default);
            c.external_calls.total += g.external_calls.len();
            c.external_calls.identified += g
                .external_calls
                .iter()
                .filter(|(_, c)| c.identified)
                .count();
            c.object_fields.total += g.object_fields.len();
            c.object_fields.identified += g.object_fields.iter().filter(|c| c.identified).count();
        }
    }
    out
}

fn file<'a>(f: &'a CheckedFile, stats: Option<&RunStats>) -> File<'a> {
    File {
        path: f.display.to_string_lossy().into_owned(),
        functions: f
            .functions()
            .map(|s| {
                let figures = f.figures(s);
                let g = f.generated(&s.id);
                Function {
                    name: s.id.as_str(),
                    kind: match s.kind {
                        FunctionKind::Module => "module",
                        FunctionKind::ClassBody => "class",
                        FunctionKind::Def => "function",
                    },
                    line: s.line,
                    branches: Total {
                        total: figures.sides,
                        covered: figures.covered,
                        excluded: figures.excluded,
                    },
                    decisions: s.model.decisions,
                    conditions: s.model.conditions,
                    obligations: Total {
                        total: figures.obligations,
                        covered: figures.shown,
                        excluded: 0,
                    },
                    fingerprint: format!("{:016x}", s.fingerprint),
                    executions: g.map(|g| g.executions),
                    tests: g.map(|g| g.tests),
                    time_ms: g.map(|g| g.time_ms),
                    solver_queries: g.map(|g| g.solver_queries),
                    except_blocks: (s.model.handlers > 0).then(|| ExceptBlocks {
                        total: s.model.handlers,
                        entered: g
                            .filter(|g| g.failure.is_none())
                            .map(|g| g.handlers_entered),
                    }),
                    neighbours: g.filter(|g| g.neighbours.run > 0).map(|g| JsonNeighbours {
                        run: g.neighbours.run,
                        kept: g.neighbours.kept,
                    }),
                    not_explored: g.and_then(|g| g.failure.as_deref()),
                    unread_annotations: g
                        .map(|g| g.unread_annotations.iter().map(String::as_str).collect())
                        .unwrap_or_default(),
                    not_emitted: g
                        .map(|g| {
                            g.not_emitted
                                .iter()
                                .map(|(test, reason)| JsonNotEmitted { test, reason })
                                .collect()
                        })
                        .unwrap_or_default(),
                    stopped_by: g.map(|g| g.stopped_by.as_str()),
                    stop_reason: g.and_then(|g| g.stop_reason.as_deref()),
                    outcome: stats.map(|_| match g {
                        Some(g) if g.failure.is_none() => "explored",
                        Some(g) if g.stopped_by == super::report::StoppedBy::Unchanged => {
                            "unchanged"
                        }
                        Some(g) if g.stopped_by == super::report::StoppedBy::SuiteOnly => {
                            "suite-only"
                        }
                        Some(_) => "not-explored",
                        None if s.model.branch_sides == 0 => "trivial",
                        None => "not-explored",
                    }),
                    sides: g
                        .map(|g| {
                            g.sides
                                .iter()
                                .map(|s| JsonSide {
                                    decision: &s.decision,
                                    kind: s.kind,
                                    line: s.line,
                                    side: if s.side { "true" } else { "false" },
                                    covered: s.covered,
                                    target_line: s.target_line,
                                    suite: g.suite.map(|_| s.suite_covered),
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    suite: g
                        .and_then(|g| g.suite)
                        .map(|(branches, obligations)| JsonSuite {
                            branches,
                            obligations,
                        }),
                    mcdc: g
                        .map(|g| {
                            g.mcdc
                                .iter()
                                .map(|m| JsonMcdc {
                                    decision: &m.id,
                                    line: m.line,
                                    column: m.column,
                                    source: &m.source,
                                    conditions: &m.conditions,
                                    covered: m.covered,
                                    total: m.total,
                                    shown: m
                                        .shown
                                        .iter()
                                        .map(|&(condition, value)| JsonObligation {
                                            condition,
                                            value,
                                        })
                                        .collect(),
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    external_calls: g
                        .map(|g| {
                            g.external_calls
                                .iter()
                                .map(|(path, c)| JsonExternalCall {
                                    callee: &c.callee,
                                    path: path.as_ref().map(|p| p.to_string_lossy().into_owned()),
                                    line: c.pos.map(|p| p.0),
                                    external: c.kind.as_str(),
                                    calls: c.calls,
                                    raised: c.raised,
                                    identified: c.identified,
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    object_fields: g
                        .map(|g| {
                            g.object_fields
                                .iter()
                                .map(|c| JsonObjectField {
                                    class: &c.class,
                                    field: &c.field,
                                    writers: &c.writers,
                                    identified: c.identified,
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                }
            })
            .collect(),
        diagnostics: f
            .diagnostics()
            .into_iter()
            .map(|d| diagnostic(f, d))
            .collect(),
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
