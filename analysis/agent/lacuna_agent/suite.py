"""The project's own suite, run with real pytest inside the worker (same interpreter, same
sandbox, same limits as generated inputs: the suite is user code too), through a plugin that:

- traces every test (setup, call and teardown) with the tracer that maps jumps to branch sides,
  and sends each test's outcome as soon as it ends — with, for a passing test, its run (branch
  events and lines, as an `execute` response has them) and the functions it reached;
- stops a test phase still running after `timeout_ms` (it fails with `TestTimeout`);
- reports collection errors, naming the module an import could not find;
- records what passing tests show (program points, profiles, call sequences: `observe`).

Project modules are imported as they are (no interposed builtins or wrappers): only traced.
Tests and `conftest.py` are not project code. pytest's cache is off, its temporary directories
(`tmp_path`) and every `tempfile` live in the scratch directory.
"""

import io
import os
import re
import signal
import sys
import tempfile
import time

try:
    import pytest

    from . import plugins_off
    _NO_PYTEST = None
except ImportError as e:
    pytest = plugins_off = None
    _NO_PYTEST = "%s: %s" % (type(e).__name__, e)

from . import recorder
from .observe import Observer
from .tracer import MONITORING, TOOL_ID

MISSING = re.compile(r"No module named '([^']+)'")
MAX_MESSAGE = 2000


class TestTimeout(BaseException):
    """A test phase ran out of time (a BaseException: `except Exception` in a test does not
    swallow it; pytest reports the test as failed)."""

    __test__ = False


def _is_test_file(real, test_dirs):
    name = os.path.basename(real)
    if name == "conftest.py" or (name.startswith("test_") and name.endswith(".py")) \
            or name.endswith("_test.py"):
        return True
    return any(real.startswith(d + os.sep) for d in test_dirs)


def _missing(text):
    found = MISSING.search(text or "")
    return found.group(1) if found else None


class SuitePlugin:
    def __init__(self, runtime, observer, send, timeout):
        self.runtime = runtime
        self.observer = observer
        self.send = send
        self.timeout = timeout
        self.current = None
        self.collection_errors = []
        self.counts = {}

    # -- collection -----------------------------------------------------------------------

    def pytest_collectreport(self, report):
        if report.failed:
            text = _text(report)
            error = {"path": report.nodeid or str(getattr(report, "fspath", "")),
                     "message": text[-MAX_MESSAGE:]}
            missing = _missing(text)
            if missing:
                error["missing"] = missing
            self.collection_errors.append(error)

    def _hookwrapper(f):  # noqa: N805 - a decorator used in the class body
        if pytest is None:
            return f  # never registered: `run_suite` says pytest is missing
        return pytest.hookimpl(hookwrapper=True)(f)

    # -- one test -----------------------------------------------------------------------------

    @_hookwrapper
    def pytest_runtest_protocol(self, item, nextitem):
        runtime = self.runtime
        self.current = {"outcome": None, "duration": 0.0, "message": None}
        self.send({"started": item.nodeid})
        runtime.sandbox.effects = []
        rec = recorder.start(lambda code: runtime.is_project_file(code.co_filename))
        self.observer.begin_test(item.nodeid)
        runtime.tracer.start(rec)
        started = time.perf_counter()
        observation = None
        try:
            yield
        finally:
            observation = runtime.tracer.stop()
            recorder.stop()
        current, self.current = self.current, None
        outcome = current["outcome"] or "passed"
        passed = outcome == "passed"
        reached = self.observer.end_test(passed)
        duration = current["duration"] or (time.perf_counter() - started)
        record = {"id": item.nodeid, "outcome": outcome,
                  "duration_ms": int(round(duration * 1000))}
        if current["message"]:
            record["message"] = current["message"]
        if passed:
            record["reached"] = reached
            run = runtime._serialise(rec, observation)
            run["status"] = "returned"
            record["run"] = run
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        self.send({"test": record})

    def pytest_runtest_logreport(self, report):
        current = self.current
        if current is None:
            return
        current["duration"] += getattr(report, "duration", 0.0) or 0.0
        xfail = hasattr(report, "wasxfail")
        outcome = None
        if report.when == "call":
            if xfail:
                outcome = "xfailed" if report.skipped else ("xpassed" if report.passed else "failed")
            else:
                outcome = report.outcome
        elif report.when == "setup":
            if report.failed:
                outcome = "error"
            elif report.skipped:
                outcome = "xfailed" if xfail else "skipped"
        elif report.failed:
            outcome = "error"  # a teardown that failed
        if outcome is not None:
            current["outcome"] = outcome
        if report.failed and current["message"] is None:
            current["message"] = _text(report)[-MAX_MESSAGE:]

    def _limited(self):
        if self.timeout <= 0:
            yield
            return
        seconds = self.timeout

        def expire(signum, frame):
            raise TestTimeout("the test ran longer than %gs" % seconds)

        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    @_hookwrapper
    def pytest_runtest_setup(self, item):
        yield from self._limited()

    @_hookwrapper
    def pytest_runtest_call(self, item):
        yield from self._limited()

    @_hookwrapper
    def pytest_runtest_teardown(self, item, nextitem):
        yield from self._limited()

    @_hookwrapper
    def pytest_collection(self, session):
        # Collection imports the project (and the C libraries it loads): as the generator's
        # imports do.
        self.runtime.sandbox.importing = True
        try:
            yield
        finally:
            self.runtime.sandbox.importing = False

    del _hookwrapper


