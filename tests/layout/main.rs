//! Project layouts as a user has them, without any `[tool.lacuna]` table: the module name and
//! the import roots come from the packages (`__init__.py`), a `src/` layout, namespace packages
//! and the project's root markers; what cannot be imported is an error that says what to do;
//! decorated and name-mangled functions are explored; and the emitted tests pass under a plain
//! `pytest` run from the project root; and a newcomer's project with all of these at once gets
//! its full account, the same on a second run. Each fixture is written into a temporary directory, away
//! from this repository's own root markers.

use std::path::Path;
use std::process::{Command, Output};

#[path = "../support/fixture.rs"]
mod fixture;
#[path = "../support/timings.rs"]
mod timings;

use fixture::test_python;

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

fn lacuna(cwd: &Path, home: &Path, args: &[&str]) -> Output {
    let (_, venv) = test_python();
    Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(args)
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .current_dir(cwd)
        .output()
        .expect("the lacuna binary runs")
}

/// A plain `pytest -q` of the test environment, from `root`, on `args`.
fn pytest(root: &Path, home: &Path, args: &[&str]) -> Output {
    let (_, venv) = test_python();
    Command::new(venv.join("bin/pytest"))
        .args(["-q", "-p", "no:cacheprovider"])
        .args(args)
        .env("HOME", home)
        .env_remove("PYTHONPATH")
        .current_dir(root)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `(covered, total)` branch sides of each function of the JSON document, by `module:qualname`
/// when the document names the module, else by qualname.
fn covered(o: &Output) -> Vec<(String, u64, u64, Option<String>)> {
    let doc: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)));
    let mut out = vec![];
    for file in doc["files"].as_array().unwrap() {
        for f in file["functions"].as_array().unwrap() {
            out.push((
                f["name"]
                    .as_str()
                    .or(f["id"].as_str())
                    .unwrap_or_default()
                    .to_owned(),
                f["branches"]["covered"].as_u64().unwrap_or(0),
                f["branches"]["total"].as_u64().unwrap_or(0),
                f["not_explored"].as_str().map(str::to_owned),
            ));
        }
    }
    out
}

const SIGN: &str = "def sign(x: int) -> int:\n    if x < 0:\n        return -1\n    return 1\n";

#[test]
fn relative_imports_work_without_any_configuration() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("pkg/__init__.py", ""),
        ("pkg/helpers.py", SIGN),
        (
            "pkg/module.py",
            "from .helpers import sign\n\n\ndef classify(x: int) -> str:\n    if sign(x) < 0:\n        return \"neg\"\n    return \"pos\"\n",
        ),
    ]);
    let out = lacuna(
        p.path(),
        home.path(),
        &["check", "--format", "json", "pkg/module.py"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let functions = covered(&out);
    assert_eq!(functions.len(), 1, "{functions:?}");
    let (_, covered, total, failure) = &functions[0];
    assert_eq!((covered, total, failure), (&2, &2, &None), "{}", text(&out));
}

#[test]
fn the_root_is_found_from_setup_cfg_and_deep_packages_keep_their_names() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("setup.cfg", "[metadata]\nname = deep\n"),
        ("deep/__init__.py", ""),
        ("deep/base.py", SIGN),
        ("deep/sub/__init__.py", ""),
        (
            "deep/sub/mod.py",
            "from ..base import sign\nfrom deep.base import sign as same\n\n\ndef both(x: int) -> bool:\n    if sign(x) == same(x) and x > 3:\n        return True\n    return False\n",
        ),
    ]);
    // Run from inside the package, as an editor opened on the subdirectory would.
    let out = lacuna(
        &p.path().join("deep/sub"),
        home.path(),
        &["check", "--format", "json", "mod.py"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let functions = covered(&out);
    assert!(
        functions.iter().all(|(_, c, t, f)| f.is_none() && c == t),
        "{functions:?}\n{}",
        text(&out)
    );
}

#[test]
fn namespace_packages_are_imported_by_their_dotted_names() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("pyproject.toml", "[project]\nname = \"acme-plugin\"\n"),
        // `acme` has no `__init__.py`: a namespace package.
        ("acme/plugin/__init__.py", ""),
        ("acme/plugin/util.py", SIGN),
        (
            "acme/plugin/core.py",
            "from .util import sign\n\n\ndef kind(x: int) -> str:\n    if sign(x) > 0:\n        return \"up\"\n    return \"down\"\n",
        ),
        (
            "acme/tools.py",
            "from acme.plugin.core import kind\n\n\ndef label(x: int) -> str:\n    if kind(x) == \"up\":\n        return \"+\"\n    return \"-\"\n",
        ),
    ]);
    let out = lacuna(p.path(), home.path(), &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let functions = covered(&out);
    let explored: Vec<_> = functions.iter().filter(|(_, _, t, _)| *t > 0).collect();
    assert_eq!(explored.len(), 3, "{functions:?}");
    assert!(
        explored.iter().all(|(_, c, t, f)| f.is_none() && c == t),
        "{functions:?}\n{}",
        text(&out)
    );
}

