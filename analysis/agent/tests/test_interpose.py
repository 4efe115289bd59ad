"""A project module's references to library code, replaced by recording wrappers after it runs:
what they wrap keeps working."""

import functools
import types
from urllib.parse import urlsplit

from lacuna_agent import interpose


def test_a_callable_library_object_imported_by_name_stays_callable():
    module = types.ModuleType("shop.util")
    module.urlsplit = urlsplit  # an `lru_cache` wrapper on 3.11 and later
    module.seven_by = functools.partial(divmod, 7)
    interpose.wrap_globals(module, lambda m: getattr(m, "__name__", m).startswith("shop"))
    assert isinstance(module.seven_by, interpose.ExternalFunction)
    assert module.urlsplit("http://host/path").path == "/path"
    assert module.seven_by(2) == (3, 1)


def test_typing_forms_reached_through_a_wrapped_module_stay_subscriptable():
    import typing

    module = types.ModuleType("shop.core")
    module.typing = typing
    module.json = __import__("json")
    interpose.wrap_globals(module, lambda m: getattr(m, "__name__", m).startswith("shop"))
    assert module.typing is typing  # typing machinery is not the world outside the inputs
    assert isinstance(module.json, interpose.ExternalModule)
    wrapped = interpose.ExternalModule("typing", typing)
    assert wrapped.Optional[int] == typing.Optional[int]
    assert wrapped.List[str] == typing.List[str]


def test_a_library_class_passed_to_a_library_call_is_the_class_itself():
    import functools
    import pathlib

    registry = functools.singledispatch(lambda value: "other")
    wrapped_path = interpose.ExternalFunction("pathlib.Path", pathlib.Path)
    register = interpose.ExternalFunction("functools.singledispatch.register",
                                          registry.register)
    register(wrapped_path, lambda value: "path")
    assert registry(pathlib.Path("a")) == "path"


def test_a_function_a_library_call_returns_is_the_librarys_and_so_are_the_calls_on_it():
    """`registry = singledispatch(NotFound)` in the project's code, then
    `registry.register(Path, handler)` (cattrs builds its converters so): the function
    `singledispatch` returns claims the project's module (`update_wrapper` copied it) but its
    code is functools', so it is wrapped as the library's, and `register` gets the class. A
    dispatcher of the project's own function (`@singledispatch def convert`) stays itself."""
    import pathlib

    interpose.project_code(lambda m: getattr(m, "__name__", m) == __name__,
                           lambda filename: filename == __file__)
    try:
        singledispatch = interpose.ExternalFunction("functools.singledispatch",
                                                    functools.singledispatch)
        path = interpose.ExternalFunction("pathlib.Path", pathlib.Path)

        class NotFound:
            pass

        registry = singledispatch(NotFound)
        assert isinstance(registry, interpose.ExternalFunction)
        registry.register(path, lambda value: "path")
        assert registry(pathlib.Path("a")) == "path"

        def convert(value):
            return "other"

        own = singledispatch(convert)
        assert not isinstance(own, interpose.ExternalFunction)
        own.register(int, lambda value: "int")
        assert own(1) == "int" and own("a") == "other"
    finally:
        interpose.project_code(None, None)


def test_a_returned_object_takes_the_arithmetic_of_the_value_it_stands_for():
    """humanize's `abs(delta)` of a `timedelta` an external call returned, `-delta`,
    `2 * delta`, `delta // 2`: each is what the value gives, itself still a returned object
    whose fields are symbols; conversions are plain."""
    import datetime
    import decimal

    delta = interpose.ReturnedObject(datetime.timedelta(days=-3), "$ret:0")
    assert abs(delta) == datetime.timedelta(days=3)
    assert isinstance(abs(delta), interpose.ReturnedObject)
    assert -delta == datetime.timedelta(days=3)
    assert +delta == delta
    assert 2 * delta == datetime.timedelta(days=-6)
    assert delta // 3 == datetime.timedelta(days=-1)
    assert divmod(delta, datetime.timedelta(days=2)) == (-2, datetime.timedelta(days=1))
    amount = interpose.ReturnedObject(decimal.Decimal("2.5"), "$ret:1")
    assert int(amount) == 2 and float(amount) == 2.5 and round(amount) == 2
    assert amount ** 2 == decimal.Decimal("6.25")
    assert 7 % interpose.ReturnedObject(decimal.Decimal(4), "$ret:2") == 3
    flags = interpose.ReturnedObject(frozenset({1, 2}), "$ret:3")
    assert flags & {2, 3} == {2} and flags | {3} == {1, 2, 3}


def test_the_wall_clocks_are_read_and_the_monotonic_ones_are_not():
    assert {"datetime.datetime.now", "datetime.date.today", "time.time"} <= interpose.CLOCK_READS
    assert not {"time.monotonic", "time.perf_counter"} & interpose.CLOCK_READS
