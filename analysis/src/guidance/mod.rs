//! The guidance module as the generator reads it: the calls it mocks (`@mock("os.path.exists")`,
//! whose return value becomes an input the solver chooses) and the factories it declares
//! (`@factory`, through which objects of the returned class are built). The agent imports the
//! module and describes the declarations with their annotations resolved.

pub mod declared;
pub mod dependence;

use crate::agent::description::GuidanceDescription;
use crate::agent::{Pool, WorkerError};
use crate::config::Config;
use crate::explore::seeds;
use crate::explore::shape::{Shape, params};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::explore::signature::{FactoryDecl, Guidance, MockDecl};

/// Why the guidance module could not be loaded: the agent failed, or the module does not
/// import.
#[derive(Debug, thiserror::Error)]
pub enum GuidanceError {
    #[error("{0}")]
    Agent(WorkerError),
    #[error("the guidance module {} cannot be imported: {error}", path.display())]
    Import { path: PathBuf, error: String },
}

impl Guidance {
    /// Reads the agent's description of a guidance module.
    pub fn from_describe(response: &GuidanceDescription) -> Guidance {
        let mocks = response
            .mocks
            .iter()
            .filter_map(|m| {
                let returns = &m.returns;
                let mut defaults = BTreeMap::new();
                if returns.kind.as_deref() == Some("class") {
                    seeds::defaults(&returns.init, "__init__", &mut defaults);
                }
                Some(MockDecl {
                    target: m.target.clone()?,
                    returns: Shape::from_describe(returns),
                    defaults,
                })
            })
            .collect();
        let factories = response
            .factories
            .iter()
            .filter_map(|f| {
                let mut defaults = BTreeMap::new();
                seeds::defaults(&f.params, "", &mut defaults);
                Some(FactoryDecl {
                    function: f.function.clone()?,
                    class: f.class.clone()?,
                    params: params(&f.params),
                    defaults,
                })
            })
            .collect();
        Guidance { mocks, factories }
    }
}

/// The guidance module's import name, when it lies under one of the project's import roots
/// (`tests/lacuna_guidance.py` under `.` → `tests.lacuna_guidance`).
fn module_name(config: &Config) -> Option<String> {
    config.src.iter().find_map(|root| {
        let relative = config.guidance.strip_prefix(root).ok()?.with_extension("");
        let parts: Vec<&str> = relative
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<_>>()?;
        let valid = parts.iter().all(|p| {
            !p.is_empty()
                && p.chars().all(|c| c == '_' || c.is_alphanumeric())
                && !p.starts_with(|c: char| c.is_ascii_digit())
        });
        valid.then(|| parts.join("."))
    })
}

/// Loads the guidance module through the agent; none when the file does not exist.
pub fn load(pool: &Pool, config: &Config) -> Result<Guidance, GuidanceError> {
    if !Path::new(&config.guidance).is_file() {
        return Ok(Guidance::default());
    }
    let response = pool
        .guidance(
            module_name(config),
            config.guidance.clone(),
            Duration::from_secs(20),
        )
        .map_err(GuidanceError::Agent)?
        .map_err(GuidanceError::Agent)?;
    if let Some(error) = &response.error {
        return Err(GuidanceError::Import {
            path: config.guidance.clone(),
            error: error.clone(),
        });
    }
    Ok(Guidance::from_describe(&response))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::value::ModelValue;

    #[test]
    fn module_names_follow_import_roots() {
        let mut config = Config::defaults(Path::new("/p"));
        config.src = vec!["/p".into()];
        config.guidance = "/p/tests/lacuna_guidance.py".into();
        assert_eq!(
            module_name(&config).as_deref(),
            Some("tests.lacuna_guidance")
        );
        config.src = vec!["/p/src".into()];
        assert_eq!(module_name(&config), None);
    }

    #[test]
    fn reads_declarations() {
        let response = serde_json::json!({
            "mocks": [
                {"target": "os.path.exists", "returns": {"kind": "bool"}},
                {"target": "datetime.datetime.now", "returns": {"kind": "class",
                  "class": "datetime:datetime", "methods": [],
                  "init": [{"name": "month", "type": {"kind": "int"}, "default": "1"}]}},
            ],
            "factories": [{"function": "tests.g:make_stack", "class": "shop:Stack",
                           "params": [{"name": "items", "type": {"kind": "list",
                                       "of": {"kind": "str"}}}]}],
        });
        let g = Guidance::from_describe(&crate::agent::description::read(response));
        assert_eq!(g.mocks[0].returns, Shape::Bool);
        assert_eq!(
            g.mocks[1].defaults.get("__init__.month"),
            Some(&ModelValue::Int("1".into()))
        );
        let f = g.factory_for("shop:Stack").expect("factory");
        assert_eq!(f.params[0].1, Shape::List(Box::new(Shape::Str)));
    }
}
