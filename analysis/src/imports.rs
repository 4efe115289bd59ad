//! Why a module of the project cannot be imported, as the agent saw it (the exception and the
//! chain of project modules being imported when it was raised), turned into `LCN108`
//! diagnostics: one per missing dependency or per module that fails to import, not one per
//! function, each with the fix. Computes no import itself: the agent imports, this explains.

use crate::agent::description::ImportError;
use crate::diagnostic::evidence::{ImportFailed, ImportLink};
use crate::diagnostic::{Code, Diagnostic, Evidence};
use lacuna_grammar::TextRange;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why importing a target's module failed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImportFailure {
    /// The exception's type and message (`ModuleNotFoundError`, `No module named 'yaml'`).
    pub error: String,
    pub message: String,
    /// The module `import` could not find, when that is the failure.
    pub missing: Option<String>,
    /// Whether the missing module's top-level name is a file or directory of the project.
    pub missing_in_project: bool,
    /// The project modules being imported, outermost (the target's module) first.
    pub chain: Vec<ImportLink>,
}

impl ImportFailure {
    /// Reads the agent's `import_error` object.
    pub fn from_agent(answer: &ImportError) -> Option<ImportFailure> {
        let chain = answer
            .chain
            .as_ref()?
            .iter()
            .filter_map(|l| {
                Some(ImportLink {
                    module: l.module.clone(),
                    file: PathBuf::from(l.file.as_deref()?),
                    line: l.line.unwrap_or(1) as u32,
                })
            })
            .collect();
        Some(ImportFailure {
            error: answer.error.clone()?,
            message: answer.message.clone().unwrap_or_default(),
            missing: answer.missing.clone(),
            missing_in_project: answer.missing_in_project.unwrap_or(false),
            chain,
        })
    }

    /// A dependency the environment lacks: a module not found that is not the project's.
    pub fn missing_dependency(&self) -> Option<&str> {
        match &self.missing {
            Some(m) if !self.missing_in_project => Some(m.split('.').next().unwrap_or(m)),
            _ => None,
        }
    }

    /// What the failures of different functions share: the missing dependency, else the
    /// innermost module that failed and the line that raised.
    fn key(&self) -> String {
        match self.missing_dependency() {
            Some(m) => format!("missing:{m}"),
            None => match self.chain.last() {
                Some(l) => format!("{}:{}:{}", l.file.display(), l.line, self.message),
                None => format!("{}: {}", self.error, self.message),
            },
        }
    }
}

/// The exception the agent raises into an import that runs out of time.
const IMPORT_TIMED_OUT: &str = "ImportTimedOut";

/// A function whose module could not be imported.
pub struct Failed<'a> {
    pub module: &'a str,
    pub file: &'a Path,
    pub failure: &'a ImportFailure,
}

/// Where a diagnostic goes: the range of line `line` (1-based) of `file`, when the file is one
/// the report shows.
pub trait Locate {
    fn line(&self, file: &Path, line: u32) -> Option<TextRange>;
}

