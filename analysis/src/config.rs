//! Configuration: the `[tool.lacuna]` table of a project's `pyproject.toml`, validated, with
//! defaults for everything. Unknown keys and wrong types are errors that name the key and the file.
//! Parsed and checked here; the budgets and the sandbox are enforced by exploration and the agent.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Directory names never walked into (ruff's defaults, plus Lacuna's own store and `docs`).
pub const DEFAULT_EXCLUDES: &[&str] = &[
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".lacuna",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "docs",
    "node_modules",
    "site-packages",
    "venv",
];

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// The directory holding `pyproject.toml` (or the directory checked when there is none).
    pub root: PathBuf,
    /// The file the configuration was read from.
    pub source: Option<PathBuf>,
    /// The project's interpreter, when configured.
    pub python: Option<PathBuf>,
    /// Import roots, absolute.
    pub src: Vec<PathBuf>,
    /// Whether `src` was configured; when not, files the defaults give no module name get a
    /// root of their own (`workspace::add_roots_for`).
    pub src_configured: bool,
    /// Globs (relative to `root`) of the files to check; empty means every `.py` file.
    pub include: Vec<String>,
    /// Globs or directory names to leave out.
    pub exclude: Vec<String>,
    /// Check the project's tests too (`tests/`, `test/`, `test_*.py`, `*_test.py`,
    /// `conftest.py`), which are left out by default.
    pub include_tests: bool,
    /// The module where mocks and factories live, absolute.
    pub guidance: PathBuf,
    /// Where the project's own tests live, absolute.
    pub tests: Vec<PathBuf>,
    /// Whether `tests` was configured; when not, it is where plain `pytest` run at the root
    /// would look.
    pub tests_configured: bool,
    /// Extra arguments for the run of the project's tests under pytest.
    pub pytest_args: Vec<String>,
    pub budget: Budget,
    pub mcdc: Mcdc,
    pub suspicious: Suspicious,
    pub sandbox: Sandbox,
    /// What the user granted the sandbox (set by the command line or the editor, never read
    /// from the repository).
    pub grants: Grants,
    /// Files larger than this (in bytes) are not modelled: one diagnostic says so.
    pub max_file_size: u64,
    /// The diagnostic codes reported (`select`, `extend-select`, `ignore`).
    pub selection: crate::diagnostic::Selection,
    /// coverage.py's exclusions, regular expressions matched against source lines: its
    /// default (`# pragma: no cover`), or `[tool.coverage.report] exclude_lines`, plus
    /// `exclude_also` (see `exclusions`).
    pub exclude_lines: Vec<String>,
}

/// The default of `max-file-size`: 2 MiB, far above any hand-written module.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 << 20;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Budget {
    /// Wall-clock time spent generating tests for one function.
    pub function_time_ms: u64,
    /// Executions of one function.
    pub function_executions: u32,
    /// Time one execution may take before it is stopped.
    pub execution_timeout_ms: u64,
    /// Address-space limit of a worker.
    pub memory_mb: u64,
    /// Loop iterations (and recursion depth) explored before a path is cut.
    pub loop_bound: u32,
    /// Branch events recorded along one path before it is cut.
    pub path_length: u32,
    /// Time given to the solver for one query.
    pub solver_timeout_ms: u64,
    /// Memory the solver may hold, all explorations together: above it a query is given up
    /// ("max. memory exceeded"), never the machine's memory.
    pub solver_memory_mb: u64,
    /// Worker processes; 0 means one fewer than the cores (at least 1). More than the cores
    /// is capped at the cores unless `force_workers`.
    pub workers: u32,
    pub force_workers: bool,
    /// Time one phase (setup, call, teardown) of a test of the project's own suite may run
    /// before it fails.
    pub test_timeout_ms: u64,
    /// Wall-clock time for exploring all the functions of a run together (`lacuna check`),
    /// shared among them by what each has to cover; unset, each function has
    /// `function_time_ms`.
    pub run_time_s: Option<u64>,
    /// A function's exploration stops after this share of its time without a new branch
    /// side or MC/DC obligation; 1 never.
    pub stall_share: Share,
    /// Explore by counts, not by the clock, so that the same code and configuration give
    /// the same results on any machine, however loaded: a function stops at
    /// `function-executions`, or after `stall-share` of them without a new side; each solver
    /// query is bounded by z3's own work (`solver-timeout-ms` × [`RLIMIT_PER_MS`] units);
    /// `function-time-ms` and `solver-timeout-ms` become safety bounds
    /// ([`REPRODUCIBLE_SAFETY`] times longer). Cannot share a `run-time-s`.
    pub reproducible: bool,
}

