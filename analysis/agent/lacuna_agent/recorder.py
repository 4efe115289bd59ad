"""The record of one execution's symbolic events, in execution order: conditions evaluated on
symbolic values, external calls, and side effects the sandbox blocked.

Proxies and the sandbox write here; the executor pairs conditions with the branch jumps its tracer
observed and serialises the events. This module holds no policy and imports nothing of the agent.
"""

import sys
from threading import get_ident

from .codemap import frame_key

_current = None


def current():
    """The recorder of the execution under way, or None outside an execution — and on every
    thread but the one that runs it. The tracer follows that thread's path alone; a condition
    or an external call on a thread the input started (an event loop's executor resolving a
    host name) would enter the path wherever that thread's timing put it, another place from
    one run to the next."""
    rec = _current
    if rec is not None and get_ident() != rec.thread:
        return None
    return rec


def start(is_project_code):
    """Begins recording on this thread. `is_project_code(code)` tells the project's code
    objects from the rest."""
    global _current
    _current = Recorder(is_project_code)
    return _current


def stop():
    global _current
    rec, _current = _current, None
    return rec


class Recorder:
    __slots__ = ("is_project_code", "thread", "events", "_pending", "_calls", "type_tests")

    def __init__(self, is_project_code):
        self.is_project_code = is_project_code
        self.thread = get_ident()
        # Wire-format dicts. A condition event also carries `code` and `lasti` (the code object and
        # instruction offset where the truth value was asked for) until the executor resolves them
        # to a source position and drops them.
        self.events = []
        self._pending = {}
        self._calls = 0
        # Type tests on inputs (`isinstance(value, str)`), once each: the input's access path,
        # the outcome, and the kinds of value that would have given the other outcome.
        self.type_tests = {}

    def user_frame(self, depth=2):
        """The innermost frame of project code, starting `depth` frames above the caller."""
        frame = sys._getframe(depth)
        while frame is not None and not self.is_project_code(frame.f_code):
            frame = frame.f_back
        return frame

    # -- conditions -------------------------------------------------------------------------

    def condition(self, expr, value, depth=2):
        """A symbolic value's truth value was taken (`__bool__`): `expr` is the boolean
        expression (wire form) and `value` the concrete outcome."""
        frame = self.user_frame(depth + 1)
        event = {"k": "constraint", "value": bool(value), "expr": expr}
        if frame is not None:
            event["code"] = frame.f_code
            event["lasti"] = frame.f_lasti
            self._pending[(frame_key(frame), frame.f_lasti)] = len(self.events)
        self.events.append(event)

    def take_condition(self, frame, offsets):
        """The condition recorded in `frame` at one of `offsets` (the jump and the instructions
        that test its value), removed from the pending set; None when the value was concrete."""
        if not self._pending:
            return None
        for offset in offsets:
            index = self._pending.pop((frame_key(frame), offset), None)
            if index is not None:
                return self.events[index]
        return None

    def end_of_building(self):
        """The inputs are built: conditions still waiting for their jump belong to frames that
        have returned."""
        self._pending.clear()
        self.events.append({"k": "built"})

    def type_test(self, name, value, flip, equality=False):
        """A type test on input `name` came out `value`; values of the kinds `flip` (`"int"`,
        `"bytes"`, `"callable"`…) would have made it come out the other way. `equality`: the
        test was an `==`/`!=` with a value of another kind, which says what an input of any
        type may be, not what an annotated one is."""
        key = (name, bool(value), tuple(flip), equality)
        if key not in self.type_tests:
            test = {"name": name, "value": bool(value), "flip": list(flip)}
            if equality:
                test["equality"] = True
            self.type_tests[key] = test

    # -- external calls ---------------------------------------------------------------------

    def external_call(self, callee, arg_vars, depth=2):
        """A call from project code into code the agent does not follow. Returns the event
        number `n`; the return value's symbol is named `$ret:n`."""
        n = self._calls
        self._calls += 1
        frame = self.user_frame(depth + 1)
        event = {"k": "call", "n": n, "callee": callee, "arg_vars": list(arg_vars)}
        if frame is not None:
            event["code"] = frame.f_code
            event["lasti"] = frame.f_lasti
        self.events.append(event)
        return n

    def external_return(self, n, value_repr, sort, paths=False, type_name=None):
        """The call numbered `n` returned; `sort` is the return symbol's sort, or None when the
        value is not a scalar — then `paths` says whether its parts get symbols
        (`$ret:n.hour`, `$ret:n["key"]`). `type_name` is the value's type (`datetime.datetime`)."""
        event = self._call_event(n)
        event["ret"] = {"repr": value_repr, "sort": sort}
        if type_name is not None:
            event["ret"]["type"] = type_name
        if sort is not None or paths:
            event["ret_var"] = "$ret:%d" % n

    def clock_read(self, n, tree):
        """External call `n` read a clock and returned the value `tree` (`values.assertable`'s
        literal or standard value) stands for; None for one an emitted test cannot write."""
        event = self._call_event(n)
        event["clock"] = tree

    def symbol_value(self, n, name, literal):
        """The concrete value (a wire-form literal) of symbol `name`, made from the return
        value of external call `n`: what the call returned in this execution."""
        if literal is None:
            return
        try:
            event = self._call_event(n)
        except KeyError:
            return
        event.setdefault("values", {})[name] = literal

    def external_raise(self, n, exc):
        event = self._call_event(n)
        event["raised"] = {"type": _qualified_type(exc), "message": _safe_str(exc)}

    def blocked(self, audit_event, detail, depth=2):
        """The sandbox refused a side effect (an audit event such as `open` or
        `subprocess.Popen`). Recorded as an external call that raised."""
        n = self._calls
        self._calls += 1
        frame = self.user_frame(depth + 1)
        event = {"k": "blocked", "n": n, "event": audit_event, "detail": detail}
        if frame is not None:
            event["code"] = frame.f_code
            event["lasti"] = frame.f_lasti
        self.events.append(event)
        return n

    def _call_event(self, n):
        for event in reversed(self.events):
            if event.get("n") == n:
                return event
        raise KeyError(n)


def _qualified_type(exc):
    t = type(exc)
    return t.__qualname__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__qualname__)


def _safe_str(value):
    try:
        return str(value)[:500]
    except Exception:  # a user exception whose __str__ fails
        return "<unprintable>"
