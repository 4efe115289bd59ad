"""Honesty on real projects: every dead-code claim checked, every function accounted for, and
the same report twice.

    python3 scripts/bench_honesty.py --lacuna target/release/lacuna [--work DIR]
        [--packages slugify,humanize,...] [--timeout 1200] [--out FILE]

For each package (the sdists of the packages benchmarked in docs/benchmarks.md), the script
fetches the sdist with pip, unpacks it into the work directory, makes a virtual environment from
`--python` (default: the repository's .venv interpreter) with the project installed editable and
its test dependencies, pytest and coverage, and then, as a user would, with the environment
active (VIRTUAL_ENV), HOME in a temporary directory and no `[tool.lacuna]` table anywhere (the
script writes no configuration), runs from the project's root, twice in a row:

    lacuna check --format json --no-cache

It reports per package:

1. outcomes: every function of the JSON document has an `outcome` (the functions without one
   are counted: the target is 0), with the count of each outcome and of each reason for not
   exploring, and the not-explored functions that have no LCN107 diagnostic (a module that
   cannot be imported says so once, in its LCN108);
2. claims: every LCN106 (a dead branch side) and LCN201 (an impossible MC/DC obligation) of
   either run, checked two ways: (a) the project's own suite under
   `coverage run --branch -m pytest` — a claimed side whose arc the suite executes refutes the
   claim; (b) a witness search — the function called with representative inputs (integers around
   its number literals, its text literals, None, empty containers, booleans) under coverage, in
   a subprocess with HOME and the working directory in a temporary directory. LCN201 claims are
   about condition values inside one decision, which arcs cannot show: they are listed, with
   whether the suite reaches the decision at all, and checked by hand;
3. repeatability: the two runs' reports compared per function (outcome, covered sides,
   diagnostics with their timings normalised), each difference listed with the functions'
   `stopped_by` in each run (a time budget, `budget`, `run-budget` or `stalled`, explains it;
   anything else is a determinism bug);
4. the wall time of each run.

Needs the network for pip, so it is not part of the test suite. Writes WORK/honesty.json (all
the figures and every refuted claim, every difference) and prints a Markdown summary.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NICE = ["nice", "-n", "19"]
MEASURE = ["pytest==9.2.0", "coverage==7.17.3"]

# name: (pip requirement, test dependencies beyond pytest and coverage)
PACKAGES = {
    "slugify": ("python-slugify==9.2.0", []),
    "humanize": ("humanize==4.17.0", ["freezegun"]),
    "semver": ("semver==3.1.1", []),
    "toolz": ("toolz==1.2.0", []),
    "dateutil": ("python-dateutil==2.9.0.post0", ["freezegun", "hypothesis"]),
    "affine": ("affine==3.0.1", []),
    "isodate": ("isodate==0.7.2", []),
    "roman_numerals": ("roman-numerals==4.1.0", []),
    "webcolors": ("webcolors==24.11.1", []),
}
TIME_STOPS = {"budget", "run-budget", "stalled"}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def clean_env(home: Path, venv: Path | None = None, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "CONDA_PREFIX")}
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    if extra:
        env.update(extra)
    return env


def run(cmd, *, cwd, env, limit, stdout=None):
    """Runs `cmd` in its own process group, killed at `limit` seconds: (seconds, exit code or
    None when killed, stderr tail)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=stdout or subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = p.communicate(timeout=limit)
        code = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        code = None
    return time.perf_counter() - t0, code, err.decode(errors="replace")[-4000:]


# -- the projects ------------------------------------------------------------------------------

def prepare(work: Path, name: str, python: str) -> tuple[Path, Path]:
    """The unpacked sdist (the project's root) and its virtual environment."""
    spec, deps = PACKAGES[name]
    base = work / name
    sdists = base / "sdist"
    root_marker = base / "root.txt"
    venv = base / "venv"
    home = base / "home-setup"
    if not root_marker.exists():
        sdists.mkdir(parents=True, exist_ok=True)
        subprocess.run([python, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "--no-deps", "--no-binary", spec.split("==")[0], spec, "-d", str(sdists)],
                       check=True, env=clean_env(home))
        archive = next(p for p in sdists.iterdir() if p.is_file())
        src = base / "src"
        if src.exists():
            shutil.rmtree(src)
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                z.extractall(src)
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(src, filter="data")
        (root,) = list(src.iterdir())
        if not (venv / "bin" / "python").exists():
            subprocess.run([python, "-m", "venv", str(venv)], check=True)
        vpy = str(venv / "bin" / "python")
        subprocess.run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        *MEASURE, *deps], check=True, env=clean_env(home))
        subprocess.run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "-e", str(root)], check=True, env=clean_env(home))
        root_marker.write_text(str(root))
    return Path(root_marker.read_text()), venv


