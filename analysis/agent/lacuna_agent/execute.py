"""One execution, end to end: import the target's module as project code, build the inputs,
install mocks, run the function under the tracer, the sandbox and a timer, and report what
happened — return value or exception, branches with their conditions, external calls, lines."""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util as importlib_util
import io
import os
import random
import signal
import sys
import time

try:
    import resource
except ImportError:  # not on every platform
    resource = None

from . import describe as describing
from . import entropy, identity, interpose, objects, positions, recorder, targets, values
from .modstate import ModuleState
from .sym import concrete
from .observe import Observer
from .tracer import Tracer

MAX_OUTPUT = 4096


def _mocked_value(tree, runtime):
    """A mocked call's value, its symbol, and — for an object of code the agent does not follow,
    built through its constructor — its attributes that read constructor arguments, with the
    arguments' paths (`datetime(year=…, hour=…).hour` → `hour`, `stat_result(seq).st_size` →
    `sequence[6]`)."""
    value = values.decode(tree, runtime.is_project_object)
    sym = tree.get("sym")
    init = None
    if tree.get("kind") == "object" and sym is not None and not runtime.is_project_object(value):
        prefix = sym + ".__init__."
        params = [a["sym"][len(prefix):] for a in tree.get("args", [])
                  if str(a.get("sym", "")).startswith(prefix)]
        init = {name: name for name in params}
        init.update((attr, path) for attr, path in describing.attributes(type(value)).items()
                    if path.split("[", 1)[0] in params)
    return value, sym, init


class ExecutionTimeout(BaseException):
    """Raised in user code when its time is up (a BaseException, so `except Exception` in user
    code does not swallow it)."""


class ProjectLoader(importlib.abc.Loader):
    """Executes a project module with interposed builtins, then wraps its external references."""

    def __init__(self, inner, runtime):
        self._inner = inner
        self._runtime = runtime

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        runtime = self._runtime
        code = None
        if runtime.interpose:
            # Identity tests compare what proxies stand for (see `identity`).
            try:
                source = self._inner.get_data(self._inner.get_filename(module.__name__))
            except OSError:
                source = None
            if source is not None:
                code = identity.compile_project(source, self._inner.get_filename(module.__name__))
        if code is None:
            code = self._inner.get_code(module.__name__)
        if runtime.interpose:
            module.__dict__["__builtins__"] = interpose.builtins_for(module.__name__)
        runtime.tracer.instrument(code)
        exec(code, module.__dict__)
        if runtime.interpose:
            interpose.wrap_globals(module, runtime.is_project_module)
        runtime.project_modules.append(module)
        runtime.caches.extend(interpose.caches_of(module.__dict__))

    def __getattr__(self, name):
        return getattr(self._inner, name)


