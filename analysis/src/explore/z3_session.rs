//! The z3 solvers one exploration (or one solving process) keeps for all its queries: the one
//! that parses SMT-LIB text and the one that checks, each used inside a `push`/`pop` scope so
//! that nothing a query asserted outlives it. Creating a solver and running its first check
//! costs far more than a query on small functions (z3 4.8.12: 5 ms against 0.1 ms; 5.4.1: 1.1
//! ms against 0.06 ms), so a session pays it once. It owns no query logic: `solver` decides
//! what is asked.

use std::sync::OnceLock;

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

    /// Runs `query` with the session's checking solver, empty and limited to `timeout_ms` per
    /// check; whatever `query` asserts is gone when it returns.
    pub fn solving<R>(&mut self, timeout_ms: u64, query: impl FnOnce(&z3::Solver) -> R) -> R {
        let z3 = self.solving.get_or_insert_with(z3::Solver::new);
        let mut params = z3::Params::new();
        params.set_u32("timeout", timeout_ms.min(u64::from(u32::MAX)) as u32);
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
        let sat = session.solving(500, |z3| {
            for t in &terms {
                z3.assert(t);
            }
            z3.check()
        });
        assert_eq!(sat, z3::SatResult::Sat);
        // Nothing of that query is left: the negation alone is satisfiable.
        let negated = session.parse(text)[0].not();
        let alone = session.solving(500, |z3| {
            z3.assert(&negated);
            (z3.check(), z3.get_assertions().len())
        });
        assert_eq!(alone, (z3::SatResult::Sat, 1));
    }
}
