//! The table-driven MC/DC marking function agrees with the brute-force reference on every
//! decision of the Python standard library with at most 16 conditions.

#[path = "support/mcdc_reference.rs"]
mod reference;

use rayon::prelude::*;
use std::path::PathBuf;

fn stdlib() -> PathBuf {
    let python = std::env::var("LACUNA_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python runs");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
fn tables_agree_with_the_reference_on_the_standard_library() {
    let root = stdlib();
    let files: Vec<PathBuf> = ignore::WalkBuilder::new(&root)
        .standard_filters(false)
        .filter_entry(|e| e.file_name() != "site-packages")
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    // (files, decisions checked, conditions, obligations, sequences, skipped > 16, unmodelled)
    let totals = files
        .par_iter()
        .map(|path| {
            let Ok(text) = std::fs::read_to_string(path) else {
                return Ok([0usize; 7]);
            };
            let module = lacuna_grammar::parse(&text);
            let mut t = [1, 0, 0, 0, 0, 0, 0];
            for d in module.functions.iter().flat_map(|f| &f.syntax.decisions) {
                let Some(expr) = &d.expr else {
                    t[6] += 1;
                    continue;
                };
                let n = d.conditions.len();
                if n > 16 {
                    t[5] += 1;
                    continue;
                }
                t[1] += 1;
                t[2] += n;
                t[3] += 2 * n;
                t[4] += reference::check(expr, n)
                    .map_err(|e| format!("{}: {}: {e}", path.display(), d.id))?;
            }
            Ok(t)
        })
        .try_reduce(
            || [0usize; 7],
            |a, b| Ok(std::array::from_fn(|i| a[i] + b[i])),
        );
    let t = totals.unwrap_or_else(|e: String| panic!("{e}"));
    println!(
        "standard library at {}: {} files, {} decisions checked ({} conditions, {} obligations, {} evaluation sequences); {} skipped (> 16 conditions), {} unmodelled",
        root.display(),
        t[0],
        t[1],
        t[2],
        t[3],
        t[4],
        t[5],
        t[6]
    );
    assert!(
        t[0] > 1_000 && t[1] > 10_000,
        "the standard library was found and parsed"
    );
}