def _text(report):
    try:
        return str(report.longreprtext)
    except Exception:
        return str(report.longrepr)


def run_suite(runtime, request, send):
    """Runs pytest on `paths` (with `args`) from `rootdir`; streams one message per test and
    answers with the collection errors and the observations of the passing tests."""
    if pytest is None:
        return {"status": "no-pytest",
                "error": "pytest cannot be imported by %s, the interpreter the project's tests run "
                         "with (%s): install it there (`%s -m pip install pytest`) or set "
                         "`[tool.lacuna] python`" % (sys.executable, _NO_PYTEST, sys.executable)}
    # A run in the background (the language server's) yields the processor to generation.
    nice = int(request.get("nice", 0))
    if nice > 0:
        try:
            os.nice(nice)
        except OSError:
            pass
    rootdir = os.path.realpath(request["rootdir"])
    test_dirs = [os.path.realpath(d) for d in request.get("test_dirs", [])]
    runtime.interpose = False
    runtime.exclude_tests(lambda real: _is_test_file(real, test_dirs))
    tracer = runtime.tracer
    tracer._max_events = int(request.get("max_events", tracer._max_events))
    observer = Observer(runtime.is_project_class,
                        lambda code: not runtime.is_project_file(code.co_filename))
    tracer.observer = observer
    tracer.distinct_frames = True
    if MONITORING:
        sys.monitoring.set_events(TOOL_ID, sys.monitoring.events.PY_UNWIND)
    scratch = runtime.scratch or os.getcwd()
    tempfile.tempdir = scratch
    os.environ["TMPDIR"] = scratch
    basetemp = os.path.join(scratch, "pytest-tmp")
    plugin = SuitePlugin(runtime, observer, send, float(request.get("timeout_ms", 0)) / 1000.0)
    args = ["-p", "no:cacheprovider", "--basetemp", basetemp]
    args += [str(a) for a in request.get("args", [])]
    args += [str(p) for p in request.get("paths", [])]
    out = io.StringIO()
    err = io.StringIO()
    saved = runtime.guard.save()
    os.chdir(rootdir)
    sys.stdout, sys.stderr = out, err
    runtime.sandbox.suite = True
    runtime.sandbox.active = True
    exit_code = None
    crashed = None
    try:
        exit_code = int(pytest.main(args, plugins=[plugin, plugins_off]))
    except BaseException as e:  # pytest.main itself failed (a conftest's SystemExit…)
        crashed = "%s: %s" % (type(e).__name__, e)
    finally:
        runtime.sandbox.active = False
        runtime.sandbox.suite = False
        tracer.stop() if tracer._observation is not None else None
        tracer.observer = None
        runtime.guard.restore(saved)
    output = (out.getvalue()[-MAX_MESSAGE:], err.getvalue()[-MAX_MESSAGE:])
    result = {"status": "completed", "exit_code": exit_code,
              "collection_errors": plugin.collection_errors,
              "observations": observer.serialise(),
              "stdout": output[0], "stderr": output[1]}
    if crashed is not None:
        result["error"] = crashed[:MAX_MESSAGE]
    # A conftest.py that cannot be imported stops pytest before collection: its error is in
    # what pytest printed.
    if not plugin.collection_errors and exit_code not in (0, 1, 5) and output[1]:
        error = {"path": "", "message": output[1]}
        missing = _missing(output[1])
        if missing:
            error["missing"] = missing
        result["collection_errors"].append(error)
    return result
