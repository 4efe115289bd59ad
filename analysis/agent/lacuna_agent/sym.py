"""Symbolic values: concrete Python values that also carry an expression over the inputs.

`SymInt`, `SymFloat` and `SymStr` subclass the builtin types, so user code and C functions see
ordinary values; operations on them return proxies; comparisons return a `SymBool`, whose truth
value records the condition (expression and outcome) with the recorder. Expressions are the wire
form of `analysis/src/symbolic/expr.rs`. Deeper than MAX_DEPTH, a result is concretised.
"""

import math
import operator
import types
import weakref

from . import recorder

MAX_DEPTH = 100

_ARITH = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "/": operator.truediv,
}
_CMP = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class Sym:
    """Mixin of every symbolic value: `_e` is the expression, `_d` its depth."""

    __slots__ = ()


def no_dict(self):
    """`x.__dict__` of a proxy: missing, as on the builtin value it stands for."""
    raise AttributeError("'%s' object has no attribute '__dict__'" % type(concrete(self)).__name__)


def looks_builtin(real):
    """Class decorator: the instances of a proxy class answer introspection as instances of the
    builtin type `real` do. The class body itself sets `__class__ = property(...)` (so that
    `x.__class__ is int`, C code's `isinstance` and `copyreg` see `real`) and
    `__dict__ = property(no_dict)` (so that `x.__dict__`, `hasattr(x, "__dict__")` and `vars(x)`
    fail as on a builtin value): neither can be set on a class once it exists. Here, `dir(x)`
    lists `real`'s attributes, and `__slots__` — a leftover of the class statements once the
    class exists — is removed from the class and its proxy bases. The proxy's own bookkeeping
    (`_e`, `_d`) stays where it was: the instance dictionary or slots."""

    def decorate(cls):
        cls.__dir__ = lambda self: dir(real)
        for klass in cls.__mro__:
            if issubclass(klass, Sym) and "__slots__" in klass.__dict__:
                delattr(klass, "__slots__")
        return cls
    return decorate


def expr_of(value):
    """The expression of a value: its own when symbolic, a literal for plain scalars, None for
    values with no expression form."""
    if isinstance(value, Sym):
        return value._e
    t = type(value)
    if t is bool:
        return ["bool", value]
    if t is int:
        return ["int", str(value)]
    if t is float:
        if math.isfinite(value):
            return ["float", value]
        return ["float", "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")]
    if t is str:
        return ["str", value]
    return None


def depth_of(value):
    return value._d if isinstance(value, Sym) else 1


def concrete(value):
    """The plain value of a proxy (recursively for containers); anything else unchanged."""
    if isinstance(value, Sym):
        return value._concrete()
    return value


def make(value, expr, depth):
    """A proxy of the right kind for `value` carrying `expr`, or `value` itself when it has no
    symbolic form or the expression is too deep."""
    if expr is None or depth > MAX_DEPTH:
        return value
    t = type(value)
    if t is bool:
        return SymBool(value, expr, depth)
    if t is int:
        return SymInt(value, expr, depth)
    if t is float:
        return SymFloat(value, expr, depth)
    if t is str:
        return SymStr(value, expr, depth)
    return value


def var(value, name):
    """The input `value` as a fresh variable `name`."""
    t = type(value)
    sort = {bool: "bool", int: "int", float: "float", str: "str"}.get(t)
    if sort is None:
        return value
    return make(value, ["var", name, sort], 1)


def _either_symbolic(a, b):
    return isinstance(a, Sym) or isinstance(b, Sym)


def apply(op, args, result):
    """The proxy of `result`, computed by `op` from `args` (some symbolic)."""
    exprs = [expr_of(a) for a in args]
    if any(e is None for e in exprs):
        return result
    return make(result, [op] + exprs, 1 + max(depth_of(a) for a in args))


