//! Queries solved in a process of their own, stopped at a hard deadline. z3 4.8's nonlinear
//! real arithmetic can run past its `timeout`, an interrupt and a resource limit alike (a
//! product of floats in a rotation's angle ran for more than ten minutes inside
//! `Z3_solver_check`): no in-process bound stops it. Its string solver does the same on length
//! bounds (`str.len s > 320`: 22 s past a 500 ms limit), which z3 5 bounds. A query with
//! nonlinear arithmetic, or with strings when the linked z3 is older than 5 ([`needed`]), is
//! therefore handed to `lacuna solve-query` (this binary again, one process per exploring
//! solver, kept between queries), which answers on its standard output; past the deadline the
//! process is killed, and the answer is the solver's limit.
//!
//! The binary registers itself with [`isolate_with`] at start-up; without it (a library test)
//! queries are solved in-process. The solving process's side is `solve_query`.

use super::answer::{Answer, Model};
use super::smt::Hazards;
use super::value::ModelValue;
use super::z3_session::QueryLimit;
use crate::symbolic::Sort;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The hidden subcommand of the `lacuna` binary that answers one query.
pub const SUBCOMMAND: &str = "solve-query";

/// How long past z3's own time limit the process may run before it is killed: z3 answers
/// `unknown` at its limit on all but the queries this module exists for.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

static EXECUTABLE: OnceLock<PathBuf> = OnceLock::new();

/// Nonlinear queries are solved by `executable solve-query` from now on.
pub fn isolate_with(executable: PathBuf) {
    let _ = EXECUTABLE.set(executable);
}

/// Why a query handed to the solver process has no answer; its text becomes the `unknown`
/// answer's reason.
#[derive(Debug, thiserror::Error)]
enum ProcessError {
    #[error("{0}")]
    Encode(serde_json::Error),
    #[error("no solver process available")]
    Unavailable,
    #[error("the solver process could not start: {0}")]
    Start(std::io::Error),
    #[error("the solver process stopped reading: {0}")]
    StoppedReading(std::io::Error),
    #[error("no solver process")]
    NotRunning,
    #[error("the solver process answered badly: {0}")]
    BadAnswer(serde_json::Error),
    #[error("the solver process could not be read: {0}")]
    Unreadable(std::io::Error),
    /// The exploration's budget ended first, after this long.
    #[error(
        "{} while z3 was solving, after {:.1} s",
        super::answer::BUDGET_OVER,
        .0.as_secs_f64()
    )]
    BudgetOver(Duration),
    #[error("z3 ran past its time limit and was stopped after {:.1} s", .0.as_secs_f64())]
    TimeLimit(Duration),
    #[error("the solver process ended without an answer")]
    Ended,
}

/// Whether queries can be isolated (the binary registered itself).
pub fn available() -> bool {
    EXECUTABLE.get().is_some()
}

/// Whether a query holding `hazards` is solved in the process that can be stopped: nonlinear
/// arithmetic always, strings when the linked z3 does not bound them (older than 5: measured
/// unbounded on 4.8.12, bounded on 5.4.1; the versions between were not measured, so they are
/// taken as unbounded).
pub fn needed(hazards: Hazards) -> bool {
    available() && (hazards.nonlinear || (hazards.strings && !strings_bounded()))
}

fn strings_bounded() -> bool {
    static BOUNDED: OnceLock<bool> = OnceLock::new();
    *BOUNDED.get_or_init(|| major_version(z3::full_version()).is_some_and(|major| major >= 5))
}

/// The major version in z3's version text (`Z3 4.8.12.0`).
fn major_version(text: &str) -> Option<u32> {
    let number = text.trim().trim_start_matches("Z3").trim_start();
    number.split('.').next()?.parse().ok()
}

/// One query, as the solving process reads it: the conjunction of `assertions`, or, when
/// `negate` is not empty, a path's negations — for each index `i` of `negate` (ascending),
/// `assertions[..i] ∧ ¬assertions[i]`, answered one line each, in order.
#[derive(Clone, Serialize, Deserialize)]
pub struct Request {
    pub declarations: String,
    pub assertions: Vec<String>,
    #[serde(default)]
    pub negate: Vec<usize>,
    pub vars: Vec<(String, WireSort)>,
    /// `timeout_ms`, and `rlimit` in a reproducible run.
    #[serde(flatten)]
    pub limit: QueryLimit,
    /// z3's memory cap, as the exploring process has it (0: none).
    pub memory_mb: u64,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
pub enum WireSort {
    Int,
    Bool,
    Str,
    Real,
}

impl From<Sort> for WireSort {
    fn from(s: Sort) -> Self {
        match s {
            Sort::Int => WireSort::Int,
            Sort::Bool => WireSort::Bool,
            Sort::Str => WireSort::Str,
            Sort::Real => WireSort::Real,
        }
    }
}

impl From<WireSort> for Sort {
    fn from(s: WireSort) -> Self {
        match s {
            WireSort::Int => Sort::Int,
            WireSort::Bool => Sort::Bool,
            WireSort::Str => Sort::Str,
            WireSort::Real => Sort::Real,
        }
    }
}

/// The answer, as the solving process writes it.
#[derive(Serialize, Deserialize)]
pub(crate) enum Response {
    Sat(Vec<(String, ModelValue)>),
    Unsat,
    Unknown(String),
}

/// A solving process, started on the first query that needs one and kept for the next (its
/// start costs tens of milliseconds); killed when a query runs past its deadline (the next one
/// starts another) and when the worker is dropped.
#[derive(Default)]
pub struct Worker {
    process: Option<Process>,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<std::io::Result<String>>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long an answer may take: z3's limit and [`GRACE`], or less when the exploration's
/// budget ends sooner.
#[derive(Clone, Copy)]
struct Deadline {
    allowed: Duration,
    until: Option<Instant>,
}

impl Deadline {
    fn new(request: &Request, until: Option<Instant>) -> Self {
        Deadline {
            allowed: Duration::from_millis(request.limit.timeout_ms) + GRACE,
            until,
        }
    }

