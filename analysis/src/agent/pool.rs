//! The worker pool: up to N agent processes (default: one per core), started lazily,
//! shared by every thread that explores. Each execution takes an idle worker; a worker that hangs
//! or dies during an execution is killed and replaced, and the execution is reported as timed out
//! or crashed — never as an error of the pool.

use super::description::{self, Description, GuidanceDescription};
use super::protocol::{ExecuteRequest, Execution, ObservedClasses, Request, Status, Target};
use super::worker::{Worker, WorkerError, WorkerSpec};
use serde_json::Value as Json;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Time given to the agent beyond an execution's own timeout before the worker is killed
/// (the agent's own timer normally stops user code first).
const GRACE: Duration = Duration::from_millis(1500);

pub struct Pool {
    spec: WorkerSpec,
    size: usize,
    state: Mutex<State>,
    idle_changed: Condvar,
    /// The workers' scratch directory, removed when the pool goes (after its workers).
    scratch: Option<tempfile::TempDir>,
    /// The first worker's `environment` (see [`Pool::environment`]).
    environment: std::sync::OnceLock<String>,
    /// A worker being started ahead of need, for the next exploration of a reproducible run
    /// ([`Pool::fresh`]).
    ahead: Mutex<Option<std::thread::JoinHandle<Result<Worker, WorkerError>>>>,
}

struct State {
    idle: Vec<Worker>,
    /// Workers alive (idle or busy).
    alive: usize,
    stats: PoolStats,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub started: u64,
    pub executions: u64,
    pub timeouts: u64,
    pub crashes: u64,
}

impl Pool {
    pub fn new(spec: WorkerSpec, size: usize) -> Pool {
        Pool {
            spec,
            size: size.max(1),
            state: Mutex::new(State {
                idle: vec![],
                alive: 0,
                stats: PoolStats::default(),
            }),
            idle_changed: Condvar::new(),
            scratch: None,
            environment: std::sync::OnceLock::new(),
            ahead: Mutex::new(None),
        }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn stats(&self) -> PoolStats {
        self.state.lock().expect("pool lock").stats
    }

    /// Starts one worker now (instead of at the first execution) to report start-up errors
    /// early; returns its Python version.
    pub fn warm_up(&self) -> Result<String, WorkerError> {
        let worker = self.checkout()?;
        let version = worker.python_version.clone();
        let _ = self.environment.set(worker.environment.clone());
        self.checkin(Some(worker));
        Ok(version)
    }

    /// The interpreter the workers run.
    pub fn interpreter(&self) -> &std::path::Path {
        &self.spec.python
    }

    /// What identifies the packages the workers' interpreter can import, once a worker has
    /// started ([`Pool::warm_up`]): what a stored failure to import depends on besides the
    /// project's code.
    pub fn environment(&self) -> Option<&str> {
        self.environment.get().map(String::as_str)
    }

    fn checkout(&self) -> Result<Worker, WorkerError> {
        let mut state = self.state.lock().expect("pool lock");
        loop {
            if let Some(worker) = state.idle.pop() {
                return Ok(worker);
            }
            if state.alive < self.size {
                state.alive += 1;
                state.stats.started += 1;
                drop(state);
                return Worker::spawn(&self.spec).inspect_err(|_| {
                    let mut state = self.state.lock().expect("pool lock");
                    state.alive -= 1;
                    self.idle_changed.notify_one();
                });
            }
            state = self.idle_changed.wait(state).expect("pool lock");
        }
    }

    fn checkin(&self, worker: Option<Worker>) {
        let mut state = self.state.lock().expect("pool lock");
        match worker {
            Some(w) => state.idle.push(w),
            None => state.alive -= 1,
        }
        self.idle_changed.notify_one();
    }

    /// Runs one execution again, recording the program points of every project function it
    /// invokes (as the suite's run does), for comparison with what the suite showed.
    pub fn observe(
        &self,
        request: &ExecuteRequest,
    ) -> Result<Vec<crate::suite::Invocation>, WorkerError> {
        #[derive(serde::Deserialize)]
        struct Observed {
            #[serde(default)]
            invocations: Vec<crate::suite::Invocation>,
        }
        let mut json = serde_json::to_value(request).expect("requests serialise");
        json["op"] = "execute".into();
        json["observe"] = true.into();
        let timeout = Duration::from_millis(request.timeout_ms) + GRACE;
        match self.send(json, timeout)? {
            Ok(json) => Ok(serde_json::from_value::<Observed>(json)
                .map(|o| o.invocations)
                .unwrap_or_default()),
            Err(_) => Ok(vec![]),
        }
    }

    /// Runs one execution. Fails only when no worker can be started at all.
    pub fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        let (json, timeout) = wire(request, Clock::Wall);
        let response = self.on_worker(|worker| worker.request_text(json, timeout))?;
        Ok(self.execution_of(response))
    }

