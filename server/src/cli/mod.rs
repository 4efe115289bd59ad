//! Command-line interface: argument definitions and dispatch to the commands.

mod cache;
mod changed;
mod check;
mod format;
mod json;
mod mcdc_report;
mod merge;
mod render;
mod report;
mod shard;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "lacuna",
    version,
    about = "Generates tests for Python code and explains what they cannot reach, and why."
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check files or directories (default: the current directory).
    Check(Box<CheckArgs>),
    /// Run the language server on stdin/stdout.
    Lsp(LspArgs),
    /// Join the outputs of `lacuna check --shard i/n` (JSON documents or SARIF logs) into the
    /// output of one unsharded run, printed on standard output.
    Merge(MergeArgs),
    /// Answers one solver query read on standard input (the process a nonlinear query is
    /// solved in, so that it can be stopped at its deadline).
    #[command(name = lacuna_analysis::explore::isolated::SUBCOMMAND, hide = true)]
    SolveQuery,
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' outputs, all JSON or all SARIF (or, with `--lcov`, their lcov tracefiles).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The inputs are the shards' `--lcov` tracefiles: write the tracefile of the unsharded run
    /// to OUT.
    #[arg(long, value_name = "OUT")]
    pub lcov: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct LspArgs {
    /// Never run the project's code: syntax, decisions and MC/DC counts only.
    #[arg(long)]
    pub static_only: bool,
    /// Accepted for clients that pass it: stdio is the only transport.
    #[arg(long, hide = true)]
    pub stdio: bool,
    /// The largest message the server reads, in bytes; a larger one is answered with an error
    /// and skipped.
    #[arg(long, value_name = "BYTES", default_value_t = crate::lsp::DEFAULT_MAX_MESSAGE)]
    pub max_message_size: u64,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check.
    pub paths: Vec<PathBuf>,
    /// Only the static model: decisions, branch sides, MC/DC obligations; run no code.
    #[arg(long = "static")]
    pub static_only: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Read the configuration from this `pyproject.toml` instead of discovering it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Write the generated tests as pytest files into this directory (checked under pytest
    /// first: what fails outside the generator is repaired or left out).
    #[arg(long, value_name = "DIR", conflicts_with = "static_only")]
    pub emit_tests: Option<PathBuf>,
    /// Print, per decision, the MC/DC obligations covered and the missing ones, in the form
    /// `gcov --conditions` uses, instead of the usual report.
    #[arg(long, conflicts_with_all = ["static_only", "format"])]
    pub mcdc_report: bool,
    /// Let generated inputs write beneath this directory (repeatable). The sandbox is widened
    /// only by you, here or in your user configuration — never by a repository.
    #[arg(long, value_name = "DIR")]
    pub allow_write: Vec<PathBuf>,
    /// Let generated inputs use the network.
    #[arg(long)]
    pub allow_network: bool,
    /// Let generated inputs start processes (they stay confined).
    #[arg(long)]
    pub allow_subprocess: bool,
    /// Run project code even where the kernel offers no file-system isolation (Landlock),
    /// contained only by the in-process hook.
    #[arg(long)]
    pub allow_unconfined: bool,
    /// Explore all the functions of the run in this many seconds together, shared among them
    /// by what each has to cover (each still within its own `function-time-ms`); replaces
    /// `run-time-s` of `[tool.lacuna.budget]`. Default: no total, each function has its own
    /// time budget.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "static_only")]
    pub budget: Option<u64>,
    /// Explore by counts, not by the clock: the same code, configuration and store give the
    /// same results on any machine, however loaded (a CI job's runners, shards, a second run).
    /// Each function runs up to `function-executions` inputs (or `stall-share` of them without
    /// a new branch side), each solver query is bounded by z3's own work; the time budgets
    /// become safety bounds. Replaces `reproducible` of `[tool.lacuna.budget]`.
    #[arg(long, conflicts_with_all = ["static_only", "budget"])]
    pub reproducible: bool,
    /// Inputs run per function at most; replaces `function-executions` of
    /// `[tool.lacuna.budget]` (the budget of a `--reproducible` run).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "static_only")]
    pub function_executions: Option<u32>,
    /// Run this many worker processes, even more than the machine has cores (the budget's
    /// `workers` is capped at the cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub workers: Option<u32>,
    /// Write the coverage as an lcov tracefile (branch sides as `BRDA`, MC/DC as `MCDC`
    /// records; see docs/ci.md).
    #[arg(long, value_name = "FILE", conflicts_with = "static_only")]
    pub lcov: Option<PathBuf>,
    /// The lcov readers to write for: `2` (lcov 2.2: named branches, MC/DC records) or `1`
    /// (lcov 1.x and most coverage services: numbered branches, no MC/DC).
    #[arg(long, value_enum, value_name = "VERSION", default_value_t = format::lcov::LcovFormat::V2)]
    pub lcov_format: format::lcov::LcovFormat,
    /// Write the coverage as Cobertura XML (as `coverage xml` does).
    #[arg(long, value_name = "FILE", conflicts_with = "static_only")]
    pub cobertura: Option<PathBuf>,
    /// Whose coverage `--lcov` and `--cobertura` write: the generated tests' or the project's
    /// own suite's.
    #[arg(long, value_enum, value_name = "TESTS", default_value_t = format::coverage::CoverageOf::Generated)]
    pub coverage_of: format::coverage::CoverageOf,
    /// Do part I of N of the run (`--shard 2/4`): functions are balanced by the exploration
    /// times the results store keeps (those without one, and diagnostics outside functions, go
    /// by a hash of their file and name). Every shard must start from the same store.
    /// `lacuna merge` joins the N outputs into the unsharded one.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<shard::Shard>,
    /// Keep the results store here, and report from it every function whose code (its
    /// fingerprint), the guidance declarations it depends on, the configuration and the Lacuna
    /// binary are those a stored exploration was made with, instead of exploring it again.
    /// Default: `.lacuna/` at the project root (the language server's store).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the results store: explore every function.
    #[arg(long)]
    pub no_cache: bool,
    /// Run only the project's own tests (under pytest, observed) and report what they cover:
    /// every function's branch sides and MC/DC obligations as the suite takes them, its tests'
    /// outcomes; generate and explore nothing.
    #[arg(long, conflicts_with_all = ["static_only", "emit_tests", "changed_since", "budget"])]
    pub suite_only: bool,
    /// Explore only the functions whose fingerprint differs from the one they had at the git
    /// revision REF (pull-request mode); the others are reported from the store, or as
    /// unchanged when it has nothing for them.
    #[arg(long, value_name = "REF", conflicts_with = "static_only")]
    pub changed_since: Option<String>,
    /// Report only these diagnostic codes or prefixes (comma-separated: `LCN1,LCN200`);
    /// replaces `select` of `[tool.lacuna]`. Default: every code.
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub select: Option<Vec<String>>,
    /// Report these codes or prefixes too, on top of the selection.
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub extend_select: Vec<String>,
    /// Leave out these codes or prefixes (a longer selected prefix wins: `--ignore LCN1
    /// --extend-select LCN101`).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// The lowest severity of a reported diagnostic that makes the exit code 1: `error`
    /// (default), `warning`, or `info` (any diagnostic).
    #[arg(long, value_enum, value_name = "SEVERITY", default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// No progress bar and no informational messages on standard error (warnings and errors
    /// are still printed). The progress bar is only ever drawn when standard error is a
    /// terminal.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
}

impl FailOn {
    /// Whether a diagnostic of `severity` fails the run.
    pub fn fails(self, severity: lacuna_analysis::diagnostic::Severity) -> bool {
        use lacuna_analysis::diagnostic::Severity;
        match self {
            FailOn::Error => severity == Severity::Error,
            FailOn::Warning => severity <= Severity::Warning,
            FailOn::Info => true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    /// SARIF 2.1.0, for code scanning (GitHub, GitLab, Azure DevOps).
    Sarif,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    use lacuna_analysis::explore::isolated;
    if !matches!(args.command, Command::SolveQuery) {
        // Nonlinear queries go to a process of this binary that can be stopped.
        if let Ok(exe) = std::env::current_exe() {
            isolated::isolate_with(exe);
        }
    }
    match args.command {
        Command::SolveQuery => Ok(lacuna_analysis::explore::solve_query::serve()),
        Command::Check(check) => check::run(*check),
        Command::Merge(merge) => match &merge.lcov {
            Some(out) => merge::lcov(&merge.files, out),
            None => merge::run(&merge.files),
        },
        Command::Lsp(lsp) => crate::lsp::run(lsp.static_only, lsp.max_message_size),
    }
}
