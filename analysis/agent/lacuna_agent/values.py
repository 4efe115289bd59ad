"""Decoding value trees (the inputs the generator chose) into Python values: scalars,
containers, iterators over chosen items, enum members, instances built through their
constructors and method calls, objects made by factories of the project's guidance module,
callables that return values the generator chose, and references to existing functions and
classes (`builtins:dict`). Nodes with a `sym` name become symbolic (see `objects.wrap`)."""

import datetime
import decimal
import fractions
import importlib
import math
import types
import uuid

from . import measures, objects


class InputError(Exception):
    """An input could not be built (a constructor, method or factory raised). `building`: the
    class (`module:Qual`) whose construction raised, when it was a class's; `method`: the
    method called on the new object that raised, when one did."""

    def __init__(self, message, building=None, method=None):
        super().__init__(message)
        self.building = building
        self.method = method


# The callables built for the execution under way, by access path: how often each was called is
# reported with the execution (the next input carries one chosen value per call).
callables = {}

# The inputs by identity, with their access path: a type test on one of them names the input it
# tested.
named_inputs = {}

# Ordered standard values built for the execution under way (durations, zones, naive dates and
# times) by identity, with their measure (see `measures`).
_measured = {}


class Raise:
    """A call of an input function that raises `exception` (built with one message) instead of
    returning (`{"kind": "raise"}` among a callable's returns)."""

    __slots__ = ("exception",)

    def __init__(self, exception):
        self.exception = exception


def _exception(name):
    """The exception class `module:Qual.name` names (a built-in, or a name the module binds);
    `Exception` when none is given. One that cannot be found or built is an `InputError`: the
    input is not run, rather than run raising something else."""
    if not name:
        return Exception("raised by a generated input")
    try:
        cls = resolve(name)
    except (ImportError, AttributeError) as e:
        raise InputError("the exception %s cannot be found: %s" % (name, e)) from e
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise InputError("%s is not an exception class" % name)
    try:
        return cls("raised by a generated input")
    except Exception as e:
        raise InputError("the exception %s cannot be built with a message: %s: %s"
                         % (name, type(e).__name__, e)) from e


class InputFunction:
    """A callable input: its n-th call returns the n-th value the generator chose (the last one
    repeats), whatever it is called with, or raises the exception the generator chose for that
    call."""

    __slots__ = ("_values", "calls", "__name__", "__qualname__")

    def __init__(self, name, values):
        self._values = list(values)
        self.calls = 0
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        value = self._values[min(self.calls, len(self._values) - 1)] if self._values else None
        self.calls += 1
        if isinstance(value, Raise):
            raise value.exception
        return value

    def __repr__(self):
        return "<input function %s>" % self.__name__


def clear():
    """Forgets the previous execution's inputs."""
    callables.clear()
    named_inputs.clear()
    _measured.clear()


def resolve(name):
    """`package.module:Qual.name` → the object."""
    module_name, _, qualname = name.partition(":")
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        if part:
            obj = getattr(obj, part)
    return obj


def decode(tree, is_project_object):
    value = _decode(tree, is_project_object)
    name = tree.get("sym")
    if name is not None and tree.get("kind") == "object" and type(value) in _VALUE_TYPES:
        return _reading_arguments(value, tree, name)
    if name is not None:
        value = objects.wrap(value, name, is_project_object,
                             any_length=tree.get("kind") == "tuple-of")
    if tree.get("kind") == "iterator":
        # Over the (symbolic) list of its items: each `next()` records whether the length
        # exceeds the items taken so far, so the solver can ask for an empty or a longer one.
        value = iter(value)
    elif tree.get("kind") == "async-iterator":
        # The same, each step awaited: an asynchronous generator over the list.
        value = _async_items(value)
    if name is not None and value is not None and type(value) is not bool:
        named_inputs[id(value)] = (value, name)
    return value


async def _async_items(items):
    """An asynchronous iterator over `items`, as emitted tests write one."""
    for item in items:
        yield item


