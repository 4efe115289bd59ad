"""External calls: calls from project code into code the agent does not follow (C functions,
the standard library, other packages, builtins that reach the world). Each is recorded as an
external-call event — callee, call site, the input variables that flowed into its arguments —
and its return value becomes a fresh symbol `$ret:n`, so later conditions on it are visible.

Project modules are executed with `builtins_for()` as their `__builtins__`, and `wrap_globals()`
replaces their references to other modules and to imported functions by recording wrappers.
Exception classes, constants and classes used only for `isinstance` pass through untouched.
"""

import builtins
import datetime
import functools
import enum
import numbers
import operator
import os
import types

from . import measures, recorder
from .containers import SymDict, SymList, SymRange, SymTuple
from .sym import TRUTH_OF_WRAPPED, Sym, SymBool, apply, concrete, make

_SORTS = {bool: "bool", int: "int", float: "float", str: "str"}

# Module names whose calls depend on the world outside the inputs.
_state = {"depth": 0}


def _arg_vars(args, kwargs):
    names = []

    def collect(e):
        if isinstance(e, list) and e:
            if e[0] == "var" and len(e) == 3:
                if e[1] not in names:
                    names.append(e[1])
            else:
                for x in e[1:]:
                    collect(x)

    # The values inside builtin containers flow into the call too (`json.dumps([flag])`).
    pending = list(args) + list(kwargs.values())
    seen = set()
    while pending and len(seen) < _UNWRAP_NODES:
        a = pending.pop(0)
        if id(a) in seen:
            continue
        seen.add(id(a))
        if isinstance(a, Sym):
            collect(a._e)
        if isinstance(a, dict):
            pending.extend(x for kv in dict.items(a) for x in kv)
        elif isinstance(a, (list, tuple, set, frozenset)):
            pending.extend(list.__iter__(a) if isinstance(a, list) else
                           set.__iter__(a) if isinstance(a, set) else tuple.__iter__(a)
                           if isinstance(a, tuple) else iter(a))
    return names


def _concrete_args(args, kwargs):
    """The arguments of an external call as the callee must see them, and the copies made of
    the caller's containers (see `_Unwrapping`)."""
    unwrapping = _Unwrapping()
    cargs = [unwrapping.value(a, 0) for a in args]
    ckwargs = {k: unwrapping.value(v, 0) for k, v in kwargs.items()}
    return cargs, ckwargs, unwrapping.copies


# Bounds of the walk through an external call's arguments: deeper or larger values are passed
# as they are below that point.
_UNWRAP_DEPTH = 20
_UNWRAP_NODES = 10000

_PLAIN_CONTAINERS = (list, tuple, dict, set, frozenset)


class _Unwrapping:
    """Unwraps the arguments of one external call, at every level of the builtin containers
    that hold them: proxies of scalars become the plain values (a symbolic bool is no `bool`
    to `json` or `struct`), proxies of external objects (`PATTERN = re.compile(...)`) their
    target (C code such as `re.sub(PATTERN, ...)` checks the exact type of its arguments), and
    a symbolic container, or a builtin one holding a proxy, a plain copy. Objects of other
    types are passed as they are. A list, dict or set copied is remembered with a snapshot, so
    that what the callee did to it (`random.shuffle(xs)`, `heapq.heappush(h, x)`) is done to
    the caller's container afterwards (`write_back`)."""

    __slots__ = ("copies", "_nodes", "_memo")

    def __init__(self):
        self.copies = []
        self._nodes = 0
        self._memo = {}

    def value(self, value, depth):
        if isinstance(value, ReturnedObject):
            return object.__getattribute__(value, "_target")
        if type(value) in (ExternalObject, ExternalFunction):
            # `dispatch.register(Path, ...)`: library code given a library class or function
            # the project names through its wrapper checks it is one.
            return value._target
        if isinstance(value, Sym) and not isinstance(value, _PLAIN_CONTAINERS):
            return concrete(value)
        t = type(value)
        if t not in _PLAIN_CONTAINERS and not isinstance(value, Sym):
            return value
        self._nodes += 1
        if depth >= _UNWRAP_DEPTH or self._nodes > _UNWRAP_NODES:
            return concrete(value)
        seen = self._memo.get(id(value))
        if seen is not None:
            return seen[1]
        self._memo[id(value)] = (value, value)  # a cycle passes the container itself
        if isinstance(value, list):
            items = list(list.__iter__(value))
            plain = [self.value(x, depth + 1) for x in items]
            copy = self._copy(value, items, plain, list)
        elif isinstance(value, tuple):
            items = list(tuple.__iter__(value))
            plain = [self.value(x, depth + 1) for x in items]
            copy = value if not self._changed(value, items, plain) else tuple(plain)
        elif isinstance(value, dict):
            items = list(dict.items(value))
            plain = [(self.value(k, depth + 1), self.value(v, depth + 1)) for k, v in items]
            flat = [x for kv in items for x in kv]
            flat_plain = [x for kv in plain for x in kv]
            copy = value
            if self._changed(value, flat, flat_plain):
                copy = dict(plain)
                self.copies.append((value, copy, list(dict.items(copy))))
        elif isinstance(value, (set, frozenset)):
            items = list(set.__iter__(value) if isinstance(value, set) else value)
            plain = [self.value(x, depth + 1) for x in items]
            copy = value
            if self._changed(value, items, plain):
                if isinstance(value, frozenset):
                    copy = frozenset(plain)
                else:
                    copy = set(plain)
                    self.copies.append((value, copy, set(copy)))
        else:
            copy = value
        self._memo[id(value)] = (value, copy)
        return copy

    @staticmethod
    def _changed(value, items, plain):
        return isinstance(value, Sym) or any(a is not b for a, b in zip(items, plain))

    def _copy(self, value, items, plain, kind):
        if not self._changed(value, items, plain):
            return value
        copy = kind(plain)
        self.copies.append((value, copy, list(copy)))
        return copy