def arith(op, a, b):
    ca, cb = concrete(a), concrete(b)
    if type(ca) not in (int, float, bool) or type(cb) not in (int, float, bool):
        return NotImplemented
    result = _ARITH[op](ca, cb)
    if type(result) is complex:
        return result
    return apply(op, (a, b), result)


def compare(op, a, b):
    ca, cb = concrete(a), concrete(b)
    result = _CMP[op](ca, cb)
    if result is NotImplemented or type(result) is not bool:
        return result
    if op in ("==", "!=") and _family(ca) != _family(cb):
        _equality_across_kinds(a, b, ca, cb, result)
    ea, eb = expr_of(a), expr_of(b)
    if ea is None or eb is None:
        return result
    return SymBool(result, [op, ea, eb], 1 + max(depth_of(a), depth_of(b)))


# Kinds of value whose equality compares across types (`1 == 1.0 == True`).
_FAMILIES = {bool: "number", int: "number", float: "number", str: "str", bytes: "bytes",
             type(None): "none"}
_KINDS = {int: "int", float: "float", str: "str", bytes: "bytes", type(None): "none",
          bool: "bool"}


def _family(value):
    return _FAMILIES.get(type(value))


def compared_across_kinds(a, b, result):
    """`a == b` came out `result` where the two are of different kinds (a dict's membership test
    of a key no key of its own kind can equal): recorded as `compare` records it."""
    ca, cb = concrete(a), concrete(b)
    if _family(ca) != _family(cb):
        _equality_across_kinds(a, b, ca, cb, result)


def _equality_across_kinds(a, b, ca, cb, result):
    """An input compared for equality with a value of another kind (`align == "right"` while
    the generator gave `align` an int) can only come out the other way as a value of that
    kind: recorded as a type test, so that an input of any type is tried as one."""
    from .values import named_inputs

    rec = recorder.current()
    if rec is None:
        return
    for x, other in ((a, cb), (b, ca)):
        kind = _KINDS.get(type(other))
        entry = named_inputs.get(id(x))
        if kind is not None and entry is not None and entry[0] is x:
            rec.type_test(entry[1], result, [kind], equality=True)


def _record(expr, value):
    rec = recorder.current()
    if rec is not None:
        rec.condition(expr, value, depth=3)


# Types whose truth value runs no user code.
_PLAIN_TRUTH = frozenset((bool, int, float, complex, str, bytes, type(None), list, tuple, dict,
                          set, frozenset, range))

# What Python's own truth slots look like when a type's `__bool__` or `__len__` is C code.
_C_SLOTS = (types.WrapperDescriptorType, types.MethodDescriptorType, types.BuiltinFunctionType)

# C types whose truth slot asks the object they stand for, which may answer with Python code: a
# weak reference's proxy (the referent's `__bool__`), a read-only view of a mapping (its `__len__`).
_DELEGATED_TRUTH = frozenset((weakref.ProxyType, weakref.CallableProxyType, types.MappingProxyType))

# A class's own namespace and method resolution order, read through `type`'s descriptors so that
# no metaclass of the project's can answer instead.
_class_dict = type.__dict__["__dict__"].__get__
_class_mro = type.__dict__["__mro__"].__get__

# Per type, whether its truth value runs no Python code (filled as types are met).
_truth_is_c = {}

# The agent's own wrappers whose truth is that of the object they wrap, each with how to reach
# it (an external call's returned object: `interpose.ReturnedObject`).
TRUTH_OF_WRAPPED = {}


def _truth_runs_no_python(cls):
    """Whether `bool()` of an instance of `cls` runs only C code: `__bool__` and `__len__` are
    defined in C or nowhere in its class hierarchy (`re.Match`, a `deque`, an instance of a
    class that defines neither, which is always true). Read from the classes' namespaces,
    without running any of their code. A C type that passes the question on to the object it
    stands for (a weak proxy, a mapping proxy) is not known to run no Python."""
    known = _truth_is_c.get(cls)
    if known is not None:
        return known
    plain = True
    for klass in _class_mro(cls):
        if klass in _DELEGATED_TRUTH:
            plain = False
        namespace = _class_dict(klass)
        for name in ("__bool__", "__len__"):
            if name in namespace and not isinstance(namespace[name], _C_SLOTS):
                plain = False
    try:
        _truth_is_c[cls] = plain
    except TypeError:
        pass
    return plain


