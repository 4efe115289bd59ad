"""A pytest plugin for the runs Lacuna makes of pytest (the check of emitted tests): a test still
running after LACUNA_TEST_TIMEOUT seconds fails with `TestTimeout` instead of hanging the run.
The run as a whole has its own limit, enforced from outside by killing it. The plugins that
cannot run there are switched off (`plugins_off`)."""

import os
import signal

import pytest

from .plugins_off import pytest_cmdline_main, pytest_load_initial_conftests  # noqa: F401 - hooks


class TestTimeout(Exception):
    __test__ = False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    seconds = float(os.environ.get("LACUNA_TEST_TIMEOUT") or 0)
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise TestTimeout("the test ran longer than %gs" % seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
