"""The typed literal trees the agent sends for return values: plain builtin values only, within
bounds, never text that Lacuna would have to trust."""

import math
import pytest

from lacuna_agent import values
from lacuna_agent.sym import SymInt, concrete


def test_scalars_and_containers_are_typed_trees():
    assert values.literal(None) == {"kind": "none"}
    assert values.literal(True) == {"kind": "bool", "value": True}
    assert values.literal(-12) == {"kind": "int", "value": "-12"}
    assert values.literal(1.5) == {"kind": "float", "value": 1.5}
    assert values.literal(math.inf) == {"kind": "float", "value": "inf"}
    assert values.literal(-math.inf) == {"kind": "float", "value": "-inf"}
    assert values.literal(math.nan) == {"kind": "float", "value": "nan"}
    assert values.literal("it's") == {"kind": "str", "value": "it's"}
    assert values.literal(b"\x00a") == {"kind": "bytes", "hex": "0061"}
    assert values.literal((1, [None], {"k": frozenset()})) == {
        "kind": "tuple",
        "items": [
            {"kind": "int", "value": "1"},
            {"kind": "list", "items": [{"kind": "none"}]},
            {"kind": "dict", "items": [[{"kind": "str", "value": "k"},
                                        {"kind": "frozenset", "items": []}]]},
        ],
    }


def test_symbolic_values_are_described_by_their_concrete_value():
    assert values.literal(SymInt(7, "x")) == {"kind": "int", "value": "7"}


def test_subclasses_and_other_objects_have_no_literal():
    class Sneaky(str):
        def __repr__(self):
            return "__import__('os').remove('canary')"

    class Counter(int):
        pass

    assert values.literal(Sneaky("x")) is None
    assert values.literal(Counter(3)) is None
    assert values.literal([1, object()]) is None
    assert values.literal({"k": Sneaky("x")}) is None


def test_values_out_of_bounds_have_no_literal():
    deep = None
    for _ in range(values.MAX_DEPTH + 2):
        deep = [deep]
    assert values.literal(deep) is None
    assert values.literal(list(range(values.MAX_NODES + 1))) is None
    assert values.literal("x" * (values.MAX_TEXT + 1)) is None
    assert values.literal(10 ** (values.MAX_DIGITS + 1)) is None
    assert values.literal("\ud800") is None  # not representable as UTF-8
    cycle = []
    cycle.append(cycle)
    assert values.literal(cycle) is None


def test_an_input_compared_with_a_value_of_another_kind_is_a_type_test():
    """`align == "right"` while the generator gave `align` an int: only a str can make it come
    out the other way, which the generator learns as a type test marked `equality`."""
    from lacuna_agent import recorder

    values.clear()
    align = values.decode({"kind": "int", "value": "1", "sym": "align"}, lambda obj: False)
    rec = recorder.start(lambda code: True)
    try:
        assert (align == "right") is not True
        assert (None != align) is True  # noqa: E711 - the comparison under test
        assert (align == 1.0) is not False  # numbers compare across types: no type test
    finally:
        recorder.stop()
    assert sorted(rec.type_tests.values(), key=lambda t: t["flip"]) == [
        {"name": "align", "value": True, "flip": ["none"], "equality": True},
        {"name": "align", "value": False, "flip": ["str"], "equality": True},
    ]


def test_standard_library_values_are_rebuilt_by_their_constructors():
    import datetime
    import decimal
    import fractions

    def int_(v):
        return {"kind": "int", "value": str(v)}

    assert values.std_value(datetime.date(1985, 4, 15)) == {
        "kind": "std", "class": "datetime.date", "args": [int_(1985), int_(4), int_(15)]}
    assert values.std_value(datetime.timedelta(days=-1, seconds=5))["args"] == [
        int_(-1), int_(5), int_(0)]
    assert values.std_value(decimal.Decimal("-1.50"))["args"] == [
        {"kind": "str", "value": "-1.50"}]
    assert values.std_value(fractions.Fraction(2, 6))["args"] == [int_(1), int_(3)]
    # Equal to nothing: none.
    assert values.std_value(decimal.Decimal("NaN")) is None
    # An aware datetime: its offset from UTC in seconds (rebuilt at a fixed-offset zone, the
    # same instant, whatever its zone's class); an aware time, or an offset within a second,
    # none.
    utc = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    assert values.std_value(utc)["utcoffset"] == 0
    east = datetime.timezone(datetime.timedelta(hours=5, minutes=30), "IST")
    assert values.std_value(datetime.datetime(2020, 1, 1, 9, tzinfo=east))["utcoffset"] == 19800
    assert values.std_value(datetime.time(9, tzinfo=east)) is None
    odd = datetime.timezone(datetime.timedelta(microseconds=5))
    assert values.std_value(datetime.datetime(2020, 1, 1, tzinfo=odd)) is None
    assert "utcoffset" not in values.std_value(datetime.datetime(2020, 1, 1))

    # Another zone's offset could be user code: never read.
    class Zone(datetime.tzinfo):
        def utcoffset(self, dt):
            raise AssertionError("user code ran")

    assert values.std_value(datetime.datetime(2020, 1, 1, tzinfo=Zone())) is None

    # A subclass's attributes could be user code: never read.
    class Day(datetime.date):
        @property
        def year(self):
            raise AssertionError("user code ran")

    assert values.std_value(Day(2020, 1, 1)) is None