def _write_back(copies):
    """Makes the caller's containers hold what the callee left in their copies, when it
    changed them. Their elements are then plain values, and a symbolic container's length is
    no longer an input's (a constant)."""
    for original, copy, snapshot in copies:
        if isinstance(copy, list):
            changed = len(copy) != len(snapshot) or any(
                a is not b for a, b in zip(copy, snapshot))
            if changed:
                list.__setitem__(original, slice(None), copy)
        elif isinstance(copy, dict):
            items = list(dict.items(copy))
            changed = len(items) != len(snapshot) or any(
                a[0] is not b[0] or a[1] is not b[1] for a, b in zip(items, snapshot))
            if changed:
                dict.clear(original)
                dict.update(original, copy)
        else:
            changed = copy != snapshot
            if changed:
                set.clear(original)
                set.update(original, copy)
        if changed and isinstance(original, Sym):
            original._e = ["int", str(len(copy))]


def call_external(name, target, args, kwargs):
    """Calls `target` as the external function `name`, recording the call — or, when the
    guidance module mocks `name`, the mock instead."""
    mock = _active_mocks.get(name)
    if mock is not None and _state["depth"] == 0:
        return mock(*args, **kwargs)
    rec = recorder.current()
    cargs, ckwargs, copies = _concrete_args(args, kwargs)
    if rec is None or _state["depth"] > 0:
        try:
            result = target(*cargs, **ckwargs)
        finally:
            _write_back(copies)
        if _state["depth"] == 0 and isinstance(result, types.FunctionType) \
                and _is_library_function(result):
            # Called by the project's code outside a run (importing it): what it then calls on
            # the function is a library call as well.
            return ExternalFunction(_qualname(result), result)
        return result
    n = rec.external_call(name, _arg_vars(args, kwargs), depth=3)
    _state["depth"] += 1
    try:
        result = target(*cargs, **ckwargs)
    except BaseException as e:
        _state["depth"] -= 1
        _write_back(copies)
        rec.external_raise(n, e)
        raise
    _state["depth"] -= 1
    _write_back(copies)
    if name in CLOCK_READS:
        from .values import assertable

        rec.clock_read(n, assertable(result))
    return returned(rec, n, result)


# The calls that read the wall clock: a test that pins what a run computed from them would fail
# at another time, so the emitted test replays the values the run read (`clock` of the call's
# event, as `values.assertable` writes it) through the same patch as a mocked call. Not the
# monotonic clocks: an event loop measures its timeouts with `time.monotonic`, which a replay's
# repeated last value would stop.
CLOCK_READS = frozenset((
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
    "datetime.date.today", "time.time", "time.time_ns"))


def returned(rec, n, result):
    """Records the return value of external call `n` and gives it its symbol."""
    sort = _SORTS.get(type(result))
    try:
        text = repr(result)[:200]
    except Exception:
        text = "<unprintable>"
    base = "$ret:%d" % n
    type_name = _qualname(type(result))
    if sort is not None:
        rec.external_return(n, text, sort, type_name=type_name)
        rec.symbol_value(n, base, literal_of(result))
        return make(result, ["var", base, sort], 1)
    wrapped = wrap_returned(result, base)
    rec.external_return(n, text, None, paths=wrapped is not result, type_name=type_name)
    return wrapped


def wrap_returned(result, base):
    """Dicts and lists returned by external calls get path symbols (`$ret:3["mode"]`);
    other objects get an attribute proxy (`$ret:3.hour`)."""
    t = type(result)
    if t is dict:
        return SymDict({k: _path(v, "%s[%r]" % (base, k)) for k, v in result.items()},
                       ["var", base + ".__len__", "int"])
    if t is list:
        return SymList([_path(v, "%s[%d]" % (base, i)) for i, v in enumerate(result)],
                       ["var", base + ".__len__", "int"])
    if t is tuple:
        return SymTuple([_path(v, "%s[%d]" % (base, i)) for i, v in enumerate(result)],
                        ["var", base + ".__len__", "int"])
    if isinstance(result, types.FunctionType) and _is_library_function(result):
        # `functools.singledispatch(...)`: what project code then calls on it (`.register(Path,
        # handler)`) is a library call too, whose arguments are the values, not Lacuna's.
        return ExternalFunction(_qualname(result), result)
    if result is None or isinstance(result, (types.ModuleType, type, BaseException)) \
            or callable(result) or _is_flow(result):
        return result
    if isinstance(result, numbers.Number):
        # `Decimal`, `Fraction`, `complex`: no attribute worth a symbol, and C code given one
        # (`ZERO.quantize(Decimal("1e-2"))`, a plain value's method) checks the exact type.
        return result
    return ReturnedObject(result, base)


