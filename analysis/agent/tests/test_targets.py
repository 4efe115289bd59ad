"""Targets by definition: which definition a target names, and the call that reaches it."""

import importlib.util
import textwrap

import pytest

from lacuna_agent import targets

SOURCE = textwrap.dedent('''\
    import asyncio
    from collections.abc import Mapping
    from contextlib import contextmanager
    from functools import singledispatch


    @singledispatch
    def convert(value):
        return "other"


    @convert.register(Mapping)
    def _(value):
        return "mapping"


    def scale(x):
        return x


    def scale(x):
        return 2 * x


    class Box:
        def __init__(self):
            self._size = 1

        @property
        def size(self):
            return self._size

        @size.setter
        def size(self, value):
            self._size = value


    def evens(n):
        for i in range(n):
            if i % 2 == 0:
                yield i


    async def halve(n):
        await asyncio.sleep(0)
        return n // 2


    async def later(n):
        await asyncio.sleep(1)
        return n


    @contextmanager
    def opened(name):
        yield name.upper()


    class Clock:
        def __call__(self):
            return 0


    def now(x):
        return x


    now = Clock()


    def traced(f):
        def wrapper(*args):
            return f(*args)
        return wrapper


    @traced
    def double(x):
        return 2 * x


    class counted:
        def __init__(self, f):
            self.f = f

        def __call__(self, *args):
            return self.f(*args)


    @counted
    def triple(x):
        return 3 * x


    import functools


    class cached:
        def __init__(self, func):
            self.func = func

        def __get__(self, instance, owner):
            value = instance.__dict__[self.func.__name__] = self.func(instance)
            return value


    class Account:
        def __init__(self):
            self.cents = 250

        @cached
        def dollars(self):
            return self.cents / 100

        @functools.cached_property
        def label(self):
            return "acct"


    def threshold(limit, strict=False):
        def check(v: int) -> bool:
            return v > limit

        def never(v):
            return None

        if strict:
            return never
        return check
''')


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "kinds.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("kinds", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def target(qualname, **call):
    return {"module": "kinds", "qualname": qualname, "call": call}


def test_a_registration_is_called_through_its_dispatcher_with_the_registered_type(module):
    resolved = targets.resolve(module, target("convert.register(Mapping)", through="convert",
                                              lines=[12, 13], form="dispatch"))
    assert resolved.definition.__code__.co_firstlineno == 12
    assert resolved.registered.__name__ == "Mapping"
    assert targets.invoke(resolved, None, [{"k": 1}], {}) == "mapping"


def test_a_name_bound_again_reaches_only_its_last_definition(module):
    last = targets.resolve(module, target("scale@21", through="scale", lines=[21, 21]))
    assert targets.invoke(last, None, [3], {}) == 6
    with pytest.raises(LookupError, match="bound again to the definition at line 21: no call "
                                          "by its name reaches the definition at line 17"):
        targets.resolve(module, target("scale@17", through="scale", lines=[17, 17]))


def test_a_name_bound_to_an_object_after_its_definition_does_not_reach_it(module):
    with pytest.raises(LookupError, match="`now` is bound again to a `Clock` object: no call "
                                          "by its name reaches the definition at line 64"):
        targets.resolve(module, target("now", lines=[64, 64]))


def test_a_wrapper_without_wraps_is_what_the_name_calls(module):
    wrapped = targets.resolve(module, target("double", lines=[77, 78]))
    assert targets.invoke(wrapped, None, [3], {}) == 6
    by_class = targets.resolve(module, target("triple", lines=[90, 91]))
    assert targets.invoke(by_class, None, [3], {}) == 9


def test_property_accessors_are_reached_through_attribute_access(module):
    box = module.Box()
    getter = targets.resolve(module, target("Box.size", lines=[29, 30], form="property-get"))
    setter = targets.resolve(module, target("Box.size.setter", through="Box.size",
                                            lines=[33, 34], form="property-set"))
    assert targets.invoke(setter, box, [5], {}) is None
    assert targets.invoke(getter, box, [], {}) == 5
    with pytest.raises(LookupError, match="does not use the set defined at line 30"):
        targets.resolve(module, target("Box.size.setter", through="Box.size",
                                       lines=[29, 30], form="property-set"))


