//! Why a decision was never reached: the uncovered side that guards it, the loop it is in, a
//! call that always raised before it, or inputs that could not be built.

use super::dependence::{external_call, static_external, static_object_state};
use super::{Explanation, flow, position_range, quoted};
use crate::diagnostic::Cause;
use crate::diagnostic::evidence::{Fact, Unbuilt, Untracked};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::Exploration;
use lacuna_grammar::{DecisionKind, TextRange};

/// A decision never evaluated: when no run got past building its inputs, that; else the cause
/// of the uncovered side that guards it, when there is one; else an external call before it
/// that always raised; else what the loop around it iterates over.
pub(super) fn unreached(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
    explained: &[Option<Explanation>],
) -> Explanation {
    // Nothing of the function ran: no loop, guard or call explains anything.
    if let Some(e) = never_built(exploration) {
        return e;
    }
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
        e.guard = Some(decision.id.as_str().to_owned());
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
        if let Fact::ExternalCall(call) = &mut e.fact {
            call.raised = true;
        }
        return e;
    }
    if let Some(e) = raised_before_any_decision(f, exploration) {
        return e;
    }
    if let Some(e) = enclosing_loop(f, exploration, d) {
        return e;
    }
    Explanation::new(
        Cause::Budget,
        "the decision was never reached within the budget",
        Fact::Unspecific {},
    )
}

/// No run reached any decision of the function, and the runs raised before the first one:
/// what they raised, where, and how many did.
fn raised_before_any_decision(
    f: &FunctionUnderTest,
    exploration: &Exploration,
) -> Option<Explanation> {
    let first = exploration.undecided.first()?;
    if !exploration.reached.is_empty() || !exploration.tests.is_empty() {
        return None;
    }
    let dir = f.file.parent().unwrap_or(std::path::Path::new(""));
    // ` at line 28`, or ` at line 28 of `_common.py`` for a file other than the function's.
    let place = |failure: &crate::explore::exploration::FailingAlike| {
        let Some(line) = failure.line else {
            return String::new();
        };
        match failure.file.as_deref().map(std::path::Path::new) {
            Some(file) if file != f.file => {
                let shown = file.strip_prefix(dir).unwrap_or(file);
                format!(" at line {line} of `{}`", shown.display())
            }
            _ => format!(" at line {line}"),
        }
    };
    let mut why = format!(
        "never reached: no run got to the function's first decision; of {} runs, {} raised `{}`{}",
        exploration.executions,
        first.runs,
        first.exception,
        place(first)
    );
    for other in &exploration.undecided[1..] {
        why.push_str(&format!(
            ", {} `{}`{}",
            other.runs,
            other.exception,
            place(other)
        ));
    }
    Some(Explanation::new(Cause::Budget, why, Fact::Unspecific {}))
}

/// No run got past building its inputs: what raised, and for a class, the object that could
/// not be built (a factory in the guidance module builds it).
pub(super) fn never_built(exploration: &Exploration) -> Option<Explanation> {
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
                Fact::Unbuilt(Unbuilt {
                    class: Some(class.clone()),
                    error: error.clone(),
                    runs,
                }),
            )
        }
        None => Explanation::new(
            Cause::Budget,
            format!("never reached: every run failed building its inputs (the first: {error})"),
            Fact::Unbuilt(Unbuilt {
                class: None,
                error: error.clone(),
                runs,
            }),
        ),
    })
}

/// An external call that raised every time it was called, or — when none did — one whose value
/// the decision reads and after which every run raised (`account = json.loads(text)` …
/// `if account["quota"] > 10000:`), and stands before decision `d`: in the function, before it;
/// else (a call that raised) reached through a call of another project function.
pub(super) fn always_raised(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
) -> Option<usize> {
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
pub(super) fn enclosing_loop(
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
    let sources = flow::sources_at(f, lp.header);
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
            Fact::Untracked(Untracked {
                parameters: sources.params,
            }),
        ));
    }
    None
}

/// The uncovered decision side that `d` depends on: the innermost side whose code contains
/// `d`, or an earlier `if` whose other side always leaves (`raise`, `return`) and after which
/// `d` stands.
pub(super) fn guard_of(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
) -> Option<(usize, bool)> {
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
pub(super) fn leaves(f: &FunctionUnderTest, block: TextRange) -> bool {
    f.own_flow().block_leaves(block)
}