def project_code(is_project_module, is_project_file):
    """Sets what says whether a module and a source file are the project's (the runtime's
    configuration)."""
    _state["is_project_module"] = is_project_module
    _state["is_project_file"] = is_project_file


def _is_library_function(function):
    """Whether a Python function is a library's: its code is outside the project (whatever
    `functools.update_wrapper` copied into its `__module__`), and it is not a wrapper of a
    project function (`functools.wraps`)."""
    is_project_file = _state.get("is_project_file")
    if is_project_file is None or is_project_file(function.__code__.co_filename):
        return False
    return not wraps_project_function(function, _state["is_project_module"])


def _is_flow(value):
    """Coroutines, generators and other awaitables: `await` and `yield from` need the object
    itself (a proxy of one cannot be awaited)."""
    return isinstance(value, (types.CoroutineType, types.GeneratorType,
                              types.AsyncGeneratorType)) or hasattr(type(value), "__await__")


def _path(value, name):
    sort = _SORTS.get(type(value))
    if sort is not None:
        rec = recorder.current()
        # Parts of an external call's value (`$ret:3.hour`) are recorded with it; those of a
        # mocked call's value (`$mock:0[0].hour`) are inputs the generator chose.
        if rec is not None and name.startswith("$ret:"):
            rec.symbol_value(int(name[5:].split(".", 1)[0].split("[", 1)[0]), name,
                             literal_of(value))
        return make(value, ["var", name, sort], 1)
    return value


# Longest string value reported for a symbol: longer ones are not pinned by the solver.
_MAX_LITERAL = 4096


def literal_of(value):
    """A scalar as a literal of the expression wire form (`["int", "3"]`), or None."""
    t = type(value)
    if t is bool:
        return ["bool", value]
    if t is int:
        return ["int", str(value)]
    if t is float:
        if value != value:
            return ["float", "nan"]
        if value in (float("inf"), float("-inf")):
            return ["float", "inf" if value > 0 else "-inf"]
        return ["float", value]
    if t is str and len(value) <= _MAX_LITERAL:
        return ["str", value]
    return None


class ReturnedObject:
    """An object returned by an external call whose primitive attributes become symbols
    (`datetime.now().hour` → `$ret:3.hour`). Method calls on it are external calls too. For a
    mocked call's value, built through its constructor, an attribute that reads a constructor
    argument is that argument's symbol (`$mock:0[0].__init__.hour`,
    `$mock:0[0].__init__.sequence[6]` for `st_size`)."""

    __slots__ = ("_target", "_base", "_init", "_measure")

    def __init__(self, target, base, init=None, measure=None):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_base", base)
        # Attribute name → the constructor argument's path it reads.
        object.__setattr__(self, "_init", dict(init or {}))
        # Of an ordered standard value an input built (a duration, a zone, a naive date or
        # time): its measure, symbolic in the constructor's arguments (`measures`), so that
        # comparing such values is a condition the solver can flip.
        object.__setattr__(self, "_measure", measure)

    @property
    def __class__(self):
        return type(object.__getattribute__(self, "_target"))

    def __getattr__(self, name):
        target = object.__getattribute__(self, "_target")
        value = getattr(target, name)
        base = object.__getattribute__(self, "_base")
        measure = object.__getattribute__(self, "_measure")
        if measure is not None:
            measured = _measured_attribute(target, base, measure, name)
            if measured is not None:
                return measured
        if callable(value) and not isinstance(value, type):
            return ExternalFunction("%s.%s" % (_qualname(type(target)), name), value)
        argument = object.__getattribute__(self, "_init").get(name)
        if argument is not None:
            return _path(value, "%s.__init__.%s" % (base, argument))
        return _path(value, "%s.%s" % (base, name))

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_target"), name, value)

    def __repr__(self):
        return repr(object.__getattribute__(self, "_target"))

    def __str__(self):
        return str(object.__getattribute__(self, "_target"))

    def __bool__(self):
        if type(object.__getattribute__(self, "_target")) is datetime.timedelta:
            compared = _measures_compared(self, "!=", datetime.timedelta(0))
            if compared is not None:
                return bool(compared)
        return bool(object.__getattribute__(self, "_target"))

    def __hash__(self):
        return hash(object.__getattribute__(self, "_target"))

    # Arithmetic on a returned object (`today - epoch`, `root / "x.json"`) gives a value that
    # still comes from the call: its attributes and methods stay symbols and external calls.
    def _derived(self, value, op, measure=None):
        name = "%s.%s" % (object.__getattribute__(self, "_base"), op)
        if measure is not None and measures.kind_of(value) in measures.DERIVED:
            return ReturnedObject(value, name, None, measure)
        if _SORTS.get(type(value)) is not None:
            return _path(value, name)
        if value is None or value is NotImplemented or callable(value) \
                or isinstance(value, (types.ModuleType, type, BaseException)):
            return value
        return ReturnedObject(value, name)

    def __divmod__(self, other):
        return divmod(object.__getattribute__(self, "_target"), _unwrap(other))

    def __int__(self):
        return int(object.__getattribute__(self, "_target"))

    def __float__(self):
        return float(object.__getattribute__(self, "_target"))

    def __round__(self, *ndigits):
        return round(object.__getattribute__(self, "_target"), *ndigits)

    def __contains__(self, item):
        return concrete(item) in object.__getattribute__(self, "_target")

    def __fspath__(self):
        return os.fspath(object.__getattribute__(self, "_target"))

    def __iter__(self):
        return iter(object.__getattribute__(self, "_target"))

    def __enter__(self):
        return object.__getattribute__(self, "_target").__enter__()

    def __exit__(self, *exc):
        return object.__getattribute__(self, "_target").__exit__(*exc)

    def __len__(self):
        return len(object.__getattribute__(self, "_target"))

    def __getitem__(self, key):
        return object.__getattribute__(self, "_target")[concrete(key)]