    /// What an execution's answer (or the worker's failure) says, counted in the statistics.
    fn execution_of(&self, response: Result<String, WorkerError>) -> Execution {
        let execution = match response {
            Ok(text) => match serde_json::from_str::<Execution>(&text) {
                Ok(e) => e,
                Err(e) => Execution::ended(Status::Error, format!("malformed response: {e}")),
            },
            Err(WorkerError::Timeout(_)) => {
                self.state.lock().expect("pool lock").stats.timeouts += 1;
                Execution::ended(
                    Status::Timeout,
                    "the worker did not answer in time and was killed",
                )
            }
            Err(WorkerError::Died(why)) => {
                self.state.lock().expect("pool lock").stats.crashes += 1;
                let status = if why.contains("SIGKILL") || why.contains("MemoryError") {
                    Status::Memory
                } else {
                    Status::Crashed
                };
                Execution::ended(status, why)
            }
            Err(e) => Execution::ended(Status::Error, e.to_string()),
        };
        self.state.lock().expect("pool lock").stats.executions += 1;
        execution
    }

    /// The target's signature as the agent reads it (`describe`); the outer error is a worker
    /// that could not start, the inner one what happened to this request.
    pub fn describe(
        &self,
        target: Target,
        observed: ObservedClasses,
        timeout: Duration,
    ) -> Result<Result<Description, WorkerError>, WorkerError> {
        let answer = self.ask(&Request::Describe { target, observed }, timeout)?;
        Ok(answer.map(description::read))
    }

    /// The declarations of the guidance module as the agent reads them (`guidance`): imported
    /// as `module` when the project's import roots hold it, otherwise from `path`.
    pub fn guidance(
        &self,
        module: Option<String>,
        path: std::path::PathBuf,
        timeout: Duration,
    ) -> Result<Result<GuidanceDescription, WorkerError>, WorkerError> {
        let answer = self.ask(&Request::Guidance { module, path }, timeout)?;
        Ok(answer.map(description::read))
    }

    /// Asks the agent `request`; the outer error is a worker that could not start, the inner
    /// one what happened to this request.
    pub fn ask(
        &self,
        request: &Request,
        timeout: Duration,
    ) -> Result<Result<Json, WorkerError>, WorkerError> {
        self.send(
            serde_json::to_value(request).expect("requests serialise"),
            timeout,
        )
    }

    /// Sends a request in its wire form; the outer error is a worker that could not start,
    /// the inner one what happened to this request.
    fn send(
        &self,
        request: Json,
        timeout: Duration,
    ) -> Result<Result<Json, WorkerError>, WorkerError> {
        self.on_worker(|worker| worker.request(request, timeout))
    }

    /// `ask` of an idle worker, given back to the pool when it answered (one that timed out
    /// or died is dropped, killed); the outer error is a worker that could not start.
    fn on_worker<T>(
        &self,
        ask: impl FnOnce(&mut Worker) -> Result<T, WorkerError>,
    ) -> Result<Result<T, WorkerError>, WorkerError> {
        let mut worker = self.checkout()?;
        let response = ask(&mut worker);
        self.checkin(response.is_ok().then_some(worker));
        Ok(response)
    }
}

/// The executions of one exploration of a reproducible run, all on a worker of their own
/// started for it: what one execution does can depend on what the worker ran before (a
/// module's caches, its logging set up, the interpreter's own), and which executions of a
/// run share a pool's worker depends on timing; a worker that served only this exploration,
/// in its order, makes the answers the same on every run. Each execution's time limit is
/// counted in processor time (the wall clock a bound [`crate::config::REPRODUCIBLE_SAFETY`]
/// times longer). Outside the pool's count (like
/// [`Pool::dedicated`]), so that a search that also asks the pool (its watch) cannot wait on
/// itself; a worker that dies or hangs is replaced by another fresh one.
pub struct Pinned<'a> {
    pool: &'a Pool,
    worker: Mutex<Option<Worker>>,
}

