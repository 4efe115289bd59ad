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
