"""The peer of `lacuna check --static` in scripts/bench-static: CPython's `ast` parses every file
of a tree and counts the decisions Lacuna models (if/elif, while, ternary, assert, comprehension
if, match guard, boolean operators used as values are left out: ast has no value context)."""

import ast
import os
import sys


def main(root, verbose):
    files = decisions = failed = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("site-packages", "__pycache__")]
        for name in filenames:
            if not name.endswith(".py"):
                continue
            try:
                with open(os.path.join(dirpath, name), "rb") as f:
                    tree = ast.parse(f.read())
            except (SyntaxError, ValueError):
                failed += 1
                continue
            files += 1
            for node in ast.walk(tree):
                if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                    decisions += 1
                elif isinstance(node, ast.comprehension):
                    decisions += len(node.ifs)
                elif isinstance(node, ast.match_case) and node.guard is not None:
                    decisions += 1
    if verbose:
        print("python3 ast: files", files, "decisions (without boolean values)", decisions, "unparsable", failed)


if __name__ == "__main__":
    main(sys.argv[1], "--verbose" in sys.argv)
