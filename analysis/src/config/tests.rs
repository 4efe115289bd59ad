use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(Path::new("/p/pyproject.toml"), text)
}

#[test]
fn no_table_means_defaults() {
    let c = parse("[project]\nname = 'x'\n[tool.ruff]\nline-length = 100\n").unwrap();
    assert_eq!(c.root, Path::new("/p"));
    assert_eq!(c.budget, Budget::default());
    assert_eq!(c.guidance, Path::new("/p/tests/lacuna_guidance.py"));
    assert!(c.exclude.iter().any(|e| e == ".venv"));
    assert_eq!(c.src, vec![PathBuf::from("/p/.")]);
}

#[test]
fn coverage_exclusions_are_coverage_pys() {
    let default = vec![DEFAULT_EXCLUDE_LINE.to_owned()];
    assert_eq!(
        parse("[project]\nname = 'x'\n").unwrap().exclude_lines,
        default
    );
    let also = parse("[tool.coverage.report]\nexclude_also = ['if TYPE_CHECKING:']\n");
    assert_eq!(
        also.unwrap().exclude_lines,
        [DEFAULT_EXCLUDE_LINE, "if TYPE_CHECKING:"]
    );
    let own =
        parse("[tool.coverage.report]\nexclude_lines = ['nocov']\nexclude_also = ['debug']\n");
    assert_eq!(own.unwrap().exclude_lines, ["nocov", "debug"]);
    // Not Lacuna's table to validate: anything else in it is left alone.
    let odd = parse("[tool.coverage.report]\nexclude_lines = 'nocov'\nskip_empty = true\n");
    assert_eq!(odd.unwrap().exclude_lines, default);
    assert!(
        regex::Regex::new(DEFAULT_EXCLUDE_LINE)
            .unwrap()
            .is_match("    x = 1  # pragma: no cover")
    );
}

#[test]
fn the_tests_are_where_pytest_finds_them_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let config = |text: &str| {
        std::fs::write(root.join("pyproject.toml"), text).unwrap();
        Config::parse(&root.join("pyproject.toml"), text)
            .unwrap()
            .tests
    };
    // Nothing there: `tests/`, which does not exist (the suite is then empty).
    assert_eq!(config("[project]\nname = 'x'\n"), vec![root.join("tests")]);
    // Test files beside the code, and the test directories there are.
    std::fs::write(root.join("test_core.py"), "def test_x(): pass\n").unwrap();
    std::fs::write(root.join("core_test.py"), "").unwrap();
    std::fs::write(root.join("core.py"), "").unwrap();
    std::fs::create_dir(root.join("test")).unwrap();
    assert_eq!(
        config("[project]\nname = 'x'\n"),
        vec![
            root.join("test"),
            root.join("core_test.py"),
            root.join("test_core.py")
        ]
    );
    // pytest's own `testpaths`, as a list or a string; `[tool.lacuna] tests` wins.
    let pytest = "[tool.pytest.ini_options]\ntestpaths = ";
    assert_eq!(
        config(&format!("{pytest}[\"it\", \"unit\"]\n")),
        vec![root.join("it"), root.join("unit")]
    );
    assert_eq!(config(&format!("{pytest}\"it unit\"\n")).len(), 2);
    assert_eq!(
        config(&format!("{pytest}\"it\"\n[tool.lacuna]\ntests = [\"t\"]\n")),
        vec![root.join("t")]
    );
    // A pytest table Lacuna does not understand is not Lacuna's error.
    assert_eq!(
        config("[tool.pytest.ini_options]\ntestpaths = 3\n").len(),
        3,
        "the directories and files found"
    );
}

#[test]
fn by_default_there_is_a_worker_per_core() {
    assert_eq!(parse("").unwrap().workers(), cores());
}

#[test]
fn workers_are_capped_at_the_cores_unless_forced() {
    let cores = cores();
    let asked = cores + 22;
    let c = parse(&format!("[tool.lacuna.budget]\nworkers = {asked}\n")).unwrap();
    assert_eq!(c.workers(), cores);
    assert_eq!(
        c.workers_capped().as_deref(),
        Some(
            format!(
                "`workers = {asked}` is capped at the {cores} cores of this machine \
                     (`force-workers = true` in [tool.lacuna.budget], or `--workers {asked}`, \
                     runs them all)"
            )
            .as_str()
        )
    );
    let forced = parse(&format!(
        "[tool.lacuna.budget]\nworkers = {asked}\nforce-workers = true\n"
    ))
    .unwrap();
    assert_eq!(forced.workers(), asked);
    assert_eq!(forced.workers_capped(), None);
    assert_eq!(parse("[tool.lacuna]\n").unwrap().max_file_size, 2 << 20);
    assert_eq!(
        parse("[tool.lacuna]\nmax-file-size = 10\n")
            .unwrap()
            .max_file_size,
        10
    );
}

#[test]
fn reads_every_key() {
    let c = parse(
        r#"
[tool.lacuna]
python = ".venv/bin/python"
src = ["src"]
include = ["src/**/*.py"]
extend-exclude = ["legacy"]
guidance = "tests/guide.py"
tests = ["tests", "it"]
[tool.lacuna.budget]
function-time-ms = 100
loop-bound = 8
workers = 3
force-workers = true
[tool.lacuna.mcdc]
single-condition = true
[tool.lacuna.sandbox]
allow-write = ["out"]
allow-network = true
"#,
    )
    .unwrap();
    assert_eq!(c.python.as_deref(), Some(Path::new("/p/.venv/bin/python")));
    assert_eq!(c.src, vec![PathBuf::from("/p/src")]);
    assert_eq!(c.budget.function_time_ms, 100);
    assert_eq!(c.budget.loop_bound, 8);
    assert_eq!(c.budget.execution_timeout_ms, 1_000);
    assert_eq!(c.workers(), 3);
    assert!(c.mcdc.single_condition && c.mcdc.enabled);
    assert_eq!(c.sandbox.allow_network, Some(true));
    assert!(c.exclude.iter().any(|e| e == "legacy") && c.exclude.iter().any(|e| e == ".git"));
    assert_eq!(c.tests.len(), 2);
}