# Standard value types whose attributes are their constructor's arguments unchanged
# (`date(y, m, d).day == d`): an input of one reads each argument's symbol.
# (And a zone at a fixed offset: its `utcoffset()` lasts what its offset's arguments say.)
_VALUE_TYPES = (datetime.date, datetime.datetime, datetime.time, datetime.timedelta, uuid.UUID,
                datetime.timezone)


def _reading_arguments(value, tree, name):
    """The value type input `value`, built from `tree`, as a proxy whose attributes named like
    a constructor argument are that argument's symbol (`when.__init__.day`)."""
    from .interpose import ReturnedObject

    prefix = name + ".__init__."
    params = [a["sym"][len(prefix):] for a in tree.get("args", [])
              if str(a.get("sym", "")).startswith(prefix)]
    built, measure = _measured.pop(id(value), (None, None))
    return ReturnedObject(value, name, {p: p for p in params},
                          measure if built is value else None)


def _float(v):
    if isinstance(v, str):
        return float(v)  # "inf", "-inf", "nan"
    return float(v)


def _decode(tree, is_project_object):
    kind = tree.get("kind")
    sub = lambda t: decode(t, is_project_object)  # noqa: E731
    if kind == "int":
        return int(tree["value"])
    if kind == "bool":
        return bool(tree["value"])
    if kind == "str":
        return str(tree["value"])
    if kind == "float":
        return _float(tree["value"])
    if kind == "none":
        return None
    if kind == "bytes":
        return str(tree["value"]).encode("utf-8", "surrogateescape")
    if kind == "callable":
        name = tree.get("sym") or "function"
        function = InputFunction(name, [sub(t) for t in tree.get("returns", [])])
        callables[name] = function
        return function
    if kind == "raise":
        return Raise(_exception(tree.get("exception")))
    if kind == "ref":
        try:
            return resolve(tree["name"])
        except (ImportError, AttributeError) as e:
            raise InputError("%s cannot be found: %s" % (tree["name"], e)) from e
    if kind == "list":
        return [sub(t) for t in tree.get("items", [])]
    if kind in ("tuple", "tuple-of"):
        return tuple(sub(t) for t in tree.get("items", []))
    if kind == "set":
        return set(sub(t) for t in tree.get("items", []))
    if kind in ("iterator", "async-iterator"):
        # Its items; `decode` makes the iterator over them.
        return [sub(t) for t in tree.get("items", [])]
    if kind == "dict":
        return {_key(sub(k)): sub(v) for k, v in tree.get("items", [])}
    if kind == "enum":
        cls = resolve(tree["class"])
        return cls[tree["member"]]
    if kind in ("object", "factory"):
        target = resolve(tree["class"] if kind == "object" else tree["function"])
        args = [sub(t) for t in tree.get("args", [])]
        kwargs = {k: sub(t) for k, t in tree.get("kwargs", {}).items()}
        from .interpose import measure_of, unwrap_object

        measure = measures.built(target, args, kwargs, lambda a: measure_of(a)[1])
        if _built_in_c(target):
            # C code checks the exact type of what it is given (`timezone(offset)` takes a
            # `timedelta`, not the proxy that reads a value type's arguments); symbolic numbers
            # stay symbolic (they are `int`s and `float`s to C code).
            args = [unwrap_object(a) for a in args]
            kwargs = {k: unwrap_object(a) for k, a in kwargs.items()}
        try:
            obj = target(*args, **kwargs)
        except Exception as e:
            raise InputError("%s(...) raised %s: %s" % (tree.get("class") or tree.get("function"),
                                                        type(e).__name__, e),
                             building=tree.get("class") if kind == "object" else None) from e
        if measure is not None:
            _measured[id(obj)] = (obj, measure)
        if kwargs:
            _keep_symbols(obj, kwargs)
        for call in tree.get("calls", []):
            method = getattr(obj, call["method"])
            cargs = [sub(t) for t in call.get("args", [])]
            ckwargs = {k: sub(t) for k, t in call.get("kwargs", {}).items()}
            try:
                method(*cargs, **ckwargs)
            except Exception as e:
                raise InputError("%s(...) raised %s: %s" % (call["method"], type(e).__name__, e),
                                 building=tree.get("class"), method=call["method"]) from e
        return obj
    raise InputError("unknown value kind %r" % (kind,))


