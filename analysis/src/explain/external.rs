//! Which kind an external call is (`ExternalKind`, a word of the evidence), because their fixes
//! differ (Pex separates "testability issues" from "uninstrumented methods"): an *environment*
//! call's result depends on the world outside the inputs — file system, clock, randomness,
//! network, environment variables, the process — and the fix is a mock; an *opaque* call is
//! deterministic but not modelled (`math.sin`, `hashlib`, a C extension), and a mock is only the
//! fallback.

pub use crate::diagnostic::evidence::ExternalKind;

/// Modules (and builtins) whose results come from outside the program's inputs.
const ENVIRONMENT: &[&str] = &[
    "os",
    "posix",
    "nt",
    "posixpath",
    "ntpath",
    "os.path",
    "shutil",
    "pathlib",
    "glob",
    "tempfile",
    "io",
    "time",
    "datetime",
    "random",
    "secrets",
    "uuid",
    "socket",
    "ssl",
    "select",
    "selectors",
    "subprocess",
    "signal",
    "platform",
    "getpass",
    "pwd",
    "grp",
    "resource",
    "sys",
    "urllib",
    "http",
    "requests",
    "httpx",
    "aiohttp",
    "smtplib",
    "ftplib",
    "sqlite3",
    "dbm",
    "shelve",
    "mmap",
    "fcntl",
    "locale",
    "psutil",
];

/// Builtins and methods that read the world.
const ENVIRONMENT_CALLS: &[&str] = &[
    "open",
    "input",
    "builtins.open",
    "builtins.input",
    "json.load",
    "pickle.load",
    "csv.reader",
    "configparser.ConfigParser.read",
];

/// Deterministic functions and constructors of environment modules: their result depends on
/// their arguments only (`datetime.date(1970, 1, 1)`, `os.path.join(a, b)`).
const DETERMINISTIC: &[&str] = &[
    "datetime.date",
    "datetime.datetime",
    "datetime.time",
    "datetime.timedelta",
    "datetime.timezone",
    "datetime.date.fromisoformat",
    "datetime.datetime.fromisoformat",
    "datetime.datetime.strptime",
    "os.path.join",
    "os.path.basename",
    "os.path.dirname",
    "os.path.split",
    "os.path.splitext",
    "os.path.normpath",
    "posixpath.join",
    "posixpath.basename",
    "posixpath.dirname",
    "posixpath.split",
    "posixpath.splitext",
    "posixpath.normpath",
    "pathlib.PurePath",
    "pathlib.PurePosixPath",
    "pathlib.Path",
    "pathlib.PosixPath",
    "uuid.UUID",
];

/// Whether `callee` computes its value from its arguments alone (`os.path.join`, `pathlib.Path`).
pub fn is_pure(callee: &str) -> bool {
    DETERMINISTIC.contains(&callee)
}

impl ExternalKind {
    /// Which kind of external call `callee` is.
    pub fn of(callee: &str) -> ExternalKind {
        if ENVIRONMENT_CALLS.contains(&callee) {
            return ExternalKind::Environment;
        }
        if DETERMINISTIC.contains(&callee) {
            return ExternalKind::Opaque;
        }
        let head = callee.split('.').next().unwrap_or(callee);
        if ENVIRONMENT.contains(&head) || callee.starts_with("os.path.") {
            return ExternalKind::Environment;
        }
        // Methods of objects returned by environment calls (`datetime.datetime.now`).
        if callee.ends_with(".now") || callee.ends_with(".today") || callee.ends_with(".utcnow") {
            return ExternalKind::Environment;
        }
        ExternalKind::Opaque
    }
}

