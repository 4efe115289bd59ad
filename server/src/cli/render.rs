//! Human output of `lacuna check`: per function counts, then each diagnostic with its source
//! snippet, rustc style.

use super::check::CheckedFile;
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use lacuna_analysis::diagnostic::{Diagnostic, Severity};
use std::io::{IsTerminal, Write};

pub fn print(files: &[CheckedFile]) {
    let mut out = std::io::stdout().lock();
    let renderer = if std::io::stdout().is_terminal() {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let (mut functions, mut branches, mut obligations, mut diagnostics) = (0, 0, 0, 0);
    let (mut covered, mut shown, mut generated_any) = (0, 0, false);
    for file in files {
        if file.report.functions.is_empty() && file.diagnostics().is_empty() {
            continue;
        }
        let _ = writeln!(out, "{}", file.display.display());
        for f in &file.report.functions {
            functions += 1;
            branches += f.model.branch_sides;
            obligations += f.model.obligations;
            let generated = file.generated.iter().find(|g| g.id == f.id.as_str());
            if let Some(g) = generated {
                generated_any = true;
                covered += g.covered;
                shown += g.obligations.0;
            }
            let coverage = match generated {
                Some(g) if g.failure.is_none() => format!(
                    "{}/{} branch sides covered ({} executions, {} tests, {} ms), ",
                    g.covered, g.total, g.executions, g.tests, g.time_ms
                ),
                Some(g) => format!(
                    "not explored: {}, ",
                    g.failure.as_deref().unwrap_or("unknown failure")
                ),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {}:{}  {coverage}{} branch sides, {} decisions, {} conditions, {} MC/DC obligations",
                f.id,
                f.line,
                f.model.branch_sides,
                f.model.decisions,
                f.model.conditions,
                f.model.obligations
            );
        }
        for d in file.diagnostics() {
            diagnostics += 1;
            let _ = writeln!(out, "{}", render_diagnostic(&renderer, file, d));
        }
    }
    let (branches, obligations) = if generated_any {
        (
            format!("{covered}/{branches} branch sides covered"),
            format!("{shown}/{obligations} MC/DC obligations shown"),
        )
    } else {
        (
            format!("{branches} branch sides"),
            format!("{obligations} MC/DC obligations"),
        )
    };
    let _ = writeln!(
        out,
        "\n{} files, {functions} functions, {branches}, {obligations}, {diagnostics} diagnostics",
        files.len()
    );
}

fn render_diagnostic(renderer: &Renderer, file: &CheckedFile, d: &Diagnostic) -> String {
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Information => Level::INFO,
        Severity::Hint => Level::NOTE,
    };
    let path = file.display.to_string_lossy();
    let title = level.primary_title(d.message.as_str()).id(d.code.as_str());
    let Some(text) = file.text.as_deref() else {
        return renderer.render(&[title.element(annotate_snippets::Origin::path(path.as_ref()))]);
    };
    // Only the lines the range covers are handed to the renderer: files can be huge.
    let first = file.lines.line_col(d.range.start).line;
    let last = file.lines.line_col(d.range.end).line;
    let start = file.lines.line_range(first).map_or(0, |r| r.start);
    let end = file
        .lines
        .line_range(last)
        .map_or(text.len() as u32, |r| r.end);
    let excerpt = &text[start as usize..end as usize];
    let span = (d.range.start - start) as usize..(d.range.end - start) as usize;
    renderer.render(&[title.element(
        Snippet::source(excerpt)
            .line_start(first as usize + 1)
            .path(path.as_ref())
            .annotation(AnnotationKind::Primary.span(span)),
    )])
}
