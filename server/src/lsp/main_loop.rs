//! The owner of the database. One thread receives every document change, save, setting and
//! generation result, in order, and is the only writer of the salsa database; request handlers
//! never touch it and answer from what was last published (a snapshot per document). On change
//! it publishes static diagnostics at once; on save (debounced) it sends the impacted functions
//! — those without an outcome for their current fingerprint — to the generation thread, the
//! saved document first; results computed for a version that is no longer current are dropped.

use super::convert;
use super::document::{Document, Encoding, Text};
use super::generate::{Generator, Job, Request, Versions};
use super::outbox::{Coverage, Outbox, Outgoing, Status};
use super::outcome::FunctionOutcome;
use super::settings::Settings;
use super::store::Store;
use lacuna_analysis::config::Config;
use lacuna_analysis::db::{
    Database, SourceFile, Workspace, file_functions, module_index, static_report,
};
use lacuna_analysis::diagnostic::Diagnostic;
use lacuna_analysis::generation;
use lacuna_analysis::guidance::dependence::Declarations;
use lacuna_analysis::workspace::{FileContents, discover_files};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use tower_lsp_server::ls_types::{FileChangeType, TextDocumentContentChangeEvent, Uri};

/// Saves within this interval are explored together.
const DEBOUNCE: Duration = Duration::from_millis(150);

pub enum Event {
    Initialize {
        root: Option<PathBuf>,
        settings: Settings,
        generate: bool,
        /// What the user is told when `generate` is false.
        why_static: &'static str,
    },
    Open {
        uri: Uri,
        text: String,
        version: i32,
    },
    Change {
        uri: Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    },
    Save {
        uri: Uri,
    },
    Close {
        uri: Uri,
    },
    Settings(Settings),
    FilesChanged(Vec<(PathBuf, FileChangeType)>),
    Rerun {
        uri: Option<Uri>,
        function: Option<String>,
    },
    Export {
        directory: Option<PathBuf>,
        reply: tokio::sync::oneshot::Sender<Result<Vec<PathBuf>, String>>,
    },
    Explored {
        uri: Uri,
        version: i32,
        module: String,
        outcome: FunctionOutcome,
    },
    JobDone {
        job: u64,
    },
    /// The guidance module's path, created with its header when missing (not in static mode,
    /// which writes nothing): `(path, created)`.
    Guidance {
        reply: tokio::sync::oneshot::Sender<Result<(PathBuf, bool), String>>,
    },
    /// The code actions for a range, checked against the guidance module as resolving them
    /// will see it (so that an action that would be refused is never offered).
    CodeActions {
        params: tower_lsp_server::ls_types::CodeActionParams,
        reply: tokio::sync::oneshot::Sender<Vec<tower_lsp_server::ls_types::CodeActionOrCommand>>,
    },
    /// Computes the edit of a code action offered earlier.
    Resolve {
        action: tower_lsp_server::ls_types::CodeAction,
        reply: tokio::sync::oneshot::Sender<Result<tower_lsp_server::ls_types::CodeAction, String>>,
    },
}

/// What was last published for a document: what hover and code actions answer from.
#[derive(Clone, Debug)]
pub struct Published {
    pub version: i32,
    pub text: Text,
    pub diagnostics: Vec<Diagnostic>,
}

/// State shared with the request handlers: read-only for them.
pub struct Shared {
    pub encoding: RwLock<Encoding>,
    pub published: RwLock<FxHashMap<Uri, Published>>,
    pub config: RwLock<Option<Arc<Config>>>,
    pub settings: RwLock<Settings>,
    /// The client pulls diagnostics (`textDocument/diagnostic`) instead of receiving them.
    pub pull: std::sync::atomic::AtomicBool,
    /// The guidance module's text while the editor has it open (otherwise the disk's is
    /// current): what hover points into.
    pub open_guidance: RwLock<Option<String>>,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            encoding: RwLock::new(Encoding::Utf16),
            published: RwLock::default(),
            config: RwLock::default(),
            settings: RwLock::default(),
            pull: Default::default(),
            open_guidance: RwLock::default(),
        }
    }
}

impl Shared {
    pub fn encoding(&self) -> Encoding {
        *self.encoding.read().expect("encoding lock")
    }

