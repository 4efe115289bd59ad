"""Importing a target's module within a time limit: an import that never ends is interrupted
and reported with the line it was running, and leaves the worker usable."""

import sys

import pytest

from lacuna_agent.execute import ImportTimedOut, _import_within, import_failure


class _Runtime:
    def __init__(self, root):
        self.root = str(root)

    def is_project_file(self, filename):
        return bool(filename) and str(filename).startswith(self.root)


@pytest.fixture
def on_path(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("waits", "spins", "quick"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("name, body, lines", [
    ("waits", "import time\n\ntime.sleep(60)\n", {3}),
    ("spins", "n = 0\nwhile True:\n    n += 1\n", {2, 3}),  # a loop's header or its body
])
def test_an_import_that_never_ends_is_interrupted_where_it_was(on_path, name, body, lines):
    (on_path / ("%s.py" % name)).write_text(body)
    with pytest.raises(ImportTimedOut) as raised:
        _import_within(name, 0.3)
    assert str(raised.value) == "the import did not finish within 0.3 s"
    details = import_failure(raised.value, _Runtime(on_path))
    assert details["type"] == "ImportTimedOut"
    [link] = details["chain"]
    assert link["module"] == name and link["line"] in lines
    assert name not in sys.modules, "a module that did not finish is not left half imported"


def test_an_import_that_ends_in_time_is_the_module_and_leaves_no_timer(on_path):
    import signal
    before = signal.getsignal(signal.SIGALRM)
    (on_path / "quick.py").write_text("VALUE = 3\n")
    assert _import_within("quick", 5.0).VALUE == 3
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before
