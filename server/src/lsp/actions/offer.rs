//! Offering: the actions for the diagnostics under a range, from the published snapshot; a mock
//! or factory the guidance module already declares is not offered (resolving it would be
//! refused). Each action carries what resolving needs, with the document version it was
//! offered for.

use super::short_class;
use crate::lsp::budget;
use crate::lsp::document::Encoding;
use crate::lsp::guidance::{self, GuidanceText};
use crate::lsp::snapshot::Published;
use lacuna_analysis::diagnostic::evidence::{Fact, ObligationCause};
use lacuna_analysis::diagnostic::{Cause, Code, Evidence};
use serde_json::{Value, json};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
};

/// The actions for the diagnostics under the requested range. `guidance` is the guidance
/// module's current text: a mock or factory it already declares is not offered again (resolving
/// it would be refused).
pub fn offer(
    params: &CodeActionParams,
    doc: &Published,
    guidance: Option<&str>,
) -> Vec<CodeActionOrCommand> {
    let guidance = GuidanceText::read(guidance.unwrap_or(""));
    let accepted = guidance.declared.accepted();
    let range = doc.text.text_range(params.range, Encoding::Utf16);
    let mut out: Vec<CodeActionOrCommand> = vec![];
    let mut seen = std::collections::BTreeSet::new();
    for d in &doc.diagnostics {
        if d.range.end < range.start || d.range.start > range.end {
            continue;
        }
        if d.code == Code::SuspiciousAssertion {
            let Some(suspicious) = d.evidence.as_ref().and_then(Evidence::suspicious) else {
                continue;
            };
            let (function, invariant) = (&suspicious.function, &suspicious.invariant);
            let test = &suspicious.test;
            if !accepted.contains(&(function.clone(), invariant.clone())) {
                let claim = format!("{}: {}", test.name, test.assertion);
                push(
                    &mut out,
                    "Accept this behaviour".to_owned(),
                    json!({"kind": "accept", "function": function, "invariant": invariant, "claim": claim}),
                    params,
                    doc,
                );
            }
            // A test that stands alone under pytest (no mock, no helper of the emitted file).
            let source = test.source.as_str();
            let plain = test.assertion.starts_with("assert result == ")
                && !["monkeypatch", "_mock(", "_returning(", "_entered("]
                    .iter()
                    .any(|h| source.contains(h));
            if plain {
                push(
                    &mut out,
                    "Add this test to the suite as a failing test".to_owned(),
                    json!({
                        "kind": "xfail",
                        "name": test.name,
                        "source": source,
                        "imports": test.imports,
                        "invariant": invariant,
                    }),
                    params,
                    doc,
                );
            }
            continue;
        }
        // An MC/DC obligation blocked like a branch gets the branch's action.
        let cause = match d.code {
            Code::McdcObligation => {
                let obligation = d.evidence.as_ref().and_then(Evidence::obligation);
                match obligation.and_then(|o| o.cause) {
                    Some(ObligationCause::Cause(
                        Cause::ExternalCall | Cause::ExternalException,
                    )) => Some(Cause::ExternalCall),
                    Some(ObligationCause::Cause(Cause::ObjectCreation)) => {
                        Some(Cause::ObjectCreation)
                    }
                    _ => None,
                }
            }
            code => code.cause(),
        };
        let fact = d.evidence.as_ref().and_then(Evidence::fact);
        let mut offers: Vec<(String, Value)> = vec![];
        match cause {
            Some(Cause::ExternalCall | Cause::ExternalException) => {
                let Some(callee) = fact.and_then(Fact::callee) else {
                    continue;
                };
                // A call whose value follows from its arguments (`pathlib.Path(root)`) is not
                // mocked: that would replace the code's own logic, not the world's.
                let pure = matches!(fact, Some(Fact::ExternalCall(call)) if call.pure);
                if pure || guidance.declared.mocks_call(callee) {
                    continue;
                }
                offers.push((
                    format!("Mock `{callee}` in generated tests"),
                    json!({"kind": "mock", "callee": callee, "returns": fact.and_then(Fact::returns)}),
                ));
            }
            Some(Cause::ObjectCreation) => {
                let Some(class) = fact.and_then(Fact::class) else {
                    continue;
                };
                // A factory that exists but does not yet build the state this side needs is
                // extended, not declared again (the hover points at it); a bigger bound may
                // still be offered below.
                let qualname = class.split_once(':').map_or(class, |(_, q)| q);
                let writers = fact.and_then(Fact::writers);
                let wanted: Vec<&str> = writers
                    .unwrap_or_default()
                    .iter()
                    .map(String::as_str)
                    .collect();
                if let Some((factory, _)) = guidance::existing_factory(&guidance, qualname) {
                    // The factory does not call the writers this side needs: it gets them.
                    let found = guidance::Factory::find(&guidance, &factory);
                    let missing = found
                        .as_ref()
                        .map(|f| f.missing(&wanted))
                        .unwrap_or_default();
                    if !missing.is_empty() && found.is_some_and(|f| f.extendable()) {
                        let names: Vec<String> = missing.iter().map(|w| format!("`{w}`")).collect();
                        offers.push((
                            format!(
                                "Extend the `{}` factory `{factory}` with {}",
                                short_class(class),
                                names.join(" and ")
                            ),
                            json!({
                                "kind": "extend",
                                "class": class,
                                "factory": factory,
                                "writers": missing,
                            }),
                        ));
                    }
                } else {
                    offers.push((
                        format!("Create a factory for `{}`", short_class(class)),
                        json!({
                            "kind": "factory",
                            "class": class,
                            "field": fact.and_then(Fact::field),
                            "writers": writers,
                        }),
                    ));
                }
            }
            Some(Cause::Boundary) => {}
            _ => continue,
        }
        // A side that needs more iterations, or more calls of a writer, than the generator
        // makes: the fix is the loop bound.
        let needed = fact.and_then(Fact::needed);
        if let Some(needed) = needed
            && matches!(cause, Some(Cause::ObjectCreation | Cause::Boundary))
        {
            let bound = budget::proposed(needed);
            offers.push((
                format!("Raise the loop bound to {bound} in pyproject.toml"),
                json!({"kind": "loop-bound", "bound": bound}),
            ));
        }
        for (title, payload) in offers {
            if !seen.insert(title.clone()) {
                continue;
            }
            push(&mut out, title, payload, params, doc);
        }
    }
    out
}

/// An offered action: resolved later, against the document version it was offered for.
fn push(
    out: &mut Vec<CodeActionOrCommand>,
    title: String,
    mut payload: Value,
    params: &CodeActionParams,
    doc: &Published,
) {
    payload["uri"] = json!(params.text_document.uri.as_str());
    payload["version"] = json!(doc.version);
    // The mock or factory is the fix; a bigger budget only when nothing else is offered.
    let preferred = payload["kind"] != "loop-bound"
        || !out
            .iter()
            .any(|a| matches!(a, CodeActionOrCommand::CodeAction(_)));
    out.push(CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: None,
        edit: None,
        command: None,
        is_preferred: Some(preferred),
        disabled: None,
        data: Some(payload),
    }));
}
