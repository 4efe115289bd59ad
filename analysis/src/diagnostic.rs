//! Diagnostics: what Lacuna tells the developer, as plain data. Each has a stable code documented
//! in `docs/diagnostics/`, an absolute range, a one-line message, related locations and the
//! typed facts behind it (`evidence`) for hover and code actions. The server translates these
//! to LSP; the CLI renders them.

pub mod evidence;

pub use evidence::Evidence;
use lacuna_grammar::TextRange;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

/// Why a branch side stayed uncovered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// Depends on the return value of a call generated inputs cannot control.
    ExternalCall,
    /// Everything after an external call that always raised (or was blocked) is unreachable.
    ExternalException,
    /// Depends on object state that cannot be set directly.
    ObjectCreation,
    /// A loop bound, recursion depth or path length was exhausted.
    Boundary,
    /// The solver answered unknown, timed out, or met an unmodelled operation.
    SolverLimit,
    /// Proven impossible: dead code.
    Infeasible,
    /// Not reached within the budget; no more specific cause is known.
    Budget,
}

impl Cause {
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::ExternalCall | Cause::ExternalException => "external-call",
            Cause::ObjectCreation => "object-creation",
            Cause::Boundary => "boundary",
            Cause::SolverLimit => "solver-limit",
            Cause::Infeasible => "infeasible",
            Cause::Budget => "budget",
        }
    }
}

/// Every diagnostic code. Codes are stable: documented, and never reused for something else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    SyntaxError,
    UnreadableFile,
    UnmodelledDecision,
    FileTooLarge,
    UncoveredBranch(Cause),
    McdcObligation,
    McdcInfeasible,
    SuspiciousAssertion,
    /// A function with branch sides that generation does not explore, with the reason.
    NotExplored,
    /// A module of the project cannot be imported (a missing dependency, an exception while
    /// it runs): its functions are not explored.
    ImportFailed,
}

impl Code {
    pub const ALL: &'static [Code] = &[
        Code::SyntaxError,
        Code::UnreadableFile,
        Code::UnmodelledDecision,
        Code::FileTooLarge,
        Code::UncoveredBranch(Cause::Budget),
        Code::UncoveredBranch(Cause::ExternalCall),
        Code::UncoveredBranch(Cause::ExternalException),
        Code::UncoveredBranch(Cause::ObjectCreation),
        Code::UncoveredBranch(Cause::Boundary),
        Code::UncoveredBranch(Cause::SolverLimit),
        Code::UncoveredBranch(Cause::Infeasible),
        Code::NotExplored,
        Code::ImportFailed,
        Code::McdcObligation,
        Code::McdcInfeasible,
        Code::SuspiciousAssertion,
    ];

    /// The code shown to users and used for the documentation page: `LCN101`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::SyntaxError => "LCN001",
            Code::UnreadableFile => "LCN002",
            Code::UnmodelledDecision => "LCN003",
            Code::FileTooLarge => "LCN004",
            Code::UncoveredBranch(Cause::Budget) => "LCN100",
            Code::UncoveredBranch(Cause::ExternalCall) => "LCN101",
            Code::UncoveredBranch(Cause::ExternalException) => "LCN102",
            Code::UncoveredBranch(Cause::ObjectCreation) => "LCN103",
            Code::UncoveredBranch(Cause::Boundary) => "LCN104",
            Code::UncoveredBranch(Cause::SolverLimit) => "LCN105",
            Code::UncoveredBranch(Cause::Infeasible) => "LCN106",
            Code::NotExplored => "LCN107",
            Code::ImportFailed => "LCN108",
            Code::McdcObligation => "LCN200",
            Code::McdcInfeasible => "LCN201",
            Code::SuspiciousAssertion => "LCN300",
        }
    }

    /// A short name, used in documentation titles and `--format json` as `name`.
    pub fn name(self) -> &'static str {
        match self {
            Code::SyntaxError => "syntax-error",
            Code::UnreadableFile => "unreadable-file",
            Code::UnmodelledDecision => "unmodelled-decision",
            Code::FileTooLarge => "file-too-large",
            Code::UncoveredBranch(Cause::Budget) => "uncovered-budget",
            Code::UncoveredBranch(Cause::ExternalCall) => "uncovered-external-call",
            Code::UncoveredBranch(Cause::ExternalException) => "uncovered-external-exception",
            Code::UncoveredBranch(Cause::ObjectCreation) => "uncovered-object-creation",
            Code::UncoveredBranch(Cause::Boundary) => "uncovered-boundary",
            Code::UncoveredBranch(Cause::SolverLimit) => "uncovered-solver-limit",
            Code::UncoveredBranch(Cause::Infeasible) => "infeasible-branch",
            Code::NotExplored => "not-explored",
            Code::ImportFailed => "import-failed",
            Code::McdcObligation => "mcdc-obligation",
            Code::McdcInfeasible => "mcdc-infeasible",
            Code::SuspiciousAssertion => "suspicious-assertion",
        }
    }

    /// The `kind` field of the JSON document.
    pub fn kind(self) -> &'static str {
        match self {
            Code::SyntaxError => "syntax-error",
            Code::UnreadableFile => "unreadable-file",
            Code::UnmodelledDecision => "unmodelled-decision",
            Code::FileTooLarge => "file-too-large",
            Code::UncoveredBranch(_) => "uncovered-branch",
            Code::NotExplored => "not-explored",
            Code::ImportFailed => "import-failed",
            Code::McdcObligation | Code::McdcInfeasible => "mcdc-obligation",
            Code::SuspiciousAssertion => "suspicious-assertion",
        }
    }

    pub fn cause(self) -> Option<Cause> {
        match self {
            Code::UncoveredBranch(c) => Some(c),
            _ => None,
        }
    }

    pub fn default_severity(self) -> Severity {
        match self {
            Code::SyntaxError | Code::UnreadableFile | Code::ImportFailed => Severity::Error,
            Code::UnmodelledDecision | Code::NotExplored => Severity::Information,
            Code::FileTooLarge => Severity::Warning,
            Code::UncoveredBranch(Cause::Infeasible) => Severity::Hint,
            Code::UncoveredBranch(_) => Severity::Warning,
            Code::McdcObligation | Code::McdcInfeasible => Severity::Information,
            Code::SuspiciousAssertion => Severity::Warning,
        }
    }
}