/// One `LCN108` per missing dependency, and one per module that fails to import otherwise, on
/// the import statement (or the line that raised) in the innermost module of the chain the
/// report shows; `python` is the project's interpreter, named in the fix.
pub fn diagnostics(
    failed: &[Failed<'_>],
    python: &Path,
    root: &Path,
    locate: &dyn Locate,
) -> Vec<(PathBuf, Diagnostic)> {
    let mut groups: BTreeMap<String, Vec<&Failed<'_>>> = BTreeMap::new();
    for f in failed {
        groups.entry(f.failure.key()).or_default().push(f);
    }
    let mut out = vec![];
    for group in groups.values() {
        // The longest chain says the most about how the project reaches the failure.
        let first = *group
            .iter()
            .max_by_key(|f| f.failure.chain.len())
            .unwrap_or(&group[0]);
        let failure = first.failure;
        // The innermost statement of the chain in a file the report shows; else the first
        // line of the target's own module.
        let placed = failure
            .chain
            .iter()
            .rev()
            .find_map(|l| Some((l.file.clone(), locate.line(&l.file, l.line)?)))
            .or_else(|| Some((first.file.to_owned(), locate.line(first.file, 1)?)));
        let Some((file, range)) = placed else {
            continue;
        };
        let mut modules: Vec<&str> = group.iter().map(|f| f.module).collect();
        modules.sort_unstable();
        modules.dedup();
        let functions = group.len();
        let message = message(failure, first.module, python, root, functions);
        let mut diagnostic = Diagnostic::new(Code::ImportFailed, range, message);
        diagnostic.evidence = Some(Evidence::ImportFailed(ImportFailed {
            error: failure.error.clone(),
            exception: failure.message.clone(),
            missing: failure.missing.clone(),
            install: failure
                .missing_dependency()
                .map(|m| distribution(m).to_owned()),
            modules: modules.into_iter().map(str::to_owned).collect(),
            functions,
            chain: failure.chain.clone(),
        }));
        out.push((file, diagnostic));
    }
    out
}

/// The chain up to its innermost module, and that module's failing line:
/// (`` `pkg.module` imports `pkg.config` (line 1), which `` , 3).
fn chain_prefix(failure: &ImportFailure, target: &str) -> (String, u32) {
    let names: Vec<String> = failure
        .chain
        .iter()
        .map(|l| {
            l.module
                .clone()
                .unwrap_or_else(|| l.file.display().to_string())
        })
        .collect();
    let Some((last, outer)) = failure.chain.split_last() else {
        return (format!("`{target}`"), 1);
    };
    let mut text = format!("`{}`", names[0]);
    for (i, link) in outer.iter().enumerate() {
        let which = if i == 0 {
            " imports"
        } else {
            ", which imports"
        };
        text.push_str(&format!("{which} `{}` (line {})", names[i + 1], link.line));
    }
    if !outer.is_empty() {
        text.push_str(", which");
    }
    (text, last.line)
}

/// `` `pkg.module` imports `pkg.config` (line 1), which imports `yaml` (line 3) ``
fn chain_text(failure: &ImportFailure, target: &str, missing: &str) -> String {
    let (prefix, line) = chain_prefix(failure, target);
    format!("{prefix} imports `{missing}` (line {line})")
}

fn message(
    failure: &ImportFailure,
    target: &str,
    python: &Path,
    root: &Path,
    functions: usize,
) -> String {
    let not_explored = match functions {
        1 => "1 function not explored".to_owned(),
        n => format!("{n} functions not explored"),
    };
    if let Some(missing) = failure.missing_dependency() {
        let full = failure.missing.as_deref().unwrap_or(missing);
        let installable = ["pyproject.toml", "setup.py", "setup.cfg"]
            .iter()
            .any(|f| root.join(f).is_file());
        let project = if installable {
            format!(
                " (or install the project with its dependencies: `{} -m pip install -e .`)",
                python.display()
            )
        } else {
            String::new()
        };
        return format!(
            "missing dependency `{missing}`: {}, which is not installed for {}; {not_explored}. \
             Fix: `{} -m pip install {}`{project}",
            chain_text(failure, target, full),
            python.display(),
            python.display(),
            distribution(missing),
        );
    }
    if failure.error == IMPORT_TIMED_OUT {
        let (prefix, line) = chain_prefix(failure, target);
        return format!(
            "cannot import `{target}`: {}: {prefix} was still running line {line}; \
             {not_explored}. Fix: move what runs at module level there into a function (or \
             under `if __name__ == \"__main__\":`), so that importing the module only \
             defines what it holds",
            failure.message
        );
    }
    let fix = if failure.message.contains("no known parent package")
        || failure.message.contains("beyond top-level package")
    {
        format!(
            "a relative import needs its module imported as part of its package, and the \
             project root found was {}: put a `pyproject.toml` (or `setup.cfg`, `setup.py`) in \
             the directory above the package, or set `src` in `[tool.lacuna]`",
            root.display()
        )
    } else if failure.missing.is_some() {
        "the module is the project's but under no import root: set `src` in `[tool.lacuna]` \
         to the directory that holds its package"
            .to_owned()
    } else {
        format!(
            "the module must import from the project root: try `{} -c \"import {target}\"` \
             there",
            python.display()
        )
    };
    let (prefix, line) = chain_prefix(failure, target);
    format!(
        "cannot import `{target}`: {prefix} raised {}: {} (line {line}); {not_explored}. Fix: {fix}",
        failure.error, failure.message
    )
}

/// The distribution `pip` installs for an import name, where the two differ for well-known
/// packages (`yaml` is PyYAML); otherwise the import name itself.
pub fn distribution(module: &str) -> &str {
    const KNOWN: &[(&str, &str)] = &[
        ("yaml", "PyYAML"),
        ("PIL", "Pillow"),
        ("cv2", "opencv-python"),
        ("sklearn", "scikit-learn"),
        ("skimage", "scikit-image"),
        ("bs4", "beautifulsoup4"),
        ("dateutil", "python-dateutil"),
        ("dotenv", "python-dotenv"),
        ("attr", "attrs"),
        ("jwt", "PyJWT"),
        ("Crypto", "pycryptodome"),
        ("OpenSSL", "pyOpenSSL"),
        ("serial", "pyserial"),
        ("usb", "pyusb"),
        ("zmq", "pyzmq"),
        ("git", "GitPython"),
        ("magic", "python-magic"),
        ("google", "protobuf"),
        ("fitz", "PyMuPDF"),
        ("docx", "python-docx"),
        ("pptx", "python-pptx"),
        ("jose", "python-jose"),
        ("slugify", "python-slugify"),
        ("multipart", "python-multipart"),
        ("Levenshtein", "python-Levenshtein"),
    ];
    KNOWN
        .iter()
        .find(|(m, _)| *m == module)
        .map_or(module, |(_, d)| d)
}

/// The lines of the files a report shows, by canonical path.
#[derive(Default)]
pub struct Shown {
    files: Vec<(PathBuf, std::sync::Arc<str>, lacuna_grammar::LineIndex)>,
}

impl Shown {
    pub fn add(&mut self, path: &Path, text: std::sync::Arc<str>) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let lines = lacuna_grammar::LineIndex::new(&text);
        self.files.push((path, text, lines));
    }
}

