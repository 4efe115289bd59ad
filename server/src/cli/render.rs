//! Human output of `lacuna check`: per function counts, then each diagnostic with its source
//! snippet, rustc style.

use super::report::{CheckedFile, StoppedBy, Totals};
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use lacuna_analysis::diagnostic::{Diagnostic, Severity};
use std::io::{IsTerminal, Write};

/// Whether text output is coloured: `NO_COLOR` (set and not empty) never; `FORCE_COLOR` or
/// `CLICOLOR_FORCE` (set, not empty and not `0`) always; otherwise when standard output is a
/// terminal.
pub fn colour(terminal: bool) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    let forced = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if set("NO_COLOR") {
        false
    } else if forced("FORCE_COLOR") || forced("CLICOLOR_FORCE") {
        true
    } else {
        terminal
    }
}

pub fn print(files: &[CheckedFile]) {
    let mut out = std::io::stdout().lock();
    let renderer = if colour(std::io::stdout().is_terminal()) {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let totals = Totals::of(files);
    for file in files {
        if file.functions().next().is_none() && file.diagnostics().is_empty() {
            continue;
        }
        let _ = writeln!(out, "{}", file.display.display());
        let mut without_decisions = 0;
        // Of those, how many got a generated test (None: no generation, as with `--static`).
        let mut tested: Option<usize> = None;
        for f in file.functions() {
            if f.model.decisions == 0 && f.model.handlers == 0 {
                without_decisions += 1;
                if let Some(g) = file
                    .generated(&f.id)
                    .filter(|g| g.stopped_by != StoppedBy::SuiteOnly)
                {
                    let with_test = tested.get_or_insert(0);
                    if g.failure.is_none() && g.tests > 0 {
                        *with_test += 1;
                    }
                }
                continue;
            }
            let figures = file.figures(f);
            let generated = file.generated(&f.id);
            if let Some(g) = generated.filter(|g| g.stopped_by == StoppedBy::SuiteOnly) {
                let (sides, shown) = g.suite.unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  {}:{}  your tests take {sides}/{} branch sides, show {shown}/{} MC/DC obligations ({} decisions, {} conditions)",
                    f.id,
                    f.line,
                    figures.sides,
                    figures.obligations,
                    f.model.decisions,
                    f.model.conditions,
                );
                continue;
            }
            let coverage = match (generated, figures.covered) {
                (Some(g), Some(covered)) if g.failure.is_none() => format!(
                    "{covered}/{} branch sides covered ({} executions, {} tests, {} ms{}), ",
                    figures.sides,
                    g.executions,
                    g.tests,
                    g.time_ms,
                    match (&g.stopped_by, &g.stop_reason) {
                        (StoppedBy::Budget, _) =>
                            "; stopped by the time budget: another run may differ".to_owned(),
                        (_, Some(reason)) => format!("; {reason}"),
                        _ => String::new(),
                    }
                ),
                (Some(g), _) => format!(
                    "not explored: {}, ",
                    g.failure.as_deref().unwrap_or("unknown failure")
                ),
                (None, _) => String::new(),
            };
            let excluded = if figures.excluded > 0 {
                format!(" ({} excluded)", figures.excluded)
            } else {
                String::new()
            };
            let handlers = match (f.model.handlers, generated) {
                (0, _) => String::new(),
                (n, Some(g)) if g.failure.is_none() => {
                    format!(", {}/{n} except blocks entered", g.handlers_entered)
                }
                (n, _) => format!(", {n} except blocks"),
            };
            let _ = writeln!(
                out,
                "  {}:{}  {coverage}{} branch sides{excluded}, {} decisions, {} conditions, {} MC/DC obligations{handlers}",
                f.id,
                f.line,
                figures.sides,
                f.model.decisions,
                f.model.conditions,
                figures.obligations
            );
        }
        if without_decisions > 0 {
            let _ = writeln!(
                out,
                "  {without_decisions} {} without decisions{}",
                if without_decisions == 1 {
                    "function"
                } else {
                    "functions"
                },
                match tested {
                    Some(with_test) => format!(" ({with_test} with a generated test)"),
                    None => String::new(),
                }
            );
        }
        for d in file.diagnostics() {
            let _ = writeln!(out, "{}", render_diagnostic(&renderer, file, d));
        }
    }
    let f = totals.figures;
    let suite_only = files
        .iter()
        .flat_map(|file| &file.generated)
        .any(|g| g.stopped_by == StoppedBy::SuiteOnly);
    let (branches, obligations) = match (f.covered, f.shown) {
        _ if suite_only => {
            let (sides, shown) = files
                .iter()
                .flat_map(|file| &file.generated)
                .filter_map(|g| g.suite)
                .fold((0, 0), |(a, b), (s, o)| (a + s, b + o));
            (
                format!("{sides}/{} branch sides taken by your tests", f.sides),
                format!("{shown}/{} MC/DC obligations shown by them", f.obligations),
            )
        }
        (Some(covered), Some(shown)) => (
            format!("{covered}/{} branch sides covered", f.sides),
            format!("{shown}/{} MC/DC obligations shown", f.obligations),
        ),
        _ => (
            format!("{} branch sides", f.sides),
            format!("{} MC/DC obligations", f.obligations),
        ),
    };
    let excluded = if f.excluded > 0 {
        format!(" ({} excluded)", f.excluded)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "\n{} files, {} functions ({} without decisions), {branches}{excluded}, {obligations}, {} diagnostics",
        totals.files, totals.functions, totals.without_decisions, totals.diagnostics
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