/// A place a diagnostic points to besides its own range (the external call, a field write…).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Related {
    /// `None`: the diagnostic's own file.
    pub path: Option<PathBuf>,
    pub range: TextRange,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// Absolute byte range in the file.
    pub range: TextRange,
    pub message: String,
    /// The qualified name of the function it is about, when there is one.
    pub function: Option<String>,
    pub related: Vec<Related>,
    /// The facts behind it, for hover, code actions and the JSON outputs' `data`.
    pub evidence: Option<Evidence>,
}

impl Diagnostic {
    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.default_severity(),
            range,
            message: message.into(),
            function: None,
            related: vec![],
            evidence: None,
        }
    }
}

/// A diagnostic code, severity or selection that names nothing Lacuna reports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnknownName {
    #[error("unknown diagnostic code `{0}`")]
    Code(String),
    #[error("unknown severity `{0}`")]
    Severity(String),
    #[error(
        "`{0}` is no diagnostic code or prefix of one (`LCN`, `LCN1`, `LCN101`; see docs/diagnostics/)"
    )]
    Prefix(String),
}

/// A selection list with an entry that selects no code, named as the user wrote the list
/// (`--extend-select`, `[tool.lacuna] ignore`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{list}: {entry}")]
pub struct SelectionError {
    pub list: String,
    pub entry: UnknownName,
}

impl std::str::FromStr for Code {
    type Err = UnknownName;

    /// The code of `LCN101`.
    fn from_str(s: &str) -> Result<Code, UnknownName> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownName::Code(s.to_owned()))
    }
}

impl std::str::FromStr for Severity {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Severity, UnknownName> {
        [
            Severity::Error,
            Severity::Warning,
            Severity::Information,
            Severity::Hint,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| UnknownName::Severity(s.to_owned()))
    }
}

/// Which diagnostic codes a run reports, as ruff selects rules: `select` (every code when
/// absent) and `extend_select` add codes by code or prefix (`LCN1`, `LCN101`), `ignore`
/// removes them; where a selected and an ignored prefix both match a code, the longer one
/// decides, and an ignore wins a tie.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Selection {
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
}

impl Selection {
    /// A prefix as written (`lcn1` is `LCN1`), or why it selects no code.
    pub fn prefix(text: &str) -> Result<String, UnknownName> {
        let prefix = text.trim().to_ascii_uppercase();
        if prefix.len() >= 3
            && prefix.starts_with("LCN")
            && Code::ALL.iter().any(|c| c.as_str().starts_with(&prefix))
        {
            Ok(prefix)
        } else {
            Err(UnknownName::Prefix(text.to_owned()))
        }
    }

    /// The prefixes of a list, each checked.
    pub fn prefixes(list: &[String]) -> Result<Vec<String>, UnknownName> {
        list.iter().map(|p| Selection::prefix(p)).collect()
    }