impl Locate for Shown {
    fn line(&self, file: &Path, line: u32) -> Option<TextRange> {
        let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_owned());
        let (_, text, lines) = self.files.iter().find(|(p, _, _)| *p == file)?;
        let range = lines.line_range(line.checked_sub(1)?)?;
        let full = text.get(range.start as usize..range.end as usize)?;
        let lead = full.len() - full.trim_start().len();
        let trimmed = full.trim();
        let start = range.start + lead as u32;
        Some(TextRange::new(start, start + trimmed.len() as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(module: &str, line: u32) -> ImportLink {
        ImportLink {
            module: Some(module.to_owned()),
            file: PathBuf::from(format!("/p/{}.py", module.replace('.', "/"))),
            line,
        }
    }

    #[test]
    fn the_chain_reads_from_the_target_to_the_missing_module() {
        let failure = ImportFailure {
            error: "ModuleNotFoundError".into(),
            message: "No module named 'yaml'".into(),
            missing: Some("yaml".into()),
            missing_in_project: false,
            chain: vec![link("pkg.module", 1), link("pkg.config", 3)],
        };
        assert_eq!(
            chain_text(&failure, "pkg.module", "yaml"),
            "`pkg.module` imports `pkg.config` (line 1), which imports `yaml` (line 3)"
        );
        assert_eq!(failure.missing_dependency(), Some("yaml"));
        assert_eq!(distribution("yaml"), "PyYAML");
        assert_eq!(distribution("requests"), "requests");
    }
}
