"""Ordered standard values an input built, measured by one integer that sorts as they do and
counts what they count: a duration (a `timedelta`, a `timezone`'s offset) by the microseconds it
lasts; a naive date by its ordinal (`date.toordinal()`: 1 for 1 January of year 1), a naive
datetime by microseconds on the same count (its ordinal's days and its time of day), an aware
one by the instant it names (the same count at UTC), a time by the microseconds since midnight.
The measure is symbolic in the constructor arguments the generator chose (the ordinal through
floor divisions by constants, so it stays linear), so comparing such values
(`zone.utcoffset(None) > timedelta(hours=5)`, `start < date(2020, 1, 1)`) is a condition the
solver can flip, and so is what arithmetic derives from them: the duration between two dates or
datetimes (`(due - today).days > 30`), a date or datetime moved by a duration, a duration's
sum, difference, negation and integer multiple, a date's weekday. A measure stands for its value
only next to another of the same class."""

import datetime

from .sym import compare, concrete

MICROSECOND = datetime.timedelta(microseconds=1)

# A `timedelta`'s constructor arguments in the order it takes them, with the microseconds each
# unit lasts.
_DURATION_UNITS = (("days", 86400000000), ("seconds", 1000000), ("microseconds", 1),
                   ("milliseconds", 1000), ("minutes", 60000000), ("hours", 3600000000),
                   ("weeks", 604800000000))

DAY = 86400000000

# The fields of a naive date, datetime and time in the order their constructors take them, with
# their defaults.
_FIELDS = {
    datetime.date: (("year", None), ("month", None), ("day", None)),
    datetime.datetime: (("year", None), ("month", None), ("day", None), ("hour", 0),
                        ("minute", 0), ("second", 0), ("microsecond", 0)),
    datetime.time: (("hour", 0), ("minute", 0), ("second", 0), ("microsecond", 0)),
}

# What an aware datetime is measured as: the instant it names, in microseconds on the naive
# count at UTC (its local measure less its offset's). It compares only with another aware one.
AWARE = "aware datetime"

# The kinds arithmetic gives a measured result of.
DERIVED = (datetime.timedelta, datetime.date, datetime.datetime, AWARE)


def kind_of(value):
    """What `value` is measured as: its exact class, or `AWARE` for an aware datetime."""
    t = type(value)
    if t is datetime.datetime and value.tzinfo is not None:
        return AWARE
    return t


def _integer(value):
    return type(concrete(value)) is int and type(value) is not bool


def built(target, args, kwargs, measure_of_argument):
    """The measure of `target(*args, **kwargs)` as an expression over those arguments; None for
    another class, for arguments that are not all integers (a float's rounding is the
    constructor's), and for an aware time or a datetime aware at a zone whose offset is not
    known without running its code (anything but a `datetime.timezone`)."""
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
    names = [n for n, _ in fields]
    named = dict(zip(names + ["tzinfo"], args))
    named.update(kwargs)
    zone = named.pop("tzinfo", None)
    if set(named) - set(names):
        return None
    local = _measure(target, fields, named)
    if zone is None or local is None:
        return local
    offset = measure_of_argument(zone) if target is datetime.datetime else None
    return None if offset is None else local - offset


def _measure(cls, fields, named):
    values = {}
    for name, default in fields:
        value = named.get(name, default)
        if value is None or not _integer(value):
            return None
        values[name] = value
    micro = None
    if cls is not datetime.date:
        micro = (values["hour"] * 3600000000 + values["minute"] * 60000000
                 + values["second"] * 1000000 + values["microsecond"])
    if cls is datetime.time:
        return micro
    days = ordinal(values["year"], values["month"], values["day"])
    return days if cls is datetime.date else days * DAY + micro


def ordinal(year, month, day):
    """`date(year, month, day).toordinal()` as arithmetic on the fields: the Julian day number's
    formula (the year taken from March, so that February's length is the year's last term),
    shifted to the ordinal's origin; floor divisions by constants only."""
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 1753470


def of_plain(value):
    """The measure of a plain value of one of the measured classes (its exact class), or None."""
    t = type(value)
    if t is datetime.timedelta:
        return value // MICROSECOND
    if t is datetime.timezone:
        return value.utcoffset(None) // MICROSECOND
    fields = _FIELDS.get(t)
    if fields is None:
        return None
    local = _measure(t, fields, {n: getattr(value, n) for n, _ in fields})
    zone = getattr(value, "tzinfo", None)
    if zone is None:
        return local
    if t is not datetime.datetime or type(zone) is not datetime.timezone:
        return None
    return local - zone.utcoffset(None) // MICROSECOND


def compared(op, cls, mine, other_cls, theirs):
    """`mine op theirs` as a condition on the two measures, when both measure values of the same
    class; else None."""
    if cls is not other_cls or mine is None or theirs is None:
        return None
    return compare(op, mine, theirs)


def derived(op, cls, mine, other_cls, theirs, other, result_cls):
    """The measure of the `result_cls` value `op` computed from a measured value of `cls` (and
    `other`, of `other_cls`, measured `theirs`), or None where the result is not measured."""
    if mine is None or result_cls not in DERIVED:
        return None
    if cls is datetime.timedelta:
        if op in ("__neg__", "__pos__"):
            return -mine if op == "__neg__" else mine
        if op in ("__mul__", "__rmul__") and _integer(other):
            return mine * other
    if theirs is None or op not in ("__add__", "__radd__", "__sub__", "__rsub__"):
        return None
    # As `left op right`, the order Python computed the value in.
    left, right = ((cls, mine), (other_cls, theirs))
    if op.startswith("__r"):
        left, right = right, left
    return _combined(op.replace("__r", "__"), left, right, result_cls)


def _combined(op, left, right, result_cls):
    (lcls, a), (rcls, b) = left, right
    duration = datetime.timedelta
    if lcls is rcls is duration and result_cls is duration:
        return a + b if op == "__add__" else a - b
    if op == "__sub__" and lcls is rcls and result_cls is duration:
        if lcls is datetime.date:
            return (a - b) * DAY
        if lcls in (datetime.datetime, AWARE):
            return a - b
        return None
    # A date moves by the whole days of a duration (`timedelta.days`: its floor), a datetime by
    # all of it.
    if op == "__add__" and lcls is duration and rcls is result_cls:
        left, right = right, left
        (lcls, a), (rcls, b) = left, right
    if rcls is not duration or lcls is not result_cls:
        return None
    if op == "__sub__":
        b = -b
    if lcls is datetime.date:
        return a + b // DAY
    if lcls in (datetime.datetime, AWARE):
        return a + b
    return None


def attribute(cls, measure, name):
    """What reading `name` of a value of `cls` measured `measure` gives, as a function of the
    measure (a method's value, or the attribute's), or None where it is not one: a duration's
    `days`, `seconds`, `microseconds` and `total_seconds()`; a date's or datetime's
    `toordinal()`, `weekday()` and `isoweekday()`."""
    if cls is datetime.timedelta:
        fields = {"days": lambda: measure // DAY,
                  "seconds": lambda: measure % DAY // 1000000,
                  "microseconds": lambda: measure % 1000000}
        if name in fields:
            return fields[name]()
        if name == "total_seconds":
            return lambda: measure / 1000000
        return None
    if cls not in (datetime.date, datetime.datetime):
        return None
    days = measure if cls is datetime.date else measure // DAY
    return {"toordinal": lambda: days, "weekday": lambda: (days + 6) % 7,
            "isoweekday": lambda: (days + 6) % 7 + 1}.get(name)
