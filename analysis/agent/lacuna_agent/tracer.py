"""Observing one execution without rewriting user code: every conditional jump taken or not in
project code (mapped to the source range of the value it tests, see `positions`), loop steps,
and executed lines. Python 3.12+ uses `sys.monitoring` (BRANCH/LINE events, enabled only on the
project's code objects; a line's event once per execution); 3.9-3.11 use `sys.settrace` with
per-opcode events on project frames, only on the lines that need them.

Every event is on the hot path of the traced program: tables are keyed without hashing code
objects or calling `id()` (`codemap`), and on 3.12+ a branch's frame comes from the tracer's
own record of the frames running (`_Branching`) rather than from `sys._getframe`, which raises
an audit event.

Each branch is paired with the symbolic condition the recorder saw for it, if any.

A boolean operation or chained comparison whose value is returned or stored in a name
(`return a or b`, `x = lo <= v < hi`) ends without a jump testing its last operand: the tracer
reads that operand's truth from the value consumed (`positions.value_sites`) — the return value,
or the name after the store (3.12+: instruction events, switched on for a frame only between
the operation's jump and the store).

An `async for` statement's step has no jump either (`positions._async_step`): it has an item
when the instruction that stores it runs, and ends when the instruction after its
`END_ASYNC_FOR` runs right after it (any other exception is raised again there). On 3.12+ only
instruction events tell: they are on in code with such a loop, and an instruction not watched
is disabled at its first event of an execution (unless the code has value sites, whose stores
need every instruction); the line events of watched instructions' lines stay on.
"""

import sys
from threading import get_ident

from . import positions
from .codemap import CodeMap, CodeSet, frame_key
from .observe import unwrap_exception as observe_exception
from .sym import truth_of

_MISSING = object()

MONITORING = sys.version_info >= (3, 12)
TOOL_ID = 4  # one of the ids sys.monitoring leaves to tools other than debuggers/profilers


class Observation:
    """What one execution did. Branches go into the recorder's event list, so that they stay
    in order with conditions, external calls and blocked side effects.

    With `Tracer.distinct_frames` (the suite's runs, which give branch sides and MC/DC
    obligations: unions over frames), a frame's branch and value events are held until it ends
    and kept only if no earlier frame of the execution took the very same ones: the bound on
    events is then on distinct frames, not on how often a test calls the same code."""

    __slots__ = ("branches", "lines", "truncated", "held", "open", "seen")

    def __init__(self):
        self.branches = 0      # events kept
        # {filename: set(lines)}
        self.lines = {}
        self.truncated = False
        self.held = 0          # events held for frames still running
        self.open = {}         # frame_key(frame) -> its events so far
        self.seen = set()      # the event sequences of the frames kept


# What an instruction watched for an `async for` step is (3.12+): where the step has an item,
# its `END_ASYNC_FOR`, the instruction after that, or the start of an exception handler (an
# `END_ASYNC_FOR` that raised again goes on to one, or leaves the frame).
_ITEM, _END, _AFTER, _HANDLER = range(4)

# Code whose frames suspend and resume (generators, coroutines): PY_START is only their first
# start, so which of their frames runs is asked of the interpreter.
_SUSPENDS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR


class _Branching:
    """What the branch events of one code object need (3.12+): its jumps by offset, the store
    sites by the jumps before them, and its frames running in the main thread, innermost last
    (None: code that suspends). A branch event comes from the innermost running frame of its
    code: asking the interpreter (`sys._getframe`) raises an audit event at every branch."""

    __slots__ = ("jumps", "stores", "running")

    def __init__(self, jumps, stores, running):
        self.jumps = jumps
        self.stores = stores
        self.running = running


