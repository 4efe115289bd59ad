//! `--format github`: one workflow command per diagnostic
//! (`::warning file=…,line=…,endLine=…,title=LCN101::…`), which GitHub Actions shows as an
//! annotation on the pull request's diff. Values are escaped as the runner requires; nothing
//! else is printed.

use super::super::json::position;
use super::super::report::CheckedFile;
use lacuna_analysis::diagnostic::Severity;
use std::io::Write;

/// The command of a severity: annotations have three levels.
fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "notice",
    }
}

/// The escaping of a command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// The escaping of a property's value (also `:` and `,`, which end it).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn lines(files: &[CheckedFile]) -> Vec<String> {
    let mut out = vec![];
    for file in files {
        let path = file.display.to_string_lossy().replace('\\', "/");
        for d in file.diagnostics() {
            let p = position(file.text.as_deref(), &file.lines, d.range);
            let title = format!("{} {}", d.code.as_str(), d.code.name());
            out.push(format!(
                "::{} file={},line={},endLine={},col={},endColumn={},title={}::{}",
                command(d.severity),
                escape_property(&path),
                p.line,
                p.end_line,
                p.column,
                p.end_column,
                escape_property(&title),
                escape_data(&d.message)
            ));
        }
    }
    out
}

pub fn print(files: &[CheckedFile]) {
    let mut out = std::io::stdout().lock();
    for line in lines(files) {
        let _ = writeln!(out, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_as_the_runner_requires() {
        assert_eq!(escape_data("50% off\r\nnow"), "50%25 off%0D%0Anow");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
