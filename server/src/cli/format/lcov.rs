//! `--lcov FILE`: the coverage of the generated tests (or of the project's suite) as an lcov
//! tracefile (geninfo(1)'s format). Branch sides are `BRDA` records named as the decision
//! names them (`true`/`false`, `enter`/`exit`, `pass`/`fail`) and MC/DC condition outcomes
//! are lcov 2.2's `MCDC` records; `--lcov-format 1` writes numbered branches and no `MCDC`
//! records, for readers of lcov 1.x files.

use super::coverage::FileCoverage;
use std::fmt::Write;

/// Which lcov readers the file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LcovFormat {
    /// lcov 1.x (Debian bookworm's 1.16, most coverage services): branches numbered 0 (`true`,
    /// `enter`, `pass`) and 1, no MC/DC.
    #[value(name = "1")]
    V1,
    /// lcov 2.2 and later: branches named, MC/DC records.
    #[value(name = "2")]
    V2,
}

pub fn tracefile(files: &[FileCoverage], test_name: &str, format: LcovFormat) -> String {
    let mut out = String::new();
    for file in files {
        let _ = writeln!(out, "TN:{test_name}");
        let _ = writeln!(out, "SF:{}", file.path);
        for f in &file.functions {
            let _ = writeln!(out, "FN:{},{}", f.line, f.name);
        }
        for f in &file.functions {
            let _ = writeln!(out, "FNDA:{},{}", f.hits, f.name);
        }
        let _ = writeln!(out, "FNF:{}", file.functions.len());
        let _ = writeln!(out, "FNH:{}", file.functions_hit());
        for b in &file.branches {
            let taken = match b.taken {
                None => "-",
                Some(true) => "1",
                Some(false) => "0",
            };
            match format {
                LcovFormat::V1 => {
                    let _ = writeln!(out, "BRDA:{},{},{},{taken}", b.line, b.block, b.index);
                }
                LcovFormat::V2 => {
                    let _ = writeln!(out, "BRDA:{},{},{},{taken}", b.line, b.block, b.name);
                }
            }
        }
        let _ = writeln!(out, "BRF:{}", file.branches.len());
        let _ = writeln!(out, "BRH:{}", file.branches_hit());
        if format == LcovFormat::V2 && !file.mcdc.is_empty() {
            for m in &file.mcdc {
                let _ = writeln!(
                    out,
                    "MCDC:{},{},{},{},{},{}",
                    m.line,
                    m.group,
                    if m.value { 't' } else { 'f' },
                    u8::from(m.shown),
                    m.index,
                    m.expression
                );
            }
            let _ = writeln!(out, "MCF:{}", file.mcdc.len());
            let _ = writeln!(out, "MCH:{}", file.mcdc_hit());
        }
        for (line, hit) in &file.lines {
            let _ = writeln!(out, "DA:{line},{}", u8::from(*hit));
        }
        let _ = writeln!(out, "LF:{}", file.lines.len());
        let _ = writeln!(out, "LH:{}", file.lines_hit());
        let _ = writeln!(out, "end_of_record");
    }
    out
}

/// A line of a tracefile that is not a record [`write`] writes.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a record `lacuna check --lcov` writes: `{0}`")]
pub struct UnknownRecord(String);

/// Reads a tracefile this module wrote (either format) back: its test name, its files, and its
/// format. Records other writers add are refused, not guessed at.
pub fn read(text: &str) -> Result<(String, Vec<FileCoverage>, LcovFormat), UnknownRecord> {
    use super::coverage::{Branch, ConditionOutcome, FunctionCoverage};
    let mut test_name = String::new();
    let mut files: Vec<FileCoverage> = vec![];
    let mut format = LcovFormat::V2;
    let bad = |line: &str| UnknownRecord(line.to_owned());
    for line in text.lines() {
        let (kind, rest) = line.split_once(':').unwrap_or((line, ""));
        let fields: Vec<&str> = rest.split(',').collect();
        let num = |i: usize| -> Result<u64, UnknownRecord> {
            fields
                .get(i)
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad(line))
        };
        let file = files.last_mut();
        match (kind, file) {
            ("TN", _) => test_name = rest.to_owned(),
            ("SF", _) => {
                files.push(FileCoverage {
                    path: rest.to_owned(),
                    functions: vec![],
                    branches: vec![],
                    mcdc: vec![],
                    lines: Default::default(),
                });
            }
            ("FN", Some(f)) => {
                let (line_no, name) = rest.split_once(',').ok_or_else(|| bad(line))?;
                f.functions.push(FunctionCoverage {
                    name: name.to_owned(),
                    line: line_no.parse().map_err(|_| bad(line))?,
                    hits: 0,
                });
            }
            ("FNDA", Some(f)) => {
                let (count, name) = rest.split_once(',').ok_or_else(|| bad(line))?;
                let count: u64 = count.parse().map_err(|_| bad(line))?;
                if let Some(function) = f.functions.iter_mut().find(|x| x.name == name) {
                    function.hits = count;
                }
            }
            ("BRDA", Some(f)) => {
                let branch = fields.get(2).copied().ok_or_else(|| bad(line))?;
                let (index, name) = match branch {
                    "0" => (0, "true"),
                    "1" => (1, "false"),
                    "true" | "enter" | "pass" => (0, branch_name(branch)),
                    "false" | "exit" | "fail" => (1, branch_name(branch)),
                    _ => return Err(bad(line)),
                };
                if branch.len() == 1 {
                    format = LcovFormat::V1;
                }
                f.branches.push(Branch {
                    line: num(0)? as u32,
                    block: num(1)? as usize,
                    index,
                    name,
                    taken: match fields.get(3) {
                        Some(&"-") => None,
                        Some(&"0") => Some(false),
                        Some(&"1") => Some(true),
                        _ => return Err(bad(line)),
                    },
                });
            }
            ("MCDC", Some(f)) => {
                let parts: Vec<&str> = rest.splitn(6, ',').collect();
                if parts.len() != 6 {
                    return Err(bad(line));
                }
                f.mcdc.push(ConditionOutcome {
                    line: parts[0].parse().map_err(|_| bad(line))?,
                    group: parts[1].parse().map_err(|_| bad(line))?,
                    value: parts[2] == "t",
                    shown: parts[3] == "1",
                    index: parts[4].parse().map_err(|_| bad(line))?,
                    expression: parts[5].to_owned(),
                });
            }
            ("DA", Some(f)) => {
                f.lines.insert(num(0)? as u32, num(1)? > 0);
            }
            ("FNF" | "FNH" | "BRF" | "BRH" | "MCF" | "MCH" | "LF" | "LH", Some(_)) => {}
            ("end_of_record", Some(_)) | ("", _) => {}
            _ => return Err(bad(line)),
        }
    }
    Ok((test_name, files, format))
}

fn branch_name(name: &str) -> &'static str {
    ["true", "false", "enter", "exit", "pass", "fail"]
        .into_iter()
        .find(|n| *n == name)
        .unwrap_or("true")
}