def _built_in_c(target):
    """Whether `target` is a class whose constructor is C code (`datetime.timezone`): neither
    its `__new__` nor its `__init__` is a Python function."""
    return isinstance(target, type) and not any(
        isinstance(getattr(target, m, None), types.FunctionType) for m in ("__new__", "__init__"))


def _keep_symbols(obj, kwargs):
    """A class that declares its signature for a library's `__init__` (a pydantic model's takes
    `**data`) stores validated copies of its arguments, plain `int`s and `str`s: where a stored
    field equals the symbolic argument the input gave for it, it becomes that argument again, so
    that conditions on the field stay symbolic. Nothing else changes: the values are equal and
    of the same type as far as project code can tell."""
    from .describe import declared_signature
    from .sym import Sym, concrete

    if declared_signature(type(obj)) is None:
        return
    try:
        fields = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return
    if type(fields) is not dict:
        return
    for name, arg in kwargs.items():
        if not isinstance(arg, Sym) or name not in fields:
            continue
        stored, value = fields[name], concrete(arg)
        if type(stored) is type(value) and stored == value:
            fields[name] = arg


def _key(value):
    from .sym import concrete
    return concrete(value)


# Bounds of a literal tree (the Rust side checks them again): deeper, larger or longer values
# get no literal, and their test asserts the type's name only.
MAX_DEPTH = 20
MAX_NODES = 1000
MAX_TEXT = 10000
MAX_DIGITS = 4300


class _TooBig(Exception):
    pass


def literal(value):
    """The value as a typed tree of literals (`{"kind": "int", "value": "12"}`, containers
    with `items`, bytes as `hex`), when it is made of the builtin literal types only (never a
    subclass: its `repr` and `==` are user code), within bounds; else None. Lacuna renders the
    Python text itself."""
    try:
        return _literal(value, 0, [0])
    except (_TooBig, RecursionError):
        return None


def _literal(value, depth, nodes):
    from .sym import concrete

    nodes[0] += 1
    if depth > MAX_DEPTH or nodes[0] > MAX_NODES:
        raise _TooBig()
    value = concrete(value)
    t = type(value)
    if value is None:
        return {"kind": "none"}
    if t is bool:
        return {"kind": "bool", "value": value}
    if t is int:
        # Counted before converting: CPython refuses to print huge ints anyway.
        if value.bit_length() > MAX_DIGITS * 3:
            raise _TooBig()
        text = int.__repr__(value)
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise _TooBig()
        return {"kind": "int", "value": text}
    if t is float:
        if math.isnan(value):
            return {"kind": "float", "value": "nan"}
        if math.isinf(value):
            return {"kind": "float", "value": "inf" if value > 0 else "-inf"}
        return {"kind": "float", "value": value}
    if t is str:
        if len(value) > MAX_TEXT:
            raise _TooBig()
        try:
            str.encode(value, "utf-8")
        except UnicodeEncodeError:  # lone surrogates: not representable in the protocol
            return None
        return {"kind": "str", "value": value}
    if t is bytes:
        if len(value) > MAX_TEXT:
            raise _TooBig()
        return {"kind": "bytes", "hex": bytes.hex(value)}
    kinds = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}
    if t in kinds:
        items = []
        for v in list.__iter__(value) if t is list else iter(value):
            item = _literal(v, depth + 1, nodes)
            if item is None:
                return None
            items.append(item)
        return {"kind": kinds[t], "items": items}
    if t is dict:
        items = []
        for k, v in dict.items(value):
            lk, lv = _literal(k, depth + 1, nodes), _literal(v, depth + 1, nodes)
            if lk is None or lv is None:
                return None
            items.append([lk, lv])
        return {"kind": "dict", "items": items}
    return None


# Standard-library value types whose state is public: each exact type (never a subclass, whose
# attributes could be user code) with its constructor's name and the attributes that rebuild it,
# read through the types' own C getters (or the `fractions` module's properties).
STD_VALUES = {
    datetime.date: ("datetime.date", ("year", "month", "day")),
    datetime.datetime: ("datetime.datetime",
                        ("year", "month", "day", "hour", "minute", "second", "microsecond")),
    datetime.time: ("datetime.time", ("hour", "minute", "second", "microsecond")),
    datetime.timedelta: ("datetime.timedelta", ("days", "seconds", "microseconds")),
    fractions.Fraction: ("fractions.Fraction", ("numerator", "denominator")),
    complex: ("complex", ("real", "imag")),
}


