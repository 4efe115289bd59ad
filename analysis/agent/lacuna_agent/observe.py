"""What the project's passing tests show about its functions, recorded while its suite runs:

- program points (Daikon's, as ZoomIn learns invariants from them): at each entry of a project
  function its parameters, at each exit its parameters again, the return value or the exception
  type, as variables over access paths (`self._items`, `len(self._items)`, `type(x)`,
  `x is None`) to depth 2: every distinct sample of each test with the number of calls that
  gave it, counted as the calls come, with the count of calls seen. A function's first
  `SAMPLE_START` invocations are read; past them a falling share (Daikon's sampling), so that
  `read` counts the calls read and `calls` every call. Bounds: `SAMPLES` distinct samples and
  `POINT_VARIABLES` variables per point, `TOTAL_VARIABLES` over all points and
  `TEST_VARIABLES` for the test under way, so memory stays bounded whatever a test does. A
  point that holds its share keeps a fair sample of its calls in which what is rare still
  shows (`retain`): a new sample replaces a kept one, or is not kept and its call not read;
  its later calls are read in a falling share (`FULL_READS`), decided before they are read;
- the coverage profile of each invocation (the branch sides it took), distinct profiles with
  counts;
- call sequences on objects of project classes (Palus's dynamic model): the constructor with its
  arguments, then the methods called on the same object from outside it, in order (the first
  `SAMPLE_START` objects of a class, then a falling share of them); an argument that is a
  followed object carries how it was built up to that call (`built`: its own constructor and
  first calls, nested `BUILT_DEPTH` deep), so that an object passed to another can be rebuilt;
- per test, the functions it reached (test impact).

A test's records are held apart and kept only if the test passes; each sample of a program point
names the test it came from, and an exit sample the branch sides its invocation took (for
conditional invariants). For a generated input (`execute` with `observe`) the same records
are kept per invocation instead: entry sample, exit sample and coverage profile together, as
the suspicious-assertion check compares them with the suite's. Nothing here calls user code:
values are read through `object.__getattribute__` on instance dictionaries, lengths only of
builtin containers, names only of types; the standard library's dates, times, durations and
complex numbers by their own attributes (`return.day`), and its `Decimal` and `Fraction` as
floats.
"""

import decimal
import fractions
import random
import weakref

from . import retain
from .codemap import CodeMap, frame_key
from .values import STD_VALUES, InputFunction, instance_fields as _fields

SAMPLES = 1000        # distinct samples kept per program point
# Variables kept over all the samples of all points, and buffered for the test under way: what
# bounds the worker's memory, whatever the suite's size and the size of its objects.
TOTAL_VARIABLES = 600000
TEST_VARIABLES = 100000
# Variables kept for one point: a point whose calls carry large objects (hundreds of fields
# each) would otherwise take the whole run's share before most points were reached. Past it
# the point keeps a sample of its calls (`retain`).
POINT_VARIABLES = 3000
# Calls of a full point read whole; past them the n-th is read with a chance of
# FULL_READS / n, so that a point called a million times costs what a few thousand calls do
# (about FULL_READS · ln(n) read) while a later rare call still has its chance.
FULL_READS = 10
# Kinds of result (types returned, exceptions raised) told apart per exit: past them, a call
# is read as sampling draws it.
MAX_RESULT_KINDS = 32
PROFILES = 64         # distinct coverage profiles kept per function
SEQUENCES = 20        # distinct call sequences kept per class
SEQUENCE_CALLS = 30   # calls kept per sequence
OBJECTS = 1000        # objects followed per test
BUILT_CALLS = 8       # calls of an argument's own sequence kept with it
BUILT_DEPTH = 2       # arguments built of arguments built of ...: how deep
FIELDS = 20           # fields of one object read
VARIABLES = 200       # variables of one sample
DEPTH = 2             # access-path depth: x, x.f, x.f.g
SHORT_STR = 40        # longer strings give their length only
INVOCATIONS = 50      # invocations kept of one generated input's run
# Invocations of a function (objects of a class) read whole before sampling starts; past it, a
# tenth of them up to ten times as many, a hundredth up to a hundred times, then a thousandth
# (Daikon's `--sample-start`): a function a suite calls a million times costs what a few
# thousand calls do, and invariants come from thousands of calls all the same.
SAMPLE_START = 1000
SAMPLE_SEED = 0x1ACA

