"""Plugins of the project's environment that its pytest configuration switches on and that
cannot run in the pytest runs Lacuna makes (the observed suite, the check of emitted tests),
switched off for those runs only, whatever `addopts` says:

- pytest-cov (`--cov=pkg`): its coverage.py would take the place of Lacuna's tracer, write
  `.coverage` files, and fail a run by `--cov-fail-under`; off as `--no-cov` turns it off;
- pytest-xdist (`-n auto`): its workers are other processes, which the sandbox does not start
  and whose tests the tracer would not see; the tests run in this process, as `-n 0` runs them.

Both are hook wrappers, which run before every plugin's own implementation of the hook."""

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # pytest-cov reads these options in this hook, and keeps them as its own.
    options = early_config.known_args_namespace
    if hasattr(options, "no_cov"):
        options.no_cov = True
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_cmdline_main(config):
    # pytest-xdist turns `-n` into its distribution mode in this hook.
    option = config.option
    if getattr(option, "numprocesses", None) is not None:
        option.numprocesses = None
    if getattr(option, "dist", "no") != "no":
        option.dist = "no"
    if getattr(option, "distload", False):
        option.distload = False
    yield
