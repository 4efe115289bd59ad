//! The project's own tests, run through the agent, so that developers see the branch coverage
//! and MC/DC of their suite next to the generated tests': every `test_*` function without
//! parameters (pytest fixtures are not supplied) of the `test_*.py`/`*_test.py` files under the
//! configured test directories is executed under the tracer, and its runs are mapped onto each
//! explored function like a generated input's.

use crate::agent::protocol::{ExecuteRequest, RANDOM_SEED, Target};
use crate::agent::{Execution, Pool, Status};
use crate::config::Config;
use crate::explore::coverage::{ConditionIndex, FunctionUnderTest, observe};
use crate::model::mcdc::Independence;
use crate::workspace::module_name;
use lacuna_grammar::FunctionKind;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The runs of the suite's tests.
#[derive(Default)]
pub struct SuiteRuns {
    /// Tests run (module, name), with how each ended (and the exception, if one was raised).
    pub tests: Vec<(String, String, Status, Option<String>)>,
    runs: Vec<Execution>,
}

/// What the suite covers of one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteCoverage {
    pub sides: BTreeSet<(usize, bool)>,
    pub independence: BTreeMap<usize, Independence>,
}

fn test_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if !name.starts_with('.') && name != "__pycache__" && name != "generated" {
                test_files(&path, out);
            }
        } else if name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
        {
            out.push(path);
        }
    }
}

/// Runs every parameterless test function of the suite once.
pub fn run(pool: &Pool, config: &Config) -> SuiteRuns {
    let mut files = vec![];
    for dir in &config.tests {
        test_files(dir, &mut files);
    }
    let mut out = SuiteRuns::default();
    for file in files {
        let Some(module) = module_name(&config.src, &file) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let parsed = lacuna_grammar::parse(&text);
        for function in &parsed.functions {
            let f = &function.syntax;
            let runnable = f.kind == FunctionKind::Def
                && f.name.starts_with("test")
                && f.qualname == f.name
                && f.params.is_empty()
                && !f.is_async
                && f.decorators.is_empty();
            if !runnable {
                continue;
            }
            let request = ExecuteRequest {
                target: Target {
                    module: module.clone(),
                    qualname: f.qualname.clone(),
                    call: Default::default(),
                },
                receiver: None,
                args: vec![],
                kwargs: BTreeMap::new(),
                mocks: vec![],
                timeout_ms: config.budget.execution_timeout_ms.max(5_000),
                random_seed: RANDOM_SEED,
            };
            let Ok(run) = pool.execute(&request) else {
                continue;
            };
            let raised = run
                .exception
                .as_ref()
                .map(|e| format!("{}: {}", e.type_name, e.message));
            out.tests
                .push((module.clone(), f.qualname.clone(), run.status, raised));
            out.runs.push(run);
        }
    }
    out
}

impl SuiteRuns {
    /// What the suite's runs cover of `f`.
    pub fn coverage(&self, f: &FunctionUnderTest) -> SuiteCoverage {
        let index = ConditionIndex::new(f);
        let mut out = SuiteCoverage::default();
        let mut independence: FxHashMap<usize, Independence> = FxHashMap::default();
        for run in &self.runs {
            let observed = observe(f, &index, run);
            out.sides.extend(observed.sides.iter().copied());
            for (d, shown) in observed.independence {
                independence.entry(d).or_default().union(shown);
            }
        }
        out.independence = independence.into_iter().collect();
        out
    }
}
