"""The suite's program points: every call counts, each test's distinct samples are kept once
with their counts as they come, a point that had to leave a sample out says so, and memory stays
within the bounds however many calls a test makes."""

import sys

from lacuna_agent import observe


def observer(**kwargs):
    return observe.Observer(lambda cls: False, lambda code: False, **kwargs)


def counting_observer():
    """An observer, and how many values it has described so far (`described[0]`)."""
    described = [0]

    def concrete(value):
        described[0] += 1
        return value

    return observer(concrete=concrete), described


def observed(o, result):
    """Records the entry and exit of the function that calls it, returning `result`: that
    function stands for project code under observation."""
    frame = sys._getframe(1)
    o.enter(frame, frame.f_code)
    o.exit(frame, frame.f_code, result, None)
    return result


def scaled(o, value):
    return observed(o, max(value, 0))


def run_test(o, name, values, passed=True):
    o.begin_test(name)
    for v in values:
        scaled(o, v)
    return o.end_test(passed)


def function_named(o, name):
    (function,) = [f for f in o.serialise()["functions"] if f["function"].endswith(name)]
    return function


def exit_point(o):
    return function_named(o, "scaled")["exit"]


def test_repeated_calls_are_counted_and_a_rare_call_is_kept():
    o = observer()
    run_test(o, "t.py::test_in_range", [5] * 300)
    run_test(o, "t.py::test_negative", [-20])
    wire = exit_point(o)
    assert wire["calls"] == 301
    assert wire["counts"] == [300, 1]
    assert wire["tests"] == ["t.py::test_in_range", "t.py::test_negative"]
    assert wire["complete"] is True
    assert wire["samples"][1]["value"] == {"kind": "int", "value": "-20"}
    assert wire["samples"][1]["return"] == {"kind": "int", "value": "0"}
    assert "index" not in wire


def test_the_same_sample_from_two_tests_is_kept_for_each():
    o = observer()
    run_test(o, "t.py::a", [1])
    run_test(o, "t.py::b", [1])
    assert exit_point(o)["counts"] == [1, 1]


def test_a_failing_test_shows_nothing():
    o = observer()
    run_test(o, "t.py::a", [1])
    run_test(o, "t.py::b", [7, 8], passed=False)
    wire = exit_point(o)
    assert wire["calls"] == 1
    assert wire["tests"] == ["t.py::a"]


def test_a_full_point_keeps_a_sample_of_its_calls_and_reads_no_more(monkeypatch):
    """Past `SAMPLES`, a new sample replaces a kept one or is not kept: the point stays one
    invariants are learned from, and `read` counts only the calls its samples stand for."""
    monkeypatch.setattr(observe, "SAMPLES", 3)
    o = observer()
    run_test(o, "t.py::a", [0, 1, 2, 1])
    assert exit_point(o)["counts"] == [1, 2, 1]
    run_test(o, "t.py::b", [1, 1, 1])
    wire = exit_point(o)
    assert wire["complete"] is True
    assert wire["calls"] == 7
    assert len(wire["samples"]) == 3
    assert sum(wire["counts"]) == wire["read"]


def test_a_rare_value_past_the_bound_is_kept(monkeypatch):
    """A call unlike every kept one (here the one negative value among hundreds of calls)
    replaces a kept sample that shows nothing only it shows: an invariant it breaks
    (`return == value`) is not learned."""
    monkeypatch.setattr(observe, "SAMPLES", 20)
    monkeypatch.setattr(observe, "FULL_READS", 10 ** 6)   # every call read
    o = observer()
    run_test(o, "t.py::in_range", range(0, 256))
    run_test(o, "t.py::negative", [-20])
    wire = exit_point(o)
    assert len(wire["samples"]) == 20
    values = {int(s["value"]["value"]) for s in wire["samples"]}
    assert {-20, 0, 255} <= values
    assert sum(wire["counts"]) == wire["read"]
    # The same within one test: the values the point kept first give way, not the rare one.
    o = observer()
    run_test(o, "t.py::one", list(range(0, 256)) + [-20] + list(range(0, 100)))
    values = {int(s["value"]["value"]) for s in exit_point(o)["samples"]}
    assert {-20, 0, 255} <= values


def test_a_full_points_later_calls_are_read_in_a_falling_share(monkeypatch):
    """Once a point is full, its first `FULL_READS` calls are read, then the n-th with a chance
    of `FULL_READS / n`, decided before the call is described: 100,000 calls past the bound
    cost what a few dozen do, and every call is still counted."""
    monkeypatch.setattr(observe, "SAMPLES", 20)
    o, described = counting_observer()
    run_test(o, "t.py::many", range(100000))
    wire = exit_point(o)
    assert wire["calls"] == 100000
    assert sum(wire["counts"]) == wire["read"]
    # `SAMPLE_START` calls read whole, then a tenth and a hundredth of the function's calls:
    # the full point reads about FULL_READS · (1 + ln(n / FULL_READS)) of those.
    assert described[0] < 5 * (observe.SAMPLE_START + 20 * observe.FULL_READS)


