"""Ordered standard values an input built compared as conditions on their measure, symbolic in
the constructor arguments the generator chose: durations (a `timedelta`, a `timezone`'s offset)
by the microseconds they last, naive dates, datetimes and times by a key that sorts as they do;
zones and offsets built through C constructors that take the plain values."""

import datetime

from lacuna_agent import values
from lacuna_agent.sym import SymBool, concrete, expr_of


def _int(value, sym):
    return {"kind": "int", "value": str(value), "sym": sym}


def _offset(minutes, name="z.__init__.offset"):
    return {"kind": "object", "class": "datetime:timedelta", "sym": name, "args": [],
            "kwargs": {"minutes": _int(minutes, name + ".__init__.minutes")}}


def _decode(tree):
    values.clear()
    return values.decode(tree, lambda _: False)


def test_a_duration_compared_with_another_is_a_condition_on_its_arguments():
    d = _decode(_offset(90, "d"))
    assert d == datetime.timedelta(minutes=90)
    longer = d >= datetime.timedelta(hours=2)
    assert isinstance(longer, SymBool) and concrete(longer) is False
    assert "d.__init__.minutes" in repr(expr_of(longer))
    # Reflected, negated, added to and scaled, it stays a condition on the same argument.
    for condition in (datetime.timedelta(hours=1) < d, -d < datetime.timedelta(0),
                      d + datetime.timedelta(minutes=40) > datetime.timedelta(hours=2),
                      d * 2 == datetime.timedelta(hours=3), d != datetime.timedelta(0)):
        assert isinstance(condition, SymBool) and concrete(condition) is True, condition
        assert "d.__init__.minutes" in repr(expr_of(condition))
    assert d.total_seconds() == 5400.0 and expr_of(d.total_seconds()) is not None


def test_a_zone_is_built_from_its_offset_and_reads_it_symbolically():
    zone = _decode({"kind": "object", "class": "datetime:timezone", "sym": "z",
                    "args": [_offset(-301)], "kwargs": {}})
    assert zone == datetime.timezone(datetime.timedelta(minutes=-301))
    west = zone.utcoffset(None) < datetime.timedelta(hours=-5)
    assert isinstance(west, SymBool) and concrete(west) is True
    assert "z.__init__.offset.__init__.minutes" in repr(expr_of(west))
    # An aware datetime takes the plain zone: C code checks the exact type.
    when = datetime.datetime(2024, 1, 1, tzinfo=__import__('lacuna_agent.interpose').interpose.unwrap(zone))
    assert when.utcoffset() == datetime.timedelta(minutes=-301)


def test_a_duration_from_float_arguments_is_compared_on_its_value():
    d = _decode({"kind": "object", "class": "datetime:timedelta", "sym": "d", "args": [],
                 "kwargs": {"hours": {"kind": "float", "value": 1.5, "sym": "d.h"}}})
    assert (d > datetime.timedelta(hours=1)) is True


def _date(cls, fields, name="t"):
    return {"kind": "object", "class": "datetime:" + cls, "sym": name,
            "args": [_int(v, "%s.__init__.%s" % (name, n)) for n, v in fields], "kwargs": {}}


def test_naive_dates_and_times_compare_as_conditions_on_their_fields():
    day = _decode(_date("date", [("year", 2024), ("month", 2), ("day", 29)]))
    before = day < datetime.date(2024, 3, 1)
    assert isinstance(before, SymBool) and concrete(before) is True
    assert "t.__init__.day" in repr(expr_of(before))
    assert concrete(day == datetime.date(2024, 2, 29)) is True
    assert concrete(datetime.date(2025, 1, 1) <= day) is False
    # The key sorts as the calendar does, across months and years.
    keys = [__import__("lacuna_agent.measures").measures.of_plain(d) for d in (
        datetime.date(2023, 12, 31), datetime.date(2024, 1, 1), datetime.date(2024, 1, 31),
        datetime.date(2024, 2, 1))]
    assert keys == sorted(keys) and len(set(keys)) == 4
    noon = _decode(_date("time", [("hour", 12), ("minute", 30)], "n"))
    assert isinstance(noon >= datetime.time(12), SymBool)
    when = _decode(_date("datetime", [("year", 2024), ("month", 1), ("day", 1), ("hour", 23)],
                         "w"))
    assert concrete(when > datetime.datetime(2024, 1, 1, 22, 59)) is True
    # Of different classes, or aware: compared as the values are, not as a condition.
    assert (when == day) is False


