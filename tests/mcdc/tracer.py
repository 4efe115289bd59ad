"""A second, independent MC/DC tracer: runs pytest on generated tests against the project's
modules instrumented at the source level, and decides from what it records which
(condition, value) pairs each decision Lacuna reported on has shown, by the definition of masking
MC/DC — without Lacuna's tables, marking function or bytecode positions.

usage: tracer.py REPORT.json PROJECT_ROOT TESTS_DIR OUT.json

Instrumentation: every module holding a reported decision is parsed with `ast`; the decision's
node is found from the report's line, column and source, its boolean structure is rebuilt the way
Python evaluates it (`and`/`or`/`not`, a chained comparison as the `and` of its links, `==`/`!=`
between boolean operands at the root), and the rewritten module, in which

    _lcn.end(_lcn.begin(KEY), ... _lcn.cond(KEY, I, <condition I>) ...)

stands for the decision, is compiled under the file's own name and imported in place of the
original through an import hook. `cond` records the condition's truth value and returns the
value unchanged, so nothing is evaluated twice and a short-circuited condition is simply not
recorded; the middle operand of a chained comparison is kept by the recorder between its two
links instead of being evaluated again. `end` closes the evaluation with the decision's value.

Independence: an evaluation shows (c, v) when condition c evaluated to v and flipping it, with
the other evaluated conditions held, changes the outcome for some value of the conditions that
short-circuiting skipped. Every evaluation is replayed on the rebuilt structure first: it must
have evaluated exactly the conditions short-circuiting asks for, in order, and reached the value
Python reached; any difference is reported as a model error.

A decision is skipped, with the reason in the output, when its node or its conditions cannot be
matched with the report, or when no test imported its module.
"""

import ast
import importlib.machinery
import itertools
import json
import os
import sys

# A decision's structure: ("c", i) is condition i, ("not", s), ("and" | "or", [s, ...]),
# ("eq", left, right, negated) for `==`/`!=` between two boolean operands.


def evaluate(s, value):
    """Evaluates `s` with Python's short-circuit rules, asking `value(i)` for each condition it
    evaluates, in order."""
    kind = s[0]
    if kind == "c":
        return value(s[1])
    if kind == "not":
        return not evaluate(s[1], value)
    if kind == "eq":
        return (evaluate(s[1], value) == evaluate(s[2], value)) != s[3]
    for child in s[1]:
        v = evaluate(child, value)
        if v == (kind == "or"):
            return v
    return kind == "and"


def shown(s, n, evaluated):
    """The (condition, value) pairs one evaluation shows: `evaluated` maps the conditions it
    evaluated to their values."""
    free = [i for i in range(n) if i not in evaluated]
    out = set()
    for c, v in evaluated.items():
        for bits in itertools.product([False, True], repeat=len(free)):
            values = dict(evaluated)
            values.update(zip(free, bits))
            a = evaluate(s, values.__getitem__)
            values[c] = not v
            if evaluate(s, values.__getitem__) != a:
                out.add((c, v))
                break
    return out


def replay(s, recorded, outcome):
    """Why an evaluation's record does not fit the structure, or None when it does: the
    conditions recorded, in order, must be those short-circuiting evaluates, and the outcome
    Python's."""
    values = dict(recorded)
    asked = []

    def value(i):
        asked.append(i)
        return values.get(i, False)

    reached = evaluate(s, value)
    order = [i for i, _ in recorded]
    if order != asked:
        return "conditions evaluated %s, the structure asks for %s" % (order, asked)
    if reached != outcome:
        return "outcome %s, the structure gives %s" % (outcome, reached)
    return None


def is_boolean(node):
    return (isinstance(node, (ast.Compare, ast.BoolOp))
            or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
            or isinstance(node, ast.Constant) and isinstance(node.value, bool))


def call(method, *args):
    return ast.Call(func=ast.Attribute(value=ast.Name(id="_lcn", ctx=ast.Load()), attr=method,
                                       ctx=ast.Load()),
                    args=list(args), keywords=[])


class Decision:
    def __init__(self, key, spec):
        self.key = key
        self.spec = spec
        self.skip = "not found in the module's AST"
        self.structure = None
        self.leaves = []  # (the condition as `ast.unparse` gives it, its source segment)
        self.shown = set()
        self.evaluations = 0
        self.model_errors = []

    def observe(self, recorded, outcome):
        error = replay(self.structure, recorded, outcome)
        if error is not None:
            if len(self.model_errors) < 5:
                self.model_errors.append(error)
            return
        self.evaluations += 1
        self.shown |= shown(self.structure, len(self.leaves), dict(recorded))


