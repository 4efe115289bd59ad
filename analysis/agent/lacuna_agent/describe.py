"""Signatures at run time: the parameters of a function with their annotations resolved into
type trees, so the generator knows which inputs to build (`Optional[int]`, `List[Item]`, an
`Enum`, a project class and its constructor)."""

import ast
import collections
import collections.abc
import dataclasses
import datetime
import decimal
import enum
import fractions
import functools
import importlib
import importlib.util
import inspect
import io
import os
import pathlib
import re
import sys
import textwrap
import types
import typing
import urllib.response
import uuid

MAX_DEPTH = 3


def _name(cls):
    module = cls.__module__
    # A class of a C accelerator module by its public module's name (`_io` → `io`).
    if module.startswith("_") and not module.startswith("__"):
        public = sys.modules.get(module[1:])
        if public is not None and getattr(public, cls.__qualname__, None) is cls:
            module = module[1:]
    return "%s:%s" % (module, bound_name(module, cls))


@functools.lru_cache(maxsize=None)
def bound_name(module, cls):
    """The name `cls` can be imported by from `module`: its qualname, or, for a class its module
    binds under another name (`shutil.usage` is `shutil._ntuple_diskusage`), that name."""
    found = sys.modules.get(module)
    qualname = getattr(cls, "__qualname__", None) or getattr(cls, "__name__", "")
    if found is None:
        return qualname
    obj = found
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if obj is cls:
        return qualname
    names = sorted((n for n, v in vars(found).items() if v is cls),
                   key=lambda n: (n.startswith("_"), n))
    return names[0] if names else qualname


# Field types of standard-library named tuples that do not annotate them.
_NAMED_TUPLE_FIELDS = {
    "shutil:usage": ("int", {"min": 0}),
    "platform:uname_result": ("str", None),
    "os:terminal_size": ("int", {"min": 0}),
}


