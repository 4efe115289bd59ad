//! Background generation: one thread owns the agent pool and explores the functions the owner
//! asks for, in the order given (the saved document's functions first). Between functions it
//! checks that the document is still at the version the job was made for, and drops the rest
//! of the job when it is not; each function's outcome goes back to the owner as soon as it is
//! known. Explorations are kept for exporting the generated tests.

use super::event::{Event, ExportError};
use super::outbox::{Outbox, Status};
use super::outcome::{FunctionOutcome, StoredDiagnostic};
use lacuna_analysis::agent::Pool;
use lacuna_analysis::config::Config;
use lacuna_analysis::diagnostic::Evidence;
use lacuna_analysis::explore::coverage::FunctionUnderTest;
use lacuna_analysis::explore::exploration::Exploration;
use lacuna_analysis::generation::{self, ExplorationTarget, Facts, ImportMemo};
use lacuna_analysis::guidance::Guidance;
use lacuna_analysis::guidance::dependence::Declarations;
use lacuna_analysis::imports::ImportFailure;
use lacuna_analysis::{emit, explain};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use tower_lsp_server::ls_types::Uri;

/// Who writes each field of the project's classes, as the database computed it for the job.
pub type Writers = Arc<lacuna_analysis::model::class::FieldWriters>;

/// The version each open document is at, shared with the owner: a job whose version is behind
/// is stale.
pub type Versions = Arc<Mutex<FxHashMap<Uri, i32>>>;

pub struct Job {
    pub id: u64,
    pub uri: Uri,
    pub version: i32,
    pub config: Arc<Config>,
    /// Functions to explore, with their fingerprints, most urgent first.
    pub targets: Vec<(ExplorationTarget, u64)>,
    pub writers: Writers,
    /// The project's code changed on disk since the workers imported it.
    pub reload: bool,
}

pub enum Request {
    /// Which interpreter the workers would run, found without starting them (when the server
    /// starts: stored results are keyed by the interpreter that computed them).
    Probe {
        config: Arc<Config>,
    },
    Explore(Job),
    /// What the project's own passing tests show, after a run of the suite (or from the store
    /// at start-up): explored functions are checked against it again for suspicious
    /// assertions (`LCN300`).
    Observations {
        config: Arc<Config>,
        observations: Arc<lacuna_analysis::suite::Observations>,
    },
    /// Explore what has no current exploration, then write pytest files into `dir`.
    Export {
        config: Arc<Config>,
        targets: Vec<(ExplorationTarget, u64)>,
        writers: Writers,
        dir: PathBuf,
        reply: tokio::sync::oneshot::Sender<Result<Vec<PathBuf>, ExportError>>,
    },
}

pub struct Generator {
    events: Sender<Event>,
    outbox: Outbox,
    versions: Versions,
    pool: Option<(Arc<Config>, Pool)>,
    /// The guidance module's declarations, read when the pool starts.
    guidance: Arc<Guidance>,
    /// The same declarations as text, for saying which of them each outcome depends on (none
    /// when the module could not be imported: then nothing was generated with them).
    declarations: Declarations,
    /// What the project's own passing tests show (the suite's thread runs them, the owner
    /// sends what they show), for suspicious assertions; none when the check is off.
    suite: Option<Arc<lacuna_analysis::suite::Observations>>,
    /// What the suite's passing tests give the explorations after it has run: the arguments
    /// they call each function with, the call sequences they make on objects.
    suite_inputs: Arc<generation::SuiteInputs>,
    /// The suite's invariants, for the inputs near its own that explorations keep for what
    /// they break; none before the suite has run or when the check is off.
    watch: Option<Arc<lacuna_analysis::suspicious::Watch>>,
    /// The latest exploration of each function: `(module, qualname)` → (fingerprint, result).
    explored: FxHashMap<(String, String), (u64, FunctionUnderTest, Exploration)>,
    /// The function ID of each explored `(module, qualname)`.
    ids: FxHashMap<(String, String), String>,
    /// The modules the pool's workers could not import: their other functions are not
    /// described again until the pool restarts.
    memo: ImportMemo,
    /// The interpreter the start-up probe found, and for which root and `python` setting: the
    /// first start of the workers runs it without probing it again.
    probed: Option<(
        PathBuf,
        Option<PathBuf>,
        lacuna_analysis::agent::interpreter::Interpreter,
    )>,
}

