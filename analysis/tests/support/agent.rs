//! Starting a real agent pool on a directory for tests, with `HOME` pointed at a temporary
//! directory so that nothing the code under test does can reach the real one.

use lacuna_analysis::agent::{Pool, WorkerSpec, embed, interpreter};
use std::path::{Path, PathBuf};

pub fn python() -> PathBuf {
    std::env::var_os("LACUNA_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// A pool of `size` workers on the project at `root`; `home` becomes their `HOME`.
#[allow(dead_code)]
pub fn pool(root: &Path, home: &Path, size: usize) -> Pool {
    pool_with(root, home, size, false)
}

/// `pool`, allowed to run with the layers `LACUNA_SANDBOX_DISABLE` leaves (for measurements).
#[allow(dead_code)]
pub fn pool_unconfined_allowed(root: &Path, home: &Path, size: usize) -> Pool {
    pool_with(root, home, size, true)
}

fn pool_with(root: &Path, home: &Path, size: usize, allow_unconfined: bool) -> Pool {
    let python = interpreter::probe(&python())
        .expect("a Python 3.9+ interpreter")
        .path;
    let agent_dir = embed::install(&home.join(".cache/lacuna")).expect("agent installs");
    let scratch = home.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let spec = WorkerSpec {
        python,
        agent_dir,
        env: vec![("HOME".into(), home.display().to_string())],
        configure: lacuna_analysis::agent::protocol::Configure {
            roots: vec![root.to_owned()],
            sys_path: vec![root.to_owned()],
            scratch: scratch.clone(),
            memory_mb: 1024,
            ..Default::default()
        },
        policy: lacuna_analysis::sandbox::Policy {
            scratch: scratch.clone(),
            memory_mb: 1024,
            allow_unconfined,
            ..Default::default()
        },
    };
    Pool::new(spec, size)
}

/// The agent's `describe` request for `qualname` in `module`.
#[allow(dead_code)]
pub fn describe(module: &str, qualname: &str) -> lacuna_analysis::agent::protocol::Request {
    lacuna_analysis::agent::protocol::Request::Describe {
        target: lacuna_analysis::agent::protocol::Target {
            module: module.into(),
            qualname: qualname.into(),
            call: Default::default(),
        },
        observed: Default::default(),
    }
}
