//! Types as declared: every kind of annotation `typing` can write (abstract collections,
//! iterators, `TypeVar` bounds and constraints, `Type[C]`, `Literal`, unions, `Annotated`,
//! `NewType`, named tuples, `TypedDict`), the standard value types (`Decimal`, `Fraction`, dates with
//! every day of the month), classes reached through re-exports and late annotations — each
//! built through its real constructor by the real binary, emitted as pytest tests that pass,
//! and confirmed by coverage.py; an annotation that cannot be read is reported.

use std::path::Path;
use std::process::Command;

#[path = "../support/coverage.rs"]
mod coverage;
#[path = "../support/fixture.rs"]
mod fixture;
use fixture::{copy_tree, test_python};

/// What `lacuna check --emit-tests` on a copy of fixture `name` gives: per function with branch
/// sides, the sides covered of all (and the annotations it could not read); the emitted files;
/// and, under real pytest and coverage.py, the lines and branches of package `package` the
/// emitted tests miss.
struct Run {
    table: String,
    out_dir: tempfile::TempDir,
    missing: String,
}

fn run(name: &str, package: &str) -> Run {
    let (python, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures")
            .join(name),
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
    let mut table = String::new();
    for file in doc["files"].as_array().unwrap() {
        for f in file["functions"].as_array().unwrap() {
            let total = f["branches"]["total"].as_u64().unwrap();
            if total == 0 || f["name"] == "<module>" {
                continue;
            }
            table.push_str(&format!(
                "{} {} {}/{}{}\n",
                file["path"].as_str().unwrap(),
                f["name"].as_str().unwrap(),
                f["branches"]["covered"],
                total,
                f.get("unread_annotations")
                    .map(|u| format!(" unread: {u}"))
                    .unwrap_or_default()
            ));
        }
    }

    let coverage = coverage::measured(
        &python,
        out_dir.path(),
        &root.join(package),
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
    Run {
        table,
        out_dir,
        missing,
    }
}

fn read(run: &Run, name: &str) -> String {
    std::fs::read_to_string(run.out_dir.path().join(name)).unwrap()
}

/// Asserts that `text` (an emitted file) holds each of `parts`.
fn assert_holds(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part} in:\n{text}");
    }
}

#[test]
fn each_declared_type_is_built_through_its_constructor_and_coverage_confirms_it() {
    let run = run("types", "shop");
    // Per function: branch sides covered / total, and the annotations it could not read.
    insta::assert_snapshot!(run.table);

    // Each value is built through its real constructor, never passed as an int or a string.
    let declared = read(&run, "test_lacuna_shop_declared.py");
    assert_holds(
        &declared,
        &[
            "= Point(1, -1)",
            "= Decimal(",
            "= Fraction(1, 3)",
            "= datetime(2024, 2, 29,",
            "= date(2024, 1, 31)",
            "= timedelta(4,",
            "result = within(timedelta_value)",
            "= timezone(timedelta_value)",
            "result = east(timezone_value)",
            "result = offset(timezone_value)",
            // Equal to one date, one time of day: found by the solver, not by chance.
            "= date(1999, 12, 31)",
            "= time(9, 30,",
            // An aware datetime returned is rebuilt at its offset.
            "assert result == datetime(2024, 1, 1, 12, 0, 0, 0, tzinfo=timezone(timedelta(seconds=-18000)))",
            "tzinfo=timezone.utc)",
            "= Movie(title=",
            "result = kind(Special)",
            "result = kind(Item)",
            "result = members({",
            "= Door(True)",
        ],
    );
    let later = read(&run, "test_lacuna_shop_later.py");
    assert!(later.contains("= Decimal("), "{later}");
    assert!(later.contains("= Item("), "{later}");
    // Aliases imported only under `TYPE_CHECKING` are read, and `tuple[str, ...]` is passed
    // as a tuple of any length, never a list.
    let keys = read(&run, "test_lacuna_shop_keys.py");
    assert!(keys.contains("result = parent(("), "{keys}");
    assert!(!keys.contains("parent(["), "{keys}");

    // Under real pytest and coverage.py: every branch of every explored function is taken.
    insta::assert_snapshot!(run.missing);
}

