//! Why a decision the generated inputs reached never went one way: from what the search tried
//! for the side (unsatisfiable, unknown, timed out, model not reproduced, a call that decided
//! it), and whether that makes the side dead.

use super::dependence::{
    external_call, interpreter_facts, object_state, static_external, static_object_state,
};
use super::{Explanation, ExternalKind, flow, quoted, reading};
use crate::agent::protocol::Status;
use crate::diagnostic::Cause;
use crate::diagnostic::evidence::{
    Fact, InterpreterFacts, LoopBound, ModuleState, Undecided, UnfinishedRun, Unmodelled, Untracked,
};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::{Attempt, Dependency, Exploration, Unfinished};
use lacuna_grammar::DecisionKind;

/// A decision that was evaluated but never went this way.
pub(super) fn reached(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
    outcome: bool,
) -> Explanation {
    if let Some(run) = exploration.unfinished.get(&(d, outcome)) {
        return unfinished(f, run);
    }
    let attempts = exploration
        .attempts
        .get(&(d, outcome))
        .cloned()
        .unwrap_or_default();
    let e = from_attempts(f, exploration, d, &attempts);
    // A run took it, so it is no dead code; unless a call the generator can mock or an
    // object's state explains why the run could not repeat it, earlier calls' state does.
    if exploration.unrepeatable.contains(&(d, outcome))
        && !matches!(
            e.cause,
            Cause::ExternalCall | Cause::ExternalException | Cause::ObjectCreation
        )
    {
        return unrepeatable(f, d);
    }
    e
}

/// A side one run of an input took and another run of the same input did not.
pub(super) fn unrepeatable(f: &FunctionUnderTest, d: usize) -> Explanation {
    let state = module_state(f, &flow::sources(f, d));
    let what = if state.is_empty() {
        "state that earlier calls change".to_owned()
    } else {
        format!(
            "module state {}, which earlier calls change",
            quoted(&state)
        )
    };
    Explanation::new(
        Cause::Budget,
        format!(
            "the same input took it on one run and not on another: its condition reads {what}; a test cannot take it reliably"
        ),
        Fact::ModuleState(ModuleState {
            globals: state,
            unrepeatable: true,
        }),
    )
}

/// The module globals of `sources` that are no constants: state other calls may change.
pub(super) fn module_state(f: &FunctionUnderTest, sources: &flow::Sources) -> Vec<String> {
    sources
        .globals
        .iter()
        .filter(|g| reading::constant(f, g).is_none())
        .cloned()
        .collect()
}

/// A side only runs that did not finish took: what ended the run, and the input.
pub(super) fn unfinished(f: &FunctionUnderTest, run: &Unfinished) -> Explanation {
    let call = crate::emit::call_of(&f.qualname, &run.request).map(|(setup, call)| {
        let mut text = setup.join("; ");
        if !text.is_empty() {
            text.push_str("; ");
        }
        text.push_str(&call);
        text
    });
    let input = call
        .as_deref()
        .map(|c| format!(" (`{c}`)"))
        .unwrap_or_default();
    let ms = run.request.timeout_ms;
    let (ended, fix) = match run.status {
        Status::Timeout => (
            format!("timed out after {ms} ms"),
            "raise `execution-timeout-ms`, or mock what it waits for",
        ),
        Status::Memory => (
            "ran out of memory (the worker's `memory-mb` limit)".to_owned(),
            "raise `memory-mb`, or give it smaller inputs in a test of your own",
        ),
        _ => (
            "crashed the worker".to_owned(),
            "write this test by hand, where the crash can be examined",
        ),
    };
    Explanation::new(
        Cause::Budget,
        format!(
            "the only run that takes it{input} {ended}, and a run that does not finish is never kept as a test: {fix}"
        ),
        Fact::Unfinished(UnfinishedRun {
            run: format!("{:?}", run.status).to_lowercase(),
            timeout_ms: ms,
            input: call,
        }),
    )
}