def _named_tuple_init(t, is_project_class=lambda _: False, depth=0):
    """A named tuple's constructor parameters: its fields (from `__new__`: its `__init__` is
    `tuple`'s), typed by its annotations or the table above (`shutil.disk_usage()` returns
    `usage(total, used, free)`, three sizes)."""
    if not (isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")):
        return None
    try:
        params = list(inspect.signature(t).parameters)
    except (TypeError, ValueError):
        params = list(t._fields)
    try:
        hints = typing.get_type_hints(t)
    except Exception:
        hints = getattr(t, "__annotations__", {}) or {}
    kind, domain = _NAMED_TUPLE_FIELDS.get("%s:%s" % (t.__module__, t.__qualname__), ("any", None))
    init = []
    for name in params:
        hint = hints.get(name)
        tree = type_tree(hint, is_project_class, depth) if hint is not None else {"kind": kind}
        param = {"name": name, "kind": "positional_or_keyword", "type": tree}
        if hint is None and domain is not None:
            param["domain"] = domain
        init.append(param)
    return init


# Abstract collections and the concrete ones a value of them is built as (several when the
# abstract one admits several: an `Iterable` is tried as a list and as a set).
_ABSTRACT = {
    collections.abc.Iterable: ("list", "set"),
    collections.abc.Collection: ("list", "set"),
    collections.abc.Reversible: ("list",),
    collections.abc.Sequence: ("list", "tuple"),
    collections.abc.MutableSequence: ("list",),
    collections.abc.Set: ("set", "frozenset"),
    collections.abc.MutableSet: ("set",),
    collections.abc.Mapping: ("dict",),
    collections.abc.MutableMapping: ("dict",),
}


# Abstract iterators: a value of one is built as an iterator over a list of chosen values.
_ITERATORS = (collections.abc.Iterator, collections.abc.Generator)
_ASYNC_ITERATORS = (collections.abc.AsyncIterator, collections.abc.AsyncIterable,
                    collections.abc.AsyncGenerator)


def _abstract(t, origin, args, sub):
    """The tree of an abstract collection (`Iterable[int]`, `Mapping[str, int]`, bare
    `Sequence`), or None."""
    kinds = _ABSTRACT.get(origin if origin is not None else t)
    if kinds is None:
        return None
    trees = []
    for kind in kinds:
        if kind == "dict":
            trees.append({"kind": "dict", "key": sub(args[0]) if args else {"kind": "str"},
                          "value": sub(args[1]) if len(args) > 1 else {"kind": "any"}})
        else:
            of = sub(args[0]) if args else {"kind": "int"}
            # A sequence tried as a tuple is a variable-length one (`tuple_of`): built as a
            # list's items are, passed as a tuple.
            trees.append({"kind": {"set": "set", "frozenset": "set", "tuple": "tuple_of"}.get(
                kind, "list"), "of": of})
    unique = []
    for tree in trees:
        if tree not in unique:
            unique.append(tree)
    return unique[0] if len(unique) == 1 else {"kind": "union", "of": unique}


def _subclasses(cls, is_project_class):
    """`cls` and the project's subclasses of it, breadth first."""
    out, queue = [], [cls]
    while queue and len(out) < 8:
        c = queue.pop(0)
        if c in out:
            continue
        if c is cls or is_project_class(c):
            out.append(c)
        try:
            queue.extend(type.__subclasses__(c))
        except TypeError:
            pass
    return out


def _concrete_subclasses(cls, is_project_class):
    """The project's subclasses of `cls` that can be instantiated (no abstract method left),
    breadth first."""
    return [c for c in _subclasses(cls, is_project_class)[1:] if not inspect.isabstract(c)]


def _one_of(classes, is_project_class, depth):
    """The description of one of `classes`: the class's own, or a union of theirs."""
    found = [describe_class(c, is_project_class, depth + 1) for c in classes]
    return found[0] if len(found) == 1 else {"kind": "union", "of": found}


def _unwrapped(t):
    """The class behind the agent's call-recording wrapper of it (a class of another module
    reaching an annotation through the module's globals)."""
    from .interpose import ExternalFunction

    if isinstance(t, ExternalFunction):
        return object.__getattribute__(t, "_target")
    return t


def _unread(t, why=None):
    """An annotation the generator cannot build a value for: "any", saying which and why."""
    try:
        text = t if isinstance(t, str) else getattr(t, "__qualname__", None) or repr(t)
    except Exception:
        text = "<annotation>"
    return {"kind": "any", "unread": str(text)[:200] + (" (%s)" % why if why else "")}


def type_tree(t, is_project_class, depth=0):
    from .interpose import real_type

    if isinstance(t, _Unresolved):
        return _unread(t.text, t.why)
    t = real_type(_unwrapped(t))
    if t is inspect.Parameter.empty or t is typing.Any or t is object:
        return {"kind": "any"}
    if t is None or t is type(None):
        return {"kind": "none"}
    for prim, kind in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"),
                       (bytes, "bytes")):
        if t is prim:
            return {"kind": kind}
    if depth > MAX_DEPTH:
        return {"kind": "any"}
    origin = typing.get_origin(t)
    args = typing.get_args(t)
    sub = lambda x: type_tree(x, is_project_class, depth + 1)  # noqa: E731
    if origin is typing.Annotated:
        return type_tree(t.__origin__, is_project_class, depth)
    if isinstance(t, typing.TypeVar):
        # A bound: a value of the bound (or a subclass); constraints: one of them.
        if t.__bound__ is not None:
            return type_tree(t.__bound__, is_project_class, depth)
        if t.__constraints__:
            return {"kind": "union", "of": [sub(c) for c in t.__constraints__]}
        return {"kind": "any"}
    supertype = getattr(t, "__supertype__", None)
    if supertype is not None and callable(t):
        # `NewType("UserId", int)`: a value of the type it is made from.
        return type_tree(supertype, is_project_class, depth)
    if isinstance(t, typing.ForwardRef) or isinstance(t, str):
        return _unread(getattr(t, "__forward_arg__", t), "not resolved")
    if origin is type or origin is typing.Type:
        classes = [real_type(_unwrapped(a)) for a in args] or [object]
        if len(classes) == 1 and typing.get_origin(classes[0]) is typing.Union:
            classes = list(typing.get_args(classes[0]))
        names = []
        for c in classes:
            if not isinstance(c, type) or c is object:
                return {"kind": "callable", "returns": {"kind": "any"}}
            names.extend(_name(k) for k in _subclasses(c, is_project_class))
        return {"kind": "type", "classes": names}
    if t is callable or t is typing.Callable or t is collections.abc.Callable:
        return {"kind": "callable", "returns": {"kind": "any"}}
    if origin is collections.abc.Callable:
        # `Callable[[int], bool]`: args are ([int], bool); `Callable[..., bool]`: (..., bool).
        returns = sub(args[-1]) if args else {"kind": "any"}
        return {"kind": "callable", "returns": returns}
    if origin is typing.Union or (sys.version_info >= (3, 10) and _is_union_type(t)):
        members = [a for a in args if a is not type(None)]
        if len(members) < len(args):
            inner = sub(members[0]) if len(members) == 1 else \
                {"kind": "union", "of": [sub(a) for a in members]}
            return {"kind": "optional", "of": inner}
        return {"kind": "union", "of": [sub(a) for a in members]}
    if origin is typing.Literal:
        return _literal(args)
    if any((origin if origin is not None else t) is i for i in _ITERATORS):
        # `Iterator[int]`, `Generator[int, None, None]`: an iterator over values of the first
        # argument, which `next()` consumes (a list is no iterator: `next([])` raises).
        return {"kind": "iterator", "of": sub(args[0]) if args else {"kind": "any"}}
    if any((origin if origin is not None else t) is i for i in _ASYNC_ITERATORS):
        # `AsyncIterator[int]`, `AsyncIterable[int]`, `AsyncGenerator[int, None]`: an
        # asynchronous generator over values of the first argument.
        return {"kind": "async_iterator", "of": sub(args[0]) if args else {"kind": "any"}}
    abstract = _abstract(t, origin, args, sub)
    if abstract is not None:
        return abstract
    if origin in (list, typing.List, set, frozenset) or t in (list, set, frozenset):
        kind = "set" if origin in (set, frozenset) or t in (set, frozenset) else "list"
        return {"kind": kind, "of": sub(args[0]) if args else {"kind": "any"}}
    if origin in (tuple, typing.Tuple) or t is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            # `tuple[str, ...]`: any length, built as a list's items are, passed as a tuple
            # (`header + key[:-1]` of two such keys needs both to be tuples).
            return {"kind": "tuple_of", "of": sub(args[0])}
        return {"kind": "tuple", "items": [sub(a) for a in args]}
    if origin in (dict, typing.Dict) or t is dict:
        return {"kind": "dict", "key": sub(args[0]) if args else {"kind": "str"},
                "value": sub(args[1]) if len(args) > 1 else {"kind": "any"}}
    if isinstance(t, type) and issubclass(t, enum.Enum):
        return {"kind": "enum", "class": _name(t), "members": [m.name for m in t]}
    if isinstance(t, type) and _is_typeddict(t):
        return _typeddict(t, is_project_class, depth + 1)
    if isinstance(t, type) and getattr(t, "_is_protocol", False) and t is not typing.Protocol:
        # A protocol: the project's classes that implement it, one of them.
        classes = _implementations(t, is_project_class)
        if not classes:
            return _unread(t, "no class of the project implements it")
        return _one_of(classes, is_project_class, depth)
    if isinstance(t, type) and is_project_class(t) and inspect.isabstract(t):
        # An abstract class (`stop_base`): the project's concrete subclasses of it, one of them.
        return _one_of(_concrete_subclasses(t, is_project_class)[:_MAX_KINDS] or [t],
                       is_project_class, depth)
    if isinstance(t, type) and is_project_class(t):
        return describe_class(t, is_project_class, depth + 1)
    if t is datetime.tzinfo:
        # The abstract zone: one at a fixed offset, the zone the standard library builds.
        return _TIMEZONE
    if isinstance(t, type):
        if _value_type_init(t) is not None:
            return _value_type(t)
        return {"kind": "class", "class": _name(t), "external": True}
    return _unread(t, "not a type the generator builds")


def _implementations(protocol, is_project_class):
    """Up to three concrete classes of the loaded project modules that have every member
    `protocol` declares (structurally, as a type checker reads it), by name."""
    try:
        members = set(getattr(protocol, "__protocol_attrs__", None)
                      or typing._get_protocol_attrs(protocol))
    except Exception:
        return []
    out = []
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            if not isinstance(value, type) or value in out or value is protocol \
                    or getattr(value, "_is_protocol", False) or not is_project_class(value) \
                    or inspect.isabstract(value) or getattr(value, "__module__", None) \
                    != getattr(module, "__name__", None):
                continue
            if all(hasattr(value, m) for m in members):
                out.append(value)
    return sorted(out, key=lambda c: (c.__module__, c.__qualname__))[:3]


def _is_typeddict(t):
    is_typeddict = getattr(typing, "is_typeddict", None)
    if is_typeddict is not None:
        return is_typeddict(t)
    return issubclass(t, dict) and hasattr(t, "__total__") and hasattr(t, "__annotations__")


def _typeddict(t, is_project_class, depth):
    """A `TypedDict` as its class called with one keyword argument per key (which makes the
    plain `dict` it describes)."""
    try:
        hints = typing.get_type_hints(t)
    except Exception:
        hints = dict(getattr(t, "__annotations__", {}))
    init = [{"name": name, "kind": "keyword_only",
             "type": type_tree(hint, is_project_class, depth)}
            for name, hint in hints.items() if name.isidentifier()]
    return {"kind": "class", "class": _name(t), "init": init, "methods": []}