def test_the_bound_over_all_points_leaves_the_next_point_a_sample(monkeypatch):
    # A sample of `scaled` has 5 variables at its entry (`type(o)`, `o is None`, `type(value)`,
    # `value is None`, `value`) and 8 at its exit (`return` too); entries are kept first.
    monkeypatch.setattr(observe, "TOTAL_VARIABLES", 5 + 5 + 8)
    o = observer()
    run_test(o, "t.py::a", [1, 2])
    functions = {f["function"].split(":")[-1]: f for f in o.serialise()["functions"]}
    scaled_ = functions["scaled"]
    assert scaled_["entry"]["complete"] is True
    assert len(scaled_["entry"]["samples"]) == 2
    assert scaled_["exit"]["complete"] is True
    assert len(scaled_["exit"]["samples"]) == 1
    assert scaled_["exit"]["calls"] == 2
    assert scaled_["exit"]["read"] == scaled_["exit"]["counts"][0] == 1


def test_a_test_with_many_calls_holds_no_more_than_the_bounds(monkeypatch):
    """The samples of the test under way are counted as they come: 100,000 calls with distinct
    values leave at most `SAMPLES` samples buffered, and every call is counted."""
    monkeypatch.setattr(observe, "SAMPLES", 50)
    monkeypatch.setattr(observe, "FULL_READS", 10 ** 6)   # every call read
    o = observer()
    o.begin_test("t.py::many")
    for v in range(100000):
        scaled(o, v)
        if v == 1000:
            buffered = o._test["points"][(o._function(sys._getframe(), sys._getframe().f_code).rsplit(":", 1)[0]
                                           + ":scaled", "exit")]
            assert len(buffered["samples"]) == 50
    o.end_test(True)
    wire = exit_point(o)
    assert wire["calls"] == 100000
    assert len(wire["samples"]) == 50
    assert sum(wire["counts"]) == wire["read"] < 100000
    # The largest value read is kept (a number beyond the kept range replaces one).
    assert max(int(s["value"]["value"]) for s in wire["samples"]) > 99000


def test_past_the_sample_start_a_share_of_calls_is_read_and_every_call_counted(monkeypatch):
    """A function a suite calls thousands of times costs what its first calls do (Daikon's
    sampling): its first `SAMPLE_START` calls are read, then about one in ten; `read` says how
    many, the samples' counts add up to it, and `calls` counts them all."""
    monkeypatch.setattr(observe, "SAMPLE_START", 100)
    o, described = counting_observer()
    run_test(o, "t.py::a", [5] * 1000)
    wire = exit_point(o)
    assert wire["calls"] == 1000
    assert 100 + 40 < wire["read"] < 100 + 160
    assert sum(wire["counts"]) == wire["read"]
    assert wire["complete"] is True
    # The same suite reads the same calls.
    again = observer()
    run_test(again, "t.py::a", [5] * 1000)
    assert exit_point(again)["read"] == wire["read"]
    # Only the calls read are described: `o` and `value` at entry, with `return` at exit.
    assert described[0] == 5 * wire["read"]


def test_a_point_with_large_samples_leaves_room_for_the_next(monkeypatch):
    """A point whose samples are many variables holds `POINT_VARIABLES` (a sample of its calls
    past them) instead of taking what the whole run may keep."""
    monkeypatch.setattr(observe, "POINT_VARIABLES", 40)
    monkeypatch.setattr(observe, "TOTAL_VARIABLES", 100)
    o = observer()
    run_test(o, "t.py::a", range(50))   # 8 variables per exit sample: 5 of them fit
    assert exit_point(o)["complete"] is True
    assert len(exit_point(o)["samples"]) == 5

    def other(value):
        return observed(o, value)

    o.begin_test("t.py::b")
    other(1)
    o.end_test(True)
    function = function_named(o, "other")
    assert function["exit"]["complete"] is True
    assert len(function["exit"]["samples"]) == 1


def test_objects_past_the_sample_start_are_followed_in_part_and_whole(monkeypatch):
    """Past `SAMPLE_START` objects of a class, a share of the new ones is followed, each from
    its first call: an object not followed never starts a sequence at a later call."""
    monkeypatch.setattr(observe, "SAMPLE_START", 10)

    class Counter:
        def step(self, n):
            return observed(o, n)

    o = observe.Observer(lambda cls: cls is Counter, lambda code: False)
    o.begin_test("t.py::objects")
    held = []
    for _ in range(300):
        c = Counter()
        held.append(c)
        c.step(1)
        c.step(2)
    o.end_test(True)
    (sequence,) = o.serialise()["sequences"]
    assert sequence["calls"] == [{"method": "step", "args": [{"kind": "int", "value": "1"}]},
                                 {"method": "step", "args": [{"kind": "int", "value": "2"}]}]
    assert 10 + 10 < sequence["count"] < 10 + 60


