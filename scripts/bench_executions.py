"""Executions per second of Lacuna's search, per worker, against a plain CPython loop calling the
same functions with the same inputs, in one run.

    python3 scripts/bench_executions.py [--lacuna target/release/lacuna] [--python PY]
        [--budget-ms 3000] [PROJECT ...]

For each project (default: the bundled example), `lacuna check --no-cache --format json
--emit-tests DIR` runs with default settings (HOME in a temporary directory); a function's rate
is its `executions` over its own exploration time (`time_ms`, on one worker: running the input
in the agent, solving, everything the search does). The plain loop then imports the emitted test
files in the same interpreter the project's code ran under and calls each parameterless test of
the function (one call of the function with one of the inputs Lacuna kept, and the assertion on
its result) again and again for `--loop-ms`; its rate is calls per second. The ratio says how
many times slower one traced, symbolic, sandboxed execution is than calling the function. Tests
taking fixtures (a patched call, module state put back) are left out of the loop and counted.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LOOP = r'''
import importlib.util, inspect, json, os, sys, tempfile, time
gen, loop_s, result = sys.argv[1], float(sys.argv[2]), sys.argv[3]
sys.path.insert(0, os.path.dirname(gen))
out = {}
skipped = 0
work = tempfile.mkdtemp()
for name in sorted(os.listdir(gen)):
    if not (name.startswith("test_") and name.endswith(".py")):
        continue
    spec = importlib.util.spec_from_file_location(os.path.basename(gen) + "." + name[:-3],
                                                  os.path.join(gen, name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for test_name, test in sorted(vars(module).items()):
        if not test_name.startswith("test_") or not callable(test):
            continue
        if inspect.signature(test).parameters:
            skipped += 1
            continue
        os.chdir(work)
        calls, start = 0, time.perf_counter()
        while True:
            for _ in range(20):
                test()
            calls += 20
            elapsed = time.perf_counter() - start
            if elapsed >= loop_s:
                break
        out[test_name] = calls / elapsed
with open(result, "w") as f:
    json.dump({"rates": out, "skipped": skipped}, f)
'''


def snake(name):
    name = name.split("#")[0].replace(".", "_")
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lacuna", default=os.path.join(REPO, "target", "release", "lacuna"))
    ap.add_argument("--python", default=os.path.join(REPO, ".venv", "bin", "python"))
    ap.add_argument("--loop-ms", type=float, default=200)
    ap.add_argument("projects", nargs="*", default=[os.path.join(REPO, "examples")])
    args = ap.parse_args()
    print("| project | function | executions | Lacuna exec/s per worker | plain calls/s | "
          "plain ÷ Lacuna |")
    print("|---|---|---|---|---|---|")
    totals = {"executions": 0, "time_ms": 0, "plain_s": 0.0}
    for project in args.projects:
        with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as out:
            gen = os.path.join(out, "gen")
            env = dict(os.environ, HOME=home, VIRTUAL_ENV=os.path.dirname(os.path.dirname(
                args.python)))
            run = subprocess.run([args.lacuna, "check", "--no-cache", "--format", "json",
                                  "--emit-tests", gen, "."], cwd=project, env=env,
                                 capture_output=True, text=True)
            doc = json.loads(run.stdout)
            result = os.path.join(out, "plain.json")
            loop = subprocess.run([args.python, "-c", LOOP, gen, str(args.loop_ms / 1000),
                                   result], cwd=project, env=env, capture_output=True, text=True)
            if loop.returncode != 0:
                sys.exit("the plain loop failed:\n" + loop.stderr[-2000:])
            with open(result) as f:
                plain = json.load(f)
        functions = [f for file in doc["files"] for f in file["functions"]
                     if f.get("executions")]
        names = sorted(((snake(f["name"]), f) for f in functions), key=lambda p: -len(p[0]))
        per_function = {}
        for test, rate in plain["rates"].items():
            for prefix, f in names:
                if test.startswith("test_" + prefix + "_"):
                    per_function.setdefault(f["name"], []).append(rate)
                    break
        for f in sorted(functions, key=lambda f: f["name"]):
            rates = per_function.get(f["name"])
            lacuna = f["executions"] / max(f["time_ms"], 1) * 1000
            if not rates:
                continue
            # The plain loop's rate over the same inputs: the mean time per call, inverted.
            plain_rate = len(rates) / sum(1 / r for r in rates)
            totals["executions"] += f["executions"]
            totals["time_ms"] += f["time_ms"]
            totals["plain_s"] += f["executions"] / plain_rate
            print("| %s | `%s` | %d | %.0f | %.0f | %.0f× |" % (
                os.path.basename(os.path.abspath(project)), f["name"], f["executions"], lacuna,
                plain_rate, plain_rate / lacuna))
        print("\n%s: %d tests in the loop, %d with fixtures left out" % (
            project, len(plain["rates"]), plain["skipped"]), file=sys.stderr)
    lacuna = totals["executions"] / max(totals["time_ms"], 1) * 1000
    plain = totals["executions"] / max(totals["plain_s"], 1e-9)
    print("| all | | %d | %.0f | %.0f | %.0f× |" % (totals["executions"], lacuna, plain,
                                                   plain / lacuna))


if __name__ == "__main__":
    main()
