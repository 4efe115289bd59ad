//! `textDocument/diagnostic` (pulled diagnostics): the published diagnostics of the document,
//! converted to LSP, always as a full report.

use super::super::Backend;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

pub(crate) async fn handle(
    backend: &Backend,
    params: DocumentDiagnosticParams,
) -> Result<DocumentDiagnosticReportResult> {
    let published = backend.shared.published.read().expect("published lock");
    let settings = backend
        .shared
        .settings
        .read()
        .expect("settings lock")
        .clone();
    let encoding = backend.shared.encoding();
    let uri = params.text_document.uri;
    let items = published
        .get(&uri)
        .map(|doc| {
            doc.diagnostics
                .iter()
                .filter_map(|d| {
                    crate::lsp::convert::diagnostic(d, &uri, &doc.text, encoding, &settings, &|p| {
                        std::fs::read_to_string(p)
                            .ok()
                            .map(crate::lsp::document::Text::new)
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(DocumentDiagnosticReportResult::Report(
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items,
            },
        }),
    ))
}
