//! Writing the emitted pytest files of `lacuna check`.

use anyhow::Context;
use lacuna_analysis::generation;
use std::path::Path;

/// Writes one pytest file per module into `dir`, checked under pytest; returns the tests kept,
/// those left out for a side effect, and the files as written.
pub(super) fn emit_tests(
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
