//! The JSON document of `lacuna check --format json`, documented in `docs/json-output.md`.
//! Fields are only ever added, never renamed or removed; `version` changes if that ever has to.

use super::check::CheckedFile;
use lacuna_analysis::diagnostic::Diagnostic;
use lacuna_grammar::{FunctionKind, LineIndex, TextRange};
use serde::Serialize;

pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    lacuna: &'static str,
    mode: &'static str,
    files: Vec<File<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct File<'a> {
    path: String,
    functions: Vec<Function<'a>>,
    diagnostics: Vec<JsonDiagnostic<'a>>,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    kind: &'static str,
    line: u32,
    branches: Total,
    decisions: usize,
    conditions: usize,
    obligations: Total,
    fingerprint: String,
}

#[derive(Serialize)]
struct Total {
    total: usize,
}

#[derive(Serialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    kind: &'static str,
    code: &'static str,
    name: &'static str,
    severity: &'static str,
    #[serde(flatten)]
    position: Position,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<&'a str>,
}

#[derive(Serialize, Default)]
struct Summary {
    files: usize,
    functions: usize,
    branches: usize,
    decisions: usize,
    conditions: usize,
    obligations: usize,
    diagnostics: usize,
}

/// 1-based lines and 1-based columns counted in characters.
pub fn position(text: Option<&str>, lines: &LineIndex, range: TextRange) -> Position {
    let at = |offset: u32| {
        let lc = lines.line_col(offset);
        let column = match (text, lines.line_range(lc.line)) {
            (Some(text), Some(line)) => {
                let start = line.start as usize;
                let end = (start + lc.col as usize).min(text.len());
                text.get(start..end)
                    .map_or(lc.col, |s| s.chars().count() as u32)
            }
            _ => lc.col,
        };
        (lc.line + 1, column + 1)
    };
    let (line, column) = at(range.start);
    let (end_line, end_column) = at(range.end);
    Position {
        line,
        column,
        end_line,
        end_column,
    }
}

fn diagnostic<'a>(file: &CheckedFile, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        kind: d.code.kind(),
        code: d.code.as_str(),
        name: d.code.name(),
        severity: d.severity.as_str(),
        position: position(file.text.as_deref(), &file.lines, d.range),
        message: &d.message,
        function: d.function.as_deref(),
    }
}

pub fn print(files: &[CheckedFile]) -> anyhow::Result<()> {
    let mut summary = Summary::default();
    let files: Vec<File<'_>> = files
        .iter()
        .map(|f| {
            summary.files += 1;
            summary.diagnostics += f.report.diagnostics.len();
            File {
                path: f.display.to_string_lossy().into_owned(),
                functions: f
                    .report
                    .functions
                    .iter()
                    .map(|s| {
                        summary.functions += 1;
                        summary.branches += s.model.branch_sides;
                        summary.decisions += s.model.decisions;
                        summary.conditions += s.model.conditions;
                        summary.obligations += s.model.obligations;
                        Function {
                            name: s.id.as_str(),
                            kind: match s.kind {
                                FunctionKind::Module => "module",
                                FunctionKind::ClassBody => "class",
                                FunctionKind::Def => "function",
                            },
                            line: s.line,
                            branches: Total {
                                total: s.model.branch_sides,
                            },
                            decisions: s.model.decisions,
                            conditions: s.model.conditions,
                            obligations: Total {
                                total: s.model.obligations,
                            },
                            fingerprint: format!("{:016x}", s.fingerprint),
                        }
                    })
                    .collect(),
                diagnostics: f
                    .report
                    .diagnostics
                    .iter()
                    .map(|d| diagnostic(f, d))
                    .collect(),
            }
        })
        .collect();
    let document = Document {
        version: VERSION,
        lacuna: env!("CARGO_PKG_VERSION"),
        mode: "static",
        files,
        summary,
    };
    let stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(stdout, &document)?;
    println!();
    Ok(())
}