class Recorder:
    """Collects evaluations; the conditions of one evaluation are recorded from the frame that
    evaluates the decision, so a recursive evaluation of the same decision stays apart."""

    def __init__(self, decisions):
        self.decisions = decisions
        self.open = {}

    def begin(self, key):
        self.open[(key, id(sys._getframe(1)))] = ([], [None])
        return key

    def cond(self, key, index, value):
        recorded, _ = self.open[(key, id(sys._getframe(1)))]
        recorded.append((index, bool(value)))
        return value

    def keep(self, key, value):
        """The middle operand of a chained comparison, kept for its next link."""
        self.open[(key, id(sys._getframe(1)))][1][0] = value
        return value

    def kept(self, key):
        return self.open[(key, id(sys._getframe(1)))][1][0]

    def end(self, key, value):
        recorded, _ = self.open.pop((key, id(sys._getframe(1))))
        self.decisions[key].observe(recorded, bool(value))
        return value


class Instrument(ast.NodeTransformer):
    """Rewrites the decisions whose nodes are in `wanted` (node id → Decision)."""

    def __init__(self, wanted, text):
        self.wanted = wanted
        self.text = text

    def visit(self, node):
        d = self.wanted.get(id(node))
        if d is None:
            return super().visit(node)
        key = ast.Constant(d.key)
        expr, d.structure = self.structure(node, key, d, True)
        return call("end", call("begin", key), expr)

    def structure(self, node, key, d, at_root):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand, s = self.structure(node.operand, key, d, at_root)
            return ast.UnaryOp(op=ast.Not(), operand=operand), ("not", s)
        if isinstance(node, ast.BoolOp):
            parts = [self.structure(v, key, d, False) for v in node.values]
            return (ast.BoolOp(op=node.op, values=[e for e, _ in parts]),
                    ("and" if isinstance(node.op, ast.And) else "or", [s for _, s in parts]))
        if isinstance(node, ast.Compare) and len(node.ops) > 1:
            # `a < b < c` is `a < b and b < c`, with `b` evaluated once: kept by the recorder.
            operands = [node.left] + node.comparators
            indices = [self.leaf(ast.Compare(left=operands[j], ops=[op],
                                             comparators=[operands[j + 1]]),
                                 operands[j], operands[j + 1], d)
                       for j, op in enumerate(node.ops)]
            new = [self.visit(o) for o in operands]
            links = []
            for j, (op, index) in enumerate(zip(node.ops, indices)):
                left = new[0] if j == 0 else call("kept", key)
                right = new[j + 1] if index == indices[-1] else call("keep", key, new[j + 1])
                links.append(call("cond", key, ast.Constant(index),
                                  ast.Compare(left=left, ops=[op], comparators=[right])))
            return ast.BoolOp(op=ast.And(), values=links), ("and", [("c", i) for i in indices])
        if (at_root and isinstance(node, ast.Compare)
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
                and is_boolean(node.left) and is_boolean(node.comparators[0])):
            left, ls = self.structure(node.left, key, d, False)
            right, rs = self.structure(node.comparators[0], key, d, False)
            return (ast.Compare(left=left, ops=node.ops, comparators=[right]),
                    ("eq", ls, rs, isinstance(node.ops[0], ast.NotEq)))
        # `(x := f())` tests the value assigned: the condition is that value.
        reported = node.value if isinstance(node, ast.NamedExpr) else node
        index = self.leaf(reported, reported, reported, d)
        return call("cond", key, ast.Constant(index), self.visit(node)), ("c", index)

    def leaf(self, reported, first, last, d):
        """Registers the next condition of `d`, as its text and source segment (taken before
        anything inside is rewritten); returns its index."""
        start = self.text.offset(first.lineno, first.col_offset)
        end = self.text.offset(last.end_lineno, last.end_col_offset)
        segment = " ".join(self.text.data[start:end].decode().split())
        d.leaves.append((ast.unparse(reported), segment))
        return len(d.leaves) - 1


