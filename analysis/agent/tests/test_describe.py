"""Describing methods: a class's description is made once per worker, not once per method."""

import abc
import argparse
import dataclasses
import sys
import types

from lacuna_agent import describe


@dataclasses.dataclass
class Item:
    name: str
    price: int


class Cart:
    def __init__(self, items: list):
        self.items = items

    def add(self, item: Item, count: int = 1) -> None:
        self.items.extend([item] * count)

    def total(self, discount: float) -> float:
        return sum(i.price for i in self.items) * (1 - discount)


def project(cls):
    return cls in (Item, Cart)


def test_the_receiver_is_described_once_for_all_its_methods(monkeypatch):
    describe._CLASSES.clear()
    walks = []
    real = describe._describe_class

    def counting(cls, is_project_class, depth):
        walks.append((cls.__name__, depth))
        return real(cls, is_project_class, depth)

    monkeypatch.setattr(describe, "_describe_class", counting)
    add = describe.describe(Cart.add, Cart, project)
    total = describe.describe(Cart.total, Cart, project)
    assert add["owner"] is total["owner"]
    assert add["owner"]["class"].endswith(":Cart")
    assert [m["name"] for m in add["owner"]["methods"]] == ["add", "total"]
    # `Cart` as the receiver once; `Item` once as `add`'s parameter (depth 1) and once inside
    # the receiver's description of `add` (depth 2).
    assert sorted(walks) == [("Cart", 1), ("Item", 1), ("Item", 2)]
    describe.describe(Cart.add, Cart, project)
    assert len(walks) == 3, "nothing walked again"


def test_a_guidance_modules_factories_and_mocks_are_described():
    import types

    guidance = types.ModuleType("shop_guidance")

    def make_cart(items: list) -> Cart:
        return Cart(items)

    def now(*args, **kwargs) -> float:
        return 0.0

    make_cart.__module__ = now.__module__ = guidance.__name__
    make_cart.__lacuna_factory__ = True
    now.__lacuna_mock__ = "time.time"
    guidance.make_cart, guidance.now = make_cart, now
    described = describe.guidance(guidance, project)
    assert [m["target"] for m in described["mocks"]] == ["time.time"]
    assert [(f["function"].split(":")[0], f["class"]) for f in described["factories"]] == [
        ("shop_guidance", describe._name(Cart))]


class Complement:
    def __init__(self, included=None):
        self.included = included


def _normalised(other):
    if type(other) in (set, frozenset):
        return other, None
    elif type(other) is Complement:
        return other.included, None
    return NotImplemented, None


def intersect(items, other):
    included, _ = _normalised(other)
    return included if included is not NotImplemented else items


def in_this_module(obj):
    return getattr(obj, "__module__", None) == __name__


def test_a_parameter_passed_to_a_project_function_takes_the_kinds_it_tests_for():
    described = describe.describe(intersect, None, in_this_module)
    other = next(p for p in described["params"] if p["name"] == "other")
    kinds = [k.get("class", k["kind"]) for k in other["type"]["instances"]]
    # A frozenset is described as a set: both are built as a set.
    assert kinds == ["set", describe._name(Complement)]
    items = next(p for p in described["params"] if p["name"] == "items")
    assert items["type"] == {"kind": "any"}, "a parameter used in no test keeps no kinds"


def test_a_library_function_a_parameter_is_passed_to_is_not_read():
    def project_only_here(obj):
        return obj is intersect

    described = describe.describe(intersect, None, project_only_here)
    other = next(p for p in described["params"] if p["name"] == "other")
    assert other["type"] == {"kind": "any"}