_CONTAINERS = (list, tuple, dict, set, frozenset, str, bytes, bytearray)
_SCALARS = (bool, int, float, str, type(None))


def _type_name(t):
    name = _TYPE_NAMES.get(t)
    if name is None:
        if len(_TYPE_NAMES) > 10000:
            _TYPE_NAMES.clear()
        name = _TYPE_NAMES[t] = _name_of_type(t)
    return name


def _name_of_type(t):
    if t is InputFunction:
        # A callable input is a function in the test Lacuna emits for its run (a lambda).
        return "function"
    try:
        module = type.__getattribute__(t, "__module__")
        name = type.__getattribute__(t, "__qualname__")
    except Exception:
        return "?"
    if not isinstance(module, str) or not isinstance(name, str):
        return "?"
    return name if module == "builtins" else "%s.%s" % (module, name)


# Caches by type (types hash by identity): a type's printed name, and its builtin base. A type
# is the same class for the whole run, so neither changes.
_TYPE_NAMES = {}
_BASES = {t: t for t in _CONTAINERS + (bool, int, float)}
_MISSING = object()


def _share(seen):
    """The share of a function's invocations (a class's objects) read once `seen` were."""
    if seen <= SAMPLE_START:
        return 1.0
    if seen <= 10 * SAMPLE_START:
        return 0.1
    if seen <= 100 * SAMPLE_START:
        return 0.01
    return 0.001


def _builtin_base(value):
    """The builtin type a value is (or subclasses without changing its length), or None."""
    t = type(value)
    base = _BASES.get(t, _MISSING)
    if base is _MISSING:
        if len(_BASES) > 10000:
            _BASES.clear()
        base = _BASES[t] = next(
            (b for b in _CONTAINERS + (bool, int, float) if issubclass(t, b)), None)
    return base


_STD_NUMBERS = (decimal.Decimal, fractions.Fraction)


def _std_float(value):
    """A finite `Decimal` or `Fraction` as the text of the float nearest it, else None."""
    try:
        number = float(value)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return float.__repr__(number)