TRUTH_OF_WRAPPED[ReturnedObject] = lambda wrapper: object.__getattribute__(wrapper, "_target")


def _comparison(op, compute, plain):
    """The comparison `op` of a returned object: a condition on the measures when it is an
    ordered value an input built (`measures`), else `compute` on the plain values."""
    def method(self, other):
        compared = _measures_compared(self, op, other)
        if compared is not None:
            return compared
        return compute(object.__getattribute__(self, "_target"), plain(other))

    return method


for _name, _op, _compute, _plain in (
        ("__eq__", "==", operator.eq, lambda o: concrete(_unwrap(o))),
        ("__ne__", "!=", operator.ne, lambda o: concrete(_unwrap(o))),
        ("__lt__", "<", operator.lt, lambda o: _unwrap(o)),
        ("__le__", "<=", operator.le, lambda o: _unwrap(o)),
        ("__gt__", ">", operator.gt, lambda o: _unwrap(o)),
        ("__ge__", ">=", operator.ge, lambda o: _unwrap(o))):
    setattr(ReturnedObject, _name, _comparison(_op, _compute, _plain))
del _name, _op, _compute, _plain

def measure_of(value):
    """The class of an ordered standard value and its measure (see `measures`): symbolic for
    one an input built, else its plain value's; (None, None) for anything else."""
    if isinstance(value, ReturnedObject):
        target = object.__getattribute__(value, "_target")
        measure = object.__getattribute__(value, "_measure")
        return (measures.kind_of(target),
                measure if measure is not None else measures.of_plain(target))
    return measures.kind_of(value), measures.of_plain(value)


def _measures_compared(wrapper, op, other):
    """`wrapper op other` as a condition on their measures, when `wrapper` is an ordered
    value an input built and `other` one of the same class; else None."""
    if object.__getattribute__(wrapper, "_measure") is None:
        return None
    return measures.compared(op, *measure_of(wrapper), *measure_of(other))


def _derived_measure(wrapper, op, other, result):
    """The measure of `result`, computed by `op` from an ordered value an input built (and
    `other`), or None."""
    if object.__getattribute__(wrapper, "_measure") is None:
        return None
    cls, mine = measure_of(wrapper)
    other_cls, theirs = measure_of(other[0]) if len(other) == 1 else (None, None)
    return measures.derived(op, cls, mine, other_cls, theirs, other[0] if other else None,
                            measures.kind_of(result))


def _measured_attribute(target, base, measure, name):
    """What reading `name` of an ordered value an input built gives, kept symbolic in its
    measure: a `timezone`'s `utcoffset()`, a duration's `days` or `total_seconds()`, a date's
    `weekday()` (`measures.attribute`); or None."""
    if type(target) is datetime.timezone and name == "utcoffset":
        def utcoffset(dt=None):
            return ReturnedObject(target.utcoffset(concrete(_unwrap(dt)) if dt is not None
                                                   else None),
                                  "%s.utcoffset()" % base, None, measure)
        return utcoffset
    return measures.attribute(measures.kind_of(target), measure, name)


def _derived_operator(name, compute):
    """The method `name` of a returned object: `compute` on the value it stands for (and the
    other operand's plain value), itself a value derived from the call (`_derived`)."""
    def method(self, *other):
        target = object.__getattribute__(self, "_target")
        value = compute(target, *map(_unwrap, other))
        return ReturnedObject._derived(self, value, name,
                                       _derived_measure(self, name, other, value))

    method.__name__ = name
    return method


