//! Hover: on an uncovered branch side (or any Lacuna diagnostic), a Markdown explanation — the
//! cause in one sentence, the data-dependence chain with line links, the condition the side
//! needs in Python, the closest generated input, the fix, and a link to the code's page.

use super::actions::short_class;
use super::convert::docs_url;
use super::snapshot::Published;
use lacuna_analysis::diagnostic::evidence::{ExternalKind, Fact, SuiteShows, SuiteView};
use lacuna_analysis::diagnostic::{Cause, Code, Diagnostic, Evidence};
use std::fmt::Write;
use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind, Uri};

/// The guidance module as a hover reads it: its path and current text.
pub struct GuidanceModule<'a> {
    pub path: &'a std::path::Path,
    pub text: &'a str,
}

pub fn hover(
    uri: &Uri,
    published: &Published,
    offset: u32,
    encoding: super::document::Encoding,
    guidance: Option<&GuidanceModule<'_>>,
) -> Option<Hover> {
    let hits: Vec<&Diagnostic> = published
        .diagnostics
        .iter()
        .filter(|d| d.range.start <= offset && offset <= d.range.end)
        .collect();
    let smallest = hits.iter().map(|d| d.range.len()).min()?;
    let hits: Vec<&Diagnostic> = hits
        .into_iter()
        .filter(|d| d.range.len() == smallest)
        .collect();
    let mut out = String::new();
    for (i, d) in hits.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n---\n\n");
        }
        explain(&mut out, d, uri, published, guidance);
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: out,
        }),
        range: Some(published.text.range(hits[0].range, encoding)),
    })
}

/// What the project's own tests show of an uncovered side (`suite` in its evidence): the test
/// that takes it, or the one that comes closest.
fn your_tests(out: &mut String, suite: &SuiteView) {
    let function = &suite.function;
    let calling = match suite.reached {
        1 => format!("1 of your tests calls `{function}`"),
        n => format!("{n} of your tests call `{function}`"),
    };
    if let SuiteShows::Covered { covered_by: test } = &suite.shows {
        let _ = writeln!(
            out,
            "**Your tests.** Covered by your suite: `{test}` takes this side (only the generated tests miss it).\n"
        );
    } else if let SuiteShows::Closest {
        closest: test,
        at_decision,
    } = &suite.shows
    {
        let how = if *at_decision {
            "reached this decision and took the other side".to_owned()
        } else {
            format!(
                "none of them reaches this decision; this one covers the most of `{function}`'s branch sides"
            )
        };
        let _ = writeln!(
            out,
            "**Your tests.** Not covered by your suite either: {calling}, none takes this side. Closest: `{test}` ({how}).\n"
        );
    } else {
        let _ = writeln!(
            out,
            "**Your tests.** Not covered by your suite either: none of your tests calls `{function}`.\n"
        );
    }
}

fn explain(
    out: &mut String,
    d: &Diagnostic,
    uri: &Uri,
    published: &Published,
    guidance: Option<&GuidanceModule<'_>>,
) {
    let _ = writeln!(
        out,
        "**Lacuna `{}`** · {}\n",
        d.code.as_str(),
        d.code.name()
    );
    let _ = writeln!(out, "{}\n", d.message);
    if d.code == Code::SuspiciousAssertion {
        suspicious(out, d);
        let _ = write!(
            out,
            "[`{}` documentation]({})",
            d.code.as_str(),
            docs_url(d.code)
        );
        return;
    }
    if let Some(why) = cause_sentence(d) {
        let _ = writeln!(out, "**Why.** {why}\n");
    }
    if !d.related.is_empty() {
        let line = |r: &lacuna_analysis::diagnostic::Related| {
            let line = published.text.lines.line_col(r.range.start).line + 1;
            let link = match &r.path {
                None => format!("{}#L{line}", uri.as_str()),
                Some(p) => format!("file://{}#L{line}", p.display()),
            };
            format!("[line {line}]({link}): {}", r.message)
        };
        let decision_line = published.text.lines.line_col(d.range.start).line + 1;
        let chain: Vec<String> = d
            .related
            .iter()
            .map(line)
            .chain(std::iter::once(format!(
                "[line {decision_line}]({}#L{decision_line}): the decision",
                uri.as_str()
            )))
            .collect();
        let _ = writeln!(out, "**Data dependence.** {}\n", chain.join(" → "));
    }
    let side = d.evidence.as_ref().and_then(Evidence::side);
    if let Some(needed) = side.and_then(|s| s.needs.as_deref()) {
        let _ = writeln!(out, "**Needed.** A test where\n```python\n{needed}\n```\n");
    }
    if let Some(closest) = side.and_then(|s| s.closest.as_deref()) {
        let _ = writeln!(
            out,
            "**Closest generated input** (reached the decision, took the other side):\n```python\n{closest}\n```\n"
        );
    }
    if let Some(suite) = side.and_then(|s| s.suite.as_ref()) {
        your_tests(out, suite);
    }
    if let Some(obligation) = d.evidence.as_ref().and_then(Evidence::obligation) {
        out.push_str("**Independence shown by the generated tests.**\n\n| condition | as false | as true |\n|---|:---:|:---:|\n");
        let mark = |shown: bool| if shown { "✓" } else { "·" };
        for c in &obligation.shown {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                c.text.replace('|', "\\|"),
                mark(c.as_false),
                mark(c.as_true)
            );
        }
        out.push('\n');
    }
    if let Some(fix) = extend_factory(d, guidance).or_else(|| fix_sentence(d)) {
        let _ = writeln!(out, "**Fix.** {fix}\n");
    }
    let _ = write!(
        out,
        "[`{}` documentation]({})",
        d.code.as_str(),
        docs_url(d.code)
    );
}

