//! Explanation: for every branch side the generated tests still miss, why — from what the
//! search learned and from the data dependence carried by the symbolic conditions it recorded
//! (Covana's external-call and object-creation problems, plus loop bounds, solver limits and
//! dead code). Decisions never reached inherit the cause of the uncovered side that guards
//! them. Produces diagnostics as plain data; the server and the CLI present them.

mod dead;
mod dependence;
mod external;
mod flow;
mod infeasible;
pub mod mcdc;
pub mod not_explored;
mod reached;
pub mod reading;
mod unreached;

use crate::diagnostic::evidence::{Fact, UncoveredSide};
use crate::diagnostic::{Cause, Code, Diagnostic, Evidence, Related, Severity};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::Exploration;
use lacuna_grammar::{DecisionKind, LineCol, TextRange};

use dead::dead;
pub use dead::{DeadSide, dead_sides};
pub use external::ExternalKind;
use reached::reached;
use unreached::unreached;

/// Per function: branch sides covered, MC/DC obligations per decision, a diagnostic for each
/// side and each obligation that is not covered, and the candidates for Covana's two problems
/// with whether an explanation names them.
pub struct FunctionReport {
    pub covered: usize,
    pub total: usize,
    pub obligations: Vec<mcdc::DecisionObligations>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every external call the exploration reached (Covana's EMCP candidates).
    pub external_calls: Vec<ExternalCandidate>,
    /// Every field of an object input the function reads that only methods change (Covana's
    /// OCP candidates).
    pub object_fields: Vec<FieldCandidate>,
}

/// An external call site reached while exploring a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalCandidate {
    pub callee: String,
    /// The file of the call site, as the agent reported it.
    pub file: Option<String>,
    pub pos: Option<crate::agent::protocol::Position>,
    pub kind: ExternalKind,
    /// Calls made, over all executions.
    pub calls: u32,
    /// Every call raised (or was refused by the sandbox).
    pub raised: bool,
    /// An uncovered side of the function is explained by it.
    pub identified: bool,
}

/// A field of an object input that only methods change, read by a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldCandidate {
    /// `module:Qual`.
    pub class: String,
    pub field: String,
    pub writers: Vec<String>,
    /// An uncovered side of the function is explained by it.
    pub identified: bool,
}

impl FunctionReport {
    /// MC/DC obligations shown and in total.
    pub fn obligations_covered(&self) -> (usize, usize) {
        self.obligations
            .iter()
            .fold((0, 0), |(c, t), d| (c + d.covered, t + d.total))
    }
}

/// Why one side is uncovered: the cause, a clause for the message, the fact it rests on (for
/// code actions and hover), the uncovered side it is only reached through, related locations,
/// and the candidate it names.
#[derive(Clone, Debug)]
struct Explanation {
    cause: Cause,
    why: String,
    fact: Fact,
    /// The decision (ID) of the uncovered side that guards it.
    guard: Option<String>,
    related: Vec<Related>,
    source: Option<Source>,
}

/// The problem an explanation names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Source {
    /// An index into `Exploration::external_calls`.
    External(usize),
    /// (class, field).
    Field(String, String),
}

impl Explanation {
    fn new(cause: Cause, why: impl Into<String>, fact: Fact) -> Self {
        Explanation {
            cause,
            why: why.into(),
            fact,
            guard: None,
            related: vec![],
            source: None,
        }
    }
}