def test_a_string_utf8_cannot_hold_is_observed_by_its_length():
    """A lone surrogate (tinycss2's tests parse `\\udca9`) has no UTF-8 form: kept as a value,
    it would make the suite's answer JSON no strict reader accepts."""
    o = observer()
    o.begin_test("t.py::surrogate")

    def name(text):
        return observed(o, text)

    name("a\udca9")
    name("é")
    o.end_test(True)
    function = function_named(o, "name")
    first, second = function["exit"]["samples"]
    assert "text" not in first and first["len(text)"] == {"kind": "int", "value": "2"}
    assert second["text"] == {"kind": "str", "value": "é"}


def test_a_callable_input_is_a_function_as_the_emitted_test_passes_it():
    from lacuna_agent.values import InputFunction

    o = observer(invocations=True)
    o.begin_test("generated")
    frame = sys._getframe()
    o.enter(frame, frame.f_code)
    o.exit(frame, frame.f_code, InputFunction("key", [0]), None)
    (invocation,) = o.invocations()
    assert invocation["exit"]["type(return)"] == {"kind": "str", "value": "function"}


def checked(o, value):
    """Stands for project code raising `ValueError` for a text and `TypeError` for the rest."""
    frame = sys._getframe(0)
    o.enter(frame, frame.f_code)
    raised = ValueError(value) if isinstance(value, str) else TypeError(value)
    o.exit(frame, frame.f_code, None, raised)


def test_a_call_ending_in_a_kind_of_result_not_seen_is_read_past_the_draws(monkeypatch):
    """`parse(8)` raising `TypeError` once, in the last test, after a thousand calls raising
    `ValueError` have filled the point and the draws read almost none of the later calls: it
    is read, and kept, so that `type(exception) is ValueError` is not taken for an invariant."""
    monkeypatch.setattr(observe, "SAMPLES", 20)
    monkeypatch.setattr(observe, "FULL_READS", 1)
    o = observer()
    o.begin_test("t.py::texts")
    for i in range(1000):
        checked(o, "v%d" % i)
    o.end_test(True)
    o.begin_test("t.py::number")
    checked(o, 8)
    o.end_test(True)
    wire = function_named(o, "checked")["exit"]
    assert wire["calls"] == 1001
    kinds = {s["type(exception)"]["value"] for s in wire["samples"]}
    assert kinds == {"ValueError", "TypeError"}


def test_an_object_passed_to_another_carries_how_it_was_built(monkeypatch):
    """`Shelf(locker)`: the locker's argument says how the test built it up to that call (its
    constructor and the calls made on it so far), so that it can be built again; nested
    objects only `BUILT_DEPTH` deep."""
    monkeypatch.setattr(observe, "BUILT_DEPTH", 1)

    class Locker:
        def __init__(self, code):
            observed(o, None)

        def unlock(self, code):
            return observed(o, None)

    class Shelf:
        def __init__(self, locker):
            observed(o, None)

    class Room:
        def __init__(self, shelf):
            observed(o, None)

    project = (Locker, Shelf, Room)
    o = observe.Observer(lambda cls: cls in project, lambda code: False)
    o.begin_test("t.py::shelf")
    locker = Locker("2468")
    locker.unlock("2468")
    shelf = Shelf(locker)
    locker.unlock("1357")  # after the shelf was built: not part of how it was built
    room = Room(shelf)
    o.end_test(True)
    assert room is not None
    by_class = {s["class"].rsplit(".", 1)[-1]: s for s in o.serialise()["sequences"]}
    (argument,) = by_class["Shelf"]["constructor"]
    assert argument["built"] == {
        "constructor": [{"kind": "str", "value": "2468"}],
        "calls": [{"method": "unlock", "args": [{"kind": "str", "value": "2468"}]}],
        "depth": 1,
    }
    # Two objects deep, past `BUILT_DEPTH`: the shelf's own argument is left without how it
    # was built.
    (argument,) = by_class["Room"]["constructor"]
    assert argument["built"]["depth"] == 1
    (inner,) = argument["built"]["constructor"]
    assert inner["kind"] == "object" and "built" not in inner


def test_a_slice_is_observed_by_its_parts():
    """`m[0:2]` and `m[::-1]` differ as the code reads them: by their bounds and step, not
    only by their type."""
    o = observer()
    o.begin_test("t.py::slices")

    def item(key):
        return observed(o, [1, 2, 3][key])

    item(slice(0, 2))
    item(slice(None, None, -1))
    o.end_test(True)
    first, second = function_named(o, "item")["entry"]["samples"]
    assert first["type(key)"] == {"kind": "str", "value": "slice"}
    assert first["key.start"] == {"kind": "int", "value": "0"}
    assert first["key.stop"] == {"kind": "int", "value": "2"}
    assert first["key.step is None"] == {"kind": "bool", "value": True}
    assert second["key.step"] == {"kind": "int", "value": "-1"}
    assert second["key.start is None"] == {"kind": "bool", "value": True}
