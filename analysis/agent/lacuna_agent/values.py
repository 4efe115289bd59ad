"""Decoding value trees (the inputs the generator chose) into Python values: scalars,
containers, enum members, instances built through their constructors and method calls, objects
made by factories of the project's guidance module, callables that return values the generator
chose, and references to existing functions and classes (`builtins:dict`). Nodes with a `sym`
name become symbolic (see `objects.wrap`)."""

import importlib
import math

from . import objects


class InputError(Exception):
    """An input could not be built (a constructor, method or factory raised)."""


# The callables built for the execution under way, by access path: how often each was called is
# reported with the execution (the next input carries one chosen value per call).
callables = {}

# The inputs by identity, with their access path: a type test on one of them names the input it
# tested.
named_inputs = {}


class InputFunction:
    """A callable input: its n-th call returns the n-th value the generator chose (the last one
    repeats), whatever it is called with."""

    __slots__ = ("_values", "calls", "__name__", "__qualname__")

    def __init__(self, name, values):
        self._values = list(values)
        self.calls = 0
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        value = self._values[min(self.calls, len(self._values) - 1)] if self._values else None
        self.calls += 1
        return value

    def __repr__(self):
        return "<input function %s>" % self.__name__


def clear():
    """Forgets the previous execution's inputs."""
    callables.clear()
    named_inputs.clear()


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
    if name is not None:
        value = objects.wrap(value, name, is_project_object)
        if value is not None and type(value) is not bool:
            named_inputs[id(value)] = (value, name)
    return value


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
    if kind == "ref":
        try:
            return resolve(tree["name"])
        except (ImportError, AttributeError) as e:
            raise InputError("%s cannot be found: %s" % (tree["name"], e))
    if kind == "list":
        return [sub(t) for t in tree.get("items", [])]
    if kind == "tuple":
        return tuple(sub(t) for t in tree.get("items", []))
    if kind == "set":
        return set(sub(t) for t in tree.get("items", []))
    if kind == "dict":
        return {_key(sub(k)): sub(v) for k, v in tree.get("items", [])}
    if kind == "enum":
        cls = resolve(tree["class"])
        return cls[tree["member"]]
    if kind in ("object", "factory"):
        target = resolve(tree["class"] if kind == "object" else tree["function"])
        args = [sub(t) for t in tree.get("args", [])]
        kwargs = {k: sub(t) for k, t in tree.get("kwargs", {}).items()}
        try:
            obj = target(*args, **kwargs)
        except Exception as e:
            raise InputError("%s(...) raised %s: %s" % (tree.get("class") or tree.get("function"),
                                                        type(e).__name__, e))
        for call in tree.get("calls", []):
            method = getattr(obj, call["method"])
            cargs = [sub(t) for t in call.get("args", [])]
            ckwargs = {k: sub(t) for k, t in call.get("kwargs", {}).items()}
            try:
                method(*cargs, **ckwargs)
            except Exception as e:
                raise InputError("%s(...) raised %s: %s" % (call["method"], type(e).__name__, e))
        return obj
    raise InputError("unknown value kind %r" % (kind,))


def _key(value):
    from .sym import concrete
    return concrete(value)


def literal(value, depth=0):
    """A Python expression that rebuilds `value` when it is made of literals, else None."""
    if depth > 20:
        return None
    from .sym import concrete

    value = concrete(value)
    t = type(value)
    if value is None or t is bool or t is int:
        return repr(value)
    if t is float:
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if t in (str, bytes):
        return repr(value)
    if t in (list, tuple, set, frozenset):
        parts = [literal(v, depth + 1) for v in value]
        if any(p is None for p in parts):
            return None
        if t is list:
            return "[%s]" % ", ".join(parts)
        if t is tuple:
            return "(%s)" % "".join(p + ", " for p in parts) if len(parts) == 1 else \
                "(%s)" % ", ".join(parts)
        if not parts:
            return "set()" if t is set else "frozenset()"
        inner = "{%s}" % ", ".join(sorted(parts))
        return inner if t is set else "frozenset(%s)" % inner
    if t is dict:
        items = []
        for k, v in value.items():
            lk, lv = literal(k, depth + 1), literal(v, depth + 1)
            if lk is None or lv is None:
                return None
            items.append("%s: %s" % (lk, lv))
        return "{%s}" % ", ".join(items)
    return None
