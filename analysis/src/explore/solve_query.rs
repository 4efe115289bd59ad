//! `lacuna solve-query`: the process that solves the queries `isolated` hands over, one per line
//! on standard input (a conjunction, or a path's negations solved incrementally), each answer
//! a line on standard output, under a processor-time cap the kernel enforces.

use super::answer::Answer;
use super::isolated::{GRACE, Request, Response};
use super::solver::{Solver, solve_in_process, solve_negations_in_process};
use super::z3_session::Z3Session;
use crate::symbolic::Sort;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// The solving process: reads one [`Request`] per line on standard input and writes each
/// answer as a line on standard output, until its input ends. Before each query its processor
/// time is capped by the kernel (`RLIMIT_CPU`) at what it has used plus the query's deadline,
/// so that it ends even if the process that started it is gone.
pub fn serve() -> ExitCode {
    // Stopped by the kernel at its processor-time cap, it leaves no core file behind (its
    // working directory is the project's).
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut session = Z3Session::default();
    for line in stdin.lines() {
        let Ok(line) = line else {
            return ExitCode::from(2);
        };
        let Ok(request) = serde_json::from_str::<Request>(&line) else {
            return ExitCode::from(2);
        };
        if request.memory_mb > 0 {
            Solver::limit_memory(request.memory_mb);
        }
        let allowed = Duration::from_millis(request.limit.timeout_ms) + GRACE;
        let vars: Vec<(Arc<str>, Sort)> = request
            .vars
            .iter()
            .map(|(name, sort)| (Arc::from(name.as_str()), Sort::from(*sort)))
            .collect();
        let texts: Vec<&str> = request.assertions.iter().map(String::as_str).collect();
        let mut written = true;
        let mut write = |answer: Answer| {
            let Ok(mut out) = serde_json::to_vec(&response(answer)) else {
                written = false;
                return;
            };
            out.push(b'\n');
            written &= stdout.write_all(&out).and_then(|()| stdout.flush()).is_ok();
            // The next query's processor time starts now.
            limit_cpu(allowed);
        };
        limit_cpu(allowed);
        if request.negate.is_empty() {
            write(solve_in_process(
                &mut session,
                &request.declarations,
                &texts,
                &vars,
                request.limit,
            ));
        } else {
            solve_negations_in_process(
                &mut session,
                &request.declarations,
                &texts,
                &request.negate,
                &vars,
                request.limit,
                write,
            );
        }
        if !written {
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

fn response(answer: Answer) -> Response {
    match answer {
        Answer::Sat(model) => Response::Sat(
            model
                .values
                .into_iter()
                .map(|(name, value)| (name.to_string(), value))
                .collect(),
        ),
        Answer::Unsat => Response::Unsat,
        Answer::Unknown(why) => Response::Unknown(why),
        Answer::Unsupported(ops) => Response::Unknown(format!(
            "unsupported: {}",
            ops.iter()
                .map(|o| o.as_ref())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Caps this process's processor time at what it has used plus `allowed`.
fn limit_cpu(allowed: Duration) {
    use nix::sys::resource::{Resource, UsageWho, getrusage, setrlimit};
    let used = getrusage(UsageWho::RUSAGE_SELF)
        .map(|u| u.user_time().tv_sec() + u.system_time().tv_sec())
        .unwrap_or(0)
        .max(0) as u64;
    let soft = used + allowed.as_secs() + 1;
    let _ = setrlimit(Resource::RLIMIT_CPU, soft, soft + 1);
}