/// In a reproducible run, z3's resource units per millisecond of `solver-timeout-ms`. Measured
/// with z3 4.8.12 on this project's machine: nonlinear integer arithmetic counts about 47 units
/// a millisecond (a query z3 cannot decide reached 23,460 in 500 ms), string and linear
/// queries far more (5,000 units in 10–20 ms), so a reproducible run gives a query at most the
/// work a timed run gives the slowest kind on an idle machine.
pub const RLIMIT_PER_MS: u64 = 50;

/// In a reproducible run, how many times `function-time-ms` a function may still take before
/// it is stopped by the clock — a safety bound reached only when its runs hang (and the
/// stop then says `budget`).
pub const REPRODUCIBLE_SAFETY: u32 = 10;

/// In a reproducible run, how many times `solver-timeout-ms` a query may take before the
/// clock stops it: a query still running there is one no machine decides in that time.
pub const REPRODUCIBLE_SOLVER_SAFETY: u64 = 4;

/// A share of something, in (0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct Share(pub f64);

impl Eq for Share {}

impl std::hash::Hash for Share {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

/// The default `stall-share`, measured on `examples/` and the tests' fixtures (see
/// docs/benchmarks.md): the longest wait between two finds there was 0.44 of a function's
/// time (`Stock.add`, whose last side comes from a call sequence after the solver's targets
/// are spent); every other was below 0.05.
pub const DEFAULT_STALL_SHARE: f64 = 0.6;

impl Default for Budget {
    fn default() -> Self {
        Budget {
            function_time_ms: 3_000,
            function_executions: 2_000,
            execution_timeout_ms: 1_000,
            memory_mb: 1_024,
            loop_bound: 32,
            path_length: 5_000,
            solver_timeout_ms: 500,
            solver_memory_mb: 2_048,
            workers: 0,
            force_workers: false,
            test_timeout_ms: 60_000,
            run_time_s: None,
            stall_share: Share(DEFAULT_STALL_SHARE),
            reproducible: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Mcdc {
    pub enabled: bool,
    /// Count obligations of decisions with a single condition too (Clang leaves them out).
    pub single_condition: bool,
}

impl Default for Mcdc {
    fn default() -> Self {
        Mcdc {
            enabled: true,
            single_condition: false,
        }
    }
}

/// Suspicious assertions (`LCN300`): the ZoomIn check of generated tests against the invariants
/// of the project's own passing tests.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Suspicious {
    pub enabled: bool,
    /// How similar (Jaccard, 0–1) a generated invocation's coverage profile must be to one the
    /// suite produced for its violations to count.
    pub similarity: f64,
    /// How many of the ranking `lacuna check` shows in its text output.
    pub show: usize,
    /// Samples from passing tests an invariant needs to be kept.
    pub min_support: usize,
    /// Also learn invariants that hold on the invocations taking one branch side
    /// (conditional invariants); `false` learns only those of every invocation.
    pub conditional: bool,
    /// Order the suspicious assertions by how uniquely they break invariants; `false` keeps
    /// every violation in the order of the generated tests (plain anomaly detection).
    pub rank: bool,
    /// How many inputs near the suite's (and near the kept ones) each exploration runs once
    /// its coverage search is done, keeping those whose runs break what your tests
    /// established; 0 runs none.
    pub neighbours: usize,
}

impl Default for Suspicious {
    fn default() -> Self {
        Suspicious {
            enabled: true,
            similarity: 0.75,
            show: 5,
            min_support: 5,
            conditional: true,
            rank: true,
            neighbours: 0,
        }
    }
}

impl PartialEq for Suspicious {
    fn eq(&self, other: &Self) -> bool {
        self.enabled == other.enabled
            && self.similarity.to_bits() == other.similarity.to_bits()
            && self.show == other.show
            && self.min_support == other.min_support
            && self.conditional == other.conditional
            && self.rank == other.rank
            && self.neighbours == other.neighbours
    }
}

impl Eq for Suspicious {}

impl std::hash::Hash for Suspicious {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.enabled.hash(state);
        self.similarity.to_bits().hash(state);
        self.show.hash(state);
        self.min_support.hash(state);
        self.conditional.hash(state);
        self.rank.hash(state);
        self.neighbours.hash(state);
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Sandbox {
    /// Directories (relative to the root) user code may write to during generation — within
    /// what the user granted: a repository can only narrow the sandbox, never widen it.
    pub allow_write: Option<Vec<PathBuf>>,
    pub allow_network: Option<bool>,
    pub allow_subprocess: Option<bool>,
}

/// What the user grants the sandbox: from the command line or the user-level configuration
/// (`$XDG_CONFIG_HOME/lacuna/config.toml`, `[sandbox]`), never from a repository.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Grants {
    /// Directories (absolute, or relative to the project root) user code may write to.
    pub allow_write: Vec<PathBuf>,
    pub allow_network: bool,
    pub allow_subprocess: bool,
    /// Run project code even where the kernel offers no file-system isolation.
    pub allow_unconfined: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct UserConfig {
    #[serde(default)]
    sandbox: Grants,
}

impl Grants {
    /// The user-level configuration file: `$XDG_CONFIG_HOME/lacuna/config.toml`, else
    /// `~/.config/lacuna/config.toml`.
    pub fn user_file() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        Some(base.join("lacuna").join("config.toml"))
    }

    /// The grants of the user-level configuration (none when it does not exist).
    pub fn user_level() -> Result<Grants, ConfigError> {
        let Some(file) = Grants::user_file().filter(|f| f.is_file()) else {
            return Ok(Grants::default());
        };
        let text = std::fs::read_to_string(&file).map_err(|e| ConfigError {
            file: file.clone(),
            message: format!("cannot read: {e}"),
        })?;
        let user: UserConfig = toml::from_str(&text).map_err(|e| ConfigError {
            file,
            message: e.message().to_owned(),
        })?;
        Ok(user.sandbox)
    }

    /// These grants and `other`'s together.
    pub fn union(mut self, other: Grants) -> Grants {
        self.allow_write.extend(other.allow_write);
        self.allow_network |= other.allow_network;
        self.allow_subprocess |= other.allow_subprocess;
        self.allow_unconfined |= other.allow_unconfined;
        self
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{file}: {message}")]
pub struct ConfigError {
    pub file: PathBuf,
    pub message: String,
}

#[derive(Deserialize)]
struct PyProject {
    #[serde(default)]
    tool: Tool,
}

#[derive(Deserialize, Default)]
struct Tool {
    lacuna: Option<Table>,
    /// pytest's own table, read only for `ini_options.testpaths` (and leniently: it is not
    /// Lacuna's to validate).
    pytest: Option<toml::Value>,
    /// coverage.py's table, read only for `report.exclude_lines` and `report.exclude_also`
    /// (leniently too).
    coverage: Option<toml::Value>,
}

/// coverage.py's default exclusion: `# pragma: no cover` and its spellings.
pub const DEFAULT_EXCLUDE_LINE: &str = r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)";

/// coverage.py's exclusions from its `[tool.coverage.report]` table: `exclude_lines` replaces
/// the default, `exclude_also` adds to it.
fn coverage_exclusions(coverage: Option<&toml::Value>) -> Vec<String> {
    let report = coverage.and_then(|c| c.get("report"));
    let list = |key: &str| -> Option<Vec<String>> {
        let items = report?.get(key)?.as_array()?;
        Some(
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        )
    };
    let mut out = list("exclude_lines").unwrap_or_else(|| vec![DEFAULT_EXCLUDE_LINE.to_owned()]);
    out.extend(list("exclude_also").unwrap_or_default());
    out
}

/// `[tool.pytest.ini_options] testpaths`, a list or one string of space-separated paths.
fn pytest_testpaths(pytest: Option<&toml::Value>) -> Option<Vec<PathBuf>> {
    let value = pytest?.get("ini_options")?.get("testpaths")?;
    let paths: Vec<PathBuf> = match value {
        toml::Value::String(s) => s.split_whitespace().map(PathBuf::from).collect(),
        toml::Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str())
            .map(PathBuf::from)
            .collect(),
        _ => return None,
    };
    (!paths.is_empty()).then_some(paths)
}

/// Where the project's tests are when `tests` is not configured — where plain `pytest` run at
/// the root would find them: pytest's `testpaths` when the project sets them; otherwise the
/// `tests/` and `test/` directories and the test files (`test_*.py`, `*_test.py`) at the root;
/// `tests/` when there is none of them.
fn default_tests(root: &Path, testpaths: Option<Vec<PathBuf>>) -> Vec<PathBuf> {
    if let Some(paths) = testpaths {
        return paths;
    }
    let mut out: Vec<PathBuf> = ["tests", "test"]
        .into_iter()
        .map(PathBuf::from)
        .filter(|d| root.join(d).is_dir())
        .collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| {
            name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
        })
        .map(PathBuf::from)
        .collect();
    files.sort();
    out.extend(files);
    if out.is_empty() {
        out.push(PathBuf::from("tests"));
    }
    out
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Table {
    python: Option<PathBuf>,
    src: Option<Vec<PathBuf>>,
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    extend_exclude: Option<Vec<String>>,
    include_tests: Option<bool>,
    guidance: Option<PathBuf>,
    tests: Option<Vec<PathBuf>>,
    pytest_args: Option<Vec<String>>,
    #[serde(default)]
    budget: Budget,
    #[serde(default)]
    mcdc: Mcdc,
    #[serde(default)]
    suspicious: Suspicious,
    #[serde(default)]
    sandbox: Sandbox,
    max_file_size: Option<u64>,
    select: Option<Vec<String>>,
    extend_select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
}

/// What marks a project's root besides `pyproject.toml`: setuptools' files and the repository.
pub const ROOT_MARKERS: &[&str] = &["setup.cfg", "setup.py", ".git"];

/// The first directory at or above `dir` that is not a package (holds no `__init__.py`): where
/// Python must start looking for the package `dir` is part of.
pub fn package_base(dir: &Path) -> &Path {
    let mut base = dir;
    while base.join("__init__.py").is_file() {
        match base.parent() {
            Some(parent) if parent != base => base = parent,
            _ => break,
        }
    }
    base
}

/// The import roots when `src` is not configured: `src/` first when the project has the `src`
/// layout (a `src` directory that is not itself a package), then the root.
fn default_src(root: &Path) -> Vec<PathBuf> {
    let src = root.join("src");
    let mut out = vec![];
    if src.is_dir() && !src.join("__init__.py").exists() {
        out.push(src);
    }
    out.push(root.join("."));
    out
}

/// The largest `pyproject.toml` read.
pub const MAX_CONFIG_BYTES: u64 = 4 << 20;

impl Config {
    /// The defaults for a project rooted at `root`, without a configuration file.
    pub fn defaults(root: &Path) -> Config {
        Config::from_table(root, None, Table::default(), None)
    }

    /// Finds the project root at or above `start` — the nearest directory holding a
    /// `pyproject.toml`, a `setup.cfg`, a `setup.py` or a `.git` — and reads the `[tool.lacuna]`
    /// table of its `pyproject.toml`. Without any of them, the root is the directory above the
    /// outermost package holding `start` (walking up while `__init__.py` exists, as pytest
    /// does), so that a module's relative imports find their package.
    pub fn discover(start: &Path) -> Result<Config, ConfigError> {
        let start = if start.is_file() {
            start.parent().unwrap_or(start)
        } else {
            start
        };
        for dir in start.ancestors() {
            let candidate = dir.join("pyproject.toml");
            if candidate.is_file() {
                return Config::load(&candidate);
            }
            if ROOT_MARKERS.iter().any(|m| dir.join(m).exists()) {
                return Ok(Config::defaults(dir));
            }
        }
        Ok(Config::defaults(package_base(start)))
    }

    /// Reads one `pyproject.toml`.
    /// A device (`/dev/zero`), a FIFO or a directory is refused before anything is read, and
    /// at most [`MAX_CONFIG_BYTES`] are.
    pub fn load(file: &Path) -> Result<Config, ConfigError> {
        let error = |message: String| ConfigError {
            file: file.to_owned(),
            message,
        };
        let metadata = std::fs::metadata(file).map_err(|e| error(format!("cannot read: {e}")))?;
        if !metadata.is_file() {
            return Err(error("cannot read: not a regular file".into()));
        }
        let mut bytes = vec![];
        std::fs::File::open(file)
            .and_then(|f| {
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(f, MAX_CONFIG_BYTES + 1),
                    &mut bytes,
                )
            })
            .map_err(|e| error(format!("cannot read: {e}")))?;
        if bytes.len() as u64 > MAX_CONFIG_BYTES {
            return Err(error(format!(
                "cannot read: larger than {} MiB, which no configuration file needs",
                MAX_CONFIG_BYTES >> 20
            )));
        }
        let text =
            String::from_utf8(bytes).map_err(|e| error(format!("cannot read: not UTF-8 ({e})")))?;
        Config::parse(file, &text)
    }

    /// Parses the text of a `pyproject.toml` at `file`.
    pub fn parse(file: &Path, text: &str) -> Result<Config, ConfigError> {
        let error = |message: String| ConfigError {
            file: file.to_owned(),
            message,
        };
        let root = file.parent().unwrap_or(Path::new(".")).to_owned();
        let pyproject: PyProject =
            toml::from_str(text).map_err(|e| error(describe_toml_error(text, &e)))?;
        let testpaths = pytest_testpaths(pyproject.tool.pytest.as_ref());
        let exclude_lines = coverage_exclusions(pyproject.tool.coverage.as_ref());
        let table = pyproject.tool.lacuna.unwrap_or_default();
        validate(&table.budget).map_err(|m| error(format!("[tool.lacuna.budget]: {m}")))?;
        if !(0.0..=1.0).contains(&table.suspicious.similarity) {
            return Err(error(
                "[tool.lacuna.suspicious]: `similarity` must be between 0 and 1".to_owned(),
            ));
        }
        let selection = crate::diagnostic::Selection::parse(
            table.select.as_deref(),
            table.extend_select.as_deref().unwrap_or_default(),
            table.ignore.as_deref().unwrap_or_default(),
            |key| format!("[tool.lacuna] {key}"),
        )
        .map_err(|e| error(e.to_string()))?;
        let mut config = Config::from_table(&root, Some(file.to_owned()), table, testpaths);
        config.selection = selection;
        config.exclude_lines = exclude_lines;
        Ok(config)
    }

    fn from_table(
        root: &Path,
        source: Option<PathBuf>,
        table: Table,
        testpaths: Option<Vec<PathBuf>>,
    ) -> Config {
        let abs = |p: &Path| {
            if p.is_absolute() {
                p.to_owned()
            } else {
                root.join(p)
            }
        };
        let mut exclude = table
            .exclude
            .unwrap_or_else(|| DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect());
        exclude.extend(table.extend_exclude.unwrap_or_default());
        Config {
            root: root.to_owned(),
            source,
            python: table.python.map(|p| interpreter_path(root, p)),
            src_configured: table.src.is_some(),
            src: match table.src {
                Some(src) => src.iter().map(|p| abs(p)).collect(),
                None => default_src(root),
            },
            include: table.include.unwrap_or_default(),
            exclude,
            include_tests: table.include_tests.unwrap_or(false),
            guidance: abs(&table
                .guidance
                .unwrap_or_else(|| PathBuf::from("tests/lacuna_guidance.py"))),
            tests_configured: table.tests.is_some(),
            tests: table
                .tests
                .unwrap_or_else(|| default_tests(root, testpaths))
                .iter()
                .map(|p| abs(p))
                .collect(),
            pytest_args: table.pytest_args.unwrap_or_default(),
            budget: table.budget,
            mcdc: table.mcdc,
            suspicious: table.suspicious,
            sandbox: table.sandbox,
            grants: Grants::default(),
            max_file_size: table.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE),
            selection: crate::diagnostic::Selection::default(),
            exclude_lines: coverage_exclusions(None),
        }
    }

