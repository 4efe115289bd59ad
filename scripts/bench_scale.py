"""`lacuna check` on a workspace of more than 100,000 lines: one run against four shards merged,
and a second run after editing one function.

    python3 scripts/bench_scale.py --work DIR --lacuna target/release/lacuna --budget 900

The workspace is CPython's own standard library packages (those of the language server's
benchmark: `email`, `http`, `json`, `xml`, `logging`, `asyncio`, … with their `test`
directories removed) copied into one package, DIR/project/lib/stdcopy (so that no module of the
project shadows the standard library's own: `stdcopy.email.message` imports the real `email`),
with `textwrap.py` copied in as `stdcopy/textwrap_mod.py`: no `pyproject.toml`, no
`[tool.lacuna]`, HOME in a temporary directory. Every run is `lacuna check --format json --budget SECONDS lib` from the project's
root, as a CI job runs it; each is timed alone (the machine otherwise idle), as each shard would
run on its own runner.

1. **One run** from an empty results store, with the whole budget.
2. **Four shards from an empty store** (`--shard i/4`, a quarter of the budget each, nothing
   stored: balanced by the hash of each function's file and name), merged with `lacuna merge`;
   the merged document is compared with the one run, function by function (time-cut
   explorations differ from run to run).
3. **Four shards from the store the one run left** (as CI's shards restore the store of the
   last run, balanced by its exploration times; the one run's `--budget`, since the store
   keeps explorations per configuration): what the store has is reported from it, what it has
   not is explored (a failure the agent answered — a module that does not import — is stored
   with what it depends on and reported from the store too); merged, they are compared with the one run's
   document, but for the costs of each machine.
2b. **The four cold shards at once** on this machine (two cores, so each has half a core):
   the wall time of all four, as four runners would not have it, and their merged document.
4. **One function edited** (`dedent` of `lib/stdcopy/textwrap_mod.py`), run again on the one run's
   store: how many functions are explored again, in what time.

With `--reproducible N`, instead: the one run and the four cold shards of a reproducible run
(`--reproducible --function-executions N`: explorations bounded by counts, not by the clock),
the one run timed alone, then the four shards all at once on this machine (each at half a
core, as loaded as a runner can be); the merged document is compared with the one run's whole,
but for the costs of each machine, and every function that differs is listed with the fields
that differ.

Prints a Markdown table; the JSON documents stay in DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

PACKAGES = (
    "email http json xml logging asyncio urllib concurrent importlib unittest tomllib zoneinfo "
    "sqlite3 wsgiref dbm multiprocessing"
).split()
MODULES = (
    "argparse typing inspect pathlib tarfile zipfile subprocess configparser datetime decimal "
    "_pydecimal difflib pickle"
).split()
SHARDS = 4


def make_workspace(project: Path) -> int:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    if project.exists():
        shutil.rmtree(project)
    lib = project / "lib" / "stdcopy"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    ignore = shutil.ignore_patterns("test", "tests", "__pycache__")
    for package in PACKAGES:
        shutil.copytree(stdlib / package, lib / package, ignore=ignore)
    for module in MODULES:
        shutil.copy(stdlib / f"{module}.py", lib / f"{module}.py")
    shutil.copy(stdlib / "textwrap.py", lib / "textwrap_mod.py")
    return sum(len(f.read_text(errors="replace").splitlines()) for f in project.rglob("*.py"))


def start(lacuna: str, root: Path, home: Path, args: list[str], out: Path) -> dict:
    """Starts one `lacuna check`; its JSON document goes to `out`."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["HOME"] = str(home)
    with open(out, "wb") as stdout, open(out.with_suffix(".err"), "wb") as stderr:
        proc = subprocess.Popen(
            [lacuna, "check", "--format", "json", *args, "lib"],
            cwd=root,
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
    return {"proc": proc, "args": args, "out": out, "start": time.monotonic()}


def finish(started: dict) -> dict:
    """Waits for a `lacuna check` [`start`] started: its wall time, peak RSS and document."""
    _, status, usage = os.wait4(started["proc"].pid, 0)
    seconds = time.monotonic() - started["start"]
    code = os.waitstatus_to_exitcode(status)
    out = started["out"]
    if code not in (0, 1):
        sys.exit(f"lacuna check {' '.join(started['args'])} exited {code}: see {out.with_suffix('.err')}")
    doc = json.loads(out.read_text())
    return {"seconds": seconds, "rss_mb": usage.ru_maxrss / 1024, "doc": doc}


def run(lacuna: str, root: Path, home: Path, args: list[str], out: Path) -> dict:
    """One `lacuna check`, timed; its JSON document written to `out`."""
    return finish(start(lacuna, root, home, args, out))


def without_costs(v):
    if isinstance(v, dict):
        return {k: without_costs(x) for k, x in v.items() if not k.endswith("_ms") and k != "generation"}
    if isinstance(v, list):
        return [without_costs(x) for x in v]
    return v


def functions(doc: dict) -> dict[tuple[str, str, int], dict]:
    return {
        (f["path"], fn["name"], fn["line"]): fn
        for f in doc["files"]
        for fn in f["functions"]
    }


def covered(fn: dict) -> int:
    return fn["branches"]["covered"]


def store_bytes(store: Path) -> int:
    return sum(f.stat().st_size for f in store.rglob("*") if f.is_file())


def merge(lacuna: str, root: Path, parts: list[Path], out: Path) -> dict:
    with open(out, "wb") as stdout:
        subprocess.run([lacuna, "merge", *map(str, parts)], cwd=root, stdout=stdout, check=True)
    return json.loads(out.read_text())


def at_once(lacuna: str, project: Path, home: Path, work: Path, args: list[str],
            name: str) -> tuple[list[dict], float, dict]:
    """The four shards of `args` started at once: each one's result, the wall time of all
    four, and their merged document (`DIR/NAME-i.json`, `DIR/NAME-merged.json`)."""
    outs = [work / f"{name}-{i}.json" for i in range(1, SHARDS + 1)]
    started = [start(lacuna, project, home, [*args, "--shard", f"{i}/{SHARDS}"], out)
               for i, out in enumerate(outs, 1)]
    began = time.monotonic()
    results = [finish(s) for s in started]
    wall = time.monotonic() - began
    return results, wall, merge(lacuna, project, outs, work / f"{name}-merged.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--lacuna", default="target/release/lacuna")
    parser.add_argument("--budget", type=int, default=900)
    parser.add_argument("--reuse-one-run", action="store_true",
                        help="take the one run from DIR, where an earlier invocation left it")
    parser.add_argument("--reproducible", type=int, metavar="N",
                        help="compare a reproducible run (N executions per function) with its shards")
    a = parser.parse_args()
    if a.reproducible:
        reproducible(a)
        return
    lacuna = str(Path(a.lacuna).resolve())
    work = a.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    home = work / "home"
    home.mkdir(exist_ok=True)
    project = work / "project"
    lines = make_workspace(project) if not a.reuse_one_run else sum(
        len(f.read_text(errors="replace").splitlines()) for f in project.rglob("*.py"))
    # Without a `pyproject.toml`, the project `lacuna check lib` checks is `lib`: its store
    # is `lib/.lacuna`.
    store = project / "lib" / ".lacuna"
    budget = ["--budget", str(a.budget)]
    shard_budget = ["--budget", str(a.budget // SHARDS)]

    kept_store = work / "store-after-one-run"
    meta = work / "whole-meta.json"
    if a.reuse_one_run and meta.exists() and kept_store.exists():
        # The one run of an earlier invocation, with the same binary and workspace.
        whole = {**json.loads(meta.read_text()), "doc": json.loads((work / "whole.json").read_text())}
    else:
        whole = run(lacuna, project, home, budget, work / "whole.json")
        meta.write_text(json.dumps({"seconds": whole["seconds"], "rss_mb": whole["rss_mb"]}))
        if kept_store.exists():
            shutil.rmtree(kept_store)
        shutil.copytree(store, kept_store)
    whole_fns = functions(whole["doc"])
    gen = whole["doc"]["summary"]
    print(f"workspace: {lines} lines, {gen['functions']} functions", file=sys.stderr)
    print(f"one run: {whole['seconds']:.0f} s", file=sys.stderr)

    def shards(name: str, from_store: Path | None, extra: list[str]) -> tuple[list[dict], dict]:
        results, parts = [], []
        for i in range(1, SHARDS + 1):
            shutil.rmtree(store, ignore_errors=True)
            if from_store is not None:
                shutil.copytree(from_store, store)
            out = work / f"{name}-{i}.json"
            r = run(lacuna, project, home, [*extra, "--shard", f"{i}/{SHARDS}"], out)
            print(f"{name} {i}/{SHARDS}: {r['seconds']:.0f} s", file=sys.stderr)
            results.append(r)
            parts.append(out)
        merged = merge(lacuna, project, parts, work / f"{name}-merged.json")
        return results, merged

    cold, cold_merged = shards("cold-shard", None, shard_budget)

    # The four cold shards again, all at once on this machine (two cores), sharing its store.
    shutil.rmtree(store, ignore_errors=True)
    parallel, parallel_wall, parallel_merged = at_once(
        lacuna, project, home, work, shard_budget, "parallel-shard")
    warm, warm_merged = shards("warm-shard", kept_store, budget)

    # One function edited, on the one run's store.
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(kept_store, store)
    module = project / "lib" / "stdcopy" / "textwrap_mod.py"
    text = module.read_text()
    anchor = "def dedent(text):\n"
    assert anchor in text
    edited_text = text.replace(anchor, anchor + "    edited = True\n", 1)
    module.write_text(edited_text)
    edited = run(lacuna, project, home, budget, work / "edited.json")
    store_size = store_bytes(store)

    # The cold shards against the one run, function by function.
    cold_fns = functions(cold_merged)
    same_set = cold_fns.keys() == whole_fns.keys()
    differ = [k for k in whole_fns if k in cold_fns and covered(whole_fns[k]) != covered(cold_fns[k])]
    more = sum(1 for k in differ if covered(cold_fns[k]) > covered(whole_fns[k]))
    total = lambda fns: sum(covered(f) for f in fns.values())  # noqa: E731
    warm_equal = without_costs(warm_merged) == without_costs(whole["doc"])

    def gen_of(doc: dict) -> dict:
        return doc.get("generation", {})

    print(f"\nworkspace: {lines:,} lines in {len(list(project.rglob('*.py')))} files, "
          f"{gen['functions']:,} functions, {gen['branches']:,} branch sides\n")
    print("| run | wall time | peak RSS (lacuna) | functions explored / from the store | branch sides covered |")
    print("|---|---|---|---|---|")

    def row(name: str, r: dict, doc: dict | None = None) -> None:
        doc = doc or r["doc"]
        g = gen_of(r["doc"])
        rss = f"{r['rss_mb']:.0f} MB" if r.get("rss_mb") else "—"
        print(f"| {name} | {r['seconds']:.0f} s | {rss} | "
              f"{g.get('explored', '?')} / {g.get('reused', '?')} | "
              f"{doc['summary'].get('covered', total(functions(doc))):,} |")

    row("one run, empty store", whole)
    for i, r in enumerate(cold, 1):
        row(f"shard {i}/{SHARDS}, empty store", r)
    for i, r in enumerate(warm, 1):
        row(f"shard {i}/{SHARDS}, the one run's store", r)
    for i, r in enumerate(parallel, 1):
        row(f"shard {i}/{SHARDS}, empty store, the four at once", r)
    row("after editing `dedent`", edited)
    print()
    slowest = max(r["seconds"] for r in cold)
    print(f"- slowest cold shard: {slowest:.0f} s against {whole['seconds']:.0f} s for the one run "
          f"({whole['seconds'] / slowest:.2f}x)")
    print(f"- cold shards merged: same functions: {same_set}; branch sides covered "
          f"{total(cold_fns):,} against {total(whole_fns):,}; {len(differ)} functions differ "
          f"({more} with more covered in the shards)")
    par_fns = functions(parallel_merged)
    par_differ = [k for k in whole_fns if k in par_fns and covered(whole_fns[k]) != covered(par_fns[k])]
    print(f"- the four cold shards at once: {parallel_wall:.0f} s wall for all four; merged: same "
          f"functions: {par_fns.keys() == whole_fns.keys()}; branch sides covered "
          f"{total(par_fns):,}; {len(par_differ)} functions differ from the one run")
    print(f"- warm shards merged equal to the one run (but for costs): {warm_equal}")
    if not warm_equal:
        warm_fns = functions(warm_merged)
        print(f"  functions whose covered sides differ: "
              f"{sum(1 for k in whole_fns if k in warm_fns and covered(whole_fns[k]) != covered(warm_fns[k]))}")
    print(f"- the results store after the edited run: {store_size / 1e6:.1f} MB")
    json.dump({"differ": [list(k) for k in differ]}, open(work / "differ.json", "w"))


def reproducible(a: argparse.Namespace) -> None:
    """The one run of a reproducible run against its four cold shards run at once."""
    lacuna = str(Path(a.lacuna).resolve())
    work = a.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    home = work / "home"
    home.mkdir(exist_ok=True)
    project = work / "project"
    lines = make_workspace(project)
    store = project / "lib" / ".lacuna"
    args = ["--reproducible", "--function-executions", str(a.reproducible)]
    shutil.rmtree(store, ignore_errors=True)
    whole = run(lacuna, project, home, args, work / "repro-whole.json")
    print(f"one run: {whole['seconds']:.0f} s", file=sys.stderr)
    shutil.rmtree(store, ignore_errors=True)
    parts, wall, merged = at_once(lacuna, project, home, work, args, "repro-shard")
    doc = whole["doc"]
    gen = doc["summary"]
    print(f"\nworkspace: {lines:,} lines, {gen['functions']:,} functions, "
          f"{gen['branches']:,} branch sides; `--reproducible --function-executions {a.reproducible}`\n")
    print("| run | wall time | peak RSS (lacuna) | functions explored | branch sides covered |")
    print("|---|---|---|---|---|")
    print(f"| one run, alone | {whole['seconds']:.0f} s | {whole['rss_mb']:.0f} MB | "
          f"{doc.get('generation', {}).get('explored', '?')} | {gen.get('covered', '?')} |")
    for i, r in enumerate(parts, 1):
        g = r["doc"].get("generation", {})
        print(f"| shard {i}/{SHARDS}, the four at once | {r['seconds']:.0f} s | {r['rss_mb']:.0f} MB | "
              f"{g.get('explored', '?')} | {r['doc']['summary'].get('covered', '?')} |")
    print(f"\n- the four shards at once: {wall:.0f} s; merged covered: {merged['summary'].get('covered')}")
    equal = without_costs(merged) == without_costs(doc)
    print(f"- merged document equal to the one run's, but for costs: {equal}")
    ones, mine = functions(doc), functions(merged)
    print(f"- same functions: {ones.keys() == mine.keys()}")
    for key in sorted(k for k in ones if k in mine
                      and without_costs(ones[k]) != without_costs(mine[k])):
        x, y = without_costs(ones[key]), without_costs(mine[key])
        fields = sorted(f for f in set(x) | set(y) if x.get(f) != y.get(f))
        print(f"  - {key[0]}:{key[2]} {key[1]}: {', '.join(fields)} "
              f"(covered {covered(ones[key])} / {covered(mine[key])}; stopped by "
              f"{ones[key].get('stopped_by')} / {mine[key].get('stopped_by')})")


if __name__ == "__main__":
    main()
