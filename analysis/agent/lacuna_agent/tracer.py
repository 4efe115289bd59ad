"""Observing one execution without rewriting user code: every conditional jump taken or not in
project code (mapped to the source range of the value it tests, see `positions`), loop steps,
and executed lines. Python 3.12+ uses `sys.monitoring` (BRANCH/LINE events, enabled only on the
project's code objects); 3.9-3.11 use `sys.settrace` with per-opcode events on project frames.

Each branch is paired with the symbolic condition the recorder saw for it, if any.
"""

import sys

from . import positions

MONITORING = sys.version_info >= (3, 12)
TOOL_ID = 4  # one of the ids sys.monitoring leaves to tools other than debuggers/profilers


class Observation:
    """What one execution did. Branches go into the recorder's event list, so that they stay
    in order with conditions, external calls and blocked side effects."""

    __slots__ = ("branches", "lines", "truncated")

    def __init__(self):
        self.branches = 0
        # {filename: set(lines)}
        self.lines = {}
        self.truncated = False


class Tracer:
    """Per-process tracing machinery; `start()`/`stop()` bracket one execution."""

    def __init__(self, is_project_file, lines_of, max_events):
        self._is_project_file = is_project_file
        self._lines_of = lines_of
        self._max_events = max_events
        self._codes = {}
        self._observation = None
        self._recorder = None
        if MONITORING:
            mon = sys.monitoring
            try:
                mon.use_tool_id(TOOL_ID, "lacuna")
            except ValueError:
                mon.free_tool_id(TOOL_ID)
                mon.use_tool_id(TOOL_ID, "lacuna")
            mon.register_callback(TOOL_ID, mon.events.BRANCH, self._on_branch)
            mon.register_callback(TOOL_ID, mon.events.LINE, self._on_line)
            self._instrumented = set()

    # -- code objects -------------------------------------------------------------------

    def jumps(self, code):
        info = self._codes.get(code)
        if info is None:
            if self._is_project_file(code.co_filename):
                info = positions.analyse(code, self._lines_of)
            else:
                info = False
            self._codes[code] = info
        return info

    def instrument(self, code):
        """Enables events on a project code object and the code nested in it (3.12+)."""
        if not MONITORING:
            return
        mon = sys.monitoring
        for c in positions.code_objects(code):
            if c not in self._instrumented and self._is_project_file(c.co_filename):
                mon.set_local_events(TOOL_ID, c, mon.events.BRANCH | mon.events.LINE)
                self._instrumented.add(c)

    # -- one execution ----------------------------------------------------------------------

    def start(self, rec):
        self._observation = Observation()
        self._recorder = rec
        if not MONITORING:
            sys.settrace(self._global_trace)

    def stop(self):
        if not MONITORING:
            sys.settrace(None)
        observation, self._observation, self._recorder = self._observation, None, None
        return observation

    def _record_branch(self, frame, code, jump, taken):
        obs = self._observation
        rec = self._recorder
        if obs is None or rec is None:
            return
        if obs.branches >= self._max_events:
            obs.truncated = True
            return
        obs.branches += 1
        condition = rec.take_condition(frame, jump.pair)
        rec.events.append({"k": "branch", "code": code, "jump": jump, "taken": taken,
                           "frame": id(frame), "condition": condition})

    def _record_line(self, filename, line):
        obs = self._observation
        if obs is not None:
            lines = obs.lines.get(filename)
            if lines is None:
                lines = obs.lines[filename] = set()
            lines.add(line)

    # -- sys.monitoring (3.12+) -------------------------------------------------------------

    def _on_branch(self, code, offset, destination):
        if self._observation is None:
            return
        jumps = self.jumps(code)
        if not jumps:
            return
        jump = jumps.get(offset)
        if jump is None:
            return
        self._record_branch(sys._getframe(1), code, jump, destination == jump.target)

    def _on_line(self, code, line):
        if self._observation is not None:
            self._record_line(code.co_filename, line)

    # -- sys.settrace (3.9-3.11) ------------------------------------------------------------

    def _global_trace(self, frame, event, arg):
        if event != "call":
            return None
        jumps = self.jumps(frame.f_code)
        if jumps is False:
            return None
        frame.f_trace_opcodes = True
        code = frame.f_code
        filename = code.co_filename
        pending = [None]
        record_branch = self._record_branch
        record_line = self._record_line

        def local(frame, event, arg):
            if event == "opcode":
                lasti = frame.f_lasti
                jump = pending[0]
                if jump is not None:
                    pending[0] = None
                    record_branch(frame, code, jump, lasti == jump.target)
                pending[0] = jumps.get(lasti)
            elif event == "line":
                record_line(filename, frame.f_lineno)
            elif event in ("return", "exception"):
                pending[0] = None
            return local

        return local