pub fn explain(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    mcdc_config: &crate::config::Mcdc,
) -> FunctionReport {
    let decisions = &f.syntax.decisions;
    let mut explained: Vec<Option<Explanation>> = vec![None; decisions.len() * 2];
    let mut solver = None;
    // Reached decisions first, then the others in source order, so that a guard is explained
    // before what it guards.
    let mut order: Vec<usize> = (0..decisions.len()).collect();
    order.sort_by_key(|&d| (!exploration.reached.contains(&d), decisions[d].range.start));
    for &d in &order {
        if decisions[d].expr.is_none() {
            continue;
        }
        for outcome in [true, false] {
            if exploration.covered.contains_key(&(d, outcome))
                || exploration.unobservable.contains(&d)
            {
                continue;
            }
            let explanation =
                if let Some(proof) = infeasible::prove_dead(f, d, outcome, &mut solver) {
                    dead(f, d, outcome, &proof)
                } else if exploration.reached.contains(&d) {
                    reached(f, exploration, d, outcome)
                } else {
                    unreached(f, exploration, d, &explained)
                };
            explained[2 * d + usize::from(!outcome)] = Some(explanation);
        }
    }
    let mut diagnostics = vec![];
    // Every decision has two branch sides, modelled or not (the static model's count).
    let total = 2 * decisions.len();
    for (d, decision) in decisions.iter().enumerate() {
        if decision.expr.is_none() {
            continue;
        }
        for outcome in [true, false] {
            let Some(e) = explained[2 * d + usize::from(!outcome)].clone() else {
                continue;
            };
            let message = match (decision.kind.is_loop(), outcome) {
                (true, true) => format!("loop never entered: {}", e.why),
                (true, false) => format!("loop never ran out of items: {}", e.why),
                (false, _) => {
                    let side = decision.kind.side_names()[usize::from(!outcome)];
                    format!("{side} branch never taken: {}", e.why)
                }
            };
            let mut diagnostic = Diagnostic::new(
                Code::UncoveredBranch(e.cause),
                decision.range.absolute(f.anchor),
                message,
            );
            diagnostic.function = Some(f.id.to_string());
            diagnostic.related = e.related;
            let mut side = UncoveredSide::new(e.cause, decision.id.as_str(), outcome, e.fact);
            side.guard = e.guard;
            diagnostic.evidence = Some(Evidence::Side(side));
            if decision.kind == DecisionKind::Assert && !outcome {
                // An assertion that never fails is doing its job.
                diagnostic.severity = Severity::Hint;
            }
            diagnostics.push(diagnostic);
        }
    }
    let obligations = mcdc::decisions(f, exploration, mcdc_config, &mut solver);
    diagnostics.extend(mcdc::diagnostics(f, exploration, &obligations));
    let sources: Vec<&Source> = explained
        .iter()
        .flatten()
        .filter_map(|e| e.source.as_ref())
        .collect();
    FunctionReport {
        covered: exploration.covered.len(),
        total,
        obligations,
        diagnostics,
        external_calls: external_candidates(exploration, &sources),
        object_fields: field_candidates(f, exploration, &sources),
    }
}

fn external_candidates(exploration: &Exploration, named: &[&Source]) -> Vec<ExternalCandidate> {
    exploration
        .external_calls
        .iter()
        .enumerate()
        // A side effect the sandbox refused is not a call; the call that made it is.
        .filter(|(_, c)| c.blocked.is_none())
        .map(|(i, c)| ExternalCandidate {
            callee: c.callee.clone(),
            file: c.file.clone(),
            pos: c.pos,
            kind: ExternalKind::of(&c.callee),
            calls: c.calls,
            raised: c.raised,
            identified: named.contains(&&Source::External(i)),
        })
        .collect()
}

fn field_candidates(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    named: &[&Source],
) -> Vec<FieldCandidate> {
    let through_methods = flow::receiver_fields(f);
    let mut out: Vec<FieldCandidate> = vec![];
    for (root, class) in &exploration.object_classes {
        let mut fields: Vec<(&String, &Vec<String>)> = exploration
            .writers
            .iter()
            .filter(|((c, _), _)| c == class)
            .map(|((_, field), writers)| (field, writers))
            .filter(|(field, _)| {
                // The receiver's fields it reads, directly or through its other methods;
                // another parameter's, directly (as the syntax layer recorded them).
                if root == "self" {
                    through_methods.contains(*field)
                } else {
                    f.syntax
                        .param_field_reads
                        .iter()
                        .any(|r| r.param == root.as_str() && r.field == field.as_str())
                }
            })
            .collect();
        fields.sort();
        for (field, writers) in fields {
            if out.iter().any(|c| c.class == *class && c.field == *field) {
                continue;
            }
            out.push(FieldCandidate {
                class: class.clone(),
                field: field.clone(),
                writers: writers.clone(),
                identified: named.contains(&&Source::Field(class.clone(), field.clone())),
            });
        }
    }
    out
}

