//! Every kind of definition reached the way the code defines it: registrations of a
//! `singledispatch` function through their dispatcher, one of several definitions bound to a
//! name, overloads, properties' accessors, class and static methods, `__post_init__`,
//! generators, coroutines and context managers, functions nested in others through the call
//! that runs them, a decorator factory's wrapper through what it decorates — explored by the real binary, emitted as
//! pytest tests that pass, and confirmed by coverage.py.

use std::path::Path;
use std::process::Command;

#[path = "../support/coverage.rs"]
mod coverage;
#[path = "../support/fixture.rs"]
mod fixture;
use fixture::{copy_tree, test_python};

#[test]
fn each_definition_is_reached_as_the_code_defines_it_and_coverage_confirms_it() {
    let (python, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/targets"),
        &root,
    );
    let home = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--format", "json", "--emit-tests"])
        .arg(out_dir.path())
        .arg(".")
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(&root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("0 without their assertion, 0 left out"),
        "every emitted test passes as generated: {stderr}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    // Per function: branch sides covered / total, and why one is not explored.
    let mut table = String::new();
    for file in doc["files"].as_array().unwrap() {
        for f in file["functions"].as_array().unwrap() {
            let total = f["branches"]["total"].as_u64().unwrap();
            if total == 0 {
                continue;
            }
            table.push_str(&format!(
                "{} {} {}/{}{}\n",
                file["path"].as_str().unwrap(),
                f["name"].as_str().unwrap(),
                f["branches"]["covered"],
                total,
                f.get("not_explored")
                    .and_then(|r| r.as_str())
                    .map(|r| format!(" not explored: {r}"))
                    .unwrap_or_default()
            ));
        }
    }
    assert_eq!(
        table,
        "\
kinds/dispatch.py convert 2/2
kinds/dispatch.py _ 2/2
kinds/dispatch.py _#2 2/2
kinds/dispatch.py Formatter._ 2/2
kinds/flows.py countdown 4/4
kinds/flows.py halve 2/2
kinds/flows.py opened 2/2
kinds/flows.py Session.__exit__ 2/2
kinds/members.py Account.balance 2/2
kinds/members.py Account.balance#2 2/2
kinds/members.py Account.balance#3 2/2
kinds/members.py Account.opened_with 2/2
kinds/members.py Account.fee 2/2
kinds/members.py Range.__post_init__ 2/2
kinds/nested.py classify.<locals>.bucket 2/2
kinds/nested.py classify.<locals>.bucket.<locals>.small 2/2
kinds/nested.py Basket.count_below 2/2
kinds/nested.py Basket.count_below.<locals>.below 2/2
kinds/nested.py clamp.<locals>.decorator.<locals>.wrapper 4/4
kinds/nested.py threshold.<locals>.check 2/2
kinds/nested.py select 2/2
kinds/nested.py select.<locals>.keep 2/2
kinds/nested.py convert_all.<locals>.convert 2/2
kinds/rebound.py scale 0/2 not explored: `scale` is bound again to the definition at line 15: no call by its name reaches the definition at line 6
kinds/rebound.py scale#2 2/2
kinds/rebound.py pick#3 2/2
kinds/retrying.py _notify 2/2
kinds/retrying.py retry_on.<locals>.retry 4/4
"
    );

    // How each kind is called in the emitted tests.
    let read = |name: &str| std::fs::read_to_string(out_dir.path().join(name)).unwrap();
    let dispatch = read("test_lacuna_kinds_dispatch.py");
    // Each registration's test calls the dispatcher (a test may first restore the module's
    // state, when its run changed it).
    let body = |name: &str| {
        let start = dispatch
            .find(&format!("def {name}("))
            .unwrap_or_else(|| panic!("{name} emitted: {dispatch}"));
        let rest = &dispatch[start..];
        rest[..rest.find("\n\n\n").unwrap_or(rest.len())].to_owned()
    };
    let mapping = body("test_convert_register_mapping_1");
    assert!(mapping.contains("    result = convert({"), "{mapping}");
    let int = body("test_convert_register_int_1");
    assert!(int.contains("    result = convert("), "{int}");
    assert!(
        dispatch.contains("result = formatter.show('#')"),
        "{dispatch}"
    );
    let flows = read("test_lacuna_kinds_flows.py");
    assert!(flows.contains("result = list(itertools.islice(countdown("));
    assert!(flows.contains("result = asyncio.run(halve("));
    assert!(flows.contains("result = _entered(opened("));
    let members = read("test_lacuna_kinds_members.py");
    assert!(
        members.contains("    result = account.balance\n"),
        "{members}"
    );
    assert!(members.contains("setattr(account, 'balance', "));
    assert!(members.contains("result = delattr(account, 'balance')"));
    assert!(members.contains("result = Range("));
    // A nested function is called through the function around it; a decorator factory's
    // wrapper through the function it decorates.
    let nested = read("test_lacuna_kinds_nested.py");
    assert!(
        nested
            .contains("def test_classify_locals_bucket_locals_small_1():\n    result = classify("),
        "{nested}"
    );
    assert!(nested.contains(".count_below("), "{nested}");
    assert!(
        nested.contains("def test_double_1():\n    result = double("),
        "{nested}"
    );
    // A nested function's inputs are the enclosing function's, guessed from how the enclosing
    // function's code (the nested one's included) uses them: `predicate(v)` is a callable.
    assert!(
        nested.contains("def test_select_locals_keep_1():\n    result = select("),
        "{nested}"
    );
    // A function nested in one that returns it is called as what that call returned.
    assert!(
        nested.contains("def test_threshold_locals_check_1():\n    check = threshold("),
        "{nested}"
    );
    assert!(nested.contains("    result = check("), "{nested}");
    // What the helpers do with the wrapper's parameters: the project's generator function
    // for the one they resume.
    let retrying = read("test_lacuna_kinds_retrying.py");
    assert!(
        retrying.contains("from kinds.retrying import _notify, constant, retry_on\n"),
        "{retrying}"
    );
    assert!(
        retrying.contains("    retry = retry_on(") && retrying.contains(", constant, ["),
        "{retrying}"
    );
    let rebound = read("test_lacuna_kinds_rebound.py");
    assert!(rebound.contains("result = scale("));
    assert!(rebound.contains("result = pick("));

    // Under real pytest and coverage.py: every line of every explored definition runs but the
    // first `scale` (no call reaches it) and the base of a `singledispatchmethod` whose
    // registrations take every value a test passes.
    let coverage = coverage::measured(
        &python,
        out_dir.path(),
        &root.join("kinds"),
        &root,
        home.path(),
    );
    let mut missing = String::new();
    for (path, file) in coverage["files"].as_object().unwrap() {
        let name = Path::new(path).file_name().unwrap().to_string_lossy();
        missing.push_str(&format!(
            "{name} lines {} branches {}\n",
            file["missing_lines"], file["missing_branches"]
        ));
    }
    assert_eq!(
        missing,
        "\
__init__.py lines [] branches []
dispatch.py lines [31] branches []
flows.py lines [] branches []
members.py lines [] branches []
nested.py lines [] branches []
rebound.py lines [7,8,9] branches [[7,8],[7,9]]
retrying.py lines [] branches []
"
    );
}
