//! Parsing in parts gives the whole file's parse: every Python file of this repository and of
//! the interpreter's standard library (when `python3` is there), cut into small parts.

use lacuna_grammar::{parse, parse_in_parts};
use std::path::{Path, PathBuf};

fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            python_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

fn stdlib() -> Option<PathBuf> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    Some(PathBuf::from(String::from_utf8(out.stdout).ok()?.trim()))
}

#[test]
fn a_file_parsed_in_parts_is_the_file_parsed_whole() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut ours = vec![];
    for dir in ["tests/fixtures", "examples"] {
        python_files(&root.join(dir), &mut ours);
    }
    let mut library = vec![];
    if let Some(stdlib) = stdlib() {
        python_files(&stdlib, &mut library);
        library.retain(|f| !f.components().any(|c| c.as_os_str() == "site-packages"));
    }
    let files = ours
        .iter()
        .map(|f| (f, &[1, 700, 4096][..]))
        .chain(library.iter().map(|f| (f, &[2048][..])));
    let mut compared = 0;
    let mut differ = vec![];
    for (file, sizes) in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let whole = parse(&text);
        if !whole.syntax_errors.is_empty() {
            continue;
        }
        for &part_bytes in sizes {
            if parse_in_parts(&text, part_bytes) != whole {
                differ.push(format!("{} in parts of {part_bytes}", file.display()));
            }
        }
        compared += 1;
    }
    assert!(compared > 0);
    assert!(
        differ.is_empty(),
        "{} of {compared} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}