    /// A selection from its three lists as written, every prefix checked; an error names the
    /// list as the user wrote it (`key("extend-select")`: `--extend-select`, `[tool.lacuna]
    /// extend-select`).
    pub fn parse(
        select: Option<&[String]>,
        extend_select: &[String],
        ignore: &[String],
        key: impl Fn(&str) -> String,
    ) -> Result<Selection, SelectionError> {
        let checked = |name: &str, list: &[String]| {
            Selection::prefixes(list).map_err(|entry| SelectionError {
                list: key(name),
                entry,
            })
        };
        Ok(Selection {
            select: select.map(|l| checked("select", l)).transpose()?,
            extend_select: checked("extend-select", extend_select)?,
            ignore: checked("ignore", ignore)?,
        })
    }

    pub fn selects(&self, code: Code) -> bool {
        let code = code.as_str();
        let longest = |list: &mut dyn Iterator<Item = &String>| {
            list.filter(|p| code.starts_with(p.as_str()))
                .map(String::len)
                .max()
        };
        let all = ["LCN".to_owned()];
        let selected = longest(
            &mut self
                .select
                .as_deref()
                .unwrap_or(&all)
                .iter()
                .chain(&self.extend_select),
        );
        let ignored = longest(&mut self.ignore.iter());
        match (selected, ignored) {
            (Some(s), Some(i)) => s > i,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// This selection with `over` on top (the command line over the configuration): its
    /// `select` replaces the whole selection; its `extend_select` and `ignore` add to it, and
    /// what it selects by name is no longer ignored by this one.
    pub fn then(mut self, over: Selection) -> Selection {
        let named: Vec<&String> = over
            .select
            .iter()
            .flatten()
            .chain(&over.extend_select)
            .collect();
        self.ignore.retain(|i| !named.contains(&i));
        if over.select.is_some() {
            self.select = over.select;
            self.extend_select.clear();
        }
        self.extend_select.extend(over.extend_select);
        self.ignore.extend(over.ignore);
        self
    }
}

#[cfg(test)]
mod selection_tests {
    use super::*;

    fn sel(select: Option<&[&str]>, extend: &[&str], ignore: &[&str]) -> Selection {
        let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Selection {
            select: select.map(own),
            extend_select: own(extend),
            ignore: own(ignore),
        }
    }

    fn selected(s: &Selection) -> Vec<&'static str> {
        Code::ALL
            .iter()
            .filter(|c| s.selects(**c))
            .map(|c| c.as_str())
            .collect()
    }

    #[test]
    fn prefixes_select_and_the_longer_match_decides() {
        assert_eq!(selected(&Selection::default()).len(), Code::ALL.len());
        assert_eq!(
            selected(&sel(Some(&["LCN1"]), &[], &["LCN10"])),
            [
                "LCN100", "LCN101", "LCN102", "LCN103", "LCN104", "LCN105", "LCN106", "LCN107",
                "LCN108"
            ]
            .iter()
            .filter(|c| !c.starts_with("LCN10"))
            .copied()
            .collect::<Vec<_>>()
        );
        assert_eq!(
            selected(&sel(Some(&["LCN1"]), &["LCN200"], &["LCN10", "LCN1"])),
            ["LCN200"]
        );
        assert_eq!(
            selected(&sel(None, &[], &["LCN1", "LCN2"]))
                .into_iter()
                .filter(|c| c.starts_with("LCN1"))
                .count(),
            0
        );
        assert_eq!(selected(&sel(None, &["LCN101"], &["LCN1"])), {
            let mut v: Vec<&str> = Code::ALL
                .iter()
                .map(|c| c.as_str())
                .filter(|c| !c.starts_with("LCN1") || *c == "LCN101")
                .collect();
            v.sort_by_key(|c| Code::ALL.iter().position(|x| x.as_str() == *c));
            v
        });
    }

    #[test]
    fn unknown_prefixes_are_errors_and_case_does_not_matter() {
        assert_eq!(Selection::prefix("lcn1").unwrap(), "LCN1");
        assert!(Selection::prefix("LCN9").is_err());
        assert!(Selection::prefix("E501").is_err());
        assert!(Selection::prefix("LC").is_err());
    }

    #[test]
    fn the_command_line_goes_on_top_of_the_configuration() {
        let config = sel(Some(&["LCN1"]), &["LCN2"], &["LCN104"]);
        let cli = sel(None, &[], &["LCN101"]);
        let both = config.clone().then(cli);
        assert!(!both.selects(Code::UncoveredBranch(Cause::ExternalCall)));
        assert!(!both.selects(Code::UncoveredBranch(Cause::Boundary)));
        assert!(both.selects(Code::McdcObligation));
        let replaced = config.then(sel(Some(&["LCN0"]), &[], &[]));
        assert!(!replaced.selects(Code::McdcObligation));
        assert!(replaced.selects(Code::SyntaxError));
    }
}