/// A suspicious assertion: the invariant with its support, the values your tests produced
/// against the generated one, the input, what to do.
fn suspicious(out: &mut String, d: &Diagnostic) {
    let Some(s) = d.evidence.as_ref().and_then(Evidence::suspicious) else {
        return;
    };
    let text = |v: &str| v.replace('|', "\\|");
    let support = &s.support;
    // The score as the JSON document writes it (`2.0`, `null` when not finite).
    let score = serde_json::Value::from(s.score.0);
    let confidence = Some(support.confidence.0).filter(|c| c.is_finite());
    let _ = writeln!(
        out,
        "**Invariant.** `{}` at the {} of the function: held in {} of {} calls sampled from your passing tests (confidence {:.3}); rank {} of this run's suspicious assertions (score {}).\n",
        text(&s.invariant),
        text(&s.point),
        support.samples,
        support.calls,
        confidence.unwrap_or_default(),
        s.rank,
        score,
    );
    out.push_str("| run | values |\n|---|---|\n");
    for seen in &support.seen {
        let _ = writeln!(out, "| your tests | `{}` |", text(seen));
    }
    let _ = writeln!(out, "| **generated** | `{}` |\n", text(&s.value));
    let _ = writeln!(
        out,
        "**Input.** `{}` (generated test `{}`: `{}`)\n",
        text(&s.input),
        text(&s.test.name),
        text(&s.test.assertion),
    );
    let tests: Vec<String> = support
        .tests
        .iter()
        .take(3)
        .map(|t| format!("`{}`", text(t)))
        .collect();
    if !tests.is_empty() {
        let _ = writeln!(out, "**Supported by** {}\n", tests.join(", "));
    }
    out.push_str("**Fix.** If the generated value is wrong, fix the code: the next save clears this. If it is right, use **Accept this behaviour**, or add a test of this case to your suite.\n\n");
}

/// The fact of an uncovered side or an unmet obligation.
fn fact(d: &Diagnostic) -> Option<&Fact> {
    d.evidence.as_ref().and_then(Evidence::fact)
}

fn cause_sentence(d: &Diagnostic) -> Option<String> {
    let fact = fact(d);
    let callee = fact.and_then(Fact::callee).unwrap_or("the call");
    let class = fact.and_then(Fact::class).map(short_class);
    Some(match d.code.cause()? {
        Cause::ExternalCall => match fact.and_then(Fact::external) {
            Some(ExternalKind::Opaque) => format!(
                "`{callee}` is deterministic but Lacuna does not model it, so the solver cannot choose inputs that make it return what the branch needs."
            ),
            _ => format!(
                "`{callee}` depends on the world outside the inputs (files, clock, randomness, environment), so no generated input controls what it returns."
            ),
        },
        Cause::ExternalException => format!(
            "`{callee}` raised (or the sandbox blocked it) in every execution that reached it, so nothing after it ran."
        ),
        Cause::ObjectCreation if matches!(fact, Some(Fact::Unbuilt(_))) => {
            let error = match fact {
                Some(Fact::Unbuilt(unbuilt)) => unbuilt.error.as_str(),
                _ => "",
            };
            format!(
                "No `{}` could be built: every run failed building its inputs (`{error}`), so the generated inputs never reached the code.",
                class.unwrap_or("the object")
            )
        }
        Cause::ObjectCreation => {
            let field = fact.and_then(Fact::field).unwrap_or("its state");
            format!(
                "The branch depends on `{field}` of a `{}`, which no constructor parameter or public setter sets: only method calls put the object in that state.",
                class.unwrap_or("the object")
            )
        }
        Cause::Boundary => "Reaching it takes more loop iterations, recursion or path length than the exploration budget allows.".to_owned(),
        Cause::SolverLimit => "The solver could not decide the condition (a timeout, non-linear arithmetic or an operation it does not model).".to_owned(),
        Cause::Infeasible => "No input can take this side: the conditions on the path contradict each other.".to_owned(),
        Cause::Budget => "Generation did not reach it within its budget, and nothing more specific is known.".to_owned(),
    })
}

