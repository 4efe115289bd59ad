"""Containers with a symbolic length and symbolic elements, and the symbolic `range`.

A `SymList` named `xs` has the length variable `xs.__len__` and elements named `xs[0]`,
`xs[1]`, …; iterating it records, before each step, whether the length exceeds the index —
the condition a `for` loop tests — so the solver can ask for longer or shorter lists.
"""

from . import recorder
from .sym import (Sym, SymBool, SymInt, compared_across_kinds, concrete, expr_of, looks_builtin,
                  make, no_dict)

_SORTS = {bool: "bool", int: "int", float: "float", str: "str"}

# Membership tests may look this many elements beyond a container's current length, so the
# solver can ask for a longer container holding the value.
MEMBERSHIP_REACH = 3


def _record(expr, value):
    rec = recorder.current()
    if rec is not None and _mentions_var(expr):
        rec.condition(expr, value, depth=3)


def _mentions_var(expr):
    """Whether an expression reads a variable: one that does not (the length of a tuple, fixed
    by its shape) cannot be flipped, so it is no condition."""
    if not isinstance(expr, list) or not expr:
        return False
    if expr[0] == "var":
        return True
    return any(_mentions_var(e) for e in expr[1:])


class _Sized(Sym):
    """Length bookkeeping shared by the containers: `_e` is the length expression."""

    __slots__ = ()

    def sym_len(self):
        return SymInt(self._base_len(), self._e, self._d)

    def _grow(self, delta):
        self._e = ["+", self._e, ["int", str(delta)]] if delta >= 0 else \
            ["-", self._e, ["int", str(-delta)]]
        self._d += 1

    def _truth(self):
        return self._base_len() > 0, [">", self._e, ["int", "0"]]

    def __bool__(self):
        v, e = self._truth()
        _record(e, v)
        return v

    def _membership(self, items, item):
        """`item in self` as a symbolic disjunction over the elements, including elements
        beyond the current length (named like the container's own: `xs[5]`)."""
        c = concrete(item)
        result = any(concrete(x) == c for x in items)
        e = expr_of(item)
        name = getattr(self, "_name", None)
        if e is None or name is None:
            return result
        sort = _SORTS.get(type(c))
        terms = []
        for i in range(max(len(items), MEMBERSHIP_REACH)):
            if i < len(items):
                element = expr_of(items[i])
            elif sort is not None:
                element = ["var", "%s[%d]" % (name, i), sort]
            else:
                element = None
            if element is None:
                continue
            terms.append(["and", [">", self._e, ["int", str(i)]], ["==", element, e]])
        if not terms:
            return result
        return SymBool(result, ["or"] + terms, self._d + 1)

    def _iterate(self, items):
        n = len(items)
        for i in range(n + 1):
            more = i < n
            _record([">", self._e, ["int", str(i)]], more)
            if not more:
                return
            yield items[i]


def _index(container, key):
    """The concrete index `key`; an integer index records whether it is within the length, so
    the solver can ask for a longer container (or another index) when it was not."""
    c = concrete(key)
    if type(c) is not int:
        return c
    n = container._base_len()
    inside = -n <= c < n
    k = expr_of(key)
    if isinstance(key, Sym) and k is not None:
        _record(["and", ["<", k, container._e], [">=", k, ["-", ["int", "0"], container._e]]],
                inside)
    elif c >= 0:
        _record([">", container._e, ["int", str(c)]], inside)
    else:
        _record([">=", container._e, ["int", str(-c)]], inside)
    return c


@looks_builtin(list)
class SymList(list, _Sized):
    __class__ = property(lambda self: list)
    __dict__ = property(no_dict)

    def __init__(self, items, length_expr, depth=1, name=None):
        list.__init__(self, items)
        self._e = length_expr
        self._d = depth
        self._name = name

    def __contains__(self, item):
        return self._membership(list(list.__iter__(self)), item)

    def _base_len(self):
        return list.__len__(self)

    def _concrete(self):
        return [concrete(x) for x in list.__iter__(self)]

    def __iter__(self):
        return self._iterate(list(list.__iter__(self)))

    def append(self, item):
        list.append(self, item)
        self._grow(1)

    def extend(self, items):
        items = list(items)
        list.extend(self, items)
        self._grow(len(items))

    def insert(self, index, item):
        list.insert(self, concrete(index), item)
        self._grow(1)

    def pop(self, *args):
        item = list.pop(self, *[concrete(a) for a in args])
        self._grow(-1)
        return item

    def remove(self, item):
        list.remove(self, item)
        self._grow(-1)

    def clear(self):
        list.clear(self)
        self._e = ["int", "0"]

    def __getitem__(self, key):
        return list.__getitem__(self, _index(self, key))

    def __reduce_ex__(self, protocol):
        return (list, (self._concrete(),))

    def copy(self):
        return list(list.__iter__(self))