#[test]
fn a_repository_narrows_the_sandbox_and_never_widens_it() {
    let mut c = parse(
            "[tool.lacuna.sandbox]\nallow-write = ['../x']\nallow-network = true\nallow-subprocess = false\n",
        )
        .unwrap();
    let (policy, refused) = c.sandbox_policy(Path::new("/scratch"));
    assert!(policy.allow_write.is_empty() && !policy.allow_network && !policy.allow_subprocess);
    assert_eq!(
        refused,
        [
            "the repository's [tool.lacuna.sandbox] asks to write to /p/../x; widening the \
                 sandbox comes only from you (--allow-write /p/../x or your user configuration)",
            "the repository's [tool.lacuna.sandbox] asks for the network; widening the \
                 sandbox comes only from you (--allow-network or your user configuration)"
        ]
    );
    c.grants = Grants {
        allow_network: true,
        allow_subprocess: true,
        ..Grants::default()
    };
    let (policy, refused) = c.sandbox_policy(Path::new("/scratch"));
    assert!(
        policy.allow_network && !policy.allow_subprocess,
        "narrowed by the repository"
    );
    assert_eq!(refused.len(), 1);
}

#[test]
fn the_run_budget_and_the_stall_share_are_read_and_checked() {
    let c = parse("[tool.lacuna.budget]\nrun-time-s = 30\nstall-share = 0.25\n").unwrap();
    assert_eq!(c.budget.run_time_s, Some(30));
    assert_eq!(c.budget.stall_share, Share(0.25));
    let c = parse("[tool.lacuna.budget]\nstall-share = 1\n").unwrap();
    assert_eq!(c.budget.stall_share, Share(1.0));
    assert_eq!(Budget::default().run_time_s, None);
    let e = parse("[tool.lacuna.budget]\nstall-share = 0\n").unwrap_err();
    assert!(
        e.to_string().contains("`stall-share` must be more than 0"),
        "{e}"
    );
    let e = parse("[tool.lacuna.budget]\nrun-time-s = 0\n").unwrap_err();
    assert!(
        e.to_string().contains("`run-time-s` must be at least 1"),
        "{e}"
    );
}

#[test]
fn a_reproducible_run_is_read_and_cannot_share_a_run_time() {
    assert!(!Budget::default().reproducible);
    let c =
        parse("[tool.lacuna.budget]\nreproducible = true\nfunction-executions = 300\n").unwrap();
    assert!(c.budget.reproducible);
    assert_eq!(c.budget.function_executions, 300);
    let e = parse("[tool.lacuna.budget]\nreproducible = true\nrun-time-s = 60\n").unwrap_err();
    assert!(
        e.to_string().contains(
            "`reproducible` explores every function by counts, not by the clock: it cannot share a `run-time-s`"
        ),
        "{e}"
    );
}

#[test]
fn the_root_is_the_nearest_marker_else_above_the_outermost_package() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for f in [
        "a/pkg/__init__.py",
        "a/pkg/sub/__init__.py",
        "a/pkg/sub/m.py",
    ] {
        let p = root.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "").unwrap();
    }
    let deep = root.join("a/pkg/sub/m.py");
    assert_eq!(Config::discover(&deep).unwrap().root, root.join("a"));
    std::fs::write(root.join("setup.cfg"), "[metadata]\n").unwrap();
    assert_eq!(Config::discover(&deep).unwrap().root, root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    let c = Config::discover(&deep).unwrap();
    assert_eq!(c.src, vec![root.join("src"), root.join(".")]);
}

#[test]
fn errors_name_the_key_and_the_file() {
    let e = parse("[tool.lacuna]\npyton = 'x'\n").unwrap_err();
    assert_eq!(e.file, Path::new("/p/pyproject.toml"));
    assert!(e.message.contains("unknown field `pyton`"), "{e}");
    let e = parse("[tool.lacuna.budget]\nloop-bound = 'many'\n").unwrap_err();
    assert!(
        e.to_string().contains("loop-bound") || e.message.contains("invalid type"),
        "{e}"
    );
    let e = parse("[tool.lacuna.budget]\nloop-bound = 0\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "/p/pyproject.toml: [tool.lacuna.budget]: `loop-bound` must be at least 1"
    );
    let e = parse("[tool.lacuna\n").unwrap_err();
    assert!(e.message.starts_with("line 1"), "{e}");
    let e = parse("[tool.lacuna]\nextend-select = ['LCN1']\nignore = ['E501']\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "/p/pyproject.toml: [tool.lacuna] ignore: `E501` is no diagnostic code or prefix of one (`LCN`, `LCN1`, `LCN101`; see docs/diagnostics/)"
    );
    let c = parse("[tool.lacuna]\nselect = ['lcn1']\nignore = ['LCN10']\n").unwrap();
    assert_eq!(c.selection.select, Some(vec!["LCN1".to_owned()]));
    assert_eq!(c.selection.ignore, ["LCN10"]);
}
