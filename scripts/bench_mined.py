"""Objects built as the project's own tests build them: `lacuna check` on real packages with
their own test suites, by a build without the suite's call sequences and by one with them.

    python3 scripts/bench_mined.py --work DIR --before OLD_LACUNA --after NEW_LACUNA

The packages (pinned below, chosen before Lacuna ran on them: class-heavy, with their tests in
their sdists) are downloaded from PyPI, each extracted once and installed into its own virtual
environment (`.venv` at its root, editable, with pytest, coverage.py and its test
dependencies), as a developer of the package has it. Each build then runs as a user runs it
from the package's root: `lacuna check --format json --emit-tests DIR`, default settings, no
`[tool.lacuna]` written, a first run (`--no-cache`), HOME in a temporary directory; its
emitted tests are measured by coverage.py (`coverage run --branch` under pytest, the package's
own code only). Prints a Markdown table: the branch sides Lacuna reports covered, the branch
coverage coverage.py measures of the emitted tests, the functions whose receiver or object
argument "could not be built", the functions covering more and fewer sides, wall time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

# name: (version, sha256 of the sdist, the package's directory in the sdist, test dependencies)
PACKAGES = {
    "cachetools": (
        "5.5.0",
        "2cc24fb4cbe39633fb7badd9db9ca6295d766d9c2995f245725a46715d050f2a",
        "src/cachetools",
        [],
    ),
    "portion": (
        "2.6.0",
        "6fb538b57a92058f0edd360667694448aa3fc028ab97e41e3091359d14ba4dd5",
        "portion",
        ["sortedcontainers"],
    ),
    "semantic_version": (
        "2.10.0",
        "bdabb6d336998cbb378d4b9db3a4b56a1e3235701dc05ea2690d9a997ed5041c",
        "semantic_version",
        [],
    ),
}


def clean_env(work: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def prepare(work: Path, name: str) -> Path:
    version, _, _, deps = PACKAGES[name]
    sdists = work / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    archive = sdists / f"{name}-{version}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
             f"{name}=={version}", "-d", str(sdists)],
            check=True,
        )
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != PACKAGES[name][1]:
        sys.exit(f"{archive.name}: sha256 {digest} is not the pinned {PACKAGES[name][1]}")
    root = work / f"{name}-{version}"
    if not root.exists():
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")
        venv = root / ".venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "pytest", "coverage", *deps], check=True, env=clean_env(work))
        subprocess.run([*pip, "--no-deps", "-e", str(root)], check=True, env=clean_env(work))
    return root


def lacuna_run(work: Path, lacuna: str, root: Path, emit: Path) -> dict:
    if emit.exists():
        shutil.rmtree(emit)
    start = time.monotonic()
    out = subprocess.run(
        [lacuna, "check", "--format", "json", "--no-cache", "--emit-tests", str(emit), "."],
        cwd=root, env=clean_env(work), capture_output=True, text=True,
    )
    seconds = time.monotonic() - start
    if out.returncode not in (0, 1):
        sys.exit(f"{lacuna} on {root}: exit {out.returncode}\n{out.stderr[-3000:]}")
    doc = json.loads(out.stdout)
    functions = {}
    never_built = 0
    for f in doc["files"]:
        for fn in f["functions"]:
            functions[(f["path"], fn["name"])] = fn["branches"]["covered"]
        never_built += sum(
            1 for d in f["diagnostics"] if re.search(r"no `[^`]+` could be built", d.get("message", ""))
        )
    return {"seconds": seconds, "doc": doc, "functions": functions, "never_built": never_built}


def measured(work: Path, root: Path, package: str, emit: Path) -> tuple[int, int]:
    """coverage.py's branches of `package` the tests in `emit` take: (covered, total)."""
    python = str(root / ".venv" / "bin" / "python")
    data = emit / ".coverage"
    subprocess.run(
        [python, "-m", "coverage", "run", "--branch", "--data-file", str(data),
         f"--source={root / package}", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(emit)],
        cwd=emit, env=clean_env(work), capture_output=True,
    )
    report = emit / "coverage.json"
    subprocess.run([python, "-m", "coverage", "json", "--data-file", str(data), "-o", str(report)],
                   cwd=emit, env=clean_env(work), capture_output=True, check=True)
    totals = json.loads(report.read_text())["totals"]
    return totals["covered_branches"], totals["num_branches"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--before", required=True, help="a lacuna binary without mined sequences")
    parser.add_argument("--after", required=True, help="a lacuna binary with them")
    parser.add_argument("--packages", default=",".join(PACKAGES))
    a = parser.parse_args()
    work = a.work.resolve()
    rows = []
    for name in a.packages.split(","):
        root = prepare(work, name)
        package = PACKAGES[name][2]
        runs = {}
        for label, binary in (("before", a.before), ("after", a.after)):
            emit = work / f"emitted-{name}-{label}"
            r = lacuna_run(work, str(Path(binary).resolve()), root, emit)
            r["measured"] = measured(work, root, package, emit)
            runs[label] = r
            print(f"{name} {label}: {r['seconds']:.0f} s", file=sys.stderr)
        before, after = runs["before"], runs["after"]
        keys = before["functions"].keys() & after["functions"].keys()
        more = sum(1 for k in keys if after["functions"][k] > before["functions"][k])
        fewer = sum(1 for k in keys if after["functions"][k] < before["functions"][k])
        suite = after["doc"].get("suite", {})
        rows.append((name, before, after, more, fewer, suite))

    print("| package | branch sides | Lacuna covered (before → after) | coverage.py, emitted tests "
          "(before → after) | \"could not be built\" | functions: more / fewer | wall time | suite |")
    print("|---|---|---|---|---|---|---|---|")
    for name, before, after, more, fewer, suite in rows:
        total = after["doc"]["summary"]["branches"]
        cb, nb = before["measured"]
        ca, na = after["measured"]
        counts = suite.get("counts", suite.get("summary", ""))
        print(f"| {name} {PACKAGES[name][0]} | {total} | {before['doc']['summary']['covered']} → "
              f"{after['doc']['summary']['covered']} | {cb}/{nb} ({100 * cb / max(nb, 1):.1f} %) → "
              f"{ca}/{na} ({100 * ca / max(na, 1):.1f} %) | {before['never_built']} → "
              f"{after['never_built']} | {more} / {fewer} | {before['seconds']:.0f} s → "
              f"{after['seconds']:.0f} s | {json.dumps(counts)} |")


if __name__ == "__main__":
    main()