def _value_type_init(t):
    """Constructor parameters of the standard library's value types whose attributes are their
    constructor's parameters (`datetime(2024, 1, 1, hour=9).hour == 9`), with defaults that
    make a valid value (a `UUID` by its hex digits, `UUID(hex).hex == hex`); of in-memory files,
    the text or bytes a mocked `open` returns; and of an HTTP response as `urlopen` returns it
    (`addinfourl`: a status code, a body read from memory). A parameter outside its `domain`
    makes the constructor raise (`hour=24`), or stands for no real value (status 42), so the
    generator keeps to it."""
    year = ("year", 2024, {"min": 1, "max": 9999})
    month = ("month", 1, {"min": 1, "max": 12})
    # Any day of the month: the solver keeps it within the month's length, leap years
    # included (`day_of`: the year and month arguments it depends on).
    day = ("day", 1, {"min": 1, "max": 31, "day_of": ["year", "month"]})
    hour = ("hour", 12, {"min": 0, "max": 23})
    minute = ("minute", 0, {"min": 0, "max": 59})
    second = ("second", 0, {"min": 0, "max": 59})
    microsecond = ("microsecond", 0, {"min": 0, "max": 999999})
    days = ("days", 0, {"min": -999999999, "max": 999999999})
    # Naive by default; aware at a fixed offset when the generator chooses a zone.
    tzinfo = ("tzinfo", {"kind": "union", "of": [{"kind": "none"}, _TIMEZONE]}, None)
    fields = {
        datetime.datetime: (year, month, day, hour, minute, second, microsecond, tzinfo),
        datetime.date: (year, month, day),
        datetime.time: (hour, minute, second, microsecond, tzinfo),
        datetime.timedelta: (days, ("seconds", 0, {"min": 0, "max": 86399}),
                             ("microseconds", 0, {"min": 0, "max": 999999})),
        # A fixed offset from UTC, strictly within a day, in whole minutes (what ISO 8601 and
        # RFC 3339 write): `timezone(timedelta(minutes=-300))`.
        datetime.timezone: _TIMEZONE["init"],
        # Built from an integer: never a float's binary expansion in an emitted test.
        decimal.Decimal: (("value", 0, None),),
        fractions.Fraction: (("numerator", 0, None), ("denominator", 1, {"min": 1})),
        pathlib.Path: (("path", "", None),),
        # Kinds of values an unannotated parameter may be tested for or used as.
        slice: (("start", 0, None), ("stop", 1, None)),
        collections.OrderedDict: (("mapping", _STR_INTS, None),),
        collections.defaultdict: (("default_factory", {"kind": "type",
                                                       "classes": ["builtins:int"]}, None),
                                  ("mapping", _STR_INTS, None)),
        # From a mapping of counts: `counter["a"]` is the count the generator chose.
        collections.Counter: (("mapping", _STR_INTS, None),),
        collections.deque: (("iterable", {"kind": "list", "of": {"kind": "int"}}, None),),
        pathlib.PurePath: (("path", "", None),),
        io.StringIO: (("initial_value", "", None),),
        io.BytesIO: (("initial_bytes", b"", None),),
        uuid.UUID: (("hex", "0" * 32, {"length": 32, "alphabet": "0123456789abcdef"}),),
        urllib.response.addinfourl: (
            ("fp", io.BytesIO, None),
            ("headers", {"kind": "dict", "key": {"kind": "str"}, "value": {"kind": "str"}}, None),
            ("url", "", None),
            ("code", 200, {"min": 100, "max": 599}),
        ),
        # Built from its ten integer fields; `st_size` reads the seventh (`ATTRIBUTES`).
        os.stat_result: (
            ("sequence", {"kind": "tuple", "items": [{"kind": "int"}] * len(_STAT_FIELDS)}, None),
        ),
    }.get(t)
    if fields is None:
        return _named_tuple_init(t)
    if fields and isinstance(fields[0], dict):
        return list(fields)
    init = []
    for name, default, domain in fields:
        param = {"name": name, "kind": "positional_or_keyword"}
        if isinstance(default, type):
            # Another value type, built through its own constructor.
            param["type"] = _value_type(default)
        elif isinstance(default, dict):
            # A parameter with no literal default: its type tree.
            param["type"] = default
        else:
            param["type"] = {"kind": type(default).__name__}
            param["default"] = repr(default)
        if domain is not None:
            param["domain"] = domain
        init.append(param)
    return init


_STR_INTS = {"kind": "dict", "key": {"kind": "str"}, "value": {"kind": "int"}}

# The offset of a `datetime.timezone`: a duration in whole minutes, strictly within a day.
_UTC_OFFSET = {"kind": "class", "class": "datetime:timedelta", "methods": [], "init": [
    {"name": "minutes", "kind": "keyword_only", "type": {"kind": "int"}, "default": "0",
     "domain": {"min": -1439, "max": 1439}}]}
_TIMEZONE = {"kind": "class", "class": "datetime:timezone", "methods": [], "init": [
    {"name": "offset", "kind": "positional_or_keyword", "type": _UTC_OFFSET}]}

# `os.stat_result`'s fields, in the order its constructor takes them.
_STAT_FIELDS = ("st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size",
                "st_atime", "st_mtime", "st_ctime")


def attributes(t):
    """The attributes of a value type that read a constructor argument under another name, as
    the argument's path relative to `__init__` (`os.stat_result(seq).st_size` is `seq[6]`); an
    attribute named like a constructor parameter reads that parameter."""
    if t is os.stat_result:
        return {name: "sequence[%d]" % i for i, name in enumerate(_STAT_FIELDS)}
    return {}


def _value_type(t):
    return {"kind": "class", "class": _name(t), "init": _value_type_init(t), "methods": []}


def annotation(func, name="return"):
    """The annotation `name` of `func`, resolved; a string annotation the module's globals
    cannot resolve (`"datetime.datetime"` without `import datetime`) is evaluated with the
    typing names and modules imported on demand."""
    try:
        return typing.get_type_hints(func).get(name, inspect.Parameter.empty)
    except Exception:
        pass
    raw = getattr(func, "__annotations__", {}).get(name, inspect.Parameter.empty)
    if not isinstance(raw, str):
        return raw
    # `typing.io` and `typing.re` are deprecated namespaces, not the modules of those names.
    namespace = _Importing({k: v for k, v in vars(typing).items() if k not in ("io", "re")})
    _import_submodules(raw)
    try:
        return eval(raw, {"__builtins__": __builtins__}, namespace)  # the project's own text
    except Exception:
        return inspect.Parameter.empty


