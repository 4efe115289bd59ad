//! What generation found for one function, in the form it is kept between runs: diagnostics
//! with ranges relative to the function's start, so that they follow the function when code
//! above it moves, and serialisable for the store.

use lacuna_analysis::diagnostic::{Diagnostic, Related};
use lacuna_analysis::guidance::dependence::Declarations;
use lacuna_grammar::TextRange;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionOutcome {
    /// The function's ID (`Order.total`).
    pub function: String,
    pub fingerprint: u64,
    pub covered: usize,
    pub total: usize,
    pub executions: u32,
    pub tests: usize,
    pub time_ms: u64,
    /// Why the function could not be explored, when it could not.
    pub failure: Option<String>,
    pub diagnostics: Vec<StoredDiagnostic>,
    /// The calls and classes whose guidance declarations the exploration depends on; none
    /// when it failed before it could say (then it depends on every declaration).
    #[serde(default)]
    pub guidance_subjects: Option<Vec<String>>,
    /// Those declarations when it ran (`Declarations::key`).
    #[serde(default)]
    pub guidance: u64,
}

impl FunctionOutcome {
    /// Whether the guidance module's `declarations` are those the exploration ran with, as far
    /// as it depends on them.
    pub fn guided_by(&self, declarations: &Declarations) -> bool {
        self.guidance == declarations.key_of(self.guidance_subjects.as_deref())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredDiagnostic {
    pub code: String,
    pub severity: String,
    /// Relative to the function's first byte.
    pub start: u32,
    pub end: u32,
    pub message: String,
    pub function: Option<String>,
    pub related: Vec<StoredRelated>,
    pub data: Option<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRelated {
    /// `None`: the same file, and the range is relative to the function like the diagnostic's.
    pub path: Option<PathBuf>,
    pub start: u32,
    pub end: u32,
    pub message: String,
}

fn relative(range: TextRange, origin: u32) -> (u32, u32) {
    (
        range.start.saturating_sub(origin),
        range.end.saturating_sub(origin),
    )
}

impl StoredDiagnostic {
    pub fn new(d: &Diagnostic, origin: u32) -> Self {
        let (start, end) = relative(d.range, origin);
        StoredDiagnostic {
            code: d.code.as_str().to_owned(),
            severity: d.severity.as_str().to_owned(),
            start,
            end,
            message: d.message.clone(),
            function: d.function.clone(),
            related: d
                .related
                .iter()
                .map(|r| {
                    let (start, end) = match r.path {
                        None => relative(r.range, origin),
                        Some(_) => (r.range.start, r.range.end),
                    };
                    StoredRelated {
                        path: r.path.clone(),
                        start,
                        end,
                        message: r.message.clone(),
                    }
                })
                .collect(),
            data: d.data.clone(),
        }
    }

    /// Back to a diagnostic of the file, for a function that now starts at `origin`.
    pub fn at(&self, origin: u32) -> Option<Diagnostic> {
        let code = self.code.parse().ok()?;
        let mut d = Diagnostic::new(
            code,
            TextRange::new(self.start + origin, self.end + origin),
            self.message.clone(),
        );
        d.severity = self.severity.parse().unwrap_or(d.severity);
        d.function = self.function.clone();
        d.data = self.data.clone();
        d.related = self
            .related
            .iter()
            .map(|r| Related {
                path: r.path.clone(),
                range: match r.path {
                    None => TextRange::new(r.start + origin, r.end + origin),
                    Some(_) => TextRange::new(r.start, r.end),
                },
                message: r.message.clone(),
            })
            .collect();
        Some(d)
    }
}
