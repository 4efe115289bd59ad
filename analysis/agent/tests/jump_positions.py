"""Lists the conditional jumps of every module under a directory, as the agent maps them: one
JSON line per file with, for each jump, its mapped position, chain link, whether it is a loop
step, and the opcode that produced the tested value; and the positions of its value sites
(boolean operations returned or stored without a test). Used by the Rust test that checks every
jump lands on a condition of the syntax layer's decisions and every value site on a decision."""

import ast
import dis
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from lacuna_agent import positions  # noqa: E402


def main(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__"))
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, "rb") as f:
                    source = f.read()
                code = compile(source, path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError, UnicodeDecodeError):
                continue
            lines = source.decode("utf-8", "replace").splitlines()
            patterns = _pattern_spans(source)
            jumps = []
            values = []
            for c in positions.code_objects(code):
                values.extend(list(site.pos) for site in positions.value_sites(c).values())
                producers = {}
                instructions = [i for i in dis.get_instructions(c) if i.opname != "CACHE"]
                for k, ins in enumerate(instructions):
                    p = k - 1
                    while p >= 0 and instructions[p].opname in positions._TRANSPARENT:
                        p -= 1
                    producers[ins.offset] = instructions[p].opname if p >= 0 else ""
                seen = set()
                for _offset, jump in positions.analyse(c, lambda _, lines=lines: lines).items():
                    if id(jump) in seen:
                        continue
                    seen.add(id(jump))
                    if jump.pos is None:
                        continue
                    producer = producers.get(jump.offset, "")
                    if _inside(jump.pos, patterns):
                        producer = "MATCH_PATTERN"
                    jumps.append([list(jump.pos), jump.link, jump.loop, producer])
            print(json.dumps({"file": path, "jumps": jumps, "values": values}))


def _pattern_spans(source):
    """(start, end) positions of every `case` pattern: matching them makes jumps that are not
    decisions."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.match_case):
            p = node.pattern
            spans.append(((p.lineno, p.col_offset), (p.end_lineno, p.end_col_offset)))
    return spans


def _inside(pos, spans):
    if pos[1] is None:
        return False
    start, end = (pos[0], pos[1]), (pos[2], pos[3])
    return any(a <= start and end <= b for a, b in spans)


if __name__ == "__main__":
    main(sys.argv[1])