def truth_of(value):
    """The truth value of `value` and its expression (None when concrete), without recording a
    condition: what a jump would have tested. (None, None) when taking it could run user code
    (a `__bool__` or `__len__` written in Python) or fails (an array's ambiguous truth)."""
    if isinstance(value, Sym):
        truth = getattr(value, "_truth", None)
        return truth() if truth is not None else (None, None)
    cls = type(value)
    wrapped = TRUTH_OF_WRAPPED.get(cls)
    if wrapped is not None:
        value = wrapped(value)
        cls = type(value)
    if cls in _PLAIN_TRUTH:
        return bool(value), None
    if _truth_runs_no_python(cls):
        try:
            return bool(value), None
        except Exception:
            return None, None
    return None, None


def truth(value):
    """`bool(value)`, recording the condition when `value` is symbolic."""
    if isinstance(value, Sym):
        return value.__bool__()
    return bool(value)


@looks_builtin(bool)
class SymBool(Sym):
    """A symbolic truth value. `bool` cannot be subclassed, so this is a plain object that
    behaves like a bool wherever Python asks for a truth value or a number. Identity tests
    (`flag is False`) cannot be overloaded: project code is compiled with them rewritten (see
    `identity`)."""

    __slots__ = ("_v", "_e", "_d")
    __class__ = property(lambda self: bool)
    __dict__ = property(no_dict)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (bool, (self._v,))

    def __init__(self, value, expr, depth=1):
        self._v = bool(value)
        self._e = expr
        self._d = depth

    def _concrete(self):
        return self._v

    def _truth(self):
        return self._v, self._e

    def __bool__(self):
        _record(self._e, self._v)
        return self._v

    def __repr__(self):
        return repr(self._v)

    __str__ = __repr__

    def __hash__(self):
        return hash(self._v)

    def __index__(self):
        return int(self._v)

    __int__ = __index__

    def __float__(self):
        return float(self._v)

    def __eq__(self, other):
        return compare("==", self, other)

    def __ne__(self, other):
        return compare("!=", self, other)

    def __invert__(self):
        return ~int(self._v)

    def __and__(self, other):
        c = concrete(other)
        if type(c) is bool:
            return apply("and", (self, other), self._v and c)
        return NotImplemented

    __rand__ = __and__

    def __or__(self, other):
        c = concrete(other)
        if type(c) is bool:
            return apply("or", (self, other), self._v or c)
        return NotImplemented

    __ror__ = __or__

    def __xor__(self, other):
        c = concrete(other)
        if type(c) is bool:
            return apply("!=", (self, other), self._v != c)
        return NotImplemented

    __rxor__ = __xor__

    def _as_int(self):
        return SymInt(int(self._v), ["bool.int", self._e], self._d + 1)

    def __add__(self, other):
        return self._as_int() + other

    def __radd__(self, other):
        return other + self._as_int()

    def __sub__(self, other):
        return self._as_int() - other

    def __rsub__(self, other):
        return other - self._as_int()

    def __mul__(self, other):
        return self._as_int() * other

    def __rmul__(self, other):
        return other * self._as_int()

    def __neg__(self):
        return -self._as_int()

    def __lt__(self, other):
        return self._as_int() < other

    def __le__(self, other):
        return self._as_int() <= other

    def __gt__(self, other):
        return self._as_int() > other

    def __ge__(self, other):
        return self._as_int() >= other


