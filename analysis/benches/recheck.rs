//! Incremental re-check: loads a tree of Python files (default: this interpreter's standard
//! library) into the database, computes every static report, then repeatedly edits the body of
//! one function and re-checks its file, reporting the latency distribution.
//!
//! `cargo bench -p lacuna-analysis --bench recheck [-- DIR [FILE]]`

use lacuna_analysis::config::Config;
use lacuna_analysis::db::{Database, Workspace, file_functions, static_report};
use lacuna_analysis::workspace::{FileContents, discover_files};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let root = args.first().map(PathBuf::from).unwrap_or_else(|| {
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
            ])
            .output()
            .expect("python3 runs");
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    });
    let config = Config::defaults(&root);
    let files = discover_files(&config, std::slice::from_ref(&root))
        .expect("walk")
        .files;
    let contents: Vec<_> = files
        .par_iter()
        .map(|p| (p.clone(), FileContents::read(p)))
        .collect();
    let mut ws = Workspace::new(Database::default(), config);
    let sources = ws.add_files(contents);
    let cold = Instant::now();
    let snapshot = ws.snapshot();
    sources.par_iter().for_each_with(snapshot, |db, &f| {
        static_report(db, f);
    });
    let cold = cold.elapsed();

    // The file to edit: the one named, else `json/decoder.py`, else the first with a function.
    let target = args
        .get(1)
        .map(PathBuf::from)
        .or_else(|| Some(root.join("json/decoder.py")).filter(|p| p.is_file()))
        .unwrap_or_else(|| files[0].clone());
    let original = std::fs::read_to_string(&target).expect("read target");
    let file = ws.lookup(&target).expect("target is part of the tree");
    let function = file_functions(&ws.db, file)
        .iter()
        .find(|f| {
            !f.syntax(&ws.db).decisions.is_empty()
                && f.syntax(&ws.db).kind == lacuna_grammar::FunctionKind::Def
        })
        .copied()
        .expect("a function with decisions");
    let body = function
        .syntax(&ws.db)
        .body
        .absolute(function.anchor(&ws.db));
    let name = function.id(&ws.db).to_string();

    let mut times: Vec<Duration> = vec![];
    for i in 0..200 {
        // Insert a statement at the start of the body, with the body's indentation.
        let line_start = original[..body.start as usize]
            .rfind('\n')
            .map_or(0, |n| n + 1);
        let indent = &original[line_start..body.start as usize];
        let mut edited = original.clone();
        edited.insert_str(
            body.start as usize,
            &format!("_lacuna_edit = {i}\n{indent}"),
        );
        let t = Instant::now();
        ws.file(&target, FileContents::Text(edited.into()));
        static_report(&ws.db, file);
        times.push(t.elapsed());
    }
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
    println!(
        "files {} | cold (all reports, {} threads) {:.2?} | edit `{}` in {}: p50 {:.2?} p95 {:.2?} max {:.2?}",
        files.len(),
        rayon::current_num_threads(),
        cold,
        name,
        target.strip_prefix(&root).unwrap_or(&target).display(),
        pct(0.5),
        pct(0.95),
        times.last().unwrap()
    );
}