# Arithmetic on a returned object (`today - epoch`, `abs(now - then)`, `root / "x.json"`).
for _name, _compute in (
        ("__add__", operator.add), ("__radd__", lambda a, b: b + a),
        ("__sub__", operator.sub), ("__rsub__", lambda a, b: b - a),
        ("__mul__", operator.mul), ("__rmul__", lambda a, b: b * a),
        ("__truediv__", operator.truediv), ("__rtruediv__", lambda a, b: b / a),
        ("__floordiv__", operator.floordiv), ("__rfloordiv__", lambda a, b: b // a),
        ("__mod__", operator.mod), ("__rmod__", lambda a, b: b % a),
        ("__pow__", operator.pow), ("__and__", operator.and_), ("__or__", operator.or_),
        ("__abs__", operator.abs), ("__neg__", operator.neg), ("__pos__", operator.pos)):
    setattr(ReturnedObject, _name, _derived_operator(_name, _compute))
del _name, _compute


def _unwrap(value):
    if isinstance(value, ReturnedObject):
        return object.__getattribute__(value, "_target")
    if type(value) is ExternalObject:
        return value._target
    return concrete(value)


def unwrap(value):
    """The plain object behind any proxy the agent made."""
    return _unwrap(value)


def unwrap_object(value):
    """The object behind a returned or external object's proxy; any other value as it is (a
    symbolic number stays symbolic)."""
    if isinstance(value, ReturnedObject):
        return object.__getattribute__(value, "_target")
    if type(value) is ExternalObject:
        return value._target
    return value


def _qualname(obj):
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if isinstance(obj, type):
        # The name it can be imported by (`shutil._ntuple_diskusage` for `shutil.usage`).
        from .describe import bound_name
        name = bound_name(module, obj)
    if module in ("builtins", ""):
        return name
    return "%s.%s" % (module, name)


class ExternalFunction:
    """A function, method or class of code the agent does not follow, called from project
    code: each call is an external-call event."""

    __slots__ = ("_name", "_target")

    def __init__(self, name, target):
        self._name = name
        self._target = target

    def __call__(self, *args, **kwargs):
        return call_external(self._name, self._target, args, kwargs)

    def __getattribute__(self, attr):
        # Every attribute read in code is the target's, dunders included: `abc.ABCMeta.__new__`,
        # `collections.OrderedDict.__init__(self)`, `.__doc__` are the library's, not this
        # wrapper's. (Python's implicit lookups — calls, `isinstance`, `repr` — use the type.)
        if attr in _WRAPPER_FUNCTION_OWN:
            return object.__getattribute__(self, attr)
        return _forwarded(self, attr)

    def __instancecheck__(self, obj):
        return isinstance(_unwrap(obj), self._target)

    def __subclasscheck__(self, cls):
        return issubclass(cls, self._target)

    def __mro_entries__(self, bases):
        return (self._target,)

    def __repr__(self):
        return repr(self._target)

    def __eq__(self, other):
        return self._target == (other._target if isinstance(other, ExternalFunction) else other)

    def __hash__(self):
        return hash(self._target)

    def __get__(self, obj, objtype=None):
        return self


class ExternalModule:
    """A module of code the agent does not follow, seen from project code: attribute chains
    resolve to recording wrappers (`os.path.exists` → an external call named so)."""

    __slots__ = ("_name", "_module")

    def __init__(self, name, module):
        self._name = name
        self._module = module

    def __getattribute__(self, attr):
        if attr in _WRAPPER_MODULE_OWN:
            return object.__getattribute__(self, attr)
        return _forwarded(self, attr)

    def __repr__(self):
        return repr(self._module)

    def __dir__(self):
        return dir(self._module)


class ExternalObject:
    """A non-callable object of an external module (`os.environ`): its methods are external
    calls, and so are item access and membership."""

    __slots__ = ("_name", "_target")

    def __init__(self, name, target):
        self._name = name
        self._target = target

    def __getattribute__(self, attr):
        if attr in _WRAPPER_OBJECT_OWN:
            return object.__getattribute__(self, attr)
        return _forwarded(self, attr)

    def __getitem__(self, key):
        return call_external(self._name + ".__getitem__", self._target.__getitem__, (key,), {})

    def __contains__(self, key):
        return call_external(self._name + ".__contains__", self._target.__contains__, (key,), {})

    def __iter__(self):
        return iter(self._target)

    def __len__(self):
        return len(self._target)

    def __repr__(self):
        return repr(self._target)

    def __setitem__(self, key, value):
        self._target[concrete(key)] = concrete(value)


# What a wrapper answers itself: its own fields, its class (the agent tells wrappers apart by
# it) and `__mro_entries__` (`class C(abc.ABC)` asks the base for it by a plain attribute read).
_WRAPPER_FUNCTION_OWN = frozenset({"_name", "_target", "__class__", "__mro_entries__"})
_WRAPPER_MODULE_OWN = frozenset({"_name", "_module", "__class__"})
_WRAPPER_OBJECT_OWN = frozenset({"_name", "_target", "__class__"})


def _forwarded(wrapper, attr):
    """`attr` of what `wrapper` stands for, itself wrapped as any attribute of a library is."""
    get = object.__getattribute__
    name = get(wrapper, "_name")
    target = get(wrapper, "_module" if type(wrapper) is ExternalModule else "_target")
    return _external_attribute("%s.%s" % (name, attr), getattr(target, attr))


# Modules of typing machinery: annotations and type tests, never the world outside the inputs
# (`typing.Optional[Node]` in a signature must stay subscriptable).
_TYPE_MODULES = frozenset({"typing", "typing_extensions", "collections.abc", "abc", "numbers",
                           "types", "annotated_types"})


def _external_attribute(name, value):
    if isinstance(value, Mock):
        return value
    owner = value if isinstance(value, type) else type(value)
    if getattr(owner, "__module__", None) in _TYPE_MODULES and not isinstance(
            value, (types.FunctionType, types.BuiltinFunctionType)):
        # `typing.Optional`, `typing.List`, `collections.abc.Callable`: forms to subscript.
        return value
    if isinstance(value, types.ModuleType):
        return ExternalModule(name, value)
    if isinstance(value, type) and issubclass(value, BaseException):
        return value
    if isinstance(value, type):
        return ExternalFunction(name, value)
    if callable(value):
        return ExternalFunction(name, value)
    if isinstance(value, (bool, int, float, str, bytes, tuple, frozenset, type(None))):
        return value
    if isinstance(value, (dict, list, set)) or hasattr(value, "__getitem__"):
        return ExternalObject(name, value)
    return value


# -- builtins -------------------------------------------------------------------------------

_real = {name: getattr(builtins, name) for name in dir(builtins)}


def _len(obj):
    if isinstance(obj, Sym) and hasattr(obj, "sym_len"):
        return obj.sym_len()
    return _real["len"](_unwrap(obj))


def _convert_int(*args, **kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], Sym):
        x = args[0]
        c = concrete(x)
        if isinstance(c, bool):
            return apply("bool.int", (x,), int(c))
        if isinstance(c, str):
            return apply("str.int", (x,), int(c))
        if isinstance(c, float):
            return apply("int", (x,), int(c))
        return x
    return _real["int"](*[concrete(a) for a in args], **kwargs)


