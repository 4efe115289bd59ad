//! Lacuna's diagnostics as LSP diagnostics: ranges in the negotiated encoding, the code linked
//! to its documentation page, related locations, severities from the settings, infeasible code
//! tagged unnecessary (editors fade it), and `data` kept for hover and code actions.

use super::document::{Encoding, Text};
use super::settings::Settings;
use lacuna_analysis::diagnostic::{Cause, Code, Diagnostic, Severity};
use std::path::Path;
use tower_lsp_server::ls_types::{
    self as lsp, CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Uri,
};

/// Where the documentation of each code lives.
pub const DOCS: &str = "https://github.com/lacuna-dev/lacuna/blob/main/docs/diagnostics/";

pub fn docs_url(code: Code) -> String {
    format!("{DOCS}{}.md", code.as_str())
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Information => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

/// `None` when the settings turn this family of diagnostics off.
pub fn diagnostic(
    d: &Diagnostic,
    uri: &Uri,
    text: &Text,
    encoding: Encoding,
    settings: &Settings,
    other_file: &dyn Fn(&Path) -> Option<Text>,
) -> Option<lsp::Diagnostic> {
    let level = settings.severity(d.code, d.severity)?;
    let related = d
        .related
        .iter()
        .filter_map(|r| {
            let (uri, range) = match &r.path {
                None => (uri.clone(), text.range(r.range, encoding)),
                Some(path) => (
                    Uri::from_file_path(path)?,
                    other_file(path)?.range(r.range, encoding),
                ),
            };
            Some(DiagnosticRelatedInformation {
                location: Location { uri, range },
                message: r.message.clone(),
            })
        })
        .collect::<Vec<_>>();
    // The edge where the evidence becomes JSON, with the code and function beside it.
    let mut data = d
        .evidence
        .as_ref()
        .map_or_else(|| serde_json::json!({}), |e| e.to_json());
    if let Some(map) = data.as_object_mut() {
        map.insert("code".into(), d.code.as_str().into());
        if let Some(f) = &d.function {
            map.insert("function".into(), f.clone().into());
        }
    }
    Some(lsp::Diagnostic {
        range: text.range(d.range, encoding),
        severity: Some(severity(level)),
        code: Some(NumberOrString::String(d.code.as_str().to_owned())),
        code_description: docs_url(d.code)
            .parse()
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("lacuna".to_owned()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: (d.code == Code::UncoveredBranch(Cause::Infeasible))
            .then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: Some(data),
    })
}