def _numeric_methods(cls):
    """Adds arithmetic, comparison and conversion methods to a numeric proxy class."""
    for op, name in (("+", "add"), ("-", "sub"), ("*", "mul"), ("//", "floordiv"),
                     ("%", "mod"), ("**", "pow"), ("/", "truediv")):
        def forward(self, other, _op=op):
            return arith(_op, self, other)

        def reflected(self, other, _op=op):
            return arith(_op, other, self)

        setattr(cls, "__%s__" % name, forward)
        setattr(cls, "__r%s__" % name, reflected)
    for op, name in (("==", "eq"), ("!=", "ne"), ("<", "lt"), ("<=", "le"), (">", "gt"),
                     (">=", "ge")):
        def cmp(self, other, _op=op):
            return compare(_op, self, other)

        setattr(cls, "__%s__" % name, cmp)

    def neg(self):
        return apply("neg", (self,), -self._concrete())

    def pos(self):
        return self

    def absolute(self):
        return apply("abs", (self,), abs(self._concrete()))

    def divmod_(self, other):
        return (arith("//", self, other), arith("%", self, other))

    def rdivmod_(self, other):
        return (arith("//", other, self), arith("%", other, self))

    cls.__neg__ = neg
    cls.__pos__ = pos
    cls.__abs__ = absolute
    cls.__divmod__ = divmod_
    cls.__rdivmod__ = rdivmod_
    cls.__hash__ = lambda self: hash(self._concrete())
    cls.__repr__ = lambda self: repr(self._concrete())
    cls.__str__ = lambda self: str(self._concrete())
    cls.__format__ = lambda self, spec: format(self._concrete(), spec)
    cls.__reduce__ = lambda self: (type(self._concrete()), (self._concrete(),))
    cls.__copy__ = lambda self: self
    cls.__deepcopy__ = lambda self, memo: self
    return cls


@looks_builtin(int)
@_numeric_methods
class SymInt(int, Sym):
    __class__ = property(lambda self: int)
    __dict__ = property(no_dict)

    def __new__(cls, value, expr, depth=1):
        obj = int.__new__(cls, value)
        obj._e = expr
        obj._d = depth
        return obj

    def _concrete(self):
        return int.__int__(self)

    def _truth(self):
        return int.__int__(self) != 0, ["!=", self._e, ["int", "0"]]

    def __bool__(self):
        v, e = self._truth()
        _record(e, v)
        return v

    def __index__(self):
        return int.__int__(self)

    def __int__(self):
        return int.__int__(self)

    def __float__(self):
        return float(int.__int__(self))


@looks_builtin(float)
@_numeric_methods
class SymFloat(float, Sym):
    __class__ = property(lambda self: float)
    __dict__ = property(no_dict)

    def __new__(cls, value, expr, depth=1):
        obj = float.__new__(cls, value)
        obj._e = expr
        obj._d = depth
        return obj

    def _concrete(self):
        return float.__float__(self)

    def _truth(self):
        return float.__float__(self) != 0.0, ["!=", self._e, ["float", 0.0]]

    def __bool__(self):
        v, e = self._truth()
        _record(e, v)
        return v

    def __float__(self):
        return float.__float__(self)

    def __int__(self):
        return int(float.__float__(self))

    def __trunc__(self):
        return apply("int", (self,), int(float.__float__(self)))

    def __round__(self, ndigits=None):
        return round(float.__float__(self), ndigits)

    def is_integer(self):
        return float.__float__(self).is_integer()