def _import_submodules(text):
    """Imports the submodules a dotted name of `text` goes through (`urllib.response` of
    `"urllib.response.addinfourl"`): an attribute of a package exists once it is imported."""
    for dotted in re.findall(r"[A-Za-z_][\w.]*", text):
        parts = dotted.split(".")
        for k in range(2, len(parts)):
            try:
                importlib.import_module(".".join(parts[:k]))
            except Exception:
                break


class _Importing(dict):
    """A namespace where an unknown name is the module of that name, imported."""

    def __missing__(self, key):
        try:
            return importlib.import_module(key)
        except ImportError:
            raise KeyError(key) from None


def guidance(module, is_project_class):
    """The declarations of a guidance module: mocked callees with the type of what they return,
    and factories with their parameters and the class they build."""
    mocks, factories = [], []
    for _key, member in sorted(vars(module).items()):
        if not inspect.isfunction(member) or member.__module__ != module.__name__:
            continue
        target = getattr(member, "__lacuna_mock__", None)
        if isinstance(target, str):
            mocks.append({"target": target,
                          "returns": type_tree(annotation(member), is_project_class)})
        elif getattr(member, "__lacuna_factory__", False):
            returns = annotation(member)
            if not isinstance(returns, type):
                continue
            try:
                params = parameters(member, is_project_class, 1)
            except (TypeError, ValueError):
                continue
            _refine_factory_params(params, returns, is_project_class)
            factories.append({"function": "%s:%s" % (module.__name__, member.__qualname__),
                              "class": _name(returns), "params": params})
    return {"mocks": mocks, "factories": factories}


def _refine_factory_params(params, cls, is_project_class):
    """Types for a factory's unannotated parameters, from the class it builds: a parameter
    named like a constructor parameter has its type (`customer` → `Customer`); `push_args`
    and `add_calls` — the lists of arguments the skeletons Lacuna writes take, one call of the
    method per element — hold the method's parameter types."""
    def signature(function, skip_first=True):
        try:
            return parameters(function, is_project_class, 1, skip_first=skip_first)
        except (TypeError, ValueError):
            return []

    init = {p["name"]: p["type"] for p in signature(constructor(cls))} \
        if "__init__" in vars(cls) or "__new__" in vars(cls) else {}
    for p in params:
        t = p["type"]
        if t == {"kind": "any"} and p["name"] in init:
            p["type"] = init[p["name"]]
            continue
        if t.get("kind") != "list" or t["of"] not in ({"kind": "any"}, {"kind": "tuple", "items": []}):
            continue
        for suffix in ("_args", "_calls"):
            if not p["name"].endswith(suffix):
                continue
            method = inspect.getattr_static(cls, p["name"][:-len(suffix)], None)
            # A class method takes the class first, as a method takes the instance; a static
            # method takes its arguments only.
            bound = not isinstance(method, staticmethod)
            if isinstance(method, (classmethod, staticmethod)):
                method = method.__func__
            if not inspect.isfunction(method):
                continue
            positional = [q["type"] for q in signature(method, skip_first=bound)
                          if q["kind"] in ("positional_only", "positional_or_keyword")]
            if suffix == "_args" and len(positional) == 1:
                p["type"] = {"kind": "list", "of": positional[0]}
            elif suffix == "_calls" and positional:
                p["type"] = {"kind": "list", "of": {"kind": "tuple", "items": positional}}


def _is_union_type(t):
    return isinstance(t, types.UnionType)


# Class descriptions already made, by (class, depth, modules loaded): every method of a class
# describes its receiver, and every parameter of a class's type its constructor and methods —
# the same walk over the same signatures, made once per worker. A module imported since (a
# project class that may implement a protocol) makes a new entry. Never mutated after.
_CLASSES = {}


def describe_class(cls, is_project_class, depth):
    key = (cls, depth, len(sys.modules))
    try:
        found = _CLASSES.get(key)
    except TypeError:  # an unhashable class
        return _describe_class(cls, is_project_class, depth)
    if found is None:
        found = _CLASSES[key] = _describe_class(cls, is_project_class, depth)
    return found


def constructor(cls):
    """The function whose parameters a call of `cls` takes, as `inspect.signature(cls)` finds
    it: an `__init__` a class of its MRO defines, else a `__new__` one defines (a class with
    `__slots__` that builds itself in `__new__`, `RomanNumeral(value)`)."""
    init = getattr(cls, "__init__", None)
    if init is not object.__init__:
        return init
    new = getattr(cls, "__new__", None)
    if new is not object.__new__ and inspect.isfunction(new):
        return new
    return init


def declared_signature(cls):
    """The signature a class declares for its calls (`__signature__`), as pydantic's models do:
    their `__init__` takes `**data`, their signature the fields. None for other classes."""
    try:
        signature = getattr(cls, "__signature__", None)
    except Exception:
        return None
    return signature if isinstance(signature, inspect.Signature) else None


def _field_domains(cls, init):
    """The bounds a pydantic model's fields declare (`Field(ge=0, le=150)`,
    `Field(min_length=4)`, `Annotated[int, Gt(0)]`: annotated-types constraints in each field's
    `metadata`), as the domains of its constructor's arguments: outside them the model raises
    `ValidationError`, so a value there is an input error, not a new path."""
    try:
        fields = getattr(cls, "model_fields", None)
    except Exception:
        return
    if not isinstance(fields, dict):
        return
    for param in init:
        field = fields.get(param["name"])
        kind = param["type"].get("kind")
        if kind == "optional":
            kind = param["type"].get("of", {}).get("kind")
        domain = {}
        for constraint in getattr(field, "metadata", None) or ():
            bound = _bound(constraint, kind)
            if bound is not None:
                domain.update(bound)
        if domain:
            param["domain"] = domain


def _bound(constraint, kind):
    """One annotated-types constraint as a domain's bounds, for an `int` or a `str`: every
    bound it carries (`Len(4, 8)` has two; `Interval(ge=0, le=150)` too, where pydantic keeps
    it whole), the tightest when two give the same end (`ge` and `gt`)."""
    def number(name):
        value = getattr(constraint, name, None)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    out = {}
    if kind == "int":
        for name, key, shift in (("ge", "min", 0), ("gt", "min", 1), ("le", "max", 0),
                                 ("lt", "max", -1)):
            value = number(name)
            if value is not None:
                value += shift
                tighter = max if key == "min" else min
                out[key] = tighter(out[key], value) if key in out else value
    if kind == "str":
        for name in ("min_length", "max_length"):
            value = number(name)
            if value is not None and value >= 0:
                out[name] = value
    return out or None


