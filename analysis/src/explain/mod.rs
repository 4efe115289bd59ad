//! Explanation: for every branch side the generated tests still miss, why — from what the
//! search learned and from the data dependence carried by the symbolic conditions it recorded
//! (Covana's external-call and object-creation problems, plus loop bounds, solver limits and
//! dead code). Decisions never reached inherit the cause of the uncovered side that guards
//! them. Produces diagnostics as plain data; the server and the CLI present them.

mod external;
mod infeasible;
pub mod mcdc;

use crate::diagnostic::{Cause, Code, Diagnostic, Related, Severity};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::search::{Attempt, Dependency, Exploration};
use lacuna_grammar::{DecisionKind, LineCol, TextRange};
use serde_json::{Value as Json, json};

pub use external::ExternalKind;

/// Per function: branch sides covered, MC/DC obligations per decision, and a diagnostic for
/// each side and each obligation that is not covered.
pub struct FunctionReport {
    pub covered: usize,
    pub total: usize,
    pub obligations: Vec<mcdc::DecisionObligations>,
    pub diagnostics: Vec<Diagnostic>,
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
/// and hover, and related locations.
#[derive(Clone, Debug)]
struct Explanation {
    cause: Cause,
    why: String,
    data: Json,
    related: Vec<Related>,
}

impl Explanation {
    fn new(cause: Cause, why: impl Into<String>, data: Json) -> Self {
        Explanation {
            cause,
            why: why.into(),
            data,
            related: vec![],
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
    let mut total = 0;
    for (d, decision) in decisions.iter().enumerate() {
        if decision.expr.is_none() {
            continue;
        }
        total += 2;
        for outcome in [true, false] {
            let Some(e) = explained[2 * d + usize::from(!outcome)].clone() else {
                continue;
            };
            let side = decision.kind.side_names()[usize::from(!outcome)];
            let mut diagnostic = Diagnostic::new(
                Code::UncoveredBranch(e.cause),
                decision.range.absolute(f.anchor),
                format!("{side} branch never taken: {}", e.why),
            );
            diagnostic.function = Some(f.qualname.clone());
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
    FunctionReport {
        covered: exploration.covered.len(),
        total,
        obligations,
        diagnostics,
    }
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

/// A decision that was evaluated but never went this way.
fn reached(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
    outcome: bool,
) -> Explanation {
    let attempts = exploration
        .attempts
        .get(&(d, outcome))
        .cloned()
        .unwrap_or_default();
    from_attempts(f, exploration, d, &attempts)
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
    if let Some(i) = static_external(f, exploration, d) {
        return external_call(f, exploration, i);
    }
    if let Some(e) = static_object_state(f, exploration, d) {
        return e;
    }
    if attempts.contains(&Attempt::Unsat) {
        return Explanation::new(
            Cause::Budget,
            "negating its condition on the paths explored was unsatisfiable; no other path was found within the budget",
            json!({}),
        );
    }
    if attempts.contains(&Attempt::ConcreteOnly) {
        return Explanation::new(
            Cause::Budget,
            "its condition depends on values the generator could not follow",
            json!({}),
        );
    }
    Explanation::new(Cause::Budget, "not reached within the budget", json!({}))
}

/// A decision never evaluated: the cause of the uncovered side that guards it, when there is
/// one.
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
            e.why = format!(
                "only reached through the {name} branch of line {line}, which is never taken: {}",
                guard.why
            );
        }
        e.data["guard"] = json!(decision.id.as_str());
        return e;
    }
    Explanation::new(
        Cause::Budget,
        "the decision was never reached within the budget",
        json!({}),
    )
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
    if let Some(range) = position_range(f, call.pos) {
        e.related.push(Related {
            path: None,
            range,
            message: format!("`{}` is called here", call.callee),
        });
    }
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
    Some(Explanation::new(
        Cause::ObjectCreation,
        why,
        json!({"class": class, "field": field, "path": path, "writers": writers, "calls_needed": needed}),
    ))
}

/// An external call the condition depends on although no symbol says so (its result was
/// `None`, or not a scalar): a call made inside the condition, or one whose result is assigned
/// to a name the condition reads (`flag = os.environ.get("X")` … `if flag == "1":`).
fn static_external(f: &FunctionUnderTest, exploration: &Exploration, d: usize) -> Option<usize> {
    let decision = &f.syntax.decisions[d];
    let range = decision.range.absolute(f.anchor);
    let own = f.file.to_string_lossy();
    let body = f.syntax.range.absolute(f.anchor);
    exploration
        .external_calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.file.as_deref() == Some(own.as_ref()))
        .find_map(|(i, call)| {
            let at = position_range(f, call.pos)?;
            if range.contains_range(at) {
                return Some(i);
            }
            if !body.contains_range(at) || at.start > range.start {
                return None;
            }
            // `name = ...call...` on the call's line, and `name` read by the condition.
            let line = f.lines.line_range(f.lines.line_col(at.start).line)?;
            let text = f.text.get(line.start as usize..line.end as usize)?;
            let (target, _) = text.split_once('=')?;
            let name = target.trim();
            let is_name = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            let condition = f.text.get(range.start as usize..range.end as usize)?;
            (is_name && contains_word(condition, name)).then_some(i)
        })
}

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let boundary =
            |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        boundary(before) && boundary(after)
    })
}

/// Object state the agent saw only concretely (`self.status is not Status.DRAFT`): found in the
/// condition's text and the class model.
fn static_object_state(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
) -> Option<Explanation> {
    let decision = &f.syntax.decisions[d];
    for condition in &decision.conditions {
        for (root, class) in &exploration.object_classes {
            let prefix = format!("{root}.");
            let mut rest = condition.text.as_str();
            while let Some(i) = rest.find(&prefix) {
                let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
                let field: String = rest[i + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                rest = &rest[i + prefix.len()..];
                if !before_ok || field.is_empty() {
                    continue;
                }
                if let Some(writers) = exploration.writers.get(&(class.clone(), field.clone())) {
                    return object_state(
                        &Dependency::Field {
                            path: format!("{root}.{field}"),
                            class: Some(class.clone()),
                            field,
                            writers: writers.clone(),
                        },
                        None,
                    );
                }
            }
        }
    }
    None
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
    use super::display_path;

    #[test]
    fn paths_read_like_python() {
        assert_eq!(
            display_path("order.__init__.customer._orders.__len__"),
            "len(order.customer._orders)"
        );
        assert_eq!(display_path("self.status"), "self.status");
    }
}