#[test]
fn iterators_are_passed_as_iterators_and_coverage_confirms_it() {
    let run = run("iterators", "streams");
    insta::assert_snapshot!(run.table);
    let emitted = read(&run, "test_lacuna_streams_consume.py");
    // `Iterator[Any]`, `Iterator[int]`, `Generator[int, None, None]` and a parameter `next()`
    // is called on: real iterators, the empty one too (`StopIteration` at the first `next()`),
    // never a list (`next([])` raises TypeError).
    assert!(emitted.contains("sep_inserter(iter([])"), "{emitted}");
    assert!(emitted.contains("first_or(iter([])"), "{emitted}");
    for function in [
        "sep_inserter",
        "count_above",
        "largest",
        "total",
        "first_or",
    ] {
        assert!(
            !emitted.contains(&format!("{function}([")),
            "{function} is passed a list:\n{emitted}"
        );
    }
    insta::assert_snapshot!("iterators_emitted", emitted);
    // `AsyncIterator[int]`, `AsyncIterable[str]` and a parameter `async for` loops over:
    // asynchronous iterators over chosen items, the empty one too, the file defining the
    // helper that makes them.
    let flow = read(&run, "test_lacuna_streams_flow.py");
    assert_holds(
        &flow,
        &[
            "asyncio.run(count_above(_async_items([]), 0))",
            "asyncio.run(first_word(_async_items([''])))",
            "asyncio.run(drained(_async_items([0])))",
            "async def _async_items(items):",
        ],
    );
    // Under real pytest and coverage.py: every line and branch.
    insta::assert_snapshot!(run.missing);
}

#[test]
fn unannotated_parameters_take_the_kinds_their_uses_ask_for_and_coverage_confirms_it() {
    let run = run("kinds", "kinds");
    insta::assert_snapshot!(run.table);
    let uses = read(&run, "test_lacuna_kinds_uses.py");
    assert_holds(
        &uses,
        &[
            "= Circle(11)",
            "= Counter({'a': 3})",
            "= OrderedDict(",
            "= defaultdict(int, ",
            "= deque(",
            "= SimpleNamespace(debug=",
            "result = span((",
            "result = raw(b'')",
            "result = raw(set())",
            "slice(",
        ],
    );
    // A callable input's calls raise too: first failing, then succeeding.
    let callbacks = read(&run, "test_lacuna_kinds_callbacks.py");
    assert!(
        callbacks.contains("result = call_with_retries(_returning(_Raises(Exception('raised by a generated input')), ")
            && callbacks.contains("assert result == ('recovered', "),
        "{callbacks}"
    );
    // And raise what the function's handlers catch: a built-in and a class of the project.
    assert_holds(
        &callbacks,
        &[
            "_Raises(KeyError('raised by a generated input'))",
            "_Raises(TimeoutError('raised by a generated input'))",
            "_Raises(Unavailable('raised by a generated input'))",
        ],
    );
    // A handler that catches the class a parameter names: the parameter is an exception class.
    assert!(
        callbacks.contains(
            "result = on_exception(_returning(_Raises(Exception('raised by a generated input'))), Exception, "
        ),
        "{callbacks}"
    );
    insta::assert_snapshot!(run.missing);
}

#[test]
fn state_a_method_sets_is_built_by_calling_it_first_and_coverage_confirms_it() {
    let run = run("state", "clock");
    insta::assert_snapshot!(run.table);
    let timer = read(&run, "test_lacuna_clock_timer.py");
    // `self._start is None` holds until `start()` sets it: the generator calls it first.
    assert!(
        timer.contains("    timer = Timer()\n    timer.start(")
            && timer.contains(")\n    result = timer.stop("),
        "{timer}"
    );
    assert!(timer.contains("    with pytest.raises(RuntimeError):\n        timer.stop("));
    assert!(timer.contains("timer.start(") && timer.contains("result = elapsed(timer, "));
    // Two calls away: `fastest()` needs a lap, which `stop()` records only after `start()`.
    // `stop()` raised on its own; the other method changing what it changes comes first.
    let stopwatch = read(&run, "test_lacuna_clock_stopwatch.py");
    let in_order = |lines: &[&str]| {
        stopwatch.split("\n\n\n").any(|test| {
            let mut rest = test;
            lines.iter().all(|line| match rest.find(line) {
                Some(at) => {
                    rest = &rest[at + line.len()..];
                    true
                }
                None => false,
            })
        })
    };
    assert!(
        in_order(&[
            "    stopwatch = Stopwatch()\n    stopwatch.start(",
            ")\n    stopwatch.stop(",
            ")\n    result = stopwatch.fastest()\n    assert result == ",
        ]),
        "{stopwatch}"
    );
    // Only `take()` empties the free list, so reaching its empty side calls `take()` first.
    let slots = read(&run, "test_lacuna_clock_slots.py");
    assert!(
        slots.contains(".take()\n    with pytest.raises(LookupError):\n        slots.take()"),
        "{slots}"
    );
    insta::assert_snapshot!(run.missing);
}

