"""Suspicious assertions (LCN300) on seeded faults in real libraries.

The libraries, their pinned sdists (with sha256) and the faults are data:
scripts/bench_suspicious_faults.json. Each fault replaces exactly one line.

    python scripts/bench_suspicious.py verify --work DIR
        fetches the sdists with pip (checks the sha256), makes one venv per library with its test
        dependencies, and checks every fault mechanically: the line reads `original`; the
        library's own suite passes on the pristine and on the faulty copy; the witness expression
        gives a different result under the faulty code, and raises under neither.

    python scripts/bench_suspicious.py run --work DIR --lacuna BIN [--budget S] [--ablation | --variants V...]
        runs `lacuna check --format json --emit-tests E <copy>` as a user would (no
        `[tool.lacuna]` table: default settings; HOME in a temporary directory) on each pristine
        library and each verified faulty copy; a fault is found at k when one of the k top-ranked
        LCN300 assertions (data.rank) is a test that passes on the faulty copy and fails under
        pytest on the pristine one. With --ablation, every copy is run again for each variant of
        VARIANTS, its `[tool.lacuna.suspicious]` settings appended to the project's own
        pyproject.toml: `similarity0` (the similarity filter off), `unconditional` (no
        conditional invariants), `plain` (plain anomaly detection: every violation, unranked,
        no filter, no conditional invariants); `neighbours` (inputs near your tests' tried
        once coverage is done, `neighbours = 64`). Writes DIR/results.json and prints a Markdown
        summary.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "bench_suspicious_faults.json"
NICE = ["nice", "-n", "19"]


def load() -> dict:
    return json.loads(DATA.read_text())


def clean_env(work: Path, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if extra:
        env.update(extra)
    return env


def fetch(work: Path, data: dict) -> None:
    sd = work / "sdists"
    sd.mkdir(parents=True, exist_ok=True)
    for name, lib in data["libraries"].items():
        path = sd / lib["sdist"]
        if not path.exists():
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                 f"{name}=={lib['version']}", "-d", str(sd)],
                check=True,
            )
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != lib["sha256"]:
            sys.exit(f"{path.name}: sha256 {digest} is not the pinned {lib['sha256']}")
        venv = work / "venvs" / name
        if not (venv / "bin" / "python").exists():
            subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *lib["test_deps"]],
                           check=True, env=clean_env(work))


def make_copy(work: Path, data: dict, lib_name: str, dest: Path, fault: dict | None) -> Path:
    """A fresh tree of the sdist at dest (with `.venv` linking to the library's venv), the fault applied."""
    lib = data["libraries"][lib_name]
    if dest.exists():
        shutil.rmtree(dest)
    tmp = dest.parent / (dest.name + ".extract")
    if tmp.exists():
        shutil.rmtree(tmp)
    with tarfile.open(work / "sdists" / lib["sdist"]) as tar:
        tar.extractall(tmp, filter="data")
    (tmp / lib["root"]).rename(dest)
    shutil.rmtree(tmp)
    (dest / ".venv").symlink_to(work / "venvs" / lib_name)
    if fault is not None:
        apply_fault(dest, fault)
    return dest


def apply_fault(root: Path, fault: dict) -> None:
    path = root / fault["file"]
    lines = path.read_text().split("\n")
    got = lines[fault["line"] - 1]
    if got != fault["original"]:
        sys.exit(f"{fault['id']}: line {fault['line']} of {fault['file']} reads {got!r}, not {fault['original']!r}")
    lines[fault["line"] - 1] = fault["replacement"]
    path.write_text("\n".join(lines))


def python_of(work: Path, lib_name: str) -> str:
    return str(work / "venvs" / lib_name / "bin" / "python")


def run_suite(work: Path, data: dict, lib_name: str, root: Path) -> tuple[bool, str]:
    lib = data["libraries"][lib_name]
    env = clean_env(work, {"PYTHONPATH": str((root / lib["import_root"]).resolve())})
    proc = subprocess.run(
        [*NICE, python_of(work, lib_name), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root, env=env, capture_output=True, text=True, timeout=900,
    )
    tail = (proc.stdout.strip().splitlines() or [""])[-1]
    return proc.returncode == 0, tail


WITNESS = """
import sys
sys.path.insert(0, sys.argv[1])
exec(sys.argv[2])
print(repr(eval(sys.argv[3])))
"""


def run_witness(work: Path, data: dict, fault: dict, root: Path) -> tuple[bool, str]:
    lib = data["libraries"][fault["lib"]]
    proc = subprocess.run(
        [python_of(work, fault["lib"]), "-c", WITNESS, str((root / lib["import_root"]).resolve()),
         fault["imports"], fault["witness"]],
        cwd=root, env=clean_env(work), capture_output=True, text=True, timeout=60,
    )
    out = proc.stdout.strip() if proc.returncode == 0 else proc.stderr.strip().splitlines()[-1]
    return proc.returncode == 0, out


def verify(work: Path, data: dict, only: list[str] | None = None) -> dict:
    fetch(work, data)
    old = work / "verify.json"
    report: dict = json.loads(old.read_text()) if only and old.exists() else {"libraries": {}, "faults": {}}
    for name in data["libraries"]:
        root = make_copy(work, data, name, work / "pristine" / name, None)
        ok, tail = run_suite(work, data, name, root)
        report["libraries"][name] = {"suite_passes": ok, "suite": tail}
        print(f"{name}: pristine suite {'passes' if ok else 'FAILS'} ({tail})", flush=True)
    for fault in data["faults"]:
        if only and fault["id"] not in only:
            continue
        root = make_copy(work, data, fault["lib"], work / "faulty" / fault["id"], fault)
        ok, tail = run_suite(work, data, fault["lib"], root)
        p_ok, p_out = run_witness(work, data, fault, work / "pristine" / fault["lib"])
        f_ok, f_out = run_witness(work, data, fault, root)
        valid = ok and p_ok and f_ok and p_out != f_out
        report["faults"][fault["id"]] = {
            "suite_passes": ok, "suite": tail, "pristine": p_out, "faulty": f_out, "valid": valid,
        }
        print(f"{fault['id']}: suite {'passes' if ok else 'FAILS'} ({tail}); "
              f"{fault['witness']}: {p_out} -> {f_out}: {'VALID' if valid else 'INVALID'}", flush=True)
    (work / "verify.json").write_text(json.dumps(report, indent=1))
    return report


def count_assertions(emit: Path) -> tuple[int, int]:
    """(generated tests, generated assertions) in the emitted files: `assert` statements and
    `pytest.raises` blocks."""
    tests = asserts = 0
    for path in sorted(emit.glob("test_lacuna_*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                tests += 1
            elif isinstance(node, ast.Assert):
                asserts += 1
            elif isinstance(node, ast.With):
                for item in node.items:
                    if "raises" in ast.unparse(item.context_expr):
                        asserts += 1
    return tests, asserts


def lacuna_check(work: Path, lacuna: str, root: Path, emit: Path, budget: float | None,
                 timeout: float) -> tuple[dict | None, float]:
    if emit.exists():
        shutil.rmtree(emit)
    cmd = [*NICE, lacuna, "check", "--format", "json", "--emit-tests", str(emit)]
    if budget:
        cmd += ["--budget", str(int(budget))]
    cmd.append(str(root))
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=work, env=clean_env(work), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # The run did not end in time: end it (its own process group) and say so.
        os.killpg(proc.pid, 15)
        proc.communicate()
        return None, time.monotonic() - start
    proc.stdout, proc.stderr = stdout, stderr
    took = time.monotonic() - start
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        sys.exit(f"lacuna check {root} exited {proc.returncode}: {proc.stderr[-2000:]}")
    (emit.parent / (emit.name + ".json")).write_text(proc.stdout)
    return doc, took


def lcn300(doc: dict) -> list[dict]:
    found = []
    for file in doc.get("files", []):
        for diag in file.get("diagnostics", []):
            if diag.get("code") == "LCN300":
                found.append({"path": file.get("path"), **diag})
    found.sort(key=lambda d: d["data"]["rank"])
    return found


def run_tests(work: Path, data: dict, lib_name: str, root: Path, emit: Path, nodes: list[tuple[str, str]],
              tag: str) -> dict[tuple[str, str], str]:
    """Runs the emitted tests `nodes` ((file name, function)) against the tree at root; their
    outcome by node: passed, failed or error."""
    if not nodes:
        return {}
    lib = data["libraries"][lib_name]
    dest = root / f"_lacuna_check_{tag}"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    for file in {f for f, _ in nodes}:
        shutil.copy(emit / file, dest / file)
    xml = work / f"junit-{tag}.xml"
    env = clean_env(work, {"PYTHONPATH": str((root / lib["import_root"]).resolve())})
    args = [f"{dest.name}/{f}::{n}" for f, n in nodes]
    subprocess.run(
        [*NICE, python_of(work, lib_name), "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"--junitxml={xml}", *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=900,
    )
    outcome: dict[tuple[str, str], str] = {}
    if xml.exists():
        for case in ET.parse(xml).getroot().iter("testcase"):
            name = case.get("name", "").split("[")[0]
            file = Path(case.get("classname", "").replace(".", "/")).name + ".py"
            state = "passed"
            for child in case:
                if child.tag in ("failure", "error"):
                    state = "failed" if child.tag == "failure" else "error"
                elif child.tag == "skipped":
                    state = "skipped"
            outcome[(file, name)] = state
    shutil.rmtree(dest)
    return outcome


# The ablation's variants: the `[tool.lacuna.suspicious]` settings each appends.
VARIANTS = {
    "default": "",
    "similarity0": "similarity = 0.0\n",
    "unconditional": "conditional = false\n",
    "plain": "similarity = 0.0\nconditional = false\nrank = false\n",
    "neighbours": "neighbours = 64\n",
}
SUFFIX = {"default": "", "similarity0": "-sim0", "unconditional": "-uncond", "plain": "-plain",
          "neighbours": "-near"}


def measure(work: Path, data: dict, lacuna: str, lib_name: str, fault: dict | None, budget: float | None,
            variant: str, timeout: float) -> dict:
    tag = (fault["id"] if fault else f"pristine-{lib_name}") + SUFFIX[variant]
    root = make_copy(work, data, lib_name, work / "runs" / tag, fault)
    if VARIANTS[variant]:
        with (root / "pyproject.toml").open("a") as f:
            f.write("\n[tool.lacuna.suspicious]\n" + VARIANTS[variant])
    emit = work / "emitted" / tag
    emit.parent.mkdir(parents=True, exist_ok=True)
    doc, took = lacuna_check(work, lacuna, root, emit, budget, timeout)
    if doc is None:
        shutil.rmtree(root)
        return {"tag": tag, "seconds": round(took, 1), "timed_out": True, "tests": 0, "assertions": 0, "lcn300": 0,
                "top": [], "all": [], "first_revealing_rank": None, "revealing_tests": [],
                **{f"found@{k}": False for k in (1, 5, 10, "all")}}
    tests, asserts = count_assertions(emit)
    diags = lcn300(doc)
    result = {
        "tag": tag, "seconds": round(took, 1), "tests": tests, "assertions": asserts, "lcn300": len(diags),
        "top": [
            {"rank": d["data"]["rank"], "function": d["data"].get("function"), "invariant": d["data"].get("invariant"),
             "test": d["data"]["test"].get("name"), "file": Path(d["data"]["test"].get("file") or "").name,
             "message": d.get("message")}
            for d in diags[:10]
        ],
        "all": [{"rank": d["data"]["rank"], "function": d["data"].get("function"),
                 "invariant": d["data"].get("invariant"), "test": d["data"]["test"].get("name"),
                 "file": Path(d["data"]["test"].get("file") or "").name} for d in diags],
    }
    if fault is not None:
        nodes = [(t["file"], t["test"]) for t in result["all"]]
        on_faulty = run_tests(work, data, lib_name, root, emit, nodes, "faulty")
        pristine = work / "pristine" / lib_name
        on_pristine = run_tests(work, data, lib_name, pristine, emit, nodes, tag)
        first = None
        for entry in result["all"]:
            node = (entry["file"], entry["test"])
            entry["on_faulty"] = on_faulty.get(node, "missing")
            entry["on_pristine"] = on_pristine.get(node, "missing")
            entry["reveals"] = entry["on_faulty"] == "passed" and entry["on_pristine"] == "failed"
            if entry["reveals"] and first is None:
                first = entry["rank"]
        # Every emitted test, not only the ranked ones: does any generated test reveal the fault?
        all_nodes = []
        for path in sorted(emit.glob("test_lacuna_*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                    all_nodes.append((path.name, node.name))
        on_p = run_tests(work, data, lib_name, pristine, emit, all_nodes, tag + "-all")
        on_f = run_tests(work, data, lib_name, root, emit, all_nodes, "faulty-all")
        revealing = [f"{f}::{n}" for f, n in all_nodes if on_f.get((f, n)) == "passed" and on_p.get((f, n)) == "failed"]
        result["first_revealing_rank"] = first
        result["revealing_tests"] = revealing
        for k in (1, 5, 10):
            result[f"found@{k}"] = first is not None and first <= k
        result["found@all"] = first is not None
    for t in result["top"]:
        match = next((e for e in result["all"] if e["rank"] == t["rank"]), {})
        t.update({k: match[k] for k in ("on_faulty", "on_pristine", "reveals") if k in match})
    shutil.rmtree(root)
    return result


def summary(data: dict, results: dict) -> str:
    out = []
    for variant in VARIANTS:
        runs = results.get(variant)
        if not runs:
            continue
        faults = [r for r in runs["faults"].values()]
        n = len(faults)
        out.append(f"### {variant}: {n} faults")
        for k in (1, 5, 10, "all"):
            c = sum(1 for r in faults if r[f"found@{k}"])
            out.append(f"- Found@{k}: {c}/{n}")
        lcn = sum(r["lcn300"] for r in faults)
        asserts = sum(r["assertions"] for r in faults)
        out.append(f"- faulty copies: {lcn} LCN300 of {asserts} generated assertions "
                   f"({100 * lcn / max(asserts, 1):.2f}%)")
        pl = sum(r["lcn300"] for r in runs["pristine"].values())
        pa = sum(r["assertions"] for r in runs["pristine"].values())
        out.append(f"- pristine: {pl} LCN300 of {pa} generated assertions ({1000 * pl / max(pa, 1):.1f} per 1,000)")
        out.append("")
        out.append("| fault | LCN300 | assertions | first revealing rank | revealing generated tests | seconds |")
        out.append("| --- | ---: | ---: | ---: | ---: | ---: |")
        for fid, r in runs["faults"].items():
            out.append(f"| {fid} | {r['lcn300']} | {r['assertions']} | {r['first_revealing_rank'] or '—'} | "
                       f"{len(r['revealing_tests'])} | {r['seconds']} |")
        for lib, r in runs["pristine"].items():
            out.append(f"| pristine {lib} | {r['lcn300']} | {r['assertions']} | | | {r['seconds']} |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["verify", "run", "summary"])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--lacuna")
    ap.add_argument("--budget", type=float, default=None, help="lacuna check --budget SECONDS")
    ap.add_argument("--ablation", action="store_true", help="also run every variant of the ablation")
    ap.add_argument("--variants", nargs="*", choices=list(VARIANTS), help="the variants to run (default: default)")
    ap.add_argument("--only", nargs="*", help="fault ids (default: every valid fault)")
    ap.add_argument("--libs", nargs="*", help="libraries, in this order (default: all, as in the data)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds before a lacuna run is ended")
    args = ap.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    data = load()
    if args.command == "verify":
        verify(work, data, args.only)
        return
    results_path = work / "results.json"
    if args.command == "summary":
        print(summary(data, json.loads(results_path.read_text())))
        return
    report = json.loads((work / "verify.json").read_text()) if (work / "verify.json").exists() else verify(work, data)
    valid = [f for f in data["faults"] if report["faults"].get(f["id"], {}).get("valid")]
    if args.only:
        valid = [f for f in valid if f["id"] in args.only]
    lacuna = str(Path(args.lacuna).resolve())
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    variants = list(VARIANTS) if args.ablation else (args.variants or ["default"])
    for variant in variants:
        runs = results.setdefault(variant, {"pristine": {}, "faults": {}})
        for name in args.libs or list(data["libraries"]):
            if name not in runs["pristine"]:
                runs["pristine"][name] = measure(work, data, lacuna, name, None, args.budget, variant, args.timeout)
                results_path.write_text(json.dumps(results, indent=1))
                r = runs["pristine"][name]
                print(f"[{variant}] pristine {name}: {r['lcn300']} LCN300, {r['assertions']} assertions, "
                      f"{r['seconds']} s" + (" (TIMED OUT)" if r.get("timed_out") else ""), flush=True)
            for fault in valid:
                if fault["lib"] != name or fault["id"] in runs["faults"]:
                    continue
                r = measure(work, data, lacuna, fault["lib"], fault, args.budget, variant, args.timeout)
                runs["faults"][fault["id"]] = r
                results_path.write_text(json.dumps(results, indent=1))
                print(f"[{variant}] {fault['id']}: {r['lcn300']} LCN300, {r['assertions']} assertions, "
                      f"first revealing rank {r['first_revealing_rank']}, {len(r['revealing_tests'])} revealing tests, "
                      f"{r['seconds']} s" + (" (TIMED OUT)" if r.get("timed_out") else ""), flush=True)
    print(summary(data, results))


if __name__ == "__main__":
    main()
