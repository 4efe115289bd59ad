//! Test generation for `lacuna check`: the suite first, then each explorable function explored
//! (or taken from the results store), explained and attached to its file; the import failures
//! that kept modules from being explored.

use super::emit::emit_tests;
use super::suspicious::suspicious_assertions;
use super::{Scope, display_path, progress_bar};
use crate::cli::report::{
    CheckedFile, GeneratedFunction, McdcDecision, RunStats, StoppedBy, SuiteSummary, side_records,
};
use lacuna_analysis::config::Config;
use lacuna_analysis::db::{Workspace, line_index, static_report};
use lacuna_analysis::explain::not_explored;
use lacuna_analysis::{explain, generation};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs test generation on every explorable function and attaches the results to the files.
pub(super) fn generate(
    workspace: &Workspace,
    sources: &[lacuna_analysis::db::SourceFile],
    checked: &mut [CheckedFile],
    emit: Option<&Path>,
    scope: &Scope<'_>,
) -> anyhow::Result<RunStats> {
    let Scope {
        cwd, quiet, shard, ..
    } = *scope;
    let db = &workspace.db;
    let config = workspace.project.config(db).clone();
    let run = generation::start(&config, None).map_err(anyhow::Error::msg)?;
    for notice in run.notices() {
        match notice {
            generation::Notice::Info(message) if !quiet => eprintln!("lacuna: {message}"),
            generation::Notice::Info(_) => {}
            generation::Notice::Warning(message) => eprintln!("lacuna: warning: {message}"),
        }
    }
    let generation::LoadedGuidance {
        guidance,
        declarations,
    } = run.guidance?;
    let pool = run.pool;
    let agent_start = run.pool_started_in;
    let (mut targets, mut skipped) = generation::targets(db, sources);
    if let Some(shard) = shard {
        let owned = |file: lacuna_analysis::db::SourceFile, id: &lacuna_grammar::FunctionId| {
            shard.owns(&display_path(file.path(db), cwd), Some(id.as_str()))
        };
        targets.retain(|t| owned(t.file, &t.function));
        skipped.retain(|s| owned(s.file, &s.function));
    }
    let mut facts = generation::Facts {
        writers: lacuna_analysis::db::field_writers(db, workspace.project).clone(),
        guidance,
        suite: Default::default(),
        watch: None,
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
    // What a failed exploration depends on besides its function's code.
    let environment = pool.environment().unwrap_or_default().to_owned();
    let failure_context = |file: lacuna_analysis::db::SourceFile| crate::store::FailureContext {
        imports: lacuna_analysis::db::import_digest(db, file),
        environment: &environment,
    };
    let cache = scope.cache.map(|dir| {
        crate::cli::cache::Cache::new(dir.to_owned(), &config, declarations)
            .for_interpreter(pool.interpreter())
    });
    let at_revision = scope
        .changed_since
        .map(|revision| crate::cli::changed::at_revision(&config, scope.project, revision))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut reused: Vec<(usize, generation::FunctionResult)> = vec![];
    let mut unchanged: Vec<generation::ExplorationTarget> = vec![];
    let mut to_explore: Vec<(usize, generation::ExplorationTarget)> = vec![];
    {
        let store = cache.as_ref().and_then(crate::cli::cache::Cache::open);
        for (i, t) in targets.into_iter().enumerate() {
            if scope.suite_only {
                unchanged.push(t);
                continue;
            }
            let fingerprint = fingerprint_of(t.file, &t.function);
            if let (Some(cache), Some(store)) = (&cache, &store)
                && let Some(stored) = cache.current(
                    store,
                    &cache.key(&t.under_test.module, t.function.as_str()),
                    fingerprint,
                    &failure_context(t.file),
                )
            {
                let generation::ExplorationTarget {
                    file,
                    function,
                    under_test: target,
                } = t;
                reused.push((
                    i,
                    generation::FunctionResult {
                        file,
                        function,
                        target,
                        exploration: stored.exploration,
                        import_failure: stored.import_failure,
                        failure_settled: stored.failed_in.is_some(),
                        guidance_subjects: stored
                            .guidance_subjects
                            .map(|s| s.into_iter().collect()),
                    },
                ));
                continue;
            }
            if let Some(at) = &at_revision
                && at.unchanged(t.file.path(db), t.function.as_str(), fingerprint)
            {
                unchanged.push(t);
                continue;
            }
            to_explore.push((i, t));
        }
    }
    let (order, targets): (Vec<usize>, Vec<generation::ExplorationTarget>) =
        to_explore.into_iter().unzip();
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
    if !quiet && let Some(line) = super::suite::summary(&suite, &config, suite_ms) {
        progress.suspend(|| eprintln!("lacuna: {line}"));
    }
    facts.suite = generation::SuiteInputs::new(&suite.observations).into();
    if config.suspicious.enabled {
        let settings = lacuna_analysis::suspicious::Settings::of(&config.suspicious)
            .accepting(&config.guidance);
        facts.watch =
            Some(lacuna_analysis::suspicious::Watch::new(&suite.observations, settings).into());
    }
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
    // What was explored goes into the store for the next run, with failures the agent answered
    // (a module that does not import, a name bound to something else) and what they depend on
    // (`FailureContext`); explorations the run's budget was spent before, and workers that
    // timed out or crashed, are tried again.
    if let Some(cache) = &cache
        && !explored.is_empty()
        && let Some(store) = cache.open()
    {
        let entries: Vec<(String, crate::store::StoredExploration)> = explored
            .iter()
            .filter(|r| {
                r.exploration.failure.is_none() || (r.failure_settled && !environment.is_empty())
            })
            .map(|r| {
                (
                    cache.key(&r.target.module, r.function.as_str()),
                    cache.entry(
                        fingerprint_of(r.file, &r.function),
                        r,
                        &failure_context(r.file),
                    ),
                )
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
                        crate::cli::cache::Cache::time_key(&r.target.module, r.function.as_str()),
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
        suite: Some(SuiteSummary {
            paths: config
                .tests
                .iter()
                .map(|p| display_path(p, cwd).display().to_string())
                .collect(),
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
        // A function without branch sides is complete once it has a test: until then, every
        // run raised or nothing was tried.
        let stopped_by = StoppedBy::of(
            &result.exploration,
            report.covered >= report.total
                && obligations.0 >= obligations.1
                && (report.total > 0 || !e.tests.is_empty()),
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
            handlers_entered: e.handlers_entered().0,
            time_ms: e.elapsed.as_millis(),
            solver_queries: result.exploration.solver_queries,
            neighbours: result.exploration.neighbours.clone(),
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
    for generation::ExplorationTarget {
        file,
        function,
        under_test: target,
    } in unchanged
    {
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
pub(super) fn suite_figures(
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
pub(super) fn unexplored_suite_figures(
    target: &lacuna_analysis::explore::coverage::FunctionUnderTest,
    own: &lacuna_analysis::suite::SuiteCoverage,
    config: &Config,
) -> (usize, usize) {
    let nothing = lacuna_analysis::explore::exploration::Exploration::default();
    suite_figures(&explain::explain(target, &nothing, &config.mcdc), own)
}

/// One `LCN108` per missing dependency or module that fails to import, in the file of the
/// report where its import statement is.
pub(super) fn import_diagnostics(
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
