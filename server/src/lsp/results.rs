//! The outcomes of generation and their publication. Outcomes are kept in memory and in the
//! store, keyed by configuration, module and function, and count only for the fingerprint they
//! were computed for and while the guidance declarations they depend on are unchanged.
//! Publishing a document puts its static diagnostics and the outcomes of its functions into the
//! snapshot request handlers read, and sends them (or a refresh, when the client pulls) with
//! the document's coverage to the client.

use super::convert;
use super::document::{Document, Text};
use super::ledger::{FunctionSuite, Ledger};
use super::outbox::{Coverage, Outbox, Outgoing};
use super::outcome::FunctionOutcome;
use super::settings::Settings;
use super::snapshot::{Published, Shared};
use super::store::Store;
use lacuna_analysis::config::Config;
use lacuna_analysis::db::{SourceFile, Workspace, file_functions, module_index, static_report};
use lacuna_analysis::diagnostic::Evidence;
use lacuna_analysis::diagnostic::evidence::{SuiteShows, SuiteView};
use lacuna_analysis::generation;
use lacuna_analysis::guidance::dependence::Declarations;
use lacuna_analysis::suite::Observations;
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::Arc;
use tower_lsp_server::ls_types::Uri;

pub struct Results {
    outcomes: FxHashMap<String, FunctionOutcome>,
    store: Option<Store>,
    /// The configuration an outcome was computed for, without the guidance module.
    config_key: String,
    /// The interpreter the workers run: what a function does depends on the Python running
    /// it, so outcomes another one computed (the system's `python3` before the project's
    /// `.venv` existed, another pyenv version behind the same `python3`) are not shown. The
    /// one the workers were last started with for what `interpreter::likely` names (`probed`),
    /// that name until they have been.
    interpreter: String,
    /// What the workers ran when last started: `interpreter::likely`'s name → the interpreter
    /// `discover` probed (its `sys.executable`), the last one told.
    probed: Option<(String, String)>,
    /// The guidance module's declarations on disk (what the workers import): an outcome is
    /// current while those it depends on are unchanged.
    declarations: Declarations,
    /// What the project's own suite showed, and the configuration it ran under.
    suite: Ledger,
    suite_key: String,
    /// What its passing tests showed: program points, profiles, call sequences.
    observations: Arc<Observations>,
}

/// What identifies the configuration the project's suite ran under.
pub fn suite_key(config: &Config) -> String {
    let text = format!(
        "suite|{}|{:?}|{:?}|{:?}|{:?}|{:?}",
        env!("CARGO_PKG_VERSION"),
        config.python,
        config.tests,
        config.pytest_args,
        config.sandbox,
        config.budget.test_timeout_ms,
    );
    format!("{:016x}", lacuna_grammar::ids::fnv1a(text.as_bytes()))
}

pub use crate::store::config_key;

/// The interpreter `config`'s workers run, told without running it.
pub fn interpreter_of(config: &Config) -> String {
    lacuna_analysis::agent::interpreter::likely(&config.root, config.python.as_deref())
        .display()
        .to_string()
}

/// The suite's ledger and observations stored for a configuration key: both or neither (the
/// suite then runs whole).
fn load_suite(store: Option<&Store>, key: &str) -> (Ledger, Arc<Observations>) {
    let Some(store) = store else {
        return Default::default();
    };
    match (
        store.suite_entry::<Ledger>(key),
        store.suite_entry::<Observations>(&format!("{key}|observations")),
    ) {
        (Some(ledger), Some(observations)) => (ledger, Arc::new(observations)),
        _ => Default::default(),
    }
}

/// The module name of a file of the project.
pub fn module_of(workspace: &Workspace, file: SourceFile) -> Option<String> {
    let db = &workspace.db;
    module_index(db, workspace.project)
        .name(file)
        .map(str::to_owned)
}

impl Results {
    pub fn new(store: Option<Store>, config: &Config) -> Results {
        let suite_key = suite_key(config);
        let (suite, observations) = load_suite(store.as_ref(), &suite_key);
        let mut results = Results {
            outcomes: FxHashMap::default(),
            store,
            config_key: config_key(config),
            interpreter: String::new(),
            probed: None,
            declarations: Declarations::read(&config.guidance),
            suite,
            suite_key,
            observations,
        };
        results.set_interpreter(interpreter_of(config));
        results
    }