    /// How long to wait for an answer from now, and whether it is the budget's end that
    /// bounds the wait.
    fn wait_now(self) -> (Duration, bool) {
        match self.until {
            Some(until) => {
                let left = until.saturating_duration_since(Instant::now());
                if left < self.allowed {
                    (left, true)
                } else {
                    (self.allowed, false)
                }
            }
            None => (self.allowed, false),
        }
    }
}

impl Worker {
    /// Solves `request`; past `GRACE` after its time limit, or at `until`, the process is
    /// killed and the answer is the solver's limit.
    pub fn solve(&mut self, request: &Request, until: Option<Instant>) -> Answer {
        let deadline = Deadline::new(request, until);
        match self.exchange(request, deadline) {
            Ok(answer) => answer,
            Err(why) => {
                // Whatever state the process is in, the next query gets a new one.
                self.process = None;
                Answer::Unknown(why.to_string())
            }
        }
    }

    /// Solves a path's negations (`request.negate`), one answer each, in order. Each has its
    /// own deadline, none past `until`; past it the process is killed, that negation's answer
    /// is the solver's limit, and the ones after it are sent again to a new process (none
    /// once `until` has passed).
    pub fn solve_path(&mut self, request: &Request, until: Option<Instant>) -> Vec<Answer> {
        let deadline = Deadline::new(request, until);
        let mut answers = Vec::with_capacity(request.negate.len());
        let mut remaining = request.clone();
        while !remaining.negate.is_empty() {
            if until.is_some_and(|u| Instant::now() >= u) {
                let over = Answer::Unknown(super::answer::BUDGET_OVER.to_owned());
                answers.extend(remaining.negate.iter().map(|_| over.clone()));
                break;
            }
            if let Err(why) = self.send(&remaining) {
                self.process = None;
                let why = why.to_string();
                answers.extend(
                    remaining
                        .negate
                        .iter()
                        .map(|_| Answer::Unknown(why.clone())),
                );
                break;
            }
            let mut solved = 0;
            while solved < remaining.negate.len() {
                match self.receive(deadline) {
                    Ok(answer) => {
                        answers.push(answer);
                        solved += 1;
                    }
                    Err(why) => {
                        self.process = None;
                        answers.push(Answer::Unknown(why.to_string()));
                        solved += 1;
                        break;
                    }
                }
            }
            remaining.negate.drain(..solved);
        }
        answers
    }

    fn exchange(&mut self, request: &Request, deadline: Deadline) -> Result<Answer, ProcessError> {
        self.send(request)?;
        self.receive(deadline)
    }

    /// Writes `request` to the process, started first when there is none.
    fn send(&mut self, request: &Request) -> Result<(), ProcessError> {
        let mut line = serde_json::to_vec(request).map_err(ProcessError::Encode)?;
        line.push(b'\n');
        if self.process.is_none() {
            self.process = Some(start()?);
        }
        let process = self.process.as_mut().expect("started above");
        process
            .stdin
            .write_all(&line)
            .and_then(|()| process.stdin.flush())
            .map_err(ProcessError::StoppedReading)
    }

    /// The process's next answer, if it comes within `deadline`.
    fn receive(&mut self, deadline: Deadline) -> Result<Answer, ProcessError> {
        let process = self.process.as_mut().ok_or(ProcessError::NotRunning)?;
        let started = Instant::now();
        let (wait, budget_ends) = deadline.wait_now();
        match process.answers.recv_timeout(wait) {
            Ok(Ok(answer)) => serde_json::from_str::<Response>(&answer)
                .map(answer_of)
                .map_err(ProcessError::BadAnswer),
            Ok(Err(e)) => Err(ProcessError::Unreadable(e)),
            Err(RecvTimeoutError::Timeout) if budget_ends => {
                Err(ProcessError::BudgetOver(started.elapsed()))
            }
            Err(RecvTimeoutError::Timeout) => Err(ProcessError::TimeLimit(started.elapsed())),
            Err(RecvTimeoutError::Disconnected) => Err(ProcessError::Ended),
        }
    }
}

fn start() -> Result<Process, ProcessError> {
    let Some(executable) = EXECUTABLE.get() else {
        return Err(ProcessError::Unavailable);
    };
    let mut child = Command::new(executable)
        .arg(SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(ProcessError::Start)?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (sender, answers) = std::sync::mpsc::channel();
    // Answers are read on a thread of their own, so that a process that stops answering
    // cannot hold the exploration past the deadline.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    Ok(Process {
        child,
        stdin,
        answers,
    })
}

fn answer_of(response: Response) -> Answer {
    match response {
        Response::Sat(values) => Answer::Sat(Model {
            values: values
                .into_iter()
                .map(|(name, value)| (Arc::from(name), value))
                .collect(),
        }),
        Response::Unsat => Answer::Unsat,
        Response::Unknown(why) => Answer::Unknown(why),
    }
}

#[cfg(test)]
mod tests {
    use super::major_version;

    #[test]
    fn reads_the_major_version_of_z3s_version_text() {
        assert_eq!(major_version("Z3 4.8.12.0"), Some(4));
        assert_eq!(major_version("Z3 5.4.1.0"), Some(5));
        assert_eq!(major_version("4.13.3"), Some(4));
        assert_eq!(major_version("garbled"), None);
    }
}
