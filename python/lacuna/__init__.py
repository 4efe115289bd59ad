"""Lacuna: the `lacuna` binary, installed with this package.

The wheel puts the binary in `lacuna.scripts/` beside this package in `site-packages` (with its
own copy of the z3 library in `lacuna.libs/`), and a launcher for it in the environment's
`bin/`. `python -m lacuna ARGS` runs the binary with the same arguments (see `__main__`).
"""

from __future__ import annotations

import os
import sysconfig

__all__ = ["find_lacuna_bin"]


def find_lacuna_bin() -> str:
    """The path of the `lacuna` binary installed with this package."""
    exe = "lacuna" + (sysconfig.get_config_var("EXE") or "")
    site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Beside the package (maturin's layout when it copies the z3 library in), then the
    # environment's scripts directory (a wheel built without a library to copy).
    candidates = [
        os.path.join(site, "lacuna.scripts", exe),
        os.path.join(sysconfig.get_path("scripts"), exe),
    ]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK) and _is_binary(candidate):
            return candidate
    raise FileNotFoundError(
        "the `lacuna` binary is not installed with this package; looked for " + ", ".join(candidates)
    )


def _is_binary(path: str) -> bool:
    # The environment's `bin/lacuna` may be a Python launcher for the binary: not what we exec.
    with open(path, "rb") as f:
        return f.read(2) != b"#!"