    /// What the suite's passing tests showed.
    pub fn observations(&self) -> Arc<Observations> {
        self.observations.clone()
    }

    /// Takes in a run's observations: those of the tests `rerun` ran again replace theirs.
    pub fn merge_observations(&mut self, newer: Observations, rerun: impl Fn(&str) -> bool) {
        Arc::make_mut(&mut self.observations).merge_rerun(newer, rerun);
    }

    /// The suite's ledger, to plan a run against or take one in.
    pub fn suite(&mut self) -> &mut Ledger {
        &mut self.suite
    }

    /// Keeps the suite's ledger and observations in the store.
    pub fn store_suite(&self, outbox: &Outbox) {
        let observations = format!("{}|observations", self.suite_key);
        if let Some(store) = &self.store
            && let Err(e) = store.put_suite(&[
                (&self.suite_key, &self.suite),
                (&observations, &*self.observations),
            ])
        {
            outbox.log(format!("Lacuna: cannot store your tests' results: {e}"));
        }
    }

    /// The suite runs under this configuration from now on: its ledger is the one stored for
    /// it (an empty one, run whole, when none is). Returns whether the configuration differs.
    pub fn set_suite_key(&mut self, key: String) -> bool {
        let changed = key != self.suite_key;
        if changed {
            (self.suite, self.observations) = load_suite(self.store.as_ref(), &key);
            self.suite_key = key;
        }
        changed
    }

    /// Whether the suite has run once under this configuration.
    pub fn suite_complete(&self) -> bool {
        self.suite.complete
    }

    pub fn key(&self, module: &str, function: &str) -> String {
        format!(
            "{}|{}|{module}|{function}",
            self.config_key, self.interpreter
        )
    }

    /// The interpreter outcomes are keyed by now.
    pub fn interpreter(&self) -> &str {
        &self.interpreter
    }

    /// Outcomes are computed with the interpreter `likely` names from now on (the one the
    /// workers ran for that name when they were last started, stored across sessions);
    /// returns whether it differs.
    pub fn set_interpreter(&mut self, likely: String) -> bool {
        let remembered = match &self.probed {
            Some((name, probed)) if *name == likely => Some(probed.clone()),
            _ => self.store.as_ref().and_then(|s| s.interpreter(&likely)),
        };
        if let Some(probed) = &remembered {
            self.probed = Some((likely.clone(), probed.clone()));
        }
        let interpreter = remembered.unwrap_or(likely);
        let changed = interpreter != self.interpreter;
        self.interpreter = interpreter;
        changed
    }

    /// The workers were started with `probed` for the interpreter `likely` names: outcomes
    /// are keyed by it from now on; returns whether that differs.
    pub fn set_probed(&mut self, likely: String, probed: String) -> bool {
        if let Some(store) = &self.store
            && store.interpreter(&likely).as_deref() != Some(probed.as_str())
            && let Err(e) = store.put_interpreter(&likely, &probed)
        {
            tracing::warn!("cannot store the interpreter: {e}");
        }
        self.probed = Some((likely.clone(), probed));
        self.set_interpreter(likely)
    }

    /// Outcomes are computed for this configuration from now on; returns whether it differs.
    pub fn set_config_key(&mut self, key: String) -> bool {
        let changed = key != self.config_key;
        self.config_key = key;
        changed
    }

    /// The guidance module on disk declares these now; returns whether they differ.
    pub fn set_declarations(&mut self, declarations: Declarations) -> bool {
        let changed = declarations != self.declarations;
        if changed {
            self.declarations = declarations;
        }
        changed
    }

    /// The outcome of a function for its current fingerprint, from memory or the store.
    pub fn outcome(
        &mut self,
        module: &str,
        function: &str,
        fingerprint: u64,
    ) -> Option<&FunctionOutcome> {
        let key = self.key(module, function);
        let fresh = self
            .outcomes
            .get(&key)
            .is_some_and(|o| o.fingerprint == fingerprint);
        if !fresh {
            let stored = self.store.as_ref()?.get(&key, fingerprint)?;
            self.outcomes.insert(key.clone(), stored);
        }
        self.outcomes
            .get(&key)
            .filter(|o| o.guided_by(&self.declarations))
    }