#[test]
fn a_receiver_whose_constructor_rejects_a_number_is_built_with_another_kind_of_argument() {
    let run = run("defaults", "bag");
    // `SortedBag(0)` raises in `sorted`: built first as `SortedBag()` (its `None` default),
    // then with a list holding an item, both sides of `first` are covered. `Complement()`
    // and `Complement(0)` fail its assertion that one argument is a set: the kind its
    // constructor tests for (`type(excluded) in (set, frozenset)`) builds it. (`__init__` is
    // reached only through the class.) `normalised(other)` takes a set before a `Complement`
    // builds; `kind(other)` passes `other` to it and takes the kinds it tests for.
    // `KeyedBag(items=None, key=identity)` holds items only with a key function: its default
    // comes first.
    insta::assert_snapshot!(run.table, @r"
    bag/complement.py Complement.__init__ 0/8
    bag/complement.py Complement.__contains__ 2/2
    bag/complement.py normalised 4/4
    bag/complement.py kind 2/2
    bag/keyed.py KeyedBag.__init__ 0/2
    bag/keyed.py KeyedBag.smallest 2/2
    bag/sorted_bag.py SortedBag.__init__ 0/2
    bag/sorted_bag.py SortedBag.first 2/2
    ");
    insta::assert_snapshot!(run.missing);
}

#[test]
fn a_receiver_that_builds_only_with_a_union_members_object_is_built_with_it() {
    // `currency: str | Currency | None`: no code is registered, so only a `Currency` builds a
    // `Money` — for `self` and for `other` of the comparisons alike. (The unannotated `amount`
    // is a `Decimal` first: the kind its constructor's `isinstance` tests for.)
    let run = run("unions", "wallet");
    insta::assert_snapshot!(run.table);
    let money = read(&run, "test_lacuna_wallet_money.py");
    assert!(
        money.contains("    currency = Currency(")
            && money.contains("= Money(decimal_2, currency)"),
        "{money}"
    );
    assert!(money.contains("= Money(decimal_3, currency_2)"), "{money}");
    insta::assert_snapshot!(run.missing);
}

#[test]
fn attrs_classes_and_pydantic_models_are_built_through_their_fields_and_coverage_confirms_it() {
    // attrs writes an `__init__` (validators run in it); a pydantic model's `__init__` takes
    // only `**data` and its signature declares the fields, which its validators check; a model
    // declared with late annotations is read the same way.
    let run = run("models", "club");
    insta::assert_snapshot!(run.table);
    let people = read(&run, "test_lacuna_club_people.py");
    assert!(people.contains("= Member("), "{people}");
    // `Field(min_length=4)`: the postcode's default is padded into the field's domain.
    assert!(
        people.contains("= Address(city='', postcode='aaaa')"),
        "{people}"
    );
    let records = read(&run, "test_lacuna_club_records.py");
    assert_holds(&records, &["= Fee(", "= Visit(", "= Badge(guest="]);
    assert!(read(&run, "test_lacuna_club_later.py").contains("= Score("));
    insta::assert_snapshot!(run.missing);
}

#[test]
fn objects_are_built_as_the_projects_own_tests_build_them_and_coverage_confirms_it() {
    // `Locker` refuses any code but four digits, and only `unlock` with that same code opens
    // it: neither check is on the path of `take`; a `Shelf` hands out what the locker it is
    // given holds. The project's own test builds one and
    // calls `unlock` and `put` before `take`: the generator builds its receivers so, with the
    // state before each of the test's calls of the method under test.
    let run = run("mined", "vault");
    insta::assert_snapshot!(run.table, @r"
    vault/locker.py Locker.__init__ 0/2
    vault/locker.py Locker.unlock 2/2
    vault/locker.py Locker.put 2/2
    vault/locker.py Locker.take 4/4
    vault/locker.py Locker.take_from 4/4
    vault/shelf.py Shelf.fetch 4/4
    ");
    let locker = read(&run, "test_lacuna_vault_locker.py");
    assert_holds(
        &locker,
        &[
            // Before the test's first `take()`, and before its second.
            "    locker = Locker('2468')\n    locker.unlock('2468')\n    locker.put('coat')\n    result = locker.take()\n",
            "    locker.put('coat')\n    locker.take()\n    result = locker.take()\n",
            // `code != self._code` flipped with the locker built as it was.
            "    locker = Locker('2468')\n    result = locker.unlock('2468')\n",
            // `other` of `take_from`, an object of the receiver's class (`isinstance(other,
            // self.__class__)`), built as the test builds lockers too: open after its sequence.
            "    locker_2 = Locker('2468')\n    locker_2.unlock('2468')\n    locker_2.put('coat')\n",
        ],
    );
    // The locker the test gave a shelf (its unannotated `locker`), built again as the test
    // had built it when it passed it; and built by its constructor alone, locked.
    let shelf = read(&run, "test_lacuna_vault_shelf.py");
    assert_holds(
        &shelf,
        &[
            "    locker = Locker('1357')\n    locker.unlock('1357')\n    locker.put('hat')\n    shelf = Shelf(locker)\n",
            "    locker = Locker('1357')\n    shelf = Shelf(locker)\n    result = shelf.fetch()\n    assert result is None\n",
        ],
    );
    insta::assert_snapshot!(run.missing);
}

#[test]
fn inputs_follow_none_defaults_text_methods_except_clauses_and_failing_calls() {
    let run = run("chosen", "markup");
    insta::assert_snapshot!(run.table);
    let emitted = read(&run, "test_lacuna_markup_names.py");
    // `namespaces=None`, used as a dict: the call without it, and a dict.
    assert!(emitted.contains("result = shorten('', None)"), "{emitted}");
    assert!(emitted.contains("result = shorten(':', {})"), "{emitted}");
    // `port` has no decision: its `except` clause is what is explored.
    assert!(
        emitted.contains("with pytest.raises(ParseError):"),
        "{emitted}"
    );
    // `set_attrs` slices its argument: an int raised while the `Element` was built, so the
    // call is made with another kind.
    let call = emitted
        .lines()
        .find(|l| l.contains("element.set_attrs("))
        .unwrap_or_else(|| panic!("a test calls set_attrs first:\n{emitted}"));
    assert!(!call.contains("set_attrs(1)"), "{call}");
    // Functions without decisions whose first input raised before anything was decided
    // (`"<" + 0`, `0[0::2]`) are run with the other kinds until one returns.
    assert!(emitted.contains("result = stamp('')"), "{emitted}");
    assert!(emitted.contains("result = pairs([])"), "{emitted}");
    // Unpacked into two names: a pair.
    assert!(emitted.contains("result = swap((0, 0))"), "{emitted}");
    // `table.get(key) is None` decided by the key's presence: a table holding the key.
    assert!(
        emitted.contains("result = lookup('missing', {'missing': 0})"),
        "{emitted}"
    );
    // `prices[item]` raising `KeyError` is decided by the key's presence too: the handler is
    // left with a table of one key, the item.
    assert!(
        emitted.contains("result = price_of('k0', {'k0': 0})"),
        "{emitted}"
    );
    // `args: argparse.Namespace` holds the attributes `banner` reads, built as that class; a
    // text where `upper()` is called on one.
    assert_holds(
        &emitted,
        &[
            "namespace = Namespace(loud=0, title='')",
            "namespace = Namespace(loud=2, title='')",
        ],
    );
    // `Pointer(text)` holds the parts of its text after the first `'/'`, a split the solver
    // does not model: the constructor's own literal builds one with a part.
    assert!(
        emitted.contains(
            "    pointer = Pointer('/')\n    result = pointer.depth()\n    assert result == 1\n"
        ),
        "{emitted}"
    );
    // What a call changed is asserted: the receiver's field `record` set (not `attrs`, which
    // `set_attrs([])` leaves as it was), and the list `push_all` appended to, bound to a
    // variable first.
    assert!(
        emitted.contains(
            "    result = tally.record(0)\n    assert result is None\n    assert tally.last == 0\n"
        ),
        "{emitted}"
    );
    assert!(!emitted.contains("assert element.attrs"), "{emitted}");
    assert!(
        emitted.contains("    stack = []\n    result = push_all(stack, [0])\n    assert result == 1\n    assert stack == [0]\n"),
        "{emitted}"
    );
    // Under real pytest and coverage.py: every line and branch.
    insta::assert_snapshot!(run.missing);
}

#[test]
fn a_field_a_constructor_argument_sets_is_tested_both_ways_and_coverage_confirms_it() {
    // `self.names is None` reads a constructor argument whose `None` has no symbol: the object
    // is built again with a dict (then one holding an item, which `self.names.get(text)` finds
    // or not), while the search is still busy with the loop over `text`.
    let run = run("fields", "names");
    insta::assert_snapshot!(run.table, @r"
    names/table.py Names.full 8/8
    names/table.py Names.prefixed 2/2
    ");
    let emitted = read(&run, "test_lacuna_names_table.py");
    assert!(emitted.contains("names = Names(None, "), "{emitted}");
    assert!(emitted.contains("names = Names({}, "), "{emitted}");
    // Under real pytest and coverage.py: every line and branch.
    insta::assert_snapshot!(run.missing);
}
