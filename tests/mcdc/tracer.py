"""A second, independent MC/DC tracer: runs pytest on generated tests and, at every evaluation
of a decision Lacuna reported on, evaluates its conditions itself — from the decision's AST, in
short-circuit order, on the frame's values — and decides which (condition, value) pairs the
evaluation shows by the definition of masking MC/DC (flipping the condition, with the other
evaluated conditions held, changes the outcome for some value of the conditions short-circuiting
skipped), without Lacuna's tables or marking function.

usage: tracer.py REPORT.json PROJECT_ROOT TESTS_DIR OUT.json

Decisions whose conditions call anything but a few pure builtins and string predicates are
skipped (evaluating a call twice could consume a mock's values or change state); so are
conditions that only exist inside a comprehension's scope. The output says what was skipped.
"""

import ast
import itertools
import json
import os
import sys

PURE_FUNCTIONS = {"len", "isinstance", "abs", "min", "max", "round", "bool", "int", "float", "str"}
PURE_METHODS = {"isalpha", "isdigit", "isalnum", "islower", "isupper", "isspace", "startswith",
                "endswith", "lower", "upper", "strip"}


def structure(node):
    """The boolean structure of a test: ("and"|"or", [children]), ("not", child), or a leaf
    (its source text). Chained comparisons are `and`s of their links."""
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return (op, [structure(v) for v in node.values])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return ("not", structure(node.operand))
    if isinstance(node, ast.Compare) and len(node.ops) > 1:
        links, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            links.append(ast.unparse(ast.Compare(left=left, ops=[op], comparators=[right])))
            left = right
        return ("and", links)
    return ast.unparse(node)


def leaves(s, out):
    if isinstance(s, str):
        out.append(s)
    elif s[0] == "not":
        leaves(s[1], out)
    else:
        for c in s[1]:
            leaves(c, out)
    return out


def pure(text):
    for node in ast.walk(ast.parse(text, mode="eval")):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in PURE_FUNCTIONS:
                continue
            if isinstance(f, ast.Attribute) and f.attr in PURE_METHODS:
                continue
            return False
        if isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)):
            return False
    return True


def evaluate_lazily(s, leaf_value, index):
    """Short-circuit evaluation; `leaf_value(i)` evaluates leaf i. Returns the value."""
    if isinstance(s, str):
        i = index[0]
        index[0] += 1
        return leaf_value(i)
    if s[0] == "not":
        return not evaluate_lazily(s[1], leaf_value, index)
    result = s[0] == "and"
    for child in s[1]:
        start = index[0]
        v = evaluate_lazily(child, leaf_value, index)
        if (s[0] == "and" and not v) or (s[0] == "or" and v):
            # Skip the leaves of the remaining operands.
            rest = s[1][s[1].index(child) + 1:]
            index[0] = start + len(leaves(("and", [child] + rest), []))
            return v
        result = v
    return result


def evaluate_fully(s, values, index):
    if isinstance(s, str):
        i = index[0]
        index[0] += 1
        return values[i]
    if s[0] == "not":
        return not evaluate_fully(s[1], values, index)
    results = [evaluate_fully(c, values, index) for c in s[1]]
    return all(results) if s[0] == "and" else any(results)


def shown(s, n, evaluated):
    """The (condition, value) pairs one evaluation shows: `evaluated` maps the conditions
    evaluated to their values."""
    free = [i for i in range(n) if i not in evaluated]
    out = set()
    for c, v in evaluated.items():
        for bits in itertools.product([False, True], repeat=len(free)):
            values = dict(evaluated)
            values.update(zip(free, bits))
            a = evaluate_fully(s, values, [0])
            values[c] = not v
            b = evaluate_fully(s, values, [0])
            if a != b:
                out.add((c, v))
                break
    return out


class Decision:
    def __init__(self, key, spec, path):
        self.key = key
        self.path = path
        self.line = spec["line"]
        self.function = spec["function"].split(".")[-1]
        self.skip = None
        self.shown = set()
        self.evaluations = 0
        try:
            tree = ast.parse("(" + spec["source"] + ")", mode="eval").body
        except SyntaxError as e:
            self.skip = "does not parse alone: %s" % e.msg
            return
        self.structure = structure(tree)
        self.leaves = leaves(self.structure, [])
        if len(self.leaves) != len(spec["conditions"]):
            self.skip = "%d conditions in the AST, %d reported" % (len(self.leaves),
                                                                 len(spec["conditions"]))
        elif not all(pure(t) for t in self.leaves):
            self.skip = "a condition calls code that may have side effects"
        else:
            self.code = [compile(t, "<condition>", "eval") for t in self.leaves]

    def observe(self, frame):
        values = {}

        def leaf(i):
            v = bool(eval(self.code[i], frame.f_globals, frame.f_locals))
            values[i] = v
            return v

        try:
            evaluate_lazily(self.structure, leaf, [0])
        except Exception:
            return  # the values are not what the decision sees (e.g. a comprehension's)
        self.evaluations += 1
        self.shown |= shown(self.structure, len(self.leaves), values)


def main():
    report_path, root, tests, out_path = sys.argv[1:5]
    with open(report_path) as f:
        report = json.load(f)
    decisions = {}
    by_line = {}
    for file in report["files"]:
        path = os.path.realpath(os.path.join(root, file["path"]))
        for function in file["functions"]:
            for d in function.get("mcdc", []):
                key = "%s:%d:%d" % (file["path"], d["line"], d["column"])
                spec = dict(d, function=function["name"])
                decision = Decision(key, spec, path)
                decisions[key] = (decision, d)
                if decision.skip is None:
                    by_line.setdefault((path, d["line"]), []).append(decision)
    files = {p for p, _ in by_line}

    def local(frame, event, arg):
        if event == "line":
            for d in by_line.get((frame.f_code.co_filename, frame.f_lineno), ()):
                if frame.f_code.co_name == d.function:
                    d.observe(frame)
        return local

    def trace(frame, event, arg):
        if os.path.realpath(frame.f_code.co_filename) in files:
            if frame.f_code.co_filename not in files:
                files.add(frame.f_code.co_filename)
                for (p, line), ds in list(by_line.items()):
                    if p == os.path.realpath(frame.f_code.co_filename):
                        by_line[(frame.f_code.co_filename, line)] = ds
            return local
        return None

    import pytest

    class Plugin:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            sys.settrace(trace)
            try:
                yield
            finally:
                sys.settrace(None)

    os.chdir(root)
    sys.path.insert(0, root)
    code = pytest.main([tests, "-q", "-p", "no:cacheprovider"], plugins=[Plugin()])
    out = {"pytest_exit": int(code), "decisions": {}}
    for key, (d, spec) in decisions.items():
        out["decisions"][key] = {
            "skipped": d.skip,
            "evaluations": d.evaluations,
            "shown": sorted([c, v] for c, v in d.shown),
            "reported": sorted([o["condition"], o["value"]] for o in spec["shown"]),
        }
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
