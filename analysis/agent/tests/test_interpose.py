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
