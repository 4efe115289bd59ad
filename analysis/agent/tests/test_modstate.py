"""Module-level state put back after an execution: registries, counters, globals a call binds,
class attributes, the lists of a module-level object — compared by identity, so that no user
`__eq__` or `__hash__` runs."""

import itertools
import types

from lacuna_agent.modstate import ModuleState

SOURCE = '''
CURRENCIES = {}
SEEN = set()
LOG = []
COUNT = 0


class Currency:
    instances = 0
    by_code = {}

    def __init__(self, code):
        self.code = code
        Currency.instances += 1
        Currency.by_code[code] = self


def add_currency(code):
    CURRENCIES[code] = Currency(code)
    SEEN.add(code)
    LOG.append(code)


def bump():
    global COUNT, LAST
    COUNT += 1
    LAST = COUNT


class Scheduler:
    def __init__(self):
        self.jobs = []
        self.label = "default"

    def every(self, job):
        self.jobs.append(job)
        self.label = job


default_scheduler = Scheduler()


class Key:
    """A key whose comparison and hashing are user code that must not run (`hashes` counts
    its hashing, an `itertools.count` the module is given: not recorded, so not put back)."""

    def __hash__(self):
        next(hashes)
        return 7

    def __eq__(self, other):
        raise AssertionError("__eq__ ran")


TABLE = {}
'''


def module_of(source):
    module = types.ModuleType("reg")
    module.__file__ = "reg.py"
    module.hashes = itertools.count()
    exec(compile(source, "reg.py", "exec"), module.__dict__)
    return module


def recorded(module):
    state = ModuleState(lambda value: type(value).__module__ == "reg")
    state.record([module])
    return state


def test_a_registration_is_undone_and_reported_by_its_access_path():
    module = module_of(SOURCE)
    currencies, seen, log = module.CURRENCIES, module.SEEN, module.LOG
    state = recorded(module)
    module.add_currency("XYZ")
    assert state.restore() == [
        ("reg.CURRENCIES", "contents"),
        ("reg.SEEN", "contents"),
        ("reg.LOG", "contents"),
        ("reg.Currency.instances", "rebound"),
        ("reg.Currency.by_code", "contents"),
    ]
    assert module.CURRENCIES is currencies and currencies == {}
    assert module.SEEN is seen and seen == set()
    assert module.LOG is log and log == []
    assert module.Currency.instances == 0 and module.Currency.by_code == {}


def test_globals_a_call_binds_are_put_back_and_new_ones_removed():
    module = module_of(SOURCE)
    state = recorded(module)
    module.bump()
    assert state.restore() == [("reg.LAST", "added"), ("reg.COUNT", "rebound")]
    assert module.COUNT == 0 and not hasattr(module, "LAST")
    del module.Key
    assert state.restore() == [("reg.Key", "deleted")]
    assert isinstance(module.Key, type)


def test_the_lists_of_a_module_level_project_object_are_put_back():
    module = module_of(SOURCE)
    jobs = module.default_scheduler.jobs
    state = recorded(module)
    module.default_scheduler.every("backup")
    assert state.restore() == [("reg.default_scheduler.label", "rebound"),
                               ("reg.default_scheduler.jobs", "contents")]
    assert module.default_scheduler.jobs is jobs and jobs == []
    assert module.default_scheduler.label == "default"


def test_an_execution_that_changes_nothing_reports_nothing():
    module = module_of(SOURCE)
    state = recorded(module)
    module.Currency("ABC").code  # noqa: B018 - a read, which changes nothing
    module.CURRENCIES.clear()
    state.restore()
    assert state.restore() == []
    assert module.COUNT == 0


def test_no_user_comparison_or_hash_runs():
    module = module_of(SOURCE)
    first, second = module.Key(), module.Key()
    module.TABLE[first] = 1
    state = recorded(module)
    module.TABLE[first] = 2
    module.TABLE.pop(first)
    module.TABLE[first] = 1
    assert state.restore() == []  # the same key bound to the same object again
    module.TABLE["other"] = 3
    module.TABLE[first] = 4
    assert state.restore() == [("reg.TABLE", "contents")]
    assert module.TABLE[first] == 1 and len(module.TABLE) == 1
    assert state.restore() == []
    assert second is not first
    # Only the test's own insertions and lookups hashed (six), none of the recording's.
    assert next(module.hashes) == 6


def test_the_warnings_a_module_issued_are_no_state_of_it():
    import warnings

    module = module_of("import warnings\n\ndef old():\n    warnings.warn('old', DeprecationWarning)\n    return 1\n")
    state = recorded(module)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        assert module.old() == 1
    assert "__warningregistry__" in vars(module)
    assert state.restore() == []
    assert "__warningregistry__" not in vars(module)


def test_a_submodule_imported_during_a_run_stays_bound_in_its_package():
    import sys

    package = types.ModuleType("pkg")
    package.__path__ = []
    state = ModuleState(lambda value: False)
    state.record([package])
    submodule = types.ModuleType("pkg.sub")
    sys.modules["pkg.sub"] = submodule
    try:
        package.sub = submodule  # what `import pkg.sub` does during the run
        assert state.restore() == []
        assert package.sub is submodule
        assert state.restore() == [], "nothing changed since"
        package.other = 1
        assert state.restore() == [("pkg.other", "added")]
        assert package.sub is submodule
    finally:
        del sys.modules["pkg.sub"]
