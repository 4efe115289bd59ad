//! Queries solved in a process of their own, stopped at a hard deadline. z3 4.8's nonlinear
//! real arithmetic can run past its `timeout`, an interrupt and a resource limit alike (a
//! product of floats in a rotation's angle ran for more than ten minutes inside
//! `Z3_solver_check`): no in-process bound stops it. A nonlinear query is therefore handed to
//! `lacuna solve-query` (this binary again, one process per exploring solver, kept between
//! queries), which answers on its standard output; past the deadline the process is killed,
//! and the answer is the solver's limit.
//!
//! The binary registers itself with [`isolate_with`] at start-up; without it (a library test)
//! queries are solved in-process. The solving process's side is `solve_query`.

use super::answer::{Answer, Model};
use super::value::ModelValue;
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

/// Whether queries can be isolated (the binary registered itself).
pub fn available() -> bool {
    EXECUTABLE.get().is_some()
}

/// One query, as the solving process reads it.
#[derive(Serialize, Deserialize)]
pub struct Request {
    pub declarations: String,
    pub assertions: Vec<String>,
    pub vars: Vec<(String, WireSort)>,
    pub timeout_ms: u64,
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

impl Worker {
    /// Solves `request`; past `GRACE` after its time limit the process is killed and the
    /// answer is the solver's limit.
    pub fn solve(&mut self, request: &Request) -> Answer {
        let deadline = Duration::from_millis(request.timeout_ms) + GRACE;
        match self.exchange(request, deadline) {
            Ok(answer) => answer,
            Err(why) => {
                // Whatever state the process is in, the next query gets a new one.
                self.process = None;
                Answer::Unknown(why)
            }
        }
    }

    fn exchange(&mut self, request: &Request, deadline: Duration) -> Result<Answer, String> {
        let mut line = serde_json::to_vec(request).map_err(|e| e.to_string())?;
        line.push(b'\n');
        if self.process.is_none() {
            self.process = Some(start()?);
        }
        let process = self.process.as_mut().expect("started above");
        process
            .stdin
            .write_all(&line)
            .and_then(|()| process.stdin.flush())
            .map_err(|e| format!("the solver process stopped reading: {e}"))?;
        let started = Instant::now();
        match process.answers.recv_timeout(deadline) {
            Ok(Ok(answer)) => serde_json::from_str::<Response>(&answer)
                .map(answer_of)
                .map_err(|e| format!("the solver process answered badly: {e}")),
            Ok(Err(e)) => Err(format!("the solver process could not be read: {e}")),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "z3 ran past its time limit and was stopped after {:.1} s",
                started.elapsed().as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                Err("the solver process ended without an answer".to_owned())
            }
        }
    }
}

fn start() -> Result<Process, String> {
    let Some(executable) = EXECUTABLE.get() else {
        return Err("no solver process available".to_owned());
    };
    let mut child = Command::new(executable)
        .arg(SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("the solver process could not start: {e}"))?;
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