def test_a_literal_enum_member_is_that_member_of_its_enum():
    import enum
    import typing

    class Sentinel(enum.Enum):
        absent = object()
        other = object()

    tree = describe.type_tree(
        typing.Union[bool, typing.Literal[Sentinel.absent]], in_this_module, 0)
    assert tree == {"kind": "union", "of": [
        {"kind": "bool"},
        {"kind": "enum", "class": describe._name(Sentinel), "members": ["absent"]}]}
    mixed = describe.type_tree(typing.Literal["a", 2, Sentinel.other], in_this_module, 0)
    assert mixed == {"kind": "union", "of": [
        {"kind": "literal", "values": ["a", 2]},
        {"kind": "enum", "class": describe._name(Sentinel), "members": ["other"]}]}
    assert describe.type_tree(typing.Literal["x"], in_this_module, 0) == {
        "kind": "literal", "values": ["x"]}


def _init_wait_gen(wait_gen, wait_gen_kwargs):
    kwargs = {k: v for (k, v) in wait_gen_kwargs.items()}
    return wait_gen(**kwargs)


def retry(wait_gen, wait_gen_kwargs, names):
    names.append("retry")
    return _init_wait_gen(wait_gen, wait_gen_kwargs)


def test_a_method_only_one_kind_has_gives_a_parameter_that_kind_through_project_calls():
    described = describe.describe(retry, None, in_this_module)
    kinds = {p["name"]: [k["kind"] for k in p["type"].get("instances", [])]
             for p in described["params"]}
    assert kinds == {"wait_gen": ["callable"], "wait_gen_kwargs": ["dict"], "names": ["list"]}


def constant(interval=1):
    while True:
        yield interval


def not_a_generator():
    return 0


def _started(wait_gen):
    initialized = wait_gen()
    initialized.send(None)
    return initialized


def _call_handlers(handlers, details):
    for handler in handlers:
        handler(details)
    return [h for h in handlers]


def retry_later(wait_gen, on_success, plain, items):
    wait = _started(wait_gen)
    _call_handlers(on_success, {})
    _call_handlers(items, plain)
    return wait


def test_what_a_project_function_does_with_a_parameter_says_what_it_is():
    described = describe.describe(retry_later, None, in_this_module)
    types = {p["name"]: p["type"] for p in described["params"]}
    # Called and resumed there: the project's generator functions first, then any function.
    assert types["wait_gen"]["instances"] == [
        {"kind": "callable", "returns": {"kind": "any"}, "named": describe._reference(constant)},
        {"kind": "callable", "returns": {"kind": "any"}}]
    # Iterated there, what it holds called: a list of functions.
    assert types["on_success"]["instances"] == [
        {"kind": "list", "of": {"kind": "callable", "returns": {"kind": "any"}}}]
    # The same helper's other parameter is only passed on.
    assert types["plain"] == {"kind": "any"}
    assert types["items"]["instances"][0]["kind"] == "list"


class Policy(abc.ABC):
    @abc.abstractmethod
    def __call__(self, attempt): ...

    def exhausted(self, attempt: int) -> bool:
        return self(attempt) > 3

    def describe(self) -> str:
        return type(self).__name__


class Overriding(Policy):
    def __call__(self, attempt):
        return attempt

    def exhausted(self, attempt: int) -> bool:
        return False


class Counting(Policy):
    def __init__(self, limit: int = 3):
        self.limit = limit

    def __call__(self, attempt):
        return attempt


def test_a_method_of_an_abstract_class_runs_on_a_subclass_that_inherits_it():
    def in_here(obj):
        return obj in (Policy, Overriding, Counting)

    described = describe.describe(Policy.exhausted, Policy, in_here)
    # `Overriding` has its own `exhausted`: `Counting` runs `Policy.exhausted`.
    assert described["owner"]["class"] == describe._name(Counting)
    assert [p["name"] for p in described["owner"]["init"]] == ["limit"]
    # A class that can be built is its own methods' receiver.
    assert describe.describe(Counting.__call__, Counting, in_here)["owner"]["class"] == \
        describe._name(Counting)