def _describe_class(cls, is_project_class, depth):
    init = _named_tuple_init(cls, is_project_class, depth)
    try:
        if init is None:
            declared = declared_signature(cls)
            if declared is not None:
                init = signature_parameters(declared, type_hints(cls), is_project_class, depth)
                _field_domains(cls, init)
            else:
                init = parameters(constructor(cls), is_project_class, depth, skip_first=True)
                if is_project_class(cls):
                    # `SortedList(iterable=None)`: what its constructor does with an unannotated
                    # argument says what to build it with, as for a function's parameters.
                    _kinds_from_uses(constructor(cls), init, is_project_class, depth, owner=cls)
    except (TypeError, ValueError):
        init = []
    if dataclasses.is_dataclass(cls):
        # The generated `__init__`'s annotations do not always resolve; the class's do.
        try:
            hints = typing.get_type_hints(cls)
        except Exception:
            hints = {}
        for entry in init:
            if entry["type"] == {"kind": "any"} and entry["name"] in hints:
                entry["type"] = type_tree(hints[entry["name"]], is_project_class, depth)
    methods = []
    for name, member in vars(cls).items():
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        try:
            methods.append({"name": name,
                            "params": parameters(member, is_project_class, depth, skip_first=True)})
        except (TypeError, ValueError):
            continue
    return {"kind": "class", "class": _name(cls), "init": init, "methods": methods,
            "dataclass": dataclasses.is_dataclass(cls)}


def _plain_globals(func):
    """The function's globals with the agent's recording wrappers of other modules replaced by
    what they wrap: annotations such as `re.Pattern[str]` evaluate against the real modules."""
    from .interpose import ExternalFunction, ExternalModule, ExternalObject

    out = {}
    for name, value in getattr(func, "__globals__", {}).items():
        if isinstance(value, ExternalModule):
            value = object.__getattribute__(value, "_module")
        elif isinstance(value, (ExternalFunction, ExternalObject)):
            value = object.__getattribute__(value, "_target")
        out[name] = value
    return out


def type_hints(func):
    """The resolved annotations of `func`. When one of them cannot be resolved (a name imported
    only under `TYPE_CHECKING`), the others still are."""
    try:
        return typing.get_type_hints(func)
    except Exception:
        pass
    globalns = _plain_globals(func)
    for name, value in _type_checking_names(getattr(func, "__module__", None)).items():
        globalns.setdefault(name, value)
    try:
        return typing.get_type_hints(func, globalns=globalns)
    except Exception:
        pass
    hints = {}
    for name, annotation in (getattr(func, "__annotations__", None) or {}).items():
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, globalns)  # noqa: S307 - the project's own code
            except Exception as e:
                # Kept as text: the parameter's description says it was not read, and why.
                hints[name] = _Unresolved(annotation, "%s: %s" % (type(e).__name__, e))
                continue
        hints[name] = annotation
    return hints


_TYPE_CHECKING_IMPORTS = {}   # module name -> [(bound name, module, attribute or None)]


def _type_checking_names(module_name):
    """The names a module imports only under `if TYPE_CHECKING:` (`from tenacity import
    RetryCallState`), from the modules among them imported so far: its annotations name them,
    and once those modules are imported they are found without running anything new. The
    module's source is read once; the names are looked up each time (a module imported later
    is found then). A module of the same top-level package that nothing imported yet (tomli's
    `from ._types import Pos`, where `Pos = int`) is imported here: it is the project's own
    code, as the module under test is, and an alias module of this kind defines types only."""
    imports = _TYPE_CHECKING_IMPORTS.get(module_name)
    if imports is None and isinstance(module_name, str):
        imports = _TYPE_CHECKING_IMPORTS[module_name] = _type_checking_imports(
            sys.modules.get(module_name))
    out = {}
    for bound, source, attribute in imports or ():
        found = sys.modules.get(source)
        if found is None and _same_package(source, module_name):
            try:
                found = importlib.import_module(source)
            except Exception:  # it does not import: its names stay unresolved, with the reason
                found = None
        if found is not None and attribute is not None:
            found = getattr(found, attribute, None)
        if found is not None:
            out[bound] = found
    return out


def _same_package(source, module_name):
    """Whether `source` is a module below the top-level package of `module_name` (not the
    top-level module itself, which is imported already when `module_name` is)."""
    top = module_name.partition(".")[0]
    return "." in module_name and source.startswith(top + ".")


