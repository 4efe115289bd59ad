//! `lacuna merge FILE…`: joins the outputs of `lacuna check --shard i/n` — JSON documents or
//! SARIF logs — into what one unsharded run prints: files and functions in source order,
//! diagnostics in the order the check sorts them, totals summed. It reads the documents as JSON
//! values (the edge of the program), checks that they are the `n` parts of one run, and never
//! recomputes a figure a shard did not report.

use anyhow::{Context, bail};
use lacuna_analysis::diagnostic::Code;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut docs = vec![];
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let doc: Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a JSON document", file.display()))?;
        docs.push(doc);
    }
    let merged = if docs.iter().all(|d| d.get("runs").is_some()) {
        sarif(docs)?
    } else if docs.iter().all(|d| d.get("files").is_some()) {
        json(docs)?
    } else {
        bail!(
            "the files to merge must all be `lacuna check --format json` or all `--format sarif` outputs"
        );
    };
    let stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(stdout, &merged)?;
    println!();
    Ok(ExitCode::SUCCESS)
}

/// Joins the shards' lcov tracefiles: each file's records from every shard (a shard writes only
/// its functions, with decisions numbered across the whole file), in the writer's order.
pub fn lcov(files: &[PathBuf], out: &std::path::Path) -> anyhow::Result<ExitCode> {
    use super::format::lcov::{read, tracefile};
    let mut test_name = None;
    let mut format = None;
    let mut merged: Vec<super::format::coverage::FileCoverage> = vec![];
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let (name, parts, f) =
            read(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        if test_name.get_or_insert(name.clone()) != &name || *format.get_or_insert(f) != f {
            bail!(
                "{}: its test name or branch form differs from the other tracefiles'",
                file.display()
            );
        }
        for part in parts {
            match merged.iter_mut().find(|m| m.path == part.path) {
                None => merged.push(part),
                Some(into) => {
                    into.functions.extend(part.functions);
                    into.branches.extend(part.branches);
                    into.mcdc.extend(part.mcdc);
                    for (line, hit) in part.lines {
                        *into.lines.entry(line).or_default() |= hit;
                    }
                }
            }
        }
    }
    merged.sort_by(|a, b| PathBuf::from(&a.path).cmp(&PathBuf::from(&b.path)));
    merged.iter_mut().for_each(|f| f.sort());
    let text = tracefile(
        &merged,
        test_name.as_deref().unwrap_or(""),
        format.unwrap_or(super::format::lcov::LcovFormat::V2),
    );
    std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// Checks that `shards` (`i/n` each) are the parts 1..n of one run, once each.
fn check_parts(shards: &[String]) -> anyhow::Result<()> {
    let parts: Vec<super::shard::Shard> = shards
        .iter()
        .map(|s| s.parse().map_err(anyhow::Error::msg))
        .collect::<Result<_, _>>()?;
    let n = parts.first().map_or(0, |p| p.count);
    let mut seen: Vec<u32> = parts.iter().map(|p| p.index + 1).collect();
    seen.sort_unstable();
    if parts.iter().any(|p| p.count != n) || seen != (1..=n).collect::<Vec<_>>() {
        bail!(
            "the outputs are shards {} : merge needs each of 1/{n} … {n}/{n} once",
            shards.join(", ")
        );
    }
    Ok(())
}

/// A diagnostic's place in a file's list: start, code, end, message, function.
type DiagnosticKey = ((u64, u64), Option<Code>, (u64, u64), String, Option<String>);

/// The order the check sorts a file's diagnostics in: start, code, end, message, function.
fn diagnostic_key(
    start: (u64, u64),
    code: &str,
    end: (u64, u64),
    message: &str,
    function: Option<&str>,
) -> DiagnosticKey {
    (
        start,
        code.parse().ok(),
        end,
        message.to_owned(),
        function.map(str::to_owned),
    )
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn json(docs: Vec<Value>) -> anyhow::Result<Value> {
    let shards: Vec<String> = docs
        .iter()
        .map(|d| d["shard"].as_str().unwrap_or("").to_owned())
        .collect();
    if shards.iter().any(String::is_empty) {
        bail!("every document to merge must come from `lacuna check --shard i/n`");
    }
    check_parts(&shards)?;
    let mut out = docs[0].clone();
    let map = out
        .as_object_mut()
        .context("a JSON document is an object")?;
    map.remove("shard");
    // Files, in the order the first shard lists them (every shard lists every file).
    let mut files: Vec<Value> = vec![];
    for doc in &docs {
        for file in doc["files"].as_array().into_iter().flatten() {
            match files.iter_mut().find(|f| f["path"] == file["path"]) {
                None => files.push(file.clone()),
                Some(into) => {
                    for key in ["functions", "diagnostics"] {
                        let items = file[key].as_array().cloned().unwrap_or_default();
                        if let Some(list) = into[key].as_array_mut() {
                            list.extend(items);
                        }
                    }
                }
            }
        }
    }
    for file in &mut files {
        if let Some(functions) = file["functions"].as_array_mut() {
            functions.sort_by_key(|f| n(&f["line"]));
        }
        if let Some(diagnostics) = file["diagnostics"].as_array_mut() {
            diagnostics.sort_by_key(|d| {
                diagnostic_key(
                    (n(&d["line"]), n(&d["column"])),
                    d["code"].as_str().unwrap_or(""),
                    (n(&d["end_line"]), n(&d["end_column"])),
                    d["message"].as_str().unwrap_or(""),
                    d["function"].as_str(),
                )
            });
        }
    }
    // Totals: each shard counted what it reports; files are counted once.
    let mut summary = Map::new();
    for doc in &docs {
        sum_into(&mut summary, &doc["summary"]);
    }
    summary.insert("files".into(), Value::from(files.len()));
    map.insert("summary".into(), Value::Object(summary));
    map.insert("files".into(), Value::Array(files));
    if docs.iter().all(|d| d["generation"].is_object()) {
        let mut generation = Map::new();
        for doc in &docs {
            for (k, v) in doc["generation"].as_object().into_iter().flatten() {
                let entry = generation.entry(k.clone()).or_insert(Value::from(0));
                // Worker counts and durations are per machine: the largest; counts add up.
                *entry = if k == "workers" || k.ends_with("_ms") {
                    Value::from(n(entry).max(n(v)))
                } else {
                    Value::from(n(entry) + n(v))
                };
            }
        }
        map.insert("generation".into(), Value::Object(generation));
    }
    Ok(out)
}

/// Adds the numbers of `from` into `into`, recursively (`candidates`).
fn sum_into(into: &mut Map<String, Value>, from: &Value) {
    for (k, v) in from.as_object().into_iter().flatten() {
        match v {
            Value::Object(_) => {
                let entry = into.entry(k.clone()).or_insert(Value::Object(Map::new()));
                if let Value::Object(m) = entry {
                    sum_into(m, v);
                }
            }
            _ => {
                let entry = into.entry(k.clone()).or_insert(Value::from(0));
                *entry = Value::from(n(entry) + n(v));
            }
        }
    }
}

fn sarif(docs: Vec<Value>) -> anyhow::Result<Value> {
    let shards: Vec<String> = docs
        .iter()
        .map(|d| {
            let id = d["runs"][0]["automationDetails"]["id"]
                .as_str()
                .unwrap_or("");
            id.strip_prefix("lacuna/check/shard-")
                .map(|s| s.replacen("-of-", "/", 1))
                .unwrap_or_default()
        })
        .collect();
    if shards.iter().any(String::is_empty) {
        bail!("every SARIF log to merge must come from `lacuna check --format sarif --shard i/n`");
    }
    check_parts(&shards)?;
    let mut out = docs[0].clone();
    let mut results: Vec<Value> = docs
        .iter()
        .flat_map(|d| {
            d["runs"][0]["results"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let region = |r: &Value| r["locations"][0]["physicalLocation"]["region"].clone();
    results.sort_by_key(|r| {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let g = region(r);
        (
            PathBuf::from(&uri),
            diagnostic_key(
                (n(&g["startLine"]), n(&g["startColumn"])),
                r["ruleId"].as_str().unwrap_or(""),
                (n(&g["endLine"]), n(&g["endColumn"])),
                r["message"]["text"].as_str().unwrap_or(""),
                r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].as_str(),
            ),
        )
    });
    let run = &mut out["runs"][0];
    run["results"] = Value::Array(results);
    run["automationDetails"]["id"] = Value::from(super::shard::Shard::automation(None));
    Ok(out)
}