def test_a_class_imported_only_for_type_checking_is_read_once_its_module_is_imported(
        tmp_path, monkeypatch):
    package = tmp_path / "typedpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "state.py").write_text(
        "class State:\n    def __init__(self, attempt: int):\n        self.attempt = attempt\n")
    (package / "policy.py").write_text(
        "import typing\n\nif typing.TYPE_CHECKING:\n    from .state import State\n\n\n"
        "def exhausted(state: 'State') -> bool:\n    return state.attempt > 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    policy = importlib.import_module("typedpkg.policy")
    state = importlib.import_module("typedpkg.state")

    def in_package(obj):
        return getattr(obj, "__module__", "").startswith("typedpkg")

    described = describe.describe(policy.exhausted, None, in_package)
    assert described["params"][0]["type"]["kind"] == "class"
    assert described["params"][0]["type"]["class"] == describe._name(state.State)


def test_an_alias_of_a_module_of_the_package_that_only_type_checking_imports_is_read(
        tmp_path, monkeypatch):
    # tomli: `if TYPE_CHECKING: from ._types import Pos`, with `Pos = int` in `_types`, a module
    # nothing else imports.
    package = tmp_path / "aliaspkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .parser import skip\n")
    (package / "_types.py").write_text("from typing import Tuple\nPos = int\nKey = Tuple[str, ...]\n")
    (package / "parser.py").write_text(
        "from __future__ import annotations\n\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n"
        "    from ._types import Key, Pos\n    from .missing import Absent\n\n\n"
        "def skip(src: str, pos: Pos, key: Key, other: Absent) -> Pos:\n    return pos\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    parser = importlib.import_module("aliaspkg.parser")
    assert "aliaspkg._types" not in sys.modules
    described = describe.describe(parser.skip, None, lambda obj: False)
    kinds = {p["name"]: p["type"] for p in described["params"]}
    assert kinds["src"]["kind"] == "str"
    assert kinds["pos"]["kind"] == "int"
    assert kinds["key"] == {"kind": "tuple_of", "of": {"kind": "str"}}
    # A module that does not import leaves its names unresolved, with the reason.
    assert kinds["other"]["kind"] != "int"


def takes_a_policy(policy: Policy, attempt: int) -> bool:
    return policy.exhausted(attempt)


def test_a_parameter_of_an_abstract_class_is_one_of_its_concrete_subclasses():
    def in_here(obj):
        return obj in (Policy, Overriding, Counting) or obj is takes_a_policy

    described = describe.describe(takes_a_policy, None, in_here)
    tree = described["params"][0]["type"]
    assert tree["kind"] == "union"
    assert [t["class"] for t in tree["of"]] == [describe._name(Overriding), describe._name(Counting)]


def test_an_iterator_or_a_generator_is_an_iterator_over_its_items_and_an_iterable_is_not():
    import collections.abc
    import sys
    import typing

    of_int = {"kind": "iterator", "of": {"kind": "int"}}
    declared = [typing.Iterator[int], typing.Generator[int, None, None]]
    if sys.version_info >= (3, 9):
        declared.append(collections.abc.Iterator[int])
    for t in declared:
        assert describe.type_tree(t, in_this_module, 0) == of_int, t
    for t in (typing.Iterator, collections.abc.Iterator, collections.abc.Generator):
        assert describe.type_tree(t, in_this_module, 0) == {
            "kind": "iterator", "of": {"kind": "any"}}, t
    # A list is an iterable: `Iterable[int]` is built as before, a list or a set.
    assert describe.type_tree(typing.Iterable[int], in_this_module, 0)["kind"] == "union"


def first_or(items, default):
    try:
        return next(items)
    except StopIteration:
        return default


def test_a_parameter_next_is_called_on_is_an_iterator_first():
    described = describe.describe(first_or, None, in_this_module)
    kinds = {p["name"]: p["type"].get("instances") for p in described["params"]}
    assert kinds == {"items": [{"kind": "iterator", "of": {"kind": "any"}}], "default": None}


class Shade:
    """colour's `Color`: a constructor that copies another instance of its own class."""

    def __init__(self, color=None):
        if isinstance(color, Shade):
            self.web = color.web
        else:
            self.web = color if color else "black"

    def lighter(self):
        return self.web


def test_a_constructor_that_tests_for_its_own_class_is_described_to_a_bounded_depth():
    described = describe.describe(Shade.lighter, Shade, lambda c: c is Shade)

    def nested(tree):
        """How many `Shade`s are built one inside another, at most."""
        kinds = [k for k in tree.get("instances", []) if k.get("class") == describe._name(Shade)]
        return 1 + max((nested(k["init"][0]["type"]) for k in kinds), default=0)

    owner = described["owner"]
    assert owner["class"] == describe._name(Shade)
    assert 2 <= nested(owner["init"][0]["type"]) <= describe.MAX_DEPTH


def runs_a_command(args: argparse.Namespace, extra: types.SimpleNamespace) -> str:
    if args.verbose:
        return args.name.upper()
    return args.name


def test_a_namespace_parameter_holds_the_attributes_the_function_reads():
    # `args: argparse.Namespace` (a command's parsed arguments): built as that class, with
    # the attributes the function reads as its keyword arguments, each of the kind its
    # methods called there ask for.
    described = describe.describe(runs_a_command, None, lambda c: False)
    args, extra = (p["type"] for p in described["params"])
    assert args == {"kind": "class", "class": "argparse:Namespace", "methods": [], "init": [
        {"name": "verbose", "kind": "keyword_only", "type": {"kind": "any"}},
        # `args.name.upper()`: a text.
        {"name": "name", "kind": "keyword_only", "type": {"kind": "str"}}]}
    assert extra == {"kind": "class", "class": "types:SimpleNamespace", "init": [],
                     "methods": []}


class Shelf:
    def __init__(self, locker):
        self.locker = locker

    def swap(self, other):
        if isinstance(other, self.__class__):
            self.locker, other.locker = other.locker, self.locker
        return self.locker.count

    @classmethod
    def of(cls, value):
        return value if isinstance(value, cls) else cls(value)


def test_a_parameter_tested_against_the_receivers_class_is_one_of_it():
    for name in ("swap", "of"):
        described = describe.describe(getattr(Shelf, name), Shelf, in_this_module)
        (param,) = described["params"]
        assert param["type"]["instances"][0]["class"] == describe._name(Shelf)


def test_the_classes_the_tests_passed_come_first():
    """The classes of the objects the project's tests passed: to a parameter by name, to the
    receiver's constructor by position; the project's, and value types the generator builds
    (a `date`); a name that is no class, or a library's class it does not build, adds
    nothing."""
    observed = {"params": {"other": [f"{__name__}.Cart", f"{__name__}.Nowhere",
                                     "json.JSONDecoder", "datetime.date"]},
                "init": {"0": [f"{__name__}.Item"]}}
    described = describe.describe(Shelf.swap, Shelf, in_this_module, observed=observed)
    (other,) = described["params"]
    # Then what its uses ask for: the receiver's class, a namespace holding `locker`.
    assert [k.get("class") for k in other["type"]["instances"]] == \
        [describe._name(Cart), "datetime:date", describe._name(Shelf), "types:SimpleNamespace"]
    date = other["type"]["instances"][1]
    assert [p["name"] for p in date["init"]] == ["year", "month", "day"]
    (locker,) = described["owner"]["init"]
    assert [k.get("class") for k in locker["type"]["instances"]] == [describe._name(Item)]


def holds(table, key):
    return key in table


def test_a_parameter_used_as_no_object_is_not_tried_as_the_class_passed_first():
    """`key in table`: a key the tests passed as an object is better tried as a number first,
    which the solver can make equal to another; nothing is added."""
    observed = {"params": {"key": [f"{__name__}.Cart"]}}
    described = describe.describe(holds, None, in_this_module, observed=observed)
    key = next(p for p in described["params"] if p["name"] == "key")
    assert key["type"] == {"kind": "any"}
