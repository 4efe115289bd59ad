//! `--cobertura FILE`: the same coverage as `--lcov` in the Cobertura XML form coverage.py's
//! `coverage xml` writes (GitLab's merge-request coverage, Jenkins, Azure DevOps): a package per
//! directory, a class per module, each measured line with its hits, and a decision's line with
//! `branch="true"` and its `condition-coverage`.

use super::coverage::FileCoverage;
use std::collections::BTreeMap;
use std::fmt::Write;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn rate(hit: usize, found: usize) -> String {
    if found == 0 {
        "1".to_owned()
    } else {
        format!("{:.4}", hit as f64 / found as f64)
    }
}

/// Per line of a file: executed, and (branch sides taken, branch sides) when a decision is on it.
fn lines(file: &FileCoverage) -> BTreeMap<u32, (bool, Option<(usize, usize)>)> {
    let mut out: BTreeMap<u32, (bool, Option<(usize, usize)>)> = file
        .lines
        .iter()
        .map(|(line, hit)| (*line, (*hit, None)))
        .collect();
    for b in &file.branches {
        let entry = out.entry(b.line).or_default();
        let (taken, total) = entry.1.get_or_insert((0, 0));
        *total += 1;
        *taken += usize::from(b.taken == Some(true));
    }
    out
}

pub fn document(files: &[FileCoverage], timestamp_ms: u128) -> String {
    let (mut lines_hit, mut lines_found, mut branches_hit, mut branches_found) = (0, 0, 0, 0);
    let mut packages: BTreeMap<String, Vec<&FileCoverage>> = BTreeMap::new();
    for f in files {
        let dir = f.path.rsplit_once('/').map_or("", |(d, _)| d);
        packages.entry(dir.replace('/', ".")).or_default().push(f);
        lines_hit += lines(f).values().filter(|l| l.0).count();
        lines_found += lines(f).len();
        branches_hit += f.branches_hit();
        branches_found += f.branches.len();
    }
    let mut out = String::new();
    let _ = writeln!(out, r#"<?xml version="1.0" ?>"#);
    let _ = writeln!(
        out,
        r#"<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">"#
    );
    let _ = writeln!(
        out,
        r#"<coverage version="lacuna {}" timestamp="{timestamp_ms}" lines-valid="{lines_found}" lines-covered="{lines_hit}" line-rate="{}" branches-valid="{branches_found}" branches-covered="{branches_hit}" branch-rate="{}" complexity="0">"#,
        env!("CARGO_PKG_VERSION"),
        rate(lines_hit, lines_found),
        rate(branches_hit, branches_found)
    );
    let _ = writeln!(out, "\t<sources>\n\t\t<source>.</source>\n\t</sources>");
    let _ = writeln!(out, "\t<packages>");
    for (name, files) in &packages {
        let (lh, lf, bh, bf) = files.iter().fold((0, 0, 0, 0), |(lh, lf, bh, bf), f| {
            let l = lines(f);
            (
                lh + l.values().filter(|l| l.0).count(),
                lf + l.len(),
                bh + f.branches_hit(),
                bf + f.branches.len(),
            )
        });
        let _ = writeln!(
            out,
            r#"		<package name="{}" line-rate="{}" branch-rate="{}" complexity="0">"#,
            escape(if name.is_empty() { "." } else { name }),
            rate(lh, lf),
            rate(bh, bf)
        );
        let _ = writeln!(out, "\t\t\t<classes>");
        for f in files {
            let l = lines(f);
            let file_name = f.path.rsplit_once('/').map_or(f.path.as_str(), |(_, n)| n);
            let _ = writeln!(
                out,
                r#"				<class name="{}" filename="{}" complexity="0" line-rate="{}" branch-rate="{}">"#,
                escape(file_name),
                escape(&f.path),
                rate(l.values().filter(|l| l.0).count(), l.len()),
                rate(f.branches_hit(), f.branches.len())
            );
            let _ = writeln!(out, "\t\t\t\t\t<methods/>\n\t\t\t\t\t<lines>");
            for (number, (hit, branches)) in &l {
                match branches {
                    Some((taken, total)) => {
                        let _ = writeln!(
                            out,
                            r#"						<line number="{number}" hits="{}" branch="true" condition-coverage="{}% ({taken}/{total})"/>"#,
                            u8::from(*hit),
                            taken * 100 / total
                        );
                    }
                    None => {
                        let _ = writeln!(
                            out,
                            r#"						<line number="{number}" hits="{}"/>"#,
                            u8::from(*hit)
                        );
                    }
                }
            }
            let _ = writeln!(out, "\t\t\t\t\t</lines>\n\t\t\t\t</class>");
        }
        let _ = writeln!(out, "\t\t\t</classes>\n\t\t</package>");
    }
    let _ = writeln!(out, "\t</packages>\n</coverage>");
    out
}
