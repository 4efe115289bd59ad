//! `lacuna check`: loads the project into the database, computes each file's report in parallel
//! on snapshots of the database, and prints it.

mod emit;
mod generate;
mod suite;
mod suspicious;

use super::report::CheckedFile;
use super::{CheckArgs, Format, json, render};
use anyhow::Context;
use lacuna_analysis::config::{Config, Grants};
use lacuna_analysis::db::{Database, Workspace, line_index, static_report};
use lacuna_analysis::diagnostic::Selection;
use lacuna_analysis::workspace::{FileContents, discover_files};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

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
        if config.budget.reproducible {
            anyhow::bail!(
                "`--budget` shares time among functions, and `reproducible` of `[tool.lacuna.budget]` explores by counts, not by the clock: give one or the other"
            );
        }
        config.budget.run_time_s = Some(seconds);
    }
    if args.reproducible {
        if config.budget.run_time_s.is_some() {
            anyhow::bail!(
                "`--reproducible` explores by counts, not by the clock: it cannot share the `run-time-s` of `[tool.lacuna.budget]` among functions (remove one)"
            );
        }
        config.budget.reproducible = true;
    }
    if let Some(executions) = args.function_executions {
        config.budget.function_executions = executions;
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
    lacuna_analysis::workspace::add_roots_for(&mut config, &files);
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
    )?;
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
        Some(generate::generate(
            &workspace,
            &sources,
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
        .and_then(super::cache::open_store)
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
                    && d.evidence
                        .as_ref()
                        .and_then(|e| e.suspicious())
                        .is_some_and(|s| s.rank > show);
                hidden += usize::from(below);
                !below
            });
        }
    }
    hidden
}

/// The progress of exploration on standard error: functions done of all, the function started
/// last, time elapsed. Drawn only when standard error is a terminal and `--quiet` is not given
/// (never in piped output, logs or tests); it disappears when exploration ends.
pub(super) fn progress_bar(functions: usize, quiet: bool) -> indicatif::ProgressBar {
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

pub(super) fn display_path(path: &Path, cwd: &Path) -> PathBuf {
    path.strip_prefix(cwd)
        .map(Path::to_owned)
        .unwrap_or_else(|_| path.to_owned())
}