/// On object state whose class the guidance module already has a factory for: that factory,
/// linked, is what to change (declaring another would be refused).
fn extend_factory(d: &Diagnostic, guidance: Option<&GuidanceModule<'_>>) -> Option<String> {
    let fact = fact(d);
    let object = matches!(d.code, Code::UncoveredBranch(Cause::ObjectCreation))
        || (d.code == Code::McdcObligation && fact.and_then(Fact::callee).is_none());
    let class = fact.and_then(Fact::class).filter(|_| object)?;
    let guidance = guidance?;
    let qualname = class.split_once(':').map_or(class, |(_, q)| q);
    let read = super::guidance::GuidanceText::read(guidance.text);
    let (name, range) = super::guidance::existing_factory(&read, qualname)?;
    let line = guidance.text[..range.start as usize].matches('\n').count() + 1;
    let writers: Vec<String> = fact
        .and_then(Fact::writers)
        .unwrap_or_default()
        .iter()
        .map(|m| format!("`{m}`"))
        .collect();
    let through = if writers.is_empty() {
        String::new()
    } else {
        format!(" through {}", writers.join(", "))
    };
    Some(format!(
        "The guidance module's factory [`{name}`](file://{}#L{line}) does not build the `{}` this needs yet: give it a parameter that changes its state{through}, and the generator solves for it.",
        guidance.path.display(),
        short_class(class)
    ))
}

fn fix_sentence(d: &Diagnostic) -> Option<String> {
    let fact = fact(d);
    let callee = fact.and_then(Fact::callee);
    let class = fact.and_then(Fact::class).map(short_class);
    let call = callee.unwrap_or("the call");
    Some(match d.code {
        Code::UncoveredBranch(Cause::ExternalCall | Cause::ExternalException) => format!(
            "Use the code action **Mock `{call}` in generated tests**: the generator then chooses its return value, and the emitted tests apply the mock with `monkeypatch`."
        ),
        Code::UncoveredBranch(Cause::ObjectCreation) => format!(
            "Use the code action **Create a factory for `{}`**: a function in the guidance module that builds it through its public methods, whose parameters the generator solves.",
            class.unwrap_or("the class")
        ),
        Code::UncoveredBranch(Cause::Boundary) => match fact {
            Some(Fact::LoopBound(bound)) => format!(
                "Raise `[tool.lacuna.budget] loop-bound` to at least {}.",
                bound.needed
            ),
            _ => "Raise `[tool.lacuna.budget] loop-bound` (or `path-length`).".to_owned(),
        },
        Code::UncoveredBranch(Cause::SolverLimit) => {
            "Raise `solver-timeout-ms`, or write this test by hand.".to_owned()
        }
        Code::UncoveredBranch(Cause::Infeasible) => {
            "Remove the dead code, or fix the condition that makes it dead.".to_owned()
        }
        Code::UncoveredBranch(Cause::Budget) => {
            "Raise `function-time-ms` or `function-executions` in `[tool.lacuna.budget]`."
                .to_owned()
        }
        Code::McdcObligation if callee.is_some() => format!(
            "Use the code action **Mock `{call}` in generated tests**: the generator then chooses its return value and targets this obligation."
        ),
        Code::McdcObligation if class.is_some() => format!(
            "Use the code action **Create a factory for `{}`**: the generator then builds it in the state this obligation needs.",
            class.unwrap_or("the class")
        ),
        Code::McdcObligation => {
            "Add a test with the condition vector in the message, or raise the generation budget."
                .to_owned()
        }
        Code::McdcInfeasible => "Drop the redundant condition, which removes the obligation; otherwise nothing to do: no test can meet it.".to_owned(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::your_tests;
    use serde_json::json;

    #[test]
    fn what_your_tests_show_of_an_uncovered_side() {
        let cases = [
            json!({"function": "load", "reached": 2, "covered_by": "tests/test_a.py::test_file"}),
            json!({"function": "mode", "reached": 1, "closest": "tests/test_a.py::test_mode", "at_decision": true}),
            json!({"function": "mode", "reached": 3, "closest": "tests/test_a.py::test_most", "at_decision": false}),
            json!({"function": "load", "reached": 0}),
        ];
        let mut out = String::new();
        for case in cases {
            your_tests(&mut out, &serde_json::from_value(case).unwrap());
        }
        insta::assert_snapshot!(out);
    }
}
