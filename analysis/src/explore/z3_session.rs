//! The z3 solvers one exploration (or one solving process) keeps for all its queries: the one
//! that parses SMT-LIB text and the one that checks, each used inside a `push`/`pop` scope so
//! that nothing a query asserted outlives it. Creating a solver and running its first check
//! costs far more than a query on small functions (z3 4.8.12: 5 ms against 0.1 ms; 5.4.1: 1.1
//! ms against 0.06 ms), so a session pays it once. It owns no query logic: `solver` decides
//! what is asked.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// How far one check may go: z3's wall-clock `timeout`, and, in a reproducible run, its
/// resource limit (`rlimit`: units of z3's own work, the same on every run of a binary
/// however loaded the machine is), which then decides and the timeout is only a safety bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryLimit {
    pub timeout_ms: u64,
    /// 0: none.
    #[serde(default)]
    pub rlimit: u64,
}

impl QueryLimit {
    /// A wall-clock limit alone.
    pub fn time(timeout_ms: u64) -> Self {
        QueryLimit {
            timeout_ms,
            rlimit: 0,
        }
    }
}

/// The solvers of one z3 context. `z3::Solver` is not `Send`: a session lives and dies on the
/// thread (and in the context) of the exploration that made it.
#[derive(Default)]
pub struct Z3Session {
    parser: Option<z3::Solver>,
    solving: Option<z3::Solver>,
}

impl Z3Session {
    /// The assertions `text` (declarations and assertions) holds, parsed by z3. Where this z3
    /// forgets a parse's declarations when its scope is popped (z3 before 4.13 parses each text
    /// in a command context of its own) one parser serves every text; a z3 whose parser keeps
    /// the constants it declared, and refuses to declare them again, gets a parser per text.
    pub fn parse(&mut self, text: &str) -> Vec<z3::ast::Bool> {
        if !parser_forgets_declarations() {
            let parser = z3::Solver::new();
            parser.from_string(text);
            return parser.get_assertions();
        }
        let parser = self.parser.get_or_insert_with(z3::Solver::new);
        parser.push();
        parser.from_string(text);
        let parsed = parser.get_assertions();
        parser.pop(1);
        parsed
    }

    /// Runs `query` with the session's checking solver, empty and limited to `limit` per check
    /// (z3 counts a check's `rlimit` from where its count stands); whatever `query` asserts is
    /// gone when it returns.
    pub fn solving<R>(&mut self, limit: QueryLimit, query: impl FnOnce(&z3::Solver) -> R) -> R {
        let z3 = self.solving.get_or_insert_with(z3::Solver::new);
        let mut params = z3::Params::new();
        let u32_of = |n: u64| n.min(u64::from(u32::MAX)) as u32;
        params.set_u32("timeout", u32_of(limit.timeout_ms));
        params.set_u32("rlimit", u32_of(limit.rlimit));
        z3.set_params(&params);
        z3.push();
        let answer = query(z3);
        z3.pop(1);
        answer
    }
}

/// Whether a parser whose scope is popped can parse the same declarations again: asked of this
/// z3 once per process, by parsing one text twice.
fn parser_forgets_declarations() -> bool {
    static FORGETS: OnceLock<bool> = OnceLock::new();
    *FORGETS.get_or_init(|| {
        let parser = z3::Solver::new();
        (0..2).all(|_| {
            parser.push();
            parser.from_string("(declare-const lacuna_probe Int)\n(assert (> lacuna_probe 0))\n");
            let loaded = parser.get_assertions().len();
            parser.pop(1);
            loaded == 1
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_parses_the_same_declarations_again_and_forgets_what_a_query_asserted() {
        let mut session = Z3Session::default();
        let text = "(declare-const n Int)\n(assert (> n 3))\n(assert (< n 5))\n";
        for _ in 0..3 {
            assert_eq!(session.parse(text).len(), 2);
        }
        let terms = session.parse(text);
        let sat = session.solving(QueryLimit::time(500), |z3| {
            for t in &terms {
                z3.assert(t);
            }
            z3.check()
        });
        assert_eq!(sat, z3::SatResult::Sat);
        // Nothing of that query is left: the negation alone is satisfiable.
        let negated = session.parse(text)[0].not();
        let alone = session.solving(QueryLimit::time(500), |z3| {
            z3.assert(&negated);
            (z3.check(), z3.get_assertions().len())
        });
        assert_eq!(alone, (z3::SatResult::Sat, 1));
    }

    /// A check bounded by z3's work stops where that work is spent, whatever the clock says:
    /// the same answer each time, long before its (safety) timeout.
    #[test]
    fn a_check_bounded_by_work_gives_the_same_answer_each_time() {
        let mut session = Z3Session::default();
        // No cubes sum to 33 this way that z3 4.8 finds: it works until it is stopped.
        let text = "(declare-const x Int)\n(declare-const y Int)\n(declare-const z Int)\n\
                    (assert (= (+ (* x x x) (* y y y) (* z z z)) 33))\n(assert (> x 1000))\n";
        let limit = QueryLimit {
            timeout_ms: 60_000,
            rlimit: 5_000,
        };
        let answers: Vec<_> = (0..3)
            .map(|_| {
                let terms = session.parse(text);
                let started = std::time::Instant::now();
                let answer = session.solving(limit, |z3| {
                    for t in &terms {
                        z3.assert(t);
                    }
                    (z3.check(), z3.get_reason_unknown())
                });
                assert!(started.elapsed() < std::time::Duration::from_secs(30));
                answer
            })
            .collect();
        assert_eq!(answers[0].0, z3::SatResult::Unknown);
        assert!(answers.iter().all(|a| *a == answers[0]), "{answers:?}");
    }
}
