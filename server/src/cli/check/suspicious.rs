//! Suspicious assertions for `lacuna check`: the kept generated tests run again under
//! observation, checked against the invariants the project's suite shows, and ranked.

use anyhow::Context;
use lacuna_analysis::config::Config;
use lacuna_analysis::diagnostic::Diagnostic;
use lacuna_analysis::generation;
use std::path::{Path, PathBuf};

/// The `LCN300` diagnostics of the run, by (module, function): the generated tests (those
/// written to `emitted`'s files, when tests were written) run again with their program points
/// recorded, checked against the invariants of the suite's passing tests, ranked; the rank of
/// each suspicious assertion is written beside it in its file.
pub(super) fn suspicious_assertions(
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
    let near = suspicious::near_runs(results.iter().map(|r| (&r.target, &r.exploration)));
    let ranking = suspicious::rank(observations, &observed, &near, &settings);
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
            set_aside(&ranking)
        );
    } else if ranking.checked > 0 {
        eprintln!(
            "lacuna: suspicious assertions: none ({} generated tests checked against {} invariants of your tests{})",
            ranking.checked,
            ranking.invariants,
            set_aside(&ranking)
        );
    }
    Ok(out)
}

/// What the check set aside, for the summary line: runs whose input had a type the suite never
/// passed, and exit violations that repeat what the run's input broke at the entry.
fn set_aside(ranking: &lacuna_analysis::suspicious::Ranking) -> String {
    let mut out = String::new();
    if ranking.ill_typed > 0 {
        out.push_str(&format!(
            "; {} with an input of a type your tests never passed",
            ranking.ill_typed
        ));
    }
    if ranking.carried > 0 {
        out.push_str(&format!(
            "; {} {} unlike your tests' where the input was unlike theirs in the same way",
            ranking.carried,
            if ranking.carried == 1 {
                "result"
            } else {
                "results"
            }
        ));
    }
    out
}