def _type_checking_imports(module):
    """(bound name, module, attribute) of each import under a module-level `if TYPE_CHECKING:`
    (`if typing.TYPE_CHECKING:`) of `module`'s source."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except Exception:  # no source, or it does not parse
        return []
    package = getattr(module, "__package__", None) or ""
    out = []
    for node in tree.body:
        test = getattr(node, "test", None)
        if not isinstance(node, ast.If) or not (
                (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom):
                try:
                    source = importlib.util.resolve_name(
                        "." * statement.level + (statement.module or ""), package)
                except (ImportError, ValueError):
                    continue
                out.extend((a.asname or a.name, source, a.name) for a in statement.names)
            elif isinstance(statement, ast.Import):
                # `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
                out.extend((a.asname, a.name, None) if a.asname
                           else (a.name.partition(".")[0], a.name.partition(".")[0], None)
                           for a in statement.names)
    return out


class _Unresolved:
    """An annotation whose text does not evaluate in its module (a name imported only under
    `TYPE_CHECKING`, a typo)."""

    def __init__(self, text, why):
        self.text, self.why = text, why


def parameters(func, is_project_class, depth=0, skip_first=False):
    return signature_parameters(inspect.signature(func), type_hints(func), is_project_class,
                                depth, skip_first)


def signature_parameters(sig, hints, is_project_class, depth=0, skip_first=False):
    """The parameters of a signature, each typed by its resolved annotation in `hints` (else
    the signature's own)."""
    out = []
    for i, p in enumerate(sig.parameters.values()):
        if skip_first and i == 0 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            continue
        annotation = hints.get(p.name, p.annotation)
        entry = {
            "name": p.name,
            "kind": p.kind.name.lower(),
            "type": type_tree(annotation, is_project_class, depth),
        }
        if p.default is not p.empty:
            try:
                entry["default"] = repr(p.default)[:200]
            except Exception:
                entry["default"] = "<unprintable>"
            ref = _reference(p.default)
            if ref is not None:
                entry["default_ref"] = ref
        out.append(entry)
    return out


def _reference(value):
    """`module:qualname` of a function or class that can be found again by that name (a
    parameter's default such as `dict`), else None."""
    if not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        return None
    from .interpose import real_type

    value = real_type(value)
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        return None
    from .values import resolve

    name = "%s:%s" % (module, qualname)
    try:
        return name if resolve(name) is value else None
    except Exception:
        return None


def _kinds_from_uses(func, params, is_project_class, level=0, owner=None):
    """For each unannotated parameter, the kinds of values its uses ask for, as `instances`
    of its `any` tree, tried first: an instance of each class `isinstance(p, C)` (or
    `type(p) in (C, D)`, `type(p) is C`) tests for (a project class through its constructor;
    in a method of `owner`, `isinstance(other, self.__class__)` and `type(other) is
    type(self)` test for `owner`),
    a tuple of as many items as `a, b = p` unpacks, an asynchronous iterator for `async for
    x in p`,
    a `slice` for `items[p]`, a `SimpleNamespace` with the attributes `p.name` reads, an
    iterator for `next(p)` — and the kinds the same uses ask for in a project function the
    parameter is passed to (`inc, exc = _norm_args(other)`, which tests `type(other) in (set,
    frozenset)`). Returns the unannotated parameters the function uses as objects (reads an
    attribute of, calls a method of: `p.name`, `p.method()`)."""
    untyped = {p["name"]: p for p in params if p["type"] == {"kind": "any"}}
    # A parameter declared as a namespace (`args: argparse.Namespace`) is one holding the
    # attributes the function reads (`args.bump`, `args.version`), built as that class.
    namespaces = {p["name"]: p for p in params if p["type"].get("class") in _NAMESPACES
                  and p["type"].get("external")}
    objects = set()
    if not untyped and not namespaces:
        return objects
    found = _kinds_in(func, set(untyped) | set(namespaces), is_project_class, 0, level, owner,
                      objects)
    for name, param in namespaces.items():
        held = next((k for k in found.get(name, ()) if k.get("class") == "types:SimpleNamespace"),
                    {"kind": "class", "init": [], "methods": []})
        param["type"] = dict(held, **{"class": param["type"]["class"]})
    for name, kinds in found.items():
        if name in untyped and kinds:
            untyped[name]["type"] = {"kind": "any", "instances": kinds}
    return objects & set(untyped)


# Classes whose instances are whatever attributes they were built with.
_NAMESPACES = ("argparse:Namespace", "types:SimpleNamespace")


# How deep `_kinds_in` follows a parameter into the project functions it is passed to, and
# how many such calls of one function it follows.
_HELPER_DEPTH = 2
_HELPER_CALLS = 8
_MAX_KINDS = 6


# Methods only one kind of value has: a parameter whose method is called so (in the function
# or a project function it is passed to, `_init_wait_gen(wait_gen, kwargs)` calling
# `kwargs.items()`) is first tried as that kind.
_METHOD_KINDS = dict(
    [(m, {"kind": "dict", "key": {"kind": "str"}, "value": {"kind": "any"}})
     for m in ("items", "keys", "values", "setdefault", "popitem")]
    + [(m, {"kind": "list", "of": {"kind": "any"}}) for m in ("append", "extend", "insert")]
    + [(m, {"kind": "str"}) for m in ("startswith", "endswith", "lower", "upper", "isdigit")])


def _kinds_in(func, untyped, is_project_class, depth, level, owner=None, objects=None):
    """The kinds the uses of each name of `untyped` (parameters of `func`) ask for, by name;
    `level` is how deep in a type tree the parameters are (a class they test for is described
    one level deeper: `Color(color)` testing `isinstance(color, Color)` ends); `owner`, the
    class whose objects `func` runs on when it is a method (its first parameter the receiver);
    `objects`, a set to which the names `func` uses as objects are added (`p.name`)."""
    try:
        unwrapped = inspect.unwrap(func)
        tree = ast.parse(textwrap.dedent(inspect.getsource(unwrapped)))
    except Exception:  # no source (a builtin, a lambda in an expression), or it does not parse
        return {}
    receiver = _receiver_name(unwrapped) if owner is not None else None
    found = {name: [] for name in untyped}
    attributes = {name: [] for name in untyped}
    called = set()
    helpers = []
    invoked = set()   # parameters called: `wait_gen(**kwargs)`
    results = {}      # a name bound to a parameter's call -> that parameter
    resumed = set()   # names a generator's methods are called on: `initialized.send(None)`
    iterated = []     # (parameter, the loop's target name): `for hdlr in hdlrs`
    names_called = set()
    held_kinds = {}   # (parameter, attribute) -> the kind its method calls ask for, or None
    globalns = _plain_globals(func)

    def add(name, t):
        if t is not None and t not in found[name] and len(found[name]) < _MAX_KINDS:
            found[name].append(t)

    def is_param(node):
        return isinstance(node, ast.Name) and node.id in untyped

    def tested(node):
        """The tree of the class a type test names: the receiver's (`self.__class__`,
        `type(self)`) is `owner`."""
        if receiver is not None and _names_class_of(node, receiver):
            return _class_instance_tree(owner, is_project_class, level)
        return _instance_tree(node, globalns, is_project_class, level)

    for node in ast.walk(tree):
        asynchronous = isinstance(node, ast.AsyncFor) \
            or (isinstance(node, ast.comprehension) and node.is_async)
        if asynchronous and is_param(node.iter):
            # `async for item in p`: an asynchronous iterator (a list has no `__aiter__`).
            add(node.iter.id, {"kind": "async_iterator", "of": {"kind": "any"}})
        elif isinstance(node, (ast.For, ast.comprehension)) and is_param(node.iter):
            target = node.target.id if isinstance(node.target, ast.Name) else None
            iterated.append((node.iter.id, target))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            names_called.add(node.func.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "isinstance" and len(node.args) == 2 and is_param(node.args[0]):
            classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            for c in classes:
                add(node.args[0].id, tested(c))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "next" and "next" not in globalns and node.args \
                and is_param(node.args[0]):
            # `next(p)`: an iterator (`next` of a list raises TypeError).
            add(node.args[0].id, {"kind": "iterator", "of": {"kind": "any"}})
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and isinstance(node.left, ast.Call) and isinstance(node.left.func, ast.Name) \
                and node.left.func.id == "type" and len(node.left.args) == 1 \
                and is_param(node.left.args[0]):
            right = node.comparators[0]
            if isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                    and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                classes = right.elts
            elif isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
                classes = [right]
            else:
                classes = []
            for c in classes:
                add(node.left.args[0].id, tested(c))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) \
                and is_param(node.value.func):
            invoked.add(node.value.func.id)
            results[node.targets[0].id] = node.value.func.id
        elif isinstance(node, ast.Assign) and is_param(node.value) and len(node.targets) == 1 \
                and isinstance(node.targets[0], (ast.Tuple, ast.List)) \
                and not any(isinstance(e, ast.Starred) for e in node.targets[0].elts):
            add(node.value.id, {"kind": "tuple",
                                "items": [{"kind": "any"}] * len(node.targets[0].elts)})
        elif isinstance(node, ast.Subscript) and is_param(node.slice):
            add(node.slice.id, _value_type(slice))
        elif isinstance(node, ast.Call) and is_param(node.func):
            invoked.add(node.func.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and is_param(node.func.value):
            called.add((node.func.value.id, node.func.attr))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Attribute) and is_param(node.func.value.value):
            # `args.title.upper()`: the attribute is of the kind only that method has.
            held = (node.func.value.value.id, node.func.value.attr)
            held_kinds.setdefault(held, _METHOD_KINDS.get(node.func.attr))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.attr in _RESUMING:
            resumed.add(node.func.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and depth < _HELPER_DEPTH and len(helpers) < _HELPER_CALLS:
            for i, a in enumerate(node.args):
                if is_param(a):
                    helpers.append((node.func.id, i, a.id))
            for k in node.keywords:
                if k.arg is not None and is_param(k.value):
                    helpers.append((node.func.id, k.arg, k.value.id))
        elif isinstance(node, ast.Attribute) and is_param(node.value) \
                and isinstance(node.ctx, ast.Load) and not node.attr.startswith("__"):
            if node.attr not in attributes[node.value.id]:
                attributes[node.value.id].append(node.attr)
    for callee_name, at, name in helpers:
        callee, parameter = _helper_parameter(globalns.get(callee_name), at, is_project_class)
        if callee is None or callee is func:
            continue
        kinds = _kinds_in(callee, {parameter}, is_project_class, depth + 1, level)
        for kind in kinds.get(parameter, []):
            add(name, kind)
    for name, method in sorted(called):
        add(name, _METHOD_KINDS.get(method))
    if depth > 0:
        # Called in a project function it is passed to: a function. One whose result is
        # resumed there (`initialized.send(None)`) makes generators: the project's generator
        # functions first (`backoff.expo` for `wait_gen`).
        for name in sorted(invoked):
            if any(results.get(r) == name for r in resumed):
                for ref in _generator_functions(func, is_project_class):
                    add(name, {"kind": "callable", "returns": {"kind": "any"}, "named": ref})
            add(name, {"kind": "callable", "returns": {"kind": "any"}})
        # Iterated there: a list, of functions when what it holds is called (`for hdlr in
        # hdlrs: hdlr(details)`).
        for name in dict.fromkeys(n for n, _ in iterated):
            holds_functions = any(n == name and t in names_called for n, t in iterated)
            item = {"kind": "callable", "returns": {"kind": "any"}} \
                if holds_functions else {"kind": "any"}
            add(name, {"kind": "list", "of": item})
    if objects is not None:
        objects.update(name for name, attrs in attributes.items() if attrs)
    if depth == 0:
        for name, attrs in attributes.items():
            plain = [a for a in attrs if (name, a) not in called]
            if plain and len(plain) == len(attrs):
                add(name, {"kind": "class", "class": "types:SimpleNamespace", "methods": [],
                           "init": [{"name": a, "kind": "keyword_only",
                                     "type": held_kinds.get((name, a)) or {"kind": "any"}}
                                    for a in plain[:8]]})
    return found


# Methods only a generator has: the result of a parameter's call resumed so is a generator.
_RESUMING = ("send", "throw")
_GENERATORS = 3   # the project's generator functions tried for a parameter that makes them


def _generator_functions(func, is_project_class):
    """References (`module:name`) of the module-level generator functions of the package `func`
    is in, as the modules imported so far define them: its own module's first."""
    module = getattr(func, "__module__", None) or ""
    package = module.partition(".")[0]
    out = []
    names = sorted(sys.modules, key=lambda m: (m != module, m))
    for name in names:
        if name != package and not name.startswith(package + "."):
            continue
        namespace = getattr(sys.modules.get(name), "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for value in list(namespace.values()):
            if not isinstance(value, types.FunctionType) or value.__module__ != name \
                    or not value.__code__.co_flags & inspect.CO_GENERATOR \
                    or not is_project_class(value):
                continue
            ref = _reference(value)
            if ref is not None and ref not in out:
                out.append(ref)
            if len(out) >= _GENERATORS:
                return out
    return out


def _helper_parameter(callee, at, is_project_class):
    """A project function the module names and the name of its parameter an argument at `at`
    (a position or a keyword) is bound to; (None, None) for anything else."""
    callee = inspect.unwrap(callee) if isinstance(callee, types.FunctionType) else None
    if callee is None or not is_project_class(callee):
        return None, None
    try:
        listed = list(inspect.signature(callee).parameters.values())
    except (TypeError, ValueError):
        return None, None
    if isinstance(at, int):
        positional = [p for p in listed
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        parameter = positional[at] if at < len(positional) else None
    else:
        parameter = next((p for p in listed if p.name == at and p.kind in (
            p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)), None)
    if parameter is None or parameter.annotation is not parameter.empty:
        return None, None
    return callee, parameter.name


def _instance_tree(node, globalns, is_project_class, level=0):
    """The type tree of the class an `isinstance` names (`Shape`, `collections.OrderedDict`,
    `bytes`), or None when it cannot be told or built."""
    from .interpose import real_type

    try:
        cls = eval(compile(ast.Expression(node), "<isinstance>", "eval"),  # noqa: S307
                   dict(globalns, __builtins__=__builtins__))
    except Exception:
        return None
    return _class_instance_tree(real_type(_unwrapped(cls)), is_project_class, level)


def _class_instance_tree(cls, is_project_class, level):
    """The type tree of an instance of `cls` a type test names, or None when it cannot be
    built."""
    if not isinstance(cls, type) or cls is object or issubclass(cls, BaseException):
        return None
    tree = type_tree(cls, is_project_class, level + 1)
    if tree.get("kind") in ("any", "callable") or tree.get("external"):
        return None
    if tree.get("kind") == "class" and not tree.get("init") and not is_project_class(cls) \
            and cls is not types.SimpleNamespace:
        return None
    return tree


def _observed_kinds(params, observed, is_project_class, package, level=0):
    """Puts first among the kinds of each unannotated parameter of `params` (by the key
    `observed` uses) the classes of the objects the tests passed to it — the project's, and the
    value types the generator builds through their constructors (a `date` passed to
    `__rsub__`);
    `package` is the top-level package of the function described, whose modules may be
    imported to find them."""
    for key, names in (observed or {}).items():
        param = params.get(str(key))
        if param is None or param["type"].get("kind") != "any":
            continue
        kinds = []
        for name in names:
            cls = _observed_class(name, package)
            if cls is None or not (is_project_class(cls) or _value_type_init(cls) is not None):
                continue
            tree = _class_instance_tree(cls, is_project_class, level)
            if tree is not None and tree not in kinds:
                kinds.append(tree)
        if kinds:
            held = param["type"].get("instances") or []
            param["type"] = {"kind": "any",
                             "instances": (kinds + [k for k in held if k not in kinds])
                             [:_MAX_KINDS]}


def _observed_class(name, package):
    """The class the observer named `module.Qual` (the module is the longest prefix of the
    name that is one), or None. A module of `package` not imported yet is imported (the tests
    imported it); any other only looked up, so that no library is imported for this."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:i])
        value = sys.modules.get(module)
        if value is None and parts[0] != package:
            continue
        if value is None:
            try:
                value = importlib.import_module(module)
            except Exception:  # not a module (`pkg.mod.Outer` tried as `pkg.mod.Outer`)
                continue
        for attribute in parts[i:]:
            value = inspect.getattr_static(value, attribute, None)
        return value if isinstance(value, type) else None
    return None


def _receiver_name(func):
    """The name of a method's first parameter (`self`), or None."""
    code = getattr(func, "__code__", None)
    if code is None or code.co_argcount == 0:
        return None
    return code.co_varnames[0]


def _names_class_of(node, name):
    """Whether `node` is `name.__class__` or `type(name)` — or `name` itself, the receiver of
    a class method (`isinstance(other, cls)`; of a method, `isinstance(other, self)` raises)."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.Attribute):
        return node.attr == "__class__" and isinstance(node.value, ast.Name) \
            and node.value.id == name
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "type" and len(node.args) == 1 and not node.keywords \
        and isinstance(node.args[0], ast.Name) and node.args[0].id == name


def _literal(args):
    """The tree of `Literal[...]`: its plain values (numbers, strings, booleans) as a literal,
    its enum members (`Literal[Sentinel.absent]`) as their enum with those members only, one
    of them when it has both."""
    plain = [a for a in args
             if isinstance(a, (bool, int, float, str)) and not isinstance(a, enum.Enum)]
    members = {}
    for a in args:
        if isinstance(a, enum.Enum):
            members.setdefault(type(a), []).append(a.name)
    trees = [{"kind": "enum", "class": _name(c), "members": names}
             for c, names in members.items()]
    if plain or not trees:
        trees.insert(0, {"kind": "literal", "values": plain})
    return trees[0] if len(trees) == 1 else {"kind": "union", "of": trees}


def _unread_in(tree, depth=0):
    """The annotations left unread inside a type tree (a constructor's parameters included)."""
    if not isinstance(tree, dict) or depth > 2 * MAX_DEPTH + 2:
        return []
    out = [tree["unread"]] if "unread" in tree else []
    for key in ("of", "items", "init", "returns", "key", "value"):
        value = tree.get(key)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, dict) and "type" in child and "name" in child:
                child = child["type"]
            out.extend(_unread_in(child, depth + 1))
    return out


def mangled(owner, name):
    """The attribute a class stores `__name` under (`_Class__name`), as Python's compiler spells
    it inside the class body; other names unchanged."""
    if owner is None or not name.startswith("__") or name.endswith("__"):
        return name
    stripped = owner.__name__.lstrip("_")
    return "_%s%s" % (stripped, name) if stripped else name


def describe(target, owner, is_project_class, raw=None, registered=None, observed=None):
    """The description of a function or method `target` (defined in class `owner`, if any;
    `raw` is what the class holds, when not `target` under its own name). For a registration
    of a `singledispatch` function, `registered` is the type its first argument must have.
    `observed`: the classes of the objects the project's passing tests passed to it
    (`params`, by name) and to its owner's constructor (`init`, by position), tried first for
    an unannotated parameter."""
    observed = observed or {}
    if raw is None:
        raw = inspect.getattr_static(owner, mangled(owner, target.__name__)) \
            if owner is not None else target
    kind = "function"
    if isinstance(raw, staticmethod):
        kind = "staticmethod"
    elif isinstance(raw, classmethod):
        kind = "classmethod"
    elif owner is not None:
        kind = "method"
    func = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
    try:
        params = parameters(func, is_project_class, 0, skip_first=kind in ("method", "classmethod"))
    except (TypeError, ValueError) as e:
        return {"kind": kind, "error": str(e), "params": []}
    if registered is not None:
        first = next((p for p in params
                      if p["kind"] in ("positional_only", "positional_or_keyword")), None)
        if first is not None:
            first["type"] = type_tree(registered, is_project_class, 0)
    built = _concrete_owner(owner, target.__name__, raw, is_project_class) \
        if owner is not None else None
    # A function's parameter is tried as an object the tests passed where its code uses it as
    # one (`version.truncate()`); a key (`key in self`) is better tried as a number first,
    # which the solver can make equal to another.
    used = _kinds_from_uses(func, params, is_project_class,
                            owner=built if kind in ("method", "classmethod") else None)
    package = (getattr(func, "__module__", None) or "").split(".")[0]
    _observed_kinds({p["name"]: p for p in params if p["name"] in used},
                    observed.get("params"), is_project_class, package)
    out = {"kind": kind, "params": params}
    unread = ["%s: %s" % (p["name"], u) for p in params for u in _unread_in(p["type"])]
    if unread:
        out["unread"] = unread
    if built is not None:
        out["owner"] = describe_class(built, is_project_class, 1)
        init = out["owner"].get("init") or []
        _observed_kinds({str(i): p for i, p in enumerate(init)}, observed.get("init"),
                        is_project_class, package, 1)
    try:
        code = getattr(inspect.unwrap(func), "__code__", None)  # behind `lru_cache`, `wraps`
    except ValueError:  # a cycle of `__wrapped__`
        code = None
    if code is not None:
        out["file"] = code.co_filename
        out["line"] = code.co_firstlineno
    return out


def _concrete_owner(owner, name, raw, is_project_class):
    """The class whose objects a method of `owner` runs on: `owner`, or, when it is abstract
    (`Can't instantiate abstract class BaseRetrying`), the first of the project's concrete
    subclasses of it that inherits the method as it is (`Retrying` for
    `BaseRetrying.iter_state`); `owner` when none does."""
    if not inspect.isabstract(owner):
        return owner
    attribute = mangled(owner, name)
    for cls in _concrete_subclasses(owner, is_project_class):
        if inspect.getattr_static(cls, attribute, None) is raw:
            return cls
    return owner


def describe_returned(nested, outer, is_project_class):
    """The description of a function nested in `outer`, which returns it: its own parameters,
    and as its receiver the call of `outer` that builds it (`outer`'s parameters as a
    constructor's, `threshold(limit)` before `check(v)`)."""
    out = describe(nested, None, is_project_class)
    out["kind"] = "returned"
    try:
        init = parameters(outer, is_project_class, 1)
        _kinds_from_uses(outer, init, is_project_class, 1)
    except (TypeError, ValueError):
        init = []
    out["owner"] = {"kind": "class", "class": _name(outer), "init": init, "methods": [],
                    "dataclass": False}
    return out