/// A module in a directory whose name is no identifier (`python-client`) under a repository's
/// root, without configuration: imported as pytest imports it, from its own directory — where
/// it was "not explored: rename `python-client`". The tests emitted for it pass under plain
/// `pytest` from the repository's root.
#[test]
fn a_module_in_a_directory_no_import_can_name_is_imported_from_its_directory() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        ("python-client/helpers.py", SIGN),
        (
            "python-client/client.py",
            "from helpers import sign\n\n\ndef label(x: int) -> str:\n    if sign(x) < 0:\n        return \"neg\"\n    return \"pos\"\n",
        ),
        ("pkg/__init__.py", ""),
        ("pkg/util.py", SIGN),
    ]);
    let out = lacuna(
        p.path(),
        home.path(),
        &[
            "check",
            "--format",
            "json",
            "--emit-tests",
            "generated",
            "python-client/client.py",
            "pkg/util.py",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        covered(&out),
        [
            ("sign".to_owned(), 2, 2, None),
            ("label".to_owned(), 2, 2, None)
        ],
        "{}",
        text(&out)
    );
    // The package under the root keeps its dotted name.
    let util = std::fs::read_to_string(p.path().join("generated/test_lacuna_pkg_util.py")).unwrap();
    assert!(util.contains("from pkg.util import sign"), "{util}");
    let client = std::fs::read_to_string(p.path().join("generated/test_lacuna_client.py")).unwrap();
    assert!(client.contains("from client import label"), "{client}");
    let run = pytest(p.path(), home.path(), &["generated"]);
    assert!(run.status.success(), "{}", text(&run));
}

#[test]
fn src_layout_tests_import_the_package_by_name_and_pass_under_plain_pytest() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        (
            "pyproject.toml",
            "[project]\nname = \"minicache\"\nversion = \"0\"\n",
        ),
        ("src/minicache/__init__.py", "from .keys import hashkey\n"),
        (
            "src/minicache/keys.py",
            "import functools\n\n\ndef hashkey(x: int) -> tuple:\n    if x < 0:\n        return (\"neg\", x)\n    return (x,)\n\n\n@functools.lru_cache(maxsize=None)\ndef cached(x: int) -> int:\n    if x > 10:\n        return 1\n    return 0\n\n\nclass Cache:\n    def __evict(self, n: int) -> int:\n        if n > 3:\n            return n - 3\n        return 0\n",
        ),
    ]);
    let out = lacuna(
        p.path(),
        home.path(),
        &["check", "--emit-tests", "tests/generated"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("0 left out"),
        "every emitted test passed Lacuna's own pytest check:\n{}",
        text(&out)
    );
    let emitted = std::fs::read_to_string(
        p.path()
            .join("tests/generated/test_lacuna_minicache_keys.py"),
    )
    .unwrap();
    assert!(
        emitted.contains("from minicache.keys import Cache, cached, hashkey"),
        "{emitted}"
    );
    assert!(!emitted.contains("src."), "{emitted}");
    assert!(emitted.contains("._Cache__evict("), "{emitted}");
    // A plain `pytest` from the project root, the package not installed: the conftest Lacuna
    // wrote puts `src/` on the path.
    let run = pytest(p.path(), home.path(), &["tests/generated"]);
    assert!(run.status.success(), "{}", text(&run));
}