def std_value(value):
    """A standard-library value (a date, a time, a duration, a `Decimal`, a `Fraction`, a
    complex number) as the constructor call that rebuilds an equal one, its arguments literal
    trees: `{"kind": "std", "class": "datetime.date", "args": [...]}`, an aware datetime with its
    offset from UTC in whole seconds (`"utcoffset": -18000`: rebuilt at a fixed-offset zone,
    which names the same instant); None for anything else, for an aware time or an offset
    within a second, and for values equal to nothing (NaN)."""
    t = type(value)
    try:
        if t is decimal.Decimal:
            if not decimal.Decimal.is_finite(value):
                return None
            args = [literal(decimal.Decimal.__str__(value))]
            return {"kind": "std", "class": "decimal.Decimal", "args": args}
        known = STD_VALUES.get(t)
        if known is None:
            return None
        name, attributes = known
        offset = None
        if getattr(value, "tzinfo", None) is not None:
            # An aware datetime: rebuilt at a zone of its offset (equal: the same instant).
            # Only a `timezone`'s offset is read: another zone's `utcoffset` may be user code.
            delta = value.utcoffset() if t is datetime.datetime \
                and type(value.tzinfo) is datetime.timezone else None
            if type(delta) is not datetime.timedelta or delta % _SECOND \
                    or abs(delta) >= datetime.timedelta(days=1):
                return None
            offset = delta // _SECOND
        args = [literal(getattr(value, a)) for a in attributes]
    except Exception:
        return None
    if any(a is None for a in args) or (t is complex and value != value):
        return None
    out = {"kind": "std", "class": name, "args": args}
    if offset is not None:
        out["utcoffset"] = offset
    return out


_SECOND = datetime.timedelta(seconds=1)


def assertable(value):
    """The value as an emitted test can assert it: a literal tree, a standard-library value,
    else None."""
    from .interpose import unwrap
    from .sym import concrete

    value = concrete(unwrap(value))
    out = literal(value)
    return out if out is not None else std_value(value)


FIELDS = 8  # public fields of a returned object asserted


def instance_fields(value):
    """An object's fields, read without its code (neither `__getattribute__` nor a property of
    its class is called): its instance dictionary's items, then the slots its classes declare
    that are set (`__slots__`, as `@attrs.define` and `@dataclass(slots=True)` make them), read
    through their member descriptors. None when it has neither."""
    try:
        fields = object.__getattribute__(value, "__dict__")
    except Exception:
        fields = None
    out = dict(fields) if type(fields) is dict else None
    try:
        mro = type.__getattribute__(type(value), "__mro__")
    except Exception:
        return out
    for cls in mro:
        own = type.__getattribute__(cls, "__dict__")
        slots = own.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for name in tuple(slots) if isinstance(slots, (tuple, list)) else ():
            if type(name) is not str or name in ("__dict__", "__weakref__"):
                continue
            stored = name
            if name.startswith("__") and not name.endswith("__"):
                stored = "_%s%s" % (cls.__name__.lstrip("_"), name)
            descriptor = own.get(stored)
            if type(descriptor) is not types.MemberDescriptorType:
                continue
            try:
                field = descriptor.__get__(value, type(value))
            except AttributeError:
                continue  # declared, never set
            if out is None:
                out = {}
            out.setdefault(stored, field)
    return out


def public_fields(value):
    """The public fields of an object (its instance dictionary's and its slots' names that do
    not start with `_`, at most `FIELDS`) whose values an emitted test can assert, as
    `[name, tree]` pairs, read without calling its code; None when it has neither."""
    fields = instance_fields(value)
    if fields is None:
        return None
    out = []
    for name, field in list(dict.items(fields)):
        if len(out) >= FIELDS:
            break
        if type(name) is not str or name.startswith("_") or not name.isidentifier():
            continue
        tree = assertable(field)
        if tree is not None:
            out.append([name, tree])
    return out
