//! Exploring a run's targets: on threads sharing the agent pool, each function given its share
//! of the run's time budget, with progress reported as functions start and finish.

use super::session::{ImportMemo, Share, explore_target};
use super::{ExplorationTarget, Facts, FunctionResult};
use crate::agent::Pool;
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::search::Budget;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Explores every target on `threads` threads sharing the pool.
pub fn explore_all(
    pool: &Pool,
    targets: Vec<ExplorationTarget>,
    facts: &Facts,
    budget: &Budget,
    threads: usize,
) -> Vec<FunctionResult> {
    explore_all_reporting(pool, targets, facts, budget, None, threads, &|_| {})
}

/// A time budget shared by the functions of a run (`--budget`, `run-time-s`). Each function,
/// when its turn comes, is given the time left to the run (in thread-time: the run's time on
/// each exploring thread) in proportion to what it has to cover among the functions still
/// waiting — its branch sides, and MC/DC obligations when they are targeted, as EvoSuite's
/// continuous test generation allocates by complexity — never more than its own time budget
/// nor past the run's end; what a function leaves unused goes back to the ones after it.
pub struct RunBudget {
    end: Instant,
    /// The function's own time budget, an upper bound on every share.
    own: Duration,
    state: Mutex<Shares>,
}

pub(super) struct Shares {
    /// Thread-time not yet given to a function.
    left: Duration,
    /// The weights of the functions whose turn has not come.
    waiting: u64,
}

impl RunBudget {
    pub fn new(total: Duration, own: Duration, threads: usize, weights: u64) -> RunBudget {
        RunBudget {
            end: Instant::now() + total,
            own,
            state: Mutex::new(Shares {
                left: total * threads.max(1) as u32,
                waiting: weights,
            }),
        }
    }

    /// What a function has to cover: its branch sides, and its MC/DC obligations when the
    /// search targets them (at least 1).
    pub fn weight(target: &FunctionUnderTest, obligations: bool) -> u64 {
        let modelled = target.syntax.decisions.iter().filter(|d| d.expr.is_some());
        let sides: usize = modelled.clone().count() * 2;
        let shown: usize = if obligations {
            modelled
                .filter(|d| d.conditions.len() >= 2)
                .map(|d| 2 * d.conditions.len())
                .sum()
        } else {
            0
        };
        (sides + shown).max(1) as u64
    }

    /// The share of a function of `weight` whose turn has come (zero when the run's time is
    /// spent).
    pub fn take(&self, weight: u64) -> Duration {
        let mut shares = self.state.lock().expect("run budget lock");
        let waiting = shares.waiting.max(weight);
        shares.waiting = waiting - weight;
        let to_end = self.end.saturating_duration_since(Instant::now());
        let share = shares
            .left
            .mul_f64(weight as f64 / waiting as f64)
            .min(self.own)
            .min(to_end);
        shares.left = shares.left.saturating_sub(share);
        share
    }

    /// Gives back what a function given `share` did not use of it.
    pub fn give_back(&self, share: Duration, used: Duration) {
        let mut shares = self.state.lock().expect("run budget lock");
        shares.left += share.saturating_sub(used);
    }
}

/// What [`explore_all_reporting`] says as it goes, from the exploring threads.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// A function's exploration starts: its module and qualified name.
    Started { module: &'a str, qualname: &'a str },
    /// A function's exploration ended.
    Finished,
}

/// [`explore_all`], telling `report` when each function starts and ends (for a progress
/// display; it must not block).
pub fn explore_all_reporting(
    pool: &Pool,
    targets: Vec<ExplorationTarget>,
    facts: &Facts,
    budget: &Budget,
    run_time: Option<Duration>,
    threads: usize,
    report: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<FunctionResult> {
    let obligations = budget.target_obligations;
    let run = run_time.map(|total| {
        let weights = targets
            .iter()
            .map(|t| RunBudget::weight(&t.under_test, obligations))
            .sum();
        RunBudget::new(total, budget.time, threads, weights)
    });
    let queue = Mutex::new(targets.into_iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new(vec![]);
    let memo = ImportMemo::default();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let explorer = std::thread::Builder::new()
                .name("lacuna-explore".into())
                .stack_size(super::EXPLORATION_STACK);
            let spawned = explorer.spawn_scoped(s, || {
                loop {
                    let next = queue.lock().expect("queue lock").pop();
                    let Some((i, target)) = next else {
                        return;
                    };
                    report(Progress::Started {
                        module: &target.under_test.module,
                        qualname: &target.under_test.qualname,
                    });
                    let turn = Instant::now();
                    let share = run.as_ref().map(|r| Share {
                        time: r.take(RunBudget::weight(&target.under_test, obligations)),
                        turn,
                    });
                    let result = explore_target(pool, target, facts, budget, share, &memo);
                    if let (Some(run), Some(share)) = (&run, share) {
                        run.give_back(share.time, turn.elapsed());
                    }
                    report(Progress::Finished);
                    results.lock().expect("results lock").push((i, result));
                }
            });
            spawned.expect("cannot start an exploration thread");
        }
    });
    let mut results = results.into_inner().expect("results lock");
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}
