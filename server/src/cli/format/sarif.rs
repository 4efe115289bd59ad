//! `--format sarif`: a SARIF 2.1.0 log as GitHub code scanning ingests it. One rule per `LCN`
//! code, described from `docs/diagnostics/` (compiled in), one result per diagnostic with its
//! full region, related locations, the path to an uncovered side as a code flow, and
//! fingerprints that survive code moving (function, decision and side; never a line number).

use super::super::json::{Position, position};
use super::super::report::CheckedFile;
use lacuna_analysis::diagnostic::{Code, Diagnostic, Severity};
use serde::Serialize;
use std::collections::BTreeMap;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Where each rule's page is: the documentation of the code.
pub const DOCS: &str = "https://github.com/lacuna-dev/lacuna/blob/main/docs/diagnostics/";
/// The key of Lacuna's partial fingerprint; its version changes if what it hashes ever does.
pub const FINGERPRINT: &str = "lacuna/v1";

#[derive(Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    automation_details: AutomationDetails,
    /// Columns count characters, as the other outputs do.
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct AutomationDetails {
    id: String,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    full_description: Text,
    help_uri: String,
    help: Text,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    code_flows: Vec<CodeFlow>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    properties: ResultProperties,
}

#[derive(Serialize)]
struct ResultProperties {
    severity: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<serde_json::Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodeFlow {
    message: Text,
    thread_flows: Vec<ThreadFlow>,
}

#[derive(Serialize)]
struct ThreadFlow {
    locations: Vec<ThreadFlowLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThreadFlowLocation {
    location: Location,
    nesting_level: u32,
}

/// The level code scanning shows: `note` for information and hints (SARIF has no lower one
/// that GitHub lists).
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// The codes with a documentation page, in the order of `docs/diagnostics/README.md`, with
/// their one-line summary from its table and the first paragraph of their page.
fn documented() -> Vec<(Code, String, String)> {
    const INDEX: &str = include_str!("../../../../docs/diagnostics/README.md");
    const PAGES: &[(&str, &str)] = &[
        (
            "LCN001",
            include_str!("../../../../docs/diagnostics/LCN001.md"),
        ),
        (
            "LCN002",
            include_str!("../../../../docs/diagnostics/LCN002.md"),
        ),
        (
            "LCN003",
            include_str!("../../../../docs/diagnostics/LCN003.md"),
        ),
        (
            "LCN004",
            include_str!("../../../../docs/diagnostics/LCN004.md"),
        ),
        (
            "LCN100",
            include_str!("../../../../docs/diagnostics/LCN100.md"),
        ),
        (
            "LCN101",
            include_str!("../../../../docs/diagnostics/LCN101.md"),
        ),
        (
            "LCN102",
            include_str!("../../../../docs/diagnostics/LCN102.md"),
        ),
        (
            "LCN103",
            include_str!("../../../../docs/diagnostics/LCN103.md"),
        ),
        (
            "LCN104",
            include_str!("../../../../docs/diagnostics/LCN104.md"),
        ),
        (
            "LCN105",
            include_str!("../../../../docs/diagnostics/LCN105.md"),
        ),
        (
            "LCN106",
            include_str!("../../../../docs/diagnostics/LCN106.md"),
        ),
        (
            "LCN107",
            include_str!("../../../../docs/diagnostics/LCN107.md"),
        ),
        (
            "LCN108",
            include_str!("../../../../docs/diagnostics/LCN108.md"),
        ),
        (
            "LCN200",
            include_str!("../../../../docs/diagnostics/LCN200.md"),
        ),
        (
            "LCN201",
            include_str!("../../../../docs/diagnostics/LCN201.md"),
        ),
    ];
    let summary = |code: &str| {
        INDEX.lines().find_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells.len() >= 5 && cells[1].starts_with(&format!("[{code}]")))
                .then(|| cells[4].to_owned())
        })
    };
    Code::ALL
        .iter()
        .map(|&code| {
            let page = PAGES
                .iter()
                .find(|(c, _)| *c == code.as_str())
                .map(|(_, p)| *p);
            let short = summary(code.as_str()).unwrap_or_else(|| code.name().replace('-', " "));
            let full = page
                .and_then(first_paragraph)
                .unwrap_or_else(|| short.clone());
            (code, short, full)
        })
        .collect()
}