def test_generators_coroutines_and_context_managers_are_iterated_run_and_entered(module):
    assert targets.invoke(targets.resolve(module, target("evens", form="generator")),
                          None, [5], {}) == [0, 2, 4]
    endless = targets.resolve(module, target("evens", form="generator"))
    assert len(targets.invoke(endless, None, [10 ** 6], {})) == targets.MAX_ITEMS
    assert targets.invoke(targets.resolve(module, target("halve", form="async")),
                          None, [9], {}) == 4
    assert targets.invoke(targets.resolve(module, target("opened", form="with")),
                          None, ["a"], {}) == "A"


def test_a_coroutine_that_needs_an_event_loop_is_the_agents_limit_not_an_outcome(module):
    resolved = targets.resolve(module, target("later", form="async"))
    with pytest.raises(targets.NeedsEventLoop):
        targets.invoke(resolved, None, [1], {})


def test_cached_properties_are_reached_through_an_instance(module):
    # Read from the class, the project's own descriptor would run its getter on None.
    for name, value in (("dollars", 2.5), ("label", "acct")):
        line = module.Account.__dict__[name].func.__code__.co_firstlineno
        getter = targets.resolve(module, target("Account." + name, lines=[line - 1, line + 1],
                                                form="property-get"))
        assert targets.invoke(getter, module.Account(), [], {}) == value


def test_a_nested_function_is_called_as_the_function_around_it_returns_it(module):
    line = module.threshold.__code__.co_firstlineno + 1
    resolved = targets.resolve(module, target("threshold.<locals>.check", through="threshold",
                                              lines=[line, line], form="returned"))
    # Described from its code object, without running `threshold`.
    assert resolved.definition.__qualname__ == "threshold.<locals>.check"
    assert resolved.definition.__code__.co_varnames[:1] == ("v",)
    check = module.threshold(10)
    assert targets.not_returned(resolved, check) is None
    assert targets.invoke(resolved, check, [11], {}) is True
    assert targets.not_returned(resolved, module.threshold(10, strict=True)) == (
        "the call of `threshold` returned the function `never` defined at line %d, not the "
        "function `check` defined at line %d" % (line + 3, line))
    assert targets.not_returned(resolved, None) == (
        "the call of `threshold` returned a `NoneType`, not the function `check` defined at "
        "line %d" % line)
    with pytest.raises(LookupError, match="`threshold` does not define a function at line 3"):
        targets.resolve(module, target("threshold.<locals>.check", through="threshold",
                                       lines=[3, 3], form="returned"))


OPTIONAL = textwrap.dedent('''\
    import sys

    try:
        import json
        import lacuna_no_such_module as yaml

        def to_yaml(value):
            return yaml.dump(value)
    except ImportError:
        pass

    if sys.maxsize < 0:
        def never_here(value):
            return value
''')


def test_a_function_an_import_kept_from_being_defined_is_said_so(tmp_path):
    """`toYAML` of munch: defined in a `try` block whose `import yaml` failed; a definition
    under an `if` whose condition was false; a name the module never binds."""
    path = tmp_path / "optional.py"
    path.write_text(OPTIONAL)
    spec = importlib.util.spec_from_file_location("optional", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def why(qualname):
        with pytest.raises(targets.Unreachable) as raised:
            targets.resolve(module, {"module": "optional", "qualname": qualname})
        return str(raised.value)

    assert why("to_yaml") == (
        "`to_yaml` is not defined once `optional` is imported here: its definition (line 7) "
        "is in the `try` block at line 3, which stopped at `import lacuna_no_such_module as "
        "yaml` (line 5): that import failed here (not installed for this interpreter?)")
    assert why("never_here") == (
        "`never_here` is not defined once `optional` is imported here: its definition "
        "(line 13) is under the `if` at line 12, whose condition was false")
    assert why("nowhere") == "module 'optional' has no attribute 'nowhere'"