    /// The guidance module's path and current text: the editor's while it is open there, else
    /// the disk's; none when it does not exist.
    pub fn guidance(&self) -> Option<(PathBuf, String)> {
        let path = self
            .config
            .read()
            .expect("config lock")
            .as_ref()?
            .guidance
            .clone();
        let open = self.open_guidance.read().expect("guidance lock").clone();
        let text = open.or_else(|| std::fs::read_to_string(&path).ok())?;
        Some((path, text))
    }
}

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
    /// The configuration an outcome was computed for, without the guidance module.
    config_key: String,
    /// The guidance module's declarations on disk (what the workers import): an outcome is
    /// current while those it depends on are unchanged.
    declarations: Declarations,
    docs: FxHashMap<Uri, Document>,
    versions: Versions,
    outcomes: FxHashMap<String, FunctionOutcome>,
    store: Option<Store>,
    pending_saves: Vec<Uri>,
    save_deadline: Option<Instant>,
    /// Project code changed on disk since the workers imported it.
    disk_changed: bool,
    next_job: u64,
    running: FxHashSet<u64>,
    /// Functions a job not done yet will explore: key → (job, fingerprint, document version).
    /// Scheduling skips them, so that a save and a configuration change close together do not
    /// explore the same function twice.
    queued: FxHashMap<String, (u64, u64, i32)>,
}

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
        let event = match owner.save_deadline {
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
        match event {
            Some(event) => owner.handle(event),
            None => owner.flush_saves(),
        }
        if owner
            .save_deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            owner.flush_saves();
        }
    }
}

fn path_of(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}

fn config_key(config: &Config) -> String {
    let text = format!(
        "{}|{:?}|{:?}|{:?}|{:?}|{:?}",
        env!("CARGO_PKG_VERSION"),
        config.python,
        config.budget,
        config.mcdc,
        config.sandbox,
        config.guidance,
    );
    format!("{:016x}", lacuna_grammar::ids::fnv1a(text.as_bytes()))
}