class Observer:
    """Program points, profiles, sequences and impact of one suite run."""

    def __init__(self, is_project_class, excluded_code, invocations=False, concrete=None):
        self._project_class = is_project_class
        self._classes = {}    # type -> whether it is a project class
        # What a value stands for (the value behind the agent's proxy), or None: itself.
        self._concrete = concrete
        self._invocations = invocations
        self._excluded_code = excluded_code
        self.points = {}      # (function, kind) -> point (`_point()`)
        self.kept = [0]       # variables kept over all points
        self.profiles = {}    # function -> {profile tuple: count}
        self.sequences = {}   # class -> {key: [sequence, count]}
        self.sequence_seen = {}  # class -> number of sequences seen
        self.functions = {}   # function -> file
        self._names = CodeMap()  # code -> function (False: not project code)
        self._frames = {}     # frame_key(frame) -> (function, sides set, entry sample, receiver)
        self._sides = {}      # (jump, taken) -> the branch side, as profiles hold it
        self._test = None
        # Sampling (`SAMPLE_START`): invocations seen per function, objects seen per class (in
        # every test, passing or not), and the draws past the start, seeded so that a run of
        # the same suite reads the same calls.
        self._seen = {}
        self._objects_seen = {}
        self._draw = random.Random(SAMPLE_SEED).random
        # Draws of which samples a full point keeps (`retain`) and of which of its calls are
        # read, apart from the calls' draws; calls of each point once it was full.
        self._keep_draw = random.Random(SAMPLE_SEED + 1).random
        self._after_full = {}
        # The kinds of result each exit has shown (the type returned, the exception raised):
        # a call ending in a kind its exit has not shown is read whatever the draws say.
        self._results = {}

    # -- one test ---------------------------------------------------------------------------

    def begin_test(self, name=None):
        # `points`: (function, kind) -> the test's point (`_point()`), samples counted as they
        # come; `buffered`: the variables those hold.
        self._test = {"name": name, "points": {}, "buffered": [0], "profiles": {},
                      "objects": {}, "sequences": [], "reached": set(), "invocations": []}
        self._frames.clear()

    def end_test(self, passed):
        """Ends the test under way; its records are kept when it passed. Returns the functions
        it reached."""
        test, self._test = self._test, None
        self._frames.clear()
        if test is None:
            return []
        if passed:
            name = test["name"]
            for key, mine in test["points"].items():
                point = self.points.get(key)
                if point is None:
                    point = self.points[key] = _point()
                _merge_point(point, mine, name, self.kept, self._keep_draw)
            for (function, profile), count in test["profiles"].items():
                profiles = self.profiles.setdefault(function, {})
                if profile in profiles or len(profiles) < PROFILES:
                    profiles[profile] = profiles.get(profile, 0) + count
            for seq in test["sequences"]:
                self._keep_sequence(seq)
        return sorted(test["reached"])

    def _keep_sequence(self, seq):
        cls = seq["class"]
        key = repr((seq["constructor"], seq["calls"]))
        kept = self.sequences.setdefault(cls, {})
        self.sequence_seen[cls] = self.sequence_seen.get(cls, 0) + 1
        if key in kept:
            kept[key][1] += 1
        elif len(kept) < SEQUENCES:
            kept[key] = [seq, 1]

    def _wanted(self, test, key, read, rare=False):
        """The test's point `key`, or None when the call is not one sampling reads (`read`
        false, or, once the point is full, not drawn: `FULL_READS`): it is only counted. The
        draw is made before the call's values are described, so that a full point's calls
        cost what counting them does. A `rare` call is read whatever the draws say."""
        mine = test["points"].get(key)
        if mine is None:
            mine = test["points"][key] = _point(own=True)
        if rare:
            read = True
        elif read and (mine["features"] is not None or self._full(key)):
            n = self._after_full[key] = self._after_full.get(key, 0) + 1
            read = n <= FULL_READS or self._keep_draw() * n < FULL_READS
        if not read:
            mine["calls"] += 1
            return None
        mine["read"] += 1
        return mine

    def _full(self, key):
        point = self.points.get(key)
        return point is not None and point["features"] is not None

    def _sampled(self, seen, key):
        """Whether the next invocation (object) `key` of `seen` is read whole."""
        n = seen[key] = seen.get(key, 0) + 1
        return n <= SAMPLE_START or self._draw() < _share(n)

    # -- frames -----------------------------------------------------------------------------

    def _is_project_class(self, cls):
        known = self._classes.get(cls)
        if known is None:
            if len(self._classes) > 10000:
                self._classes.clear()
            known = self._classes[cls] = bool(self._project_class(cls))
        return known

    def _function(self, frame, code):
        function = self._names.get(code)
        if function is None:
            module = frame.f_globals.get("__name__")
            if not isinstance(module, str):
                module = "?"
            name = getattr(code, "co_qualname", code.co_name)
            function = self._names[code] = "%s:%s" % (module, name)
            if function not in self.functions:
                self.functions[function] = code.co_filename
        return function

    def enter(self, frame, code):
        """`frame` (running `code`) starts."""
        try:
            self._enter(frame, code)
        except Exception:  # what user code does must never depend on what is recorded
            self._frames.pop(frame_key(frame), None)

    def _enter(self, frame, code):
        test = self._test
        if test is None:
            return
        function = self._names.get(code)
        if function is None:
            if self._excluded_code(code):
                self._names[code] = False
                return
            function = self._function(frame, code)
        elif function is False:
            return
        test["reached"].add(function)
        params = _parameters(frame, code)
        sample = None
        read = True
        if self._invocations:
            if len(test["invocations"]) < INVOCATIONS:
                sample = self._variables(params)
        else:
            read = self._sampled(self._seen, function)
            mine = self._wanted(test, (function, "entry"), read)
            if mine is not None:
                sample = self._variables(params)
                _count(mine, sample, (), test["buffered"], self._keep_draw)
        receiver = params[0][1] if params and params[0][0] == "self" else None
        self._frames[frame_key(frame)] = (function, set(), sample, receiver, read)
        if receiver is not None:
            self._sequence_call(frame, code, receiver, params)

    def branch(self, frame, jump, taken):
        entry = self._frames.get(frame_key(frame))
        if entry is not None and jump.pos is not None:
            side = self._sides.get((jump, taken))
            if side is None:
                side = self._sides[(jump, taken)] = (tuple(jump.pos), bool(jump.value(taken)))
            entry[1].add(side)

    def exit(self, frame, code, value, exception):
        """`frame` (running `code`) returns `value` or raises `exception`."""
        try:
            self._exit(frame, code, value, exception)
        except Exception:  # as in `enter`
            pass

    def _exit(self, frame, code, value, exception):
        entry = self._frames.pop(frame_key(frame), None)
        test = self._test
        if entry is None or test is None:
            return
        function, sides, entry_sample, _, read = entry
        profile = tuple(sorted(sides))
        key = (function, profile)
        test["profiles"][key] = test["profiles"].get(key, 0) + 1
        if self._invocations:
            if entry_sample is not None and len(test["invocations"]) < INVOCATIONS:
                test["invocations"].append({
                    "function": function, "entry": _wire_sample(entry_sample),
                    "exit": _wire_sample(self._exit_sample(frame, code, value, exception)),
                    "sides": [list(pos) + [taken] for pos, taken in profile]})
            return
        key = (function, "exit")
        mine = self._wanted(test, key, read, self._new_result(key, value, exception))
        if mine is not None:
            _count(mine, self._exit_sample(frame, code, value, exception), profile,
                   test["buffered"], self._keep_draw)

    def _new_result(self, key, value, exception):
        """Whether the exit `key` ends in a kind of result it has not shown before (`parse(8)`
        raising `TypeError` after hundreds of calls raising `ValueError`): such a call is rare,
        and an invariant learned without it would be false (`type(exception) is ValueError`).
        Told by the result's type alone, before anything is described."""
        kind = type(exception) if exception is not None else type(value)
        kinds = self._results.get(key)
        if kinds is None:
            kinds = self._results[key] = set()
        if kind in kinds or len(kinds) >= MAX_RESULT_KINDS:
            return False
        kinds.add(kind)
        return True

    def _exit_sample(self, frame, code, value, exception):
        variables = _parameters(frame, code)
        if exception is not None:
            out = self._variables(variables)
            out["type(exception)"] = ("str", _type_name(type(exception)))
            return out
        variables.append(("return", value))
        return self._variables(variables)

    def invocations(self):
        """The invocations of the test under way, in the order they returned."""
        return list(self._test["invocations"]) if self._test is not None else []

    # -- variables ----------------------------------------------------------------------------

    def _variables(self, named):
        """{variable: (kind, value)}, in the order read."""
        out = {}
        for name, value in named:
            self._describe(name, value, 0, out)
        return out

    def _describe(self, path, value, depth, out):
        if len(out) >= VARIABLES:
            return
        if self._concrete is not None:
            value = self._concrete(value)
        t = type(value)
        names = _names(path)
        out[names[0]] = ("str", _type_name(t))
        out[names[1]] = ("bool", value is None)
        if value is None:
            return
        base = _builtin_base(value)
        if base is bool:
            out[path] = ("bool", bool(value))
        elif base is int:
            text = _int_text(value)
            if text is not None:
                out[path] = ("int", text)
        elif base is float:
            out[path] = ("float", float.__repr__(value))
        elif base is not None:
            n = base.__len__(value)
            out[names[2]] = ("int", str(n))
            if base is str and n <= SHORT_STR and _is_text(value):
                out[path] = ("str", str.__str__(value))
        elif t in _STD_NUMBERS:
            # A `Decimal` or a `Fraction` is a number: compared as a float.
            number = _std_float(value)
            if number is not None:
                out[path] = ("float", number)
        elif depth < DEPTH and t is slice:
            # A slice by its parts (`key.start`, `key.stop`, `key.step`), so that invariants
            # can be learned over them: a generated slice unlike every one the suite passed
            # then breaks its entry's (which does not yet set aside what the call returns).
            for name in ("start", "stop", "step"):
                self._describe(_field_path(path, name), getattr(value, name), depth + 1, out)
        elif depth < DEPTH and t in STD_VALUES:
            # A date, a time, a duration, a complex number: its public state (`return.day`).
            for name in STD_VALUES[t][1]:
                self._describe(_field_path(path, name), getattr(value, name), depth + 1, out)
        elif depth < DEPTH and self._is_project_class(t):
            fields = _fields(value)
            if fields:
                for i, (name, field) in enumerate(list(fields.items())):
                    if i >= FIELDS:
                        break
                    if isinstance(name, str):
                        self._describe(_field_path(path, name), field, depth + 1, out)

    # -- call sequences ---------------------------------------------------------------------

    def _sequence_call(self, frame, code, obj, params):
        if not self._is_project_class(type(obj)):
            return
        objects = self._test["objects"]
        if self._from_inside(frame.f_back, obj):
            return  # a call from inside the object: part of the outer call
        name = code.co_name
        args = [self._argument(v) for _, v in params[1:]]
        held = objects.get(id(obj))
        if held is not None and held[1] is None:
            return  # an object sampling does not follow (`SAMPLE_START`)
        if held is None:
            if len(objects) >= OBJECTS:
                return
            if not self._sampled(self._objects_seen, type(obj)):
                self._follow(obj, None)
                return
            seq = {"class": _type_name(type(obj)), "constructor": None, "calls": []}
            if name == "__init__":
                seq["constructor"] = args
            else:
                seq["calls"].append({"method": name, "args": args})
            self._follow(obj, seq)
        else:
            calls = held[1]["calls"]
            if len(calls) < SEQUENCE_CALLS:
                calls.append({"method": name, "args": args})

    def _follow(self, obj, seq):
        """Holds an object in the test's objects, its calls recorded in `seq` (None: an
        object sampling does not follow, remembered so that its later calls are not taken for
        another object's first): a weak reference, so that following an object never keeps it
        alive (code that waits for an object to be collected behaves as without Lacuna); when
        it dies, its entry leaves the test's objects before its id can be reused (its sequence
        stays in the test's). An object that cannot be referenced weakly is held until the test
        ends, so that its id stays its own. (The callback is a closure, not a table keyed by
        the weak reference: hashing or comparing a reference calls the object's own
        `__hash__` and `__eq__`, which are user code and may raise.)"""
        test = self._test
        key = id(obj)
        objects = test["objects"]
        entry = [None, seq]
        objects[key] = entry
        if seq is not None:
            test["sequences"].append(seq)

        def gone(_ref):
            if objects.get(key) is entry:
                del objects[key]

        try:
            entry[0] = weakref.ref(obj, gone)
        except TypeError:
            entry[0] = lambda: obj
        return entry

    def _from_inside(self, caller, obj):
        """Whether `caller` is code of `obj` itself: a method of it, or code nested in one that
        reads its `self`."""
        if caller is None:
            return False
        held = self._frames.get(frame_key(caller))
        if held is None:
            # Not project code: a test, a library. (Its `f_locals` is not read: that would
            # keep a snapshot of its variables alive.)
            return False
        if held[3] is not None:
            return held[3] is obj
        if "self" in caller.f_code.co_freevars:
            return caller.f_locals.get("self") is obj
        return False

    def _argument(self, value):
        held = self._test["objects"].get(id(value)) if self._test else None
        if held is not None and held[0]() is value:
            seq = held[1]
            if seq is None:
                return {"kind": "object", "class": _type_name(type(value))}
            out = {"kind": "object", "class": seq["class"]}
            out["built"] = _built(seq)
            return out
        if value is None:
            return {"kind": "none"}
        base = _builtin_base(value)
        if base is bool:
            return {"kind": "bool", "value": bool(value)}
        if base is int:
            text = _int_text(value)
            return {"kind": "int", "value": text} if text is not None else {"kind": "int"}
        if base is float:
            return {"kind": "float", "value": float.__repr__(value)}
        if base is str and str.__len__(value) <= SHORT_STR and _is_text(value):
            return {"kind": "str", "value": str.__str__(value)}
        if base is not None:
            return {"kind": base.__name__, "len": base.__len__(value)}
        return {"kind": "object", "class": _type_name(type(value))}

    # -- the wire form --------------------------------------------------------------------------

    def serialise(self):
        functions = []
        for function in sorted(self.functions):
            entry = self.points.get((function, "entry"))
            exit_ = self.points.get((function, "exit"))
            if entry is None and exit_ is None:
                continue
            profiles = self.profiles.get(function, {})
            functions.append({
                "function": function,
                "file": self.functions[function],
                "entry": _wire_point(entry or _point()),
                "exit": _wire_point(exit_ or _point()),
                "profiles": [{"sides": [list(pos) + [taken] for pos, taken in profile],
                              "count": count}
                             for profile, count in sorted(profiles.items(),
                                                          key=lambda p: (-p[1], p[0]))],
            })
        sequences = []
        for cls in sorted(self.sequences):
            for seq, count in sorted(self.sequences[cls].values(), key=lambda s: -s[1]):
                sequences.append({"class": cls, "constructor": seq["constructor"],
                                  "calls": seq["calls"], "count": count})
        return {"functions": functions, "sequences": sequences}