#[test]
fn decorated_and_name_mangled_functions_are_explored() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("pyproject.toml", "[project]\nname = \"deco\"\n"),
        (
            "deco.py",
            "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef cached(x: int) -> int:\n    if x > 10:\n        return 1\n    return 0\n\n\n@functools.cache\ndef memo(x: int) -> int:\n    if x > 10:\n        return 1\n    return 0\n\n\ndef logged(f):\n    @functools.wraps(f)\n    def inner(*args, **kwargs):\n        return f(*args, **kwargs)\n    return inner\n\n\n@logged\ndef wrapped(x: int) -> int:\n    if x > 10:\n        return 1\n    return 0\n\n\nclass Stack:\n    def __grow(self, n: int) -> int:\n        if n > 3:\n            return 2 * n\n        return n\n\n    @functools.lru_cache(maxsize=None)\n    def depth(self, n: int) -> int:\n        if n > 5:\n            return 1\n        return 0\n",
        ),
    ]);
    let out = lacuna(p.path(), home.path(), &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let functions = covered(&out);
    let explored: Vec<_> = functions.iter().filter(|(_, _, t, _)| *t > 0).collect();
    assert_eq!(explored.len(), 5, "{functions:?}");
    assert!(
        explored.iter().all(|(_, c, t, f)| f.is_none() && c == t),
        "{functions:?}\n{}",
        text(&out)
    );
}

#[test]
fn a_missing_dependency_is_one_error_with_its_import_chain_and_the_fix_and_exit_code_2() {
    let (_, venv) = test_python();
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("pkg/__init__.py", ""),
        (
            "pkg/config.py",
            "import lacuna_absent_dependency\n\n\ndef load(x: int) -> int:\n    if x > 1:\n        return 1\n    return 0\n",
        ),
        (
            "pkg/module.py",
            "from . import config\n\n\ndef f(x: int) -> int:\n    if x > 1:\n        return 1\n    return 0\n\n\ndef g(x: int) -> int:\n    if x > 2:\n        return 1\n    return 0\n",
        ),
    ]);
    let out = lacuna(p.path(), home.path(), &["check", "pkg"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let python = std::fs::canonicalize(venv.join("bin/python")).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout)
        .replace(&*venv.join("bin/python").to_string_lossy(), "[python]")
        .replace(&*python.to_string_lossy(), "[python]");
    insta::assert_snapshot!(stdout);
    // The same diagnostic, once, in the JSON document.
    let out = lacuna(p.path(), home.path(), &["check", "--format", "json", "pkg"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lcn108: Vec<&serde_json::Value> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap())
        .filter(|d| d["code"] == "LCN108")
        .collect();
    assert_eq!(lcn108.len(), 1, "{lcn108:?}");
    assert_eq!(lcn108[0]["severity"], "error");
    assert_eq!(
        lcn108[0]["data"]["install"], "lacuna_absent_dependency",
        "{}",
        lcn108[0]
    );
    assert_eq!(lcn108[0]["data"]["functions"], 3);
}

/// A newcomer's project with no configuration and every situation above at once — a `src/`
/// layout, its own `tests/` (with a `conftest.py`) and `docs/`, unannotated parameters compared
/// with strings, a module-level cache, a generator, `lru_cache` and `cache`, a nested function,
/// module-level branches, a name-mangled method, a lowercase class and a missing dependency —
/// gets the full report: every function explored or not explored with its reason, no dead
/// code claimed, the same report on a second run; and a plain `pytest` from the project root
/// passes the project's tests with the emitted ones.
#[test]
fn a_newcomer_project_gets_a_full_and_repeatable_account() {
    let (_, venv) = test_python();
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("shelf");
    fixture::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/newcomer"),
        &p,
    );
    let python = std::fs::canonicalize(venv.join("bin/python")).unwrap();
    let report = |o: &Output| {
        timings::without_timings(&String::from_utf8_lossy(&o.stdout))
            .replace(&*venv.join("bin/python").to_string_lossy(), "[python]")
            .replace(&*python.to_string_lossy(), "[python]")
    };
    let first = lacuna(
        &p,
        home.path(),
        &["check", "--no-cache", "--emit-tests", "tests/generated"],
    );
    // The missing dependency is an error; the rest is explored.
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    insta::assert_snapshot!(report(&first));
    let again = lacuna(&p, home.path(), &["check", "--no-cache"]);
    assert_eq!(report(&again), report(&first), "{}", text(&again));
    // Every function has an outcome, in the JSON document too; nothing is claimed dead.
    let json = lacuna(
        &p,
        home.path(),
        &["check", "--no-cache", "--format", "json"],
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&json)));
    for file in doc["files"].as_array().unwrap() {
        for f in file["functions"].as_array().unwrap() {
            assert!(f["outcome"].is_string(), "{f}");
        }
        for d in file["diagnostics"].as_array().unwrap() {
            assert!(
                !["LCN106", "LCN201"].contains(&d["code"].as_str().unwrap()),
                "{d}"
            );
        }
    }
    let names: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| n.starts_with("src/shelf/")),
        "the project's tests and docs are not explored: {names:?}"
    );
    // The project's own `pytest` from its root: its tests and the emitted ones pass.
    let run = pytest(&p, home.path(), &[]);
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("27 passed"),
        "{}",
        text(&run)
    );
}

