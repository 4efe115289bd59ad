#!/usr/bin/env python3
"""Import cycles between the modules of a crate, other than between a module and its
descendants: the layering rule of docs/architecture.md.

Every `use` and every `crate::…`/`super::…` path of each source file (unit tests left out) is
resolved to the module it names; modules that reach each other form a cycle. Prints each cycle
and exits 1 when there is one.

    python3 scripts/module_cycles.py analysis/src server/src grammar/src
"""

import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE = re.compile(r"\buse\s+([^;]+);", re.S)
MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", re.M)


def module_of(root: Path, file: Path) -> tuple:
    parts = list(file.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def expand(tree: str) -> list:
    """`a::{b, c::{d, e as f}}` → ['a::b', 'a::c::d', 'a::c::e as f']."""
    tree = re.sub(r"\s+", " ", tree).strip()
    tree = re.sub(r"\s*(::|\{|\}|,)\s*", r"\1", tree)
    if "{" not in tree:
        return [tree]
    head, rest = tree.split("{", 1)
    inner = rest[: rest.rindex("}")]
    items, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return [head + e for item in items if item for e in expand(item)]


def strip_tests(text: str) -> str:
    """The file without its `#[cfg(test)]` module and without comments and strings."""
    text = re.sub(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests\s*\{.*", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def edges(root: Path) -> dict:
    modules = {}
    for file in root.rglob("*.rs"):
        if file.name == "tests.rs" or "snapshots" in file.parts:
            continue
        modules[module_of(root, file)] = file
    graph = {m: set() for m in modules}
    for module, file in modules.items():
        text = strip_tests(file.read_text())
        paths = []
        for use in USE.findall(text):
            paths.extend(expand(use))
        paths.extend(m.group(0) for m in PATH.finditer(text))
        for path in paths:
            # `a::b as c` names `a::b`.
            segments = [s for s in path.split(" as ")[0].split("::") if s]
            if not segments:
                continue
            if segments[0] == "crate":
                target = []
                segments = segments[1:]
            elif segments[0] in ("super", "self"):
                # `super` of a file module `a/b.rs` is `a`; of `a/b/mod.rs` it is `a` too.
                target = list(module)
                while segments and segments[0] in ("super", "self"):
                    if segments[0] == "super":
                        target = target[:-1]
                    segments = segments[1:]
            else:
                continue
            # The longest module the path names.
            best = tuple(target)
            for i in range(len(segments) + 1):
                candidate = tuple(target + segments[:i])
                if candidate in modules:
                    best = candidate
            if best in modules and best != module:
                graph[module].add(best)
    return graph


def related(a: tuple, b: tuple) -> bool:
    return a[: len(b)] == b or b[: len(a)] == a


def cycles(graph: dict) -> list:
    """Strongly connected components of more than one module, over edges between modules
    that are not ancestor and descendant (Tarjan's algorithm, iterative)."""
    adjacency = {m: sorted(t for t in ts if not related(m, t)) for m, ts in graph.items()}
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(adjacency):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter[0]
                counter[0] += 1
                stack.append(node)
                on_stack.add(node)
            recurse = False
            for j in range(i, len(adjacency[node])):
                nxt = adjacency[node][j]
                if nxt not in index:
                    work.append((node, j + 1))
                    work.append((nxt, 0))
                    recurse = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if recurse:
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def main() -> int:
    found = 0
    for root in sys.argv[1:]:
        graph = edges(Path(root))
        for component in cycles(graph):
            found += 1
            names = ["::".join(m) or "<crate>" for m in component]
            print(f"{root}: modules that import each other: {', '.join(names)}")
            for m in component:
                back = [t for t in graph[m] if t in component and not related(m, t)]
                for t in sorted(back):
                    print(f"    {'::'.join(m)} -> {'::'.join(t)}")
    if not found:
        print(f"no import cycles between modules of {', '.join(sys.argv[1:])}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
