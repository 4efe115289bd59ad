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


# Audit hooks cannot be removed: one sandbox for the tests that describe through a runtime.
_SANDBOX = None


def _runtime(root, monkeypatch):
    global _SANDBOX
    from lacuna_agent.execute import Runtime
    from lacuna_agent.sandbox import Guard, Sandbox

    if _SANDBOX is None:
        _SANDBOX = Sandbox()
    scratch = root / "scratch"
    scratch.mkdir()
    monkeypatch.chdir(scratch)
    _SANDBOX.configure(str(scratch))
    _SANDBOX.effects = []
    runtime = Runtime(_SANDBOX, Guard(_SANDBOX))
    runtime.roots = [str(root.resolve())]
    return runtime


def _aliased_package(root, name, aliases):
    """A package whose `parser.skip` annotates with a name that only `TYPE_CHECKING` imports
    from `_types`, a module nothing else imports, whose text is `aliases`."""
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_types.py").write_text(aliases)
    (package / "parser.py").write_text(
        "from __future__ import annotations\n\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n"
        "    from ._types import Pos\n\n\ndef skip(src: str, pos: Pos) -> Pos:\n    return pos\n")


def test_a_module_that_annotations_import_runs_under_the_sandbox(tmp_path, monkeypatch):
    canary = tmp_path / "canary.txt"
    canary.write_text("alive")
    _aliased_package(tmp_path, "writingpkg",
                     "open(%r, 'w').write('overwritten')\nPos = int\n" % str(canary))
    monkeypatch.syspath_prepend(str(tmp_path))
    runtime = _runtime(tmp_path, monkeypatch)
    described = runtime.describe({"target": {"module": "writingpkg.parser", "qualname": "skip"}})
    assert canary.read_text() == "alive"
    assert [(e["event"], e["refused"]) for e in _SANDBOX.effects] == [("open", True)]
    # The alias module failed to import: its name is not read, the others are.
    kinds = {p["name"]: p["type"]["kind"] for p in described["params"]}
    assert kinds["src"] == "str" and kinds["pos"] != "int"
    assert not _SANDBOX.active


def test_a_module_that_annotations_import_and_never_ends_is_interrupted(tmp_path, monkeypatch):
    from lacuna_agent import execute

    _aliased_package(tmp_path, "spinningpkg", "while True:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(execute, "IMPORT_SECONDS", 0.5)
    runtime = _runtime(tmp_path, monkeypatch)
    described = runtime.describe({"target": {"module": "spinningpkg.parser", "qualname": "skip"}})
    assert described == {"error": "reading the function's annotations did not finish within "
                                  "0.5 s (a module they import runs that long)"}
    assert signal_left_alone()


def signal_left_alone():
    import signal
    return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
