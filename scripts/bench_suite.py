"""A project's own pytest suite observed by Lacuna: overhead and fidelity against plain pytest and
coverage.py, on the suites three real PyPI projects ship in their sdists.

    .venv/bin/python scripts/bench_suite.py --work DIR --lacuna BIN [--repeat 2] [--budget 60] [--only NAME...]

(an interpreter with coverage.py: its parser maps recorded arcs as its reports do).

For each project (pinned below: one with thousands of parametrised tests, one whose tests lean on
fixtures from `conftest.py`, one written as `unittest.TestCase` classes) the script fetches the
sdist with pip, unpacks it, makes a venv (from the interpreter running the script) with the
project installed editable from the unpacked tree and its test dependencies, and links it as the
tree's `.venv` (where Lacuna finds a project's interpreter by default). Everything runs with HOME
in DIR/home. Then, `--repeat` times each:

1. plain pytest: `.venv/bin/pytest -q -p no:cacheprovider -p bench_outcomes` from the tree,
   under `/usr/bin/time -v` (wall time, peak RSS). `bench_outcomes` is a 20-line plugin, on
   PYTHONPATH, that writes each test's outcome (with the logic Lacuna's plugin uses) to a file;
2. Lacuna as a user runs it: `lacuna check --format json --no-cache --budget B --lcov F
   --coverage-of suite TREE` (no `[tool.lacuna]` table: the default `tests` setting; the
   `--budget` bounds the generation that comes first, the suite runs after it whatever the
   budget). The suite phase's wall time is the document's `suite.time_ms`; its peak memory is
   the peak RSS (VmHWM) of the worker that ran it (the agent process whose working directory
   is the project's root: the suite's worker changes into it), read from /proc every 0.1 s;
   `/usr/bin/time -v` gives the whole check's peak (the largest of Lacuna and its workers).
   There is no way to run the suite alone: `lacuna check` always explores first.

Once, `coverage run --branch -m pytest` with the same outcome plugin, which also switches
coverage.py's context to `tests` while the tests run (so the arcs run by the tests are told from
those run at collection; when every test passes, they are the passing tests'), then `coverage
json`. Every
branch side Lacuna reports for a function (from the lcov file, `--coverage-of suite`) is
matched to coverage.py's arc when coverage.py has one for it: the decision's line has exactly
two branch arcs in `coverage json` and one side's first line (`target_line` in the JSON
document; for a loop, the nearest line below it) is the destination of one of them. Sides with
no such arc (asserts, conditional expressions, comprehension conditions, `while True`, two
decisions on a line) are counted apart, as coverage.py cannot attribute them.

Writes DIR/results.json (DIR/results-NAME.json with --only) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

NICE = ["nice", "-n", "19"]

# Chosen (and pinned) before anything ran on them; none is used elsewhere in this repository.
PROJECTS = [
    {
        "name": "tinycss2", "version": "1.5.1", "shape": "thousands of parametrised tests",
        # Its tests' JSON files (css-parsing-tests) are each one `parametrize`d test.
        "test_deps": ["pytest==9.2.0", "coverage==7.17.3"],
    },
    {
        "name": "Jinja2", "version": "3.1.6", "shape": "fixtures from conftest.py",
        # tests/conftest.py: `env` and the loaders, taken by most tests; trio for the async tests.
        "test_deps": ["pytest==9.2.0", "coverage==7.17.3", "trio"],
    },
    {
        "name": "pyasn1", "version": "0.6.5", "shape": "unittest.TestCase",
        "test_deps": ["pytest==9.2.0", "coverage==7.17.3"],
    },
]

# The outcome of each test, as Lacuna's plugin (analysis/agent/lacuna_agent/suite.py) decides
# it, written to $BENCH_OUTCOMES; under coverage.py, each test's phases in its own context.
PLUGIN = r'''
import json, os

OUT = {}
_COV = None


def _cov():
    global _COV
    if _COV is None:
        try:
            import coverage
            _COV = coverage.Coverage.current() or False
        except Exception:
            _COV = False
    return _COV or None


def pytest_runtest_logreport(report):
    xfail = hasattr(report, "wasxfail")
    outcome = None
    if report.when == "call":
        if xfail:
            outcome = "xfailed" if report.skipped else ("xpassed" if report.passed else "failed")
        else:
            outcome = report.outcome
    elif report.when == "setup":
        if report.failed:
            outcome = "error"
        elif report.skipped:
            outcome = "xfailed" if xfail else "skipped"
    elif report.failed:
        outcome = "error"
    if outcome is not None:
        OUT[report.nodeid] = outcome


import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    # One context for the tests (setup, call, teardown), another ("") for collection: a switch
    # per test would cost coverage.py a write of its data each time.
    cov = _cov()
    if cov is not None:
        cov.switch_context("tests")
    try:
        yield
    finally:
        if cov is not None:
            cov.switch_context("")


def pytest_sessionfinish(session):
    with open(os.environ["BENCH_OUTCOMES"], "w") as f:
        json.dump(OUT, f)
'''

OUTCOMES = ["passed", "failed", "error", "skipped", "xfailed", "xpassed", "crashed"]


def clean_env(work: Path, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME") and not k.startswith("COVERAGE")}
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["TMPDIR"] = str(work / "tmp")
    (work / "tmp").mkdir(exist_ok=True)
    if extra:
        env.update(extra)
    return env


def prepare(work: Path, project: dict) -> tuple[Path, dict]:
    """The unpacked tree (with `.venv`), and what the sdist was."""
    name, version = project["name"], project["version"]
    sd = work / "sdists"
    sd.mkdir(parents=True, exist_ok=True)
    found = [p for p in sd.iterdir() if p.name.lower().startswith(f"{name.lower()}-{version}.")]
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        f"{name}=={version}", "-d", str(sd)], check=True, env=clean_env(work))
        found = [p for p in sd.iterdir() if p.name.lower().startswith(f"{name.lower()}-{version}.")]
    sdist = found[0]
    tree = work / "trees" / f"{name}-{version}"
    venv = work / "venvs" / name
    if not tree.exists():
        tmp = work / "trees" / ".extract"
        shutil.rmtree(tmp, ignore_errors=True)
        with tarfile.open(sdist) as tar:
            tar.extractall(tmp, filter="data")
        (root,) = list(tmp.iterdir())
        tree.parent.mkdir(parents=True, exist_ok=True)
        root.rename(tree)
        shutil.rmtree(tmp)
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        *project["test_deps"], "-e", str(tree)], check=True, env=clean_env(work))
    link = tree / ".venv"
    if not link.exists():
        link.symlink_to(venv)
    return tree, {"sdist": sdist.name, "sha256": hashlib.sha256(sdist.read_bytes()).hexdigest()}


def plugin_dir(work: Path) -> Path:
    d = work / "plugin"
    d.mkdir(parents=True, exist_ok=True)
    (d / "bench_outcomes.py").write_text(PLUGIN)
    return d


def timed(cmd: list[str], cwd: Path, env: dict, timeout: float, watch: Path | None = None) -> dict:
    """Runs cmd under /usr/bin/time -v: wall time, peak RSS, output; with `watch`, the peak RSS of
    the descendant whose working directory is `watch` too."""
    stats = work_file = Path(env["TMPDIR"]) / f"time-{os.getpid()}-{time.monotonic_ns()}.txt"
    start = time.monotonic()
    proc = subprocess.Popen(["/usr/bin/time", "-v", "-o", str(work_file), *cmd], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    peak = {"kb": 0}
    done = threading.Event()
    if watch is not None:
        threading.Thread(target=watch_rss, args=(proc.pid, str(watch.resolve()), peak, done), daemon=True).start()
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 15)
        out, err = proc.communicate()
        timed_out = True
    wall = time.monotonic() - start
    done.set()
    text = stats.read_text() if stats.exists() else ""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", text))
    return {"wall_s": round(wall, 2), "peak_rss_mb": round(int(m.group(1)) / 1024, 1) if m else None,
            "cpu_s": round(cpu, 2),
            "watched_peak_rss_mb": round(peak["kb"] / 1024, 1) if watch is not None else None,
            "watched_cpu_s": round(peak.get("cpu", 0.0), 2) if watch is not None else None,
            "returncode": proc.returncode, "timed_out": timed_out, "stdout": out, "stderr": err}


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        for c in children.get(pid, []):
            out.append(c)
            todo.append(c)
    return out


def watch_rss(root: int, cwd: str, peak: dict, done: threading.Event) -> None:
    while not done.is_set():
        for pid in descendants(root):
            try:
                if os.readlink(f"/proc/{pid}/cwd") != cwd:
                    continue
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            peak["kb"] = max(peak["kb"], int(line.split()[1]))
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                # The suite worker's processor time (user + system), as last seen.
                peak["cpu"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except OSError:
                continue
        done.wait(0.1)


def counts(outcomes: dict) -> dict:
    c = {k: 0 for k in OUTCOMES}
    for o in outcomes.values():
        c[o] = c.get(o, 0) + 1
    return {k: v for k, v in c.items() if v}


def run_plain(work: Path, tree: Path, i: int) -> dict:
    out_file = work / "out" / f"{tree.name}-plain-{i}.json"
    out_file.parent.mkdir(parents=True, exist_ok=True)
    env = clean_env(work, {"PYTHONPATH": str(plugin_dir(work)), "BENCH_OUTCOMES": str(out_file)})
    r = timed([*NICE, str(tree / ".venv" / "bin" / "pytest"), "-q", "-p", "no:cacheprovider", "-p",
               "bench_outcomes"], tree, env, 3600)
    outcomes = json.loads(out_file.read_text()) if out_file.exists() else {}
    tail = (r["stdout"].strip().splitlines() or [""])[-1]
    return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "peak_rss_mb": r["peak_rss_mb"], "returncode": r["returncode"],
            "summary": tail, "counts": counts(outcomes), "outcomes": outcomes}


def run_lacuna(work: Path, tree: Path, lacuna: str, budget: int, i: int) -> dict:
    lcov = work / "out" / f"{tree.name}-lacuna-{i}.lcov"
    shutil.rmtree(tree / ".lacuna", ignore_errors=True)
    cmd = [*NICE, lacuna, "check", "--format", "json", "--no-cache", "--budget", str(budget), "--lcov", str(lcov),
           "--coverage-of", "suite", "--quiet", str(tree)]
    r = timed(cmd, work, clean_env(work), 7200, watch=tree)
    try:
        doc = json.loads(r["stdout"])
    except json.JSONDecodeError:
        sys.exit(f"lacuna check on {tree.name} wrote no JSON (exit {r['returncode']}): {r['stderr'][-2000:]}")
    (work / "out" / f"{tree.name}-lacuna-{i}.json").write_text(r["stdout"])
    suite = doc.get("suite") or {}
    outcomes = {t["id"]: t["outcome"] for t in suite.get("tests", [])}
    return {"wall_s": r["wall_s"], "peak_rss_mb": r["peak_rss_mb"], "suite_peak_rss_mb": r["watched_peak_rss_mb"],
            "suite_cpu_s": r["watched_cpu_s"],
            "suite_s": round(suite.get("time_ms", 0) / 1000, 2), "returncode": r["returncode"],
            "counts": counts(outcomes), "outcomes": outcomes, "error": suite.get("error"),
            "collection_errors": suite.get("collection_errors", []), "generation": doc.get("generation"),
            "stderr": r["stderr"][-2000:], "doc": doc, "lcov": lcov}


def run_coverage(work: Path, tree: Path) -> dict:
    data = work / "out" / f"{tree.name}.coverage"
    out_file = work / "out" / f"{tree.name}-coverage-outcomes.json"
    cov_json = work / "out" / f"{tree.name}-coverage.json"
    for p in (data, cov_json):
        p.unlink(missing_ok=True)
    env = clean_env(work, {"PYTHONPATH": str(plugin_dir(work)), "BENCH_OUTCOMES": str(out_file),
                           "COVERAGE_FILE": str(data)})
    py = str(tree / ".venv" / "bin" / "python")
    r = timed([*NICE, py, "-m", "coverage", "run", "--branch", "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "bench_outcomes"], tree, env, 7200)
    subprocess.run([py, "-m", "coverage", "json", "-q", "-i", "-o", str(cov_json)], cwd=tree, env=env, check=True)
    return {"wall_s": r["wall_s"], "outcomes": json.loads(out_file.read_text()), "json": json.loads(cov_json.read_text()),
            "data": data}


def arcs_by_context(data: Path, passing: set[str]) -> dict[str, dict[str, set]]:
    """Per file: the arcs the tests ran (all of them passing: `passing` is every test), and those
    run outside any test (collection)."""
    con = sqlite3.connect(data)
    contexts = dict(con.execute("select id, context from context"))
    files = dict(con.execute("select id, path from file"))
    out: dict[str, dict[str, set]] = {}
    first_lines: dict[str, object] = {}
    for file_id, context_id, a, b in con.execute("select file_id, context_id, fromno, tono from arc"):
        path = os.path.realpath(files[file_id])
        entry = out.setdefault(path, {"tests": set(), "outside": set(), "other": set()})
        ctx = contexts[context_id]
        key = "tests" if ctx == "tests" else ("outside" if ctx == "" else "other")
        # The data holds the arcs as the tracer saw them; `coverage json` reports them between
        # the first lines of multi-line statements (a branch into `x = [\n  …]` lands on the
        # line of its first element): map them the same way.
        first = first_lines.get(path)
        if first is None:
            first = first_lines[path] = first_line_map(path)
        entry[key].add((first(a), first(b)))
    con.close()
    return out


def first_line_map(path: str):
    """coverage.py's mapping of a line to the first line of its statement (`PythonParser`), or
    the identity when coverage.py cannot be imported or the file cannot be parsed."""
    try:
        from coverage.parser import PythonParser
    except ImportError:
        print(f"warning: arcs of {path} compared as recorded: run the harness with an "
              "interpreter that has coverage.py", file=sys.stderr)
        return lambda n: n
    try:
        parser = PythonParser(filename=path)
        parser.parse_source()
        return lambda n: parser.first_line(n) if n > 0 else -parser.first_line(-n)
    except Exception:  # not Python (a template coverage.py recorded)
        return lambda n: n


def parse_lcov(path: Path) -> dict[str, dict]:
    """File → its functions (names) and its decisions in order: (line, [taken of the first side,
    taken of the second])."""
    out: dict[str, dict] = {}
    current = None
    for line in path.read_text().splitlines():
        if line.startswith("SF:"):
            current = out.setdefault(line[3:], {"functions": set(), "blocks": {}})
        elif line.startswith("FN:") and current is not None:
            current["functions"].add(line[3:].split(",", 1)[1])
        elif line.startswith("BRDA:") and current is not None:
            no, block, _name, taken = line[5:].split(",")
            current["blocks"].setdefault(int(block), (int(no), []))[1].append(taken not in ("-", "0"))
    return out


def fidelity(work: Path, tree: Path, lacuna: dict, cov: dict, passing: set[str]) -> dict:
    """Lacuna's per-function suite branch coverage against coverage.py's arcs."""
    doc = lacuna["doc"]
    by_file_cov = {os.path.realpath(tree / f): v for f, v in cov["json"]["files"].items()}
    arcs = arcs_by_context(cov["data"], passing)
    lcov = parse_lcov(lacuna["lcov"])
    result = {"functions": 0, "functions_compared": 0, "functions_equal_counts": 0, "functions_differ": 0,
              "functions_differ_collection_only": 0, "functions_without_sides": 0,
              "functions_reached_without_suite_figure": 0, "without_suite_figure_why": {},
              "sides": 0, "sides_attributable": 0, "sides_unattributable": 0, "unattributable_kinds": {},
              "differences": []}
    for f in doc["files"]:
        path = os.path.realpath(work / f["path"])
        if not path.startswith(str(tree.resolve()) + os.sep):
            continue
        cfile = by_file_cov.get(path, {})
        branch_arcs: dict[int, list[tuple[int, int]]] = {}
        for a, b in cfile.get("executed_branches", []) + cfile.get("missing_branches", []):
            branch_arcs.setdefault(a, []).append((a, b))
        ran = arcs.get(path, {"tests": set(), "outside": set(), "other": set()})
        lc = lcov.get(f["path"]) or {"functions": set(), "blocks": {}}
        queues: dict[int, list[list[bool]]] = {}
        for _, (no, taken_) in sorted(lc["blocks"].items()):
            queues.setdefault(no, []).append(taken_)
        decisions_on_line: dict[int, set] = {}
        for fn in f["functions"]:
            for s in fn.get("sides", []):
                decisions_on_line.setdefault(s["line"], set()).add(s["decision"])
        for fn in f["functions"]:
            if fn.get("kind") != "function" or not fn.get("sides"):
                continue
            if not fn.get("suite"):
                # Not explorable (a constructor, a property, a generator, a nested function...):
                # the document gives it no suite figure. Did the tests run one of its decisions?
                if any(a in ran["tests"] for s in fn["sides"] for a in branch_arcs.get(s["line"], [])):
                    result["functions_reached_without_suite_figure"] += 1
                    result["without_suite_figure_why"].setdefault(fn.get("not_explored", "?")[:60], 0)
                    result["without_suite_figure_why"][fn.get("not_explored", "?")[:60]] += 1
                continue
            result["functions"] += 1
            sides = fn["sides"]
            if fn.get("not_explored") or fn["name"] not in lc["functions"]:
                # `--coverage-of suite` writes the sides of explored functions only (those the
                # run's budget left out have their suite figure in the JSON document, but no
                # side taken in the lcov file): compared by their count alone.
                result["functions_without_sides"] += 1
                continue
            taken = []
            seen: dict[str, list[bool]] = {}
            for s in sides:
                if s["decision"] not in seen:
                    queue = queues.get(s["line"], [])
                    seen[s["decision"]] = queue.pop(0) if queue else [False, False]
                pair = seen[s["decision"]]
                taken.append(pair[0 if s["side"] == "true" else 1] if len(pair) == 2 else False)
            result["functions_compared"] += 1
            if sum(taken) == fn["suite"]["branches"]:
                result["functions_equal_counts"] += 1
            diffs, collection_only = [], True
            by_decision: dict[str, list[int]] = {}
            for i, s in enumerate(sides):
                by_decision.setdefault(s["decision"], []).append(i)
            for decision, idx in by_decision.items():
                s0 = sides[idx[0]]
                line = s0["line"]
                result["sides"] += len(idx)
                cand = branch_arcs.get(line, [])
                mapped = None
                if len(idx) == 2 and len(cand) == 2 and len(decisions_on_line[line]) == 1:
                    first = sides[idx[0]].get("target_line")
                    if first is None and s0["kind"] in ("for", "while", "async for"):
                        below = sorted(b for _, b in cand if b > line)
                        first = below[0] if below else None
                    hit = [arc for arc in cand if arc[1] == first]
                    if len(hit) == 1:
                        other = [arc for arc in cand if arc != hit[0]]
                        mapped = [hit[0], other[0]]
                if mapped is None:
                    result["sides_unattributable"] += len(idx)
                    kinds = result["unattributable_kinds"]
                    why = s0["kind"] if len(cand) != 2 or len(decisions_on_line[line]) == 1 else "shared line"
                    kinds[why] = kinds.get(why, 0) + len(idx)
                    continue
                result["sides_attributable"] += len(idx)
                for i, arc in zip(idx, mapped):
                    theirs = arc in ran["tests"]
                    if taken[i] != theirs:
                        outside = arc in ran["outside"] or arc in ran["other"]
                        collection_only = collection_only and (not taken[i] and outside)
                        diffs.append({"line": line, "kind": s0["kind"], "side": sides[i]["side"], "arc": list(arc),
                                      "lacuna": taken[i], "coverage_py": theirs,
                                      "coverage_py_outside_passing_tests": outside})
            if diffs:
                result["functions_differ"] += 1
                if collection_only:
                    result["functions_differ_collection_only"] += 1
                result["differences"].append({"file": f["path"], "function": fn["name"], "sides": diffs})
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--lacuna")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--budget", type=int, default=60)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--fidelity", metavar="NAME", help="only recompute the comparison with coverage.py of a run")
    ap.add_argument("--table", nargs="*", type=Path, help="only print the table of these results files")
    args = ap.parse_args()
    if args.fidelity:
        # Recompute the comparison from the files a run left in DIR/out (its last Lacuna run).
        work = args.work.resolve()
        path = work / f"results-{args.fidelity}.json"
        results = json.loads(path.read_text())
        project = next(p for p in PROJECTS if p["name"] == args.fidelity)
        tree = work / "trees" / f"{project['name']}-{project['version']}"
        i = len(results[args.fidelity]["lacuna"]) - 1
        out = work / "out"
        lac = {"doc": json.loads((out / f"{tree.name}-lacuna-{i}.json").read_text()),
               "lcov": out / f"{tree.name}-lacuna-{i}.lcov"}
        cov = {"json": json.loads((out / f"{tree.name}-coverage.json").read_text()),
               "data": out / f"{tree.name}.coverage"}
        outcomes = json.loads((out / f"{tree.name}-coverage-outcomes.json").read_text())
        results[args.fidelity]["fidelity"] = fidelity(work, tree, lac, cov, {k for k, v in outcomes.items() if v == "passed"})
        path.write_text(json.dumps(results, indent=1, default=str))
        print(json.dumps({k: v for k, v in results[args.fidelity]["fidelity"].items() if k != "differences"}, indent=1))
        return
    if args.table:
        merged = {}
        for path in args.table:
            merged.update(json.loads(path.read_text()))
        print_table(merged)
        return
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    lacuna = str(Path(args.lacuna).resolve())
    # With --only, the results of those projects go to their own file (runs of different
    # projects may then go on at once).
    out = work / ("results-" + "-".join(args.only) + ".json" if args.only else "results.json")
    results = {}
    version = subprocess.run([lacuna, "--version"], capture_output=True, text=True).stdout.strip()
    results["_lacuna"] = version
    for project in PROJECTS:
        if args.only and project["name"] not in args.only:
            continue
        tree, meta = prepare(work, project)
        print(f"## {project['name']} {project['version']} ({project['shape']})", flush=True)
        plain = []
        lac = []
        for i in range(args.repeat):
            p = run_plain(work, tree, i)
            print(f"plain pytest #{i}: {p['wall_s']} s, {p['peak_rss_mb']} MB, {p['counts']} ({p['summary']})", flush=True)
            plain.append(p)
            r = run_lacuna(work, tree, lacuna, args.budget, i)
            print(f"lacuna #{i}: suite {r['suite_s']} s (check {r['wall_s']} s), suite worker {r['suite_peak_rss_mb']} MB, "
                  f"check {r['peak_rss_mb']} MB, {r['counts']}" + (f", error: {r['error']}" if r["error"] else ""),
                  flush=True)
            lac.append(r)
        cov = run_coverage(work, tree)
        passing = {k for k, v in cov["outcomes"].items() if v == "passed"}
        fid = fidelity(work, tree, lac[-1], cov, passing)
        print(f"coverage.py: {cov['wall_s']} s; fidelity: {json.dumps({k: v for k, v in fid.items() if k != 'differences'})}",
              flush=True)
        # Every test whose outcome differs.
        differ = {}
        ref = plain[0]["outcomes"]
        for r in lac:
            for tid in sorted(set(ref) | set(r["outcomes"])):
                a, b = ref.get(tid), r["outcomes"].get(tid)
                if a != b:
                    differ.setdefault(tid, {"pytest": a, "lacuna": []})["lacuna"].append(b)
        for p in plain[1:]:
            for tid in set(ref) | set(p["outcomes"]):
                if ref.get(tid) != p["outcomes"].get(tid):
                    differ.setdefault(tid, {"pytest": ref.get(tid), "lacuna": []})["pytest_again"] = p["outcomes"].get(tid)
        messages = {}
        for r in lac:
            for t in r["doc"].get("suite", {}).get("tests", []):
                if t["id"] in differ and "message" in t:
                    messages[t["id"]] = t["message"][-600:]
        results[project["name"]] = {
            **meta, "version": project["version"], "shape": project["shape"], "test_deps": project["test_deps"],
            "plain": [{k: v for k, v in p.items() if k != "outcomes"} for p in plain],
            "lacuna": [{k: v for k, v in r.items() if k not in ("outcomes", "doc", "lcov")} for r in lac],
            "coverage_wall_s": cov["wall_s"],
            "coverage_counts": counts(cov["outcomes"]),
            "outcome_differences": differ,
            "fidelity": fid,
        }
        out.write_text(json.dumps(results, indent=1, default=str))
    print_table(results)


def print_table(results: dict) -> None:
    print()
    print("| project | tests | plain pytest (s) | plain peak RSS (MB) | Lacuna suite phase (s) | overhead | "
          "suite worker peak RSS (MB) | counts equal | functions compared | differ from coverage.py | "
          "sides not attributable |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        if name.startswith("_"):
            continue
        plain = [p["wall_s"] for p in r["plain"]]
        suite = [x["suite_s"] for x in r["lacuna"]]
        ratio = min(suite) / min(plain) if min(plain) else float("nan")
        equal = all(x["counts"] == r["plain"][0]["counts"] for x in r["lacuna"])
        f = r["fidelity"]
        total = sum(r["plain"][0]["counts"].values())
        print(f"| {name} {r['version']} | {total} | {' / '.join(map(str, plain))} | "
              f"{max(p['peak_rss_mb'] for p in r['plain'])} | {' / '.join(map(str, suite))} | {ratio:.2f}× | "
              f"{max(x['suite_peak_rss_mb'] or 0 for x in r['lacuna'])} | {'yes' if equal else 'no'} | "
              f"{f['functions_compared']} | {f['functions_differ']} | {f['sides_unattributable']} of {f['sides']} |")


if __name__ == "__main__":
    main()