fn quoted(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// An access path as a developer would write it: `order.__init__.customer._orders.__len__` →
/// `len(order.customer._orders)`.
pub fn display_path(path: &str) -> String {
    let mut parts: Vec<&str> = path.split('.').collect();
    let mut i = 0;
    while i < parts.len() {
        if parts[i] == "__init__" && i + 1 < parts.len() {
            parts.remove(i);
        } else {
            i += 1;
        }
    }
    let len = parts.last() == Some(&"__len__");
    if len {
        parts.pop();
    }
    let joined = parts.join(".");
    if len {
        format!("len({joined})")
    } else {
        joined
    }
}

fn position_range(
    f: &FunctionUnderTest,
    pos: Option<crate::agent::protocol::Position>,
) -> Option<TextRange> {
    let pos = pos?;
    let start = f.lines.offset(LineCol {
        line: pos.0.checked_sub(1)?,
        col: pos.1?,
    })?;
    let end = f.lines.offset(LineCol {
        line: pos.2.checked_sub(1)?,
        col: pos.3?,
    })?;
    Some(TextRange::new(start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::protocol::Position;
    use crate::explore::exploration::{Attempt, ExternalCallSeen};

    use super::flow::tests::function;

    fn call(callee: &str, line: u32, cols: (u32, u32), raised: bool) -> ExternalCallSeen {
        ExternalCallSeen {
            callee: callee.into(),
            file: Some("m.py".into()),
            pos: Some(Position(line, Some(cols.0), line, Some(cols.1))),
            arg_vars: vec![],
            returned_symbol: !raised,
            raised,
            then_raised: raised,
            blocked: None,
            calls: 3,
            returns: Default::default(),
            mocked: false,
        }
    }

    fn causes(report: &FunctionReport) -> Vec<(String, &'static str)> {
        report
            .diagnostics
            .iter()
            .map(|d| {
                let side = d.evidence.as_ref().and_then(Evidence::side).unwrap();
                (side.side.to_string(), d.code.cause().unwrap().as_str())
            })
            .collect()
    }

    #[test]
    fn a_loop_of_a_method_whose_receiver_never_built_is_blamed_on_the_receiver() {
        let text = r#"
class Checker:
    def remove(self, *types):
        for each in types:
            self.forget(each)
        return self
"#;
        let f = function(text, "remove");
        let exploration = Exploration {
            executions: 220,
            unbuilt: Some(crate::explore::exploration::Unbuilt {
                runs: 220,
                error: "m:Checker(...) raised TypeError: 'int' object is not iterable".into(),
                class: Some("m:Checker".into()),
            }),
            ..Exploration::default()
        };
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(report.diagnostics.len(), 2);
        for d in &report.diagnostics {
            assert!(
                d.message
                    .contains("never reached: no `Checker` could be built"),
                "{}",
                d.message
            );
            assert_eq!(d.code.cause(), Some(Cause::ObjectCreation));
        }
    }

    /// Runs that raised before the function's first decision say what they raised and where:
    /// the most frequent first, a line of another file named by that file.
    #[test]
    fn decisions_no_run_got_to_say_what_the_runs_raised_before_them() {
        use crate::explore::exploration::FailingAlike;
        let text = r#"
def retry(wait_gen, predicate):
    wait = start(wait_gen)
    if predicate(wait):
        return 1
    return 0
"#;
        let f = function(text, "retry");
        let mut exploration = Exploration {
            executions: 30,
            ..Exploration::default()
        };
        let failure = |exception: &str, line, file: Option<&str>| FailingAlike {
            exception: exception.into(),
            line: Some(line),
            file: file.map(Into::into),
            runs: 1,
        };
        for _ in 0..20 {
            exploration.count_undecided(
                "TypeError",
                failure(
                    "TypeError: 'SymInt' object is not callable",
                    29,
                    Some("_common.py"),
                ),
            );
        }
        for _ in 0..3 {
            exploration.count_undecided("KeyError", failure("KeyError: 'x'", 3, Some("m.py")));
        }
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(report.diagnostics.len(), 2);
        for d in &report.diagnostics {
            assert_eq!(d.code.cause(), Some(Cause::Budget));
            assert!(
                d.message.ends_with(
                    "never reached: no run got to the function's first decision; of 30 runs, \
                     20 raised `TypeError: 'SymInt' object is not callable` at line 29 of \
                     `_common.py`, 3 `KeyError: 'x'` at line 3"
                ),
                "{}",
                d.message
            );
        }
        // Once a run got to a decision, the runs before it say nothing of those not reached.
        exploration.reached.insert(0);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert!(
            report
                .diagnostics
                .iter()
                .all(|d| !d.message.contains("no run got to")),
            "{:?}",
            report.diagnostics
        );
    }

    #[test]
    fn decisions_after_a_call_that_always_raised_are_blamed_on_it() {
        let text = r#"
import urllib.request

def fetch(url: str) -> int:
    response = urllib.request.urlopen(url)
    if response.status == 200:
        return 1
    return 0
"#;
        let f = function(text, "fetch");
        let exploration = Exploration {
            external_calls: vec![call("urllib.request.urlopen", 5, (15, 41), true)],
            ..Exploration::default()
        };
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(
            causes(&report),
            vec![
                ("true".to_owned(), "external-call"),
                ("false".to_owned(), "external-call")
            ]
        );
        assert_eq!(
            report.diagnostics[0].code,
            Code::UncoveredBranch(Cause::ExternalException)
        );
        assert!(report.external_calls[0].identified);
    }

    #[test]
    fn decisions_on_what_a_call_returned_are_blamed_on_it_when_every_run_raised_after_it() {
        let text = r#"
import json
import time

def quota(document: str) -> int:
    started = time.time()
    account = json.loads(document)
    if account["quota"] > 10000:
        return 1
    return 0
"#;
        let f = function(text, "quota");
        // Neither call raised every time, but every run raised after each returned.
        let mut calls = vec![
            call("time.time", 6, (14, 25), false),
            call("json.loads", 7, (14, 34), false),
        ];
        for c in &mut calls {
            c.then_raised = true;
        }
        let exploration = Exploration {
            external_calls: calls.clone(),
            ..Exploration::default()
        };
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(
            causes(&report),
            vec![
                ("true".to_owned(), "external-call"),
                ("false".to_owned(), "external-call")
            ]
        );
        // The one the decision reads is named, not the clock before it.
        assert!(report.external_calls[1].identified);
        assert!(!report.external_calls[0].identified);
        assert!(report.diagnostics[0].message.contains("json.loads"));
        // A call whose value the decision does not read is not blamed.
        let exploration = Exploration {
            external_calls: vec![calls[0].clone()],
            ..Exploration::default()
        };
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(
            causes(&report),
            vec![
                ("true".to_owned(), "budget"),
                ("false".to_owned(), "budget")
            ]
        );
    }

    #[test]
    fn a_side_every_path_rules_out_is_infeasible() {
        let text = r#"
def port(p: int) -> int:
    if p > 65535:
        raise ValueError(p)
    if p > 70000:
        return 0
    return p
"#;
        let f = function(text, "port");
        let mut exploration = Exploration::default();
        exploration.reached.extend([0, 1]);
        for side in [(0, true), (0, false), (1, false)] {
            exploration.covered.insert(side, 0);
        }
        exploration.attempts.insert((1, true), vec![Attempt::Unsat]);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(causes(&report), vec![("true".to_owned(), "infeasible")]);
        // With a path before it left unexplored, it is only the budget.
        exploration.covered.remove(&(0, true));
        exploration
            .attempts
            .insert((0, true), vec![Attempt::Diverged]);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(
            causes(&report),
            vec![("true".to_owned(), "budget"), ("true".to_owned(), "budget")]
        );
    }

    #[test]
    fn an_assertion_on_values_chosen_between_literals_cannot_fail() {
        let text = r#"
def priority(express: bool) -> str:
    level = "high" if express else "normal"
    assert level in ("high", "normal")
    return level
"#;
        let f = function(text, "priority");
        let mut exploration = Exploration::default();
        exploration.reached.extend([0, 1]);
        for side in [(0, true), (0, false), (1, true)] {
            exploration.covered.insert(side, 0);
        }
        exploration
            .attempts
            .insert((1, false), vec![Attempt::ConcreteOnly]);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(causes(&report), vec![("false".to_owned(), "infeasible")]);
    }

    #[test]
    fn a_condition_on_a_parameter_the_agent_lost_is_a_solver_limit() {
        let text = r#"
def version(text: str) -> int:
    parts = text.split(".")
    if len(parts) == 3:
        return 3
    return 2
"#;
        let f = function(text, "version");
        let mut exploration = Exploration::default();
        exploration.reached.insert(0);
        exploration.covered.insert((0, false), 0);
        exploration
            .attempts
            .insert((0, true), vec![Attempt::ConcreteOnly]);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(causes(&report), vec![("true".to_owned(), "solver-limit")]);
        assert!(report.diagnostics[0].message.contains("`text`"));
    }

    #[test]
    fn calls_in_a_helper_of_the_same_file_are_found() {
        let text = r#"
import logging

def _read_release() -> str:
    try:
        with open("/etc/release") as fh:
            return fh.read()
    except OSError:
        return ""

def channel() -> str:
    logging.info("channel")
    release = _read_release()
    if release.startswith("beta"):
        return "beta"
    return "stable"
"#;
        let f = function(text, "channel");
        let mut exploration = Exploration {
            external_calls: vec![
                call("open", 6, (13, 32), true),
                call("logging.info", 12, (4, 27), false),
            ],
            ..Exploration::default()
        };
        exploration.reached.insert(0);
        exploration.covered.insert((0, false), 0);
        exploration
            .attempts
            .insert((0, true), vec![Attempt::ConcreteOnly]);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(causes(&report), vec![("true".to_owned(), "external-call")]);
        assert_eq!(
            report.diagnostics[0]
                .evidence
                .as_ref()
                .and_then(Evidence::fact)
                .and_then(Fact::callee),
            Some("open")
        );
        assert!(!report.external_calls[1].identified);
    }

    #[test]
    fn object_state_is_found_through_locals() {
        let text = r#"
class Cache:
    def rate(self) -> float:
        total = self._hits + self._misses
        if total == 0:
            return 0.0
        return 1.0
"#;
        let f = function(text, "rate");
        let mut exploration = Exploration::default();
        exploration.reached.insert(0);
        exploration.covered.insert((0, true), 0);
        exploration
            .attempts
            .insert((0, false), vec![Attempt::ConcreteOnly]);
        exploration
            .object_classes
            .insert("self".into(), "m:Cache".into());
        exploration
            .writers
            .insert(("m:Cache".into(), "_misses".into()), vec!["get".into()]);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(
            causes(&report),
            vec![("false".to_owned(), "object-creation")]
        );
        assert_eq!(
            report.object_fields,
            vec![FieldCandidate {
                class: "m:Cache".into(),
                field: "_misses".into(),
                writers: vec!["get".into()],
                identified: true,
            }]
        );
    }

    #[test]
    fn the_call_that_reads_the_world_is_named_not_a_constructor_beside_it() {
        let text = r#"
import datetime

def days() -> int:
    today = datetime.date.today()
    days = (today - datetime.date(1970, 1, 1)).days
    if days < 0:
        raise RuntimeError("before 1970")
    return days
"#;
        let f = function(text, "days");
        let mut exploration = Exploration {
            external_calls: vec![
                call("datetime.date.today", 5, (12, 33), false),
                call("datetime.date", 6, (20, 44), false),
                call("logging.Logger.debug", 9, (4, 20), false),
            ],
            ..Exploration::default()
        };
        exploration.reached.insert(0);
        exploration.covered.insert((0, false), 0);
        exploration
            .attempts
            .insert((0, true), vec![Attempt::ConcreteOnly]);
        let report = explain(&f, &exploration, &crate::config::Mcdc::default());
        assert_eq!(causes(&report), vec![("true".to_owned(), "external-call")]);
        let identified: Vec<&str> = report
            .external_calls
            .iter()
            .filter(|c| c.identified)
            .map(|c| c.callee.as_str())
            .collect();
        assert_eq!(identified, vec!["datetime.date.today"]);
        assert_eq!(report.external_calls.len(), 3);
    }

    #[test]
    fn paths_read_like_python() {
        assert_eq!(
            display_path("order.__init__.customer._orders.__len__"),
            "len(order.customer._orders)"
        );
        assert_eq!(display_path("self.status"), "self.status");
    }
}
