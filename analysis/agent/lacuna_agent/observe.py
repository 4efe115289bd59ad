"""What the project's passing tests show about its functions, recorded while its suite runs:

- program points (Daikon's, as ZoomIn learns invariants from them): at each entry of a project
  function its parameters, at each exit its parameters again, the return value or the exception
  type, as variables over access paths (`self._items`, `len(self._items)`, `type(x)`,
  `x is None`) to depth 2: every distinct sample of each test with the number of calls that
  gave it (up to a bound per point and one over all points; a point that had to leave a sample
  out says it is incomplete, and no invariant is learned from it, since the sample left out could
  break it), with the count of calls seen;
- the coverage profile of each invocation (the branch sides it took), distinct profiles with
  counts;
- call sequences on objects of project classes (Palus's dynamic model): the constructor with its
  arguments, then the methods called on the same object from outside it, in order;
- per test, the functions it reached (test impact).

A test's records are buffered and kept only if the test passes; each sample of a program point
names the test it came from, and an exit sample the branch sides its invocation took (for
conditional invariants). For a generated input (`execute` with `observe`) the same records
are kept per invocation instead: entry sample, exit sample and coverage profile together, as
the suspicious-assertion check compares them with the suite's. Nothing here calls user code:
values are read through `object.__getattribute__` on instance dictionaries, lengths only of
builtin containers, names only of types.
"""

import sys

SAMPLES = 1000        # distinct samples kept per program point
TOTAL_SAMPLES = 100000  # distinct samples kept over all points (memory stays bounded)
PROFILES = 64         # distinct coverage profiles kept per function
SEQUENCES = 20        # distinct call sequences kept per class
SEQUENCE_CALLS = 30   # calls kept per sequence
OBJECTS = 1000        # objects followed per test
FIELDS = 20           # fields of one object read
VARIABLES = 200       # variables of one sample
DEPTH = 2             # access-path depth: x, x.f, x.f.g
SHORT_STR = 40        # longer strings give their length only
INVOCATIONS = 50      # invocations kept of one generated input's run

_CONTAINERS = (list, tuple, dict, set, frozenset, str, bytes, bytearray)
_SCALARS = (bool, int, float, str, type(None))


def _type_name(t):
    try:
        module = type.__getattribute__(t, "__module__")
        name = type.__getattribute__(t, "__qualname__")
    except Exception:
        return "?"
    if not isinstance(module, str) or not isinstance(name, str):
        return "?"
    return name if module == "builtins" else "%s.%s" % (module, name)


def _builtin_base(value):
    """The builtin type a value is (or subclasses without changing its length), or None."""
    for t in _CONTAINERS + (bool, int, float):
        if isinstance(value, t):
            return t
    return None


def _fields(value):
    try:
        d = object.__getattribute__(value, "__dict__")
    except Exception:
        return None
    if type(d) is not dict:
        return None
    return d