def _convert_float(*args):
    if len(args) == 1 and isinstance(args[0], Sym):
        x = args[0]
        c = concrete(x)
        if isinstance(c, (int, bool)):
            return apply("float", (x,), float(c))
        if isinstance(c, float):
            return x
    return _real["float"](*[concrete(a) for a in args])


def _convert_str(*args, **kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], Sym):
        x = args[0]
        c = concrete(x)
        if type(c) is int:
            return apply("str", (x,), str(c))
        if type(c) is str:
            return x
    return _real["str"](*[_unwrap(a) for a in args], **kwargs)


class _Converting(type):
    """Metaclass of the `int`, `float` and `str` seen by project code: calling the class
    converts symbolically; instance and subclass checks are those of the real type."""

    def __call__(cls, *args, **kwargs):
        convert = cls.__dict__.get("_convert")
        if convert is None:
            return type.__call__(cls, *args, **kwargs)
        return convert(*args, **kwargs)

    def __instancecheck__(cls, obj):
        real = cls.__dict__.get("_real")
        if real is None:
            return type.__instancecheck__(cls, obj)
        if real is range and isinstance(obj, SymRange):
            return True
        return isinstance(_unwrap(obj) if isinstance(obj, ReturnedObject) else obj, real)

    def __subclasscheck__(cls, sub):
        real = cls.__dict__.get("_real")
        if real is None:
            return type.__subclasscheck__(cls, sub)
        return issubclass(_REAL_OF.get(sub, sub), real)

    def __getitem__(cls, item):
        # `type[BaseException]` in an annotation evaluated at import: CPython makes the alias
        # for the real `type` only; `int[0]` raises as the real one does.
        real = cls.__dict__.get("_real")
        if real is None:
            raise TypeError("type %r is not subscriptable" % cls.__name__)
        return real[item]


class ProjectInt(int, metaclass=_Converting):
    _real = int
    _convert = staticmethod(_convert_int)


class ProjectFloat(float, metaclass=_Converting):
    _real = float
    _convert = staticmethod(_convert_float)


class ProjectStr(str, metaclass=_Converting):
    _real = str
    _convert = staticmethod(_convert_str)


def _pydantic_schema(cls, source, handler):
    """pydantic (2) builds a model's validation schema from its annotations when the class is
    created, and knows the builtin types by identity: the `int`, `float` or `str` a project's
    annotation names is the real one there."""
    return handler.generate_schema(cls._real)


for _cls, _real_cls in ((ProjectInt, int), (ProjectFloat, float), (ProjectStr, str)):
    _cls.__name__ = _cls.__qualname__ = _real_cls.__name__
    _cls.__module__ = "builtins"
    _cls.__get_pydantic_core_schema__ = classmethod(_pydantic_schema)

class ProjectRange(metaclass=_Converting):
    """`range` cannot be subclassed: this class only converts and answers type checks."""

    _real = range
    _convert = staticmethod(lambda *args: _range(*args))


ProjectRange.__name__ = ProjectRange.__qualname__ = "range"
ProjectRange.__module__ = "builtins"

# Project code's names for the builtin types, both ways.
_REAL_OF = {ProjectInt: int, ProjectFloat: float, ProjectStr: str, ProjectRange: range}
_PROJECT_OF = {int: ProjectInt, float: ProjectFloat, str: ProjectStr, range: ProjectRange,
               SymRange: ProjectRange}


def real_type(t):
    """The builtin type behind a name project code uses (`int` → the real `int`)."""
    return _REAL_OF.get(t, t)


def _abs(x):
    return abs(x)