@looks_builtin(str)
class SymStr(str, Sym):
    __class__ = property(lambda self: str)
    __dict__ = property(no_dict)

    def __new__(cls, value, expr, depth=1):
        obj = str.__new__(cls, value)
        obj._e = expr
        obj._d = depth
        return obj

    def _concrete(self):
        return str.__str__(self)

    def __str__(self):
        return self

    def __repr__(self):
        return repr(self._concrete())

    def __hash__(self):
        return str.__hash__(self)

    def __reduce__(self):
        return (str, (self._concrete(),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __format__(self, spec):
        return format(self._concrete(), spec)

    def _truth(self):
        return str.__len__(self) > 0, [">", ["str.len", self._e], ["int", "0"]]

    def __bool__(self):
        v, e = self._truth()
        _record(e, v)
        return v

    def sym_len(self):
        return SymInt(str.__len__(self), ["str.len", self._e], self._d + 1)

    def __eq__(self, other):
        if not isinstance(concrete(other), str):
            return str.__eq__(self, other)
        return compare("==", self, other)

    def __ne__(self, other):
        if not isinstance(concrete(other), str):
            return str.__ne__(self, other)
        return compare("!=", self, other)

    def __lt__(self, other):
        return compare("<", self, other)

    def __le__(self, other):
        return compare("<=", self, other)

    def __gt__(self, other):
        return compare(">", self, other)

    def __ge__(self, other):
        return compare(">=", self, other)

    def __add__(self, other):
        if not isinstance(concrete(other), str):
            return NotImplemented
        return apply("str.concat", (self, other), self._concrete() + concrete(other))

    def __radd__(self, other):
        if not isinstance(concrete(other), str):
            return NotImplemented
        return apply("str.concat", (other, self), concrete(other) + self._concrete())

    def __getitem__(self, key):
        value = self._concrete()[concrete(key)]
        if isinstance(key, slice):
            if key.step not in (None, 1):
                return value
            n = str.__len__(self)
            start = 0 if key.start is None else key.start
            stop = n if key.stop is None else key.stop
            return apply("str.slice", (self, start, stop), value)
        return apply("str.at", (self, key), value)

    def __contains__(self, item):
        c = concrete(item)
        if not isinstance(c, str):
            return str.__contains__(self, item)
        return SymBool(c in self._concrete(), ["str.contains", self._e, expr_of(item)],
                       self._d + 1)

    def __iter__(self):
        n = str.__len__(self)
        length = self.sym_len()
        for i in range(n + 1):
            more = i < n
            _record([">", length._e, ["int", str(i)]], more)
            if not more:
                return
            yield apply("str.at", (self, i), self._concrete()[i])

    def startswith(self, prefix, *rest):
        c = concrete(prefix)
        if rest or not isinstance(c, str):
            return self._concrete().startswith(c, *[concrete(r) for r in rest])
        return SymBool(self._concrete().startswith(c),
                       ["str.startswith", self._e, expr_of(prefix)], self._d + 1)

    def endswith(self, suffix, *rest):
        c = concrete(suffix)
        if rest or not isinstance(c, str):
            return self._concrete().endswith(c, *[concrete(r) for r in rest])
        return SymBool(self._concrete().endswith(c),
                       ["str.endswith", self._e, expr_of(suffix)], self._d + 1)

    def find(self, sub, *rest):
        c = concrete(sub)
        result = self._concrete().find(c, *[concrete(r) for r in rest])
        if rest or not isinstance(c, str):
            return result
        return apply("str.find", (self, sub), result)

    def isdigit(self):
        return SymBool(self._concrete().isdigit(), ["str.isdigit", self._e], self._d + 1)

    def isalpha(self):
        return SymBool(self._concrete().isalpha(), ["str.isalpha", self._e], self._d + 1)

    def lower(self):
        return apply("str.lower", (self,), self._concrete().lower())

    def upper(self):
        return apply("str.upper", (self,), self._concrete().upper())

    def strip(self, chars=None):
        result = self._concrete().strip(concrete(chars))
        if chars is not None:
            return result
        return apply("str.strip", (self,), result)

    def replace(self, old, new, count=-1):
        result = self._concrete().replace(concrete(old), concrete(new), concrete(count))
        if count != -1:
            return result
        return apply("str.replace", (self, old, new), result)

    def count(self, sub, *rest):
        result = self._concrete().count(concrete(sub), *[concrete(r) for r in rest])
        if rest:
            return result
        return apply("str.count", (self, sub), result)

    def split(self, sep=None, maxsplit=-1):
        return self._concrete().split(concrete(sep), concrete(maxsplit))

    def encode(self, *args, **kwargs):
        return self._concrete().encode(*args, **kwargs)
