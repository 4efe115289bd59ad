"""Proxy fidelity: a function run on symbolic proxies takes the path it takes on the plain values
they stand for. Each function of the fixture package `tests/fixtures/proxies/fidelity` is loaded
as the agent loads project code (identity tests rewritten, Lacuna's builtins, recording wrappers
for library modules) and called with proxies built as the agent builds inputs, under a real
recorder; and loaded as CPython loads it, called with the plain values: the outcomes must be
equal."""

import os
import sys
import types

import pytest

from lacuna_agent import identity, interpose, objects, recorder
from lacuna_agent.sym import Sym, SymBool, SymInt, SymStr, concrete

FIXTURE = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests",
                                        "fixtures", "proxies", "fidelity"))


def _is_project_file(filename):
    return bool(filename) and os.path.realpath(filename).startswith(FIXTURE + os.sep)


def _is_project_module(module):
    if isinstance(module, str):
        module = sys.modules.get(module)
    return _is_project_file(getattr(module, "__file__", None))


def load(name, native=False):
    """The fixture module `name`, executed as the agent executes project code (or, `native`,
    as CPython does)."""
    path = os.path.join(FIXTURE, name + ".py")
    with open(path, "rb") as f:
        source = f.read()
    module = types.ModuleType("fidelity." + name)
    module.__file__ = path
    if native:
        exec(compile(source, path, "exec"), module.__dict__)
        return module
    code = identity.compile_project(source, path) or compile(source, path, "exec")
    module.__dict__["__builtins__"] = interpose.builtins_for(module.__name__)
    sys.modules[module.__name__] = module
    exec(code, module.__dict__)
    interpose.wrap_globals(module, _is_project_module)
    return module


def proxied(args):
    return [objects.wrap(a, "arg%d" % i, lambda o: False) for i, a in enumerate(args)]


def run(function, args):
    """The outcome of one call: its return value made plain, or the exception's type."""
    rec = recorder.start(lambda code: _is_project_file(code.co_filename))
    try:
        result = function(*args)
        return "returned", _plain(result), rec
    except Exception as e:  # the outcome under test
        return "raised", type(e).__name__, rec
    finally:
        recorder.stop()


def _plain(value):
    value = concrete(interpose.unwrap(value))
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


CASES = {
    "identity": {
        "strict": [(True,), (False,)],
        "tristate": [(None,), (True,), (False,)],
        "same_kind": [(3,), (-400,)],
        "exact_type": [(3, True), (0, False)],
        "flags_agree": [(True, True), (True, False), (False, False), (False, True)],
    },
    "introspect": {
        "serialise": [({},), ({"a": 1},)],
        "has_fields": [("",), ("text",)],
        "slotted": [([],), ([1, 2, 3],)],
        "public_names": [("",), ("abc",)],
        "attribute": [(0,), (11,)],
        "kinds": [(1, True, []), (2, False, [1])],
        "exact_kind": [(set(),), ({1, 2},), (frozenset(),), ({},), ({"a": 1},), ([],), (3,)],
    },
    "metaclasses": {
        "made": [("Extra",), ("B",)],
        "kind": [(1,), (0,), (-2,)],
        "meta_of": [(True,), (False,)],
        "generic_of": [(True,), (False,)],
    },
    "bases": {
        "built": [("Shape",), ("X",)],
        "counted": [(["a", "bb"],), ([],)],
        "described": [(True,), (False,)],
    },
    "decimals": {
        "rounded": [(3, 0), (1, 2)],
        "total": [([],), ([4, 7],)],
        "quantized": [(0,), (2,)],
    },
    "boundaries": {
        "encoded": [(True, "n"), (False, "")],
        "cast_joined": [("a",), ("b",)],
        "matched": [({},), ({"k": "12"},), ({"k": "x"},)],
        "packed": [(5, True), (-1, False)],
        "joined": [([],), (["a", "b.py"],), (["a", "b"],)],
        "ordered": [(["bb", "a"],), (["b", "aa"],)],
        "day": [(2024, 1), (2024, 4), (0, 1)],
        "lookup": [("k", True), ("", False)],
        "nested_flags": [([True],), ([False],), ([],)],
        "smallest": [([],), ([3, -1, 2],), ([4, 1],)],
    },
}


@pytest.mark.parametrize("module_name,function_name,args", [
    (m, f, args) for m, functions in CASES.items() for f, inputs in functions.items()
    for args in inputs])
def test_proxies_take_the_path_of_the_values_they_stand_for(module_name, function_name, args):
    expected = run(getattr(load(module_name, native=True), function_name), list(args))[:2]
    got = run(getattr(load(module_name), function_name), proxied(args))[:2]
    assert got == expected


def test_an_identity_test_on_a_symbolic_bool_is_a_condition_the_solver_can_flip():
    module = load("identity")
    flag = SymBool(False, ["var", "flag", "bool"])
    outcome, value, rec = run(module.strict, [flag])
    assert (outcome, value) == ("returned", "off")
    conditions = [(e["expr"], e["value"]) for e in rec.events if e["k"] == "constraint"]
    assert conditions == [
        (["==", ["var", "flag", "bool"], ["bool", True]], False),
        (["==", ["var", "flag", "bool"], ["bool", False]], True),
    ]


def test_proxies_look_like_the_builtin_values_they_stand_for():
    n = SymInt(3, ["var", "n", "int"])
    s = SymStr("a", ["var", "s", "str"])
    flag = SymBool(True, ["var", "flag", "bool"])
    containers = proxied([[1], {"k": 1}, (1,), {2}])
    for proxy, real in [(n, 3), (s, "a"), (flag, True)] + list(
            zip(containers, [[1], {"k": 1}, (1,), {2}])):
        assert isinstance(proxy, Sym)
        assert proxy.__class__ is type(real)
        assert hasattr(proxy, "__dict__") is False
        assert hasattr(proxy, "__slots__") is False
        assert dir(proxy) == dir(real)
        with pytest.raises(TypeError):
            vars(proxy)
    assert isinstance(flag, bool) and isinstance(flag, int)


def test_identity_tests_are_rewritten_but_none_tests_and_chains_are_not():
    source = b"def f(a, b, c):\n    return (a is b, a is not b, a is None, None is not c, a is b is c)\n"
    code = identity.compile_project(source, "<test>")
    names = set(code.co_consts[0].co_names)
    assert {identity.IS, identity.IS_NOT} <= names
    namespace = {"__builtins__": interpose.builtins_for("m")}
    exec(code, namespace)
    flag = SymBool(True, ["var", "flag", "bool"])
    assert namespace["f"](flag, True, None) == (True, False, False, False, False)
    assert identity.compile_project(b"x = 1 if y is None else 2\n", "<test>") is None