class Text:
    """A file's bytes, addressed by the AST's (1-based line, byte column) positions."""

    def __init__(self, data):
        self.data = data
        self.starts = [0] + [i + 1 for i, b in enumerate(data) if b == ord("\n")]

    def offset(self, line, column):
        return self.starts[line - 1] + column


def only(data, allowed):
    return all(b in allowed for b in data)


def locate(tree, text, decisions):
    """The node of each decision: the outermost expression within the reported range, with only
    parentheses and whitespace around it. Returns node id → Decision."""
    spans = [(text.offset(n.lineno, n.col_offset), text.offset(n.end_lineno, n.end_col_offset), n)
             for n in ast.walk(tree) if isinstance(n, ast.expr)]
    wanted = {}
    for d in decisions:
        start = text.offset(d.spec["line"], d.spec["column"] - 1)
        end = start + len(d.spec["source"].encode())
        best = None
        for s, e, n in spans:
            if (start <= s and e <= end and only(text.data[start:s], b"( \t\r\n\\")
                    and only(text.data[e:end], b") \t\r\n\\")
                    and (best is None or e - s > best[1] - best[0])):
                best = (s, e, n)
        if best is not None:
            wanted[id(best[2])] = d
            d.skip = None
    return wanted


def mismatch(d):
    """Why the conditions rebuilt from the AST are not those reported, or None."""
    reported = d.spec["conditions"]
    if len(reported) != len(d.leaves):
        return "%d conditions in the AST, %d reported" % (len(d.leaves), len(reported))
    for i, ((text, segment), r) in enumerate(zip(d.leaves, reported)):
        try:
            same = ast.unparse(ast.parse("(%s)" % r, mode="eval")) == text
        except SyntaxError:
            same = False
        if not (same or segment == r):
            return "condition %d is `%s` in the AST, `%s` reported" % (i, segment, r)
    return None


class Project:
    """The decisions of a report, by file, and the import hook that instruments their modules."""

    def __init__(self, report, root):
        self.decisions = {}
        self.by_file = {}
        for file in report["files"]:
            path = os.path.realpath(os.path.join(root, file["path"]))
            for function in file["functions"]:
                for spec in function.get("mcdc", []):
                    key = "%s:%d:%d" % (file["path"], spec["line"], spec["column"])
                    d = Decision(key, spec)
                    self.decisions[key] = d
                    self.by_file.setdefault(path, []).append(d)
        self.recorder = Recorder(self.decisions)
        self.imported = set()

    def instrument(self, path, data):
        text = Text(data)
        tree = ast.parse(data, filename=path)
        decisions = self.by_file[os.path.realpath(path)]
        tree = Instrument(locate(tree, text, decisions), text).visit(tree)
        ast.fix_missing_locations(tree)
        for d in decisions:
            if d.skip is None:
                d.skip = mismatch(d)
        self.imported.add(os.path.realpath(path))
        return compile(tree, path, "exec", dont_inherit=True)

    def find_spec(self, name, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.origin is None:
            return None
        if os.path.realpath(spec.origin) not in self.by_file:
            return None
        project = self

        class Loader(importlib.machinery.SourceFileLoader):
            def get_code(self, fullname):
                path = self.get_filename(fullname)
                return project.instrument(path, self.get_data(path))

            def exec_module(self, module):
                module._lcn = project.recorder
                super().exec_module(module)

        spec.loader = Loader(name, spec.origin)
        return spec

    def results(self):
        out = {}
        for path, decisions in self.by_file.items():
            for d in decisions:
                skip = d.skip
                if path not in self.imported:
                    skip = "no test imports its module"
                out[d.key] = {
                    "decision": d.spec["decision"],
                    "skipped": skip,
                    "evaluations": d.evaluations,
                    "model_errors": d.model_errors,
                    "shown": sorted([c, v] for c, v in d.shown),
                    "reported": sorted([o["condition"], o["value"]] for o in d.spec["shown"]),
                }
        return out


def main():
    report_path, root, tests, out_path = map(os.path.abspath, sys.argv[1:5])
    with open(report_path) as f:
        project = Project(json.load(f), root)
    sys.meta_path.insert(0, project)
    os.chdir(root)
    sys.path.insert(0, root)
    import pytest

    code = pytest.main([tests, "-q", "-p", "no:cacheprovider"])
    with open(out_path, "w") as f:
        json.dump({"pytest_exit": int(code), "decisions": project.results()}, f, indent=1)


if __name__ == "__main__":
    main()
