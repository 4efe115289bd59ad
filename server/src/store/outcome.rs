//! What generation found for one function, in the form it is kept between runs: diagnostics
//! with ranges relative to the function's start, so that they follow the function when code
//! above it moves, and serialisable for the store (the evidence as the JSON every edge writes,
//! read back only when it is exactly what was written).

use lacuna_analysis::diagnostic::{Diagnostic, Evidence, Related};
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
    /// Why its module could not be imported, when that is why it was not explored: its
    /// module's `LCN108` says it, at the import that fails, instead of this function.
    #[serde(default)]
    pub import_failure: Option<lacuna_analysis::imports::ImportFailure>,
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
    #[serde(with = "evidence_json")]
    pub data: Option<Evidence>,
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

/// The evidence as stored: its JSON form (the one the JSON outputs and the editor get), read
/// back only when writing what was read gives that JSON again, so that an entry of another
/// build is never read as something it did not say.
mod evidence_json {
    use lacuna_analysis::diagnostic::Evidence;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(evidence: &Option<Evidence>, s: S) -> Result<S::Ok, S::Error> {
        evidence.as_ref().map(Evidence::to_json).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Evidence>, D::Error> {
        let Some(json) = Option::<serde_json::Value>::deserialize(d)? else {
            return Ok(None);
        };
        let evidence: Evidence =
            serde_json::from_value(json.clone()).map_err(serde::de::Error::custom)?;
        if evidence.to_json() != json {
            return Err(serde::de::Error::custom(
                "the stored evidence is not one this build writes",
            ));
        }
        Ok(Some(evidence))
    }
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
            data: d.evidence.clone(),
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
        d.evidence = self.data.clone();
        // The JSON names both external causes `external-call`; the code says which it was.
        if let (Some(side), Some(cause)) = (
            d.evidence.as_mut().and_then(Evidence::side_mut),
            code.cause(),
        ) {
            side.cause = cause;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use lacuna_analysis::diagnostic::evidence::{ExternalCall, ExternalKind, Fact, UncoveredSide};
    use lacuna_analysis::diagnostic::{Cause, Code};

    #[test]
    fn evidence_is_stored_as_its_json_and_read_back_only_when_exact() {
        let cause = Cause::ExternalException;
        let mut d = Diagnostic::new(
            Code::UncoveredBranch(cause),
            TextRange::new(10, 20),
            "never reached",
        );
        let call = ExternalCall {
            callee: "open".into(),
            line: 3,
            external: ExternalKind::Environment,
            arguments_from_inputs: vec![],
            returns: None,
            pure: false,
            file: None,
            raised: true,
        };
        let side = UncoveredSide::new(cause, "f:if:1", true, Fact::ExternalCall(call));
        d.evidence = Some(Evidence::Side(side));
        let text = serde_json::to_string(&StoredDiagnostic::new(&d, 4)).unwrap();
        // The JSON the editor gets, keys sorted.
        assert!(text.contains(
            r#""data":{"arguments_from_inputs":[],"callee":"open","cause":"external-call","decision":"f:if:1","external":"environment","line":3,"raised":true,"returns":null,"side":"true"}"#
        ));
        let read: StoredDiagnostic = serde_json::from_str(&text).unwrap();
        // Both external causes are written `external-call`: the code says which.
        assert_eq!(read.at(4), Some(d));
        // What this build would not write again is refused, not read without it.
        let other = text.replace(r#""raised":true"#, r#""raised":true,"spare":1"#);
        assert!(serde_json::from_str::<StoredDiagnostic>(&other).is_err());
    }
}