def _built(seq):
    """How a followed object was built so far: its sequence's constructor and first
    `BUILT_CALLS` calls, as a copy (the sequence goes on), with `depth` how many objects deep
    it nests (at most `BUILT_DEPTH`: an argument built deeper is left without its `built`)."""

    def shallow(args):
        return [{k: v for k, v in a.items() if k != "built"}
                if a.get("built", {}).get("depth", 0) >= BUILT_DEPTH else a for a in args]

    constructor = seq["constructor"]
    constructor = None if constructor is None else shallow(constructor)
    calls = [{"method": c["method"], "args": shallow(c["args"])}
             for c in seq["calls"][:BUILT_CALLS]]
    args = list(constructor or ()) + [a for c in calls for a in c["args"]]
    depth = 1 + max((a["built"]["depth"] for a in args if "built" in a), default=0)
    return {"constructor": constructor, "calls": calls, "depth": depth}


def _is_text(value):
    """Whether a string is text UTF-8 can hold: one with a lone surrogate (`"\\udca9"`, from
    decoding with `surrogateescape`) is observed by its length only."""
    if str.isascii(value):
        return True
    try:
        str.encode(value, "utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _int_text(value):
    """The decimal text of an int of at most 30 digits, else None (without converting a huge
    one: past `sys.get_int_max_str_digits()` that raises)."""
    if int.bit_length(value) > 100:
        return None
    text = int.__repr__(value)
    return text if len(text) <= 30 else None


_PATHS = {}


def _names(path):
    """The variables of a path: its type, whether it is None, its length (made once)."""
    names = _PATHS.get(path)
    if names is None:
        if len(_PATHS) > 100000:
            _PATHS.clear()
        names = _PATHS[path] = ("type(%s)" % path, "%s is None" % path, "len(%s)" % path)
    return names


_FIELD_PATHS = {}


def _field_path(path, name):
    key = (path, name)
    full = _FIELD_PATHS.get(key)
    if full is None:
        if len(_FIELD_PATHS) > 100000:
            _FIELD_PATHS.clear()
        full = _FIELD_PATHS[key] = "%s.%s" % (path, name)
    return full


def _point(own=False):
    """A program point: the suite's, or (`own`) one test's, whose samples are indexed to count
    a repeated one. `offered`: the distinct samples offered (reservoir sampling's count);
    `features`: what the kept samples show, once the point is full (`retain.Features`)."""
    point = {"calls": 0, "read": 0, "samples": [], "tests": [], "sides": [], "counts": [],
             "complete": True, "variables": 0, "offered": 0, "features": None}
    if own:
        point["index"] = {}
    return point


# Variables as kept, each once: most samples repeat the variables of others (`type(x)`,
# `x is None`, small numbers), so a kept sample holds references to shared pairs.
_ITEMS = {}


def _interned(items):
    if len(_ITEMS) > 200000:
        _ITEMS.clear()
    return tuple([_ITEMS.setdefault(item, item) for item in items])


def _room(used, limit):
    """`room` for `retain.offer`: whether `used[0]` can grow by `size` within `limit`."""
    def room(size):
        if used[0] + size > limit:
            return False
        used[0] += size
        return True
    return room


def _count(point, sample, profile, buffered, draw):
    """Counts a call of a test's program point as it comes: a sample the test gave before adds
    to its count; a new one is offered to the point (`retain.offer`: kept while the point and
    the test have room, then in place of a kept one, or not at all, and then not read)."""
    point["calls"] += 1
    items = tuple(sample.items())
    i = point["index"].get((items, profile))
    if i is not None:
        point["counts"][i] += 1
        return
    share = (SAMPLES, POINT_VARIABLES, _room(buffered, TEST_VARIABLES))
    retain.offer(point, _interned(items), profile, 1, share, draw)


def _merge_point(point, mine, test, kept, draw):
    """Adds a passing test's point (`_count`ed) to the suite's: each of its samples is offered
    with its test and count (`retain.offer`), within `SAMPLES` and `POINT_VARIABLES` for the
    point and `TOTAL_VARIABLES` over all points."""
    point["calls"] += mine["calls"]
    point["read"] += mine["read"]
    share = (SAMPLES, POINT_VARIABLES, _room(kept, TOTAL_VARIABLES))
    for sample, sides, count in zip(mine["samples"], mine["sides"], mine["counts"]):
        retain.offer(point, sample, sides, count, share, draw, test)


def _wire_sample(sample):
    """A sample (a dict, or its items as kept) as the protocol gives it."""
    items = sample.items() if isinstance(sample, dict) else sample
    return {name: {"kind": kind, "value": value} for name, (kind, value) in items}


def _wire_point(point):
    return {"calls": point["calls"], "read": point["read"], "complete": point["complete"],
            "samples": [_wire_sample(s) for s in point["samples"]],
            "tests": point["tests"],
            "sides": [[list(pos) + [taken] for pos, taken in profile]
                      for profile in point["sides"]],
            "counts": point["counts"]}


def _parameters(frame, code):
    n = code.co_argcount + code.co_kwonlyargcount
    flags = code.co_flags
    if flags & 0x04:  # *args
        n += 1
    if flags & 0x08:  # **kwargs
        n += 1
    names = code.co_varnames[:n]
    local = frame.f_locals
    return [(name, local[name]) for name in names if name in local]


def unwrap_exception(arg):
    """The exception of a settrace `exception` event's argument."""
    if isinstance(arg, tuple) and len(arg) >= 2:
        return arg[1] if arg[1] is not None else arg[0]
    return arg