class Observer:
    """Program points, profiles, sequences and impact of one suite run."""

    def __init__(self, is_project_class, excluded_code, invocations=False,
                 concrete=lambda value: value):
        self._is_project_class = is_project_class
        self._concrete = concrete
        self._invocations = invocations
        self._excluded_code = excluded_code
        self.points = {}      # (function, kind) -> {"calls", "samples"}
        self.kept = [0]       # distinct samples kept over all points
        self.profiles = {}    # function -> {profile tuple: count}
        self.sequences = {}   # class -> {key: [sequence, count]}
        self.sequence_seen = {}  # class -> number of sequences seen
        self.functions = {}   # function -> file
        self._frames = {}     # id(frame) -> (function, sides set)
        self._test = None

    # -- one test ---------------------------------------------------------------------------

    def begin_test(self, name=None):
        self._test = {"name": name, "points": [], "profiles": [], "objects": {},
                      "reached": set(), "invocations": []}
        self._frames.clear()

    def end_test(self, passed):
        """Ends the test under way; its records are kept when it passed. Returns the functions
        it reached."""
        test, self._test = self._test, None
        self._frames.clear()
        if test is None:
            return []
        if passed:
            for key, sample, sides in test["points"]:
                point = self.points.get(key)
                if point is None:
                    point = self.points[key] = _point()
                _keep_sample(point, sample, sides, test["name"], self.kept)
            for function, profile in test["profiles"]:
                profiles = self.profiles.setdefault(function, {})
                if profile in profiles or len(profiles) < PROFILES:
                    profiles[profile] = profiles.get(profile, 0) + 1
            for _, seq in test["objects"].values():
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

    # -- frames -----------------------------------------------------------------------------

    def _function(self, frame):
        code = frame.f_code
        module = frame.f_globals.get("__name__")
        if not isinstance(module, str):
            module = "?"
        name = getattr(code, "co_qualname", code.co_name)
        function = "%s:%s" % (module, name)
        if function not in self.functions:
            self.functions[function] = code.co_filename
        return function

    def enter(self, frame):
        test = self._test
        if test is None or self._excluded_code(frame.f_code):
            return
        function = self._function(frame)
        test["reached"].add(function)
        params = _parameters(frame)
        sample = self._variables(params)
        self._frames[id(frame)] = (function, set(), sample)
        test["points"].append(((function, "entry"), sample, []))
        self._sequence_call(frame, params)

    def branch(self, frame, jump, taken):
        entry = self._frames.get(id(frame))
        if entry is not None and jump.pos is not None:
            entry[1].add((tuple(jump.pos), bool(jump.value(taken))))

    def exit(self, frame, value, exception):
        entry = self._frames.pop(id(frame), None)
        test = self._test
        if entry is None or test is None:
            return
        function, sides, entry_sample = entry
        variables = _parameters(frame)
        if exception is not None:
            out = self._variables(variables)
            out["type(exception)"] = {"kind": "str", "value": _type_name(type(exception))}
        else:
            variables.append(("return", value))
            out = self._variables(variables)
        profile = tuple(sorted(sides))
        test["points"].append(((function, "exit"), out,
                               [list(pos) + [taken] for pos, taken in profile]))
        test["profiles"].append((function, profile))
        if self._invocations and len(test["invocations"]) < INVOCATIONS:
            test["invocations"].append({
                "function": function, "entry": entry_sample, "exit": out,
                "sides": [list(pos) + [taken] for pos, taken in profile]})

    def invocations(self):
        """The invocations of the test under way, in the order they returned."""
        return list(self._test["invocations"]) if self._test is not None else []

    # -- variables ----------------------------------------------------------------------------

    def _variables(self, named):
        out = {}
        for name, value in named:
            self._describe(name, value, 0, out)
        return out

    def _describe(self, path, value, depth, out):
        if len(out) >= VARIABLES:
            return
        value = self._concrete(value)
        t = type(value)
        out["type(%s)" % path] = {"kind": "str", "value": _type_name(t)}
        out["%s is None" % path] = {"kind": "bool", "value": value is None}
        if value is None:
            return
        base = _builtin_base(value)
        if base is bool:
            out[path] = {"kind": "bool", "value": bool(value)}
        elif base is int:
            text = int.__repr__(value)
            if len(text) <= 30:
                out[path] = {"kind": "int", "value": text}
        elif base is float:
            out[path] = {"kind": "float", "value": float.__repr__(value)}
        elif base is not None:
            n = base.__len__(value)
            out["len(%s)" % path] = {"kind": "int", "value": str(n)}
            if base is str and n <= SHORT_STR:
                out[path] = {"kind": "str", "value": str.__str__(value)}
        elif depth < DEPTH and self._is_project_class(t):
            fields = _fields(value)
            if fields:
                for i, (name, field) in enumerate(list(fields.items())):
                    if i >= FIELDS:
                        break
                    if isinstance(name, str):
                        self._describe("%s.%s" % (path, name), field, depth + 1, out)

    # -- call sequences ---------------------------------------------------------------------

    def _sequence_call(self, frame, params):
        if not params or params[0][0] != "self":
            return
        obj = params[0][1]
        if not self._is_project_class(type(obj)):
            return
        objects = self._test["objects"]
        caller = frame.f_back
        if caller is not None and caller.f_locals.get("self") is obj:
            return  # a call from inside the object: part of the outer call
        name = frame.f_code.co_name
        args = [self._argument(v) for _, v in params[1:]]
        held = objects.get(id(obj))
        if held is None:
            if len(objects) >= OBJECTS:
                return
            seq = {"class": _type_name(type(obj)), "constructor": None, "calls": []}
            if name == "__init__":
                seq["constructor"] = args
            else:
                seq["calls"].append({"method": name, "args": args})
            # The object is held until the test ends, so that its id stays its own.
            objects[id(obj)] = (obj, seq)
        else:
            calls = held[1]["calls"]
            if len(calls) < SEQUENCE_CALLS:
                calls.append({"method": name, "args": args})

    def _argument(self, value):
        held = self._test["objects"].get(id(value)) if self._test else None
        if held is not None and held[0] is value:
            return {"kind": "object", "class": held[1]["class"]}
        if value is None:
            return {"kind": "none"}
        base = _builtin_base(value)
        if base is bool:
            return {"kind": "bool", "value": bool(value)}
        if base is int:
            text = int.__repr__(value)
            return {"kind": "int", "value": text} if len(text) <= 30 else {"kind": "int"}
        if base is float:
            return {"kind": "float", "value": float.__repr__(value)}
        if base is str and str.__len__(value) <= SHORT_STR:
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


def _point():
    return {"calls": 0, "samples": [], "tests": [], "sides": [], "counts": [], "index": {},
            "complete": True}


def _keep_sample(point, sample, sides, test, kept):
    """Counts a call of a program point: a sample the same test gave before adds to its count,
    a new one is kept with its test, or marks the point incomplete when it holds enough. (Kept
    per test, so that a test run again replaces exactly what it gave.)"""
    point["calls"] += 1
    key = (test, tuple(sorted((name, v["kind"], v["value"]) for name, v in sample.items())),
           tuple(tuple(side) for side in sides))
    i = point["index"].get(key)
    if i is not None:
        point["counts"][i] += 1
    elif len(point["samples"]) < SAMPLES and kept[0] < TOTAL_SAMPLES:
        kept[0] += 1
        point["index"][key] = len(point["samples"])
        point["samples"].append(sample)
        point["tests"].append(test)
        point["sides"].append(sides)
        point["counts"].append(1)
    else:
        point["complete"] = False


def _wire_point(point):
    return {name: value for name, value in point.items() if name != "index"}


def _parameters(frame):
    code = frame.f_code
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
