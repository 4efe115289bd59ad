"""Every module of a set of real PyPI packages imported twice: by plain Python, and as project
code under Lacuna's agent (its import hook: the builtins project code sees, the recording
wrappers of library code). A module that imports plainly and not under the agent is a module
`lacuna check` cannot explore at all.

    python3 scripts/bench_imports.py --work DIR [--agent analysis/agent]

The packages are pinned below. The script makes a venv in DIR with them, copies each package's
source into DIR/project (so the agent treats it as the project's code), then, one fresh process
per module and way, imports it: first plainly (modules that fail there, optional dependencies
missing, are left out), then through the agent's `Runtime` configured on DIR/project, with HOME
in DIR. Prints, per package, the modules importable plainly and those of them that fail under
the agent, with the last line of each failure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

# Chosen before anything ran on them; `cattrs` and `pydantic_extra_types` use attrs and pydantic.
PACKAGES = {
    "click": "click==8.1.7",
    "requests": "requests==2.32.3",
    "rich": "rich==13.9.4",
    "markdown_it": "markdown-it-py==3.0.0",
    "pyparsing": "pyparsing==3.2.0",
    "dateutil": "python-dateutil==2.9.0.post0",
    "packaging": "packaging==24.2",
    "tomlkit": "tomlkit==0.13.2",
    "marshmallow": "marshmallow==3.23.1",
    "cattrs": "cattrs==24.1.2",
    "sqlparse": "sqlparse==0.5.2",
    "jinja2": "jinja2==3.1.4",
    "jsonschema": "jsonschema==4.23.0",
    "pydantic_extra_types": "pydantic-extra-types==2.10.0",
}

PLAIN = "import importlib, sys; sys.path.insert(0, sys.argv[1]); importlib.import_module(sys.argv[2])"

AGENT = """
import importlib, sys, tempfile
sys.path.insert(0, sys.argv[3])
from lacuna_agent.execute import Runtime
from lacuna_agent.sandbox import Guard, Sandbox
sandbox = Sandbox()
runtime = Runtime(sandbox, Guard(sandbox))
runtime.configure({"id": 1, "op": "configure", "roots": [sys.argv[1]], "sys_path": [sys.argv[1]],
                   "scratch": tempfile.mkdtemp(), "memory_mb": 4096, "max_events": 5000,
                   "sandbox": {"allow_write": [], "allow_network": False,
                               "allow_subprocess": False}})
importlib.import_module(sys.argv[2])
"""


def modules(root: Path, package: str) -> list[str]:
    out = []
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append(".".join(parts))
    return out


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "?"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True, type=Path)
    parser.add_argument("--agent", type=Path, default=Path(__file__).parent.parent / "analysis/agent")
    args = parser.parse_args()
    work = args.work.resolve()
    agent = args.agent.resolve()
    venv = work / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PACKAGES.values()], check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    project = work / "project"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    for package in PACKAGES:
        shutil.copytree(site / package, project / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, HOME=str(work / "home"))
    (work / "home").mkdir(exist_ok=True)
    print("| package | modules | importable plainly | failing under the agent |")
    print("|---|---|---|---|")
    failures = []
    total = [0, 0, 0]
    for package in PACKAGES:
        names = modules(project, package)
        plain = failing = 0
        for name in names:
            run = lambda code, *extra: subprocess.run(  # noqa: E731
                [str(python), "-c", code, str(project), name, *extra],
                capture_output=True, text=True, timeout=120, env=env, cwd=str(work))
            if run(PLAIN).returncode != 0:
                continue
            plain += 1
            under = run(AGENT, str(agent))
            if under.returncode != 0:
                failing += 1
                failures.append((name, last_line(under.stderr)))
        total = [total[0] + len(names), total[1] + plain, total[2] + failing]
        print(f"| {package} | {len(names)} | {plain} | {failing} |", flush=True)
    print(f"| all | {total[0]} | {total[1]} | {total[2]} |")
    for name, why in failures:
        print(f"- `{name}`: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