def _min(*args, **kwargs):
    if len(args) == 2 and not kwargs and all(type(concrete(a)) in (int, float) for a in args):
        a, b = args
        if isinstance(a, Sym) or isinstance(b, Sym):
            return apply("min", (a, b), _real["min"](concrete(a), concrete(b)))
    return _real["min"](*args, **kwargs)


def _max(*args, **kwargs):
    if len(args) == 2 and not kwargs and all(type(concrete(a)) in (int, float) for a in args):
        a, b = args
        if isinstance(a, Sym) or isinstance(b, Sym):
            return apply("max", (a, b), _real["max"](concrete(a), concrete(b)))
    return _real["max"](*args, **kwargs)


def _range(*args):
    if any(isinstance(a, Sym) for a in args):
        return SymRange(*args)
    return _real["range"](*args)


# One value of each kind of input the generator can build, to tell which kinds would turn a
# type test on an input the other way.
_PROBES = (("int", 1), ("float", 1.5), ("str", "a"), ("bytes", b"a"), ("none", None),
           ("bool", True), ("list", []), ("tuple", ()), ("dict", {}), ("set", set()),
           ("callable", lambda *args, **kwargs: None))


def _type_test(obj, value, other_way):
    """Records a type test on `obj` when it is an input: `other_way(probe)` says whether a value
    like `probe` would have given the other outcome."""
    from .values import named_inputs

    rec = recorder.current()
    entry = named_inputs.get(id(obj))
    if rec is None or entry is None or entry[0] is not obj:
        return
    try:
        flip = [kind for kind, probe in _PROBES if other_way(probe)]
    except Exception:
        return
    rec.type_test(entry[1], value, flip)


def _isinstance(obj, classinfo):
    tested = obj
    if isinstance(obj, SymBool):
        obj = concrete(obj)
    if isinstance(obj, (ReturnedObject, ExternalObject)):
        obj = _unwrap(obj)
    result = _real["isinstance"](obj, classinfo)
    _type_test(tested, result,
               lambda probe: _real["isinstance"](probe, classinfo) != result)
    return result


def _type(*args):
    if len(args) == 1:
        obj = args[0]
        tested = obj
        if isinstance(obj, (Sym, ReturnedObject, ExternalObject)):
            obj = _unwrap(obj)
        # Project code's `int` is a class of Lacuna's: its type is `type`, as the real one's.
        # (Only a class is looked up: an instance may be unhashable, `type([])` must work.)
        if _real["isinstance"](obj, _real["type"]):
            obj = _REAL_OF.get(obj, obj)
        t = _real["type"](obj)
        _type_test(tested, True, lambda probe: _real["type"](probe) is not t)
        return _PROJECT_OF.get(t, t)
    return _real["type"](*args)


class ProjectType(type, metaclass=_Converting):
    """`type` as project code sees it: `type(x)` records a type test, `type(name, bases,
    namespace)` makes a class, a class deriving from it (`class Meta(type)`) is a metaclass, and
    instance and subclass checks are the real `type`'s."""

    _real = type
    _convert = staticmethod(_type)


ProjectType.__name__ = ProjectType.__qualname__ = "type"
ProjectType.__module__ = "builtins"
_REAL_OF[ProjectType] = type
_PROJECT_OF[type] = ProjectType


def _callable(obj):
    result = _real["callable"](obj)
    _type_test(obj, result, lambda probe: _real["callable"](probe) != result)
    return result


def _round(number, ndigits=None):
    return _real["round"](concrete(number), concrete(ndigits))


def _recording(name):
    target = _real[name]
    return ExternalFunction(name, target)


def _build_class(func, name, *bases, **kwds):
    """A class statement of project code: a base it names as `int`, `float`, `str`, `range` or
    `type` is the real type, so the class is what Python would make (`class Color(str, Enum)`
    would otherwise mix Lacuna's metaclass with `Enum`'s and fail to be created)."""
    bases = tuple(_REAL_OF.get(b, b) if isinstance(b, _Converting) else b for b in bases)
    return _real["__build_class__"](func, name, *bases, **kwds)


_builtins = dict(vars(builtins))
_builtins.update({
    "__build_class__": _build_class,
    "len": _len,
    "int": ProjectInt,
    "float": ProjectFloat,
    "str": ProjectStr,
    "min": _min,
    "max": _max,
    "range": ProjectRange,
    "isinstance": _isinstance,
    "type": ProjectType,
    "callable": _callable,
    "round": _round,
    "open": _recording("open"),
    "input": _recording("input"),
    "print": _recording("print"),
    "hash": _recording("hash"),
    "id": _recording("id"),
})


def _install_identity():
    from . import identity

    _builtins[identity.IS] = identity.is_
    _builtins[identity.IS_NOT] = identity.is_not


_install_identity()


def builtins_for(module_name):
    """The `__builtins__` a project module is executed with."""
    return _builtins