impl Generator {
    pub fn spawn(events: Sender<Event>, outbox: Outbox, versions: Versions) -> Sender<Request> {
        let (tx, rx) = std::sync::mpsc::channel();
        let generator = Generator {
            events,
            outbox,
            versions,
            pool: None,
            guidance: Arc::default(),
            declarations: Declarations::default(),
            suite: None,
            suite_inputs: Arc::default(),
            watch: None,
            explored: FxHashMap::default(),
            ids: FxHashMap::default(),
            memo: ImportMemo::default(),
            probed: None,
        };
        std::thread::Builder::new()
            .name("lacuna-generation".into())
            .stack_size(generation::EXPLORATION_STACK)
            .spawn(move || generator.run(rx))
            .expect("cannot start the generation thread");
        tx
    }

    fn run(mut self, rx: Receiver<Request>) {
        while let Ok(request) = rx.recv() {
            match request {
                Request::Probe { config } => self.probe(&config),
                Request::Explore(job) => self.explore_job(job),
                Request::Observations {
                    config,
                    observations,
                } => self.observations(&config, observations),
                Request::Export {
                    config,
                    targets,
                    writers,
                    dir,
                    reply,
                } => {
                    let result = self.export(&config, targets, &writers, &dir);
                    let _ = reply.send(result);
                }
            }
        }
    }

    /// The pool for `config`, started (or restarted) when needed.
    fn pool(
        &mut self,
        config: &Arc<Config>,
        reload: bool,
    ) -> Result<&Pool, generation::StartError> {
        let fresh = match &self.pool {
            Some((c, _)) => reload || c != config,
            None => true,
        };
        if fresh {
            self.pool = None;
            // The sandbox is widened only by the user: the user-level configuration's grants.
            let mut granted = (**config).clone();
            granted.grants = lacuna_analysis::config::Grants::user_level().unwrap_or_default();
            let found = self
                .probed
                .take()
                .filter(|(root, python, _)| *root == config.root && *python == config.python)
                .map(|(_, _, found)| found);
            let started = generation::start(&granted, found)?;
            for notice in started.notices() {
                match notice {
                    generation::Notice::Info(message) => {
                        self.outbox.log(format!("Lacuna: {message}"));
                    }
                    generation::Notice::Warning(message) => {
                        self.outbox.warn(format!("Lacuna: {message}"));
                    }
                }
            }
            let pool = started.pool;
            let loaded = started.guidance.unwrap_or_else(|e| {
                self.outbox.warn(format!(
                    "Lacuna: {e}; generating without its mocks and factories"
                ));
                generation::LoadedGuidance::default()
            });
            (self.guidance, self.declarations) = (loaded.guidance, loaded.declarations);
            let _ = self.events.send(Event::Interpreter {
                likely: super::results::interpreter_of(config),
                probed: pool.interpreter().display().to_string(),
                at_start: false,
            });
            self.pool = Some((config.clone(), pool));
            // The code the new workers import may import now.
            self.memo = ImportMemo::default();
        }
        Ok(&self.pool.as_ref().expect("pool just started").1)
    }

    fn probe(&mut self, config: &Config) {
        let allow_unconfined = lacuna_analysis::config::Grants::user_level()
            .unwrap_or_default()
            .allow_unconfined;
        // One that cannot be found says so when the workers start.
        if let Ok(found) = lacuna_analysis::agent::interpreter::discover(
            &config.root,
            config.python.as_deref(),
            allow_unconfined,
        ) {
            let _ = self.events.send(Event::Interpreter {
                likely: super::results::interpreter_of(config),
                probed: found.path.display().to_string(),
                at_start: true,
            });
            self.probed = Some((config.root.clone(), config.python.clone(), found));
        }
    }

    fn current(&self, uri: &Uri, version: i32) -> bool {
        self.versions.lock().expect("versions lock").get(uri) == Some(&version)
    }

    fn explore_job(&mut self, job: Job) {
        let total = job.targets.len();
        let _job = tracing::info_span!(
            "job",
            id = job.id,
            uri = job.uri.as_str(),
            functions = total
        )
        .entered();
        if let Err(e) = self.pool(&job.config, job.reload) {
            self.outbox
                .status(Status::error(format!("cannot start the Python agent: {e}")));
            let _ = self.events.send(Event::JobDone { job: job.id });
            return;
        }
        for (done, (target, fingerprint)) in job.targets.into_iter().enumerate() {
            if !self.current(&job.uri, job.version) {
                break;
            }
            let function = target.function.clone();
            self.outbox
                .status(Status::generating(&target.under_test.qualname, done, total));
            let (under_test, exploration, subjects, import_failure) =
                self.explore_one(&job.config, target, &job.writers);
            let suspicious = self.suspicious(&job.config, &under_test, &exploration);
            let mut outcome = outcome(
                &under_test,
                function.as_str(),
                fingerprint,
                &exploration,
                &subjects,
                &job.config.mcdc,
                &self.declarations,
                import_failure,
            );
            let origin = under_test.anchor.offset;
            outcome
                .diagnostics
                .extend(suspicious.iter().map(|d| StoredDiagnostic::new(d, origin)));
            let module = under_test.module.clone();
            self.ids.insert(
                (module.clone(), under_test.qualname.clone()),
                function.to_string(),
            );
            self.explored.insert(
                (module.clone(), under_test.qualname.clone()),
                (fingerprint, under_test, exploration),
            );
            let _ = self.events.send(Event::Explored {
                uri: job.uri.clone(),
                version: job.version,
                module,
                outcome,
            });
        }
        let _ = self.events.send(Event::JobDone { job: job.id });
    }

