"""The project's module-level state, put back after every execution. An execution starts from
the modules as their import left them, as each emitted test does under pytest: one input that
registers a currency, appends to a module-level list or bumps a class counter must not decide
what the next input does (nor make a test pass in the generator and fail under pytest).

Recorded once per project module, when its import is over: the names its globals bind; the
contents of the dicts, lists and sets they hold; the attributes of the classes defined there;
the instance dictionaries of the project objects they hold (up to `MAX_OBJECTS_PER_CLASS` of
one class); and, one level further, the dicts, lists and sets in those. After an execution each
record is compared by identity — no `__eq__`, `__hash__` or other user code runs — and put back
where it changed; what changed is reported by the access path an emitted test can name
(`moneyed.classes.CURRENCIES`). Copies and restores use the hashes the containers already store.

Deeper state (a list inside a dict inside a module-level dict), tables of many objects of one
class and objects of other libraries are not recorded: they are not put back."""

import collections
import types
from itertools import chain
from operator import is_, methodcaller

# Items recorded across one worker's project modules: a module-level table beyond this is not
# recorded (the comparison after each execution is linear in what is recorded).
MAX_ITEMS = 200_000

# Project objects of one class a module's globals may hold for their attributes to be recorded:
# a singleton or a few (`default_scheduler`, `settings`) are state; more (a table of constants,
# such as one object per currency) is not recorded, as the check after every run would cost
# more than most runs.
MAX_OBJECTS_PER_CLASS = 8

class _Record:
    """One recorded object: a container's contents, or a namespace's bindings."""

    __slots__ = ("path", "target", "copy", "kind", "adopted")

    def __init__(self, path, target, kind):
        self.path = path
        self.target = target
        self.kind = kind
        # Whether `restore` took a binding into the copy (the summary is then out of date).
        self.adopted = False
        if kind == "list":
            self.copy = list(target)
        elif kind == "set":
            self.copy = set(target)
        else:  # "dict", "namespace" (a module's or an object's `__dict__`), "class"
            self.copy = dict(target.__dict__ if kind == "class" else target)

    def size(self):
        return len(self.copy)

    def changed(self):
        now = self.target.__dict__ if self.kind == "class" else self.target
        if len(now) != len(self.copy):
            return True
        if not all(map(is_, now, self.copy)):
            return True
        if self.kind in ("list", "set"):
            return False
        return not all(map(is_, now.values(), self.copy.values()))

    def restore(self):
        """Puts the recorded contents back; returns what changed as (access path, change):
        `contents` for a container, `rebound`, `added` or `deleted` for a name of a
        namespace."""
        target, copy = self.target, self.copy
        if self.kind == "list":
            target[:] = copy
            return [(self.path, "contents")]
        if self.kind in ("set", "dict"):
            target.clear()
            target |= copy
            return [(self.path, "contents")]
        # A module's globals, an object's or a class's attributes: names put back one by one.
        is_class = self.kind == "class"
        now = dict(target.__dict__) if is_class else target
        changes = []
        for name in [n for n in now if n not in copy]:
            # A submodule imported during the run, which the import system binds in its
            # package (`kinds.dispatch` in `kinds`): the import's, kept as the module's own.
            if not is_class and isinstance(now[name], types.ModuleType) \
                    and getattr(now[name], "__name__", None) == "%s.%s" % (self.path, name):
                copy[name] = now[name]
                self.adopted = True
                continue
            # The warnings a module's code issued, which Python notes in its globals: no
            # state of the program (a test that warns changes nothing a next test reads).
            if name not in _BOOKKEEPING or is_class:
                changes.append(("%s.%s" % (self.path, name), "added"))
            type.__delattr__(target, name) if is_class else target.pop(name)
        for name, value in copy.items():
            current = now.get(name, _MISSING)
            if current is value or name in ("__dict__", "__weakref__"):
                continue
            changes.append(("%s.%s" % (self.path, name),
                            "deleted" if current is _MISSING else "rebound"))
            if is_class:
                type.__setattr__(target, name, value)
            else:
                target[name] = value
        return changes


_MISSING = object()
# Names Python itself adds to a module's globals as its code runs.
_BOOKKEEPING = frozenset({"__warningregistry__"})
_values = methodcaller("values")  # of a dict, or of a class's mapping proxy


