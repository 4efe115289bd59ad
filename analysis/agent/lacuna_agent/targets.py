"""Which definition a target is, and how it is called: a name bound by several definitions is
told apart by the lines of each; a registration of a `singledispatch` function is called through
its dispatcher with a first argument of the registered type; generators are iterated (at most
MAX_ITEMS items), coroutines run to completion, context managers entered and left, properties
read, set or deleted. Must not call project code while resolving: only attribute lookups."""

import ast
import inspect
import itertools
import types

from .describe import mangled

# How many items of a generator a test takes (`protocol::MAX_ITEMS`).
MAX_ITEMS = 100


class Unreachable(LookupError):
    """The target cannot be called as a test would call it (nested in a function, its name bound
    again to something else, not the property or registration it was taken for): the message
    says why, for the user."""


class NeedsEventLoop(Exception):
    """A coroutine awaited something only an event loop can complete."""


class Resolved:
    """The object called (`call`), the function whose code is the target (`definition`, the
    one described), the class it is defined in, the form of the call, and for a registration
    the registered type."""

    __slots__ = ("call", "definition", "owner", "form", "member", "registered", "raw")

    def __init__(self, call, definition, owner, form, member, registered=None, raw=None):
        self.call = call
        self.definition = definition
        self.owner = owner
        self.form = form
        self.member = member
        self.registered = registered
        self.raw = raw


def _code(obj):
    """The code object of a function behind wrappers (`staticmethod`, `functools.wraps`)."""
    for _ in range(20):
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
            continue
        code = getattr(obj, "__code__", None)
        if code is not None and not hasattr(obj, "__wrapped__"):
            return code
        inner = getattr(obj, "__wrapped__", None)
        if inner is None and code is None:
            # `functools.partial`, `functools.cached_property`: the function is `func`.
            inner = getattr(obj, "func", None)
            inner = inner if callable(inner) else None
        if inner is None:
            return code
        obj = inner
    return None


def _cached_getter(raw):
    """The function a cached property computes its value with (`functools.cached_property`, or
    a project's own descriptor keeping it as `func`), or None."""
    getter = getattr(raw, "func", None)
    if hasattr(type(raw), "__get__") and inspect.isfunction(getter):
        return getter
    return None


def _defined_at(obj, lines):
    code = _code(obj)
    return code is not None and lines[0] <= code.co_firstlineno <= lines[1]


def _plain(obj):
    return obj.__func__ if isinstance(obj, (staticmethod, classmethod)) else obj


def _not_defined(module, name):
    """Why `module`, imported, does not define `name`: its definition is in a `try` block
    that stopped before it (an import in it that failed, named) or under an `if` whose
    condition was false; else Python's own words."""
    plain = "module %r has no attribute %r" % (module.__name__, name)
    try:
        tree = ast.parse(inspect.getsource(module))
    except Exception:  # no source, or it does not parse
        return plain
    for statement in tree.body:
        if not isinstance(statement, (ast.Try, ast.If)):
            continue
        definition = _defining(statement, name)
        if definition is None:
            continue
        where = "`%s` is not defined once `%s` is imported here: its definition (line %d)" \
            % (name, module.__name__, definition.lineno)
        if isinstance(statement, ast.If):
            return "%s is under the `if` at line %d, whose condition was false" \
                % (where, statement.lineno)
        failed = [i for i in statement.body
                  if isinstance(i, (ast.Import, ast.ImportFrom)) and i.lineno < definition.lineno
                  and any((a.asname or a.name).split(".")[0] not in vars(module)
                          for a in i.names)]
        if failed:
            return "%s is in the `try` block at line %d, which stopped at `%s` (line %d): " \
                "that import failed here (not installed for this interpreter?)" \
                % (where, statement.lineno, ast.unparse(failed[0]), failed[0].lineno)
        return "%s is in the `try` block at line %d, which stopped before it" \
            % (where, statement.lineno)
    return plain


def _defining(statement, name):
    """The `def`, `class` or assignment binding `name` within a module-level statement (not
    inside a function or class), or None."""
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.name == name:
            return node
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node
    return None


