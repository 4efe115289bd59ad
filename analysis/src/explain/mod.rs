//! Explanation: for every branch side the generated tests still miss, why — from what the
//! search learned and from the data dependence carried by the symbolic conditions it recorded
//! (Covana's external-call and object-creation problems, plus loop bounds, solver limits and
//! dead code). Decisions never reached inherit the cause of the uncovered side that guards
//! them. Produces diagnostics as plain data; the server and the CLI present them.

mod external;
mod flow;
mod infeasible;
pub mod mcdc;
pub mod not_explored;
pub mod reading;

use crate::agent::protocol::Status;
use crate::diagnostic::{Cause, Code, Diagnostic, Related, Severity};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::{Attempt, Dependency, Exploration, Unfinished};
use lacuna_grammar::{DecisionKind, LineCol, TextRange};
use serde_json::{Value as Json, json};

pub use external::ExternalKind;

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

/// Why one side is uncovered: the cause, a clause for the message, the data for code actions
/// and hover, related locations, and the candidate it names.
#[derive(Clone, Debug)]
struct Explanation {
    cause: Cause,
    why: String,
    data: Json,
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
    fn new(cause: Cause, why: impl Into<String>, data: Json) -> Self {
        Explanation {
            cause,
            why: why.into(),
            data,
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
            let mut data = e.data;
            data["cause"] = json!(e.cause.as_str());
            data["decision"] = json!(decision.id.as_str());
            data["side"] = json!(if outcome { "true" } else { "false" });
            diagnostic.data = Some(data);
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

/// A branch side proven dead from the source alone, as `LCN106` claims it: the decision and
/// side, the guards (decision, side) the proof used, and the names it read with the values
/// their reading allows. What a witness search checks.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadSide {
    pub decision: usize,
    pub outcome: bool,
    pub guards: Vec<(usize, bool)>,
    pub names: Vec<(String, reading::Reading)>,
}

/// Every branch side of `f` proven dead from its source, whatever was explored.
pub fn dead_sides(f: &FunctionUnderTest) -> Vec<DeadSide> {
    let mut solver = None;
    let mut out = vec![];
    for (d, decision) in f.syntax.decisions.iter().enumerate() {
        if decision.expr.is_none() {
            continue;
        }
        for outcome in [true, false] {
            if let Some(proof) = infeasible::prove_dead(f, d, outcome, &mut solver) {
                out.push(DeadSide {
                    decision: d,
                    outcome,
                    guards: proof.guards,
                    names: proof.names,
                });
            }
        }
    }
    out
}

/// A side z3 proved dead, with the guards the proof used.
fn dead(f: &FunctionUnderTest, d: usize, outcome: bool, proof: &infeasible::Proof) -> Explanation {
    let decision = &f.syntax.decisions[d];
    let text = |dec: &lacuna_grammar::Decision| {
        let r = dec.range.absolute(f.anchor);
        f.text
            .get(r.start as usize..r.end as usize)
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let needed = |dec: &lacuna_grammar::Decision, side: bool| {
        if side {
            format!("`{}`", text(dec))
        } else {
            format!("`not ({})`", text(dec))
        }
    };
    let mut e = if proof.guards.is_empty() {
        Explanation::new(
            Cause::Infeasible,
            format!("dead: {} can never hold", needed(decision, outcome)),
            json!({"guards": []}),
        )
    } else {
        let guards: Vec<String> = proof
            .guards
            .iter()
            .map(|&(g, side)| {
                let line = f
                    .lines
                    .line_col(f.syntax.decisions[g].range.absolute(f.anchor).start)
                    .line
                    + 1;
                format!("{} (line {line})", needed(&f.syntax.decisions[g], side))
            })
            .collect();
        Explanation::new(
            Cause::Infeasible,
            format!(
                "dead: {} cannot hold where {}",
                needed(decision, outcome),
                guards.join(" and ")
            ),
            json!({"guards": proof.guards.iter().map(|&(g, side)| json!({
                "decision": f.syntax.decisions[g].id.as_str(),
                "side": if side { "true" } else { "false" },
            })).collect::<Vec<_>>()}),
        )
    };
    for &(g, _) in &proof.guards {
        e.related.push(Related {
            path: None,
            range: f.syntax.decisions[g].range.absolute(f.anchor),
            message: "the guard the proof uses".into(),
        });
    }
    e
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
    let body = f.syntax.range.absolute(f.anchor);
    let text = f
        .text
        .get(body.start as usize..body.end as usize)
        .unwrap_or("");
    let through_methods = flow::receiver_fields(f);
    let mut out: Vec<FieldCandidate> = vec![];
    for (root, class) in &exploration.object_classes {
        let mut fields: Vec<(&String, &Vec<String>)> = exploration
            .writers
            .iter()
            .filter(|((c, _), _)| c == class)
            .map(|((_, field), writers)| (field, writers))
            .filter(|(field, _)| {
                reads_field(text, root, field)
                    || (root == "self" && through_methods.contains(field))
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

/// A decision that was evaluated but never went this way.
fn reached(
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
fn unrepeatable(f: &FunctionUnderTest, d: usize) -> Explanation {
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
        json!({"unrepeatable": true, "globals": state}),
    )
}

/// The module globals of `sources` that are no constants: state other calls may change.
fn module_state(f: &FunctionUnderTest, sources: &flow::Sources) -> Vec<String> {
    sources
        .globals
        .iter()
        .filter(|g| reading::constant(&f.text, g).is_none())
        .cloned()
        .collect()
}

/// A side only runs that did not finish took: what ended the run, and the input.
fn unfinished(f: &FunctionUnderTest, run: &Unfinished) -> Explanation {
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
        json!({"run": format!("{:?}", run.status).to_lowercase(), "timeout_ms": ms, "input": call}),
    )
}

/// The cause that what the search tried at decision `d` points to.
fn from_attempts(
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
                json!({"needed": needed, "bound": bound}),
            );
        }
    }
    for attempt in attempts {
        match attempt {
            Attempt::Unknown(why) => {
                return Explanation::new(
                    Cause::SolverLimit,
                    format!("the solver could not decide its condition ({why})"),
                    json!({"reason": why}),
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
                    json!({"operations": ops}),
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
            json!({"parameters": sources.params}),
        );
    }
    if attempts.contains(&Attempt::Unsat) {
        if infeasible(f, exploration, d, attempts, &sources) {
            return Explanation::new(
                Cause::Infeasible,
                "no input can take it: on every path to it, the conditions before it rule it out",
                json!({}),
            );
        }
        return Explanation::new(
            Cause::Budget,
            "negating its condition on the paths explored was unsatisfiable; no other path was found within the budget",
            json!({}),
        );
    }
    if attempts.contains(&Attempt::ConcreteOnly) {
        if infeasible(f, exploration, d, attempts, &sources) {
            return Explanation::new(
                Cause::Infeasible,
                "no input can take it: its condition reads nothing an input, a call or object state changes, and it had the same value on every path",
                json!({}),
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
                json!({"parameters": sources.params}),
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
                json!({"globals": state}),
            );
        }
        let why = if f.syntax.decisions[d].kind.is_loop() {
            "what it iterates over depends on values the generator could not follow"
        } else {
            "its condition depends on values the generator could not follow"
        };
        return Explanation::new(Cause::Budget, why, json!({}));
    }
    Explanation::new(Cause::Budget, "not reached within the budget", json!({}))
}

/// Whether an uncovered side is dead code: no loop could make a later iteration different,
/// every decision before it went both ways — so the paths tried are all the paths there are —,
/// its condition reads no external call and no object state, and either every attempt to
/// negate it was unsatisfiable, or it reads nothing that varies at all (only values chosen
/// between literals, `level = "high" if express else "normal"`).
fn infeasible(
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
            .all(|g| reading::constant(&f.text, g).is_some());
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

/// A decision never evaluated: the cause of the uncovered side that guards it, when there is
/// one; else an external call before it that always raised; else what the loop around it
/// iterates over.
fn unreached(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
    explained: &[Option<Explanation>],
) -> Explanation {
    if let Some((g, side)) = guard_of(f, exploration, d)
        && let Some(guard) = &explained[2 * g + usize::from(!side)]
    {
        let decision = &f.syntax.decisions[g];
        let line = f
            .lines
            .line_col(decision.range.absolute(f.anchor).start)
            .line
            + 1;
        let name = decision.kind.side_names()[usize::from(!side)];
        let mut e = guard.clone();
        if !guard.why.starts_with("only reached through") {
            e.why = match (decision.kind.is_loop(), side) {
                (true, true) => format!(
                    "only reached through the body of the loop of line {line}, which is never entered: {}",
                    guard.why
                ),
                (true, false) => format!(
                    "only reached through the loop of line {line} running out of items, which never happens: {}",
                    guard.why
                ),
                (false, _) => format!(
                    "only reached through the {name} branch of line {line}, which is never taken: {}",
                    guard.why
                ),
            };
        }
        e.data["guard"] = json!(decision.id.as_str());
        return e;
    }
    if let Some(i) = always_raised(f, exploration, d) {
        let mut e = external_call(f, exploration, i);
        let call = &exploration.external_calls[i];
        let line = call.pos.map(|p| p.0).unwrap_or(0);
        e.cause = Cause::ExternalException;
        // A side effect the sandbox refused in that call says why it raised.
        let refused = exploration
            .external_calls
            .iter()
            .find(|c| c.blocked.is_some() && c.pos == call.pos && c.file == call.file);
        e.why = match refused {
            Some(r) => format!(
                "never reached: `{}` (line {line}) raised every time it was called: the sandbox refused `{}` ({})",
                call.callee,
                r.callee,
                r.blocked.as_deref().unwrap_or_default()
            ),
            None if call.raised => format!(
                "never reached: `{}` (line {line}) raised every time it was called",
                call.callee
            ),
            None => format!(
                "never reached: every run raised in `{}` (line {line}) or after it, on what it returned",
                call.callee
            ),
        };
        e.data["raised"] = json!(true);
        return e;
    }
    if let Some(e) = enclosing_loop(f, exploration, d) {
        return e;
    }
    if let Some(e) = never_built(exploration) {
        return e;
    }
    Explanation::new(
        Cause::Budget,
        "the decision was never reached within the budget",
        json!({}),
    )
}

/// No run got past building its inputs: what raised, and for a class, the object that could
/// not be built (a factory in the guidance module builds it).
fn never_built(exploration: &Exploration) -> Option<Explanation> {
    let unbuilt = exploration.unbuilt.as_ref()?;
    if !exploration.tests.is_empty() || unbuilt.runs < exploration.executions {
        return None;
    }
    let runs = unbuilt.runs;
    let error = &unbuilt.error;
    Some(match &unbuilt.class {
        Some(class) => {
            let short = class.split_once(':').map_or(class.as_str(), |(_, q)| q);
            Explanation::new(
                Cause::ObjectCreation,
                format!(
                    "never reached: no `{short}` could be built: every run failed building its inputs (the first: {error}); a factory for `{short}` in the guidance module can build it"
                ),
                json!({"class": class, "error": error, "runs": runs}),
            )
        }
        None => Explanation::new(
            Cause::Budget,
            format!("never reached: every run failed building its inputs (the first: {error})"),
            json!({"error": error, "runs": runs}),
        ),
    })
}

/// An external call that raised every time it was called, or — when none did — one whose value
/// the decision reads and after which every run raised (`account = json.loads(text)` …
/// `if account["quota"] > 10000:`), and stands before decision `d`: in the function, before it;
/// else (a call that raised) reached through a call of another project function.
fn always_raised(f: &FunctionUnderTest, exploration: &Exploration, d: usize) -> Option<usize> {
    let start = f.syntax.decisions[d].range.absolute(f.anchor).start;
    let own = f.file.to_string_lossy();
    let body = f.syntax.range.absolute(f.anchor);
    let calls = |then_raised: bool| -> Vec<(usize, Option<TextRange>)> {
        exploration
            .external_calls
            .iter()
            .enumerate()
            .filter(|(_, c)| (c.raised || then_raised && c.then_raised) && c.calls > 0)
            .map(|(i, c)| {
                let at = (c.file.as_deref() == Some(own.as_ref()))
                    .then(|| position_range(f, c.pos))
                    .flatten()
                    .filter(|r| body.contains_range(*r));
                (i, at)
            })
            .collect()
    };
    // A call that raised itself comes first; one that returned what the code after it never
    // accepted, only when no call raised and the decision reads what it returned.
    let mut raising = calls(false);
    if raising.is_empty() {
        let spans = flow::sources(f, d).spans;
        raising = calls(true)
            .into_iter()
            .filter(|(i, at)| {
                let line = exploration.external_calls[*i].pos.map(|p| p.0);
                at.is_some()
                    && line.is_some_and(|l| {
                        spans
                            .iter()
                            .any(|&(from, to)| (from + 1..=to + 1).contains(&l))
                    })
            })
            .collect();
    }
    // The call a sandbox refusal happened in is the one to name.
    let named = |i: usize| {
        let call = &exploration.external_calls[i];
        if call.blocked.is_none() {
            return i;
        }
        exploration
            .external_calls
            .iter()
            .position(|c| {
                c.blocked.is_none() && c.raised && c.pos == call.pos && c.file == call.file
            })
            .unwrap_or(i)
    };
    raising
        .iter()
        .filter(|(_, at)| at.is_some_and(|r| r.end <= start))
        .max_by_key(|(_, at)| at.map(|r| r.start))
        .or_else(|| raising.iter().find(|(_, at)| at.is_none()))
        .map(|(i, _)| named(*i))
}

/// A decision inside a `for` loop that never iterated: what the loop iterates over.
fn enclosing_loop(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
) -> Option<Explanation> {
    let range = f.syntax.decisions[d].range;
    let lp = f
        .syntax
        .loops
        .iter()
        .filter(|l| l.iter.is_some() && l.range.contains_range(range))
        .min_by_key(|l| l.range.len())?;
    let header = lp.header.absolute(f.anchor);
    let text = f.text.get(header.start as usize..header.end as usize)?;
    let sources = flow::sources_of_text(f, header, text);
    if let Some(i) = static_external(f, exploration, &sources) {
        return Some(external_call(f, exploration, i));
    }
    if let Some(e) = static_object_state(exploration, &sources) {
        return Some(e);
    }
    if !sources.params.is_empty() {
        return Some(Explanation::new(
            Cause::SolverLimit,
            format!(
                "never reached: the loop over {} never ran, and the generator does not model what it iterates over",
                quoted(&sources.params)
            ),
            json!({"parameters": sources.params}),
        ));
    }
    None
}

/// The uncovered decision side that `d` depends on: the innermost side whose code contains
/// `d`, or an earlier `if` whose other side always leaves (`raise`, `return`) and after which
/// `d` stands.
fn guard_of(f: &FunctionUnderTest, exploration: &Exploration, d: usize) -> Option<(usize, bool)> {
    let decisions = &f.syntax.decisions;
    let range = decisions[d].range;
    let inside = decisions
        .iter()
        .enumerate()
        .filter(|(g, _)| *g != d)
        .flat_map(|(g, dec)| dec.sides.iter().map(move |s| (g, s)))
        .filter(|(_, side)| side.target.is_some_and(|t| t.contains_range(range)))
        .min_by_key(|(_, side)| side.target.map(|t| t.len()))
        .map(|(g, side)| (g, side.outcome));
    if let Some((g, side)) = inside
        && !exploration.covered.contains_key(&(g, side))
    {
        return Some((g, side));
    }
    let column = |r: TextRange| f.lines.line_col(r.absolute(f.anchor).start).col;
    let keyword = column(decisions[d].keyword);
    decisions
        .iter()
        .enumerate()
        .filter(|(g, dec)| {
            *g != d
                && matches!(dec.kind, DecisionKind::If | DecisionKind::Elif)
                && dec.range.end < range.start
                && column(dec.keyword) <= keyword
        })
        .filter_map(|(g, dec)| {
            let leaving = dec
                .sides
                .iter()
                .find(|s| s.target.is_some_and(|t| leaves(f, t)))?;
            let other = !leaving.outcome;
            let after = leaving.target?.end <= range.start;
            (after && !exploration.covered.contains_key(&(g, other))).then_some((g, other))
        })
        .next_back()
}

/// Whether a block always leaves the function: its last statement is `raise` or `return`.
fn leaves(f: &FunctionUnderTest, block: TextRange) -> bool {
    let abs = block.absolute(f.anchor);
    let Some(text) = f.text.get(abs.start as usize..abs.end as usize) else {
        return false;
    };
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.starts_with("raise") || l.starts_with("return"))
}

fn external_call(f: &FunctionUnderTest, exploration: &Exploration, index: usize) -> Explanation {
    let call = &exploration.external_calls[index];
    let line = call.pos.map(|p| p.0).unwrap_or(0);
    let kind = ExternalKind::of(&call.callee);
    let why = match kind {
        ExternalKind::Environment => format!(
            "depends on the return value of `{}` (line {line}), which generated inputs cannot control",
            call.callee
        ),
        ExternalKind::Opaque => format!(
            "depends on the return value of `{}` (line {line}), which the solver cannot see into",
            call.callee
        ),
    };
    let mut e = Explanation::new(
        Cause::ExternalCall,
        why,
        json!({
            "callee": call.callee,
            "line": line,
            "external": kind.as_str(),
            "arguments_from_inputs": call.arg_vars,
            "returns": external::return_annotation(&call.callee, &call.returns),
        }),
    );
    if external::is_pure(&call.callee) {
        // Its value follows from its arguments: a mock would replace the code's own logic.
        e.data["pure"] = json!(true);
    }
    let own = f.file.to_string_lossy();
    if call.file.as_deref() == Some(own.as_ref()) {
        if let Some(range) = position_range(f, call.pos) {
            e.related.push(Related {
                path: None,
                range,
                message: format!("`{}` is called here", call.callee),
            });
        }
    } else if let Some(file) = &call.file {
        // Called from another project function: the line is in that file.
        e.data["file"] = json!(file);
    }
    e.source = Some(Source::External(index));
    e
}

/// A condition on object state no constructor argument or setter reaches.
fn object_state(dep: &Dependency, needed: Option<u64>) -> Option<Explanation> {
    let Dependency::Field {
        path,
        class,
        field,
        writers,
    } = dep
    else {
        return None;
    };
    let class_name = class
        .as_deref()
        .map(|c| c.rsplit([':', '.']).next().unwrap_or(c))
        .unwrap_or("the object");
    let shown = display_path(path);
    let why = match (needed, writers.as_slice()) {
        (Some(n), [_, ..]) => format!(
            "needs a `{class_name}` whose `{field}` takes {n} calls of {} to build, more than the generator makes",
            quoted(writers)
        ),
        (_, []) => {
            format!("depends on `{shown}`, which nothing in `{class_name}`'s public API sets")
        }
        (None, _) => format!(
            "depends on `{shown}`; `{class_name}.{field}` is only changed by {}",
            quoted(writers)
        ),
    };
    let mut e = Explanation::new(
        Cause::ObjectCreation,
        why,
        json!({"class": class, "field": field, "path": path, "writers": writers, "calls_needed": needed}),
    );
    e.source = class
        .as_ref()
        .map(|c| Source::Field(c.clone(), field.clone()));
    Some(e)
}

/// An external call the condition depends on although no symbol says so (its result was
/// `None`, or not a scalar, or the value went through operations the agent does not follow):
/// a call made in the condition or in a statement binding what it reads (`flag =
/// os.environ.get("X")` … `if flag == "1":`), the nearest first.
fn static_external(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    sources: &flow::Sources,
) -> Option<usize> {
    let own = f.file.to_string_lossy();
    let body = f.syntax.range.absolute(f.anchor);
    let calls: Vec<(usize, u32)> = exploration
        .external_calls
        .iter()
        .enumerate()
        // A mocked call's value is an input already: it is not what stops the generator.
        .filter(|(_, c)| {
            c.file.as_deref() == Some(own.as_ref()) && c.blocked.is_none() && !c.mocked
        })
        .filter_map(|(i, c)| {
            let at = position_range(f, c.pos)?;
            body.contains_range(at)
                .then(|| (i, f.lines.line_col(at.start).line))
        })
        .collect();
    // Calls that read the world before deterministic ones (`datetime.date.today()` before
    // `datetime.date(1970, 1, 1)` on the same path), the nearest first.
    let kind = |i: usize| ExternalKind::of(&exploration.external_calls[i].callee);
    let direct = [ExternalKind::Environment, ExternalKind::Opaque]
        .into_iter()
        .find_map(|wanted| {
            sources.spans.iter().find_map(|&(start, end)| {
                calls
                    .iter()
                    .find(|&&(i, line)| (start..=end).contains(&line) && kind(i) == wanted)
                    .map(|(i, _)| *i)
            })
        });
    direct.or_else(|| through_helpers(f, exploration, sources))
}

/// An external call made by a function of the same file that the condition's statements
/// call (`release = _read_release()`, where `_read_release` opens a file).
fn through_helpers(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    sources: &flow::Sources,
) -> Option<usize> {
    let own = f.file.to_string_lossy();
    let body = f.syntax.range.absolute(f.anchor);
    let elsewhere: Vec<(usize, TextRange)> = exploration
        .external_calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.file.as_deref() == Some(own.as_ref()) && c.blocked.is_none())
        .filter_map(|(i, c)| Some((i, position_range(f, c.pos)?)))
        .filter(|(_, at)| !body.contains_range(*at))
        .collect();
    if elsewhere.is_empty() {
        return None;
    }
    let module = lacuna_grammar::parse(&f.text);
    let helper_of = |at: TextRange| {
        module
            .functions
            .iter()
            .filter(|g| g.syntax.kind == lacuna_grammar::FunctionKind::Def)
            .filter(|g| g.syntax.range.absolute(g.anchor).contains_range(at))
            .min_by_key(|g| g.syntax.range.len())
            .map(|g| g.syntax.name.clone())
    };
    let kind = |i: usize| ExternalKind::of(&exploration.external_calls[i].callee);
    let spans: Vec<&str> = sources
        .spans
        .iter()
        .filter_map(|&(start, end)| {
            let from = f.lines.line_range(start)?.start;
            let to = f.lines.line_range(end)?.end;
            f.text.get(from as usize..to as usize)
        })
        .collect();
    let called = |name: &str| {
        spans.iter().position(|text| {
            text.match_indices(&format!("{name}(")).any(|(i, _)| {
                text[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            })
        })
    };
    let mut found: Vec<(bool, usize, usize)> = elsewhere
        .iter()
        .filter_map(|&(i, at)| {
            let span = called(&helper_of(at)?)?;
            Some((kind(i) != ExternalKind::Environment, span, i))
        })
        .collect();
    found.sort();
    found.first().map(|&(_, _, i)| i)
}

/// Object state the agent saw only concretely (`self.status is not Status.DRAFT`, or a local
/// bound from a field): a field the condition reads, directly or through the statements
/// before it, that only methods change.
fn static_object_state(exploration: &Exploration, sources: &flow::Sources) -> Option<Explanation> {
    sources.fields.iter().find_map(|(root, field)| {
        let class = exploration.object_classes.get(root)?;
        let writers = exploration.writers.get(&(class.clone(), field.clone()))?;
        object_state(
            &Dependency::Field {
                path: format!("{root}.{field}"),
                class: Some(class.clone()),
                field: field.clone(),
                writers: writers.clone(),
            },
            None,
        )
    })
}

/// Whether `text` reads `root.field` (followed by anything but more of the name).
fn reads_field(text: &str, root: &str, field: &str) -> bool {
    let word = format!("{root}.{field}");
    text.match_indices(&word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'))
            && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
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
    use crate::explore::exploration::ExternalCallSeen;

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
                let data = d.data.as_ref().unwrap();
                (
                    data["side"].as_str().unwrap().to_owned(),
                    d.code.cause().unwrap().as_str(),
                )
            })
            .collect()
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
            report.diagnostics[0].data.as_ref().unwrap()["callee"],
            "open"
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
