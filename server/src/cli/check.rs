//! `lacuna check`: loads the project into the database, computes each file's report in parallel
//! on snapshots of the database, and prints it.

use super::{CheckArgs, Format, json, render};
use anyhow::Context;
use lacuna_analysis::config::Config;
use lacuna_analysis::db::{Database, StaticReport, Workspace, line_index, static_report};
use lacuna_analysis::diagnostic::{Diagnostic, Severity};
use lacuna_analysis::workspace::{FileContents, discover_files};
use lacuna_analysis::{explain, generation};
use lacuna_grammar::LineIndex;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
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
}

/// The generation results of one function.
pub struct GeneratedFunction {
    pub id: String,
    pub covered: usize,
    pub total: usize,
    pub executions: u32,
    pub tests: usize,
    pub time_ms: u128,
    pub diagnostics: Vec<Diagnostic>,
    /// Why it could not be explored, when it could not.
    pub failure: Option<String>,
}

impl CheckedFile {
    /// Static diagnostics and generation diagnostics, in source order.
    pub fn diagnostics(&self) -> Vec<&Diagnostic> {
        let mut all: Vec<&Diagnostic> = self
            .report
            .diagnostics
            .iter()
            .chain(self.generated.iter().flat_map(|g| &g.diagnostics))
            .collect();
        all.sort_by_key(|d| (d.range.start, d.code));
        all
    }
}

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![cwd.clone()]
    } else {
        args.paths.iter().map(|p| cwd.join(p)).collect()
    };
    let config = match &args.config {
        Some(file) => Config::load(file)?,
        None => Config::discover(&paths[0])?,
    };
    let files = discover_files(&config, &paths).map_err(anyhow::Error::msg)?;
    // The whole project is loaded, so that calls and classes of other modules are known; the
    // report covers the files asked for.
    let mut project_files = if paths.iter().all(|p| p.starts_with(&config.root)) {
        discover_files(&config, std::slice::from_ref(&config.root)).unwrap_or_default()
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
    let mut workspace = Workspace::new(Database::default(), config);
    let all = workspace.add_files(contents);
    let sources: Vec<_> = all
        .iter()
        .copied()
        .filter(|f| files.iter().any(|p| p == f.path(&workspace.db)))
        .collect();
    let snapshot = workspace.snapshot();
    let mut checked: Vec<CheckedFile> = sources
        .par_iter()
        .map_with(snapshot, |db, &file| {
            let path = file.path(db);
            CheckedFile {
                display: display_path(path, &cwd),
                text: file.contents(db).text().cloned(),
                lines: line_index(db, file).clone(),
                report: static_report(db, file).clone(),
                generated: vec![],
            }
        })
        .collect();
    if !args.static_only {
        generate(&workspace, &sources, &all, &mut checked)?;
    }
    match args.format {
        Format::Text => render::print(&checked),
        Format::Json => json::print(&checked)?,
    }
    let errors = checked
        .iter()
        .flat_map(|f| f.diagnostics())
        .any(|d| d.severity == Severity::Error);
    Ok(if errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs test generation on every explorable function and attaches the results to the files.
fn generate(
    workspace: &Workspace,
    sources: &[lacuna_analysis::db::SourceFile],
    project: &[lacuna_analysis::db::SourceFile],
    checked: &mut [CheckedFile],
) -> anyhow::Result<()> {
    let db = &workspace.db;
    let config = workspace.project.config(db).clone();
    let pool = generation::start_pool(&config).map_err(anyhow::Error::msg)?;
    let (targets, _skipped) = generation::targets(db, sources);
    let writers = generation::writers(db, project);
    let budget = generation::budget(&config);
    let results = generation::explore_all(&pool, targets, &writers, &budget, pool.size());
    for result in results {
        let Some(i) = sources.iter().position(|&f| f == result.file) else {
            continue;
        };
        let report = explain::explain(&result.target, &result.exploration);
        let e = &result.exploration;
        checked[i].generated.push(GeneratedFunction {
            id: result.function.to_string(),
            covered: report.covered,
            total: report.total,
            executions: e.executions,
            tests: e.tests.len(),
            time_ms: e.elapsed.as_millis(),
            diagnostics: if e.failure.is_some() {
                vec![]
            } else {
                report.diagnostics
            },
            failure: e.failure.clone(),
        });
    }
    Ok(())
}

fn display_path(path: &Path, cwd: &Path) -> PathBuf {
    path.strip_prefix(cwd)
        .map(Path::to_owned)
        .unwrap_or_else(|_| path.to_owned())
}