@looks_builtin(tuple)
class SymTuple(tuple, _Sized):
    __class__ = property(lambda self: tuple)
    __dict__ = property(no_dict)

    def __new__(cls, items, length_expr, depth=1, name=None):
        obj = tuple.__new__(cls, items)
        obj._e = length_expr
        obj._d = depth
        obj._name = name
        return obj

    def __contains__(self, item):
        return self._membership(list(tuple.__iter__(self)), item)

    def _base_len(self):
        return tuple.__len__(self)

    def _concrete(self):
        return tuple(concrete(x) for x in tuple.__iter__(self))

    def __iter__(self):
        return self._iterate(tuple(tuple.__iter__(self)))

    def __getitem__(self, key):
        return tuple.__getitem__(self, _index(self, key))

    def __reduce_ex__(self, protocol):
        return (tuple, (self._concrete(),))


@looks_builtin(set)
class SymSet(set, _Sized):
    """A set whose elements are symbolic (`tags[0]`) and whose length is `tags.__len__`:
    `x in tags` is whether `x` equals one of its elements (or one the solver may add)."""

    __class__ = property(lambda self: set)
    __dict__ = property(no_dict)

    def __init__(self, items, length_expr, depth=1, name=None):
        set.__init__(self, items)
        self._e = length_expr
        self._d = depth
        self._name = name

    def __contains__(self, item):
        return self._membership(list(set.__iter__(self)), item)

    def _base_len(self):
        return set.__len__(self)

    def _concrete(self):
        return {concrete(x) for x in set.__iter__(self)}

    def __iter__(self):
        return self._iterate(list(set.__iter__(self)))

    def add(self, item):
        if not set.__contains__(self, item):
            self._grow(1)
        set.add(self, item)

    def discard(self, item):
        if set.__contains__(self, item):
            self._grow(-1)
        set.discard(self, item)

    def remove(self, item):
        set.remove(self, item)
        self._grow(-1)

    def __reduce_ex__(self, protocol):
        return (set, (self._concrete(),))

    def copy(self):
        return set(set.__iter__(self))