    /// The sandbox of this project's processes with `scratch` as their scratch directory: the
    /// user's grants, narrowed by the repository's `[tool.lacuna.sandbox]`; what the repository
    /// asked beyond the grants is refused, each with a message.
    pub fn sandbox_policy(&self, scratch: &Path) -> (crate::sandbox::Policy, Vec<String>) {
        let mut refused = vec![];
        let grants = &self.grants;
        let abs = |p: &PathBuf| {
            let p = if p.is_absolute() {
                p.clone()
            } else {
                self.root.join(p)
            };
            std::fs::canonicalize(&p).unwrap_or(p)
        };
        let granted: Vec<PathBuf> = grants.allow_write.iter().map(abs).collect();
        let allow_write = match &self.sandbox.allow_write {
            None => granted,
            Some(asked) => {
                let mut kept = vec![];
                for dir in asked.iter().map(abs) {
                    if granted.iter().any(|g| dir.starts_with(g)) {
                        kept.push(dir);
                    } else {
                        refused.push(format!(
                            "the repository's [tool.lacuna.sandbox] asks to write to {}; widening the \
                             sandbox comes only from you (--allow-write {0} or your user configuration)",
                            dir.display()
                        ));
                    }
                }
                kept
            }
        };
        let mut flag = |asked: Option<bool>, granted: bool, what: &str, option: &str| match asked {
            Some(true) if !granted => {
                refused.push(format!(
                    "the repository's [tool.lacuna.sandbox] asks for {what}; widening the sandbox \
                     comes only from you ({option} or your user configuration)"
                ));
                false
            }
            Some(asked) => asked && granted,
            None => granted,
        };
        let allow_network = flag(
            self.sandbox.allow_network,
            grants.allow_network,
            "the network",
            "--allow-network",
        );
        let allow_subprocess = flag(
            self.sandbox.allow_subprocess,
            grants.allow_subprocess,
            "subprocesses",
            "--allow-subprocess",
        );
        let policy = crate::sandbox::Policy {
            scratch: scratch.to_owned(),
            allow_write,
            allow_network,
            allow_subprocess,
            allow_unconfined: grants.allow_unconfined,
            memory_mb: self.budget.memory_mb,
        };
        (policy, refused)
    }

