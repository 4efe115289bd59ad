//! The cost of the kernel's containment: worker start-up (spawn, handshake, configure) and
//! executions per second of a small function, with the layers this kernel offers. Run it once as
//! it is and once with `LACUNA_SANDBOX_DISABLE=all` to compare:
//!
//! `cargo bench -p lacuna-analysis --bench containment [-- STARTS EXECUTIONS]`

#[path = "../tests/support/agent.rs"]
mod support;

use lacuna_analysis::agent::protocol::Target;
use lacuna_analysis::agent::{ExecuteRequest, Value, ValueTree};
use lacuna_analysis::sandbox::Layers;
use std::collections::BTreeMap;
use std::time::Instant;

const SOURCE: &str = "def classify(n):\n    if n < 0:\n        return 'negative'\n    if n % 2 == 0:\n        return 'even'\n    return 'odd'\n";

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let starts = args.first().copied().unwrap_or(20);
    let executions = args.get(1).copied().unwrap_or(3000);
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("m.py"), SOURCE).unwrap();
    let home = tempfile::tempdir().unwrap();
    println!("layers: {}", Layers::current());

    let started = Instant::now();
    for _ in 0..starts {
        let pool = support::pool_unconfined_allowed(project.path(), home.path(), 1);
        pool.warm_up().expect("the worker starts");
    }
    let per_start = started.elapsed() / starts as u32;
    println!(
        "worker start-up: {:.1} ms (mean of {starts})",
        per_start.as_secs_f64() * 1e3
    );

    let pool = support::pool_unconfined_allowed(project.path(), home.path(), 1);
    pool.warm_up().expect("the worker starts");
    let started = Instant::now();
    for i in 0..executions {
        let request = ExecuteRequest {
            target: Target {
                module: "m".into(),
                qualname: "classify".into(),
                call: Default::default(),
            },
            receiver: None,
            args: vec![ValueTree::named(
                Value::Int {
                    value: (i as i64 - 500).to_string(),
                },
                "n",
            )],
            kwargs: BTreeMap::new(),
            mocks: vec![],
            timeout_ms: 2_000,
            random_seed: 0,
        };
        pool.execute(&request).expect("executes");
    }
    let rate = executions as f64 / started.elapsed().as_secs_f64();
    println!("executions: {rate:.0}/s ({executions} executions, one worker)");
}