@looks_builtin(dict)
class SymDict(dict, _Sized):
    """A dict whose values are symbolic (`cfg["mode"]`) and whose length is `cfg.__len__`."""

    __class__ = property(lambda self: dict)
    __dict__ = property(no_dict)

    def __init__(self, items, length_expr, depth=1):
        dict.__init__(self, items)
        self._e = length_expr
        self._d = depth

    def _base_len(self):
        return dict.__len__(self)

    def _concrete(self):
        return {concrete(k): concrete(v) for k, v in dict.items(self)}

    # Iterating a dict, or a view of it, records the length tests a `for` loop makes, as a
    # list's does: the solver can ask for more or fewer entries.
    def __iter__(self):
        return self._iterate(list(dict.__iter__(self)))

    def __contains__(self, key):
        """`key in self` for a symbolic key: whether it equals one of the keys present (of
        its own type), so the solver can ask for a key the dict holds — for a dict without
        keys, for a longer dict first."""
        return self._member(key, True)

    def _member(self, key, longer):
        result = dict.__contains__(self, key)
        e = expr_of(key)
        if not isinstance(key, Sym) or e is None:
            return result
        t = type(concrete(key))
        terms = []
        other = None
        for k in dict.__iter__(self):
            ke = expr_of(k)
            if type(concrete(k)) is t and ke is not None:
                terms.append(["==", e, ke])
            elif other is None:
                other = k
        if not terms:
            # Keys of another kind only (`"k0"` while the key is an int): the key is compared
            # with each as `==` would, across kinds, and an input of any type is tried as one.
            if other is not None:
                compared_across_kinds(key, other, result)
            elif longer and self._e[0] != "int":
                # No key at all: none can be present until the dict holds one, so the solver
                # is asked for a longer dict first, then for the key.
                return SymBool(result, [">", self._e, ["int", "0"]], self._d + 1)
            return result
        return SymBool(result, terms[0] if len(terms) == 1 else ["or"] + terms, self._d + 1)

    def get(self, key, default=None):
        """`self.get(key)` decides whether `key` is present as `key in self` does, and records
        it: the solver can ask for a key the dict holds (`if table.get(key) is None:` is decided
        by it, though the `None` it returns carries no condition of its own)."""
        if self.__contains__(key):
            return dict.__getitem__(self, key)
        return default

    def __getitem__(self, key):
        """`self[key]` of a symbolic key decides whether it is present as `key in self` does,
        and records it: a `KeyError` handler (`try: table[key] except KeyError:`) can be taken
        both ways."""
        if isinstance(key, Sym) and not self.__contains__(key):
            raise KeyError(key)
        return dict.__getitem__(self, key)

    def keys(self):
        return _View(self, dict.keys(self))

    def values(self):
        return _View(self, dict.values(self))

    def items(self):
        return _View(self, dict.items(self))

    def __setitem__(self, key, value):
        if not self._member(key, False):
            self._grow(1)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        dict.__delitem__(self, key)
        self._grow(-1)

    def pop(self, key, *default):
        present = dict.__contains__(self, key)
        value = dict.pop(self, key, *default)
        if present:
            self._grow(-1)
        return value

    def setdefault(self, key, default=None):
        if not dict.__contains__(self, key):
            self._grow(1)
        return dict.setdefault(self, key, default)

    def update(self, *args, **kwargs):
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def clear(self):
        dict.clear(self)
        self._e = ["int", "0"]

    def __reduce_ex__(self, protocol):
        return (dict, (self._concrete(),))

    def copy(self):
        return dict(dict.items(self))


class _View:
    """A view of a `SymDict` (`keys()`, `values()`, `items()`): iterating it is iterating the
    dict; everything else is the real view's."""

    __slots__ = ("_owner", "_view")

    def __init__(self, owner, view):
        self._owner = owner
        self._view = view

    def __iter__(self):
        return self._owner._iterate(list(self._view))

    def __len__(self):
        return len(self._view)

    def __contains__(self, item):
        return item in self._view

    def __reversed__(self):
        return reversed(self._view)

    def __eq__(self, other):
        return self._view == (other._view if isinstance(other, _View) else other)

    def __repr__(self):
        return repr(self._view)

    def __getattr__(self, name):
        return getattr(self._view, name)

    def __and__(self, other):
        return self._view & other

    def __or__(self, other):
        return self._view | other

    def __sub__(self, other):
        return self._view - other


class SymRange:
    """`range(n)` (or `range(a, b)`) with symbolic bounds: each step of a loop over it records
    `i < stop` (for a positive step), so the loop's iteration count is visible to the solver."""

    def __init__(self, *args):
        self._args = args
        self._range = range(*[concrete(a) for a in args])

    def __len__(self):
        return len(self._range)

    def __contains__(self, item):
        return concrete(item) in self._range

    def __getitem__(self, key):
        return self._range[concrete(key)]

    def __reversed__(self):
        return reversed(self._range)

    def __repr__(self):
        return repr(self._range)

    def __eq__(self, other):
        return self._range == other

    def __hash__(self):
        return hash(self._range)

    def __getattr__(self, name):
        return getattr(self._range, name)

    def __iter__(self):
        args = self._args
        start = args[0] if len(args) >= 2 else 0
        stop = args[1] if len(args) >= 2 else args[0]
        step = concrete(args[2]) if len(args) == 3 else 1
        stop_expr = expr_of(stop)
        start_expr = expr_of(start)
        for k, value in enumerate(self._range):
            if step > 0 and stop_expr is not None and start_expr is not None:
                i_expr = ["+", start_expr, ["int", str(k * step)]]
                _record(["<", i_expr, stop_expr], True)
                yield make(value, i_expr, 2)
            else:
                yield value
        if step > 0 and stop_expr is not None and start_expr is not None:
            k = len(self._range)
            _record(["<", ["+", start_expr, ["int", str(k * step)]], stop_expr], False)
