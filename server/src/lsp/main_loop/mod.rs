//! The owner of the database. One thread receives every document change, save, setting,
//! request that needs its state and generation result, in order, and is the only writer of the
//! salsa database; request handlers never touch it and answer from what was last published
//! (`snapshot`). On change it publishes static diagnostics at once (`results`); on save it asks
//! the `scheduler` which functions to send to the generation thread; results computed for a
//! version that is no longer current are dropped; code actions are offered and resolved here
//! (`actions`) because they must see the guidance module as the owner has it.

mod documents;
mod files;
mod jobs;
mod outcomes;
mod requests;
mod suite_runs;

use super::actions;
use super::document::Document;
use super::event::Event;
use super::generate::{Generator, Request, Versions};
use super::outbox::{Outbox, Status};
use super::results::{self, Results};
use super::scheduler::Scheduler;
use super::settings::Settings;
use super::snapshot::Shared;
use super::store::Store;
use super::suite;
use lacuna_analysis::config::Config;
use lacuna_analysis::db::{Database, SourceFile, Workspace};
use lacuna_analysis::workspace::{FileContents, discover_files};
use rustc_hash::FxHashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Instant;
use tower_lsp_server::ls_types::Uri;

/// Whether the server runs project code.
enum Mode {
    Generate,
    /// Static analysis only, and why.
    Static(&'static str),
}

struct Owner {
    shared: Arc<Shared>,
    outbox: Outbox,
    generator: Option<Sender<Request>>,
    workspace: Workspace,
    config: Arc<Config>,
    /// The configuration the project file gives, before editor settings.
    base_config: Config,
    settings: Settings,
    docs: FxHashMap<Uri, Document>,
    versions: Versions,
    results: Results,
    scheduler: Scheduler,
    /// Project code changed on disk since the workers imported it.
    disk_changed: bool,
    /// The project's own suite: the thread that runs it, the flag that stops a run when
    /// generation starts, and when it runs.
    suite: Option<Sender<suite::Run>>,
    suite_stop: Arc<std::sync::atomic::AtomicBool>,
    suite_state: SuiteState,
}

/// When the project's suite runs: once generation is idle after start-up (or a moment after
/// start-up when nothing is generated), then after each change, one run at a time.
#[derive(Default)]
struct SuiteState {
    running: bool,
    /// Something changed while a run was under way: check again when it ends.
    again: bool,
    /// Start-up: check at this time if generation has not made the server idle by then.
    first: Option<Instant>,
    /// The first check is done (it says so when nothing is stale).
    checked: bool,
}

/// How long after start-up the suite waits for the first generation to begin.
const SUITE_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Starts the owner thread; returns the channel events reach it by.
pub fn spawn(shared: Arc<Shared>, outbox: Outbox) -> Sender<Event> {
    let (tx, rx) = std::sync::mpsc::channel();
    let events = tx.clone();
    std::thread::Builder::new()
        .name("lacuna-owner".into())
        .spawn(move || run(rx, events, shared, outbox))
        .expect("cannot start the server's main thread");
    tx
}

fn run(rx: Receiver<Event>, events: Sender<Event>, shared: Arc<Shared>, outbox: Outbox) {
    // Everything waits for `initialize`.
    let (root, settings, generate, why_static) = loop {
        match rx.recv() {
            Ok(Event::Initialize {
                root,
                settings,
                generate,
                why_static,
            }) => break (root, settings, generate, why_static),
            Ok(_) => continue,
            Err(_) => return,
        }
    };
    let mode = if generate {
        Mode::Generate
    } else {
        Mode::Static(why_static)
    };
    let mut owner = Owner::new(root, settings, mode, shared, outbox, events);
    loop {
        let event = match owner.deadline() {
            Some(deadline) => {
                match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok(event) => Some(event),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            None => match rx.recv() {
                Ok(event) => Some(event),
                Err(_) => return,
            },
        };
        if let Some(event) = event {
            owner.handle(event);
        }
        owner.tick(Instant::now());
    }
}

fn path_of(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}

impl Owner {
    fn new(
        root: Option<PathBuf>,
        settings: Settings,
        mode: Mode,
        shared: Arc<Shared>,
        outbox: Outbox,
        events: Sender<Event>,
    ) -> Owner {
        let root = root.unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        let mut base_config = Config::discover(&root).unwrap_or_else(|e| {
            outbox.warn(format!("Lacuna: {e} (using the defaults)"));
            Config::defaults(&root)
        });
        let files = match discover_files(
            &settings.apply(base_config.clone()),
            std::slice::from_ref(&base_config.root),
        ) {
            Ok(discovered) => {
                for warning in &discovered.warnings {
                    outbox.log(format!("Lacuna: {warning}"));
                }
                discovered.files
            }
            Err(e) => {
                outbox.warn(format!("Lacuna: cannot list the project's files: {e}"));
                vec![]
            }
        };
        lacuna_analysis::workspace::add_roots_for(&mut base_config, &files);
        let config = Arc::new(settings.apply(base_config.clone()));
        let mut workspace = Workspace::new(Database::default(), (*config).clone());
        let contents = files
            .into_iter()
            .map(|p| {
                let c = FileContents::read(&p);
                (p, c)
            })
            .collect();
        workspace.add_files(contents);
        let versions = Versions::default();
        let suite_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (generator, store, suite) = if let Mode::Static(why) = mode {
            outbox.log(format!("Lacuna: {why}."));
            outbox.status(Status::static_only(why));
            (None, None, None)
        } else {
            let store = match Store::open(&config.root) {
                Ok((store, notice)) => {
                    if let Some(notice) = notice {
                        outbox.warn(format!("Lacuna: {notice}"));
                    }
                    Some(store)
                }
                Err(e) => {
                    outbox.warn(format!(
                        "Lacuna: results will not be kept between sessions: {e}"
                    ));
                    None
                }
            };
            if let Some(capped) = config.workers_capped() {
                outbox.log(format!("Lacuna: {capped}"));
            }
            let generator = Generator::spawn(events.clone(), outbox.clone(), versions.clone());
            let _ = generator.send(super::generate::Request::Probe {
                config: config.clone(),
            });
            let events = events.clone();
            let deliver = move |ran| events.send(Event::SuiteRan(Box::new(ran))).is_ok();
            let suite = suite::spawn(deliver, outbox.clone(), suite_stop.clone());
            outbox.status(Status::idle());
            (Some(generator), store, Some(suite))
        };
        *shared.config.write().expect("config lock") = Some(config.clone());
        *shared.settings.write().expect("settings lock") = settings.clone();
        let results = Results::new(store, &config);
        let owner = Owner {
            shared,
            outbox,
            generator,
            workspace,
            config,
            base_config,
            settings,
            docs: FxHashMap::default(),
            versions,
            results,
            scheduler: Scheduler::default(),
            disk_changed: false,
            suite,
            suite_stop,
            suite_state: SuiteState {
                first: Some(Instant::now() + SUITE_GRACE),
                ..SuiteState::default()
            },
        };
        // What the suite showed in an earlier session counts from the first generation on.
        if owner.results.suite_complete() {
            owner.send_observations();
        }
        owner
    }

    /// The next time something is due: saves to explore, or the suite's first check.
    fn deadline(&self) -> Option<Instant> {
        match (self.scheduler.deadline(), self.suite_state.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn tick(&mut self, now: Instant) {
        if self.scheduler.due(now) {
            self.flush_saves();
        }
        if self.suite_state.first.is_some_and(|first| now >= first) {
            self.check_suite();
        }
    }

    fn handle(&mut self, event: Event) {
        // Code actions check the guidance module's declarations; keep them the editor's text.
        let guidance_touched = match &event {
            Event::Open { uri, .. } | Event::Change { uri, .. } | Event::Close { uri } => {
                self.guidance_uri().as_ref() == Some(uri)
            }
            Event::Settings(_) | Event::FilesChanged(_) => true,
            _ => false,
        };
        self.apply(event);
        if guidance_touched {
            let open = self
                .guidance_uri()
                .and_then(|uri| self.docs.get(&uri))
                .map(|doc| doc.text.text.clone());
            *self.shared.open_guidance.write().expect("guidance lock") = open;
        }
    }

    fn guidance_uri(&self) -> Option<Uri> {
        actions::guidance_uri(&self.config)
    }

    /// Each event to the handler that owns it: the editor's documents (`documents`), the
    /// requests answered here (`requests`), what the generation thread tells (`outcomes`), the
    /// files on disk (`files`) and the suite (`suite_runs`).
    fn apply(&mut self, event: Event) {
        match event {
            Event::Initialize { .. } => {}
            Event::Open { uri, text, version } => self.opened(uri, text, version),
            Event::Change {
                uri,
                version,
                changes,
            } => self.changed(uri, version, changes),
            Event::Save { uri } => self.saved(uri),
            Event::Close { uri } => self.closed(uri),
            Event::Settings(settings) => {
                self.settings = settings.clone();
                *self.shared.settings.write().expect("settings lock") = settings;
                self.reconfigure();
            }
            Event::FilesChanged(changes) => self.files_changed(changes),
            Event::Rerun {
                uri,
                function,
                at,
                reply,
            } => self.rerun(uri, function, at, reply),
            Event::Export { directory, reply } => self.export(directory, reply),
            Event::Explored {
                uri,
                version,
                module,
                outcome,
            } => self.explored(uri, version, module, outcome),
            Event::Guidance { reply } => {
                let _ = reply.send(self.guidance_module());
            }
            Event::CodeActions { params, reply } => {
                let _ = reply.send(self.code_actions(&params));
            }
            Event::Resolve { action, reply } => {
                let _ = reply.send(self.resolve(action));
            }
            Event::JobDone { job } => self.job_done(job),
            Event::Interpreter {
                likely,
                probed,
                at_start,
            } => self.interpreter_found(likely, probed, at_start),
            Event::SuiteRan(ran) => self.suite_ran(*ran),
            Event::Suspicious {
                module,
                function,
                fingerprint,
                diagnostics,
            } => self.suspicious_found(module, function, fingerprint, diagnostics),
        }
    }

    fn set_version(&self, uri: &Uri, version: i32) {
        self.versions
            .lock()
            .expect("versions lock")
            .insert(uri.clone(), version);
    }

    fn module_of(&self, file: SourceFile) -> Option<String> {
        results::module_of(&self.workspace, file)
    }

    fn publish(&mut self, uri: &Uri) {
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        self.results.publish(
            uri,
            doc,
            &self.workspace,
            self.generator.is_some(),
            &self.settings,
            &self.shared,
            &self.outbox,
        );
    }
}
