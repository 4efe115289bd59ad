//! MC/DC on a project (default: the bundled `examples/`), with the real agent:
//!
//! 1. **Tracking overhead.** Every kept input of every function is executed again, and its
//!    events are mapped to branch sides once with the MC/DC tables (the marking function runs)
//!    and once without; the overhead is the marking's share of a branch-only execution
//!    (agent run + mapping), on the same inputs.
//! 2. **Targeting.** Every function is explored with and without obligation targeting, under
//!    the same budget: obligations shown, time to the last one found, obligations per second.
//!
//! `cargo bench -p lacuna-analysis --bench mcdc [-- DIR]`

use lacuna_analysis::config::Config;
use lacuna_analysis::db::{Database, Workspace};
use lacuna_analysis::explore::coverage::{ConditionIndex, FunctionUnderTest, observe};
use lacuna_analysis::explore::search::explore;
use lacuna_analysis::generation::{self, Facts};
use lacuna_analysis::workspace::{FileContents, discover_files};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const REPEAT: usize = 20;

fn main() {
    let root = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples"));
    let root = std::fs::canonicalize(&root).expect("the project exists");
    let config = Config::discover(&root).expect("configuration");
    let files = discover_files(&config, std::slice::from_ref(&root))
        .expect("walk")
        .files;
    let contents = files
        .iter()
        .map(|p| (p.clone(), FileContents::read(p)))
        .collect();
    let mut workspace = Workspace::new(Database::default(), config.clone());
    let all = workspace.add_files(contents);
    let db = &workspace.db;
    let (pool, _) = generation::start_pool(&config).expect("the agent starts");
    let facts = Facts {
        writers: lacuna_analysis::db::field_writers(db, workspace.project).clone(),
        guidance: lacuna_analysis::guidance::load(&pool, &config)
            .unwrap_or_default()
            .into(),
        suite: Default::default(),
        watch: None,
    };
    let (targets, _) = generation::targets(db, &all);
    let mut budget = generation::budget(&config);

    let (mut marking, mut mapping, mut running, mut runs) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO, 0u32);
    let mut with = (0usize, 0usize, Duration::ZERO, Duration::ZERO);
    let mut without = (0usize, 0usize, Duration::ZERO, Duration::ZERO);
    for target in targets.iter().map(|t| &t.under_test) {
        let Ok(signature) = generation::signature(&pool, target, &facts) else {
            continue;
        };
        for (targeting, totals) in [(true, &mut with), (false, &mut without)] {
            budget.target_obligations = targeting;
            let e = explore(target, &signature, &pool, &budget);
            let counted = |d: &usize| {
                target.syntax.decisions[*d].expr.is_some()
                    && target.syntax.decisions[*d].conditions.len() >= 2
            };
            let shown: usize = e
                .independence
                .iter()
                .filter(|(d, _)| counted(d))
                .map(|(_, i)| i.len())
                .sum();
            let total: usize = (0..target.syntax.decisions.len())
                .filter(counted)
                .map(|d| 2 * target.syntax.decisions[d].conditions.len())
                .sum();
            let last = e
                .tests
                .iter()
                .filter(|t| !t.new_obligations.is_empty())
                .map(|t| t.found_after)
                .max()
                .unwrap_or_default();
            totals.0 += shown;
            totals.1 += total;
            totals.2 += last;
            totals.3 += e.elapsed;
            if !targeting {
                continue;
            }
            // Tracking overhead on the inputs this exploration kept.
            let branch_only = FunctionUnderTest {
                tables: vec![None; target.tables.len()],
                ..target.clone()
            };
            let index = ConditionIndex::new(target);
            let mut executions = vec![];
            for test in &e.tests {
                for _ in 0..REPEAT {
                    let start = Instant::now();
                    let Ok(run) = pool.execute(&test.request) else {
                        continue;
                    };
                    running += start.elapsed();
                    executions.push(run);
                }
            }
            runs += executions.len() as u32;
            // The two mappings alternate, several rounds each, so that neither gets the warm
            // caches.
            for _ in 0..5 {
                let start = Instant::now();
                for run in &executions {
                    std::hint::black_box(observe(&branch_only, &index, run));
                }
                mapping += start.elapsed();
                let start = Instant::now();
                for run in &executions {
                    std::hint::black_box(observe(target, &index, run));
                }
                marking += start.elapsed();
            }
        }
    }
    mapping /= 5;
    marking /= 5;
    let branch_only = running + mapping;
    let overhead = marking.saturating_sub(mapping);
    println!(
        "tracking: {runs} runs; agent {:.1} µs/run, branch mapping {:.1} µs/run, with MC/DC marking {:.1} µs/run",
        running.as_secs_f64() * 1e6 / f64::from(runs.max(1)),
        mapping.as_secs_f64() * 1e6 / f64::from(runs.max(1)),
        marking.as_secs_f64() * 1e6 / f64::from(runs.max(1)),
    );
    println!(
        "MC/DC tracking overhead over branch-only tracking: {:.2}%",
        100.0 * overhead.as_secs_f64() / branch_only.as_secs_f64().max(1e-9)
    );
    for (name, (shown, total, last, elapsed)) in
        [("with targeting", with), ("without targeting", without)]
    {
        println!(
            "{name}: {shown}/{total} obligations shown; last one found after {:.2} s in total; generation {:.2} s; {:.1} obligations/s",
            last.as_secs_f64(),
            elapsed.as_secs_f64(),
            shown as f64 / elapsed.as_secs_f64().max(1e-9)
        );
    }
}