    /// The number of worker processes to run: what the budget asks for, capped at the cores
    /// unless forced.
    pub fn workers(&self) -> usize {
        let cores = cores();
        match self.budget.workers {
            // One per core: an exploration runs its input in the agent and solves in z3 in
            // turn, so one per core keeps the cores busy (measured: docs/benchmarks.md).
            0 => cores,
            n if n as usize > cores && !self.budget.force_workers => cores,
            n => n as usize,
        }
    }

    /// Says so when the budget asks for more workers than there are cores and is capped.
    pub fn workers_capped(&self) -> Option<String> {
        let cores = cores();
        let asked = self.budget.workers as usize;
        (asked > cores && !self.budget.force_workers).then(|| {
            format!(
                "`workers = {asked}` is capped at the {cores} cores of this machine \
                 (`force-workers = true` in [tool.lacuna.budget], or `--workers {asked}`, runs \
                 them all)"
            )
        })
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The configured interpreter: a bare command name (`python3.12`) is looked up on PATH, not in
/// the project; a path is relative to the project root.
pub fn interpreter_path(root: &Path, p: PathBuf) -> PathBuf {
    if p.components().count() == 1 || p.is_absolute() {
        p
    } else {
        root.join(p)
    }
}

/// `line 3: [tool.lacuna.budget] `loop-bound`: invalid type…`: where the error is, which table
/// and key it is in, and what is wrong.
fn describe_toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim();
    let Some(span) = e.span() else {
        return format!("invalid configuration: {message}");
    };
    let before = &text[..span.start.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_text = text[line_start..].lines().next().unwrap_or("");
    let table = before
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| format!("{} ", l.split('#').next().unwrap_or(l).trim()))
        .unwrap_or_default();
    let key = line_text
        .split_once('=')
        .map(|(k, _)| format!("`{}`: ", k.trim()))
        .unwrap_or_default();
    if message.starts_with("unknown field") || !table.contains("tool.lacuna") {
        format!("line {line}: {table}{message}")
    } else {
        format!("line {line}: {table}{key}{message}")
    }
}

/// A `[tool.lacuna.budget]` value out of its range.
#[derive(Debug, thiserror::Error)]
enum BudgetError {
    #[error("`{0}` must be at least 1")]
    Zero(&'static str),
    #[error(
        "`stall-share` must be more than 0 and at most 1 (1: never stop for a stall), found {0}"
    )]
    StallShare(f64),
    #[error("`memory-mb` must be at least 64 (CPython needs that much to start), found {0}")]
    TooLittleMemory(u64),
    #[error(
        "`reproducible` explores every function by counts, not by the clock: it cannot share a `run-time-s` among them (set one or the other; `function-executions` bounds a reproducible run)"
    )]
    ReproducibleRunTime,
}

fn validate(budget: &Budget) -> Result<(), BudgetError> {
    let positive: [(&str, u64); 8] = [
        ("function-time-ms", budget.function_time_ms),
        ("function-executions", budget.function_executions.into()),
        ("execution-timeout-ms", budget.execution_timeout_ms),
        ("memory-mb", budget.memory_mb),
        ("loop-bound", budget.loop_bound.into()),
        ("path-length", budget.path_length.into()),
        ("solver-timeout-ms", budget.solver_timeout_ms),
        ("solver-memory-mb", budget.solver_memory_mb),
    ];
    for (key, value) in positive {
        if value == 0 {
            return Err(BudgetError::Zero(key));
        }
    }
    if budget.run_time_s == Some(0) {
        return Err(BudgetError::Zero("run-time-s"));
    }
    let share = budget.stall_share.0;
    if !(share > 0.0 && share <= 1.0) {
        return Err(BudgetError::StallShare(share));
    }
    if budget.memory_mb < 64 {
        return Err(BudgetError::TooLittleMemory(budget.memory_mb));
    }
    if budget.reproducible && budget.run_time_s.is_some() {
        return Err(BudgetError::ReproducibleRunTime);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