/// The cause that what the search tried at decision `d` points to.
pub(super) fn from_attempts(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
    attempts: &[Attempt],
) -> Explanation {
    // External calls first: the most common and the most actionable.
    for attempt in attempts {
        if let Attempt::Uncontrollable(deps) = attempt
            && let Some(e) = deps.iter().find_map(|dep| match dep {
                Dependency::ExternalCall(i) => Some(external_call(f, exploration, *i)),
                _ => None,
            })
        {
            return e;
        }
    }
    for attempt in attempts {
        match attempt {
            Attempt::Uncontrollable(deps) => {
                if let Some(e) = deps.iter().find_map(|dep| object_state(dep, None)) {
                    return e;
                }
            }
            Attempt::ObjectState(dep, needed) => {
                if let Some(e) = object_state(dep, Some(*needed)) {
                    return e;
                }
            }
            _ => {}
        }
    }
    for attempt in attempts {
        if let Attempt::BoundHit { needed, bound } = attempt {
            return Explanation::new(
                Cause::Boundary,
                format!(
                    "reaching it needs more than {bound} loop iterations (the loop bound); at least {needed} were wanted"
                ),
                Fact::LoopBound(LoopBound {
                    needed: *needed,
                    bound: *bound,
                }),
            );
        }
    }
    for attempt in attempts {
        match attempt {
            Attempt::Unknown(why) => {
                return Explanation::new(
                    Cause::SolverLimit,
                    format!("the solver could not decide its condition ({why})"),
                    Fact::Undecided(Undecided {
                        reason: why.clone(),
                    }),
                );
            }
            Attempt::Unsupported(ops) => {
                return Explanation::new(
                    Cause::SolverLimit,
                    format!(
                        "its condition uses {} the solver does not model",
                        ops.iter()
                            .map(|o| format!("`{o}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    Fact::Unmodelled(Unmodelled {
                        operations: ops.clone(),
                    }),
                );
            }
            _ => {}
        }
    }
    // What the symbols did not say, the function's text may: the calls, fields and
    // parameters the condition reads, through the statements before it.
    let sources = flow::sources(f, d);
    if let Some(i) = static_external(f, exploration, &sources) {
        return external_call(f, exploration, i);
    }
    if let Some(e) = static_object_state(exploration, &sources) {
        return e;
    }
    // A condition that ran without a symbolic form while reading an input: the solver never
    // saw it, whatever it said of the others.
    let unmodelled = exploration.ran_unmodelled(d, f.syntax.decisions[d].conditions.len());
    if unmodelled && !sources.params.is_empty() && !f.syntax.decisions[d].kind.is_loop() {
        let params = quoted(&sources.params);
        return Explanation::new(
            Cause::SolverLimit,
            format!(
                "its condition depends on {params} through operations the generator does not model"
            ),
            Fact::Untracked(Untracked {
                parameters: sources.params,
            }),
        );
    }
    if attempts.contains(&Attempt::Unsat) {
        if infeasible(f, exploration, d, attempts, &sources) {
            return Explanation::new(
                Cause::Infeasible,
                "no input can take it: on every path to it, the conditions before it rule it out",
                Fact::Unspecific {},
            );
        }
        return Explanation::new(
            Cause::Budget,
            "negating its condition on the paths explored was unsatisfiable; no other path was found within the budget",
            Fact::Unspecific {},
        );
    }
    if attempts.contains(&Attempt::ConcreteOnly) {
        if infeasible(f, exploration, d, attempts, &sources) {
            return Explanation::new(
                Cause::Infeasible,
                "no input can take it: its condition reads nothing an input, a call or object state changes, and it had the same value on every path",
                Fact::Unspecific {},
            );
        }
        if !sources.params.is_empty() {
            let params = quoted(&sources.params);
            return Explanation::new(
                Cause::SolverLimit,
                if f.syntax.decisions[d].kind.is_loop() {
                    format!(
                        "what it iterates over depends on {params} through operations the generator does not model"
                    )
                } else {
                    format!(
                        "its condition depends on {params} through operations the generator does not model"
                    )
                },
                Fact::Untracked(Untracked {
                    parameters: sources.params,
                }),
            );
        }
        // The interpreter: a version or platform check is decided by the Python the tests run
        // under, before any input.
        let facts = interpreter_facts(f, &sources);
        if !facts.is_empty() {
            return Explanation::new(
                Cause::ExternalCall,
                format!(
                    "its condition reads {}, which the Python running the tests fixes, not an input: the other side runs only under another Python version or platform",
                    quoted(&facts)
                ),
                Fact::Interpreter(InterpreterFacts {
                    external: ExternalKind::Environment,
                    interpreter: facts,
                }),
            );
        }
        // Module state: a global the condition reads that is no constant (a cache filled on
        // the first call, a flag another function sets). Generated inputs do not set it.
        let state = module_state(f, &sources);
        if !state.is_empty() {
            return Explanation::new(
                Cause::Budget,
                format!(
                    "its condition reads module state {}, which generated inputs do not set: it had the same value on every call",
                    quoted(&state)
                ),
                Fact::ModuleState(ModuleState {
                    globals: state,
                    unrepeatable: false,
                }),
            );
        }
        let why = if f.syntax.decisions[d].kind.is_loop() {
            "what it iterates over depends on values the generator could not follow"
        } else {
            "its condition depends on values the generator could not follow"
        };
        return Explanation::new(Cause::Budget, why, Fact::Unspecific {});
    }
    Explanation::new(
        Cause::Budget,
        "not reached within the budget",
        Fact::Unspecific {},
    )
}

/// Whether an uncovered side is dead code: no loop could make a later iteration different,
/// every decision before it went both ways — so the paths tried are all the paths there are —,
/// its condition reads no external call and no object state, and either every attempt to
/// negate it was unsatisfiable, or it reads nothing that varies at all (only values chosen
/// between literals, `level = "high" if express else "normal"`).
pub(super) fn infeasible(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
    attempts: &[Attempt],
    sources: &flow::Sources,
) -> bool {
    let decisions = &f.syntax.decisions;
    let range = decisions[d].range;
    // A loop's side depends on what the iterable yields, which no reading of its source
    // bounds: never claimed dead.
    if decisions[d].kind.is_loop() {
        return false;
    }
    // Every condition of the decision that runs had a symbolic form: one that ran only as a
    // plain value (`match_expr[0] in "0123456789"`, an operation the recorder does not model)
    // was never asked of the solver on the paths that reached it, so no attempt proves much.
    let modelled = !exploration.ran_unmodelled(d, decisions[d].conditions.len());
    let loops = f.syntax.loops.iter().any(|l| l.range.start < range.start)
        || decisions
            .iter()
            .any(|dec| dec.kind == DecisionKind::While && dec.range.start < range.start);
    let before_settled = decisions.iter().enumerate().all(|(g, dec)| {
        g == d
            || dec.expr.is_none()
            || dec.range.start >= range.start
            || exploration.unobservable.contains(&g)
            || (exploration.covered.contains_key(&(g, true))
                && exploration.covered.contains_key(&(g, false))
                // A compound decision only false because its first condition was: the paths
                // tried are not all the paths there are (`elif x and x[0] in "<>"` never
                // evaluated `x[0]` while `x` was empty).
                && (dec.conditions.len() < 2
                    || (0..dec.conditions.len() as u16).all(|c| {
                        exploration
                            .conditions
                            .get(&(g, c))
                            .is_some_and(|seen| seen.values.len() == 2)
                    })))
    });
    let constant = attempts == [Attempt::ConcreteOnly]
        && sources.params.is_empty()
        && sources.globals.is_empty();
    // The solver read each input as the type the generator gave it: that reading covers every
    // value only when each parameter's annotation names a type the generator models exactly
    // (an unannotated parameter is any object; a float may be NaN, which the solver's reals
    // are not), and the module names the condition reads are constants.
    let exact_inputs = f
        .syntax
        .params
        .iter()
        .filter(|p| !flow::receiver(f, &p.name))
        .all(|p| {
            matches!(
                p.annotation.as_deref().and_then(reading::annotation),
                Some(reading::Reading::Int | reading::Reading::Text)
            )
        })
        && sources
            .globals
            .iter()
            .all(|g| reading::constant(f, g).is_some());
    let refuted = attempts.iter().all(|a| *a == Attempt::Unsat)
        && !attempts.is_empty()
        && modelled
        && !sources.params.is_empty()
        && exact_inputs;
    (refuted || constant)
        && !loops
        && before_settled
        && !exploration.external_calls.iter().any(|c| c.raised)
        && sources.fields.is_empty()
}