    /// A new outcome, kept in memory and stored.
    pub fn record(&mut self, key: String, outcome: FunctionOutcome, outbox: &Outbox) {
        if let Some(store) = &self.store
            && let Err(e) = store.put(&[(key.clone(), outcome.clone())])
        {
            outbox.log(format!("Lacuna: cannot store results: {e}"));
        }
        self.outcomes.insert(key, outcome);
    }

    /// Replaces the suspicious assertions (`LCN300`) of a function's outcome at `fingerprint`;
    /// returns whether they changed.
    pub fn replace_suspicious(
        &mut self,
        key: &str,
        fingerprint: u64,
        diagnostics: Vec<super::outcome::StoredDiagnostic>,
        outbox: &Outbox,
    ) -> bool {
        const CODE: &str = "LCN300";
        let Some(outcome) = self
            .outcomes
            .get_mut(key)
            .filter(|o| o.fingerprint == fingerprint)
        else {
            return false;
        };
        let old: Vec<_> = outcome
            .diagnostics
            .iter()
            .filter(|d| d.code == CODE)
            .collect();
        if old.len() == diagnostics.len() && old.iter().zip(&diagnostics).all(|(a, b)| *a == b) {
            return false;
        }
        outcome.diagnostics.retain(|d| d.code != CODE);
        outcome.diagnostics.extend(diagnostics);
        let outcome = outcome.clone();
        self.record(key.to_owned(), outcome, outbox);
        true
    }

    /// Forgets the outcome of one function (it is explored again).
    pub fn forget(&mut self, key: &str) {
        self.outcomes.remove(key);
    }

    /// Forgets every outcome, the stored ones too.
    pub fn clear(&mut self, outbox: &Outbox) {
        if let Some(store) = &self.store
            && let Err(e) = store.clear()
        {
            outbox.log(format!("Lacuna: cannot clear the store: {e}"));
        }
        self.outcomes.clear();
        self.suite = Ledger::default();
        self.observations = Arc::default();
    }

    /// Publishes a document's diagnostics: static ones for its current text, and generation
    /// results of every function whose fingerprint they were computed for. `generating`: the
    /// functions generation does not explore say why.
    #[allow(clippy::too_many_arguments)]
    pub fn publish(
        &mut self,
        uri: &Uri,
        doc: &Document,
        workspace: &Workspace,
        generating: bool,
        settings: &Settings,
        shared: &Shared,
        outbox: &Outbox,
    ) {
        let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else {
            return;
        };
        let Some(file) = workspace.lookup(&path) else {
            return;
        };
        let db = &workspace.db;
        let report = static_report(db, file).clone();
        let anchors: FxHashMap<String, u32> = file_functions(db, file)
            .iter()
            .map(|n| (n.id(db).to_string(), n.anchor(db).offset))
            .collect();
        let module = module_of(workspace, file).unwrap_or_default();
        let mut diagnostics = report.diagnostics.clone();
        let (mut covered, mut total, mut by_suite) = (0, 0, 0);
        // Once the suite has run, and only when the project has tests.
        let suite_ran = self.suite.complete && !self.suite.tests.is_empty();
        let mut suite_sides: FxHashMap<String, usize> = FxHashMap::default();
        // Functions whose module could not be imported: its `LCN108`s, below.
        let mut failed_imports = vec![];
        for f in &report.functions {
            let id = f.id.to_string();
            let Some(origin) = anchors.get(&id).copied() else {
                continue;
            };
            let key = format!("{module}:{}", f.qualname);
            let outcome = self.outcome(&module, &id, f.fingerprint).cloned();
            let suite = self.suite.function(&key, f.fingerprint);
            let suite_covers = suite.covered().len();
            let suite = suite_ran.then_some(suite);
            suite_sides.insert(id.clone(), suite_covers);
            let Some(o) = outcome else {
                continue;
            };
            by_suite += suite_covers;
            covered += o.covered;
            total += o.total;
            if let Some(failure) = &o.import_failure {
                failed_imports.push(failure.clone());
            }
            diagnostics.extend(o.diagnostics.iter().filter_map(|d| {
                let mut d = d.at(origin)?;
                if let Some(suite) = &suite {
                    annotate(&mut d, &f.qualname, suite);
                }
                Some(d)
            }));
        }
        // Every function has an outcome: those generation does not explore say why.
        if generating {
            let (_, skipped) = generation::targets(db, &[file]);
            for s in skipped {
                total += s.branch_sides;
                by_suite += suite_sides
                    .get(&s.function.to_string())
                    .copied()
                    .unwrap_or(0);
                diagnostics.push(s.diagnostic);
            }
        }
        let config = workspace.project.config(db);
        diagnostics.extend(self.import_diagnostics(
            &module,
            &path,
            doc,
            &failed_imports,
            &config.root,
        ));
        diagnostics.sort_by_key(|d| (d.range.start, d.code));
        // `select`, `ignore` and `extend-select` of `[tool.lacuna]`, as `lacuna check` applies them.
        diagnostics.retain(|d| config.selection.selects(d.code));
        // `# lacuna: ignore[…]` on a diagnostic's line, as `lacuna check` honours it.
        let suppressions =
            lacuna_analysis::suppression::Suppressions::of(&doc.text.text, &doc.text.lines);
        diagnostics.retain(|d| !suppressions.suppresses(d, &doc.text.lines));
        let encoding = shared.encoding();
        let lsp_diagnostics = diagnostics
            .iter()
            .filter_map(|d| {
                convert::diagnostic(d, uri, &doc.text, encoding, settings, &|p: &Path| {
                    std::fs::read_to_string(p).ok().map(Text::new)
                })
            })
            .collect();
        shared.published.write().expect("published lock").insert(
            uri.clone(),
            Published {
                version: doc.version,
                text: doc.text.clone(),
                diagnostics,
            },
        );
        if shared.pull.load(std::sync::atomic::Ordering::Relaxed) {
            outbox.send(Outgoing::Refresh);
        } else {
            outbox.send(Outgoing::Publish {
                uri: uri.clone(),
                version: Some(doc.version),
                diagnostics: lsp_diagnostics,
            });
        }
        if total > 0 {
            outbox.send(Outgoing::Coverage(Coverage {
                uri: uri.clone(),
                covered,
                total,
                suite: suite_ran.then_some(by_suite.min(total)),
            }));
        }
    }
}

