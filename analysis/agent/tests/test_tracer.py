"""Each branch is attributed to the frame that took it — under recursion, with the same
function running in another thread, with the program points recorded (3.12+: the frame comes
from the tracer's own record of the frames running, not from the interpreter) — and code
objects defined at the same place are told apart."""

import threading

from lacuna_agent import recorder
from lacuna_agent.codemap import CodeMap
from lacuna_agent.observe import Observer
from lacuna_agent.tracer import Tracer


def countdown(n, during=None):
    if n > 0:
        countdown(n - 1)
    if during is not None:
        during()
    if n % 2:
        return "odd"
    return "even"


FIRST = countdown.__code__.co_firstlineno


def _lines_of(filename):
    with open(filename, encoding="utf-8") as f:
        return f.read().splitlines()


def _frames(run, observe, distinct=False, max_events=100000):
    """The branch sides each frame took, in order: [(line in `countdown`, taken)]."""
    tracer = Tracer(lambda f: f == countdown.__code__.co_filename, _lines_of, max_events)
    tracer.distinct_frames = distinct
    tracer.instrument(countdown.__code__)
    observer = None
    if observe:
        observer = Observer(lambda cls: False, lambda code: False)
        observer.begin_test("t")
        tracer.set_observer(observer)
    rec = recorder.start(lambda code: False)
    tracer.start(rec)
    try:
        run()
    finally:
        observation = tracer.stop()
        recorder.stop()
        tracer.set_observer(None)
    assert not observation.truncated
    frames = {}
    for e in rec.events:
        if e["k"] == "branch":
            line = e["jump"].pos[0] - FIRST
            frames.setdefault(e["frame"], []).append((line, bool(e["jump"].value(e["taken"]))))
    return sorted(frames.values()), observer


def _call(n, during=False):
    """The sides one call of `countdown(n)` takes."""
    sides = [(1, n > 0)]
    sides.append((3, during))
    sides.append((5, bool(n % 2)))
    return sides


def test_recursive_frames_keep_their_own_branches():
    for observe in (False, True):
        frames, _ = _frames(lambda: countdown(3), observe)
        assert frames == sorted(_call(n) for n in range(4))


def test_the_same_function_in_another_thread_does_not_mix_with_the_main_threads():
    def during():
        worker = threading.Thread(target=countdown, args=(2,))
        worker.start()
        worker.join()

    frames, observer = _frames(lambda: countdown(1, during), True)
    calls = [_call(n) for n in range(3)] + [_call(1, during=True)]
    # Every frame took the sides of whole calls (the worker's are traced only where the
    # interpreter reports other threads' events: 3.12+). A frame that starts after another
    # has ended may get its key, as `id()` would: their calls follow each other.
    chunks = [frame[i:i + 3] for frame in frames for i in range(0, len(frame), 3)]
    assert all(chunk in calls for chunk in chunks)
    assert _call(1, during=True) in chunks and _call(0) in chunks
    observer.end_test(True)
    exits = [p for (function, kind), p in observer.points.items()
             if function.endswith(":countdown") and kind == "exit"]
    assert exits and exits[0]["calls"] >= 2


def test_the_suite_keeps_each_distinct_frame_once_within_the_bound_on_events():
    # 4,000 frames, 12,000 branch events, 3 distinct frames (`countdown(3)` and `countdown(1)`
    # take the same sides): within a bound of 100 events. (The loop runs outside the traced
    # file: a frame of it would hold 1,000 events of its own.)
    frames, _ = _frames(lambda: list(map(countdown, [3] * 1000)), True, distinct=True,
                        max_events=100)
    assert frames == sorted(map(list, {tuple(_call(n)) for n in range(4)})) and len(frames) == 3


def test_code_defined_at_the_same_place_is_told_apart():
    first, second = (lambda: 1), (lambda: 2)
    table = CodeMap()
    table[first.__code__] = "first"
    assert table.get(second.__code__) is None
    table[second.__code__] = "second"
    assert (table.get(first.__code__), table.get(second.__code__)) == ("first", "second")
    assert len(table) == 2 and sorted(table.values()) == ["first", "second"]
    assert table.pop(first.__code__) == "first" and first.__code__ not in table
