//! Editor settings (`initializationOptions.settings` and the `lacuna` section of
//! `workspace/configuration`): the same knobs as `[tool.lacuna]`, and `pyproject.toml` wins
//! wherever it sets a key. Also which diagnostics to show, and at which severity.

use lacuna_analysis::config::Config;
use lacuna_analysis::diagnostic::{Code, Severity};
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub python: Option<PathBuf>,
    pub guidance: Option<PathBuf>,
    pub generate_on_save: Option<bool>,
    pub budget: BudgetSettings,
    pub mcdc: McdcSettings,
    pub diagnostics: DiagnosticSettings,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BudgetSettings {
    pub function_time_ms: Option<u64>,
    pub function_executions: Option<u32>,
    pub execution_timeout_ms: Option<u64>,
    pub workers: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct McdcSettings {
    pub enabled: Option<bool>,
    pub single_condition: Option<bool>,
}

/// `"error" | "warning" | "information" | "hint" | "off"` per family of diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DiagnosticSettings {
    pub uncovered: Option<String>,
    pub mcdc: Option<String>,
    pub assertions: Option<String>,
}

/// Settings the client sent that do not have the types the server reads.
#[derive(Debug, thiserror::Error)]
#[error("invalid `lacuna` settings: {0}")]
pub struct InvalidSettings(serde_json::Error);

impl Settings {
    /// Reads settings from a JSON value; unknown keys are ignored, a wrong type is an error.
    pub fn from_json(value: &serde_json::Value) -> Result<Settings, InvalidSettings> {
        if value.is_null() {
            return Ok(Settings::default());
        }
        serde_json::from_value(value.clone()).map_err(InvalidSettings)
    }

    pub fn generate_on_save(&self) -> bool {
        self.generate_on_save.unwrap_or(true)
    }

    /// The configuration with these settings applied where `pyproject.toml` is silent.
    pub fn apply(&self, mut config: Config) -> Config {
        let table = pyproject_table(&config);
        let set = |path: &[&str]| {
            let Some((first, rest)) = path.split_first() else {
                return false;
            };
            let mut v = table.as_ref().and_then(|t| t.get(*first));
            for key in rest {
                v = v.and_then(|t| t.get(*key));
            }
            v.is_some()
        };
        let root = config.root.clone();
        if let Some(p) = &self.python
            && !set(&["python"])
        {
            config.python = Some(lacuna_analysis::config::interpreter_path(&root, p.clone()));
        }
        if let Some(p) = &self.guidance
            && !set(&["guidance"])
        {
            config.guidance = root.join(p);
        }
        let b = &self.budget;
        let budget = &mut config.budget;
        macro_rules! overlay {
            ($value:expr, $target:expr, $($key:literal),+) => {
                if let Some(v) = $value && !set(&[$($key),+]) {
                    $target = v;
                }
            };
        }
        overlay!(
            b.function_time_ms,
            budget.function_time_ms,
            "budget",
            "function-time-ms"
        );
        overlay!(
            b.function_executions,
            budget.function_executions,
            "budget",
            "function-executions"
        );
        overlay!(
            b.execution_timeout_ms,
            budget.execution_timeout_ms,
            "budget",
            "execution-timeout-ms"
        );
        overlay!(b.workers, budget.workers, "budget", "workers");
        overlay!(self.mcdc.enabled, config.mcdc.enabled, "mcdc", "enabled");
        overlay!(
            self.mcdc.single_condition,
            config.mcdc.single_condition,
            "mcdc",
            "single-condition"
        );
        config
    }

    /// The severity to show a diagnostic with; `None` when its family is turned off.
    pub fn severity(&self, code: Code, default: Severity) -> Option<Severity> {
        let level = match code {
            Code::UncoveredBranch(_) => &self.diagnostics.uncovered,
            Code::McdcObligation | Code::McdcInfeasible => &self.diagnostics.mcdc,
            Code::SuspiciousAssertion => &self.diagnostics.assertions,
            _ => return Some(default),
        };
        match level.as_deref() {
            None => Some(default),
            Some("off") => None,
            Some(s) => Some(s.parse().unwrap_or(default)),
        }
    }
}

/// The raw `[tool.lacuna]` table, to tell which keys the project sets.
fn pyproject_table(config: &Config) -> Option<toml::Table> {
    let text = std::fs::read_to_string(config.source.as_ref()?).ok()?;
    let mut doc: toml::Table = toml::from_str(&text).ok()?;
    match doc.remove("tool")? {
        toml::Value::Table(mut tool) => match tool.remove("lacuna")? {
            toml::Value::Table(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyproject_wins_where_it_sets_a_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pyproject.toml");
        std::fs::write(&file, "[tool.lacuna.budget]\nfunction-time-ms = 500\n").unwrap();
        let config = Config::load(&file).unwrap();
        let settings = Settings::from_json(&serde_json::json!({
            "budget": {"functionTimeMs": 9000, "functionExecutions": 77},
            "mcdc": {"singleCondition": true},
            "diagnostics": {"mcdc": "off", "uncovered": "error"},
            "somethingNew": 1
        }))
        .unwrap();
        let config = settings.apply(config);
        assert_eq!(config.budget.function_time_ms, 500);
        assert_eq!(config.budget.function_executions, 77);
        assert!(config.mcdc.single_condition);
        assert_eq!(
            settings.severity(Code::McdcObligation, Severity::Information),
            None
        );
        assert_eq!(
            settings.severity(
                Code::UncoveredBranch(lacuna_analysis::diagnostic::Cause::ExternalCall),
                Severity::Warning
            ),
            Some(Severity::Error)
        );
        assert!(Settings::from_json(&serde_json::json!({"budget": {"workers": "two"}})).is_err());
    }
}
