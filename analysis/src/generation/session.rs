//! One function's exploration, as `lacuna check` and the language server both run it: described
//! by the agent (unless its module already failed to import in this session), explored within
//! its share of the run, and what it depends on in the guidance module. A session remembers the
//! modules the agent could not import, so that their other functions are not described again.

use super::{ExplorationTarget, Facts, FunctionResult, NotDescribed, signature};
use crate::agent::Pool;
use crate::explore::exploration::{Exploration, Stop};
use crate::explore::search::{AnomalyCheck, Budget, explore_watching};
use rustc_hash::FxHashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a session has learnt while exploring: the modules the agent could not import, by name
/// (an import that fails late, or runs out of time, would cost as much again for each of their
/// functions). Shared by the threads of a run; the server keeps one per started pool.
#[derive(Default)]
pub struct ImportMemo {
    failed: Mutex<FxHashMap<String, NotDescribed>>,
}

impl ImportMemo {
    /// Whether `module` already failed to import in this session.
    pub fn knows(&self, module: &str) -> bool {
        self.failed
            .lock()
            .expect("import failures lock")
            .contains_key(module)
    }

    fn get(&self, module: &str) -> Option<NotDescribed> {
        self.failed
            .lock()
            .expect("import failures lock")
            .get(module)
            .cloned()
    }

    fn remember(&self, module: &str, failure: &NotDescribed) {
        self.failed
            .lock()
            .expect("import failures lock")
            .entry(module.to_owned())
            .or_insert_with(|| failure.clone());
    }
}

/// The time a function is given: its share of a run with a time budget, counted from when its
/// turn came (describing it takes part of the share).
#[derive(Clone, Copy, Debug)]
pub struct Share {
    pub time: Duration,
    pub turn: Instant,
}

/// Explores one target: `share` is its part of the run's time (none without a run budget: its
/// own budget then); a zero share is "the run's time was spent before its turn".
pub fn explore_target(
    pool: &Pool,
    target: ExplorationTarget,
    facts: &Facts,
    budget: &Budget,
    share: Option<Share>,
    memo: &ImportMemo,
) -> FunctionResult {
    let ExplorationTarget {
        file,
        function,
        under_test: target,
    } = target;
    let described = match (share, memo.get(&target.module)) {
        (Some(share), _) if share.time.is_zero() => Err(None),
        (_, Some(failed)) => Err(Some(failed)),
        _ => signature(pool, &target, facts).map_err(Some),
    };
    if let Err(Some(e)) = &described
        && e.answered
        && e.import.is_some()
    {
        memo.remember(&target.module, e);
    }
    let failure_settled = matches!(&described, Err(Some(e)) if e.answered);
    let (exploration, import_failure, guidance_subjects) = match described {
        Err(None) => (
            Exploration {
                failure: Some(
                    "the run's time budget was spent before its turn: raise `--budget` (or `run-time-s`) or check fewer files".into(),
                ),
                stop: Stop::RunSpent,
                ..Exploration::default()
            },
            None,
            None,
        ),
        Ok(sig) => {
            let mut own = budget.clone();
            if let Some(share) = share {
                own.time = share.time.saturating_sub(share.turn.elapsed());
                own.run_share = (share.time < budget.time).then_some(share.time);
            }
            let watched = facts.watch.as_ref().and_then(|w| w.of(pool, &target));
            let watched = watched.as_ref().map(|w| w as &dyn AnomalyCheck);
            // In a reproducible run the exploration has a worker of its own: what a worker ran
            // before cannot change its answers.
            let e = if own.reproducible {
                explore_watching(&target, &sig, &pool.pinned(), &own, watched)
            } else {
                explore_watching(&target, &sig, pool, &own, watched)
            };
            let subjects = crate::guidance::dependence::subjects(&sig, &e);
            (e, None, Some(subjects))
        }
        Err(Some(e)) => (
            Exploration {
                failure: Some(match &e.import {
                    Some(_) => format!(
                        "cannot import `{}`: {} (LCN108)",
                        target.module, e.message
                    ),
                    None => e.message,
                }),
                ..Exploration::default()
            },
            e.import.map(|b| *b),
            None,
        ),
    };
    FunctionResult {
        file,
        function,
        target,
        exploration,
        import_failure,
        guidance_subjects,
        failure_settled,
    }
}