/// A class that builds itself in `__new__` (with `__slots__` and no `__init__`, as
/// `roman_numerals.RomanNumeral` does) is built through `__new__`'s parameters; a class no run
/// could build says so, naming what raised, and asks for a factory — never "not reached within
/// the budget".
#[test]
fn objects_are_built_through_new_and_an_object_never_built_says_why() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("pyproject.toml", "[project]\nname = \"numerals\"\n"),
        (
            "numerals.py",
            "class Numeral:\n    __slots__ = ('_value',)\n\n    def __new__(cls, value: int, /):\n        if type(value) is not int or not 0 < value < 4000:\n            raise TypeError(value)\n        obj = object.__new__(cls)\n        object.__setattr__(obj, '_value', value)\n        return obj\n\n    def __lt__(self, other: object) -> bool:\n        if isinstance(other, Numeral):\n            return self._value < other._value\n        return NotImplemented\n\n\nclass Gauge:\n    def __init__(self, reading: int) -> None:\n        if reading != 7919 * 104729:\n            raise ValueError(\"not calibrated\")\n        self.reading = reading\n\n    def high(self) -> bool:\n        if self.reading > 10:\n            return True\n        return False\n",
        ),
    ]);
    let out = lacuna(p.path(), home.path(), &["check", "--no-cache"]);
    let report = timings::without_timings(&String::from_utf8_lossy(&out.stdout));
    insta::assert_snapshot!(report);
}

/// A method behind a descriptor that is not callable (toolz's `@instanceproperty`) cannot be
/// explored: it says so as `LCN107`, like every function not explored, with a reason that is
/// the same on every run (no memory address).
#[test]
fn a_function_whose_exploration_fails_is_not_explored_with_its_reason() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("pyproject.toml", "[project]\nname = \"fx\"\n"),
        (
            "fx.py",
            "class instanceproperty:\n    def __init__(self, fget):\n        self.fget = fget\n\n    def __get__(self, obj, type=None):\n        if obj is None:\n            return self\n        return self.fget(obj)\n\n\nclass Curry:\n    @instanceproperty\n    def signature(self):\n        if self is None:\n            return 1\n        return 2\n",
        ),
    ]);
    let out = lacuna(p.path(), home.path(), &["check", "--no-cache"]);
    let report = timings::without_timings(&String::from_utf8_lossy(&out.stdout));
    insta::assert_snapshot!(report);
}

/// A module named like one of the standard library's that Python has already imported
/// (`inspect.py` at the project's root) cannot be imported by its name, under pytest or
/// Lacuna: it is not explored, and says why and what to do, instead of exploring the standard
/// library's function of the same name or failing on a missing attribute; the other modules of
/// the project are explored as usual.
#[test]
fn a_module_the_standard_library_shadows_says_so_and_the_rest_is_explored() {
    let home = tempfile::tempdir().unwrap();
    let p = project(&[
        ("pyproject.toml", "[project]\nname = \"shadow\"\n"),
        ("inspect.py", SIGN),
        (
            "shapes.py",
            "import dataclasses\n\n\n@dataclasses.dataclass\nclass Box:\n    w: int\n\n    def area(self, h: int) -> int:\n        if h > self.w:\n            return h * self.w\n        return 0\n",
        ),
    ]);
    let out = lacuna(p.path(), home.path(), &["check", "--format", "json", "."]);
    let functions = covered(&out);
    assert_eq!(functions.len(), 2, "{}", text(&out));
    let (name, covered, total, failure) = &functions[0];
    assert_eq!(
        (name.as_str(), covered, total),
        ("sign", &0, &2),
        "{}",
        text(&out)
    );
    let failure = failure.as_deref().unwrap_or_default();
    assert!(
        failure.starts_with("`import inspect` gets the standard library's `inspect` (")
            && failure.ends_with(
                "), which Python had imported before the project's code ran, not this file: rename the module or move it into a package"
            ),
        "{failure}"
    );
    assert_eq!(
        functions[1],
        ("Box.area".to_owned(), 2, 2, None),
        "{}",
        text(&out)
    );
}
