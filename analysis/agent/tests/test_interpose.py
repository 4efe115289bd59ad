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