/// The first paragraph of prose of a page (after its title and severity line).
fn first_paragraph(page: &str) -> Option<String> {
    page.split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with('#') && !p.starts_with("**Severity"))
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn rules() -> Vec<Rule> {
    documented()
        .into_iter()
        .map(|(code, short, full)| Rule {
            id: code.as_str(),
            name: code.name(),
            help_uri: format!("{DOCS}{}.md", code.as_str()),
            help: Text {
                text: format!("{full}\n\nSee {DOCS}{}.md", code.as_str()),
            },
            short_description: Text { text: short },
            full_description: Text { text: full },
            default_configuration: Configuration {
                level: level(code.default_severity()),
            },
            properties: RuleProperties {
                tags: vec!["lacuna", code.kind()],
            },
        })
        .collect()
}

fn region(p: Position) -> Region {
    Region {
        start_line: p.line,
        start_column: p.column,
        end_line: p.end_line,
        end_column: p.end_column,
    }
}

fn location(
    file: &CheckedFile,
    path: Option<&std::path::Path>,
    range: lacuna_grammar::TextRange,
    message: Option<&str>,
) -> Location {
    // Another file's text is not at hand: its location names the file only.
    let region = match path {
        None => Some(region(position(file.text.as_deref(), &file.lines, range))),
        Some(_) => None,
    };
    Location {
        id: None,
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri: super::uri(path.unwrap_or(&file.display)),
            },
            region,
        },
        logical_locations: vec![],
        message: message.map(|m| Text { text: m.to_owned() }),
    }
}

/// The path to an uncovered side or obligation, as the hover tells it: each place its
/// explanation names (the external call, the guards of a proof), then the decision itself.
fn code_flow(file: &CheckedFile, d: &Diagnostic) -> Option<CodeFlow> {
    if d.related.is_empty() || !matches!(d.code.kind(), "uncovered-branch" | "mcdc-obligation") {
        return None;
    }
    let mut locations: Vec<ThreadFlowLocation> = d
        .related
        .iter()
        .map(|r| ThreadFlowLocation {
            location: location(file, r.path.as_deref(), r.range, Some(&r.message)),
            nesting_level: 0,
        })
        .collect();
    locations.push(ThreadFlowLocation {
        location: location(file, None, d.range, Some(&d.message)),
        nesting_level: 0,
    });
    Some(CodeFlow {
        message: Text {
            text: format!("the way to {}", d.code.name().replace('-', " ")),
        },
        thread_flows: vec![ThreadFlow { locations }],
    })
}

/// The SARIF log of a run; `automation` identifies the run (and its shard) to code scanning.
pub fn log(files: &[CheckedFile], automation: &str) -> Log {
    let rules = rules();
    let mut results = vec![];
    for file in files {
        let diagnostics = file.diagnostics();
        let fingerprints = super::fingerprints(file, &diagnostics);
        for (d, fingerprint) in diagnostics.into_iter().zip(fingerprints) {
            let mut primary = location(file, None, d.range, None);
            if let Some(function) = &d.function {
                primary.logical_locations.push(LogicalLocation {
                    fully_qualified_name: function.clone(),
                    kind: "function",
                });
            }
            results.push(SarifResult {
                rule_id: d.code.as_str(),
                rule_index: rules
                    .iter()
                    .position(|r| r.id == d.code.as_str())
                    .unwrap_or(0),
                level: level(d.severity),
                message: Text {
                    text: d.message.clone(),
                },
                locations: vec![primary],
                related_locations: d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Location {
                        id: Some(i + 1),
                        ..location(file, r.path.as_deref(), r.range, Some(&r.message))
                    })
                    .collect(),
                code_flows: code_flow(file, d).into_iter().collect(),
                partial_fingerprints: BTreeMap::from([(FINGERPRINT, fingerprint)]),
                properties: ResultProperties {
                    severity: d.severity.as_str(),
                    cause: d.code.cause().map(|c| c.as_str()),
                    data: d.evidence.as_ref().map(|e| e.to_json()),
                },
            });
        }
    }
    Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "lacuna",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: "https://github.com/lacuna-dev/lacuna",
                    rules,
                },
            },
            automation_details: AutomationDetails {
                id: automation.to_owned(),
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    }
}

pub fn print(files: &[CheckedFile], automation: &str) -> anyhow::Result<()> {
    let stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(stdout, &log(files, automation))?;
    println!();
    Ok(())
}
