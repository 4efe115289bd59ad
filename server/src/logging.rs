//! Structured logs for whoever debugs Lacuna: off unless `LACUNA_LOG` holds a filter
//! (`debug`, `lacuna_analysis::explore=debug`, `info,lacuna_server=debug` — `tracing`'s
//! `EnvFilter` syntax), then written to stderr (never stdout: the language server's protocol
//! and `--format json` own it), each line with the spans it happened in (the function an
//! exploration explores, the language server's generation job).

use tracing_subscriber::EnvFilter;

/// The variable holding the filter.
pub const VARIABLE: &str = "LACUNA_LOG";

/// Installs the subscriber when `LACUNA_LOG` is set; a filter that does not parse says so
/// once and logs nothing.
pub fn init() {
    let Some(filter) = std::env::var_os(VARIABLE).filter(|v| !v.is_empty()) else {
        return;
    };
    let filter = match EnvFilter::try_new(filter.to_string_lossy()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("lacuna: warning: {VARIABLE} is not a log filter ({e}); logging nothing");
            return;
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}