def test_an_objects_public_fields_are_read_without_its_code():
    import datetime

    class Span:
        def __init__(self):
            self.start = datetime.date(2024, 1, 1)
            self.days = SymInt(7, "days")
            self._cache = {}
            self.handle = object()

        def __getattribute__(self, name):
            raise AssertionError("user code ran")

    assert values.public_fields(Span()) == [
        ["start", values.std_value(datetime.date(2024, 1, 1))],
        ["days", {"kind": "int", "value": "7"}],
    ]
    assert values.public_fields(3) is None


def test_slotted_objects_fields_are_read_through_their_member_descriptors():
    import attrs

    class Point:
        __slots__ = ("x", "y", "__secret", "unset")

        def __init__(self):
            self.x = 1.5
            self.y = -2
            self.__secret = "s"

        @property
        def norm(self):
            raise AssertionError("user code ran")

        def __getattribute__(self, name):
            raise AssertionError("user code ran")

    class Labelled(Point):
        __slots__ = "label"

        def __init__(self):
            super().__init__()
            object.__setattr__(self, "label", "p")

    assert values.public_fields(Point()) == [
        ["x", {"kind": "float", "value": 1.5}],
        ["y", {"kind": "int", "value": "-2"}],
    ]
    # Private slots are mangled and left out; a slot declared and never set is not a field.
    assert values.instance_fields(Point()) == {"x": 1.5, "y": -2, "_Point__secret": "s"}
    assert values.public_fields(Labelled())[0] == ["label", {"kind": "str", "value": "p"}]

    @attrs.define(frozen=True)
    class Affine:
        a: float = attrs.field(converter=float)
        b: float = 0.0

    assert values.public_fields(Affine(2)) == [
        ["a", {"kind": "float", "value": 2.0}],
        ["b", {"kind": "float", "value": 0.0}],
    ]


def test_a_key_tested_against_keys_of_another_kind_is_a_type_test():
    """`k in d` while the generator gave `k` an int and `d`'s keys are texts: no key of its kind
    can equal it, so the membership test is recorded as `==` across kinds would be."""
    from lacuna_agent import recorder
    from lacuna_agent.containers import SymDict

    values.clear()
    key = values.decode({"kind": "int", "value": "0", "sym": "keys[0]"}, lambda obj: False)
    d = SymDict({"k0": 1, "k1": 2}, ["var", "d.__len__", "int"])
    rec = recorder.start(lambda code: True)
    try:
        assert (key in d) is False
    finally:
        recorder.stop()
    assert list(rec.type_tests.values()) == [
        {"name": "keys[0]", "value": False, "flip": ["str"], "equality": True}]


def _text(value, sym):
    """A symbolic string input named `sym`."""
    return values.decode({"kind": "str", "value": value, "sym": sym}, lambda obj: False)


def _key_and_table(key):
    """A symbolic key of value `key`, and a dict the search built holding one symbolic key,
    `"k0"` (`table.__key0__`)."""
    from lacuna_agent.containers import SymDict

    values.clear()
    return _text(key, "key"), SymDict({_text("k0", "table.__key0__"): 1},
                                     ["var", "table.__len__", "int"])


def test_a_dicts_get_records_whether_the_key_is_present():
    """`table.get(key) is None` is decided by the key's presence: `get` records it as `key in
    table` does, so the solver can ask for a key the dict holds."""
    from lacuna_agent import recorder

    key, d = _key_and_table("x")
    rec = recorder.start(lambda code: True)
    try:
        assert d.get(key) is None
        assert d.get(key, 7) == 7
    finally:
        recorder.stop()
    assert d.get("k0") == 1
    constraints = [e for e in rec.events if e["k"] == "constraint"]
    assert [(e["value"], e["expr"]) for e in constraints] == [
        (False, ["==", ["var", "key", "str"], ["var", "table.__key0__", "str"]])] * 2