impl Pool {
    /// An executor whose executions run on one fresh worker (started at the first).
    pub fn pinned(&self) -> Pinned<'_> {
        Pinned {
            pool: self,
            worker: Mutex::new(None),
        }
    }
}

impl Pinned<'_> {
    /// Runs one execution on the exploration's worker. Fails only when no worker can start.
    pub fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        let (json, timeout) = wire(request, Clock::Processor);
        let mut slot = self.worker.lock().expect("pinned worker lock");
        let mut worker = match slot.take() {
            Some(w) => w,
            None => self.pool.fresh()?,
        };
        let response = worker.request_text(json, timeout);
        if response.is_ok() {
            *slot = Some(worker);
        }
        drop(slot);
        Ok(self.pool.execution_of(response))
    }
}

/// What an execution's time limit counts.
#[derive(Clone, Copy)]
enum Clock {
    /// The wall clock (the shared pool).
    Wall,
    /// The processor time the worker spends, which load barely changes (an input that walks a
    /// directory tree took 1.2 s alone and timed out beside three other runs): the agent stops
    /// an input that waits without computing at the limit, and a slowly computing one at
    /// [`crate::config::REPRODUCIBLE_SAFETY`] times it by the wall clock (a reproducible run).
    Processor,
}

/// An execution as a worker reads it, and how long to wait for its answer.
fn wire(request: &ExecuteRequest, clock: Clock) -> (Json, Duration) {
    let mut json = serde_json::to_value(request).expect("requests serialise");
    json["op"] = "execute".into();
    let wall = match clock {
        Clock::Wall => request.timeout_ms,
        Clock::Processor => {
            let wall = request
                .timeout_ms
                .saturating_mul(u64::from(crate::config::REPRODUCIBLE_SAFETY));
            json["cpu_clock"] = true.into();
            json["wall_timeout_ms"] = wall.into();
            wall
        }
    };
    (json, Duration::from_millis(wall) + GRACE)
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        if let Some(w) = self.worker.get_mut().expect("pinned worker lock").take() {
            w.shutdown();
        }
    }
}

impl Pool {
    /// A worker of the pool's kind that is not the pool's: for a run that leaves the
    /// interpreter changed (the project's suite), to be dropped after it.
    pub fn dedicated(&self) -> Result<Worker, WorkerError> {
        self.state.lock().expect("pool lock").stats.started += 1;
        Worker::spawn(&self.spec)
    }

    /// A worker that has run nothing yet, in a directory of its own
    /// ([`Worker::spawn_alone`]), for a [`Pinned`] exploration: the one started ahead
    /// for it when there is one (else one started now), and the next one started ahead, in
    /// the background, so that a worker's start (the interpreter, the agent's imports)
    /// overlaps the exploration before it instead of coming before each one. A worker started
    /// ahead has run nothing, so it is as fresh as one started when it is needed.
    fn fresh(&self) -> Result<Worker, WorkerError> {
        let ahead = self.ahead.lock().expect("pool lock").take();
        self.state.lock().expect("pool lock").stats.started += 1;
        let worker = match ahead.map(std::thread::JoinHandle::join) {
            Some(Ok(Ok(worker))) => worker,
            // None ahead, or it could not start: the error of one started now is the one told.
            _ => Worker::spawn_alone(&self.spec)?,
        };
        let mut ahead = self.ahead.lock().expect("pool lock");
        if ahead.is_none() {
            let spec = self.spec.clone();
            *ahead = Some(std::thread::spawn(move || Worker::spawn_alone(&spec)));
        }
        Ok(worker)
    }

    /// Gives the pool its workers' scratch directory to remove when it is dropped.
    pub fn with_scratch(mut self, dir: tempfile::TempDir) -> Pool {
        self.scratch = Some(dir);
        self
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let idle = std::mem::take(&mut self.state.lock().expect("pool lock").idle);
        for w in idle {
            w.shutdown();
        }
        let ahead = self.ahead.get_mut().expect("pool lock").take();
        if let Some(Ok(Ok(w))) = ahead.map(std::thread::JoinHandle::join) {
            w.shutdown();
        }
    }
}