class Tracer:
    """Per-process tracing machinery; `start()`/`stop()` bracket one execution."""

    def __init__(self, is_project_file, lines_of, max_events):
        self._is_project_file = is_project_file
        self._lines_of = lines_of
        self._max_events = max_events
        self._codes = CodeMap()
        self._sites = CodeMap()
        self._opcode_lines = CodeMap()
        self._items = CodeMap()
        self._observation = None
        self._recorder = None
        # What the suite's run records at function entries and exits (observe.Observer), or None.
        self.observer = None
        # Whether a frame's events are kept only when they differ from an earlier frame's
        # (`Observation`); set for the suite's runs.
        self.distinct_frames = False
        if MONITORING:
            mon = sys.monitoring
            try:
                mon.use_tool_id(TOOL_ID, "lacuna")
            except ValueError:
                mon.free_tool_id(TOOL_ID)
                mon.use_tool_id(TOOL_ID, "lacuna")
            mon.register_callback(TOOL_ID, mon.events.BRANCH, self._on_branch)
            mon.register_callback(TOOL_ID, mon.events.LINE, self._on_line)
            mon.register_callback(TOOL_ID, mon.events.PY_RETURN, self._on_return)
            mon.register_callback(TOOL_ID, mon.events.INSTRUCTION, self._on_instruction)
            mon.register_callback(TOOL_ID, mon.events.PY_START, self._on_start)
            mon.register_callback(TOOL_ID, mon.events.PY_UNWIND, self._on_unwind)
            self._instrumented = CodeSet()
            # {frame_key(frame): (site, whether the store has executed, code)}, the code objects whose
            # instruction events are on for them.
            self._stores = {}
            self._stepping = CodeSet()
            self._branching = CodeMap()  # code -> _Branching
            self._main = get_ident()
            self._watch = CodeMap()  # code -> {offset: (role, jump)} of its `async for` steps
            self._watch_lines = CodeMap()  # code -> the lines of those offsets
            # {frame_key(frame): (frame, jump)}: the frame is at that step's `END_ASYNC_FOR`.
            self._ending = {}

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

    def async_items(self, code):
        """The `async for` steps of `code` by the offset where they have an item."""
        items = self._items.get(code)
        if items is None:
            items = self._items[code] = {
                j.item: j for j in (self.jumps(code) or {}).values() if j.item is not None}
        return items

    def opcode_lines(self, code):
        """The lines whose instructions the tracer must see one by one (3.9-3.11): those of
        conditional jumps, of `async for` steps' items and of the stores of value sites.
        Elsewhere line events suffice."""
        lines = self._opcode_lines.get(code)
        if lines is None:
            jumps = self.jumps(code) or {}
            stores = [o for o, site in self.value_sites(code).items() if site.store is not None]
            lines = self._opcode_lines[code] = frozenset(positions.lines_of_offsets(
                code, list(jumps) + list(self.async_items(code)) + stores))
        return lines

    def value_sites(self, code):
        sites = self._sites.get(code)
        if sites is None:
            sites = self._sites[code] = positions.value_sites(code)
        return sites

    def _watched(self, code):
        """The instructions watched for the `async for` steps of `code` (3.12+; empty: none)."""
        watch = self._watch.get(code)
        if watch is None:
            watch = {}
            items = self.async_items(code)
            if items:
                for offset in positions.handlers(code):
                    watch[offset] = (_HANDLER, None)
                for jump in items.values():
                    # Were the instruction after `END_ASYNC_FOR` a handler's start too
                    # (CPython does not lay code out so), reaching it would not tell the loop
                    # ended: it stays a handler's.
                    if watch.get(jump.target) is None:
                        watch[jump.target] = (_AFTER, jump)
                    watch[jump.offset] = (_END, jump)
                    watch[jump.item] = (_ITEM, jump)
                self._watch_lines[code] = frozenset(positions.lines_of_offsets(code, watch))
            self._watch[code] = watch
        return watch

    def _events_of(self, code):
        mon = sys.monitoring
        events = mon.events.BRANCH | mon.events.LINE
        if self._watched(code):
            events |= mon.events.INSTRUCTION
        if self.observer is not None:
            events |= mon.events.PY_START | mon.events.PY_RETURN
        elif any(site.store is None for site in self.value_sites(code).values()):
            events |= mon.events.PY_RETURN
        return events

    def instrument(self, code):
        """Enables events on a project code object and the code nested in it (3.12+)."""
        if not MONITORING:
            return
        mon = sys.monitoring
        for c in positions.code_objects(code):
            if c not in self._instrumented and self._is_project_file(c.co_filename):
                mon.set_local_events(TOOL_ID, c, self._events_of(c))
                self._instrumented.add(c)

    def set_observer(self, observer):
        """Records program points with `observer` (None: stops), on code already instrumented
        too."""
        self.observer = observer
        if MONITORING:
            for c in self._instrumented:
                sys.monitoring.set_local_events(TOOL_ID, c, self._events_of(c))

    # -- one execution ----------------------------------------------------------------------

    def start(self, rec):
        self._observation = Observation()
        self._recorder = rec
        if not MONITORING:
            sys.settrace(self._global_trace)
        else:
            sys.monitoring.restart_events()
            self._ending.clear()
            for branching in self._branching.values():
                if branching.running:
                    branching.running.clear()

    def stop(self):
        obs = self._observation
        if obs is not None and obs.open and self._recorder is not None:
            for key in list(obs.open):
                self._keep(obs, obs.open.pop(key))
        if not MONITORING:
            sys.settrace(None)
        else:
            self._stores.clear()
            self._ending.clear()
            for code in self._stepping:
                sys.monitoring.set_local_events(TOOL_ID, code, self._events_of(code))
            self._stepping.clear()
        observation, self._observation, self._recorder = self._observation, None, None
        return observation

    def _record_branch(self, frame, code, jump, taken):
        obs = self._observation
        rec = self._recorder
        if obs is None or rec is None:
            return
        if self.observer is not None:
            self.observer.branch(frame, jump, taken)
        if obs.branches + obs.held >= self._max_events:
            obs.truncated = True
            return
        condition = rec.take_condition(frame, jump.pair)
        self._add(obs, rec, {"k": "branch", "code": code, "jump": jump, "taken": taken,
                             "frame": frame_key(frame), "condition": condition})

    def _add(self, obs, rec, event):
        if self.distinct_frames:
            held = obs.open.get(event["frame"])
            if held is None:
                held = obs.open[event["frame"]] = []
            held.append(event)
            obs.held += 1
        else:
            obs.branches += 1
            rec.events.append(event)

    def _ended(self, frame):
        """`frame` returned, raised or (3.9-3.11) yielded: its events are kept, unless an
        earlier frame of the execution took the very same ones."""
        obs = self._observation
        if obs is None or not obs.open:
            return
        self._keep(obs, obs.open.pop(frame_key(frame), None))

    def _keep(self, obs, held):
        if not held:
            return
        obs.held -= len(held)
        steps = tuple(
            (e["jump"], e["taken"], e["condition"] is None) if e["k"] == "branch"
            else (e["site"], e["value"], e["expr"] is None) for e in held)
        if steps in obs.seen:
            return
        obs.seen.add(steps)
        obs.branches += len(held)
        self._recorder.events.extend(held)

    def _record_value(self, frame, code, site, value):
        """The value `site` consumed: its truth is the last operand's."""
        obs = self._observation
        rec = self._recorder
        if obs is None or rec is None or value is _MISSING:
            return
        truth, expr = truth_of(value)
        if truth is None:
            return
        if obs.branches + obs.held >= self._max_events:
            obs.truncated = True
            return
        self._add(obs, rec, {"k": "value", "code": code, "site": site, "frame": frame_key(frame),
                             "value": truth, "expr": expr})

    def _stored(self, frame, site):
        """The value the store at `site` wrote."""
        if site.store == "STORE_GLOBAL":
            return frame.f_globals.get(site.name, _MISSING)
        return frame.f_locals.get(site.name, _MISSING)

    def _record_line(self, filename, line):
        obs = self._observation
        if obs is not None:
            lines = obs.lines.get(filename)
            if lines is None:
                lines = obs.lines[filename] = set()
            lines.add(line)

    # -- sys.monitoring (3.12+) -------------------------------------------------------------

    def _branching_of(self, code):
        branching = self._branching.get(code)
        if branching is None:
            branching = self._branching[code] = _Branching(
                self.jumps(code) or {}, self._store_after(code),
                None if code.co_flags & _SUSPENDS else [])
        return branching

    def _on_branch(self, code, offset, destination):
        if self._observation is None:
            return
        branching = self._branching_of(code)
        jump = branching.jumps.get(offset)
        if jump is None:
            return
        running = branching.running
        if running and get_ident() == self._main:
            frame = running[-1]
        else:
            frame = sys._getframe(1)
        # A loop's step that ends it jumps to its target on 3.9-3.11, past it on 3.12+ (over the
        # `END_FOR` there): the body lies between the step and the target.
        if jump.loop:
            taken = destination >= jump.target
        else:
            taken = destination == jump.target
        self._record_branch(frame, code, jump, taken)
        if branching.stores:
            site = branching.stores.get(offset)
            if site is not None:
                self._stores[frame_key(frame)] = (site, False, code)
                if code not in self._stepping:
                    self._stepping.add(code)
                    sys.monitoring.set_local_events(
                        TOOL_ID, code, self._events_of(code) | sys.monitoring.events.INSTRUCTION)

    def _store_after(self, code):
        """The store sites of `code` by the offsets of the jumps that may come before them."""
        return {j: site for site in self.value_sites(code).values() if site.store is not None
                for j in site.jumps}

    def _on_line(self, code, line):
        # A line's event is needed once per execution: `start()` turns them all on again.
        if self._observation is not None:
            self._record_line(code.co_filename, line)
            # A line event disabled at an instruction takes its instruction event with it
            # (3.12, 3.13): a watched instruction's line stays on.
            watched = self._watch_lines.get(code)
            if watched and line in watched:
                return None
            return sys.monitoring.DISABLE
        return None

    def _on_start(self, code, offset):
        if self._observation is not None and self.observer is not None:
            frame = sys._getframe(1)
            self.observer.enter(frame, code)
            if get_ident() == self._main:
                running = self._branching_of(code).running
                if running is not None:
                    running.append(frame)

    def _finished(self, code, frame):
        branching = self._branching.get(code)
        running = branching.running if branching is not None else None
        if running:
            if running[-1] is frame:
                running.pop()
            else:
                for i in range(len(running) - 1, -1, -1):
                    if running[i] is frame:
                        del running[i]
                        break

    def _on_unwind(self, code, offset, exception):
        if self._observation is not None and self.observer is not None \
                and code in self._instrumented:
            frame = sys._getframe(1)
            self.observer.exit(frame, code, None, exception)
            self._finished(code, frame)
            self._ended(frame)

    def _on_return(self, code, offset, retval):
        if self._observation is None:
            return
        frame = sys._getframe(1)
        if self.observer is not None:
            self.observer.exit(frame, code, retval, None)
            self._finished(code, frame)
        site = self.value_sites(code).get(offset)
        if site is not None and site.store is None:
            self._record_value(frame, code, site, retval)
        self._ended(frame)

    def _on_instruction(self, code, offset):
        if self._observation is None:
            return None
        watch = self._watch.get(code)
        if watch:
            watched = watch.get(offset)
            if watched is not None:
                self._async_step(sys._getframe(1), code, watched)
            elif not self._branching_of(code).stores:
                return sys.monitoring.DISABLE
        if not self._stores:
            return None
        frame = sys._getframe(1)
        pending = self._stores.get(frame_key(frame))
        if pending is None:
            return
        site, executed, _ = pending
        if executed:
            del self._stores[frame_key(frame)]
            self._record_value(frame, code, site, self._stored(frame, site))
            if all(c is not code for _, _, c in self._stores.values()):
                self._stepping.discard(code)
                sys.monitoring.set_local_events(TOOL_ID, code, self._events_of(code))
        elif offset == site.offset:
            self._stores[frame_key(frame)] = (site, True, code)

    def _async_step(self, frame, code, watched):
        """A watched instruction of an `async for` step ran in `frame` (3.12+)."""
        role, jump = watched
        key = frame_key(frame)
        if role == _END:
            self._ending[key] = (frame, jump)
            return
        ending = self._ending.pop(key, None) if self._ending else None
        if role == _ITEM:
            self._record_branch(frame, code, jump, False)
        elif role == _AFTER and ending is not None and ending[0] is frame and ending[1] is jump:
            self._record_branch(frame, code, jump, True)

    # -- sys.settrace (3.9-3.11) ------------------------------------------------------------

    def _global_trace(self, frame, event, arg):
        # Called at every call of every function of the process: project code is told apart
        # by one lookup.
        if event != "call":
            return None
        jumps = self._codes.get(frame.f_code)
        if jumps is None:
            jumps = self.jumps(frame.f_code)
        if jumps is False:
            return None
        # Opcode events are on for a frame only on the lines that need them (and from a jump
        # or a store to the next instruction, wherever it is): a line event turns them on or
        # off before the opcode event of the line's first instruction.
        frame.f_trace_opcodes = True
        code = frame.f_code
        filename = code.co_filename
        gate = self.opcode_lines(code)
        pending = [None]
        stored = [None]
        raised = [None]
        gated = [True]
        observer = self.observer
        if observer is not None:
            observer.enter(frame, code)
        sites = self.value_sites(code)
        items = self.async_items(code)
        record_branch = self._record_branch
        record_line = self._record_line
        record_value = self._record_value
        read = self._stored
        ended = self._ended

        def local(frame, event, arg):
            if stored[0] is not None and event != "exception":
                site, stored[0] = stored[0], None
                record_value(frame, code, site, read(frame, site))
            if event == "opcode":
                raised[0] = None
                lasti = frame.f_lasti
                jump = pending[0]
                if jump is not None:
                    pending[0] = None
                    # An `async for` step's `END_ASYNC_FOR` goes elsewhere only when it
                    # raised again (no exception event then): the loop did not end.
                    if lasti == jump.target or jump.item is None:
                        record_branch(frame, code, jump, lasti == jump.target)
                if items:
                    item = items.get(lasti)
                    if item is not None:
                        record_branch(frame, code, item, False)
                jump = pending[0] = jumps.get(lasti)
                if sites:
                    site = sites.get(lasti)
                    if site is not None and site.store is not None:
                        stored[0] = site
                if jump is None and stored[0] is None and not gated[0]:
                    frame.f_trace_opcodes = False
            elif event == "line":
                raised[0] = None
                line = frame.f_lineno
                record_line(filename, line)
                gated[0] = line in gate
                frame.f_trace_opcodes = gated[0] or pending[0] is not None \
                    or stored[0] is not None
            elif event == "return":
                pending[0] = None
                if observer is not None:
                    if raised[0] is not None:
                        observer.exit(frame, code, None, raised[0])
                    else:
                        observer.exit(frame, code, arg, None)
                site = sites.get(frame.f_lasti) if sites else None
                if site is not None and site.store is None:
                    record_value(frame, code, site, arg)
                ended(frame)
            elif event == "exception":
                pending[0] = None
                stored[0] = None
                # The next instruction, if the frame handles it, says so.
                frame.f_trace_opcodes = True
                if observer is not None:
                    raised[0] = observe_exception(arg)
            return local

        return local
