//! The `lacuna` binary: the command line (`lacuna check`) and the language server (`lacuna lsp`).
//! Parses arguments and hands over to the command; owns the process exit codes:
//! 0 when the check ran, 1 when it found errors, 2 on usage or configuration errors.

mod cli;
mod logging;
mod lsp;
mod store;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    logging::init();
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("lacuna: {e:#}");
            ExitCode::from(2)
        }
    }
}