impl Results {
    /// One `LCN108` per missing dependency or failing module among `failures` (of functions of
    /// the document's module), as `lacuna check` gives them: on the document's import statement
    /// that leads to the failure, or its first line; the fix names the interpreter the workers
    /// run.
    fn import_diagnostics(
        &self,
        module: &str,
        path: &std::path::Path,
        doc: &Document,
        failures: &[lacuna_analysis::imports::ImportFailure],
        root: &std::path::Path,
    ) -> Vec<lacuna_analysis::diagnostic::Diagnostic> {
        use lacuna_analysis::imports::{self, Failed, Shown};
        if failures.is_empty() {
            return vec![];
        }
        let failed: Vec<Failed<'_>> = failures
            .iter()
            .map(|failure| Failed {
                module,
                file: path,
                failure,
            })
            .collect();
        let mut shown = Shown::default();
        shown.add(path, Arc::from(doc.text.text.as_ref()));
        let python = std::path::PathBuf::from(self.interpreter());
        imports::diagnostics(&failed, &python, root, &shown)
            .into_iter()
            .map(|(_, d)| d)
            .collect()
    }
}

/// Adds to an uncovered side's data what the project's own tests show of it: the test that
/// covers it, or the one that comes closest and how close (`suite` in the diagnostic's data,
/// which hover reads).
fn annotate(
    d: &mut lacuna_analysis::diagnostic::Diagnostic,
    function: &str,
    suite: &FunctionSuite<'_>,
) {
    let Some(uncovered) = d.evidence.as_mut().and_then(Evidence::side_mut) else {
        return;
    };
    let (decision, side) = (uncovered.decision.as_str(), uncovered.side);
    let tests = suite.tests.len();
    let (reached, shows) = if let Some(test) = suite.covering(decision, side) {
        let covered_by = test.to_owned();
        (tests, SuiteShows::Covered { covered_by })
    } else if let Some((test, at_decision)) = suite.closest(decision, side) {
        let closest = test.to_owned();
        (
            tests,
            SuiteShows::Closest {
                closest,
                at_decision,
            },
        )
    } else {
        (0, SuiteShows::Nothing {})
    };
    uncovered.suite = Some(SuiteView {
        function: function.to_owned(),
        reached,
        shows,
    });
}