    /// The suspicious assertions of an exploration, against the suite's observations.
    fn suspicious(
        &self,
        config: &Config,
        under_test: &FunctionUnderTest,
        exploration: &Exploration,
    ) -> Vec<lacuna_analysis::diagnostic::Diagnostic> {
        match (&self.suite, &self.pool) {
            (Some(observations), Some((_, pool))) if config.suspicious.enabled => {
                lacuna_analysis::suspicious::function_diagnostics(
                    pool,
                    observations,
                    under_test,
                    exploration,
                    &lacuna_analysis::suspicious::Settings::of(&config.suspicious)
                        .accepting(&config.guidance),
                    &config.root,
                )
            }
            _ => vec![],
        }
    }

    /// New observations of the suite: every function explored so far is checked against them
    /// again, and its suspicious assertions go to the owner.
    fn observations(
        &mut self,
        config: &Arc<Config>,
        observations: Arc<lacuna_analysis::suite::Observations>,
    ) {
        self.suite_inputs = Arc::new(generation::SuiteInputs::new(&observations));
        self.watch = config.suspicious.enabled.then(|| {
            let settings = lacuna_analysis::suspicious::Settings::of(&config.suspicious)
                .accepting(&config.guidance);
            Arc::new(lacuna_analysis::suspicious::Watch::new(
                &observations,
                settings,
            ))
        });
        self.suite = Some(observations);
        if self.pool.is_none() || !config.suspicious.enabled {
            return;
        }
        let mut keys: Vec<&(String, String)> = self.explored.keys().collect();
        keys.sort();
        for key in keys {
            let (fingerprint, under_test, exploration) = &self.explored[key];
            let Some(function) = self.ids.get(key) else {
                continue;
            };
            let origin = under_test.anchor.offset;
            let diagnostics = self
                .suspicious(config, under_test, exploration)
                .iter()
                .map(|d| StoredDiagnostic::new(d, origin))
                .collect();
            let _ = self.events.send(Event::Suspicious {
                module: key.0.clone(),
                function: function.clone(),
                fingerprint: *fingerprint,
                diagnostics,
            });
        }
    }

    fn explore_one(
        &mut self,
        config: &Arc<Config>,
        target: ExplorationTarget,
        writers: &Writers,
    ) -> (
        FunctionUnderTest,
        Exploration,
        BTreeSet<String>,
        Option<ImportFailure>,
    ) {
        let budget = generation::budget(config);
        if let Err(e) = self.pool(config, false) {
            let failed = Exploration {
                failure: Some(e.to_string()),
                ..Exploration::default()
            };
            return (target.under_test, failed, BTreeSet::new(), None);
        }
        let facts = Facts {
            writers: writers.clone(),
            guidance: self.guidance.clone(),
            suite: self.suite_inputs.clone(),
            watch: self.watch.clone(),
        };
        let pool = &self.pool.as_ref().expect("pool started").1;
        let known = self.memo.knows(&target.under_test.module);
        let result = generation::explore_target(pool, target, &facts, &budget, None, &self.memo);
        if !known
            && result.import_failure.is_some()
            && let Some(failure) = &result.exploration.failure
        {
            // Said once per module: its other functions fail the same way without asking the
            // agent again, until the pool restarts on a change of the project's code.
            self.outbox.log(format!(
                "Lacuna: {failure}; the module's functions are not explored until its code changes"
            ));
        }
        let subjects = result.guidance_subjects.unwrap_or_default();
        (
            result.target,
            result.exploration,
            subjects,
            result.import_failure,
        )
    }