class _Summary:
    """All records at once, for the check after every execution: their lengths, and their keys,
    values and items laid end to end, compared by identity in a few passes of C code (one
    Python call per record would cost more than most executions)."""

    def __init__(self, records):
        maps = [r for r in records if r.kind in ("dict", "namespace", "class")]
        self.maps = [r.target.__dict__ if r.kind == "class" else r.target for r in maps]
        self.map_lengths = [len(r.copy) for r in maps]
        self.keys = list(chain.from_iterable(r.copy for r in maps))
        self.values = list(chain.from_iterable(r.copy.values() for r in maps))
        sequences = [r for r in records if r.kind in ("list", "set")]
        self.sequences = [r.target for r in sequences]
        self.sequence_lengths = [len(r.copy) for r in sequences]
        self.items = list(chain.from_iterable(r.copy for r in sequences))

    def unchanged(self):
        # Lengths first: with every length the same, the sequences laid end to end line up.
        return (list(map(len, self.maps)) == self.map_lengths
                and list(map(len, self.sequences)) == self.sequence_lengths
                and all(map(is_, chain.from_iterable(self.maps), self.keys))
                and all(map(is_, chain.from_iterable(map(_values, self.maps)), self.values))
                and all(map(is_, chain.from_iterable(self.sequences), self.items)))


def _kind(value):
    """How a container's contents are recorded (exact types only: their copies and restores
    run no user code), or None."""
    kind = type(value)
    if kind is dict or kind is collections.defaultdict:
        return "dict"
    if kind is list:
        return "list"
    if kind is set:
        return "set"
    return None


class ModuleState:
    """The records of one worker's project modules."""

    def __init__(self, is_project_object):
        self._is_project_object = is_project_object
        self._records = []
        self._seen = set()
        self._modules = set()
        self._items = 0
        self._summary = None

    def record(self, modules):
        """Records the modules of `modules` not recorded yet (their import is over)."""
        for module in modules:
            if id(module) in self._modules:
                continue
            self._modules.add(id(module))
            self._record_module(module)

    def restore(self):
        """Puts back what the last execution changed; returns what it changed as (access path,
        change), in the order the records were made."""
        if self._summary is None:
            self._summary = _Summary(self._records)
        if self._summary.unchanged():
            return []
        changed = []
        for record in self._records:
            if record.changed():
                try:
                    changed.extend(record.restore())
                except Exception:  # a class that refuses its own attribute back
                    changed.append((record.path, "not-restored"))
                if record.adopted:
                    record.adopted = False
                    self._summary = None
        return changed

    # -- recording ------------------------------------------------------------------------

    def _add(self, path, target, kind):
        if id(target) in self._seen:
            return False
        self._seen.add(id(target))
        record = _Record(path, target, kind)
        if self._items + record.size() > MAX_ITEMS:
            return False
        self._items += record.size()
        self._records.append(record)
        self._summary = None
        return True

    def _record_module(self, module):
        name = getattr(module, "__name__", None)
        namespace = getattr(module, "__dict__", None)
        if not isinstance(name, str) or type(namespace) is not dict:
            return
        if not self._add(name, namespace, "namespace"):
            return
        objects = collections.Counter(id(type(v)) for v in namespace.values()
                                      if self._is_project_object(v))
        for key, value in list(namespace.items()):
            if not isinstance(key, str) or key.startswith("__"):
                continue
            path = "%s.%s" % (name, key)
            kind = _kind(value)
            if kind is not None:
                self._add(path, value, kind)
            elif isinstance(value, type):
                if getattr(value, "__module__", None) == name:
                    self._record_holder(path, value, "class", value.__dict__)
            elif objects.get(id(type(value)), 0) <= MAX_OBJECTS_PER_CLASS and \
                    self._is_project_object(value):
                attributes = getattr(value, "__dict__", None)
                if type(attributes) is dict:
                    self._record_holder(path, attributes, "namespace", attributes)

    def _record_holder(self, path, target, kind, attributes):
        """A class or a project object reached from a module global, and the containers its
        attributes hold."""
        if not self._add(path, target, kind):
            return
        for key, value in list(attributes.items()):
            if not isinstance(key, str) or key.startswith("__"):
                continue
            kind = _kind(value)
            if kind is not None:
                self._add("%s.%s" % (path, key), value, kind)
