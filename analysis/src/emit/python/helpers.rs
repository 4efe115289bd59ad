//! The Python helpers an emitted file defines when its tests need them: the hermetic fixture,
//! a context manager's value, module state put back, chosen return values, mocked calls and
//! asynchronous iterators.

/// Every test of the file runs away from the project and the user's files: pytest collects
/// the file (importing the module under test) before the fixture runs, so imports are
/// unaffected; import paths relative to the working directory are made absolute for the
/// modules the code imports while it runs.
pub(super) const HERMETIC_FIXTURE: &str = r#"@pytest.fixture(autouse=True)
def _hermetic(tmp_path, monkeypatch):
    """Runs each test in an empty temporary working directory, with `HOME`, the XDG
    directories and `TMPDIR` in temporary directories too."""
    monkeypatch.setattr(sys, "path", [os.path.abspath(p) for p in sys.path])
    for variable, path in (
        ("HOME", "home"),
        ("XDG_CONFIG_HOME", "home/.config"),
        ("XDG_CACHE_HOME", "home/.cache"),
        ("XDG_DATA_HOME", "home/.local/share"),
        ("XDG_STATE_HOME", "home/.local/state"),
        ("XDG_RUNTIME_DIR", "run"),
        ("TMPDIR", "tmp"),
    ):
        (tmp_path / path).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(variable, str(tmp_path / path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read again from TMPDIR
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
"#;

/// A context manager entered and left as a `with` statement does: what it gave the block.
pub(super) const ENTERED_HELPER: &str = r#"def _entered(manager):
    """What `with manager as value:` binds to `value`, after the block is left."""
    with manager as value:
        return value
"#;

/// Module-level state a test's call changes, put back when the test ends, as the generator put
/// it back after the run: the next test starts from the modules as imported, whatever the order.
pub(super) const RESTORING_HELPER: &str = r#"def _restoring(request, target):
    """Puts back, when the test ends, the object the module-level name `target` is bound to
    and the contents of the dict, list or set it holds: the call changes them."""
    parts = target.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:i]))
            break
        except ImportError:
            continue
    else:
        return
    for part in parts[i:-1]:
        owner = getattr(owner, part)
    name, missing = parts[-1], object()
    value = vars(owner).get(name, missing)
    if type(value) in (dict, set, collections.defaultdict):
        contents = value.copy()
    elif type(value) is list:
        contents = list(value)
    else:
        contents = None

    def restore():
        if value is missing:
            if name in vars(owner):
                delattr(owner, name)
        elif vars(owner).get(name, missing) is not value:
            setattr(owner, name, value)
        if type(value) is list:
            value[:] = contents
        elif contents is not None:
            value.clear()
            value.update(contents)

    request.addfinalizer(restore)
"#;

/// A callable argument whose calls return chosen values in turn, the way the generator ran it.
pub(super) const RETURNING_HELPER: &str = r#"class _Raises:
    """A call of a `_returning` function that raises `exception` instead of returning."""

    def __init__(self, exception):
        self.exception = exception


def _returning(*values):
    """A function that returns `values` in turn (the last one repeats), whatever its arguments;
    a `_Raises` value is raised instead."""
    returns = list(values)

    def function(*args, **kwargs):
        value = returns.pop(0) if len(returns) > 1 else returns[0]
        if isinstance(value, _Raises):
            raise value.exception
        return value

    return function
"#;

/// An asynchronous iterator over chosen items (an `AsyncIterator[int]` parameter).
pub(super) const ASYNC_ITEMS_HELPER: &str = r#"async def _async_items(items):
    """An asynchronous iterator over `items`, in order."""
    for item in items:
        yield item
"#;

/// Patches a mocked call for one test, the way the generator ran it: by the dotted name the
/// code calls it through, where it is defined (a built-in type's method through a subclass put
/// in its place) and wherever the module under test imported it by name.
pub(super) const MOCK_HELPER: &str = r#"def _mock(monkeypatch, module, target, *values):
    """Makes `target` return `values` in turn (the last one repeats) while the test runs."""
    parts = target.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:i]))
            break
        except ImportError:
            continue
    else:
        owner, i = importlib.import_module("builtins"), 0
    for part in parts[i:-1]:
        owner = getattr(owner, part)
    original = getattr(owner, parts[-1])
    returns = list(values)

    def fake(*args, **kwargs):
        return returns.pop(0) if len(returns) > 1 else returns[0]

    try:
        monkeypatch.setattr(owner, parts[-1], fake)
    except TypeError:  # a built-in type (`datetime.datetime.now`): a subclass takes its place
        original = owner
        fake = type(owner.__name__, (owner,), {parts[-1]: staticmethod(fake)})
        monkeypatch.setattr(sys.modules[owner.__module__], owner.__name__, fake)
    for name, value in list(vars(sys.modules[module]).items()):
        if value is original:
            monkeypatch.setattr(sys.modules[module], name, fake)
"#;