class ProjectFinder(importlib.abc.MetaPathFinder):
    def __init__(self, runtime):
        self._runtime = runtime

    def find_spec(self, fullname, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        if not self._runtime.is_project_file(spec.origin):
            return None
        spec.loader = ProjectLoader(spec.loader, self._runtime)
        return spec


def shadowed(name, module):
    """Why `import name` does not get the project's file: another module of that name (the
    standard library's, already imported, or an installed package's) comes first."""
    where = getattr(module, "__file__", None) or "a module built into Python"
    top = name.partition(".")[0]
    if top in getattr(sys, "stdlib_module_names", ()) or top in sys.builtin_module_names:
        what = "the standard library's `%s` (%s), which Python had imported before the project's code ran" % (
            name, where)
    else:
        what = "%s" % where
    return ("`import %s` gets %s, not this file: rename the module or move it into a package"
            % (name, what))


class Runtime:
    """The agent's state across executions: configuration, tracer, sandbox."""

    def __init__(self, sandbox, guard):
        self.sandbox = sandbox
        self.guard = guard
        self.roots = []
        self.excluded = []
        self.tracer = None
        self.project_modules = []
        # Their state as imported, put back after every execution.
        self.module_state = ModuleState(self.is_project_object)
        # The project's `functools.lru_cache` wrappers, emptied before each execution: a cached
        # result would skip the function's branches, and runs must not depend on earlier ones.
        self.caches = []
        self.sys_path = []
        # Whether project modules run with Lacuna's builtins and recording wrappers (the
        # generator's executions); the suite's run imports them as they are, traced only.
        self.interpose = True
        # File names (tests, conftest.py) that are never project code, in the suite's run.
        self.test_file = None
        # {file name: whether it is project code}, for the tracer's and recorder's lookups.
        self._project_files = {}
        self.scratch = None
        self.max_events = 5000
        self._lines = {}

    def configure(self, request):
        # Which classes are the project's depends on the roots: descriptions made before no
        # longer hold.
        describing._CLASSES.clear()
        self._project_files.clear()
        self.roots = [os.path.realpath(r) for r in request.get("roots", [])]
        here = os.path.dirname(os.path.realpath(__file__))
        self.excluded = [here] + [os.path.realpath(p) for p in request.get("exclude", [])]
        self.sys_path = [os.path.realpath(p) for p in request.get("sys_path", [])]
        for p in reversed(request.get("sys_path", [])):
            if p not in sys.path:
                sys.path.insert(0, p)
        scratch = request.get("scratch") or os.getcwd()
        self.scratch = os.path.realpath(scratch)
        os.makedirs(scratch, exist_ok=True)
        os.chdir(scratch)
        sandbox = request.get("sandbox", {})
        self.sandbox.configure(scratch, sandbox.get("allow_write", []),
                               sandbox.get("allow_network", False),
                               sandbox.get("allow_subprocess", False))
        self.max_events = int(request.get("max_events", 5000))
        memory = request.get("memory_mb")
        if memory and resource is not None:
            try:
                limit = int(memory) * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            except (ValueError, OSError):
                pass
        # A function a library call returns is the library's unless the project defined it.
        interpose.project_code(self.is_project_module, self.is_project_file)
        if self.tracer is None:
            self.tracer = Tracer(self.is_project_file, self.lines_of, self.max_events)
            sys.meta_path.insert(0, ProjectFinder(self))
        return {"ok": True}

    def exclude_tests(self, is_test_file):
        """Files for which `is_test_file(real path)` holds are never project code."""
        self.test_file = is_test_file
        self._project_files.clear()

    def is_project_file(self, filename):
        known = self._project_files.get(filename)
        if known is None:
            known = self._project_files[filename] = self._is_project_file(filename)
        return known

    def _is_project_file(self, filename):
        if not filename or filename.startswith("<"):
            return False
        real = os.path.realpath(filename)
        if any(real.startswith(e + os.sep) for e in self.excluded):
            return False
        if self.test_file is not None and self.test_file(real):
            return False
        if "site-packages" in real or "dist-packages" in real:
            return False
        return any(real.startswith(r + os.sep) for r in self.roots)

    def is_project_module(self, module):
        if isinstance(module, str):
            module = sys.modules.get(module)
            if module is None:
                return False
        return self.is_project_file(getattr(module, "__file__", None))

    def is_project_object(self, obj):
        return self.is_project_module(type(obj).__module__)

    def is_project_class(self, cls):
        return self.is_project_module(getattr(cls, "__module__", ""))

    def lines_of(self, filename):
        lines = self._lines.get(filename)
        if lines is None:
            try:
                with open(filename, encoding="utf-8", errors="replace") as f:
                    lines = f.read().splitlines()
            except OSError:
                lines = []
            self._lines[filename] = lines
        return lines

    # -- requests -------------------------------------------------------------------------

    def resolve(self, target, limit=None):
        """The target's definition, its module imported first; within `limit` seconds when
        given and the module is not imported yet."""
        name = target["module"]
        try:
            if limit is not None and name not in sys.modules:
                module = _import_within(name, limit)
            else:
                module = importlib.import_module(name)
        except ImportTimedOut as e:
            raise TargetImportError(e, self) from None
        except Exception as e:  # ImportError, and whatever the module raises while it runs
            raise TargetImportError(e, self) from e
        if not self.is_project_module(module):
            raise targets.Unreachable(shadowed(target["module"], module))
        return targets.resolve(module, target)

    def describe(self, request):
        limit = IMPORT_SECONDS
        self.sandbox.importing = True
        self.sandbox.active = True
        try:
            resolved = self.resolve(request["target"], limit=limit)
            # Reading the annotations runs project code too: it imports the modules of the
            # package that only `TYPE_CHECKING` imports and evaluates the annotations' text.
            # Under the same sandbox and time limit as the import of the target's module.
            observed = request.get("observed")
            return _within(limit, lambda: self._described(resolved, observed))
        except TargetImportError as e:
            return {"error": str(e), "import_error": e.details}
        except targets.Unreachable as e:
            return {"error": str(e)}
        except ImportTimedOut:
            return {"error": "reading the function's annotations did not finish within %g s "
                             "(a module they import runs that long)" % limit}
        finally:
            self.sandbox.active = False
            self.sandbox.importing = False

    def _described(self, resolved, observed):
        if resolved.form == "returned":
            return describing.describe_returned(resolved.definition, resolved.call,
                                                self.is_project_class)
        return describing.describe(resolved.definition, resolved.owner, self.is_project_class,
                                   raw=resolved.raw, registered=resolved.registered,
                                   observed=observed)

    def guidance(self, request):
        """The mocks and factories declared in the guidance module (imported as project code by
        its module name, or from its path when it is outside the import roots)."""
        self.sandbox.importing = True
        self.sandbox.active = True
        try:
            name = request.get("module")
            if name:
                module = importlib.import_module(name)
            else:
                spec = importlib_util.spec_from_file_location("lacuna_guidance", request["path"])
                module = importlib_util.module_from_spec(spec)
                sys.modules["lacuna_guidance"] = module
                spec.loader.exec_module(module)
        finally:
            self.sandbox.active = False
            self.sandbox.importing = False
        return describing.guidance(module, self.is_project_class)

    def execute(self, request):
        saved = self.guard.save()
        rec = None
        out = io.StringIO()
        err = io.StringIO()
        result = {"status": "returned"}
        restore_mocks = None
        seeded = None
        observer = None
        entropy.begin(request.get("random_seed", 0))
        try:
            self.sandbox.importing = True
            self.sandbox.active = True
            try:
                resolved = self.resolve(request["target"])
            finally:
                self.sandbox.active = False
                self.sandbox.importing = False
            # What the import did is the module's, not this run's.
            self.module_state.record(self.project_modules)
            self.sandbox.effects = []
            objects.field_values.clear()
            values.clear()
            timeout = float(request.get("timeout_ms", 1000)) / 1000.0
            sys.stdout, sys.stderr = out, err
            random.seed(request.get("random_seed", 0))
            seeded = random.getstate()
            # Building the inputs runs project code too (constructors, a factory's method
            # calls): under the sandbox and the time limit. A factory's building is traced, so
            # that its flags and the checks its calls fail are conditions the search can flip.
            if _uses_factory([request.get("receiver"), request.get("args"),
                              request.get("kwargs"), request.get("mocks")]):
                rec = self._start_tracing()
            self.sandbox.active = True
            _start_timers(request, timeout)
            try:
                try:
                    receiver = request.get("receiver")
                    args = [values.decode(t, self.is_project_object)
                            for t in request.get("args", [])]
                    kwargs = {k: values.decode(t, self.is_project_object)
                              for k, t in request.get("kwargs", {}).items()}
                    if receiver is not None:
                        receiver = values.decode(receiver, self.is_project_object)
                    if resolved.form == "returned":
                        why = targets.not_returned(resolved, receiver)
                        if why is not None:
                            raise values.InputError(why)
                    mocks = [(m["target"], [_mocked_value(t, self) for t in m.get("returns", [])])
                             for m in request.get("mocks", [])]
                except values.InputError as e:
                    result = {"status": "input-error", "error": str(e)}
                    if e.building is not None:
                        result["building"] = e.building
                    if e.method is not None:
                        result["building_method"] = e.method
                except ExecutionTimeout:
                    raise
                except Exception as e:
                    result = {"status": "input-error", "error": "%s: %s" % (type(e).__name__, e)}
                if result["status"] == "input-error":
                    if rec is not None:
                        observation = self.tracer.stop()
                else:
                    if rec is None:
                        rec = self._start_tracing()
                    else:
                        rec.end_of_building()
                    if mocks:
                        restore_mocks = interpose.install_mocks(mocks)
                    for cache in self.caches:
                        cache.cache_clear()
                    if request.get("observe"):
                        observer = Observer(
                            self.is_project_class,
                            lambda code: not self.is_project_file(code.co_filename),
                            invocations=True,
                            concrete=lambda v: concrete(interpose.unwrap(v)))
                        observer.begin_test()
                        self.tracer.set_observer(observer)
                    before = _receiver_fields(receiver)
                    arguments_before = _container_arguments(args, kwargs)
                    value = targets.invoke(resolved, receiver, args, kwargs)
                    observation = self.tracer.stop()
                    changed = _changed_fields(before, _receiver_fields(receiver))
                    if changed:
                        result["receiver"] = {"fields": changed}
                    changed = _changed_fields(arguments_before,
                                              _container_arguments(args, kwargs))
                    if changed:
                        result["arguments"] = changed
            finally:
                _stop_timers()
                self.sandbox.active = False
                if observer is not None:
                    self.tracer.set_observer(None)
                if self.tracer._observation is not None:
                    observation = self.tracer.stop()
                if rec is not None:
                    recorder.stop()
            if result["status"] == "input-error":
                if rec is not None:
                    result.update(self._serialise(rec, observation))
                return result
            result["return"] = _describe_value(value)
        except ExecutionTimeout:
            observation = self.tracer.stop() if self.tracer._observation is not None else None
            result = {"status": "timeout"}
        except targets.NeedsEventLoop as e:
            # Not the code's behaviour but the agent's limit: no test of it is emitted.
            result = {"status": "error", "error": str(e)}
            observation = None
        except MemoryError:
            result = {"status": "memory"}
            observation = None
        except BaseException as e:  # user code may raise anything, SystemExit included
            result = {"status": "raised", "exception": _describe_exception(e, self)}
            observation = locals().get("observation")
        finally:
            if self.tracer is not None and self.tracer._observation is not None:
                self.tracer.stop()
            if recorder.current() is not None:
                recorder.stop()
            if restore_mocks is not None:
                restore_mocks()
            entropy.end()
            objects.put_back()
            self.guard.restore(saved)
            changed = self.module_state.restore()
            if changed:
                result["module_state"] = [{"path": p, "change": c} for p, c in changed]
            # A module imported during the run is recorded as the run left it.
            self.module_state.record(self.project_modules)
            if self.sandbox.effects:
                result["effects"] = self.sandbox.effects
                self.sandbox.effects = []
        if rec is not None:
            result.update(self._serialise(rec, observation))
            if objects.field_values:
                result["fields"] = dict(objects.field_values)
            if rec.type_tests:
                result["type_tests"] = list(rec.type_tests.values())
        # Whether the run drew from `random`'s shared generator, by whatever name or library:
        # a test of it must seed that generator as the run did.
        if seeded is not None and random.getstate() != seeded:
            result["draws_random"] = True
        if observer is not None:
            result["invocations"] = observer.invocations()
        if values.callables:
            result["callables"] = {name: f.calls for name, f in values.callables.items()}
        result["stdout"] = out.getvalue()[:MAX_OUTPUT]
        result["stderr"] = err.getvalue()[:MAX_OUTPUT]
        return result

    def _start_tracing(self):
        rec = recorder.start(lambda code: self.is_project_file(code.co_filename))
        self.tracer.start(rec)
        return rec

    def _serialise(self, rec, observation):
        """The run's wire form."""
        files = []
        index = {}

        def file_index(filename):
            i = index.get(filename)
            if i is None:
                i = index[filename] = len(files)
                files.append(filename)
            return i

        events = []
        paired = set()
        for e in rec.events:
            if e["k"] == "branch" and e["condition"] is not None:
                paired.add(id(e["condition"]))
        for e in rec.events:
            k = e["k"]
            if k == "branch":
                code, jump = e["code"], e["jump"]
                value = jump.value(e["taken"])
                out = {"k": "loop" if jump.loop else "branch", "f": file_index(code.co_filename),
                       "pos": list(jump.pos) if jump.pos else None, "taken": value,
                       "frame": e["frame"]}
                if jump.link is not None:
                    out["link"] = jump.link
                if jump.loop and jump.stmt is not None:
                    out["stmt"] = list(jump.stmt)
                condition = e["condition"]
                if condition is not None:
                    # The truth taken was of a value the jump's instruction then inverted
                    # (`slot not in held` takes the truth of `in`): the condition is its negation.
                    inverted = bool(condition["value"]) != bool(value)
                    out["expr"] = ["not", condition["expr"]] if inverted else condition["expr"]
                events.append(out)
                continue
            if k == "value":
                code = e["code"]
                out = {"k": "value", "f": file_index(code.co_filename), "pos": list(e["site"].pos),
                       "value": e["value"], "frame": e["frame"]}
                if e["expr"] is not None:
                    out["expr"] = e["expr"]
                events.append(out)
                continue
            if k == "constraint" and id(e) in paired:
                continue
            out = {key: v for key, v in e.items() if key not in ("code", "lasti")}
            code = e.get("code")
            if code is not None:
                out["f"] = file_index(code.co_filename)
                pos = positions.position_at(code, e["lasti"])
                out["pos"] = list(pos) if pos else None
            events.append(out)
        lines = {}
        if observation is not None:
            for filename, numbers in observation.lines.items():
                lines[str(file_index(filename))] = sorted(numbers)
        result = {"files": files, "events": events, "lines": lines}
        if observation is not None and observation.truncated:
            result["truncated"] = True
        return result


class TargetImportError(Exception):
    """The target's module could not be imported: why, and through which project modules."""

    def __init__(self, error, runtime):
        self.details = import_failure(error, runtime)
        super().__init__("%s: %s" % (type(error).__name__, error))


def import_failure(error, runtime):
    """What the Rust side needs to explain an import failure: the exception, the missing module
    when one is (and whether it is the project's own), and the chain of project modules that
    were being imported, outermost first, each with the line of the statement that was running."""
    chain = []
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == "<module>" and runtime.is_project_file(code.co_filename):
            chain.append({"module": tb.tb_frame.f_globals.get("__name__"),
                          "file": os.path.realpath(code.co_filename), "line": tb.tb_lineno})
        tb = tb.tb_next
    # A syntax error is raised by the compiler, with no frame of the file it is in.
    if isinstance(error, SyntaxError) and error.filename and runtime.is_project_file(error.filename):
        chain.append({"module": None, "file": os.path.realpath(error.filename),
                      "line": error.lineno})
    missing = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    out = {"type": type(error).__name__, "message": str(error)[:500], "chain": chain}
    if missing:
        out["missing"] = missing
        top = missing.split(".")[0]
        out["missing_in_project"] = any(
            os.path.isdir(os.path.join(root, top)) or os.path.isfile(os.path.join(root, top + ".py"))
            for root in runtime.sys_path + runtime.roots)
    return out


def _uses_factory(tree):
    """Whether a request's value trees build something through a guidance factory."""
    pending = [tree]
    while pending:
        node = pending.pop()
        if type(node) is dict:
            if node.get("kind") == "factory":
                return True
            pending.extend(node.values())
        elif type(node) is list:
            pending.extend(node)
    return False


def _alarm(signum, frame):
    raise ExecutionTimeout()


# In an execution timed by the processor, the share of the wall clock below which the input is
# taken to be waiting: a computing input gets a quarter of a core or more on a loaded machine
# (four runs on two cores), one that waits (a sleep, a lock, a pipe no one reads) next to none.
WAITING_SHARE = 0.1
# The clocks as the agent found them (an input may replace the module's: a frozen clock).
_monotonic, _process_time = time.monotonic, time.process_time


def _start_timers(request, timeout):
    """The execution's time limit: `timeout` seconds of the wall clock; or, when the request
    asks for the processor's clock (`cpu_clock`, a reproducible run), `timeout` seconds of the
    processor time this process spends — which a loaded machine barely changes, where it
    stretches wall time. An input that waits without computing is stopped after `timeout`
    seconds of the wall clock as well (it has spent less than `WAITING_SHARE` of them on the
    processor, loaded machine or not); one that computes slowly only at `wall_timeout_ms`."""
    if not request.get("cpu_clock"):
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        return
    wall = max(float(request.get("wall_timeout_ms", timeout * 1000.0)) / 1000.0, timeout)
    started, spent_before = _monotonic(), _process_time()

    def waiting_or_slow(signum, frame):
        elapsed = _monotonic() - started
        spent = _process_time() - spent_before
        left = wall - elapsed
        if spent < WAITING_SHARE * elapsed or left < 0.001:
            raise ExecutionTimeout()
        signal.setitimer(signal.ITIMER_REAL, min(timeout, left))

    signal.signal(signal.SIGPROF, _alarm)
    signal.signal(signal.SIGALRM, waiting_or_slow)
    signal.setitimer(signal.ITIMER_PROF, timeout)
    signal.setitimer(signal.ITIMER_REAL, timeout)


def _stop_timers():
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.setitimer(signal.ITIMER_PROF, 0)


# How long describing a function may spend importing its module: below the 20 s the request
# is given, so that a module whose import never ends (a loop, a wait at module level) is an
# answer — with the line it was running — and not a worker killed for not answering.
IMPORT_SECONDS = 15.0


class ImportTimedOut(BaseException):
    """Raised into a module's import that ran out of time: not an `Exception`, so that the
    module's own `except Exception` around what it runs does not take it for its own."""


def _import_within(name, limit):
    """`importlib.import_module(name)`, interrupted after `limit` seconds (`ImportTimedOut`,
    with the traceback of where the import was)."""
    return _within(limit, lambda: importlib.import_module(name))


def _within(limit, run):
    """`run()`, interrupted after `limit` seconds by `ImportTimedOut` raised where it is."""
    def timed_out(signum, frame):
        raise ImportTimedOut("the import did not finish within %g s" % limit)

    previous = signal.signal(signal.SIGALRM, timed_out)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return run()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _qualified_type(value):
    t = type(value)
    return t.__qualname__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__qualname__)


