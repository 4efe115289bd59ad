"""Ordered standard values an input built, measured by one integer that sorts as they do: a
duration (a `timedelta`, a `timezone`'s offset) by the microseconds it lasts; a naive date,
datetime or time by a key over its fields (`(year * 13 + month) * 32 + day`: month < 13 and
day < 32, so the key orders dates as the calendar does, and equal keys are equal dates). The
measure is symbolic in the constructor arguments the generator chose, so comparing such values
(`zone.utcoffset(None) > timedelta(hours=5)`, `start < date(2020, 1, 1)`) is a condition the
solver can flip. A measure stands for its value only next to another of the same class; arithmetic
keeps it only for durations (`-offset`, `offset + step`, `offset * 2`), where it is linear."""

import datetime

from .sym import compare, concrete

MICROSECOND = datetime.timedelta(microseconds=1)

# A `timedelta`'s constructor arguments in the order it takes them, with the microseconds each
# unit lasts.
_DURATION_UNITS = (("days", 86400000000), ("seconds", 1000000), ("microseconds", 1),
                   ("milliseconds", 1000), ("minutes", 60000000), ("hours", 3600000000),
                   ("weeks", 604800000000))

# The fields of a naive date, datetime and time in the order their constructors take them, each
# with how many values it has (the radix of the key; the first has none), and its default.
_FIELDS = {
    datetime.date: (("year", None, None), ("month", 13, None), ("day", 32, None)),
    datetime.datetime: (("year", None, None), ("month", 13, None), ("day", 32, None),
                        ("hour", 24, 0), ("minute", 60, 0), ("second", 60, 0),
                        ("microsecond", 1000000, 0)),
    datetime.time: (("hour", None, 0), ("minute", 60, 0), ("second", 60, 0),
                    ("microsecond", 1000000, 0)),
}


def _integer(value):
    return type(concrete(value)) is int and type(value) is not bool


def built(target, args, kwargs, measure_of_argument):
    """The measure of `target(*args, **kwargs)` as an expression over those arguments; None for
    another class, for arguments that are not all integers (a float's rounding is the
    constructor's), and for an aware value (its order depends on its zone's offset)."""
    if target is datetime.timezone:
        offset = args[0] if args else kwargs.get("offset")
        return measure_of_argument(offset)
    if target is datetime.timedelta:
        units = dict(_DURATION_UNITS)
        named = {n: v for (n, _), v in zip(_DURATION_UNITS, args)}
        named.update(kwargs)
        total = 0
        for n, v in named.items():
            if n not in units or not _integer(v):
                return None
            total = v * units[n] + total
        return total
    fields = _FIELDS.get(target)
    if fields is None:
        return None
    names = [n for n, _, _ in fields]
    named = dict(zip(names + ["tzinfo"], args))
    named.update(kwargs)
    if named.pop("tzinfo", None) is not None or set(named) - set(names):
        return None
    return _key(fields, named)


def _key(fields, named):
    key = 0
    for name, radix, default in fields:
        value = named.get(name, default)
        if value is None or not _integer(value):
            return None
        key = value if radix is None else key * radix + value
    return key


def of_plain(value):
    """The measure of a plain value of one of the measured classes (its exact class), or None."""
    t = type(value)
    if t is datetime.timedelta:
        return value // MICROSECOND
    fields = _FIELDS.get(t)
    if fields is None or getattr(value, "tzinfo", None) is not None:
        return None
    return _key(fields, {n: getattr(value, n) for n, _, _ in fields})


def compared(op, cls, mine, other_cls, theirs):
    """`mine op theirs` as a condition on the two measures, when both measure values of the same
    class; else None."""
    if cls is not other_cls or mine is None or theirs is None:
        return None
    return compare(op, mine, theirs)


def derived(cls, op, mine, other_cls, theirs, other):
    """The measure of a duration computed from one an input built, or None."""
    if cls is not datetime.timedelta or mine is None:
        return None
    if op in ("__neg__", "__pos__"):
        return -mine if op == "__neg__" else mine
    if op in ("__mul__", "__rmul__") and _integer(other):
        return mine * other
    if other_cls is not datetime.timedelta or theirs is None:
        return None
    return {"__add__": lambda: mine + theirs, "__radd__": lambda: theirs + mine,
            "__sub__": lambda: mine - theirs, "__rsub__": lambda: theirs - mine}.get(
        op, lambda: None)()
