"""An `async for` statement's steps are loop steps, as a `for` loop's are: one per item (the
body is entered) and one when the iterator runs out (the loop exits) — whether or not the
iterator suspends — and none when it raises anything else, even if the frame then handles it,
nor for an async comprehension."""

import asyncio

from lacuna_agent import recorder, targets
from lacuna_agent.tracer import Tracer


async def items(n, pause=False):
    for i in range(n):
        if pause:
            await asyncio.sleep(0)
        yield i


async def broken():
    raise ValueError("no items")
    yield 0


async def total(n, pause=False):
    s = 0
    async for i in items(n, pause):
        s += i
    return s


async def first(n):
    async for i in items(n):
        return i
    else:
        return None


async def retried(fail):
    # The `END_ASYNC_FOR` raises the `ValueError` again, the handler takes it, and the second
    # time round the `if` jumps to the instruction after the loop: nor is that an exit.
    while True:
        try:
            if fail:
                async for _ in broken():
                    pass
            return "done"
        except ValueError:
            fail = False


async def collected(n):
    return [i async for i in items(n)]


def _lines_of(filename):
    with open(filename, encoding="utf-8") as f:
        return f.read().splitlines()


def _steps(function, *args):
    """The `async for` steps `function(*args)` took, in order: [(line in this file, whether the
    body was entered)]. Its other branches (the `while`, the `if`) are left out."""
    tracer = Tracer(lambda f: f == __file__, _lines_of, 100000)
    tracer.instrument(function.__code__)
    tracer.instrument(items.__code__)
    rec = recorder.start(lambda code: False)
    tracer.start(rec)
    try:
        targets.run(function(*args))
    finally:
        observation = tracer.stop()
        recorder.stop()
    assert not observation.truncated
    return [(e["jump"].pos[0], bool(e["jump"].value(e["taken"]))) for e in rec.events
            if e["k"] == "branch" and e["code"] is function.__code__ and e["jump"].loop]


def _line(function, text):
    with open(__file__, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = function.__code__.co_firstlineno
    return next(n for n in range(start, len(lines) + 1) if text in lines[n - 1])


def test_each_item_enters_the_body_and_running_out_exits_the_loop():
    line = _line(total, "async for")
    for pause in (False, True):
        assert _steps(total, 0, pause) == [(line, False)]
        assert _steps(total, 2, pause) == [(line, True), (line, True), (line, False)]


def test_the_step_is_where_the_statement_is_and_knows_its_iterable():
    tracer = Tracer(lambda f: f == __file__, _lines_of, 100000)
    (step,) = [j for j in tracer.jumps(total.__code__).values() if j.item is not None]
    line = _line(total, "async for")
    source = _lines_of(__file__)[line - 1]
    assert step.loop and step.pos[0] == line
    if step.pos[1] is not None:  # 3.11+: columns
        assert source.encode()[step.pos[1]:step.pos[3]] == b"items(n, pause)"
        assert source.encode()[step.stmt[1]:].startswith(b"async for")


def test_leaving_the_loop_from_its_body_does_not_exit_it():
    assert _steps(first, 3) == [(_line(first, "async for"), True)]
    assert _steps(first, 0) == [(_line(first, "async for"), False)]


def test_an_iterator_that_raises_ends_no_step_even_when_the_frame_handles_it():
    assert targets.run(retried(True)) == "done"
    assert _steps(retried, True) == []


def test_an_async_comprehension_is_no_async_for_statement():
    tracer = Tracer(lambda f: f == __file__, _lines_of, 100000)
    assert not [j for c in _code_objects(collected.__code__)
                for j in (tracer.jumps(c) or {}).values() if j.item is not None]
    assert _steps(collected, 2) == []


def _code_objects(code):
    yield code
    for k in code.co_consts:
        if hasattr(k, "co_code"):
            yield from _code_objects(k)
