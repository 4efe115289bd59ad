"""Turning decoded inputs into symbolic ones: scalars become variables, containers get a
symbolic length and symbolic elements, and instances of the project's classes get their fields
replaced by proxies named by access path (`self._items.__len__`), unless a field already holds a
constructor argument's proxy — that is what makes a field assignable.
"""

import enum

from .containers import SymDict, SymList, SymSet, SymTuple
from .sym import Sym, var

MAX_OBJECT_DEPTH = 3

# What the symbols made for object fields stood for when the inputs were built, by name
# (`self._spent` → `["int", "0"]`): no input sets them directly, so the solver keeps them.
field_values = {}

# The fields made proxies in place, with what they held, until `put_back()`: an object an
# input reaches may outlive the run (a factory's shared instance, a module's object), and a
# later run on the worker would find its fields proxies already, named by this run's paths.
_replaced = []


def _field_value(name, value, depth):
    if depth > 0:
        from .interpose import literal_of

        literal = literal_of(value)
        if literal is not None:
            field_values[name] = literal


def wrap(value, name, is_project_object, depth=0, any_length=False):
    """The symbolic version of an input value named `name` (an access path); a tuple of
    `any_length` (`tuple[str, ...]`) has its length as an input, as a list has."""
    if isinstance(value, Sym):
        return value
    t = type(value)
    if t in (bool, int, float, str):
        _field_value(name, value, depth)
        return var(value, name)
    if t is list:
        _field_value(name + ".__len__", len(value), depth)
        items = [wrap(x, "%s[%d]" % (name, i), is_project_object, depth) for i, x in enumerate(value)]
        return SymList(items, ["var", name + ".__len__", "int"], name=name)
    if t is set:
        # Elements named by their position in the value tree the set was built from.
        _field_value(name + ".__len__", len(value), depth)
        return SymSet(list(value), ["var", name + ".__len__", "int"], name=name)
    if t is tuple and any_length:
        _field_value(name + ".__len__", len(value), depth)
        items = [wrap(x, "%s[%d]" % (name, i), is_project_object, depth) for i, x in enumerate(value)]
        return SymTuple(items, ["var", name + ".__len__", "int"], name=name)
    if t is tuple:
        # A tuple's length is fixed by its shape: its elements are inputs, its length is not.
        items = [wrap(x, "%s[%d]" % (name, i), is_project_object, depth) for i, x in enumerate(value)]
        return SymTuple(items, ["int", str(len(items))], name=name)
    if t is dict:
        _field_value(name + ".__len__", len(value), depth)
        items = {k: wrap(v, "%s[%r]" % (name, k), is_project_object, depth)
                 for k, v in value.items()}
        return SymDict(items, ["var", name + ".__len__", "int"])
    # An enum member is chosen whole: no input sets its fields (and it is one object of the
    # whole process, reached by the path of whichever input reaches it first).
    if depth < MAX_OBJECT_DEPTH and is_project_object(value) and not isinstance(value, enum.Enum):
        wrap_fields(value, name, is_project_object, depth + 1)
    return value


def wrap_fields(obj, name, is_project_object, depth):
    """Replaces the fields of a project object by their symbolic versions, in place."""
    try:
        fields = vars(obj)
    except TypeError:
        fields = None
    if fields is not None:
        for field, value in list(fields.items()):
            if field.startswith("__"):
                continue
            try:
                proxy = wrap(value, "%s.%s" % (name, field), is_project_object, depth)
                if proxy is not value:
                    fields[field] = proxy
                    _replaced.append((fields, field, value, proxy, False))
            except Exception:  # a field whose proxy cannot be built stays concrete
                pass
    for field in _slot_names(type(obj)):
        try:
            value = object.__getattribute__(obj, field)
        except AttributeError:
            continue
        try:
            proxy = wrap(value, "%s.%s" % (name, field), is_project_object, depth)
            if proxy is not value:
                object.__setattr__(obj, field, proxy)
                _replaced.append((obj, field, value, proxy, True))
        except (AttributeError, TypeError):
            pass


def put_back():
    """Every field made a proxy in place since the last call holds its value again — unless
    the run set it to something else since, which is what the run did to the object."""
    while _replaced:
        holder, field, value, proxy, slot = _replaced.pop()
        try:
            if slot:
                if object.__getattribute__(holder, field) is proxy:
                    object.__setattr__(holder, field, value)
            elif holder.get(field) is proxy:
                holder[field] = value
        except Exception:  # a field deleted since, or a slot that refuses
            pass


def _slot_names(cls):
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        names.extend(s for s in slots if s not in ("__dict__", "__weakref__"))
    return names
