//! `lacuna check --mcdc-report`: per decision, the MC/DC obligations the generated tests cover
//! and the ones they miss, in the form GCC's `gcov --conditions` prints ("condition outcomes
//! covered 3/4", "condition 1 not covered (false)"), with what would cover each or why nothing
//! can.

use super::report::{CheckedFile, Totals};
use std::io::Write;

pub fn print(files: &[CheckedFile]) {
    let mut out = std::io::stdout().lock();
    for file in files {
        for f in file.functions() {
            let Some(g) = file.generated(&f.id) else {
                continue;
            };
            let figures = file.figures(f);
            if let Some(why) = g.failure.as_deref().filter(|_| figures.obligations > 0) {
                // Counted in the total, none shown.
                let _ = writeln!(
                    out,
                    "{}:{}: in {}: not explored: {why}\n    condition outcomes covered 0/{}",
                    file.display.display(),
                    f.line,
                    g.id,
                    figures.obligations
                );
                continue;
            }
            for d in &g.mcdc {
                let _ = writeln!(
                    out,
                    "{}:{}:{}: in {}: `{}`",
                    file.display.display(),
                    d.line,
                    d.column,
                    g.id,
                    d.text
                );
                let _ = writeln!(
                    out,
                    "    condition outcomes covered {}/{} (the project's own tests: {}/{})",
                    d.covered, d.total, d.suite, d.total
                );
                for (c, text, value, infeasible, vector) in &d.missing {
                    let _ = write!(out, "    condition {c} not covered ({value}): `{text}`");
                    if *infeasible {
                        let _ = writeln!(
                            out,
                            " — infeasible: needs {vector}, which no input satisfies"
                        );
                    } else if vector.is_empty() {
                        let _ = writeln!(out);
                    } else {
                        let _ = writeln!(out, " — needs {vector}");
                    }
                }
            }
        }
    }
    let figures = Totals::of(files).figures;
    let (covered, total) = (figures.shown.unwrap_or(0), figures.obligations);
    let percent = if total == 0 {
        100.0
    } else {
        100.0 * covered as f64 / total as f64
    };
    let _ = writeln!(
        out,
        "\nMC/DC: {covered}/{total} condition outcomes covered ({percent:.1}%)"
    );
}
