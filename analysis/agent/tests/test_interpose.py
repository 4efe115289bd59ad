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