def resolve(module, target):
    """The definition `target` names in `module` (already imported)."""
    call = target.get("call") or {}
    path = call.get("through") or target["qualname"]
    parts = path.split(".")
    if "<locals>" in parts:
        raise Unreachable("%s is nested in a function and cannot be called directly" % path)
    owner = None
    obj = module
    raw = None
    form = call.get("form", "plain")
    for i, part in enumerate(parts):
        owner = obj if isinstance(obj, type) else None
        part = mangled(owner, part)
        raw = inspect.getattr_static(owner, part) if owner is not None else None
        if owner is not None and i == len(parts) - 1 and form.startswith("property-"):
            # Read from the class, a descriptor may run its getter without an instance (a
            # cached property's `__get__(None, cls)`): the accessor is taken as defined.
            obj = raw
        else:
            try:
                obj = getattr(obj, part)
            except AttributeError:
                if i == 0 and isinstance(obj, types.ModuleType):
                    raise Unreachable(_not_defined(obj, part)) from None
                raise
    if owner is None:
        raw = obj
    lines = call.get("lines")
    member = mangled(owner, parts[-1])
    if form == "returned":
        return _returned(obj, target["qualname"], lines, path)
    if form == "dispatch":
        return _registration(obj, raw, owner, member, lines, path)
    if form == "construct":
        # The class is called: its signature is the constructor's.
        return Resolved(obj, obj, None, form, member, raw=obj)
    if form.startswith("property-"):
        if isinstance(raw, property):
            accessor = {"property-get": raw.fget, "property-set": raw.fset,
                        "property-delete": raw.fdel}[form]
        elif form == "property-get" and _cached_getter(raw) is not None:
            accessor = _cached_getter(raw)
        else:
            raise Unreachable("`%s` is not a property" % path)
        if accessor is None or (lines and not _defined_at(accessor, lines)):
            raise Unreachable("the property `%s` does not use the %s defined at line %d"
                              % (path, form[len("property-"):], lines[1] if lines else 0))
        return Resolved(None, accessor, owner, form, member, raw=accessor)
    # A decorated definition's name is bound to what its decorators returned, which a call
    # by the name runs (it may call the definition: a wrapper without `functools.wraps`, a
    # class-based decorator). An undecorated one's, or one of several bindings, must be the
    # definition itself: anything else was bound to the name after it.
    decorated = bool(lines) and lines[0] < lines[1]
    if lines and not _defined_at(raw, lines) and (call.get("through") or not decorated):
        code = _code(raw)
        if code is not None:
            where = "the definition at line %d" % code.co_firstlineno
            if code.co_filename != getattr(module, "__file__", None):
                where += " of %s" % code.co_filename.rsplit("/", 1)[-1]
        elif isinstance(raw, type):
            where = "the class `%s`" % raw.__name__
        else:
            where = "%s object" % _a(type(raw).__name__)
        raise Unreachable(
            "`%s` is bound again to %s: no call by its name reaches the definition at line %d"
            % (path, where, lines[1]))
    return Resolved(obj, _plain(raw), owner, form, member, raw=raw)


def _nested_code(code, lines):
    """The code object of the function defined on `lines` inside `code`, at any depth."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if lines[0] <= const.co_firstlineno <= lines[1]:
                return const
            found = _nested_code(const, lines)
            if found is not None:
                return found
    return None


def _returned(outer, qualname, lines, path):
    """The function `qualname` nested in `outer`, which returns it: `outer(…)` is called with
    the receiver's arguments and what it returns is called. The definition described is built
    from the nested code object (its free variables empty cells: describing reads its signature
    and code, it never runs it)."""
    code = _code(outer)
    nested = _nested_code(code, lines) if code is not None and lines else None
    if nested is None:
        raise Unreachable("`%s` does not define a function at line %d"
                          % (path, lines[1] if lines else 0))
    definition = types.FunctionType(nested, _plain(outer).__globals__, nested.co_name, None,
                                    tuple(types.CellType() for _ in nested.co_freevars))
    definition.__qualname__ = qualname
    return Resolved(outer, definition, None, "returned", nested.co_name, raw=definition)


def not_returned(resolved, value):
    """Why `value`, what the call of the function around a `returned` target gave, is not the
    nested function (another one it returns on another path, or a value), or None."""
    code = getattr(value, "__code__", None)
    if code is resolved.definition.__code__:
        return None
    if isinstance(code, types.CodeType):
        what = "the function `%s` defined at line %d" % (code.co_name, code.co_firstlineno)
    else:
        what = _a(type(value).__name__)
    return ("the call of `%s` returned %s, not the function `%s` defined at line %d"
            % (resolved.call.__name__, what, resolved.member,
               resolved.definition.__code__.co_firstlineno))


def _a(name):
    return ("an `%s`" if name[:1].lower() in "aeiou" else "a `%s`") % name


def _registration(dispatcher, raw, owner, member, lines, path):
    """A registration of the `singledispatch` function (or method) `dispatcher`."""
    registry = getattr(dispatcher, "registry", None)
    if registry is None and raw is not None:
        inner = getattr(raw, "dispatcher", None)  # a `singledispatchmethod`
        registry = getattr(inner, "registry", None)
    if registry is None:
        raise Unreachable("`%s` is not a singledispatch function" % path)
    for cls, implementation in registry.items():
        if cls is not object and lines and _defined_at(implementation, lines):
            return Resolved(dispatcher, _plain(implementation), owner, "dispatch", member,
                            registered=cls, raw=implementation)
    raise Unreachable("no registration of `%s` is defined at line %d"
                      % (path, lines[1] if lines else 0))


def invoke(resolved, receiver, args, kwargs):
    """Calls the target the way an emitted test does, and returns what the test checks."""
    form = resolved.form
    if form == "property-get":
        return getattr(receiver, resolved.member)
    if form == "property-set":
        setattr(receiver, resolved.member, *args)
        return None
    if form == "property-delete":
        delattr(receiver, resolved.member)
        return None
    if form == "returned":
        function = receiver
    elif receiver is not None:
        function = getattr(receiver, resolved.member)
    else:
        function = resolved.call
    value = function(*args, **kwargs)
    if form == "generator":
        return list(itertools.islice(value, MAX_ITEMS))
    if form == "async":
        return run(value)
    if form == "with":
        with value as entered:
            return entered
    return value


def run(coroutine):
    """Runs a coroutine to completion as `asyncio.run` would when nothing it awaits needs the
    event loop (`asyncio.sleep(0)`, other coroutines): without one, so without its sockets."""
    try:
        while True:
            yielded = coroutine.send(None)
            if yielded is not None:
                coroutine.close()
                raise NeedsEventLoop("the coroutine awaits %s, which needs an event loop"
                                     % type(yielded).__name__)
    except StopIteration as stop:
        return stop.value
    except RuntimeError as e:
        # `asyncio.sleep(1)`, tasks, futures: the code asked for the running loop.
        if "no running event loop" in str(e):
            raise NeedsEventLoop("the coroutine needs an event loop: %s" % e) from None
        raise
