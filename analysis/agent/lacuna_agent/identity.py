"""Identity tests in project code: `a is b` and `a is not b`.

CPython's `is` compares object addresses and cannot be overloaded, so a proxy is never the
object it stands for: `flag is False` is false for a symbolic bool whose value is `False`, and
`value is SENTINEL` false for an external call's value wrapped in a `ReturnedObject`. Project
modules are therefore compiled, for the generator's executions only, with each single identity
comparison rewritten into a call (`__lacuna_is__(a, b)`) that compares the objects the proxies
stand for. The call keeps the comparison's source position, so branches and conditions map to
the same source ranges; two symbolic bools (or one and a bool constant) give a symbolic
condition (`flag == False`), so the solver can flip the test.

Left as CPython compiles them: `x is None` / `x is not None` (no proxy stands for None, and
CPython compiles them into their own jumps, which `positions` maps), and chains mixing `is` with
other comparisons (`a is b is c`), whose middle operand is evaluated once.
"""

import ast

from .sym import Sym, SymBool, concrete, expr_of

IS = "__lacuna_is__"
IS_NOT = "__lacuna_is_not__"


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


class _Rewriter(ast.NodeTransformer):
    def __init__(self):
        self.changed = False

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return node
        right = node.comparators[0]
        if _is_none(node.left) or _is_none(right):
            return node
        name = IS if isinstance(node.ops[0], ast.Is) else IS_NOT
        call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, right],
                        keywords=[])
        self.changed = True
        return ast.copy_location(call, node)


def compile_project(source, filename):
    """The code of a project module with its identity tests rewritten, or None when it has
    none (the module is then compiled as CPython would)."""
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return None
    rewriter = _Rewriter()
    tree = rewriter.visit(tree)
    if not rewriter.changed:
        return None
    ast.fix_missing_locations(tree)
    return compile(tree, filename, "exec", dont_inherit=True)


def _plain(value):
    """The object a proxy stands for; containers made symbolic are the objects project code
    holds (their identity is theirs), so they stay."""
    from .interpose import real_type, unwrap

    if isinstance(value, Sym) and not isinstance(value, (list, tuple, set, dict)):
        return concrete(value)
    if isinstance(value, type):
        return real_type(value)
    return unwrap(value)


def _same(a, b, negated):
    if a is b:
        result = True
    else:
        result = _plain(a) is _plain(b)
    if negated:
        result = not result
    if isinstance(a, SymBool) or isinstance(b, SymBool):
        ca, cb = concrete(a), concrete(b)
        ea, eb = expr_of(a), expr_of(b)
        # Two bools are identical exactly when they are equal: a condition the solver can flip.
        if type(ca) is bool and type(cb) is bool and ea is not None and eb is not None:
            depth = 1 + max(getattr(a, "_d", 1), getattr(b, "_d", 1))
            return SymBool(result, ["!=" if negated else "==", ea, eb], depth)
    return result


def is_(a, b):
    """`a is b` for project code."""
    return _same(a, b, False)


def is_not(a, b):
    """`a is not b` for project code."""
    return _same(a, b, True)