def wrap_globals(module, is_project_module):
    """Replaces, in a project module's globals, references to non-project modules and to
    functions and classes imported from them, by recording wrappers."""
    namespace = module.__dict__
    for name, value in list(namespace.items()):
        if name.startswith("__"):
            continue
        if wraps_project_function(value, is_project_module):
            # `@functools.lru_cache`, `@functools.cache`, a library decorator using
            # `functools.wraps`: the project's function behind it is followed, not recorded.
            continue
        if isinstance(value, types.ModuleType):
            if not is_project_module(value) and value.__name__ not in _TYPE_MODULES:
                namespace[name] = ExternalModule(value.__name__, value)
        elif isinstance(value, (types.BuiltinFunctionType, types.FunctionType)) or \
                (isinstance(value, type) and not issubclass(value, BaseException)):
            owner = getattr(value, "__module__", None)
            if owner and owner != module.__name__ and not is_project_module(owner):
                if isinstance(value, type) and _is_plain_data(value):
                    continue
                namespace[name] = ExternalFunction(_qualname(value), value)
        elif _is_external_instance(value, is_project_module):
            if callable(value):
                # `from urllib.parse import urlsplit` (an `lru_cache` wrapper), a
                # `functools.partial`: calling it is an external call.
                named = getattr(value, "__qualname__", None) is not None
                namespace[name] = ExternalFunction(
                    _qualname(value if named else type(value)), value)
            else:
                # `log = logging.getLogger(__name__)`, `PATTERN = re.compile(...)`: their
                # method calls are external calls too.
                namespace[name] = ExternalObject(_qualname(type(value)), value)


def wraps_project_function(value, is_project_module):
    """Whether `value` is a wrapper (`functools.wraps`, `lru_cache`) of a function whose code is
    the project's."""
    seen = 0
    inner = value
    while seen < 100:
        try:
            inner = inner.__wrapped__
        except AttributeError:
            break
        except Exception:  # a proxy or a lazy object whose attributes raise: not a wrapper
            return False
        seen += 1
    if seen == 0 or not isinstance(inner, types.FunctionType):
        return False
    return is_project_module(inner.__module__)


def caches_of(namespace, seen=None):
    """The `functools.lru_cache` wrappers among a module's or a class's attributes (methods
    included), so that each execution starts with empty caches. Each class is visited once:
    classes of a module may name each other (`Environment.template_class = Template`,
    `Template.environment_class = Environment`)."""
    seen = set() if seen is None else seen
    out = []
    for value in list(namespace.values()):
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, _LRU_WRAPPER):
            if id(value) not in seen:
                seen.add(id(value))
                out.append(value)
        elif isinstance(value, type) and value.__module__ == namespace.get("__name__") \
                and id(value) not in seen:
            seen.add(id(value))
            out.extend(caches_of(dict(vars(value), __name__=value.__module__), seen))
    return out


_LRU_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))


def _is_external_instance(value, is_project_module):
    cls = type(value)
    module = getattr(cls, "__module__", "builtins")
    if module in ("builtins", "typing", "typing_extensions", "enum", "abc", "collections",
                  "dataclasses", "decimal", "fractions", "datetime", "pathlib", "uuid"):
        return False
    if isinstance(value, (type, types.ModuleType, BaseException, enum.Enum, types.FunctionType,
                          types.BuiltinFunctionType, types.MethodType, staticmethod,
                          classmethod, property)):
        return False
    return not is_project_module(module)


def _is_plain_data(cls):
    """Typing constructs, enums and dataclass-like helpers imported for annotations."""
    module = getattr(cls, "__module__", "")
    return module in ("typing", "typing_extensions", "enum", "abc", "collections.abc",
                      "dataclasses", "numbers")


# -- mocks ----------------------------------------------------------------------------------

_active_mocks = {}


class Mock:
    """A mocked external function: its n-th call returns the n-th value given (the last one
    repeats), and is recorded as an external call whose return symbol is that value's own.
    Each value comes with its symbol name and, for an object of code the agent does not follow
    (a `datetime`), the constructor's parameter names: its attributes become symbols."""

    def __init__(self, name, values):
        self._name = name
        self._values = list(values)
        self._calls = 0

    def __call__(self, *args, **kwargs):
        value, sym, init = (self._values[min(self._calls, len(self._values) - 1)]
                            if self._values else (None, None, None))
        self._calls += 1
        rec = recorder.current()
        if rec is not None:
            n = rec.external_call(self._name, _arg_vars(args, kwargs), depth=2)
            sort = _SORTS.get(type(concrete(value)))
            rec.external_return(n, repr(concrete(value))[:200], sort)
            event = rec.events[-1]
            event["mocked"] = True
            if isinstance(value, Sym) and isinstance(value._e, list) and value._e[:1] == ["var"]:
                event["ret_var"] = value._e[1]
            elif sym is not None and value is not None and not isinstance(value, Sym):
                event["ret_var"] = sym
        if init is not None and sym is not None:
            return ReturnedObject(value, sym, init)
        return value


def install_mocks(mocks):
    """Makes each mocked callee (by the dotted name project code calls it through, such as
    `os.path.exists` or `datetime.datetime.now`) answer with its values; returns a function
    that undoes it. Nothing is patched: external calls from project code go through
    `call_external`, which asks for the mock by name, so the agent and the standard library
    keep the real functions."""
    for target, values in mocks:
        _active_mocks[target] = Mock(target, values)

    def restore():
        _active_mocks.clear()
    return restore