def _receiver_fields(receiver):
    """The public fields of a method's receiver an emitted test can assert, as
    `{name: tree}`, read without calling its code; None for no receiver or a class."""
    if receiver is None or isinstance(receiver, type):
        return None
    fields = values.public_fields(concrete(interpose.unwrap(receiver)))
    return None if fields is None else dict(fields)


_CONTAINERS = (list, dict, set, bytearray)


def _container_arguments(args, kwargs):
    """The arguments that are lists, dicts, sets or bytearrays, as `{position or keyword:
    tree}` of what a test can write of them; None when there are none."""
    out = {}
    for slot, arg in list(enumerate(args)) + list(kwargs.items()):
        plain = concrete(interpose.unwrap(arg))
        if isinstance(plain, _CONTAINERS):
            tree = values.assertable(plain)
            if tree is not None:
                out[slot] = tree
    return out or None


def _changed_fields(before, after):
    """The fields of `after` that the call set or changed (`[name, tree]` pairs, in the
    object's order): what a test of a method that changes its object asserts."""
    if before is None or not after:
        return []
    return [[name, tree] for name, tree in after.items() if before.get(name) != tree]


def _describe_value(value):
    plain = interpose.unwrap(value)
    plain = concrete(plain)
    try:
        text = repr(plain)
    except Exception:
        text = "<unprintable>"
    out = {"repr": text[:500], "type": _qualified_type(plain), "literal": values.literal(plain)}
    if out["literal"] is None and issubclass(type(plain), tuple):
        # A named tuple (or another tuple subclass): its items, read without its own code.
        out["items"] = values.literal(tuple(tuple.__iter__(plain)))
    elif out["literal"] is None:
        std = values.std_value(plain)
        if std is not None:
            out["std"] = std
        else:
            fields = values.public_fields(plain)
            if fields:
                out["fields"] = fields
    return out


def _describe_exception(e, runtime):
    line = None
    filename = None
    tb = e.__traceback__
    while tb is not None:
        if runtime.is_project_file(tb.tb_frame.f_code.co_filename):
            line = tb.tb_lineno
            filename = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    try:
        message = str(e)[:500]
    except Exception:
        message = "<unprintable>"
    return {"type": _qualified_type(e), "message": message, "line": line, "file": filename}