fn declarations(config: &Config) -> Declarations {
    Declarations::parse(&std::fs::read_to_string(&config.guidance).unwrap_or_default())
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
        let base_config = Config::discover(&root).unwrap_or_else(|e| {
            outbox.warn(format!("Lacuna: {e} (using the defaults)"));
            Config::defaults(&root)
        });
        let config = Arc::new(settings.apply(base_config.clone()));
        let mut workspace = Workspace::new(Database::default(), (*config).clone());
        match discover_files(&config, std::slice::from_ref(&config.root)) {
            Ok(discovered) => {
                for warning in &discovered.warnings {
                    outbox.log(format!("Lacuna: {warning}"));
                }
                let contents = discovered
                    .files
                    .into_iter()
                    .map(|p| {
                        let c = FileContents::read(&p);
                        (p, c)
                    })
                    .collect();
                workspace.add_files(contents);
            }
            Err(e) => outbox.warn(format!("Lacuna: cannot list the project's files: {e}")),
        }
        let versions = Versions::default();
        let (generator, store) = if let Mode::Static(why) = mode {
            outbox.log(format!("Lacuna: {why}."));
            outbox.status(Status::static_only(why));
            (None, None)
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
            outbox.status(Status::idle());
            (Some(generator), store)
        };
        *shared.config.write().expect("config lock") = Some(config.clone());
        *shared.settings.write().expect("settings lock") = settings.clone();
        let config_key = config_key(&config);
        let declarations = declarations(&config);
        Owner {
            shared,
            outbox,
            generator,
            workspace,
            config,
            base_config,
            settings,
            config_key,
            declarations,
            docs: FxHashMap::default(),
            versions,
            outcomes: FxHashMap::default(),
            store,
            pending_saves: vec![],
            save_deadline: None,
            disk_changed: false,
            next_job: 0,
            running: FxHashSet::default(),
            queued: FxHashMap::default(),
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
        Uri::from_file_path(&self.config.guidance)
    }

    /// The guidance module's text and version as the editor has it, else the disk's text.
    fn guidance_text(&self) -> (Option<String>, Option<i32>) {
        match self.guidance_uri().and_then(|uri| self.docs.get(&uri)) {
            Some(doc) => (Some(doc.text.text.clone()), Some(doc.version)),
            None => (std::fs::read_to_string(&self.config.guidance).ok(), None),
        }
    }

    fn apply(&mut self, event: Event) {
        match event {
            Event::Initialize { .. } => {}
            Event::Open { uri, text, version } => {
                let Some(path) = path_of(&uri) else { return };
                self.workspace
                    .file(&path, FileContents::Text(Arc::from(text.as_str())));
                self.docs.insert(
                    uri.clone(),
                    Document {
                        text: Text::new(text),
                        version,
                    },
                );
                self.set_version(&uri, version);
                self.publish(&uri);
                if self.settings.generate_on_save() {
                    self.schedule(&[uri], None, false);
                }
            }
            Event::Change {
                uri,
                version,
                changes,
            } => {
                let encoding = self.shared.encoding();
                let Some(doc) = self.docs.get_mut(&uri) else {
                    return;
                };
                doc.apply(changes, version, encoding);
                let text: Arc<str> = Arc::from(doc.text.text.as_str());
                if let Some(path) = path_of(&uri) {
                    self.workspace.file(&path, FileContents::Text(text));
                }
                self.set_version(&uri, version);
                self.publish(&uri);
            }
            Event::Save { uri } => {
                if !self.docs.contains_key(&uri) {
                    return;
                }
                self.disk_changed = true;
                if !self.pending_saves.contains(&uri) {
                    self.pending_saves.push(uri);
                }
                self.save_deadline = Some(Instant::now() + DEBOUNCE);
            }
            Event::Close { uri } => {
                self.docs.remove(&uri);
                self.versions.lock().expect("versions lock").remove(&uri);
                self.shared
                    .published
                    .write()
                    .expect("published lock")
                    .remove(&uri);
                if let Some(path) = path_of(&uri) {
                    // What the project sees is the file on disk again.
                    self.workspace.file(&path, FileContents::read(&path));
                }
                self.outbox.send(Outgoing::Publish {
                    uri,
                    version: None,
                    diagnostics: vec![],
                });
            }
            Event::Settings(settings) => {
                self.settings = settings.clone();
                *self.shared.settings.write().expect("settings lock") = settings;
                self.reconfigure();
            }
            Event::FilesChanged(changes) => self.files_changed(changes),
            Event::Rerun { uri, function } => {
                let uris: Vec<Uri> = match uri {
                    Some(uri) => vec![uri],
                    None => {
                        // Everything again: what is stored goes too.
                        if let Some(store) = &self.store
                            && let Err(e) = store.clear()
                        {
                            self.outbox
                                .log(format!("Lacuna: cannot clear the store: {e}"));
                        }
                        self.outcomes.clear();
                        self.docs.keys().cloned().collect()
                    }
                };
                self.disk_changed = true;
                self.schedule(&uris, function.as_deref(), true);
            }
            Event::Export { directory, reply } => self.export(directory, reply),
            Event::Explored {
                uri,
                version,
                module,
                outcome,
            } => {
                // Never publish what was computed for an older version of the document.
                let current = self.docs.get(&uri).map(|d| d.version);
                if current != Some(version) {
                    return;
                }
                let key = self.key(&module, &outcome.function);
                self.queued.remove(&key);
                if let Some(store) = &self.store
                    && let Err(e) = store.put(&[(key.clone(), outcome.clone())])
                {
                    self.outbox
                        .log(format!("Lacuna: cannot store results: {e}"));
                }
                self.outcomes.insert(key, outcome);
                self.publish(&uri);
            }
            Event::Guidance { reply } => {
                let _ = reply.send(self.guidance_module());
            }
            Event::CodeActions { params, reply } => {
                let (guidance, _) = self.guidance_text();
                let published = self.shared.published.read().expect("published lock");
                let actions = published
                    .get(&params.text_document.uri)
                    .map(|doc| super::actions::offer(&params, doc, guidance.as_deref()))
                    .unwrap_or_default();
                let _ = reply.send(actions);
            }
            Event::Resolve { action, reply } => {
                let _ = reply.send(self.resolve(action));
            }
            Event::JobDone { job } => {
                self.running.remove(&job);
                // What a dropped job did not explore is no longer on its way.
                self.queued.retain(|_, q| q.0 != job);
                if self.running.is_empty() {
                    self.outbox.status(Status::idle());
                }
            }
        }
    }

    fn guidance_module(&self) -> Result<(PathBuf, bool), String> {
        let path = self.config.guidance.clone();
        if path.exists() || self.generator.is_none() {
            return Ok((path, false));
        }
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut f| {
                    std::io::Write::write_all(&mut f, super::guidance::HEADER.as_bytes())
                })
        };
        write().map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok((path, true))
    }

    fn resolve(
        &mut self,
        mut action: tower_lsp_server::ls_types::CodeAction,
    ) -> Result<tower_lsp_server::ls_types::CodeAction, String> {
        let payload = action.data.clone().ok_or("the action carries no data")?;
        let uri: Uri = payload["uri"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .ok_or("the action names no document")?;
        let offered_for = payload["version"].as_i64();
        let current = self.docs.get(&uri).map(|d| i64::from(d.version));
        if current != offered_for {
            return Err(format!(
                "{} changed since this action was offered; ask for it again",
                uri.as_str()
            ));
        }
        if payload["kind"] == "loop-bound" {
            action.edit = Some(self.loop_bound_edit(&payload)?);
            return Ok(action);
        }
        let guidance_path = self.config.guidance.clone();
        let guidance_uri = self
            .guidance_uri()
            .ok_or_else(|| format!("{} is not a file path", guidance_path.display()))?;
        let (text, version) = self.guidance_text();
        let class_api = payload["class"].as_str().and_then(|q| self.class_api(q));
        let insertions = super::actions::insertions(&payload, text.as_deref(), class_api.as_ref())?;
        // Never corrupt the module: the result must parse if the module did.
        let before = text.as_deref().unwrap_or("");
        let after = super::guidance::apply(before, &insertions);
        let errors = |t: &str| lacuna_grammar::parse(t).syntax_errors.len();
        if errors(&after) > errors(before) {
            return Err(
                "the declaration would not parse in the guidance module; nothing was changed"
                    .into(),
            );
        }
        let file = super::actions::GuidanceFile {
            uri: guidance_uri,
            text,
            version,
        };
        action.edit = Some(super::actions::edit(
            &file,
            &insertions,
            self.shared.encoding(),
        ));
        Ok(action)
    }

    /// The edit that sets `[tool.lacuna.budget] loop-bound` in the project's `pyproject.toml`
    /// (created when missing), as the editor or the disk has it.
    fn loop_bound_edit(
        &self,
        payload: &serde_json::Value,
    ) -> Result<tower_lsp_server::ls_types::WorkspaceEdit, String> {
        let bound = payload["bound"]
            .as_u64()
            .and_then(|b| u32::try_from(b).ok())
            .ok_or("the action names no bound")?;
        let path = self
            .config
            .source
            .clone()
            .unwrap_or_else(|| self.config.root.join("pyproject.toml"));
        let uri = Uri::from_file_path(&path)
            .ok_or_else(|| format!("{} is not a file path", path.display()))?;
        let (text, version) = match self.docs.get(&uri) {
            Some(doc) => (Some(doc.text.text.clone()), Some(doc.version)),
            None => (std::fs::read_to_string(&path).ok(), None),
        };
        let new_text = super::budget::with_loop_bound(text.as_deref().unwrap_or(""), bound)?;
        Ok(super::actions::replace_all(
            &super::actions::GuidanceFile { uri, text, version },
            new_text,
            self.shared.encoding(),
        ))
    }

    /// A class's constructor parameters and public methods, by `module:Qual` name.
    fn class_api(&self, qualified: &str) -> Option<super::actions::ClassApi> {
        let (module, qualname) = qualified.split_once(':')?;
        let db = &self.workspace.db;
        let file = module_index(db, self.workspace.project).file(module)?;
        lacuna_analysis::db::file_classes(db, file)
            .iter()
            .map(|&c| lacuna_analysis::db::class_model(db, c))
            .find(|m| m.qualname == qualname)
            .map(|m| super::actions::ClassApi {
                init: m.init_params.clone().unwrap_or_default(),
                methods: m.public_methods.clone(),
                prerequisites: m
                    .public_methods
                    .iter()
                    .map(|(method, _)| (method.clone(), m.prerequisites(method)))
                    .collect(),
            })
    }

    fn set_version(&self, uri: &Uri, version: i32) {
        self.versions
            .lock()
            .expect("versions lock")
            .insert(uri.clone(), version);
    }

    fn key(&self, module: &str, function: &str) -> String {
        format!("{}|{module}|{function}", self.config_key)
    }

    fn module_of(&self, file: SourceFile) -> Option<String> {
        let db = &self.workspace.db;
        module_index(db, self.workspace.project)
            .name(file)
            .map(str::to_owned)
    }

    /// The outcome of a function for its current fingerprint, from memory or the store.
    fn outcome(
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

    /// Publishes a document's diagnostics: static ones for its current text, and generation
    /// results of every function whose fingerprint they were computed for.
    fn publish(&mut self, uri: &Uri) {
        let (Some(doc), Some(path)) = (self.docs.get(uri).cloned(), path_of(uri)) else {
            return;
        };
        let Some(file) = self.workspace.lookup(&path) else {
            return;
        };
        let report = static_report(&self.workspace.db, file).clone();
        let anchors: FxHashMap<String, u32> = file_functions(&self.workspace.db, file)
            .iter()
            .map(|n| {
                (
                    n.id(&self.workspace.db).to_string(),
                    n.anchor(&self.workspace.db).offset,
                )
            })
            .collect();
        let module = self.module_of(file).unwrap_or_default();
        let mut diagnostics = report.diagnostics.clone();
        let (mut covered, mut total) = (0, 0);
        for f in &report.functions {
            let id = f.id.to_string();
            let Some(origin) = anchors.get(&id).copied() else {
                continue;
            };
            if let Some(o) = self.outcome(&module, &id, f.fingerprint) {
                covered += o.covered;
                total += o.total;
                diagnostics.extend(o.diagnostics.iter().filter_map(|d| d.at(origin)));
            }
        }
        // Every function has an outcome: those generation does not explore say why.
        if self.generator.is_some() {
            let (_, skipped) = generation::targets(&self.workspace.db, &[file]);
            for s in skipped {
                total += s.branch_sides;
                diagnostics.push(s.diagnostic);
            }
        }
        diagnostics.sort_by_key(|d| (d.range.start, d.code));
        let encoding = self.shared.encoding();
        let lsp_diagnostics = diagnostics
            .iter()
            .filter_map(|d| {
                convert::diagnostic(d, uri, &doc.text, encoding, &self.settings, &|p: &Path| {
                    std::fs::read_to_string(p).ok().map(Text::new)
                })
            })
            .collect();
        self.shared
            .published
            .write()
            .expect("published lock")
            .insert(
                uri.clone(),
                Published {
                    version: doc.version,
                    text: doc.text.clone(),
                    diagnostics,
                },
            );
        if self.shared.pull.load(std::sync::atomic::Ordering::Relaxed) {
            self.outbox.send(Outgoing::Refresh);
        } else {
            self.outbox.send(Outgoing::Publish {
                uri: uri.clone(),
                version: Some(doc.version),
                diagnostics: lsp_diagnostics,
            });
        }
        if total > 0 {
            self.outbox.send(Outgoing::Coverage(Coverage {
                uri: uri.clone(),
                covered,
                total,
            }));
        }
    }

    fn flush_saves(&mut self) {
        self.save_deadline = None;
        let saved = std::mem::take(&mut self.pending_saves);
        if saved.is_empty() || !self.settings.generate_on_save() {
            return;
        }
        // The saved documents first, then every other open document whose functions an edit
        // may have changed (their fingerprints include the code they call).
        let mut uris = saved.clone();
        uris.extend(self.docs.keys().filter(|u| !saved.contains(u)).cloned());
        self.schedule(&uris, None, false);
    }

    /// Sends the functions of `uris` that need exploring to the generation thread, one job per
    /// document. `force`: explore even what has a current outcome (`lacuna.rerun`).
    fn schedule(&mut self, uris: &[Uri], only: Option<&str>, force: bool) {
        let Some(generator) = self.generator.clone() else {
            return;
        };
        // Which methods write which fields: computed once per call, and only when needed.
        let mut writers = None;
        for uri in uris {
            let Some(doc) = self.docs.get(uri) else {
                continue;
            };
            let version = doc.version;
            let Some(file) = path_of(uri).and_then(|p| self.workspace.lookup(&p)) else {
                continue;
            };
            let report = static_report(&self.workspace.db, file).clone();
            let (targets, _skipped) = generation::targets(&self.workspace.db, &[file]);
            let module = self.module_of(file).unwrap_or_default();
            let mut job_targets = vec![];
            for target in targets {
                let id = target.1.to_string();
                if only.is_some_and(|f| f != id && f != target.2.qualname) {
                    continue;
                }
                let Some(fingerprint) = report
                    .functions
                    .iter()
                    .find(|f| f.id.as_str() == id)
                    .map(|f| f.fingerprint)
                else {
                    continue;
                };
                if force {
                    let key = self.key(&module, &id);
                    self.outcomes.remove(&key);
                } else if self.outcome(&module, &id, fingerprint).is_some() {
                    continue;
                }
                let key = self.key(&module, &id);
                let queued = (self.next_job + 1, fingerprint, version);
                if !force
                    && self
                        .queued
                        .get(&key)
                        .is_some_and(|q| (q.1, q.2) == (fingerprint, version))
                {
                    continue; // a job not done yet explores it
                }
                self.queued.insert(key, queued);
                job_targets.push((target, fingerprint));
            }
            if job_targets.is_empty() {
                continue;
            }
            self.next_job += 1;
            self.running.insert(self.next_job);
            let job = Job {
                id: self.next_job,
                uri: uri.clone(),
                version,
                config: self.config.clone(),
                targets: job_targets,
                writers: writers
                    .get_or_insert_with(|| {
                        let db = &self.workspace.db;
                        generation::writers(db, self.workspace.project.files(db))
                    })
                    .clone(),
                reload: std::mem::take(&mut self.disk_changed),
            };
            if generator.send(Request::Explore(job)).is_err() {
                self.outbox
                    .status(Status::error("the generation thread stopped".into()));
            }
        }
    }

    fn export(
        &mut self,
        directory: Option<PathBuf>,
        reply: tokio::sync::oneshot::Sender<Result<Vec<PathBuf>, String>>,
    ) {
        let Some(generator) = self.generator.clone() else {
            let _ = reply.send(Err(
                "generation is off (untrusted workspace or static mode): nothing to export".into(),
            ));
            return;
        };
        let dir = match directory {
            Some(d) if d.is_absolute() => d,
            Some(d) => self.config.root.join(d),
            None => self.config.root.join("tests").join("generated"),
        };
        let db = &self.workspace.db;
        let project: Vec<SourceFile> = (**self.workspace.project.files(db)).clone();
        let writers = generation::writers(db, &project);
        let (targets, _) = generation::targets(db, &project);
        let mut with_fingerprints = vec![];
        for target in targets {
            let report = static_report(db, target.0);
            if let Some(f) = report.functions.iter().find(|f| f.id == target.1) {
                let fingerprint = f.fingerprint;
                with_fingerprints.push((target, fingerprint));
            }
        }
        let request = Request::Export {
            config: self.config.clone(),
            targets: with_fingerprints,
            writers,
            dir,
            reply,
        };
        let _ = generator.send(request);
    }

    /// Re-reads the project file and applies the editor settings over it.
    fn reconfigure(&mut self) {
        let base = match self.base_config.source.clone() {
            Some(file) => Config::load(&file).unwrap_or_else(|e| {
                self.outbox
                    .warn(format!("Lacuna: {e} (keeping the previous configuration)"));
                self.base_config.clone()
            }),
            None => {
                Config::discover(&self.config.root).unwrap_or_else(|_| self.base_config.clone())
            }
        };
        self.base_config = base;
        let config = Arc::new(self.settings.apply(self.base_config.clone()));
        let key = config_key(&config);
        let declarations = declarations(&config);
        if declarations != self.declarations {
            // Jobs already queued explore with the declarations they started with.
            self.queued.clear();
            self.declarations = declarations;
        }
        if config != self.config || key != self.config_key {
            self.config = config.clone();
            self.config_key = key;
            *self.shared.config.write().expect("config lock") = Some(config.clone());
            self.workspace.set_config((*config).clone());
        }
        let uris: Vec<Uri> = self.docs.keys().cloned().collect();
        for uri in &uris {
            self.publish(uri);
        }
        self.schedule(&uris, None, false);
    }

    fn files_changed(&mut self, changes: Vec<(PathBuf, FileChangeType)>) {
        let mut reconfigure = false;
        for (path, kind) in changes {
            let is_config = path.file_name().is_some_and(|n| n == "pyproject.toml");
            if is_config || path == self.config.guidance {
                // Workers import the guidance module: they start again to see the new one.
                self.disk_changed |= path == self.config.guidance;
                reconfigure = true;
                continue;
            }
            if path.extension().is_none_or(|e| e != "py") {
                continue;
            }
            let open = self
                .docs
                .keys()
                .any(|u| path_of(u).is_some_and(|p| p == path));
            if open {
                continue; // the editor's text wins
            }
            let contents = if kind == FileChangeType::DELETED {
                FileContents::Deleted
            } else {
                FileContents::read(&path)
            };
            self.workspace.file(&path, contents);
            self.disk_changed = true;
        }
        if reconfigure {
            self.reconfigure();
        } else {
            let uris: Vec<Uri> = self.docs.keys().cloned().collect();
            for uri in &uris {
                self.publish(uri);
            }
        }
    }
}