    fn export(
        &mut self,
        config: &Arc<Config>,
        targets: Vec<(ExplorationTarget, u64)>,
        writers: &Writers,
        dir: &std::path::Path,
    ) -> Result<Vec<PathBuf>, ExportError> {
        let total = targets.len();
        let mut keys = vec![];
        for (i, (target, fingerprint)) in targets.into_iter().enumerate() {
            let key = (
                target.under_test.module.clone(),
                target.under_test.qualname.clone(),
            );
            let fresh = matches!(self.explored.get(&key), Some((f, _, _)) if *f == fingerprint);
            if !fresh {
                self.outbox.status(Status::generating(&key.1, i, total));
                let (under_test, e, _, _) = self.explore_one(config, target, writers);
                self.explored
                    .insert(key.clone(), (fingerprint, under_test, e));
            }
            keys.push(key);
        }
        self.outbox.status(Status::idle());
        let functions: Vec<emit::Explored<'_>> = keys
            .iter()
            .filter_map(|k| self.explored.get(k))
            .map(|(_, t, e)| emit::Explored {
                module: &t.module,
                qualname: &t.qualname,
                exploration: e,
            })
            .collect();
        let python = lacuna_analysis::agent::interpreter::discover(
            &config.root,
            config.python.as_deref(),
            lacuna_analysis::config::Grants::user_level()
                .unwrap_or_default()
                .allow_unconfined,
        )?
        .path;
        let mut granted = (**config).clone();
        granted.grants = lacuna_analysis::config::Grants::user_level().unwrap_or_default();
        let (sandbox, _) = granted.sandbox_policy(&std::env::temp_dir());
        let emitted = emit::emit_project(&functions, &python, &config.src, dir, &sandbox).map_err(
            |error| ExportError::Write {
                dir: dir.to_owned(),
                error,
            },
        )?;
        Ok(emitted.files.iter().map(|f| dir.join(&f.name)).collect())
    }
}

/// What one exploration means for the developer: the explained diagnostics, relative to the
/// function, each uncovered side with the condition it needs and the closest input tried.
#[allow(clippy::too_many_arguments)]
pub fn outcome(
    target: &FunctionUnderTest,
    function: &str,
    fingerprint: u64,
    e: &Exploration,
    subjects: &BTreeSet<String>,
    mcdc: &lacuna_analysis::config::Mcdc,
    declarations: &Declarations,
    import_failure: Option<ImportFailure>,
) -> FunctionOutcome {
    let report = explain::explain(target, e, mcdc);
    let origin = target.anchor.offset;
    // A failed exploration is its function's `LCN107` (with the reason), as in `lacuna check`;
    // an import that failed is its module's `LCN108`, made when the document is published.
    let import_failure = import_failure.filter(|_| e.failure.is_some());
    let diagnostics = if import_failure.is_some() {
        vec![]
    } else if let Some(failure) = &e.failure {
        explain::not_explored::failed_exploration(target, failure)
            .iter()
            .map(|d| StoredDiagnostic::new(d, origin))
            .collect()
    } else {
        report
            .diagnostics
            .iter()
            .map(|d| {
                let mut d = d.clone();
                annotate(&mut d, target, e);
                StoredDiagnostic::new(&d, origin)
            })
            .collect()
    };
    // A run that failed before anything ran cannot say what it depends on.
    let guidance_subjects: Option<Vec<String>> =
        (e.executions > 0 || e.failure.is_none()).then(|| subjects.iter().cloned().collect());
    FunctionOutcome {
        guidance: declarations.key_of(guidance_subjects.as_deref()),
        guidance_subjects,
        function: function.to_owned(),
        fingerprint,
        covered: report.covered,
        total: report.total,
        executions: e.executions,
        tests: e.tests.len(),
        time_ms: e.elapsed.as_millis() as u64,
        failure: e
            .failure
            .as_deref()
            .map(explain::not_explored::without_addresses),
        diagnostics,
        import_failure,
    }
}

/// Adds to an uncovered side's data the condition it needs (Python) and the generated input
/// that came closest: one that reached the decision and took the other side.
fn annotate(
    d: &mut lacuna_analysis::diagnostic::Diagnostic,
    target: &FunctionUnderTest,
    e: &Exploration,
) {
    let Some(uncovered) = d.evidence.as_mut().and_then(Evidence::side_mut) else {
        return;
    };
    let side = uncovered.side;
    let Some((index, decision)) = target
        .syntax
        .decisions
        .iter()
        .enumerate()
        .find(|(_, dec)| dec.id.as_str() == uncovered.decision)
    else {
        return;
    };
    let range = decision.range.absolute(target.anchor);
    if let Some(text) = target.text.get(range.start as usize..range.end as usize) {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        uncovered.needs = Some(if side { text } else { format!("not ({text})") });
    }
    let closest = e
        .tests
        .iter()
        .find(|t| t.sides.contains(&(index, !side)))
        .and_then(|t| emit::call_of(&target.qualname, &t.request));
    if let Some((setup, call)) = closest {
        let mut lines = setup;
        lines.push(call);
        uncovered.closest = Some(lines.join("\n"));
    }
}