/// What well-known calls return, for a mock's declaration when the runs did not show it (an
/// unset environment variable only ever returned `None`).
const KNOWN_RETURNS: &[(&str, &str)] = &[
    ("os.environ.get", "Optional[str]"),
    ("os.getenv", "Optional[str]"),
    ("os.environ.__getitem__", "str"),
    ("input", "str"),
    ("time.time", "float"),
    ("time.monotonic", "float"),
    ("time.perf_counter", "float"),
    ("random.random", "float"),
    ("random.uniform", "float"),
    ("random.randint", "int"),
    ("random.randrange", "int"),
    ("random.getrandbits", "int"),
    ("datetime.datetime.now", "datetime.datetime"),
    ("datetime.datetime.utcnow", "datetime.datetime"),
    ("datetime.datetime.today", "datetime.datetime"),
    ("datetime.date.today", "datetime.date"),
    // A file's text is what the solver chooses; JSON's values are any of its types.
    ("open", "io.StringIO"),
    ("builtins.open", "io.StringIO"),
    ("io.open", "io.StringIO"),
    // An HTTP response: its status code and body are what the solver chooses.
    ("urllib.request.urlopen", "urllib.response.addinfourl"),
    // A file's metadata: its ten integer fields are what the solver chooses.
    ("os.stat", "os.stat_result"),
    ("os.lstat", "os.stat_result"),
    ("os.fstat", "os.stat_result"),
    ("pathlib.Path.stat", "os.stat_result"),
    ("pathlib.PosixPath.stat", "os.stat_result"),
    ("pathlib.Path.lstat", "os.stat_result"),
    ("pathlib.PosixPath.lstat", "os.stat_result"),
    ("pathlib.Path.read_text", "str"),
    ("pathlib.PosixPath.read_text", "str"),
    ("pathlib.Path.read_bytes", "bytes"),
    ("pathlib.PosixPath.read_bytes", "bytes"),
    ("json.load", JSON_VALUE),
    ("json.loads", JSON_VALUE),
];

const JSON_VALUE: &str = "Union[Dict[str, Any], List[Any], str, int, float, bool, None]";

/// The return annotation of a mock for `callee`, from what it returned when it ran
/// (`{"NoneType", "str"}` → `Optional[str]`); `None` when nothing useful is known.
pub fn return_annotation(
    callee: &str,
    returned: &std::collections::BTreeSet<String>,
) -> Option<String> {
    if let Some((_, known)) = KNOWN_RETURNS.iter().find(|(c, _)| *c == callee) {
        return Some((*known).to_owned());
    }
    let optional = returned.contains("NoneType");
    let types: Vec<&str> = returned
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "NoneType")
        .collect();
    let inner = match types.as_slice() {
        [] => return None,
        [one] => (*one).to_owned(),
        many => format!("Union[{}]", many.join(", ")),
    };
    Some(if optional {
        format!("Optional[{inner}]")
    } else {
        inner
    })
}

#[cfg(test)]
mod tests {
    use super::ExternalKind::*;
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn kinds() {
        assert_eq!(ExternalKind::of("os.path.exists"), Environment);
        assert_eq!(ExternalKind::of("time.time"), Environment);
        assert_eq!(ExternalKind::of("random.random"), Environment);
        assert_eq!(ExternalKind::of("datetime.datetime.now"), Environment);
        assert_eq!(ExternalKind::of("open"), Environment);
        assert_eq!(ExternalKind::of("math.sin"), Opaque);
        assert_eq!(ExternalKind::of("hashlib.sha256"), Opaque);
        assert_eq!(ExternalKind::of("re.Pattern.match"), Opaque);
        assert_eq!(ExternalKind::of("datetime.date"), Opaque);
        assert_eq!(ExternalKind::of("datetime.date.today"), Environment);
        assert_eq!(ExternalKind::of("os.path.join"), Opaque);
    }

    #[test]
    fn annotations_from_returned_types() {
        let seen = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(
            return_annotation("os.path.exists", &seen(&["bool"])).as_deref(),
            Some("bool")
        );
        assert_eq!(
            return_annotation("shop.api.lookup", &seen(&["NoneType", "str"])).as_deref(),
            Some("Optional[str]")
        );
        assert_eq!(
            return_annotation("os.environ.get", &seen(&["NoneType"])).as_deref(),
            Some("Optional[str]")
        );
        // A call the sandbox refused returned nothing; its type is known.
        assert_eq!(
            return_annotation("urllib.request.urlopen", &seen(&[])).as_deref(),
            Some("urllib.response.addinfourl")
        );
        assert_eq!(return_annotation("x.y", &seen(&["NoneType"])), None);
    }
}