# -- the runs ----------------------------------------------------------------------------------

def run_lacuna(lacuna: str, root: Path, venv: Path, out: Path, limit: float,
               flags: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="lacuna-home-") as home:
        env = clean_env(Path(home), venv)
        with open(out, "w") as f:
            secs, code, err = run([*NICE, lacuna, "check", "--format", "json", *flags],
                                  cwd=root, env=env, limit=limit, stdout=f)
    doc = None
    try:
        doc = json.loads(out.read_text())
    except (OSError, ValueError):
        pass
    return {"seconds": round(secs, 1), "exit": code, "killed": code is None,
            "stderr": err[-1500:] if doc is None else "", "doc": doc}


def suite_arcs(root: Path, venv: Path, base: Path, limit: float) -> dict:
    """{absolute path: set of (from, to) arcs} the project's own suite executes."""
    data = base / "suite.coverage"
    out = base / "suite-coverage.json"
    env = clean_env(base / "home-suite", venv)
    vpy = str(venv / "bin" / "python")
    secs, code, err = run([*NICE, vpy, "-m", "coverage", "run", "--branch", f"--data-file={data}",
                           f"--include={root}/*", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-o", "addopts=", "-W", "ignore"],
                          cwd=root, env=env, limit=limit)
    subprocess.run([vpy, "-m", "coverage", "json", f"--data-file={data}", "-o", str(out)],
                   cwd=root, env=env, capture_output=True)
    arcs = read_arcs(out, root)
    return {"seconds": round(secs, 1), "exit": code, "tail": err[-300:], "arcs": arcs}


def read_arcs(path: Path, cwd: Path) -> dict:
    """Executed arcs per absolute path (coverage.py names a file below its working directory
    relative to it)."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    arcs = {}
    for file, data in doc.get("files", {}).items():
        file = os.path.realpath(cwd / file)
        arcs[file] = {tuple(a) for a in data.get("executed_branches", [])}
        arcs.setdefault(file + "#lines", set()).update(data.get("executed_lines", []))
    return arcs


# -- the claims --------------------------------------------------------------------------------

def decision_node(tree: ast.AST, line: int):
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.For, ast.AsyncFor)) and node.lineno == line:
            return node
    return None


def side_arcs(tree: ast.AST, line: int, side: str, possible: set) -> set | None:
    """The coverage.py arcs (from `line`) that take `side` of the decision on `line`, among the
    arcs possible from it; None when the decision is not an `if`/`elif`/`while`/`for`."""
    node = decision_node(tree, line)
    if node is None:
        return None
    first = node.body[0]
    body = getattr(first, "decorator_list", None)
    dest = min([first.lineno] + [d.lineno for d in body or []])
    from_line = {a for a in possible if a[0] == line}
    true = {a for a in from_line if a[1] == dest}
    if side == "true":
        return true or {(line, dest)}
    return from_line - true


def claims_of(doc: dict) -> list[dict]:
    found = []
    for f in doc.get("files", []):
        for d in f.get("diagnostics", []):
            if d.get("code") in ("LCN106", "LCN201"):
                data = d.get("data") or {}
                found.append({"path": f["path"], "function": d.get("function"), "code": d["code"],
                              "line": d["line"], "side": d.get("side"),
                              "condition": data.get("condition"), "value": data.get("value"),
                              "vector": data.get("vector") or [],
                              "message": d["message"]})
    return found


def claim_key(c: dict) -> tuple:
    return (c["path"], c["function"], c["code"], c["line"], c["side"], c["condition"], c["value"])


def all_possible_arcs(cov_json: Path, cwd: Path) -> dict:
    try:
        doc = json.loads(cov_json.read_text())
    except (OSError, ValueError):
        return {}
    out = {}
    for file, data in doc.get("files", {}).items():
        out[os.path.realpath(cwd / file)] = {tuple(a) for a in data.get("executed_branches", [])} | {
            tuple(a) for a in data.get("missing_branches", [])}
    return out


WITNESS = r'''
import ast, builtins, inspect, itertools, random, signal, sys, textwrap, types
root, module, qualname, deadline = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
sys.path.insert(0, root)
import time
end = time.monotonic() + deadline
mod = __import__(module, fromlist=["_"])
owner, fn = None, mod
for part in qualname.split("."):
    owner, fn = fn, inspect.getattr_static(fn, part)
raw = fn
if isinstance(fn, (staticmethod, classmethod)):
    fn = fn.__func__
elif isinstance(fn, property):
    fn = fn.fget
fn = inspect.unwrap(fn)
pool = [None, 0, 1, -1, 2, "", "a", "0", [], {}, (), True, False, 0.5, b""]
try:
    src = textwrap.dedent(inspect.getsource(fn))
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Constant) and node.value is not None:
            v = node.value
            if isinstance(v, bool):
                continue
            if isinstance(v, int):
                pool += [v - 1, v, v + 1]
            elif isinstance(v, (str, bytes, float)):
                pool.append(v)
                if isinstance(v, str) and len(v) < 40:
                    pool += [v.upper(), v + v, " " + v]
except (OSError, TypeError, SyntaxError):
    pass
seen, values = set(), []
for v in pool:
    k = (type(v), repr(v))
    if k not in seen:
        seen.add(k)
        values.append(v)
def alarm(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, alarm)
def call(f, args):
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        r = f(*args)
        if isinstance(r, types.GeneratorType) or hasattr(r, "__next__"):
            for _ in itertools.islice(r, 50):
                pass
        return r
    except BaseException:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
try:
    params = list(inspect.signature(fn).parameters.values())
except (TypeError, ValueError):
    params = []
params = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
receivers = []
is_method = inspect.isclass(owner) and not isinstance(raw, staticmethod)
if is_method and params:
    params = params[1:]
    if isinstance(raw, classmethod):
        receivers = [owner]
    else:
        for args in [()] + [(v,) for v in values] + [(a, b) for a in values[:8] for b in values[:8]]:
            if time.monotonic() > end:
                break
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            try:
                receivers.append(owner(*args))
            except BaseException:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if len(receivers) >= 12:
                break
        if not receivers:
            try:
                receivers = [object.__new__(owner)]
            except BaseException:
                receivers = []
rng = random.Random(0)
n = len(params)
combos = []
if n == 0:
    combos = [()]
elif len(values) ** n <= 4000:
    combos = list(itertools.product(values, repeat=n))
else:
    base = tuple(p.default if p.default is not p.empty else None for p in params)
    for i in range(n):
        for v in values:
            combos.append(base[:i] + (v,) + base[i + 1:])
    combos += [tuple(rng.choice(values) for _ in range(n)) for _ in range(3000)]
calls = 0
for args in combos:
    if time.monotonic() > end:
        break
    for r in (receivers or [None]) if is_method else [None]:
        calls += 1
        call(fn, ((r,) if is_method else ()) + tuple(args))
        if time.monotonic() > end:
            break
print(calls)
'''


def witness_arcs(root: Path, venv: Path, base: Path, module: str, qualname: str, n: int,
                 deadline: float) -> tuple[dict, dict, int | None, str]:
    data = base / f"witness-{n}.coverage"
    out = base / f"witness-{n}.json"
    driver = base / "witness.py"
    driver.write_text(WITNESS)
    vpy = str(venv / "bin" / "python")
    with tempfile.TemporaryDirectory(prefix="witness-") as tmp:
        env = clean_env(Path(tmp) / "home", venv)
        proc = subprocess.run([*NICE, vpy, "-m", "coverage", "run", "--branch",
                               f"--data-file={data}", f"--include={root}/*", str(driver),
                               str(import_root(root, module)), module, qualname, str(deadline)],
                              cwd=tmp, env=env, capture_output=True, text=True,
                              timeout=deadline + 120)
        subprocess.run([vpy, "-m", "coverage", "json", f"--data-file={data}", "-o", str(out)],
                       cwd=tmp, env=env, capture_output=True)
        arcs, possible = read_arcs(out, Path(tmp)), all_possible_arcs(out, Path(tmp))
    calls = int(proc.stdout.strip()) if proc.stdout.strip().isdigit() else None
    return arcs, possible, calls, proc.stderr.strip().splitlines()[-1:] and proc.stderr.strip().splitlines()[-1]


def import_root(root: Path, module: str) -> Path:
    return root / "src" if (root / "src" / module.split(".")[0]).exists() else root


def module_of(root: Path, path: str) -> str:
    rel = Path(path)
    parts = list(rel.with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def check_claims(root: Path, venv: Path, base: Path, claims: list[dict], suite: dict,
                 witness_s: float) -> list[dict]:
    possible = all_possible_arcs(base / "suite-coverage.json", root)
    trees = {}
    by_function: dict = {}
    for c in claims:
        by_function.setdefault((c["path"], c["function"]), []).append(c)
    results = []
    for n, ((path, function), cs) in enumerate(sorted(by_function.items(), key=lambda kv: str(kv[0]))):
        file = os.path.realpath(root / path)
        tree = trees.setdefault(file, ast.parse(Path(file).read_text()))
        module = module_of(root, path)
        witness = None
        if function and "<locals>" not in function and not function.startswith("<"):
            try:
                arcs, more, calls, err = witness_arcs(root, venv, base, module, function, n, witness_s)
                witness = {"arcs": arcs.get(file, set()), "calls": calls, "error": err}
                possible.setdefault(file, set()).update(more.get(file, set()))
            except subprocess.TimeoutExpired:
                witness = {"arcs": set(), "calls": None, "error": "timed out"}
        for c in cs:
            r = dict(c)
            r["source"] = Path(file).read_text().splitlines()[c["line"] - 1].strip()
            if c["code"] == "LCN106":
                arcs = side_arcs(tree, c["line"], c["side"], possible.get(file, set()))
                r["arcs"] = sorted(arcs) if arcs is not None else None
                if arcs is None or not arcs:
                    r["suite"] = r["witness"] = ("not an if/elif/while/for: arcs cannot show it"
                                                 if arcs is None else "no arc of coverage.py for it")
                else:
                    hit = arcs & suite["arcs"].get(file, set())
                    r["suite"] = f"refuted: the suite runs {sorted(hit)}" if hit else "not refuted"
                    if witness is None:
                        r["witness"] = "not searched (nested function or module code)"
                    else:
                        hit = arcs & witness["arcs"]
                        r["witness"] = (f"refuted: {witness['calls']} calls run {sorted(hit)}" if hit
                                        else f"not refuted ({witness['calls']} calls"
                                        + (f"; {witness['error']}" if witness["calls"] is None else "")
                                        + ")")
            elif literal_contradiction(c["vector"]):
                r["suite"] = r["witness"] = "confirmed: " + literal_contradiction(c["vector"])
            else:
                ran = c["line"] in suite["arcs"].get(file + "#lines", set())
                r["suite"] = ("the suite runs the decision (condition values are not in arcs)" if ran
                              else "the suite never runs the decision")
                r["witness"] = "condition values are not in arcs: checked by hand"
            results.append(r)
    return results


def literal_contradiction(vector: list[dict]) -> str | None:
    """An LCN201 claim whose evaluation needs a literal operand (`x or 0`) to have the truth
    value it never has is true whatever the inputs are."""
    for entry in vector:
        try:
            value = ast.literal_eval(entry.get("text", ""))
        except (ValueError, SyntaxError, TypeError):
            continue
        if bool(value) != entry.get("value"):
            return f"it needs the literal `{entry['text']}` {str(entry.get('value')).lower()}"
    return None


# -- the comparison ----------------------------------------------------------------------------

TIMING = re.compile(r"\d+(\.\d+)?\s*(ms|s|seconds?)\b")


def normalise(message: str) -> str:
    return TIMING.sub("<time>", message)


def report_of(doc: dict) -> dict:
    """{(path, function): {...what a user reads of it...}}"""
    out = {}
    for f in doc.get("files", []):
        for fn in f.get("functions", []):
            out[(f["path"], fn["name"])] = {
                "outcome": fn.get("outcome"),
                "not_explored": normalise(fn.get("not_explored") or ""),
                "covered": sorted((s["decision"], s["side"]) for s in fn.get("sides", []) if s.get("covered")),
                "diagnostics": [],
                "stopped_by": fn.get("stopped_by"),
            }
        for d in f.get("diagnostics", []):
            key = (f["path"], d.get("function") or "<file>")
            entry = out.setdefault(key, {"outcome": None, "not_explored": "", "covered": [],
                                         "diagnostics": [], "stopped_by": None})
            entry["diagnostics"].append((d["code"], d["line"], d.get("column"), d.get("side"),
                                         normalise(d["message"])))
    for entry in out.values():
        entry["diagnostics"].sort(key=str)
    return out


def compare(doc1: dict, doc2: dict) -> list[dict]:
    r1, r2 = report_of(doc1), report_of(doc2)
    diffs = []
    for key in sorted(set(r1) | set(r2), key=str):
        a, b = r1.get(key), r2.get(key)
        if a is None or b is None:
            diffs.append({"function": list(key), "what": "in one run only",
                          "stopped_by": [a and a["stopped_by"], b and b["stopped_by"]],
                          "explained": False})
            continue
        fields = [k for k in ("outcome", "not_explored", "covered", "diagnostics") if a[k] != b[k]]
        if not fields:
            continue
        detail = {}
        if "diagnostics" in fields:
            sa, sb = set(map(tuple, a["diagnostics"])), set(map(tuple, b["diagnostics"]))
            detail = {"only_run1": sorted(map(list, sa - sb)), "only_run2": sorted(map(list, sb - sa))}
        if "covered" in fields:
            detail["covered"] = [len(a["covered"]), len(b["covered"])]
        stops = [a["stopped_by"], b["stopped_by"]]
        timed_out = any("timed out" in d[4] for d in a["diagnostics"] + b["diagnostics"])
        explained = ("time budget" if any(s in TIME_STOPS for s in stops)
                     else "an execution timed out" if timed_out else None)
        diffs.append({"function": list(key), "what": fields, "detail": detail, "stopped_by": stops,
                      "explained": explained})
    return diffs


# -- the report --------------------------------------------------------------------------------

def outcomes(doc: dict) -> dict:
    counts, reasons, missing, sides = {}, {}, [], 0
    for f in doc.get("files", []):
        for fn in f.get("functions", []):
            o = fn.get("outcome")
            sides += fn.get("branches", {}).get("total", 0)
            if o is None:
                missing.append(f"{f['path']}:{fn['name']}")
                continue
            counts[o] = counts.get(o, 0) + 1
            if o == "not-explored":
                reason = re.sub(r"`[^`]*`", "`…`", fn.get("not_explored") or "(no reason)")
                reason = re.sub(r"\d+", "N", reason)[:90]
                reasons[reason] = reasons.get(reason, 0) + 1
    silent = []
    for f in doc.get("files", []):
        told = {d.get("function") for d in f.get("diagnostics", []) if d.get("code") == "LCN107"}
        silent += [f"{f['path']}:{fn['name']}" for fn in f.get("functions", [])
                   if fn.get("outcome") == "not-explored" and fn["name"] not in told
                   and "(LCN108)" not in (fn.get("not_explored") or "")]
    stops = {}
    for f in doc.get("files", []):
        for fn in f.get("functions", []):
            if fn.get("stopped_by"):
                stops[fn["stopped_by"]] = stops.get(fn["stopped_by"], 0) + 1
    return {"functions": sum(counts.values()) + len(missing), "without_outcome": missing,
            "not_explored_without_lcn107": silent,
            "outcomes": counts, "not_explored_reasons": reasons, "stopped_by": stops,
            "sides": sides, "covered": doc.get("summary", {}).get("covered")}


def bench(args, name: str) -> dict:
    base = Path(args.work) / name
    log(f"== {name}: preparing")
    root, venv = prepare(Path(args.work), name, args.python)
    result = {"package": PACKAGES[name][0], "root": str(root)}
    runs = []
    previous = args.previous.get(name, {}).get("runs", [])
    for i in (1, 2):
        if args.reuse_runs and len(previous) >= i and (base / f"run{i}.json").exists():
            r = dict(previous[i - 1], doc=json.loads((base / f"run{i}.json").read_text()))
            runs.append(r)
            continue
        log(f"== {name}: lacuna run {i}")
        r = run_lacuna(args.lacuna, root, venv, base / f"run{i}.json", args.timeout,
                       args.flags.split())
        log(f"   {r['seconds']} s, exit {r['exit']}{' (killed)' if r['killed'] else ''}")
        runs.append(r)
        if r["doc"] is None:
            break
    result["runs"] = [{k: v for k, v in r.items() if k != "doc"} for r in runs]
    docs = [r["doc"] for r in runs if r["doc"] is not None]
    if not docs:
        return result
    result["outcomes"] = outcomes(docs[0])
    if len(docs) == 2:
        result["outcomes_run2"] = outcomes(docs[1])
        result["differences"] = compare(docs[0], docs[1])
    claims = {}
    for d in docs:
        for c in claims_of(d):
            claims.setdefault(claim_key(c), c)
    log(f"== {name}: the suite under coverage ({len(claims)} claims)")
    suite = suite_arcs(root, venv, base, args.timeout)
    result["suite"] = {k: v for k, v in suite.items() if k != "arcs"}
    result["claims"] = check_claims(root, venv, base, list(claims.values()), suite, args.witness_seconds)
    for c in result["claims"]:
        c["in_runs"] = [any(claim_key(x) == claim_key(c) for x in claims_of(d)) for d in docs]
    return result


def summary(results: dict) -> str:
    lines = ["| package | functions | without outcome | outcomes | LCN106 (refuted: suite / witness) "
             "| LCN201 (true by a literal) | run 1 | run 2 | differences (explained by a time limit) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        o = r.get("outcomes", {})
        cl = r.get("claims", [])
        c106 = [c for c in cl if c["code"] == "LCN106"]
        rs = sum(1 for c in c106 if c["suite"].startswith("refuted"))
        rw = sum(1 for c in c106 if c["witness"].startswith("refuted"))
        c201 = [c for c in cl if c["code"] == "LCN201"]
        lit = sum(1 for c in c201 if c["suite"].startswith("confirmed"))
        runs = r.get("runs", [])
        times = [f"{x['seconds']} s" + (" (killed)" if x["killed"] else "") for x in runs] + ["—"] * 2
        diffs = r.get("differences")
        dtext = "—" if diffs is None else f"{len(diffs)} ({sum(bool(d['explained']) for d in diffs)})"
        otext = ", ".join(f"{k} {v}" for k, v in sorted(o.get("outcomes", {}).items()))
        lines.append(f"| {r['package']} | {o.get('functions', '—')} | {len(o.get('without_outcome', []))} "
                     f"| {otext} | {len(c106)} ({rs} / {rw}) | {len(c201)} ({lit}) | {times[0]} | {times[1]} "
                     f"| {dtext} |")
    out = "\n".join(lines) + "\n"
    for name, r in results.items():
        silent = r.get("outcomes", {}).get("not_explored_without_lcn107", [])
        if silent:
            out += f"\n- {name}: {len(silent)} not explored without an LCN107: {', '.join(silent[:8])}"
        for c in r.get("claims", []):
            if ((c["code"] == "LCN201" and not c["suite"].startswith("confirmed"))
                    or c["suite"].startswith("refuted") or c["witness"].startswith("refuted")):
                out += (f"\n- {name} {c['path']}:{c['line']} `{c['function']}` {c['code']} "
                        f"{c['side'] or ''} `{c['source']}`: suite {c['suite']}; witness {c['witness']}")
        for d in r.get("differences", []):
            if not d["explained"]:
                det = d.get("detail", {})
                out += (f"\n- {name} `{':'.join(d['function'])}` differs ({', '.join(d['what'])}) with "
                        f"stopped_by {d['stopped_by']} in both runs: covered {det.get('covered')}, "
                        f"{len(det.get('only_run1', []))} diagnostics only in run 1, "
                        f"{len(det.get('only_run2', []))} only in run 2")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lacuna", default=str(REPO / "target" / "release" / "lacuna"))
    ap.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
    ap.add_argument("--work", default=None, help="work directory (default: a new temporary one)")
    ap.add_argument("--packages", default=",".join(PACKAGES))
    ap.add_argument("--timeout", type=float, default=1200, help="seconds before a run is killed")
    ap.add_argument("--witness-seconds", type=float, default=20, help="witness search per function")
    ap.add_argument("--out", default=None)
    ap.add_argument("--flags", default="--no-cache", help="flags given to `lacuna check`")
    ap.add_argument("--merge", nargs="*", default=None,
                    help="print the summary of these results files (of runs made in parallel)")
    ap.add_argument("--reuse-runs", action="store_true",
                    help="check the claims and compare the runs of an earlier invocation again")
    ap.add_argument("--prepare-only", action="store_true", help="fetch and install, run nothing")
    args = ap.parse_args()
    args.lacuna = os.path.abspath(args.lacuna)
    if args.merge is not None:
        results = {}
        for f in args.merge:
            results.update(json.loads(Path(f).read_text()))
        print(summary(results))
        return
    if args.work is None:
        args.work = tempfile.mkdtemp(prefix="bench-honesty-")
    Path(args.work).mkdir(parents=True, exist_ok=True)
    out = Path(args.out or Path(args.work) / "honesty.json")
    results = json.loads(out.read_text()) if out.exists() else {}
    args.previous = dict(results)
    for name in args.packages.split(","):
        if args.prepare_only:
            log(name, *prepare(Path(args.work), name, args.python))
            continue
        results[name] = bench(args, name)
        out.write_text(json.dumps(results, indent=1, default=list))
    print(summary(results))


if __name__ == "__main__":
    main()
