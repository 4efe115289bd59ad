//! `lacuna check`: loads the project into the database, computes each file's report in parallel
//! on snapshots of the database, and prints it.

use super::{CheckArgs, Format, json, render};
use anyhow::{Context, bail};
use lacuna_analysis::config::Config;
use lacuna_analysis::db::{Database, StaticReport, Workspace, line_index, static_report};
use lacuna_analysis::diagnostic::Severity;
use lacuna_analysis::workspace::{FileContents, discover_files};
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
    if !args.static_only {
        bail!(
            "test generation is not available in this build yet; run `lacuna check --static` for the static model"
        );
    }
    let files = discover_files(&config, &paths).map_err(anyhow::Error::msg)?;
    let contents: Vec<(PathBuf, FileContents)> = files
        .par_iter()
        .map(|p| (p.clone(), FileContents::read(p)))
        .collect();
    let mut workspace = Workspace::new(Database::default(), config);
    let sources = workspace.add_files(contents);
    let snapshot = workspace.snapshot();
    let checked: Vec<CheckedFile> = sources
        .par_iter()
        .map_with(snapshot, |db, &file| {
            let path = file.path(db);
            CheckedFile {
                display: display_path(path, &cwd),
                text: file.contents(db).text().cloned(),
                lines: line_index(db, file).clone(),
                report: static_report(db, file).clone(),
            }
        })
        .collect();
    match args.format {
        Format::Text => render::print(&checked),
        Format::Json => json::print(&checked)?,
    }
    let errors = checked
        .iter()
        .flat_map(|f| &f.report.diagnostics)
        .any(|d| d.severity == Severity::Error);
    Ok(if errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn display_path(path: &Path, cwd: &Path) -> PathBuf {
    path.strip_prefix(cwd)
        .map(Path::to_owned)
        .unwrap_or_else(|_| path.to_owned())
}