def test_an_aware_datetime_is_measured_by_its_instant():
    zone = {"kind": "object", "class": "datetime:timezone", "sym": "z",
            "args": [_offset(60)], "kwargs": {}}
    tree = _date("datetime", [("year", 2024), ("month", 1), ("day", 1), ("hour", 0)], "w")
    tree["kwargs"]["tzinfo"] = zone
    values.clear()
    when = values.decode(tree, lambda _: False)
    assert when.tzinfo is not None
    # Midnight at +01:00 is 23:00 UTC the day before: earlier than midnight UTC, whatever the
    # fields say, and a condition on the hour and the zone's offset alike.
    utc = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    earlier = when < utc
    assert isinstance(earlier, SymBool) and concrete(earlier) is True
    assert "w.__init__.hour" in repr(expr_of(earlier))
    assert "z.__init__.offset.__init__.minutes" in repr(expr_of(earlier))
    assert concrete(when == datetime.datetime(2023, 12, 31, 23, tzinfo=datetime.timezone.utc))
    # The duration between two instants, and an instant moved; never compared with a naive one
    # (Python refuses to order them, and they are never equal).
    assert concrete(utc - when == datetime.timedelta(hours=1)) is True
    assert isinstance(when + datetime.timedelta(hours=1) >= utc, SymBool)
    assert (when == datetime.datetime(2024, 1, 1)) is False
    with __import__("pytest").raises(TypeError):
        _ = when < datetime.datetime(2024, 1, 1)


def test_date_arithmetic_keeps_the_measure_in_days():
    from lacuna_agent import measures
    # The ordinal as arithmetic is the calendar's, leap days and centuries included.
    for day in (datetime.date(1, 1, 1), datetime.date(1900, 2, 28), datetime.date(1900, 3, 1),
                datetime.date(2000, 2, 29), datetime.date(2024, 12, 31),
                datetime.date(9999, 12, 31)):
        assert measures.ordinal(day.year, day.month, day.day) == day.toordinal(), day
    due = _decode(_date("date", [("year", 2024), ("month", 2), ("day", 28)], "due"))
    today = datetime.date(2024, 1, 30)
    # The days between two dates: a duration whose days the solver sees across months.
    late = (due - today).days > 30
    assert isinstance(late, SymBool) and concrete(late) is False
    assert "due.__init__.month" in repr(expr_of(late))
    assert concrete((due - today).days == 29) is True
    # A date moved by a duration, compared with another date; a weekday.
    moved = due + datetime.timedelta(days=2)
    assert moved == datetime.date(2024, 3, 1)
    assert concrete(moved > datetime.date(2024, 2, 29)) is True
    assert isinstance(moved > datetime.date(2024, 2, 29), SymBool)
    back = due - datetime.timedelta(hours=1)
    assert back == datetime.date(2024, 2, 27) and isinstance(back < today, SymBool)
    weekend = due.weekday() >= 5
    assert isinstance(weekend, SymBool) and concrete(weekend) is False  # a Wednesday
    assert concrete(due.isoweekday() == 3) is True


def test_datetime_arithmetic_keeps_the_measure_in_microseconds():
    start = _decode(_date("datetime", [("year", 2024), ("month", 12), ("day", 31),
                                       ("hour", 23), ("minute", 30)], "s"))
    end = start + datetime.timedelta(hours=1)
    assert end == datetime.datetime(2025, 1, 1, 0, 30)
    new_year = end > datetime.datetime(2025, 1, 1)
    assert isinstance(new_year, SymBool) and concrete(new_year) is True
    assert "s.__init__.minute" in repr(expr_of(new_year))
    elapsed = end - start
    assert elapsed == datetime.timedelta(hours=1)
    assert concrete(elapsed.total_seconds() == 3600) is True
    since = (datetime.datetime(2025, 1, 2) - start).seconds
    assert concrete(since == 1800) is True and expr_of(since) is not None