def test_a_dicts_item_records_whether_the_key_is_present():
    """`table[key]` raising `KeyError` is decided by the key's presence, recorded as `key in
    table` is: a handler of the `KeyError` can be reached, and left, by the solver's keys."""
    from lacuna_agent import recorder

    key, d = _key_and_table("x")
    same = _text("k0", "key")
    rec = recorder.start(lambda code: True)
    try:
        with pytest.raises(KeyError):
            d[key]
        assert d[same] == 1
    finally:
        recorder.stop()
    assert d["k0"] == 1
    constraints = [e for e in rec.events if e["k"] == "constraint"]
    # Comparing two equal symbolic strings (when the dict hashes them) records their equality
    # too: the same condition, once more.
    assert {(e["value"], _ordered(e["expr"])) for e in constraints} == {
        (False, ("==", ("var", "key", "str"), ("var", "table.__key0__", "str"))),
        (True, ("==", ("var", "key", "str"), ("var", "table.__key0__", "str")))}
    assert constraints[0]["value"] is False


def test_an_empty_dicts_membership_asks_for_a_longer_dict():
    """No key of an empty dict can equal the key looked up: the solver is asked for a dict that
    holds one, then (through the test above) for that key."""
    from lacuna_agent import recorder
    from lacuna_agent.containers import SymDict

    values.clear()
    key = values.decode({"kind": "str", "value": "", "sym": "key"}, lambda obj: False)
    d = SymDict({}, ["var", "table.__len__", "int"])
    rec = recorder.start(lambda code: True)
    try:
        with pytest.raises(KeyError):
            d[key]
    finally:
        recorder.stop()
    constraints = [e for e in rec.events if e["k"] == "constraint"]
    assert [(e["value"], e["expr"]) for e in constraints] == [
        (False, [">", ["var", "table.__len__", "int"], ["int", "0"]])]


def _ordered(expr):
    """An `==` of two variables with its operands in order, as nested tuples."""
    op, left, right = expr
    return (op,) + tuple(sorted((tuple(left), tuple(right))))


def test_a_callable_inputs_call_raises_where_the_generator_chose_it():
    fn = values.decode({"kind": "callable", "sym": "fn",
                        "returns": [{"kind": "raise"}, {"kind": "int", "value": "3"}]},
                       lambda obj: False)
    try:
        fn(1, key=2)
    except Exception as e:
        assert str(e) == "raised by a generated input"
    else:
        raise AssertionError("the first call raises")
    assert fn() == 3 and fn() == 3, "then it returns, the last value repeating"
    assert fn.calls == 3


def test_a_raising_call_raises_the_exception_class_chosen_or_refuses_the_input():
    import pytest

    fn = values.decode({"kind": "callable", "sym": "fn", "returns": [
        {"kind": "raise", "exception": "builtins:KeyError"},
        {"kind": "int", "value": "1"}]},
        lambda obj: False)
    with pytest.raises(KeyError):
        fn()
    # No single-message constructor: the input is refused, not run raising something else.
    for name in ("json:JSONDecodeError", "json:nothing_here", "builtins:len"):
        with pytest.raises(values.InputError):
            values.decode({"kind": "callable", "sym": "g", "returns": [
                {"kind": "raise", "exception": name}]}, lambda obj: False)


def test_an_iterator_input_is_consumed_by_next_and_each_step_is_a_condition_on_its_length():
    """`Iterator[int]`: `next()` takes its items (`next` of a list raises TypeError), and each
    step records whether its length exceeds the items taken so far, so that the solver can
    ask for an empty one (`StopIteration` at once) or a longer one."""
    import pytest

    from lacuna_agent import recorder

    values.clear()
    it = values.decode({"kind": "iterator", "sym": "it", "items": [
        {"kind": "int", "value": "4", "sym": "it[0]"}]}, lambda obj: False)
    rec = recorder.start(lambda code: True)
    try:
        assert concrete(next(it)) == 4
        with pytest.raises(StopIteration):
            next(it)
    finally:
        recorder.stop()
    length = ["var", "it.__len__", "int"]
    assert [(e["expr"], e["value"]) for e in rec.events if e["k"] == "constraint"] == [
        ([">", length, ["int", "0"]], True), ([">", length, ["int", "1"]], False)]
    assert values.named_inputs[id(it)] == (it, "it"), "a type test on it names the input"
    empty = values.decode({"kind": "iterator", "items": []}, lambda obj: False)
    assert iter(empty) is empty and next(empty, "none") == "none"


def test_a_class_built_in_c_keeps_its_symbolic_numbers():
    """C code is given the object behind a returned object's proxy (a `timezone` takes a
    `timedelta`), but numbers the generator chose stay symbolic: a `slice` of them, or any
    C class that stores its arguments, still answers conditions the solver can flip."""
    from lacuna_agent.sym import expr_of

    values.clear()
    part = values.decode({"kind": "object", "class": "builtins:slice", "sym": "s", "args": [
        {"kind": "int", "value": "2", "sym": "s.start"},
        {"kind": "int", "value": "9", "sym": "s.stop"}], "kwargs": {}}, lambda _: False)
    assert (part.start, part.stop) == (2, 9)
    assert isinstance(part.start, SymInt)
    assert "s.start" in repr(expr_of(part.start > 5))
